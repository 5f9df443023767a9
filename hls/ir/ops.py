"""The operator table: one entry per kind of IR operation, read by every layer.

Each :class:`Operator` says, for one ``Op.kind``:

* **syntax**: which Python operators of the kernel language become it
  (``ast.Add`` -> ``add``); the front end and the IR builder read their
  operator maps from here;
* **lowering**: its Amaranth expression over Amaranth values
  (:meth:`Operator.lower`).  The back end builds hardware with it, and the
  **shape rule** (:meth:`Operator.shape`) builds the same expression on
  signals and asks its shape, so the front end's shape inference cannot drift
  from the hardware;
* **golden semantics**: its value on Python integers
  (:meth:`Operator.golden_for`), which the golden model calls, or
  ``python_inline`` where Python's own operator on ints already means
  exactly that (the golden model then leaves it in place: a call per
  operation would slow the model several-fold), and its C expression for the
  golden model at compiled speed (:attr:`Operator.c_form`, :mod:`hls.golden`);
* **timing**: its combinational delay as a formula over a device's delay
  model (an :class:`approx_units.devices.DelayModel`, the target's
  ``delay_model``), never a device's own numbers: :meth:`Operator.delay`;
* **resources**: the names of ``resources=`` that limit it (``"mul"``;
  ``"div"`` or ``"floordiv"``), and a **pipelined lowering** for operators
  the back end splits into registered stages when they are slower than a
  clock period (:meth:`Operator.lower_pipelined`).

Structural kinds (``const``, ``live_in``, ``commit``, ``load``, ...) have
entries too, with a ``category`` saying how the scheduler and the back end
treat them; they have no lowering of their own.

Adding an operator means adding one entry to :data:`OPERATORS`;
``tests/compiler/test_operator_table.py`` checks that every kind the IR
builder produces and every Python operator the front end accepts has a
complete entry.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
from dataclasses import dataclass
from typing import Callable, Literal

from amaranth.hdl import Const, Mux, Shape, Signal, Value

__all__ = ["Operator", "Lowering", "Timing", "UnitOperator", "UnknownOperatorError",
           "OPERATORS", "operator_of", "approx_operator", "operator_for_syntax",
           "limitable_resources", "covering_shape", "STREAM_READ", "STREAM_WRITE", "stream_call"]


class UnknownOperatorError(ValueError):
    """An operation kind that has no entry in :data:`OPERATORS`."""


@dataclass(frozen=True)
class Lowering:
    """What a pipelined lowering may use besides its operands.

    Attributes
    ----------
    module : amaranth.hdl.Module
        Where the lowering adds its registers (``module.d.sync``) and logic.
    name : str
        The operation's name, a prefix for the signals it makes.
    shape : Shape
        The shape of the operation's result.
    latency : int
        Cycles the scheduler gave the operation: its result is used that many
        cycles after its start, or later.
    valid : callable
        ``valid(stage)`` is the 1-bit signal that is high when the iteration
        that started the operation is ``stage`` cycles past its start: the
        clock enable of a unit whose registers must only move with valid data.
    attrs : dict or None
        The operation's IR attributes (a unit chosen per operation reads its
        ``"unit"``); ``None`` for a shared instance's lowering of a kind without units.
    target : hls.Target
        The compile target, for lowerings whose structure follows the clock (a
        multiplier's partial-product digits) or the device (a library unit's
        registers, placed by its delay model).
    """

    module: object
    name: str
    shape: Shape
    latency: int
    valid: Callable[[int], Value]
    attrs: object = None
    target: object = None


Category = Literal["logic", "wire", "register", "carry", "exit", "memory", "stream"]


@dataclass(frozen=True)
class Timing:
    """How the scheduler sees one operation under a clock.

    Attributes
    ----------
    latency : int
        Cycles from its start until its result is used; 0 for combinational logic.
    incoming_delay : float
        ns of logic in the cycle it starts (latency 0: input to result; latency
        >= 1: input to the first register, or to the end of a multicycle path).
    outgoing_delay : float
        ns of logic after the last register of a pipelined unit, in the cycle its
        result appears (0 for a multicycle path, whose remainder is in ``incoming_delay``).
    type_name : str or None
        The scheduler's operator type when instances differ by more than the result
        width (a unit pipelined for its operand shapes); ``None`` leaves the entry's.
    description : str
        How messages name the hardware (``"exact divider pipelined in 9 stages"``);
        empty for plain logic and multicycle paths.
    slowest : float
        ns of the slowest segment of a pipelined unit with its routing; above the
        period only where the unit's single slowest operation is (the incoming and
        outgoing delays are then clipped to the period, and the report claims the
        lower clock the unit reaches). 0 for everything else.
    """

    latency: int
    incoming_delay: float
    outgoing_delay: float = 0.0
    type_name: str | None = None
    description: str = ""
    slowest: float = 0.0


@dataclass(frozen=True)
class UnitOperator:
    """How an entry whose every operation is a library unit chosen per operation is
    timed, built and modelled (the ``approx_*`` entries: ``hls.approx`` calls and
    ``@hls.kernel(approx=...)``).

    Attributes
    ----------
    timing : callable
        ``timing(model, period, shapes, attrs) -> Timing``: the unit's stages for a
        clock leaving ``period`` ns to logic, for operands of ``shapes``.
    build : callable
        ``build(lowering, operands) -> Value``: the unit instantiated in
        ``lowering.module`` with ``lowering.latency`` stages; its result.
    golden : callable
        ``golden(shapes, attrs) -> function(*ints) -> int``: its bit-exact value.
    resource_name : callable
        ``resource_name(limited, op) -> str``: the shared operator type of a limited
        operation ``op``, one per unit and operand shapes: instances of different units
        are different hardware, and the golden model computes each operation at its
        own operand widths, so an instance serves only operations of its widths.
    """

    timing: Callable[[object, float, tuple, object], "Timing"]
    build: Callable[["Lowering", list], Value]
    golden: Callable[[tuple, object], Callable[..., int]]
    resource_name: Callable[[str, object], str]


def _multicycle_timing(delay: float, period: float) -> Timing:
    """Within a period: combinational.  Slower: ``ceil(delay / period)`` cycles, the
    remainder of the delay in the last one (a multicycle path, or registered stages
    where the entry has a pipelined lowering)."""
    if delay <= period:
        return Timing(0, delay)
    latency = math.ceil(delay / period)
    return Timing(latency, delay - (latency - 1) * period)


@dataclass(frozen=True)
class Operator:
    """One kind of IR operation and everything each layer needs to know about it.

    Attributes
    ----------
    kind : str
        The ``Op.kind`` it describes.
    arity : int
        Number of operands.
    category : str
        ``"logic"`` for combinational operators (scheduled with a delay, built
        with :attr:`lowering`); ``"wire"`` (no delay, no hardware of its own);
        ``"register"``, ``"carry"``, ``"exit"``: fixed scheduler types;
        ``"memory"``: an array port access; ``"stream"``: a stream read or write (one token).
    description : str
        How messages name it.
    syntax : tuple of type
        The ``ast`` operator nodes (``ast.Add``, ``ast.Lt``...) or builtins
        (``min``) of the kernel language that become this kind.
    lowering : callable or None
        ``lowering(*operands) -> amaranth.hdl.Value`` over Amaranth values (and
        Python ints at :attr:`constant_operands` positions).
    golden : callable or None
        ``golden(shapes) -> function(*ints) -> int``: the operator's value on
        Python integers, given the operand shapes.
    python_inline : bool
        Python's own operator on ints computes :attr:`golden` exactly, so the
        golden model keeps the Python construct (comparisons are wrapped in
        ``int``; ``and``/``or``/``if``-``else`` keep their short-circuit, which
        guards array reads).
    logic : callable or None
        ``logic(model, width, operand_widths) -> ns``: the delay of the logic
        on a device whose delay model is ``model`` (an
        :class:`approx_units.devices.DelayModel`), without the routing to the next operator.
    constant_operands : tuple of int
        Operand positions that are lowered as Python ints when the operand is
        a constant (a constant shift is wiring, and Amaranth widens ``x << 2``
        by 2 bits, not by a signal's range); their width counts as 0 for timing.
    constant_delay : callable or None
        ``constant_delay(model, width, constant) -> ns``, replacing
        :attr:`logic` when an operand is a constant and the operator is not
        shared (synthesis folds the constant in).
    op_delay : callable or None
        ``op_delay(model, op) -> ns`` for operators whose delay depends on
        more than widths (store-to-load forwarding); replaces the rest.
    limited_by : tuple of str
        Names of ``resources=`` that limit this operator, first match wins.
    pipelined : callable or None
        ``pipelined(lowering, operands) -> (cycles, value) or None``: a
        lowering in registered stages for when the operator is slower than a
        clock period; ``value`` is valid ``cycles`` after the start.  ``None``
        (or a ``None`` result) leaves it a multicycle path.
    pipelined_description : str
        How the report describes the pipelined lowering.
    type_name : callable or None
        ``type_name(op) -> str``: the scheduler's operator type of an unshared
        ``op`` when instances differ by more than the result width (a
        forwarding multiplexer by its number of stores); default ``<kind><width>``.
    port : str or None
        For memory kinds: the array port used, ``"read"`` or ``"write"``; for stream kinds,
        whether a token is read or written.  :attr:`reads_memory` and :attr:`writes_memory`
        say it of an array.
    variable : str or None
        For kinds that access the register of the variable ``attrs["var"]``: ``"read"`` (a
        variable read) or ``"write"`` (a commit of the block's value, a loop-carried value).
    timing : callable or None
        ``timing(delay, period) -> Timing`` for an operator whose latency is
        not the multicycle rule (a unit with its own pipeline stages); ``None``
        gives combinational logic within a period and ``ceil(delay / period)``
        cycles beyond it.
    unit : UnitOperator or None
        Operations of this kind are each an instance of a library unit chosen per
        operation (``attrs["unit"]``): timed, built and modelled by it.
    transfer : callable or None
        ``transfer(op, facts, *values) -> Value``: the operator on abstract values
        (:class:`hls.analysis.values.Value`: an interval and an affine form, whose
        arithmetic follows Python's operators on ints, as :attr:`golden` does);
        ``facts`` (a :class:`hls.analysis.values.ValueAnalysis`) gives the leaves.
        ``None``: nothing is known of the value beyond its shape (a memory read).
    c_form : callable or None
        ``c_form(shapes, literal, *operands) -> str``: the operator as a C expression for the
        golden model at compiled speed (:mod:`hls.golden`), whose values are one signed C type
        ``V``: ``operands`` are the operands' C expressions, ``shapes`` their shapes, and
        ``literal(int) -> str`` writes a constant of ``V``; the ``h_*`` helpers it calls are
        that module's.  ``None``: the kind has no C form of its own (structural kinds; ``and``
        and ``or`` of truth values and ``if``-``else``, which the golden model keeps as
        Python's short-circuiting constructs).
    bits : callable or None
        ``bits(op, *operands) -> tuple or None``: the operator on single bits, for bitwise
        logic that synthesis maps as one cone of LUTs (:mod:`hls.analysis.logic_cones`): each
        operand is a tuple of its bits (least significant first, its shape's width), each bit
        ``0``/``1``, a wire ``(name, index)`` of a source bit or a ``frozenset`` of the source
        bits it is a function of; the result has ``op.shape.width`` bits.  ``None`` (or a
        ``None`` result) makes the operation a source: its bits depend on its operands in a way
        that is not bitwise (a carry chain, a read).
    unit_timing : callable or None
        ``unit_timing(model, period, shapes, constants) -> Timing or None`` for an
        operator built as a unit pipelined for its operand shapes (a division, a
        multiplier slower than a period): ``shapes`` are the operand shapes,
        ``constants`` holds the value of each operand that is a folded constant
        and ``None`` for the others; it takes precedence over :attr:`timing`,
        and a ``None`` result falls back to it.
    carry_input : bool
        Its operands enter a carry chain (a sum, a difference, a negation, a comparison, ``abs``,
        ``min``/``max``).  Chained in one cycle on the result of another such operator, it pays
        the device's routing from one carry chain into the next (:meth:`entry_routing`).
    select_input : bool
        Its operands feed both its comparison's carry chain and a select that the comparison
        drives (``min``/``max``).  Chained on another :attr:`carry_input` operator's result, it
        pays the device's ``select_entry`` besides ``carry_entry`` (:meth:`entry_routing`).
    merged_sum : bool
        An addition or subtraction: synthesis (Yosys' ``alumacc``) merges a chain of them whose
        intermediate results have no other user into one multi-operand adder, one carry chain.
    reads_operations : str or None
        The ``attrs`` key of a list of further operations whose values an operation of this
        kind reads besides its operands and predicate (a ``forward``: the stores whose address,
        data and predicate it compares); dead-code elimination (:mod:`hls.ir.dead`) keeps them
        wherever it keeps the operation.
    placement : str or None
        For a structural kind (one without a :attr:`lowering` or :attr:`unit`): the back end's
        builder for this kind, by name (the back end's ``_Datapath._place_<placement>``; a
        name, not a function, so that the IR does not import the back end).  ``None``: the
        back end builds the operator from its :attr:`lowering` or :attr:`unit`.
    """

    kind: str
    arity: int
    category: Category = "logic"
    description: str = ""
    syntax: tuple = ()
    lowering: Callable[..., Value] | None = None
    golden: Callable[[tuple[Shape, ...]], Callable[..., int]] | None = None
    python_inline: bool = False
    logic: Callable[[object, int, tuple[int, ...]], float] | None = None
    constant_operands: tuple[int, ...] = ()
    constant_delay: Callable[[object, int, int], float] | None = None
    op_delay: Callable[[object, object], float] | None = None
    limited_by: tuple[str, ...] = ()
    pipelined: Callable[[Lowering, list], tuple[int, Value] | None] | None = None
    pipelined_description: str = ""
    type_name: Callable[[object], str] | None = None
    port: Literal["read", "write"] | None = None
    variable: Literal["read", "write"] | None = None
    timing: Callable[[float, float], Timing] | None = None
    unit_timing: Callable[[object, float, tuple, tuple], Timing | None] | None = None
    unit: "UnitOperator | None" = None
    transfer: Callable[..., object] | None = None
    c_form: Callable[..., str] | None = None
    bits: Callable[..., tuple | None] | None = None
    reads_operations: str | None = None
    placement: str | None = None
    carry_input: bool = False
    select_input: bool = False
    merged_sum: bool = False

    # -- every layer reads these -----------------------------------------------------------

    def lower(self, *operands) -> Value:
        """The Amaranth expression of this operator over ``operands``.

        Raises
        ------
        TypeError
            For a kind without a lowering of its own (structural kinds).
        """
        if self.lowering is None:
            raise TypeError(f"IR kind {self.kind!r} is structural: the back end builds it, it has no "
                            f"Amaranth expression")
        return self.lowering(*operands)

    def shape(self, *shapes, constants: dict[int, int] | None = None) -> Shape:
        """Result shape over operands of ``shapes``: the shape of :meth:`lower` on signals.

        ``constants`` maps operand positions to the Python ints they are lowered
        as (see :attr:`constant_operands`).
        """
        return _shape(self, tuple(Shape.cast(shape) for shape in shapes),
                      tuple(sorted((constants or {}).items())))

    def golden_for(self, shapes, attrs=None) -> Callable[..., int]:
        """The operator's function on Python ints for operands of ``shapes`` (``attrs``: the
        operation's, naming the unit of a :attr:`unit` entry)."""
        if self.unit is not None:
            return self.unit.golden(tuple(Shape.cast(shape) for shape in shapes), attrs)
        if self.golden is None:
            raise TypeError(f"IR kind {self.kind!r} has no value of its own in the golden model")
        return self.golden(tuple(Shape.cast(shape) for shape in shapes))

    def delay(self, model, width: int, operand_widths: tuple[int, ...] = (), constant: int | None = None) -> float:
        """Combinational delay in ns on the device of ``model``, including the hop to the next operator.

        Parameters
        ----------
        model : approx_units.devices.DelayModel
            The device's delay model (``hls.Target(device=...).delay_model``): its
            constants and primitives (``carry(width)``, ``lut``, ``routing_hop``...).
        width : int
            Width of the result.
        operand_widths : tuple of int
            0 for operands at :attr:`constant_operands` positions that are constant.
        constant : int or None
            The value of a constant operand, when :attr:`constant_delay` applies.
        """
        if constant is not None and self.constant_delay is not None:
            return self.constant_delay(model, width, constant)
        if self.logic is None:
            return 0.0
        logic = self.logic(model, width, tuple(operand_widths))
        return logic + model.routing_hop if logic else 0.0

    def entry_routing(self, model, producer: "Operator", producer_users: int) -> float:
        """ns of routing into an operation of this kind from the result of one of ``producer``'s
        kind chained before it in its cycle, beyond the ``routing_hop`` that the producer's
        :meth:`delay` holds: ``model.carry_entry`` from one carry chain into another (both
        :attr:`carry_input`), plus ``model.select_entry`` into a :attr:`select_input` kind
        (``min``/``max``), else 0.  None between two :attr:`merged_sum` kinds where this
        operation is the result's only user (``producer_users`` 1): synthesis makes them one
        multi-operand adder.  A value taken from a register pays none."""
        if not (self.carry_input and producer.carry_input):
            return 0.0
        if self.merged_sum and producer.merged_sum and producer_users == 1:
            return 0.0
        return model.carry_entry + (model.select_entry if self.select_input else 0.0)

    def delay_of(self, model, op, *, shared: bool = False) -> float:
        """Delay in ns of the IR operation ``op`` of this kind; ``shared`` when it runs on a
        multiplexed instance (its operands are then signals, never folded constants)."""
        if self.op_delay is not None:
            return self.op_delay(model, op)
        widths = tuple(0 if index in self.constant_operands and operand.kind == "const" else operand.shape.width
                       for index, operand in enumerate(op.operands))
        constants = [operand.attrs["value"] for operand in op.operands if operand.kind == "const"]
        constant = constants[0] if constants and not shared else None
        return self.delay(model, op.shape.width, widths, constant)

    def type_name_of(self, op) -> str:
        """The scheduler's operator type name of an unshared ``op`` of this kind."""
        return self.type_name(op) if self.type_name is not None else f"{self.kind}{op.shape.width}"

    def timing_of(self, model, period: float, op, *, shared: bool = False) -> Timing:
        """Latency and delay of the IR operation ``op`` under a clock whose period leaves
        ``period`` ns to logic, on the device of ``model``."""
        if self.unit is not None:
            return self.unit.timing(model, period, tuple(operand.shape for operand in op.operands), op.attrs)
        if self.unit_timing is not None:
            constants = tuple(operand.attrs["value"] if operand.kind == "const" and not shared else None
                              for operand in op.operands)
            timing = self.unit_timing(model, period, tuple(operand.shape for operand in op.operands), constants)
            if timing is not None:
                return timing
        delay = self.delay_of(model, op, shared=shared)
        return (self.timing or _multicycle_timing)(delay, period)

    def timing_over(self, model, period: float, shapes, attrs=None) -> Timing | None:
        """The unit timing of an instance whose operands have ``shapes`` (none constant), or
        ``None`` when the entry has no unit of its own; ``attrs`` are those of an operation
        of the instance (they name the unit of a :class:`UnitOperator` entry)."""
        if self.unit is not None:
            return self.unit.timing(model, period, tuple(Shape.cast(shape) for shape in shapes), attrs)
        if self.unit_timing is None:
            return None
        return self.unit_timing(model, period, tuple(Shape.cast(shape) for shape in shapes), (None,) * len(shapes))

    @property
    def reads_memory(self) -> bool:
        """Whether an operation of this kind reads an array element (``attrs["array"]``) through
        a read port."""
        return self.category == "memory" and self.port == "read"

    @property
    def writes_memory(self) -> bool:
        """Whether an operation of this kind writes an array element through a write port."""
        return self.category == "memory" and self.port == "write"

    @property
    def pure(self) -> bool:
        """Whether an operation of this kind is a function of its operands alone: logic, a
        conversion, a memory read (between two writes of its array).  Two of them with the same
        operands compute the same value, so the IR builder makes it once."""
        return self.category in ("logic", "wire") or self.reads_memory

    @property
    def has_effect(self) -> bool:
        """Whether an operation of this kind changes what its iteration leaves behind: a
        variable's register, an array element or a stream's tokens.  It must not act when its
        predicate is false or its iteration is squashed."""
        return self.category in ("register", "stream") or self.writes_memory

    @property
    def observable(self) -> bool:
        """Whether every operation of this kind is seen outside the kernel's own state, whatever
        reads its result: a stream's token taken or given, a loop's exit.  Dead-code elimination
        (:mod:`hls.ir.dead`) keeps each one; a write to a variable or an array (:attr:`has_effect`)
        it keeps only where something reads that variable or array."""
        return self.category in ("stream", "exit")

    @property
    def has_unit(self) -> bool:
        """Whether operations of this kind may be a library unit instance (pipelined to the clock)."""
        return self.unit is not None or self.unit_timing is not None

    def lower_pipelined(self, lowering: Lowering, operands) -> tuple[int, Value] | None:
        """The registered-stage lowering, or ``None`` when there is none for these operands.

        An entry whose operations are always units (:attr:`unit`) builds its unit here
        at any latency, 0 included."""
        if self.unit is not None:
            return lowering.latency, self.unit.build(lowering, operands)
        if self.pipelined is None:
            return None
        return self.pipelined(lowering, operands)


@functools.lru_cache(maxsize=None)
def _shape(entry: Operator, shapes: tuple[Shape, ...], constants: tuple) -> Shape:
    operands = [Signal(shape) for shape in shapes]
    for index, value in constants:
        operands[index] = value
    return Value.cast(entry.lower(*operands)).shape()


# -- golden semantics that differ from Python's ----------------------------------------------

def _same(function):
    """Golden semantics that do not depend on the operand shapes."""
    return lambda shapes: function


def _floordiv(left: int, right: int) -> int:
    """Amaranth's ``//``: floors like Python, and ``x // 0 == 0``."""
    return left // right if right else 0


def _mod(left: int, right: int) -> int:
    """Amaranth's ``%``: the sign of the divisor like Python, and ``x % 0 == 0``."""
    return left % right if right else 0


def _power_of_two(value) -> int | None:
    """``k`` when ``value`` is the constant ``2**k`` (``k >= 0``), else ``None``."""
    if not isinstance(value, Const) or value.value <= 0 or value.value & (value.value - 1):
        return None
    return value.value.bit_length() - 1


def _floordiv_value(a, b):
    # By a constant power of two, floor division is an arithmetic shift (floor(-7 / 4) ==
    # -7 >> 2 == -2), wiring; by 0 it is 0. Synthesis would otherwise build a divider.
    k = _power_of_two(b)
    if k is not None:
        return a >> k
    if isinstance(b, Const) and b.value == 0:
        return Const(0, 1)
    return a // b


def _mod_value(a, b):
    # By a constant 2**k, Python's remainder is the k low bits of two's complement a
    # (it lies in [0, 2**k)): wiring.
    k = _power_of_two(b)
    if k is not None:
        return a.as_unsigned()[:k] if k else Const(0, 1)
    if isinstance(b, Const) and b.value == 0:
        return Const(0, 1)
    return a % b


def _invert(shapes):
    """Amaranth's ``~`` of ``unsigned(n)`` flips n bits; Python's ``~x`` is ``-x - 1``."""
    shape = shapes[0]
    if shape.signed:
        return operator.invert
    mask = (1 << shape.width) - 1
    return lambda value: mask ^ value


def _c(template: str):
    """A :attr:`Operator.c_form` that is ``template`` over the operands' C expressions ``{0}``, ``{1}``."""
    return lambda shapes, literal, *operands: template.format(*operands)


def _invert_c(shapes, literal, operand):
    """``~`` in C: of a signed value as Python's; of ``unsigned(n)`` the n bits flipped (:func:`_invert`)."""
    if shapes[0].signed:
        return f"(~({operand}))"
    return f"(({operand}) ^ {literal((1 << shapes[0].width) - 1)})"


def _invert_transfer(op, facts, value):
    """``~`` on abstract values, as :func:`_invert`: ``-x - 1``, or ``mask - x`` for ``unsigned(n)``."""
    shape = op.operands[0].shape
    if shape.signed:
        return ~value
    return facts.constant((1 << shape.width) - 1) - value


# -- operators on single bits (hls.analysis.logic_cones) --------------------------------------

def _support(bit) -> frozenset:
    return bit if isinstance(bit, frozenset) else frozenset() if isinstance(bit, int) else frozenset((bit,))


def _function(*bits):
    # A function of every non-constant bit of `bits`.
    return frozenset().union(*(_support(bit) for bit in bits))


def _bit_and(x, y):
    if x == 0 or y == 0:
        return 0
    if x == 1 or y == 1:
        return y if x == 1 else x
    return _function(x, y)


def _bit_or(x, y):
    if x == 1 or y == 1:
        return 1
    if x == 0 or y == 0:
        return y if x == 0 else x
    return _function(x, y)


def _bit_xor(x, y):
    if isinstance(x, int) and isinstance(y, int):
        return x ^ y
    if y == 0 or x == 0:
        return y if x == 0 else x
    return _function(x, y)      # an inversion (x ^ 1) is a function of one bit, a LUT of its own


def _bit_not(x):
    return 1 - x if isinstance(x, int) else _function(x)


def _bit_any(bits):
    if any(bit == 1 for bit in bits):
        return 1
    variable = [bit for bit in bits if not isinstance(bit, int)]
    if not variable:
        return 0
    return variable[0] if len(variable) == 1 else _function(*variable)


def _extended(bits, shape, width):
    # An operand's bits as Amaranth widens (sign or zero extension) or truncates it to `width`.
    bits = tuple(bits)[:width]
    fill = bits[-1] if shape.signed and bits else 0
    return bits + (fill,) * (width - len(bits))


def _bitwise_bits(function):
    def bits(op, a, b):
        width = op.shape.width
        a, b = (_extended(v, operand.shape, width) for v, operand in zip((a, b), op.operands))
        return tuple(function(x, y) for x, y in zip(a, b))
    return bits


def _shift_bits(direction):
    def bits(op, a, amount):
        if op.operands[1].kind != "const":
            return None     # a barrel shifter: a source
        shift, width, shape = op.operands[1].attrs["value"], op.shape.width, op.operands[0].shape
        if direction > 0:
            return (0,) * min(shift, width) + _extended(a, shape, max(0, width - shift))
        return _extended(a, shape, width + shift)[shift:shift + width]
    return bits


def _invert_bits(op, a):
    return tuple(_bit_not(bit) for bit in _extended(a, op.operands[0].shape, op.shape.width))


def _truth_bits(negate):
    def bits(op, a):
        any_set = _bit_any(a)
        return ((_bit_not(any_set) if negate else any_set),) + (0,) * (op.shape.width - 1)
    return bits


def _logical_bits(function):
    def bits(op, a, b):
        return (function(_bit_any(a), _bit_any(b)),) + (0,) * (op.shape.width - 1)
    return bits


def _select_bits(op, c, a, b):
    width = op.shape.width
    choose = _bit_any(c)
    a, b = _extended(a, op.operands[1].shape, width), _extended(b, op.operands[2].shape, width)
    if isinstance(choose, int):
        return a if choose else b
    # Equal constants or the same wire need no multiplexer; two functions of the same bits
    # may differ (x and ~x), so they do.
    return tuple(x if x == y and not isinstance(x, frozenset) else _function(choose, x, y) for x, y in zip(a, b))


def _const_bits(op):
    value = op.attrs["value"]
    return tuple((value >> index) & 1 for index in range(op.shape.width))


def _wrap_bits(op, a):
    return _extended(a, op.operands[0].shape, op.shape.width)


# -- delay formulas over a device model ------------------------------------------------------

def _widest(width, operand_widths):
    return max((width, *operand_widths), default=width)


def _carry_logic(model, width, operand_widths):
    return model.carry(_widest(width, operand_widths))


def _abs_logic(model, width, operand_widths):
    # Conditional negation: the carry chain and a LUT level selecting it.
    return model.carry(_widest(width, operand_widths)) + model.lut


def _compare_logic(model, width, operand_widths):
    # A subtraction on the carry chain and its sign.
    return model.carry(_widest(width, operand_widths)) + model.compare_sign


def _min_max_logic(model, width, operand_widths):
    # The comparison and the select behind it.
    return _compare_logic(model, width, operand_widths) + model.lut


def _reduction_logic(model, width, operand_widths):
    # A reduction tree of LUT4s, log4(2 * width) levels; packed tightly, so its levels
    # route faster than a general LUT level (ECP5's 32-bit equality: 3.9 ns in total).
    return model.reduction(2 * max(1, _widest(width, operand_widths)))


def _lut_logic(model, width, operand_widths):
    return model.lut


def _shift_logic(model, width, operand_widths):
    # Constant shifts are wires; variable shifts are a barrel shifter of log2(width) mux levels.
    if len(operand_widths) == 2 and operand_widths[1] == 0:
        return 0.0
    return model.lut * max(1, math.ceil(math.log2(max(2, _widest(width, operand_widths)))))


def _mul_logic(model, width, operand_widths):
    # About log2(2 x narrow width) carry chains of the product's width: synthesis sums the
    # partial products in a compressor tree whose depth grows with the narrow width smoothly,
    # not in whole levels at powers of two (image.sobel's 14 x 14 square measured 10.65 ns
    # register to register, where ceil(log2(15)) = 4 chains said 9.8).  Equal to the
    # calibrated ceil(log2(narrow + 1)) at powers of two (8x8, 16x8, 16x16).
    a, b = (tuple(operand_widths) + (width, width))[:2]
    narrow = max(1, min(a, b))
    return model.multiplier_chain(a + b) * max(1.0, math.log2(2 * narrow)) + model.lut


def _mul_constant_delay(model, width, constant):
    # Synthesis turns a multiplication by a constant into shifts and one adder per extra
    # set bit of the constant (3 * x is x + (x << 1)).
    adders = max(bin(abs(constant)).count("1") - 1, 0)
    return adders * OPERATORS["add"].delay(model, width, (width,))


def _divider_logic(model, width, operand_widths):
    # One carry chain and the device's LUT levels (three on ECP5) per quotient bit.
    dividend = operand_widths[0] if operand_widths else width
    return (model.carry(_widest(width, operand_widths)) + model.divider_row_luts * model.lut) * max(1, dividend)


def _divider_constant_delay(model, width, constant):
    # Only a division by 0 or by a positive power of two is timed by this rule (the
    # divider's unit_timing gives every other constant the pipelined divider): wiring.
    if constant == 0 or (constant > 0 and not constant & (constant - 1)):
        return 0.0
    return _divider_logic(model, width, (width,)) + model.routing_hop


def _forward_delay(model, op):
    # Compare the load's address with each forwarded store's, then a multiplexer per store.
    # A predicated store's hit is valid AND predicate AND the address match: one more LUT
    # level, fed from the stage II cycles down the pipeline (insertion_sort's critical path:
    # valid and predicate through two LUT levels into the multiplexer, then the comparison;
    # 10.2 ns where the match alone said 9.6).  An unpredicated store's valid bit joins the
    # match's reduction tree.
    address = op.operands[1].shape.width
    gated = any(store.predicate is not None for store in op.attrs["stores"])
    return (OPERATORS["eq"].delay(model, 1, (address, address)) + (model.lut if gated else 0.0)
            + OPERATORS["select"].delay(model, op.shape.width) * len(op.attrs["stores"]))


# -- pipelined lowerings ---------------------------------------------------------------------

def _sign_tag(shape) -> str:
    return f"{'s' if shape.signed else 'u'}{shape.width}"


@dataclass(frozen=True)
class _DigitPlan:
    """A multiplier as partial products of digits, each a product synthesis maps itself."""

    split: int          # the operand cut into digits (the narrower one)
    digit: int          # bits per digit
    digits: int
    per_cycle: int      # adder-tree levels chained in one cycle
    latency: int        # the digit products' register, then one per `per_cycle` levels
    incoming_delay: float


#: The most partial-product rows that each number of stages of 3:2 compressors reduces to
#: the two rows of the final adder (Wallace's sequence from 2, ``h -> floor(3h / 2)``), after
#: the one row that needs no adder: Yosys' ``maccmap`` sums a product's rows in such a tree,
#: so ``n`` rows take the stages of the first height here that is at least ``n``.
_COMPRESSOR_HEIGHTS = (1, 2, 3, 4, 6, 9, 13, 19, 28, 42, 63, 94, 141)


def _rows_of_stage(rows: int) -> int:
    """The most rows that take the compressor stages of ``rows`` rows (9 for 7, 8 and 9)."""
    return next((height for height in _COMPRESSOR_HEIGHTS if height >= rows), rows)


def _digit_product_delay(model, other: int, digit: int) -> float:
    """A digit product ``other x digit`` as the multiplier formula gives it for the most rows
    that take its compressor stages (:func:`_rows_of_stage`): a digit of 7 rows has the
    stages of one of 9, and places as slowly (image.sobel_stream's 14 x 7 digit products
    for 115.4 MHz: 9.07-9.38 ns register to register in ten placements, where the formula at
    7 rows said 8.58; the 16 x 8 and 17 x 8 ones at 100 MHz: 8.17-9.69, said 9.26 and 9.40)."""
    rows = _rows_of_stage(digit)
    return OPERATORS["mul"].delay(model, other + rows, (other, rows))


@functools.lru_cache(maxsize=None)
def _digit_plan(model, period: float, a: Shape, b: Shape) -> _DigitPlan | None:
    """The fewest digits whose product ``other x digit`` fits ``period`` by the device model
    (calibrated on synthesis' own multipliers; a digit charged for its compressor stages,
    :func:`_digit_product_delay`), or ``None`` where even an adder of the product's width, or
    a 1-bit digit's product, does not fit."""
    width = a.width + b.width
    add = OPERATORS["add"].delay(model, width, (width, width))
    split = 1 if b.width <= a.width else 0
    cut, other = (b, a) if split else (a, b)
    if add > period or cut.width < 2:
        return None
    for digit in range(cut.width - 1, 0, -1):
        if _digit_product_delay(model, other.width, digit) <= period:
            digits = -(-cut.width // digit)
            digit = -(-cut.width // digits)     # as many digits, balanced: each product shorter
            product = _digit_product_delay(model, other.width, digit)
            levels = max(1, math.ceil(math.log2(digits)))
            per_cycle = max(1, int(period // add))
            return _DigitPlan(split, digit, digits, per_cycle, 1 + -(-levels // per_cycle), product)
    return None


def _multiplier_timing(model, period, shapes, constants):
    """A multiplier slower than a period: partial products of digits over registered stages
    (:func:`_digit_plan`), or where no digit fits, the library's exact multiplier pipelined
    to the clock (:func:`hls.unit_operators.multiplier_plan`).

    Within a period (by the device model's formula, with a constant folded in) it stays
    one combinational ``a * b`` for synthesis to map; two constants fold to a constant.
    """
    a, b = shapes
    if constants[0] is not None and constants[1] is not None:
        return Timing(0, 0.0)
    known = [value for value in constants if value is not None]
    entry = OPERATORS["mul"]
    combinational = entry.delay(model, a.width + b.width, (a.width, b.width), known[0] if known else None)
    if combinational <= period:
        return None
    type_name = f"mul_{_sign_tag(a)}_{_sign_tag(b)}"
    plan = _digit_plan(model, period, a, b)
    if plan is not None:
        return Timing(plan.latency, plan.incoming_delay, 0.0, type_name=type_name,
                      description=f"multiplier in {plan.digits} partial products of {plan.digit}-bit digits "
                                  f"pipelined in {plan.latency} stages", slowest=plan.incoming_delay)
    # hls.unit_operators loads approx_units (and numpy): only kernels with a slow multiplier need it.
    from ..unit_operators import multiplier_plan
    plan = multiplier_plan(a, b, period, model)
    return _unit_timing(plan, period, type_name, model.routing_hop)


def _unit_timing(plan, period, type_name, routing):
    """The scheduler's view of a pipelined unit's ``plan`` (:class:`hls.unit_operators.UnitPlan`),
    chosen with ``routing`` ns added to each segment."""
    return Timing(plan.stages, min(plan.incoming_delay, period), min(plan.outgoing_delay, period),
                  type_name=type_name, description=plan.description,
                  slowest=max(plan.segment_delays) + routing)


def _digit_multiplier(lowering: Lowering, plan: _DigitPlan, a: Value, b: Value):
    """``a * b`` as :func:`_digit_plan` says: the digit products registered in the start
    cycle, summed by a balanced adder tree registered every ``per_cycle`` levels.

    ``a * b == sum(other * digit_i << (i * k))`` modulo ``2**width`` with the digits the
    ``k``-bit slices of the cut operand, unsigned except the top one of a signed operand.
    """
    m = lowering.module
    shape = OPERATORS["mul"].shape(a.shape(), b.shape())
    width = shape.width
    cut, other = (b, a) if plan.split else (a, b)
    terms = []
    for index in range(plan.digits):
        low = index * plan.digit
        digit = cut[low:low + plan.digit]
        if low + plan.digit >= len(cut) and cut.shape().signed:
            digit = cut[low:].as_signed()
        term = Signal(width, name=f"{lowering.name}_pp{index}")
        m.d.sync += term.eq((other * digit) << low)
        terms.append(term)
    level = 0
    while len(terms) > 1:
        paired = [(x + y)[:width] for x, y in zip(terms[::2], terms[1::2])] + terms[len(terms) // 2 * 2:]
        level += 1
        if level % plan.per_cycle == 0 or len(paired) == 1:
            registered = []
            for index, value in enumerate(paired):
                stage = Signal(width, name=f"{lowering.name}_s{level}_{index}")
                m.d.sync += stage.eq(value)
                registered.append(stage)
            paired = registered
        terms = paired
    product = Signal(shape, name=lowering.name)
    m.d.comb += product.eq(terms[0])
    return product


def _pipelined_multiplier(lowering: Lowering, operands):
    a, b = (Value.cast(operand) for operand in operands)
    target = lowering.target
    plan = _digit_plan(target.delay_model, target.usable_period_ns, a.shape(), b.shape())
    if plan is not None and plan.latency == lowering.latency:
        return plan.latency, _digit_multiplier(lowering, plan, a, b)
    # hls.unit_operators loads approx_units (and numpy): only kernels with a slow multiplier need it.
    from ..unit_operators import multiplier_value
    return lowering.latency, multiplier_value(lowering.module, lowering.name, a, b, lowering.latency,
                                              lowering.valid(0), target.delay_model)


def _divider_timing(model, period, shapes, constants):
    """A division: the library's exact divider, pipelined to the clock.

    By a constant too (synthesis folds the divisor into the divider's rows, so the
    variable divider's timing is an upper bound), except by 0 or a positive power of
    two, which are wiring (:func:`_floordiv_value`), and when both operands are constants.
    """
    dividend, divisor = constants
    if divisor is not None and (dividend is not None or divisor == 0
                                or (divisor > 0 and not divisor & (divisor - 1))):
        return None
    # hls.unit_operators loads approx_units (and numpy): only kernels that divide by a variable need it.
    from ..unit_operators import divider_plan
    a, b = shapes
    plan = divider_plan(a, b, period, model)
    return _unit_timing(plan, period, f"div_{_sign_tag(a)}_{_sign_tag(b)}", model.routing_hop)


def _pipelined_divider(part):
    def lower(lowering: Lowering, operands):
        a, b = operands
        if isinstance(b, int):
            return None
        # hls.unit_operators loads approx_units (and numpy): only kernels that divide by a variable need it.
        from ..unit_operators import divider_value
        a, b = Value.cast(a), Value.cast(b)
        results = divider_value(lowering.module, lowering.name, a, b, lowering.latency, lowering.valid(0),
                                lowering.target.delay_model)
        return lowering.latency, results[part]
    return lower


# -- approximate units chosen per operation (hls.approx) -------------------------------------
# The operation's attrs["unit"] is an hls.approx.UnitChoice; hls.unit_operators builds it.

#: In a typed body an approximate unit operation is ``ast.Call(func=Name(APPROX_CALL), args=[a, b])``,
#: with its :class:`hls.approx.UnitChoice` under the attribute ``APPROX_ATTR`` and the user's text of
#: the operation (``x[i] * y[i]``, or the ``hls.approx.mul(...)`` call) under ``TEXT_ATTR``.
APPROX_CALL = "__hls_approx"
APPROX_ATTR = "hls_unit"
TEXT_ATTR = "hls_text"
#: Attribute under which the front end stores, on each operation ``approx=`` may replace (an exact
#: ``ast.BinOp`` or the unit call that replaced it), its :attr:`hls.frontend.typed.Operation.key`;
#: on an ``hls.approx`` call, the :attr:`hls.frontend.typed.ApproxSite.key` of the call.  The IR
#: builder records it on the operations it builds from the node (:attr:`hls.ir.nodes.Op.operations`).
OPERATION_ATTR = "hls_operation"
#: On an assignment ``var = counter`` made by :mod:`hls.frontend.flatten`: the loop's
#: ``(start, stop, step, depth, length)`` (expressions, ints; depth 0 is the nest's outermost level;
#: ``length``: the flattened iterations each iteration of the loop takes, when that is one constant,
#: else ``None``), so the IR builder knows ``var``'s range, the levels around it and where their
#: iterations start (:attr:`hls.analysis.values.Counter.length`).
COUNTER_ATTR = "hls_counter"
#: On an ``if`` made by :mod:`hls.frontend.flatten`: ``(depth, positions)``, its body runs only in the
#: first (``"first"`` in ``positions``) or the last (``"last"``) iteration of the flattened loop of
#: each iteration of the level at ``depth`` (``hls.analysis.values.ValueAnalysis.add_position``).
POSITION_ATTR = "hls_position"
#: A stream read in a typed body is ``x = STREAM_READ(s)`` (an ``ast.Call`` of this name on the
#: stream parameter's ``ast.Name``), a write the statement ``STREAM_WRITE(o, value)``.
STREAM_READ = "__hls_stream_read"
STREAM_WRITE = "__hls_stream_write"


def stream_call(node) -> tuple[str, str] | None:
    """``("read", stream)`` for a typed stream read's call, ``("write", stream)`` for a write's, else ``None``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (STREAM_READ, STREAM_WRITE):
        return ("read" if node.func.id == STREAM_READ else "write"), node.args[0].id
    return None

def _approx_timing(model, period, shapes, attrs):
    """An approximate unit, pipelined to the clock: the fewest stages whose segments fit."""
    # hls.unit_operators loads approx_units (and numpy): only kernels with units need it.
    from ..unit_operators import approx_plan
    choice = attrs["unit"]
    a, b = (Shape.cast(shape) for shape in shapes)
    routing = model.unit_routing(choice.unit)
    plan = approx_plan(choice, a, b, period, model)
    return _unit_timing(plan, period, f"{choice.kind}:{choice.label}_{'s' if a.signed else 'u'}{a.width}_"
                                      f"{'s' if b.signed else 'u'}{b.width}", routing)


def _approx_build(lowering: Lowering, operands):
    # hls.unit_operators loads approx_units (and numpy): only kernels with units need it.
    from ..unit_operators import approx_value
    a, b = (Value.cast(operand) for operand in operands)
    return approx_value(lowering.module, lowering.name, lowering.attrs["unit"], a, b, lowering.latency,
                        lowering.valid(0), lowering.target.delay_model)


def _approx_golden(shapes, attrs):
    # hls.unit_operators loads approx_units (and numpy): only kernels with units need it.
    from ..unit_operators import approx_golden
    return approx_golden(attrs["unit"], *shapes)


def _approx_resource(limited, op):
    a, b = (operand.shape for operand in op.operands)
    return (f"{limited}:{op.attrs['unit'].label}_{'s' if a.signed else 'u'}{a.width}_"
            f"{'s' if b.signed else 'u'}{b.width}")


_APPROX_UNIT = UnitOperator(_approx_timing, _approx_build, _approx_golden, _approx_resource)


def _approx_kind(kind: str) -> str:
    return f"approx_{kind}"


def _approx(kind, description, limited_by):
    # No lowering, syntax or golden of its own: the shape is the exact operator's, the rest the unit's.
    return Operator(_approx_kind(kind), 2, description=f"approximate {description}", limited_by=limited_by,
                    unit=_APPROX_UNIT)


# -- the table -------------------------------------------------------------------------------

def _pure(function):
    """A transfer function that is ``function`` of the operands' abstract values alone."""
    return lambda op, facts, *values: function(*values)


def _binary(kind, syntax, function, logic, c_form, **more):
    # Python's operator means the same on abstract values (hls.analysis.values.Value).
    return Operator(kind, 2, syntax=syntax, lowering=function, golden=_same(function), python_inline=True,
                    logic=logic, transfer=_pure(function), c_form=c_form, **more)


def _compare(kind, syntax, function, logic, c_symbol, **more):
    # Amaranth gives a 1-bit value, Python a bool: the golden model wraps it in int() (and C in V).
    return Operator(kind, 2, syntax=syntax, lowering=function,
                    golden=_same(lambda left, right: int(function(left, right))), python_inline=True,
                    logic=logic, transfer=_pure(lambda left, right: left.compared(right, function)),
                    c_form=_c(f"((V)(({{0}}) {c_symbol} ({{1}})))"), **more)


_ENTRIES = [
    # Arithmetic and bitwise: Python's operators on ints mean what Amaranth's widened ones do.
    _binary("add", (ast.Add,), operator.add, _carry_logic, _c("(({0}) + ({1}))"), carry_input=True,
            merged_sum=True),
    _binary("sub", (ast.Sub,), operator.sub, _carry_logic, _c("(({0}) - ({1}))"), carry_input=True,
            merged_sum=True),
    # Slower than a period: the library's exact multiplier pipelined to the clock (hls.unit_operators).
    _binary("mul", (ast.Mult,), operator.mul, _mul_logic, _c("(({0}) * ({1}))"), constant_delay=_mul_constant_delay,
            limited_by=("mul",), description="multiplier", unit_timing=_multiplier_timing,
            pipelined=_pipelined_multiplier, pipelined_description="the library's exact multiplier, pipelined"),
    # The library's exact divider pipelined to the clock (hls.unit_operators); by 0 or a power of two: wiring.
    Operator("floordiv", 2, syntax=(ast.FloorDiv,), lowering=_floordiv_value, golden=_same(_floordiv),
             transfer=_pure(operator.floordiv), c_form=_c("h_floordiv({0}, {1})"), logic=_divider_logic, constant_delay=_divider_constant_delay, limited_by=("div", "floordiv"),
             description="divider", unit_timing=_divider_timing, pipelined=_pipelined_divider(0),
             pipelined_description="the library's exact divider, pipelined"),
    Operator("mod", 2, syntax=(ast.Mod,), lowering=_mod_value, golden=_same(_mod),
             transfer=_pure(operator.mod), c_form=_c("h_mod({0}, {1})"), logic=_divider_logic, constant_delay=_divider_constant_delay, limited_by=("div", "mod"),
             description="divider", unit_timing=_divider_timing, pipelined=_pipelined_divider(1),
             pipelined_description="the library's exact divider, pipelined"),
    _binary("shl", (ast.LShift,), operator.lshift, _shift_logic, _c("h_shl({0}, {1})"), constant_operands=(1,), bits=_shift_bits(1)),
    _binary("shr", (ast.RShift,), operator.rshift, _shift_logic, _c("h_shr({0}, {1})"), constant_operands=(1,), bits=_shift_bits(-1)),
    _binary("and", (ast.BitAnd,), operator.and_, _lut_logic, _c("(({0}) & ({1}))"), bits=_bitwise_bits(_bit_and)),
    _binary("or", (ast.BitOr,), operator.or_, _lut_logic, _c("(({0}) | ({1}))"), bits=_bitwise_bits(_bit_or)),
    _binary("xor", (ast.BitXor,), operator.xor, _lut_logic, _c("(({0}) ^ ({1}))"), bits=_bitwise_bits(_bit_xor)),
    _compare("lt", (ast.Lt,), operator.lt, _compare_logic, "<", carry_input=True),
    _compare("le", (ast.LtE,), operator.le, _compare_logic, "<=", carry_input=True),
    _compare("gt", (ast.Gt,), operator.gt, _compare_logic, ">", carry_input=True),
    _compare("ge", (ast.GtE,), operator.ge, _compare_logic, ">=", carry_input=True),
    _compare("eq", (ast.Eq,), operator.eq, _reduction_logic, "=="),
    _compare("ne", (ast.NotEq,), operator.ne, _reduction_logic, "!="),
    # min(a, b) picks a on a tie, as Python's does.
    Operator("min", 2, syntax=(min,), lowering=lambda a, b: Mux(b < a, b, a), golden=_same(min),
             transfer=_pure(lambda a, b: a.minimum(b)), logic=_min_max_logic, c_form=_c("h_min({0}, {1})"),
             carry_input=True, select_input=True),
    Operator("max", 2, syntax=(max,), lowering=lambda a, b: Mux(b > a, b, a), golden=_same(max),
             transfer=_pure(lambda a, b: a.maximum(b)), logic=_min_max_logic, c_form=_c("h_max({0}, {1})"),
             carry_input=True, select_input=True),
    # `a and b` is a 1-bit truth value in the kernel language; the golden model keeps
    # Python's short-circuit (a guard `i < n and a[i] > 0` must not read a[n]).
    Operator("land", 2, syntax=(ast.And,), lowering=lambda a, b: a.bool() & b.bool(),
             golden=_same(lambda a, b: int(bool(a) and bool(b))), python_inline=True, logic=_lut_logic,
             transfer=_pure(lambda a, b: a.truth().minimum(b.truth())), bits=_logical_bits(_bit_and)),
    Operator("lor", 2, syntax=(ast.Or,), lowering=lambda a, b: a.bool() | b.bool(),
             golden=_same(lambda a, b: int(bool(a) or bool(b))), python_inline=True, logic=_lut_logic,
             transfer=_pure(lambda a, b: a.truth().maximum(b.truth())), bits=_logical_bits(_bit_or)),
    Operator("neg", 1, syntax=(ast.USub,), lowering=operator.neg, golden=_same(operator.neg),
             python_inline=True, logic=_carry_logic, transfer=_pure(operator.neg), c_form=_c("(-({0}))"),
             carry_input=True),
    Operator("invert", 1, syntax=(ast.Invert,), lowering=operator.invert, golden=_invert, logic=_lut_logic,
             transfer=_invert_transfer, c_form=_invert_c, bits=_invert_bits),
    Operator("not", 1, syntax=(ast.Not,), lowering=lambda a: ~a.bool(), golden=_same(lambda a: int(not a)),
             logic=_reduction_logic, transfer=_pure(lambda a: a.truth(negate=True)), c_form=_c("((V)!({0}))"),
             bits=_truth_bits(True)),
    Operator("bool", 1, lowering=lambda a: a.bool(), golden=_same(lambda a: int(bool(a))),
             logic=_reduction_logic, transfer=_pure(lambda a: a.truth()), bits=_truth_bits(False)),
    Operator("abs", 1, syntax=(abs,), lowering=abs, golden=_same(abs), logic=_abs_logic,
             transfer=_pure(abs), c_form=_c("h_abs({0})"), carry_input=True),
    # The golden model keeps `b if c else e`: only the branch taken is evaluated, as a guard needs.
    Operator("select", 3, syntax=(ast.IfExp,), lowering=Mux, golden=_same(lambda c, a, b: a if c else b),
             python_inline=True, logic=_lut_logic, transfer=_pure(lambda c, a, b: c.choose(a, b)),
             bits=_select_bits),
    # Approximate units of approx_units, one chosen per operation (hls.approx, @hls.kernel(approx=...)).
    _approx("mul", "multiplier", ("mul",)),
    _approx("add", "adder", ()),
    _approx("sub", "subtractor", ()),        # an adder on ~a and b, inverted
    _approx("div", "divider", ("div", "floordiv")),
    _approx("mod", "remainder", ("div", "mod")),   # a - q*b with a divider's quotient q
    # Structural kinds: built by the back end itself, each by the builder its placement names.
    Operator("const", 0, "wire", description="constant",
             transfer=lambda op, facts: facts.constant(op.attrs["value"]), bits=_const_bits, placement="const"),
    Operator("live_in", 0, "wire", description="variable read", transfer=lambda op, facts: facts.variable(op),
             variable="read", placement="live_in"),
    Operator("induction", 0, "wire", description="loop counter", transfer=lambda op, facts: facts.counter(op),
             placement="induction"),
    Operator("wrap", 1, "wire", description="conversion to the assigned shape",
             transfer=lambda op, facts, value: value.wrapped(op.shape), bits=_wrap_bits, placement="wrap"),
    Operator("commit", 1, "register", description="variable register", variable="write", placement="commit"),
    Operator("carry", 1, "carry", description="loop-carried value", variable="write", placement="carry"),
    Operator("exit", 1, "exit", description="loop exit", placement="exit"),
    Operator("load", 1, "memory", description="read port", port="read", placement="load"),
    Operator("store", 2, "memory", description="write port", port="write", placement="store"),
    Operator("stream_read", 0, "stream", description="stream read", port="read", placement="stream_read"),
    Operator("stream_write", 1, "stream", description="stream write", port="write", placement="stream_write"),
    Operator("forward", 2, description="store-to-load forwarding", op_delay=_forward_delay,
             type_name=lambda op: f"forward{len(op.attrs['stores'])}x{op.shape.width}", reads_operations="stores",
             placement="forward"),
]

#: Every operator the compiler knows, by ``Op.kind``.
OPERATORS: dict[str, Operator] = {entry.kind: entry for entry in _ENTRIES}

_BY_SYNTAX = {syntax: entry for entry in _ENTRIES for syntax in entry.syntax}


def operator_of(kind: str) -> Operator:
    """The table entry of IR kind ``kind``.

    Raises
    ------
    UnknownOperatorError
        (a ``ValueError``) naming the kind and the known ones.
    """
    try:
        return OPERATORS[kind]
    except (KeyError, TypeError):
        raise UnknownOperatorError(f"no operator {kind!r} in the operator table (hls.ir.ops); "
                                   f"known: {', '.join(OPERATORS)}") from None


def approx_operator(kind: str) -> Operator:
    """The table entry of the operations of an approximate unit of ``kind`` (``"mul"``, ``"add"``,
    ``"sub"``, ``"div"``, ``"mod"``: :data:`hls.approx.KINDS`; a unit's ``UnitChoice.kind``).

    Raises
    ------
    UnknownOperatorError
        For a kind no approximate entry has.
    """
    return operator_of(_approx_kind(kind))


def operator_for_syntax(syntax) -> Operator | None:
    """The entry a Python operator node type (``ast.Add``) or builtin (``min``) becomes, or ``None``."""
    try:
        return _BY_SYNTAX.get(syntax)
    except TypeError:   # an unhashable value is no operator
        return None


def covering_shape(shapes) -> Shape:
    """The narrowest shape holding every value of every one of ``shapes`` (a shared instance's input)."""
    shapes = [Shape.cast(shape) for shape in shapes]
    if any(shape.signed for shape in shapes):
        return Shape(max(shape.width + (0 if shape.signed else 1) for shape in shapes), signed=True)
    return Shape(max(shape.width for shape in shapes), signed=False)


def limitable_resources() -> dict[str, tuple[str, ...]]:
    """Names ``resources=`` accepts, each with the IR kinds it limits (in table order)."""
    names: dict[str, tuple[str, ...]] = {}
    for entry in OPERATORS.values():
        for name in entry.limited_by:
            names[name] = names.get(name, ()) + (entry.kind,)
    return names
