"""``axhls units survey DIR``: a folder of third-party circuits as one table."""

import json
import shutil
from pathlib import Path

import pytest

import approx_units
from approx_units import evaluate
from axhls.cli import main

LOA8 = """
module loa8(input [7:0] A, input [7:0] B, output [8:0] O);
  wire carry = A[3] & B[3];
  assign O[3:0] = A[3:0] | B[3:0];
  assign O[8:4] = A[7:4] + B[7:4] + carry;
endmodule
"""
EXACT8 = "module add8(input [7:0] A, input [7:0] B, output [8:0] O); assign O = A + B; endmodule\n"
CELL = "module add8_pdk45(input [7:0] A, input [7:0] B, output [8:0] O); FAX1 u(.A(A[0])); endmodule\n"
WRONG_NAME = "module something_else(input [7:0] A, input [7:0] B, output [8:0] O); assign O = A; endmodule\n"


@pytest.fixture
def folder(tmp_path):
    directory = tmp_path / "circuits"
    directory.mkdir()
    (directory / "loa8.v").write_text(LOA8)
    (directory / "add8.v").write_text(EXACT8)
    (directory / "add8_pdk45.v").write_text(CELL)          # a cell-library netlist: skipped
    return directory


def test_survey_json_matches_units_eval(folder, capsys):
    assert main(["units", "survey", str(folder), "--kind", "add", "--target", "none", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    rows = {row["circuit"]: row for row in result["rows"]}
    assert sorted(rows) == ["add8", "loa8"]
    library = evaluate.evaluate(approx_units.get("loa", width=8, l=4))
    assert rows["loa8"]["metrics"] == library.metrics
    assert rows["loa8"]["exhaustive"] and rows["add8"]["mred_pct"] == 0


def test_survey_table_with_area(folder, tmp_path, capsys):
    status = main(["units", "survey", str(folder), "--kind", "add", "--target", "ecp5", "--no-timing",
                   "--cache-dir", str(tmp_path / "cache")])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[0].split()[:3] == ["circuit", "a", "x"] and "LUT-eq" in out[0]
    assert [line.split()[0] for line in out[1:]] == ["add8", "loa8"]


def test_a_bad_circuit_is_a_row_not_a_crash(folder, capsys):
    (folder / "mismatch.v").write_text(WRONG_NAME)
    (folder / "garbled.v").write_bytes(b"module garbled(input [7:0] A\xff\xfe; endmodule\n")
    status = main(["units", "survey", str(folder), "--kind", "add", "--target", "none"])
    captured = capsys.readouterr()
    assert status == 1
    lines = captured.out.splitlines()
    # Each one is a line of the table, in its place, with its one-line reason.
    assert [line.split()[0] for line in lines[1:]] == ["add8", "garbled", "loa8", "mismatch"]
    assert lines[2].startswith("garbled  error: ") and "garbled.v" in lines[2]
    assert lines[4].startswith("mismatch  error: ") and \
        "no module 'mismatch'; the file defines something_else" in lines[4]
    assert captured.err.splitlines()[-1] == "axhls: 2 of 4 circuits could not be measured (their error lines are in the table)"
    assert main(["units", "survey", str(folder), "--kind", "add", "--target", "none", "--json"]) == 1
    rows = {row["circuit"]: row for row in json.loads(capsys.readouterr().out)["rows"]}
    assert "something_else" in rows["mismatch"]["error"] and "garbled.v" in rows["garbled"]["error"]
    assert "metrics" in rows["loa8"]


PORT_Z = "module addz(input [7:0] A, input [7:0] B, output [8:0] Z); assign Z = A + B; endmodule\n"


def test_port_names_serve_the_circuits_that_have_them(folder, capsys):
    (folder / "addz.v").write_text(PORT_Z)
    assert main(["units", "survey", str(folder), "--kind", "add", "--target", "none", "--json"]) == 1
    rows = {row["circuit"]: row for row in json.loads(capsys.readouterr().out)["rows"]}
    assert "has no port 'O' or 'o' (its ports: A, B, Z); name it with --port-o" in rows["addz"]["error"]
    # --port-o Z: addz's result is Z, the others keep the default O.
    assert main(["units", "survey", str(folder), "--kind", "add", "--target", "none", "--port-o", "Z", "--json"]) == 0
    rows = {row["circuit"]: row for row in json.loads(capsys.readouterr().out)["rows"]}
    assert sorted(rows) == ["add8", "addz", "loa8"]
    assert rows["addz"]["metrics"] == rows["add8"]["metrics"] and rows["addz"]["mred_pct"] == 0
    # A list is tried in order; a name no circuit has names itself in the error.
    assert main(["units", "survey", str(folder), "--kind", "add", "--target", "none", "--port-a", "X,A",
                 "--port-o", "Q", "--json"]) == 1
    rows = {row["circuit"]: row for row in json.loads(capsys.readouterr().out)["rows"]}
    assert "metrics" in rows["add8"]
    assert "has no port 'Q' (its ports: A, B, Z)" in rows["addz"]["error"]


CATALOG = Path(__file__).resolve().parents[2] / "netlists"


def test_frac_bits_measures_a_fixed_point_divider_as_the_library_does(tmp_path, capsys):
    # The catalog's refined Mitchell divider computes a * 2^8 / b (the library's default frac_bits = 8).
    directory = tmp_path / "dividers"
    directory.mkdir()
    shutil.copy(CATALOG / "mitchell_div_refined_w8_s0.v", directory)
    library = evaluate.evaluate(approx_units.get("mitchell_div_refined", width=8)).metrics
    survey = {}
    for fraction in ([], ["--frac-bits", "8"]):
        assert main(["units", "survey", str(directory), "--kind", "div", "--target", "none", *fraction,
                     "--json"]) == 0
        survey[len(fraction)] = json.loads(capsys.readouterr().out)["rows"][0]["metrics"]
    assert survey[2] == library
    assert survey[0]["mred"] > 100 * library["mred"]       # read as an integer quotient, it is far off


@pytest.mark.parametrize("make, message", [
    (lambda tmp: tmp / "missing", "not a directory"),
    (lambda tmp: tmp, "no Verilog files"),
])
def test_survey_errors(tmp_path, capsys, make, message):
    assert main(["units", "survey", str(make(tmp_path)), "--kind", "add", "--target", "none"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
