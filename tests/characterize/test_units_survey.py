"""``axhls units survey DIR``: a folder of third-party circuits as one table."""

import json

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
    status = main(["units", "survey", str(folder), "--kind", "add", "--target", "none"])
    captured = capsys.readouterr()
    assert status == 1
    assert "mismatch: " in captured.err and "no module 'mismatch'; the file defines something_else" in captured.err
    assert "loa8" in captured.out


@pytest.mark.parametrize("make, message", [
    (lambda tmp: tmp / "missing", "not a directory"),
    (lambda tmp: tmp, "no Verilog files"),
])
def test_survey_errors(tmp_path, capsys, make, message):
    assert main(["units", "survey", str(make(tmp_path)), "--kind", "add", "--target", "none"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
