"""The cocotb tests that :mod:`sim.cocotb_run` runs inside the simulator.

cocotb imports this module in the simulator's Python, never in the calling
process (it imports cocotb at module level for the decorator, and cocotb is
optional and heavy). Each test reads ``spec.json`` from ``$AXHLS_WORK_DIR``
and leaves ``result.json`` there; the coroutines live in :mod:`sim.testbenches`.

* ``run_kernel`` drives an HLS kernel (``spec.json``: a
  :class:`~sim.testbenches.TestbenchSpec`; ``args.json``: its arguments);
* ``stream_unit_vectors`` streams operand vectors through an approximate unit;
* ``serve_board_link`` puts a board's top behind the serial port of
  :class:`sim.board_link.SimulatedPort` (``backend="icarus"``).
"""

import json
import os
from pathlib import Path

import cocotb

from sim.testbenches import drive_kernel, drive_unit, serve_serial_line

#: What each test reads and writes in the work directory.
SPEC, ARGS, RESULT = "spec.json", "args.json", "result.json"


def _work() -> Path:
    return Path(os.environ["AXHLS_WORK_DIR"])


@cocotb.test()
async def run_kernel(dut):
    """One call of an HLS kernel, with memory models behind its arrays."""
    work = _work()
    await drive_kernel(dut, json.loads((work / SPEC).read_text()), json.loads((work / ARGS).read_text()),
                       str(work / RESULT))


@cocotb.test()
async def stream_unit_vectors(dut):
    """Operand vectors through an approximate unit, one per clock."""
    work = _work()
    await drive_unit(dut, json.loads((work / SPEC).read_text()), str(work / RESULT))


@cocotb.test()
async def serve_board_link(dut):
    """A board's top at the far end of a simulated serial line, for as long as the host talks."""
    work = _work()
    await serve_serial_line(dut, json.loads((work / SPEC).read_text()), str(work / RESULT))
