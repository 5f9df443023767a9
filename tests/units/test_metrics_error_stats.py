"""ErrorStats's pass-saving sums against the metric definitions, written out plainly."""

import numpy as np
import pytest

from approx_units.metrics import ErrorStats


def definitions(exact, approx):
    """Every field of ErrorStats from its definition, one Python number at a time."""
    errors = [int(y) - int(x) for x, y in zip(np.ravel(exact), np.ravel(approx))]
    magnitudes = [abs(int(x)) for x in np.ravel(exact)]
    relative = [e / m for e, m in zip(errors, magnitudes) if m]
    return {"count": len(errors), "errors": sum(e != 0 for e in errors),
            "sum_abs": float(sum(abs(e) for e in errors)), "sum_err": float(sum(errors)),
            "sum_sq": float(sum(e * e for e in errors)), "max_abs": max(map(abs, errors)),
            "nonzero": len(relative), "sum_rel": sum(map(abs, relative), 0.0),
            "sum_rel_sq": sum((r * r for r in relative), 0.0), "sum_signed_rel": sum(relative, 0.0),
            "max_rel": max(map(abs, relative), default=0.0)}


def assert_matches(stats, expected):
    for name, value in expected.items():
        got = getattr(stats, name)
        if isinstance(value, int):
            assert got == value and isinstance(got, int), name
        else:
            assert got == pytest.approx(value, rel=1e-12, abs=1e-300), name


CASES = {
    # unsigned results with zeros among the exact values (left out of the relative sums)
    "unsigned_with_zeros": lambda rng: (rng.integers(0, 50, 4000).astype(np.uint64),
                                        rng.integers(0, 60, 4000).astype(np.uint64)),
    "signed": lambda rng: (rng.integers(-1000, 1000, 3000), rng.integers(-1100, 1100, 3000)),
    "all_exact_zero": lambda rng: (np.zeros(100, dtype=np.int64), rng.integers(-3, 4, 100)),
    "no_error": lambda rng: (np.arange(1, 500, dtype=np.uint64), np.arange(1, 500, dtype=np.uint64)),
    # a tile of an outer product: 2-D arrays, errors of 33 bits
    "wide_2d": lambda rng: (rng.integers(0, 2**32, (8, 300)).astype(np.uint64),
                            rng.integers(0, 2**32, (8, 300)).astype(np.uint64) >> np.uint64(1)),
    # errors near 2**62: the integer sums would overflow int64, float sums are used
    "huge_errors": lambda rng: (rng.integers(0, 2**20, 64).astype(np.uint64),
                                rng.integers(2**61, 2**62, 64).astype(np.uint64)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_stats_follow_the_definitions(case):
    exact, approx = CASES[case](np.random.default_rng(len(case)))
    assert_matches(ErrorStats.of(exact, approx), definitions(exact, approx))


def test_merged_parts_equal_the_whole():
    rng = np.random.default_rng(5)
    exact = rng.integers(0, 1000, 5000).astype(np.uint64)
    approx = (exact.astype(np.int64) + rng.integers(-9, 10, 5000)).clip(0).astype(np.uint64)
    whole = ErrorStats.of(exact, approx)
    parts = ErrorStats.of(exact[:1234], approx[:1234]) + ErrorStats.of(exact[1234:], approx[1234:])
    for name in ("count", "errors", "max_abs", "nonzero"):
        assert getattr(parts, name) == getattr(whole, name)
    for name in ("sum_abs", "sum_err", "sum_sq", "sum_rel", "sum_rel_sq", "sum_signed_rel", "max_rel"):
        assert getattr(parts, name) == pytest.approx(getattr(whole, name), rel=1e-12)


def test_empty_input_and_overflow():
    empty = ErrorStats.of(np.array([], dtype=np.uint64), np.array([], dtype=np.uint64))
    assert empty.count == 0 and empty.max_abs == 0
    with pytest.raises(ValueError, match="no input pairs"):
        empty.metrics("mul", 8)
    with pytest.raises(OverflowError, match="64 bits"):
        ErrorStats.of(np.array([0], dtype=np.uint64), np.array([2**63], dtype=np.uint64))
    with pytest.raises(TypeError, match="of_quotient"):
        ErrorStats.of(np.array([1.5]), np.array([1]))


def test_quotient_statistics_follow_the_definitions():
    rng = np.random.default_rng(2)
    a, b = rng.integers(-100, 100, 3000), rng.integers(-6, 7, 3000)
    quotient = np.where(b == 0, -1, (a * 8) // np.where(b == 0, 1, b))
    stats = ErrorStats.of_quotient(a, b, quotient, frac_bits=3)
    keep = b != 0
    real = a[keep] / b[keep] * 8
    error = quotient[keep] - real
    nonzero = real != 0
    relative = error[nonzero] / np.abs(real[nonzero])
    assert stats.excluded == int((~keep).sum()) and stats.count == int(keep.sum())
    assert stats.nonzero == int(nonzero.sum()) and stats.errors == int(np.count_nonzero(error))
    expected = {"sum_abs": np.abs(error).sum(), "sum_err": error.sum(), "sum_sq": (error ** 2).sum(),
                "max_abs": np.abs(error).max(), "sum_rel": np.abs(relative).sum(),
                "sum_rel_sq": (relative ** 2).sum(), "sum_signed_rel": relative.sum(),
                "max_rel": np.abs(relative).max()}
    for name, value in expected.items():
        assert getattr(stats, name) == pytest.approx(float(value), rel=1e-12), name


def test_merging_keeps_the_quotient_format_and_refuses_two():
    a = ErrorStats(count=1, max_abs=3, frac_bits=None)
    b = ErrorStats(count=2, max_abs=5, frac_bits=4)
    merged = a + b
    assert (merged.count, merged.max_abs, merged.frac_bits) == (3, 5, 4)
    with pytest.raises(ValueError, match="4 and 2 fraction bits"):
        b + ErrorStats(count=1, frac_bits=2)
