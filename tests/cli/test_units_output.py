"""What ``axhls units ...`` prints for people: progress that reads as progress, rounded Fmax, tables that line up."""

import json
import subprocess
import sys
from pathlib import Path

import approx_units
from approx_units import sweep, synth
from axhls.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_sweep_progress_names_each_job_and_counts_them(capsys, tmp_path):
    status, _, err = run(capsys, "units", "sweep", "--units", "loa", "--param", "l=2,4", "--widths", "8",
                         "--targets", "none", "--jobs", "1", "--db", str(tmp_path / "sweep.sqlite"))
    assert status == 0, err
    assert err.splitlines() == ["2 jobs, 0 already in the results database: 2 to run (2 error evaluations, "
                                "0 synthesis runs)",
                                "[1/2] error metrics of loa(l=2), 8 bits, exhaustive",
                                "[2/2] error metrics of loa(l=4), 8 bits, exhaustive"]


def test_sweep_progress_of_sampled_and_signed_jobs():
    key = sweep.ErrorKey("drum", 16, (("k", 6), ("signed", True), ("width_b", 16)), 1000, 3)
    assert key.describe() == "error metrics of drum(k=6, signed), 16 bits, 1000 samples, seed 3"
    area = sweep.AreaKey("loa", 8, (("l", 2), ("signed", False)), 2, "ecp5", False)
    assert area.describe() == "synthesis of loa(l=2), 8 bits, 2 stages, on ecp5 (no place and route)"


def test_fmax_is_printed_with_one_decimal_and_kept_whole_in_json(capsys, tmp_path):
    database = tmp_path / "sweep.sqlite"
    common = ["units", "sweep", "--units", "loa", "--param", "l=2", "--widths", "8", "--jobs", "1",
              "--db", str(database), "--cache-dir", str(tmp_path / "cache")]
    # The error job for real; the area job's row as a place-and-route run would have stored it.
    status, _, err = run(capsys, *common, "--targets", "none")
    assert status == 0, err
    errors, areas, _ = sweep.grid(["loa"], {"l": [2]}, [8], [0], ["ecp5"])
    store = sweep.ResultStore(database)
    try:
        store.put(areas[0], {"luts": 12, "carry": 0, "ffs": 0, "fmax_mhz": 302.5718688964844, "adp": 39.66})
    finally:
        store.close()
    status, out, err = run(capsys, *common, "--targets", "ecp5")
    assert status == 0, err
    assert out.splitlines()[1].endswith("loa(l=2) w8 s0 ecp5: 12 LUTs, Fmax 302.6 MHz  mred=0.00335144")
    status, out, _ = run(capsys, *common, "--targets", "ecp5", "--json")
    assert json.loads(out)["rows"][0]["area"]["fmax_mhz"] == 302.5718688964844


def test_fmax_text():
    assert synth.fmax_text(302.5718688964844) == "302.6 MHz"
    assert synth.fmax_text(99.96) == "100.0 MHz"
    assert synth.fmax_text(None) == "n/a (no place and route)"


def test_units_list_columns_line_up(capsys):
    status, out, _ = run(capsys, "units", "list")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["unit", "kind"]
    assert len(lines) == 1 + len(approx_units.names())
    summary_column = lines[0].index("summary")
    refined = next(line for line in lines if line.startswith("mitchell_refined "))
    assert refined[:summary_column].rstrip().endswith("index_bits=4, mantissa_bits=7")
    for line, name in zip(lines[1:], approx_units.names()):
        assert line.startswith(name + " ")
        assert line[summary_column - 2:summary_column] == "  " and line[summary_column] != " ", line


def test_eval_help_prints_one_percent_sign(capsys):
    try:
        main(["units", "eval", "--help"])
    except SystemExit as exit:
        assert exit.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "with 95% confidence intervals" in out and "%%" not in out


def test_a_reader_that_goes_away_ends_the_command_quietly():
    # `axhls units list | head -1`: the pipe is closed before the command writes anything.
    process = subprocess.Popen([sys.executable, "-m", "axhls", "units", "list"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()
    err = process.stderr.read()
    process.wait(timeout=60)
    assert (process.returncode, err) == (141, "")
