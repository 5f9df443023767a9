"""Dead-code elimination (hls.ir.dead): what reaches no output is not scheduled nor built, what
does is kept (array parameters' stores, stream operations, control), and the hardware still
gives the Python run's results."""

import pytest

import dead_code_kernels as kernels
from hardware_runs import assert_matches_python
from benchmarks.kernels import load
from hls.analysis.forwarding import insert_forwarding
from hls.compiler import compile_kernel, lower
from hls.ir import PipelinedLoop, eliminate_dead_code
from hls.ir.ops import operator_of
from sim import fuzz


def _kinds(ir) -> list[str]:
    return sorted(op.kind for block in ir.blocks() for op in block.ops)


def _loop(compiled):
    return compiled.report.to_json()["loops"][-1]


def test_a_dead_recurrence_does_not_bound_the_ii():
    dead, live, alone = (compile_kernel(kernel) for kernel in
                         (kernels.dead_divide, kernels.live_divide, kernels.sum_only))
    # Returned, `slow`'s divider bounds the II; unread, the loop is the sum alone.
    assert _loop(live)["ii"] > 10 and _loop(live)["bound"]["kind"] == "recurrence"
    for key in ("ii", "mii", "res_mii", "rec_mii", "depth"):
        assert _loop(dead)[key] == _loop(alone)[key]
    assert _loop(dead)["bound"]["detail"] == _loop(alone)["bound"]["detail"]   # the sum's, on its own line
    assert _loop(dead)["ii"] == _loop(dead)["mii"] == 1
    assert "floordiv" not in _kinds(dead.ir) and "floordiv" in _kinds(live.ir)
    assert {op.kind for op in dead.ir.removed} >= {"floordiv", "carry", "commit", "or"}
    report = dead.report.to_json()
    assert report["resources"]["operators"] == alone.report.to_json()["resources"]["operators"]
    assert report["dead_code"] == {"operators": {"add": 1, "carry": 1, "floordiv": 1, "or": 1}, "lines": [26]}
    assert "dead code: removed add x1, carry x1, floordiv x1, or x1 on line(s) 26" in dead.report.to_text()
    assert "dead_code" not in alone.report.to_json()


def test_a_dead_read_frees_the_port():
    compiled = compile_kernel(kernels.dead_read)
    # Two reads of `a` an iteration would need II 2 of its one read port.
    assert _loop(compiled)["ii"] == 1
    assert [op.kind for op in compiled.ir.removed if operator_of(op.kind).reads_memory] == ["load"]
    assert compiled.report.to_json()["resources"]["operators"]["load:a"] == 1


def test_stores_to_a_local_array_go_with_its_reads():
    ir = lower(kernels.dead_local)
    arrays = {(op.kind, op.attrs["array"]) for block in ir.blocks() for op in block.ops if "array" in op.attrs}
    # `buf` lost every access, `keep` none; `a[0]` fed only `buf`.
    assert arrays == {("load", "a"), ("load", "keep"), ("store", "keep")}
    assert "floordiv" not in _kinds(ir)
    assert "buf" in ir.layouts


def test_what_leaves_the_kernel_is_kept():
    # A store to an array parameter, every stream read (a dropped token is still taken), the
    # variables a loop's condition reads.
    assert "store" in _kinds(lower(kernels.written_not_read))
    assert _kinds(lower(kernels.discarded_tokens)).count("stream_read") == 2
    ir = lower(kernels.counted_while)
    assert {op.attrs["var"] for op in ir.removed if "var" in op.attrs} == {"junk"}
    assert {op.attrs["var"] for block in ir.blocks() for op in block.ops if op.kind == "carry"} == {"total", "i"}


def test_a_carry_goes_with_its_bodys_read():
    # A carry is the next iteration's read of its variable in the body: it is kept by that read,
    # not by the variable being live after the loop (block_problems pairs each carry with it).
    ir = lower(kernels.read_then_overwritten)
    body = next(node for node in ir.nodes if isinstance(node, PipelinedLoop)).body
    assert [op.kind for op in body.ops if op.attrs.get("var") == "v"] == ["commit"]
    assert {op.kind for op in ir.removed if op.attrs.get("var") == "v"} == {"live_in", "carry"}


def _args(name, rng):
    a = [rng.randint(0, 255) for _ in range(kernels.N)]
    if name in ("dead_divide", "live_divide", "sum_only"):
        return {"a": [rng.randint(-32768, 32767) for _ in range(kernels.N)], "n": rng.randint(0, kernels.N - 1)}
    if name == "dead_read":
        return {"a": a, "out": [0] * kernels.N, "n": rng.randint(0, 15)}
    if name in ("dead_local", "written_not_read"):
        return {"a": a, "x": rng.randint(0, 255)}
    if name == "discarded_tokens":
        n = rng.randint(0, 15)
        return {"s": [rng.randint(0, 255) for _ in range(2 * n)], "n": n}
    if name == "counted_while":
        return {"a": a, "limit": rng.randint(0, 4095)}
    return {"a": a, "n": rng.randint(0, kernels.N - 1)}


@pytest.mark.parametrize("name", ["dead_divide", "live_divide", "dead_read", "dead_local", "written_not_read",
                                  "discarded_tokens", "counted_while", "sequential_dead", "read_then_overwritten"])
def test_hardware_equals_the_python_run(name):
    assert_matches_python(getattr(kernels, name), name, _args)


def test_fuzz_5_0_loses_its_divider(tmp_path):
    # It returns v0 and v2; v1, the shifts of buf0 and `v2 // v0` (which indexes buf0's store)
    # reach neither.
    program = fuzz.generate(5, 0)
    kernel = fuzz.load_program(program, tmp_path)
    ir = lower(kernel)
    assert "floordiv" not in _kinds(ir) and "floordiv" in [op.kind for op in ir.removed]
    assert not [op for block in ir.blocks() for op in block.ops if op.attrs.get("array") == "buf0"]
    assert fuzz.check(program, directory=tmp_path).kind == "pass"


@pytest.mark.parametrize("name", ["histogram", "prefix_sum", "find_first_break", "matvec"])
def test_elimination_after_forwarding_removes_nothing(name):
    # Once pruned, everything left is live, forwarding's operations and the stores they read
    # (`Operator.reads_operations`) included.
    ir = lower(load(name)[0])
    for node in ir.nodes:
        if isinstance(node, PipelinedLoop):
            insert_forwarding(node)
    before = [list(block.ops) for block in ir.blocks()]
    assert eliminate_dead_code(ir) == []
    assert [list(block.ops) for block in ir.blocks()] == before
    if name in ("histogram", "prefix_sum"):
        assert "forward" in _kinds(ir)


def test_a_dead_approximate_operation_is_reported_not_built():
    compiled = compile_kernel(kernels.dead_product)
    site, = compiled.report.to_json()["approx"]
    assert site["dead"] and site["replaced"] and site["latency"] is None
    assert "approx_mul" not in _kinds(compiled.ir)
    assert f"approx: line {site['line']}: `a * b` -> drum(k=4) not built: dead code" in compiled.report.to_text()


def test_a_dead_hls_approx_call_is_reported_not_built_beside_a_live_one():
    compiled = compile_kernel(kernels.dead_call)
    sites = {site["unit"]: site for site in compiled.report.to_json()["approx"]}
    dead, live = sites["mitchell"], sites["drum(k=4)"]
    assert dead["origin"] == live["origin"] == "call"
    assert dead["dead"] and dead["latency"] is None
    assert not live["dead"] and live["latency"] is not None
    assert [op.attrs["unit"].label for op in compiled.ir.removed if op.kind == "approx_mul"] == ["mitchell"]
