"""The space :mod:`hls.explore` searches: one unit choice per approximable operation.

An *approximable operation* is one that ``@hls.kernel(approx=...)`` may replace: a
``*``, ``//``, ``%``, ``+`` or ``-`` whose operands are both not constants
(:attr:`hls.frontend.typed.TypedKernel.operations`, keyed ``FILE:LINE:COL`` of the
operator).  A ``-`` takes the library's adders (``kind "sub"``), a ``%`` its dividers
(``"mod"``: :data:`hls.approx.UNIT_KIND`).  Each operation chooses exact or one of the
*candidates* of its kind that its operand widths allow.  An operation of which dead-code
elimination (:func:`hls.ir.dead.dead_operations`) removes every copy builds no unit whatever it
chooses, and one that no candidate allows has nothing to choose: neither is a site, and
:attr:`Space.skipped` says why each was left out.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from amaranth.hdl import Shape

from ..approx import KINDS, UNIT_KIND, UnitChoice, as_kind, choice, verilog_choice
from ..compiler import lower
from ..ir.dead import dead_operations
from ..unit_operators import UnitWidthError, approx_unit

__all__ = ["DEFAULT_CANDIDATES", "DEFAULT_KINDS", "Site", "Skipped", "Space", "parse_candidates",
           "verilog_candidates", "ExploreError", "DEAD_CODE", "NO_CANDIDATE"]


class ExploreError(ValueError):
    """Bad input to the explorer: one line naming the option or value and what is allowed."""


#: The candidates of each kind (``--candidates`` replaces them): units at points of their parameter grids.
#: ``lut_mul(t)`` rounds the product's columns below ``t``, so its grid is in result columns: a ``t``
#: above a site's top column (``t > n + m - 1``) is not offered there, and an 8 x 8 product takes
#: ``t=8`` and ``t=12`` only.  ``aaxd(k)`` needs ``k <= n``.
DEFAULT_CANDIDATES = {
    "mul": "drum(k=3),drum(k=4),drum(k=5),drum(k=6),drum(k=8),mitchell,mitchell_refined,"
           "iterlog(corrections=1),iterlog(corrections=2),"
           "lut_mul(t=8),lut_mul(t=12),lut_mul(t=16),lut_mul(t=18),lut_mul(t=20),lut_mul(t=22),lut_mul(t=24)",
    "div": "mitchell_div,mitchell_div_refined(index_bits=2),mitchell_div_refined(index_bits=3),"
           "mitchell_div_refined(index_bits=4),aaxd(k=3),aaxd(k=4),aaxd(k=5),aaxd(k=6),aaxd(k=8)",
    "add": "loa(l=2),loa(l=3),loa(l=4),loa(l=6),trunc_add(l=2),trunc_add(l=4),eta1(l=3),hoaaned(l=3)",
}
# A `-` is built on an adder and a `%` on a divider (hls.approx.UNIT_KIND): the same candidates.
DEFAULT_CANDIDATES["sub"] = DEFAULT_CANDIDATES["add"]
DEFAULT_CANDIDATES["mod"] = DEFAULT_CANDIDATES["div"]

#: The kinds searched unless ``kinds=`` says otherwise: an approximate ``+``, ``-`` or ``%`` in an array
#: index or a loop bound breaks the program rather than its quality, so they are asked for explicitly.
DEFAULT_KINDS = ("mul", "div")

_UNIT = re.compile(r"\s*([a-z_][a-z0-9_]*)\s*(?:\(([^()]*)\))?\s*(?:,|$)")


def _parse_units(kind: str, text: str, where: str) -> list[UnitChoice]:
    units, at = [], 0
    text = text.strip()
    while at < len(text):
        match = _UNIT.match(text, at)
        if match is None or match.end() == at:
            raise ExploreError(f"{where}: cannot read {text[at:]!r}; expected UNIT or UNIT(P=V,...) separated by ','")
        name, arguments = match.group(1), match.group(2)
        params = {}
        for item in (arguments or "").split(","):
            if not item.strip():
                continue
            key, equals, value = item.partition("=")
            try:
                params[key.strip()] = int(value)
            except ValueError:
                raise ExploreError(f"{where}: {name}: parameter {item.strip()!r} is not NAME=INTEGER") from None
            if not equals:
                raise ExploreError(f"{where}: {name}: parameter {item.strip()!r} is not NAME=INTEGER")
        try:
            units.append(choice(kind, name, params, where=where))
        except ValueError as error:
            raise ExploreError(str(error)) from None
        at = match.end()
    if not units:
        raise ExploreError(f"{where}: no unit given for {kind}")
    return units


def verilog_candidates(directory, kinds=DEFAULT_KINDS) -> dict[str, list[UnitChoice]]:
    """The circuits of ``directory`` as candidates: ``{kind: [UnitChoice("verilog", file=...)]}``.

    Every ``*.v`` file that ``axhls units survey`` would take
    (:func:`approx_units.survey.survey_files`: module ``FILE``, cell-library netlists left
    out) is read (:func:`approx_units.verilog_eval.load_circuit`: its kind and signedness from
    its EvoApproxLib name, else from its ports and its function) and offered to every kind of
    ``kinds`` built on its kind (an adder to ``add`` and ``sub``, a divider to ``div`` and ``mod``:
    :data:`hls.approx.UNIT_KIND`); a circuit no kind of ``kinds`` takes is left out.  Each file is named ``directory/FILE.v``, as given, which is what
    ``--apply`` writes.  A signed circuit is offered only where an operand is signed
    (:func:`hls.unit_operators.approx_unit` refuses it elsewhere).

    Raises
    ------
    ExploreError
        ``directory`` missing or holding no ``.v`` file, or a file that does not parse, is not
        a combinational circuit, is not the kind its name says, or whose signedness neither its
        name nor its behaviour tells (one line naming the file).
    """
    # approx_units.survey runs Yosys: only --verilog needs it.
    from approx_units.survey import survey_files
    folder = Path(directory)
    if not folder.is_dir():
        raise ExploreError(f"--verilog {directory}: not a directory")
    files = survey_files(folder)
    if not files:
        raise ExploreError(f"--verilog {directory}: no Verilog circuit (*.v) in it")
    result: dict[str, list[UnitChoice]] = {}
    for path in files:
        try:
            unit = verilog_choice(str(path))
        except ValueError as error:
            raise ExploreError(f"--verilog {directory}: {error}") from None
        for kind in kinds:
            if UNIT_KIND[kind] == UNIT_KIND[unit.kind]:
                result.setdefault(kind, []).append(as_kind(unit, kind))
    return result


def parse_candidates(text: str | None = None, kinds=DEFAULT_KINDS) -> dict[str, list[UnitChoice]]:
    """``"mul=drum(k=4),mitchell;div=mitchell_div"`` -> ``{kind: [UnitChoice, ...]}`` for ``kinds``.

    A kind in ``kinds`` that ``text`` does not name takes :data:`DEFAULT_CANDIDATES`.

    Raises
    ------
    ExploreError
        An unknown kind or unit, a unit of another kind, a bad parameter, bad syntax.
    """
    kinds = tuple(kinds)
    for kind in kinds:
        if kind not in KINDS:
            raise ExploreError(f"kinds: unknown kind {kind!r}; allowed: {', '.join(KINDS)}")
    given = {}
    for part in (text or "").split(";"):
        if not part.strip():
            continue
        kind, equals, units = part.partition("=")
        kind = kind.strip()
        if not equals or kind not in KINDS:
            raise ExploreError(f"--candidates {part.strip()!r}: expected KIND=UNIT[(P=V,...)],... with KIND one of "
                               f"{', '.join(KINDS)}")
        given[kind] = _parse_units(kind, units, f"--candidates {kind}")
    result = {}
    for kind in kinds:
        result[kind] = given.get(kind) or _parse_units(kind, DEFAULT_CANDIDATES[kind], f"default {kind} candidates")
    return result


@dataclass(frozen=True)
class Site:
    """One approximable operation of one kernel and the units it may choose.

    Attributes
    ----------
    kernel : str
        The kernel's name.
    operation : hls.frontend.typed.Operation
    units : tuple of hls.approx.UnitChoice
        Choice ``i`` (1-based) is ``units[i - 1]``; choice 0 is exact.
    copies : tuple of ((Shape, Shape), int)
        How many copies of the operation the hardware builds at each pair of operand shapes
        (unrolled loops and helpers inlined twice make several): the operations of the exact
        kernel's IR that compute it after dead-code elimination, so a dead copy is not one, and
        equal copies that value numbering made one operation are one.
    """

    kernel: str
    operation: object
    units: tuple
    copies: tuple

    @property
    def key(self) -> str:
        return self.operation.key

    def label(self, index: int) -> str:
        return "exact" if index == 0 else self.units[index - 1].label


#: Why :class:`Space` leaves out an operation that no copy of reaches the hardware.
DEAD_CODE = "dead code"
#: ... and one that no candidate unit of its kind allows at its operand widths.
NO_CANDIDATE = "no candidate unit allows its operand widths"


@dataclass(frozen=True)
class Skipped:
    """An operation of a kind searched that :class:`Space` leaves out, and why.

    Attributes
    ----------
    kernel : str
    operation : hls.frontend.typed.Operation
    reason : str
        :data:`DEAD_CODE` (dead-code elimination removes every copy of it: no unit would be
        built, whatever it chose) or :data:`NO_CANDIDATE`.
    """

    kernel: str
    operation: object
    reason: str

    def describe(self) -> str:
        """``line 12 `a * b`: dead code``."""
        return f"line {self.operation.lineno} `{self.operation.text}`: {self.reason}"

    def to_json(self) -> dict:
        return {"kernel": self.kernel, **self.operation.to_json(), "reason": self.reason}


def _built(ir) -> Counter:
    """(operation key, operand shapes) -> how many operations of ``ir`` (after dead-code
    elimination) compute it: the copies the hardware builds."""
    counts: Counter = Counter()
    for block in ir.blocks():
        for op in block.ops:
            for key in op.operations:
                counts[key, tuple(Shape.cast(operand.shape) for operand in op.operands)] += 1
    return counts


def _identity(unit: UnitChoice) -> str:
    """A unit's label, and a circuit's file content too: an edited circuit is another choice."""
    if unit.file is None:
        return unit.label
    return f"{unit.label}:{hashlib.sha256(Path(unit.file).read_bytes()).hexdigest()[:16]}"


def _allowed(unit: UnitChoice, shapes) -> bool:
    try:
        approx_unit(unit, *shapes)
        return True
    except UnitWidthError:
        return False


class Space:
    """The operations of ``kernels`` and each one's choices.

    Parameters
    ----------
    kernels : sequence of hls.Kernel
        A kernel, or the kernels of a chain (distinct names); their ``approx=`` is
        ignored (the space starts from exact arithmetic).
    candidates : dict of str to list of hls.approx.UnitChoice
        By kind (:func:`parse_candidates`); only these kinds are searched.

    Attributes
    ----------
    kernels : tuple of hls.Kernel
        The exact kernels (``with_approx(None)``).
    sites : list of Site
        In kernel order, then source order; a unit no copy of an operation allows is
        left out of its choices.
    skipped : list of Skipped
        The operations of the kinds searched that are not sites, in the same order: those of
        which the kernel compiled exact (:func:`hls.compiler.lower`) keeps no copy after
        dead-code elimination (:func:`hls.ir.dead.dead_operations`), and those with no unit left.

    Raises
    ------
    ExploreError
        Two kernels of one name, or no approximable operation of the kinds searched (the
        skipped ones and why, when there are some).
    """

    def __init__(self, kernels, candidates: dict):
        kernels = tuple(kernels)
        names = [kernel.name for kernel in kernels]
        if len(set(names)) != len(names):
            raise ExploreError(f"the kernels of a chain need distinct names, not {names}")
        self.kernels = tuple(kernel.with_approx(None) for kernel in kernels)
        self.candidates = {kind: list(units) for kind, units in candidates.items()}
        self.sites: list[Site] = []
        self.skipped: list[Skipped] = []
        for kernel in self.kernels:
            typed = kernel.analyze()
            ir = None
            for operation in typed.operations:
                units = self.candidates.get(operation.kind)
                if not units:
                    continue
                if ir is None:
                    # Lowered once, and only for a kernel with an operation searched.
                    ir = lower(kernel)
                    dead, counts = dead_operations(ir), _built(ir)
                if operation.key in dead:
                    self.skipped.append(Skipped(kernel.name, operation, DEAD_CODE))
                    continue
                allowed = tuple(unit for unit in units if any(_allowed(unit, shapes) for shapes in operation.shapes))
                if not allowed:
                    self.skipped.append(Skipped(kernel.name, operation, NO_CANDIDATE))
                    continue
                copies = tuple((shapes, counts[operation.key, shapes]) for shapes in operation.shapes
                               if counts[operation.key, shapes])
                self.sites.append(Site(kernel.name, operation, allowed, copies))
        if not self.sites:
            kinds = ", ".join(self.candidates)
            if self.skipped:
                left_out = "; ".join((f"{skipped.kernel} " if len(self.kernels) > 1 else "") + skipped.describe()
                                     for skipped in self.skipped)
                raise ExploreError(f"{', '.join(names)}: no approximable operation of the kinds searched ({kinds}) "
                                   f"is left to explore: {left_out}")
            symbols = " ".join(KINDS[kind] for kind in self.candidates if kind in KINDS)
            raise ExploreError(f"{', '.join(names)}: no approximable operation of the kinds searched ({kinds}): "
                               f"no {symbols} between two non-constant operands that a candidate unit allows")

    @property
    def sizes(self) -> list[int]:
        """Choices per site (exact included)."""
        return [len(site.units) + 1 for site in self.sites]

    @property
    def size(self) -> int:
        """How many assignments there are."""
        return math.prod(self.sizes)

    def by_kernel(self, selection) -> dict[str, dict[str, int]]:
        """``{kernel: {operation key: choice}}`` of one selection (one int per site)."""
        result = {kernel.name: {} for kernel in self.kernels}
        for site, index in zip(self.sites, selection):
            result[site.kernel][site.key] = int(index)
        return result

    def mapping(self, selection) -> dict[str, dict[str, UnitChoice]]:
        """``{kernel: approx= mapping}``: each approximated operation's key -> its unit."""
        result = {kernel.name: {} for kernel in self.kernels}
        for site, index in zip(self.sites, selection):
            if index:
                result[site.kernel][site.key] = site.units[int(index) - 1]
        return result

    def digest(self) -> str:
        """A hash of the space (kernels, their source, sites and choices): the store's key."""
        described = [[kernel.name, kernel.filename, kernel.tree and ast.dump(kernel.tree)] for kernel in self.kernels]
        described.append([[site.kernel, site.key, [_identity(unit) for unit in site.units]] for site in self.sites])
        return hashlib.sha256(json.dumps(described).encode()).hexdigest()[:24]

    def to_json(self) -> list[dict]:
        return [{"kernel": site.kernel, **site.operation.to_json(), "choices": ["exact", *(u.label for u in site.units)]}
                for site in self.sites]

    def skipped_json(self) -> list[dict]:
        """:attr:`skipped` as JSON: each operation (as :meth:`to_json` gives a site) with ``reason``."""
        return [skipped.to_json() for skipped in self.skipped]
