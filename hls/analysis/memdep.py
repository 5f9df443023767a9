"""Memory dependence analysis: which accesses to one array must stay ordered, and at what distance.

Indices are analysed as affine forms over the loop's induction value and
loop-invariant variables (:func:`affine_form`).  For two accesses ``P`` (earlier
in program order) and ``Q`` of the same array, at least one of them a store:

* same invariant part and the same induction coefficient ``c`` (per iteration
  ``a = c * step``): they touch the same element when ``a*k1 + bP == a*k2 + bQ``,
  so the distance is exactly ``(bP - bQ) / a`` iterations, or there is no
  dependence when that is not an integer (``a[2i]`` against ``a[2i+1]``);
* both indices loop-invariant: same element every iteration when the constant
  parts agree (``P -> Q`` at distance 0 and ``Q -> P`` at distance 1), none when
  they differ;
* anything else (data-dependent indices, different strides): conservative,
  ``P -> Q`` at distance 0 and ``Q -> P`` at distance 1.

Accesses to different banks of a partitioned array (``attrs["bank"]``) never
depend on each other: the banks hold disjoint elements.

All dependences found here have kind ``"memory"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from amaranth.hdl import Shape

from ..ir.nodes import Block, Op
from .predicates import exclusive

__all__ = ["AffineForm", "affine_form", "MemoryDependence", "memory_dependences"]

#: Key of the induction value in an :class:`AffineForm`.
INDUCTION = "$induction"


@dataclass(frozen=True)
class AffineForm:
    """``constant + sum(coefficient * term)``; terms are :data:`INDUCTION` or invariant variable names."""

    terms: tuple[tuple[str, int], ...]
    constant: int

    def coefficient(self, term: str) -> int:
        return dict(self.terms).get(term, 0)

    def invariant_part(self) -> tuple[tuple[str, int], ...]:
        return tuple((t, c) for t, c in self.terms if t != INDUCTION)


def _fits(inner: Shape, outer: Shape) -> bool:
    """Whether every value of ``inner`` is representable in ``outer`` (so a wrap is the identity)."""
    lo_in = -(1 << (inner.width - 1)) if inner.signed else 0
    hi_in = (1 << (inner.width - (1 if inner.signed else 0))) - 1
    lo_out = -(1 << (outer.width - 1)) if outer.signed else 0
    hi_out = (1 << (outer.width - (1 if outer.signed else 0))) - 1
    return lo_out <= lo_in and hi_in <= hi_out


def _combine(a: dict, b: dict, scale: int = 1) -> dict:
    out = dict(a)
    for term, coeff in b.items():
        out[term] = out.get(term, 0) + scale * coeff
    return {t: c for t, c in out.items() if c != 0}


def affine_form(op: Op, invariant_vars: set[str], _memo=None) -> AffineForm | None:
    """The affine form of ``op``'s value, or ``None`` if it is not affine.

    Parameters
    ----------
    op : Op
    invariant_vars : set of str
        Variables not written in the block, whose ``live_in`` is a symbol.
    """
    memo = {} if _memo is None else _memo
    result = _affine(op, invariant_vars, memo)
    if result is None:
        return None
    result = dict(result)   # the memo's dictionaries are shared between forms
    constant = result.pop("$const", 0)
    return AffineForm(tuple(sorted(result.items())), constant)


def _affine(op, invariant_vars, memo):
    if op in memo:
        return memo[op]
    kind = op.kind
    result = None
    if kind == "const":
        result = {"$const": op.attrs["value"]} if op.attrs["value"] else {}
    elif kind == "induction":
        result = {INDUCTION: 1}
    elif kind == "live_in" and op.attrs["var"] in invariant_vars:
        result = {op.attrs["var"]: 1}
    elif kind == "wrap" and op.operands[0].kind == "induction":
        # The loop variable's shape holds every value of its range, so this wrap never changes a value.
        result = _affine(op.operands[0], invariant_vars, memo)
    elif kind == "wrap" and _fits(op.operands[0].shape, op.shape):
        result = _affine(op.operands[0], invariant_vars, memo)
    elif kind in ("add", "sub"):
        left = _affine(op.operands[0], invariant_vars, memo)
        right = _affine(op.operands[1], invariant_vars, memo)
        if left is not None and right is not None:
            result = _combine(left, right, 1 if kind == "add" else -1)
    elif kind == "neg":
        inner = _affine(op.operands[0], invariant_vars, memo)
        if inner is not None:
            result = _combine({}, inner, -1)
    elif kind in ("mul", "shl"):
        left = _affine(op.operands[0], invariant_vars, memo)
        right = _affine(op.operands[1], invariant_vars, memo)
        if left is not None and right is not None:
            if kind == "shl":
                if set(right) <= {"$const"}:
                    result = _combine({}, left, 1 << right.get("$const", 0))
            elif set(right) <= {"$const"}:
                result = _combine({}, left, right.get("$const", 0))
            elif set(left) <= {"$const"}:
                result = _combine({}, right, left.get("$const", 0))
    memo[op] = result
    return result


@dataclass(frozen=True)
class MemoryDependence:
    """``dst`` in iteration ``k + distance`` must follow ``src`` in iteration ``k``.

    Attributes
    ----------
    src, dst : Op
    distance : int
    exact : bool
        ``False`` when the dependence is assumed because the indices could not be compared.
    """

    src: Op
    dst: Op
    distance: int
    exact: bool


def memory_dependences(block: Block, *, loop_step: int | None = None,
                       trip_count: int | None = None) -> list[MemoryDependence]:
    """Ordering constraints between the memory accesses of ``block``.

    Parameters
    ----------
    block : Block
        Its ``ops`` list is in program order.
    loop_step : int or None
        For the body of a pipelined loop, the counter's step; ``None`` for a block
        run once (only distance-0 dependences are returned).
    trip_count : int or None
        When known, dependences at distances of ``trip_count`` or more are dropped.
    """
    written = {op.attrs["var"] for op in block.ops if op.kind == "commit"}
    invariant = {op.attrs["var"] for op in block.ops if op.kind == "live_in"} - written
    memo = {}
    accesses = [op for op in block.ops if op.kind in ("load", "store")]
    forms = {op: affine_form(op.operands[0], invariant, memo) for op in accesses}
    out = []
    for i, first in enumerate(accesses):
        for second in accesses[i + 1:]:
            if first.attrs["array"] != second.attrs["array"]:
                continue
            if first.attrs.get("bank") != second.attrs.get("bank"):
                continue    # banks of a partitioned array hold disjoint elements
            if first.kind == "load" and second.kind == "load":
                continue
            exclusive_in_iteration = exclusive(first, second)
            for dep in _pair(first, second, forms[first], forms[second], loop_step, trip_count):
                # Accesses on opposite sides of one condition never both happen in an iteration.
                if not (exclusive_in_iteration and dep.distance == 0):
                    out.append(dep)
    return out


def _pair(first, second, form_p, form_q, loop_step, trip_count):
    comparable = (form_p is not None and form_q is not None
                  and form_p.invariant_part() == form_q.invariant_part()
                  and form_p.coefficient(INDUCTION) == form_q.coefficient(INDUCTION))
    if loop_step is None:
        if comparable and form_p.coefficient(INDUCTION) == 0 and form_p.constant != form_q.constant:
            return []
        if comparable and form_p.constant != form_q.constant and form_p.coefficient(INDUCTION) != 0:
            return []
        return [MemoryDependence(first, second, 0, comparable)]
    if not comparable:
        if trip_count is not None and trip_count <= 1:
            return [MemoryDependence(first, second, 0, False)]
        return [MemoryDependence(first, second, 0, False), MemoryDependence(second, first, 1, False)]
    per_iteration = form_p.coefficient(INDUCTION) * loop_step
    if per_iteration == 0:
        if form_p.constant != form_q.constant:
            return []
        if trip_count is not None and trip_count <= 1:
            return [MemoryDependence(first, second, 0, True)]
        return [MemoryDependence(first, second, 0, True), MemoryDependence(second, first, 1, True)]
    delta = Fraction(form_p.constant - form_q.constant, per_iteration)
    if delta.denominator != 1:
        return []
    delta = int(delta)
    if trip_count is not None and abs(delta) >= trip_count:
        return []
    if delta >= 0:
        return [MemoryDependence(first, second, delta, True)]
    return [MemoryDependence(second, first, -delta, True)]
