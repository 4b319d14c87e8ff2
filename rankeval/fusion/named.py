"""One function per fusion method, each :func:`rankeval.fuse` with its method fixed:
``rankeval.fusion.rrf(runs, k=60)``, ``combsum(runs, norm="min-max")``, ..."""

from __future__ import annotations

from .methods import FUSION_METHODS, fuse

#: public name -> fuse's method name
NAMES = {"combsum": "sum", "combmax": "max", "combmin": "min", "combmed": "med",
         "combanz": "anz", "combmnz": "mnz", "combgmnz": "gmnz", "wsum": "wsum",
         "wmnz": "wmnz", "rrf": "rrf", "isr": "isr", "log_isr": "log_isr",
         "bordafuse": "bordafuse", "rbc": "rbc", "posfuse": "posfuse",
         "probfuse": "probfuse", "bayesfuse": "bayesfuse"}


def _named(public: str, method: str):
    reads = FUSION_METHODS[method][1]
    kind = FUSION_METHODS[method][0]

    def fused(runs, **parameters):
        return fuse(runs, method, **parameters)

    fused.__name__ = fused.__qualname__ = public
    extra = f" It reads {', '.join(f'``{r}``' for r in reads)}." if reads else ""
    norm = " and ``norm=``" if kind == "score" else ""
    fused.__doc__ = (
        f"Fuse runs by ``{method}``: :func:`rankeval.fuse` with "
        f"``method={method!r}``.\n\n"
        f"Takes a list (or dict) of runs in any form :func:`rankeval.evaluate` reads, "
        f"``depth=``{norm}.{extra} Returns the fused run in the runs' form (see "
        ":func:`rankeval.fuse`, whose Notes give the formula).\n"
    )
    return fused


for _public, _method in NAMES.items():
    globals()[_public] = _named(_public, _method)

__all__ = list(NAMES)
