"""Bitwise logic timed by the LUT cones synthesis maps it to (hls.analysis.logic_cones)."""

import sys
from pathlib import Path

import hls
from hls.analysis.logic_cones import cone_levels, levels
from hls.compiler import compile_kernel
from hls.ir import PipelinedLoop

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


def test_levels_count_lut4_inputs():
    assert levels(0) == levels(("x", 0)) == 0
    assert [levels(frozenset(range(n))) for n in (1, 2, 4, 5, 16, 17, 64)] == [1, 1, 1, 2, 2, 3, 3]


def test_crc8_step_is_one_cone_of_two_levels_and_reaches_ii_1():
    # Placed with nextpnr-ecp5 (seed 1), II 1: 173.7 MHz for 100 and 150 MHz targets.
    from crc8_step import EXAMPLES, crc8_step
    compiled = compile_kernel(crc8_step)
    (loop,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    cones = cone_levels(loop.body)
    assert max(cones.depth.values()) == 2 and sum(cones.increment.values()) == 2
    assert compiled.schedule_of(loop.body).ii == 1
    # The golden model (the Python run) is what the hardware must equal; its CRC is the standard one.
    crc = 0
    for byte in EXAMPLES[0]["data"]:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    assert crc8_step(**EXAMPLES[0]) == crc


def test_a_cone_cut_by_a_register_falls_back_to_operator_timing():
    # At 250 MHz the 2-level cone cannot follow the read in its cycle; whatever the schedule
    # registers inside it, the timing it gives must hold for the cones after the registers.
    from crc8_step import crc8_step
    from hls.analysis.logic_cones import schedule_respects_cones
    compiled = compile_kernel(crc8_step, target=hls.Target(clock_mhz=250))
    (loop,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    scheduled = compiled.schedule_of(loop.body)
    types = scheduled.problem.problem.operator_types
    if any("/cone+" in name for name in types):
        assert schedule_respects_cones(loop.body, scheduled.problem.problem, scheduled.schedule,
                                       compiled.target.delay_model.cone_level)
