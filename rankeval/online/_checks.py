"""Input checks of rankeval.online (private to this package)."""

from __future__ import annotations

import numbers

import numpy as np


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng


def check_number(x, name: str, *, low=None, high=None, low_open=False, high_open=False):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.floating,
                                                             np.integer)):
        raise TypeError(f"{name} must be a real number, got {x!r}")
    x = float(x)
    if not np.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x!r}")
    if low is not None and (x < low or (low_open and x == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {x!r}")
    if high is not None and (x > high or (high_open and x == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}, got {x!r}")
    return x


def check_count(x, name: str, *, low: int = 1) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {x!r}")
    if x < low:
        raise ValueError(f"{name} must be >= {low}, got {x!r}")
    return int(x)


def real_array(x, name: str, *, ndim: int | None = None) -> np.ndarray:
    """A float64 array of finite numbers (bools and strings refused)."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers, got a string")
    arr = np.asarray(x)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold finite numbers (no NaN or inf)")
    return arr


def bool_array(x, name: str) -> np.ndarray:
    """0/1 or bool values as a bool array."""
    arr = np.asarray(x)
    if arr.dtype != bool:
        if arr.dtype.kind not in "iuf":
            raise TypeError(f"{name} must hold 0/1 or True/False, got dtype {arr.dtype}")
        if not np.all((arr == 0) | (arr == 1)):
            raise ValueError(f"{name} must hold only 0/1 or True/False")
        arr = arr.astype(bool)
    return arr
