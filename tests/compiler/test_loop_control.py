"""A pipelined loop's exit test (hls/backend/component.py): the next counter value's range test
for a step of 1 is `counter + 1 != stop` without a carry chain (`_plus_one_equals`), exact for
every pair of operand shapes; loops whose run-time bounds sit at the edges of their shapes run
exactly their trip count, with the Python run's results."""

import random

import pytest
from amaranth import Module, Shape, Signal, signed, unsigned
from amaranth.sim import Simulator

import loop_control_kernels as kernels
from hls.backend.component import _plus_one_equals
from hls.compiler import compile_kernel
from sim.kernel import run


def _values(shape):
    shape = Shape.cast(shape)
    if shape.signed:
        return range(-(1 << (shape.width - 1)), 1 << (shape.width - 1))
    return range(1 << shape.width)


@pytest.mark.parametrize("x_shape, y_shape", [
    (unsigned(4), unsigned(4)), (unsigned(4), signed(4)), (signed(4), unsigned(4)), (signed(4), signed(4)),
    (unsigned(1), unsigned(5)), (unsigned(5), unsigned(1)), (signed(5), signed(2)), (unsigned(2), signed(5)),
])
def test_plus_one_equals_is_exact_for_every_pair_of_values(x_shape, y_shape):
    m = Module()
    x, y = Signal(x_shape), Signal(y_shape)
    equal = _plus_one_equals(m, x, y, "t")
    wrong = []

    async def bench(ctx):
        for a in _values(x_shape):
            for b in _values(y_shape):
                ctx.set(x, a)
                ctx.set(y, b)
                if ctx.get(equal) != (a + 1 == b):
                    wrong.append((a, b))
    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert wrong == []


def _ii(kernel):
    (loop,) = [loop for loop in compile_kernel(kernel).report.to_json()["loops"] if loop["pipelined"]]
    return loop["ii"]


CASES = {
    "up_unsigned": (kernels.up_unsigned, 1, [(0, 0), (0, 1), (0, 127), (63, 127), (63, 64), (5, 4), (0, 64)]),
    "up_signed": (kernels.up_signed, 1, [(-128, 127), (126, 127), (-128, -127), (-1, 0), (5, -5), (127, 127),
                                          (-20, 20)]),
    "up_mixed": (kernels.up_mixed, 1, [(-16, 255), (-16, 0), (15, 16), (-1, 3), (10, 2), (-16, 1)]),
    "up_by_three": (kernels.up_by_three, 3, [(0, 127), (63, 127), (62, 64), (0, 1), (0, 3), (0, 4), (7, 7)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_time_bounds_at_the_edges_run_their_trip_count(name):
    kernel, step, bounds = CASES[name]
    rng = random.Random(name)
    a = [rng.randint(-32768, 32767) for _ in range(64)]
    ii = _ii(kernel)
    cycles = {}
    for lo, hi in bounds:
        result = run(kernel, {"a": a, "lo": lo, "hi": hi}, max_cycles=5_000)
        assert result.match, (lo, hi, result.differences)
        cycles[len(range(lo, hi, step))] = result.cycles
    # Each further iteration costs the II, and nothing else: the loop stops right after its last.
    one = cycles[1]
    for trip, taken in cycles.items():
        if trip:
            assert taken == one + (trip - 1) * ii, (trip, taken, one)


def test_a_loop_at_ii_two_stops_after_its_last_iteration():
    rng = random.Random(2)
    a = [rng.randint(-32768, 32767) for _ in range(64)]
    cycles = {}
    for n in (0, 1, 2, 63, 64, 127):
        result = run(kernels.up_ii_two, {"a": a, "n": n}, max_cycles=5_000)
        assert result.match, (n, result.differences)
        cycles[n] = result.cycles
    assert _ii(kernels.up_ii_two) == 2
    assert all(cycles[n] == cycles[1] + 2 * (n - 1) for n in (2, 63, 64, 127))
    assert cycles[0] < cycles[1]


@pytest.mark.cocotb
@pytest.mark.parametrize("name", ["up_signed", "up_mixed"])
def test_icarus_runs_the_generated_verilog_to_the_same_end(name):
    # The range test's sign extensions as the Verilog back end writes them, on signed and mixed bounds.
    from sim_helpers import require_simulator
    require_simulator("icarus")
    kernel, _, bounds = CASES[name]
    rng = random.Random(name)
    a = [rng.randint(-32768, 32767) for _ in range(64)]
    for lo, hi in bounds[:4]:
        verilog_run = run(kernel, {"a": a, "lo": lo, "hi": hi}, backend="icarus")
        amaranth_run = run(kernel, {"a": a, "lo": lo, "hi": hi})
        assert verilog_run.match, (lo, hi, verilog_run.differences)
        assert verilog_run.cycles == amaranth_run.cycles
