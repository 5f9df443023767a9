"""Former home of the unit testbench glue; the names stay importable from here.

The one build-and-run path is now :mod:`sim.cocotb_run` (used by kernels and
units alike), the unit back end :func:`sim.units.run_unit_icarus`, the
testbench coroutine :func:`sim.testbenches.drive_unit`, and the exceptions
:mod:`sim.errors`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .cocotb_run import run_testbench
from .errors import CocotbError
from .units import run_unit_icarus

try:  # the cocotb test itself (now in sim.cocotb_tests); cocotb is optional
    from .cocotb_tests import stream_unit_vectors  # noqa: F401
except ImportError:
    pass

__all__ = ["run_cocotb", "run_unit_icarus", "CocotbError"]


def run_cocotb(verilog: str, toplevel: str, *, test_module: str, test_dir: Path | str,
               env: dict | None = None, work_dir: Path | str | None = None) -> Path:
    """Build ``verilog`` with Icarus and run the cocotb tests of ``test_module`` on it.

    Kept for callers of the old interface; it is :func:`sim.cocotb_run.run_testbench`
    with the test module found in ``test_dir``.

    Parameters
    ----------
    verilog : str
        Verilog source text containing module ``toplevel``.
    toplevel : str
        The top module's name.
    test_module : str
        Python module (a file name in ``test_dir``, without ``.py``) holding the cocotb tests.
    test_dir : path
        Directory of ``test_module``; cocotb runs there.
    env : dict of str to str
        Extra environment for the testbench; ``AXHLS_WORK_DIR`` is added and
        points at the work directory.
    work_dir : path, optional
        Where the testbench leaves its files and log; a fresh temporary
        directory by default (not removed: the caller reads it). The build itself is cached.

    Returns
    -------
    Path
        The work directory, where the testbench left its output files.

    Raises
    ------
    sim.errors.ToolUnavailable
        If Icarus Verilog is not installed (the message says what to install).
    CocotbError
        If the build or the simulation fails.
    """
    work = Path(work_dir) if work_dir is not None else Path(tempfile.mkdtemp(prefix="axhls-cocotb-"))
    work.mkdir(parents=True, exist_ok=True)
    run_testbench(verilog, toplevel, test_module=test_module, work_dir=work, env=env,
                  test_dir=os.fspath(test_dir))
    return work
