"""The fuzzer's generator, golden runs and shrinker (the hardware side is in test_fuzz_differential.py)."""

import ast
import collections
import copy
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from sim import fuzz


def test_same_seed_same_program():
    for index in range(5):
        first, second = fuzz.generate(7, index), fuzz.generate(7, index)
        assert first.source == second.source and first.args == second.args


def test_different_seeds_differ():
    sources = {fuzz.generate(seed, 0).source for seed in range(20)}
    assert len(sources) == 20


def test_unknown_feature_is_rejected():
    with pytest.raises(ValueError, match=r"unknown fuzz feature\(s\) \['goto'\]"):
        fuzz.FuzzConfig(features=fuzz.FEATURES | {"goto"})


def test_programs_cover_the_language():
    """Over 100 programs, every construct the issue lists shows up."""
    seen = set()
    for index in range(100):
        tree = ast.parse(fuzz.generate(3, index).source)
        for node in ast.walk(tree):
            seen.add(type(node).__name__)
            if isinstance(node, ast.If) and node.orelse and isinstance(node.orelse[0], ast.If):
                seen.add("elif")
            if isinstance(node, ast.For) and any(isinstance(inner, ast.For) for inner in ast.walk(node)
                                                 if inner is not node):
                seen.add("nested for")
            if isinstance(node, ast.For) and "n)" in ast.unparse(node.iter):
                seen.add("run-time bound")
            if isinstance(node, ast.For) and "hls.pipeline" in ast.unparse(node.iter):
                seen.add("pipeline pragma")
            if isinstance(node, ast.Compare) and len(node.ops) == 2:
                seen.add("chained comparison")
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                seen.add("store")
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.BinOp) \
                    and any(isinstance(inner, ast.Subscript) for inner in ast.walk(node.slice)):
                seen.add("data-dependent index")
    for construct in ("If", "elif", "For", "nested for", "run-time bound", "While", "Break", "Continue",
                      "store", "data-dependent index", "FloorDiv", "Mod", "Mult", "LShift", "RShift",
                      "IfExp", "BoolOp", "Compare", "Invert", "USub", "AugAssign", "pipeline pragma",
                      "chained comparison"):
        assert construct in seen, construct


def test_generated_programs_run_in_python(tmp_path):
    """The front end accepts every program and its Python run finishes without error."""
    for index in range(60):
        program = fuzz.generate(11, index)
        value, arrays = fuzz.golden_run(program, tmp_path)
        assert (value is None) == program.is_chain       # a chain's results are its output streams
        assert all(len(arrays[name]) == len(program.args[name]) for name in arrays)


def test_feature_subset_is_respected():
    config = fuzz.FuzzConfig(features=frozenset({"if", "arrays", "for"}))
    for index in range(30):
        tree = ast.parse(fuzz.generate(5, index, config).source)
        kinds = {type(node) for node in ast.walk(tree)}
        assert not kinds & {ast.While, ast.Break, ast.Continue, ast.Mult, ast.FloorDiv, ast.Mod, ast.IfExp}


def _fake_runner(kernel, args, backend):
    """'Hardware' that gets every multiplication wrong: mismatch iff the source multiplies."""
    source = Path(kernel.filename).read_text()
    wrong = any(isinstance(node, ast.Mult) for node in ast.walk(ast.parse(source)))
    outputs = {"return": 0 if wrong else 1, "arrays": {}}
    return SimpleNamespace(match=not wrong, outputs=outputs, expected={"return": 1, "arrays": {}},
                           cycles=10)


def test_shrinker_reduces_to_the_failing_construct(tmp_path):
    program = next(p for p in (fuzz.generate(21, k) for k in range(100))
                   if p.statement_count > 12 and "*" in p.source)
    verdict = fuzz.check(program, runner=_fake_runner, directory=tmp_path)
    assert verdict.kind == "mismatch"
    small, small_verdict = fuzz.shrink(program, verdict,
                                       lambda p: fuzz.check(p, runner=_fake_runner, directory=tmp_path))
    assert small_verdict.kind == "mismatch"
    assert small.statement_count < program.statement_count
    body = fuzz._kernel_def(ast.parse(small.source), small.name).body
    # Only declarations (annotations, hls.local arrays), while-counter resets, the one statement
    # with the multiplication, and the return are left.
    doing = [s for s in body if not isinstance(s, (ast.AnnAssign, ast.Return)) and not fuzz._is_counter_step(s)
             and not fuzz._is_local_declaration(s)]
    assert len(doing) == 1 and "*" in ast.unparse(doing[0])
    assert all(value in (0, 1) or isinstance(value, list) for value in small.args.values())


def test_regression_file_is_a_test(tmp_path):
    program = fuzz.generate(4, 2)
    path = fuzz.write_regression(program, fuzz.Verdict("mismatch", "return: hardware 1, python 2"),
                                 tmp_path)
    assert path.name == "test_fuzz_4_2.py"
    tree = ast.parse(path.read_text())
    names = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert names == ["fuzz_4_2", "test_fuzz_4_2"]
    assert "return: hardware 1, python 2" in ast.get_docstring(tree)
    assert not list(tmp_path.glob(".*"))


def test_check_reports_rejected_programs(tmp_path):
    program = fuzz.generate(4, 0)
    broken = fuzz.Program(program.name, program.source.replace("    return", "    v0 = 1.5\n    return"),
                          program.args, 4, 0)
    verdict = fuzz.check(broken, runner=_fake_runner, directory=tmp_path)
    assert verdict.kind == "rejected" and "float" in verdict.detail.lower()


def _nests(tree):
    """``(outer, inner)`` pairs of ``for`` loops, the inner one directly in the outer's body."""
    for outer in ast.walk(tree):
        if isinstance(outer, ast.For):
            for inner in outer.body:
                if isinstance(inner, ast.For):
                    yield outer, inner


def test_programs_hold_the_nests_flattening_must_handle():
    """Over 100 programs: imperfect, triangular, run-time and array-read inner bounds (also read
    into variables first), and a break in an inner loop (also after recording a match), each at
    least a few times; about half the programs hold a nest."""
    seen = {"imperfect": 0, "triangular": 0, "run-time inner bound": 0, "row bounds": 0, "bounds in variables": 0,
            "inner break": 0, "first match": 0}
    programs_with_nest = 0
    for index in range(100):
        tree = ast.parse(fuzz.generate(4, index).source)
        pairs = list(_nests(tree))
        programs_with_nest += bool(pairs)
        for outer, inner in pairs:
            bounds = inner.iter.args
            if len(outer.body) > 1:
                seen["imperfect"] += 1
            if any(isinstance(node, ast.Name) and node.id == outer.target.id for b in bounds for node in ast.walk(b)):
                seen["triangular" if not any(isinstance(b, ast.BinOp) and isinstance(b.left, ast.Subscript)
                                             for b in bounds) else "row bounds"] += 1
            assigned = {target.id for statement in outer.body if isinstance(statement, ast.Assign)
                        for target in statement.targets if isinstance(target, ast.Name)}
            if len(bounds) == 2 and all(isinstance(b, ast.Name) and b.id in assigned for b in bounds):
                seen["bounds in variables"] += 1
            if any(isinstance(b, ast.Name) and b.id == "n" for b in bounds):
                seen["run-time inner bound"] += 1
            if any(isinstance(node, ast.Break) for statement in inner.body for node in ast.walk(statement)):
                seen["inner break"] += 1
            if any(isinstance(node, ast.If) and len(node.body) == 2 and isinstance(node.body[1], ast.Break)
                   for statement in inner.body for node in ast.walk(statement)):
                seen["first match"] += 1
    assert all(count >= 3 for count in seen.values()), seen
    assert 30 <= programs_with_nest <= 90, programs_with_nest


def test_nests_can_be_left_out():
    config = fuzz.FuzzConfig(features=fuzz.FEATURES - {"nests", "nested_loops"})
    for index in range(30):
        assert not list(_nests(ast.parse(fuzz.generate(5, index, config).source)))


def test_the_shrinker_leaves_the_decorator_alone():
    # Replacing `hls.kernel(approx=...)` by 0 or 1 only made programs that do not load.
    function = ast.parse("@hls.kernel(approx={'mul': 'mitchell'})\n"
                         "def k(x: unsigned(4)) -> unsigned(8):\n    return x * x + 1\n").body[0]
    texts = [ast.unparse(node) for node in fuzz._replaceable_expressions(function)]
    assert texts == ["x * x + 1", "x * x"]


def test_programs_hold_unrolls_partitions_and_local_arrays():
    """Over 100 programs: full and partial unrolls (with step 2 too), pipelined nests (whose constant inner loop
    the front end unrolls), parameters partitioned in each of the three ways, local arrays
    plain and partitioned, and the window and line-buffer idioms, each at least a few times."""
    required = ("unroll", "partial unroll", "pipelined nest", "partition", "local", "partitioned local", "cyclic",
                "block", "complete", "window", "line buffer", "partitioned data-dependent index", "nest",
                "inner break", "stepped unroll", "stream")
    seen = {name: 0 for name in required}
    for index in range(100):
        program = fuzz.generate(3, index)
        for construct in program.constructs:
            seen[construct] = seen.get(construct, 0) + 1
        source = program.source
        for kind in ("cyclic", "block", "complete"):
            seen[kind] += f'hls.partition("{kind}"' in source
        seen["stepped unroll"] += ", 2), factor=" in source
        tree = ast.parse(source)
        partitioned = {argument.arg for argument in fuzz._kernel_def(tree, program.name).args.args
                       if "hls.partition" in ast.unparse(argument.annotation)}
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and len(node.body) >= 2 and all(
                    isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Subscript) for s in node.body):
                moves = node.body[:-1]
                if all(isinstance(s.value, ast.Subscript) and s.value.value.id == s.targets[0].value.id
                       for s in moves) and moves[0].targets[0].value.id.startswith("buf"):
                    seen["window"] += 1
            if isinstance(node, ast.If) and len(node.body) == 2 \
                    and all(isinstance(s, ast.Assign) for s in node.body) \
                    and ast.unparse(node.body[0].value).startswith("buf") \
                    and ast.unparse(node.body[0].value) == ast.unparse(node.body[1].targets[0]):
                seen["line buffer"] += 1
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                    and node.value.id in partitioned \
                    and any(isinstance(inner, ast.Subscript) for inner in ast.walk(node.slice)):
                seen["partitioned data-dependent index"] += 1
    # (Chains and the places of stream operations are counted too; their test is below.)
    assert all(seen[name] >= 3 for name in required), seen


def test_unrolls_partitions_and_local_arrays_can_be_left_out():
    config = fuzz.FuzzConfig(features=fuzz.FEATURES - {"unroll", "partition", "local"})
    for index in range(40):
        program = fuzz.generate(5, index, config)
        # (A pipelined nest may still come from the "pragmas" feature.)
        assert not program.constructs & {"unroll", "partial unroll", "partition", "local",
                                         "partitioned local"}, program.source
        assert "hls.local" not in program.source and "hls.partition" not in program.source


def test_the_shrinker_takes_out_unrolls_pipelines_and_partitions():
    source = ('@hls.kernel\n'
              'def k(a: hls.Array[signed(8), 8, hls.partition("cyclic", 2)], n: unsigned(3)) -> signed(8):\n'
              '    buf = hls.local(signed(8), 4, partition=hls.partition("complete"))\n'
              '    s: signed(8) = 0\n'
              '    for i in hls.unroll(range(n), factor=2):\n'
              '        s = s + a[i]\n'
              '    for j in hls.pipeline(range(2)):\n'
              '        for t in range(2):\n'
              '            buf[t] = s\n'
              '    return s + buf[0]\n')
    candidates = [ast.unparse(fuzz._kernel_def(ast.parse(text), "k"))
                  for text in fuzz._pragma_candidates(source, "k")]
    assert len(candidates) == 5
    assert any("for i in range(n):" in text for text in candidates)
    assert any("for i in hls.unroll(range(n)):" in text for text in candidates)   # partial made full
    assert any("for j in range(2):" in text for text in candidates)
    assert any("a: hls.Array[signed(8), 8]" in text for text in candidates)
    assert any("buf = hls.local(signed(8), 4)\n" in text for text in candidates)
    # The declaration of a local array is neither deleted nor rewritten as an expression.
    function = fuzz._kernel_def(ast.parse(source), "k")
    assert not any("hls.local" in ast.unparse(node) for node in fuzz._replaceable_expressions(function))
    assert not any("buf = hls.local" in text.split("for")[0] and "buf" not in text.split("return")[0]
                   for text in fuzz._statement_candidates(source, "k"))
    assert all("hls.local" in text for text in fuzz._statement_candidates(source, "k"))


def test_shrinking_drops_unrolls_and_partitions_the_failure_does_not_need(tmp_path):
    program = next(p for p in (fuzz.generate(21, k) for k in range(300))
                   if "*" in p.source and {"partition", "partial unroll"} <= p.constructs)
    verdict = fuzz.check(program, runner=_fake_runner, directory=tmp_path)
    small, small_verdict = fuzz.shrink(program, verdict,
                                       lambda p: fuzz.check(p, runner=_fake_runner, directory=tmp_path))
    assert small_verdict.kind == "mismatch" and "*" in small.source
    assert not small.constructs & {"partition", "partial unroll", "partitioned local"}, small.source


@pytest.mark.parametrize("seed, index", [(0, 139), (1, 36), (1, 90), (1, 272), (7, 104), (7, 157)])
def test_a_bare_constant_the_target_cannot_hold_is_written_wrapped(seed, index, tmp_path):
    """These programs assigned `-1`, `(-3)` or `(-7)` to unsigned targets, constants the front end
    rejects (issue 21); the generator writes the value they wrap to, which means the same."""
    program = fuzz.generate(seed, index)
    fuzz.load_program(program, tmp_path)             # no KernelSyntaxError


def test_stream_programs_read_and_write_and_run_under_stalls(tmp_path):
    """Some programs read an input stream and write an output stream (issue 22); check() runs
    them under random valid/ready stalls on both sides, and their tokens equal Python's."""
    programs = [fuzz.generate(9, index) for index in range(100)]
    streaming = [p for p in programs if "sin.read()" in p.source and "sout.write(" in p.source]
    assert 3 <= len(streaming) <= 40, len(streaming)
    assert all("stream" in p.constructs for p in streaming)
    asked = []

    def runner(kernel, args, backend, **stalls):
        asked.append(stalls)
        return SimpleNamespace(match=True, outputs={}, expected={}, cycles=1)

    assert fuzz.check(streaming[0], runner=runner, directory=tmp_path).passed
    assert asked == [{"stall_probability": fuzz.STALL_PROBABILITY, "stall_seed": streaming[0].index}]
    for program in streaming[:3]:
        verdict = fuzz.check(program, directory=tmp_path)
        assert verdict.passed, (program.source, verdict)


def test_streams_only_programs_are_stream_kernels_and_chains_of_two_to_four():
    """``--streams-only`` (issue 22): every program has streams, read and written at least once,
    under conditions, in pipelined loops and in nests; some are chains of 2-4 kernels."""
    config = fuzz.FuzzConfig.streams_only()
    programs = [fuzz.generate(11, index, config) for index in range(40)]
    assert [p.source for p in programs] == [fuzz.generate(11, index, config).source for index in range(40)]
    assert all("stream" in p.constructs and p.streams_only for p in programs)
    assert all(".read()" in p.source and ".write(" in p.source for p in programs)
    chains = [p for p in programs if p.is_chain]
    assert 6 <= len(chains) <= 30, len(chains)
    assert {n for p in chains for n in (2, 3, 4) if f"{n}-stage chain" in p.constructs} == {2, 3, 4}
    seen = set().union(*(p.constructs for p in programs))
    assert {"stream read under if", "stream write under if", "stream in pipelined loop", "stream in nest"} <= seen
    for chain in chains:
        assert "@hls.dataflow" in chain.source and "hls.fifo(" in chain.source
    # A program that is not drawn as a chain is the kernel it was before chains existed.
    plain = fuzz.FuzzConfig(chain_chance=0.0)
    default = [fuzz.generate(11, index) for index in range(40)]
    assert all(p.source == fuzz.generate(11, p.index, plain).source for p in default if not p.is_chain)


def test_chains_run_compiled_and_equal_their_python_runs(tmp_path):
    """Each chain's FIFOs carry exactly the tokens their readers take (no golden error), and the
    chain's compiled model (every stage in C) gives the Python run's tokens, in order and count."""
    config = fuzz.FuzzConfig.streams_only()
    programs = [p for p in (fuzz.generate(12, index, config) for index in range(20)) if p.is_chain][:4]
    assert len(programs) == 4
    for program in programs:
        chain = fuzz.load_program(program, tmp_path)
        assert chain.compiled_model().compiled, chain.compiled_model().fallback_reason
        _, python = fuzz._observed_run(chain, copy.deepcopy(program.args))
        assert python["streams"]["o"] and python["tokens_read"] == {"s": len(program.args["s"])}
        assert fuzz.compiled_difference(chain, program.args, python) == "", program.source


def test_a_compiled_model_that_miscounts_tokens_is_a_compiled_mismatch(tmp_path, monkeypatch):
    from hls.golden import CompiledModel

    program = next(p for p in (fuzz.generate(11, index, fuzz.FuzzConfig.streams_only()) for index in range(20))
                   if not p.is_chain)
    monkeypatch.setattr(CompiledModel, "tokens_read", property(lambda self: {"sin": 99}))
    verdict = fuzz.check(program, directory=tmp_path)
    assert verdict.kind == "compiled_mismatch" and "stream sin" in verdict.detail and "99" in verdict.detail


def test_a_chain_runs_under_stalls_and_its_regression_file_replays_them(tmp_path):
    config = fuzz.FuzzConfig.streams_only()
    program = next(p for p in (fuzz.generate(5, index, config) for index in range(10)) if p.is_chain)
    verdict = fuzz.check(program, directory=tmp_path)
    assert verdict.passed, (program.source, verdict)
    path = fuzz.write_regression(program, fuzz.Verdict("mismatch", "stream o: ..."), tmp_path / "saved")
    text = path.read_text()
    assert f"--seed 5 --start {program.index} --count 1 --streams-only" in text
    assert f"stall_probability={fuzz.STALL_PROBABILITY}, stall_seed={program.index})" in text
    namespace = {}
    exec(compile(text, str(path), "exec"), namespace)
    namespace[f"test_{program.name}"]()        # the chain, its stages and the test: it passes


def _grid(program):
    """The grid nest's outer loop (the one over ``g``'s rows), or None."""
    for node in ast.walk(ast.parse(program.source)):
        if isinstance(node, ast.For) and any(isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name)
                                             and inner.value.id == "g" for inner in ast.walk(node)):
            return node
    return None


def test_programs_hold_grid_nests_indexed_by_several_counters():
    """Over 200 programs: nests whose array ``g`` is indexed by two or three counters (issue 20),
    read before the inner loop and written after it (and the reverse), updated in place, with a
    row stride below the row length (not distinct for distinct (i, j)), indices masked into a
    smaller array, a run-time outer bound of 128 values and an inner break, each at least a few
    times; their indices are exact (no kernel-wide approximate adder, subtractor or multiplier)."""
    seen = collections.Counter()
    for index in range(200):
        program = fuzz.generate(6, index)
        grid = _grid(program)
        assert (grid is not None) == ("multi-counter index" in program.constructs), program.source
        if grid is None:
            continue
        seen["grid"] += 1
        rows, columns = grid.target.id, grid.body[0].target.id
        # (Statements drawn into the nest may index g too, masked into range: the grid's own index
        # is the one with the row stride.)
        pattern = rf"{rows} \* (\d+)|(\d+) \* {rows}"
        index = next(ast.unparse(node.slice) for node in ast.walk(grid) if isinstance(node, ast.Subscript)
                     and ast.unparse(node.value) == "g" and re.search(pattern, ast.unparse(node.slice)))
        stride = int(next(group for group in re.search(pattern, index).groups() if group))
        # Masked into an array smaller than the indices reach: `g[i * W + j & 15]`.
        seen["indices wrap"] += bool(re.search(r" & \d+$", index))
        length = grid.body[0].iter.args[0].value
        inner = [node for node in grid.body[0].body if isinstance(node, ast.For)]
        if inner and ast.unparse(inner[0].target) in index:
            seen["three counters"] += 1
        elif inner:
            first = ast.unparse(grid.body[0].body[0])
            seen["read before, written after" if "= g[" in first else "written before, read after"] += 1
        else:
            seen["in place"] += 1
        seen["rows overlap"] += stride < length and not (inner and ast.unparse(inner[0].target) in index)
        seen["128-value outer bound"] += ast.unparse(grid.iter) == "range(m)"
        seen["inner break"] += any(isinstance(node, ast.Break) for node in ast.walk(grid))
        decorator = fuzz._kernel_def(ast.parse(program.source), program.name).decorator_list[0]
        approx = [keyword.value for keyword in getattr(decorator, "keywords", []) if keyword.arg == "approx"]
        assert not approx or not {"add", "sub", "mul"} & set(ast.literal_eval(approx[0])), program.source
    required = ("grid", "three counters", "read before, written after", "written before, read after", "in place",
                "rows overlap", "128-value outer bound", "inner break", "indices wrap")
    assert all(seen[name] >= 3 for name in required), seen


def test_grid_nests_can_be_left_out():
    config = fuzz.FuzzConfig(features=fuzz.FEATURES - {"grids"})
    for index in range(60):
        assert "multi-counter index" not in fuzz.generate(6, index, config).constructs
