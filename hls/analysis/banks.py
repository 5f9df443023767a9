"""Which bank of a partitioned array an access touches, when that is known at compile time.

The index of every access is kept whole; the value analysis
(:mod:`hls.analysis.values`) decides whether its bank is the same in every
execution of the access:

* ``cyclic`` by ``k``: the bank is ``index mod k``, static when the index's
  affine form has a known residue (its counters start at constants and step
  by multiples of ``k``; other terms have coefficients that are multiples of
  ``k``; a wrap to at least ``log2 k`` bits keeps the residue):
  ``a[4 * i + 2]``, ``a[i + 1]`` in a loop over ``range(0, n, 4)``, or
  ``a[y * 16 + x]`` with ``k`` dividing 16;
* ``block`` of size ``B``: the bank is ``index // B``, static when the index's
  interval lies in one block (the counters of a pipelined loop and of every
  level of a flattened nest are bounded by their ranges);
* ``complete``: static when the index is one value.

An access whose bank is not static is built on every bank by the IR builder:
loads from all of them and a multiplexer on the bank bits; a store on every
bank, predicated on its bank bits.
"""

from __future__ import annotations

from .values import ValueAnalysis

__all__ = ["static_bank"]


def static_bank(index, layout, values: ValueAnalysis, predicate=None) -> int | None:
    """The bank every execution of an access at ``index`` (under ``predicate``) touches, or ``None``.

    Parameters
    ----------
    index : Op
    layout : ArrayLayout
    values : ValueAnalysis
    predicate : Op or None
        The access's predicate: facts that hold only under it (a flattened nest's
        inner counter) bound the index.
    """
    partition = layout.partition
    if partition is None:
        return None
    value = values.value(index, predicate)
    if partition.kind == "cyclic":
        bank = value.residue(partition.factor)
        if bank is not None:
            return bank
    if value.low < 0 or value.high >= layout.depth:
        return None     # may leave the array: the hardware then takes the index's low bits
    if partition.kind == "block":
        size = layout.bank_depth
        return value.low // size if value.low // size == value.high // size else None
    return value.low if value.is_constant else None
