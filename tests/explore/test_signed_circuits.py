"""Signed third-party circuits (EvoApproxLib's ``mul8s_*``): their signedness comes from the choice, else the
EvoApproxLib name, else their behaviour; they are used on operations with a signed operand only, as two's
complement units, the same in the Python run, the compiled model and the hardware; a circuit named as one
kind is not taken for another (issue 23)."""

import glob
import os
import random
import shutil

import pytest
from amaranth import signed, unsigned

import explore_kernels as kernels
import hls.explore as explore
from approx_units.verilog_eval import load_circuit
from hls.approx import approx_mapping, choice, verilog_choice
from hls.golden import CompiledModel
from hls.unit_operators import UnitWidthError, approx_error_bound, approx_golden, approx_unit

#: A 4 x 4 signed multiplier that rounds the product down to a multiple of 4: error 0..3, never above.
SIGNED_MUL4 = """// Written by tests/explore/test_signed_circuits.py.
module {name} (A, B, O);
  input [3:0] A;
  input [3:0] B;
  output [7:0] O;
  wire signed [7:0] p = $signed(A) * $signed(B);
  assign O = {{p[7:2], 2'b00}};
endmodule
"""
#: An exact 4 x 4 unsigned multiplier.
UNSIGNED_MUL4 = """module {name} (A, B, O);
  input [3:0] A;
  input [3:0] B;
  output [7:0] O;
  assign O = A * B;
endmodule
"""
#: A 4-bit adder that drops the carry: two's complement and unsigned sums wrap alike, so its behaviour
#: cannot tell its signedness (nor can EvoApproxLib's add8s_* and add8u_*: their names do).
WRAPPING_ADD4 = """module {name} (A, B, O);
  input [3:0] A;
  input [3:0] B;
  output [3:0] O;
  assign O = A + B;
endmodule
"""
#: A "multiplier" whose result is always 0 (as EvoApproxLib's mul8u_TD3 nearly is): closer to a quotient
#: than to a product, but named a multiplier.
ZERO_MUL4 = """module {name} (A, B, O);
  input [3:0] A;
  input [3:0] B;
  output [7:0] O;
  assign O = 8'd0;
endmodule
"""


def rounded_down_product(x, y):
    """The function of :data:`SIGNED_MUL4`."""
    return (x * y) // 4 * 4


@pytest.fixture(scope="module")
def circuits(tmp_path_factory):
    folder = tmp_path_factory.mktemp("circuits")
    for name, text in (("mul4s_T2", SIGNED_MUL4), ("smul4", SIGNED_MUL4), ("mul4u_EX", UNSIGNED_MUL4),
                       ("mul4u_0", ZERO_MUL4)):
        (folder / f"{name}.v").write_text(text.format(name=name))
    return folder


def _circuit(circuits, name, **given):
    return choice("mul", "verilog", {"file": str(circuits / f"{name}.v"), **given})


def test_signedness_comes_from_the_choice_then_the_name_then_the_behaviour(circuits, tmp_path):
    by_name, by_behaviour = _circuit(circuits, "mul4s_T2"), _circuit(circuits, "smul4")
    assert load_circuit(by_name.file).signed and load_circuit(by_behaviour.file).signed
    assert not load_circuit(str(circuits / "mul4u_EX.v")).signed          # by name
    declared = _circuit(circuits, "mul4s_T2", signed=False)                  # the choice wins over the name
    assert not load_circuit(declared.file, declared.circuit_signed).signed
    assert (by_name.label, declared.label) == ("verilog:mul4s_T2", "verilog:mul4s_T2(unsigned)")
    assert declared.to_json()["params"] == {"file": by_name.file, "signed": False}
    assert approx_mapping({"mul": ("verilog", declared.to_json()["params"])}) == {"mul": declared}   # as --apply writes
    # The signed reading is a signed unit on the operands; the declared unsigned one goes through sign-magnitude.
    assert approx_unit(by_name, signed(4), signed(4)).unit.signed
    assert not approx_unit(declared, signed(4), signed(4)).unit.signed
    wrap = tmp_path / "wrap4.v"
    wrap.write_text(WRAPPING_ADD4.format(name="wrap4"))
    with pytest.raises(ValueError, match=r"^[^\n]*wrap4\.v: cannot tell whether module 'wrap4' is signed or "
                                         r"unsigned: mean relative error .* read as unsigned \(an adder\), .* read "
                                         r"as signed \(an adder\): neither reading is 10x closer to the exact "
                                         r"results .*; name the file as EvoApproxLib does [^\n]*'signed': True\}\)$"):
        verilog_choice(str(wrap))
    with pytest.raises(explore.ExploreError, match=r"^--verilog .*: .*wrap4\.v: cannot tell whether module 'wrap4'"):
        explore.verilog_candidates(tmp_path, ("add",))
    wrap = str(wrap)
    assert choice("add", "verilog", {"file": wrap, "signed": True}).kind == "add"
    for bad in ({"file": wrap, "signed": 1}, {"file": wrap, "sign": True}):
        with pytest.raises(ValueError, match=r"takes the parameters file .* and, optionally, signed \(True or False\)"):
            choice("add", "verilog", bad)


def test_a_circuit_named_a_multiplier_is_not_taken_for_a_divider(circuits):
    # Its behaviour is closer to a quotient (0 is the quotient of half the pairs): the name decides its kind.
    zero = str(circuits / "mul4u_0.v")
    assert verilog_choice(zero).kind == "mul"
    with pytest.raises(ValueError, match=r"^[^\n]*mul4u_0\.v: the circuit is a mul circuit, not a div one$"):
        choice("div", "verilog", {"file": zero})


def _sites(space):
    return {site.operation.text: [unit.label for unit in site.units] for site in space.sites}


def test_a_signed_circuit_is_offered_to_operations_with_a_signed_operand_that_fit_it(circuits):
    found = explore.verilog_candidates(circuits, ("mul",))
    assert [unit.label for unit in found["mul"]] == ["verilog:mul4s_T2", "verilog:mul4u_0", "verilog:mul4u_EX",
                                                     "verilog:smul4"]
    space = explore.Space([kernels.signed_products], {"mul": found["mul"]})
    assert _sites(space) == {
        "a[i] * b[i]": ["verilog:mul4s_T2", "verilog:mul4u_0", "verilog:mul4u_EX", "verilog:smul4"],
        "a[i] * c[i]": ["verilog:mul4s_T2", "verilog:mul4u_0", "verilog:mul4u_EX", "verilog:smul4"],
        "u[i] * u[i]": ["verilog:mul4u_0", "verilog:mul4u_EX"],           # unsigned: not the signed ones
        "a[i] * u[i]": ["verilog:mul4u_0", "verilog:mul4u_EX"]}           # unsigned(4) needs a 5-bit signed port
    signed_circuit = found["mul"][0]
    with pytest.raises(UnitWidthError, match=r"verilog:mul4s_T2 is a signed circuit; these operands are unsigned "
                                             r"\(unsigned\(4\) and unsigned\(4\)\)"):
        approx_unit(signed_circuit, unsigned(4), unsigned(4))
    with pytest.raises(UnitWidthError, match=r"verilog:mul4s_T2 has 4x4-bit signed operand ports; these operands "
                                             r"need 4x5 \(signed\(4\) and unsigned\(4\)\)"):
        approx_unit(signed_circuit, signed(4), unsigned(4))


def _args(seed, pairs=None):
    rng = random.Random(seed)
    n = kernels.N
    a, b = zip(*pairs) if pairs else ([rng.randint(-8, 7) for _ in range(n)], [rng.randint(-8, 7) for _ in range(n)])
    return {"a": list(a), "b": list(b), "c": [rng.randint(0, 7) for _ in range(n)],
            "u": [rng.randint(0, 15) for _ in range(n)], **{name: [0] * n for name in "opqr"}}


def _every_pair():
    pairs = [(x, y) for x in range(-8, 8) for y in range(-8, 8)]
    return [pairs[start:start + kernels.N] for start in range(0, len(pairs), kernels.N)]


def test_a_signed_circuit_on_signed_operands_computes_its_own_function_in_the_python_run_and_the_compiled_model(
        circuits):
    # Every signed(4) x signed(4) pair, and signed(4) x unsigned(3) ones: the circuit's function exactly (so
    # within its own error, 0..3 below the product), in the Python run and in the compiled model alike; the
    # unsigned operations, which it does not fit, stay exact.
    unit = _circuit(circuits, "mul4s_T2")
    kernel = kernels.signed_products.with_approx({"mul": unit})
    keys = [op.key for op in kernels.signed_products.analyze().operations]
    model = CompiledModel(kernels.signed_products, choices={key: [unit] for key in keys})
    assert model.fallback_reason is None
    for seed, pairs in enumerate(_every_pair()):
        args = _args(seed, pairs)
        python = {name: list(values) for name, values in args.items()}
        kernel(**python)
        bound = kernels.signed_products.golden_model().match((), {name: list(values) for name, values in args.items()})
        compiled = model.run(bound, selection=[1, 1, 1, 1])
        assert compiled == kernel.golden_model().run(bound)
        assert {name: compiled[1][name] for name in "opqr"} == {name: python[name] for name in "opqr"}
        assert python["o"] == [rounded_down_product(x, y) for x, y in zip(args["a"], args["b"])]
        assert python["p"] == [rounded_down_product(x, y) for x, y in zip(args["a"], args["c"])]
        assert python["q"] == [x * x for x in args["u"]]
        assert python["r"] == [x * y for x, y in zip(args["a"], args["u"])]
    bound = approx_error_bound(unit, signed(4), signed(4))
    assert (bound.absolute, bound.source) == (3, "exhaustive at 4x4 bits")
    assert all(bound.admits(x, y, rounded_down_product(x, y)) for pairs in _every_pair() for x, y in pairs)
    # Read as unsigned, as it was before signedness was decided, it is far from the product.
    unsigned_reading = kernels.signed_products.with_approx({"mul": _circuit(circuits, "mul4s_T2", signed=False)})
    args = _args(0, _every_pair()[0])
    unsigned_reading(**args)
    assert max(abs(value - x * y) for value, x, y in zip(args["o"], args["a"], args["b"])) > 3


def test_a_signed_circuit_in_hardware_matches_the_python_run(circuits):
    from sim.kernel import run
    kernel = kernels.signed_products.with_approx({"mul": _circuit(circuits, "smul4")})
    for seed in (0, 5):
        args = _args(seed, _every_pair()[seed])
        result = run(kernel, args)
        assert result.match, result.differences
        python = {name: list(values) for name, values in args.items()}
        kernel(**python)
        assert result.outputs["arrays"] == {name: python[name] for name in result.outputs["arrays"]}


def _evoapproxlib(name):
    mirror = os.environ.get("EVOAPPROXLIB")
    if not mirror:
        pytest.skip("set EVOAPPROXLIB to a checkout of ehw-fit/evoapproxlib's v2022 branch")
    found = sorted(glob.glob(os.path.join(mirror, "**", f"{name}.v"), recursive=True))
    if not found:
        pytest.skip(f"{name}.v is not in $EVOAPPROXLIB")
    return found[0]


def test_evoapproxlib_circuits_take_the_kind_and_signedness_of_their_names(tmp_path):
    for name in ("mul8s_1L12", "mul8s_1KV9", "mul8u_TD3", "mul8x4u_3RR"):
        shutil.copy(_evoapproxlib(name), tmp_path)
    found = explore.verilog_candidates(tmp_path, ("mul", "div"))
    assert list(found) == ["mul"]
    assert {unit.label: load_circuit(unit.file).signed for unit in found["mul"]} == {
        "verilog:mul8s_1KV9": True, "verilog:mul8s_1L12": True, "verilog:mul8u_TD3": False,
        "verilog:mul8x4u_3RR": False}
    for name in ("mul8u_TD3", "mul8x4u_3RR"):       # taken for dividers when the kind was inferred
        with pytest.raises(ValueError, match=rf"{name}\.v: the circuit is a mul circuit, not a div one$"):
            choice("div", "verilog", {"file": str(tmp_path / f"{name}.v")})
    # On a signed(8) x signed(8) product, the operation gives the circuit's own output (as its C model would).
    unit = choice("mul", "verilog", {"file": str(tmp_path / "mul8s_1L12.v")})
    golden = approx_golden(unit, signed(8), signed(8))
    rng = random.Random(2)
    pairs = [(rng.randint(-128, 127), rng.randint(-128, 127)) for _ in range(2000)]
    expected = load_circuit(unit.file).model([x for x, _ in pairs], [y for _, y in pairs])
    assert [golden(x, y) for x, y in pairs] == expected.tolist()
