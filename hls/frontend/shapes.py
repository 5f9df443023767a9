"""Shape rules of kernel expressions, taken from Amaranth itself.

Each rule builds the same expression on Amaranth signals of the operand shapes
and asks for its shape, so the front end cannot drift from what the back end's
Amaranth expressions will be. Results are cached per (operator, shapes).
"""

from __future__ import annotations

import ast
import functools
import operator

from amaranth.hdl import Const, Mux, Shape, Signal, unsigned

__all__ = ["const_shape", "binary_shape", "unary_shape", "mux_shape", "abs_shape",
           "range_shape", "BOOL", "BINARY_OPERATORS"]

#: Shape of comparisons, ``and``/``or``/``not``: one bit, as Amaranth's ``==`` and ``.bool()``.
BOOL = unsigned(1)

#: Python operator node -> the function Amaranth overloads for it.
BINARY_OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}


def const_shape(value: int) -> Shape:
    """Shape of the integer literal ``value``: ``Const(value).shape()``."""
    return Const(int(value)).shape()


@functools.lru_cache(maxsize=None)
def binary_shape(op: type[ast.operator], left: Shape, right: Shape) -> Shape:
    """Shape of ``left OP right`` in Amaranth 0.5.

    Raises
    ------
    TypeError
        Where Amaranth rejects the operands (a signed shift amount); the
        front end turns it into a :class:`~hls.errors.KernelSyntaxError`.
    """
    return BINARY_OPERATORS[op](Signal(left), Signal(right)).shape()


@functools.lru_cache(maxsize=None)
def unary_shape(op: type[ast.unaryop], operand: Shape) -> Shape:
    """Shape of ``-x`` and ``~x`` (``+x`` is ``x``; ``not x`` is one bit)."""
    if op is ast.USub:
        return (-Signal(operand)).shape()
    if op is ast.Invert:
        return (~Signal(operand)).shape()
    if op is ast.UAdd:
        return operand
    if op is ast.Not:
        return BOOL
    raise TypeError(f"unknown unary operator {op.__name__}")


@functools.lru_cache(maxsize=None)
def mux_shape(first: Shape, second: Shape) -> Shape:
    """Shape of ``Mux(c, first, second)``: holds every value of both.

    Used for conditional expressions, ``min``, ``max``, and the loop variable of
    a ``range`` with run-time bounds.
    """
    return Mux(Signal(), Signal(first), Signal(second)).shape()


@functools.lru_cache(maxsize=None)
def abs_shape(operand: Shape) -> Shape:
    """Shape of ``abs(x)``: ``unsigned(width)`` for either signedness."""
    return abs(Signal(operand)).shape()


def range_shape(start: int, stop: int, step: int) -> Shape:
    """Shape of the loop variable of ``range(start, stop, step)`` with constant bounds.

    It holds every value the loop variable takes, and both bounds, so that a
    counter compared against ``stop`` needs no extra bit. ``step`` must be positive.
    """
    if step <= 0:
        raise ValueError(f"range step must be positive, not {step}")
    return Shape.cast(range(min(start, stop), max(start, stop) + 1))
