"""Approximate ``-`` and ``%`` (issue 23): ``-`` on an adder unit, ``%`` on a divider unit.

``a - b`` is ``~(~a + b)`` with the adder on ``(~a, b)``: its error is the adder's, and the result
keeps ``-``'s (signed) shape.  ``a % b`` is ``a - q*b`` with the divider's quotient ``q`` of the
magnitudes, floored as Python's ``%``, clamped to ``%``'s shape (``b``'s), ``a % 0 == 0``: within
``|q' - q| * |b|`` of Python's remainder.  Every adder and divider, on every operand pair of small
mixed shapes: the traced graph (numpy), the Python run and ``approx_golden`` agree, the result lies
in the shape and within ``approx_error_bound``.  Kernels with both run in Amaranth's simulator bit
for bit against their Python run, and the compiled golden model equals the Python run.
"""

import itertools
import json
import random

import numpy as np
import pytest
from amaranth import Signal, signed, unsigned

import approx_sub_mod_kernels as kernels
from exhaustive_units import operation_values, parameter_ends, value_range
import approx_units
from approx_units.registry import names, spec
from hls.approx import UnitChoice
from hls.errors import KernelSyntaxError
from hls.unit_operators import UnitWidthError, approx_error_bound, approx_golden, approx_unit
from sim.kernel import run

ADDERS = [name for name in names() if spec(name).kind == "add"]
DIVIDERS = [name for name in names() if spec(name).kind == "div"]
KERNELS_FILE = kernels.__file__

SUB_SHAPES = [(signed(3), unsigned(4)), (unsigned(4), signed(3)), (signed(4), signed(2)), (unsigned(3), unsigned(5)),
              (unsigned(1), unsigned(1)), (signed(5), signed(5))]
MOD_SHAPES = [(signed(4), unsigned(3)), (unsigned(5), signed(3)), (signed(4), signed(4)), (unsigned(3), unsigned(5)),
              (signed(6), signed(2))]


def _check(choice, a, b):
    x, y, values = operation_values(choice, a, b)
    operation = approx_unit(choice, a, b)
    shape_values = value_range(operation.result)
    assert ((values >= shape_values[0]) & (values <= shape_values[-1])).all()
    bound = approx_error_bound(choice, a, b)
    assert bound is not None and "exhaustive" in bound.source
    outside = ~bound.admits(x, y, values)
    assert not outside.any(), (f"{choice.kind} {choice.label} {a}, {b}: outside {bound}: "
                               f"{list(zip(x[outside][:3], y[outside][:3], values[outside][:3]))}")
    golden = approx_golden(choice, a, b)
    for index in range(0, len(x), 7):           # the Python form of the same graph
        assert golden(int(x[index]), int(y[index])) == values[index]
    return x, y, values


@pytest.mark.parametrize("unit", ADDERS)
def test_every_adder_as_a_subtractor_keeps_the_shape_and_its_bound(unit):
    for a, b in SUB_SHAPES:
        for choice in parameter_ends("sub", unit, a, b):
            x, y, values = _check(choice, a, b)
            assert approx_unit(choice, a, b).result == (Signal(a) - Signal(b)).shape()      # `-`'s, signed
            if unit == "exact_add":
                assert (values == x - y).all()


@pytest.mark.parametrize("unit", DIVIDERS)
def test_every_divider_as_a_remainder_keeps_the_shape_and_its_bound(unit):
    for a, b in MOD_SHAPES:
        for choice in parameter_ends("mod", unit, a, b):
            x, y, values = _check(choice, a, b)
            assert approx_unit(choice, a, b).result == (Signal(a) % Signal(b)).shape()      # `%`'s: b's
            assert not values[y == 0].any()                     # x % 0 == 0
            if unit == "exact_div":                             # Python's floor remainder, signs included
                assert (values == np.where(y == 0, 0, x % np.where(y == 0, 1, y))).all()


def test_the_subtraction_is_the_adder_model_on_the_inverted_minuend():
    # Against the library's own numpy model of the adder (not the traced graph): ~(~a + b).
    rng = np.random.default_rng(23)
    x, y = rng.integers(0, 256, 500), rng.integers(0, 256, 500)
    model = approx_units.get("loa", width=8, l=4).model
    expected = 255 - model(255 - x, y).astype(np.int64)
    golden = approx_golden(UnitChoice("sub", "loa", (("l", 4),)), unsigned(8), unsigned(8))
    assert [golden(int(p), int(q)) for p, q in zip(x, y)] == expected.tolist()
    signed_model = approx_units.get("loa", width=8, l=4, signed=True).model
    x, y = x - 128, y - 128
    expected = -1 - signed_model(-1 - x, y).astype(np.int64)
    golden = approx_golden(UnitChoice("sub", "loa", (("l", 4),)), signed(8), signed(8))
    assert [golden(int(p), int(q)) for p, q in zip(x, y)] == expected.tolist()


def test_the_remainder_of_a_signed_dividend_is_floored_as_pythons():
    exact = approx_golden(UnitChoice("mod", "exact_div"), signed(6), signed(4))
    assert [exact(-7, 2), exact(7, -2), exact(-7, -2), exact(-6, 3), exact(5, 0)] == [1, -1, -1, 0, 0]
    bound = approx_error_bound(UnitChoice("mod", "mitchell_div"), signed(6), signed(4))
    unsigned_bound = approx_error_bound(UnitChoice("mod", "mitchell_div"), unsigned(6), unsigned(4))
    # Signs that differ floor by the approximate remainder: one quotient step more than unsigned.
    assert bound.absolute == unsigned_bound.absolute + 1 and bound.relative is None
    assert bound.admits(-7, 2, 1 + 2 * bound.absolute) and not bound.admits(-7, 2, 2 + 2 * bound.absolute)
    assert bound.admits(5, 0, 0) and not bound.admits(5, 0, 5)


def _args(kernel, seed):
    rng = random.Random(seed)
    args = {}
    for param in kernel.params:
        values = list(value_range(param.shape))
        corners = [values[0], values[-1], 0, 1]
        args[param.name] = [rng.choice(corners) if rng.random() < 0.25 else rng.choice(values)
                            for _ in range(param.depth)]
    return args


@pytest.mark.parametrize("name", ["mixed", "signed_both", "unsigned_calls"])
def test_hardware_matches_the_python_run_and_the_bounds(name):
    kernel = getattr(kernels, name)
    args = _args(kernel, name)
    result = run(kernel, args)
    assert result.match, result.differences
    python = {key: list(value) for key, value in args.items()}
    kernel(**python)
    compiled = {key: list(value) for key, value in args.items()}
    model = kernel.compiled_model()
    assert model.fallback_reason is None
    model(**compiled)
    assert compiled == python
    assert result.outputs["arrays"]["d"] == python["d"] and result.outputs["arrays"]["r"] == python["r"]
    sites = {site.kind: site for site in kernel.analyze().approximations}
    assert set(sites) == {"sub", "mod"}
    shapes = {param.name: param.shape for param in kernel.params}
    choices = {kind: UnitChoice(kind, *_unit_of(site.unit)) for kind, site in sites.items()}
    sub_bound = approx_error_bound(choices["sub"], shapes["x"], shapes["y"])
    mod_bound = approx_error_bound(choices["mod"], shapes["x"], shapes["y"])
    for x, y, d, r in zip(args["x"], args["y"], python["d"], python["r"]):
        assert sub_bound.admits(x, y, d) and mod_bound.admits(x, y, r), (x, y, d, r)
    assert any(d != x - y for x, y, d in zip(args["x"], args["y"], python["d"]))     # approximate indeed


def _unit_of(label):
    unit, _, rest = label.partition("(")
    params = tuple((key.strip(), int(value)) for key, value in
                   (item.split("=") for item in rest.rstrip(")").split(",") if item.strip()))
    return unit, tuple(sorted(params))


def test_operation_keys_take_adders_for_minus_and_dividers_for_percent():
    operations = {operation.kind: operation for operation in kernels.sub_s3_u4.analyze().operations}
    assert set(operations) == {"sub"}
    key = operations["sub"].key
    kernel = kernels.sub_s3_u4.with_approx({key: ("loa", {"l": 2})})
    (site,) = kernel.analyze().approximations
    assert (site.kind, site.unit, site.origin) == ("sub", "loa(l=2)", "kernel")
    golden = approx_golden(UnitChoice("sub", "loa", (("l", 2),)), signed(3), unsigned(4))
    assert [kernel(x=x, y=y) for x, y in itertools.product(value_range(signed(3)), value_range(unsigned(4)))] == \
        [golden(x, y) for x, y in itertools.product(value_range(signed(3)), value_range(unsigned(4)))]
    (mod_operation,) = kernels.mod_s4_u3.analyze().operations
    assert mod_operation.kind == "mod"
    kernel = kernels.mod_s4_u3.with_approx({mod_operation.key: "mitchell_div"})
    assert [site.kind for site in kernel.analyze().approximations] == ["mod"]


def test_a_kind_key_for_add_or_div_leaves_minus_and_percent_exact():
    kernel = kernels.no_sub.with_approx({"add": "loa", "div": "mitchell_div"})
    assert [site.kind for site in kernel.analyze().approximations] == ["add"]


@pytest.mark.parametrize("mapping, message", [
    ({"sub": "drum"}, r"^approx=\{'sub': ...\}: 'drum' is a mul unit, not an add unit; allowed for sub: exact_add, .*loa"),
    ({"mod": ("loa", {"l": 2})}, r"^approx=\{'mod': ...\}: 'loa' is an add unit, not a div unit; allowed for mod: "
                                 r"exact_div, .*mitchell_div"),
    ({"sub": UnitChoice("mul", "drum")}, r"'drum' is a mul unit, not an add unit"),
])
def test_a_unit_of_another_kind_is_one_line(mapping, message):
    with pytest.raises(ValueError, match=message) as error:
        kernels.sub_s3_u4.with_approx(mapping)
    assert "\n" not in str(error.value)


def test_an_operation_key_with_no_minus_there_lists_the_keys():
    (line,) = {operation.lineno for operation in kernels.no_sub.analyze().operations}
    keys = [operation.key for operation in kernels.no_sub.analyze().operations]
    assert [operation.kind for operation in kernels.no_sub.analyze().operations] == ["add", "mod"]
    missing = f"approx_sub_mod_kernels.py:{line}:1"
    with pytest.raises(KernelSyntaxError) as error:
        kernels.no_sub.with_approx({missing: "loa"}).analyze()
    text = str(error.value)
    assert f"no operation a unit may replace is written at {missing}" in text
    assert all(key in text for key in keys)
    # The `%` there with an adder, and with a multiplier: its kind is the operation's.
    with pytest.raises(KernelSyntaxError, match=r"'loa' is a unit for add, and this operation is mod.*"
                                                r"choose a divider for mod"):
        kernels.no_sub.with_approx({keys[1]: "loa"}).analyze()
    with pytest.raises(KernelSyntaxError, match=r"'drum' is a unit for mul, and this operation is sub"):
        kernels.sub_s3_u4.with_approx({kernels.sub_s3_u4.analyze().operations[0].key: "drum"}).analyze()


def test_cli_takes_sub_and_mod(tmp_path, capsys):
    from axhls.cli import main
    assert main(["report", f"{KERNELS_FILE}:no_sub", "--approx", "mod=aaxd:k=3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(site["kind"], site["unit"], site["text"]) for site in report["approx"]] == \
        [("mod", "aaxd(k=3)", "(x + y) % y")]
    key = kernels.sub_s3_u4.analyze().operations[0].key
    path = tmp_path / "approx.json"
    path.write_text(json.dumps({"sub_s3_u4": {key: ["trunc_add", {"l": 1}]}}))
    assert main(["report", f"{KERNELS_FILE}:sub_s3_u4", "--approx", f"@{path}", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(site["kind"], site["unit"]) for site in report["approx"]] == [("sub", "trunc_add(l=1)")]
    assert main(["report", f"{KERNELS_FILE}:sub_s3_u4", "--approx", "sub=drum"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'drum' is a mul unit, not an add unit; allowed for sub:" in err


def test_a_third_party_adder_subtracts_within_its_bound():
    from hls.approx import approx_mapping
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    (unit,) = approx_mapping({"sub": ("verilog", {"file": str(root / "examples" / "loa8.v")})}).values()
    assert unit.kind == "sub"
    golden = approx_golden(unit, unsigned(8), unsigned(6))
    bound = approx_error_bound(unit, unsigned(8), unsigned(6))
    pairs = [(x, y) for x in range(256) for y in range(64)]
    assert all(bound.admits(x, y, golden(x, y)) for x, y in pairs)
    assert sum(golden(x, y) != x - y for x, y in pairs) > 1000         # an approximate subtractor indeed
    with pytest.raises(UnitWidthError, match=r"is an unsigned adder; these operands are signed"):
        approx_unit(unit, signed(8), unsigned(6))
