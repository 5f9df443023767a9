"""Every multiplier's exact corner is ``exact_mul``, the cheapest exact structure the library knows.

A parameter point at which a unit computes the exact product (``lut_mul`` and
``vctm_mul`` at t=0, ``trunc_mul`` at c=0, ``drum`` at k = n = m, ``iterlog``
with enough corrections) is built as ``exact_mul``: the same traced circuit,
so the same area. The exhaustive test finds the exact points from the models
themselves, so a unit that becomes exact somewhere it does not say fails it.
"""

import numpy as np
import pytest

import approx_units
from approx_units.registry import names, parameter_grid, spec


def _circuit(unit):
    return [(node.op, node.width, node.attrs, tuple(arg.index for arg in node.args)) for node in unit.graph.nodes]


def _multipliers():
    return [name for name in names() if spec(name).kind == "mul"]


def _computes_the_exact_product(unit):
    lo_a, hi_a = unit.operand_range("a")
    lo_b, hi_b = unit.operand_range("b")
    a, b = np.meshgrid(np.arange(lo_a, hi_a + 1), np.arange(lo_b, hi_b + 1), indexing="ij")
    a, b = a.ravel(), b.ravel()
    return np.array_equal(unit.model(a, b), a * b)


@pytest.mark.parametrize("signed", [False, True])
@pytest.mark.parametrize("a_width,b_width", [(4, 4), (5, 4), (4, 6), (6, 6)])
def test_a_unit_is_exact_exactly_where_it_is_built_as_exact_mul(a_width, b_width, signed):
    exact = _circuit(approx_units.get("exact_mul", width=a_width, width_b=b_width, signed=signed))
    corners = 0
    for name in _multipliers():
        for params in parameter_grid(name, a_width, b_width, signed):
            unit = approx_units.get(name, width=a_width, width_b=b_width, signed=signed, **params)
            built_as_exact_mul = _circuit(unit) == exact
            # Only lut_mul's structure parameter chain can make another exact circuit.
            if name != "lut_mul" or params["chain"] == 0:
                assert _computes_the_exact_product(unit) == built_as_exact_mul, (name, params)
            corners += built_as_exact_mul
    assert corners >= 5     # lut_mul, vctm_mul, trunc_mul, iterlog, and exact_mul itself


@pytest.mark.parametrize("signed", [False, True])
@pytest.mark.parametrize("a_width,b_width", [(8, 8), (7, 5), (16, 16), (32, 9)])
@pytest.mark.parametrize("name,params", [
    ("lut_mul", {"t": 0}), ("vctm_mul", {"t": 0}), ("trunc_mul", {"c": 0}), ("iterlog", {"corrections": 31}),
])
def test_exact_corners_at_real_widths_are_exact_mul(name, params, a_width, b_width, signed):
    params = {key: min(value, min(a_width, b_width)) for key, value in params.items()}
    corner = approx_units.get(name, width=a_width, width_b=b_width, signed=signed, **params)
    assert _circuit(corner) == _circuit(approx_units.get("exact_mul", width=a_width, width_b=b_width, signed=signed))


@pytest.mark.parametrize("width", [8, 16])
def test_drum_keeping_every_bit_is_exact_mul_and_one_bit_fewer_is_not(width):
    exact = _circuit(approx_units.get("exact_mul", width=width))
    assert _circuit(approx_units.get("drum", width=width, k=width)) == exact
    assert _circuit(approx_units.get("drum", width=width, k=width - 1)) != exact
    # k = min(n, m) still cuts the wider operand, so that point keeps DRUM's structure.
    assert _circuit(approx_units.get("drum", width=width, width_b=width - 2, k=width - 2)) != \
        _circuit(approx_units.get("exact_mul", width=width, width_b=width - 2))
