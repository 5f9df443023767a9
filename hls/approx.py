"""Approximate units of :mod:`approx_units` as operators of the kernel language.

Two ways in, one meaning (``docs/language.md``, "Approximate operators"):

* per call, inside a kernel body::

      p = hls.approx.mul(a, b, unit="mitchell_refined")
      s = hls.approx.add(x, y, unit="loa", l=4)
      q = hls.approx.div(x, d, unit="mitchell_div_refined", index_bits=3)
      e = hls.approx.sub(x, y, unit="loa", l=4)           # an adder on x + ~y, inverted
      r = hls.approx.mod(x, d, unit="mitchell_div")       # x - q*d with the divider's quotient q

* per kernel, ``@hls.kernel(approx={"mul": ("drum", {"k": 6}), "div": "mitchell_div_refined"})``
  replaces every ``*`` / ``//`` / ``+`` of the kernel (inlined helpers included)
  whose operands are both not constants (``"sub"`` every ``-`` by an adder unit, ``"mod"``
  every ``%`` by a divider unit: :data:`UNIT_KIND`);

* per operation, ``@hls.kernel(approx={"image.py:44:32": ("drum", {"k": 4})})``
  replaces the one operation written at that file (base name), line and column
  (:func:`operation_key`; ``axhls report`` and :attr:`hls.frontend.TypedKernel.operations`
  list them), whatever the kind keys say; the unit's kind must be the operation's.

Either way the operation becomes one instance of the unit at the operand widths
(:func:`hls.unit_operators.approx_unit`), timed, pipelined and built through the operator
table's ``approx_<kind>`` entries (``approx_mul``, ``approx_add``, ``approx_sub``, ``approx_div``, ``approx_mod``), and the golden
model runs the unit's bit-exact model (so ``sim.run`` still matches the Python run
exactly, and the Python run is the application-level quality model).

Called from plain Python (outside a kernel), :func:`mul`, :func:`add`, :func:`sub`, :func:`div` and :func:`mod`
compute the same value for operands of the narrowest shapes that hold them (the
shapes a kernel gives integer literals).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

__all__ = ["UnitChoice", "KINDS", "EXACT_OPERATOR", "VERILOG_UNIT", "verilog_circuit", "verilog_choice", "choice", "approx_mapping", "allowed_at_no_width", "mul", "add", "sub", "div", "mod", "UNIT_KIND", "as_kind",
           "FIXED_PARAMETERS", "operation_key", "is_operation_key"]

#: The operators a unit may replace: kind -> the kernel operator it stands for.
KINDS = {"mul": "*", "add": "+", "sub": "-", "div": "//", "mod": "%"}

#: kind -> the operator table's entry (:func:`hls.ir.ops.operator_of`) of the exact operation that a
#: unit of that kind replaces: its syntax, shape and golden function are the exact operator's.
EXACT_OPERATOR = {"mul": "mul", "add": "add", "sub": "sub", "div": "floordiv", "mod": "mod"}

#: kind -> the kind of the library's units (``approx_units`` ``UnitSpec.kind``) it is built on: a ``-``
#: on an adder (``a - b == ~(~a + b)``), a ``%`` on a divider (``a - q*b`` with the unit's quotient ``q``;
#: :func:`hls.unit_operators.approx_unit`).
UNIT_KIND = {"mul": "mul", "add": "add", "sub": "add", "div": "div", "mod": "div"}

#: The unit id of a third-party circuit: ``("verilog", {"file": "circuits/mul8u_2NDH.v"})``, the
#: file's module (its base name) read as ``axhls units survey`` reads it
#: (:func:`approx_units.verilog_eval.load_circuit`: its kind and signedness from its EvoApproxLib name,
#: else from its behaviour), used at its port widths; ``"signed": True`` or ``False`` in the parameters
#: declares its signedness.
VERILOG_UNIT = "verilog"

#: Parameters the compiler sets itself: the operand shapes decide signedness and
#: widths, and ``//`` is an integer quotient (``frac_bits=0``).
FIXED_PARAMETERS = {"signed": "the operand shapes decide signedness",
                    "width": "the operand widths decide it", "width_b": "the operand widths decide it",
                    "stages": "the compiler pipelines the unit to the clock",
                    "frac_bits": "// gives an integer quotient, so frac_bits is 0"}


@dataclass(frozen=True)
class UnitChoice:
    """One unit of :mod:`approx_units` chosen for one kind of operation.

    Attributes
    ----------
    kind : str
        The operation: ``"mul"``, ``"add"``, ``"sub"``, ``"div"`` or ``"mod"`` (:data:`KINDS`).
    unit : str
        The unit id (``approx_units.names()``), of the unit kind the operation is built on
        (:data:`UNIT_KIND`: an adder for ``"sub"``, a divider for ``"mod"``).
    params : tuple of (str, int)
        The unit's parameters as given, sorted by name (defaults are the unit's own,
        at the operand widths).
    """

    kind: str
    unit: str
    params: tuple = ()

    @property
    def unit_kind(self) -> str:
        """The kind of the library's units the operation is built on (:data:`UNIT_KIND`): ``"add"`` for
        ``"sub"``, ``"div"`` for ``"mod"``, else the kind itself."""
        return UNIT_KIND[self.kind]

    @property
    def label(self) -> str:
        """``drum(k=6)``, or ``mitchell`` without parameters; ``verilog:MODULE`` for a circuit's file
        (``verilog:MODULE(signed)`` or ``(unsigned)`` when its signedness is given)."""
        if self.unit == VERILOG_UNIT:
            module = os.path.splitext(os.path.basename(self.file))[0]
            given = self.circuit_signed
            return f"verilog:{module}" if given is None else \
                f"verilog:{module}({'signed' if given else 'unsigned'})"
        shown = ", ".join(f"{name}={value}" for name, value in self.params)
        return f"{self.unit}({shown})" if shown else self.unit

    @property
    def file(self) -> str | None:
        """A third-party circuit's Verilog file (``unit == "verilog"``), else ``None``."""
        return dict(self.params).get("file") if self.unit == VERILOG_UNIT else None

    @property
    def circuit_signed(self) -> bool | None:
        """A third-party circuit's signedness as given (``"signed"`` in its parameters), else ``None``:
        its name or its behaviour decides (:func:`approx_units.verilog_eval.load_circuit`)."""
        return dict(self.params).get("signed") if self.unit == VERILOG_UNIT else None

    def to_json(self) -> dict:
        return {"kind": self.kind, "unit": self.unit, "params": dict(self.params)}


_OPERATION_KEY = re.compile(r"^[^:/\\]+:[1-9][0-9]*:[1-9][0-9]*$")


def operation_key(filename: str, lineno: int, col: int) -> str:
    """The ``approx=`` key of the operation at ``filename`` (its base name is used), ``lineno``, ``col``
    (1-based): ``"image.py:44:32"``."""
    return f"{os.path.basename(filename)}:{lineno}:{col}"


def is_operation_key(key) -> bool:
    """Whether ``key`` has the form of :func:`operation_key` (``FILE:LINE:COL``)."""
    return isinstance(key, str) and _OPERATION_KEY.match(key) is not None


def _article(kind: str) -> str:
    return f"an {kind}" if kind == "add" else f"a {kind}"


def _units_of(kind: str) -> list[str]:
    """The library's units an operation of ``kind`` may take (adders for ``"sub"``, dividers for ``"mod"``)."""
    # approx_units loads numpy: only kernels that name a unit need it.
    from approx_units.registry import names, spec
    return [name for name in names() if spec(name).kind == UNIT_KIND[kind]]


def as_kind(selected: UnitChoice, kind: str) -> UnitChoice:
    """``selected`` on an operation of ``kind``, whose units are of the same unit kind (a per-operation
    ``approx=`` key takes its kind from the operation: an adder named for a ``-`` is a ``"sub"``)."""
    if selected.kind == kind:
        return selected
    if UNIT_KIND[selected.kind] != UNIT_KIND[kind]:
        raise ValueError(f"{selected.label} is {_article(UNIT_KIND[selected.kind])} unit, "
                         f"not {_article(UNIT_KIND[kind])} unit")
    return UnitChoice(kind, selected.unit, selected.params)


def choice(kind: str, unit, params: dict | None = None, *, where: str = "") -> UnitChoice:
    """A checked :class:`UnitChoice`.

    Parameters
    ----------
    kind : str
        ``"mul"``, ``"add"``, ``"sub"``, ``"div"`` or ``"mod"``.
    unit : str
        The unit id: a unit of kind ``UNIT_KIND[kind]``.
    params : dict, optional
        Its integer parameters.
    where : str
        What names the option in messages (``approx={"mul": ...}``).

    A parameter's *range* is not checked here: it depends on the operand widths
    (DRUM's ``k`` is at most the width), which only the operation knows. The front
    end checks each use at its widths, and rejects a value that no width allows
    (see :func:`allowed_at_no_width`).

    Raises
    ------
    ValueError
        One line naming the bad value and the allowed ones: an unknown kind or unit,
        a unit of another kind, an unknown or fixed parameter, a value that is not
        an integer.
    """
    # approx_units loads numpy: only kernels that name a unit need it.
    from approx_units.registry import UnknownUnitError, spec
    prefix = f"{where}: " if where else ""
    if kind not in KINDS:
        raise ValueError(f"{prefix}unknown kind of operation {kind!r}; allowed: {', '.join(KINDS)}")
    if unit == VERILOG_UNIT:
        return _verilog_choice(kind, params, prefix)
    if not isinstance(unit, str):
        raise ValueError(f"{prefix}the {kind} unit must be a unit name (a str), not {unit!r}; "
                         f"allowed: {', '.join(_units_of(kind))}")
    try:
        unit_spec = spec(unit)
    except UnknownUnitError:
        raise ValueError(f"{prefix}unknown {kind} unit {unit!r}; allowed: {', '.join(_units_of(kind))}") from None
    if unit_spec.kind != UNIT_KIND[kind]:
        raise ValueError(f"{prefix}{unit!r} is {_article(unit_spec.kind)} unit, not {_article(UNIT_KIND[kind])} unit; "
                         f"allowed for {kind}: {', '.join(_units_of(kind))}")
    params = {} if params is None else params
    if not isinstance(params, dict):
        raise ValueError(f"{prefix}the parameters of {unit!r} must be a dict, not {params!r}")
    known = [p.name for p in unit_spec.params if p.name not in FIXED_PARAMETERS]
    for name, value in params.items():
        if name in FIXED_PARAMETERS:
            raise ValueError(f"{prefix}{unit!r}: {name} cannot be given ({FIXED_PARAMETERS[name]}); "
                             f"its parameters are: {', '.join(known) or '(none)'}")
        if name not in known:
            raise ValueError(f"{prefix}unit {unit!r} has no parameter {name!r}; "
                             f"its parameters are: {', '.join(known) or '(none)'}")
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{prefix}{unit!r}: {name} must be an integer, not {value!r}")
    return UnitChoice(kind, unit, tuple(sorted(params.items())))


def verilog_circuit(file: str, signed: bool | None = None, prefix: str = ""):
    """The :class:`approx_units.verilog_eval.GateNetlist` of a ``verilog`` unit's file, ``signed``
    as given (``None``: by its name, else its behaviour).

    Raises
    ------
    ValueError
        One line: the file is missing, does not parse, is not a combinational circuit, is not the
        kind its EvoApproxLib name says, or its signedness cannot be told.
    """
    # approx_units.verilog_eval runs Yosys: only a kernel with a third-party circuit needs it.
    from approx_units.verilog_eval import VerilogError, load_circuit
    try:
        return load_circuit(file, signed)
    except VerilogError as error:
        raise ValueError(f"{prefix}{' '.join(str(error).splitlines())}") from None


def verilog_choice(file: str) -> UnitChoice:
    """The :class:`UnitChoice` of the circuit in ``file`` (``("verilog", {"file": file})``), of its own kind.

    Raises
    ------
    ValueError
        As :func:`verilog_circuit`.
    """
    return _verilog_choice(None, {"file": file}, "")


def _verilog_choice(kind: str | None, params, prefix: str) -> UnitChoice:
    """``verilog`` with ``{"file": PATH}`` and optionally ``"signed": bool``: the circuit is read, and its
    kind must be ``kind`` (any if ``None``)."""
    if not isinstance(params, dict) or "file" not in params or not set(params) <= {"file", "signed"} \
            or not isinstance(params["file"], str) or not isinstance(params.get("signed", False), bool):
        raise ValueError(f"{prefix}the unit 'verilog' takes the parameters file (the circuit's .v file) and, "
                         f"optionally, signed (True or False), as ('verilog', {{'file': 'circuits/mul8u_2NDH.v'}}) "
                         f"or ('verilog', {{'file': 'circuits/mymul.v', 'signed': True}}), not {params!r}")
    circuit = verilog_circuit(params["file"], params.get("signed"), prefix)
    if kind is not None and circuit.kind != UNIT_KIND[kind]:
        raise ValueError(f"{prefix}{params['file']}: the circuit is {_article(circuit.kind)} circuit, "
                         f"not {_article(UNIT_KIND[kind])} one")
    return UnitChoice(kind or circuit.kind, VERILOG_UNIT, tuple(sorted(params.items())))


def allowed_at_no_width(selected: UnitChoice) -> str | None:
    """Why no operand width allows ``selected``'s parameters (the message at the widest
    width, which allows the most), or ``None`` when some width does.

    Cross-parameter rules such as GeAr's hold at some widths only, so every width is tried.
    """
    if selected.unit == VERILOG_UNIT:
        return None                     # its port widths bound the operands: any narrower one fits
    # approx_units loads numpy: only kernels that name a unit need it.
    from approx_units.registry import MAX_WIDTH, MIN_WIDTH, get
    fixed = {"frac_bits": 0} if UNIT_KIND[selected.kind] == "div" else {}
    first_error = None
    for width in range(MAX_WIDTH, MIN_WIDTH - 1, -1):
        try:
            get(selected.unit, width=width, **fixed, **dict(selected.params))
            return None
        except ValueError as error:
            first_error = first_error or error
    return f"{first_error} (at {MAX_WIDTH}-bit operands, the widest)"


def approx_mapping(mapping) -> dict[str, UnitChoice]:
    """The checked ``approx=`` option of ``@hls.kernel``: kind or operation key -> :class:`UnitChoice`.

    ``None`` and ``{}`` mean exact arithmetic.  A key is a kind (``"mul"``) or an
    operation key (``"image.py:44:32"``, :func:`operation_key`), whose unit's kind
    is the unit's own (a :class:`UnitChoice`'s kind as given); the front end puts it
    on the operation's kind (:func:`as_kind`: an adder on a ``-`` is a ``"sub"``).  A value is a unit name (``"mitchell"``), a
    ``(name, {param: value})`` pair, or a :class:`UnitChoice`.

    Raises
    ------
    ValueError
        One line naming the bad key or value and the allowed ones.
    """
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise ValueError(f"approx= must be a dict such as {{'mul': ('drum', {{'k': 6}})}}, not {mapping!r}")
    checked = {}
    for kind, value in mapping.items():
        where = f"approx={{{kind!r}: ...}}"
        if is_operation_key(kind):
            checked[kind] = _operation_choice(value, where)
            continue
        if kind not in KINDS:
            raise ValueError(f"approx=: unknown kind of operation {kind!r}; allowed: {', '.join(KINDS)}, "
                             f"or an operation FILE:LINE:COL such as 'image.py:44:32'")
        if isinstance(value, UnitChoice):
            if UNIT_KIND[value.kind] != UNIT_KIND[kind]:
                raise ValueError(f"{where}: {value.unit!r} is {_article(UNIT_KIND[value.kind])} unit, "
                                 f"not {_article(UNIT_KIND[kind])} unit")
            checked[kind] = choice(kind, value.unit, dict(value.params), where=where)
        elif isinstance(value, str):
            checked[kind] = choice(kind, value, where=where)
        elif isinstance(value, tuple) and len(value) == 2:
            checked[kind] = choice(kind, value[0], value[1], where=where)
        else:
            raise ValueError(f"{where}: give a unit name or a (name, {{param: value}}) pair, not {value!r}")
    return dict(sorted(checked.items()))


def _operation_choice(value, where: str) -> UnitChoice:
    """The :class:`UnitChoice` of a per-operation value: its kind is its unit's."""
    # approx_units loads numpy: only kernels that name a unit need it.
    from approx_units.registry import UnknownUnitError, names, spec
    if isinstance(value, UnitChoice):
        if value.unit == VERILOG_UNIT:
            return _verilog_choice(value.kind, dict(value.params), f"{where}: ")
        return choice(value.kind, value.unit, dict(value.params), where=where)
    if isinstance(value, str):
        unit, params = value, None
    elif isinstance(value, tuple) and len(value) == 2:
        unit, params = value
    else:
        raise ValueError(f"{where}: give a unit name or a (name, {{param: value}}) pair, not {value!r}")
    if not isinstance(unit, str):
        raise ValueError(f"{where}: the unit must be a unit name (a str), not {unit!r}")
    if unit == VERILOG_UNIT:
        return _verilog_choice(None, params, f"{where}: ")
    try:
        kind = spec(unit).kind
    except UnknownUnitError:
        raise ValueError(f"{where}: unknown unit {unit!r}; allowed: {', '.join(names())}") from None
    return choice(kind, unit, params, where=where)


# -- called from Python, outside a kernel ---------------------------------------------------

def _evaluate(kind, a, b, unit, params):
    # hls.unit_operators loads approx_units (and numpy): only programs that use units need it.
    from amaranth.hdl import Const

    from .unit_operators import approx_golden
    for name, value in (("a", a), ("b", b)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"hls.approx.{kind}: operand {name} must be an integer, not {value!r}")
    selected = choice(kind, unit, params, where=f"hls.approx.{kind}")
    return approx_golden(selected, Const(a).shape(), Const(b).shape())(a, b)


def mul(a: int, b: int, *, unit: str, **params) -> int:
    """``a * b`` by the approximate multiplier ``unit`` (``hls.approx.mul(a, b, unit="drum", k=6)``).

    In a kernel, the unit is built at the operand widths; signed operands go through
    the unsigned unit in sign-magnitude form.  From Python, the operands take the
    narrowest shapes that hold them.

    Raises
    ------
    ValueError
        An unknown unit, a unit of another kind, or a bad parameter.
    """
    return _evaluate("mul", a, b, unit, params)


def add(a: int, b: int, *, unit: str, **params) -> int:
    """``a + b`` by the approximate adder ``unit`` (``hls.approx.add(a, b, unit="loa", l=4)``).

    Raises
    ------
    ValueError
        An unknown unit, a unit of another kind, or a bad parameter.
    """
    return _evaluate("add", a, b, unit, params)


def sub(a: int, b: int, *, unit: str, **params) -> int:
    """``a - b`` by the approximate adder ``unit`` (``hls.approx.sub(a, b, unit="loa", l=4)``).

    The adder adds ``~a`` and ``b`` (both extended to its width, two's complement when either is
    signed) and the sum is inverted: ``a - b == ~(~a + b)`` exactly, so the difference's error is
    the adder's error on those operands, and the result is in ``-``'s shape (signed).

    Raises
    ------
    ValueError
        An unknown unit, a unit that is not an adder, or a bad parameter.
    """
    return _evaluate("sub", a, b, unit, params)


def mod(a: int, b: int, *, unit: str, **params) -> int:
    """``a % b`` by the approximate divider ``unit`` (``hls.approx.mod(a, d, unit="mitchell_div")``).

    ``a - q * b`` with ``q`` the unit's quotient of the magnitudes, floored as Python's ``%`` is
    (the remainder takes ``b``'s sign), clamped to ``%``'s shape (``b``'s), and
    ``a % 0 == 0`` as for exact ``%``.

    Raises
    ------
    ValueError
        An unknown unit, a unit that is not a divider, or a bad parameter.
    """
    return _evaluate("mod", a, b, unit, params)


def div(a: int, b: int, *, unit: str, **params) -> int:
    """``a // b`` by the approximate divider ``unit`` (``hls.approx.div(a, d, unit="mitchell_div")``).

    The quotient is the unit's approximation of ``|a| / |b|`` with no fraction bits,
    negated when the signs differ (so it rounds towards zero, not down), and
    ``a // 0 == 0`` as for exact ``//``.

    Raises
    ------
    ValueError
        An unknown unit, a unit of another kind, or a bad parameter.
    """
    return _evaluate("div", a, b, unit, params)
