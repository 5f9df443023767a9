"""Approximate units inside kernels (issue 12): per call (hls.approx) and per kernel (approx=).

The golden model is the unit's bit-exact model, so the Python run matches
``approx_units.get(...).model`` on random operands, and the hardware matches the
Python run bit for bit (Amaranth's simulator).
"""

import json
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest
from amaranth import signed, unsigned

import approx_kernels as kernels
import approx_units
import hls
from hls.compiler import compile_kernel
from hls.errors import KernelSyntaxError
from sim.kernel import run

N = kernels.N
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _values(rng, shape, count=N):
    lo, hi = (-(1 << (shape.width - 1)), (1 << (shape.width - 1)) - 1) if shape.signed else (0, (1 << shape.width) - 1)
    corner = [lo, hi, 0, 1, -1 if shape.signed else 2]
    return [rng.choice(corner) if rng.random() < 0.2 else rng.randint(lo, hi) for _ in range(count)]


def _args(kernel, seed):
    rng = random.Random(seed)
    args = {}
    for param in kernel.params:
        if param.kind == "array":
            args[param.name] = _values(rng, param.shape, param.depth)
        else:
            args[param.name] = N
    return args


def _python_run(kernel, args):
    args = {name: list(value) if isinstance(value, list) else value for name, value in args.items()}
    result = kernel(**args)
    return result, args


def _sign_magnitude(model, a, b):
    """The unsigned unit on magnitudes, negated when the signs differ (RAPID's wrapping)."""
    a, b = np.asarray(a), np.asarray(b)
    return model(np.abs(a), np.abs(b)).astype(np.int64) * np.where((a < 0) != (b < 0), -1, 1)


# -- the golden model is the unit's model ------------------------------------------------------

@pytest.mark.parametrize("unit, params", [("drum", {"k": 6}), ("mitchell", {}), ("mitchell_refined", {}),
                                          ("trunc_mul", {"c": 8}), ("exact_mul", {})])
def test_per_kernel_multiplier_is_the_unit_model(unit, params):
    kernel = kernels.mul_u16.with_approx({"mul": (unit, params)})
    args = _args(kernel, unit)
    _, out = _python_run(kernel, args)
    model = approx_units.get(unit, width=16, **params).model
    assert out["q"] == [int(v) for v in model(args["x"], args["y"])]


@pytest.mark.parametrize("unit", ["drum", "mitchell_refined"])
def test_signed_multiplier_is_sign_magnitude_around_the_unsigned_unit(unit):
    kernel = kernels.mul_s16.with_approx({"mul": unit})
    args = _args(kernel, unit)
    _, out = _python_run(kernel, args)
    model = approx_units.get(unit, width=16).model
    assert out["q"] == [int(v) for v in _sign_magnitude(model, args["x"], args["y"])]


def test_unequal_widths_use_a_non_square_multiplier_and_constants_stay_exact():
    kernel = kernels.mul_mixed.with_approx({"mul": ("drum", {"k": 4})})
    args = _args(kernel, "mixed")
    _, out = _python_run(kernel, args)
    model = approx_units.get("drum", width=12, width_b=6, k=4).model
    # DRUM(k=4) rounds |-2048| up to 2304, past what the signed(18) product holds: the magnitude is
    # clamped to the product's range (issue 20), then the sum wraps to q's signed(18).
    product = np.clip(_sign_magnitude(model, args["x"], args["y"]), -(1 << 17), (1 << 17) - 1)
    expected = product + 3 * np.asarray(args["x"])
    wrapped = [((int(v) + (1 << 17)) % (1 << 18)) - (1 << 17) for v in expected]
    assert out["q"] == wrapped
    kinds = [op.kind for block in compile_kernel(kernel).ir.blocks() for op in block.ops]
    assert kinds.count("approx_mul") == 1 and kinds.count("mul") == 1


@pytest.mark.parametrize("unit", ["mitchell_div", "mitchell_div_refined", "exact_div"])
def test_divider_is_the_unit_quotient_with_no_fraction_bits_and_zero_for_x_by_zero(unit):
    kernel = kernels.div_u16_u8.with_approx({"div": unit})
    args = _args(kernel, unit)
    args["d"][0] = 0
    _, out = _python_run(kernel, args)
    model = approx_units.get(unit, width=16, frac_bits=0).model
    expected = [int(q) if d else 0 for q, d in zip(model(args["x"], args["d"]), args["d"])]
    assert out["q"] == expected
    if unit == "exact_div":
        assert out["q"] == [x // d if d else 0 for x, d in zip(args["x"], args["d"])]


def test_signed_approximate_quotient_rounds_towards_zero():
    kernel = kernels.div_s16_u8.with_approx({"div": "exact_div"})
    args = _args(kernel, "signed div")
    args["x"][:3], args["d"][:3] = [-7, 7, -5], [2, 2, 0]
    _, out = _python_run(kernel, args)
    assert out["q"][:3] == [-3, 3, 0]           # not Python's -7 // 2 == -4
    assert out["q"] == [int(np.trunc(x / d)) if d else 0 for x, d in zip(args["x"], args["d"])]


def test_signed_adder_is_the_units_signed_variant():
    kernel = kernels.add_s12.with_approx({"add": ("loa", {"l": 4})})
    args = _args(kernel, "add")
    _, out = _python_run(kernel, args)
    model = approx_units.get("loa", width=12, l=4, signed=True).model
    assert out["q"] == [int(v) for v in model(args["x"], args["y"])]


def test_per_call_units_are_the_unit_models():
    args = _args(kernels.per_call, "per call")
    args["d"][1] = 0
    _, out = _python_run(kernels.per_call, args)
    mul = approx_units.get("mitchell_refined", width=16).model
    add = approx_units.get("loa", width=16, l=5).model
    div = approx_units.get("mitchell_div_refined", width=16, frac_bits=0, index_bits=3).model
    assert out["p"] == [int(v) for v in mul(args["x"], args["y"])]
    assert out["s"] == [int(v) for v in add(args["x"], args["y"])]
    assert out["q"] == [int(v) if d else 0 for v, d in zip(div(args["x"], args["d"]), args["d"])]


def test_hls_approx_from_python_uses_the_narrowest_shapes():
    model = approx_units.get("drum", width=8, k=4).model
    assert hls.approx.mul(200, 100, unit="drum", k=4) == int(model(200, 100))
    assert hls.approx.mul(-100, 100, unit="drum", k=4) == -int(model(100, 100))
    assert hls.approx.div(7, 0, unit="mitchell_div") == 0


def test_helpers_inlined_into_a_kernel_are_replaced_too():
    kernel = kernels.mac.with_approx({"mul": "mitchell"})
    kinds = [op.kind for block in compile_kernel(kernel).ir.blocks() for op in block.ops]
    assert kinds.count("approx_mul") == 2 and "mul" not in kinds
    args = _args(kernel, "mac")
    model = approx_units.get("mitchell", width=16).model
    expected = sum(int(v) for v in _sign_magnitude(model, args["x"], args["y"])) \
        + sum(int(v) for v in _sign_magnitude(model, args["x"], args["x"]))
    assert kernel(**args) == expected
    assert kernels.mac(**args) == sum(a * b + a * a for a, b in zip(args["x"], args["y"]))


# -- with_approx and the checked option ----------------------------------------------------------

def test_with_approx_makes_a_new_kernel_and_none_is_exact():
    approximate = kernels.mul_u16.with_approx({"mul": ("drum", {"k": 6})})
    assert approximate is not kernels.mul_u16 and approximate.fn is kernels.mul_u16.fn
    assert approximate.target == kernels.mul_u16.target
    assert approximate.approx["mul"].label == "drum(k=6)"
    for exact in (approximate.with_approx(None), approximate.with_approx({})):
        assert exact.approx == {}
        args = _args(exact, "exact")
        _, out = _python_run(exact, args)
        assert out["q"] == [x * y for x, y in zip(args["x"], args["y"])]


@pytest.mark.parametrize("mapping, message", [
    ({"pow": "drum"}, r"unknown kind of operation 'pow'; allowed: mul, add, sub, div, mod"),
    ({"mul": "drums"}, r"unknown mul unit 'drums'; allowed: exact_mul, .*drum"),
    ({"mul": "mitchell_div"}, r"'mitchell_div' is a div unit, not a mul unit; allowed for mul: exact_mul"),
    ({"div": ("drum", {"k": 6})}, r"'drum' is a mul unit, not a div unit"),
    ({"mul": ("drum", {"q": 6})}, r"unit 'drum' has no parameter 'q'; its parameters are: k"),
    ({"mul": ("drum", {"k": "6"})}, r"k must be an integer, not '6'"),
    ({"div": ("mitchell_div", {"frac_bits": 4})}, r"frac_bits cannot be given \(// gives an integer quotient"),
    ({"mul": ("drum", {"signed": True})}, r"signed cannot be given"),
    ({"mul": 6}, r"give a unit name or a \(name, \{param: value\}\) pair, not 6"),
    ("drum", r"approx= must be a dict"),
])
def test_bad_approx_options_are_one_line_when_the_decorator_runs(mapping, message):
    with pytest.raises(ValueError, match=message) as error:
        hls.kernel(approx=mapping)
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match=message):
        kernels.mul_u16.with_approx(mapping)


def test_per_kernel_units_that_do_not_fit_the_widths_stay_exact_and_the_report_says_why():
    kernel = kernels.mac.with_approx({"add": ("loa", {"l": 6}), "mul": ("drum", {"k": 6})})
    report = kernel.report()
    sites = report.to_json()["approx"]
    by_text = {site["text"]: site for site in sites}
    assert set(by_text) == {"s + x[i] * y[i] + square(x[i])", "x[i] * y[i] + square(x[i])", "x[i] * y[i]", "v * v"}
    wide = by_text["s + x[i] * y[i] + square(x[i])"]
    assert not wide["replaced"] and "at most 32 bits; these operands need 40" in wide["exact_reason"]
    product = by_text["x[i] * y[i]"]
    assert product["replaced"] and product["unit"] == "drum(k=6)" and product["origin"] == "kernel"
    assert product["operands"] == ["signed(16)", "signed(16)"] and product["latency"] >= 1
    assert product["line"] == by_text["x[i] * y[i] + square(x[i])"]["line"]
    text = report.to_text()
    assert f"approx: line {product['line']}: `x[i] * y[i]` -> drum(k=6) (signed(16) x signed(16), latency" in text
    assert "`s + x[i] * y[i] + square(x[i])` kept exact: loa(l=6) is built at the operand widths" in text
    # A parameter the unit does not allow at these widths keeps the operation exact as well.
    narrow = kernels.add_s12.with_approx({"add": ("loa", {"l": 20})})
    (site,) = narrow.report().to_json()["approx"]
    assert not site["replaced"] and "l=20 is out of range; allowed: 1..11" in site["exact_reason"]
    assert "approx_add" not in [op.kind for block in compile_kernel(narrow).ir.blocks() for op in block.ops]


def test_a_parameter_no_width_allows_is_an_error_with_the_range_at_the_operand_widths():
    # DRUM's k is at most the operand width: at 16x16 bits the range is 2..16, not the widest 2..32.
    kernel = kernels.mul_u16.with_approx({"mul": ("drum", {"k": 99})})
    with pytest.raises(KernelSyntaxError, match=r"approx_kernels.py:\d+:\d+: `x\[i\] \* y\[i\]`: approx=\{'mul': "
                                                 r"...\}: drum\(k=99\) at 16x16 bits .*k=99 is out of range; "
                                                 r"allowed: 2\.\.16 \(hint"):
        kernel.analyze()
    # With no multiplication to be specific about, the widest width's range is named.
    with pytest.raises(KernelSyntaxError, match=r"approx=\{'mul': ...\}: 'drum': k=99 is out of range; allowed: "
                                                 r"2\.\.32 \(at 32-bit operands, the widest\)"):
        kernels.add_s12.with_approx({"mul": ("drum", {"k": 99})}).analyze()


def test_a_call_whose_unit_does_not_fit_the_widths_names_the_line(tmp_path):
    source = tmp_path / "wide_call.py"
    source.write_text("import hls\nfrom amaranth import unsigned\n\n@hls.kernel\n"
                      "def k(a: unsigned(40), b: unsigned(8)) -> unsigned(48):\n"
                      "    return hls.approx.mul(a, b, unit='drum')\n")
    namespace = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    with pytest.raises(KernelSyntaxError, match=r"wide_call.py:6:12: `hls.approx.mul\(a, b, unit='drum'\)`: drum is "
                                                 r"built at the operand widths, .* at most 32 bits; these operands need 40"):
        namespace["k"].analyze()


@pytest.mark.parametrize("body, message", [
    ("hls.approx.mul(a, b)", r"hls.approx.mul needs unit="),
    ("hls.approx.mul(a, unit='drum')", r"hls.approx.mul takes two operands and unit="),
    ("hls.approx.mul(a, b, unit=u)", r"unit= of hls.approx.mul must be a string literal"),
    ("hls.approx.mul(a, b, unit='drum', k=a)", r"parameter k= of hls.approx.mul must be an integer constant"),
    ("hls.approx.mul(a, b, unit='loa')", r"hls.approx.mul: 'loa' is an add unit, not a mul unit"),
    ("hls.approx.div(a, b, unit='mitchell_div', frac_bits=2)", r"frac_bits cannot be given"),
    ("hls.approx.add(a, b, unit='nope')", r"unknown add unit 'nope'; allowed: exact_add, loa"),
])
def test_bad_calls_name_file_line_and_construct(tmp_path, body, message):
    source = tmp_path / "bad_call.py"
    source.write_text("import hls\nfrom amaranth import unsigned\nu = 'drum'\n\n@hls.kernel\n"
                      "def k(a: unsigned(8), b: unsigned(8)) -> unsigned(16):\n"
                      f"    return {body}\n")
    namespace = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    with pytest.raises(KernelSyntaxError, match=r"bad_call.py:7:\d+: .*" + message):
        namespace["k"].analyze()


# -- the hardware matches the Python run ---------------------------------------------------------

HARDWARE = [
    (kernels.mul_s16, {"mul": ("drum", {"k": 6})}),
    (kernels.mul_mixed, {"mul": "mitchell_refined"}),
    (kernels.div_s16_u8, {"div": "mitchell_div_refined"}),
    (kernels.add_s12, {"add": ("gear", {"r": 4, "p": 4})}),
    (kernels.mac, {"mul": "mitchell", "add": ("loa", {"l": 6})}),
    (kernels.per_call, None),
    (kernels.per_call_signed, None),
]


@pytest.mark.parametrize("kernel, approx", HARDWARE, ids=lambda v: getattr(v, "name", str(v)))
def test_hardware_matches_the_python_run(kernel, approx):
    if approx is not None:
        kernel = kernel.with_approx(approx)
    args = _args(kernel, kernel.name)
    if "d" in args:
        args["d"][0] = 0
    result = run(kernel, args)
    assert result.match, result.differences


def test_pipelined_units_keep_ii_one_and_the_report_says_so():
    kernel = kernels.mul_s16.with_approx({"mul": ("drum", {"k": 6})})
    report = kernel.report().to_json()
    assert report["loops"][0]["ii"] == 1
    assert any("drum(k=6) 16x16-bit pipelined in" in line and "a new operation every cycle" in line
               for line in report["timing"])


def test_resource_limit_applies_to_approximate_multipliers():
    exact = compile_kernel(kernels.two_products).report.to_json()
    approximate = kernels.two_products.with_approx({"mul": "mitchell"})
    report = compile_kernel(approximate).report.to_json()
    assert exact["loops"][0]["ii"] == 2 and report["loops"][0]["ii"] == 2
    assert report["loops"][0]["bound"]["kind"] == "resource"
    assert "mul unit" in report["loops"][0]["bound"]["detail"]
    args = _args(approximate, "two")
    assert run(approximate, args).match
    assert compile_kernel(approximate.with_approx(None)).report.to_json()["loops"][0]["ii"] == 2


# -- the command line ----------------------------------------------------------------------------

KERNELS_FILE = kernels.__file__


def test_cli_report_lists_the_replaced_operations(capsys):
    from axhls.cli import main
    assert main(["report", f"{KERNELS_FILE}:mac", "--approx", "mul=drum:k=6", "--approx", "add=loa:l=4",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    units = {(site["text"], site["unit"], site["replaced"]) for site in report["approx"]}
    assert ("x[i] * y[i]", "drum(k=6)", True) in units and ("v * v", "drum(k=6)", True) in units
    assert ("x[i] * y[i] + square(x[i])", "loa(l=4)", True) in units
    assert main(["report", f"{KERNELS_FILE}:mac", "--approx", "mul=mitchell_refined:index_bits=3,mantissa_bits=8"]) == 0
    text = capsys.readouterr().out
    assert "-> mitchell_refined(index_bits=3, mantissa_bits=8) (signed(16) x signed(16)" in text


def test_cli_sim_and_compile_take_approx(tmp_path, capsys):
    from axhls.cli import main
    arguments = _args(kernels.mul_s16, "cli")
    args_path = tmp_path / "args.json"
    args_path.write_text(json.dumps(arguments))
    assert main(["sim", f"{KERNELS_FILE}:mul_s16", "--args", str(args_path), "--approx", "mul=drum:k=5",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    model = approx_units.get("drum", width=16, k=5).model
    assert result["match"]
    assert result["outputs"]["arrays"]["q"] == [int(v) for v in _sign_magnitude(model, arguments["x"], arguments["y"])]
    out = tmp_path / "out"
    assert main(["compile", f"{KERNELS_FILE}:mul_s16", "-o", str(out), "--approx", "mul=mitchell"]) == 0
    assert "mitchell" in (out / "mul_s16.report.txt").read_text()
    assert capsys.readouterr().out.splitlines()[0].endswith("mul_s16.v")
    # KIND=none makes a kind exact again, over the kernel's own approx=.
    assert main(["report", f"{KERNELS_FILE}:per_call", "--approx", "mul=none", "--json"]) == 0
    assert all(site["origin"] == "call" for site in json.loads(capsys.readouterr().out)["approx"])


@pytest.mark.parametrize("option, message", [
    ("mul", r"--approx 'mul': expected KIND=UNIT\[:PARAM=VALUE\[,PARAM=VALUE...\]\], e.g. mul=drum:k=6"),
    ("pow=drum", r"unknown kind 'pow'; allowed: mul, add, sub, div, mod"),
    ("mul=drum:k=x", r"parameter k must be an integer, not 'x'"),
    ("mul=drum:k", r"parameter 'k': expected KIND=UNIT"),
    # The range that applies at the operands' widths (16x16 bits), not the widest one (2..32).
    ("mul=drum:k=99", r"approx_kernels.py:\d+:\d+: `x\[i\] \* y\[i\]`: approx=\{'mul': ...\}: drum\(k=99\) at "
                      r"16x16 bits \(signed\(16\) and signed\(16\) operands\): k=99 is out of range; allowed: 2\.\.16"),
    ("mul=loa", r"'loa' is an add unit, not a mul unit"),
    ("div=none:k=1", r"div=none takes no parameters"),
])
def test_cli_bad_approx_is_one_line_and_exit_2(option, message):
    process = subprocess.run([sys.executable, "-m", "axhls", "report", f"{KERNELS_FILE}:mul_s16", "--approx", option],
                             capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    assert process.returncode == 2, process.stderr
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1 and re.search(message, lines[0]), process.stderr
    assert "Traceback" not in process.stderr


def test_cli_approx_twice_for_one_kind_is_an_error(capsys):
    from axhls.cli import main
    assert main(["report", f"{KERNELS_FILE}:mul_s16", "--approx", "mul=drum", "--approx", "mul=mitchell"]) == 2
    assert "mul is given twice" in capsys.readouterr().err


def _icarus_available():
    try:
        from sim.tools import find_simulator
        find_simulator("icarus")
    except Exception:
        return False
    return True


@pytest.mark.cocotb
@pytest.mark.skipif(not _icarus_available(), reason="Icarus Verilog is not installed")
def test_units_under_icarus_match_the_unit_models():
    args = _args(kernels.per_call, "icarus")
    args["d"][2] = 0
    icarus = run(kernels.per_call, args, backend="icarus")
    assert icarus.backend == "icarus" and icarus.match, icarus.differences
    mul = approx_units.get("mitchell_refined", width=16).model
    assert icarus.outputs["arrays"]["p"] == [int(v) for v in mul(args["x"], args["y"])]
    assert icarus.cycles == run(kernels.per_call, args).cycles


def test_stages_follow_the_clock_and_a_clock_no_pipeline_meets_lowers_the_claim():
    from hls.target import Target
    kernel = kernels.mul_s16.with_approx({"mul": ("drum", {"k": 6})})
    latencies = []
    for mhz in (50, 100, 150):
        report = compile_kernel(kernel, target=Target(clock_mhz=mhz)).report.to_json()
        assert report["loops"][0]["ii"] == 1
        assert not any("slowest single operation" in line for line in report["timing"])
        latencies.append(report["approx"][0]["latency"])
    assert latencies == sorted(latencies) and latencies[0] < latencies[-1]
    # Registers go between the unit's nodes: past some clock no number of stages fits. As for
    # the exact divider, the kernel is still built, and its report claims the clock it reaches.
    report = compile_kernel(kernel, target=Target(clock_mhz=200), retarget=False).report.to_json()
    slow = [line for line in report["timing"] if "the unit's slowest single operation" in line]
    assert len(slow) == 1 and slow[0].startswith("`x[i] * y[i]` on line ")
    reach = float(re.search(r"claimed to reach (\d+) MHz, not 200", slow[0]).group(1))
    assert 150 < reach < 200
    assert report["claimed_clock_mhz"] <= reach
    assert report["loops"][0]["ii"] == 1 and report["approx"][0]["latency"] > latencies[-1]


def test_hardware_of_hls_approx_is_the_unit_model_on_random_operands():
    """End to end: the simulated hardware's outputs are approx_units.get(...).model's."""
    for kernel, width in ((kernels.per_call, 16), (kernels.per_call_8, 8)):
        for seed in range(2):
            args = _args(kernel, f"{kernel.name} {seed}")
            result = run(kernel, args)
            assert result.match, result.differences
            arrays = result.outputs["arrays"]
            x, y = np.asarray(args["x"]), np.asarray(args["y"] if "y" in args else args["d"])
            if width == 16:
                mul = approx_units.get("mitchell_refined", width=16).model
                add = approx_units.get("loa", width=16, l=5).model
                div = approx_units.get("mitchell_div_refined", width=16, frac_bits=0, index_bits=3).model
                d = np.asarray(args["d"])
                assert arrays["p"] == [int(v) for v in mul(x, y)]
                assert arrays["s"] == [int(v) for v in add(x, y)]
                assert arrays["q"] == [int(v) if b else 0 for v, b in zip(div(x, d), d)]
            else:
                # Mixed signedness: the adder's signed variant at 9 bits (y zero-extended), the
                # multiplier and divider on magnitudes at 8 bits, then the sign.
                mul = approx_units.get("mitchell", width=8).model
                add = approx_units.get("gear", width=9, r=3, p=3, signed=True).model
                div = approx_units.get("mitchell_div", width=8, frac_bits=0).model
                assert arrays["p"] == [int(v) for v in _sign_magnitude(mul, x, y)]
                assert arrays["s"] == [int(v) for v in add(x, y)]
                quotient = _sign_magnitude(div, x, y)
                assert arrays["q"] == [int(v) if b else 0 for v, b in zip(quotient, y)]


def test_the_report_quotes_an_approximate_operation_as_the_user_wrote_it():
    # The recurrence through `s` passes the replaced `d * d`: the report shows the user's
    # text, not the compiler's internal call.
    text = compile_kernel(kernels.accumulate_squares).report.to_text()
    assert "s + d * d" in text and "__hls_approx" not in text
