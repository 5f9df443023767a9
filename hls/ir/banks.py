"""Which bank of a partitioned array an access touches, when that is known at compile time.

The index of every access is kept whole; these analyses decide whether its bank
is the same in every execution:

* ``cyclic`` by ``k``: the bank is ``index mod k``. :func:`residue` follows
  constants, the loop counter (whose start is a constant and whose step is a
  multiple of ``k``), additions, subtractions, negations, products and left
  shifts, and wraps to at least ``log2 k`` bits (``k`` is a power of two, so a
  wrap keeps the residue): ``a[4 * i + 2]``, ``a[i + 1]`` in a loop over
  ``range(0, n, 4)``, or ``a[y * 16 + x]`` with ``k`` dividing 16 have static banks;
* ``block`` of size ``B``: the bank is ``index // B``. :func:`value_range` bounds the
  index (the loop counter between constant bounds, interval arithmetic, a
  value's shape otherwise); it is static when the whole range lies in one block;
* ``complete``: static when the index is one value.

An access whose bank is not static is built on every bank by the IR builder:
loads from all of them and a multiplexer on the bank bits; a store on every
bank, predicated on its bank bits.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import shape_range
from .nodes import ArrayLayout, Op

__all__ = ["InductionFacts", "residue", "value_range", "static_bank"]


@dataclass(frozen=True)
class InductionFacts:
    """What is known of a pipelined loop's counter: a constant start (or ``None``),
    the step, and the smallest and largest value it takes (``None`` if unknown)."""

    start: int | None
    step: int
    low: int | None = None
    high: int | None = None


def residue(op: Op, modulus: int, facts: dict) -> int | None:
    """``op``'s value modulo ``modulus`` (a power of two) when it is the same in every execution."""
    kind = op.kind
    if kind == "const":
        return op.attrs["value"] % modulus
    if kind == "induction":
        fact = facts.get(op)
        if fact is not None and fact.start is not None and fact.step % modulus == 0:
            return fact.start % modulus
    elif kind == "wrap":
        if (1 << op.shape.width) % modulus == 0:
            return residue(op.operands[0], modulus, facts)
    elif kind in ("add", "sub"):
        left, right = (residue(operand, modulus, facts) for operand in op.operands)
        if left is not None and right is not None:
            return (left + right if kind == "add" else left - right) % modulus
    elif kind == "neg":
        inner = residue(op.operands[0], modulus, facts)
        return None if inner is None else -inner % modulus
    elif kind == "mul":
        left, right = (residue(operand, modulus, facts) for operand in op.operands)
        if left == 0 or right == 0:
            return 0
        if left is not None and right is not None:
            return left * right % modulus
    elif kind == "shl" and op.operands[1].kind == "const":
        amount = op.operands[1].attrs["value"]
        if (1 << amount) % modulus == 0:
            return 0
        inner = residue(op.operands[0], modulus, facts)
        return None if inner is None else (inner << amount) % modulus
    low, high = value_range(op, facts)
    return low % modulus if low == high else None


def value_range(op: Op, facts: dict) -> tuple[int, int]:
    """Bounds ``(low, high)`` on ``op``'s value, inclusive."""
    kind = op.kind
    own = shape_range(op.shape)
    if kind == "const":
        return op.attrs["value"], op.attrs["value"]
    if kind == "induction":
        fact = facts.get(op)
        if fact is not None and fact.low is not None:
            return fact.low, fact.high
        return own
    if kind == "wrap":
        low, high = value_range(op.operands[0], facts)
        return (low, high) if own[0] <= low and high <= own[1] else own
    if kind in ("add", "sub"):
        (a, b), (c, d) = (value_range(operand, facts) for operand in op.operands)
        low, high = (a + c, b + d) if kind == "add" else (a - d, b - c)
    elif kind == "neg":
        a, b = value_range(op.operands[0], facts)
        low, high = -b, -a
    elif kind == "mul":
        (a, b), (c, d) = (value_range(operand, facts) for operand in op.operands)
        products = (a * c, a * d, b * c, b * d)
        low, high = min(products), max(products)
    elif kind == "shl" and op.operands[1].kind == "const":
        a, b = value_range(op.operands[0], facts)
        amount = op.operands[1].attrs["value"]
        low, high = a << amount, b << amount
    else:
        return own
    # The operation's own shape holds its value exactly (expressions do not wrap).
    return max(low, own[0]), min(high, own[1])


def static_bank(index: Op, layout: ArrayLayout, facts: dict) -> int | None:
    """The bank every execution of an access at ``index`` touches, or ``None`` if it varies."""
    partition = layout.partition
    if partition is None:
        return None
    low, high = value_range(index, facts)
    if partition.kind == "cyclic":
        bank = residue(index, partition.factor, facts)
        if bank is not None:
            return bank
    if low < 0 or high >= layout.depth:
        return None     # may leave the array: the hardware then takes the index's low bits
    if partition.kind == "block":
        size = layout.bank_depth
        return low // size if low // size == high // size else None
    return low if low == high else None
