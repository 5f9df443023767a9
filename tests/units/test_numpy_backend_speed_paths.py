"""The numpy model's fast paths against a straightforward reference interpretation.

The interpreter in :mod:`approx_units.numpy_backend` skips redundant masks,
works in place on its temporaries, folds constant parts of concatenations,
clamps variable right shifts and reads leading-one positions from float64
exponents. This file keeps a deliberately naive interpreter (every result
masked to its width, every bit of a leading-one scan looked at, no blocking)
and checks that both give bit-identical results.
"""

from __future__ import annotations

import numpy as np
import pytest

import approx_units
from approx_units import numpy_backend
from approx_units.dataflow import Ops

U64 = np.uint64


def _mask(width):
    return U64((1 << width) - 1) if width < 64 else U64(2**64 - 1)


def _reference_lod(value, width):
    position = np.zeros(np.shape(value), dtype=np.uint64)
    for i in range(1, width):
        position += (value >> U64(i)) != 0
    return position


def _safe_shift(value, amount, left):
    """A shift that gives 0 for amounts of 64 or more (numpy leaves those undefined)."""
    value, amount = np.broadcast_arrays(np.asarray(value, dtype=np.uint64),
                                        np.asarray(amount, dtype=np.uint64))
    small = amount < U64(64)
    clamped = np.where(small, amount, U64(0))
    shifted = (value << clamped) if left else (value >> clamped)
    return np.where(small, shifted, U64(0))


def reference_evaluate(graph, inputs):
    """The graph's meaning, one node at a time over whole arrays, every result masked."""
    values = {}
    with np.errstate(over="ignore"):
        for node in graph.nodes:
            op, w = node.op, node.width
            args = [values[a] for a in node.args]
            if op == "input":
                r = np.asarray(inputs[node.attrs[0]], dtype=np.uint64)
            elif op == "const":
                r = U64(node.attrs[0])
            elif op == "add":
                r = args[0] + args[1]
            elif op == "sub":
                r = args[0] - args[1]
            elif op == "mul":
                r = args[0] * args[1]
            elif op == "and":
                r = args[0] & args[1]
            elif op == "or":
                r = args[0] | args[1]
            elif op == "xor":
                r = args[0] ^ args[1]
            elif op == "not":
                r = ~np.asarray(args[0], dtype=np.uint64)
            elif op == "shl":
                r = _safe_shift(args[0], args[1], left=True)
            elif op == "shr":
                r = _safe_shift(args[0], args[1], left=False)
            elif op == "slice":
                r = args[0] >> U64(node.attrs[0])
            elif op == "cat":
                r, offset = U64(0), 0
                for part, value in zip(node.args, args):
                    r = r | (np.asarray(value, dtype=np.uint64) << U64(offset))
                    offset += part.width
            elif op == "mux":
                r = np.where(args[0] != 0, args[1], args[2])
            elif op == "eq":
                r = (args[0] == args[1]).astype(np.uint64)
            elif op == "lt":
                r = (args[0] < args[1]).astype(np.uint64)
            elif op == "lod":
                r = _reference_lod(args[0], node.args[0].width)
            elif op == "lookup":
                r = np.asarray(node.attrs, dtype=np.uint64)[np.asarray(args[0]).astype(np.intp)]
            else:
                raise AssertionError(op)
            values[node] = np.asarray(r, dtype=np.uint64) & _mask(w)
    return np.broadcast_to(values[graph.output],
                           np.broadcast_shapes(*(np.shape(v) for v in inputs.values())))


SPECIAL = [0, 1, 2, 3, 2**31, 2**32 - 1, 2**32, 2**52, 2**53 - 1, 2**53, 2**53 + 1,
           2**54 - 1, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1]


def _random_values(width, count, seed):
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 2**64 - 1, size=count, dtype=np.uint64, endpoint=True)
    # Spread the leading-one positions: shift each value right by a random amount.
    shifted = raw >> rng.integers(0, 64, size=count, dtype=np.uint64)
    values = np.concatenate([raw, shifted, np.array(SPECIAL, dtype=np.uint64)])
    return values & _mask(width)


@pytest.mark.parametrize("width", [1, 2, 8, 16, 31, 32, 33, 52, 53, 54, 63, 64])
def test_leading_one_matches_bit_scan(width):
    values = _random_values(width, 20000, seed=width)
    fast = numpy_backend._leading_one(values, width)
    assert fast.dtype == np.uint64
    np.testing.assert_array_equal(fast, _reference_lod(values, width))


def test_leading_one_special_values_are_exact():
    values = np.array(SPECIAL, dtype=np.uint64)
    expected = np.array([max(int(v).bit_length() - 1, 0) for v in SPECIAL], dtype=np.uint64)
    np.testing.assert_array_equal(numpy_backend._leading_one(values, 64), expected)
    small = values[values < U64(2**53)]
    np.testing.assert_array_equal(numpy_backend._leading_one(small, 53),
                                  expected[values < U64(2**53)])
    assert int(numpy_backend._leading_one(np.uint64(0), 16)) == 0
    assert int(numpy_backend._leading_one(np.uint64(2**40 + 5), 53)) == 40


def _operands(unit, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    for operand in ("a", "b"):
        lo, hi = unit.operand_range(operand)
        edges = np.array([lo, lo + 1, 0, 1, hi - 1, hi], dtype=np.int64)
        edges = edges[(edges >= lo) & (edges <= hi)]
        out.append(np.concatenate([rng.integers(lo, hi, size=count, endpoint=True), edges]))
    return out


UNITS = ["mitchell", "mitchell_refined", "drum", "iterlog", "mitchell_div"]


@pytest.mark.parametrize("width", [8, 16, 32])
@pytest.mark.parametrize("name", UNITS)
def test_model_matches_reference_interpretation(name, width, monkeypatch):
    unit = approx_units.get(name, width=width)
    a, b = _operands(unit, 5000, seed=width)
    # Every pair of a few operands (the outer-product path) and a long vector of pairs.
    pa, pb = unit.to_patterns(a, b)
    expected = reference_evaluate(unit.graph, {"a": pa, "b": pb})
    np.testing.assert_array_equal(numpy_backend.evaluate(unit.graph, {"a": pa, "b": pb}), expected)
    monkeypatch.setattr(numpy_backend, "BLOCK", 777)      # many partial tiles
    grid = {"a": pa[:40, None], "b": pb[None, :300]}
    np.testing.assert_array_equal(numpy_backend.evaluate(unit.graph, grid),
                                  reference_evaluate(unit.graph, grid))
    swapped = {"a": pa[None, :300], "b": pb[:40, None]}
    np.testing.assert_array_equal(numpy_backend.evaluate(unit.graph, swapped),
                                  reference_evaluate(unit.graph, swapped))


@pytest.mark.parametrize("name", ["mitchell", "mitchell_div", "drum"])
def test_model_matches_reference_exhaustively_at_8_bits(name):
    unit = approx_units.get(name, width=8)
    lo_a, hi_a = unit.operand_range("a")
    lo_b, hi_b = unit.operand_range("b")
    pa, pb = unit.to_patterns(np.arange(lo_a, hi_a + 1)[:, None], np.arange(lo_b, hi_b + 1)[None, :])
    np.testing.assert_array_equal(numpy_backend.evaluate(unit.graph, {"a": pa, "b": pb}),
                                  reference_evaluate(unit.graph, {"a": pa, "b": pb}))


def _graph(build, a_width, b_width):
    ops = Ops()
    a, b = ops.input("a", a_width), ops.input("b", b_width)
    ops.graph.output = ops._as_node(build(ops, a, b))
    return ops.graph


GRAPHS = {
    # cat with constant parts in every position, a slice from bit 0 that is the whole value
    "cat_constants": (lambda o, a, b: o.cat(o.const(5, 3), a, o.const(1, 1), o.slice(b, 0, b.width),
                                            o.const(0, 2)), 12, 9),
    "cat_only_constants": (lambda o, a, b: o.add(o.cat(o.const(3, 2), o.const(1, 1)), a), 8, 8),
    "replicate": (lambda o, a, b: o.xor(o.replicate(o.bit(a, 3), 7), b), 8, 7),
    # variable shifts by amounts of 64 or more, of 63- and 64-bit values
    "shr_wide_amount_63": (lambda o, a, b: o.shr(o.zext(a, 63), b), 40, 7),
    "shr_wide_amount_64": (lambda o, a, b: o.shr(o.cat(a, a), b), 32, 7),
    "shl_wide_amount": (lambda o, a, b: o.shl(a, b, width=64), 40, 7),
    "shl_narrow": (lambda o, a, b: o.shl(a, b, width=9), 8, 3),
    "lod_wide": (lambda o, a, b: o.add(o.lod(o.cat(a, b)), o.lod(a)), 32, 32),
    "lod_54": (lambda o, a, b: o.lod(o.cat(a, b)), 27, 27),
    "arith_wrap": (lambda o, a, b: o.sub(o.mul(a, b), o.add(a, b, width=5), width=13), 16, 16),
    "sub_64": (lambda o, a, b: o.sub(o.cat(a, b), b, width=64), 32, 32),
    "mux_compare": (lambda o, a, b: o.mux(o.lt(a, b), o.not_(a), o.slice(b, 2, 9)), 10, 10),
    # comparison results (kept as flags) through 1-bit logic, and into other operations
    "flags_logic": (lambda o, a, b: o.mux(o.xor(o.or_(o.eq(a, 0), o.not_(o.lt(a, b))), o.and_(o.lt(b, 3), o.ge(a, 5))),
                                          o.add(o.eq(a, b), o.lt(a, b)), o.cat(o.lt(b, a), o.replicate(o.eq(b, 0), 3),
                                                                              o.mux(o.lt(a, 4), o.eq(a, 1), o.bit(b, 0)))),
                    4, 4),
    "flags_mixed": (lambda o, a, b: o.cat(o.and_(o.lt(a, b), o.bit(a, 0)), o.or_(o.bit(b, 1), o.eq(a, b)),
                                          o.mux(o.bit(a, 2), o.lt(a, b), o.eq(b, 7)), o.sub(o.eq(a, 2), o.lt(b, a))), 4, 4),
    "flags_output": (lambda o, a, b: o.not_(o.eq(o.lod(a), o.lod(b))), 16, 16),
    # graphs held in uint8, uint16 and uint32: shifts by the dtype's width or more,
    # arithmetic that wraps modulo the dtype before the node's own width is applied
    "u8_shifts_past_width": (lambda o, a, b: o.xor(o.shl(a, b, width=8), o.shr(a, b)), 5, 4),
    "u8_sub_mul_wrap": (lambda o, a, b: o.sub(o.mul(a, b), o.add(a, b), width=8), 4, 4),
    "u16_shl_wrap": (lambda o, a, b: o.shl(o.add(a, b), b, width=16), 12, 5),
    "u32_shl_past_width": (lambda o, a, b: o.shl(a, b, width=32), 20, 6),
    "u32_shr_past_width": (lambda o, a, b: o.shr(o.cat(a, b), b), 26, 6),
    "u32_lookup_lod": (lambda o, a, b: o.add(o.lookup(o.slice(a, 0, 3), [7, 0, 255, 1, 2, 3, 4, 5], 8),
                                             o.lod(o.cat(a, b)), width=9), 16, 16),
    "u16_mux_constant_branches": (lambda o, a, b: o.xor(o.mux(o.lt(a, b), o.const(1023, 10), o.mux(o.eq(a, 3), b, o.const(0, 10))),
                                                       o.mux(o.lt(b, a), o.const(0, 10), o.not_(a))), 10, 10),
    "u32_mux_scalar_branches": (lambda o, a, b: o.mux(o.lt(a, b), o.const(2**32 - 1, 32),
                                                       o.mux(o.eq(b, 0), o.const(0, 32), o.mul(a, b))), 16, 16),
}


@pytest.mark.parametrize("key", sorted(GRAPHS))
def test_operations_match_reference(key, monkeypatch):
    build, wa, wb = GRAPHS[key]
    graph = _graph(build, wa, wb)
    rng = np.random.default_rng(len(key))
    a = _random_values(wa, 3000, seed=1)
    b = _random_values(wb, 3000, seed=2)
    a, b = a[rng.permutation(a.size)], b[rng.permutation(b.size)]
    inputs = {"a": a, "b": b}
    np.testing.assert_array_equal(numpy_backend.evaluate(graph, inputs), reference_evaluate(graph, inputs))
    monkeypatch.setattr(numpy_backend, "BLOCK", 100)
    for grid in ({"a": a[:30, None], "b": b[None, :200]}, {"a": a[None, :200], "b": b[:30, None]},
                 {"a": a[:50], "b": b[7]}, {"a": a[3], "b": b[:50]},
                 {"a": a[:6000].reshape(30, 200), "b": b[None, :200]}):
        np.testing.assert_array_equal(numpy_backend.evaluate(graph, grid), reference_evaluate(graph, grid))


def test_inputs_are_not_modified():
    # In-place updates must only touch the interpreter's own temporaries.
    for name in UNITS:
        unit = approx_units.get(name, width=16)
        a, b = _operands(unit, 1000, seed=3)
        pa, pb = unit.to_patterns(a, b)
        ca, cb = pa.copy(), pb.copy()
        numpy_backend.evaluate(unit.graph, {"a": pa, "b": pb})
        numpy_backend.evaluate(unit.graph, {"a": pa[:20, None], "b": pb[None, :50]})
        np.testing.assert_array_equal(pa, ca)
        np.testing.assert_array_equal(pb, cb)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_numpy_shifts_by_the_dtype_width_or_more_give_zero(dtype):
    # The interpreter relies on this (as the hardware's shifters behave) instead of
    # guarding every variable shift; a numpy that changed it would fail here.
    bits = np.iinfo(dtype).bits
    values = np.full(1000, np.iinfo(dtype).max, dtype=dtype)          # SIMD body and tail
    amounts = (np.arange(1000) % (2 * bits)).astype(dtype)
    past = amounts >= bits
    assert not np.any((values << amounts)[past]) and not np.any((values >> amounts)[past])
    assert np.all((values << amounts)[~past] != 0)
    assert int(dtype(1) << dtype(bits)) == 0 and int(values[0] >> dtype(bits)) == 0


@pytest.mark.parametrize("widths, dtype", [((1, 8), np.uint8), ((9,), np.uint16), ((16, 17), np.uint32),
                                           ((32,), np.uint32), ((33, 64), np.uint64)])
def test_values_are_held_in_the_narrowest_dtype_for_the_widest_node(widths, dtype):
    ops = Ops()
    for index, width in enumerate(widths):
        ops.input(f"x{index}", width)
    assert numpy_backend.value_dtype(ops.graph) is dtype


def test_tiles_cover_the_output_once_and_match_evaluate(monkeypatch):
    unit = approx_units.get("mitchell", width=8)
    pa, pb = unit.to_patterns(np.arange(200)[:, None], np.arange(256)[None, :])
    whole = numpy_backend.evaluate(unit.graph, {"a": pa, "b": pb})
    monkeypatch.setattr(numpy_backend, "BLOCK", 1000)
    covered = np.zeros(whole.shape, dtype=int)
    for rows, cols, tile in numpy_backend.evaluate_tiles(unit.graph, {"a": pa, "b": pb}):
        assert tile.dtype == np.uint64 and tile.shape == covered[rows, cols].shape
        np.testing.assert_array_equal(tile, whole[rows, cols])
        covered[rows, cols] += 1
    assert np.all(covered == 1)
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        next(numpy_backend.evaluate_tiles(unit.graph, {"a": pa[:, :, None], "b": pb}))
