"""Unit registry: parameter checking, and the :class:`Unit` object returned by :func:`get`."""

from __future__ import annotations

import functools
import importlib
import itertools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import dataflow
from .numpy_backend import evaluate, evaluate_tiles

__all__ = ["Param", "UnitSpec", "Unit", "UnknownUnitError", "register", "get", "names",
           "spec", "parameter_grid", "MIN_WIDTH", "MAX_WIDTH", "MAX_STAGES"]

MIN_WIDTH = 4
MAX_WIDTH = 32
MAX_STAGES = 16


class UnknownUnitError(KeyError, ValueError):
    """Raised by :func:`get` for an id that is not in :func:`names`; its message lists them."""

    def __str__(self):
        return self.args[0]


@dataclass(frozen=True)
class Param:
    """One parameter of a unit.

    Attributes
    ----------
    name : str
        Keyword accepted by :func:`get`.
    default : callable
        ``default(width, width_b, signed) -> int``: the value used when not given.
    bounds : callable
        ``bounds(width, width_b, signed) -> (lo, hi)``: the inclusive allowed range.
    doc : str
        One line for tables and ``--help``; says how the default is chosen.
    """
    name: str
    default: Callable
    bounds: Callable
    doc: str


@dataclass(frozen=True)
class UnitSpec:
    """The registered description of one unit family.

    ``describe(ops, a, b, *, width, width_b, signed, **params)`` returns the
    output node; ``output_width(width, width_b, signed, params)`` its width.
    """
    name: str
    kind: str
    describe: Callable
    output_width: Callable
    summary: str
    reference: str
    params: tuple = ()
    signed_variant: bool = True
    non_square: bool = False
    recommended_stages: Callable = lambda width: 1
    check: Callable | None = None   # extra cross-parameter check, raises ValueError
    module: str = ""    # the description module (default: the one defining ``describe``)


_REGISTRY: dict[str, UnitSpec] = {}


def register(spec_: UnitSpec) -> UnitSpec:
    if spec_.name in _REGISTRY:
        raise ValueError(f"unit {spec_.name!r} is registered twice")
    _REGISTRY[spec_.name] = spec_
    return spec_


#: Modules whose import registers their units, in catalogue order.
DESCRIPTION_MODULES = ("adders", "multipliers", "fpga_multipliers", "dividers")


def _load_descriptions():
    for module in DESCRIPTION_MODULES:
        importlib.import_module(f"{__package__}.{module}")


def _catalogue_position(unit_spec: UnitSpec) -> int:
    module = (unit_spec.module or unit_spec.describe.__module__).rpartition(".")[2]
    return DESCRIPTION_MODULES.index(module) if module in DESCRIPTION_MODULES else len(DESCRIPTION_MODULES)


def names() -> list[str]:
    """The ids of all units, in catalogue order (adders, multipliers, dividers).

    The order is that of :data:`DESCRIPTION_MODULES`, then of registration within a
    module, whichever description module happened to be imported first.
    """
    _load_descriptions()
    return sorted(_REGISTRY, key=lambda name: _catalogue_position(_REGISTRY[name]))


def spec(name: str) -> UnitSpec:
    _load_descriptions()
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownUnitError(f"unknown unit {name!r}; known units: {', '.join(names())}") from None


def _check_int(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in {lo}..{hi}, not {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name}={value} is out of range; allowed: {lo}..{hi}")
    return int(value)


def parameter_grid(name: str, width: int, width_b: int | None = None, signed: bool = False, *,
                   exclude: tuple[str, ...] = ()) -> list[dict]:
    """Every valid combination of unit ``name``'s parameters over their whole ranges.

    Each parameter of the unit's :class:`UnitSpec` (``signed`` and ``width_b``
    are fixed by the arguments) takes every value of its :attr:`Param.bounds`
    at these widths; combinations that the unit's cross-parameter check
    refuses (``vctm_mul``'s ``stagger`` above the row pairs below ``t``,
    GeAr's ``r``/``p``) are left out.  A parameter in ``exclude`` keeps its
    default.  The grid follows the registry, so a unit or a parameter added
    there is swept without change here.  Ordered by the parameters' values,
    first parameter slowest.

    Raises
    ------
    UnknownUnitError
        For an unknown id.
    ValueError
        For widths out of range.
    """
    unit_spec = spec(name)
    width = _check_int("width", width, MIN_WIDTH, MAX_WIDTH)
    width_b = width if width_b is None else _check_int("width_b", width_b, MIN_WIDTH, MAX_WIDTH)
    axes = []
    for param in unit_spec.params:
        if param.name in exclude:
            axes.append((param.name, [param.default(width, width_b, signed)]))
        else:
            lo, hi = param.bounds(width, width_b, signed)
            axes.append((param.name, list(range(lo, hi + 1))))
    grid = []
    for values in itertools.product(*(axis for _, axis in axes)):
        params = dict(zip((name_ for name_, _ in axes), values))
        if unit_spec.check is not None:
            try:
                unit_spec.check(width, width_b, signed, params)
            except ValueError:
                continue
        grid.append(params)
    return grid


def get(name: str, width: int = 8, stages: int = 0, **params) -> "Unit":
    """Look up and configure a unit.

    Parameters
    ----------
    name : str
        A unit id from :func:`names`.
    width : int
        Operand width in bits, 4..32 (the first operand's for non-square multipliers).
    stages : int
        Pipeline register stages, 0 (combinational) .. 16; the unit's latency.
    **params
        Unit parameters (see ``docs/units.md``); ``signed`` (bool) where a
        signed variant exists, ``width_b`` for non-square multipliers.

    Raises
    ------
    UnknownUnitError
        For an unknown id (a ``KeyError`` and ``ValueError``); the message lists the known ids.
    ValueError
        For a width, stage count or parameter out of range, or an unknown parameter.
    """
    unit_spec = spec(name)
    width = _check_int("width", width, MIN_WIDTH, MAX_WIDTH)
    stages = _check_int("stages", stages, 0, MAX_STAGES)
    params = dict(params)
    signed = params.pop("signed", False)
    if not isinstance(signed, (bool, np.bool_)):
        raise ValueError(f"signed must be True or False, not {signed!r}")
    signed = bool(signed)
    if signed and not unit_spec.signed_variant:
        raise ValueError(f"unit {name!r} has no signed variant")
    width_b = width
    if unit_spec.non_square and "width_b" in params:
        width_b = _check_int("width_b", params.pop("width_b"), MIN_WIDTH, MAX_WIDTH)
    known = [p.name for p in unit_spec.params]
    unknown = sorted(set(params) - set(known))
    if unknown:
        accepted = known + (["signed"] if unit_spec.signed_variant else []) + \
            (["width_b"] if unit_spec.non_square else [])
        raise ValueError(f"unit {name!r} has no parameter {unknown[0]!r}; "
                         f"its parameters are: {', '.join(accepted) or '(none)'}")
    values = {}
    for p in unit_spec.params:
        lo, hi = p.bounds(width, width_b, signed)
        value = params[p.name] if p.name in params else p.default(width, width_b, signed)
        values[p.name] = _check_int(p.name, value, lo, hi)
    if unit_spec.check is not None:
        unit_spec.check(width, width_b, signed, values)
    return Unit(unit_spec, width, width_b, stages, signed, values)


class Unit:
    """A configured unit: its model, its hardware and its metadata.

    Attributes
    ----------
    name, kind : str
        The id and ``"add"``, ``"mul"`` or ``"div"``.
    width, width_b : int
        Operand widths (equal except for non-square multipliers).
    stages, latency : int
        Pipeline register stages; the latency in clock cycles equals it.
    signed : bool
        Two's complement operands and result.
    params : dict
        Every parameter with its value, defaults included (``signed``, and
        ``width_b`` for units that accept it, too).
    output_width : int
        Width of ``o``.
    description : str
        One line.
    reference : str
        The paper the unit comes from.
    recommended_stages : int
        Pipeline depth the catalogue uses for this width.
    graph : dataflow.Graph
        The traced description both back ends interpret.
    """

    def __init__(self, unit_spec: UnitSpec, width, width_b, stages, signed, values):
        self.spec = unit_spec
        self.name = unit_spec.name
        self.kind = unit_spec.kind
        self.width = width
        self.width_b = width_b
        self.stages = stages
        self.latency = stages
        self.signed = signed
        self.unit_params = dict(values)
        self.params = dict(values)
        self.params["signed"] = signed
        if unit_spec.non_square:
            self.params["width_b"] = width_b
        self.output_width = unit_spec.output_width(width, width_b, signed, values)
        self.reference = unit_spec.reference
        self.recommended_stages = unit_spec.recommended_stages(width)
        shown = ", ".join(f"{k}={v}" for k, v in values.items())
        shape = f"{width}x{width_b}" if width_b != width else f"{width}-bit"
        self.description = (f"{shape} {'signed' if signed else 'unsigned'} {unit_spec.summary}"
                            + (f" ({shown})" if shown else ""))

    def __repr__(self):
        extra = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"approx_units.get({self.name!r}, width={self.width}, stages={self.stages}{extra})"

    @functools.cached_property
    def graph(self) -> dataflow.Graph:
        graph = dataflow.trace(self.spec.describe, a_width=self.width, b_width=self.width_b,
                               width=self.width, width_b=self.width_b, signed=self.signed,
                               **self.unit_params)
        if graph.output.width != self.output_width:
            raise AssertionError(f"{self.name}: traced output is {graph.output.width} bits, "
                                 f"declared {self.output_width}")
        return graph

    # -- operand conversion ---------------------------------------------------

    def operand_range(self, operand: str = "a") -> tuple[int, int]:
        """Inclusive range of valid values of operand ``"a"`` or ``"b"``."""
        width = self.width if operand == "a" else self.width_b
        if self.signed:
            return -(1 << (width - 1)), (1 << (width - 1)) - 1
        return 0, (1 << width) - 1

    def output_range(self) -> tuple[int, int]:
        if self.signed:
            return -(1 << (self.output_width - 1)), (1 << (self.output_width - 1)) - 1
        return 0, (1 << self.output_width) - 1

    def _to_patterns(self, values, operand):
        width = self.width if operand == "a" else self.width_b
        array = np.asarray(values)
        if array.dtype.kind not in "iub" and not (array.dtype == object):
            raise ValueError(f"operand {operand} must hold integers, not {array.dtype}")
        lo, hi = self.operand_range(operand)
        if array.size and (int(array.min()) < lo or int(array.max()) > hi):
            bad = array[(array < lo) | (array > hi)].flat[0]
            raise ValueError(f"operand {operand} value {int(bad)} is out of range for "
                             f"{self.description}; allowed: {lo}..{hi}")
        if self.signed:
            return (array.astype(np.int64) & ((1 << width) - 1)).astype(np.uint64)
        return array.astype(np.uint64)

    def to_patterns(self, a, b):
        """Operand values -> ``uint64`` bit patterns (checked against the operand ranges)."""
        return self._to_patterns(a, "a"), self._to_patterns(b, "b")

    def from_pattern(self, pattern):
        """Output bit patterns -> values (``int64`` for signed units, ``uint64`` otherwise)."""
        pattern = np.asarray(pattern, dtype=np.uint64)
        if not self.signed:
            return pattern
        w = self.output_width
        if w == 64:
            return pattern.view(np.int64)
        signed = pattern.astype(np.int64)
        return signed - (((pattern >> np.uint64(w - 1)) & np.uint64(1)).astype(np.int64) << w)

    # -- the two interpretations ------------------------------------------------

    def model(self, a, b) -> np.ndarray:
        """Bit-exact model: what the hardware outputs for operands ``a`` and ``b``.

        ``a`` and ``b`` are integer arrays (or scalars) that broadcast together.
        Returns ``uint64`` values for unsigned units and ``int64`` for signed ones.

        Raises
        ------
        ValueError
            If an operand is outside :meth:`operand_range`.
        """
        pa, pb = self.to_patterns(a, b)
        return self.from_pattern(evaluate(self.graph, {"a": pa, "b": pb}))

    def model_tiles(self, a, b):
        """:meth:`model` over ``a`` and ``b`` broadcast to 2-D, one cache-sized tile at a time.

        For consumers that reduce the output (the error engine), so each tile
        is used while it is in the cache; for an outer product (``a`` a
        column, ``b`` a row) each operand's own logic runs once per value.
        Yields ``(rows, cols, values)``: the slices of the ``(R, C)``
        broadcast shape a tile covers and the model's output there.
        """
        pa, pb = self.to_patterns(a, b)
        for rows, cols, tile in evaluate_tiles(self.graph, {"a": pa, "b": pb}):
            yield rows, cols, self.from_pattern(tile)

    def signature(self):
        # Amaranth is imported only here and in component(): the numpy model, and so the
        # error engine's worker processes, do without its 0.2 s import.
        from amaranth.hdl import signed as signed_shape, unsigned
        from .amaranth_backend import UnitSignature
        shape = signed_shape if self.signed else unsigned
        return UnitSignature(shape(self.width), shape(self.width_b), shape(self.output_width),
                             pipelined=self.stages > 0)

    def component(self):
        """A fresh Amaranth :class:`~amaranth.lib.wiring.Component` with :class:`UnitSignature`."""
        from .amaranth_backend import UnitComponent     # Amaranth is heavy: see signature()
        return UnitComponent(self.graph, self.signature(), stages=self.stages)

    def critical_path(self, stages: int | None = None) -> float:
        """Estimated longest register-to-register delay in ns of the hardware (see dataflow.pipeline)."""
        return dataflow.pipeline(self.graph, self.stages if stages is None else stages)[1].critical_path
