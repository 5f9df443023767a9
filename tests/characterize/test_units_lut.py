"""``axhls units lut``: TFApprox and AdaPT lookup tables, read back and checked entry by entry."""

import os
import sys

import numpy as np
import pytest

import approx_units
from approx_units import lut
from approx_units.registry import spec
from axhls.cli import main

MULTIPLIERS = [name for name in approx_units.names() if spec(name).kind == "mul"]


def _expected(unit, signed: bool) -> np.ndarray:
    """``expected[i][j]``: the model at the operands whose bytes are i and j, computed pair by pair."""
    values = np.arange(256)
    operand = values - 256 * (values >= 128) if signed else values
    a, b = np.meshgrid(operand, operand, indexing="ij")
    return np.asarray(unit.model(a.ravel(), b.ravel())).reshape(256, 256)


@pytest.mark.parametrize("name", MULTIPLIERS)
def test_tfapprox_file_of_every_multiplier_round_trips(name, tmp_path, capsys):
    path = tmp_path / f"{name}.bin"
    assert main(["units", "lut", name, "--width", "8", "--format", "tfapprox", "-o", str(path)]) == 0
    data = path.read_bytes()
    assert len(data) == 65536 * 2
    flat = np.frombuffer(data, dtype=np.uint16)           # native-endian, as TFApprox reads it
    unit = approx_units.get(name, width=8)
    expected = _expected(unit, signed=False)
    for a, b in [(0, 0), (255, 255), (3, 200), (200, 3), (17, 99)]:
        assert flat[(a << 8) | b] == expected[a, b]       # the index TFApprox uses
    assert np.array_equal(flat.reshape(256, 256), expected)


@pytest.mark.parametrize("name", MULTIPLIERS)
def test_adapt_header_of_every_multiplier_round_trips(name, tmp_path):
    path = tmp_path / f"{name}.h"
    assert main(["units", "lut", name, "--signed", "--format", "adapt", "-o", str(path)]) == 0
    text = path.read_text()
    assert "#include <stdint.h>" in text and "const int16_t lut[256][256] = {" in text
    table = lut.read_adapt(text)
    unit = approx_units.get(name, width=8, signed=True)
    expected = _expected(unit, signed=True)
    assert table[-128 & 0xFF, -1 & 0xFF] == expected[128, 255] == unit.model(-128, -1)   # (uint8_t)a
    assert np.array_equal(table.astype(np.int64), expected)


def test_adapt_header_compiles_and_indexes_as_c_does(tmp_path):
    """The header is valid C, and lut[(uint8_t)a][(uint8_t)b] is the signed product."""
    compiler = next((c for c in ("cc", "gcc") if any(os.access(os.path.join(p, c), os.X_OK)
                                                     for p in os.environ.get("PATH", "").split(":"))), None)
    if compiler is None:
        pytest.skip("no C compiler on PATH")
    header = tmp_path / "mul.h"
    assert main(["units", "lut", "exact_mul", "--signed", "--format", "adapt", "-o", str(header)]) == 0
    source = tmp_path / "main.c"
    source.write_text('#include <stdio.h>\n#include "mul.h"\nint main(void) {\n'
                      '  int8_t a = -7, b = 9;\n  printf("%d %d\\n", lut[(uint8_t)a][(uint8_t)b], '
                      'lut[(uint8_t)-128][(uint8_t)-128]);\n  return 0;\n}\n')
    import subprocess
    subprocess.run([compiler, "-O0", "-o", str(tmp_path / "main"), str(source)], check=True, cwd=tmp_path)
    result = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["-63", "16384"]


def test_third_party_verilog_table(tmp_path, capsys):
    examples = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "loa8.v")
    path = tmp_path / "loa8.bin"
    assert main(["units", "lut", "--verilog", examples, "--top", "loa8", "--kind", "add",
                 "--format", "tfapprox", "-o", str(path)]) == 0
    table = lut.read_tfapprox(path.read_bytes())
    library = approx_units.get("loa", width=8, l=4)
    assert np.array_equal(table.astype(np.int64), _expected(library, signed=False))


def test_fixed_point_verilog_divider_table(tmp_path):
    # The catalog's refined Mitchell divider with its 8 fraction bits: the library unit's table.
    netlist = os.path.join(os.path.dirname(__file__), "..", "..", "netlists", "mitchell_div_refined_w8_s0.v")
    path = tmp_path / "div8.bin"
    assert main(["units", "lut", "--verilog", netlist, "--top", "mitchell_div_refined_w8_s0", "--kind", "div",
                 "--frac-bits", "8", "--format", "tfapprox", "-o", str(path)]) == 0
    table = lut.read_tfapprox(path.read_bytes())
    library = approx_units.get("mitchell_div_refined", width=8)
    assert library.params["frac_bits"] == 8
    assert np.array_equal(table.astype(np.int64), _expected(library, signed=False))


@pytest.mark.parametrize("argv, message", [
    (["drum", "--width", "16", "--format", "tfapprox"],
     "--width 16: tfapprox and adapt tables are defined for 8-bit operands only"),
    (["drum", "--format", "adapt"], "adapt tables take signed (two's complement) operands"),
    (["drum", "--signed", "--format", "tfapprox"], "tfapprox tables take unsigned operands"),
    (["nonesuch", "--format", "tfapprox"], "unknown unit"),
    (["--format", "tfapprox"], "give a unit id"),
])
def test_refusals_are_one_line(argv, message, tmp_path, capsys):
    path = tmp_path / "t.bin"
    assert main(["units", "lut", *argv, "-o", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not path.exists()


def test_unwritable_destination_is_refused_before_the_work(capsys):
    assert main(["units", "lut", "drum", "--format", "tfapprox", "-o", "/proc/x.bin"]) == 2
    assert capsys.readouterr().err.startswith("axhls: /proc/x.bin: cannot write there")


def test_readers_reject_malformed_files():
    with pytest.raises(lut.LutError, match="131072 bytes"):
        lut.read_tfapprox(b"\0" * 10)
    with pytest.raises(lut.LutError, match="no 'int16_t NAME"):
        lut.read_adapt("int x;")
    with pytest.raises(lut.LutError, match="entries, not 65,536"):
        lut.read_adapt("const int16_t lut[256][256] = {1, 2};")


class _Scaled:
    """A subject whose outputs do not fit 16 bits: no library unit at 8 bits has such outputs."""
    width, width_b, name, description = 8, 8, "scaled", "a 4x-scaled product"

    def __init__(self, signed):
        self.signed = signed

    def model(self, a, b):
        return np.asarray(a, dtype=np.int64) * np.asarray(b, dtype=np.int64) * 4


def test_outputs_that_do_not_fit_an_entry_are_refused():
    with pytest.raises(lut.LutError, match=r"outputs 0\.\.260100, outside the uint16 entries"):
        lut.encode(_Scaled(False), "tfapprox")
    with pytest.raises(lut.LutError, match=r"outside the int16 entries \(-32768\.\.32767\) that adapt tables hold"):
        lut.encode(_Scaled(True), "adapt")


def test_native_byte_order_is_documented():
    assert sys.byteorder in ("little", "big")
    assert "native-endian" in lut.FORMATS["tfapprox"][2]


def test_signed_third_party_verilog_adapt_header(tmp_path):
    source = tmp_path / "mul8s.v"
    source.write_text("module mul8s(input signed [7:0] A, input signed [7:0] B, output [15:0] O);\n"
                      "  assign O = A * B;\nendmodule\n")
    header = tmp_path / "mul8s.h"
    assert main(["units", "lut", "--verilog", str(source), "--top", "mul8s", "--signed",
                 "--format", "adapt", "-o", str(header)]) == 0
    table = lut.read_adapt(header.read_text()).astype(np.int64)
    values = np.arange(256)
    operand = values - 256 * (values >= 128)
    assert np.array_equal(table, np.outer(operand, operand))
