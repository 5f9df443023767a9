"""Constant folding of hls.local arrays that only ever hold 0 (hls.ir.fold): their reads become 0,
what follows from them folds, their storage is not built, the report says so, and the hardware
still gives the Python run's results."""

import pytest

import zero_array_kernels as kernels
from hardware_runs import assert_matches_python
from hls.compiler import compile_kernel, lower
from hls.ir import fold_constants
from sim import fuzz


def _accesses(ir) -> list[str]:
    return sorted(f"{op.kind}:{op.attrs['array']}" for block in ir.blocks() for op in block.ops
                  if op.kind in ("load", "store"))


def _kinds(ir) -> set[str]:
    return {op.kind for block in ir.blocks() for op in block.ops}


def test_reads_of_an_unwritten_array_are_zero():
    compiled = compile_kernel(kernels.unwritten)
    ir = compiled.ir
    assert _accesses(ir) == ["load:a", "store:out"]
    # `a[i] + abs(buf[..] >> k)` is `a[i]`; `buf[..] > 3` is decided, so `count` never adds.
    assert not _kinds(ir) & {"shr", "abs", "gt", "add", "select"}
    report = compiled.report.to_json()
    assert report["zero_arrays"] == {"buf": {"banks": None, "written": False, "reads": 2, "lines": [20, 21]}}
    assert report["folded"]["operators"] == {"abs": 1, "add": 1, "gt": 1, "load:buf": 2, "select": 1, "shr": 1}
    assert report["resources"]["arrays"]["buf"]["storage"] == "none"
    assert report["resources"]["arrays"]["buf"]["read_ports"] == 0
    assert "load:buf" not in report["resources"]["operators"]
    assert "`buf` is never written: its reads are 0 (2 read(s) on line(s) 20, 21 folded)" in compiled.report.to_text()
    assert "local_buf" not in compiled.verilog()


def test_an_array_parameter_is_not_a_constant():
    ir = lower(kernels.parameter_read)
    assert _accesses(ir) == ["load:a"] and not ir.zero_arrays and not ir.folded
    assert "zero_arrays" not in compile_kernel(kernels.parameter_read).report.to_json()


def test_an_array_written_only_with_zeros_holds_zeros():
    # A store of 0, and a copy of one of its own elements: both removed with the reads.
    ir = lower(kernels.written_with_zeros)
    assert _accesses(ir) == ["load:a"]
    assert ir.zero_arrays["buf"].written
    assert [op.kind for op in ir.removed if op.attrs.get("array") == "buf"].count("store") == 2
    assert "`buf` is written only with 0: its reads are 0" in compile_kernel(kernels.written_with_zeros).report.to_text()


def test_a_store_that_never_happens_leaves_its_array_unwritten():
    # `buf`'s one store is predicated on a read of `flags` (never written): it goes, and so
    # `buf` reads 0 too; `keep` is untouched.
    ir = lower(kernels.written_under_a_zero)
    assert _accesses(ir) == ["load:a", "load:keep", "store:keep"]
    assert {array: zero.written for array, zero in ir.zero_arrays.items()} == {"flags": False, "buf": False}
    assert fold_constants(ir) == []       # a fixed point: nothing is left to fold


def test_one_bank_of_a_partitioned_array():
    compiled = compile_kernel(kernels.odd_bank_unwritten)
    ir = compiled.ir
    banks = {(op.kind, op.attrs["bank"]) for block in ir.blocks() for op in block.ops
             if op.attrs.get("array") == "buf"}
    # The even bank is written and read (`buf[(i + j) & 7]` chooses between its word and 0).
    assert banks == {("store", 0), ("load", 0)}
    assert ir.zero_arrays["buf"].banks == [1]
    arrays = compiled.report.to_json()["resources"]["arrays"]["buf"]
    assert arrays["storage"] == "memory" and arrays["read_ports"] == 1
    verilog = compiled.verilog()
    assert "local_buf_0" in verilog and "local_buf_1" not in verilog
    assert "`buf` bank 1 is never written: its reads are 0" in compiled.report.to_text()


def test_registers_never_written():
    compiled = compile_kernel(kernels.unwritten_registers)
    # The multiplexer over the eight registers, the comparison and the subtraction all fold:
    # the kernel returns x through wires.
    assert _accesses(compiled.ir) == []
    assert not _kinds(compiled.ir) & {"select", "ne", "sub", "max", "and"}
    assert compiled.report.to_json()["resources"]["arrays"]["r"]["storage"] == "none"
    assert "r_3" not in compiled.verilog()


def test_fuzz_5_0_folds_its_unwritten_registers(tmp_path):
    # `v0 ^= x if buf1[max(y, 0) & 7] != -128 else a[2] | n`: buf1 is never written, so the
    # condition holds and only the xor is left.
    program = fuzz.generate(5, 0)
    kernel = fuzz.load_program(program, tmp_path)
    ir = lower(kernel)
    assert {op.kind for block in ir.blocks() for op in block.ops} == {"const", "live_in", "wrap", "xor", "commit"}
    assert list(ir.zero_arrays) == ["buf1"]
    assert fuzz.check(program, directory=tmp_path).kind == "pass"


def _args(name, rng):
    a = [rng.randint(0, 255) for _ in range(kernels.N)]
    if name == "unwritten":
        return {"a": [rng.randint(-128, 127) for _ in range(kernels.N)], "out": [0] * kernels.N,
                "n": rng.randint(0, kernels.N), "k": rng.randint(0, 7)}
    if name == "parameter_read":
        return {"a": [rng.randint(-128, 127) for _ in range(kernels.N)], "n": rng.randint(0, kernels.N)}
    if name == "written_with_zeros":
        return {"a": a, "n": rng.randint(0, kernels.N)}
    if name == "written_under_a_zero":
        return {"a": a, "x": rng.randint(0, 255)}
    if name == "odd_bank_unwritten":
        return {"a": a, "n": rng.randint(0, 15), "j": rng.randint(0, 7)}
    return {"x": rng.randint(0, 255), "y": rng.randint(-8, 7)}


@pytest.mark.parametrize("name", ["unwritten", "parameter_read", "written_with_zeros", "written_under_a_zero",
                                  "odd_bank_unwritten", "unwritten_registers"])
def test_hardware_equals_the_python_run(name):
    assert_matches_python(getattr(kernels, name), name, _args)
