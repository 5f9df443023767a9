"""Flattened loop nests (issue 11): the rewrite keeps Python's meaning, the hardware matches the
Python run bit for bit, and the report names the nest as one pipelined loop."""

import ast
import copy
import random

import pytest

import flatten_kernels as kernels
from hls.compiler import compile_kernel
from hls.frontend.flatten import flatten_nests
from hls.frontend.golden import GoldenModel
from benchmarks.kernels import load
from sim.kernel import run
from sim_helpers import require_simulator


def _values(rng, n, lo, hi):
    return [rng.randint(lo, hi) for _ in range(n)]


def _ptr(rng):
    """CSR row bounds with empty rows, runs of empty rows and a last row that ends at 32."""
    counts = [rng.choice((0, 0, 1, 3, 4)) for _ in range(8)]
    ptr = [0]
    for count in counts:
        ptr.append(min(32, ptr[-1] + count))
    return ptr


CASES = {
    "perfect": lambda r: {"a": _values(r, 64, -128, 127), "out": [0] * 64},
    "imperfect": lambda r: {"a": _values(r, 64, -128, 127), "out": [5] * 8, "rows": r.randint(0, 8),
                            "cols": r.choice((0, 1, r.randint(0, 8)))},
    "triangular": lambda r: {"a": _values(r, 64, -128, 127), "out": [3] * 8, "n": r.randint(0, 8)},
    "bounds_from_memory": lambda r: {"ptr": _ptr(r), "val": _values(r, 32, -128, 127), "out": [7] * 8,
                                     "rows": r.randint(0, 8)},
    "inner_break": lambda r: {"a": _values(r, 64, 0, 15), "out": [1] * 8, "key": r.randint(0, 15),
                              "rows": r.randint(0, 8)},
    "inner_continue": lambda r: {"a": _values(r, 64, -128, 127), "out": [0] * 8, "rows": r.randint(0, 8)},
    "row_dependence": lambda r: {"x": _values(r, 8, -99, 99), "lower": _values(r, 64, -8, 7),
                                 "b": _values(r, 8, -128, 127), "n": r.randint(0, 8)},
    "rows_in_place": lambda r: {"a": _values(r, 64, -999, 999), "n": r.randint(0, 8), "m": r.randint(0, 8)},
    "three_levels": lambda r: {"a": _values(r, 64, -128, 127), "out": [0] * 16, "n": r.randint(0, 7),
                               "m": r.randint(0, 7)},
    "steps": lambda r: {"a": _values(r, 32, -128, 127), "out": [0] * 16, "n": r.randint(0, 31)},
    "outer_break": lambda r: {"a": _values(r, 64, -128, 127), "rows": r.randint(0, 8)},
    "sequential_outer": lambda r: {"a": _values(r, 64, -128, 127), "out": [0] * 8},
    "inner_while": lambda r: {"a": _values(r, 64, 0, 3), "out": [0] * 8},
    "continue_between": lambda r: {"a": _values(r, 64, -128, 127), "out": [2] * 8, "rows": r.randint(0, 8)},
    "inner_under_if": lambda r: {"ptr": _ptr(r), "val": _values(r, 32, -128, 127), "out": [7] * 8,
                                 "rows": r.randint(0, 12), "skip": r.randint(0, 7)},
    "inner_target_ii": lambda r: {"a": _values(r, 64, -128, 127), "out": [0] * 8},
    "first_match_per_row": lambda r: {"a": _values(r, 64, 0, 7), "out": [15] * 8, "key": r.randint(0, 7),
                                      "rows": r.randint(0, 8), "n": r.randint(0, 8)},
    "break_in_three_levels": lambda r: {"a": _values(r, 64, 0, 7), "out": [9] * 16, "key": r.randint(0, 7),
                                        "rows": r.randint(0, 4), "n": r.randint(0, 8)},
    "nest_in_sequential_and_if": lambda r: {"a": _values(r, 64, -128, 127), "out": _values(r, 8, -99, 99),
                                            "rows": r.randint(0, 8), "mode": r.randint(0, 1)},
}

#: Kernels whose nest the compiler flattens into one pipelined loop.
FLATTENED = ("perfect", "imperfect", "triangular", "bounds_from_memory", "inner_break", "inner_continue",
             "row_dependence", "rows_in_place", "three_levels", "steps", "outer_break", "continue_between",
             "inner_under_if", "first_match_per_row", "break_in_three_levels")

#: The edge cases every kernel with those parameters meets: no outer iteration, empty inner runs.
EDGES = {
    "imperfect": [{"rows": 0, "cols": 5}, {"rows": 8, "cols": 0}, {"rows": 1, "cols": 1}, {"rows": 8, "cols": 8}],
    "triangular": [{"n": 0}, {"n": 1}, {"n": 8}],
    "bounds_from_memory": [{"ptr": [0] * 9, "rows": 8}, {"ptr": [0, 0, 0, 4, 4, 4, 9, 9, 9], "rows": 8},
                           {"ptr": [0, 4, 8, 12, 16, 20, 24, 28, 32], "rows": 8}],
    "inner_break": [{"a": [0] * 64, "key": 0, "rows": 8}, {"a": [1] * 64, "key": 0, "rows": 8},
                    {"a": [(i * 5) % 16 for i in range(64)], "key": 7, "rows": 8}],
    "row_dependence": [{"n": 8}, {"n": 1}],
    "rows_in_place": [{"n": 8, "m": 8}, {"n": 8, "m": 1}, {"n": 1, "m": 8}, {"n": 0, "m": 8}],
    "three_levels": [{"n": 7, "m": 7}, {"n": 7, "m": 0}, {"n": 3, "m": 1}],
    "steps": [{"n": 31}, {"n": 2}, {"n": 3}],
    # A match in the first, a middle and the last column, none, every row at once; empty rows.
    "first_match_per_row": [{"a": [(i * 5) % 8 for i in range(64)], "key": 3, "rows": 8, "n": 8},
                            {"a": [1] * 64, "key": 1, "rows": 8, "n": 8}, {"a": [1] * 64, "key": 2, "rows": 8, "n": 8},
                            {"a": ([0] * 7 + [5]) * 8, "key": 5, "rows": 8, "n": 8},
                            {"a": ([0] * 7 + [5]) * 8, "key": 5, "rows": 8, "n": 7},
                            {"rows": 0}, {"rows": 8, "n": 0}, {"rows": 8, "n": 1}],
    "break_in_three_levels": [{"a": [1] * 64, "key": 1, "rows": 4, "n": 8}, {"rows": 4, "n": 0},
                              {"a": ([0] * 7 + [5]) * 8, "key": 5, "rows": 4, "n": 8}],
    "outer_break": [{"a": [5] * 24 + [-128] + [5] * 39, "rows": 8}, {"a": [-128] * 64, "rows": 8}],
}


def _cases(name, count, seed=11):
    rng = random.Random(f"{name}-{seed}")
    cases = [CASES[name](rng) for _ in range(count)]
    for edge in EDGES.get(name, []):
        cases.append({**CASES[name](rng), **edge})
    return cases


def _for_lines(kernel):
    return [node.lineno for node in ast.walk(kernel.tree) if isinstance(node, ast.For)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_rewrite_keeps_the_python_meaning(name):
    # The flattened body, run as Python by the golden model, against the user's own nest.
    kernel = getattr(kernels, name)
    typed = kernel.analyze()
    original, flattened = GoldenModel(typed), GoldenModel(flatten_nests(typed))
    for args in _cases(name, 60):
        want = original.run(original.bind((), copy.deepcopy(args)))
        got = flattened.run(flattened.bind((), copy.deepcopy(args)))
        assert got == want, args


@pytest.mark.parametrize("name", sorted(CASES))
def test_hardware_matches_python(name):
    kernel = getattr(kernels, name)
    for args in _cases(name, 3):
        result = run(kernel, args, max_cycles=20_000)
        assert result.match, (args, result.differences)


@pytest.mark.parametrize("name", FLATTENED)
def test_the_nest_is_one_pipelined_loop_at_its_mii(name):
    kernel = getattr(kernels, name)
    report = compile_kernel(kernel).report.to_json()
    (loop,) = report["loops"]
    assert loop["pipelined"] and loop["flattened"] == _for_lines(kernel)
    assert loop["line"] == _for_lines(kernel)[0]
    assert loop["ii"] == loop["mii"]


@pytest.mark.parametrize("name", ("perfect", "imperfect", "triangular", "bounds_from_memory", "inner_continue",
                                  "steps"))
def test_simple_nests_reach_ii_one(name):
    # Bounds read from memory are fetched one outer iteration ahead, so they reach II 1 too.
    report = compile_kernel(getattr(kernels, name)).report.to_json()
    assert report["loops"][0]["ii"] == 1


def test_report_names_the_nest_and_explains_in_source_lines():
    kernel = kernels.imperfect
    outer, inner = _for_lines(kernel)
    text = compile_kernel(kernel).report.to_text()
    assert f"loops {outer} x {inner} flattened: II = 1 (MII 1:" in text
    assert "runs on the first or last inner iteration" in text
    assert "II bounded by recurrence" in text and "s = s + a[i * 8 + j]" in text
    three = compile_kernel(kernels.three_levels).report.to_text()
    assert "loops {} x {} x {} flattened".format(*_for_lines(kernels.three_levels)) in three


def test_a_perfect_nest_runs_in_the_cycles_of_one_loop():
    kernel = kernels.perfect
    compiled = compile_kernel(kernel)
    loop = compiled.report.to_json()["loops"][0]
    result = run(kernel, _cases("perfect", 1)[0])
    assert result.match
    assert result.cycles <= (64 - 1) * loop["ii"] + loop["depth"] + 8


def test_hls_sequential_keeps_the_outer_loop_sequential():
    report = compile_kernel(kernels.sequential_outer).report.to_json()
    outer, inner = report["loops"]
    assert not outer["pipelined"] and outer["reason"] == "hls.sequential" and outer["flattened"] == []
    assert inner["pipelined"] and inner["flattened"] == []


def test_an_inner_while_is_not_flattened_and_the_report_says_why():
    compiled = compile_kernel(kernels.inner_while)
    outer, inner = compiled.report.to_json()["loops"]
    assert not outer["pipelined"] and inner["pipelined"]
    assert "not flattened: the inner loop on line" in outer["reason"]
    assert "is a while loop" in outer["reason"]
    assert "not flattened" in compiled.report.to_text()


def test_flattening_leaves_the_golden_model_and_the_sequential_baseline_alone():
    kernel = kernels.imperfect
    typed = kernel.analyze()
    assert not any(isinstance(node, ast.While) for stmt in typed.body for node in ast.walk(stmt))
    flattened = flatten_nests(typed)
    assert typed.body is not flattened.body and all(not pragma.flattened for pragma in typed.loops.values())
    args = _cases("imperfect", 1)[0]
    assert run(kernel, args, pipelining=False).match


def test_nests_inside_a_sequential_loop_an_if_and_a_helper_are_flattened():
    loops = compile_kernel(kernels.nest_in_sequential_and_if).report.to_json()["loops"]
    (sequential,) = [loop for loop in loops if not loop["pipelined"]]
    assert sequential["reason"] == "hls.sequential"
    nests = [loop for loop in loops if loop["pipelined"]]
    assert len(nests) == 2 and all(len(nest["flattened"]) == 2 for nest in nests)


def test_a_target_ii_on_the_inner_loop_is_the_flattened_loops():
    kernel = kernels.inner_target_ii
    (loop,) = compile_kernel(kernel).report.to_json()["loops"]
    assert loop["flattened"] == _for_lines(kernel) and loop["target_ii"] == 2 and loop["ii"] == 2
    rng = random.Random(5)
    args = {"a": _values(rng, 64, -128, 127), "out": [0] * 8}
    result = run(kernel, args)
    assert result.match and result.cycles <= (64 - 1) * 2 + loop["depth"] + 8


def test_the_report_says_why_a_nest_is_not_flattened():
    loops = compile_kernel(kernels.not_flattened).report.to_json()["loops"]
    reasons = [loop["reason"] for loop in loops if not loop["pipelined"] and loop["reason"] != "hls.sequential"]
    assert len(reasons) == 3 and all("not flattened" in reason for reason in reasons)
    assert "several loops one after another" in reasons[0]
    assert "is hls.sequential" in reasons[1]
    assert "inside an if" in reasons[2] and "an else" in reasons[2]
    # Their inner loops (but the hls.sequential one) are still pipelined, one run after another.
    assert sum(loop["pipelined"] for loop in loops) == 3 and not any(loop["flattened"] for loop in loops)
    rng = random.Random(3)
    result = run(kernels.not_flattened, {"a": _values(rng, 64, -128, 127), "out": [0] * 8, "n": 6})
    assert result.match


#: (flattened nest, the single loop with its body over the same n * 8 iterations)
EQUIVALENT = [("rows_of_eight", "one_loop_of_rows"), ("rows_at_ii_eight", "one_loop_at_ii_eight"),
              ("deep_rows", "one_deep_loop")]


@pytest.mark.parametrize("nest, single", EQUIVALENT)
def test_a_flattened_nest_takes_the_cycles_of_the_single_loop(nest, single):
    # Issue 20: the flattened loop tested its condition at the top, so it ran one more iteration
    # (a whole II) that only failed it. Rotated, its last iteration ends it.
    nest_kernel, single_kernel = getattr(kernels, nest), getattr(kernels, single)
    (nest_loop,) = compile_kernel(nest_kernel).report.to_json()["loops"]
    (single_loop,) = compile_kernel(single_kernel).report.to_json()["loops"]
    assert nest_loop["flattened"] and (nest_loop["ii"], nest_loop["depth"]) == (single_loop["ii"], single_loop["depth"])
    rng = random.Random(nest)
    args = {"a": _values(rng, 64, -128, 127), "out": [0] * 64}
    for n in (1, 3, 8):
        nested, flat = run(nest_kernel, {**args, "n": n}), run(single_kernel, {**args, "n": n})
        assert nested.match and flat.match and nested.outputs == flat.outputs
        assert nested.cycles == flat.cycles, n
        assert nested.cycles <= (n * 8 - 1) * nest_loop["ii"] + nest_loop["depth"] + 8
    # No outer iteration: the nest's entry test skips the loop, without starting it.
    nested, flat = run(nest_kernel, {**args, "n": 0}), run(single_kernel, {**args, "n": 0})
    assert nested.match and nested.cycles <= flat.cycles


def test_an_imperfect_nest_costs_one_iteration_per_inner_iteration_or_empty_run():
    # Every iteration of the flattened loop costs one II and nothing else: an inner run of c
    # iterations costs c, an empty one 1 (for the code around the inner loop), the end nothing.
    (loop,) = compile_kernel(kernels.imperfect).report.to_json()["loops"]
    assert loop["ii"] == 1
    rng = random.Random(20)
    one = run(kernels.imperfect, {**CASES["imperfect"](rng), "rows": 1, "cols": 1})
    assert one.match
    for rows, cols in ((1, 0), (8, 0), (3, 5), (8, 8), (5, 1), (2, 7)):
        args = {**CASES["imperfect"](rng), "rows": rows, "cols": cols}
        result = run(kernels.imperfect, args)
        assert result.match, (rows, cols)
        iterations = rows * max(1, cols)
        assert result.cycles - one.cycles == (iterations - 1) * loop["ii"], (rows, cols)


#: Nests with an inner break, and the II each reaches: first_match_per_row 1; inner_break's two
#: stores of `out` share one write port (ResMII 2; the one after the inner loop runs in the last
#: iteration of each `i`, so no memory recurrence joins them); in three levels the address waits for three
#: levels of row choices, which with the read and the compare take three cycles at distance 2.
BREAK_IIS = {"first_match_per_row": 1, "inner_break": 2, "break_in_three_levels": 2}


@pytest.mark.parametrize("name", sorted(BREAK_IIS))
def test_an_inner_break_speculates_and_reaches_the_ii_of_its_own_recurrence(name):
    # Issue 20: the iteration after a break is issued before the break resolves and only ends the
    # row, so the row choice waits for the break of the iteration before last: a distance-2
    # recurrence through the read and the compare (it was distance 1: II 2 for first_match_per_row).
    (loop,) = compile_kernel(getattr(kernels, name)).report.to_json()["loops"]
    assert loop["flattened"] and loop["ii"] == loop["mii"] == BREAK_IIS[name]
    if name == "inner_break":
        assert loop["bound"]["kind"] == "resource" and "write port of `out`" in loop["bound"]["detail"]
        assert loop["rec_mii"] == 1
    else:
        assert "at distance 2" in loop["bound"]["detail"]


def test_a_break_costs_its_row_one_iteration():
    # Every row that breaks before its last column takes one more iteration (squashed), the rest
    # none: the nest's cycles are those of a single loop over that many iterations.
    kernel = kernels.first_match_per_row
    (loop,) = compile_kernel(kernel).report.to_json()["loops"]
    none = {"a": [1] * 64, "out": [15] * 8, "key": 2, "rows": 8, "n": 8}
    base = run(kernel, none)
    assert base.match
    for matches in ([0] * 8, [3, 7, 5, 0, 1, 2, 6, 4], [7] * 8, [None, 2] * 4):
        a = [1] * 64
        for r, at in enumerate(matches):
            if at is not None:
                a[r * 8 + at] = 2
        result = run(kernel, {**none, "a": a})
        assert result.match, matches
        iterations = sum(8 if at is None else at + 1 + (at < 7) for at in matches)
        assert result.cycles - base.cycles == (iterations - 64) * loop["ii"], matches


@pytest.mark.cocotb
@pytest.mark.parametrize("name", ("first_match_per_row", "break_in_three_levels"))
def test_an_inner_break_in_icarus_matches_python(name):
    require_simulator("icarus")
    kernel = getattr(kernels, name)
    for args in _cases(name, 1):
        amaranth, icarus = run(kernel, args), run(kernel, args, backend="icarus")
        assert icarus.match, (args, icarus.differences)
        assert (icarus.outputs, icarus.cycles) == (amaranth.outputs, amaranth.cycles)


def test_row_bounds_read_into_variables_are_fetched_ahead():
    # Issue 20: `lo = row[i]; hi = row[i + 1]; for k in range(lo, hi)` (benchmark csr_rows) had
    # II 3, a recurrence through the read port both reads share. The bounds are now fetched one
    # outer iteration ahead, read once, and the variables keep their values (count[i] = hi - lo).
    kernel, examples = load("csr_rows")
    (loop,) = compile_kernel(kernel).report.to_json()["loops"]
    assert loop["flattened"] and loop["ii"] == loop["mii"] == 1
    typed = kernel.analyze()
    original, flattened = GoldenModel(typed), GoldenModel(flatten_nests(typed))
    rng = random.Random(20)
    edges = [{"row": [0] * 9}, {"row": [0, 0, 0, 4, 4, 4, 9, 9, 9]}, {"row": list(range(0, 72, 8))},
             {"rows": 0}, {"rows": 1}]
    for index, args in enumerate(examples + [{**examples[0], **edge} for edge in edges]):
        want = original.run(original.bind((), copy.deepcopy(args)))
        assert flattened.run(flattened.bind((), copy.deepcopy(args))) == want, args
        if index >= len(examples) - 2:
            assert run(kernel, args).match, args
