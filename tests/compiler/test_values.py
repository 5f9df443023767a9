"""The value analysis (issue 20): affine forms and intervals, the banks and the memory
dependences that read them, in flattened nests; hardware against the Python run."""

import importlib.util
import inspect
import itertools
import math
import random

import pytest
from amaranth.hdl import signed, unsigned
from hypothesis import given, settings, strategies as st

import value_kernels as kernels
from benchmarks.kernels import load
from hls.analysis import memdep
from hls.analysis.memdep import independence_proofs, loop_dependences, memory_dependences
from hls.analysis.values import Counter, Value, ValueAnalysis, entry_states, iterations
from hls.compiler import compile_kernel, lower
from hls.ir import Block, Op, PipelinedLoop
from hls.ir.ops import OPERATORS
from hls.types import shape_range
from sim.kernel import run


def _loop(ir):
    (loop,) = [node for node in ir.nodes if isinstance(node, PipelinedLoop)]
    return loop


def _report_loop(compiled):
    (entry,) = [loop for loop in compiled.report.to_json()["loops"] if loop["pipelined"]]
    return entry


def _check(kernel, args):
    result = run(kernel, args, max_cycles=20_000)
    assert result.match, result.differences
    return result


def _values(seed, count, low, high):
    generator = random.Random(seed)
    return [generator.randint(low, high) for _ in range(count)]


# -- the abstract values ---------------------------------------------------------------------

def _const(value, shape=signed(8)):
    return Op(f"c{value}", "const", [], shape, attrs={"value": value})


def test_affine_forms_in_two_counters_and_their_interval():
    i, j = Counter("i", 0, 3, 0, 1), Counter("j", 0, 3, 0, 1)
    a, b = Op("i", "live_in", [], unsigned(2), attrs={"var": "i"}), Op("j", "live_in", [], unsigned(2),
                                                                       attrs={"var": "j"})
    values = ValueAnalysis()
    values.add_counter(a, i)
    values.add_counter(b, j)
    product = Op("m", "mul", [a, _const(4)], signed(12))
    index = Op("s", "add", [product, b], signed(13))
    value = values.value(index)
    assert value.exact_form and dict(value.terms) == {i: 4, j: 1} and value.constant == 0
    assert (value.low, value.high) == (0, 15)
    assert value.text() == "4*i + j"
    # i - i is 0 whatever i is: the form bounds the interval.
    difference = Op("d", "sub", [a, a], signed(3))
    assert values.value(difference) == Value.of(0)


def test_a_wrap_that_may_change_the_value_keeps_the_residue_only():
    x = Op("x", "live_in", [], unsigned(6), attrs={"var": "x"})
    total = Op("t", "add", [Op("m", "mul", [x, _const(8)], unsigned(10)), _const(3)], unsigned(11))
    narrowed = Op("w", "wrap", [total], unsigned(4))
    value = ValueAnalysis().value(narrowed)
    assert value.modulus == 16 and not value.exact_form
    assert value.residue(4) == 3 and value.residue(16) is None   # 8x + 3 mod 16 depends on x
    assert (value.low, value.high) == (0, 15)


def test_conditional_counters_hold_only_under_their_predicate():
    j = Op("j", "live_in", [], unsigned(4), attrs={"var": "j"})
    has = Op("has", "live_in", [], unsigned(1), attrs={"var": "has"})
    inside = Op("p", "and", [has, Op("c", "live_in", [], unsigned(1), attrs={"var": "c"})], unsigned(1))
    values = ValueAnalysis()
    values.add_counter(j, Counter("j", 0, 7, 0, 1), has)
    assert (values.value(j, inside).low, values.value(j, inside).high) == (0, 7)    # built on `has`
    assert (values.value(j).low, values.value(j).high) == (0, 15)                   # elsewhere: its shape
    assert (values.value(j, inside).low, values.value(j, inside).high) == (0, 7)


def test_constants_fold_through_the_golden_functions():
    values = ValueAnalysis()
    assert values.value(Op("n", "invert", [_const(5, unsigned(3))], unsigned(3))) == Value.of(2)
    assert values.value(Op("q", "floordiv", [_const(-7), _const(2)], signed(8))) == Value.of(-4)
    assert values.value(Op("w", "wrap", [_const(200, unsigned(8))], signed(8))) == Value.of(-56)


def test_invert_of_an_unsigned_value_flips_its_bits_as_amaranth_does():
    i = Counter("i", 2, 5, 2, 1)
    x = Op("x", "live_in", [], unsigned(4), attrs={"var": "x"})
    values = ValueAnalysis()
    values.add_counter(x, i)
    flipped = values.value(Op("n", "invert", [x], unsigned(4)))
    assert (flipped.low, flipped.high) == (10, 13) and flipped.text() == "-i + 15"
    y = Op("y", "live_in", [], signed(4), attrs={"var": "y"})
    assert values.value(Op("m", "invert", [y], signed(4))).text() == "-y - 1"


def test_intervals_of_masks_shifts_and_selects():
    x = Op("x", "live_in", [], signed(8), attrs={"var": "x"})
    c = Op("c", "live_in", [], unsigned(1), attrs={"var": "c"})
    values = ValueAnalysis()
    masked = values.value(Op("a", "and", [x, _const(7)], signed(8)))
    assert (masked.low, masked.high) == (0, 7) and masked.residue(8) is None and masked.modulus == 8
    shifted = values.value(Op("s", "shr", [x, _const(2)], signed(6)))
    assert (shifted.low, shifted.high) == (-32, 31)
    chosen = values.value(Op("m", "select", [c, _const(3), _const(9)], signed(8)))
    assert (chosen.low, chosen.high) == (3, 9) and not chosen.affine


def test_a_zero_operand_decides_shifts_and_divisions():
    # What the reads of a never-written local array become (hls.ir.fold): `0 >> n`, `0 << n`,
    # `0 // d`, `0 % d` are 0 whatever n and d, and `x // 0 == x % 0 == 0` (Amaranth's, the golden).
    x = Op("x", "live_in", [], signed(8), attrs={"var": "x"})
    n = Op("n", "live_in", [], unsigned(3), attrs={"var": "n"})
    zero = _const(0, unsigned(1))
    values = ValueAnalysis()
    for kind, operands in (("shr", [zero, n]), ("shl", [zero, n]), ("floordiv", [zero, x]), ("mod", [zero, x]),
                           ("floordiv", [x, zero]), ("mod", [x, zero])):
        value = values.value(Op(kind, kind, operands, signed(9)))
        assert (value.low, value.high) == (0, 0), kind
    # A shift by a run-time amount: the corners bound it (x >> n for n in 0..7).
    shifted = values.value(Op("s", "shr", [x, n], signed(8)))
    assert (shifted.low, shifted.high) == (-128, 127)
    small = values.value(Op("t", "shr", [_const(5, unsigned(3)), n], unsigned(3)))
    assert (small.low, small.high) == (0, 5)


_TRANSFERRED = sorted(kind for kind, entry in OPERATORS.items()
                     if entry.transfer is not None and entry.golden is not None and entry.arity in (1, 2, 3))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_TRANSFERRED), st.data())
def test_every_transfer_function_holds_the_golden_value(kind, data):
    """For random operand shapes, symbolic or constant operands, and random values: the golden
    result lies in the abstract interval, equals the affine form where it is exact, and is
    congruent to it where it holds modulo a power of two."""
    entry = OPERATORS[kind]
    shapes, operands, constants = [], [], {}
    for position in range(entry.arity):
        width = data.draw(st.integers(1, 3 if kind in ("shl", "shr") and position == 1 else 6))
        shape = signed(width) if data.draw(st.booleans()) and not (kind in ("shl", "shr") and position == 1) \
            else unsigned(width)
        low, high = shape_range(shape)
        shapes.append(shape)
        if data.draw(st.booleans()):
            value = data.draw(st.integers(low, high))
            operands.append(Op(f"k{position}", "const", [], shape, attrs={"value": value}))
            if position in entry.constant_operands:
                constants[position] = value
        else:
            operands.append(Op(f"x{position}", "live_in", [], shape, attrs={"var": f"x{position}"}))
    if kind == "select":
        shapes[0], operands[0] = unsigned(1), Op("c", "live_in", [], unsigned(1), attrs={"var": "c"})
    result_shape = entry.shape(*shapes, constants=constants)
    op = Op("r", kind, operands, result_shape)
    abstract = ValueAnalysis().value(op)
    golden = entry.golden_for(shapes)
    for _ in range(10):
        concrete = {operand: operand.attrs["value"] if operand.kind == "const"
                    else data.draw(st.integers(*shape_range(operand.shape))) for operand in operands}
        value = golden(*(concrete[operand] for operand in operands))
        assert abstract.low <= value <= abstract.high, (kind, shapes, concrete, value, abstract)
        if abstract.affine:
            form = abstract.constant + sum(c * concrete[symbol] for symbol, c in abstract.terms)
            if abstract.modulus:
                assert (form - value) % abstract.modulus == 0, (kind, abstract, value)
            else:
                assert form == value, (kind, abstract, value)


# -- banks in flattened nests (issue 20, Deliver 0) ------------------------------------------

def test_block_partitions_keep_one_bank_per_access_in_flattened_nests():
    compiled = compile_kernel(kernels.blk_flat)
    loop = _loop(compiled.ir)
    banks = sorted(op.attrs["bank"] for op in loop.body.ops if op.kind == "load" and op.attrs["array"] == "B")
    assert banks == [0, 1]              # B[j] in bank 0, B[8 + j] in bank 1
    entry = _report_loop(compiled)
    assert entry["flattened"] and entry["ii"] == entry["mii"] == 1
    b = _values(31, 16, -128, 127)
    for m in (0, 1, 5, 8):
        result = _check(kernels.blk_flat, {"B": b, "C": [0] * 64, "m": m})
        expected = [b[j] + b[8 + j] if i < m else 0 for i in range(8) for j in range(8)]
        assert result.outputs["arrays"]["C"] == expected


def test_cyclic_partitions_follow_a_flattened_counter_s_residue():
    compiled = compile_kernel(kernels.cyclic_flat)
    loop = _loop(compiled.ir)
    banks = sorted(op.attrs["bank"] for op in loop.body.ops if op.kind == "load" and op.attrs["array"] == "A")
    assert banks == [1, 2]
    assert _report_loop(compiled)["ii"] == 1
    for m in (0, 3, 7):
        _check(kernels.cyclic_flat, {"A": _values(32 + m, 16, -128, 127), "out": [0] * 128, "m": m})


def test_a_partitioned_matrix_multiply_reads_every_bank_once_per_iteration():
    compiled = compile_kernel(kernels.partitioned_matmul)
    loop = _loop(compiled.ir)
    for array in ("a", "b"):
        banks = sorted(op.attrs["bank"] for op in loop.body.ops if op.kind == "load" and op.attrs["array"] == array)
        assert banks == list(range(8)), array
    assert _report_loop(compiled)["ii"] == 1          # it was 8: every copy read every bank of b
    a, b = _values(34, 64, -128, 127), _values(35, 64, -128, 127)
    result = _check(kernels.partitioned_matmul, {"a": a, "b": b, "c": [0] * 64})
    assert result.outputs["arrays"]["c"] == [sum(a[i * 8 + k] * b[k * 8 + j] for k in range(8))
                                             for i in range(8) for j in range(8)]


# -- dependences by address in nests (issue 20, Deliver 2) -----------------------------------

def test_read_before_and_write_after_the_inner_loop_reach_ii_one():
    for name in ("matmul_acc", "row_update"):
        kernel, examples = load(name)
        compiled = compile_kernel(kernel)
        entry = _report_loop(compiled)
        assert entry["ii"] == entry["mii"] == 1, name
        assert any("distinct for distinct" in proof for proof in entry["independent"])
        loop = _loop(compiled.ir)
        array = "c" if name == "matmul_acc" else "y"
        deps = [d for d in loop_dependences(loop) if d.src.attrs["array"] == array]
        # The read precedes the write of its element; no read ever follows one.
        assert [(d.src.kind, d.dst.kind) for d in deps] == [("load", "store")]
        _check(kernel, examples[0])
    assert "`c[i * 8 + j]`: distinct for distinct (i, j)" in compile_kernel(load("matmul_acc")[0]).report.to_text()


def test_a_write_read_back_one_flattened_iteration_later_keeps_its_dependence():
    # "distinct for distinct (i, j)" alone would drop it: the write runs on the first k of an
    # (i, j), the read of the same element on the last.
    compiled = compile_kernel(kernels.write_then_read)
    loop = _loop(compiled.ir)
    deps = {(d.src.kind, d.dst.kind, d.distance) for d in loop_dependences(loop) if d.src.attrs["array"] == "C"}
    assert ("store", "load", 1) in deps
    x = _values(33, 16, -128, 127)
    result = _check(kernels.write_then_read, {"C": [0] * 16, "x": x, "y": [0] * 16})
    assert result.outputs["arrays"]["y"] == [value + 1 for value in x]


def test_a_read_of_the_previous_iteration_s_write_keeps_its_dependence():
    compiled = compile_kernel(kernels.row_chain)
    loop = _loop(compiled.ir)
    deps = {(d.src.kind, d.dst.kind, d.distance) for d in loop_dependences(loop) if d.src.attrs["array"] == "C"}
    assert ("store", "load", 1) in deps
    for seed in range(2):
        _check(kernels.row_chain, {"C": _values(40 + seed, 16, -100, 100), "A": _values(50 + seed, 16, -128, 127)})


@pytest.mark.parametrize("name", ["opaque_write_then_guarded_read", "constant_write_then_guarded_read"])
def test_a_write_and_a_read_on_opposite_sides_of_a_condition_stay_ordered_across_iterations(name):
    # Exclusive in one iteration drops the distance-0 dependence only: the read of a later
    # iteration may still see the write (hardware 2, Python 3 before the fix, for the first).
    kernel = getattr(kernels, name)
    deps = {(d.src.kind, d.dst.kind, d.distance) for d in loop_dependences(_loop(lower(kernel)))}
    assert ("store", "load", 1) in deps and ("store", "load", 0) not in deps
    for x in (85, 1, 127):
        result = run(kernel, {"a": [4095, 416, 147, 2706], "x": x}, golden="python", max_cycles=20_000)
        assert result.match, result.differences


def test_a_run_time_inner_trip_count_is_followed_for_each_of_its_values():
    compiled = compile_kernel(kernels.accumulate_runtime)
    loop = _loop(compiled.ir)
    deps = {(d.src.kind, d.dst.kind) for d in loop_dependences(loop) if d.src.attrs["array"] == "C"}
    assert deps == {("load", "store")}
    (proof,) = independence_proofs(loop)
    assert "8 runs, one for each value of n" in proof
    assert _report_loop(compiled)["ii"] == 1
    for n in (0, 1, 3, 4):
        _check(kernels.accumulate_runtime, {"C": _values(60 + n, 16, -1000, 1000), "A": _values(70 + n, 16, -128, 127),
                                            "n": n})


def test_a_wide_run_time_bound_is_decided_by_the_nest_s_structure():
    # Beyond the exact test (128 values of n): C[i] is read only in the first iteration of each i
    # and written only in its last, so the write never precedes a read of its element.
    loop = _loop(lower(kernels.accumulate_wide))
    deps = {(d.src.kind, d.dst.kind) for d in loop_dependences(loop) if d.src.attrs["array"] == "C"}
    assert deps == {("load", "store")}
    assert independence_proofs(loop) == [
        "`C[i]`: distinct for distinct i; the read on line 82 never touches an element after the write on "
        "line 85 does (the read runs only in the first iteration of each i, the write only in the last)"]
    for n in (0, 2, 100):
        _check(kernels.accumulate_wide, {"C": _values(90 + n, 16, -1000, 1000), "A": _values(91 + n, 64, -128, 127),
                                         "n": n})


def test_gcd_separates_the_accesses_of_a_nest_with_run_time_bounds():
    loop = _loop(lower(kernels.odd_from_even))
    assert [d for d in loop_dependences(loop) if d.src.attrs["array"] == "C"] == []
    assert any("never the same element" in proof for proof in independence_proofs(loop))
    loop = _loop(lower(kernels.even_from_even))
    kept = {(d.src.kind, d.dst.kind) for d in loop_dependences(loop) if d.src.attrs["array"] == "C"}
    assert kept == {("load", "store"), ("store", "load")}
    for m, n in ((3, 2), (7, 7), (0, 5)):
        c = _values(80 + m, 64, -500, 500)
        _check(kernels.odd_from_even, {"C": c, "m": m, "n": n})
        _check(kernels.even_from_even, {"C": c, "m": m, "n": n})


_NEST = '''
import hls
from amaranth import signed, unsigned


@hls.kernel
def nest(C: hls.Array[signed(12), 64], x: hls.Array[signed(8), 4], n: unsigned(2)):
    for i in range({I}):
        for j in range({J}):
            s: signed(12) = C[{pi} * i + {pj} * j + {pc}]
            for k in range({K}):
                s = s + x[k]
            C[{qi} * i + {qj} * j + {qc}] = s
'''


def _nest_kernel(tmp_path, **shape):
    path = tmp_path / "nest.py"
    path.write_text(_NEST.format(**shape))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.nest


def _shortest_conflicts(I, J, K, pi, pj, pc, qi, qj, qc):
    """``(write after read, read after write)`` shortest distances of the nest run with inner
    trip count ``K``: the read runs on the first flattened iteration of each (i, j), the
    write on its last (an empty inner run takes one iteration, which runs both)."""
    slots = max(K, 1)
    write_after_read = read_after_write = None
    for i1 in range(I):
        for j1 in range(J):
            read_at, read = (i1 * J + j1) * slots, pi * i1 + pj * j1 + pc
            for i2 in range(I):
                for j2 in range(J):
                    write_at, written = (i2 * J + j2) * slots + slots - 1, qi * i2 + qj * j2 + qc
                    if read != written:
                        continue
                    if read_at <= write_at:   # the read comes first in program order
                        distance = write_at - read_at
                        write_after_read = distance if write_after_read is None else min(write_after_read, distance)
                    else:
                        distance = read_at - write_at
                        read_after_write = distance if read_after_write is None else min(read_after_write, distance)
    return write_after_read, read_after_write


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.sampled_from(["1", "2", "3", "n"]), st.integers(0, 4),
       st.integers(0, 4), st.integers(0, 6), st.integers(0, 4), st.integers(0, 4), st.integers(0, 6))
def test_nest_dependences_cover_every_conflict_of_the_python_run(tmp_path_factory, I, J, K, pi, pj, pc, qi, qj, qc):
    """Against brute force over the nest's own iterations, for a constant inner trip count or
    for every value of the run-time one (``n``, 0..3)."""
    kernel = _nest_kernel(tmp_path_factory.mktemp("nest"), I=I, J=J, K=K, pi=pi, pj=pj, pc=pc, qi=qi, qj=qj, qc=qc)
    loop = _loop(lower(kernel))
    found = {(d.src.kind, d.dst.kind): d.distance for d in loop_dependences(loop) if d.src.attrs["array"] == "C"}
    needed = {("load", "store"): None, ("store", "load"): None}
    for trips in ([int(K)] if K != "n" else range(4)):
        for pair, distance in zip(needed, _shortest_conflicts(I, J, trips, pi, pj, pc, qi, qj, qc)):
            if distance is not None:
                needed[pair] = distance if needed[pair] is None else min(needed[pair], distance)
    for pair, distance in needed.items():
        if distance is not None:
            assert pair in found and found[pair] <= distance, (pair, distance, found)
        elif (pi * (I - 1) or pj * (J - 1)) or (qi * (I - 1) or qj * (J - 1)):
            # The exact test keeps no false dependence (two constant indices are decided before
            # it: the same element in every iteration, at distances 0 and 1).
            assert pair not in found, (pair, found)


def test_every_iteration_of_a_nest_s_control_is_computed():
    loop = _loop(lower(kernels.row_chain))
    (state,), names = entry_states(loop.preheader, loop.body)
    assert names == []
    runs = iterations(loop.body, state)
    assert len(runs) == 4 * 3 * 2              # the nest's iterations: the last one's break ends the loop
    stores = [op for op in loop.body.ops if op.kind == "store"]
    addresses = [values[stores[0].operands[0]] for values in runs if values[stores[0].predicate]]
    assert addresses == [i * 4 + j for i in range(4) for j in range(1, 4)]


def test_affine_distances_in_a_block_run_once():
    index = Op("x", "live_in", [], unsigned(4), attrs={"var": "x"})
    plus_one = Op("p", "add", [index, _const(1)], unsigned(5))
    value = _const(1, unsigned(1))
    store = Op("S", "store", [index, value], unsigned(0), attrs={"array": "a"})
    load_same = Op("L", "load", [index], unsigned(8), attrs={"array": "a"})
    load_next = Op("N", "load", [plus_one], unsigned(8), attrs={"array": "a"})
    block = Block("b", [index, plus_one, value, store, load_same, load_next])
    deps = {(d.src.name, d.dst.name, d.distance) for d in memory_dependences(block)}
    assert deps == {("S", "L", 0)}            # a[x] and a[x + 1] never meet


# -- beyond the exact test: the nest's structure (issue 20, Deliver 2) ----------------------

def _array_deps(loop, array):
    return {(d.src.kind, d.dst.kind, d.distance) for d in loop_dependences(loop) if d.src.attrs["array"] == array}


def test_a_nest_s_levels_know_the_levels_around_them_and_where_their_code_runs():
    compiled = lower(kernels.matmul_acc_16)
    loop = _loop(compiled)
    (load,) = [op for op in loop.body.ops if op.kind == "load" and op.attrs["array"] == "C"]
    (store,) = [op for op in loop.body.ops if op.kind == "store"]
    index = loop.values.value(load.operands[0], load.predicate)
    i, j = (symbol for symbol, _ in index.terms)
    assert (i.name, j.name, i.outer, j.outer) == ("i", "j", (), (i,))
    assert loop.values.positions(load.predicate) == {j: {"first"}}
    assert loop.values.positions(store.predicate) == {j: {"last"}}
    (read_a,) = [op for op in loop.body.ops if op.kind == "load" and op.attrs["array"] == "A"]
    ((k, positions),) = loop.values.positions(read_a.predicate).items()
    assert (k.name, k.outer, positions) == ("k", (i, j), {"first", "last"})


@pytest.mark.parametrize("name", ["matmul_acc_16", "matmul_acc_rows"])
def test_nests_beyond_the_exact_test_reach_ii_one(name):
    # 4,096 iterations, or a run-time row count of 128 values: the exact test does not apply, and
    # C[i * 16 + j] (0 <= j <= 15) is read in the first iteration of each (i, j), written in its last,
    # 15 iterations later (each (i, j) takes the 16 of the constant k loop).
    kernel = getattr(kernels, name)
    compiled = compile_kernel(kernel)
    entry = _report_loop(compiled)
    assert entry["flattened"] and entry["ii"] == entry["mii"] == 1
    line = _line_of(kernel, "s: signed(24) = C[i * 16 + j]")
    assert entry["independent"] == [
        f"`C[i * 16 + j]`: distinct for distinct (i, j); the write on line {line + 3} touches the element the read "
        f"on line {line} touched in the same (i, j) 15 iterations later; the read on line {line} never touches an "
        f"element after the write on line {line + 3} does (the read runs only in the first iteration of each (i, j), "
        f"the write only in the last; each (i, j) takes 16 iterations)"]
    assert _array_deps(_loop(compiled.ir), "C") == {("load", "store", 15)}
    a, b = _values(100, 256, -128, 127), _values(101, 256, -128, 127)
    for rows in ((16,) if name == "matmul_acc_16" else (0, 1, 3)):
        c = _values(102 + rows, 256 if rows == 16 else 128, -100000, 100000)
        args = {"A": a[:len(c)], "B": b, "C": c} if rows == 16 else {"A": a[:128], "B": b, "C": c, "n": rows}
        result = _check(kernel, args)
        assert result.outputs["arrays"]["C"][:rows * 16] == [
            c[i * 16 + j] + sum(a[i * 16 + k] * b[k * 16 + j] for k in range(16)) for i in range(rows) for j in range(16)]
        # One iteration per cycle, beyond a constant fill.
        assert result.cycles <= rows * 256 + 16


@pytest.mark.parametrize("name", ["touching_rows", "column_only"])
def test_near_misses_keep_their_dependence(name):
    # C[i * 3 + j] with j in range(4), C[j] in a nest over i: not distinct for distinct (i, j), and
    # the write of row i's last element is read one iteration later as row i + 1's first (each
    # (i, j) takes 3 iterations, the read runs in the first, the write in the last), or C[j] two
    # iterations later (each i takes 2): the write -> read dependence stays, and the II with it
    # (C[j]'s recurrence, read, add, write, is longer than 2 cycles).
    kernel = getattr(kernels, name)
    compiled = compile_kernel(kernel)
    entry = _report_loop(compiled)
    assert entry["ii"] == entry["mii"] == 2
    depth = {"touching_rows": 64, "column_only": 16}[name]
    for n in (0, 1, 2, 5):
        _check(kernel, {"A": _values(110 + n, 16, -128, 127), "C": _values(120 + n, depth, -1000, 1000), "n": n})
    if name == "touching_rows":
        assert _array_deps(_loop(compiled.ir), "C") == {("store", "load", 1), ("load", "store", 2)}
        line = _line_of(kernel, "s: signed(16) = C[i * 3 + j]")
        assert entry["independent"] == [
            f"`C[i * 3 + j]`: the write on line {line + 3} touches an element the read on line {line} touched only "
            f"where its (i, j) are that one's plus (1, -3), at least 5 iterations later; the read on line {line} "
            f"touches an element the write on line {line + 3} touched only where its (i, j) are that one's plus "
            f"(1, -3), at least 1 iteration later; the write on line {line + 3} touches the element the read on line "
            f"{line} touched in the same (i, j) 2 iterations later (the read runs only in the first iteration of each "
            f"(i, j), the write only in the last; each i takes 12 iterations, each (i, j) 3)"]
    else:
        # The level i is missing from C[j]: every difference (di, 0) meets, di * 2 iterations apart.
        assert _array_deps(_loop(compiled.ir), "C") == {("store", "load", 2), ("load", "store", 0)}
        line = _line_of(kernel, "s: signed(16) = C[j]")
        assert entry["independent"] == [
            f"`C[j]`: the write on line {line + 3} touches an element the read on line {line} touched only where its "
            f"(i, j) are that one's plus (1, 0) or (2, 0) or (3, 0) or 123 more, at least 2 iterations later; the read "
            f"on line {line} touches an element the write on line {line + 3} touched only where its (i, j) are that "
            f"one's plus (1, 0) or (2, 0) or (3, 0) or 123 more, at least 2 iterations later (the read runs only in the "
            f"first iteration of each (i, j), the write only in the last; each i takes 2 iterations)"]


def test_rows_overlapping_by_half_are_far_enough_apart_for_ii_one():
    # C[i * 8 + j] with j in range(16): row i's second half is row i + 1's first, so C[i * 8 + j]
    # is not distinct for distinct (i, j). But each (i, j) takes the 2 iterations of its constant
    # k loop, each i 32: the element written at (i, j) (in its last iteration) is read at
    # (i + 1, j - 8) (in its first), 32 - 8 * 2 - 1 = 15 iterations later, and the read at (i, j)
    # is followed by the write of the same element 1 iteration later (in the same (i, j)) and 17
    # (at (i + 1, j - 8)). At distance 15 the write -> read recurrence allows II 1 (II 2 before).
    kernel = kernels.overlapping_rows
    compiled = compile_kernel(kernel)
    entry = _report_loop(compiled)
    assert entry["flattened"] and entry["ii"] == entry["mii"] == 1
    assert _array_deps(_loop(compiled.ir), "C") == {("store", "load", 15), ("load", "store", 1)}
    line = _line_of(kernel, "C[i * 8 + j] = s") - 3        # the read, three lines above the write
    assert entry["independent"] == [
        f"`C[i * 8 + j]`: the write on line {line + 3} touches an element the read on line {line} touched only where "
        f"its (i, j) are that one's plus (1, -8), at least 17 iterations later; the read on line {line} touches an "
        f"element the write on line {line + 3} touched only where its (i, j) are that one's plus (1, -8), at least 15 "
        f"iterations later; the write on line {line + 3} touches the element the read on line {line} touched in the "
        f"same (i, j) 1 iteration later (the read runs only in the first iteration of each (i, j), the write only in "
        f"the last; each i takes 32 iterations, each (i, j) 2)"]
    a = _values(112, 16, -128, 127)
    for n in (0, 1, 2, 5):
        c = _values(122 + n, 128, -1000, 1000)
        result = _check(kernel, {"A": a, "C": c, "n": n})
        expected = list(c)
        for i in range(n):
            for j in range(16):
                value = expected[i * 8 + j] + 2 + a[j]          # k = 0, 1: + A[j] * k + 1 each
                expected[i * 8 + j] = (value + 2 ** 15) % 2 ** 16 - 2 ** 15
        assert result.outputs["arrays"]["C"] == expected
        assert result.cycles <= n * 32 + 16                     # one iteration per cycle


def test_a_write_read_back_later_in_its_run_keeps_that_direction_only():
    # Each (i, j) takes the 2 iterations of its constant k loop: the read is 1 iteration after the write.
    compiled = compile_kernel(kernels.write_then_read_rows)
    assert _array_deps(_loop(compiled.ir), "C") == {("store", "load", 1)}
    assert _report_loop(compiled)["ii"] == 1
    for n in (0, 1, 4):
        x = _values(130 + n, 64, -128, 127)
        result = _check(kernels.write_then_read_rows, {"C": [0] * 64, "x": x, "y": [0] * 64, "n": n})
        assert result.outputs["arrays"]["y"][:n * 4] == [value + 1 for value in x[:n * 4]]


def test_a_perfect_nest_updating_in_place_orders_its_accesses_within_an_iteration():
    compiled = compile_kernel(kernels.grid_update)
    assert _array_deps(_loop(compiled.ir), "C") == {("load", "store", 0)}
    assert _report_loop(compiled)["ii"] == 1
    for n in (0, 3, 8):
        _check(kernels.grid_update, {"C": _values(140 + n, 64, -2000, 2000), "A": _values(141, 8, -128, 127), "n": n})


def test_a_nest_whose_control_depends_on_data_is_decided_by_its_structure():
    compiled = compile_kernel(kernels.first_match_rows)
    assert _array_deps(_loop(compiled.ir), "found") == {("load", "store", 0)}
    entry = _report_loop(compiled)
    assert entry["ii"] == entry["mii"] and "distinct for distinct (i, j)" in entry["independent"][0]
    for key, n in ((3, 2), (0, 7), (15, 5)):
        _check(kernels.first_match_rows, {"a": _values(150 + key, 64, 0, 15), "found": _values(151, 64, 0, 15),
                                          "key": key, "n": n})


_PLACED = '''
import hls
from amaranth import signed, unsigned


@hls.kernel
def nest(C: hls.Array[signed(12), 64], x: hls.Array[signed(8), 4], n: unsigned(2)) -> signed(12):
    s: signed(12) = 0
    for i in range({I}):
        for j in range({J}):
{pre}
            for k in range({K}):
                s = s + x[k]
{body}
{post}
    return s
'''

_PLACES = ("pre", "body", "post")


def _placed_kernel(tmp_path, I, J, K, read, write, write_first, mask=0):
    """A nest reading ``s = s + C[...]`` and writing ``C[...] = s`` before, in or after its inner
    loop; each access is ``(place, (ci, cj, ck, c))`` (``ck`` only in the body), its index masked
    with ``& mask`` when ``mask`` is not 0."""
    def text(access, statement):
        place, (ci, cj, ck, c) = access
        index = f"{ci} * i + {cj} * j" + (f" + {ck} * k" if place == "body" else "") + f" + {c}"
        return statement.format(index=f"({index}) & {mask}" if mask else index)
    lines = {place: [] for place in _PLACES}
    statements = [(read, "s = s + C[{index}]"), (write, "C[{index}] = s")]
    for access, statement in (statements[::-1] if write_first else statements):
        lines[access[0]].append(text(access, statement))
    indent = {"pre": 12, "body": 16, "post": 12}
    blocks = {place: "\n".join(" " * indent[place] + line for line in lines[place]) or " " * indent[place] + "pass"
              for place in _PLACES}
    path = tmp_path / "nest.py"
    path.write_text(_PLACED.format(I=I, J=J, K=K, **blocks))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.nest


def _placed_conflicts(I, J, K, read, write, write_first, mask=0):
    """``{(earlier kind, later kind): shortest distance}`` of the nest's iterations: the flattened
    loop runs ``max(K, 1)`` iterations per (i, j), the code before the inner loop in the first,
    the body in iteration k, the code after it in the last."""
    def at(address):
        return address & mask if mask else address
    events = {"load": [], "store": []}
    t = 0
    for i in range(I):
        for j in range(J):
            slots = max(K, 1)
            for kind, (place, (ci, cj, ck, c)) in (("load", read), ("store", write)):
                if place == "pre":
                    events[kind].append((t, at(ci * i + cj * j + c)))
                elif place == "post":
                    events[kind].append((t + slots - 1, at(ci * i + cj * j + c)))
                else:
                    events[kind] += [(t + k, at(ci * i + cj * j + ck * k + c)) for k in range(K)]
            t += slots
    order = {"load": (_PLACES.index(read[0]), write_first), "store": (_PLACES.index(write[0]), not write_first)}
    first, second = sorted(events, key=order.get)
    needed = {}
    for a, b, least in ((first, second, 0), (second, first, 1)):
        for at_a, address in events[a]:
            for at_b, other in events[b]:
                if address == other and at_b - at_a >= least:
                    needed[(a, b)] = min(needed.get((a, b), at_b - at_a), at_b - at_a)
    return needed


_COEFFICIENTS = st.tuples(st.sampled_from([0, 1, 2, 3, 4, 4]), st.integers(0, 2), st.integers(0, 3), st.integers(0, 6))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.sampled_from(["0", "1", "2", "3", "n"]),
       st.sampled_from(_PLACES), st.sampled_from(_PLACES), _COEFFICIENTS, _COEFFICIENTS,
       st.sampled_from(["same", "same", "same", "shifted", "shifted", "other"]), st.integers(-3, 4), st.booleans(),
       st.sampled_from([0, 0, 0, 3, 7]))
def test_the_nest_s_structure_covers_every_conflict_of_the_python_run(tmp_path_factory, I, J, K, read_place,
                                                                      write_place, read_index, write_index, same,
                                                                      shift, write_first, mask):
    """With the exact test out of the way (it follows no iteration), every conflict of the nest's
    own iterations is covered by a dependence at that distance or shorter, for a constant inner
    trip count or every value of the run-time one (``n``, 0..3); the indices are often one form,
    or one form up to their constants, the cases the nest's structure decides; sometimes both
    through a mask (``& 3``, ``& 7``), where the forms meet modulo its size.

    With a constant inner trip count of at least 1, every iteration of each level is a constant
    number of flattened iterations long, and where the nest's structure decides, its distances
    are the shortest conflicts themselves, in each direction, and no direction is kept that
    never conflicts."""
    read = (read_place, read_index)
    if same == "shifted":
        write_index = read_index[:3] + (max(0, read_index[3] + shift),)
    write = (write_place, read_index if same == "same" else write_index)
    kernel = _placed_kernel(tmp_path_factory.mktemp("placed"), I, J, K, read, write, write_first, mask)
    decided = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memdep, "EXACT_LIMIT", 0)
        real = memdep._nest_pair

        def recorded(*args):
            out = real(*args)
            decided.append(out is not None)
            return out
        patch.setattr(memdep, "_nest_pair", recorded)
        found = {(d.src.kind, d.dst.kind): d.distance for d in loop_dependences(_loop(lower(kernel)))
                 if d.src.attrs["array"] == "C"}
    needed = {}
    for trips in ([int(K)] if K != "n" else range(4)):
        for pair, distance in _placed_conflicts(I, J, trips, read, write, write_first, mask).items():
            needed[pair] = min(needed.get(pair, distance), distance)
    for pair, distance in needed.items():
        assert pair in found and found[pair] <= distance, (pair, distance, found)
    if K not in ("0", "n") and decided == [True]:
        assert found == needed


# -- accesses whose forms differ by a constant (issue 20, Deliver 2) -------------------------

@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-6, 6), st.integers(0, 4), st.integers(-2, 3), st.sampled_from([1, 1, 2, 3, -2])),
                min_size=1, max_size=3), st.integers(-12, 12), st.sampled_from([0, 0, 0, 4, 8, 16]))
def test_counter_differences_are_every_solution_the_ranges_allow(terms, delta, modulus):
    """``_differences`` against brute force over every pair of counter values (constant starts,
    steps of either sign): the differences ``x - y`` with ``sum(c * (x - y)) == delta``, or
    congruent to it modulo ``modulus`` (indices through a mask: ``(16 * i + j) & 63``)."""
    levels = []
    for k, (_, count, start, step) in enumerate(terms):
        values = range(start, start + count * step + (1 if step > 0 else -1), step)
        levels.append(Counter(f"c{k}", min(values), max(values), start, step))
    coefficients = [c for c, _, _, _ in terms]
    found = memdep._differences(levels, coefficients, delta, modulus)
    ranges = [range(start, start + count * step + (1 if step > 0 else -1), step) for _, count, start, step in terms]
    expected = set()
    for x in itertools.product(*ranges):
        for y in itertools.product(*ranges):
            difference = sum(c * (a - b) for c, a, b in zip(coefficients, x, y)) - delta
            if (difference % modulus if modulus else difference) == 0:
                expected.add(tuple(a - b for a, b in zip(x, y)))
    if found is None:
        # Given up only where the differences to follow are more than it keeps.
        candidates = math.prod(2 * (level.high - level.low) + 1 for level in levels)
        if modulus:
            reach = sum(abs(c) * (level.high - level.low) for c, level in zip(coefficients, levels))
            candidates *= 2 * ((reach + abs(delta)) // modulus + 1) + 1
        assert candidates > memdep.NEST_SOLUTIONS, (terms, delta)
        return
    assert set(found) == expected


@pytest.mark.parametrize("name", ["shift_left_rows", "next_row_read"])
def test_forms_differing_by_a_constant_reach_ii_one(name):
    # Beyond the exact test (128 values of n): the element read is written one iteration of j or
    # of i later, never earlier, so only read -> write stays (II 2 before: write -> read at 1).
    kernel = getattr(kernels, name)
    compiled = compile_kernel(kernel)
    entry = _report_loop(compiled)
    assert entry["flattened"] and entry["ii"] == entry["mii"] == 1
    # A row read ahead is written one iteration of i later: 16 iterations, as each i takes 16.
    distance, lengths = (1, "") if name == "shift_left_rows" else (16, " (each i takes 16 iterations)")
    assert _array_deps(_loop(compiled.ir), "C") == {("load", "store", distance)}
    read, step = ("C[i * 16 + j + 1]", "(0, 1)") if name == "shift_left_rows" else ("C[(i + 1) * 16 + j]", "(1, 0)")
    line = _line_of(kernel, f"C[i * 16 + j] = {read}")
    assert entry["independent"] == [
        f"`{read}` and `C[i * 16 + j]`: the write on line {line} touches an element the read on line {line} touched "
        f"only where its (i, j) are that one's plus {step}, at least {distance} iteration{'s' * (distance > 1)} later; "
        f"the read on line {line} never touches an element after the write on line {line} does{lengths}"]
    a = _values(160, 16, -128, 127)
    columns = 15 if name == "shift_left_rows" else 16
    for n in (0, 1, 3, 5):
        c = _values(161 + n, 256, -1000, 1000)
        result = _check(kernel, {"C": c, "A": a, "n": n})
        expected = list(c)
        for i in range(n):
            for j in range(columns):
                value = expected[i * 16 + j + 1] + a[j] if name == "shift_left_rows" \
                    else expected[(i + 1) * 16 + j] - a[j]
                expected[i * 16 + j] = (value + 2048) % 4096 - 2048        # signed(12)
        assert result.outputs["arrays"]["C"] == expected
        assert result.cycles <= n * columns + 16           # one iteration per cycle


def test_a_row_read_after_its_write_in_the_next_row_is_a_row_length_later():
    # previous_row_read with 16 columns: the element written at (i, j) is read at (i + 1, j), and
    # each i takes the 16 iterations of the constant j loop, so 16 flattened iterations later
    # (the nest test alone gave 1, as for a run-time row length, and II 2).
    kernel = kernels.previous_row_16
    compiled = compile_kernel(kernel)
    entry = _report_loop(compiled)
    assert entry["flattened"] and entry["ii"] == entry["mii"] == 1
    assert _array_deps(_loop(compiled.ir), "C") == {("store", "load", 16)}
    line = _line_of(kernel, "C[i * 16 + j] = C[(i - 1) * 16 + j]")
    assert entry["independent"] == [
        f"`C[(i - 1) * 16 + j]` and `C[i * 16 + j]`: the read on line {line} touches an element the write on line "
        f"{line} touched only where its (i, j) are that one's plus (1, 0), at least 16 iterations later; the write on "
        f"line {line} never touches an element after the read on line {line} does (each i takes 16 iterations)"]
    a = _values(175, 16, -128, 127)
    for n in (0, 2, 3, 6):
        c = _values(176 + n, 256, -1000, 1000)
        result = _check(kernel, {"C": c, "A": a, "n": n})
        expected = list(c)
        for i in range(1, n):
            for j in range(16):
                expected[i * 16 + j] = (expected[(i - 1) * 16 + j] + a[j] + 2048) % 4096 - 2048     # signed(12)
        assert result.outputs["arrays"]["C"] == expected
        assert result.cycles <= max(0, n - 1) * 16 + 16       # one iteration per cycle


@pytest.mark.parametrize("name", ["ring_rows", "ring_running_sum"])
def test_indices_through_a_mask_meet_only_where_equal_modulo_it(name):
    # (i * 16 + j) & 63 with n: unsigned(7) rows wraps every 4 rows: the nest test solves for the
    # counter differences modulo 64. ring_rows reads row i + 1's element 16 iterations after its
    # write (II 1, was 2: the masked indices were "always conflict"); ring_running_sum reads it 1
    # iteration later (II 2, needed).
    kernel = getattr(kernels, name)
    compiled = compile_kernel(kernel)
    entry = _report_loop(compiled)
    ring = name == "ring_rows"
    assert entry["flattened"] and entry["ii"] == entry["mii"] == (1 if ring else 2)
    line = _line_of(kernel, "C[(i * 16 + j + 16) & 63]" if ring else "C[(i * 16 + j + 1) & 63]")
    if ring:
        assert _array_deps(_loop(compiled.ir), "C") == {("store", "load", 16), ("load", "store", 48)}
        assert entry["independent"] == [
            f"`C[i * 16 + j & 63]` and `C[i * 16 + j + 16 & 63]`: the write on line {line} touches an element the read "
            f"on line {line} touched only where its (i, j) are that one's plus (3, 0) or (7, 0) or (11, 0) or 28 more, "
            f"at least 48 iterations later; the read on line {line} touches an element the write on line {line} touched "
            f"only where its (i, j) are that one's plus (1, 0) or (5, 0) or (9, 0) or 29 more, at least 16 iterations "
            f"later (each i takes 16 iterations; the indices are equal only modulo 64)"]
    else:
        assert _array_deps(_loop(compiled.ir), "C") == {("store", "load", 1), ("load", "store", 63)}
    a = _values(180, 16, -128, 127)
    for n in (0, 1, 3, 9):
        c = _values(181 + n, 64, -1000, 1000)
        result = _check(kernel, {"C": c, "A": a, "n": n})
        expected = list(c)
        for i in range(n):
            for j in range(16):
                value = expected[(i * 16 + j) & 63] + a[j]
                expected[(i * 16 + j + (16 if ring else 1)) & 63] = (value + 2048) % 4096 - 2048
        assert result.outputs["arrays"]["C"] == expected
        assert result.cycles <= n * 16 * (1 if ring else 2) + 16


def _line_of(kernel, statement: str) -> int:
    """The line of ``statement`` in ``kernel``'s file."""
    (line,) = [number for number, text in enumerate(open(inspect.getsourcefile(kernel.fn)).read().splitlines(), 1)
               if text.strip().startswith(statement)]
    return line


def _drop_write_to_read(patch):
    """Make the nest test drop every write -> read dependence it keeps (what a lower II needs)."""
    real = memdep._nest_pair

    def dropped(first, second, *args):
        out = real(first, second, *args)
        if out is None:
            return None
        found, proof = out
        return [dep for dep in found if not (dep.src.kind == "store" and dep.dst.kind == "load")], proof
    patch.setattr(memdep, "_nest_pair", dropped)


@pytest.mark.parametrize("name, args", [
    ("shift_right_rows", {"n": 3}),
    ("previous_row_read", {"n": 3, "m": 1}),
    ("around_shifted", {"n": 2}),
])
def test_shifted_near_misses_keep_write_to_read_and_need_it(name, args):
    # The element written is read one flattened iteration later (along a row, across rows at its
    # end, or in the next row when a row is one iteration long): write -> read stays at distance
    # 1, read -> write goes. Dropped, the hardware reads the old value and differs from Python.
    kernel = getattr(kernels, name)
    compiled = compile_kernel(kernel)
    entry = _report_loop(compiled)
    assert entry["ii"] == entry["mii"] == 2
    assert _array_deps(_loop(compiled.ir), "C") == {("store", "load", 1)}
    (proof,) = entry["independent"]
    assert "at least 1 iteration later; the write on line" in proof
    args = {"C": _values(170, 256, -1000, 1000), "A": _values(171, 64 if name == "around_shifted" else 16, -128, 127),
            **args}
    _check(kernel, args)
    if name == "previous_row_read":
        _check(kernel, {**args, "n": 5, "m": 15})
    with pytest.MonkeyPatch.context() as patch:
        _drop_write_to_read(patch)
        assert _report_loop(compile_kernel(kernel))["ii"] == 1
        assert not run(kernel, args, max_cycles=20_000).match
