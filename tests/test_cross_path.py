"""One request, resolved once (issue 45): every entry point equals ``evaluate`` to the
last bit.

For every preset, every declared ranking measure in its default spelling (with the
cut-off or level its parser asks for when it has no default) and a sample of
parameterised spellings, on data with ties, grades above 1, negative grades, unjudged
documents, an empty ranking and judged queries missing from the run, each entry point's
values equal ``rankeval.evaluate``'s on the same input: the command line, the bounded
path (a grouped and a shuffled file), the ``Evaluator`` (run and labels forms),
``evaluate_groups``, Dask, Spark, ``compare``'s means (``aggregate``'s) and ``report``'s
best marks.

Where an entry point cannot express a preset, a measure or a feature of the data, it
is compared on what it can express, and the test says why (``RESTRICTION``). The
reference is always ``evaluate`` on the same input in the same form: a file for the
command line and the bounded path, a frame for Dask and Spark, rows made into qrels
and a run for the labels forms.
"""

from __future__ import annotations

import io
import os
import shutil
import sys

import numpy as np
import pandas as pd
import pytest

import rankeval
from rankeval.evaluation.bounded import evaluate_bounded
from rankeval.evaluation.conventions import PRESETS as PRESET_OBJECTS
from rankeval.evaluation.conventions import conventions as as_conventions
from rankeval.evaluation.plan import make_plan
from rankeval.evaluation.runs import score_run
from rankeval.measures import DECLARATIONS, parse_measure

PRESETS = sorted(PRESET_OBJECTS)

# the spelling a measure takes when its bare name does not parse (it has no default
# cut-off or level): the example its parser's error message gives
NEEDS_A_PARAMETER = {"RprecMult": "RprecMult@0.5", "IPrec": "IPrec@0.1",
                     "Judged": "Judged@10", "Unj": "Unj@10", "RelP": "RelP@10"}  # fmt: skip
# RESTRICTION: MR and FRP without a cut-off have no value for an empty ranking (the rank
# of a relevant document that is nowhere), and evaluate refuses them there; this data has
# one, so they are spelled with the cut-off that makes such a query score k + 1
NEEDS_A_PARAMETER |= {"MR": "MR@20", "FRP": "FRP@20"}
# the C/W/L measures need the top of the grade scale (max_rel; this data's is 4), F1 and
# the truncated ones a cut-off
NEEDS_A_PARAMETER |= {"F1": "F1@10", "INST": "INST(max_rel=4)", "INSQ": "INSQ(max_rel=4)",
                      "BPM": "BPM(max_rel=4)@10", "NERR8": "NERR8(max_rel=4)@10",
                      "NERR9": "NERR9(max_rel=4)@10", "NERR10": "NERR10(max_rel=4)",
                      "NERR11": "NERR11(max_rel=4)", "SDCG": "SDCG(max_rel=4)@10"}
DEFAULT_SPELLINGS = [NEEDS_A_PARAMETER.get(n, n) for n, d in DECLARATIONS.items()
                     if d.needs == "ranking"]  # fmt: skip
PARAMETERISED = ["P@5", "P(rel=2)@5", "R@3", "AP@10", "RR@3", "nDCG@10", "nDCG@3",
                 "nDCG(gain='exponential')@5", "DCG@5", "ERR@5", "RBP(p=0.5)@10",
                 "RBP(p=0.8,rel=2)@5", "SetF(beta=2)", "IPrec(rounding='nearest')@0.4",
                 "IPrec(rounding='trec_eval9')@0.4", "RprecMult@2", "trec_rbp(p=0.5)@5",
                 "Success(rel=3)@3", "MR@10", "Hits@3", "AP@3", "AP(cap=False)@3",
                 "AP(cap=True)@5", "RBP(graded=True)@5", "RBP(graded=False)@5"]  # fmt: skip
ALL = DEFAULT_SPELLINGS + PARAMETERISED


def measures_for(preset: str) -> list[str]:
    """RESTRICTION: ties="average" (the sklearn preset) is defined for the measures
    that declare tie averaging (nDCG, DCG); every other one is refused by every entry
    point alike, so the sklearn preset is compared on those."""
    if PRESET_OBJECTS[preset].ties == "average":
        return [m for m in ALL if parse_measure(m).declaration.tie_averaging]
    return ALL


# --- the data ---------------------------------------------------------------------------


def make_data(seed: int = 0, n_queries: int = 12, noise: float = 0.0):
    """qrels and run dicts: grades -1..4, scores rounded to one decimal (ties), unjudged
    documents, a query with no relevant document, an empty ranking ("q3"), judged
    queries missing from the run ("q5", "q9") and a run query nobody judged ("q7").
    ``noise`` perturbs the scores (another system on the same queries)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(n_queries):
        qid = f"q{i}"
        docs = [f"d{j}" for j in rng.choice(60, size=int(rng.integers(3, 20)), replace=False)]
        if i != 7:
            judged = docs[: max(1, int(len(docs) * 0.8))] + ["u1", "u2"]
            qrels[qid] = {d: int(rng.integers(-1, 5)) for d in judged}
            if i == 2:
                qrels[qid] = {d: min(g, 0) for d, g in qrels[qid].items()}
        if i in (5, 9):
            continue
        if i == 3:
            run[qid] = {}
            continue
        shown = rng.permutation(docs)[: int(rng.integers(len(docs) // 3, len(docs))) + 1]
        scores = np.round(rng.random(len(shown)) + noise * rng.random(len(shown)), 1)
        run[qid] = {str(d): float(s) for d, s in zip(shown, scores, strict=True)}
    return qrels, run


def frames(qrels, run, seed=0):
    """The dicts as frames; the run's lines shuffled (queries interleaved), with a
    fresh index. An empty ranking has no line: in a frame it is a missing query."""
    q = pd.DataFrame([(a, d, g) for a, docs in qrels.items() for d, g in docs.items()],
                     columns=["query_id", "doc_id", "relevance"])  # fmt: skip
    r = pd.DataFrame([(a, d, s) for a, docs in run.items() for d, s in docs.items()],
                     columns=["query_id", "doc_id", "score"])  # fmt: skip
    r = r.sample(frac=1, random_state=seed).reset_index(drop=True)
    return q, r


QRELS, RUN = make_data()
QRELS_DF, RUN_DF = frames(QRELS, RUN)
MISSING = ["skip", "zero"]


def write_files(folder, shuffle: bool):
    """qrels and run files; the run grouped by query (its frame's order within each
    query), or in the frame's shuffled order."""
    run = RUN_DF if shuffle else RUN_DF.sort_values("query_id", kind="stable")
    qpath, rpath = folder / "qrels", folder / ("shuffled" if shuffle else "grouped")
    rankeval.write_qrels(QRELS_DF, qpath)
    with open(rpath, "w") as f:
        for i, (q, d, s) in enumerate(run.itertuples(index=False)):
            f.write(f"{q} Q0 {d} {i} {s!r} tag\n")
    return qpath, rpath


def bits(got: pd.DataFrame, want: pd.DataFrame, measures) -> None:
    """The same queries in the same order and every value the same float64, bit for bit
    (a NaN equal to a NaN)."""
    assert [str(x) for x in got.index] == [str(x) for x in want.index]
    for m in measures:
        a = got[m].to_numpy(np.float64)
        b = want[m].to_numpy(np.float64)
        assert np.array_equal(a.view(np.int64), b.view(np.int64)), (m, a, b)


def test_the_data_has_what_the_paths_differ_on():
    assert any(g < 0 for docs in QRELS.values() for g in docs.values())
    assert any(g > 1 for docs in QRELS.values() for g in docs.values())
    assert RUN["q3"] == {} and "q5" not in RUN and "q7" not in QRELS
    assert RUN_DF.duplicated(["query_id", "score"]).any()
    unjudged = RUN_DF.merge(QRELS_DF, how="left", on=["query_id", "doc_id"])["relevance"]
    assert unjudged.isna().any()
    # the presets give different values on it, so a path that ignored them would fail
    values = {p: rankeval.evaluate(QRELS_DF, RUN_DF, measures_for("sklearn"), conventions=p,
                                   missing="skip") for p in PRESETS}  # fmt: skip
    assert not values["trec_eval"].equals(values["lightgbm"])
    assert not values["trec_eval"].equals(values["sklearn"])
    every = {p: rankeval.evaluate(QRELS_DF, RUN_DF, measures_for(p), conventions=p,
                                  missing="skip") for p in ("trec_eval", "lightgbm")}  # fmt: skip
    assert (every["trec_eval"] != every["lightgbm"]).any(axis=1).sum() >= 3
    # the recommender presets' AP@k (over min(k, R)) differs from trec_eval's on it, and
    # only AP@k (AP(cap=False)@k keeps R; AP without a cut-off is the same)
    for p in ("recbole", "recommenders", "mllib"):
        rec = rankeval.evaluate(QRELS_DF, RUN_DF, ALL, conventions=p, missing="skip")
        te = rankeval.evaluate(QRELS_DF, RUN_DF, ALL, missing="skip")
        changed = set(rec.columns[(rec != te).any(axis=0)])
        assert changed == {"AP@10", "AP@3"}, (p, changed)
    # ir_measures': pytrec_eval's, and RBP's gain the grade
    rec = rankeval.evaluate(QRELS_DF, RUN_DF, ALL, conventions="ir_measures", missing="skip")
    te = rankeval.evaluate(QRELS_DF, RUN_DF, ALL, conventions="pytrec_eval", missing="skip")
    changed = set(rec.columns[(rec != te).any(axis=0)])
    assert changed == {"RBP", "RBP(p=0.5)@10"}, changed
    # the row order matters where ties="input" (lightgbm, xgboost)
    ordered = rankeval.evaluate(QRELS_DF, RUN_DF.sort_values("query_id", kind="stable"),
                                ALL, conventions="lightgbm", missing="skip")  # fmt: skip
    by_id = rankeval.evaluate(QRELS_DF, RUN_DF, ALL, conventions="lightgbm", missing="skip",
                              ties="trec_eval")  # fmt: skip
    assert not ordered.equals(by_id)
    # an empty ranking of the dicts scores as a missing query under missing="zero"
    empty = rankeval.evaluate(QRELS, RUN, ALL, missing="skip").loc["q3"]
    zero = rankeval.evaluate(QRELS_DF, RUN_DF, ALL, missing="zero").loc["q3"]
    bits(empty.to_frame().T, zero.to_frame().T, ALL)


# --- the command line -------------------------------------------------------------------

# the command-line options that give each preset: its name (--conventions), and the
# flags that spell it out one by one (the flags -> the one resolver -> a Plan)
CLI_FLAGS = {"trec_eval": [], "pytrec_eval": ["--score-precision", "float",
                                              "--rounding", "trec_eval9"],
             "sklearn": ["--ties", "average", "--ideal", "retrieved"],
             "lightgbm": ["--ties", "input", "--ideal", "retrieved", "--gain", "exponential",
                          "--no-relevant", "1"]}  # fmt: skip
CLI_FLAGS["xgboost"] = CLI_FLAGS["lightgbm"]
for _name in ("recbole", "recommenders", "mllib"):
    CLI_FLAGS[_name] = ["--ap-denominator", "min(k,R)"]
CLI_FLAGS["ir_measures"] = [*CLI_FLAGS["pytrec_eval"], "--rbp-gain", "grade"]


@pytest.mark.parametrize("named", [False, True])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("missing", MISSING)
@pytest.mark.parametrize("preset", PRESETS)
def test_command_line(tmp_path, capsys, monkeypatch, preset, missing, stream, named):
    """``-q --format tsv --digits 17``: every query's line and the ``all`` line are
    ``evaluate``'s and ``aggregate``'s values printed with 17 decimals (RESTRICTION:
    the text has 17 decimals, not every bit, so the comparison is with the printed
    rounding, ``f"{value:.17f}"``). ``stream``: the command line's bounded path, made to
    stream even this small file."""
    from rankeval.cli import main

    if stream:
        import rankeval.evaluation.bounded as bounded

        monkeypatch.setattr(bounded, "_WHOLE_FACTOR", 10**12)
        monkeypatch.setattr(bounded, "_FIT_FACTOR", 10**12)

    measures = measures_for(preset)
    qpath, rpath = write_files(tmp_path, shuffle=True)
    options = ["--conventions", preset] if named else CLI_FLAGS[preset]
    options = options + (["-c"] if missing == "zero" else [])
    options += ["--max-memory", "1MB"] if stream else []
    assert main(["-q", "--format", "tsv", "--digits", "17", *options, "-m", *measures,
                 str(qpath), str(rpath)]) == 0  # fmt: skip
    out = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", dtype=str,
                      keep_default_na=False)  # fmt: skip
    labels = list(dict.fromkeys(out["measure"]))
    for m in measures:  # every measure asked for is printed
        family = _trec_eval_family(m)
        assert (
            m in labels
            or str(parse_measure(m)) in labels
            or (family is not None and set(family) <= set(labels))
        ), (m, labels)
    # num_q is printed in the summary when NumQ is not asked for, as trec_eval prints it
    # (and evaluate refuses NumQ under ties="average"): the number of evaluate's rows
    n_queries = out[out["measure"] == "num_q"].set_index("query")["value"]
    labels = [label for label in labels if label != "num_q"]
    want = rankeval.evaluate(qpath, rpath, labels, conventions=preset, missing=missing)
    summary = rankeval.aggregate(want)
    assert n_queries.tolist() in ([], [str(len(want))])  # [] when NumQ is asked for
    for label in labels:
        printed = out[out["measure"] == label].set_index("query")["value"]
        if DECLARATIONS[parse_measure(label).name].per_query:
            assert printed.drop("all").index.tolist() == want.index.tolist(), label
            got = [float(v) for v in printed.drop("all")]
            assert got == [_printed(v) for v in want[label]], label
        assert float(printed["all"]) == _printed(summary[label]), label


def _trec_eval_family(m: str):
    """RESTRICTION: a bare name that is also trec_eval's name of a family of cut-offs
    (``P``, ``Success``) means that family on the command line, as trec_eval's ``-m P``
    does; its members (``P_5`` ... ``P_1000``) are compared instead. None: not such a
    name."""
    from rankeval.measures import parse_trec_eval, trec_eval_name

    try:
        family = parse_trec_eval(m)
    except ValueError:
        return None
    if family == [parse_measure(m)]:
        return None
    return [trec_eval_name(x) or str(x) for x in family]


def _printed(value) -> float:
    """A value as the command line prints it with 17 decimals, read back (a count may be
    printed as a whole number: the same number)."""
    return float(f"{float(value):.17f}")


# --- the bounded path -------------------------------------------------------------------


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("missing", MISSING)
@pytest.mark.parametrize("preset", PRESETS)
def test_bounded_path(tmp_path, preset, missing, shuffle):
    """Blocks of 7 lines; the shuffled file goes through 3 partitions on disk. An empty
    ranking has no line in a file (RESTRICTION): it is a missing query there."""
    measures = measures_for(preset)
    qpath, rpath = write_files(tmp_path, shuffle)
    want = rankeval.evaluate(QRELS_DF, str(rpath), measures, conventions=preset,
                             missing=missing)  # fmt: skip
    chosen = as_conventions(preset, missing=missing)
    got, _ = evaluate_bounded(score_run, QRELS_DF, str(rpath), make_plan(measures, chosen), 1 << 20,
                              block=7, partitions=3)  # fmt: skip
    bits(got, want, measures)
    # the file read whole is the frame it was written from
    frame = RUN_DF if shuffle else RUN_DF.sort_values("query_id", kind="stable")
    bits(want, rankeval.evaluate(QRELS_DF, frame, measures, conventions=preset,
                                 missing=missing), measures)  # fmt: skip


# --- the Evaluator, run form ------------------------------------------------------------


@pytest.fixture
def compact_often(monkeypatch):
    import rankeval.evaluation.incremental as incremental

    monkeypatch.setattr(incremental, "_COMPACT_ROWS", 8)  # cut the state back often


@pytest.mark.parametrize("cut_only", [False, True])
@pytest.mark.parametrize("missing", MISSING)
@pytest.mark.parametrize("preset", PRESETS)
def test_evaluator_run_form(compact_often, preset, missing, cut_only):
    """The run's rows in uneven batches, in the frame's order (the order ties="input"
    reads), and two workers merged; ``cut_only``: the measures with a rank cut-off up
    to 5 alone, so that the state is cut back to the deepest one where the preset allows it.
    Rows cannot say "this query has no document" (RESTRICTION): the empty ranking is a
    missing query here, as in a frame."""
    measures = measures_for(preset)
    if cut_only:
        # cut-offs up to 5, below most rankings' lengths, so that cutting back drops rows
        measures = [m for m in measures if (parse_measure(m).cutoff or 99) <= 5
                    and parse_measure(m).declaration.cutoff in ("optional", "required")]  # fmt: skip
        assert len(measures) >= 3 and (RUN_DF.groupby("query_id").size() > 5).sum() >= 5
        probe = rankeval.Evaluator(QRELS, measures, conventions=preset)
        assert (probe.depth is not None) == (preset in ("trec_eval", "pytrec_eval", "recbole",
                                                        "recommenders", "mllib",
                                                        "ir_measures"))
    want = rankeval.evaluate(QRELS, RUN_DF, measures, conventions=preset, missing=missing)
    rows = list(RUN_DF.itertuples(index=False))

    def fed(part):
        ev = rankeval.Evaluator(QRELS, measures, conventions=preset, missing=missing)
        cuts = [0, 1, 9, 10, 40, len(part)]
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            batch = part[a:b]
            ev.update([r[0] for r in batch], [r[1] for r in batch], [r[2] for r in batch])
        return ev

    bits(fed(rows).compute(), want, measures)
    half = len(rows) // 2
    bits(fed(rows[:half]).merge(fed(rows[half:])).compute(), want, measures)


# --- rows that carry their labels: Evaluator.from_labels and evaluate_groups ------------


def labelled_rows(negative: bool, grouped: bool = False):
    """(query, doc, label, score) rows of the run's judged documents: complete
    judgments (every row both judged and ranked). Document ids descend with the row's
    position, so trec_eval's tie rule (doc id descending) is the rows' order, which is
    the only order rows without ids have. ``grouped``: each query's rows together."""
    rows = RUN_DF.merge(QRELS_DF, on=["query_id", "doc_id"])
    if grouped:
        rows = rows.sort_values("query_id", kind="stable").reset_index(drop=True)
    n = len(rows)
    rows = rows.assign(doc_id=[f"r{n - i:09d}" for i in range(n)])
    if not negative:
        rows = rows.assign(relevance=rows["relevance"].clip(lower=0))
    qrels = rows[["query_id", "doc_id", "relevance"]]
    run = rows[["query_id", "doc_id", "score"]]
    return rows, qrels, run


@pytest.mark.parametrize("preset", PRESETS)
def test_evaluator_labels_form(preset):
    """RESTRICTION: a row is a judged, ranked document, so the labels form has no
    unjudged document, no empty ranking and no missing query; its reference is
    ``evaluate`` on the same rows as qrels and a run. Negative grades are kept."""
    measures = measures_for(preset)
    rows, qrels, run = labelled_rows(negative=True)
    assert (rows["relevance"] < 0).any() and (rows["relevance"] > 1).any()
    want = rankeval.evaluate(qrels, run, measures, conventions=preset)
    ev = rankeval.Evaluator.from_labels(measures, conventions=preset)
    for part in np.array_split(np.arange(len(rows)), 3):
        chunk = rows.iloc[part]
        ev.update(chunk["query_id"].tolist(), labels=chunk["relevance"].to_numpy(float),
                  scores=chunk["score"].to_numpy())  # fmt: skip
    bits(ev.compute(), want, measures)


@pytest.mark.parametrize("kind", ["ids", "sizes"])
@pytest.mark.parametrize("preset", PRESETS)
def test_evaluate_groups(preset, kind):
    """RESTRICTION: as the labels form (no unjudged document, empty ranking or missing
    query), and evaluate_groups refuses negative labels (LightGBM's and XGBoost's
    labels are >= 0): those rows are grade 0 here, in the reference too."""
    measures = measures_for(preset)
    rows, qrels, run = labelled_rows(negative=False, grouped=kind == "sizes")
    want = rankeval.evaluate(qrels, run, measures, conventions=preset)
    if kind == "sizes":  # LightGBM's group: the sizes of consecutive groups of rows
        sizes = rows.groupby("query_id", sort=False).size().to_numpy()
        got = rankeval.evaluate_groups(
            rows["relevance"].to_numpy(float),
            rows["score"].to_numpy(),
            sizes,
            measures,
            group_kind="sizes",
            conventions=preset,
        )
        assert len(got) == len(want)
        got.index = want.index  # sizes give no ids: the queries are numbered in order
        bits(got, want, measures)
        return
    got = rankeval.evaluate_groups(rows["relevance"].to_numpy(float), rows["score"].to_numpy(),
                                   rows["query_id"].to_numpy(dtype=object), measures,
                                   group_kind="ids", conventions=preset)  # fmt: skip
    bits(got, want, measures)


# --- Dask --------------------------------------------------------------------------------


@pytest.mark.parametrize("missing", MISSING)
@pytest.mark.parametrize("preset", PRESETS)
def test_dask(preset, missing):
    """Threads, Dask's disk shuffle (which keeps no row order: only the order column the
    adapter carries does), more partitions than queries. A frame has no empty ranking
    (RESTRICTION): it is a missing query."""
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import rankeval.dask

    measures = measures_for(preset)
    with dask.config.set({"scheduler": "threads", "dataframe.shuffle.method": "disk"}):
        got = rankeval.dask.evaluate(
            dd.from_pandas(QRELS_DF, npartitions=3),
            dd.from_pandas(RUN_DF, npartitions=4),
            measures,
            npartitions=16,
            conventions=preset,
            missing=missing,
        ).compute()
    want = rankeval.evaluate(QRELS_DF, RUN_DF, measures, conventions=preset, missing=missing)
    got = got.set_index("query_id").sort_index()
    bits(got, want.sort_index(), measures)


# --- Spark: one session for the module ---------------------------------------------------

SPARK_MEASURES = ["nDCG@10", "nDCG(gain='exponential')@5", "DCG@5", "AP", "P(rel=2)@5",
                  "RR", "Rprec", "bpref", "infAP", "IPrec@0.4", "NumRet", "AP@5",
                  "RBP(p=0.5)@5"]  # fmt: skip


SPARK_TIMEOUT = 300  # s: a cold JVM on a busy 2-core machine takes 30-60 s


def _within(what, fn):
    """fn(), or a test failure naming what did not finish in time (a JVM that never
    answers fails the test instead of hanging it; as tests/test_distributed.py)."""
    import threading

    result, error = [], []

    def call():
        try:
            result.append(fn())
        except BaseException as err:  # re-raised in the test's thread
            error.append(err)

    worker = threading.Thread(target=call, name=f"spark: {what}", daemon=True)
    worker.start()
    worker.join(SPARK_TIMEOUT)
    if worker.is_alive():
        pytest.fail(f"Spark: {what} did not finish within {SPARK_TIMEOUT} s")
    if error:
        raise error[0]
    return result[0]


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    if not shutil.which("java"):
        if os.environ.get("CI") == "true":
            pytest.fail("the Spark tests need a Java runtime")
        pytest.skip("the Spark tests need a Java runtime")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("rankeval-cross-path")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
    )
    session = _within("starting the local session", builder.getOrCreate)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.parametrize("preset", PRESETS)
def test_spark(spark, preset):
    """A small set of measures (a Spark job is slow), missing="zero" so that the
    missing queries travel through partitions that hold judgments only."""
    import rankeval.spark

    measures = SPARK_MEASURES
    if PRESET_OBJECTS[preset].ties == "average":  # as measures_for says
        measures = [m for m in measures if parse_measure(m).declaration.tie_averaging]
    got = rankeval.spark.evaluate(
        spark.createDataFrame(QRELS_DF),
        spark.createDataFrame(RUN_DF),
        measures,
        num_partitions=5,
        conventions=preset,
        missing="zero",
    )
    got = _within("rankeval.spark.evaluate", got.toPandas)
    want = rankeval.evaluate(QRELS_DF, RUN_DF, measures, conventions=preset, missing="zero")
    got = got.set_index("query_id").sort_index()
    bits(got, want.sort_index(), measures)


# --- compare and report ------------------------------------------------------------------


def systems(preset):
    """Three systems on the same queries (the empty ranking included: the dicts keep
    it), per query, as evaluate gives them."""
    measures = measures_for(preset)
    out = {}
    for name, noise in (("a", 0.0), ("b", 0.7), ("c", 2.0)):
        qrels, run = make_data(0, noise=noise)
        out[name] = rankeval.evaluate(qrels, run, measures, conventions=preset, missing="skip")
    return measures, out


@pytest.mark.parametrize("preset", PRESETS)
def test_compare_means_and_report_marks(preset):
    """compare's ``mean`` and ``other_mean`` are ``aggregate``'s (the mean, the sum of a
    count, the geometric mean of GMAP and GMBpref) bit for bit; report's bold cell of a
    measure is every system whose aggregate is the best (the lowest for a measure that
    is lower-is-better). RESTRICTION: report prints 4 decimals, so its marks, not its
    digits, are compared."""
    measures, per_query = systems(preset)
    assert "q3" in per_query["a"].index
    table = rankeval.compare(per_query, measures, n_resamples=200)
    means = {s: rankeval.aggregate(v) for s, v in per_query.items()}
    for row in table.itertuples():
        a = np.float64(row.mean)
        b = np.float64(means[row.system][row.measure])
        assert a.view(np.int64) == b.view(np.int64), (row.system, row.measure, a, b)
        a = np.float64(row.other_mean)
        b = np.float64(means[row.other][row.measure])
        assert a.view(np.int64) == b.view(np.int64), (row.other, row.measure, a, b)
    lines = rankeval.report(table).split("\n\n")[0].splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")][1:]
    cells = {line.split("|")[1].strip()[4:]: [c.strip() for c in line.strip("|").split("|")][1:]
             for line in lines[2:]}  # fmt: skip
    assert sorted(cells) == sorted(per_query)
    for j, m in enumerate(measures):
        assert header[j] == m.replace("|", "\\|") or header[j] == m
        values = {s: means[s][m] for s in per_query}
        low = parse_measure(m).lower_is_better
        best = min(values.values()) if low else max(values.values())
        bold = {s for s, row in cells.items() if row[j].startswith("**")}
        assert bold == {s for s, v in values.items() if v == best}, (m, values, bold)


# --- one plan, made once, through every path ---------------------------------------------


@pytest.mark.parametrize("missing", MISSING)
@pytest.mark.parametrize("preset", PRESETS)
def test_one_plan_through_every_path(tmp_path, monkeypatch, preset, missing):
    """``rankeval.plan`` made once and given to ``evaluate`` (a frame, and a file read
    in batches of 7 lines and 3 partitions, every batch running the plan), the
    ``Evaluator`` and a distributed partition: ``evaluate``'s values with the names and
    the preset, bit for bit, and no name is parsed again after the plan is made."""
    import rankeval.evaluation.bounded as bounded
    import rankeval.measures.registry as registry
    from rankeval.distributed.partition import evaluate_partition, union

    measures = measures_for(preset)
    p = rankeval.plan(measures, conventions=preset, missing=missing)
    want = rankeval.evaluate(QRELS_DF, RUN_DF, measures, conventions=preset, missing=missing)
    _, rpath = write_files(tmp_path, shuffle=True)
    whole = rankeval.evaluate(QRELS_DF, str(rpath), measures, conventions=preset,
                              missing=missing, max_memory=None)  # fmt: skip
    parsed = []  # from here on, every name parsed
    real = registry._make
    monkeypatch.setattr(registry, "_make", lambda *a: parsed.append(a[3]) or real(*a))
    bits(rankeval.evaluate(QRELS_DF, RUN_DF, p), want, measures)
    monkeypatch.setattr(bounded, "_WHOLE_FACTOR", 10**12)
    monkeypatch.setattr(bounded, "_FIT_FACTOR", 10**12)
    monkeypatch.setattr(bounded, "block_size", lambda budget: 7 * 40)  # many batches
    bits(rankeval.evaluate(QRELS_DF, str(rpath), p, max_memory="1MB"), whole, measures)
    ev = rankeval.Evaluator(QRELS, p)
    ev.update(RUN_DF["query_id"].tolist(), RUN_DF["doc_id"].tolist(), RUN_DF["score"].tolist())
    bits(ev.compute(), want, measures)
    part = evaluate_partition(union(QRELS_DF, RUN_DF), p).set_index("query_id")
    bits(part, want, measures)
    assert parsed == [], parsed  # the plan was made once, before: no name parsed since
