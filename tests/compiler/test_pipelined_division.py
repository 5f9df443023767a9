"""Division by a variable is the library's exact divider pipelined to the clock (issue 12).

The hardware is simulated against the Python run (floor semantics, ``x // 0 ==
x % 0 == 0``) at 8, 16 and 32 bits, signed and unsigned; a loop without a
recurrence through the quotient keeps II = 1, and Euclid's GCD is bounded by
the divider's latency, which the report names.
"""

import random

import pytest
from amaranth import signed, unsigned

import division_kernels as kernels
from hls.compiler import compile_kernel
from hls.ir.ops import OPERATORS
from hls.target import Target
from hls.unit_operators import divider_plan
from sim.kernel import run

ECP5 = Target(device="ecp5").delay_model


def _values(rng, shape, count=16):
    lo, hi = (-(1 << (shape.width - 1)), (1 << (shape.width - 1)) - 1) if shape.signed else (0, (1 << shape.width) - 1)
    # The extremes, small values (signs differing, remainders zero or not) and random ones.
    corner = [lo, hi, 0, 1, -1 if shape.signed else 2, 7, -7 if shape.signed else 3]
    picks = [rng.choice(corner) if rng.random() < 0.4 else rng.randint(lo, hi) for _ in range(count)]
    return [max(lo, min(hi, value)) for value in picks]


def _args(kernel, rng):
    params = {p.name: p for p in kernel.params}
    args = {}
    for name, param in params.items():
        if param.kind == "array":
            args[name] = _values(rng, param.shape, param.depth)
        else:
            args[name] = 16
    for name in args:
        if params[name].kind == "array" and name in ("q", "r"):
            args[name] = [0] * params[name].depth
    # Division by zero, a negative dividend by a positive divisor and the reverse.
    if "d" in args:
        args["d"][0] = 0
        args["x"][0] = -5 if params["x"].shape.signed else 5
        args["x"][1], args["d"][1] = (-7 if params["x"].shape.signed else 7), 2
        if params["d"].shape.signed:
            args["x"][2], args["d"][2] = 7, -2
    return args


DIVMOD = ["divmod_s8", "divmod_u8", "divmod_s16", "divmod_u16", "divmod_s32", "divmod_u32",
          "floordiv_s16_u8", "mod_u8_s8", "shared_divider"]


@pytest.mark.parametrize("name", DIVMOD)
def test_hardware_matches_python(name):
    kernel = getattr(kernels, name)
    rng = random.Random(name)
    for _ in range(2 if "32" in name else 3):
        result = run(kernel, _args(kernel, rng), max_cycles=5000)
        assert result.match, result.differences


@pytest.mark.parametrize("name", ["divmod_s8", "divmod_u16", "divmod_s32", "floordiv_s16_u8", "mod_u8_s8"])
def test_a_loop_that_divides_every_iteration_keeps_ii_1(name):
    report = compile_kernel(getattr(kernels, name)).report
    (loop,) = report.to_json()["loops"]
    assert loop["ii"] == 1
    text = report.to_text()
    assert "exact divider pipelined in" in text and "a new operation every cycle" in text
    assert "multicycle" not in text


def test_the_issue_kernel_is_pipelined_to_the_clock():
    # signed(16) // unsigned(8) at 100 MHz: every stage fits the usable period.
    plan = divider_plan(signed(16), unsigned(8), Target().usable_period_ns, ECP5)
    assert plan.stages >= 2
    assert max(plan.segment_delays) + ECP5.routing_hop <= Target().usable_period_ns
    text = compile_kernel(kernels.floordiv_s16_u8).report.to_text()
    assert f"exact divider pipelined in {plan.stages} stages, latency {plan.stages} cycles" in text


def test_stages_follow_the_clock():
    slow = divider_plan(signed(16), signed(16), Target(clock_mhz=50).usable_period_ns, ECP5)
    fast = divider_plan(signed(16), signed(16), Target(clock_mhz=150).usable_period_ns, ECP5)
    assert 1 <= slow.stages < fast.stages
    for clock, plan in ((50, slow), (150, fast)):
        assert max(plan.segment_delays) + ECP5.routing_hop <= Target(clock_mhz=clock).usable_period_ns


def test_a_division_by_a_constant_is_the_pipelined_divider_unless_a_power_of_two():
    # Issue 12's honest timing: by a constant too the divider is pipelined (the constant folded
    # in); by 0 or a positive power of two it is wiring, timed by the plain rule.
    model = Target().delay_model
    entry = OPERATORS["floordiv"]
    timing = entry.unit_timing(model, 8.0, (signed(16), unsigned(4)), (None, 10))
    assert timing is not None and timing.latency >= 1 and "exact divider pipelined" in timing.description
    for divisor in (0, 1, 8):
        assert entry.unit_timing(model, 8.0, (signed(16), unsigned(4)), (None, divisor)) is None
    assert entry.unit_timing(model, 8.0, (signed(16), signed(4)), (None, -8)) is not None


def test_gcd_is_bounded_by_the_divider_latency_and_the_report_says_so():
    for a, b in ((1071, 462), (0, 0), (65535, 1), (12, 0), (0, 9), (40902, 24140)):
        result = run(kernels.gcd, {"a": a, "b": b}, max_cycles=5000)
        assert result.match, (a, b, result.differences)
    plan = divider_plan(unsigned(16), unsigned(16), Target().usable_period_ns, ECP5)
    report = compile_kernel(kernels.gcd).report
    (loop,) = report.to_json()["loops"]
    # The remainder appears `stages` cycles after the start and is registered into `b`.
    assert loop["ii"] == plan.stages + 1
    assert loop["bound"]["kind"] == "recurrence"
    assert f"exact divider pipelined in {plan.stages} stages" in loop["bound"]["detail"]
    assert "t = a % b" in report.to_text()


def test_the_verilog_has_no_combinational_divider():
    # Issue 12: the old hardware computed the quotient in one cycle (`assign floordiv = a / b`).
    import re
    verilog = compile_kernel(kernels.floordiv_s16_u8).verilog()
    code = [line for line in verilog.splitlines() if not line.strip().startswith(("//", "(*"))]
    assert not [line for line in code if re.search(r"[^/*]\s/\s|\s%\s", line)]
