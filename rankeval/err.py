"""Expected reciprocal rank (ERR); MERR is its mean over queries.

Chapter: :doc:`/chapters/08_err`.

PLACEHOLDER: being written; every function raises NotImplementedError.
"""

__all__ = ["err"]


def err(relevance, k=None, *, transform="exponential", max_grade=None, alpha=1.0, beta=0.0, persistence=1.0):
    raise NotImplementedError("not written yet")
