"""Gate netlists in the error engine: the bit-sliced kernel (approx_units.bitsliced) against a
brute-force Python evaluation and the numpy engine, and netlists whose tables are memories.

The approximate multiplier below is written as gates, as EvoApproxLib writes its circuits:
an 8 x 8 array multiplier (ripple-carry rows of full adders built from and/xor/or
primitives) whose partial products of weight below 2^K are left out.
"""

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import approx_units
from approx_units import compiled
from approx_units import evaluate as ev
from approx_units.verilog_eval import VerilogError, load_verilog
from axhls.cli import main

pytestmark = pytest.mark.skipif(not compiled.available(), reason="no C compiler for the compiled engine")

ROOT = Path(__file__).resolve().parents[2]

#: Partial products a_j b_i with i + j < K are dropped.
K = 5

ARRAY_MUL8 = f"""
// 8x8 array multiplier of gates; partial products of weight below 2^{K} dropped.
module amul8(input [7:0] A, input [7:0] B, output [15:0] O);
  wire [15:0] s [0:7];
  wire [16:0] c [1:7];
  genvar r, k;
  generate
    for (k = 0; k < 16; k = k + 1) begin : row0
      if (k < 8 && k >= {K}) begin : pp
        and g(s[0][k], A[k], B[0]);
      end else begin : zero
        assign s[0][k] = 1'b0;
      end
    end
    for (r = 1; r < 8; r = r + 1) begin : rows
      assign c[r][0] = 1'b0;
      for (k = 0; k < 16; k = k + 1) begin : bits
        wire p, t, g1, g2;
        if (k >= r && k - r < 8 && k >= {K}) begin : pp
          and g(p, A[k - r], B[r]);
        end else begin : zero
          assign p = 1'b0;
        end
        xor x1(t, s[r - 1][k], p);
        xor x2(s[r][k], t, c[r][k]);
        and a1(g1, s[r - 1][k], p);
        and a2(g2, t, c[r][k]);
        or o1(c[r][k + 1], g1, g2);
      end
    end
  endgenerate
  assign O = s[7];
endmodule
"""

# Signed, with the three low bits set; and an asymmetric 4 x 12 one (b wider than a block's 9 bits).
MUL8S = """
module mul8s_ones(input signed [7:0] A, input signed [7:0] B, output [15:0] O);
  wire signed [15:0] product = A * B;
  assign O = product | 16'h0007;
endmodule
"""
MUL4X12 = """
module mul4x12(input [3:0] A, input [11:0] B, output [15:0] O);
  wire [15:0] p = A * B;
  assign O = p | 16'h0003;
endmodule
"""

# A memory that is written: state, which no evaluation of a and b alone can give.
RAM = """
module ram8(input clk, input [7:0] A, input [7:0] B, output [15:0] O);
  reg [15:0] mem [0:3];
  always @(posedge clk) mem[A[1:0]] <= {A, B};
  assign O = mem[B[1:0]];
endmodule
"""


def _load(tmp_path, text, top, kind, **options):
    path = tmp_path / f"{top}.v"
    path.write_text(text)
    try:
        return load_verilog(path, top, kind, **options)
    except VerilogError as error:
        if "yosys" in str(error).lower() and "not" in str(error).lower():
            pytest.skip(f"Yosys unavailable: {error}")
        raise


def brute_force_metrics() -> dict:
    """ER, MED, MSE, bias, MRED and WCE of the array multiplier, pair by pair in Python."""
    count = errors = sum_abs = sum_sq = sum_err = worst = nonzero = 0
    sum_rel = Fraction(0)
    for a in range(256):
        for b in range(256):
            approx = sum(1 << (i + j) for i in range(8) for j in range(8)
                         if i + j >= K and (a >> j) & 1 and (b >> i) & 1)
            error = approx - a * b
            count += 1
            errors += error != 0
            sum_abs += abs(error)
            sum_sq += error * error
            sum_err += error
            worst = max(worst, abs(error))
            if a * b:
                nonzero += 1
                sum_rel += Fraction(abs(error), a * b)
    return {"er": errors / count, "med": sum_abs / count, "mse": sum_sq / count, "bias": sum_err / count,
            "wce": worst, "mred": float(sum_rel / nonzero)}


def test_gate_level_multiplier_matches_brute_force(tmp_path):
    netlist = _load(tmp_path, ARRAY_MUL8, "amul8", "mul")
    expected = brute_force_metrics()
    for engine in ("compiled", "numpy"):
        metrics = ev.evaluate(netlist, exhaustive=True, engine=engine, workers=2, progress=False).metrics
        # Integer sums below 2^53 are exact in both engines; only MRED adds rounded terms.
        for name in ("er", "med", "mse", "bias", "wce"):
            assert metrics[name] == expected[name], (engine, name)
        assert metrics["mred"] == pytest.approx(expected["mred"], rel=1e-12), engine


def test_bit_sliced_model_and_given_pairs(tmp_path):
    netlist = _load(tmp_path, ARRAY_MUL8, "amul8", "mul")
    evaluator = compiled.evaluator_for(netlist)
    rng = np.random.default_rng(3)
    # Counts that are not multiples of the 512-pair block.
    a, b = rng.integers(0, 256, 70_001), rng.integers(0, 256, 70_001)
    assert np.array_equal(evaluator.model(a, b), netlist.model(a, b).astype(np.uint64))
    got, expected = evaluator.pair_stats(a, b)["exact"], ev._stats_of(netlist, a, b).parts["exact"]
    for name in ("count", "errors", "nonzero", "max_abs", "max_rel", "sum_abs", "sum_err", "sum_sq"):
        assert getattr(got, name) == getattr(expected, name), name
    assert got.sum_rel == pytest.approx(expected.sum_rel, rel=1e-12)


@pytest.mark.parametrize("source, top, options", [
    (MUL8S, "mul8s_ones", {"signed": True}),
    (MUL4X12, "mul4x12", {}),
])
def test_bit_sliced_ranges_equal_the_numpy_engine(tmp_path, source, top, options):
    netlist = _load(tmp_path, source, top, "mul", **options)
    evaluator = compiled.evaluator_for(netlist)
    lo_a, hi_a = ev.operand_range(netlist.width, netlist.signed)
    lo_b, hi_b = ev.operand_range(netlist.width_b, netlist.signed)
    # The whole range, and one that starts and ends inside a 512-pair block.
    for b_range in ((lo_b, hi_b), (lo_b + 37, hi_b - 300)):
        got = evaluator.range_stats((lo_a, hi_a), b_range, workers=2)["exact"]
        expected = ev._exhaustive_task(netlist, lo_a, hi_a, b_range)[0].parts["exact"]
        for name in ("count", "errors", "nonzero", "max_abs", "max_rel", "sum_abs", "sum_err", "sum_sq"):
            assert getattr(got, name) == getattr(expected, name), (b_range, name)
        assert got.sum_rel == pytest.approx(expected.sum_rel, rel=1e-12)


def _eval_json(capsys, *argv) -> dict:
    assert main(["units", "eval", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("file, unit, kind, mode", [
    ("lut_mul_w8_s0", "lut_mul", "mul", ["--exhaustive"]),
    ("mitchell_div_refined_w8_s0", "mitchell_div_refined", "div", ["--exhaustive"]),
    ("lut_mul_w16_s0", "lut_mul", "mul", ["--samples", "200000", "--seed", "4"]),
])
def test_catalog_netlists_with_tables_measure_as_their_units(capsys, file, unit, kind, mode):
    # Their lookup tables are memories in Yosys; they are read as the logic they stand for.
    # The catalog's dividers are built with the default frac_bits = 8.
    width = file.split("_w")[1].split("_")[0]
    fraction = ["--frac-bits", "8"] if kind == "div" else []
    circuit = _eval_json(capsys, "--verilog", str(ROOT / "netlists" / f"{file}.v"), "--top", file,
                         "--kind", kind, *fraction, *mode)
    library = _eval_json(capsys, unit, "--width", width, *mode)
    assert circuit["metrics"] == library["metrics"]
    assert circuit["samples"] == library["samples"]


def test_catalog_table_netlist_outputs_equal_the_unit():
    netlist = load_verilog(ROOT / "netlists" / "lut_mul_w8_s0.v", "lut_mul_w8_s0", "mul")
    a, b = (x.ravel() for x in np.meshgrid(np.arange(256), np.arange(256)))
    assert np.array_equal(netlist.model(a, b), approx_units.get("lut_mul", width=8).model(a, b))


def test_a_written_memory_is_refused(tmp_path):
    with pytest.raises(VerilogError, match=r"ram8\.v: module 'ram8' is not combinational"):
        _load(tmp_path, RAM, "ram8", "mul")


def test_every_cell_type_and_constant_inputs():
    # A netlist built by hand (no Yosys): each cell type of the evaluator, some with constant
    # inputs only, reading a 4-bit a and a 12-bit b (bits 9 and up are scalar words in a block).
    from approx_units.bitsliced import GATE_EXPRESSIONS
    from approx_units.verilog_eval import GateNetlist
    a_bits, b_bits = list(range(2, 6)), list(range(6, 18))
    inputs = a_bits + b_bits + ["0", "1"]
    rng = np.random.default_rng(5)
    gates, net = [], 100
    for repeat in range(4):
        for cell_type, expression in GATE_EXPRESSIONS.items():
            arity = max(int(c) for c in expression if c.isdigit()) + 1
            chosen = ("1", "0", "1", "0")[:arity] if repeat == 0 else \
                tuple(inputs[i] for i in rng.integers(0, len(inputs), arity))
            gates.append((cell_type, chosen, net))
            inputs.append(net)
            net += 1
    outputs = [gates[i][2] for i in rng.choice(len(gates), 14, replace=False)] + [b_bits[10], "1"]
    netlist = GateNetlist(name="cells", kind="mul", width=4, a_bits=a_bits, b_bits=b_bits, o_bits=outputs,
                          gates=gates)
    evaluator = compiled.evaluator_for(netlist)
    a, b = (x.ravel() for x in np.meshgrid(np.arange(16), np.arange(4096)))
    assert np.array_equal(evaluator.model(a, b), netlist.model(a, b).astype(np.uint64))
    got = evaluator.range_stats((0, 16), (0, 4096), workers=1)["exact"]
    expected = ev._exhaustive_task(netlist, 0, 16, (0, 4096))[0].parts["exact"]
    for name in ("count", "errors", "nonzero", "max_abs", "max_rel", "sum_abs", "sum_err", "sum_sq"):
        assert getattr(got, name) == getattr(expected, name), name
