"""Constant folding: the reads of ``hls.local`` arrays that only ever hold 0, and what follows.

An ``hls.local`` array starts as zeros (a list of zeros in the Python run).  One that no store
writes after dead-code elimination (:mod:`hls.ir.dead`), or whose every store writes 0, reads 0
wherever it is read.  Built as the IR says, it would still be a memory (or registers) with a
read port, and the logic after each read would be scheduled, timed by the delay model and built,
though synthesis folds all of it: a kernel whose longest path runs through such a read was
predicted several ns slower than place and route finds it (``fuzz_21_0``: ``abs(buf1[2] >> n)``).

:func:`fold_constants` makes the compiler know it.  Each unit of storage is an array's bank
(``attrs["bank"]``; the array itself when it is not partitioned, an element when it is held in
registers), since every load and store names the one it accesses.  The units that hold only 0 are
the largest set ``Z`` such that every store to a unit of ``Z`` writes 0 or never happens, when
every read of ``Z`` is taken to be 0 (from all the local arrays' units, drop those with a store
that may write something else, until none is dropped; by induction over the run, every unit
left holds 0 at every moment).  Then, with the value analysis (:mod:`hls.analysis.values`: the
golden function of each operator on constants, its transfer function on intervals and affine
forms otherwise), every operation is rewritten in place:

* a read of a unit of ``Z`` becomes the constant 0;
* an operation whose value is one constant (all its operands constants; ``abs(0 >> n)``; a
  comparison the intervals decide) becomes that constant;
* an operation whose value is one of its operands' (``x + 0``, ``x | 0``, ``c ? x : y`` with
  ``c`` constant: the same exact affine form) becomes a conversion of that operand to its own
  shape (a ``wrap``: wiring);

and a store to a unit of ``Z`` (it writes 0 into 0), or whose predicate is the constant 0, is
removed.  Only what follows from the reads of ``Z`` is rewritten, the operations that read them
directly or through others (the stores that never happen go wherever they are): constant expressions of the kernel's own (a nest's constant bounds,
``4 * 1000``) are left as they were built, for synthesis to fold, so that a kernel which reads no
such array compiles to the hardware it compiled to before this pass.  Every rewritten operation keeps its name, shape, lines and text; its users are not
touched, and see a value of the same shape.  Array parameters are never constants: their memory
is outside the component.  Variables, the loop counter, stream reads and approximate units are
not folded (the analysis sees no constant in them).

The pass runs between rounds of dead-code elimination (:func:`hls.compiler.lower`), until it
changes nothing: the reads of a folded operation become dead, and a store it removed may leave
another array with no store.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from ..analysis.values import Value, ValueAnalysis
from ..types import shape_range
from .nodes import KernelIR, Op, PipelinedLoop
from .ops import operator_of

__all__ = ["fold_constants", "ZeroArray"]


@dataclass
class ZeroArray:
    """An ``hls.local`` array some of whose reads :func:`fold_constants` made the constant 0.

    Attributes
    ----------
    banks : list of int or None
        The banks (elements, for an array held in registers) whose reads became 0, when not
        every bank of the array holds only 0; ``None`` for the whole array.
    written : bool
        Stores to those banks that may happen survived dead-code elimination, each writing 0
        (removed with the reads); ``False``: no store writes them (none survived, or each one's
        predicate is the constant 0).
    lines : list of int
        The source lines of the reads.
    reads : int
        How many reads became 0.
    """

    banks: list | None
    written: bool = False
    lines: list = field(default_factory=list)
    reads: int = 0


class _ZeroReads(ValueAnalysis):
    """The value analysis with every read of a unit of ``zero`` the constant 0."""

    def __init__(self, zero: set):
        super().__init__()
        self.zero = zero

    def opaque(self, op) -> Value:
        if operator_of(op.kind).reads_memory and _unit(op) in self.zero:
            return Value.of(0)
        return super().opaque(op)


def _unit(op) -> tuple:
    return op.attrs["array"], op.attrs.get("bank")


def _units(ir: KernelIR, array: str) -> list:
    layout = ir.layout(array)
    return [(array, None)] if layout.partition is None else [(array, bank) for bank in range(layout.banks)]


def _constant(value: Value, op) -> int | None:
    low, high = shape_range(op.shape)
    return value.low if value.is_constant and low <= value.low <= high else None


def _zero(value: Value) -> bool:
    return value.low == value.high == 0


def _never(facts, op) -> bool:
    """Whether ``op``'s predicate is the constant 0: its effect never happens."""
    return op.predicate is not None and _zero(facts.value(op.predicate))


def _evaluate(blocks, facts) -> None:
    # In program order, operands before users: the analysis recurses no deeper than one level.
    for block in blocks:
        for op in block.ops:
            if operator_of(op.kind).pure:
                facts.value(op)


def _same_operand(value: Value, op, facts):
    """The operand of ``op`` whose value is ``op``'s in every execution, or ``None``: both
    exact affine forms, the same one."""
    if not value.exact_form or not value.terms:
        return None
    for operand in op.operands:
        known = facts.value(operand)
        if known.exact_form and known.terms == value.terms and known.constant == value.constant:
            return operand
    return None


def fold_constants(ir: KernelIR) -> list[Op]:
    """Rewrite ``ir``'s operations as the module documentation says; record each one folded,
    as it was, in ``ir.folded``, the stores removed in ``ir.removed``, and the arrays whose
    reads became 0 in ``ir.zero_arrays``.

    Returns
    -------
    list of Op
        The operations changed or removed, in program order (empty when there was nothing to fold).
    """
    blocks = ir.blocks()
    local = [name for name, layout in ir.layouts.items() if layout.local]
    zero = {unit for name in local for unit in _units(ir, name)}
    stores = [op for block in blocks for op in block.ops
              if operator_of(op.kind).writes_memory and _unit(op) in zero]
    while True:
        facts = _ZeroReads(zero)
        _evaluate(blocks, facts)
        writing = {_unit(store) for store in stores
                   if _unit(store) in zero and not _never(facts, store)
                   and not _zero(facts.value(store.operands[1]))}
        if not writing:
            break
        zero -= writing

    changed, removed = [], set()
    written = {_unit(store) for store in stores if _unit(store) in zero and not _never(facts, store)}
    found: dict[str, ZeroArray] = {}
    #: The reads of units of Z and the operations that read them, directly or through others.
    following: set = set()
    for block in blocks:
        for op in block.ops:
            entry = operator_of(op.kind)
            zero_read = entry.reads_memory and _unit(op) in zero
            if zero_read or any(source in following for source in op.inputs()):
                following.add(op)
            if entry.writes_memory:
                if _unit(op) in zero or _never(facts, op):
                    removed.add(op)
                continue
            if op not in following or not (entry.category == "logic" or entry.reads_memory):
                continue        # wires (a constant's conversion is one already), registers, streams
            value = facts.value(op)
            constant = _constant(value, op)
            if zero_read:
                array, bank = _unit(op)
                record = found.setdefault(array, ZeroArray(None if all(unit in zero for unit in _units(ir, array))
                                                           else []))
                if record.banks is not None and bank not in record.banks:
                    record.banks.append(bank)
                record.written |= _unit(op) in written
                record.lines.extend(op.lines)
                record.reads += 1
            if constant is not None:
                _rewrite(ir, op, "const", [], value=constant)
                changed.append(op)
            elif entry.category == "logic":
                same = _same_operand(value, op, facts)
                if same is not None:
                    _rewrite(ir, op, "wrap", [same])
                    changed.append(op)
    for block in blocks:
        gone = [op for op in block.ops if op in removed]
        if gone:
            block.ops = [op for op in block.ops if op not in removed]
            ir.removed.extend(gone)
            changed.extend(gone)
    for array, record in found.items():
        known = ir.zero_arrays.get(array)
        if known is None:
            ir.zero_arrays[array] = record
            known = record
        else:
            if known.banks is not None:
                known.banks = None if record.banks is None else known.banks + record.banks
            known.written |= record.written
            known.lines.extend(record.lines)
            known.reads += record.reads
        known.lines = sorted(set(known.lines))
        if known.banks is not None:
            known.banks = sorted(set(known.banks))
    if changed:
        for node in ir.nodes:
            # The builder's analysis, which the later passes ask, saw the operations as they were.
            if isinstance(node, PipelinedLoop) and node.values is not None:
                node.values.forget()
    return changed


def _rewrite(ir: KernelIR, op: Op, kind: str, operands: list, **attrs) -> None:
    before = copy.copy(op)
    before.operands, before.attrs = list(op.operands), dict(op.attrs)
    ir.folded.append(before)
    op.kind, op.operands, op.attrs, op.predicate = kind, operands, attrs, None
