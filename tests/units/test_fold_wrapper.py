"""The fold wrapper of kernel Fmax measurement: inputs from a shift register, outputs XOR-folded.

Simulated under Icarus against a cycle-level Python model of the same registers, so
the wrapper is known to feed every input bit and fold every output bit (a wrapper
that left a bit out would let Yosys remove the logic behind it, and the Fmax would
be of less than the kernel).
"""

import random
import shutil
import subprocess

import pytest

from approx_units.synth import fold_wrapper

DUT = """
module dut(input clk, input rst, input [2:0] a, input [4:0] b, output [5:0] o, output [1:0] p);
  assign o = a * b;
  assign p = {a[2] ^ b[4], b[0]};
endmodule
"""

PORTS = [("clk", "input", 1), ("rst", "input", 1), ("a", "input", 3), ("b", "input", 5),
         ("o", "output", 6), ("p", "output", 2)]


def _model(bits):
    """dout after each rising edge, for ``din`` = ``bits``: the wrapper's registers in Python."""
    sr, level0, levels = 0, 0, []
    widths = []
    width = 8
    while width > 1:
        width = (width + 3) // 4
        widths.append(width)
    levels = [0] * len(widths)
    out = []
    for din in bits:
        a, b = sr & 7, (sr >> 3) & 31
        w = ((a * b) & 63) | ((((a >> 2) ^ (b >> 4)) & 1) << 7) | ((b & 1) << 6)
        previous = [level0] + levels
        new_levels = []
        for k, n in enumerate(widths):
            source = previous[k]
            new_levels.append(sum((bin((source >> (4 * i)) & 15).count("1") & 1) << i for i in range(n)))
        sr, level0, levels = ((sr << 1) | din) & 255, w, new_levels
        out.append(levels[-1] & 1)
    return out


def test_fold_wrapper_feeds_every_input_and_folds_every_output(tmp_path):
    if shutil.which("iverilog") is None or shutil.which("vvp") is None:
        pytest.skip("iverilog not found: install Icarus Verilog (Debian/Ubuntu: apt-get install iverilog)")
    rng = random.Random(5)
    bits = [rng.randrange(2) for _ in range(200)]
    bench = ["module tb;", "  reg clk = 0; reg din = 0; wire dout;", "  axhls_fold_wrapper w(clk, din, dout);",
             "  initial begin"]
    bench.append("    w.sr = 0; w.level0 = 0;" + "".join(f" w.level{k} = 0;" for k in (1, 2)))
    for bit in bits:
        bench.append(f"    din = {bit}; #1 clk = 1; #1 $display(\"%b\", dout); clk = 0;")
    bench += ["    $finish;", "  end", "endmodule"]
    (tmp_path / "all.v").write_text(DUT + fold_wrapper("dut", PORTS) + "\n".join(bench) + "\n")
    subprocess.run(["iverilog", "-o", str(tmp_path / "sim"), str(tmp_path / "all.v")], check=True)
    result = subprocess.run(["vvp", "-n", str(tmp_path / "sim")], capture_output=True, text=True, check=True)
    got = [int(line) for line in result.stdout.split() if line in ("0", "1")]
    assert got == _model(bits)
    assert 0 < sum(got) < len(got)
