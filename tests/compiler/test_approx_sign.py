"""An approximate product or quotient never wraps or changes sign, and stays within its unit's
worst case (issue 20); neither does an approximate sum (issue 22).

Every multiplier and divider of the library, as a kernel operator at small mixed widths
(signed x unsigned, unsigned x signed, narrow x wide, signed x signed), on every operand
pair: the operation's model (the traced graph the hardware is built from, run by numpy),
the kernel's Python run and ``hls.unit_operators.approx_golden`` agree; the result has the sign of
the exact result or is zero; and it lies within ``hls.unit_operators.approx_error_bound``.  The
reproducer kernels also run in Amaranth's simulator, bit for bit against their Python run,
and through ``axhls sim --json``.  Every adder, at every parameter value, on narrow signed and
mixed operands (padded to the unit's 4 bits), stays within its bound on every pair.
"""

import itertools
import json

import numpy as np
import pytest
from amaranth import signed, unsigned

import approx_sign_kernels as kernels
from exhaustive_units import operation_values, parameter_ends, value_range
import hls
from approx_units.registry import names, spec
from hls.approx import UnitChoice
from hls.unit_operators import UnitWidthError, approx_error_bound, approx_golden, approx_unit
from sim.kernel import run

KERNELS_FILE = kernels.__file__
MULTIPLIERS = [name for name in names() if spec(name).kind == "mul"]
DIVIDERS = [name for name in names() if spec(name).kind == "div"]
ADDERS = [name for name in names() if spec(name).kind == "add"]


def _check_sign_and_bound(choice, a, b):
    x, y, values = operation_values(choice, a, b)
    sign = np.sign(x) * np.sign(y)
    flipped = (values != 0) & (np.sign(values) != sign)
    assert not flipped.any(), (f"{choice.label} {a} x {b}: sign changed at "
                               f"{list(zip(x[flipped][:3], y[flipped][:3], values[flipped][:3]))}")
    bound = approx_error_bound(choice, a, b)
    assert bound is not None and bound.source.startswith("exhaustive")
    outside = ~bound.admits(x, y, values)
    assert not outside.any(), (f"{choice.label} {a} x {b}: outside {bound}: "
                               f"{list(zip(x[outside][:3], y[outside][:3], values[outside][:3]))}")
    return x, y, values


MUL_SHAPES = [(signed(3), unsigned(6)), (unsigned(6), signed(3)), (signed(4), signed(4)), (unsigned(3), unsigned(3)),
              (unsigned(3), signed(12)), (signed(6), unsigned(3))]
DIV_SHAPES = [(signed(3), unsigned(6)), (unsigned(6), signed(3)), (signed(4), signed(4)), (unsigned(3), unsigned(6)),
              (signed(6), signed(3))]


@pytest.mark.parametrize("unit", MULTIPLIERS)
def test_every_multiplier_keeps_the_sign_and_its_bound(unit):
    for a, b in MUL_SHAPES:
        for choice in parameter_ends("mul", unit, a, b, signed_bounds=False):
            _check_sign_and_bound(choice, a, b)


@pytest.mark.parametrize("unit", DIVIDERS)
def test_every_divider_keeps_the_sign_and_its_bound(unit):
    for a, b in DIV_SHAPES:
        for choice in parameter_ends("div", unit, a, b, signed_bounds=False):
            x, y, values = _check_sign_and_bound(choice, a, b)
            assert not values[y == 0].any()          # x // 0 == 0


def test_the_reproducers_stay_within_drum_worst_case():
    # Issue 20: drum(k=5) on signed(12) x unsigned(9) gave +1,017,856 for -2048 * 511.
    for choice, a, b in [(UnitChoice("mul", "drum", (("k", 5),)), signed(12), unsigned(9)),
                         (UnitChoice("mul", "drum", (("k", 3),)), unsigned(3), signed(12))]:
        _check_sign_and_bound(choice, a, b)
    assert approx_golden(UnitChoice("mul", "drum", (("k", 5),)), signed(12), unsigned(9))(-2048, 511) == -(1 << 20)
    assert approx_golden(UnitChoice("mul", "drum", (("k", 3),)), unsigned(3), signed(12))(7, -2048) == -(1 << 14)


KERNEL_CASES = ([(kernel, "mul", unit) for kernel in (kernels.mul_s3_u6, kernels.mul_u6_s3, kernels.mul_s4_s4,
                                                      kernels.mul_u3_u3) for unit in MULTIPLIERS]
                + [(kernel, "div", unit) for kernel in (kernels.div_s3_u6, kernels.div_u6_s3, kernels.div_s4_s4,
                                                        kernels.div_u3_u6) for unit in DIVIDERS])


@pytest.mark.parametrize("kernel, kind, unit", KERNEL_CASES, ids=lambda value: getattr(value, "name", value))
def test_kernel_python_run_is_the_operation(kernel, kind, unit):
    """The kernel's Python run, with the unit as its operator, gives the operation's value on every pair."""
    a, b = (param.shape for param in kernel.params)
    approximate = kernel.with_approx({kind: unit})
    x, y, values = operation_values(UnitChoice(kind, unit), a, b)
    golden = approx_golden(UnitChoice(kind, unit), a, b)
    for p, q, value in zip(x.tolist(), y.tolist(), values.tolist()):
        assert approximate(x=p, y=q) == golden(p, q) == value, (unit, p, q)


ADD_SHAPES = [(signed(a), signed(b)) for a in (1, 2, 3, 4) for b in (1, 2, 3, 4)] + \
    [(signed(2), unsigned(2)), (unsigned(3), signed(1)), (unsigned(2), unsigned(2)), (signed(5), signed(5))]


def _adder_choices(unit, a, b):
    """The adder at every value of its parameters that the unit allows at these widths."""
    built = approx_unit(UnitChoice("add", unit), a, b).unit
    params = spec(unit).params
    ranges = [range(p.bounds(built.width, built.width_b, built.signed)[0],
                    p.bounds(built.width, built.width_b, built.signed)[1] + 1) for p in params]
    choices = []
    for values in itertools.product(*ranges):
        choice = UnitChoice("add", unit, tuple(zip((p.name for p in params), values)))
        try:
            approx_unit(choice, a, b)
        except UnitWidthError:              # gear: (width - r - p) not a multiple of r
            continue
        choices.append(choice)
    return choices


@pytest.mark.parametrize("unit", ADDERS)
def test_every_adder_stays_within_its_bound_at_narrow_signed_widths(unit):
    checked = 0
    for a, b in ADD_SHAPES:
        for choice in _adder_choices(unit, a, b):
            x, y, values = operation_values(choice, a, b)
            bound = approx_error_bound(choice, a, b)
            assert bound is not None and bound.source.startswith("exhaustive")
            outside = ~bound.admits(x, y, values)
            assert not outside.any(), (f"{choice.label} {a} + {b}: outside {bound}: "
                                       f"{list(zip(x[outside][:3], y[outside][:3], values[outside][:3]))}")
            low, high = value_range(approx_unit(choice, a, b).result)[0], value_range(approx_unit(choice, a, b).result)[-1]
            assert ((values >= low) & (values <= high)).all()
            checked += 1
    assert checked >= len(ADD_SHAPES)


def test_the_narrow_sum_reproducer_is_clamped_not_wrapped():
    # Issue 22 (fuzzer, seed 22): eta1(l=2) on signed(2) operands gave 3 for -2 + -2.
    choice = UnitChoice("add", "eta1", (("l", 2),))
    golden = approx_golden(choice, signed(2), signed(2))
    assert [golden(-2, -2), golden(-2, -1), golden(-1, -1)] == [-4, -4, -4]
    assert golden(1, 1) == 1          # bit 0 of both set: it and every lower bit become 1, no carry
    bound = approx_error_bound(choice, signed(2), signed(2))
    assert not bound.admits(-2, -2, 3) and bound.admits(-2, -2, -4)


REPRODUCER_VECTORS = {"smul": [(-2048, 511), (-2048, 257), (2047, 511), (-1, 1), (0, 511)],
                      "narrow_smul": [(7, -2048), (7, 2047), (5, -1536), (0, -2048)],
                      "narrow_sadd": [(x, h) for x in range(-2, 2) for h in range(-2, 2)]}


@pytest.mark.parametrize("name", sorted(REPRODUCER_VECTORS))
def test_reproducers_hardware_matches_python(name):
    kernel = getattr(kernels, name)
    a, b = (param.shape for param in kernel.params)
    kind = next(iter(kernel.approx))
    bound = approx_error_bound(kernel.approx[kind], a, b)
    for x, h in REPRODUCER_VECTORS[name]:
        result = run(kernel, {"x": x, "h": h})
        assert result.match, result.differences
        value = result.outputs["return"]
        assert value == kernel(x=x, h=h)
        if kind == "mul":
            assert value == 0 or np.sign(value) == np.sign(x * h)
        assert bound.admits(x, h, value)


@pytest.mark.parametrize("name, x, h", [("smul", -2048, 511), ("narrow_smul", 7, -2048)])
def test_cli_sim_of_the_reproducers(tmp_path, capsys, name, x, h):
    from axhls.cli import main
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"x": x, "h": h}))
    assert main(["sim", f"{KERNELS_FILE}:{name}", "--args", str(args), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    kernel = getattr(kernels, name)
    a, b = (param.shape for param in kernel.params)
    bound = approx_error_bound(kernel.approx["mul"], a, b)
    value = result["outputs"]["return"]
    assert result["match"] and value < 0 and bound.admits(x, h, value)
    assert abs(value - x * h) <= bound.absolute


def test_mitchell_bound_beyond_the_exhaustive_limit_is_mitchells_ninth():
    # Measured where it is cheap, the library's Mitchell unit never overestimates and loses at
    # most 1/9 (the antilogarithm drops no bits), which the bound then assumes at every width.
    from hls.unit_operators import BOUND_EXHAUSTIVE_BITS, MITCHELL_RELATIVE_BOUND
    measured = approx_error_bound(UnitChoice("mul", "mitchell"), unsigned(11), unsigned(11))
    assert measured.source == "exhaustive at 11x11 bits" and measured.relative <= MITCHELL_RELATIVE_BOUND + 1e-15
    _, _, values = operation_values(UnitChoice("mul", "mitchell"), unsigned(9), unsigned(9))
    x, y = np.divmod(np.arange(1 << 18), 1 << 9)
    assert (values <= x * y).all()
    a, b = signed(16), unsigned(16)
    assert approx_unit(UnitChoice("mul", "mitchell"), a, b).unit.width * 2 > BOUND_EXHAUSTIVE_BITS
    wide = approx_error_bound(UnitChoice("mul", "mitchell"), a, b)
    assert (wide.absolute, wide.relative) == (None, MITCHELL_RELATIVE_BOUND)
    assert approx_error_bound(UnitChoice("mul", "drum"), a, b) is None
    golden = approx_golden(UnitChoice("mul", "mitchell"), a, b)
    rng = np.random.default_rng(20)
    for p, q in zip(rng.integers(-(1 << 15), 1 << 15, 2000).tolist(), rng.integers(0, 1 << 16, 2000).tolist()):
        assert wide.admits(p, q, golden(p, q)), (p, q)
    assert not wide.admits(-3, 3, 9) and not wide.admits(-9, 1, -7)


def test_bound_of_a_quotient_is_against_the_truncated_quotient_and_zero_by_zero():
    bound = approx_error_bound(UnitChoice("div", "exact_div"), signed(5), signed(5))
    assert bound.absolute == 0 and bound.relative is None
    assert bound.admits(-7, 2, -3) and not bound.admits(-7, 2, -4)     # towards zero, as the unit rounds
    assert bound.admits(5, 0, 0) and not bound.admits(5, 0, -1)
