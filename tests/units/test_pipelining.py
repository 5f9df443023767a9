"""Pipelining: the lowering that lets registers go inside wide operations, and the delay model.

The numpy model interprets the graph as traced; the hardware of a pipelined
unit is built from the lowered graph. Both must compute the same function.
"""

import numpy as np
import pytest

import approx_units
from approx_units.dataflow import (Ops, arrival_times, lower, lowerable, node_delay, operand_delays,
                                   partition, pipeline)
from approx_units.numpy_backend import evaluate
from approx_units.registry import spec
from sim import run_unit


def _graph(build, a_width, b_width):
    ops = Ops()
    a, b = ops.input("a", a_width), ops.input("b", b_width)
    ops.graph.output = ops._as_node(build(ops, a, b))
    return ops.graph


def _all_patterns(graph):
    a_width, b_width = graph.inputs["a"].width, graph.inputs["b"].width
    a, b = np.meshgrid(np.arange(1 << a_width, dtype=np.uint64), np.arange(1 << b_width, dtype=np.uint64))
    return {"a": a.ravel(), "b": b.ravel()}


def _lower_everything(graph):
    chosen = [node for node in graph.nodes if lowerable(node)]
    assert chosen, "the case must exercise the lowering"
    lowered = lower(graph, chosen)
    assert not any(lowerable(node) for node in lowered.nodes)     # lowered forms are final
    return lowered


TABLE = [int(v) for v in np.random.default_rng(3).integers(0, 1 << 7, 1 << 7)]
TABLE[:32] = [5] * 32          # a constant quarter becomes a constant, not a table

# (id, description, a width, b width)
CASES = [
    ("shl_widening", lambda o, a, b: o.shl(a, b, width=13), 6, 4),
    ("shl_narrowing", lambda o, a, b: o.shl(a, b, width=5), 8, 3),
    ("shl_amount_wider_than_needed", lambda o, a, b: o.shl(a, b, width=6), 3, 7),
    ("shl_two_bits", lambda o, a, b: o.shl(a, b, width=2), 2, 3),
    ("shr", lambda o, a, b: o.shr(a, b), 9, 4),
    ("shr_amount_wider_than_needed", lambda o, a, b: o.shr(a, b), 5, 6),
    ("lookup_7_bits", lambda o, a, b: o.lookup(a, TABLE, 7), 7, 1),
    ("lookup_5_bits", lambda o, a, b: o.lookup(o.slice(a, 0, 5), TABLE[40:72], 4), 6, 2),
    *[(f"lod_{w}", lambda o, a, b: o.lod(a), w, 1) for w in (5, 6, 8, 9, 12)],
    ("mul_5x4", lambda o, a, b: o.mul(a, b), 5, 4),
    ("mul_truncated_use", lambda o, a, b: o.slice(o.mul(a, b), 3, 9), 6, 6),
    ("eq_constant", lambda o, a, b: o.eq(o.cat(a, b), 0b100101001), 6, 3),
    ("eq_variables", lambda o, a, b: o.eq(a, b), 5, 3),
    ("sub_from_all_ones", lambda o, a, b: o.sub(o.const(31, 5), o.lod(o.cat(a, b)), width=5), 6, 5),
    ("sub_from_all_ones_narrow", lambda o, a, b: o.sub(o.const(63, 6), a, width=3), 6, 1),
]


@pytest.mark.parametrize("description,a_width,b_width", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_lowering_is_bit_identical_on_the_model(description, a_width, b_width):
    graph = _graph(description, a_width, b_width)
    lowered = _lower_everything(graph)
    inputs = _all_patterns(graph)
    assert lowered.output.width == graph.output.width
    assert np.array_equal(evaluate(lowered, inputs), evaluate(graph, inputs))


@pytest.mark.parametrize("name", approx_units.names())
@pytest.mark.parametrize("signed", [False, True])
def test_every_unit_lowered_matches_its_model_exhaustively(name, signed):
    if signed and not spec(name).signed_variant:
        pytest.skip("no signed variant")
    unit = approx_units.get(name, width=6, signed=signed)
    graph = unit.graph
    if not any(lowerable(node) for node in graph.nodes):
        pytest.skip("nothing to lower")
    lowered = lower(graph, graph.nodes)
    inputs = _all_patterns(graph)
    assert np.array_equal(evaluate(lowered, inputs), evaluate(graph, inputs))


def test_not_lowerable_nodes_are_copied_unchanged():
    ops = Ops()
    a, b = ops.input("a", 4), ops.input("b", 4)
    small = ops.lookup(a, list(range(16)), 4)         # a single LUT4 per bit already
    total = ops.add(small, ops.shr(b, ops.slice(a, 0, 1)))   # a one-level shifter
    ops.graph.output = total
    assert not any(lowerable(node) for node in ops.graph.nodes)
    copy = lower(ops.graph, ops.graph.nodes)
    assert [(n.op, n.width, n.attrs) for n in copy.nodes] == [(n.op, n.width, n.attrs) for n in ops.graph.nodes]


def test_combinational_units_are_never_lowered():
    unit = approx_units.get("mitchell_refined", width=32)
    graph, cut = pipeline(unit.graph, 0)
    assert graph is unit.graph
    assert cut.stages == 0 and len(cut.segment_delay) == 1


@pytest.mark.parametrize("name,width,stages", [("mitchell_refined", 32, 4), ("mitchell", 32, 3),
                                               ("drum", 32, 3), ("iterlog", 16, 2)])
def test_lowering_shortens_the_estimated_period(name, width, stages):
    graph = approx_units.get(name, width=width).graph
    lowered, cut = pipeline(graph, stages)
    assert len(lowered.nodes) > len(graph.nodes)
    assert cut.critical_path < partition(graph, stages).critical_path
    assert len(cut.segment_delay) == stages + 1


def test_only_what_limits_the_clock_is_lowered():
    # A pipeline whose slowest segment is a carry chain gains nothing from
    # lowering the shifter elsewhere, so the shifter stays whole.
    ops = Ops()
    a, b = ops.input("a", 64), ops.input("b", 64)
    shifted = ops.shl(ops.slice(a, 0, 8), ops.slice(b, 0, 2), width=11)
    chain = ops.add(ops.add(a, b), ops.add(b, a))
    ops.graph.output = ops.add(chain, shifted)
    graph, _ = pipeline(ops.graph, 1)
    assert graph is ops.graph


# Hardware: a deep pipeline of the lowered graph against the model of the traced one.
@pytest.mark.parametrize("name", approx_units.names())
@pytest.mark.parametrize("signed", [False, True])
def test_four_stage_hardware_matches_the_model(name, signed):
    if signed and not spec(name).signed_variant:
        pytest.skip("no signed variant")
    unit = approx_units.get(name, width=4, stages=4, signed=signed)
    lo, hi = unit.operand_range("a")
    a, b = np.meshgrid(np.arange(lo, hi + 1), np.arange(lo, hi + 1))
    a, b = a.ravel(), b.ravel()
    hardware = run_unit(unit, a, b)
    model = unit.model(a, b)
    assert np.array_equal(hardware, model), f"{int(np.sum(hardware != model))} mismatches"


def test_four_stage_hardware_is_lowered_somewhere():
    # Keeps the test above meaningful: at 4 bits, pipelines of several units are lowered.
    lowered = [name for name in approx_units.names()
               if len(pipeline(approx_units.get(name, width=4).graph, 4)[0].nodes) >
               len(approx_units.get(name, width=4).graph.nodes)]
    assert {"mitchell", "mitchell_refined"} <= set(lowered), lowered


@pytest.mark.parametrize("name", [n for n in approx_units.names()
                                  if any(lowerable(node) for node in approx_units.get(n, width=5).graph.nodes)])
@pytest.mark.parametrize("stages", [0, 2])
def test_hardware_of_the_fully_lowered_graph_matches_the_model(name, stages):
    # Every lowerable node lowered, whether it helps the clock or not, so the
    # hardware of each lowered form is simulated (the pipeliner alone lowers
    # few nodes of a 4- or 5-bit unit).
    unit = approx_units.get(name, width=5, stages=stages)
    lowered_unit = approx_units.get(name, width=5, stages=stages)
    lowered_unit.__dict__["graph"] = lower(unit.graph, unit.graph.nodes)     # overrides the cached trace
    a, b = np.meshgrid(np.arange(32), np.arange(32))
    a, b = a.ravel(), b.ravel()
    assert np.array_equal(run_unit(lowered_unit, a, b), unit.model(a, b))


@pytest.mark.parametrize("name", ["mitchell_refined", "mitchell_div_refined", "drum"])
def test_six_bit_four_stage_hardware_matches_the_model(name):
    unit = approx_units.get(name, width=6, stages=4)
    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 64, 1500), rng.integers(0, 64, 1500)
    a[:64], b[:64] = np.arange(64), np.arange(64)[::-1]
    assert np.array_equal(run_unit(unit, a, b), unit.model(a, b))


# -- delay model ------------------------------------------------------------------

def test_carry_chains_grow_with_width():
    ops = Ops()
    a, b = ops.input("a", 64), ops.input("b", 64)
    narrow = ops.add(ops.slice(a, 0, 8), ops.slice(b, 0, 8))
    wide = ops.add(a, b)
    times = arrival_times(ops.graph)
    assert times[narrow] == pytest.approx(1.5 + 0.035 * 8)      # the calibrated constants
    assert times[wide] == pytest.approx(1.5 + 0.035 * 64)


def test_a_select_pays_for_its_fanout():
    ops = Ops()
    a, b = ops.input("a", 64), ops.input("b", 64)
    wide = ops.mux(ops.bit(a, 0), a, b)
    narrow = ops.mux(ops.bit(a, 0), ops.slice(a, 0, 4), ops.slice(b, 0, 4))
    select, data, _ = operand_delays(wide)
    assert select > data
    assert operand_delays(narrow)[0] == operand_delays(narrow)[1]
    assert node_delay(wide) == select


def test_a_lowered_shifter_costs_what_the_whole_one_does():
    # Otherwise lowering would move registers for a change in the estimate alone.
    graph = _graph(lambda o, a, b: o.shr(a, b), 32, 5)
    lowered = _lower_everything(graph)
    assert max(arrival_times(lowered).values()) == pytest.approx(node_delay(graph.output))
