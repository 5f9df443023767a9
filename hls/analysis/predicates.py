"""Predicates of if-converted operations: when two of them can never both happen."""

from __future__ import annotations

from ..ir.nodes import Op

__all__ = ["literals", "exclusive"]


def literals(pred: Op | None) -> set[tuple[Op, bool]]:
    """The conjunction ``pred`` as a set of ``(condition, polarity)`` literals."""
    out = set()
    stack = [pred] if pred is not None else []
    while stack:
        op = stack.pop()
        if op.kind == "and" and op.shape.width == 1 and not op.shape.signed:
            stack.extend(op.operands)
        elif op.kind == "not":
            out.add((op.operands[0], False))
        else:
            out.add((op, True))
    return out


def exclusive(a: Op, b: Op) -> bool:
    """Whether ``a`` and ``b`` sit on opposite sides of one if-converted condition.

    The if-conversion gives the operations of a branch the predicate
    ``outer & c`` (or ``outer & ~c``); two operations whose predicates contain
    a condition with opposite polarities cannot both execute in one iteration.
    """
    lits_a, lits_b = literals(a.predicate), literals(b.predicate)
    return any((cond, not polarity) in lits_b for cond, polarity in lits_a)
