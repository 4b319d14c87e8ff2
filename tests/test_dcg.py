"""DCG and nDCG: sources' examples, conventions, properties, oracles, errors."""

import math

import numpy as np
import pytest
from conftest import cutoffs, grades, judged_collection, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st

from rankeval import dcg, ndcg

log2 = math.log2

# --- worked examples of the sources -------------------------------------------------


def test_ranking_evaluation_films():
    # Ranking Evaluation, sci-fi query: grades 3, 3, 0, 3, 2; ideal order 3, 3, 3, 2, 0.
    films = [3, 3, 0, 3, 2]
    want_dcg = 3 + 3 / log2(3) + 0 / log2(4) + 3 / log2(5) + 2 / log2(6)
    want_idcg = 3 + 3 / log2(3) + 3 / log2(4) + 2 / log2(5) + 0 / log2(6)
    assert dcg(films, 5) == pytest.approx(want_dcg)
    assert dcg([3, 3, 3, 2, 0], 5) == pytest.approx(want_idcg)
    assert ndcg(films, 5) == pytest.approx(want_dcg / want_idcg)
    # The source prints DCG 6.958 and IDCG 7.253: it added 3-decimal terms and wrote
    # 3/log2(3) = 1.8928 as 1.892. Rounded correctly the totals are 6.959 and 7.254;
    # nDCG 0.959 survives the slip.
    assert round(want_dcg, 3) == 6.959 and round(want_idcg, 3) == 7.254
    assert 3 + 1.892 + 0 + 1.292 + 0.774 == pytest.approx(6.958)  # the source's sum
    assert 3 + 1.892 + 1.5 + 0.861 == pytest.approx(7.253)  # the source's sum
    assert round(ndcg(films, 5), 3) == 0.959


def test_ranking_metrics_formula_is_the_default():
    # Ranking Metrics: DCG = sum_k rel(k) / log2(k + 1) over all retrieved items, linear gain.
    r = [2, 0, 1, 3]
    assert dcg(r) == pytest.approx(2 / log2(2) + 0 / log2(3) + 1 / log2(4) + 3 / log2(5))


def binary_grades(ranked, relevant):
    return [1 if item in relevant else 0 for item in ranked]


def test_notebook_two_rankings():
    # The item-list notebook: items a..g, b and f relevant.
    relevant = {"b", "f"}
    ranking1 = ["c", "a", "f", "b", "g", "e", "d"]
    ranking2 = list("cbgegaagageg") + ["a", "e", "g", "a", "f"]  # 17 entries, repeats
    assert len(ranking2) == 17 and ranking2.index("b") == 1 and ranking2.index("f") == 16
    idcg = 1 / log2(2) + 1 / log2(3)  # two relevant items, the notebook's compute_IDCG(2)
    r1 = binary_grades(ranking1, relevant)
    r2 = binary_grades(ranking2, relevant)
    # Both printed values (0.5706417..., 0.5338931...) are right.
    assert ndcg(r1, ideal=[1, 1]) == pytest.approx((1 / log2(4) + 1 / log2(5)) / idcg)
    assert ndcg(r2, ideal=[1, 1]) == pytest.approx((1 / log2(3) + 1 / log2(18)) / idcg)
    # Here the ranked list holds both relevant items, so its own grades give the same IDCG.
    assert ndcg(r1) == pytest.approx(ndcg(r1, ideal=[1, 1]))
    assert ndcg(r2) == pytest.approx(ndcg(r2, ideal=[1, 1]))


GRADED = [3, 2, 3, 0, 1, 2, 0, 1, 0, 3]  # the graded ranking of Model Evaluation, Part 4
FOUR = {
    "Perfect": [3, 3, 3, 2, 2, 2, 1, 1, 0, 0],
    "Reverse": [0, 0, 1, 1, 2, 2, 2, 3, 3, 3],
    "Mixed": [3, 0, 3, 0, 2, 0, 2, 1, 1, 0],
    "Repeating": [3, 2, 1, 0, 3, 2, 1, 0, 3, 2],
}


def part4_dcg(r, k, method):
    """The two DCG variants of Model Evaluation, Part 4, rewritten as plain loops."""
    total = 0.0
    for i, g in enumerate(r[:k], start=1):
        if method == 0:  # first rank undiscounted, then log2(i)
            total += g if i == 1 else g / log2(i)
        else:  # exponential gain over log2(i + 1)
            total += (2**g - 1) / log2(i + 1)
    return total


def part4_ndcg(r, k, method):
    best = part4_dcg(sorted(r, reverse=True), k, method)
    return 0.0 if best == 0 else part4_dcg(r, k, method) / best


def test_model_evaluation_graded_ranking_by_hand():
    # method 1: gains 2^g - 1 = 7, 3, 7, 0, ...; ideal grades 3, 3, 3, 2, 2, 1, 1, 0, 0, 0.
    e = "exponential"
    assert ndcg(GRADED, 1, gain=e) == 7 / 7
    assert ndcg(GRADED, 2, gain=e) == pytest.approx((7 + 3 / log2(3)) / (7 + 7 / log2(3)))
    assert ndcg(GRADED, 3, gain=e) == pytest.approx(
        (7 + 3 / log2(3) + 7 / 2) / (7 + 7 / log2(3) + 7 / 2)
    )
    # method 0: g1 + sum_{i>=2} g_i / log2(i).
    j = "jarvelin"
    assert ndcg(GRADED, 2, discount=j) == pytest.approx((3 + 2 / 1) / (3 + 3 / 1))
    assert ndcg(GRADED, 3, discount=j) == pytest.approx(
        (3 + 2 + 3 / log2(3)) / (3 + 3 + 3 / log2(3))
    )
    assert dcg(GRADED, discount=j) == pytest.approx(
        3 + 2 / 1 + 3 / log2(3) + 0 / 2 + 1 / log2(5) + 2 / log2(6) + 0 / log2(7)
        + 1 / 3 + 0 / log2(9) + 3 / log2(10)
    )


@pytest.mark.parametrize("method, options", [(0, {"discount": "jarvelin"}),
                                             (1, {"gain": "exponential"})])
@pytest.mark.parametrize("ranking", [GRADED, *FOUR.values()])
def test_model_evaluation_ndcg_at_every_k(ranking, method, options):
    got = [ndcg(ranking, k, **options) for k in range(1, 11)]
    np.testing.assert_allclose(got, [part4_ndcg(ranking, k, method) for k in range(1, 11)])
    # One batch call gives the same curve.
    batch = ndcg([ranking] * 10, None, **options)
    np.testing.assert_allclose(batch, ndcg(ranking, **options))


def test_model_evaluation_four_rankings():
    e = "exponential"
    np.testing.assert_allclose([ndcg(FOUR["Perfect"], k, gain=e) for k in range(1, 11)], 1.0)
    assert ndcg(FOUR["Reverse"], 1, gain=e) == 0.0  # grade 0 on top
    assert ndcg(FOUR["Reverse"], 3, gain=e) == pytest.approx(
        (1 / log2(4)) / (7 + 7 / log2(3) + 7 / log2(4))
    )
    for k in range(1, 11):
        values = {name: ndcg(r, k, gain=e) for name, r in FOUR.items()}
        assert values["Perfect"] == max(values.values())
        assert values["Reverse"] == min(values.values())


def test_model_evaluation_discount_bars():
    # A single grade-1 item at position i contributes 1 / log2(i + 1).
    unit = np.eye(10)
    np.testing.assert_allclose(dcg(unit), [1 / log2(i + 1) for i in range(1, 11)])
    assert dcg(unit)[0] == 1.0 and dcg(unit)[2] == 0.5


def test_comprehensive_guide_exponential_gain():
    # The Comprehensive Guide: gains 2^g - 1 for grades 0..5 are 0, 1, 3, 7, 15, 31.
    np.testing.assert_allclose(
        dcg([[0], [1], [2], [3], [4], [5]], gain="exponential"), [0, 1, 3, 7, 15, 31]
    )
    # "Each grade step roughly doubles the importance": the ratio (2^g - 1) / (2^(g-1) - 1)
    # is 3, 7/3, 15/7, 31/15 for g = 2..5, tending to 2 from above.
    ratios = [(2**g - 1) / (2 ** (g - 1) - 1) for g in range(2, 6)]
    assert ratios == [3, 7 / 3, 15 / 7, 31 / 15]


# --- conventions --------------------------------------------------------------------


def test_discount_names():
    r = [2, 1, 3]
    assert dcg(r, discount="linear") == pytest.approx(2 / 1 + 1 / 2 + 3 / 3)
    assert dcg(r, discount="none") == 6.0  # plain cumulative gain
    assert dcg(r, discount="exponential") == pytest.approx(2 / 1 + 1 / 2 + 3 / 4)
    assert dcg(r, discount="exponential", exp_base=3) == pytest.approx(2 + 1 / 3 + 3 / 9)
    assert dcg(r, discount="power") == pytest.approx(dcg(r, discount="linear"))
    assert dcg(r, discount="zipf", power_shift=1, power_exponent=2) == pytest.approx(
        2 / 2**2 + 1 / 3**2 + 3 / 4**2
    )
    assert dcg(r, discount="log", log_base=10) == pytest.approx(
        2 / math.log10(2) + 1 / math.log10(3) + 3 / math.log10(4)
    )
    assert dcg(r, discount="jarvelin", log_base=3) == pytest.approx(2 + 1 + 3 / 1)
    assert dcg([0, 0, 0, 5], discount="jarvelin", log_base=3) == pytest.approx(
        5 / math.log(4, 3)
    )


def test_callable_gain_and_discount():
    r = [2, 0, 1]
    assert dcg(r, gain=lambda g: g**2) == pytest.approx(4 / 1 + 0 + 1 / 2)
    assert dcg(r, discount=lambda i: np.sqrt(i)) == pytest.approx(2 + 0 + 1 / math.sqrt(3))
    # The ideal list is sorted by gain, so even a gain that is not monotone in the
    # grade leaves nDCG <= 1.
    reorder = {0: 0.0, 1: 5.0, 2: 1.0}

    def odd_gain(g):
        return np.vectorize(reorder.get)(g)

    assert ndcg([1, 2], gain=odd_gain) == 1.0
    assert ndcg([2, 1], gain=odd_gain) == pytest.approx((1 + 5 / log2(3)) / (5 + 1 / log2(3)))


def test_exponential_discount_is_rank_biased_precision_weights():
    p = 0.8
    r = [1, 0, 3, 2]
    want = sum(g * p**i for i, g in enumerate(r))
    assert dcg(r, discount="exponential", exp_base=1 / p) == pytest.approx(want)


def test_exponential_discount_far_down_the_list_weighs_nothing():
    r = [1] * 2000
    assert dcg(r, discount="exponential") == pytest.approx(2.0)
    assert ndcg(r, discount="exponential") == 1.0


def test_no_relevant_item_gives_zero():
    assert ndcg([0, 0, 0]) == 0.0
    assert ndcg([0, 0], ideal=[0, 0, 0]) == 0.0
    np.testing.assert_array_equal(ndcg([[0, 0], [0, 2]], k=1), [0.0, 0.0])
    assert dcg([0, 0]) == 0.0


def test_ideal_from_all_judged_grades():
    # The ranking found one of the two relevant items; its own grades look perfect.
    assert ndcg([1, 0]) == 1.0
    assert ndcg([1, 0], ideal=[1, 1, 0, 0]) == pytest.approx(1 / (1 + 1 / log2(3)))
    # Binary relevance with n relevant items: ideal = [1] * n.
    assert ndcg([0, 1, 0], ideal=[1] * 3) == pytest.approx(
        (1 / log2(3)) / (1 + 1 / log2(3) + 1 / log2(4))
    )
    # IDCG@k takes the top k of the ideal list, however long it is.
    assert ndcg([3, 2], k=1, ideal=[0, 2, 3, 3]) == 1.0
    assert ndcg([2, 3], k=2, ideal=[3, 3, 2]) == pytest.approx(
        (2 + 3 / log2(3)) / (3 + 3 / log2(3))
    )
    # A batch: one ideal list per query, ragged.
    np.testing.assert_allclose(
        ndcg([[1, 0], [0, 2, 1]], ideal=[[1, 1], [2, 1, 1]]),
        [1 / (1 + 1 / log2(3)), (2 / log2(3) + 1 / log2(4)) / (2 + 1 / log2(3) + 1 / log2(4))],
    )


def test_k_past_the_list():
    r = [3, 0, 2]
    assert dcg(r, 10) == dcg(r)
    assert ndcg(r, 10) == ndcg(r)
    # With a longer ideal list, IDCG@10 keeps growing past the ranking's end.
    judged = [3, 2, 2, 1]
    assert ndcg(r, 10, ideal=judged) == pytest.approx(
        (3 + 0 + 2 / 2) / (3 + 2 / log2(3) + 2 / 2 + 1 / log2(5))
    )
    assert ndcg(r, 10, ideal=judged) < ndcg(r, 3, ideal=judged)


def test_against_scikit_learn():
    # scikit-learn: linear gain, log2(i + 1), ideal from the scored list itself.
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 4, size=(40, 8)).astype(float)
    scores = rng.permutation(np.tile(np.arange(8.0), (40, 1)), axis=1)  # no ties
    ranked = np.take_along_axis(truth, np.argsort(-scores, axis=1), axis=1)
    for k in (None, 1, 3, 8):
        per_query = [sklearn_metrics.ndcg_score(truth[q : q + 1], scores[q : q + 1], k=k)
                     for q in range(40)]
        np.testing.assert_allclose(ndcg(ranked, k), per_query)
        assert ndcg(ranked, k).mean() == pytest.approx(
            sklearn_metrics.ndcg_score(truth, scores, k=k)
        )
        assert dcg(ranked, k, discount="log", log_base=10).mean() == pytest.approx(
            sklearn_metrics.dcg_score(truth, scores, k=k, log_base=10)
        )


def test_against_trec_eval():
    # trec_eval: linear gain, log2(i + 1), ideal from every judged grade of the query.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run, rankings, judged = judged_collection(seed=11, n_queries=30, min_docs=3, max_docs=14)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.3,10"})
    result = evaluator.evaluate(run)
    for measure, k in (("ndcg", None), ("ndcg_cut_3", 3), ("ndcg_cut_10", 10)):
        want = [result[f"q{q}"][measure] for q in range(30)]
        np.testing.assert_allclose(ndcg(rankings, k, ideal=judged), want)


# --- properties ---------------------------------------------------------------------

OPTIONS = [
    {},
    {"gain": "exponential"},
    {"discount": "jarvelin"},
    {"discount": "jarvelin", "log_base": 3.5},
    {"discount": "log", "log_base": 10},
    {"discount": "linear"},
    {"discount": "exponential", "exp_base": 1.25},
    {"discount": "power", "power_shift": 0.5, "power_exponent": 0.7},
    {"gain": "exponential", "discount": "none"},
]
options = st.sampled_from(OPTIONS)


@given(grades(), cutoffs(), options)
def test_range(r, k, opts):
    assert 0 <= ndcg(r, k, **opts) <= 1 + 1e-12
    assert dcg(r, k, **opts) >= 0


@given(grades(), cutoffs(), options)
def test_perfect_ranking_scores_one(r, k, opts):
    best = sorted(r, reverse=True)
    top = best if k is None else best[:k]
    assert ndcg(best, k, **opts) == pytest.approx(1.0 if any(top) else 0.0)


@given(grades(min_size=2), cutoffs(), options, st.data())
def test_moving_a_better_item_up_never_lowers_ndcg(r, k, opts, data):
    i = data.draw(st.integers(0, len(r) - 2))
    j = data.draw(st.integers(i + 1, len(r) - 1))
    assume(r[j] > r[i])
    swapped = list(r)
    swapped[i], swapped[j] = r[j], r[i]
    assert ndcg(swapped, k, **opts) >= ndcg(r, k, **opts) - 1e-12
    assert dcg(swapped, k, **opts) >= dcg(r, k, **opts) - 1e-12


@given(grades(), st.integers(1, 14), options)
def test_dcg_grows_with_k(r, k, opts):
    assert dcg(r, k, **opts) <= dcg(r, k + 1, **opts) + 1e-12


@given(grades(), cutoffs(), st.floats(1.1, 100))
def test_log_base_rescales_dcg_and_leaves_ndcg_alone(r, k, base):
    assert dcg(r, k, discount="log", log_base=base) == pytest.approx(
        dcg(r, k) * log2(base), abs=1e-9
    )
    assert ndcg(r, k, discount="log", log_base=base) == pytest.approx(ndcg(r, k), abs=1e-12)


@given(grades(), cutoffs(), grades(min_size=0))
def test_more_judged_items_never_raise_ndcg(r, k, unretrieved):
    assert ndcg(r, k, ideal=r + unretrieved) <= ndcg(r, k) + 1e-12
    assert ndcg(r, k, ideal=r) == pytest.approx(ndcg(r, k))


# --- slow oracle --------------------------------------------------------------------


def slow_gain(g, gain):
    return g if gain == "linear" else 2**g - 1


def slow_discount(i, discount, base):
    if discount == "log2":
        return math.log2(i + 1)
    if discount == "jarvelin":
        return 1.0 if i < base else math.log(i, base)
    return float(i)  # linear


def slow_dcg(r, k, gain, discount, base=2):
    total = 0.0
    for i, g in enumerate(r, start=1):
        if k is not None and i > k:
            break
        total += slow_gain(g, gain) / slow_discount(i, discount, base)
    return total


def slow_ndcg(r, k, gain, discount, ideal=None, base=2):
    ideal = sorted(r if ideal is None else ideal, key=lambda g: slow_gain(g, gain), reverse=True)
    best = slow_dcg(ideal, k, gain, discount, base)
    if best == 0:
        return 0.0
    return slow_dcg(r, k, gain, discount, base) / best


@pytest.mark.parametrize("k", [None, 1, 3, 10, 25])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("discount, base", [("log2", 2), ("jarvelin", 2), ("jarvelin", 4),
                                            ("linear", 2)])
def test_against_slow_oracle(k, gain, discount, base):
    rs = [[int(g) for g in r] for r in random_batch(seed=5)]
    extra = random_batch(seed=6)
    ideals = [r + [int(g) for g in e] for r, e in zip(rs, extra, strict=True)]
    opts = {"gain": gain, "discount": discount}
    if discount == "jarvelin":
        opts["log_base"] = base
    np.testing.assert_allclose(dcg(rs, k, **opts), [slow_dcg(r, k, gain, discount, base)
                                                    for r in rs])
    np.testing.assert_allclose(ndcg(rs, k, **opts), [slow_ndcg(r, k, gain, discount, None, base)
                                                     for r in rs])
    np.testing.assert_allclose(
        ndcg(rs, k, ideal=ideals, **opts),
        [slow_ndcg(r, k, gain, discount, i, base) for r, i in zip(rs, ideals, strict=True)],
    )


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"gain": "exp"}, ValueError, "gain must be 'linear' or 'exponential' or a callable"),
        ({"gain": 2}, TypeError, "gain must be .* got int"),
        ({"gain": lambda g: g[:1]}, ValueError, "gain callable must return one gain per grade"),
        ({"gain": lambda g: -g}, ValueError, "gain must be >= 0"),
        ({"gain": lambda g: g * np.nan}, ValueError, "gain produced NaN"),
        ({"gain": lambda g: g.astype(str)}, TypeError, "gain callable must return numbers"),
        ({"discount": "log10"}, ValueError, "discount must be one of"),
        ({"discount": "log10", "log_base": 10}, ValueError, "discount must be one of"),
        ({"discount": None}, TypeError, "discount must be a name"),
        ({"discount": lambda i: i[:2]}, ValueError, "one discount per position"),
        ({"discount": lambda i: 0 * i}, ValueError, "finite discounts > 0"),
        ({"discount": lambda i: 1 / i}, ValueError, "non-decreasing"),
        ({"log_base": 10}, ValueError, "log_base is read only by discount='log' or 'jarvelin'"),
        ({"discount": "linear", "exp_base": 3}, ValueError, "exp_base is read only"),
        ({"power_exponent": 2}, ValueError, "power_exponent is read only"),
        ({"discount": "log", "log_base": 1}, ValueError, "log_base must be > 1"),
        ({"discount": "log", "log_base": "2"}, TypeError, "log_base must be a real number"),
        ({"discount": "exponential", "exp_base": 0.5}, ValueError, "exp_base must be > 1"),
        ({"discount": "power", "power_shift": -1}, ValueError, "power_shift must be > -1"),
        ({"discount": "power", "power_exponent": 0}, ValueError, "power_exponent must be > 0"),
        # 0.001 ** 200 = 1e-600 underflows to 0: a division by zero, nan or inf
        (
            {"discount": "power", "power_shift": -0.999, "power_exponent": 200},
            ValueError,
            r"discount='power' is 0 at position 1: \(1 \+ power_shift\) \*\* power_exponent",
        ),
    ],
)
def test_bad_options(kwargs, exc, match):
    for f in (dcg, ndcg):
        with pytest.raises(exc, match=match):
            f([1, 0, 2], **kwargs)


def test_exponential_gain_overflow():
    with pytest.raises(ValueError, match="gain produced NaN or infinite"):
        dcg([2000], gain="exponential")


@pytest.mark.filterwarnings("error")  # a ValueError, and no RuntimeWarning before it
def test_sums_past_float64_raise():
    # Finite grades, but 1e308 (1 + 1/log2(3) + 1/2) is past float64's 1.8e308.
    for f in (dcg, ndcg):
        with pytest.raises(ValueError, match="rescale the grades, or choose a discount"):
            f([1e308] * 3)
    # 2**1023 - 1 is a finite exponential gain; three of them are not a finite sum.
    with pytest.raises(ValueError, match="rescale the grades, or choose a discount"):
        dcg([1023] * 3, gain="exponential")
    # Only the IDCG overflows, from the judged grades.
    with pytest.raises(ValueError, match="rescale the grades, or choose a discount"):
        ndcg([1, 0], ideal=[1e308] * 3)
    with pytest.raises(ValueError, match="DCG of query 1 overflows float64"):
        dcg([[1, 2], [1e308] * 3])
    # A discount below 1 can push a finite gain past the range on its own:
    # 1e300 / 0.1**10.
    with pytest.raises(ValueError, match=r"discounts \(smallest 1e-10\)"):
        dcg([1e300], discount="power", power_shift=-0.9, power_exponent=10)
    # Up to the limit the sums stay numbers.
    assert dcg([1e308, 1e308]) == pytest.approx(1e308 + 1e308 / log2(3))
    assert ndcg([1e308, 1e308]) == 1.0
    assert ndcg([1e308, 1e308], k=1, ideal=[1e308] * 3) == 1.0


@pytest.mark.filterwarnings("error")
def test_power_discount_overflowing_far_down_weighs_nothing():
    # i ** 200 overflows to inf from i = 35 on: weight 0, without a warning.
    r = [1] * 400
    assert dcg(r, discount="power", power_exponent=200) == pytest.approx(1 + 2.0**-200)
    assert ndcg(r, discount="power", power_exponent=200) == 1.0


@pytest.mark.parametrize(
    "relevance, ideal, match",
    [
        ([1, 0], [[1, 1]], "ideal must be 1-D"),
        ([[1, 0], [0, 1]], [1, 1], "ideal must hold one list of judged grades per query"),
        ([[1, 0], [0, 1]], [[1], [1], [1]], "ideal holds 3 queries but relevance holds 2"),
        ([3, 1], [1, 1], "ideal does not contain the grades of the ranked items"),
        ([1, 1, 1], [1, 1], "ideal does not contain"),
        ([[1], [2, 2]], [[1], [2, 1]], "ideal of query 1 does not contain"),
        ([1, 0], [], "ideal is empty"),
        ([1, 0], [1, -1], "ideal contains negative grades"),
        ([1, 0], "11", "ideal must be a sequence"),
    ],
)
def test_bad_ideal(relevance, ideal, match):
    with pytest.raises((ValueError, TypeError), match=match):
        ndcg(relevance, ideal=ideal)


