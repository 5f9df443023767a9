"""Approximate adders, multipliers and dividers, each described once.

Every unit is a Python function written against the operator layer of
:mod:`approx_units.dataflow`; its numpy model and its Amaranth hardware are two
interpretations of the same traced graph, so they cannot disagree.

>>> import approx_units
>>> unit = approx_units.get("loa", width=8, l=4)
>>> int(unit.model(200, 100))
300
>>> component = unit.component()      # an amaranth.lib.wiring.Component

See ``docs/units.md`` for the table of units, their parameters and references,
and :mod:`approx_units.metrics` for the error metrics.
"""

from .registry import Unit, UnknownUnitError, get, names

__all__ = ["get", "names", "Unit", "UnknownUnitError", "UnitSignature", "metrics"]


def __getattr__(name):
    # Submodules (and Amaranth) load on first use so that `import approx_units` stays cheap.
    import importlib
    if name in ("metrics", "dataflow", "numpy_backend", "amaranth_backend"):
        return importlib.import_module(f"{__name__}.{name}")
    if name == "UnitSignature":
        return importlib.import_module(f"{__name__}.amaranth_backend").UnitSignature
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
