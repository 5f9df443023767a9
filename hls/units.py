"""Library units as the compiler's operators: ``//`` and ``%`` on the exact divider of :mod:`approx_units`.

A division by a variable is the library's exact restoring divider
(:func:`approx_units.dividers.restoring_division`, the rows of ``exact_div``
with ``frac_bits=0``) on the operands' magnitudes, followed by the correction
to Python's floor semantics and the kernel language's ``x // 0 == x % 0 == 0``.
The whole operation is one traced graph of the library's operator layer
(:mod:`approx_units.dataflow`), so the library places its pipeline registers
(:func:`approx_units.dataflow.pipeline`) and estimates each stage's delay with
its calibrated model; :func:`divider_plan` picks the fewest stages whose every
segment, plus the routing to the next operator, fits the usable clock period.

The unit (an :class:`approx_units.amaranth_backend.UnitComponent`) gives the
quotient and the remainder together (``o`` is ``Cat(quotient, remainder)``),
so a ``//`` and a ``%`` of the same operands in the same cycle share one
instance, as a shared ``"div"`` instance does.  Its registers shift every
cycle, as the kernel's delay lines do: a new division may start in every cycle.

This module only imports :mod:`approx_units` (never the other way round).
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass

from amaranth.hdl import Shape, Signal

from approx_units import dataflow
from approx_units.amaranth_backend import UnitComponent, UnitSignature
from approx_units.dividers import restoring_division
from approx_units.structures import apply_sign, sign_magnitude

__all__ = ["DividerPlan", "divider_plan", "divider_value", "floor_divmod"]


def floor_divmod(ops, a, b, *, a_signed: bool, b_signed: bool, quotient_width: int, remainder_width: int):
    """Python's ``(a // b, a % b)`` as ``Cat(quotient, remainder)`` bit patterns, both 0 when ``b == 0``.

    ``a`` and ``b`` are two's complement when signed. The library divider truncates
    towards zero; when the signs differ and the remainder is not zero, the quotient
    is one further from zero and the remainder becomes ``|b| - r``, with the sign of
    ``b``.
    """
    sign_a, magnitude_a = sign_magnitude(ops, a) if a_signed else (ops.const(0, 1), a)
    sign_b, magnitude_b = sign_magnitude(ops, b) if b_signed else (ops.const(0, 1), b)
    quotient, remainder = restoring_division(ops, magnitude_a, magnitude_b)
    negative = ops.xor(sign_a, sign_b)
    inexact = ops.not_(ops.is_zero(remainder))
    adjust = ops.and_(negative, inexact)
    quotient = ops.mux(adjust, ops.add(quotient, 1), quotient)
    remainder = ops.mux(adjust, ops.sub(magnitude_b, remainder, width=remainder.width), remainder)
    quotient = apply_sign(ops, negative, quotient, width=quotient_width)
    remainder = apply_sign(ops, sign_b, remainder, width=remainder_width)
    by_zero = ops.is_zero(b)
    return ops.cat(ops.mux(by_zero, ops.const(0, quotient_width), quotient),
                   ops.mux(by_zero, ops.const(0, remainder_width), remainder))


def _result_shapes(a: Shape, b: Shape) -> tuple[Shape, Shape]:
    # Amaranth's (and so the table's) shapes of a // b and a % b.
    return Shape(a.width + b.signed, a.signed or b.signed), Shape(b.width, b.signed)


def _at_least_one_bit(shape: Shape) -> Shape:
    # A 0-bit operand (a loop counter of range(0)) is 0: one bit holds it.
    return Shape(max(1, shape.width), shape.signed)


def _output_widths(a: Shape, b: Shape) -> tuple[int, int]:
    """Widths of the unit's quotient and remainder fields (at least one bit each)."""
    quotient, remainder = _result_shapes(a, b)
    return max(1, quotient.width), max(1, remainder.width)


@functools.lru_cache(maxsize=None)
def _graph(a: Shape, b: Shape):
    quotient_width, remainder_width = _output_widths(a, b)
    a, b = _at_least_one_bit(a), _at_least_one_bit(b)
    return dataflow.trace(lambda ops, x, y: floor_divmod(ops, x, y, a_signed=a.signed, b_signed=b.signed,
                                                         quotient_width=quotient_width,
                                                         remainder_width=remainder_width),
                          a_width=a.width, b_width=b.width)


@functools.lru_cache(maxsize=None)
def _segments(a: Shape, b: Shape, stages: int) -> tuple[float, ...]:
    return tuple(dataflow.pipeline(_graph(a, b), stages)[1].segment_delay)


@dataclass(frozen=True)
class DividerPlan:
    """The divider unit of one operand shape pair under one clock.

    Attributes
    ----------
    stages : int
        Register stages, the operation's latency.
    incoming_delay, outgoing_delay : float
        ns of logic before the first register and after the last (both the whole
        unit's delay when ``stages == 0``), each with the routing to the next operator.
    segment_delays : tuple of float
        The library's estimate of each segment (ns, without routing).
    """

    stages: int
    incoming_delay: float
    outgoing_delay: float
    segment_delays: tuple[float, ...]

    @property
    def description(self) -> str:
        if not self.stages:
            return "exact divider (combinational)"
        return f"exact divider pipelined in {self.stages} stage{'s' * (self.stages != 1)}"


#: Most register stages tried for a divider (a 64-bit quotient is 64 rows).
MAX_DIVIDER_STAGES = 160


@functools.lru_cache(maxsize=None)
def divider_plan(a: Shape, b: Shape, period: float, routing: float) -> DividerPlan:
    """The fewest stages for which every segment plus ``routing`` ns fits ``period`` ns.

    Parameters
    ----------
    a, b : Shape
        Operand shapes (the dividend's and the divisor's).
    period : float
        Usable clock period in ns (the target's, registers excluded).
    routing : float
        ns of routing from an operator to the next (the device model's ``ROUTING_HOP``).
    """
    a, b = Shape.cast(a), Shape.cast(b)

    def fits(stages):
        return max(_segments(a, b, stages)) + routing <= period

    def plan(stages):
        segments = _segments(a, b, stages)
        if stages == 0:
            return DividerPlan(0, segments[0] + routing, 0.0, segments)
        return DividerPlan(stages, segments[0] + routing, segments[-1] + routing, segments)

    if fits(0):
        return plan(0)
    # The critical path falls as stages are added: bisect for the first that fits.
    low, high = 0, 1
    while not fits(high):
        low, high = high, high * 2
        if high > MAX_DIVIDER_STAGES:
            high = MAX_DIVIDER_STAGES
            break
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle
    return plan(high)


#: Divider units already built per module: a ``//`` and a ``%`` of the same operand
#: signals in the same cycle read one instance.
_BUILT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def divider_value(module, name: str, a, b, stages: int, valid):
    """``Cat(a // b, a % b)`` (floor semantics, 0 for ``b == 0``), ``stages`` cycles after ``a``
    and ``b``: the divider unit instantiated in ``module``, its ``valid_in`` driven by ``valid``.

    Returns ``(quotient, remainder)`` as values of the result shapes of ``//`` and ``%``.
    """
    a_shape, b_shape = a.shape(), b.shape()
    built = _BUILT.setdefault(module, {})
    key = (id(a), id(b), stages)
    if key not in built:
        quotient_shape, remainder_shape = _result_shapes(a_shape, b_shape)
        quotient_width, remainder_width = _output_widths(a_shape, b_shape)
        unit = UnitComponent(_graph(a_shape, b_shape),
                             UnitSignature(Shape(max(1, a_shape.width)), Shape(max(1, b_shape.width)),
                                           Shape(quotient_width + remainder_width), pipelined=stages > 0),
                             stages=stages)
        module.submodules[f"{name}_divider"] = unit
        module.d.comb += [unit.a.eq(a.as_unsigned()), unit.b.eq(b.as_unsigned())]
        if stages:
            module.d.comb += unit.valid_in.eq(valid)
        quotient = Signal(quotient_shape, name=f"{name}_quotient")
        remainder = Signal(remainder_shape, name=f"{name}_remainder")
        module.d.comb += [quotient.eq(unit.o[:quotient_shape.width]), remainder.eq(unit.o[quotient_width:])]
        built[key] = (a, b, quotient, remainder)     # a and b kept alive: their ids stay theirs
    return built[key][2], built[key][3]
