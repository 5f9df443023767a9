"""Issue 11's scheduler refinements: each pattern reaches the II it needs, and the hardware
still equals the Python run, squashed iterations and zero trips included."""

import random

import pytest

import refinement_kernels as kernels
from hls.compiler import compile_kernel
from hls.ir import PipelinedLoop
from sim.kernel import run
from sim.errors import ToolUnavailable
from sim.tools import find_simulator


def _loop(kernel):
    (loop,) = [entry for entry in kernel.report().to_json()["loops"] if entry["pipelined"]]
    return loop


def _body(kernel):
    compiled = compile_kernel(kernel)
    (node,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    return compiled.schedule_of(node.body), node.body


def _loads(body, array):
    return [op for op in body.ops if op.kind == "load" and op.attrs["array"] == array]


# -- 1. reads speculated ahead of the conditions that guard them ------------------------------

def test_binary_search_read_does_not_wait_for_the_loop_condition():
    loop = _loop(kernels.binary_search)
    assert kernels.binary_search.target.clock_mhz == 100
    assert (loop["ii"], loop["mii"]) == (1, 1)
    schedule, body = _body(kernels.binary_search)
    (load,) = _loads(body, "a")
    assert load.predicate is not None                       # it is under `lo < hi` ...
    assert load.name in schedule.problem.speculated         # ... but requests the port anyway
    into_load = {dep.src for dep in schedule.problem.problem.dependences if dep.dst == load.name}
    assert load.predicate.name not in into_load


SORTED = sorted(random.Random(11).randrange(-1000, 1000) for _ in range(64))


@pytest.mark.parametrize("n, key", [
    (0, 5),                     # zero trip: the condition fails at once
    (1, -2000), (1, 2000),      # one element, below and above it
    (64, SORTED[0]), (64, SORTED[63]), (64, SORTED[40]), (64, SORTED[40] + 1),
    (64, 3000), (64, -3000),    # past either end
    (37, SORTED[20]),           # a prefix only
])
def test_binary_search_matches_python(n, key):
    result = run(kernels.binary_search, {"a": SORTED, "n": n, "key": key})
    assert result.match, result.differences


def test_binary_search_with_duplicates_finds_the_first():
    a = [3] * 20 + [5] * 30 + [9] * 14
    for key in (3, 4, 5, 9, 10):
        result = run(kernels.binary_search, {"a": a, "n": 64, "key": key})
        assert result.match, result.differences
        if key in a:
            assert result.outputs["return"] == a.index(key)


def test_exclusive_reads_keep_their_predicates_to_share_the_port():
    # Speculating both reads of `a` would need two port slots; predicated, they share one.
    schedule, body = _body(kernels.pick)
    assert all(load.name not in schedule.problem.speculated for load in _loads(body, "a"))
    assert _loop(kernels.pick)["res_mii"] == 1
    rng = random.Random(5)
    for n in (0, 1, 32):
        args = {"a": [rng.randrange(-99, 99) for _ in range(32)], "b": [rng.randrange(-9, 9) for _ in range(32)],
                "n": n}
        assert run(kernels.pick, args).match


# -- 2. identical operations under different predicates computed once -------------------------

def test_swap_reads_the_array_twice():
    loop = _loop(kernels.bubble_pass)
    assert loop["res_mii"] == 2 and loop["ii"] == loop["mii"] == 2
    _schedule, body = _body(kernels.bubble_pass)
    assert len(_loads(body, "a")) == 2
    # `j + 1` in the branch is the `j + 1` of the condition, now needed unconditionally.
    adds = [op for op in body.ops if op.kind == "add"]
    assert len(adds) == 1 and adds[0].predicate is None


@pytest.mark.parametrize("n", [0, 1, 2, 5, 32])
def test_bubble_pass_and_sort_match_python(n):
    rng = random.Random(n)
    for a in ([rng.randrange(-50, 50) for _ in range(32)], list(range(32, 0, -1)), list(range(32))):
        for kernel in (kernels.bubble_pass, kernels.bubble_sort):
            result = run(kernel, {"a": list(a), "n": n})
            assert result.match, (kernel.name, result.differences)


def test_reads_are_not_merged_across_a_store_to_their_array():
    _schedule, body = _body(kernels.reread)
    assert len(_loads(body, "a")) == 2      # `a[i]` after `a[i] = 0` is read again
    rng = random.Random(7)
    args = {"a": [rng.randrange(-5, 5) for _ in range(32)], "out": [0] * 32, "n": 32}
    result = run(kernels.reread, args)
    assert result.match, result.differences


def test_a_read_after_a_store_in_one_branch_is_ordered_after_it():
    # `a[i]` after the `if` is the else branch's read (no store comes between them in program
    # order), now needed on both sides: it must still follow the then branch's store.
    _schedule, body = _body(kernels.store_then_read)
    (load,) = _loads(body, "a")
    assert load.predicate is None
    rng = random.Random(9)
    for n in (0, 1, 32):
        args = {"a": [rng.randrange(-99, 99) for _ in range(32)], "b": [rng.randrange(-9, 9) for _ in range(32)],
                "out": [0] * 32, "n": n}
        result = run(kernels.store_then_read, args)
        assert result.match, result.differences


# -- 3. carried values that a break makes dead ------------------------------------------------

def test_carry_past_break_takes_the_next_value_unconditionally():
    assert (_loop(kernels.skip_to_zero)["ii"], _loop(kernels.skip_nested)["ii"]) == (1, 1)


@pytest.mark.parametrize("n, i0, zeros", [
    (0, 3, []),         # zero trip: i is the start value
    (64, 0, [0]),       # breaks in the first iteration
    (64, 5, [5]),       # the first iteration again, from another start
    (64, 0, [40]),      # in the middle
    (10, 0, []),        # runs out
    (60, 3, [62]),      # the last iteration breaks
])
def test_skip_to_zero_matches_python(n, i0, zeros):
    a = [1 + (k % 7) for k in range(64)]
    for z in zeros:
        a[z] = 0
    result = run(kernels.skip_to_zero, {"a": a, "n": n, "i0": i0})
    assert result.match, result.differences


@pytest.mark.parametrize("seed", range(6))
def test_breaks_nested_and_mixed_with_continue_match_python(seed):
    rng = random.Random(seed)
    a = [rng.choice([-3, -2, -1, 1, 1, 2, 3, 0]) if rng.random() < 0.3 else rng.randrange(-3, 4) for _ in range(64)]
    a[-3:] = [0, 0, 0]
    if seed == 0:
        a[0] = 0                # breaks in the first iteration
    for n in (0, 1, 64):
        for kernel in (kernels.skip_nested, kernels.break_and_continue):
            result = run(kernel, {"a": a, "n": n})
            assert result.match, (kernel.name, n, result.differences)


# -- the emitted Verilog, under Icarus ---------------------------------------------------------

@pytest.mark.cocotb
@pytest.mark.parametrize("kernel, args", [
    (kernels.binary_search, {"a": SORTED, "n": 64, "key": SORTED[40] + 1}),
    (kernels.bubble_pass, {"a": list(range(32, 0, -1)), "n": 32}),
    (kernels.skip_to_zero, {"a": [1] * 20 + [0] + [1] * 43, "n": 64, "i0": 3}),
], ids=["binary_search", "bubble_pass", "skip_to_zero"])
def test_icarus_agrees_with_amaranth(kernel, args):
    try:
        find_simulator("icarus")
    except ToolUnavailable as error:
        pytest.skip(str(error))
    verilog_run, amaranth_run = run(kernel, args, backend="icarus"), run(kernel, args)
    assert verilog_run.match, verilog_run.differences
    assert (verilog_run.outputs, verilog_run.cycles) == (amaranth_run.outputs, amaranth_run.cycles)


@pytest.mark.parametrize("n", [0, 1, 2, 8])
def test_two_first_iteration_reads_of_one_array_take_turns(n):
    result = run(kernels.two_scalar_cells, {"a": [5, -7, 1, 2, 3, 4, 5, 6], "b": [1, -2, 3, -4, 5, -6, 7, -8], "n": n})
    assert result.match, result.differences
