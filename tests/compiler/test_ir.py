"""The IR: if-conversion, memory dependence analysis, and the scheduling problems built from it."""

from amaranth.hdl import signed, unsigned
from hypothesis import given, settings, strategies as st

import semantics_kernels as kernels
from benchmarks.kernels import load
from hls.analysis.memdep import loop_dependences, memory_dependences
from hls.analysis.predicates import exclusive
from hls.analysis.block_problems import build_problem
from hls.target import Target
from hls.compiler import lower
from hls.ir import Block, Op, PipelinedLoop


def _loop(kernel):
    ir = lower(kernel)
    (loop,) = [node for node in ir.nodes if isinstance(node, PipelinedLoop)]
    return ir, loop


def test_if_conversion_merges_with_select_and_keeps_one_block():
    ir, loop = _loop(load("gsumif")[0])
    kinds = [op.kind for op in loop.body.ops]
    assert "select" in kinds and not loop.body.exits and loop.body.branch is None
    (commit,) = [op for op in loop.body.ops if op.kind == "commit" and op.attrs["var"] == "s"]
    assert commit.operands[0].kind in ("select", "wrap")
    assert loop.info.pipelined and loop.info.trip_count is None


def test_stores_carry_exclusive_predicates():
    _, loop = _loop(kernels.exclusive_stores)
    stores = [op for op in loop.body.ops if op.kind == "store" and op.attrs["array"] == "pos"]
    assert len(stores) == 2 and all(op.predicate is not None for op in stores)
    assert exclusive(*stores)
    (neg_store,) = [op for op in loop.body.ops if op.kind == "store" and op.attrs["array"] == "neg"]
    assert not exclusive(neg_store, stores[1]) or stores[1].predicate is not neg_store.predicate


def test_repeated_read_is_made_once():
    _, loop = _loop(kernels.pragma_ii)
    assert len([op for op in loop.body.ops if op.kind == "load"]) == 1


def test_affine_distance_one_and_zero():
    _, loop = _loop(kernels.in_place)       # a[i] = a[i] + a[i - 1]
    found = {(d.src.kind, d.dst.kind, d.distance, d.exact) for d in loop_dependences(loop)}
    assert ("store", "load", 1, True) in found          # a[i] written, a[(i+1)-1] read next iteration
    assert ("load", "store", 0, True) in found          # a[i] read before a[i] is written
    assert all(d[2] in (0, 1) for d in found)


def test_reads_only_have_no_memory_dependence():
    _, loop = _loop(kernels.shift_window)
    assert loop_dependences(loop) == []


def test_data_dependent_index_is_conservative():
    _, loop = _loop(load("histogram")[0])
    deps = loop_dependences(loop)
    assert deps and not any(d.exact for d in deps)
    assert {d.distance for d in deps} == {0, 1}


def test_scalar_recurrence_is_a_distance_one_dependence():
    ir, loop = _loop(load("vsum")[0])
    problem = build_problem(loop.body, Target(), loop=loop).problem
    carried = [d for d in problem.dependences if d.distance == 1]
    assert carried and all(problem.operations[d.src].operator_type == "carry" for d in carried)
    assert all(problem.operations[d.dst].operator_type == "wire" for d in carried)   # the next read of s


def test_loops_outside_the_innermost_are_sequential_control_flow():
    # for-over-for nests are flattened (issue 11); an inner while keeps its outer loop a state machine.
    ir = lower(load("insertion_sort")[0])
    outer, inner = ir.loops
    assert not outer.pipelined and inner.pipelined
    assert "while loop" in outer.reason
    assert outer.latch is not None and outer.latch.branch is not None
    graph = ir.cfg()
    body_entry = outer.latch.branch[1]
    assert graph.has_edge(outer.latch, body_entry) and graph.has_edge(outer.latch, outer.exit_block)


# -- memory dependences against brute force ---------------------------------------------

def _affine_block(stride_p, offset_p, stride_q, offset_q, p_store, q_store):
    counter = Op("i", "induction", [], signed(8))
    ops = [counter]

    def index(stride, offset, tag):
        stride_op = Op(f"c{tag}", "const", [], signed(8), attrs={"value": stride})
        offset_op = Op(f"o{tag}", "const", [], signed(8), attrs={"value": offset})
        product = Op(f"m{tag}", "mul", [counter, stride_op], signed(16))
        total = Op(f"s{tag}", "add", [product, offset_op], signed(17))
        ops.extend([stride_op, offset_op, product, total])
        return total

    def access(tag, idx, is_store):
        if is_store:
            value = Op(f"v{tag}", "const", [], unsigned(1), attrs={"value": 1})
            ops.append(value)
            op = Op(tag, "store", [idx, value], unsigned(0), attrs={"array": "a"})
        else:
            op = Op(tag, "load", [idx], unsigned(8), attrs={"array": "a"})
        ops.append(op)
        return op

    p = access("P", index(stride_p, offset_p, "p"), p_store)
    q = access("Q", index(stride_q, offset_q, "q"), q_store)
    return Block("b", ops), p, q


@settings(max_examples=200, deadline=None)
@given(st.integers(-3, 3), st.integers(-6, 6), st.integers(-3, 3), st.integers(-6, 6),
       st.booleans(), st.booleans(), st.integers(1, 3), st.integers(1, 12))
def test_dependences_cover_every_conflict(sp, op_, sq, oq, p_store, q_store, step, trip):
    if not (p_store or q_store):
        p_store = True
    block, p, q = _affine_block(sp, op_, sq, oq, p_store, q_store)
    deps = memory_dependences(block, loop_step=step, trip_count=trip)
    # Per-iteration induction values start at 0 and advance by `step`.
    conflicts = set()
    for k1 in range(trip):
        for k2 in range(trip):
            if sp * k1 * step + op_ == sq * k2 * step + oq:
                conflicts.add(("P", "Q", k2 - k1) if k2 >= k1 else ("Q", "P", k1 - k2))
    covered = {(d.src.name, d.dst.name, d.distance) for d in deps}
    for src, dst, distance in conflicts:
        # A dependence at a shorter distance orders this pair too: later iterations of the
        # same operation only start later.
        assert any(s == src and t == dst and c <= distance for s, t, c in covered), (conflicts, covered)
    for dep in deps:
        if dep.exact:
            assert (dep.src.name, dep.dst.name, dep.distance) in conflicts


def test_read_after_store_to_a_constant_index_is_ordered(tmp_path):
    # Found by sim.fuzz (seed 7, program 25): the shared memo of affine forms lost the
    # constant of the second access, so the load was scheduled before the store.
    from axhls.loading import import_file
    source = tmp_path / "raw_kernel.py"
    source.write_text(
        "import hls\nfrom amaranth import unsigned\n\n@hls.kernel\n"
        "def raw(a: hls.Array[unsigned(4), 4], n: unsigned(3)):\n"
        "    a[2] = n\n"
        "    a[a[2] & 3] = 9\n")
    kernel = import_file(str(source)).raw
    block = lower(kernel).nodes[0]
    store, load_ = [op for op in block.ops if op.kind in ("load", "store")][:2]
    deps = memory_dependences(block)
    assert any(d.src is store and d.dst is load_ and d.distance == 0 for d in deps)
    from sim.kernel import run
    for n in range(8):
        assert run(kernel, {"a": [1, 2, 3, 4], "n": n}).match
