"""Known answers from the literature, computed on the bit-exact models."""

import numpy as np
import pytest

import approx_units
from approx_units import metrics


def _all_pairs(width):
    a, b = np.meshgrid(np.arange(1 << width), np.arange(1 << width))
    return a.ravel(), b.ravel()


def _random_pairs(width, count=200_000, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 1 << width, count, dtype=np.uint64),
            rng.integers(0, 1 << width, count, dtype=np.uint64))


@pytest.mark.parametrize("l", [1, 2, 3, 4, 6, 7])
def test_loa_error_rate(l):
    a, b = _all_pairs(8)
    unit = approx_units.get("loa", width=8, l=l)
    assert metrics.er(a + b, unit.model(a, b)) == pytest.approx(1 - 0.75 ** l, abs=1e-12)


@pytest.mark.parametrize("l", [1, 3, 5])
def test_truncated_adder_mean_error(l):
    a, b = _all_pairs(8)
    unit = approx_units.get("trunc_add", width=8, l=l)
    assert metrics.med(a + b, unit.model(a, b)) == pytest.approx(2 ** l - 1, abs=1e-12)


def test_gear_8_2_2_error_rate():
    a, b = _all_pairs(8)
    unit = approx_units.get("gear", width=8, r=2, p=2)
    assert metrics.er(a + b, unit.model(a, b)) == pytest.approx(0.1875, abs=1e-12)


def test_exact_units_are_exact():
    a, b = _all_pairs(8)
    assert np.array_equal(approx_units.get("exact_add", width=8).model(a, b), a + b)
    assert np.array_equal(approx_units.get("exact_mul", width=8).model(a, b), a * b)
    nonzero = b != 0
    quotient = approx_units.get("exact_div", width=8, frac_bits=3).model(a, b)
    assert np.array_equal(quotient[nonzero], (a[nonzero] << 3) // b[nonzero])


@pytest.mark.parametrize("width", [8, 16, 32])
def test_mitchell_worst_case_is_one_ninth_at_three_times_powers_of_two(width):
    unit = approx_units.get("mitchell", width=width)
    j = np.arange(width - 1)
    a, b = np.meshgrid(3 << j, 3 << j)
    a, b = a.ravel().astype(np.uint64), b.ravel().astype(np.uint64)
    relative = (a * b - unit.model(a, b)) / (a * b).astype(float)
    assert np.allclose(relative, 1 / 9)


def test_mitchell_never_exceeds_the_product_and_peaks_at_one_ninth():
    a, b = _all_pairs(8)
    exact, approx = a * b, approx_units.get("mitchell", width=8).model(a, b)
    assert np.all(approx <= exact)
    assert metrics.wcre(exact, approx) == pytest.approx(1 / 9)


@pytest.mark.parametrize("width", [8, 16, 32])
def test_mitchell_mean_relative_error_about_3_8_percent(width):
    a, b = _all_pairs(8) if width == 8 else _random_pairs(width)
    a, b = np.asarray(a, np.uint64), np.asarray(b, np.uint64)
    mred = metrics.mred(a * b, approx_units.get("mitchell", width=width).model(a, b))
    assert mred == pytest.approx(0.038, abs=0.001)


@pytest.mark.parametrize("width", [8, 16, 32])
def test_refined_mitchell_multiplier_within_0_6_percent(width):
    a, b = _all_pairs(8) if width == 8 else _random_pairs(width)
    a, b = np.asarray(a, np.uint64), np.asarray(b, np.uint64)
    mred = metrics.mred(a * b, approx_units.get("mitchell_refined", width=width).model(a, b))
    assert mred <= 0.006


@pytest.mark.parametrize("width", [8, 16, 32])
def test_refined_mitchell_divider_within_0_8_percent(width):
    a, b = _all_pairs(8) if width == 8 else _random_pairs(width)
    unit = approx_units.get("mitchell_div_refined", width=width)
    stats = metrics.ErrorStats.of_quotient(a, b, unit.model(a, b), frac_bits=unit.params["frac_bits"])
    plain = approx_units.get("mitchell_div", width=width)
    plain_stats = metrics.ErrorStats.of_quotient(a, b, plain.model(a, b), frac_bits=width)
    assert stats.mred <= 0.008
    assert plain_stats.mred == pytest.approx(0.04, abs=0.003)


def test_drum6_16_bit_mean_relative_error():
    a, b = _random_pairs(16, 400_000, seed=1)
    mred = metrics.mred(a * b, approx_units.get("drum", width=16, k=6).model(a, b))
    assert mred == pytest.approx(0.0147, abs=0.0005)


def test_iterlog_error_shrinks_with_corrections_and_never_overestimates():
    a, b = _all_pairs(8)
    exact = a * b
    errors = []
    for corrections in range(0, 9):
        approx = approx_units.get("iterlog", width=8, corrections=corrections).model(a, b)
        assert np.all(approx <= exact)
        errors.append(metrics.med(exact, approx))
    assert errors == sorted(errors, reverse=True) and errors[-1] == 0


@pytest.mark.parametrize("name", ["exact_div", "mitchell_div", "mitchell_div_refined", "aaxd"])
@pytest.mark.parametrize("signed", [False, True])
def test_division_by_zero_gives_all_ones(name, signed):
    unit = approx_units.get(name, width=8, signed=signed)
    lo, hi = unit.operand_range()
    a = np.arange(lo, hi + 1)
    result = unit.model(a, np.zeros_like(a))
    expected = -1 if signed else (1 << unit.output_width) - 1
    assert np.all(result == expected)
    assert np.all(unit.model(0, np.arange(1, hi + 1)) == 0)


@pytest.mark.parametrize("a,b,expected", [
    # k=3, f=8: 200 = 0b11001000 -> 6-bit segment 0b110010 = 50, leading one 7; 3 = 0b11 -> 0b110 = 6,
    # leading one 1; 50 // 6 = 8, shifted by 7 - 1 + 8 - 3 = 11 (exact 200 * 256 / 3 = 17066.7).
    (200, 3, 8 << 11),
    # 7 -> 0b111000 = 56 (leading one 2), 9 = 0b1001 -> 0b100 = 4 (leading one 3, bit 0 dropped):
    # 56 // 4 = 14, shifted by 2 - 3 + 8 - 3 = 4 (exact 199.1).
    (7, 9, 14 << 4),
    # 1 / 255: 0b100000 = 32, 255 -> 0b111 = 7; 32 // 7 = 4, shifted by 0 - 7 + 8 - 3 = -2 (exact 1.004).
    (1, 255, 1),
    (255, 1, 15 << 12),      # 0b111111 = 63, 1 -> 0b100 = 4: 63 // 4 = 15 shifted by 7 - 0 + 8 - 3 = 12 (exact 65280)
    (0, 7, 0),
])
def test_aaxd_known_quotients(a, b, expected):
    assert int(approx_units.get("aaxd", width=8, k=3).model(a, b)) == expected


def _aaxd_reference(a, b, *, width, frac_bits, k):
    # The AAXD algorithm on integers: truncate each operand to its segment, divide, shift.
    def segment(x, bits):
        lead = np.floor(np.log2(x)).astype(np.int64)
        drop = lead - (bits - 1)
        return np.where(drop >= 0, x >> np.maximum(drop, 0), x << np.maximum(-drop, 0)), lead
    top, lead_a = segment(a, 2 * k)
    bottom, lead_b = segment(b, k)
    quotient, shift = top // bottom, lead_a - lead_b + frac_bits - k
    return np.where(shift >= 0, quotient << np.maximum(shift, 0), quotient >> np.maximum(-shift, 0))


@pytest.mark.parametrize("frac_bits", [0, 3, 8])
@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_aaxd_is_the_segment_division_exhaustively(k, frac_bits):
    a, b = np.meshgrid(np.arange(1, 256), np.arange(1, 256))
    a, b = a.ravel(), b.ravel()
    unit = approx_units.get("aaxd", width=8, k=k, frac_bits=frac_bits)
    assert np.array_equal(unit.model(a, b), _aaxd_reference(a, b, width=8, frac_bits=frac_bits, k=k))


@pytest.mark.parametrize("width", [8, 16])
def test_aaxd_error_halves_per_segment_bit(width):
    # MRED of AAXD(k), f = n (8 bits: exhaustive; 16 bits: 200,000 random pairs): about 2**-(k+1);
    # at 8 bits the floor to 8 fraction bits holds it near 0.6 % from k = 7 on.
    a, b = _all_pairs(8) if width == 8 else _random_pairs(width)
    errors = [metrics.ErrorStats.of_quotient(a, b, approx_units.get("aaxd", width=width, k=k).model(a, b),
                                             frac_bits=width).mred for k in range(2, 9)]
    assert errors == sorted(errors, reverse=True)
    assert errors[2] == pytest.approx(0.031, abs=0.002)       # k = 4
    assert errors[3] == pytest.approx(0.0158, abs=0.001)      # k = 5
    assert errors[-1] < 0.0075                                 # k = 8


@pytest.mark.parametrize("name", ["exact_add", "loa", "trunc_add", "eta1", "gear", "hoaaned"])
def test_signed_adders_approximate_like_unsigned_ones(name):
    # Same low-bit approximation: the signed error equals the unsigned error
    # on the same bit patterns.
    signed = approx_units.get(name, width=8, signed=True)
    unsigned = approx_units.get(name, width=8)
    a, b = _all_pairs(8)
    sa, sb = a - (a >> 7 << 8), b - (b >> 7 << 8)
    signed_error = signed.model(sa, sb) - (sa + sb)
    unsigned_error = unsigned.model(a, b).astype(np.int64) - (a + b)
    assert np.array_equal(signed_error, unsigned_error)


@pytest.mark.parametrize("name", ["exact_mul", "trunc_mul", "drum", "mitchell", "mitchell_refined",
                                  "iterlog", "exact_div", "mitchell_div", "mitchell_div_refined", "aaxd"])
def test_sign_magnitude_variants_are_symmetric(name):
    # Magnitudes of a 7-bit signed unit are 7-bit unsigned: compare against the 7-bit unsigned unit.
    unsigned = approx_units.get(name, width=7, **({"frac_bits": 5} if "div" in name else {}))
    signed = approx_units.get(name, width=7, signed=True, **({"frac_bits": 5} if "div" in name else {}))
    a, b = np.meshgrid(np.arange(-64, 64), np.arange(-64, 64))
    a, b = a.ravel(), b.ravel()
    keep = b != 0
    result = signed.model(a[keep], b[keep])
    magnitude = unsigned.model(np.abs(a[keep]), np.abs(b[keep])).astype(np.int64)
    sign = np.where((a[keep] < 0) != (b[keep] < 0), -1, 1)
    assert np.array_equal(result, sign * magnitude)


@pytest.mark.parametrize("name,l,a,b,expected", [
    # ETA-I, l=4: from bit 3 down, XOR until both bits are 1 (bit 0 here); from there on all ones.
    ("eta1", 4, 0b0101, 0b0011, 0b0111),
    ("eta1", 4, 0b1100_1000, 0b0100_0100, 0b1_0000_1100),
    # HOAANED, l=4: bits 0-1 are 1; bit 2 = a2|b2; the carry a3&b3 clears bit 3 unless a2&b2.
    ("hoaaned", 4, 0b1000, 0b1000, 0b1_0011),
    ("hoaaned", 4, 0b1100, 0b1100, 0b1_1111),
    ("hoaaned", 4, 0b0001_0000, 0b0000_0010, 0b0001_0011),
    # LOA, l=4: low bits OR, carry a3&b3.
    ("loa", 4, 0b0001_1001, 0b0000_1011, 0b0010_1011),
])
def test_adders_follow_their_published_rules(name, l, a, b, expected):
    assert int(approx_units.get(name, width=8, l=l).model(a, b)) == expected


@pytest.mark.parametrize("width,width_b", [(8, 5), (5, 8)])
def test_non_square_mitchell_keeps_its_bounds(width, width_b):
    unit = approx_units.get("mitchell", width=width, width_b=width_b)
    a, b = np.meshgrid(np.arange(1 << width), np.arange(1 << width_b))
    a, b = a.ravel(), b.ravel()
    exact, approx = a * b, unit.model(a, b)
    assert unit.output_width == width + width_b and unit.width_b == width_b
    assert np.all(approx <= exact)
    assert metrics.wcre(exact, approx) == pytest.approx(1 / 9)
    assert int(unit.model(3 << 2, 3 << 3)) == 2 ** 8       # 12 x 24 = 288: 1.5 x 1.5 -> 2 in the antilog
