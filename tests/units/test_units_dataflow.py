"""The operator layer: each operation means the same in numpy, in Amaranth, and in plain Python."""

import numpy as np
import pytest

from approx_units.registry import Unit, UnitSpec
from sim import run_unit

WIDTH = 4
M = (1 << WIDTH) - 1

# (name, description(ops, a, b), reference(a, b) on Python ints, output width)
CASES = [
    ("add", lambda o, a, b: o.add(a, b), lambda a, b: a + b, 5),
    ("add_truncated", lambda o, a, b: o.add(a, b, width=3), lambda a, b: (a + b) % 8, 3),
    ("sub_wraps", lambda o, a, b: o.sub(a, b, width=4), lambda a, b: (a - b) % 16, 4),
    ("sub_sign_extends", lambda o, a, b: o.sub(a, b, width=9), lambda a, b: (a - b) % 512, 9),
    ("mul", lambda o, a, b: o.mul(a, b), lambda a, b: a * b, 8),
    ("and", lambda o, a, b: o.and_(a, o.slice(b, 1, 3)), lambda a, b: a & ((b >> 1) & 3), 4),
    ("or", lambda o, a, b: o.or_(a, b), lambda a, b: a | b, 4),
    ("xor", lambda o, a, b: o.xor(a, b), lambda a, b: a ^ b, 4),
    ("not", lambda o, a, b: o.not_(a), lambda a, b: M ^ a, 4),
    ("shl", lambda o, a, b: o.shl(a, b, width=7), lambda a, b: (a << b) % 128, 7),
    ("shr", lambda o, a, b: o.shr(a, b), lambda a, b: a >> b, 4),
    ("slice_cat", lambda o, a, b: o.cat(o.slice(a, 1, 3), b, o.const(1, 2)),
     lambda a, b: ((a >> 1) & 3) | (b << 2) | (1 << 6), 8),
    ("mux", lambda o, a, b: o.mux(o.bit(a, 0), a, o.cat(b, b)), lambda a, b: a if a & 1 else b | b << 4, 8),
    ("eq", lambda o, a, b: o.eq(a, b), lambda a, b: int(a == b), 1),
    ("lt", lambda o, a, b: o.lt(a, b), lambda a, b: int(a < b), 1),
    ("ge", lambda o, a, b: o.ge(a, b), lambda a, b: int(a >= b), 1),
    ("lod", lambda o, a, b: o.lod(a), lambda a, b: max(a.bit_length() - 1, 0), 2),
    ("lookup", lambda o, a, b: o.lookup(o.slice(a, 0, 2), [3, 0, 7, 5], 3),
     lambda a, b: [3, 0, 7, 5][a & 3], 3),
    ("zext", lambda o, a, b: o.zext(o.xor(a, b), 6), lambda a, b: a ^ b, 6),
]


def _unit(description, output_width, stages):
    spec = UnitSpec(name="op", kind="add", summary="operator test", reference="-",
                    describe=lambda ops, a, b, **_: description(ops, a, b),
                    output_width=lambda w, wb, s, v: output_width)
    return Unit(spec, WIDTH, WIDTH, stages, False, {})


@pytest.mark.parametrize("name,description,reference,output_width", CASES, ids=[c[0] for c in CASES])
def test_operation_semantics_agree(name, description, reference, output_width):
    a, b = np.meshgrid(np.arange(16), np.arange(16))
    a, b = a.ravel(), b.ravel()
    expected = np.array([reference(int(x), int(y)) for x, y in zip(a, b)], dtype=np.uint64)
    unit = _unit(description, output_width, stages=0)
    assert np.array_equal(unit.model(a, b), expected)
    assert np.array_equal(run_unit(unit, a, b), expected)
    assert np.array_equal(run_unit(_unit(description, output_width, stages=1), a, b), expected)


def test_constants_and_slices_are_checked():
    from approx_units.dataflow import Ops
    ops = Ops()
    a = ops.input("a", 4)
    with pytest.raises(ValueError, match=r"slice \[2:6\] out of range for a 4-bit value"):
        ops.slice(a, 2, 6)
    with pytest.raises(ValueError, match="constants are unsigned; got -1"):
        ops.const(-1)
    with pytest.raises(ValueError, match="mux select must be 1 bit wide, not 4"):
        ops.mux(a, a, a)
    with pytest.raises(ValueError, match="a table indexed by 2 bits needs 4 entries, not 3"):
        ops.lookup(ops.slice(a, 0, 2), [1, 2, 3], 2)


def _random_description(seed, size):
    """A random graph over a and b mixing every operation, for the back-end/pipeliner check."""
    def describe(ops, a, b):
        rng = np.random.default_rng(seed)
        values = [a, b]
        for _ in range(size):
            x, y = (values[int(i)] for i in rng.integers(0, len(values), 2))
            choice = int(rng.integers(0, 12))
            w = int(rng.integers(1, 10))
            if choice == 0:
                node = ops.add(x, y, width=w)
            elif choice == 1:
                node = ops.sub(x, y, width=w)
            elif choice == 2:
                node = ops.and_(x, ops.not_(y))
            elif choice == 3:
                node = ops.xor(x, y)
            elif choice == 4:
                node = ops.shl(x, ops.slice(y, 0, min(3, y.width)), width=w)
            elif choice == 5:
                node = ops.shr(x, y)
            elif choice == 6:
                node = ops.mux(ops.lt(x, y), x, y)
            elif choice == 7:
                node = ops.cat(x, ops.eq(x, y))
            elif choice == 8:
                node = ops.lod(ops.or_(x, y))
            elif choice == 9:
                node = ops.zext(ops.mul(ops.slice(x, 0, min(4, x.width)), ops.slice(y, 0, min(4, y.width))), w)
            elif choice == 10:
                node = ops.lookup(ops.slice(x, 0, 1), [int(v) for v in rng.integers(0, 8, 2)], 3)
            else:
                node = ops.slice(x, 0, max(1, min(w, x.width)))
            values.append(node)
        return ops.zext(ops.xor(values[-1], values[-2]), 12)
    return describe


@pytest.mark.parametrize("seed", range(8))
def test_random_graphs_agree_at_every_pipeline_depth(seed):
    description = _random_description(seed, size=25)
    a, b = np.meshgrid(np.arange(16), np.arange(16))
    a, b = a.ravel(), b.ravel()
    expected = _unit(description, 12, stages=0).model(a, b)
    for stages in (0, 1, 3):
        assert np.array_equal(run_unit(_unit(description, 12, stages), a, b), expected), stages


@pytest.mark.parametrize("name", ["mitchell_refined", "drum", "exact_div", "loa"])
def test_model_broadcasts_outer_products_and_any_shape(name, monkeypatch):
    import approx_units
    from approx_units import numpy_backend
    monkeypatch.setattr(numpy_backend, "BLOCK", 100)      # many partial tiles
    unit = approx_units.get(name, width=8)
    a, b = np.arange(256), np.arange(256)
    flat = unit.model(np.repeat(a, 256), np.tile(b, 256)).reshape(256, 256)
    assert np.array_equal(unit.model(a[:, None], b[None, :]), flat)
    assert np.array_equal(unit.model(a[:, None], b), flat)
    assert np.array_equal(unit.model(a[None, :], b[:, None]), flat.T)
    cube = unit.model(a[:4, None, None], b[None, :3, None] + np.zeros((1, 1, 2), dtype=int))
    assert cube.shape == (4, 3, 2) and np.array_equal(cube[:, :, 1], flat[:4, :3])
    assert unit.model(7, 9).shape == () and unit.model(7, 9) == flat[7, 9]
    assert np.array_equal(unit.model(a[5], b), flat[5])
    assert unit.model(np.array([], dtype=int), np.array([], dtype=int)).shape == (0,)


def test_approximate_adders_are_rated_no_slower_than_the_exact_adder():
    # LOA's carry into its exact part (a[l-1] & b[l-1]) is the carry out of bit l-1 of a sum that
    # starts there: one carry chain, placed at 5.01 ns for 24 bits and l = 4 against the exact
    # adder's 5.18 (a separate carry-in, a second chain, placed at 5.92). HOAANED's top
    # approximate bit is an XOR and an OR, not four gates in a row.
    import itertools

    from approx_units import registry

    for width in range(4, 33):
        exact = registry.get("exact_add", width=width).critical_path()
        for name in ("loa", "trunc_add", "hoaaned", "gear"):
            params = registry.spec(name).params
            grids = [[(param.name, value) for value in range(param.bounds(width, width, False)[0],
                                                              param.bounds(width, width, False)[1] + 1)]
                     for param in params]
            for combo in itertools.product(*grids):
                try:
                    adder = registry.get(name, width=width, **dict(combo))
                except ValueError:
                    continue        # a combination the unit rejects (GeAr's divisibility rule)
                assert adder.critical_path() <= exact + 1e-9, (name, width, combo)

