"""Hardware == model: every unit's Amaranth component, simulated, against its numpy model.

Exhaustive at 4 and 6 bits for every pipeline depth 0..2; 2000 random vectors
streamed one per clock at 8, 16 and 32 bits.
"""

import numpy as np
import pytest

import approx_units
from sim import run_unit

NAMES = approx_units.names()


def _all_pairs(unit):
    lo_a, hi_a = unit.operand_range("a")
    lo_b, hi_b = unit.operand_range("b")
    a, b = np.meshgrid(np.arange(lo_a, hi_a + 1), np.arange(lo_b, hi_b + 1))
    return a.ravel(), b.ravel()


def _random_pairs(unit, count, seed):
    rng = np.random.default_rng(seed)
    lo_a, hi_a = unit.operand_range("a")
    lo_b, hi_b = unit.operand_range("b")
    a = rng.integers(lo_a, hi_a, count, endpoint=True)
    b = rng.integers(lo_b, hi_b, count, endpoint=True)
    # Edge cases ride along: zero, one, extremes (division by zero included).
    edges = np.array(sorted({lo_a, hi_a, 0, 1}))
    a[:edges.size] = edges
    b[:edges.size] = edges[::-1]
    b[edges.size:2 * edges.size] = 0
    return a, b


def _check(unit, a, b):
    hardware = run_unit(unit, a, b)
    model = unit.model(a, b)
    mismatches = np.flatnonzero(hardware != model)
    assert mismatches.size == 0, (
        f"{unit!r}: {mismatches.size} mismatches, first a={a[mismatches[0]]} b={b[mismatches[0]]}: "
        f"hardware {hardware[mismatches[0]]}, model {model[mismatches[0]]}")


@pytest.mark.parametrize("stages", [0, 1, 2])
@pytest.mark.parametrize("width", [4, 6])
@pytest.mark.parametrize("name", NAMES)
def test_exhaustive_unsigned(name, width, stages):
    unit = approx_units.get(name, width=width, stages=stages)
    _check(unit, *_all_pairs(unit))


@pytest.mark.parametrize("width,stages", [(4, 0), (4, 1), (4, 2), (6, 1)])
@pytest.mark.parametrize("name", NAMES)
def test_exhaustive_signed(name, width, stages):
    unit = approx_units.get(name, width=width, stages=stages, signed=True)
    _check(unit, *_all_pairs(unit))


@pytest.mark.parametrize("width", [8, 16, 32])
@pytest.mark.parametrize("name", NAMES)
def test_random_unsigned(name, width):
    # At the catalogue's pipeline depth (at least 1, so vectors stream one per clock).
    recommended = approx_units.get(name, width=width).recommended_stages
    unit = approx_units.get(name, width=width, stages=max(1, recommended))
    _check(unit, *_random_pairs(unit, 2000, seed=width))


@pytest.mark.parametrize("name", NAMES)
def test_random_signed(name):
    recommended = approx_units.get(name, width=16).recommended_stages
    unit = approx_units.get(name, width=16, stages=max(2, recommended), signed=True)
    _check(unit, *_random_pairs(unit, 2000, seed=16))


@pytest.mark.parametrize("name,params", [
    ("exact_mul", {"width_b": 4}), ("trunc_mul", {"width_b": 5, "c": 4}),
    ("drum", {"width_b": 4, "k": 3}), ("mitchell", {"width_b": 5}), ("iterlog", {"width_b": 4, "corrections": 2}),
    ("mitchell_refined", {"width_b": 4}), ("mitchell", {"width_b": 5, "signed": True}),
    ("loa", {"l": 1}), ("loa", {"l": 5}), ("gear", {"r": 1, "p": 3}), ("gear", {"r": 3, "p": 0}),
    ("trunc_mul", {"c": 0}), ("drum", {"k": 3}), ("iterlog", {"corrections": 0}),
    ("iterlog", {"corrections": 3}), ("mitchell_refined", {"index_bits": 2}),
    ("exact_div", {"frac_bits": 0}), ("mitchell_div", {"frac_bits": 2}),
    ("mitchell_div_refined", {"frac_bits": 0, "index_bits": 5}), ("hoaaned", {"l": 2}),
    ("eta1", {"l": 5}), ("aaxd", {"k": 2}), ("aaxd", {"k": 4, "frac_bits": 0}), ("aaxd", {"k": 3, "signed": True}),
    ("lut_mul", {"t": 0}), ("lut_mul", {"t": 7}), ("lut_mul", {"width_b": 5, "t": 4}),
    ("lut_mul", {"width_b": 4, "t": 3, "signed": True}), ("vctm_mul", {"t": 6, "stagger": 2}),
    ("vctm_mul", {"width_b": 5, "t": 5, "stagger": 1}), ("vctm_mul", {"t": 9}),
    ("lut_mul", {"t": 4, "edge": 2}), ("lut_mul", {"width_b": 5, "t": 2, "edge": 1, "signed": True}),
    ("lut_mul", {"t": 8, "chain": 3}),
])
def test_exhaustive_other_parameters(name, params):
    unit = approx_units.get(name, width=6, stages=1, **params)
    _check(unit, *_all_pairs(unit))
