"""The refined Mitchell multiplier: its error term, parameters and range."""

import numpy as np
import pytest

import approx_units


def _fraction_grid(width, t):
    """Operands with the top bit set and every t-bit fraction, plus their low bits all set."""
    fractions = np.arange(1 << t, dtype=np.uint64) << np.uint64(width - 1 - t)
    top = np.uint64(1 << (width - 1))
    low = np.uint64((1 << (width - 1 - t)) - 1)
    values = np.concatenate([top | fractions, top | fractions | low])
    a, b = np.meshgrid(values, values)
    return a.ravel(), b.ravel()


@pytest.mark.parametrize("t,q", [(1, 1), (3, 1), (3, 3), (5, 2), (7, 4), (7, 7), (9, 5), (11, 8)])
def test_mantissa_never_wraps(t, q):
    # The mantissa sum is kept in t+3 bits on the argument that it stays in
    # [1, 4); a wrap would lose a whole 4 * 2**(k1+k2), i.e. at least half the
    # product, where coarse truncation (t = 1) errs by at most half.
    width = 12
    a, b = _fraction_grid(width, t)
    unit = approx_units.get("mitchell_refined", width=width, mantissa_bits=t, index_bits=q)
    exact = a.astype(np.float64) * b.astype(np.float64)
    ratio = unit.model(a, b).astype(np.float64) / exact
    assert ratio.min() > 0.5 and ratio.max() <= 1.5
    if t >= 7:
        assert np.abs(ratio - 1).max() < 0.03


def test_error_term_beats_plain_mitchell_everywhere_on_average():
    a, b = np.meshgrid(np.arange(1, 256, dtype=np.uint64), np.arange(1, 256, dtype=np.uint64))
    a, b = a.ravel(), b.ravel()
    exact = (a * b).astype(np.float64)
    plain = approx_units.get("mitchell", width=8).model(a, b).astype(np.float64)
    refined = approx_units.get("mitchell_refined", width=8).model(a, b).astype(np.float64)
    assert np.mean(np.abs(refined - exact) / exact) < np.mean(np.abs(plain - exact) / exact) / 7


def test_no_truncation_and_full_region_bits_is_exact_on_the_fraction_grid():
    # With every fraction bit kept (t = n - 1) and q = t, the error term is the
    # exact x1*x2 or (1-x1)(1-x2) up to its truncation to t bits.
    unit = approx_units.get("mitchell_refined", width=6, mantissa_bits=5, index_bits=5)
    a, b = np.meshgrid(np.arange(32, 64, dtype=np.uint64), np.arange(32, 64, dtype=np.uint64))
    a, b = a.ravel(), b.ravel()
    out = unit.model(a, b).astype(np.int64)
    exact = (a * b).astype(np.int64)
    assert np.all(np.abs(out - exact) <= exact // 16)


def test_known_product():
    # 3 x 3: fractions 0.5 and 0.5 add up to one, so the second form is used:
    # 2 (x1 + x2) + (1-x1)(1-x2) with the term at the centre of region 0111:
    # 15 * 15 / 1024 = 0.2197..., so the mantissa is 2.2197 and 4 * 2.2197 = 8.88 -> 8.
    unit = approx_units.get("mitchell_refined", width=8)
    assert int(unit.model(3, 3)) == 8
    assert int(unit.model(0, 200)) == 0 and int(unit.model(200, 0)) == 0
    assert int(unit.model(1, 1)) == 1
    assert int(unit.model(128, 128)) == 128 * 128


@pytest.mark.parametrize("kwargs,fragment", [
    ({"index_bits": 5, "mantissa_bits": 4}, "index_bits=5 must not exceed mantissa_bits=4"),
    ({"mantissa_bits": 16}, "mantissa_bits=16 is out of range; allowed: 1..15"),
])
def test_parameter_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        approx_units.get("mitchell_refined", width=16, **kwargs)
