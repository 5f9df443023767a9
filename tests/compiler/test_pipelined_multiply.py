"""Multipliers slower than a period are the library's exact multiplier pipelined to the
clock, and divisions by constants the pipelined divider or wiring (issue 12: honest timing).

Each kernel takes new operands every cycle (II = 1); its hardware is simulated
against the Python run bit for bit at 8, 16 and 32 bits, signed and unsigned,
with the extreme operands (``-2**(n-1)`` squared, the largest magnitudes).
"""

import random

import pytest
from amaranth import signed, unsigned

import multiply_kernels as kernels
from hls.compiler import compile_kernel
from hls.ir.ops import OPERATORS
from hls.target import Target
from hls.unit_operators import multiplier_plan
from sim.kernel import run


def _values(rng, shape, count=16):
    lo, hi = (-(1 << (shape.width - 1)), (1 << (shape.width - 1)) - 1) if shape.signed else (0, (1 << shape.width) - 1)
    corner = [lo, hi, 0, 1, -1 if shape.signed else 2, 10, -10 if shape.signed else 7, lo + 1, hi - 1]
    return [rng.choice(corner) if rng.random() < 0.4 else rng.randint(lo, hi) for _ in range(count)]


def _args(kernel, rng):
    args = {}
    for param in kernel.params:
        if param.kind == "array":
            args[param.name] = ([0] * param.depth if param.name in ("q", "r", "u")
                                else _values(rng, param.shape, param.depth))
        else:
            args[param.name] = 16
    if "y" in args:
        # The extreme products: the most negative operands together, the largest ones together.
        params = {p.name: p for p in kernel.params}
        args["x"][0], args["y"][0] = _values(random.Random(0), params["x"].shape, 1)[0], 0
        args["x"][1] = -(1 << (params["x"].shape.width - 1)) if params["x"].shape.signed else (1 << params["x"].shape.width) - 1
        args["y"][1] = -(1 << (params["y"].shape.width - 1)) if params["y"].shape.signed else (1 << params["y"].shape.width) - 1
    return args


MULTIPLY = ["mul_s8", "mul_u8", "mul_s16", "mul_u16", "mul_s32", "mul_u32", "mul_s32_u16", "mul_s8_fast",
            "mul_constant_s32", "mul_accumulate_s32", "mul_s32_fast", "mul_shared_fast"]
DIVIDE = ["divmod_constant_s8", "divmod_constant_u8", "divmod_constant_s16", "divmod_constant_u16",
          "divmod_constant_s32", "divmod_constant_u32", "divmod_negative_constant_s16", "divmod_powers_of_two"]


@pytest.mark.parametrize("name", MULTIPLY + DIVIDE)
def test_hardware_matches_python(name):
    kernel = getattr(kernels, name)
    rng = random.Random(name)
    for _ in range(2):
        result = run(kernel, _args(kernel, rng), max_cycles=5000)
        assert result.match, result.differences


@pytest.mark.parametrize("name", ["mul_s16", "mul_s32", "mul_u32", "mul_s32_u16", "mul_s8_fast", "mul_constant_s32",
                                  "mul_s32_fast"])
def test_a_slow_multiplier_is_pipelined_and_keeps_ii_1(name):
    # Built for its own clock (200 MHz for the _fast kernels) even where the loop control is slower.
    report = compile_kernel(getattr(kernels, name), retarget=False).report
    (loop,) = report.to_json()["loops"]
    assert loop["ii"] == 1
    text = report.to_text()
    assert "pipelined in" in text and "a new operation every cycle" in text
    assert "multicycle" not in text and "half product" not in text


@pytest.mark.parametrize("name", DIVIDE[:-1])
def test_a_division_by_a_constant_is_the_pipelined_divider(name):
    text = compile_kernel(getattr(kernels, name)).report.to_text()
    assert "exact divider pipelined in" in text and "multicycle" not in text


def test_division_by_a_power_of_two_is_wiring():
    compiled = compile_kernel(kernels.divmod_powers_of_two)
    assert "timing" not in compiled.report.to_json()
    assert "divider" not in compiled.verilog()
    entry = OPERATORS["floordiv"]
    assert entry.unit_timing(None, 8.0, (signed(16), unsigned(4)), (None, 8)) is None
    assert entry.unit_timing(None, 8.0, (signed(16), unsigned(1)), (None, 0)) is None


def test_a_multiplier_within_the_period_stays_combinational():
    # 8 x 8 fits 100 MHz by the device model: synthesis maps the one `a * b` itself.
    model = Target().delay_model
    entry = OPERATORS["mul"]
    assert entry.unit_timing(model, Target().usable_period_ns, (signed(8), signed(8)), (None, None)) is None
    assert entry.unit_timing(model, Target().usable_period_ns, (signed(32), unsigned(2)), (None, 3)) is None
    (loop,) = compile_kernel(kernels.mul_s8).report.to_json()["loops"]
    assert loop["ii"] == 1 and "timing" not in compile_kernel(kernels.mul_s8).report.to_json()


@pytest.mark.parametrize("shapes", [(signed(32), signed(32)), (unsigned(16), unsigned(16)), (signed(8), signed(8))])
def test_multiplier_stages_follow_the_clock_and_every_stage_fits(shapes):
    model = Target().delay_model
    plans = {clock: multiplier_plan(*shapes, Target(clock_mhz=clock).usable_period_ns, model)
             for clock in (100, 150, 200)}
    assert 1 <= plans[100].stages <= plans[150].stages <= plans[200].stages
    assert plans[100].stages < plans[200].stages
    for clock, plan in plans.items():
        assert max(plan.segment_delays) + model.routing_hop <= Target(clock_mhz=clock).usable_period_ns
        assert plan.incoming_delay == plan.segment_delays[0] + model.routing_hop
        assert plan.outgoing_delay == plan.segment_delays[-1] + model.routing_hop


def test_the_verilog_has_no_combinational_wide_multiplier():
    # Issue 12: the old lowering left a 32 x 16 half product in one cycle (81.4 MHz for 100).
    import re
    verilog = compile_kernel(kernels.mul_s32).verilog()
    code = [line for line in verilog.splitlines() if not line.strip().startswith(("//", "(*"))]
    assert not [line for line in code if re.search(r"\w\s\*\s\w", line)]


def test_digits_follow_the_clock_and_fit_the_period():
    from hls.ir.ops import _digit_plan
    model = Target().delay_model
    usable = {clock: Target(clock_mhz=clock).usable_period_ns for clock in (100, 150, 200)}
    plans = {clock: _digit_plan(model, period, signed(16), signed(16)) for clock, period in usable.items()}
    assert plans[100].digits < plans[150].digits <= plans[200].digits
    for clock, plan in plans.items():
        assert plan.digit * plan.digits >= 16 and plan.incoming_delay <= usable[clock]
    # The 32 x 32 at 100 MHz: digits of at most 8 bits (the 32 x 16 half product took 12.3 ns).
    plan = _digit_plan(model, usable[100], signed(32), signed(32))
    assert plan.digit <= 8 and plan.latency >= 2
    # At 200 MHz a 64-bit adder is longer than the period: no digit plan, the library unit.
    assert _digit_plan(model, usable[200], signed(32), signed(32)) is None
    text = compile_kernel(kernels.mul_s32_fast, retarget=False).report.to_text()
    assert "exact multiplier pipelined in" in text


def test_a_digit_is_charged_for_its_compressor_stages():
    # A digit product's rows are summed by stages of 3:2 compressors; 7, 8 and 9 rows take the
    # same four, so a 7-bit digit is charged as a 9-bit one. image.sobel_stream's 14 x 7 digit
    # products (gx * gx for 115.4 MHz) placed at 9.07-9.38 ns where 7 rows said 8.58; the plan
    # for that clock now takes 5-bit digits (six rows' stages), within the period.
    from hls.ir.ops import _digit_plan, _digit_product_delay, _rows_of_stage
    assert [_rows_of_stage(rows) for rows in range(1, 15)] == [1, 2, 3, 4, 6, 6, 9, 9, 9, 13, 13, 13, 13, 19]
    model = Target().delay_model
    mul = OPERATORS["mul"]
    assert _digit_product_delay(model, 14, 7) == _digit_product_delay(model, 14, 9) == mul.delay(model, 23, (14, 9))
    assert _digit_product_delay(model, 14, 1) == mul.delay(model, 15, (14, 1))      # one row: no adder
    usable = Target(clock_mhz=115.4).usable_period_ns
    plan = _digit_plan(model, usable, unsigned(14), unsigned(14))
    assert (plan.digit, plan.digits, plan.latency) == (5, 3, 2)
    assert plan.incoming_delay == _digit_product_delay(model, 14, 5) <= usable
    # At 100 MHz the 16 x 16 products keep their 8-bit digits (charged as 9 rows, 7.65 ns of 8).
    plan = _digit_plan(model, Target(clock_mhz=100).usable_period_ns, signed(16), signed(16))
    assert (plan.digit, plan.digits) == (8, 2)
