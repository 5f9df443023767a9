"""Multipliers, exact and approximate.

Result format: an ``n x m`` multiplier (``width=n``, ``width_b=m``, default
``m = n``) returns ``n + m`` bits. Signed variants
use sign-magnitude wrapping: the unsigned core multiplies the operands'
magnitudes (``n`` and ``m`` bits, so ``-2**(n-1)`` is handled) and the product
is negated when the signs differ; the approximation is therefore symmetric
around zero. ``exact_mul``'s signed variant instead multiplies two's
complement digits directly (:func:`approx_units.structures.signed_sub_products`),
which is cheaper and, being exact, has no symmetry to keep. No approximate
product leaves the ``n + m``-bit range (Mitchell never overestimates; the
refined unit's mantissa stays below 4).
"""

from __future__ import annotations

from .structures import (adder_tree, apply_sign, exact_product, exact_sub_products, leading_one_normalise,
                         scale_by_power_of_two, sign_magnitude, signed_sub_products, sub_product_sum)
from .registry import Param, UnitSpec, register

__all__ = ["antilog"]


def _multiplier_stages(width):
    return 1 if width <= 8 else 2 if width <= 16 else 3


def _multiplier(name, summary, reference, params=(), check=None, recommended_stages=_multiplier_stages,
                signed_core=None, exact_when=None):
    # Every multiplier takes an n-bit a and an m-bit b (width_b); cores read
    # the widths from their operand nodes. The signed variant wraps the core
    # in sign-magnitude conversion, unless a signed_core takes the two's
    # complement operands itself. exact_when(width, width_b, signed, values)
    # names the parameter points at which the unit computes the exact product:
    # there it is built as exact_mul, the cheapest exact structure, rather than
    # as its own structure with nothing left to approximate.
    def decorate(core):
        def describe(ops, a, b, *, width, width_b, signed, **values):
            if exact_when is not None and exact_when(width, width_b, signed, values):
                return _signed_exact_mul(ops, a, b) if signed else exact_mul(ops, a, b)
            if not signed:
                return core(ops, a, b, **values)
            if signed_core is not None:
                return signed_core(ops, a, b, **values)
            sign_a, mag_a = sign_magnitude(ops, a)
            sign_b, mag_b = sign_magnitude(ops, b)
            product = core(ops, mag_a, mag_b, **values)
            return apply_sign(ops, ops.xor(sign_a, sign_b), product, width=width + width_b)
        register(UnitSpec(name=name, kind="mul", describe=describe,
                          output_width=lambda w, wb, s, v: w + wb, summary=summary,
                          reference=reference, params=tuple(params), non_square=True,
                          check=check, module=core.__module__,
                          recommended_stages=recommended_stages))
        return core
    return decorate


def _signed_exact_mul(ops, a, b):
    # Two's complement digits: the top digit of each operand is signed, each
    # table is offset to be non-negative, and the offsets are one constant row.
    terms, offset = signed_sub_products(a.width, b.width)
    return sub_product_sum(ops, a, b, terms, name="exact_mul", offset=offset)


@_multiplier("exact_mul", "exact multiplier: 2x2 sub-multipliers (one LUT4 per output bit) summed by "
             "carry-chain adders", "exact reference; structure after S. Ullah, S. S. Murthy, A. Kumar, "
             "DAC 2018 (SMApproxLib: LUT-level sub-multipliers on FPGA carry chains)",
             signed_core=_signed_exact_mul)
def exact_mul(ops, a, b):
    # The cheapest exact structure of the library on LUT4 FPGAs (ECP5: 126 LUT-eq
    # at 8 bits, 518 at 16, against 159 and 687 for the AND-gate array on an
    # adder tree that Yosys merges into one compressor); lut_mul at t=0 is the
    # same circuit.
    return sub_product_sum(ops, a, b, exact_sub_products(a.width, b.width), name="exact_mul")


@_multiplier("trunc_mul", "truncated (broken-array) multiplier: partial-product columns below c dropped",
             "J. M. Jou, S. R. Kuang, R. D. Chen, IEEE TCAS-II 46(6), 1999; "
             "H. R. Mahdiani et al., IEEE TCAS-I 57(4), 2010 (BAM)",
             [Param("c", default=lambda w, wb, s: w, bounds=lambda w, wb, s: (0, w + wb - 1),
                    doc="dropped partial-product columns, 0..n+m-1 (default n; 0: exact_mul)")],
             exact_when=lambda w, wb, s, values: values["c"] == 0)
def trunc_mul(ops, a, b, *, c):
    return exact_product(ops, a, b, drop_below=c)


def _drum_operand(ops, x, k):
    """DRUM's operand: the k bits from the leading one, LSB forced to 1 when bits were cut."""
    position = ops.lod(x)
    cut = ops.ge(position, k)                       # more than k significant bits
    shift = ops.mux(cut, ops.sub(position, k - 1, width=position.width), ops.const(0, position.width))
    kept = ops.slice(ops.shr(x, shift), 0, k)
    return ops.or_(kept, ops.zext(cut, k)), shift


@_multiplier("drum", "dynamic range unbiased multiplier DRUM(k)",
             "S. Hashemi, R. I. Bahar, S. Reda, ICCAD 2015",
             [Param("k", default=lambda w, wb, s: min(6, w, wb), bounds=lambda w, wb, s: (2, min(w, wb)),
                    doc="bits kept from each operand's leading one, 2..min(n, m) (default min(6, n, m); "
                        "k = n = m: exact_mul)")],
             # Only when k covers both operands is no bit ever cut: k = min(n, m) < max(n, m)
             # still cuts the wider operand.
             exact_when=lambda w, wb, s, values: values["k"] >= max(w, wb))
def drum(ops, a, b, *, k):
    ta, sa = _drum_operand(ops, a, k)
    tb, sb = _drum_operand(ops, b, k)
    product = exact_product(ops, ta, tb)
    return ops.shl(product, ops.add(sa, sb), width=a.width + b.width)


# -- logarithmic multipliers -------------------------------------------------

def antilog(ops, log_value, frac_bits: int, offset: int, out_width: int):
    """Mitchell's antilogarithm: ``floor((1 + f) * 2**(K - offset + frac_bits))``.

    ``log_value`` holds ``K * 2**frac_bits + f * 2**frac_bits`` (``0 <= f < 1``).
    Results of ``2**out_width`` or more saturate to all ones.
    """
    characteristic = ops.slice(log_value, frac_bits, log_value.width)
    mantissa = ops.cat(ops.slice(log_value, 0, frac_bits), ops.const(1, 1))     # 1.f
    overflow = ops.ge(characteristic, offset + out_width - frac_bits)
    result = scale_by_power_of_two(ops, mantissa, characteristic, offset, out_width)
    return ops.mux(overflow, ops.const((1 << out_width) - 1, out_width), result)


def mitchell_log_product(ops, a, b):
    """Mitchell multiplication ``a * b`` in ``n + m`` bits (0 if either is 0).

    Both fractions are aligned to the wider operand's ``max(n, m) - 1`` bits.
    """
    out = a.width + b.width
    f = max(a.width, b.width) - 1
    ka, xa = leading_one_normalise(ops, a)
    kb, xb = leading_one_normalise(ops, b)
    xa = ops.shift_left_const(xa, f - xa.width)
    xb = ops.shift_left_const(xb, f - xb.width)
    log_width = f + out.bit_length()
    log_sum = ops.add(ops.cat(xa, ka), ops.cat(xb, kb), width=log_width)
    product = antilog(ops, log_sum, f, f, out)
    either_zero = ops.or_(ops.is_zero(a), ops.is_zero(b))
    return ops.mux(either_zero, ops.const(0, out), product)


@_multiplier("mitchell", "Mitchell logarithmic multiplier",
             "J. N. Mitchell, IRE Trans. Electronic Computers EC-11(4), 1962")
def mitchell(ops, a, b):
    return mitchell_log_product(ops, a, b)


def _refined_check(width, width_b, signed, values):
    if values["index_bits"] > values["mantissa_bits"]:
        raise ValueError(f"index_bits={values['index_bits']} must not exceed "
                         f"mantissa_bits={values['mantissa_bits']}")


@_multiplier("mitchell_refined",
             "Mitchell multiplier with error refinement: truncated fractions plus Mitchell's error "
             "term at the centre of 2^q x 2^q fraction regions (RAPID style)",
             "Z. Ebrahimi et al., IEEE TCAD 2022 (RAPID); J. N. Mitchell, 1962",
             [Param("index_bits", default=lambda w, wb, s: min(4, max(w, wb) - 1),
                    bounds=lambda w, wb, s: (1, min(8, max(w, wb) - 1)),
                    doc="top fraction bits q of each operand selecting the error-term region, "
                        "1..min(8, max(n, m)-1), at most mantissa_bits (default min(4, max(n, m)-1))"),
              Param("mantissa_bits", default=lambda w, wb, s: min(7, max(w, wb) - 1),
                    bounds=lambda w, wb, s: (1, max(w, wb) - 1),
                    doc="fraction bits t kept below each operand's leading one, 1..max(n, m)-1 "
                        "(default min(7, max(n, m)-1))")],
             check=_refined_check,
             # One stage more at 32 bits than the other multipliers: its path
             # is deeper (normaliser, region product, shifter), and 4 is RAPID's
             # depth (ECP5: 117 MHz with 3 stages, 145 with 4).
             recommended_stages=lambda w: 1 if w <= 8 else 2 if w <= 16 else 4)
def mitchell_refined(ops, a, b, *, index_bits, mantissa_bits):
    # With x1, x2 the operands' fractions, the mantissa product has two exact
    # forms: (1+x1)(1+x2) = 1 + x1 + x2 + x1*x2 = 2(x1+x2) + (1-x1)(1-x2).
    # Dropping the last term of each gives Mitchell's two cases. Here the
    # dropped term is put back, evaluated at the centres c1, c2 of the
    # regions of the fractions' top q bits: a (q+1) x (q+1)-bit product
    # instead of a 2^2q-entry table, which is what keeps the unit small.
    # The second form is used when the top bits already add up to one or
    # more, where (1-x1)(1-x2) is the smaller term and so is approximated
    # more closely. With the centres, the second form equals the first plus
    # (x1 - c1) + (x2 - c2), so one product c1*c2 serves both and does not
    # wait for the choice. Fractions are truncated to t bits; a constant
    # half LSB recentres them.
    out = a.width + b.width
    f = max(a.width, b.width) - 1
    t, q = mantissa_bits, index_bits
    ka, xa = leading_one_normalise(ops, a)
    kb, xb = leading_one_normalise(ops, b)
    xa = ops.slice(ops.shift_left_const(xa, f - xa.width), f - t, f)
    xb = ops.slice(ops.shift_left_const(xb, f - xb.width), f - t, f)
    if t < f:
        xa, xb = ops.cat(ops.const(1, 1), xa), ops.cat(ops.const(1, 1), xb)
    p = xa.width                                    # fraction bits from here on
    top_a, top_b = ops.slice(xa, p - q, p), ops.slice(xb, p - q, p)
    centres = ops.mul(ops.cat(ops.const(1, 1), top_a), ops.cat(ops.const(1, 1), top_b))   # 2q + 2 fraction bits
    if centres.width > p:
        centres = ops.slice(centres, centres.width - p, centres.width)
    else:
        centres = ops.shift_left_const(centres, p - centres.width)
    second_form = ops.bit(ops.add(top_a, top_b, width=q + 1), q)
    # (x1 - c1) + (x2 - c2) in two's complement: each centre lies half a
    # region above its top bits, so the two together take one region width.
    # Subtracting that width from the low bits' sum (< 2 widths) only flips
    # the sum's top bit into a sign, so it costs wiring, not a carry chain.
    if q < p:
        low_sum = ops.add(ops.slice(xa, 0, p - q), ops.slice(xb, 0, p - q), width=p - q + 1)
        negative = ops.not_(ops.bit(low_sum, p - q))
        offsets = ops.cat(ops.slice(low_sum, 0, p - q), ops.replicate(negative, q + 2))
    else:           # no bits below the top bits: minus the two half LSBs
        offsets = ops.const((1 << (p + 2)) - 1, p + 2)
    x_sum = ops.add(xa, xb, width=p + 1)
    first = ops.cat(ops.slice(x_sum, 0, p), ops.not_(ops.bit(x_sum, p)),     # 1 + x1 + x2
                    ops.bit(x_sum, p))
    either_zero = ops.or_(ops.is_zero(a), ops.is_zero(b))
    base = ops.add(first, ops.mux(second_form, offsets, ops.const(0, p + 2)), width=p + 2)
    mantissa = ops.add(base, centres, width=p + 2)                            # in [1, 4)
    mantissa = ops.mux(either_zero, ops.const(0, p + 2), mantissa)            # 0 * 2^k = 0
    return scale_by_power_of_two(ops, mantissa, ops.add(ka, kb, width=ka.width + 1), p, out)


def _babic_basic_block(ops, a, b):
    """One ILM step: ``(approximation, residue_a, residue_b)`` with ``a*b = approx + ra*rb``."""
    out = a.width + b.width
    ka, kb = ops.lod(a), ops.lod(b)
    ra = ops.xor(a, ops.shl(ops.const(1, 1), ka, width=a.width))     # a without its leading one
    rb = ops.xor(b, ops.shl(ops.const(1, 1), kb, width=b.width))
    terms = [ops.shl(ops.const(1, 1), ops.add(ka, kb), width=out),
             ops.shl(ops.zext(ra, out), kb, width=out),
             ops.shl(ops.zext(rb, out), ka, width=out)]
    approximation = adder_tree(ops, terms, width=out)
    either_zero = ops.or_(ops.is_zero(a), ops.is_zero(b))
    approximation = ops.mux(either_zero, ops.const(0, out), approximation)
    return approximation, ops.mux(either_zero, ops.const(0, a.width), ra), rb


@_multiplier("iterlog", "iterative logarithmic multiplier (basic block plus correction terms)",
             "Z. Babic, A. Avramovic, P. Bulic, Microprocessors and Microsystems 35(1), 2011",
             [Param("corrections", default=lambda w, wb, s: 1, bounds=lambda w, wb, s: (0, min(w, wb)),
                    doc="correction terms after the basic block, 0..min(n, m) (default 1; from "
                        "min(n, m)-1 unsigned, min(n, m)-2 signed: exact_mul)")],
             # Each block removes one set bit from both residues, and a product is exact once
             # one residue is zero: after popcount blocks of the operand with fewer set bits,
             # at most min(n, m) (unsigned) or min(n, m) - 1 (a signed magnitude of
             # 2**(n-1) or less).
             exact_when=lambda w, wb, s, values: values["corrections"] >= min(w, wb) - 1 - s)
def iterlog(ops, a, b, *, corrections):
    out = a.width + b.width
    terms = []
    for _ in range(corrections + 1):
        term, a, b = _babic_basic_block(ops, a, b)
        terms.append(term)
    return adder_tree(ops, terms, width=out)
