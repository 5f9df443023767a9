"""Run generated Verilog under cocotb 2.1 and Icarus Verilog.

:func:`run_cocotb` is the generic glue: it builds the Verilog with Icarus
through the build cache of :mod:`sim.cocotb_kernel` and runs a cocotb test
module in a work directory, passing parameters through environment
variables. Testbenches exchange data with the caller through files in the
work directory.

:func:`run_unit_icarus` is the back end of ``sim.run_unit(...,
backend="icarus")``: it streams operand vectors through an approximate
unit's generated Verilog with the testbench :func:`stream_unit_vectors`
defined below. This module is also the cocotb test module (cocotb imports it
by file name from this directory), so it imports nothing from this project
at module level.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["run_cocotb", "run_unit_icarus", "CocotbError"]

_HERE = Path(__file__).resolve().parent


class CocotbError(RuntimeError):
    """Building or running the testbench failed; the message names the log file."""


def run_cocotb(verilog: str, toplevel: str, *, test_module: str, test_dir: Path | str,
               env: dict | None = None, work_dir: Path | str | None = None) -> Path:
    """Build ``verilog`` with Icarus and run the cocotb tests of ``test_module`` on it.

    Parameters
    ----------
    verilog : str
        Verilog source text containing module ``toplevel``.
    toplevel : str
        The top module's name.
    test_module : str
        Python module (a file name in ``test_dir``, without ``.py``) holding the cocotb tests.
    test_dir : path
        Directory of ``test_module``.
    env : dict of str to str
        Extra environment for the testbench; ``AXHLS_WORK_DIR`` is added and
        points at the work directory.
    work_dir : path, optional
        Where the testbench runs and leaves its files and log; a fresh
        temporary directory by default. The build itself is cached.

    Returns
    -------
    Path
        The work directory, where the testbench left its output files.

    Raises
    ------
    sim.tools.ToolUnavailable
        If Icarus Verilog is not installed (the message says what to install).
    CocotbError
        If the build or the simulation fails.
    """
    from cocotb_tools.runner import get_runner

    from sim.cocotb_kernel import CocotbRunError, cached_build
    from sim.tools import find_icarus, tool_environment

    tool = find_icarus()
    try:
        build_dir = cached_build(verilog, toplevel, tool)
    except CocotbRunError as error:
        raise CocotbError(str(error)) from None
    work = Path(work_dir) if work_dir is not None else Path(tempfile.mkdtemp(prefix="axhls-cocotb-"))
    work.mkdir(parents=True, exist_ok=True)
    with tool_environment(tool):
        try:
            get_runner("icarus").test(
                test_module=test_module, hdl_toplevel=toplevel, hdl_toplevel_lang="verilog",
                test_dir=str(test_dir), build_dir=build_dir,
                results_xml=str(work / "results.xml"), log_file=work / "test.log",
                extra_env={"COCOTB_LOG_LEVEL": "WARNING", **(env or {}),
                           "AXHLS_WORK_DIR": str(work)})
        except (SystemExit, RuntimeError, OSError) as error:
            raise CocotbError(f"cocotb run of {toplevel} failed: {error} "
                              f"(log: {work / 'test.log'})") from None
    return work


def run_unit_icarus(unit, a_patterns, b_patterns) -> list[int]:
    """Output bit patterns of ``unit``'s generated Verilog for operand bit patterns.

    The work directory is deleted after a successful run and kept (its path
    is in the error message) after a failed one.

    Raises
    ------
    sim.units.SimulationError
        If ``valid_out`` does not follow ``valid_in`` with the unit's latency.
    CocotbError
        If the testbench produced no result.
    """
    from amaranth.back import verilog

    from sim.units import SimulationError

    toplevel = f"axhls_{unit.name}"
    text = verilog.convert(unit.component(), name=toplevel)
    work = Path(tempfile.mkdtemp(prefix=f"axhls-{unit.name}-"))
    (work / "vectors.json").write_text(json.dumps({
        "a": [int(x) for x in a_patterns], "b": [int(x) for x in b_patterns],
        "latency": unit.latency, "pipelined": unit.stages > 0,
    }))
    run_cocotb(text, toplevel, test_module=Path(__file__).stem, test_dir=_HERE,
               env={"AXHLS_UNIT_VECTORS": "vectors.json"}, work_dir=work)
    result_file = work / "outputs.json"
    if not result_file.exists():
        raise CocotbError(f"the testbench wrote no results (log: {work / 'test.log'})")
    result = json.loads(result_file.read_text())
    if result["valid_errors"]:
        raise SimulationError(f"{unit!r} (Verilog): {result['valid_errors'][0]}")
    if len(result["o"]) != len(a_patterns):
        raise SimulationError(f"{unit!r} (Verilog): {len(result['o'])} results for "
                              f"{len(a_patterns)} vectors")
    shutil.rmtree(work, ignore_errors=True)     # kept above, for its logs, when something failed
    return result["o"]


# -- the cocotb testbench (runs inside the simulator) ---------------------------

try:
    import cocotb
except ImportError:         # only needed inside the simulator
    cocotb = None

if cocotb is not None:
    @cocotb.test()
    async def stream_unit_vectors(dut):
        """Stream the vectors of ``$AXHLS_UNIT_VECTORS`` through a unit, one per clock."""
        from cocotb.clock import Clock
        from cocotb.triggers import FallingEdge, RisingEdge, Timer

        work = Path(os.environ["AXHLS_WORK_DIR"])
        spec = json.loads((work / os.environ["AXHLS_UNIT_VECTORS"]).read_text())
        a_values, b_values, latency = spec["a"], spec["b"], spec["latency"]
        outputs, valid_errors = [], []
        if not spec["pipelined"]:
            for a, b in zip(a_values, b_values):
                dut.a.value = a
                dut.b.value = b
                await Timer(1, "ns")
                outputs.append(dut.o.value.to_unsigned())
        else:
            cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
            dut.rst.value = 1
            dut.valid_in.value = 0
            for _ in range(2):
                await RisingEdge(dut.clk)
            await FallingEdge(dut.clk)
            dut.rst.value = 0
            count = len(a_values)
            for cycle in range(count + latency):
                # The output depends on registers only, so it is stable between
                # rising edges: read it, then drive this cycle's inputs.
                valid = int(dut.valid_out.value)
                expected = int(latency <= cycle < count + latency)
                if valid != expected:
                    valid_errors.append(f"valid_out={valid} in cycle {cycle}, expected {expected} "
                                        f"(latency {latency})")
                if valid:
                    outputs.append(dut.o.value.to_unsigned())
                feeding = cycle < count
                if feeding:
                    dut.a.value = a_values[cycle]
                    dut.b.value = b_values[cycle]
                dut.valid_in.value = int(feeding)
                await FallingEdge(dut.clk)
        (work / "outputs.json").write_text(json.dumps({"o": outputs, "valid_errors": valid_errors}))
