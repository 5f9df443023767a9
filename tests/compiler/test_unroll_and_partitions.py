"""hls.unroll, partitioned parameter arrays and hls.local arrays: hardware against the Python run,
bit for bit, the port groups, and the scheduler's ports per bank."""

import random

import pytest
from amaranth import signed

import array_kernels as kernels
from hls.backend.component import KernelSignature, kernel_signature
from hls.compiler import compile_kernel
from hls.frontend import analyze
from hls.ir import PipelinedLoop
from hls.types import partition
from sim.kernel import run
from sim.errors import ToolUnavailable
from sim.tools import find_simulator


def _values(seed, count, low, high):
    generator = random.Random(seed)
    return [generator.randint(low, high) for _ in range(count)]


def _loops(kernel):
    return {entry["name"]: entry for entry in compile_kernel(kernel).report.to_json()["loops"]}


def _check(kernel, args):
    result = run(kernel, args, max_cycles=20_000)
    assert result.match, result.differences
    assert result.outputs == result.expected
    return result


# -- unrolling ------------------------------------------------------------------------------------

def test_full_unroll_leaves_no_loop_and_matches_python():
    assert compile_kernel(kernels.unroll_full).report.to_json()["loops"] == []
    a = _values(1, 16, -32768, 32767)
    assert kernels.unroll_full(a=list(a)) == sum(a[2 * t] * t for t in range(8))
    _check(kernels.unroll_full, {"a": a})


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 7, 8, 63, 64])
def test_partial_unroll_with_remainder(n):
    a = _values(2, 64, -32768, 32767)
    result = _check(kernels.unroll_partial, {"a": a, "b": [7] * 64, "n": n})
    b = result.outputs["arrays"]["b"]
    assert b[:n] == [((3 * a[i] - i + (1 << 15)) % (1 << 16)) - (1 << 15) for i in range(n)]
    assert b[n:] == [7] * (64 - n)


def test_partial_unroll_names_the_remainder_loop_and_keeps_copies_apart():
    loops = _loops(kernels.unroll_partial)
    assert set(loops) == {"loop_17", "loop_17_remainder"}
    # Four copies read a[i0 + k] and write b[i0 + k]: affine, so no false dependence; only
    # the single read port of `a` bounds the unrolled loop.
    assert loops["loop_17"]["ii"] == loops["loop_17"]["res_mii"] == 4
    assert loops["loop_17"]["bound"]["kind"] == "resource"
    assert loops["loop_17_remainder"]["ii"] == 1


def test_partial_unroll_of_constant_bounds_unrolls_the_remainder():
    typed = analyze(kernels.unroll_partial_constant)
    assert len(typed.loops) == 1
    (loop,) = typed.loops
    assert [argument.value for argument in loop.iter.args] == [3, 27, 8]
    a = _values(3, 64, -32768, 32767)
    assert kernels.unroll_partial_constant(a=list(a)) == sum(a[i] for i in range(3, 30, 2))
    _check(kernels.unroll_partial_constant, {"a": a})


@pytest.mark.parametrize("n", [0, 1, 16])
def test_unrolled_inner_loop_and_pipeline_unrolling_match(n):
    a = _values(4, 64, -32768, 32767)
    expected = [sum(a[4 * i:4 * i + 4]) for i in range(n)] + [0] * (16 - n)
    for kernel in (kernels.unroll_nested, kernels.pipeline_unrolls_inner):
        result = _check(kernel, {"a": a, "out": [0] * 16, "n": n})
        assert result.outputs["arrays"]["out"] == expected


def test_pipeline_on_an_outer_loop_unrolls_its_constant_loop():
    (loop,) = compile_kernel(kernels.pipeline_unrolls_inner).report.to_json()["loops"]
    assert loop["pipelined"] and loop["ii"] == 1        # four banks for the four reads
    (loop,) = compile_kernel(kernels.unroll_nested).report.to_json()["loops"]
    assert loop["pipelined"] and loop["ii"] == 4        # one port for four reads


# -- partitioned parameter arrays -----------------------------------------------------------------

def test_port_groups_per_bank():
    names = [port["name"] for port in kernel_signature(compile_kernel(kernels.sum4_cyclic).ir).ports()]
    for bank in range(4):
        assert f"a_read_{bank}__addr" in names and f"a_write_{bank}__data" in names
    assert "a_read__addr" not in names
    signature = kernel_signature(compile_kernel(kernels.sum4_cyclic).ir)
    assert signature.partitions == {"a": partition("cyclic", 4)}
    assert [group[:2] for group in signature.bank_groups["a"]] == [(f"a_read_{k}", f"a_write_{k}")
                                                                    for k in range(4)]
    assert signature.addr_width("a") == 4       # 16 elements per bank
    assert signature == KernelSignature(arrays={"a": (signed(16), 64)}, results=[signed(32)],
                                        partitions={"a": partition("cyclic", 4)})
    assert signature != KernelSignature(arrays={"a": (signed(16), 64)}, results=[signed(32)])
    complete = kernel_signature(compile_kernel(kernels.complete_param).ir)
    assert [read for read, _, _ in complete.bank_groups["a"]] == [f"a_read_{k}" for k in range(4)]
    assert complete.addr_width("a") == 0


def test_the_scheduler_counts_ports_per_bank():
    (plain,) = _loops(kernels.sum4_plain).values()
    (banked,) = _loops(kernels.sum4_cyclic).values()
    assert plain["res_mii"] == 4 and plain["bound"]["kind"] == "resource"
    assert banked["res_mii"] == 1 and banked["ii"] < plain["ii"]
    a = _values(5, 64, -32768, 32767)
    plain_run, banked_run = _check(kernels.sum4_plain, {"a": a}), _check(kernels.sum4_cyclic, {"a": a})
    assert plain_run.outputs == banked_run.outputs
    assert banked_run.cycles < plain_run.cycles


def test_static_banks_are_known_from_affine_indices():
    compiled = compile_kernel(kernels.halves_block)
    (loop,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    banks = sorted(op.attrs["bank"] for op in loop.body.ops if op.kind == "load" and op.attrs["array"] == "a")
    assert banks == [0, 1]          # a[i] in the first half, a[i + 32] in the second
    assert compiled.report.to_json()["loops"][0]["ii"] == 1
    a = _values(6, 64, -32768, 32767)
    result = _check(kernels.halves_block, {"a": a, "out": [0] * 32})
    assert result.outputs["arrays"]["out"] == [a[i] + a[i + 32] for i in range(32)]


@pytest.mark.parametrize("kernel", [kernels.dynamic_cyclic, kernels.dynamic_block])
@pytest.mark.parametrize("seed", range(3))
def test_dynamic_indices_read_every_bank_and_select(kernel, seed):
    compiled = compile_kernel(kernel)
    (loop,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    stores = [op for op in loop.body.ops if op.kind == "store" and op.attrs["array"] == "a"]
    assert sorted(op.attrs["bank"] for op in stores) == [0, 1, 2, 3]   # one per bank, predicated
    x = _values(10 + seed, 16, 0, 15)
    if seed == 0:
        x = [3] * 16                # every iteration the same element: forwarding through banks
    _check(kernel, {"a": _values(20 + seed, 16, -32768, 32767), "x": x, "n": 16 - seed})


def _select_depth(kernel) -> int:
    (loop,) = [node for node in compile_kernel(kernel).ir.nodes if isinstance(node, PipelinedLoop)]
    depth = {}
    for op in loop.body.ops:
        if op.kind == "select":
            depth[op.name] = 1 + max(depth.get(operand.name, 0) for operand in op.operands)
    return max(depth.values())


@pytest.mark.parametrize("seed", range(3))
def test_a_varying_bank_is_selected_by_a_tree_on_its_bank_bits(seed):
    # log2(banks) selects deep, not one per bank: synthesis maps a priority chain of 16 banks
    # to 8 LUT levels (ecg.bandpass_stream's critical path). Six banks pad to eight with the last.
    assert _select_depth(kernels.dynamic_cyclic) == 2
    assert _select_depth(kernels.complete_six) == 3
    _check(kernels.complete_six, {"a": _values(60 + seed, 6, -32768, 32767), "x": _values(70 + seed, 16, 0, 5),
                                  "n": 16 - 5 * seed})


@pytest.mark.parametrize("seed", range(3))
def test_completely_partitioned_parameter(seed):
    _check(kernels.complete_param, {"a": _values(30 + seed, 4, -128, 127), "x": _values(40 + seed, 16, 0, 3),
                                    "n": 16 - 5 * seed})


# -- local arrays ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 5, 32])
def test_local_arrays_as_memories(n):
    a = _values(50, 32, -32768, 32767)
    for kernel in (kernels.local_memory, kernels.local_cyclic):
        _check(kernel, {"a": a, "n": n})
    compiled = compile_kernel(kernels.local_cyclic)
    assert not any(port["name"].startswith("buf") for port in kernel_signature(compiled.ir).ports())
    second = [entry for entry in compiled.report.to_json()["loops"]][1]
    assert second["ii"] == 1            # two banks for buf[2i] and buf[2i + 1]


@pytest.mark.parametrize("n", [0, 3, 32])
def test_local_arrays_as_registers(n):
    a = _values(60, 32, -32768, 32767)
    _check(kernels.local_registers, {"a": a, "n": n})
    (loop,) = compile_kernel(kernels.local_registers).report.to_json()["loops"]
    assert loop["ii"] == 1              # a shift register of four taps, read without latency


def test_icarus_agrees_on_banked_ports():
    try:
        find_simulator("icarus")
    except ToolUnavailable as error:
        pytest.skip(str(error))
    args = {"a": _values(70, 16, -32768, 32767), "x": _values(71, 16, 0, 15), "n": 16}
    verilog_run = run(kernels.dynamic_cyclic, args, backend="icarus")
    amaranth_run = run(kernels.dynamic_cyclic, args)
    assert verilog_run.match, verilog_run.differences
    assert (verilog_run.outputs, verilog_run.cycles) == (amaranth_run.outputs, amaranth_run.cycles)


@pytest.mark.parametrize("seed", range(3))
def test_registers_with_dynamic_indices(seed):
    x = _values(80 + seed, 16, 0, 7) if seed else [5] * 16
    result = _check(kernels.register_scatter, {"x": x, "v": _values(90 + seed, 16, -128, 127),
                                               "out": [0] * 8, "n": 16 - seed})
    assert result.outputs["arrays"]["out"] == result.expected["arrays"]["out"]


ALL = [kernels.unroll_full, kernels.unroll_partial, kernels.unroll_partial_constant, kernels.unroll_nested,
       kernels.pipeline_unrolls_inner, kernels.sum4_cyclic, kernels.halves_block, kernels.dynamic_cyclic,
       kernels.dynamic_block, kernels.complete_param, kernels.local_memory, kernels.local_cyclic,
       kernels.local_registers, kernels.register_scatter]


def _arguments(kernel, seed):
    """Random arguments for any kernel of this file (indices in range)."""
    typed = analyze(kernel)
    generator = random.Random(seed)
    args = {}
    for param in typed.params:
        if param.kind == "scalar":
            args[param.name] = generator.randint(0, min(16, (1 << param.shape.width) - 1))
        else:
            low = 0 if not param.shape.signed else -(1 << (param.shape.width - 1))
            high = (1 << (param.shape.width - param.shape.signed)) - 1
            if param.name == "x":
                high = min(high, 3 if kernel is kernels.complete_param else high)
            args[param.name] = [generator.randint(low, high) for _ in range(param.depth)]
    return args


@pytest.mark.parametrize("kernel", ALL, ids=[kernel.name for kernel in ALL])
def test_sequential_hardware_matches_too(kernel):
    args = _arguments(kernel, 7)
    result = run(kernel, args, max_cycles=50_000, pipelining=False)
    assert result.match, result.differences


@pytest.mark.parametrize("n", [0, 1, 2, 4, 5, 7, 8, 64])
def test_partial_unroll_of_a_stepped_range(n):
    a = _values(100, 64, -32768, 32767)
    assert kernels.unroll_step(a=list(a), n=n) == sum(a[i] * i for i in range(1, n, 3))
    _check(kernels.unroll_step, {"a": a, "n": n})


@pytest.mark.parametrize("n", [0, 3, 5, 64])
def test_partial_unroll_over_cyclic_banks_runs_at_ii_one(n):
    loops = _loops(kernels.unroll_banked)
    assert [loops[name]["ii"] for name in sorted(loops)] == [1, 1]   # a[i0 + k] is in bank k
    a = _values(110, 64, -32768, 32767)
    plain = _check(kernels.unroll_partial, {"a": a, "b": [7] * 64, "n": n})
    banked = _check(kernels.unroll_banked, {"a": a, "b": [7] * 64, "n": n})
    assert banked.outputs == plain.outputs
    if n >= 8:      # the remainder's banks are dynamic (it starts at a run-time value): a cycle deeper
        assert banked.cycles < plain.cycles
