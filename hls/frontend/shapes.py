"""Shape rules of kernel expressions, taken from Amaranth itself.

Each rule is the operator table's (:meth:`hls.ir.ops.Operator.shape`): it
builds the operator's Amaranth lowering on signals of the operand shapes and
asks for its shape, so the front end cannot drift from what the back end's
Amaranth expressions will be. Results are cached per (operator, shapes).
"""

from __future__ import annotations

import ast

from amaranth.hdl import Const, Shape, unsigned

from ..ir.ops import OPERATORS, operator_for_syntax

__all__ = ["const_shape", "binary_shape", "unary_shape", "mux_shape", "abs_shape",
           "range_shape", "BOOL", "BINARY_OPERATORS"]

#: Shape of comparisons, ``and``/``or``/``not``: one bit, as Amaranth's ``==`` and ``.bool()``.
BOOL = unsigned(1)

#: Python binary operator node -> its entry in the operator table.
BINARY_OPERATORS = {node: operator_for_syntax(node) for node in (
    ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)}


def const_shape(value: int) -> Shape:
    """Shape of the integer literal ``value``: ``Const(value).shape()``."""
    return Const(int(value)).shape()


def binary_shape(op: type[ast.operator], left: Shape, right: Shape) -> Shape:
    """Shape of ``left OP right`` in Amaranth 0.5.

    Raises
    ------
    TypeError
        Where Amaranth rejects the operands (a signed shift amount); the
        front end turns it into a :class:`~hls.errors.KernelSyntaxError`.
    """
    return BINARY_OPERATORS[op].shape(left, right)


def unary_shape(op: type[ast.unaryop], operand: Shape) -> Shape:
    """Shape of ``-x`` and ``~x`` (``+x`` is ``x``; ``not x`` is one bit)."""
    if op is ast.UAdd:
        return operand
    entry = operator_for_syntax(op)
    if entry is None or entry.arity != 1:
        raise TypeError(f"unknown unary operator {op.__name__}")
    return entry.shape(operand)


def mux_shape(first: Shape, second: Shape) -> Shape:
    """Shape of ``Mux(c, first, second)``: holds every value of both.

    Used for conditional expressions, ``min``, ``max``, and the loop variable of
    a ``range`` with run-time bounds.
    """
    return OPERATORS["select"].shape(BOOL, first, second)


def abs_shape(operand: Shape) -> Shape:
    """Shape of ``abs(x)``: ``unsigned(width)`` for either signedness."""
    return OPERATORS["abs"].shape(operand)


def range_shape(start: int, stop: int, step: int) -> Shape:
    """Shape of the loop variable of ``range(start, stop, step)`` with constant bounds.

    It holds every value the loop variable takes, and both bounds, so that a
    counter compared against ``stop`` needs no extra bit. ``step`` must be positive.
    """
    if step <= 0:
        raise ValueError(f"range step must be positive, not {step}")
    return Shape.cast(range(min(start, stop), max(start, stop) + 1))
