"""Overlapped inner runs (issue 11 §1): a nest that is not flattened starts the code after its inner
loop, and the next run, while the previous run drains, whenever hls.analysis.overlap proves it safe.

The hardware matches the Python run bit for bit with and without the overlap, the cycles saved are
exactly the overlap per run (computed from the schedule), the bound is tight where a dependence sets
it, and the report says which happened for each nest, and why."""

import random

import pytest

import hls.compiler
import overlap_kernels as kernels
from hls.analysis.overlap import Overlap
from hls.compiler import compile_kernel
from hls.ir import PipelinedLoop
from sim.kernel import run


def _values(rng, n, lo, hi, zeros=0.15):
    return [0 if rng.random() < zeros else rng.randint(lo, hi) for _ in range(n)]


CASES = {
    "scan": lambda r: {"a": _values(r, 64, -30000, 30000), "out": _values(r, 64, -9, 9), "w": r.randint(-32768, 32767)},
    "scan_from": lambda r: {"a": _values(r, 64, -300, 300), "start": [r.choice((0, 3, 7, 8, 15)) for _ in range(8)],
                            "out": [1] * 64, "w": r.randint(-99, 99)},
    "scan_break": lambda r: {"a": _values(r, 64, -3, 3, 0), "out": [1] * 64, "key": r.randint(-3, 3),
                             "w": r.randint(-99, 99)},
    "chained_rows": lambda r: {"a": _values(r, 64, -300, 300, 0.1), "out": _values(r, 64, -50, 50),
                               "w": r.randint(-99, 99)},
    "chained_break": lambda r: {"a": _values(r, 64, -99, 99, 0.2), "out": [0] * 64, "t": [r.randint(-9, 9), 4],
                                "w": r.randint(-9, 9)},
    "search_rows": lambda r: {"a": sorted(_values(r, 64, -30, 30)), "key": _values(r, 8, -30, 30), "out": [0] * 8},
    "scan_divide": lambda r: {"a": _values(r, 64, -32767, 32767), "out": [3] * 64,
                              "div": [r.choice((0, 1, -1, 7, -128, 127, r.randint(-99, 99))) for _ in range(8)]},
    "nest_in_while": lambda r: {"a": _values(r, 64, -999, 999), "out": [0] * 64, "n": r.randint(0, 7),
                                "w": r.randint(-99, 99)},
    "sum_until_zero": lambda r: {"a": _values(r, 64, -300, 300), "out": [1] * 8, "w": r.randint(-99, 99)},
    "two_inner_loops": lambda r: {"a": _values(r, 64, -300, 300), "out": [1] * 64, "w": r.randint(-99, 99)},
    "outer_while": lambda r: {"a": _values(r, 64, -300, 300), "out": [1] * 64, "n": r.randint(0, 8),
                              "w": r.randint(-99, 99)},
    "sequential_outer": lambda r: {"a": _values(r, 64, -300, 300), "out": [1] * 64, "w": r.randint(-99, 99)},
}

#: Edge cases: every inner run empty, none stopping early, the outer loop not running.
EDGES = {
    "scan": [{"a": [0] * 64}, {"a": [7] * 64}, {"a": [32767] * 64, "w": -32768}],
    "scan_from": [{"start": [8] * 8}, {"start": [15, 0] * 4, "a": [5] * 64}],
    "scan_break": [{"a": [1] * 64, "key": 1}, {"a": [2] * 64, "key": 1}],
    "chained_rows": [{"a": [3] * 64}, {"a": [0] * 64}],
    "chained_break": [{"a": [0] * 64}, {"a": [5] * 64}],
    "outer_while": [{"n": 0}, {"n": 8, "a": [0] * 64}, {"n": 8, "a": [9] * 64}],
    "search_rows": [{"key": [-99] * 8}, {"key": [99] * 8}],
    "sum_until_zero": [{"a": [0] * 64}, {"a": [5] * 64}],
    "nest_in_while": [{"n": 0}, {"n": 7}],
}

#: Kernels whose inner runs the analysis overlaps.
OVERLAPPED = ("scan", "scan_from", "scan_break", "chained_rows", "chained_break", "search_rows",
              "two_inner_loops", "outer_while", "scan_divide")


def _cases(name, count, seed=7):
    rng = random.Random(f"{name}-{seed}")
    cases = [CASES[name](rng) for _ in range(count)]
    cases += [{**CASES[name](rng), **edge} for edge in EDGES.get(name, [])]
    return cases


def _inner(compiled):
    return [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_hardware_matches_python_with_and_without_the_overlap(name):
    kernel = getattr(kernels, name)
    for args in _cases(name, 3):
        overlapped = run(kernel, args, max_cycles=20_000)
        drained = run(kernel, args, max_cycles=20_000, overlap=False)
        assert overlapped.match, (args, overlapped.differences)
        assert drained.match, (args, drained.differences)
        assert overlapped.cycles <= drained.cycles


@pytest.mark.parametrize("name", OVERLAPPED)
def test_the_report_says_the_runs_overlap(name):
    report = compile_kernel(getattr(kernels, name)).report
    entries = [loop for loop in report.to_json()["loops"] if loop["pipelined"]]
    assert entries and all(loop["flattened"] == [] for loop in entries)
    assert any(loop["nest"] == "inner runs overlapped" and loop["overlap_cycles"] > 0 for loop in entries)
    assert "inner runs overlapped: each run passes control on" in report.to_text()
    # What stops the overlap at that many cycles is said, in the JSON and the text.
    for loop in entries:
        if loop["overlap_cycles"] and loop["overlap_reason"]:
            assert f"no more because {loop['overlap_reason']}" in report.to_text()


def test_the_report_says_what_limits_an_overlap():
    report = compile_kernel(kernels.chained_rows).report
    (entry,) = [loop for loop in report.to_json()["loops"] if loop["pipelined"]]
    assert 0 < entry["overlap_cycles"] < entry["depth"] - 1
    assert "line " in entry["overlap_reason"]
    assert f"no more because {entry['overlap_reason']}" in report.to_text()


def _exit_cap(compiled, node):
    """depth - 1 - the cycle of the latest exit: after it, no squash can reach the next run."""
    scheduled = compiled.schedule_of(node.body)
    exits = [scheduled.start[op.name] for op in node.body.ops if op.kind == "exit"]
    return scheduled.length - 1 - max(exits + [0])


@pytest.mark.parametrize("name", ("scan", "scan_from", "scan_break"))
def test_the_overlap_is_the_drain_after_the_exit_and_saves_it_on_every_run(name):
    # Each run passes control on once its exit has resolved: the multiply and the store of the last
    # iterations (cycles 2 to 4 of 5) drain while the latch and the next row's prefix run. Every
    # run but the last saves that; the last saves what the latch's cycle covers before the kernel's
    # done, which waits for the drain.
    kernel = getattr(kernels, name)
    compiled = compile_kernel(kernel)
    (node,) = _inner(compiled)
    overlap = compiled.overlaps[node.name].cycles
    assert overlap == _exit_cap(compiled, node) == 3
    outer = next(info for info in compiled.ir.loops if info.depth == 0)
    latch = compiled.schedule_of(outer.latch).length
    for args in _cases(name, 2):
        saved = run(kernel, args, overlap=False).cycles - run(kernel, args).cycles
        assert saved == overlap * 7 + min(overlap, latch)


def _forced(monkeypatch, more):
    """Compile with ``more`` cycles of overlap than the analysis allows."""
    analysed = hls.compiler.overlap_runs

    def forced(ir, schedule_of, enabled=True):
        return {name: Overlap(found.cycles + more) for name, found in analysed(ir, schedule_of).items()}

    monkeypatch.setattr(hls.compiler, "overlap_runs", forced)


def test_two_runs_share_the_pipeline_of_a_deep_inner_loop():
    # scan_divide: the divider drains for 12 cycles after the exit resolves; the latch and the
    # prefix take 2, so the next run's first iterations issue while the previous run's last ones
    # are still in the divider (for 9 cycles), and each run but the last saves all 12.
    kernel = kernels.scan_divide
    compiled = compile_kernel(kernel)
    (node,) = _inner(compiled)
    overlap = compiled.overlaps[node.name].cycles
    assert overlap == _exit_cap(compiled, node) and overlap > 3
    for args in _cases("scan_divide", 2):
        saved = run(kernel, args, overlap=False).cycles - run(kernel, args).cycles
        assert saved == overlap * 7 + 1


def test_a_prefix_reading_what_the_last_iterations_store_limits_the_overlap(monkeypatch):
    # chained_rows: the next row's prefix reads out[base - 1] one cycle after the run passes control
    # on. The exiting iteration (its while condition false) stores nothing; the one before it stores
    # in cycle 4 of 5, II = 1 stage further on: two cycles of overlap, not the three the exit allows.
    kernel = kernels.chained_rows
    compiled = compile_kernel(kernel)
    (node,) = _inner(compiled)
    overlap = compiled.overlaps[node.name]
    assert overlap.cycles == 2 < _exit_cap(compiled, node)
    assert "reads `out`" in overlap.reason and "still write `out`" in overlap.reason
    assert "in the iteration before the exiting one" in overlap.reason
    cases = _cases("chained_rows", 3) + [{"a": [3] * 64, "out": list(range(64)), "w": 2}]
    for args in cases:
        saved = run(kernel, args, overlap=False).cycles - run(kernel, args).cycles
        assert saved == 2 * 7 + min(2, 1)
    _forced(monkeypatch, 1)
    assert not all(run(kernel, args).match for args in cases)


def test_the_bound_set_by_a_store_before_a_break_is_tight(monkeypatch):
    # chained_break's breaking iteration itself stores t[0] in its last cycle (the store comes
    # before the break) and the next prefix reads it: the analysis allows one cycle; forcing two
    # gives wrong results, so the rule is what keeps it right.
    kernel = kernels.chained_break
    compiled = compile_kernel(kernel)
    (node,) = _inner(compiled)
    assert compiled.overlaps[node.name].cycles == 1
    cases = _cases("chained_break", 4)
    assert all(run(kernel, args).match for args in cases)
    _forced(monkeypatch, 1)
    assert compile_kernel(kernel).overlaps[node.name].cycles == 2
    assert not all(run(kernel, args).match for args in cases)


def test_a_binary_search_per_row_overlaps_by_one_cycle():
    # Its result is stored right after the run, but the exiting iteration commits nothing and the
    # one before it (II = 2 stages further) committed lo in time.
    compiled = compile_kernel(kernels.search_rows)
    (node,) = _inner(compiled)
    assert compiled.overlaps[node.name].cycles == 1
    for args in _cases("search_rows", 2):
        saved = run(kernels.search_rows, args, overlap=False).cycles - run(kernels.search_rows, args).cycles
        assert saved == 8


def test_two_inner_loops_each_overlap_what_follows():
    # The first loop's sum is read by the second loop's first iteration; the second loop's runs
    # overlap the latch and the next first loop.
    compiled = compile_kernel(kernels.two_inner_loops)
    first, second = _inner(compiled)
    e1, e2 = compiled.overlaps[first.name].cycles, compiled.overlaps[second.name].cycles
    assert e1 >= 1 and e2 >= 1
    for args in _cases("two_inner_loops", 2):
        saved = run(kernels.two_inner_loops, args, overlap=False).cycles - run(kernels.two_inner_loops, args).cycles
        assert saved == e1 * 8 + e2 * 7 + min(e2, 1)


def test_a_live_out_consumed_at_once_keeps_the_runs_sequential():
    compiled = compile_kernel(kernels.sum_until_zero)
    (entry,) = [loop for loop in compiled.report.to_json()["loops"] if loop["pipelined"]]
    assert entry["overlap_cycles"] == 0
    assert entry["nest"].startswith("inner runs sequential: line ")
    assert "reads `s` in the cycle the loop passes control on, while its last iterations still write `s`" \
        in entry["nest"]
    assert entry["nest"] in compiled.report.to_text()
    assert entry["nest"] == f"inner runs sequential: {entry['overlap_reason']}"
    args = _cases("sum_until_zero", 1)[0]
    assert run(kernels.sum_until_zero, args).cycles == run(kernels.sum_until_zero, args, overlap=False).cycles


def test_hls_sequential_on_the_outer_loop_keeps_the_runs_sequential():
    report = compile_kernel(kernels.sequential_outer).report.to_json()
    outer, inner = report["loops"]
    assert outer["nest"] is None and outer["reason"] == "hls.sequential"
    assert inner["nest"] == f"inner runs sequential: the outer loop on line {outer['line']} is hls.sequential"


def test_an_exit_in_the_last_cycle_keeps_the_runs_sequential():
    # insertion_sort's inner while decides in cycle 2 of 3: nothing drains after it.
    from benchmarks.kernels import load
    kernel, _ = load("insertion_sort")
    (entry,) = [loop for loop in compile_kernel(kernel).report.to_json()["loops"] if loop["pipelined"]]
    assert entry["nest"].startswith("inner runs sequential: the exit on line ")
    assert "resolves in cycle 2 of the iteration's 3" in entry["nest"]


def test_the_nest_key_of_flattened_and_single_loops():
    from benchmarks.kernels import load
    (flat,) = compile_kernel(load("matvec")[0]).report.to_json()["loops"]
    assert flat["nest"] == "flattened" and "overlap_cycles" not in flat
    (single,) = compile_kernel(load("vsum")[0]).report.to_json()["loops"]
    assert single["nest"] is None


def test_overlap_false_is_the_drained_baseline():
    compiled = compile_kernel(kernels.scan, overlap=False)
    (entry,) = [loop for loop in compiled.report.to_json()["loops"] if loop["pipelined"]]
    assert entry["overlap_cycles"] == 0
    assert entry["nest"] == "inner runs sequential: overlap turned off for this compilation"


def test_the_kernels_done_waits_for_the_last_drain():
    # The last row's stores come after control reaches the kernel's end; done must wait for them.
    kernel = kernels.scan
    args = {"a": [7] * 64, "out": [0] * 64, "w": 3}
    result = run(kernel, args)
    assert result.match and result.outputs["arrays"]["out"] == [21] * 64


def test_a_flattened_nest_inside_a_while_overlaps_its_runs():
    # The i x j nest is one pipelined loop, run once per iteration of the while around it.
    compiled = compile_kernel(kernels.nest_in_while)
    (entry,) = [loop for loop in compiled.report.to_json()["loops"] if loop["pipelined"]]
    assert entry["nest"] == "flattened" and len(entry["flattened"]) == 2
    assert entry["overlap_cycles"] == entry["depth"] - 1
    assert "inner runs overlapped: each run passes control on" in compiled.report.to_text()
    args = {**_cases("nest_in_while", 1)[0], "n": 7}
    saved = run(kernels.nest_in_while, args, overlap=False).cycles - run(kernels.nest_in_while, args).cycles
    # Seven runs: six save the overlap; after the last, `k = k + 1` and the while's test (a cycle
    # each) come before the kernel's end, which waits for the drain.
    assert saved == entry["overlap_cycles"] * 6 + min(entry["overlap_cycles"], 2)
