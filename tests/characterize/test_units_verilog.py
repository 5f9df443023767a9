"""Third-party Verilog as EvoApproxLib ships it: asymmetric and signed circuits, checked ports and
results, modules named when --top is wrong, cell-library netlists, and `units area --verilog`."""

import json
from pathlib import Path

import numpy as np
import pytest

from approx_units.verilog_eval import VerilogError, load_verilog, port_widths
from axhls.cli import main

MUL8X4 = """
module mul8x4(input [7:0] A, input [3:0] B, output [11:0] O);
  assign O = A * B;
endmodule
"""

# An approximate signed multiplier: the exact product with its two low bits cleared.
MUL8S = """
module mul8s_trunc(input signed [7:0] A, input signed [7:0] B, output [15:0] O);
  wire signed [15:0] p = A * B;
  assign O = {p[15:2], 2'b00};
endmodule
"""

TWO_MODULES = """
module helper(input [7:0] A, input [7:0] B, output [8:0] O); assign O = A + B; endmodule
module add8(input [7:0] A, input [7:0] B, output [8:0] O); helper h(.A(A), .B(B), .O(O)); endmodule
"""

CELL_LIBRARY = """
module add2(input [1:0] A, input [1:0] B, output [2:0] O);
  FAX1 u0(.A(A[0]), .B(B[0]), .C(1'b0), .YS(O[0]), .YC(c0));
  FAX1 u1(.A(A[1]), .B(B[1]), .C(c0), .YS(O[1]), .YC(O[2]));
endmodule
"""


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_asymmetric_widths_come_from_the_ports(tmp_path, capsys):
    path = _write(tmp_path, "mul8x4.v", MUL8X4)
    status, out, err = run(capsys, "units", "eval", "--verilog", path, "--top", "mul8x4", "--kind", "mul",
                           "--json")
    assert status == 0, err
    result = json.loads(out)
    assert result["exhaustive"] and result["samples"] == 256 * 16
    assert result["metrics"]["er"] == 0
    netlist = load_verilog(path, "mul8x4", "mul")
    assert (netlist.width, netlist.width_b) == (8, 4)
    a, b = np.meshgrid(np.arange(256), np.arange(16), indexing="ij")
    assert np.array_equal(netlist.model(a.ravel(), b.ravel()), (a * b).ravel())


def test_explicit_widths_are_checked_per_operand(tmp_path, capsys):
    path = _write(tmp_path, "mul8x4.v", MUL8X4)
    status, _, err = run(capsys, "units", "eval", "--verilog", path, "--top", "mul8x4", "--kind", "mul",
                         "--width-a", "8", "--width-b", "8")
    assert status == 2 and "operand port b of 'mul8x4' must be a 8-bit input, found a 4-bit input" in err
    status, _, err = run(capsys, "units", "eval", "--verilog", path, "--top", "mul8x4", "--kind", "mul",
                         "--width-a", "8", "--width-b", "4", "--json")
    assert status == 0, err


def test_signed_circuit(tmp_path, capsys):
    path = _write(tmp_path, "mul8s.v", MUL8S)
    netlist = load_verilog(path, "mul8s_trunc", "mul", signed=True)
    a, b = np.meshgrid(np.arange(-128, 128), np.arange(-128, 128), indexing="ij")
    exact = (a * b).ravel()
    assert np.array_equal(netlist.model(a.ravel(), b.ravel()), exact & ~3)   # floors negative products
    status, out, err = run(capsys, "units", "eval", "--verilog", path, "--top", "mul8s_trunc", "--kind",
                           "mul", "--signed", "--json")
    assert status == 0, err
    metrics = json.loads(out)["metrics"]
    assert metrics["wce"] == 3                               # unsigned reading would give huge errors
    assert metrics["med"] == pytest.approx(np.abs(exact - (exact & ~3)).mean())


def test_result_width_must_fit_the_kind(tmp_path, capsys):
    path = _write(tmp_path, "mul8x4.v", MUL8X4)
    status, out, err = run(capsys, "units", "eval", "--verilog", path, "--top", "mul8x4", "--kind", "add")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "an adder of 8 x 4 bits gives 8 or 9 result bits, but port o of 'mul8x4' has 12 (is --kind right?)" in err


def test_wrong_top_lists_the_modules(tmp_path, capsys):
    path = _write(tmp_path, "two.v", TWO_MODULES)
    status, _, err = run(capsys, "units", "eval", "--verilog", path, "--top", "add8u", "--kind", "add")
    assert status == 2 and err.count("\n") == 1
    assert "no module 'add8u'; the file defines add8, helper (choose one with --top)" in err
    status, out, _ = run(capsys, "units", "eval", "--verilog", path, "--top", "add8", "--kind", "add", "--json")
    assert status == 0 and json.loads(out)["metrics"]["er"] == 0


def test_cell_library_netlist_is_named(tmp_path):
    path = _write(tmp_path, "pdk.v", CELL_LIBRARY)
    with pytest.raises(VerilogError, match="module 'add2' instantiates 'FAX1', which the file does not define"):
        load_verilog(path, "add2", "add")


def test_port_widths(tmp_path):
    path = _write(tmp_path, "mul8x4.v", MUL8X4)
    assert port_widths(path, "mul8x4") == {"A": ("input", 8), "B": ("input", 4), "O": ("output", 12)}
    with pytest.raises(VerilogError, match="no module 'x'; the file defines mul8x4"):
        port_widths(path, "x")


def test_area_of_third_party_verilog_has_the_library_keys(tmp_path, capsys):
    path = _write(tmp_path, "mul8x4.v", MUL8X4)
    status, out, err = run(capsys, "units", "area", "--verilog", path, "--top", "mul8x4", "--target", "ecp5",
                           "--no-timing", "--cache-dir", str(tmp_path / "cache"), "--json")
    assert status == 0, err
    result = json.loads(out)
    assert {"unit", "width", "params", "stages", "target", "luts", "carry", "ffs", "fmax_mhz", "adp",
            "lut_equivalents", "cached"} <= set(result)
    assert result["unit"] == "verilog:mul8x4" and result["width"] == 8 and result["luts"] > 0
    assert result["lut_equivalents"] == result["luts"] + 2 * result["carry"]
    status, out, _ = run(capsys, "units", "area", "--verilog", path, "--top", "mul8x4", "--target", "ecp5",
                         "--no-timing", "--cache-dir", str(tmp_path / "cache"), "--json")
    assert json.loads(out)["cached"] is True


@pytest.mark.parametrize("argv, message", [
    (["--top", "nope"], "no module 'nope'; the file defines mul8x4"),
    (["--top", "mul8x4", "--kind", "add"], "has 12 (is --kind right?)"),
    ([], "--verilog needs --top MODULE"),
    (["--top", "mul8x4", "--param", "k=2"], "describe library units"),
])
def test_area_verilog_errors(tmp_path, capsys, argv, message):
    path = _write(tmp_path, "mul8x4.v", MUL8X4)
    status, out, err = run(capsys, "units", "area", "--verilog", path, "--target", "ecp5", "--no-timing",
                           "--cache-dir", str(tmp_path / "cache"), *argv)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_library_unit_widths(capsys):
    status, out, err = run(capsys, "units", "eval", "exact_mul", "--width-a", "8", "--width-b", "4", "--json")
    assert status == 0, err
    result = json.loads(out)
    assert result["params"]["width_b"] == 4 and result["samples"] == 256 * 16
    status, _, err = run(capsys, "units", "eval", "exact_mul")
    assert status == 2 and "give the operand width with --width N" in err


# --- --kind against what the circuit computes -------------------------------------------------

#: An exact 8 / 8-bit divider with a 16-bit result port: as wide as an 8 x 8-bit product.
DIV8_WIDE = """
module div8(input [7:0] a, input [7:0] b, output [15:0] o);
  assign o = b == 0 ? 16'hffff : {8'b0, a / b};
endmodule
"""

#: A poor approximate multiplier: only the high nibbles are multiplied.
NIBBLE_MUL8 = """
module nibble_mul8(input [7:0] a, input [7:0] b, output [15:0] o);
  assign o = {a[7:4] * b[7:4], 8'b0};
endmodule
"""

#: An 8 x 8-bit broken-array multiplier, the same as the one shipped in examples/.
BAM8 = (Path(__file__).resolve().parents[2] / "examples" / "bam8.v").read_text()


@pytest.mark.parametrize("source, top, kind", [(DIV8_WIDE, "div8", "div"), (NIBBLE_MUL8, "nibble_mul8", "mul"),
                                               (BAM8, "bam8", "mul"), (MUL8S, "mul8s_trunc", "mul")])
def test_a_circuit_evaluated_as_what_it_computes_is_accepted(tmp_path, source, top, kind):
    path = tmp_path / f"{top}.v"
    path.write_text(source)
    netlist = load_verilog(path, top, kind, signed=top == "mul8s_trunc")
    assert netlist.kind == kind


def test_a_wide_exact_divider_is_exact_as_a_divider(capsys, tmp_path):
    path = tmp_path / "div8.v"
    path.write_text(DIV8_WIDE)
    status, out, err = run(capsys, "units", "eval", "--verilog", str(path), "--top", "div8", "--kind", "div",
                           "--json")
    assert status == 0, err
    result = json.loads(out)
    # Exact against the integer quotient (MRED is against the real-valued one).
    assert result["metrics"]["int_er"] == 0 and result["metrics"]["int_mred"] == 0


@pytest.mark.parametrize("source, top, kind, message", [
    (BAM8, "bam8", "div", "module 'bam8' is a multiplier, not a divider"),
    (DIV8_WIDE, "div8", "mul", "module 'div8' is a divider, not a multiplier"),
])
def test_a_circuit_evaluated_as_another_operation_is_refused(tmp_path, source, top, kind, message):
    path = tmp_path / f"{top}.v"
    path.write_text(source)
    with pytest.raises(VerilogError, match=message + r": mean relative error .* \(is --kind right\?\)"):
        load_verilog(path, top, kind)
