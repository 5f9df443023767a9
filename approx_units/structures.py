"""Structural building blocks shared by the unit descriptions.

Wide operations are described as several nodes (chunked carry chains,
partial-product adder trees) so that the pipeliner has places to cut them.
"""

from __future__ import annotations

__all__ = ["chunked_add", "adder_tree", "exact_product", "carry_chain_sum", "sub_multiplier_table",
           "exact_sub_products", "signed_sub_products", "sub_product_sum", "check_fits", "leading_one_normalise",
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


def _pack_rows(ops, terms):
    """Place ``(column, node)`` terms side by side into as few rows as possible.

    Terms that do not overlap share a row (a concatenation, gaps filled with
    zeros), so the adder tree sees a few wide operands, not many narrow ones.
    Returns ``(column, node)`` rows.
    """
    rows = []
    for column, node in sorted(terms, key=lambda term: term[0]):
        for row in rows:
            last_column, last = row[-1]
            if last_column + last.width <= column:
                row.append((column, node))
                break
        else:
            rows.append([(column, node)])
    packed = []
    for row in rows:
        parts, position = [], row[0][0]
        for column, node in row:
            if column > position:
                parts.append(ops.const(0, column - position))
            parts.append(node)
            position = column + node.width
        packed.append((row[0][0], ops.cat(*parts) if len(parts) > 1 else parts[0]))
    return packed


def _add_placed(ops, x, y, width, keep_from=None):
    """Sum of two placed values ``(column, node)`` modulo ``2**width``.

    Bits below the higher one's column pass around the adder, which is
    marked ``keep`` when both of its operands have ``keep_from`` bits or more.
    """
    (low_column, low), (high_column, high) = sorted([x, y], key=lambda term: term[0])
    offset = high_column - low_column
    if offset >= low.width:         # no overlap: a concatenation, no adder
        gap = [ops.const(0, offset - low.width)] if offset > low.width else []
        total = ops.cat(low, *gap, high)
        return low_column, ops.zext(total, min(total.width, width - low_column))
    overlap = ops.slice(low, offset, low.width)
    total = ops.add(overlap, high, width=min(max(overlap.width, high.width) + 1, width - high_column),
                    keep=keep_from is not None and min(overlap.width, high.width) >= keep_from)
    return low_column, (ops.cat(ops.slice(low, 0, offset), total) if offset else total)


def carry_chain_sum(ops, terms, *, width: int, keep_from: int | None = None):
    """``sum(node << column for column, node in terms) mod 2**width`` by carry-chain adders.

    Terms are packed into rows (:func:`_pack_rows`) and added pairwise, rows
    in column order, level by level (a balanced tree, so the pipeliner can
    cut between levels). In each addition the low bits of the lower-placed
    row bypass the adder: those bits are used outside the adder, so Yosys
    keeps it as its own carry chain (``CCU2C`` on ECP5: two bits for two
    LUT equivalents) rather than merging the tree into one compressor of
    LUT-mapped full adders (two LUT4s per bit of reduction). Rows that start
    in the same column have no such bits; with ``keep_from = k`` every adder
    whose operands have ``k`` bits or more is marked ``keep``
    (:meth:`~approx_units.dataflow.Ops.add`) and so is never merged, and
    narrower ones are left to Yosys (merged, they may fold into LUT logic).
    ``None`` marks none.
    """
    terms = [(column, ops.zext(node, min(node.width, width - column)))
             for column, node in terms if column < width]        # bits at 2**width and up are 0 mod 2**width
    rows = _pack_rows(ops, terms)
    if not rows:
        return ops.const(0, width)
    while len(rows) > 1:
        rows = sorted(rows, key=lambda row: row[0])
        paired = [_add_placed(ops, rows[i], rows[i + 1], width, keep_from) for i in range(0, len(rows) - 1, 2)]
        if len(rows) % 2:
            paired.append(rows[-1])
        rows = paired
    column, node = rows[0]
    return ops.zext(ops.shift_left_const(ops.zext(node, width - column), column), width)


def sub_multiplier_table(x_bits: int, y_bits: int) -> list[int]:
    """Truth table of an exact ``x_bits x y_bits`` sub-multiplier, indexed by ``x | y << x_bits``."""
    return [(index & ((1 << x_bits) - 1)) * (index >> x_bits) for index in range(1 << (x_bits + y_bits))]


def exact_sub_products(a_width: int, b_width: int):
    """The exact 2-bit-digit sub-products of an ``a_width x b_width`` product.

    ``(a_lo, a_bits, b_lo, b_bits, column, table)`` each, ``b_lo`` outer and
    ``a_lo`` inner: the digits ``a[a_lo : a_lo + a_bits]`` and ``b[b_lo : b_lo +
    b_bits]`` (the top digit of an odd width has one bit), their product's
    truth table (:func:`sub_multiplier_table`) and its column ``a_lo + b_lo``.
    """
    return [(a_lo, min(2, a_width - a_lo), b_lo, min(2, b_width - b_lo), a_lo + b_lo,
             sub_multiplier_table(min(2, a_width - a_lo), min(2, b_width - b_lo)))
            for b_lo in range(0, b_width, 2) for a_lo in range(0, a_width, 2)]


def signed_sub_products(a_width: int, b_width: int):
    """The 2-bit-digit sub-products of a two's complement product, and their offset.

    Returns ``(terms, offset)``: ``terms`` as :func:`exact_sub_products`, but
    each operand's top digit weighs its top bit negatively (a 2-bit top digit
    is ``d0 - 2 d1``, a 1-bit one ``-d0``), and each table holds the digit
    product minus its smallest value, so that it is non-negative. ``offset``
    is the sum of those smallest values at their columns (negative or 0):
    ``sum(table[digits] << column) + offset == a * b`` for every operand pair.
    """
    def digit_values(width, lo):
        bits = min(2, width - lo)
        if lo + bits < width:
            return [index for index in range(1 << bits)]
        return [(index & 1) - 2 * (index >> 1) if bits == 2 else -index for index in range(1 << bits)]

    terms, offset = [], 0
    for a_lo, a_bits, b_lo, b_bits, column, _ in exact_sub_products(a_width, b_width):
        xs, ys = digit_values(a_width, a_lo), digit_values(b_width, b_lo)
        products = [xs[index & ((1 << a_bits) - 1)] * ys[index >> a_bits] for index in range(1 << (a_bits + b_bits))]
        low = min(products)
        terms.append((a_lo, a_bits, b_lo, b_bits, column, [value - low for value in products]))
        offset += low << column
    return terms, offset


def check_fits(largest: int, out_width: int, name: str) -> None:
    """Guard of a description: ``largest``, its largest output, must fit ``out_width`` bits.

    Callers pass the sum of every term at the all-ones operands, which
    maximise each term at once; the tests check every width and parameter,
    so this guards the description, not the user.
    """
    if largest >= 1 << out_width:
        raise AssertionError(f"{name}: the largest sum {largest} does not fit {out_width} bits")


def sub_product_sum(ops, a, b, terms, *, name: str, chain: int = 0, offset: int = 0):
    """``sum(table[digits] << column)`` over ``terms`` in ``a.width + b.width`` bits.

    ``terms`` are ``(a_lo, a_bits, b_lo, b_bits, column, table)`` as
    :func:`exact_sub_products` gives them (the tables may be approximate):
    each is a look-up of the two digits, one LUT4 per output bit for 2 x 2
    digits, and the look-ups are summed by :func:`carry_chain_sum` with
    every adder whose operands have ``chain`` bits or more kept (0: all).
    ``name`` labels the :func:`check_fits` guard. A non-zero ``offset``
    (:func:`signed_sub_products`) is added as one more row and the sum is
    taken modulo ``2**(n+m)``, as two's complement; there is no guard then.
    """
    out = a.width + b.width
    placed, largest = [], 0
    for a_lo, a_bits, b_lo, b_bits, column, table in terms:
        index = ops.cat(ops.slice(a, a_lo, a_lo + a_bits), ops.slice(b, b_lo, b_lo + b_bits))
        placed.append((column, ops.lookup(index, table, max(1, max(table).bit_length()))))
        largest += max(table) << column      # all-ones operands maximise every table at once
    if offset:
        constant = offset % (1 << out)
        low = (constant & -constant).bit_length() - 1       # its lowest set bit
        placed.append((low, ops.const(constant >> low, out - low)))
    else:
        check_fits(largest, out, name)
    return carry_chain_sum(ops, placed, width=out, keep_from=chain)


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
