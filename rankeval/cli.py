r"""Command line: ``python -m rankeval [options] QRELS RUN [RUN ...]``, trec_eval style.

The arguments and the output follow trec_eval, so that scripts written for it
work unchanged::

    python -m rankeval qrels.txt run.txt -m ndcg_cut.10 -m P.5,10
    python -m rankeval -q -c -m map qrels.txt run.txt
    python -m rankeval qrels.txt bm25.run dense.run -m nDCG@10 AP --format markdown

- ``-m`` takes trec_eval's names (``P.5,10``, ``ndcg_cut.10``, ``recall.100``,
  ``map``), its sets ``official`` and ``all_trec``, and ir_measures names
  (``nDCG@10``, ``AP``, ``RBP(p=0.9)``); several after one ``-m``, and a
  repeated ``-m`` adds to them. Options may come before or after the files.
  ``all_trec``'s ``relstring`` (each query's top grades as a string, not a
  number) is not computed: with ``-q``, where trec_eval prints it, a note on
  stderr says so.
- Output lines are ``measure<TAB>query<TAB>value``, the measure name padded to
  22 characters and 4 decimals, as trec_eval's ``"%-22s\t%s\t%6.4f"``: with
  ``-q`` every query's lines first (queries sorted, measures in order), then
  the summary under the query name ``all``. Counts (``num_ret``, ``num_rel``,
  ``num_rel_ret``) are printed as integers and summed on the ``all`` line, as
  trec_eval does; the other measures are averaged. When every ``-m`` is a
  trec_eval name, the output is trec_eval's: its measure names, its order of
  measures, and ``runid`` / ``num_q`` lines only when asked for (``official``
  and ``all_trec`` include them). With ir_measures names, the names are
  printed as given and the summary always starts with ``num_q``.
- ``num_q`` is the number of queries the means are taken over: with ``-c``,
  every judged query. A query the run does not contain has no first relevant
  position, so ``-c`` with ``FRP`` or ``MR`` without a cut-off is an error
  that asks for one (``FRP@1000`` scores such a query 1001); should a measure
  ever have no value for some queries, its mean skips them and a line
  ``num_q(MEASURE)`` gives its own count, so that no mean is printed beside a
  count it does not use. With ``-c -q``, a judged query missing from the run
  gets its per-query lines (its values as an empty ranking), as trec_eval 10
  prints them ("-c mode now prints out skipped queries in -q mode", its
  CHANGELOG); ``--skip-missing-lines`` gives trec_eval 9's output, without them.
- ``--subtopics`` evaluates diversity as ndeval does (:func:`rankeval.evaluate_diversity`):
  QRELS is then a subtopic qrels file (``query subtopic doc grade``, as the TREC
  Web tracks' ``qrels.diversity``), ``-m`` takes ``alpha-nDCG@k``, ``alpha-DCG@k``,
  ``ERR-IA@k`` and ``nERR-IA@k`` (default ``alpha-nDCG@20 ERR-IA@20``), ``--alpha``
  sets ndeval's ``-alpha``, and ``-c``, ``-l``, ``-M`` keep their meanings. The run
  is ordered as ndeval ``-traditional`` orders it: by score, ties by document id
  descending.
- Several runs give one block each (starting with a ``runid`` line); other
  formats: ``--format tsv``, ``jsonl`` (one JSON object per line with run,
  query, measure, value, as ir_measures prints), ``markdown`` and ``latex``
  (a table of means, one row per run; with several runs on the same two or
  more queries, :func:`rankeval.report` of :func:`rankeval.compare`: best mean in bold,
  significant wins marked after a Holm correction over the whole table; a
  measure on which two runs differ by the same amount on every query has no
  t-test, and the line under the table names it).

Errors in the input (unknown measure, malformed line, duplicate document,
unreadable file) print one line ``rankeval: error: ...`` on stderr and exit
with status 1; bad command-line usage exits with status 2. Output into a
closed pipe (``| head -1``) ends quietly with status 0.

Chapter: :doc:`/chapters/14_evaluating_a_run`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys

__all__ = ["main"]

_FORMATS = ("trec_eval", "tsv", "jsonl", "markdown", "latex")


# ---------------------------------------------------------------- measures ---


def _parse_items(items):
    """-m items -> (measures, labels, trec_mode, runid_wanted)."""
    from .measures import parse_measure, trec_eval

    measures, labels, trec_flags = [], [], []
    runid = False
    for item in items:
        item = item.strip()
        if not item:
            raise ValueError("an empty measure name was given to -m")
        if trec_eval.wants_runid(item):
            runid = True
        trec = trec_eval.is_trec_eval_syntax(item)
        trec_flags.append(trec)
        if item == "runid":
            continue
        parsed = trec_eval.parse_trec_eval(item) if trec else [parse_measure(item)]
        for m in parsed:
            label = trec_eval.label(item, m) if trec else item
            if label in labels:  # one line per name asked for (map and AP: two)
                continue
            measures.append(m)
            labels.append(label)
    trec_mode = bool(trec_flags) and all(trec_flags)
    if trec_mode:  # trec_eval's order: its measure table, then increasing cut-off
        order = sorted(
            range(len(measures)),
            key=lambda i: (trec_eval.print_order(labels[i]), _cutoff_key(measures[i])),
        )
        measures = [measures[i] for i in order]
        labels = [labels[i] for i in order]
    return measures, labels, trec_mode, runid


def _note_left_out(items) -> None:
    """A line on stderr for each member of a trec_eval set that is not printed: with -q,
    trec_eval prints all_trec's relstring for every query, which rankeval does not compute."""
    from .measures import trec_eval

    for item in dict.fromkeys(i.strip() for i in items):
        for name, reason in trec_eval.left_out(item):
            print(f"rankeval: note: -m {item}: {name} is not printed (trec_eval prints it for "
                  f"every query with -q): {reason}", file=sys.stderr)


def _cutoff_key(m) -> float:
    if m.cutoff is not None:
        return float(m.cutoff)
    for _, v in getattr(m, "params", ()):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    return -1.0


def _measure_help() -> str:
    """One line per measure for ``--help``, generated from the measure declarations."""
    from .measures import describe

    return describe()


# ----------------------------------------------------------------- parsing ---


def _digits(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 17, got {text!r}") from None
    if not 0 <= value <= 17:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 17, got {value}")
    return value


def _presets() -> tuple:
    from .evaluation.conventions import PRESETS

    return tuple(PRESETS)


def _no_relevant(text: str):
    """``--no-relevant``: a number, or ``none``."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'none', got {text!r}") from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def _memory(text: str) -> str:
    """``--max-memory``: a size such as ``512MB`` or ``2GB`` (checked here, so that a bad
    one is a usage error naming the option), or ``none``; kept as typed."""
    if text.strip().lower() == "none":
        return text
    from .evaluation.bounded import parse_memory

    try:
        parse_memory(text)
    except (ValueError, TypeError) as err:
        if "at least" in str(err):
            raise argparse.ArgumentTypeError(f"must be at least 1MB, got {text!r}") from None
        raise argparse.ArgumentTypeError(
            f"must be a size such as 512MB or 2GB, or 'none', got {text!r}"
        ) from None
    return text


def _prog() -> str:
    """The program's name as invoked: ``rankeval-eval`` (the installed script) or
    ``python -m rankeval``."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if not name or name in ("__main__.py", "-c", "-m") or name.startswith("python"):
        return "python -m rankeval"
    return name


class _ListMeasures(argparse.Action):
    """``--list-measures``: print every measure (from the declarations) and exit."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from .measures import describe

        sys.stdout.write(describe() + "\n")
        parser.exit(0)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=_prog(),
        usage="%(prog)s [options] QRELS RUN [RUN ...]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Evaluate TREC runs against TREC qrels, as trec_eval does: one line\n"
            "'measure<TAB>query<TAB>value' per measure, the mean (or, for counts, the sum)\n"
            "over queries under the query 'all'; -q adds every query's lines first."
        ),
        epilog="measures (ir_measures name; trec_eval's names such as P.10, ndcg_cut.10,\n"
        "map, recall.100, and the sets official and all_trec work too):\n" + "{measures}",
    )
    # the package's __version__: the package is loaded before any of its modules, so this
    # reads an attribute of the front door without importing it (cli sits below the front)
    version = sys.modules[__name__.rpartition(".")[0]].__version__
    p.add_argument("--version", action="version", version=f"%(prog)s (rankeval) {version}")
    p.add_argument(
        "--list-measures", action=_ListMeasures,
        help="print every measure (name, parameters, meaning, trec_eval names) and exit",
    )  # fmt: skip
    p.add_argument(
        "files", nargs="*", metavar="QRELS RUN", help="qrels file, then run file(s); '-' is stdin"
    )
    p.add_argument(
        "-m", "--measures", "--measure", action=_MeasureGroups, nargs="+", default=None,
        metavar="MEASURE", dest="measures",
        help="measures: trec_eval names (P.5,10 ndcg_cut.10 official all_trec) or ir_measures "
        "names (nDCG@10 AP 'RBP(p=0.9)'); repeat -m to add more. Default: official, as "
        "trec_eval",
    )  # fmt: skip
    p.add_argument(
        "-q", "--per-query", "--query_eval_wanted", action="store_true", dest="per_query",
        help="also print every query's values (trec_eval -q)",
    )  # fmt: skip
    p.add_argument(
        "-c", "--complete", "--complete_rel_info_wanted", action="store_const", const="zero",
        default="skip", dest="missing",
        help="average over every judged query: a query missing from the run scores 0 "
        "(trec_eval -c; with -q, its lines are printed too, as trec_eval 10 prints them)",
    )  # fmt: skip
    p.add_argument(
        "--skip-missing-lines", action="store_true", dest="skip_missing_lines",
        help="with -c -q: no per-query line for a judged query missing from the run, as "
        "trec_eval 9 printed (trec_eval 10 prints them; --format tsv and jsonl always do)",
    )  # fmt: skip
    _add_settings(p)
    _add_outputs(p)
    return p


def _add_settings(p) -> None:
    """The options of the conventions (each a field of rankeval.Conventions, or how
    the run and the qrels are read)."""
    p.add_argument(
        "-l", "--level", "--level_for_rel", type=float, default=argparse.SUPPRESS, metavar="GRADE",
        dest="threshold", help="relevance threshold of the binary measures (trec_eval -l; default 1)",
    )  # fmt: skip
    p.add_argument(
        "-J", "--judged-only", "--Judged_docs_only", action="store_true", dest="judged_only",
        default=argparse.SUPPRESS,
        help="drop unjudged documents before scoring (trec_eval -J)",
    )  # fmt: skip
    p.add_argument(
        "-M", "--max-docs", "--Max_retrieved_per_topic", type=_positive, default=argparse.SUPPRESS,
        metavar="N", dest="max_docs",
        help="evaluate only the top N documents of each query after ranking (trec_eval -M)",
    )  # fmt: skip
    p.add_argument(
        "--max-memory", default="512MB", type=_memory, metavar="SIZE", dest="max_memory",
        help="read a run file larger than an eighth of SIZE in batches, within about this "
        "memory (e.g. 512MB, 2GB; 'none' reads it at once); the same values; the qrels "
        "stay in memory (default: 512MB)",
    )  # fmt: skip
    p.add_argument(
        "--encoding", default="utf-8", metavar="CODEC",
        help="text encoding of the qrels and run files, and of the results written "
        "(default utf-8); latin-1 reads any bytes, as trec_eval, and writes every id back "
        "as its bytes",
    )  # fmt: skip
    p.add_argument(
        "-n", "--no-summary", "--nosummary", action="store_true", dest="no_summary",
        help="do not print the summary ('all') lines (trec_eval -n)",
    )  # fmt: skip
    p.add_argument(
        "--ties", choices=("trec_eval", "input", "average"), default=argparse.SUPPRESS,
        help="order of equal scores (default: doc id descending, as trec_eval)",
    )  # fmt: skip
    p.add_argument(
        "--ideal", choices=("judged", "retrieved"), default=argparse.SUPPRESS,
        help="relevant set from all judged documents (default) or the retrieved ones",
    )  # fmt: skip
    p.add_argument(
        "--score-precision", choices=("double", "float"), default=argparse.SUPPRESS,
        help="compare scores as 64-bit doubles (trec_eval 10, default) or 32-bit floats "
        "(trec_eval 9, pytrec_eval)",
    )  # fmt: skip
    p.add_argument(
        "--grades", choices=("float", "trec_eval"), default="float",
        help="keep fractional grades (default) or truncate them to integers as trec_eval reads them",
    )  # fmt: skip
    p.add_argument(
        "--gain", choices=("linear", "exponential"), default=argparse.SUPPRESS,
        help="gain of nDCG and DCG (that do not name their own): the grade (default) or "
        "2^grade - 1 (LightGBM, XGBoost)",
    )  # fmt: skip
    p.add_argument(
        "--no-relevant", type=_no_relevant, default=argparse.SUPPRESS, metavar="VALUE",
        dest="no_relevant",
        help="value of the measures bounded by [0, 1] for a query with no relevant "
        "document ('none', the default: the measure's own; 1 in LightGBM and XGBoost)",
    )  # fmt: skip
    p.add_argument(
        "--conventions", choices=_presets(), default=None, metavar="PRESET",
        help="the conventions of a tool: " + ", ".join(_presets()) + "; the options "
        "given (--ties, -l, --gain, ...) override it, as the keywords of "
        "rankeval.evaluate override its conventions= (default: trec_eval's)",
    )  # fmt: skip


def _add_outputs(p) -> None:
    """The options of diversity, of the significance tests and of the output."""
    p.add_argument(
        "--subtopics", action="store_true",
        help="diversity, as ndeval: QRELS holds subtopic judgments ('query subtopic doc "
        "grade', as TREC's qrels.diversity) and the measures are alpha-nDCG@k, "
        "alpha-DCG@k, ERR-IA@k and nERR-IA@k (default: alpha-nDCG@20 ERR-IA@20); "
        "-c, -l, -M and --score-precision apply",
    )  # fmt: skip
    p.add_argument(
        "--alpha", type=float, default=None, metavar="A",
        help="with --subtopics: redundancy intolerance, in [0, 1) (ndeval -alpha; "
        "default 0.5); with --format markdown or latex: the significance level of the "
        "tests (default 0.05)",
    )  # fmt: skip
    p.add_argument(
        "--test", choices=("t", "wilcoxon", "permutation"), default=None,
        help="--format markdown or latex with several runs: the paired test (default t)",
    )  # fmt: skip
    p.add_argument(
        "--correction", choices=("holm", "bonferroni", "bh", "none"), default=None,
        help="--format markdown or latex: the multiple-comparison correction over the "
        "whole table (default holm)",
    )  # fmt: skip
    p.add_argument(
        "--baseline", default=None, metavar="RUN",
        help="--format markdown or latex: compare every run with this one (its tag, or its "
        "file name when tags are shared) instead of every pair",
    )  # fmt: skip
    p.add_argument(
        "--rounding", choices=("nearest", "trec_eval9"), default=argparse.SUPPRESS,
        dest="recall_rounding", help="recall levels of iprec_at_recall and 11pt_avg: level x R rounded to the "
        "nearest count (trec_eval 10, default) or as trec_eval 9 and pytrec_eval do",
    )  # fmt: skip
    p.add_argument(
        "--ap-denominator", choices=("R", "min(k,R)"), default=argparse.SUPPRESS,
        dest="ap_denominator", help="what map_cut (AP@k) divides by: every relevant "
        "document (trec_eval, default) or min(k, R), the recommender MAP@k of RecBole, "
        "Microsoft Recommenders and Spark MLlib",
    )  # fmt: skip
    p.add_argument(
        "--rbp-gain", choices=("binary", "grade"), default=argparse.SUPPRESS,
        dest="rbp_gain", help="the gain of RBP without rel or max_grade: 1 for a relevant "
        "grade (default) or the grade itself (ir_measures' RBP)",
    )  # fmt: skip
    p.add_argument(
        "--digits", type=_digits, default=4, metavar="N",
        help="decimals printed, 0 to 17 (default 4, as trec_eval)",
    )  # fmt: skip
    p.add_argument(
        "--format", choices=_FORMATS, default="trec_eval", dest="format",
        help="trec_eval text (default), tsv, jsonl (one JSON object per line), or a table of "
        "means as markdown or latex",
    )  # fmt: skip


def _measure_like(item: str) -> bool:
    from .measures import parse_measure, trec_eval

    try:
        if trec_eval.is_trec_eval_syntax(item):
            trec_eval.parse_trec_eval(item)
        else:
            parse_measure(item)
    except (ValueError, TypeError):
        return False
    return True


class _MeasureGroups(argparse.Action):
    """``-m``: the measures of each occurrence, kept as one group (a list of lists), so
    that :func:`_parse_args` knows which item followed an ``-m`` (always a measure)."""

    def __call__(self, parser, namespace, values, option_string=None):
        groups = getattr(namespace, self.dest, None) or []
        setattr(namespace, self.dest, [*groups, list(values)])


def _in_command_order(files, argv):
    """``files`` sorted by where they stand on the command line."""
    taken, keyed = set(), []
    for k, f in enumerate(files):
        i = next((i for i, a in enumerate(argv) if a == f and i not in taken), None)
        if i is None:
            return files
        taken.add(i)
        keyed.append((i, k))
    return [files[k] for _, k in sorted(keyed)]


def _parse_args(argv):
    parser = _parser()
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    if any(a in ("-h", "--help") for a in argv):
        parser.epilog = parser.epilog.replace("{measures}", _measure_help())
    args = parser.parse_intermixed_args(argv)
    # "-m P@2 QRELS RUN": -m takes several measures, so it swallowed the files;
    # give back to the positionals the trailing items of each -m that are files, not
    # measures ("-m P.10 QRELS RUN -m map": the first -m's). The item right after an -m
    # is always a measure, even where a file of that name exists. An item that is no
    # path is given back only while QRELS and RUN are still missing, so that a misspelt
    # or unknown measure ("-m map Ndgc@10 q r", "-m map runid q r") stays a measure and
    # is reported as one.
    groups = args.measures or []
    if groups:  # ("QRELS A.run -m P.5 B.run": B.run is a run, not a measure)
        moved = []
        for group in groups:
            tail = []
            while len(group) > 1:
                item = group[-1]
                missing_files = len(args.files) + len(moved) + len(tail) < 2
                if item == "-" or os.path.exists(item) or (
                    missing_files and not _measure_like(item)
                ):
                    tail.insert(0, group.pop())
                else:
                    break
            moved += tail
        args.files = _in_command_order(args.files + moved, argv)
    args.measures = [m for group in groups for m in group] or None
    if len(args.files) < 2:
        parser.error("expected QRELS and at least one RUN file (e.g. qrels.txt run.txt)")
    if args.files.count("-") > 1:
        parser.error("'-' (standard input) can be given once only")
    if args.format in ("markdown", "latex") and args.per_query:
        parser.error(f"-q prints per-query lines; --format {args.format} is a table of means")
    if args.subtopics:
        unused = [flag for flag, used in (
            ("-J", getattr(args, "judged_only", False)),
            ("--ties", getattr(args, "ties", "trec_eval") != "trec_eval"),
            ("--ideal", getattr(args, "ideal", "judged") != "judged"),
            ("--grades", args.grades != "float"), ("--gain", hasattr(args, "gain")),
            ("--no-relevant", hasattr(args, "no_relevant")),
            ("--conventions", args.conventions is not None),
        ) if used]  # fmt: skip
        if unused:
            parser.error(f"{', '.join(unused)}: not defined for --subtopics (diversity "
                         "ranks by score, ties by document id descending, as ndeval "
                         "-traditional)")
    table = args.format in ("markdown", "latex")
    given = [flag for flag, value in (("--test", args.test), ("--correction", args.correction),
                                      ("--baseline", args.baseline)) if value is not None]
    if given and not table:
        parser.error(f"{', '.join(given)}: options of the significance tests of --format "
                     "markdown and latex")
    if args.alpha is not None and not args.subtopics:
        if not table:
            parser.error("--alpha is the diversity measures' alpha (with --subtopics) or the "
                         "significance level of --format markdown and latex")
        if not 0 < args.alpha < 1:
            parser.error(f"--alpha as a significance level must lie in (0, 1), got {args.alpha}")
    return parser, args


# ------------------------------------------------------------------ inputs ---


def _once(path, inputs, budget):
    """A run named on the command line, readable twice (for its tag, then its data): a
    regular file stays a path; standard input (``-``) or a pipe (``<(zcat run.gz)``, a
    FIFO) is copied once, in blocks, to a spill folder (entered on ``inputs``, removed at
    the end, also on Ctrl-C or SIGTERM) and read from the copy within ``budget`` (bytes)
    under its own name; with no budget (``--max-memory none``, ``--subtopics``, ``-m
    runid`` alone: the run is read at once) it is read into memory once."""
    if path != "-" and (os.path.isfile(path) or not os.path.exists(path)):
        return path  # missing paths: the reader says so
    if budget is None:
        if path == "-":
            return _read_stdin()
        with open(path, "rb") as f:
            buffer = io.BytesIO(f.read())
        buffer.name = path
        return buffer
    from .evaluation.bounded import block_size, spill_directory
    from .io.stream import copy_in_blocks

    if not hasattr(inputs, "folder"):
        inputs.folder = inputs.enter_context(spill_directory())
    return copy_in_blocks(path, inputs.folder, block_size(budget))


def _read_stdin():
    """Standard input, read once, named ``<stdin>`` in messages (as the reader names it):
    the qrels (held in memory in any case), or a run read at once."""
    if sys.stdin is None:  # started with standard input closed (`<&-`)
        raise ValueError("'-' names standard input, which is closed: nothing to read")
    buffer = io.BytesIO(getattr(sys.stdin, "buffer", sys.stdin).read())
    buffer.name = "<stdin>"
    return buffer


def _budget(max_memory):
    """``--max-memory`` in bytes, or None for ``none``."""
    from .evaluation.bounded import parse_memory

    return None if str(max_memory).lower() == "none" else parse_memory(max_memory)


def _check_distinct(paths, names, format) -> None:
    """ValueError if two runs of a table would have one name: runs are named by their
    tags when every run has its own, else by their paths, so only a file given twice
    can collide."""
    seen = set()
    for path, name in zip(paths, names, strict=True):
        if name in seen:
            raise ValueError(
                f"run file {path} is given twice: --format {format} makes a table with "
                "one row per run (named by its tag, or by its file name when tags are "
                "shared); give each run file once"
            )
        seen.add(name)


def _load_qrels(source, subtopics=False, encoding="utf-8"):
    """The qrels, read once for every run, as the canonical Arrow table."""
    from .io.canonical import canonical_table, plain_ids, qrels_table

    if subtopics:
        return plain_ids(canonical_table(source, "subtopics", None, encoding=encoding))
    return qrels_table(source, encoding=encoding)


def _diversity_items(items):
    """-m items with --subtopics -> (measures, labels), names checked, repeats dropped."""
    from .evaluation.core import check_needs, measures_and_labels

    parsed, columns = measures_and_labels([item.strip() for item in items])
    check_needs(parsed, "subtopics")
    return [parsed[i] for _, i in columns], [label for label, _ in columns]


# --------------------------------------------------------------- evaluate ---


def _settings(args) -> dict:
    """The conventions the flags give: every flag given whose destination is a field of
    :class:`~rankeval.Conventions` (``-l`` is ``threshold``, ``-c`` ``missing``,
    ``--rounding`` ``recall_rounding``, ...); ``missing`` and ``grades`` always (a run
    file skips the queries it lacks unless ``-c``, as trec_eval)."""
    from .evaluation.conventions import SETTINGS

    return {name: getattr(args, name) for name in SETTINGS if hasattr(args, name)}


def _plan(measures, labels, args):
    """The plan of the command line: the flags' conventions through the one resolver,
    the measures of ``-m`` under their printed labels."""
    from .evaluation.plan import make_plan

    return make_plan(measures, args.conventions, _settings(args), labels=labels,
                     caller="rankeval")


def _evaluate(qrels, run, plan, args):
    """(the table, and which of its queries the run has: --skip-missing-lines uses it)."""
    if args.subtopics:
        from .evaluation.diversity import evaluate_diversity
        from .io.canonical import run_table

        measures = plan
        table = evaluate_diversity(
            qrels, run_table(run, encoding=args.encoding), list(measures),
            alpha=0.5 if args.alpha is None else args.alpha,
            threshold=getattr(args, "threshold", 1), missing=args.missing,
            score_precision=getattr(args, "score_precision", "double"),
            max_docs=getattr(args, "max_docs", None),
        )  # fmt: skip
        return table[[str(m) for m in measures]], None
    from .evaluation.runs import run_plan

    max_memory = None if str(args.max_memory).lower() == "none" else args.max_memory
    return run_plan(qrels, run, plan, max_memory=max_memory, encoding=args.encoding)


# ------------------------------------------------------------------- main ---


def _runs(parser, args, inputs, limit):
    """(the runs to read, their names, their tags): each run named by its tag when every
    run has its own, else by its path; ``--baseline`` must name one of them."""
    from .io.trec import run_tag

    run_paths = args.files[1:]
    sources = [_once(p, inputs, limit) for p in run_paths]
    tags = [run_tag(s, args.encoding) for s in sources]
    names = [p if p != "-" else "<stdin>" for p in run_paths]
    if None not in tags and len(set(tags)) == len(tags):
        names = list(tags)
    if args.baseline is not None and args.baseline not in names:
        parser.error(
            f"--baseline {args.baseline!r} names no run: the runs are "
            f"{', '.join(map(repr, names))} (each run's tag, or its file name when "
            "tags are shared)"
        )
    if args.format in ("markdown", "latex"):
        _check_distinct(run_paths, names, args.format)
    return sources, names, tags


def _run(argv) -> int:
    from .reporting.text import RunResult, TextOptions, runid_line, table_text

    parser, args = _parse_args(argv)
    options = TextOptions(
        args.format, args.per_query, args.no_summary, args.digits,
        skip_missing_lines=args.skip_missing_lines, test=args.test,
        correction=args.correction, baseline=args.baseline,
        alpha=None if args.subtopics else args.alpha,
    )  # fmt: skip
    inputs = contextlib.ExitStack()  # the spooled copies of standard input and pipes
    try:
        if args.subtopics:
            measures, labels = _diversity_items(args.measures or ["alpha-nDCG@20",
                                                                  "ERR-IA@20"])
            trec_mode = runid = False
        else:
            items = args.measures or ["official"]
            measures, labels, trec_mode, runid = _parse_items(items)
            if args.per_query:
                _note_left_out(items)
        if not measures and not (runid and args.format == "trec_eval"):
            raise ValueError("no measure to compute: give -m with at least one measure")
        plan = None
        if measures and not args.subtopics:  # the flags -> the one resolver -> a plan
            plan = _plan(measures, labels, args)
            measures = [plan.measures[i] for _, i in plan.columns]
        qrels_path = args.files[0]
        qrels = _load_qrels(_read_stdin() if qrels_path == "-" else qrels_path, args.subtopics,
                            args.encoding)
        limit = None if args.subtopics or not measures else _budget(args.max_memory)
        sources, names, tags = _runs(parser, args, inputs, limit)
        if not measures:  # `-m runid` alone: as trec_eval, only each run's tag
            from .io.trec import read_run

            for source in sources:  # each run is read (and checked) all the same
                read_run(source, as_table=True, encoding=args.encoding)
            one = len(names) == 1
            text = "".join(runid_line((tag or name) if one else name)
                           for name, tag in zip(names, tags, strict=True))
        else:
            results = []
            for source, name, tag in zip(sources, names, tags, strict=True):
                table, in_run = _evaluate(qrels, source, plan or measures, args)
                results.append(RunResult(name, tag, table, measures, labels, trec_mode,
                                         runid, in_run))
            one_table = args.format in ("markdown", "latex")
            text = table_text(results, options) if one_table else None
    except (ValueError, TypeError, OSError, LookupError) as err:
        message = " ".join(str(err).split())  # one line
        print(f"rankeval: error: {message}", file=sys.stderr)
        return 1
    finally:
        inputs.close()
    return _write(text, results if text is None else None, options, args.encoding)


def _write(text, results, options, encoding) -> int:
    """Write the table ``text``, or the lines of ``results``, to standard output in
    ``encoding``; the exit status."""
    from .reporting.text import lines, write_lines

    out = sys.stdout
    if out is None:  # started with standard output closed (`>&-`)
        print("rankeval: error: standard output is closed: nothing to write the results to",
              file=sys.stderr)
        return 1
    write = out.write
    if encoding.lower().replace("-", "").replace("_", "") != "utf8" \
            and hasattr(out, "buffer"):  # the ids as they were read: the same bytes
        out.flush()

        def write(part, raw=out.buffer, codec=encoding):
            raw.write(part.encode(codec))

    try:
        if text is not None:
            write(text)
        else:
            write_lines(lines(results, options), write)
        out.flush()
    except BrokenPipeError:
        raise  # (main: the reader stopped reading, which is no error)
    except OSError as err:  # a full disk, a closed descriptor, ...
        print(f"rankeval: error: cannot write the results: {err.strerror or err}",
              file=sys.stderr)
        _quiet_stdout()
        return 1
    return 0


def _quiet_stdout() -> None:
    """Point standard output at devnull, so that the flush at exit cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    try:
        return _run(argv)
    except BrokenPipeError:
        # The reader closed the pipe (``| head -1``): stop quietly, as the Python docs
        # recommend, pointing stdout at devnull so the exit-time flush cannot fail again.
        _quiet_stdout()
        return 0
