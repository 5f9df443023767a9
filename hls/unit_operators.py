"""Library units as the compiler's operators: ``*``, ``//`` and ``%`` pipelined to the clock.

``*`` is the library's exact partial-product multiplier
(:func:`approx_units.structures.exact_product`: one AND row per bit of ``b``,
summed by a balanced tree of two-input adders) on the operands' magnitudes,
then the sign applied (:func:`signed_product`); it is used where the
multiplier is slower than a clock period (see :func:`multiplier_plan`).

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

The multiplier is built the same way (:func:`multiplier_value`); its rows and
adders are separate nodes, so the library's pipeliner can register between the
levels of the adder tree, and each stage's delay is the library's calibrated
estimate, as for the divider.

This module only imports :mod:`approx_units` (never the other way round).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import weakref
from dataclasses import dataclass

import numpy as np
from amaranth.hdl import Shape, Signal

from approx_units import dataflow
from approx_units.amaranth_backend import UnitComponent, UnitSignature
from approx_units.devices import DelayModel
from approx_units.dividers import restoring_division
from approx_units.python_backend import compile_scalar
from approx_units.registry import MAX_WIDTH as UNIT_MAX_WIDTH, MIN_WIDTH as UNIT_MIN_WIDTH, get as get_unit
from approx_units.structures import apply_sign, chunked_add, exact_product, sign_magnitude

__all__ = ["UnitPlan", "divider_plan", "divider_value", "floor_divmod", "multiplier_plan",
           "multiplier_value", "multiplier_variant", "signed_product",
           "ApproxUnit", "UnitWidthError", "approx_unit", "approx_plan", "exact_result_shape",
           "approx_golden", "approx_value", "ErrorBound", "approx_error_bound", "BOUND_EXHAUSTIVE_BITS",
           "observe_approx", "approx_observed"]


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


def _chunked_product(ops, a, b):
    """``a * b`` (unsigned) as AND rows summed by a balanced tree of :func:`chunked_add`
    adders: no carry chain is longer than ``CHUNK`` bits, so a register can go between
    the chunks of one adder (a 64-bit adder alone is slower than a 200 MHz period)."""
    width = a.width + b.width
    terms = [ops.shift_left_const(ops.and_(a, ops.replicate(ops.bit(b, j), a.width)), j) for j in range(b.width)]
    while len(terms) > 1:
        paired = [chunked_add(ops, x, y, width=min(width, max(x.width, y.width) + 1))
                  for x, y in zip(terms[::2], terms[1::2])]
        terms = paired + terms[len(paired) * 2:]
    return ops.zext(terms[0], width)


def _chunked_negate(ops, negative, magnitude, width):
    # apply_sign's -magnitude with CHUNK-bit carry chains: ~m + 1.
    negated = chunked_add(ops, ops.not_(ops.zext(magnitude, width)), ops.const(1, 1), width=width)
    return ops.mux(negative, negated, ops.zext(magnitude, width))


def signed_product(ops, a, b, *, a_signed: bool, b_signed: bool, width: int, chunked: bool = False):
    """Amaranth's ``a * b`` as a ``width``-bit two's complement bit pattern.

    The exact partial-product array multiplies the magnitudes (a signed
    ``n``-bit operand's magnitude fits ``n`` unsigned bits, ``-2**(n-1)``
    included); the product is negated when exactly one operand is negative.
    ``chunked`` builds every adder of more than ``CHUNK`` bits as a ripple of
    ``CHUNK``-bit adders, which the pipeliner can cut (more LUTs; for fast clocks).
    """
    if not chunked:
        sign_a, magnitude_a = sign_magnitude(ops, a) if a_signed else (ops.const(0, 1), a)
        sign_b, magnitude_b = sign_magnitude(ops, b) if b_signed else (ops.const(0, 1), b)
        product = exact_product(ops, magnitude_a, magnitude_b)
        if not (a_signed or b_signed):
            return ops.zext(product, width)
        return apply_sign(ops, ops.xor(sign_a, sign_b), product, width=width)
    zero = ops.const(0, 1)
    sign_a = ops.bit(a, a.width - 1) if a_signed else zero
    sign_b = ops.bit(b, b.width - 1) if b_signed else zero
    magnitude_a = _chunked_negate(ops, sign_a, a, a.width) if a_signed else a
    magnitude_b = _chunked_negate(ops, sign_b, b, b.width) if b_signed else b
    product = _chunked_product(ops, magnitude_a, magnitude_b)
    if not (a_signed or b_signed):
        return ops.zext(product, width)
    return _chunked_negate(ops, ops.xor(sign_a, sign_b), product, width)


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


def _product_shape(a: Shape, b: Shape) -> Shape:
    # Amaranth's (and so the table's) shape of a * b.
    return Shape(a.width + b.width, a.signed or b.signed)


@functools.lru_cache(maxsize=None)
def _graph(unit: str, a: Shape, b: Shape):
    """The traced graph of ``unit`` (``"divider"``, ``"multiplier"`` or ``"chunked multiplier"``)
    for operands of shapes ``a``, ``b``."""
    if unit in ("multiplier", "chunked multiplier"):
        width = max(1, _product_shape(a, b).width)
        a, b = _at_least_one_bit(a), _at_least_one_bit(b)
        return dataflow.trace(lambda ops, x, y: signed_product(ops, x, y, a_signed=a.signed, b_signed=b.signed,
                                                               width=width, chunked=unit != "multiplier"),
                              a_width=a.width, b_width=b.width)
    quotient_width, remainder_width = _output_widths(a, b)
    a, b = _at_least_one_bit(a), _at_least_one_bit(b)
    return dataflow.trace(lambda ops, x, y: floor_divmod(ops, x, y, a_signed=a.signed, b_signed=b.signed,
                                                         quotient_width=quotient_width,
                                                         remainder_width=remainder_width),
                          a_width=a.width, b_width=b.width)


@functools.lru_cache(maxsize=None)
def _segments(unit: str, a: Shape, b: Shape, stages: int, model: DelayModel) -> tuple[float, ...]:
    return tuple(dataflow.pipeline(_graph(unit, a, b), stages, model)[1].segment_delay)


@dataclass(frozen=True)
class UnitPlan:
    """A library unit (divider or multiplier) of one operand shape pair under one clock.

    Attributes
    ----------
    stages : int
        Register stages, the operation's latency.
    incoming_delay, outgoing_delay : float
        ns of logic before the first register and after the last (both the whole
        unit's delay when ``stages == 0``), each with the routing to the next operator.
    segment_delays : tuple of float
        The library's estimate of each segment (ns, without routing).
    unit : str
        How messages name the hardware: ``"exact divider"``, ``"exact multiplier"``, or an
        approximate unit's description (``"drum(k=6) 16x16-bit"``).
    """

    stages: int
    incoming_delay: float
    outgoing_delay: float
    segment_delays: tuple[float, ...]
    unit: str = "exact divider"

    @property
    def description(self) -> str:
        if not self.stages:
            return f"{self.unit} (combinational)"
        return f"{self.unit} pipelined in {self.stages} stage{'s' * (self.stages != 1)}"


#: Most register stages tried for any pipelined unit (a 64-bit quotient is 64 rows of the divider).
MAX_UNIT_STAGES = 160


@functools.lru_cache(maxsize=None)
def divider_plan(a: Shape, b: Shape, period: float, model: DelayModel) -> UnitPlan:
    """The fewest stages for which every segment plus the routing to the next operator
    (``model.routing_hop``) fits ``period`` ns.

    Parameters
    ----------
    a, b : Shape
        Operand shapes (the dividend's and the divisor's).
    period : float
        Usable clock period in ns (the target's, registers excluded).
    model : DelayModel
        The target device's delay model (``hls.Target.delay_model``): its library
        constants estimate the segments, its ``routing_hop`` is added to each.
    """
    a, b = Shape.cast(a), Shape.cast(b)
    return _plan("exact divider", lambda stages: _segments("divider", a, b, stages, model),
                 _slowest_node("divider", a, b, model), period, model.routing_hop, 0)


@functools.lru_cache(maxsize=None)
def multiplier_plan(a: Shape, b: Shape, period: float, model: DelayModel) -> UnitPlan:
    """The pipelined exact multiplier: the fewest stages (at least one) for which every
    segment plus ``model.routing_hop`` fits ``period`` ns.

    The operator table uses it only for a multiplier that the device model says is
    slower than a period as one combinational ``a * b`` (which synthesis maps itself),
    hence at least one stage. At each stage count the unit is the plain adder tree or,
    where that is slower, the tree of ``CHUNK``-bit carry chains
    (:func:`multiplier_variant`). Parameters as :func:`divider_plan`.
    """
    a, b = Shape.cast(a), Shape.cast(b)
    floor = min(_slowest_node(variant, a, b, model) for variant in _MULTIPLIERS)
    return _plan("exact multiplier",
                 lambda stages: _segments(multiplier_variant(a, b, stages, model), a, b, stages, model),
                 floor, period, model.routing_hop, 1)


#: The two graphs of the multiplier: the plain adder tree, and CHUNK-bit carry chains.
_MULTIPLIERS = ("multiplier", "chunked multiplier")


@functools.lru_cache(maxsize=None)
def multiplier_variant(a: Shape, b: Shape, stages: int, model: DelayModel) -> str:
    """The multiplier graph pipelined in ``stages`` stages: the plain tree unless the chunked
    one has a shorter critical path by ``model`` (on ECP5: a 200 MHz clock and products of
    32 bits or more)."""
    plain, chunked = (max(_segments(variant, a, b, stages, model)) for variant in _MULTIPLIERS)
    return _MULTIPLIERS[chunked < plain - 1e-9]


@functools.lru_cache(maxsize=None)
def _slowest_node(unit: str, a: Shape, b: Shape, model: DelayModel) -> float:
    """The library's delay of the slowest single operation of the unit, once pipelined in
    many stages (its wide nodes lowered): no pipeline of it has a shorter segment."""
    return _slowest_node_of(_graph(unit, a, b), max(1, a.width, b.width), model)


def _slowest_node_of(graph, width: int, model: DelayModel) -> float:
    # Pipelined in twice as many stages as operand bits, every wide node is lowered.
    pipelined, _ = dataflow.pipeline(graph, 2 * width, model)
    return max(dataflow.node_delay(node, model) for node in pipelined.nodes)


def _plan(unit: str, segments_of, floor: float, period: float, routing: float, fewest: int) -> UnitPlan:
    # Where even the slowest single operation does not fit, no stage count does: the
    # fewest stages reaching that operation's delay (the latency stays the hardware's;
    # the target's clock is then not met, which `benchmarks/run.py --fmax` shows).
    reachable = max(period, floor + routing)

    def fits(stages):
        return max(segments_of(stages)) + routing <= reachable + 1e-9

    def plan(stages):
        segments = segments_of(stages)
        if stages == 0:
            return UnitPlan(0, segments[0] + routing, 0.0, segments, unit)
        return UnitPlan(stages, segments[0] + routing, segments[-1] + routing, segments, unit)

    if fits(fewest):
        return plan(fewest)
    # The critical path falls as stages are added: bisect for the first that fits.
    low, high = fewest, max(1, fewest * 2)
    while not fits(high):
        low, high = high, high * 2
        if high > MAX_UNIT_STAGES:
            high = MAX_UNIT_STAGES
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


def divider_value(module, name: str, a, b, stages: int, valid, model: DelayModel):
    """``Cat(a // b, a % b)`` (floor semantics, 0 for ``b == 0``), ``stages`` cycles after ``a``
    and ``b``: the divider unit instantiated in ``module``, its ``valid_in`` driven by ``valid``,
    its registers placed by the delays of ``model`` (the target device's).

    Returns ``(quotient, remainder)`` as values of the result shapes of ``//`` and ``%``.
    """
    a_shape, b_shape = a.shape(), b.shape()
    built = _BUILT.setdefault(module, {})
    key = (id(a), id(b), stages)
    if key not in built:
        quotient_shape, remainder_shape = _result_shapes(a_shape, b_shape)
        quotient_width, remainder_width = _output_widths(a_shape, b_shape)
        unit = UnitComponent(_graph("divider", a_shape, b_shape),
                             UnitSignature(Shape(max(1, a_shape.width)), Shape(max(1, b_shape.width)),
                                           Shape(quotient_width + remainder_width), pipelined=stages > 0),
                             stages=stages, delay_model=model)
        module.submodules[f"{name}_divider"] = unit
        module.d.comb += [unit.a.eq(a.as_unsigned()), unit.b.eq(b.as_unsigned())]
        if stages:
            module.d.comb += unit.valid_in.eq(valid)
        quotient = Signal(quotient_shape, name=f"{name}_quotient")
        remainder = Signal(remainder_shape, name=f"{name}_remainder")
        module.d.comb += [quotient.eq(unit.o[:quotient_shape.width]), remainder.eq(unit.o[quotient_width:])]
        built[key] = (a, b, quotient, remainder)     # a and b kept alive: their ids stay theirs
    return built[key][2], built[key][3]


def multiplier_value(module, name: str, a, b, stages: int, valid, model: DelayModel):
    """``a * b`` (Amaranth's shape and value), ``stages >= 1`` cycles after ``a`` and ``b``:
    the pipelined multiplier unit instantiated in ``module``, its ``valid_in`` driven by ``valid``,
    its registers placed by the delays of ``model`` (the target device's).
    """
    a_shape, b_shape = a.shape(), b.shape()
    shape = _product_shape(a_shape, b_shape)
    unit = UnitComponent(_graph(multiplier_variant(a_shape, b_shape, stages, model), a_shape, b_shape),
                         UnitSignature(Shape(max(1, a_shape.width)), Shape(max(1, b_shape.width)),
                                       Shape(max(1, shape.width)), pipelined=True),
                         stages=stages, delay_model=model)
    module.submodules[f"{name}_multiplier"] = unit
    module.d.comb += [unit.a.eq(a.as_unsigned()), unit.b.eq(b.as_unsigned()), unit.valid_in.eq(valid)]
    product = Signal(shape, name=f"{name}_product")
    module.d.comb += product.eq(unit.o[:shape.width])
    return product


# -- approximate units of approx_units, chosen per call or per kernel (hls.approx) ----------


class UnitWidthError(ValueError):
    """A unit that cannot be built at an operation's operand widths (the message says why)."""


@dataclass(frozen=True, eq=False)
class ApproxUnit:
    """One approximate unit built for one operand shape pair.

    The operation's meaning, in the result shape of the exact operator (``*``,
    ``+``, ``//``: Amaranth's widening rules):

    * ``mul`` and ``div``: the unsigned unit on the operands' magnitudes
      (sign-magnitude, as RAPID wraps its Mitchell units), each magnitude
      zero-extended to at least the unit's narrowest width; the unit's magnitude is
      clamped to the largest the result shape holds with the result's sign
      (:func:`_saturated_magnitude`), and negated when the operands' signs differ.
      Multipliers take unequal widths as they are (``width`` x ``width_b``); a
      divider takes both at the wider one;
    * ``div``: the unit's quotient with ``frac_bits=0``, its approximation of
      ``|a| / |b|`` rounded as the unit rounds (down for ``exact_div``), so a
      signed quotient rounds towards zero; ``a // 0 == 0``, as for ``//``;
    * ``add``: the unit on both operands extended to a common width (sign-extended
      when either is signed, using the unit's signed variant), which gives the
      two's complement sum of the extended operands.
    * a signed third-party circuit (any kind): the circuit on both operands extended
      to its ports (an operation with a signed operand only), its two's complement
      result clamped to the result shape (:func:`_saturated`); an unsigned one is
      used as the library's units are.

    Attributes
    ----------
    choice : hls.approx.UnitChoice
    a, b, result : Shape
        Operand shapes and the result shape.
    unit : approx_units.Unit
        The library unit at the widths it is built at (combinational; the compiler
        places the stages).
    graph : approx_units.dataflow.Graph
        The whole operation, unit and sign handling, as one traced graph: the
        hardware and the golden model interpret it.
    """

    choice: object
    a: Shape
    b: Shape
    result: Shape
    unit: object
    graph: object

    @property
    def description(self) -> str:
        role = {"sub": " as a subtractor", "mod": " for a remainder"}.get(self.choice.kind, "")
        return f"{self.choice.label} {self.unit.width}x{self.unit.width_b}-bit{role}"


def exact_result_shape(kind: str, a: Shape, b: Shape) -> Shape:
    """The shape of the exact operation that a unit of ``kind`` replaces, on operands ``a`` and ``b``:
    the unit's result takes it, so no width changes."""
    x, y = Signal(a), Signal(b)
    return {"mul": x * y, "add": x + y, "sub": x - y, "div": x // y, "mod": x % y}[kind].shape()


def _extend(ops, x, width: int, signed: bool):
    """``x`` sign- or zero-extended to ``width`` bits (``x`` at most ``width`` bits)."""
    if not signed or width == x.width:
        return ops.zext(x, width)
    return ops.cat(x, ops.replicate(ops.bit(x, x.width - 1), width - x.width))


def _saturated_magnitude(ops, magnitude, negative, result: Shape):
    """``magnitude`` clamped to the largest one ``result`` holds with the result's sign.

    The unit's magnitude can exceed what the exact operator's shape holds: DRUM rounds
    ``|-2048|`` up to 2176, so ``signed(12) * unsigned(9)`` reaches ``2176 * 496 > 2**20``,
    and a narrow operand padded to the unit's 4 bits lets the unit's wider output
    overflow the narrower product.  Wrapped, such a magnitude changes the sign.  The exact
    result always lies in the shape's range, so clamping to that range moves the value
    towards it: the error never grows, and stays within the unit's own worst case.
    The result keeps the exact operator's shape, so the expression's Amaranth shape,
    the golden model and the hardware stay the same as for the exact operator.
    """
    largest = (1 << (result.width - result.signed)) - 1           # positive
    if magnitude.width <= result.width - result.signed:
        return magnitude                                            # cannot exceed it
    if not result.signed:
        return ops.mux(ops.ge(magnitude, largest + 1), ops.const(largest, magnitude.width), magnitude)
    # A negative result holds one more: -2**(w-1).
    over = ops.mux(negative, ops.ge(magnitude, largest + 2), ops.ge(magnitude, largest + 1))
    limit = ops.mux(negative, ops.const(largest + 1, magnitude.width), ops.const(largest, magnitude.width))
    return ops.mux(over, limit, magnitude)


def _saturated(ops, total, result: Shape):
    """The unit's result ``total`` (two's complement when ``result`` is signed) clamped to ``result``'s range.

    A narrow operand is padded to the unit's 4 bits, and the unit's ``4 + 1``-bit sum can
    leave the exact operator's narrower shape: ``eta1(l=2)`` on ``signed(2)`` operands sets
    every low bit of ``-2 + -2`` and gives ``-5``, one from ``-4`` and within the unit's
    worst case, which wraps to ``3`` in ``signed(3)``.  A signed circuit's product of narrow
    operands, sign-extended to its ports, leaves the product's shape in the same way.  The
    exact result always lies in the shape's range, so clamping moves the value towards it,
    as :func:`_saturated_magnitude` does for magnitudes: the error never exceeds the unit's own.
    """
    if total.width == result.width:
        return total
    kept = ops.slice(total, 0, result.width)
    if not result.signed:
        over = ops.not_(ops.is_zero(ops.slice(total, result.width, total.width)))
        return ops.mux(over, ops.const((1 << result.width) - 1, result.width), kept)
    # It fits when the bits from the result's sign bit up are copies of one another.
    high = ops.slice(total, result.width - 1, total.width)
    fits = ops.or_(ops.is_zero(high), ops.is_zero(ops.not_(high)))
    negative = ops.bit(total, total.width - 1)
    limit = ops.mux(negative, ops.const(1 << (result.width - 1), result.width),
                    ops.const((1 << (result.width - 1)) - 1, result.width))
    return ops.mux(fits, kept, limit)


def _inverted_sum(ops, total, width: int, signed: bool):
    """``a - b`` from an adder's ``total`` of ``~a`` and ``b`` (``width``-bit operands), two's complement.

    Signed operands: ``~a == -a - 1``, so ``~total == -1 - (-a - 1 + b) == a - b`` in ``total``'s
    width, and the inversion maps the range of the adder's sum onto itself.  Unsigned: ``~a ==
    2**width - 1 - a``, so ``a - b == 2**width - 1 - total``: the low ``width`` bits inverted, the
    carry kept (a ``width + 1``-bit sum; a circuit whose sum wraps at ``width`` bits gives a
    non-negative difference).  Either way the difference's error is the adder's error on
    ``(~a, b)``, and no carry chain is added.
    """
    if signed:
        return ops.not_(total)
    if total.width == width + 1:
        return ops.cat(ops.not_(ops.slice(total, 0, width)), ops.bit(total, width))
    if total.width == width:
        return ops.cat(ops.not_(total), ops.const(0, 1))
    return ops.sub(ops.const((1 << width) - 1, total.width + 1), total, width=total.width + 1)


def _floor_remainder(ops, x, y, a: Shape, b: Shape, widths, result: Shape, quotient_of):
    """``x % y`` (floor semantics, as Python's) from the approximate quotient of the magnitudes.

    ``q = quotient_of(|x|, |y|)`` (the divider unit on the magnitudes, at ``widths``), ``r = |x| - q * |y|``
    (exact: the library's partial-product multiplier and a subtraction); when the signs differ and
    ``r != 0`` the quotient is one further from zero and the remainder ``|y| - r``, as
    :func:`floor_divmod` corrects the exact divider; the remainder takes ``y``'s sign and is clamped
    to ``result`` (``%``'s shape, ``y``'s), which holds every exact remainder, so the clamp never
    moves it away from the exact one.  With the unit's exact quotient this is Python's ``x % y``;
    otherwise ``x % y - result`` is ``(q' - x // y) * y`` for the floored ``q'``.

    ``r`` is clamped to ``wb + 3`` bits (``wb``: ``y``'s width; no carry chain: its high bits are
    copies of its sign or not) before the correction and the sign, which then take ``wb + 4`` bits:
    both are monotonic, and from beyond that range they leave ``result``'s range on the same side,
    so the final clamp gives the same value.  No node is wider than 64 bits (what the compiled
    golden model holds) for operands of up to 32 bits.
    """
    sign_x, magnitude_x = sign_magnitude(ops, x) if a.signed else (ops.const(0, 1), x)
    sign_y, magnitude_y = sign_magnitude(ops, y) if b.signed else (ops.const(0, 1), y)
    quotient = quotient_of(ops.zext(magnitude_x, widths[0]), ops.zext(magnitude_y, widths[1]))
    product = exact_product(ops, quotient, magnitude_y)
    wide = product.width            # |x| < 2**widths[0] <= 2**wide and q * |y| < 2**wide: |r| < 2**wide
    if wide < 64:
        total = ops.sub(ops.zext(magnitude_x, wide + 1), ops.zext(product, wide + 1), width=wide + 1)
        negative, low = ops.bit(total, wide), ops.slice(total, 0, wide)
    else:
        negative = ops.lt(ops.zext(magnitude_x, wide), product)
        low = ops.sub(ops.zext(magnitude_x, wide), product, width=wide)
    # r is Cat(low, negative), two's complement: clamped to `kept` bits, it fits when its bits from the
    # kept sign bit up all equal `negative`.
    kept = magnitude_y.width + 3
    high = ops.slice(low, kept - 1, wide)
    fits = ops.mux(negative, ops.is_zero(ops.not_(high)), ops.is_zero(high))
    limit = ops.mux(negative, ops.const(1 << (kept - 1), kept), ops.const((1 << (kept - 1)) - 1, kept))
    remainder = ops.mux(fits, ops.slice(low, 0, kept), limit)
    narrow = kept + 1
    remainder = _extend(ops, remainder, narrow, True)
    adjust = ops.and_(ops.xor(sign_x, sign_y), ops.not_(ops.is_zero(low)))      # r != 0
    remainder = ops.mux(adjust, ops.sub(ops.zext(magnitude_y, narrow), remainder, width=narrow), remainder)
    remainder = ops.mux(sign_y, ops.sub(0, remainder, width=narrow), remainder)
    return _clamped(ops, remainder, result)


def _clamped(ops, total, result: Shape):
    """A two's complement ``total`` (wider than ``result``) clamped to ``result``'s range."""
    if result.signed:
        return _saturated(ops, total, result)
    negative = ops.bit(total, total.width - 1)
    kept = _saturated(ops, ops.slice(total, 0, total.width - 1), result)
    return ops.mux(negative, ops.const(0, result.width), kept)


@functools.lru_cache(maxsize=None)
def approx_unit(choice, a: Shape, b: Shape) -> ApproxUnit:
    """The :class:`ApproxUnit` of ``choice`` (an :class:`hls.approx.UnitChoice`) for operands ``a``, ``b``.

    Raises
    ------
    UnitWidthError
        (a ``ValueError``) an operand wider than the library's units, or a parameter
        the unit does not allow at these widths; the message names both.
    """
    a, b = _at_least_one_bit(Shape.cast(a)), _at_least_one_bit(Shape.cast(b))
    kind, params = choice.kind, dict(choice.params)
    unit_kind = choice.unit_kind
    result = exact_result_shape(kind, a, b)
    signed = a.signed or b.signed
    if unit_kind == "add":
        common = max(shape.width + (signed and not shape.signed) for shape in (a, b))
        widths = (max(common, UNIT_MIN_WIDTH),) * 2
    elif unit_kind == "mul":
        widths = (max(a.width, UNIT_MIN_WIDTH), max(b.width, UNIT_MIN_WIDTH))
    else:
        widths = (max(a.width, b.width, UNIT_MIN_WIDTH),) * 2
    if choice.file is not None:
        unit, widths = _circuit_unit(choice, a, b, signed)
    elif max(widths) > UNIT_MAX_WIDTH:
        raise UnitWidthError(f"{choice.label} is built at the operand widths, and the library's units take "
                             f"at most {UNIT_MAX_WIDTH} bits; these operands need {max(widths)} "
                             f"({_shape_text(a)} and {_shape_text(b)})")
    else:
        extra = {"frac_bits": 0} if unit_kind == "div" else {}
        if unit_kind == "add":
            extra["signed"] = signed
        if unit_kind == "mul" and widths[0] != widths[1]:
            extra["width_b"] = widths[1]
        try:
            unit = get_unit(choice.unit, width=widths[0], **extra, **params)
        except ValueError as error:
            raise UnitWidthError(f"{choice.label} at {widths[0]}x{widths[1]} bits ({_shape_text(a)} and "
                                 f"{_shape_text(b)} operands): {error}") from None
    describe, unit_params = unit.spec.describe, unit.unit_params

    def operation(ops, x, y):
        if unit_kind == "add" or unit.signed:
            # An adder, or a signed circuit: the unit takes the operands as they are, extended.
            x, y = _extend(ops, x, widths[0], a.signed), _extend(ops, y, widths[1], b.signed)
            if kind == "sub":
                x = ops.not_(x)                                 # a - b == ~(~a + b)
            value = describe(ops, x, y, width=widths[0], width_b=widths[1], signed=signed, **unit_params)
            if kind == "sub":
                value = _inverted_sum(ops, value, widths[0], signed or unit.signed)
            value = _extend(ops, value, result.width, result.signed) if value.width < result.width \
                else _saturated(ops, value, result)
        elif kind == "mod":
            value = _floor_remainder(ops, x, y, a, b, widths, result,
                                     lambda p, q: describe(ops, p, q, width=widths[0], width_b=widths[1],
                                                           signed=False, **unit_params))
        else:
            sign_x, x = sign_magnitude(ops, x) if a.signed else (ops.const(0, 1), x)
            sign_y, y = sign_magnitude(ops, y) if b.signed else (ops.const(0, 1), y)
            x, y = ops.zext(x, widths[0]), ops.zext(y, widths[1])
            value = describe(ops, x, y, width=widths[0], width_b=widths[1], signed=False, **unit_params)
            negative = ops.xor(sign_x, sign_y)
            value = _saturated_magnitude(ops, value, negative, result)
            if result.signed:
                value = apply_sign(ops, negative, value, width=result.width)
            else:
                value = ops.zext(value, result.width)
        if unit_kind == "div":
            # The library's dividers give all ones for x / 0; the kernel language says x // 0 == x % 0 == 0.
            value = ops.mux(ops.is_zero(y), ops.const(0, result.width), value)
        return value

    graph = dataflow.trace(operation, a_width=a.width, b_width=b.width)
    return ApproxUnit(choice, a, b, result, unit, graph)


def _circuit_unit(choice, a: Shape, b: Shape, signed: bool):
    """A third-party circuit's unit (:func:`approx_units.verilog_eval.netlist_unit`) and its port widths,
    if operands ``a`` and ``b`` fit them.

    A signed circuit takes an operation with a signed operand, its operands as two's complement
    values (an unsigned operand needs one bit more than its width, for the sign); an unsigned
    multiplier or divider takes the magnitudes (at most its ports' widths), as the library's units
    do; an unsigned adder takes unsigned operands.
    """
    # approx_units.verilog_eval runs Yosys: only a kernel with a third-party circuit needs it.
    from approx_units.verilog_eval import load_circuit, netlist_unit
    circuit = load_circuit(choice.file, choice.circuit_signed)   # read (and checked) with the choice: cached
    widths = (circuit.width, circuit.width_b)
    if circuit.signed and choice.kind == "mod":
        raise UnitWidthError(f"{choice.label} is a signed circuit; % takes a divider's quotient of the operands' "
                             f"magnitudes, from an unsigned one")
    if circuit.signed:
        if not signed:
            raise UnitWidthError(f"{choice.label} is a signed circuit; these operands are unsigned "
                                 f"({_shape_text(a)} and {_shape_text(b)})")
        needed = (a.width + (not a.signed), b.width + (not b.signed))
        if needed[0] > widths[0] or needed[1] > widths[1]:
            raise UnitWidthError(f"{choice.label} has {widths[0]}x{widths[1]}-bit signed operand ports; these "
                                 f"operands need {needed[0]}x{needed[1]} ({_shape_text(a)} and {_shape_text(b)})")
        return netlist_unit(circuit), widths
    if choice.unit_kind == "add" and signed:
        raise UnitWidthError(f"{choice.label} is an unsigned adder; these operands are signed "
                             f"({_shape_text(a)} and {_shape_text(b)})")
    if a.width > widths[0] or b.width > widths[1]:
        raise UnitWidthError(f"{choice.label} has {widths[0]}x{widths[1]}-bit operand ports; these operands need "
                             f"{a.width}x{b.width} ({_shape_text(a)} and {_shape_text(b)})")
    return netlist_unit(circuit), widths


def _shape_text(shape: Shape) -> str:
    return f"{'signed' if shape.signed else 'unsigned'}({shape.width})"


@functools.lru_cache(maxsize=None)
def _approx_segments(unit: ApproxUnit, stages: int, model: DelayModel) -> tuple[float, ...]:
    return tuple(dataflow.pipeline(unit.graph, stages, model)[1].segment_delay)


@functools.lru_cache(maxsize=None)
def approx_plan(choice, a: Shape, b: Shape, period: float, model: DelayModel) -> UnitPlan:
    """The fewest stages for which every segment of the unit, by the delays of ``model``, plus
    ``model.unit_routing(unit)`` ns fits ``period`` ns.

    Registers go between the graph's nodes, so one node slower than the period bounds every
    pipeline: then the plan has the fewest stages that reach that node's delay, as
    :func:`divider_plan`'s, and the report claims the lower clock the unit reaches.

    Raises
    ------
    UnitWidthError
        As :func:`approx_unit`.
    """
    unit = approx_unit(choice, Shape.cast(a), Shape.cast(b))
    floor = _slowest_node_of(unit.graph, max(unit.a.width, unit.b.width, 1), model)
    return _plan(unit.description, lambda stages: _approx_segments(unit, stages, model), floor,
                 period, model.unit_routing(choice.unit), 0)


@functools.lru_cache(maxsize=None)
def approx_golden(choice, a: Shape, b: Shape):
    """``function(x, y) -> int``: the operation's value on Python ints of shapes ``a``, ``b``.

    The traced graph of :func:`approx_unit`, the one the hardware is built from, run
    as Python integer code (:func:`approx_units.python_backend.compile_scalar`, checked
    against the unit's numpy model), so the golden model and the hardware agree bit for bit.
    """
    unit = approx_unit(choice, Shape.cast(a), Shape.cast(b))
    function = compile_scalar(unit.graph)
    width, signed = unit.result.width, unit.result.signed
    top = 1 << (width - 1)

    def golden(x: int, y: int) -> int:
        value = function(x, y)
        value = value - (top << 1) if signed and value & top else value
        observer = _OBSERVER.get()
        if observer is not None:
            observer(unit, x, y, value)
        return value
    return golden


#: The callback of the innermost :func:`observe_approx` block, or None.
_OBSERVER: contextvars.ContextVar = contextvars.ContextVar("approx_observer", default=None)


@contextlib.contextmanager
def observe_approx(callback):
    """Within the block, every golden run of an approximate operation calls
    ``callback(unit, x, y, value)`` (``unit`` its :class:`ApproxUnit`, ``x``, ``y`` the
    operands, ``value`` the result): the fuzzer's error-bound oracle watches a kernel's
    Python run through it."""
    token = _OBSERVER.set(callback)
    try:
        yield
    finally:
        _OBSERVER.reset(token)


def approx_observed() -> bool:
    """Whether an :func:`observe_approx` block is active here (the compiled golden model, which
    cannot call the observer, then leaves the run to the Python one)."""
    return _OBSERVER.get() is not None


#: Largest unit (operand bits of ``a`` plus ``b``, at the widths the unit is built at) whose
#: worst case :func:`approx_error_bound` measures over every operand pair. 2**22 pairs take
#: 0.1-0.3 s with numpy: the 200 programs of tests/sim/test_fuzz_differential.py spend 2.6 s
#: on their bounds and hold 76 % of their approximate operations to one. (24 bits, with the
#: bounds kept per operand shapes rather than per unit, spent 49 s: a quarter of the run.)
BOUND_EXHAUSTIVE_BITS = 22

#: Mitchell's worst case (J. N. Mitchell, 1962): the product is never above the exact one and
#: at most 1/9 of it below, at every width (the library's antilogarithm drops no bits).
MITCHELL_RELATIVE_BOUND = 1 / 9


@dataclass(frozen=True)
class ErrorBound:
    """The worst-case error of one approximate operation against its exact result.

    The reference is the exact operator's value: ``x * y``, ``x + y``, ``x - y``, and Python's
    ``x % y`` (0 for ``x % 0``); for ``div`` the quotient of the magnitudes, negated when the
    signs differ (the unit rounds towards zero, as ``docs/language.md`` says), and 0 for
    ``x // 0``.  An error ``e`` of a result against a reference ``r`` is within the bound when
    ``|e| <= absolute`` (if known; for ``mod``, ``|e| <= absolute * |y|``) and, for ``r != 0``,
    ``|e| <= relative * |r|`` (if known).

    Attributes
    ----------
    kind : str
        ``"mul"``, ``"add"``, ``"sub"``, ``"div"`` or ``"mod"``.
    absolute : int, float or None
        The unit's worst-case absolute error (WCE; a divider's against the integer quotient);
        for ``mod``, in units of ``|y|``: the most the floored quotient behind the remainder
        is off.
    relative : float or None
        The unit's worst-case relative error (WCRE), over references other than 0.
    source : str
        Where the bound comes from: ``"exhaustive at 12x9 bits"``, or the literature.
    """

    kind: str
    absolute: object
    relative: object
    source: str

    def reference(self, x, y):
        """The exact result the unit approximates (ints, or numpy arrays elementwise)."""
        x, y = _elementwise(x), _elementwise(y)
        if self.kind == "mul":
            return _as_given(x * y)
        if self.kind == "add":
            return _as_given(x + y)
        if self.kind == "sub":
            return _as_given(x - y)
        if self.kind == "mod":
            return _as_given(np.where(y == 0, 0, x % np.where(y == 0, 1, y)))
        quotient = np.abs(x) // np.maximum(np.abs(y), 1)
        return _as_given(np.where(y == 0, 0, np.where((x < 0) != (y < 0), -quotient, quotient)))

    def admits(self, x, y, value):
        """Whether ``value`` lies within the bound of the exact result of ``x`` and ``y``
        (ints: a bool; numpy arrays: a bool array)."""
        x, y, value = _elementwise(x), _elementwise(y), _elementwise(value)
        reference = _elementwise(self.reference(x, y))
        error = np.abs(value - reference)
        within = np.ones(np.shape(error), dtype=bool)
        if self.absolute is not None:
            within &= error <= (self.absolute * np.abs(y) if self.kind == "mod" else self.absolute)
        if self.relative is not None:
            # The relative bound is a float measured over the same integers: a relative tolerance
            # of 1e-12 absorbs its rounding, far below one unit of any reference here.
            within &= (reference == 0) | (error <= self.relative * np.abs(reference) * (1 + 1e-12))
        if self.kind in ("div", "mod"):
            within &= (y != 0) | (value == 0)           # x // 0 == x % 0 == 0 is the language's, not the unit's
        return _as_given(within)


def _elementwise(value):
    # A Python int as a 0-d object array, so that 64-bit products do not overflow numpy's integers.
    return value if isinstance(value, np.ndarray) else np.array(int(value), dtype=object)


def _as_given(result):
    # A 0-d result (from int operands: numpy gives a 0-d array or a scalar) as a Python int or bool.
    if np.ndim(result):
        return result
    item = result.item() if isinstance(result, (np.ndarray, np.generic)) else result
    return bool(item) if isinstance(item, (bool, np.bool_)) else int(item)


@functools.lru_cache(maxsize=None)
def approx_error_bound(choice, a: Shape, b: Shape) -> ErrorBound | None:
    """The :class:`ErrorBound` of the operation ``choice`` on operands of shapes ``a``, ``b``.

    The unit's own worst case, at the widths it is built at (:func:`approx_unit`): the
    operation's magnitudes (or, for ``add``, its extended operands) lie in the unit's
    operand range, and the clamp to the result shape never moves a value away from the
    exact result.  Measured over every operand pair
    (:func:`approx_units.evaluate.evaluate`, once per unit) when the unit has at most
    :data:`BOUND_EXHAUSTIVE_BITS` operand bits; wider, ``mitchell`` has
    :data:`MITCHELL_RELATIVE_BOUND` and every other unit ``None`` (no known bound).

    Raises
    ------
    UnitWidthError
        As :func:`approx_unit`.
    """
    a, b = Shape.cast(a), Shape.cast(b)
    unit = approx_unit(choice, a, b).unit
    key = (choice, unit.width, unit.width_b, unit.signed)
    if key not in _UNIT_BOUNDS:         # operand shapes of one width share the unit, and its bound
        _UNIT_BOUNDS[key] = _unit_error_bound(choice, unit)
    bound = _UNIT_BOUNDS[key]
    if bound is not None and choice.kind == "mod" and (a.signed or b.signed) and bound.absolute:
        # Signs that differ floor the quotient when the approximate remainder is not 0: where the exact
        # one is 0 (and the quotient was off), the floored quotient is one further off.
        return ErrorBound("mod", bound.absolute + 1, None, f"{bound.source}, signed operands")
    return bound


#: :func:`_unit_error_bound` per (choice, unit widths, signed variant).
_UNIT_BOUNDS: dict = {}


def _unit_error_bound(choice, unit) -> ErrorBound | None:
    # approx_units.evaluate starts process pools and compiles C: only the oracle needs it.
    from approx_units.evaluate import evaluate
    if unit.width + unit.width_b > BOUND_EXHAUSTIVE_BITS:
        if choice.unit == "mitchell":
            return ErrorBound(choice.kind, None, MITCHELL_RELATIVE_BOUND, "Mitchell (1962): at most 1/9 below")
        return None
    metrics = evaluate(unit, exhaustive=True, workers=1, progress=False).metrics
    source = f"exhaustive at {unit.width}x{unit.width_b} bits"
    if choice.kind == "div":
        return ErrorBound("div", metrics["int_wce"], None, source)
    if choice.kind == "mod":
        # x % y - r == (q' - x // y) * y: the quotient's worst case, in units of |y|.
        return ErrorBound("mod", metrics["int_wce"], None, f"the quotient's worst case {source}, times |y|")
    if choice.kind == "sub":
        # ~(~x + y): the adder's error on (~x, y), which lie in its operand range; its relative error is
        # against ~x + y == -(x - y) - 1, not x - y, so only the absolute bound carries over.
        return ErrorBound("sub", metrics["wce"], None, f"the adder's worst case {source}")
    return ErrorBound(choice.kind, metrics["wce"], metrics["wcre"], source)


def approx_value(module, name: str, choice, a, b, stages: int, valid, model: DelayModel):
    """The operation ``choice`` on Amaranth values ``a`` and ``b``, ``stages`` cycles after them:
    an instance of its unit in ``module`` (``valid_in`` driven by ``valid`` when pipelined), its
    registers placed by the delays of ``model`` (the target device's)."""
    unit = approx_unit(choice, a.shape(), b.shape())
    component = UnitComponent(unit.graph, UnitSignature(Shape(unit.a.width), Shape(unit.b.width),
                                                        Shape(unit.result.width), pipelined=stages > 0),
                              stages=stages, delay_model=model)
    module.submodules[f"{name}_{choice.unit}"] = component
    module.d.comb += [component.a.eq(a.as_unsigned()), component.b.eq(b.as_unsigned())]
    if stages:
        module.d.comb += component.valid_in.eq(valid)
    out = Signal(unit.result, name=f"{name}_{choice.kind}")
    module.d.comb += out.eq(component.o)
    return out
