"""The chain's FIFOs (hls.backend.fifo) behave as amaranth.lib.fifo.SyncFIFO, cycle for cycle."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib import fifo
from amaranth.sim import Simulator

from hls.backend.fifo import LutRamFIFO, RegisterFIFO, area_estimate, chain_fifo, implementation


def _run_beside_syncfifo(cls, width, depth, cycles, seed):
    """Drive ``cls`` and a ``SyncFIFO`` of the same size with the same random ``w_en``/``r_en``/
    ``w_data`` and compare ``w_rdy``, ``r_rdy``, ``level`` every cycle and ``r_data`` whenever
    ``r_rdy`` is high; returns the tokens read."""
    m = Module()
    ours = m.submodules.ours = cls(width=width, depth=depth)
    theirs = m.submodules.theirs = fifo.SyncFIFO(width=width, depth=depth)
    rng = random.Random(seed)
    read = []

    async def bench(ctx):
        for _ in range(cycles):
            w_en, r_en, data = rng.random() < 0.6, rng.random() < 0.5, rng.getrandbits(width)
            for queue in (ours, theirs):
                ctx.set(queue.w_en, w_en)
                ctx.set(queue.r_en, r_en)
                ctx.set(queue.w_data, data)
            assert ctx.get(ours.w_rdy) == ctx.get(theirs.w_rdy)
            assert ctx.get(ours.r_rdy) == ctx.get(theirs.r_rdy)
            assert ctx.get(ours.level) == ctx.get(theirs.level)
            if ctx.get(theirs.r_rdy):
                assert ctx.get(ours.r_data) == ctx.get(theirs.r_data)
                if r_en:
                    read.append(ctx.get(ours.r_data))
            await ctx.tick()

    simulator = Simulator(m)
    simulator.add_clock(1e-6)
    simulator.add_testbench(bench)
    simulator.run()
    return read


@pytest.mark.parametrize("cls,width,depth", [(RegisterFIFO, 8, 1), (RegisterFIFO, 8, 2), (RegisterFIFO, 5, 4),
                                             (LutRamFIFO, 8, 3), (LutRamFIFO, 4, 17), (LutRamFIFO, 3, 1)])
def test_same_as_syncfifo_cycle_for_cycle(cls, width, depth):
    read = _run_beside_syncfifo(cls, width, depth, 600, seed=depth * 31 + width)
    assert len(read) > 100        # the comparison saw tokens flow, full and empty


@pytest.mark.parametrize("width,depth,cls,name", [(16, 1, RegisterFIFO, "registers"), (16, 2, RegisterFIFO, "registers"),
                                                  (16, 3, LutRamFIFO, "LUT RAM"), (1, 26, LutRamFIFO, "LUT RAM")])
def test_chain_fifo_picks_registers_up_to_two_tokens_then_lut_ram(width, depth, cls, name):
    queue = chain_fifo(width, depth)
    queue._MustUse__silence = True
    assert type(queue) is cls and implementation(depth) == name


def test_area_estimate_counts_stored_bits_and_lut_ram_cells():
    registers, lut_ram = area_estimate(8, 2), area_estimate(16, 17)
    assert (registers["ffs"], registers["lut_ram_cells"]) == (8 * 2 + 2, 0)   # a valid bit per token
    # 17 tokens of 16 bits: two banks of four 16 x 4 cells; two pointers of 5 bits and the level's 5.
    assert (lut_ram["ffs"], lut_ram["lut_ram_cells"]) == (15, 8)
    assert lut_ram["lut_equivalents"] > 6 * 8 + 16 and registers["lut_equivalents"] > 8


@pytest.mark.parametrize("width,depth", [(0, 2), (8, 0), (8, True), (8, 2.0)])
def test_bad_sizes_are_refused_naming_the_value(width, depth):
    with pytest.raises(ValueError, match=f"not {(depth if width else width)!r}"):
        RegisterFIFO(width=width, depth=depth)
    with pytest.raises(ValueError, match=f"not {(depth if width else width)!r}"):
        LutRamFIFO(width=width, depth=depth)
