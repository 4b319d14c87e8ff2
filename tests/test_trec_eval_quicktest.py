"""trec_eval 10's ``make quicktest``, argument line by argument line, through rankeval's CLI.

trec_eval's Makefile runs its binary on the files of its ``test/`` folder and diffs the
output with the expected files there. The same argument lines go through
``rankeval.cli.main`` here, and every output line is compared with trec_eval's: the
measure name, the query, and the value to the printed precision (one unit of the
4th decimal, as both print ``%6.4f``). The files are in ``tests/data/trec_eval``
(with trec_eval's licence).

A measure that rankeval does not compute (``NOT_COMPUTED``: relstring) does not hide
the other lines of an output: its lines are taken out of trec_eval's output, and its
``-m`` option out of the argument line, and every other line is compared
(``test_quicktest_line``); ``test_quicktest_whole_output`` then compares the whole
output as trec_eval prints it, a strict xfail naming the missing measure. An output
that no line of can be compared (an option rankeval does not have, which changes every
line or the input format) is listed in ``XFAIL`` with the reason. Strict xfails fail
the suite once they pass, so that the lists shrink; no line is skipped silently.
"""

import contextlib
import io
import math
import shlex
from pathlib import Path

import pytest

from rankeval.cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"

# trec_eval 10's Makefile, target quicktest: (arguments, expected output file)
QUICKTEST = [
    ("test/qrels.test test/results.test", "out.test"),
    ("test/qrels.test.with-comments test/results.test", "out.test"),
    ("test/qrels.comment.test test/results.comment.test", "out.comment.test"),
    ("-m all_trec test/qrels.test test/results.test", "out.test.a"),
    ("-m all_trec -q test/qrels.test test/results.test", "out.test.aq"),
    ("-m all_trec -q -c test/qrels.test test/results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100 test/qrels.test test/results.trunc", "out.test.aqcM"),
    ("-m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test", "out.test.aql"),
    ("-m all_prefs -q -R prefs test/prefs.test test/prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R prefs test/prefs.comment.test test/prefs.results.test",
     "out.test.prefs"),
    ("-m all_prefs -q -R qrels_prefs test/qrels.test test/results.test", "out.test.qrels_prefs"),
    ("-m qrels_jg -q -R qrels_jg  test/qrels.123 test/results.test", "out.test.qrels_jg"),
    ("-m qrels_jg -q -R qrels_jg  test/qrels.comments.123 test/results.test",
     "out.test.qrels_jg"),
    ("-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
     "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
     "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
     "test/qrels.test test/results.test", "out.test.meas_params"),
    ("-q -m all_trec -Z test/zscores_file test/qrels.test test/results.test", "out.test.aqZ"),
]  # fmt: skip

# the files of trec_eval's test/ folder that are not copied (see tests/data/trec_eval)
NOT_SHIPPED = {
    "out.comment.test": "qrels.comment.test and results.comment.test (3 MB) are not copied; "
    "comment lines are tested on qrels.test.with-comments",
}

#: trec_eval measures rankeval does not compute: their lines and -m options are left out
#: of the line-by-line comparison (and the whole output is a strict xfail)
NOT_COMPUTED = {
    "relstring": "rankeval has no relstring (a string of each query's top grades, not a "
    "number), which all_trec prints per query",
}
#: outputs of which no line can be compared
XFAIL = {
    "out.test.prefs": "rankeval has no preference measures (-R prefs, all_prefs)",
    "out.test.prefs.comment": "rankeval has no preference measures (-R prefs, all_prefs)",
    "out.test.qrels_prefs": "rankeval has no preference measures (-R qrels_prefs)",
    "out.test.qrels_jg": "rankeval has no multiple-judge qrels (-R qrels_jg)",
    "out.test.qrels_jg.comments": "rankeval has no multiple-judge qrels (-R qrels_jg)",
    "out.test.aqZ": "rankeval has no z-scores (-Z), which change every value",
}


def _key(args, expected):
    """A unique id per line: the expected file, plus a suffix for its second line."""
    if expected == "out.test" and "with-comments" in args:
        return "out.test.with-comments"
    if "prefs.comment" in args:
        return "out.test.prefs.comment"
    if "comments.123" in args:
        return "out.test.qrels_jg.comments"
    return expected


def _argv(args):
    out = []
    for item in shlex.split(args):
        if item.startswith("test/"):
            name = item[len("test/"):]
            path = DATA / name
            if not path.exists() and (DATA / (name + ".gz")).exists():
                path = DATA / (name + ".gz")
            item = str(path)
        out.append(item)
    return out


def _not_computed(name: str):
    """The NOT_COMPUTED measure that a printed or -m name (``relstring_20``,
    ``relstring.20``) belongs to, or None."""
    return next((m for m in NOT_COMPUTED if name == m or name.startswith((m + "_", m + "."))),
                None)  # fmt: skip


def _without_not_computed(argv):
    """The argument list without the -m options of NOT_COMPUTED measures."""
    out, i = [], 0
    while i < len(argv):
        item = argv[i]
        if item == "-m" and i + 1 < len(argv) and _not_computed(argv[i + 1]):
            i += 2
            continue
        if item.startswith("-m") and len(item) > 2 and _not_computed(item[2:]):
            i += 1
            continue
        out.append(item)
        i += 1
    return out


def _expected(expected):
    """trec_eval's lines of ``expected``, and those of its NOT_COMPUTED measures."""
    theirs = (DATA / expected).read_text().splitlines()
    left_out = [t for t in theirs if _not_computed(t.split("\t")[0].strip())]
    return [t for t in theirs if t not in left_out], left_out


def _cases(whole=False):
    for args, expected in QUICKTEST:
        key = _key(args, expected)
        marks = []
        if whole and (expected in NOT_SHIPPED or key in XFAIL):
            continue  # the line-by-line test lists it already
        if expected in NOT_SHIPPED:
            marks.append(pytest.mark.skip(reason=NOT_SHIPPED[expected]))
        elif key in XFAIL:
            marks.append(pytest.mark.xfail(reason=XFAIL[key], strict=True))
        elif whole:
            missing = sorted({_not_computed(t.split("\t")[0].strip())
                              for t in _expected(expected)[1]})  # fmt: skip
            if not missing:
                continue  # the line-by-line test compares the whole output already
            reason = "; ".join(NOT_COMPUTED[m] for m in missing)
            marks.append(pytest.mark.xfail(reason=reason, strict=True))
        yield pytest.param(args, expected, id=key, marks=marks)


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit:  # argparse: an option rankeval does not have
            code = exit.code
    return code, out.getvalue(), err.getvalue()


def _same(ours: str, theirs: str) -> bool:
    """One output line: name and query equal, value equal to the printed precision."""
    a, b = ours.split("\t"), theirs.split("\t")
    if len(a) != 3 or len(b) != 3 or a[0].strip() != b[0].strip() or a[1] != b[1]:
        return False
    if a[2] == b[2]:
        return True
    try:
        x, y = float(a[2]), float(b[2])
    except ValueError:
        return False
    return math.isclose(x, y, rel_tol=0, abs_tol=1e-4 + 1e-12)


def _compare(args, argv, theirs):
    code, out, err = _run(argv)
    assert code == 0, f"trec_eval {args}: rankeval exits with {code}: {err.strip()}"
    ours = out.splitlines()
    bad = [
        f"line {i + 1}: rankeval {o!r} / trec_eval {t!r}"
        for i, (o, t) in enumerate(zip(ours, theirs, strict=False))
        if not _same(o, t)
    ]
    assert not bad and len(ours) == len(theirs), (
        f"trec_eval {args}: {len(ours)} lines against {len(theirs)}; first differences: "
        + "; ".join(bad[:5])
    )


@pytest.mark.parametrize(("args", "expected"), list(_cases()))
def test_quicktest_line(args, expected):
    """Every line of trec_eval's output but those of the NOT_COMPUTED measures."""
    theirs, _ = _expected(expected)
    _compare(args, _without_not_computed(_argv(args)), theirs)


@pytest.mark.parametrize(("args", "expected"), list(_cases(whole=True)))
def test_quicktest_whole_output(args, expected):
    """The whole output, NOT_COMPUTED measures included, with the whole argument line."""
    _compare(args, _argv(args), (DATA / expected).read_text().splitlines())


def test_left_out_lines_are_only_those_of_not_computed_measures():
    """The line-by-line test leaves out relstring's lines and nothing else: every other
    line of an output that has relstring is compared."""
    for args, expected in QUICKTEST:
        if expected in NOT_SHIPPED or _key(args, expected) in XFAIL:
            continue
        theirs = (DATA / expected).read_text().splitlines()
        kept, left_out = _expected(expected)
        assert len(kept) + len(left_out) == len(theirs)
        assert all(t.split("\t")[0].strip().startswith("relstring") for t in left_out)
        if "all_trec" in args and "-q" in args:
            assert len(left_out) == 3, expected  # relstring of queries 301, 302, 303
            assert len(kept) > 380, expected
    argv = _argv("-m all_trec -mrelstring.20 -m relstring -q -l2 x y")
    assert _without_not_computed(argv) == ["-m", "all_trec", "-q", "-l2", "x", "y"]


def test_negative_grades_are_unjudged_for_unj():
    """qrels.rel_level judges documents of query 303 with -1: trec_eval counts them as
    unjudged (m_unjudged.c), so unj_5/10/20 of query 303 are 0.2/0.5/0.5 (issue 52)."""
    code, out, err = _run(_argv("-q -m unj test/qrels.rel_level test/results.test"))
    assert code == 0, err
    rows = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in out.splitlines()}
    got = [float(rows[(f"unj_{k}".ljust(22), "303")]) for k in (5, 10, 20)]
    assert got == [0.2, 0.5, 0.5]


def test_every_quicktest_line_is_run_or_listed():
    """No line of the Makefile's quicktest is left out without a reason."""
    keys = [_key(a, e) for a, e in QUICKTEST]
    assert len(keys) == len(set(keys)) == 15
    assert set(XFAIL) <= set(keys)
    assert all((DATA / e).exists() for e in {e for _, e in QUICKTEST} - set(NOT_SHIPPED))
