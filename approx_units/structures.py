"""Structural building blocks shared by the unit descriptions.

Wide operations are described as several nodes (chunked carry chains,
partial-product adder trees) so that the pipeliner has places to cut them.
"""

from __future__ import annotations

__all__ = ["chunked_add", "adder_tree", "exact_product", "leading_one_normalise",
           "scale_by_power_of_two", "sign_magnitude", "CHUNK"]

#: Width of one carry-chain segment; a pipeline register can go between segments.
CHUNK = 16


def chunked_add(ops, a, b, carry=None, *, width: int):
    """``(a + b + carry) mod 2**width`` as a ripple of ``CHUNK``-bit adders."""
    a, b = ops.zext(a, width), ops.zext(b, width)
    parts = []
    for lo in range(0, width, CHUNK):
        hi = min(width, lo + CHUNK)
        total = ops.add(ops.slice(a, lo, hi), ops.slice(b, lo, hi), width=hi - lo + 1)
        if carry is not None:
            total = ops.add(total, carry, width=hi - lo + 1)
        parts.append(ops.slice(total, 0, hi - lo))
        carry = ops.bit(total, hi - lo)
    return ops.cat(*parts)


def adder_tree(ops, terms, *, width: int):
    """Sum of ``terms`` modulo ``2**width`` by a balanced tree of two-input adders."""
    terms = list(terms)
    if not terms:
        return ops.const(0, width)
    while len(terms) > 1:
        paired = []
        for i in range(0, len(terms) - 1, 2):
            x, y = terms[i], terms[i + 1]
            paired.append(ops.add(x, y, width=min(width, max(x.width, y.width) + 1)))
        if len(terms) % 2:
            paired.append(terms[-1])
        terms = paired
    return ops.zext(terms[0], width)


def exact_product(ops, a, b, *, drop_below: int = 0):
    """``a * b`` as an array of partial products summed by an adder tree.

    Partial-product bits in columns below ``drop_below`` are left out
    (a truncated, or broken-array, multiplier); ``drop_below=0`` is exact.
    """
    width = a.width + b.width
    terms = []
    for j in range(b.width):
        row = ops.and_(a, ops.replicate(ops.bit(b, j), a.width))    # columns j .. j + wa - 1
        first = max(0, drop_below - j)                                # first kept bit of the row
        if first >= a.width:
            continue
        kept = ops.slice(row, first, a.width)
        terms.append(ops.shift_left_const(kept, j + first))
    return adder_tree(ops, terms, width=width)


def leading_one_normalise(ops, x):
    """Split a non-zero ``x`` into ``(k, f)`` with ``x = 2**k * (1 + f / 2**(w-1))``.

    ``k`` is the leading-one position; ``f`` the ``w-1`` bits below the leading
    one, left-aligned (Mitchell's fraction). For ``x == 0`` both are 0.

    Built as a normaliser rather than a leading-one detector driving a
    barrel shifter: stage ``j`` shifts left by ``2**j`` when the top ``2**j``
    bits are zero, and the stages' decisions are the bits of ``~k``. On ECP5
    this is about 40 % fewer LUTs at 16 bits (43 against 69 LUT4s). Each
    stage's zero test is not made on the previous stage's output, which
    would chain them: every group of ``x`` that can end up on top is tested
    at once, and the earlier decisions select the right test, the earliest
    decision nearest the tests, so a stage waits one multiplexer level for
    the decision just made.
    """
    w = x.width
    stages = max(1, (w - 1).bit_length())
    padded = 1 << stages        # zeros above x only add leading zeros: k is unchanged
    wide = ops.zext(x, padded)
    value = wide
    decisions = []              # from the first stage (shift by padded/2) on
    for j in reversed(range(stages)):
        step = 1 << j
        # Earlier stages shifted by a multiple s of 2 * step, so the top
        # group is wide[padded - step - s : padded - s]; candidate i has s = i * 2 * step.
        tests = [ops.is_zero(ops.slice(wide, padded - step - i * 2 * step, padded - i * 2 * step))
                 for i in range(padded // (2 * step))]
        for depth, decision in enumerate(decisions):      # earliest decision first
            half = len(tests) // 2
            tests = [ops.mux(decision, tests[i + half], tests[i]) for i in range(half)]
        top_clear = tests[0]
        value = ops.mux(top_clear, ops.shift_left_const(ops.slice(value, 0, padded - step), step), value)
        decisions.append(top_clear)
    k = ops.not_(ops.cat(*reversed(decisions)))     # bit j of ~k is stage j's decision
    return k, ops.slice(value, padded - w, padded - 1)


def scale_by_power_of_two(ops, m, k, frac_bits: int, width: int):
    """``floor(m * 2**(k - frac_bits)) mod 2**width`` for unsigned ``m`` and ``k``.

    One left shifter over ``width + frac_bits`` bits whose low ``frac_bits``
    are dropped (synthesis prunes them). Where that intermediate would not
    fit the numpy model's 64 bits, a left shifter for ``k >= frac_bits`` and
    a narrow right shifter for the rest compute the same function.
    """
    if width + frac_bits <= 64:
        return ops.slice(ops.shl(m, k, width=width + frac_bits), frac_bits, width + frac_bits)
    left = ops.ge(k, frac_bits)
    shifted_left = ops.shl(m, ops.sub(k, frac_bits, width=k.width), width=width)
    shifted_right = ops.shr(m, ops.sub(frac_bits, k, width=max(k.width, int(frac_bits).bit_length()) + 1))
    return ops.mux(left, shifted_left, ops.zext(shifted_right, width))


def sign_magnitude(ops, x):
    """``(sign, |x|)`` of a two's complement ``x``; ``|x|`` keeps ``x``'s width (unsigned)."""
    sign = ops.bit(x, x.width - 1)
    return sign, ops.mux(sign, ops.sub(0, x, width=x.width), x)


def apply_sign(ops, negative, magnitude, *, width: int):
    """Two's complement ``-magnitude`` when ``negative`` else ``magnitude``, in ``width`` bits."""
    return ops.mux(negative, ops.sub(0, magnitude, width=width), ops.zext(magnitude, width))
