"""Every exception of :mod:`sim`, in one place.

Import them from here: this is their one home, and the modules that raise
them do not export them. Every message is one line.

Hierarchy::

    RuntimeError
    ├── ToolUnavailable            a simulator is missing or too old
    ├── SimulationTimeout          done did not come within the cycle budget
    │   └── CocotbTimeout          ... in a cocotb run (also a CocotbRunError)
    └── CocotbRunError
        └── CocotbTimeout          a build, a run or a testbench failed
    AssertionError
    └── SimulationError            the hardware broke its interface contract

This module imports nothing, so that the testbench modules that run inside
the simulator can use it too.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ToolUnavailable", "SimulationTimeout", "CocotbRunError", "CocotbTimeout",
           "SimulationError"]


class ToolUnavailable(RuntimeError):
    """A simulator is missing or too old. The message is one line saying what to install."""


class SimulationTimeout(RuntimeError):
    """The kernel did not raise ``done`` within the cycle budget (``max_cycles``)."""


class CocotbRunError(RuntimeError):
    """The simulator could not build or run the design, or the testbench gave up.

    Attributes
    ----------
    log : pathlib.Path or None
        The full simulator log, when there is one.
    """

    def __init__(self, message: str, log: Path | None = None):
        super().__init__(message)
        self.log = log


class CocotbTimeout(CocotbRunError, SimulationTimeout):
    """``done`` did not come within the cycle budget of a cocotb run."""


class SimulationError(AssertionError):
    """The hardware broke its interface contract (for example ``valid_out`` timing)."""
