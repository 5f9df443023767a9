"""The ``axhls units`` command-line contract: JSON keys, exit statuses, one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import approx_units
from axhls.cli import main

EVAL_KEYS = {"unit", "width", "params", "exhaustive", "samples", "metrics"}
METRIC_KEYS = {"er", "med", "nmed", "mred", "wce", "wcre", "mse", "bias", "mae_pct", "wce_pct"}
AREA_KEYS = {"unit", "width", "params", "stages", "target", "luts", "carry", "ffs", "fmax_mhz", "adp"}

LOA8 = """
// Lower-part OR adder, l = 4, written by hand as a stand-in for a third-party circuit.
module loa8(input [7:0] A, input [7:0] B, output [8:0] O);
  wire carry = A[3] & B[3];
  assign O[3:0] = A[3:0] | B[3:0];
  assign O[8:4] = A[7:4] + B[7:4] + carry;
endmodule
"""

MUL8 = """
module exact_mul8(input [7:0] x, input [7:0] y, output [15:0] p);
  assign p = x * y;
endmodule
"""


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_json(capsys, *argv):
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    assert out.count("\n") == 1          # exactly one JSON object
    return json.loads(out)


def test_list(capsys):
    listing = run_json(capsys, "units", "list")
    names = [entry["unit"] for entry in listing["units"]]
    assert names == approx_units.names()
    loa = listing["units"][names.index("loa")]
    assert loa["kind"] == "add" and "l" in loa["params"]
    status, out, _ = run(capsys, "units", "list")
    assert status == 0 and "loa" in out


def test_eval_contract(capsys):
    result = run_json(capsys, "units", "eval", "loa", "--width", "8", "--param", "l=4")
    assert EVAL_KEYS <= set(result) and METRIC_KEYS <= set(result["metrics"])
    assert result["unit"] == "loa" and result["width"] == 8 and result["params"]["l"] == 4
    assert result["exhaustive"] is True and result["samples"] == 65536
    assert result["metrics"]["er"] == pytest.approx(1 - 0.75 ** 4)      # a fraction
    # mae_pct is a percentage of 2^(n+1) for adders (EvoApproxLib).
    assert result["metrics"]["mae_pct"] == pytest.approx(100 * result["metrics"]["med"] / 2 ** 9)


def test_eval_sampled_has_intervals(capsys):
    result = run_json(capsys, "units", "eval", "loa", "--width", "16", "--param", "l=6",
                      "--samples", "5000", "--seed", "2")
    assert result["exhaustive"] is False and result["samples"] == 5000
    low, high = result["ci95"]["med"]
    assert low <= result["metrics"]["med"] <= high


def test_eval_signed_and_stages(capsys):
    result = run_json(capsys, "units", "eval", "loa", "--width", "6", "--param", "l=2",
                      "--signed", "--stages", "2")
    assert result["params"]["signed"] is True and result["samples"] == 4096


def test_eval_human_output(capsys):
    status, out, _ = run(capsys, "units", "eval", "trunc_add", "--width", "6", "--param", "l=2")
    assert status == 0 and "med" in out and "pairs/s" in out


def test_eval_histogram_and_pairs_files(capsys, tmp_path):
    np.save(tmp_path / "h.npy", np.r_[np.zeros(200), np.ones(56)])
    result = run_json(capsys, "units", "eval", "loa", "--width", "8", "--param", "l=4",
                      "--histogram-a", str(tmp_path / "h.npy"), "--samples", "3000")
    assert result["exhaustive"] is False and result["distribution"].startswith("histogram")
    np.savez(tmp_path / "p.npz", a=np.arange(10), b=np.arange(10))
    result = run_json(capsys, "units", "eval", "loa", "--width", "8", "--param", "l=4",
                      "--pairs", str(tmp_path / "p.npz"))
    assert result["samples"] == 10


@pytest.mark.parametrize("argv, message", [
    (["units", "eval", "nonesuch", "--width", "8"], "known units: exact_add, loa"),
    (["units", "eval", "loa", "--width", "17", "--exhaustive"], "--samples"),
    (["units", "eval", "loa", "--width", "99"], "width"),
    (["units", "eval", "loa", "--width", "8", "--param", "l=99"], "l=99"),
    (["units", "eval", "loa", "--width", "8", "--param", "l"], "NAME=VALUE"),
    (["units", "eval", "loa", "--width", "8", "--param", "z=1"], "no parameter 'z'"),
    (["units", "eval", "--width", "8"], "unit id"),
    (["units", "eval", "loa", "--width", "8", "--pairs", "/nonexistent.npz"], "/nonexistent.npz"),
])
def test_eval_user_errors(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("axhls: ") and err.count("\n") == 1 and message in err


def test_eval_verilog_matches_the_library_model(capsys, tmp_path):
    (tmp_path / "loa8.v").write_text(LOA8)
    verilog = run_json(capsys, "units", "eval", "--verilog", str(tmp_path / "loa8.v"), "--top", "loa8",
                       "--kind", "add", "--width", "8")
    library = run_json(capsys, "units", "eval", "loa", "--width", "8", "--param", "l=4")
    assert verilog["unit"] == "verilog:loa8" and verilog["exhaustive"] and verilog["samples"] == 65536
    assert verilog["metrics"] == library["metrics"]


def test_eval_verilog_exact_multiplier_with_port_options(capsys, tmp_path):
    (tmp_path / "mul.v").write_text(MUL8)
    result = run_json(capsys, "units", "eval", "--verilog", str(tmp_path / "mul.v"), "--top", "exact_mul8",
                      "--kind", "mul", "--width", "8", "--port-a", "x", "--port-b", "y", "--port-o", "p")
    assert result["metrics"]["er"] == 0 and result["metrics"]["wce"] == 0


@pytest.mark.parametrize("source, extra, message", [
    (None, [], "no such file"),
    ("module broken(input a; endmodule", [], "syntax error"),
    (MUL8, [], "has no port 'A' or 'a' (its ports: x, y, p)"),
    (LOA8, ["--top", "other"], "other"),
    (LOA8, ["--width", "6"], "must be a 6-bit input"),
    (LOA8, ["--param", "l=2"], "describe library units"),
])
def test_eval_verilog_errors(capsys, tmp_path, source, extra, message):
    path = tmp_path / "in.v"
    if source is not None:
        path.write_text(source)
    options = {"--top": "loa8" if source != MUL8 else "exact_mul8", "--width": "8"}
    for flag, value in zip(extra[::2], extra[1::2]):
        options[flag] = value
    argv = ["units", "eval", "--verilog", str(path), "--kind", "add"]
    for flag, value in options.items():
        argv += [flag, value] if value else [flag]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_area_contract(capsys, tmp_path):
    result = run_json(capsys, "units", "area", "loa", "--width", "4", "--param", "l=2",
                      "--target", "ecp5", "--cache-dir", str(tmp_path))
    assert AREA_KEYS <= set(result)
    assert result["target"] == "ecp5" and result["stages"] == 0 and result["ffs"] == 0
    assert result["luts"] > 0 and result["fmax_mhz"] > 0
    # ECP5: a CCU2C carry cell occupies two LUT4s.
    assert result["lut_equivalents"] == result["luts"] + 2 * result["carry"]
    assert result["adp"] == pytest.approx(result["lut_equivalents"] * 1000 / result["fmax_mhz"])
    again = run_json(capsys, "units", "area", "loa", "--width", "4", "--param", "l=2",
                     "--target", "ecp5", "--cache-dir", str(tmp_path))
    assert again["cached"] is True and again["luts"] == result["luts"]


def test_area_errors(capsys, tmp_path):
    status, _, err = run(capsys, "units", "area", "loa", "--width", "4", "--target", "ice40", "--dsp",
                         "--cache-dir", str(tmp_path))
    assert status == 2 and "dsp=True is not supported for target 'ice40'" in err


def test_installed_script_runs(tmp_path):
    script = Path(sys.executable).parent / "axhls"
    completed = subprocess.run([str(script), "units", "eval", "exact_add", "--width", "4", "--json"],
                               capture_output=True, text=True, cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["metrics"]["er"] == 0
    completed = subprocess.run([str(script), "units", "eval", "nonesuch", "--width", "4"],
                               capture_output=True, text=True, cwd=tmp_path)
    assert completed.returncode == 2 and completed.stderr.count("\n") == 1
    assert "Traceback" not in completed.stderr


def test_maxima_say_whether_they_were_measured_over_every_pair(capsys):
    sampled = run_json(capsys, "units", "eval", "mitchell", "--width", "16", "--samples", "20000")
    assert set(sampled["maxima"]) == {"wce", "wcre", "wce_pct"}
    assert all(entry["exhaustive"] is False for entry in sampled["maxima"].values())
    assert sampled["maxima"]["wce"]["value"] == sampled["metrics"]["wce"]
    exhaustive = run_json(capsys, "units", "eval", "mitchell", "--width", "8")
    assert all(entry["exhaustive"] is True for entry in exhaustive["maxima"].values())
    status, out, _ = run(capsys, "units", "eval", "mitchell", "--width", "16", "--samples", "20000")
    wce_line = next(line for line in out.splitlines() if line.split()[0] == "wce")
    assert "(sampled*)" in wce_line and "a lower bound of the true maximum" in out
    status, out, _ = run(capsys, "units", "eval", "mitchell", "--width", "8")
    assert "sampled" not in out
