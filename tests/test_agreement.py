"""Agreement statistics of rankeval.beyond against independent references: scikit-learn's
cohen_kappa_score, statsmodels' fleiss_kappa and the krippendorff package."""

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from rankeval.beyond import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    rating_table,
    system_tau,
)

TOL = 1e-12


def labels(n_items, n_values):
    return st.lists(st.integers(0, n_values - 1), min_size=n_items, max_size=n_items)


@st.composite
def two_raters(draw):
    n = draw(st.integers(2, 40))
    q = draw(st.integers(2, 5))
    a = draw(labels(n, q))
    b = draw(labels(n, q))
    return np.array(a), np.array(b)


@pytest.mark.filterwarnings("ignore::UserWarning")  # scikit-learn on one-label inputs
@settings(max_examples=200, deadline=None)
@given(two_raters(), st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_equals_scikit_learn(pair, weights):
    a, b = pair
    try:
        ref = cohen_kappa_score(a, b, weights=weights)
    except Exception:  # pragma: no cover - sklearn raises nothing here, but be explicit
        ref = np.nan
    if not np.isfinite(ref):
        with pytest.raises(ValueError):
            cohen_kappa(a, b, weights=weights)
        return
    assert abs(cohen_kappa(a, b, weights=weights) - ref) <= TOL


def test_cohen_kappa_known_value_and_errors():
    # 2x2 table [[20, 5], [10, 15]]: p_o = 0.7, p_e = 0.5 -> kappa = 0.4
    a = [0] * 25 + [1] * 25
    b = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    assert abs(cohen_kappa(a, b) - 0.4) <= TOL
    assert cohen_kappa(a, a) == 1.0
    with pytest.raises(ValueError, match="one length"):
        cohen_kappa([0, 1], [0])
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([0, 1], [0, 1], weights="cubic")
    with pytest.raises(ValueError, match="undefined"):
        cohen_kappa([1, 1, 1], [1, 1, 1])
    with pytest.raises(ValueError, match="not in labels"):
        cohen_kappa([0, 2], [0, 1], labels=[0, 1])


@st.composite
def rating_matrix(draw):
    n_subjects = draw(st.integers(1, 30))
    n_raters = draw(st.integers(2, 7))
    q = draw(st.integers(2, 5))
    rows = draw(st.lists(labels(n_raters, q), min_size=n_subjects, max_size=n_subjects))
    return np.array(rows)


@settings(max_examples=200, deadline=None)
@given(rating_matrix())
def test_fleiss_kappa_equals_statsmodels(ratings):
    table, _ = aggregate_raters(ratings)
    ours = rating_table(ratings).to_numpy()
    assert np.array_equal(ours, table)
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = sm_fleiss(table, method="fleiss")
    if not np.isfinite(ref):
        with pytest.raises(ValueError):
            fleiss_kappa(table)
        return
    assert abs(fleiss_kappa(table) - ref) <= TOL


def test_fleiss_kappa_by_hand_and_errors():
    # P_i = 1, 1, 1/3 -> P bar = 7/9; p = (5/9, 4/9) -> P_e = 41/81; kappa = 22/40
    assert abs(fleiss_kappa([[3, 0], [0, 3], [2, 1]]) - (7 / 9 - 41 / 81) / (40 / 81)) <= TOL
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[3, 0], [0, 2]])
    with pytest.raises(ValueError, match="whole counts"):
        fleiss_kappa([[1.5, 1.5], [0, 3]])


@st.composite
def reliability_data(draw):
    n_raters = draw(st.integers(2, 6))
    n_units = draw(st.integers(2, 25))
    q = draw(st.integers(2, 6))
    cells = draw(st.lists(st.one_of(st.none(), st.integers(0, q - 1)),
                          min_size=n_raters * n_units, max_size=n_raters * n_units))
    x = np.array([np.nan if c is None else float(c) for c in cells]).reshape(n_raters, n_units)
    return x


@settings(max_examples=300, deadline=None)
@given(reliability_data(), st.sampled_from(["nominal", "ordinal", "interval"]))
def test_krippendorff_alpha_equals_the_krippendorff_package(x, level):
    values = np.unique(x[~np.isnan(x)])
    pairable = (~np.isnan(x)).sum(axis=0) >= 2
    if values.size < 2 or not pairable.any():
        with pytest.raises(ValueError):
            krippendorff_alpha(x, level=level)
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            ref = krippendorff.alpha(reliability_data=x, level_of_measurement=level)
        except (ValueError, ZeroDivisionError):
            ref = np.nan
    if not np.isfinite(ref):
        with pytest.raises(ValueError):
            krippendorff_alpha(x, level=level)
        return
    assert abs(krippendorff_alpha(x, level=level) - ref) <= TOL


def test_krippendorff_alpha_with_spaced_values_and_errors():
    # values that are not 0..q-1: interval distance uses the values themselves
    x = np.array([[1.0, 2.5, 7.0, np.nan, 2.5], [1.0, 2.5, 4.0, 7.0, 1.0],
                  [np.nan, 2.5, 7.0, 7.0, 1.0]])
    for level in ["nominal", "ordinal", "interval"]:
        ref = krippendorff.alpha(reliability_data=x, level_of_measurement=level)
        assert abs(krippendorff_alpha(x, level=level) - ref) <= TOL
    perfect = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    assert krippendorff_alpha(perfect) == 1.0
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(perfect, level="ratio")
    with pytest.raises(ValueError, match="distinct"):
        krippendorff_alpha([[1.0, 1.0], [1.0, np.nan]])


def test_system_tau():
    a = {"A": 0.4, "B": 0.3, "C": 0.2, "D": 0.1}
    assert system_tau(a, a) == 1.0
    assert system_tau(a, {k: -v for k, v in a.items()}) == -1.0
    # one discordant pair of six: (6 - 2*1) / 6
    b = {"A": 0.4, "B": 0.3, "C": 0.1, "D": 0.2}
    assert abs(system_tau(a, b) - 4 / 6) <= TOL
    with pytest.raises(ValueError, match="same"):
        system_tau(a, {"A": 1.0, "B": 2.0})


def test_rating_table_refuses_repeated_categories():
    # a repeated category counted every label twice, and fleiss_kappa's n with it
    with pytest.raises(ValueError, match="categories repeat a value"):
        rating_table([[0, 1, 1], [2, 2, 2]], categories=[0, 1, 1, 2])


@settings(max_examples=200, deadline=None)
@given(reliability_data())
def test_krippendorff_alpha_takes_any_hashable_labels_at_the_nominal_level(x):
    # regression: string labels were refused (the data went through float()). The
    # krippendorff package needs numeric codes: map the labels to codes here.
    words = np.array(["yes", "no", "maybe", "n/a", "spam", "ham"], dtype=object)
    labelled = [[None if np.isnan(v) else words[int(v)] for v in row] for row in x]
    codes = {w: float(i) for i, w in enumerate(words)}
    coded = np.array([[np.nan if w is None else codes[w] for w in row] for row in labelled])
    np.testing.assert_array_equal(coded, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            ref = krippendorff.alpha(reliability_data=coded, level_of_measurement="nominal")
        except (ValueError, ZeroDivisionError):
            ref = np.nan
    values = np.unique(x[~np.isnan(x)])
    if values.size < 2 or not ((~np.isnan(x)).sum(axis=0) >= 2).any() or not np.isfinite(ref):
        with pytest.raises(ValueError):
            krippendorff_alpha(labelled)
        return
    assert abs(krippendorff_alpha(labelled) - ref) <= TOL


def test_krippendorff_alpha_nominal_labels_by_hand_and_errors():
    # two raters, four units, one disagreement (a/b): o = diag(a: 2, b: 2, c: 2) plus
    # o_ab = o_ba = 1; n = 8, n_a = 3, n_b = 3, n_c = 2
    # alpha = 1 - (n - 1) * 2 / (n^2 - sum n_c^2) = 1 - 7 * 2 / (64 - 22) = 2/3
    data = [["a", "b", "c", "a"], ["a", "b", "c", "b"]]
    assert abs(krippendorff_alpha(data) - 2 / 3) <= TOL
    # labels of mixed kinds: 1 and "1" are two labels; None and NaN mark a missing one
    assert abs(krippendorff_alpha([[1, "1", "x", None], [1, "1", "x", np.nan]]) - 1) <= TOL
    # all four labels disagree: n = 4, n_c = 2 each; 1 - 3 * 4 / (16 - 8) = -1/2
    assert abs(krippendorff_alpha([[1, "1"], ["1", 1]]) - (-1 / 2)) <= TOL
    assert abs(krippendorff_alpha(np.array(data + [[None] * 4], dtype=object)) - 2 / 3) <= TOL
    with pytest.raises(TypeError, match="ordinal level needs numeric labels"):
        krippendorff_alpha(data, level="ordinal")
    unhashable = np.empty((2, 2), dtype=object)
    unhashable[0, 0], unhashable[0, 1], unhashable[1, 0], unhashable[1, 1] = "a", "b", ["a"], "b"
    with pytest.raises(TypeError, match=r"rater 1, unit 0: the label \['a'\] is not hashable"):
        krippendorff_alpha(unhashable)
