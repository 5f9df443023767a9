"""Simulate an approximate unit's hardware on operand vectors.

:func:`run_unit` feeds one operand pair per clock cycle to a pipelined unit
(so a run of N vectors takes N + latency cycles) and checks that
``valid_out`` rises exactly ``latency`` cycles after ``valid_in`` for every
vector. Combinational units get one vector per simulation step.

Two back ends: Amaranth's Python simulator, and the unit's generated Verilog
under cocotb and Icarus (:func:`run_unit_icarus`), through the same build and
run path as the kernels (:mod:`sim.cocotb_run`).
"""

from __future__ import annotations

import json

import numpy as np
from amaranth.back import verilog
from amaranth.sim import Simulator

import artefacts

from .cocotb_run import run_testbench, work_directory
from .errors import CocotbRunError, SimulationError

__all__ = ["run_unit", "run_unit_icarus", "BACKENDS"]

BACKENDS = ("amaranth", "icarus")


def run_unit(unit, a, b, backend: str = "amaranth") -> np.ndarray:
    """Simulate ``unit``'s hardware on the operand arrays ``a`` and ``b``.

    Parameters
    ----------
    unit : approx_units.Unit
        A configured unit (from :func:`approx_units.get`).
    a, b : array-like of int
        Operands, broadcast together and flattened; values must be in the
        unit's operand ranges.
    backend : str
        ``"amaranth"`` (Amaranth's Python simulator) or ``"icarus"`` (the
        generated Verilog under cocotb and Icarus Verilog).

    Returns
    -------
    numpy.ndarray
        Outputs in the format of ``unit.model`` (``int64`` for signed units,
        ``uint64`` otherwise), one per vector, in order.

    Raises
    ------
    ValueError
        For an unknown backend or an operand out of range.
    SimulationError
        If ``valid_out`` does not follow ``valid_in`` with the unit's latency.
    sim.errors.ToolUnavailable, sim.errors.CocotbRunError
        With ``backend="icarus"``: Icarus is missing, or its run failed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    pa, pb = unit.to_patterns(*np.broadcast_arrays(np.asarray(a), np.asarray(b)))
    pa, pb = pa.ravel(), pb.ravel()
    if backend == "amaranth":
        patterns = _run_amaranth(unit, [int(x) for x in pa], [int(x) for x in pb])
    else:
        patterns = run_unit_icarus(unit, pa, pb)
    return unit.from_pattern(np.array(patterns, dtype=np.uint64))


def run_unit_icarus(unit, a_patterns, b_patterns) -> list[int]:
    """Output bit patterns of ``unit``'s generated Verilog for operand bit patterns.

    The testbench is ``sim.cocotb_tests.stream_unit_vectors``. Its work
    directory is removed after a successful run and kept (its path is in the
    error message) after a failed one.

    Raises
    ------
    SimulationError
        If ``valid_out`` does not follow ``valid_in`` with the unit's latency.
    sim.errors.CocotbRunError
        If the build or the run failed, or the testbench produced no result.
    """
    toplevel = f"axhls_{unit.name}"
    text = verilog.convert(unit.component(), name=toplevel)
    with work_directory(None, prefix=f"axhls-{unit.name}-") as work:
        artefacts.write_text(work / "spec.json", json.dumps({
            "a": [int(x) for x in a_patterns], "b": [int(x) for x in b_patterns],
            "latency": unit.latency, "pipelined": unit.stages > 0,
        }))
        log = run_testbench(text, toplevel, test_module="sim.cocotb_tests",
                            testcase="stream_unit_vectors", work_dir=work)
        result_file = work / "result.json"
        if not result_file.exists():
            raise CocotbRunError(f"the testbench wrote no results (log: {log})", log)
        result = json.loads(result_file.read_text())
        if result["valid_errors"]:
            raise SimulationError(f"{unit!r} (Verilog): {result['valid_errors'][0]} (log: {log})")
        if len(result["o"]) != len(a_patterns):
            raise SimulationError(f"{unit!r} (Verilog): {len(result['o'])} results for "
                                  f"{len(a_patterns)} vectors (log: {log})")
        return result["o"]


def _run_amaranth(unit, a_values, b_values):
    dut = unit.component()
    sim = Simulator(dut)
    results = []
    count = len(a_values)

    if unit.stages == 0:
        async def testbench(ctx):
            for x, y in zip(a_values, b_values):
                ctx.set(dut.a, _as_port(x, unit.signed, unit.width))
                ctx.set(dut.b, _as_port(y, unit.signed, unit.width_b))
                results.append(ctx.get(dut.o))
    else:
        sim.add_clock(1e-6)
        latency = unit.latency

        async def testbench(ctx):
            for cycle in range(count + latency):
                feeding = cycle < count
                if feeding:
                    ctx.set(dut.a, _as_port(a_values[cycle], unit.signed, unit.width))
                    ctx.set(dut.b, _as_port(b_values[cycle], unit.signed, unit.width_b))
                ctx.set(dut.valid_in, feeding)
                valid = ctx.get(dut.valid_out)
                expected = latency <= cycle < count + latency
                if valid != expected:
                    raise SimulationError(f"{unit!r}: valid_out={valid} in cycle {cycle}, "
                                          f"expected {int(expected)} (latency {latency})")
                if valid:
                    results.append(ctx.get(dut.o))
                await ctx.tick()
    sim.add_testbench(testbench)
    sim.run()
    width = unit.output_width
    return [value & ((1 << width) - 1) for value in results]


def _as_port(pattern, signed, width):
    # Ports of signed units have signed shapes: give them values, not patterns.
    if signed and pattern >> (width - 1):
        return pattern - (1 << width)
    return pattern
