"""The generated Verilog of an adder, a multiplier and a divider under cocotb + Icarus, against the model."""

import numpy as np
import pytest

import approx_units
from sim import run_unit
from sim.errors import ToolUnavailable
from sim.tools import find_icarus

pytestmark = pytest.mark.cocotb


@pytest.fixture(autouse=True)
def _icarus():
    try:
        find_icarus()
    except ToolUnavailable as error:
        pytest.skip(str(error))


def _vectors(unit, count, seed):
    rng = np.random.default_rng(seed)
    lo, hi = unit.operand_range()
    a = rng.integers(lo, hi, count, endpoint=True)
    b = rng.integers(lo, hi, count, endpoint=True)
    a[:3], b[:3] = [lo, hi, 0], [0, lo, hi]      # extremes and division by zero
    return a, b


@pytest.mark.parametrize("name,config", [
    ("loa", {"width": 8, "stages": 0, "l": 4}),
    ("gear", {"width": 16, "stages": 1, "signed": True}),
    ("mitchell_refined", {"width": 16, "stages": 2}),
    ("drum", {"width": 8, "stages": 0, "signed": True}),
    ("exact_div", {"width": 8, "stages": 2}),
    ("mitchell_div_refined", {"width": 16, "stages": 3, "signed": True}),
    ("exact_mul", {"width": 8, "stages": 1, "signed": True}),      # (* keep *) adders, offset tables
    ("lut_mul", {"width": 8, "stages": 1, "t": 8, "edge": 2, "chain": 3}),
])
def test_verilog_matches_model(name, config):
    unit = approx_units.get(name, **config)
    a, b = _vectors(unit, 1000, seed=len(name))
    assert np.array_equal(run_unit(unit, a, b, backend="icarus"), unit.model(a, b))


def test_verilog_exhaustive_small_multiplier():
    unit = approx_units.get("mitchell", width=5, stages=1)
    a, b = np.meshgrid(np.arange(32), np.arange(32))
    assert np.array_equal(run_unit(unit, a.ravel(), b.ravel(), backend="icarus"),
                          unit.model(a.ravel(), b.ravel()))
