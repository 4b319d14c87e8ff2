// Typeset TeX with MathJax (mathjax-full, the version the website serves) and report errors.
// Input on stdin: a JSON list of {"id": ..., "tex": ..., "display": bool}. Output on stdout:
// a JSON list of {"id": ..., "error": message} for every formula MathJax rejects.
// Every TeX package the website's tex-mml-chtml component can load (AllPackages) is on,
// except "noundefined", so that an undefined macro is an error, not red text.
const root = process.argv[2];  // the node_modules folder that holds mathjax-full
const req = (m) => require(require.resolve(m, {paths: [root]}));
const {mathjax} = req('mathjax-full/js/mathjax.js');
const {TeX} = req('mathjax-full/js/input/tex.js');
const {liteAdaptor} = req('mathjax-full/js/adaptors/liteAdaptor.js');
const {RegisterHTMLHandler} = req('mathjax-full/js/handlers/html.js');
const {AllPackages} = req('mathjax-full/js/input/tex/AllPackages.js');
const {SerializedMmlVisitor} = req('mathjax-full/js/core/MmlTree/SerializedMmlVisitor.js');

const adaptor = liteAdaptor();
RegisterHTMLHandler(adaptor);
let last = null;
const tex = new TeX({
  packages: AllPackages.filter((p) => !['noundefined', 'autoload', 'require', 'bussproofs'].includes(p)),
  formatError: (jax, err) => { last = err.message; return jax.formatError(err); },
});
const doc = mathjax.document('', {InputJax: tex});
const visitor = new SerializedMmlVisitor();
let data = '';
process.stdin.on('data', (c) => { data += c; });
process.stdin.on('end', () => {
  const out = [];
  for (const item of JSON.parse(data)) {
    last = null;
    try {
      const node = doc.convert(item.tex, {display: item.display});
      const mml = visitor.visitTree(node);
      if (last === null && mml.includes('merror')) last = 'merror in the output';
    } catch (e) {
      last = String(e.message || e);
    }
    if (last !== null) out.push({id: item.id, error: last});
  }
  process.stdout.write(JSON.stringify(out));
});
