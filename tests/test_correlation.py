"""Spearman's rho, Kendall's tau, Kendall tau distance and inversions.

Sources' examples, agreement with scipy.stats, properties, slow oracles, errors.
"""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import grades, ragged, random_batch
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import stats

from rankeval import (
    first_relevant_position,
    inversions,
    kendall_tau,
    kendall_tau_distance,
    spearman_rho,
)
from rankeval.stats.correlation import _count_inversions


def pairs(max_value=4, min_size=2, max_size=12):
    """Two aligned rankings of the same n items; small integer values, so many ties."""
    return st.integers(min_size, max_size).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, max_value), min_size=n, max_size=n),
            st.lists(st.integers(0, max_value), min_size=n, max_size=n),
        )
    )


def permutation_pairs(max_size=10):
    """Two rankings without ties: permutations of 1..n."""
    return st.integers(2, max_size).flatmap(
        lambda n: st.tuples(st.permutations(range(1, n + 1)), st.permutations(range(1, n + 1)))
    )


def ragged_pairs(max_rows=5):
    return st.lists(pairs(), min_size=1, max_size=max_rows)


def scipy_values(x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input; we compare the nan
        return stats.spearmanr(x, y)[0], stats.kendalltau(x, y)[0]


# --- worked examples of the sources -------------------------------------------------

TRUE = list(range(1, 11))
# Model Evaluation, Part 4: four predicted rankings of ten items against the true order 1..10.
IDENTICAL = list(range(1, 11))
REVERSE = list(range(10, 0, -1))
SLIGHTLY_DIFFERENT = [1, 3, 2, 4, 6, 5, 7, 9, 8, 10]  # three neighbour swaps
SWAPPED_PAIRS = [2, 1, 4, 3, 6, 5, 8, 7, 10, 9]  # five neighbour swaps
N_TERM = 10 * (10**2 - 1)  # n (n^2 - 1) = 990


def test_model_evaluation_spearman_four_rankings():
    # Reverse: d = 9, 7, 5, 3, 1, -1, ..., -9, sum d^2 = 2 (81 + 49 + 25 + 9 + 1) = 330.
    assert spearman_rho(TRUE, IDENTICAL) == 1.0
    assert spearman_rho(TRUE, REVERSE) == pytest.approx(1 - 6 * 330 / N_TERM)
    assert spearman_rho(TRUE, REVERSE) == pytest.approx(-1.0)
    assert spearman_rho(TRUE, SLIGHTLY_DIFFERENT) == pytest.approx(1 - 6 * 6 / N_TERM)
    assert spearman_rho(TRUE, SWAPPED_PAIRS) == pytest.approx(1 - 6 * 10 / N_TERM)


def test_model_evaluation_as_one_batch():
    predicted = [IDENTICAL, REVERSE, SLIGHTLY_DIFFERENT, SWAPPED_PAIRS]
    want = [1, -1, 1 - 6 * 6 / N_TERM, 1 - 6 * 10 / N_TERM]
    np.testing.assert_allclose(spearman_rho(TRUE, predicted), want)
    np.testing.assert_allclose(spearman_rho(predicted, TRUE), want)  # symmetric broadcast
    np.testing.assert_allclose(spearman_rho(np.array(predicted), [TRUE] * 4), want)


def test_model_evaluation_kendall_four_rankings():
    # 45 pairs; each neighbour swap makes one discordant pair.
    predicted = [IDENTICAL, REVERSE, SLIGHTLY_DIFFERENT, SWAPPED_PAIRS]
    np.testing.assert_allclose(
        kendall_tau(TRUE, predicted), [1, -1, (42 - 3) / 45, (40 - 5) / 45]
    )
    np.testing.assert_array_equal(kendall_tau_distance(TRUE, predicted), [0, 45, 3, 5])
    np.testing.assert_allclose(
        kendall_tau_distance(TRUE, predicted, normalize=True), [0, 1, 3 / 45, 5 / 45]
    )


def test_guide_inversions_nine_versus_eight():
    # The Comprehensive Guide: the second list has fewer inversions (8 against 9), yet its
    # first relevant item stands lower. Our own lists with that property (the Guide's
    # figure is not in its text): 2 relevant items among 11.
    first = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]  # nine non-relevant items above the last one
    second = [0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0]  # four above each relevant item
    assert inversions(first) == 0 + 9
    assert inversions(second) == 4 + 4
    # ... yet the second list's first relevant item stands at position 5, not 1.
    assert first_relevant_position(first) == 1
    assert first_relevant_position(second) == 5


def test_inversion_definition_small_cases():
    assert inversions([3, 2, 1, 0]) == 0
    assert inversions([0, 1, 2, 3]) == 4 * 3 / 2  # every pair inverted
    assert inversions([2, 3, 3, 0]) == 2  # 2 before either 3; the tied 3s and 0 are fine
    assert inversions([1, 1, 1]) == 0  # ties are not inversions
    assert inversions([0, 0, 0]) == 0  # no relevant item: no inversion
    assert inversions([0, 1, 0, 1], k=2) == 1  # only pairs inside the top 2
    assert inversions([0, 1, 0, 1], k=10) == inversions([0, 1, 0, 1]) == 1 + 2


def test_average_ranks_with_ties():
    # Ranks 1, 2.5, 2.5, 4 against 1, 2, 3, 4: centred (-1.5, 0, 0, 1.5) and
    # (-1.5, -0.5, 0.5, 1.5); sum of products 4.5, sums of squares 4.5 and 5.
    assert spearman_rho([10, 20, 20, 30], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(4.5 * 5))


def test_tau_a_and_tau_b_with_ties():
    # x ties items 1 and 2; all 3 pairs concordant or tied: C = 2, D = 0, n_x = n_y = 1.
    assert kendall_tau([1, 1, 2], [1, 1, 2]) == pytest.approx(2 / math.sqrt((3 - 1) * (3 - 1)))
    assert kendall_tau([1, 1, 2], [1, 1, 2], variant="a") == pytest.approx(2 / 3)
    assert kendall_tau([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt((3 - 1) * 3))


def test_tie_penalty():
    # x = 1, 2, 3 against y = 1, 1, 2: pair (1, 2) tied in y only, no discordant pair.
    assert kendall_tau_distance([1, 2, 3], [1, 1, 2]) == 0
    assert kendall_tau_distance([1, 2, 3], [1, 1, 2], tie_penalty=0.5) == 0.5
    assert kendall_tau_distance([1, 1, 3], [1, 1, 2], tie_penalty=1) == 0  # tied in both
    assert kendall_tau_distance([2, 1, 3], [1, 1, 2], tie_penalty=1, normalize=True) == 1 / 3


def test_constant_input_gives_nan():
    assert math.isnan(spearman_rho([2, 2, 2], [1, 2, 3]))
    assert math.isnan(kendall_tau([1, 2, 3], [5, 5, 5]))
    assert kendall_tau([1, 2, 3], [5, 5, 5], variant="a") == 0.0
    got = spearman_rho([[1, 2, 3], [4, 4, 4]], [[3, 2, 1], [1, 2, 3]])
    assert got[0] == -1.0 and math.isnan(got[1])  # one constant row does not spoil the batch


# --- agreement with scipy.stats -----------------------------------------------------


@given(pairs())
def test_matches_scipy_with_ties(xy):
    x, y = xy
    rho, tau = scipy_values(x, y)
    np.testing.assert_allclose(spearman_rho(x, y), rho, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(kendall_tau(x, y), tau, atol=1e-12, equal_nan=True)


@given(
    st.integers(2, 30).flatmap(
        lambda n: st.tuples(
            st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n),
            st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n),
        )
    )
)
def test_matches_scipy_on_float_scores(xy):
    x, y = xy
    rho, tau = scipy_values(x, y)
    np.testing.assert_allclose(spearman_rho(x, y), rho, atol=1e-9, equal_nan=True)
    np.testing.assert_allclose(kendall_tau(x, y), tau, atol=1e-9, equal_nan=True)


def test_matches_scipy_on_a_random_batch():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(40, 25))
    Y = rng.integers(0, 6, size=(40, 25))
    want = np.array([scipy_values(x, y) for x, y in zip(X, Y, strict=True)])
    np.testing.assert_allclose(spearman_rho(X, Y), want[:, 0], atol=1e-12)
    np.testing.assert_allclose(kendall_tau(X, Y), want[:, 1], atol=1e-12)


# --- properties ---------------------------------------------------------------------


@given(pairs())
def test_range_and_symmetry(xy):
    x, y = xy
    for f in (spearman_rho, kendall_tau):
        v = f(x, y)
        assert math.isnan(v) or -1 <= v <= 1
        np.testing.assert_allclose(f(y, x), v, equal_nan=True)
    assert -1 <= kendall_tau(x, y, variant="a") <= 1
    assert 0 <= kendall_tau_distance(x, y, normalize=True) <= 1
    assert kendall_tau_distance(x, y) == kendall_tau_distance(y, x)


@given(pairs())
def test_same_order_is_one_and_reversed_order_is_minus_one(xy):
    x, _ = xy
    assume(len(set(x)) > 1)
    assert spearman_rho(x, x) == pytest.approx(1)
    assert kendall_tau(x, x) == pytest.approx(1)  # tau-b: ties in both rankings are forgiven
    assert spearman_rho(x, [-v for v in x]) == pytest.approx(-1)
    assert kendall_tau(x, [-v for v in x]) == pytest.approx(-1)
    assert kendall_tau_distance(x, x) == 0


@given(pairs())
def test_only_the_order_matters(xy):
    # A strictly increasing transformation of the scores leaves every value unchanged.
    x, y = xy
    x2 = [math.exp(v) + 7 * v**3 for v in x]
    np.testing.assert_allclose(spearman_rho(x2, y), spearman_rho(x, y), equal_nan=True)
    np.testing.assert_allclose(kendall_tau(x2, y), kendall_tau(x, y), equal_nan=True)
    assert kendall_tau_distance(x2, y) == kendall_tau_distance(x, y)


@given(permutation_pairs())
def test_without_ties_formulas_agree(xy):
    x, y = xy
    n = len(x)
    d2 = sum((a - b) ** 2 for a, b in zip(x, y, strict=True))
    assert spearman_rho(x, y) == pytest.approx(1 - 6 * d2 / (n * (n**2 - 1)))
    assert kendall_tau(x, y) == pytest.approx(kendall_tau(x, y, variant="a"))
    assert kendall_tau_distance(x, y, normalize=True) == pytest.approx(
        (1 - kendall_tau(x, y, variant="a")) / 2
    )


@given(permutation_pairs(max_size=8))
def test_distance_counts_neighbour_swaps(xy):
    # Bubble-sort y into the order of x: the number of swaps is the Kendall tau distance.
    x, y = xy
    seq = [y[i] for i in np.argsort(x)]  # y's ranks, listed in x's order
    swaps = 0
    for end in range(len(seq) - 1, 0, -1):
        for i in range(end):
            if seq[i] > seq[i + 1]:
                seq[i], seq[i + 1] = seq[i + 1], seq[i]
                swaps += 1
    assert kendall_tau_distance(x, y) == swaps


@given(grades(max_grade=3, max_size=12))
def test_inversions_is_the_distance_to_the_grade_order(g):
    positions_as_scores = list(range(len(g), 0, -1))  # the top item scores highest
    if len(g) >= 2:
        assert inversions(g) == kendall_tau_distance(positions_as_scores, g)
    assert inversions(sorted(g, reverse=True)) == 0


@given(grades(max_grade=3, min_size=2), st.data())
def test_moving_a_more_relevant_item_up_removes_one_inversion(g, data):
    i = data.draw(st.integers(0, len(g) - 2))
    assume(g[i] < g[i + 1])
    swapped = g[:i] + [g[i + 1], g[i]] + g[i + 2 :]
    assert inversions(swapped) == inversions(g) - 1


@given(ragged(), st.one_of(st.none(), st.integers(1, 15)))
def test_inversions_batch_and_padding(rs, k):
    got = inversions(rs, k)
    np.testing.assert_array_equal(got, [inversions(r, k) for r in rs])
    width = max(map(len, rs))
    padded = np.array([r + [0] * (width - len(r)) for r in rs])
    np.testing.assert_array_equal(inversions(padded, k), got)


# --- slow oracles -------------------------------------------------------------------


def slow_average_ranks(v):
    return [
        1 + sum(w < a for w in v) + (sum(w == a for w in v) - 1) / 2 for a in v
    ]


def slow_spearman(x, y):
    a, b = slow_average_ranks(x), slow_average_ranks(y)
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    cov = sum((p - ma) * (q - mb) for p, q in zip(a, b, strict=True))
    va = sum((p - ma) ** 2 for p in a)
    vb = sum((q - mb) ** 2 for q in b)
    return cov / math.sqrt(va * vb) if va * vb > 0 else math.nan


def slow_kendall(x, y, variant):
    concordant = discordant = tied_x = tied_y = 0
    pairs_ = list(itertools.combinations(range(len(x)), 2))
    for i, j in pairs_:
        dx, dy = x[i] - x[j], y[i] - y[j]
        tied_x += dx == 0
        tied_y += dy == 0
        concordant += dx * dy > 0
        discordant += dx * dy < 0
    n0 = len(pairs_)
    if variant == "a":
        return (concordant - discordant) / n0
    denominator = math.sqrt((n0 - tied_x) * (n0 - tied_y))
    return (concordant - discordant) / denominator if denominator else math.nan


def slow_distance(x, y, p):
    total = 0.0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx * dy < 0:
            total += 1
        elif (dx == 0) != (dy == 0):
            total += p
    return total


def slow_inversions(g):
    return sum(1 for i in range(len(g)) for j in range(i + 1, len(g)) if g[i] < g[j])


def random_pairs(seed, n_rows=40, max_len=25):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(2, max_len + 1, size=n_rows)
    xs = [list(rng.integers(0, 5, size=n)) for n in lengths]
    ys = [list(rng.integers(0, 5, size=n)) for n in lengths]
    return xs, ys


@pytest.mark.parametrize("seed", [1, 2])
def test_against_slow_oracles(seed):
    xs, ys = random_pairs(seed)
    rows = list(zip(xs, ys, strict=True))
    np.testing.assert_allclose(spearman_rho(xs, ys), [slow_spearman(x, y) for x, y in rows])
    for variant in ("a", "b"):
        np.testing.assert_allclose(
            kendall_tau(xs, ys, variant=variant), [slow_kendall(x, y, variant) for x, y in rows]
        )
    for p in (0, 0.5, 1):
        np.testing.assert_allclose(
            kendall_tau_distance(xs, ys, tie_penalty=p), [slow_distance(x, y, p) for x, y in rows]
        )


@pytest.mark.parametrize("k", [None, 1, 5, 30])
def test_inversions_against_slow_oracle(k):
    rs = random_batch(seed=11)
    np.testing.assert_array_equal(
        inversions(rs, k), [slow_inversions(r if k is None else r[:k]) for r in rs]
    )


def pair_signs_oracle(x, y):
    """The former O(n^2) implementation: all pairwise signs at once, by broadcasting."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    c_minus_d = (sx * sy).sum() / 2
    discordant = (sx * sy < 0).sum() / 2
    tied_in_one = ((sx == 0) != (sy == 0)).sum() / 2  # the diagonal is tied in both
    return c_minus_d, discordant, tied_in_one, np.abs(sx).sum() / 2, np.abs(sy).sum() / 2


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("levels", [3, 40, 10**6])
def test_bit_counts_against_the_quadratic_oracle(seed, levels):
    rng = np.random.default_rng(seed)
    n = 600
    x, y = rng.integers(0, levels, n), rng.integers(0, levels, n)
    c_minus_d, discordant, tied_in_one, untied_x, untied_y = pair_signs_oracle(x, y)
    n0 = n * (n - 1) / 2
    assert kendall_tau(x, y, variant="a") == pytest.approx(c_minus_d / n0, rel=1e-12)
    assert kendall_tau(x, y) == pytest.approx(c_minus_d / np.sqrt(untied_x * untied_y), rel=1e-12)
    assert kendall_tau_distance(x, y) == discordant
    assert kendall_tau_distance(x, y, tie_penalty=0.5) == discordant + 0.5 * tied_in_one


batches_of_ranks = st.integers(1, 40).flatmap(  # top rank 1 to 40: 1 to 6 bits
    lambda top: st.lists(st.lists(st.integers(0, top), max_size=20), min_size=1, max_size=6)
)


@given(batches_of_ranks, st.data())
def test_count_inversions_against_brute_force(rows, data):
    # The bit-by-bit count on a batch as the callers pass it (ordered by row, then
    # position), with empty and one-item rows, many ties, and ranks over several bits.
    ranks = [np.unique(r, return_inverse=True)[1] for r in rows]  # dense, 0 up, per row
    row = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    position = np.concatenate([np.arange(len(r)) for r in rows])
    values = np.concatenate([np.zeros(0, dtype=np.int64), *ranks])
    want = [
        sum(r[i] > r[j] for i in range(len(r)) for j in range(i + 1, len(r))) for r in ranks
    ]
    got = _count_inversions(row, position, values, len(rows))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    # the items in any other order are sorted first
    shuffle = np.array(data.draw(st.permutations(range(row.size))), dtype=np.int64)
    np.testing.assert_array_equal(
        _count_inversions(row[shuffle], position[shuffle], values[shuffle], len(rows)), want
    )


@pytest.mark.parametrize("k", [None, 50])
def test_inversions_with_many_levels_against_slow_oracle(k):
    # more than 64 distinct grades: the bit-by-bit count
    rng = np.random.default_rng(8)
    rs = [list(rng.integers(0, 200, size=int(n))) for n in rng.integers(1, 120, size=8)]
    np.testing.assert_array_equal(
        inversions(rs, k), [slow_inversions(r if k is None else r[:k]) for r in rs]
    )


def test_a_million_items_in_linear_memory():
    # issue 9: the O(n^2) version needed 2.5 GB for 10,000 items
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 10**6
    x = rng.integers(0, 1000, n)
    y = x + rng.integers(0, 300, n)
    tracemalloc.start()
    try:
        tau = kendall_tau(x, y)
        distance = kendall_tau_distance(x, y, normalize=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 400 * 2**20  # a few dozen arrays of n values, never n^2
    assert tau == pytest.approx(stats.kendalltau(x, y).statistic, rel=1e-12)
    assert 0 < distance < 0.5


# --- large integers: compared exactly, never rounded to float64 --------------------------

BIG = 1_700_000_000_000_000_000  # a time in nanoseconds: past 2**53, where float64 rounds


def test_large_integers_are_not_rounded_to_float():
    # the reviewer's cases: three times 1 ns apart are one and the same float64
    x = np.array([BIG + 1, BIG + 2, BIG + 3])
    assert kendall_tau(x, [1, 2, 3]) == 3 / 3  # 3 concordant pairs of 3
    assert spearman_rho(x, [1, 2, 3]) == 1.0
    assert kendall_tau_distance(x, [3, 2, 1]) == 3 * 2 / 2  # every pair discordant
    assert kendall_tau(x, [1, 2, 3]) == stats.kendalltau(x, [1, 2, 3]).statistic
    # 2**60 + 1 > 2**60 > 1: pair (0, 1) concordant, (0, 2) and (1, 2) discordant
    y = np.array([2**60, 2**60 + 1, 1])
    assert kendall_tau(y, [1, 2, 3]) == pytest.approx((1 - 2) / 3)
    # ranks 2, 3, 1 against 1, 2, 3: d = 1, 1, -2, sum d^2 = 6
    assert spearman_rho(y, [1, 2, 3]) == pytest.approx(1 - 6 * 6 / (3 * (3**2 - 1)))


def test_unsigned_python_and_boolean_integers_keep_their_order():
    u = np.array([2**64 - 1, 2**63, 2**63 + 1], dtype=np.uint64)  # ranks 3, 1, 2
    assert kendall_tau(u, [3, 1, 2]) == 1.0
    assert spearman_rho(u, [3, 1, 2]) == 1.0
    assert kendall_tau_distance(u, [1, 2, 3]) == 2  # pairs (0, 1) and (0, 2)
    # Python ints past int64, which NumPy turns into float64 (or object past uint64)
    assert kendall_tau([2**63 + 1, 2**63, 2**63 + 2], [2, 1, 3]) == 1.0
    assert kendall_tau([2**70 + 1, 2**70, -5], [3, 2, 1]) == 1.0
    assert kendall_tau([np.uint64(2**64 - 1), -1, 0], [3, 1, 2]) == 1.0
    assert kendall_tau(np.array([True, False, True]), [2, 1, 2]) == 1.0


def test_large_integers_in_batches_and_against_floats():
    x = np.array([BIG + 1, BIG + 2, BIG + 3])
    assert kendall_tau(x, [0.3, 0.2, 0.1]) == -1.0  # x integer, y float
    assert spearman_rho([0.1, 0.2, 0.3], x) == 1.0
    np.testing.assert_array_equal(kendall_tau(np.stack([x, x[::-1]]), [1, 2, 3]), [1, -1])
    # ragged rows, a row of floats and a row of large integers on the same side
    xs = [[0.5, 0.25], [BIG + 3, BIG + 2, BIG + 1, BIG]]
    ys = [[1, 2], [1, 2, 3, 4]]
    np.testing.assert_array_equal(kendall_tau_distance(xs, ys), [1, 4 * 3 / 2])
    np.testing.assert_array_equal(spearman_rho(xs, ys), [-1, -1])
    np.testing.assert_array_equal(kendall_tau(ys, xs), [-1, -1])
    # the largest int64 in a row shorter than the others: never tied with the padding
    top = np.iinfo(np.int64).max
    np.testing.assert_array_equal(
        spearman_rho([[top, top - 1], [1, 2, 3]], [[1, 2], [1, 2, 3]]), [-1, 1]
    )
    # pandas integer columns are read as integers too
    a = pd.Series(x, index=["s1", "s2", "s3"])
    assert kendall_tau(a, pd.Series([3, 2, 1], index=["s3", "s2", "s1"])) == 1.0
    frame = pd.DataFrame([x, x[::-1]], columns=["s1", "s2", "s3"])
    np.testing.assert_array_equal(spearman_rho(frame, [1, 2, 3]), [1, -1])


INT64_ANCHORS = [-(2**63), -(2**53), 0, 2**53, 2**63 - 1]
UINT64_ANCHORS = [0, 2**53, 2**63, 2**64 - 1]


def near(anchors, low, high):
    """Whole numbers within 3 of an anchor, kept in [low, high]."""
    return st.builds(
        lambda a, d: min(max(a + d, low), high), st.sampled_from(anchors), st.integers(-3, 3)
    )


INTEGER_KINDS = [  # (dtype, values near 2**53 and 2**63: distinct ones that float64 ties)
    (np.int64, near(INT64_ANCHORS, -(2**63), 2**63 - 1)),
    (np.uint64, near(UINT64_ANCHORS, 0, 2**64 - 1)),
]


@st.composite
def large_integer_pairs(draw):
    """Two aligned int64 or uint64 arrays of the same 2 to 12 items."""
    n = draw(st.integers(2, 12))
    arrays = []
    for _ in range(2):
        dtype, values = draw(st.sampled_from(INTEGER_KINDS))
        arrays.append(np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=dtype))
    return tuple(arrays)


EXACT_MEASURES = [  # between them, every count: ties in x, in y, in both, discordant pairs
    spearman_rho,
    kendall_tau,
    lambda x, y: kendall_tau_distance(x, y, tie_penalty=0.5),
]


def dense_ranks(a):
    """0, 1, ... for the distinct values of a, in their order: small, exact in float64."""
    return np.unique(a, return_inverse=True)[1]


@given(large_integer_pairs())
def test_large_integers_correlate_as_their_dense_ranks(xy):
    # only the order counts, so every value equals the one on the dense ranks
    x, y = xy
    rx, ry = dense_ranks(x), dense_ranks(y)
    for f in EXACT_MEASURES:
        want = f(rx, ry)
        assert np.array_equal(f(x, y), want, equal_nan=True)
        assert np.array_equal(f(x.tolist(), y.tolist()), want, equal_nan=True)  # Python ints
        assert np.array_equal(f(x, ry.astype(float)), want, equal_nan=True)  # against floats


@given(st.lists(large_integer_pairs(), min_size=1, max_size=4))
def test_large_integer_batches_correlate_as_their_dense_ranks(rows):
    # ragged rows, each int64 or uint64: padded into one batch, row by row exact
    xs, ys = [x for x, _ in rows], [y for _, y in rows]
    for f in EXACT_MEASURES:
        want = [f(dense_ranks(x), dense_ranks(y)) for x, y in rows]
        np.testing.assert_array_equal(f(xs, ys), want)
        np.testing.assert_array_equal(f([x.tolist() for x in xs], ys), want)


# --- pandas labels: matched as paired_test matches query ids ----------------------------

PAIR_FUNCTIONS = [spearman_rho, kendall_tau, kendall_tau_distance]


@pytest.mark.parametrize("f", [spearman_rho, kendall_tau])
def test_two_series_are_matched_by_index(f):
    # the reviewer's case: b is a, listed in the reverse order (the same data)
    a = pd.Series([0.3, 0.2, 0.1], index=["s1", "s2", "s3"])
    b = pd.Series([0.1, 0.2, 0.3], index=["s3", "s2", "s1"])
    assert f(a, b) == 1.0
    assert f(b, a) == 1.0
    rng = np.random.default_rng(3)
    ids = [f"item{i}" for i in range(25)]
    x = pd.Series(rng.normal(size=25), index=ids)
    y = pd.Series(x.to_numpy() + rng.normal(size=25), index=ids).sample(frac=1, random_state=1)
    assert not x.index.equals(y.index)
    want = scipy_values(x.to_numpy(), y.loc[x.index].to_numpy())[0 if f is spearman_rho else 1]
    assert f(x, y) == pytest.approx(want, rel=1e-12)


def test_kendall_tau_distance_matches_series_by_index():
    a = pd.Series([4, 3, 2, 1], index=list("abcd"))
    b = pd.Series([1, 2, 3, 4], index=list("dcba"))  # a, listed backwards
    assert kendall_tau_distance(a, b) == 0.0
    c = pd.Series([1, 2, 3, 4], index=list("abcd"))  # a reversed: every pair discordant
    assert kendall_tau_distance(a, c.iloc[::-1]) == 4 * 3 / 2


@pytest.mark.parametrize("f", PAIR_FUNCTIONS)
def test_dataframes_are_matched_by_columns_and_index(f):
    rng = np.random.default_rng(8)
    x = pd.DataFrame(rng.integers(0, 5, (4, 7)), index=[f"q{i}" for i in range(4)],
                     columns=[f"d{j}" for j in range(7)])
    y = pd.DataFrame(rng.integers(0, 5, (4, 7)), index=x.index, columns=x.columns)
    want = f(x.to_numpy(), y.to_numpy())
    shuffled = y.iloc[[2, 0, 3, 1], [6, 1, 4, 0, 5, 3, 2]]
    np.testing.assert_array_equal(f(x, shuffled), want)
    # a Series of items against each row of a DataFrame: index against columns
    np.testing.assert_array_equal(
        f(x.iloc[0].iloc[::-1], shuffled), f(x.to_numpy()[0], shuffled[x.columns].to_numpy())
    )
    # Series given as rows of a list: each row matched by its own index
    rows_x = [x.iloc[i] for i in range(4)]
    rows_y = [y.iloc[i].iloc[::-1] for i in range(4)]
    np.testing.assert_array_equal(f(rows_x, rows_y), want)


@pytest.mark.parametrize("f", PAIR_FUNCTIONS)
def test_a_series_against_an_array_is_paired_by_position(f):
    # as in paired_test: the array's i-th value is the Series' i-th item
    a = pd.Series([0.3, 0.2, 0.1, 0.4], index=["s1", "s2", "s3", "s4"])
    b = np.array([0.1, 0.2, 0.3, 0.5])
    assert f(a, b) == f(a.to_numpy(), b)
    assert f(b, a) == f(b, a.to_numpy())


@pytest.mark.parametrize("f", PAIR_FUNCTIONS)
@pytest.mark.parametrize(
    "x, y, match",
    [
        (pd.Series([1, 2, 3], index=["a", "b", "c"]), pd.Series([1, 2, 3], index=["a", "b", "d"]),
         r"x and y must rank the same items: 1 only in x \(e\.g\. \['c'\]\), 1 only in y "
         r"\(e\.g\. \['d'\]\)"),
        (pd.Series([1, 2, 3], index=["a", "b", "c"]), pd.Series([1, 2], index=["a", "b"]),
         r"must rank the same items: 1 only in x \(e\.g\. \['c'\]\); items are matched"),
        (pd.Series([1, 2, 3], index=[1, 2, 3]), pd.Series([1, 2, 3], index=["1", "2", "3"]),
         r"3 only in x \(e\.g\. \[1, 2, 3\]\), 3 only in y"),
        (pd.Series([1, 2, 3], index=["a", "a", "b"]), pd.Series([1, 2, 3], index=["a", "b", "c"]),
         r"x has 1 duplicate label \(e\.g\. \['a'\]\)"),
        (pd.DataFrame([[1, 2], [2, 1]], index=["q1", "q2"]),
         pd.DataFrame([[1, 2], [2, 1]], index=["q1", "q3"]),
         r"x and y do not hold the same rows: 1 only in x \(e\.g\. \['q2'\]\)"),
        (pd.DataFrame([[1, 2, 3]], columns=["a", "b", "c"]),
         pd.DataFrame([[1, 2, 3]], columns=["a", "b", "e"]),
         r"must rank the same items \(row 0\): 1 only in x"),
        ([pd.Series([1, 2], index=["a", "b"]), pd.Series([1, 2], index=["a", "b"])],
         [pd.Series([1, 2], index=["a", "b"]), pd.Series([1, 2], index=["a", "c"])],
         r"\(row 1\): 1 only in x \(e\.g\. \['b'\]\)"),
    ],
)
def test_pandas_labels_that_differ_are_refused(f, x, y, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clear error, no warning from pandas on the way
        with pytest.raises(ValueError, match=match):
            f(x, y)


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize("f", [spearman_rho, kendall_tau, kendall_tau_distance])
@pytest.mark.parametrize(
    "x, y, exc, match",
    [
        ([1, 2, 3], [1, 2], ValueError, "x has 3 values, y has 2"),
        ([[1, 2], [1, 2, 3]], [[1, 2], [1, 2]], ValueError, r"\(row 1\): x has 3 values, y has 2"),
        ([1, 2, 3], [[1, 2, 3], [1, 2]], ValueError, r"\(row 1\): x has 3 values, y has 2"),
        ([[1, 2], [2, 1]], [[1, 2]] * 3, ValueError, "x holds 2 rankings but y holds 3"),
        ([1], [1], ValueError, "at least 2 items"),
        ([], [], ValueError, "at least 2 items"),
        ([1, float("nan")], [1, 2], ValueError, "x contains NaN"),
        ([1, 2], [1, np.inf], ValueError, "y contains NaN or infinite"),
        (["a", "b"], [1, 2], TypeError, "x must contain numbers"),
        ([1, 2], [1, None], TypeError, "y must contain numbers"),
        ([1, 2], "ab", TypeError, "got a string"),
        (3, [1, 2], TypeError, "x must be a sequence"),
        ([1, [1, 2]], [1, 2], TypeError, "mixes numbers and sequences"),
        (np.zeros((2, 2, 2)), [1, 2], ValueError, "1-D .* or 2-D"),
    ],
)
def test_bad_pairs(f, x, y, exc, match):
    with pytest.raises(exc, match=match):
        f(x, y)


def test_bad_options():
    with pytest.raises(ValueError, match='variant must be "a" or "b"'):
        kendall_tau([1, 2], [1, 2], variant="c")
    with pytest.raises(ValueError, match="tie_penalty must lie in"):
        kendall_tau_distance([1, 2], [1, 2], tie_penalty=2)
    with pytest.raises(TypeError, match="normalize must be True or False"):
        kendall_tau_distance([1, 2], [1, 2], normalize="yes")


@pytest.mark.parametrize(
    "relevance, k, exc, match",
    [
        ([], None, ValueError, "relevance is empty"),
        ([1, -1], None, ValueError, "negative grades"),
        ([1, float("nan")], None, ValueError, "NaN or infinite"),
        (["a"], None, TypeError, "must contain numbers"),
        ([1, 0], 0, ValueError, "k must be a positive int"),
    ],
)
def test_inversions_bad_input(relevance, k, exc, match):
    with pytest.raises(exc, match=match):
        inversions(relevance, k)


def test_equal_indexes_pair_by_position_even_with_repeated_labels():
    # two columns of one frame whose index repeats labels: nothing to match
    frame = pd.DataFrame({"AP": [0.1, 0.4, 0.3, 0.2], "nDCG": [0.2, 0.5, 0.1, 0.3]})
    frame = pd.concat([frame, frame])  # index 0, 1, 2, 3, 0, 1, 2, 3
    x, y = frame["AP"].to_numpy(), frame["nDCG"].to_numpy()
    assert spearman_rho(frame["AP"], frame["nDCG"]) == spearman_rho(x, y)
    assert kendall_tau(frame["AP"], frame["nDCG"]) == kendall_tau(x, y)
    np.testing.assert_array_equal(kendall_tau(frame.T, frame.T), [1.0, 1.0])
    # but they cannot be matched against a reordered copy
    with pytest.raises(ValueError, match="duplicate label"):
        kendall_tau(frame["AP"], frame["nDCG"].iloc[::-1])


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_masked_and_matrix_inputs():
    # a masked item's value was read as it is (9 below: tau -1/3 instead of an error)
    masked = np.ma.array([1, 2, 9], mask=[0, 0, 1])
    with pytest.raises(TypeError, match="x is a masked array with masked items"):
        kendall_tau(masked, [1, 2, 0])
    with pytest.raises(TypeError, match=r"y\[0\] is a masked array with masked items"):
        spearman_rho([[1, 2, 3]], [masked])
    assert kendall_tau(np.ma.array([1, 2, 3]), [1, 3, 2]) == kendall_tau([1, 2, 3], [1, 3, 2])
    got = spearman_rho(np.matrix([[1, 2, 3]]), [[1, 3, 2]])
    assert type(got) is np.ndarray and got.shape == (1,)
    assert got[0] == spearman_rho([1, 2, 3], [1, 3, 2])
