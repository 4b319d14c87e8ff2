"""Evaluation from user interaction: click models, interleaving, counterfactual estimators.

``import rankeval.online`` (or ``from rankeval.online import ...``) gives:

* click models built on the user models of ERR and RBP: :func:`click_probabilities`,
  :func:`simulate_clicks` (cascade, position-based, DBN);
* interleaved comparisons of two rankers: :func:`interleave` (team-draft, balanced,
  probabilistic) and :func:`interleaving_credit`;
* how sensitive an interleaved comparison is: :func:`click_patterns`,
  :func:`expected_outcome` (exact, by enumeration) and :func:`sign_test_power`;
* estimates of a new ranker's DCG@k from click logs: :func:`counterfactual_dcg` (naive,
  IPS, clipped IPS, SNIPS, direct method, doubly robust, cascade and whole-list IPS),
  :func:`counterfactual_interval` (with standard error, interval and effective sample
  size) and :func:`swap_propensities` (position bias from a swap experiment).

Chapters: :doc:`/chapters/22_online_evaluation`, :doc:`/chapters/23_counterfactual_evaluation`.
"""

from __future__ import annotations

from .clicks import click_probabilities, simulate_clicks
from .counterfactual import counterfactual_dcg, counterfactual_interval, swap_propensities
from .interleaving import Interleaving, interleave, interleaving_credit
from .sensitivity import OutcomeMoments, click_patterns, expected_outcome, sign_test_power

__all__ = [
    "click_probabilities",
    "simulate_clicks",
    "Interleaving",
    "interleave",
    "interleaving_credit",
    "click_patterns",
    "expected_outcome",
    "OutcomeMoments",
    "sign_test_power",
    "counterfactual_dcg",
    "counterfactual_interval",
    "swap_propensities",
]
