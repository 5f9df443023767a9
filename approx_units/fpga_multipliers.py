"""Approximate multipliers built for 4-input LUTs and carry chains (FPGA soft logic).

Both units accumulate their partial products with
:func:`approx_units.structures.carry_chain_sum`, a tree of two-input adders
in which the low bits of the lower-placed operand pass around each adder.
Those bits are used outside the adder, so Yosys keeps such an adder as its
own carry chain (``CCU2C`` on ECP5: two bits for two LUT equivalents)
instead of merging the whole tree into one compressor of LUT-mapped full
adders (two LUT4s per bit of reduction). Rows that start in the same column
have no such bits, and Yosys merged them: ``lut_mul`` therefore marks every
adder ``keep`` (:meth:`approx_units.dataflow.Ops.add`), so that none is
merged. Where few, narrow rows remain (large ``t``), merged narrow adders
can cost less, as Yosys then maps them into LUT logic with the tables:
``chain = k`` keeps only the additions of two operands of ``k`` bits or
more (at 8 bits, ``t=11``: 32 LUT equivalents with all kept, 24 with
``chain=5``). On ECP5 (``synth_ecp5 -nodsp -nowidelut``) the exact 8x8 array of
2x2 sub-multipliers takes 126 LUT equivalents this way, against 159 for the
AND-gate array on a merged adder tree; it is ``exact_mul`` itself.

``lut_mul`` splits the operands into 2-bit digits. Each digit pair is a
2x2 sub-multiplier whose four inputs fit one LUT4 per output bit. Columns
of the result below ``t`` are approximated: sub-products wholly at or above
column ``t`` are exact; every other sub-product is replaced by its value
rounded to the nearest multiple of ``2**t`` (or left out where that is
non-zero for one input only), which is again a function of
the same four inputs (one LUT4 per bit of the rounded value) and so costs
no more than dropping it. The rounding is the error compensation: unlike a
truncated array, it does not always underestimate. Small operands whose
product lies below ``2**t`` are the ones approximated, so MRED, which
weighs them most, falls quickly as ``t`` goes down. ``edge`` takes a half
step towards ``t + 2``: the outermost 2x2 sub-products of the lowest exact
column lose their lowest bit (rounded half to even, one LUT and one adder
bit fewer each). At 8 bits, ``t=8`` is 70 LUT equivalents at 3.67 % MRED,
``edge=2`` 65 at 4.78 %, and ``t=9`` 57 at 6.20 %.

``vctm_mul`` is the partial-product (AND-gate) array with the columns below
``t`` dropped and King and Swartzlander's variable correction: the
partial-product bits of column ``t - 1`` are added once more, at column
``t``, standing in for the carries of the dropped columns. All rows then
start at column ``t``, so no bits bypass the first adders and Yosys merges
them into one compressor. ``stagger`` moves the boundary of pairs of rows
to ``t - 1`` and ``t + 1`` (each row's first dropped bit still added at its
start), so that rows start in different columns and the carry chains stay;
at 8 bits, ``t=6, stagger=1`` is 111 LUT equivalents at 1.06 % MRED
against 118 at 1.01 % without. The effect on area is irregular (it depends
on how Yosys and ABC map the rest): ``benchmarks/fpga_multipliers.py``
measures it.

Both are unsigned cores; signed variants come from the sign-magnitude
wrapper of :mod:`approx_units.multipliers`. Neither the roundings nor the
correction ever carry a result past ``2**(n+m) - 1``: the all-ones operands
maximise every term at once, and their sum fits for every width, ``t``,
``edge`` and ``stagger`` (checked when a unit is traced, and for all widths
by the tests).
"""

from __future__ import annotations

from .multipliers import _multiplier
from .registry import Param
from .structures import carry_chain_sum, check_fits, exact_sub_products, sub_product_sum

__all__ = ["edge_sub_products", "lut_mul_terms", "rounded_table"]


def rounded_table(table, shift: int) -> list[int]:
    """Each entry divided by ``2**shift`` and rounded half up: ``floor(v / 2**shift + 1/2)``."""
    if shift <= 0:
        return list(table)
    return [(value + (1 << (shift - 1))) >> shift for value in table]


def edge_sub_products(a_width: int, b_width: int, t: int) -> list[tuple[int, int]]:
    """``(a_lo, b_lo)`` of the sub-products ``edge`` may round, outermost first.

    They are the full 2x2 sub-products (the top digit of an odd width has one
    bit and is not one of them) of the lowest column at or above ``t`` that
    holds any; the outermost (largest ``|a_lo - b_lo|``, then smallest
    ``a_lo``) come first, as they are the least often large.
    """
    full = [(a_lo, b_lo) for a_lo in range(0, a_width - 1, 2) for b_lo in range(0, b_width - 1, 2)
            if a_lo + b_lo >= t]
    if not full:
        return []
    lowest = min(a_lo + b_lo for a_lo, b_lo in full)
    return sorted((pair for pair in full if sum(pair) == lowest),
                  key=lambda pair: (-abs(pair[0] - pair[1]), pair[0]))


def lut_mul_terms(a_width: int, b_width: int, t: int, edge: int = 0):
    """The sub-products of ``lut_mul``: ``(a_lo, a_bits, b_lo, b_bits, column, table)`` each.

    ``table`` is indexed by ``a[a_lo : a_lo + a_bits] | b[b_lo : b_lo + b_bits] << a_bits``;
    its entries are added at ``column``. Sub-products below ``t`` are rounded
    to multiples of ``2**t`` (half up); the first ``edge`` of
    :func:`edge_sub_products` are rounded to multiples of twice their own
    weight, half to even (``9 -> 4``: at the all-ones operands, which give the
    largest sum, it falls, so no sum leaves the output range). Sub-products that
    round to zero for all inputs but one at most are left out.
    """
    halved = set(edge_sub_products(a_width, b_width, t)[:edge])
    terms = []
    for a_lo, a_bits, b_lo, b_bits, column, exact in exact_sub_products(a_width, b_width):
        if column >= t and (a_lo, b_lo) not in halved:
            terms.append((a_lo, a_bits, b_lo, b_bits, column, exact))
            continue
        if (a_lo, b_lo) in halved:      # half to even: 9 -> 4 x 2, so the largest sum only falls
            target, table = column + 1, [(v >> 1) + (v & (v >> 1) & 1) for v in exact]
        else:
            target, table = t, rounded_table(exact, t - column)
        # A sub-product that rounds up for one input only (3 x 3 = 9 shifted by 4)
        # would cost a LUT and an adder bit for an error that is 1 in 16 inputs.
        if sum(1 for value in table if value) > 1:
            terms.append((a_lo, a_bits, b_lo, b_bits, target, table))
    return terms


def _t_param(default, doc_default):
    return Param("t", default=default, bounds=lambda w, wb, s: (0, w + wb - 1),
                 doc=f"result columns below t are approximated, 0..n+m-1 (0: exact; default {doc_default})")


def _lut_check(width, width_b, signed, values):
    allowed = len(edge_sub_products(width, width_b, values["t"]))
    if values["edge"] > allowed:
        raise ValueError(f"edge={values['edge']} is out of range for t={values['t']}, width={width} and "
                         f"width_b={width_b}; allowed: 0..{allowed}")


@_multiplier("lut_mul",
             "LUT-level 2x2 sub-multipliers on carry-chain adders; sub-products below column t "
             "rounded to multiples of 2^t",
             "after S. Ullah, S. S. Murthy, A. Kumar, DAC 2018 (SMApproxLib: LUT-level sub-multipliers "
             "on FPGA carry chains) and S. Rehman et al., ICCAD 2016 (2x2 building blocks); "
             "the rounded low sub-products are this library's",
             [_t_param(lambda w, wb, s: max(0, (w + wb) // 2 - 3), "floor((n+m)/2) - 3, 5 at 8 bits"),
              Param("edge", default=lambda w, wb, s: 0, bounds=lambda w, wb, s: (0, min(w, wb) // 2),
                    doc="2x2 sub-products of the lowest exact column (at or above t) rounded to "
                        "twice their weight, outermost first, 0..(their number) (default 0)"),
              Param("chain", default=lambda w, wb, s: 0, bounds=lambda w, wb, s: (0, w + wb),
                    doc="additions of two operands of at least this many bits are kept as carry chains, "
                        "narrower ones left to synthesis to merge, 0..n+m (default 0: all kept)")],
             check=_lut_check,
             # Unsigned, t=0 with everything kept is exact_mul's circuit already; this also
             # gives the signed corner exact_mul's two's complement digits.
             exact_when=lambda w, wb, s, values: values["t"] == 0 and values["edge"] == 0 and values["chain"] == 0)
def lut_mul(ops, a, b, *, t, edge, chain):
    return sub_product_sum(ops, a, b, lut_mul_terms(a.width, b.width, t, edge), name="lut_mul", chain=chain)


def stagger_pairs(t: int, b_width: int) -> list[tuple[int, int]]:
    """Rows ``(lowered, raised)`` of ``vctm_mul`` whose boundary ``stagger`` moves, nearest ``t`` first."""
    pairs = []
    raised = t - 2
    while raised - 1 >= 0:
        if raised < b_width:
            pairs.append((raised - 1, raised))
        raised -= 2
    return pairs


def vctm_row_starts(t: int, stagger: int, b_width: int) -> list[int]:
    """The column from which row ``j`` (the partial products of ``b[j]``) of ``vctm_mul`` is kept.

    Without stagger every row starts at ``t`` (a row ``j >= t`` starts at ``j`` anyway).
    With ``stagger = k``, rows ``t - 1`` and up are kept whole, and the ``k`` row pairs
    of :func:`stagger_pairs` start at ``t - 1`` and ``t + 1``.
    """
    starts = [t] * b_width
    if stagger:
        for j in range(max(0, t - 1), b_width):
            starts[j] = t - 1
        for lowered, raised in stagger_pairs(t, b_width)[:stagger]:
            starts[lowered], starts[raised] = t - 1, t + 1
    return starts


def _vctm_check(width, width_b, signed, values):
    allowed = len(stagger_pairs(values["t"], width_b))
    if values["stagger"] > allowed:
        raise ValueError(f"stagger={values['stagger']} is out of range for t={values['t']} and "
                         f"width_b={width_b}; allowed: 0..{allowed}")


@_multiplier("vctm_mul",
             "truncated partial-product array with variable correction (column t-1 added at t), "
             "rows on carry-chain adders, optionally a staggered boundary",
             "E. J. King, E. E. Swartzlander Jr., \"Data-dependent truncation scheme for parallel "
             "multipliers\", Asilomar Conf. Signals, Systems & Computers, 1997; the staggered "
             "boundary is this library's",
             [_t_param(lambda w, wb, s: max(0, (w + wb) // 2 - 3), "floor((n+m)/2) - 3, 5 at 8 bits"),
              Param("stagger", default=lambda w, wb, s: 0, bounds=lambda w, wb, s: (0, (w + wb) // 2),
                    doc="row pairs below t whose boundary moves to t-1 and t+1, rows t-1 and up "
                        "exact, 0..(number of row pairs below t) (default 0: plain VCTM)")],
             check=_vctm_check,
             exact_when=lambda w, wb, s, values: values["t"] == 0)
def vctm_mul(ops, a, b, *, t, stagger):
    out = a.width + b.width
    placed, largest = [], 0
    for j, start in enumerate(vctm_row_starts(t, stagger, b.width)):
        first = max(0, start - j)               # first bit of a whose product with b[j] is kept
        if first < a.width:
            row = ops.and_(ops.slice(a, first, a.width), ops.replicate(ops.bit(b, j), a.width - first))
            placed.append((first + j, row))
            largest += ((1 << (a.width - first)) - 1) << (first + j)
        i = start - 1 - j                       # the row's first dropped bit, added at its start
        if start > 0 and 0 <= i < a.width:
            placed.append((start, ops.and_(ops.bit(a, i), ops.bit(b, j))))
            largest += 1 << start
    check_fits(largest, out, "vctm_mul")
    return carry_chain_sum(ops, placed, width=out)
