"""The FPGA-aware multipliers (lut_mul, vctm_mul): known answers, a from-scratch reference, error paths.

Hardware against model (exhaustive at 4/6 bits, random at 8/16/32, stages 0..2,
signed too) is covered for every registered unit by test_units_equivalence.py
and test_pipelining.py; this file checks what the model computes.
"""

import numpy as np
import pytest

import approx_units
from approx_units import metrics
from approx_units.dataflow import trace
from approx_units.fpga_multipliers import (edge_sub_products, lut_mul_terms, rounded_table, stagger_pairs,
                                           vctm_row_starts)
from approx_units.structures import carry_chain_sum, sub_multiplier_table
from approx_units.numpy_backend import evaluate


def _all_pairs(a_width, b_width):
    a, b = np.meshgrid(np.arange(1 << a_width), np.arange(1 << b_width), indexing="ij")
    return a.ravel(), b.ravel()


def _digits(x, width):
    """``(lo, bits, value)`` of the 2-bit digits of ``x`` (the top one is 1 bit for odd widths)."""
    return [(lo, min(2, width - lo), (x >> lo) & ((1 << min(2, width - lo)) - 1))
            for lo in range(0, width, 2)]


def _lut_mul_reference(a, b, a_width, b_width, t, edge=0):
    """lut_mul from its definition, in Python integers, one operand pair at a time."""
    # The sub-products edge rounds: the 2x2 ones of the lowest column at or above t
    # that has any, outermost digit pairs first.
    full = [(i, j) for i in range(0, a_width - 1, 2) for j in range(0, b_width - 1, 2) if i + j >= t]
    lowest = min((i + j for i, j in full), default=None)
    halved = sorted([p for p in full if sum(p) == lowest], key=lambda p: (-abs(p[0] - p[1]), p[0]))[:edge]
    total = 0
    for a_lo, a_bits, x in _digits(a, a_width):
        for b_lo, b_bits, y in _digits(b, b_width):
            column = a_lo + b_lo
            if column >= t and (a_lo, b_lo) not in halved:
                total += x * y << column
                continue
            if (a_lo, b_lo) in halved:
                # Halved: x * y / 2 rounded to the nearest integer, ties to the even one.
                total += round(x * y / 2) << (column + 1)       # Python's round() ties to even
                continue
            shift = t - column
            # The sub-product rounded half up to a multiple of 2**t, unless that is
            # non-zero for a single input of the sub-multiplier only.
            rounded = [(v + (1 << (shift - 1))) >> shift for v in sub_multiplier_table(a_bits, b_bits)]
            if sum(1 for v in rounded if v) > 1:
                total += (x * y + (1 << (shift - 1))) >> shift << t
    return total


def _vctm_reference(a, b, a_width, b_width, t, stagger=0):
    """vctm_mul from its definition: row j keeps columns >= its start and adds its column start-1 at start."""
    starts = [t] * b_width
    if stagger:
        starts = [t - 1 if j >= t - 1 else t for j in range(b_width)]
        for i in range(stagger):        # row pairs (t-3, t-2), (t-5, t-4), ... within the rows
            lowered, raised = t - 3 - 2 * i, t - 2 - 2 * i
            starts[lowered], starts[raised] = t - 1, t + 1
    total = 0
    for i in range(a_width):
        for j in range(b_width):
            bit = (a >> i) & (b >> j) & 1
            if i + j >= starts[j]:
                total += bit << (i + j)
            elif i + j == starts[j] - 1:
                total += bit << starts[j]
    return total


REFERENCES = {"lut_mul": _lut_mul_reference, "vctm_mul": _vctm_reference}


def test_sub_multiplier_table_is_the_2x2_truth_table():
    # Index a | b << 2: a 2x2 multiplier as one LUT4 per output bit.
    assert sub_multiplier_table(2, 2) == [0, 0, 0, 0, 0, 1, 2, 3, 0, 2, 4, 6, 0, 3, 6, 9]
    assert sub_multiplier_table(2, 1) == [0, 0, 0, 0, 0, 1, 2, 3]
    assert sub_multiplier_table(1, 1) == [0, 0, 0, 1]


def test_rounded_table_rounds_half_up():
    assert rounded_table([0, 1, 2, 3, 4, 6, 9], 1) == [0, 1, 1, 2, 2, 3, 5]
    assert rounded_table([0, 1, 2, 3, 4, 6, 9], 2) == [0, 0, 1, 1, 1, 2, 2]
    assert rounded_table([0, 1, 2, 3, 4, 6, 9], 4) == [0, 0, 0, 0, 0, 0, 1]
    assert rounded_table([5, 7], 0) == [5, 7]


def test_lut_mul_terms_at_8_bits():
    terms = lut_mul_terms(8, 8, 6)
    # 16 sub-products: 10 wholly at or above column 6 are exact; the three at column 4
    # are rounded into column 6; those at columns 0 and 2 round up only for 3 x 3 and are left out.
    exact = [term for term in terms if term[4] >= 6 and term[5] == sub_multiplier_table(2, 2)]
    rounded = [term for term in terms if term[5] == [0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 2, 0, 1, 2, 2]]
    assert len(terms) == 13 and len(exact) == 10 and len(rounded) == 3
    assert all(term[4] == 6 for term in rounded)
    assert {term[0] + term[2] for term in rounded} == {4}


@pytest.mark.parametrize("name", ["lut_mul", "vctm_mul"])
@pytest.mark.parametrize("a_width,b_width", [(8, 8), (7, 5), (5, 4)])
def test_t_zero_is_exact(name, a_width, b_width):
    unit = approx_units.get(name, width=a_width, width_b=b_width, t=0)
    a, b = _all_pairs(a_width, b_width)
    assert np.array_equal(unit.model(a, b), (a * b).astype(np.uint64))


@pytest.mark.parametrize("name", ["lut_mul", "vctm_mul"])
@pytest.mark.parametrize("a_width,b_width", [(6, 6), (5, 6), (4, 7)])
def test_model_matches_the_definition_exhaustively(name, a_width, b_width):
    a, b = _all_pairs(a_width, b_width)
    for t in range(a_width + b_width):
        unit = approx_units.get(name, width=a_width, width_b=b_width, t=t)
        expected = [REFERENCES[name](int(x), int(y), a_width, b_width, t) for x, y in zip(a, b)]
        assert np.array_equal(unit.model(a, b), np.array(expected, dtype=np.uint64)), t


@pytest.mark.parametrize("name", ["lut_mul", "vctm_mul"])
@pytest.mark.parametrize("t", [5, 8, 10])
def test_model_matches_the_definition_at_8_bits(name, t):
    rng = np.random.default_rng(t)
    a, b = rng.integers(0, 256, 3000), rng.integers(0, 256, 3000)
    a[:4], b[:4] = [0, 255, 255, 1], [255, 255, 0, 1]
    unit = approx_units.get(name, width=8, t=t)
    expected = [REFERENCES[name](int(x), int(y), 8, 8, t) for x, y in zip(a, b)]
    assert np.array_equal(unit.model(a, b), np.array(expected, dtype=np.uint64))


@pytest.mark.parametrize("t,p,q", [(4, 2, 2), (6, 4, 2), (9, 6, 4), (12, 6, 6)])
def test_lut_mul_is_exact_when_every_sub_product_lies_above_t(t, p, q):
    # Operands whose low p (and q) bits are zero, p and q even and p + q >= t, have
    # sub-products at columns >= t only: those are exact.
    a, b = np.meshgrid(np.arange(0, 256, 1 << p), np.arange(0, 256, 1 << q))
    unit = approx_units.get("lut_mul", width=8, t=t)
    assert np.array_equal(unit.model(a, b), (a * b).astype(np.uint64))


WIDTH_PAIRS = [(n, n) for n in range(4, 33)] + [(4, 32), (32, 4), (5, 9), (9, 5), (31, 16), (17, 30)]


@pytest.mark.parametrize("name", ["lut_mul", "vctm_mul"])
def test_no_product_leaves_the_output_range(name):
    # The all-ones operands maximise every sub-product (or partial product and
    # correction bit) at once, so their result is the unit's largest: it must fit
    # n + m bits at every width and t (tracing checks it, and raises if not).
    for width, width_b in WIDTH_PAIRS:
        for t in range(0, width + width_b, 1 if width + width_b <= 24 else 3):
            if name == "lut_mul":
                # Each halved sub-product lowers the all-ones sum: none and all are the extremes.
                settings = [{"edge": e} for e in sorted({0, len(edge_sub_products(width, width_b, t))})]
            else:
                settings = [{"stagger": min(k, len(stagger_pairs(t, width_b)))}
                            for k in sorted({0, 1, len(stagger_pairs(t, width_b))})]
            for extra in settings:
                unit = approx_units.get(name, width=width, width_b=width_b, t=t, **extra)
                top = int(unit.model((1 << width) - 1, (1 << width_b) - 1))
                assert top < 1 << (width + width_b), (width, width_b, t, extra)


@pytest.mark.parametrize("t,stagger", [(6, 1), (6, 2), (5, 1), (8, 3), (3, 1)])
def test_staggered_vctm_matches_the_definition_exhaustively(t, stagger):
    a, b = _all_pairs(7, 7)
    unit = approx_units.get("vctm_mul", width=7, t=t, stagger=stagger)
    expected = [_vctm_reference(int(x), int(y), 7, 7, t, stagger) for x, y in zip(a, b)]
    assert np.array_equal(unit.model(a, b), np.array(expected, dtype=np.uint64))


def test_stagger_rows():
    assert stagger_pairs(6, 8) == [(3, 4), (1, 2)]
    assert stagger_pairs(12, 8) == [(5, 6), (3, 4), (1, 2)]      # rows 8 and up do not exist
    assert stagger_pairs(2, 8) == []
    assert vctm_row_starts(6, 0, 8) == [6] * 8
    assert vctm_row_starts(6, 1, 8) == [6, 6, 6, 5, 7, 5, 5, 5]
    assert vctm_row_starts(6, 2, 8) == [6, 5, 7, 5, 7, 5, 5, 5]


@pytest.mark.parametrize("name,t,a,b,expected", [
    # lut_mul, t = 4: 7 * 7, digits (3, 1) x (3, 1). The 3*3 at column 0 would round up
    # only for 3 x 3 and is left out; 3*1 and 1*3 at column 2 round to (3 + 2) >> 2 = 1
    # at column 4 each; 1*1 at column 4 is exact: 16 + 16 + 16 = 48 (exact 49).
    ("lut_mul", 4, 7, 7, 48),
    # vctm_mul, t = 4: 7 * 7 keeps a2*b2 (column 4): 16; column 3 holds a1*b2 and a2*b1,
    # each added at column 4: + 32 = 48.
    ("vctm_mul", 4, 7, 7, 48),
    # lut_mul, t = 5: 200 = digits (0, 2, 0, 3), 3 = (3): 2*3 at column 2 rounds to
    # (6 + 4) >> 3 = 1 at column 5; 3*3 at column 6 is exact: 32 + 576 = 608 (exact 600).
    ("lut_mul", 5, 200, 3, 608),
    # vctm_mul, t = 8, all ones: columns 8..14 hold 7, 6, ..., 1 bits (63232) and the
    # 8 bits of column 7 count 256 each (2048): 65280 (exact 65025).
    ("vctm_mul", 8, 255, 255, 65280),
])
def test_known_answers(name, t, a, b, expected):
    unit = approx_units.get(name, width=8, t=t)
    assert int(unit.model(a, b)) == expected == REFERENCES[name](a, b, 8, 8, t)


def test_staggered_known_answer():
    # t = 6, stagger = 1: rows 0-2 start at 6, row 3 at 5, row 4 at 7, rows 5-7 are whole.
    # 7 * 0b0001_1000 (b3, b4): row 3 keeps a2 (column 5) = 32 and adds a1 at column 5 = 32;
    # row 4 keeps nothing of 7 (columns >= 7 need a3) and adds a2 at column 7 = 128: 192 (exact 168).
    unit = approx_units.get("vctm_mul", width=8, t=6, stagger=1)
    assert int(unit.model(7, 24)) == 192 == _vctm_reference(7, 24, 8, 8, 6, 1)


@pytest.mark.parametrize("name", ["lut_mul", "vctm_mul"])
def test_signed_variant_is_sign_magnitude(name):
    unsigned = approx_units.get(name, width=7, t=5)
    signed = approx_units.get(name, width=7, t=5, signed=True)
    a, b = np.meshgrid(np.arange(-64, 64), np.arange(-64, 64))
    a, b = a.ravel(), b.ravel()
    magnitude = unsigned.model(np.abs(a), np.abs(b)).astype(np.int64)
    sign = np.where((a < 0) != (b < 0), -1, 1)
    assert np.array_equal(signed.model(a, b), sign * magnitude)


@pytest.mark.parametrize("name", ["lut_mul", "vctm_mul"])
@pytest.mark.parametrize("width,width_b", [(8, 8), (16, 16), (5, 9)])
def test_t_out_of_range_names_the_parameter_and_range(name, width, width_b):
    top = width + width_b - 1
    with pytest.raises(ValueError, match=rf"^t={top + 1} is out of range; allowed: 0\.\.{top}$"):
        approx_units.get(name, width=width, width_b=width_b, t=top + 1)
    with pytest.raises(ValueError, match=rf"^t=-1 is out of range; allowed: 0\.\.{top}$"):
        approx_units.get(name, width=width, width_b=width_b, t=-1)
    with pytest.raises(ValueError, match=r"t must be an integer"):
        approx_units.get(name, width=width, width_b=width_b, t=2.5)


@pytest.mark.parametrize("name", ["lut_mul", "vctm_mul"])
def test_default_t_and_error_fall_with_t(name):
    assert approx_units.get(name, width=8).params["t"] == 5
    assert approx_units.get(name, width=16).params["t"] == 13
    if name == "vctm_mul":
        assert approx_units.get(name, width=8).params["stagger"] == 0
    a, b = _all_pairs(8, 8)
    mred = [metrics.accumulate(approx_units.get(name, width=8, t=t), a, b).mred for t in (0, 4, 6, 8, 10)]
    assert mred[0] == 0 and all(x < y for x, y in zip(mred, mred[1:]))


def test_carry_chain_sum_adds_placed_terms_modulo_the_width():
    rng = np.random.default_rng(7)
    for _ in range(20):
        count = int(rng.integers(1, 9))
        placed = [(int(rng.integers(0, 12)), int(rng.integers(1, 9))) for _ in range(count)]
        width = int(rng.integers(4, 20))

        def describe(ops, a, b):
            terms = []
            for k, (column, bits) in enumerate(placed):
                source = a if k % 2 else b
                terms.append((column, ops.slice(source, k % 4, k % 4 + bits)))
            return carry_chain_sum(ops, terms, width=width)

        graph = trace(describe, a_width=12, b_width=12)
        a = rng.integers(0, 1 << 12, 500).astype(np.uint64)
        b = rng.integers(0, 1 << 12, 500).astype(np.uint64)
        got = evaluate(graph, {"a": a, "b": b})
        expected = np.zeros(500, dtype=object)
        for k, (column, bits) in enumerate(placed):
            source = (a if k % 2 else b).astype(object)
            expected = expected + (((source >> (k % 4)) & ((1 << bits) - 1)) << column)
        expected = np.array([int(x) % (1 << width) for x in expected], dtype=np.uint64)
        assert graph.output.width == width
        assert np.array_equal(got, expected)


def test_catalogue_order_does_not_depend_on_which_module_is_imported_first():
    import subprocess
    import sys
    code = ("import approx_units.dividers, approx_units.fpga_multipliers, approx_units; "
            "print(','.join(approx_units.names()))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().split(",") == approx_units.names()
    kinds = [approx_units.get(name).kind for name in approx_units.names()]
    assert kinds == sorted(kinds, key=["add", "mul", "div"].index)


def test_edge_sub_products_are_the_lowest_exact_column_outermost_first():
    # t = 8 at 8 bits: digit column 8 holds (2, 6), (4, 4), (6, 2); t = 7 rounds up to it too.
    assert edge_sub_products(8, 8, 8) == [(2, 6), (6, 2), (4, 4)]
    assert edge_sub_products(8, 8, 7) == [(2, 6), (6, 2), (4, 4)]
    assert edge_sub_products(8, 8, 0) == [(0, 0)]
    assert edge_sub_products(8, 8, 13) == []                 # no digit pair at column 13 or above
    assert edge_sub_products(5, 9, 4) == [(0, 4), (2, 2)]       # a's digit at 4 has one bit
    assert edge_sub_products(5, 9, 7) == [(2, 6)] == edge_sub_products(5, 9, 8)
    assert edge_sub_products(5, 9, 9) == []                  # only 1-bit digits reach column 9


@pytest.mark.parametrize("a_width,b_width", [(6, 6), (5, 7)])
def test_lut_mul_edge_matches_the_definition_exhaustively(a_width, b_width):
    a, b = _all_pairs(a_width, b_width)
    for t in range(0, a_width + b_width, 2):
        for edge in range(len(edge_sub_products(a_width, b_width, t)) + 1):
            unit = approx_units.get("lut_mul", width=a_width, width_b=b_width, t=t, edge=edge)
            expected = [_lut_mul_reference(int(x), int(y), a_width, b_width, t, edge) for x, y in zip(a, b)]
            assert np.array_equal(unit.model(a, b), np.array(expected, dtype=np.uint64)), (t, edge)


def test_lut_mul_edge_known_answer_and_error_between_t_steps():
    # t = 8, edge = 2: the digit products (2, 6) and (6, 2) are rounded to multiples of 2^9.
    # 255 * 255: digits all 3; each of those two 9s at column 8 becomes 4.5 -> 4 at
    # column 9: 2 * (9 - 8) * 256 below t = 8 alone.
    unit = approx_units.get("lut_mul", width=8, t=8, edge=2)
    plain = approx_units.get("lut_mul", width=8, t=8)
    assert int(unit.model(255, 255)) == int(plain.model(255, 255)) - 2 * 256 == _lut_mul_reference(255, 255, 8, 8, 8, 2)
    a, b = _all_pairs(8, 8)
    mred = [metrics.accumulate(approx_units.get("lut_mul", width=8, t=8, edge=e), a, b).mred for e in range(4)]
    mred.append(metrics.accumulate(approx_units.get("lut_mul", width=8, t=9), a, b).mred)
    # Exhaustive at 8 bits: 3.67 %, 4.24 %, 4.78 %, 5.32 %, then t = 9 at 6.20 %.
    assert [round(100 * x, 2) for x in mred] == [3.67, 4.24, 4.78, 5.32, 6.20]


@pytest.mark.parametrize("name,params,message", [
    ("vctm_mul", {"t": 6, "stagger": 3}, r"^stagger=3 is out of range for t=6 and width_b=8; allowed: 0\.\.2$"),
    ("vctm_mul", {"t": 2, "stagger": 1}, r"^stagger=1 is out of range for t=2 and width_b=8; allowed: 0\.\.0$"),
    ("vctm_mul", {"t": 6, "stagger": -1}, r"^stagger=-1 is out of range; allowed: 0\.\.8$"),
    ("lut_mul", {"stagger": 1}, "has no parameter 'stagger'"),
    ("lut_mul", {"t": 8, "edge": 4}, r"^edge=4 is out of range for t=8, width=8 and width_b=8; allowed: 0\.\.3$"),
    ("lut_mul", {"t": 13, "edge": 1}, r"^edge=1 is out of range for t=13, width=8 and width_b=8; allowed: 0\.\.0$"),
    ("lut_mul", {"edge": -1}, r"^edge=-1 is out of range; allowed: 0\.\.4$"),
    ("lut_mul", {"chain": 17}, r"^chain=17 is out of range; allowed: 0\.\.16$"),
    ("vctm_mul", {"edge": 1}, "has no parameter 'edge'"),
])
def test_parameter_out_of_range_names_the_parameter_and_range(name, params, message):
    with pytest.raises(ValueError, match=message):
        approx_units.get(name, width=8, **params)


@pytest.mark.parametrize("name,params", [("exact_mul", {}), ("lut_mul", {"t": 4}), ("lut_mul", {"t": 8, "edge": 2})])
def test_every_adder_of_the_sub_product_sum_is_kept_in_the_verilog(name, params):
    # Without (* keep *), Yosys's alumacc merges adders whose rows start in the same
    # column into one $macc of LUT full adders (lut_mul t=4: 134 LUT-eq instead of 114).
    import re
    from approx_units import synth
    unit = approx_units.get(name, width=8, stages=1, **params)
    adders = [node for node in unit.graph.nodes if node.op == "add"]
    assert adders and all("keep" in node.attrs for node in adders)
    verilog = synth.unit_verilog(unit)
    for node in adders:
        assert re.search(rf"\(\* keep = 32'd1 \*\)\s*wire \[\d+:0\] n{node.index}_add;", verilog), node
    # vctm_mul's adders are left to Yosys (kept, its rows cost more: t=8 113 against 80 LUT-eq).
    assert "keep" not in synth.unit_verilog(approx_units.get("vctm_mul", width=8, t=8))


def test_chain_keeps_only_the_additions_of_wide_operands_and_not_the_model():
    a, b = _all_pairs(8, 8)
    plain = approx_units.get("lut_mul", width=8, t=11)
    expected = plain.model(a, b)
    for chain in (3, 5, 16):
        unit = approx_units.get("lut_mul", width=8, t=11, chain=chain)
        assert np.array_equal(unit.model(a, b), expected)
        for node in unit.graph.nodes:
            if node.op == "add":
                # The adder's operands: a slice of the lower row and the higher row.
                narrow = min(arg.width for arg in node.args)
                assert ("keep" in node.attrs) == (narrow >= chain), (chain, node)
    assert not any("keep" in n.attrs for n in approx_units.get("lut_mul", width=8, t=11, chain=16).graph.nodes)


@pytest.mark.parametrize("a_width,b_width", [(8, 8), (7, 5), (4, 9), (5, 5)])
def test_signed_exact_mul_is_the_twos_complement_product_exhaustively(a_width, b_width):
    # Native two's complement digits (no sign-magnitude wrapper): exact for every pair,
    # -2^(n-1) x -2^(m-1) included.
    from approx_units.structures import signed_sub_products
    unit = approx_units.get("exact_mul", width=a_width, width_b=b_width, signed=True)
    a, b = np.meshgrid(np.arange(-(1 << (a_width - 1)), 1 << (a_width - 1)),
                       np.arange(-(1 << (b_width - 1)), 1 << (b_width - 1)), indexing="ij")
    assert np.array_equal(unit.model(a, b), a * b)
    terms, offset = signed_sub_products(a_width, b_width)
    assert offset < 0 and all(min(table) == 0 for *_, table in terms)
    # 8 x 8: the top digits are d0 - 2 d1 in -2..1; their product's table is offset by -2.
    if (a_width, b_width) == (8, 8):
        top = [term for term in terms if term[0] == 6 and term[2] == 6][0]
        assert top[5] == \
            [x * y + 2 for y in (0, 1, -2, -1) for x in (0, 1, -2, -1)]
