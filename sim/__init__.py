"""Verification harnesses: Amaranth's simulator, and cocotb with Icarus Verilog.

Attributes load lazily so that ``import sim`` is cheap:

* :func:`run_unit` (from :mod:`sim.unit_simulation`) simulates an approximate unit;
* :func:`run` (from :mod:`sim.kernel`, when present) simulates an HLS kernel.
"""

__all__ = ["run_unit", "run"]

_LAZY = {"run_unit": "sim.unit_simulation", "run": "sim.kernel"}


def __getattr__(name):
    if name in _LAZY:
        # Imported on first use: sim.kernel pulls in the whole compiler, which `import sim` must not.
        import importlib
        try:
            module = importlib.import_module(_LAZY[name])
        except ModuleNotFoundError as error:
            if error.name != _LAZY[name]:
                raise
            raise AttributeError(f"sim.{name} is not available: {_LAZY[name]} does not exist") from None
        return getattr(module, name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
