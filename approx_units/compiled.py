"""The error engine's native back end: a dataflow graph compiled to C, fused with the error statistics.

The numpy interpreter (:mod:`approx_units.numpy_backend`) is the model; this
module computes the same function, and the same
:class:`~approx_units.metrics.ErrorStats`, at the speed of a C loop:

* :func:`c_source` writes a traced :class:`~approx_units.dataflow.Graph` as C,
  one statement per distinct value (repeated sub-expressions once), each node
  in ``uint32_t`` when it fits, else ``uint64_t``, reduced to its width, exactly
  as the interpreter does. The unit and the error terms that
  :class:`~approx_units.metrics.ErrorStats` accumulates are one loop, so no
  array of results is ever materialised.
* For an exhaustive block (a range of ``a`` times a range of ``b``) the nodes
  are hoisted by what they read: those of ``a`` alone run once per row, those of
  ``b`` alone once per column block into small arrays, and only the nodes that
  read both run per pair, in a loop that ``#pragma omp simd`` vectorises
  (``-fopenmp-simd``: SIMD reductions, no OpenMP run time, no ``-ffast-math``;
  every division and conversion is the IEEE one numpy performs).
* Look-up tables are not read from memory in that loop: gcc vectorises a table
  read as an emulated gather (one scalar load per lane; ``-march=native`` tunes
  for AMD Zen, whose hardware gathers it avoids), which made ``lut_mul``'s 49
  tables of 16 entries cost 20 ns per pair. A small table is packed into
  constants and read by a shift (:func:`_packed_lookup`); one indexed by bits
  of ``a`` and bits of ``b`` (a 2x2 sub-multiplier) is specialised to each row,
  one word per row and a shift per pair (:func:`_row_lookups`).
* :class:`Evaluator` compiles the source with the system's C compiler (``$CC``,
  else ``cc`` or ``gcc``; ``-O3 -march=native``), keeps the shared object in
  ``<cache>/compiled/`` (see :func:`~approx_units.synth.default_cache_dir`)
  and calls it through ctypes, which releases the GIL: a thread pool over row
  ranges uses every core.

Bit-exactness
-------------
Per pair, every value (the model's output, the error, ``|e|``, the relative
error and its square) is computed with the operations and roundings numpy
uses, so the integer fields (``count``, ``errors``, ``nonzero``, ``excluded``,
``max_abs``) and the maxima (``max_rel``, a divider's real-valued
``max_abs``) are identical. Integer sums (``sum_abs`` and ``sum_err`` of
integer references) are exact 128-bit sums rounded once, which is what
:meth:`ErrorStats.of` computes whenever its own exact path applies. The
floating-point sums (``sum_sq``, the relative sums, a divider's real-valued
sums) add the same terms in another order; they agree to about 1e-13
relative (``tests/units/test_compiled_engine.py``).

Without a C compiler, :func:`available` is false and says why; the error
engine then falls back to the numpy interpreter.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

import artefacts

from . import interrupts
from .dataflow import Graph
from .metrics import ErrorStats

__all__ = ["KernelSpec", "Evaluator", "CompilerUnavailable", "available", "unavailable_reason",
           "evaluator_for", "kernel_spec", "c_source", "c_function", "shared_library", "compiler",
           "COMPILE_FLAGS"]

#: Flags of every kernel. ``-fopenmp-simd`` honours ``#pragma omp simd`` (vectorised
#: reductions) without linking an OpenMP run time; no flag relaxes IEEE arithmetic.
COMPILE_FLAGS = ("-O3", "-march=native", "-fPIC", "-shared", "-fopenmp-simd", "-fno-math-errno",
                 "-std=gnu11", "-w")

#: Fields of one C accumulator, in order: 10 integers, then 8 doubles.
_INT_FIELDS = ("count", "errors", "nonzero", "excluded", "max_abs", "overflow",
               "sum_abs_lo", "sum_abs_hi", "sum_err_lo", "sum_err_hi")
_FLOAT_FIELDS = ("sum_abs_f", "sum_err_f", "max_abs_f", "sum_sq", "sum_rel", "sum_rel_sq",
                 "sum_signed_rel", "max_rel")
_ACC_WORDS = len(_INT_FIELDS) + len(_FLOAT_FIELDS)

#: Rows of ``a`` per exhaustive task: with 2^16 values of ``b``, about 2^22 pairs (a few ms).
_TASK_PAIRS = 1 << 22


class CompilerUnavailable(RuntimeError):
    """No working C compiler: the compiled engine cannot be used (the numpy one can)."""


@dataclass(frozen=True)
class KernelSpec:
    """What a kernel computes besides the graph: operand formats and the exact reference.

    Attributes
    ----------
    kind : str
        ``add``, ``mul`` or ``div``.
    a_width, b_width : int
        Operand widths (the graph's inputs ``a`` and ``b``).
    output_width : int
        Width of the graph's output, sign-extended from there when ``signed``.
    signed : bool
        Two's complement operands and result.
    frac_bits : int
        A divider's quotient fraction bits.
    """
    kind: str
    a_width: int
    b_width: int
    output_width: int
    signed: bool = False
    frac_bits: int = 0


# --- compiler discovery ----------------------------------------------------------------------

_COMPILER: list = []


def compiler() -> str | None:
    """The C compiler's path (``$CC``, else ``cc``, else ``gcc``), or ``None`` if there is none."""
    if not _COMPILER:
        candidates = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc"]
        _COMPILER.append(next((shutil.which(c) for c in candidates if shutil.which(c)), None))
    return _COMPILER[0]


def unavailable_reason() -> str | None:
    """Why the compiled engine cannot run here, or ``None`` if it can."""
    if compiler() is None:
        looked = f"$CC={os.environ['CC']!r}" if os.environ.get("CC") else "cc, gcc"
        return f"no C compiler found (looked for {looked})"
    if sys.platform == "win32":
        return "the compiled engine supports Linux and macOS only"
    return None


def available() -> bool:
    """True when :class:`Evaluator` can compile kernels here."""
    return unavailable_reason() is None


# --- code generation ---------------------------------------------------------------------------

def _reduce(expression: str, width: int, bits: int) -> str:
    """``expression`` in ``uint<bits>_t``, reduced to ``width`` bits (no mask when the type does it)."""
    cast = f"(uint{bits}_t)"
    return f"{cast}({expression})" if width >= bits else f"({cast}({expression}) & {cast}{(1 << width) - 1}ull)"


def _dependencies(graph: Graph) -> dict:
    """Which inputs (``{"a"}``, ``{"b"}``, both or none) each node reads."""
    depends = {}
    for node in graph.nodes:
        depends[node] = frozenset({node.attrs[0]} if node.op == "input" else ()).union(
            *(depends[a] for a in node.args))
    return depends


def _live(graph: Graph, canonical: dict) -> list:
    """The nodes the output depends on, in topological order, each value once (the
    ``canonical`` node of each repeated one, see :func:`_canonical`)."""
    live = {canonical[graph.output]}
    for node in reversed(graph.nodes):
        if node in live:
            live.update(canonical[a] for a in node.args)
    return [n for n in graph.nodes if n in live]


def _canonical(graph: Graph) -> dict:
    """``{node: the first node of the graph computing the same value}``: the same operation, the
    same (canonical) operands, width and constants. Traced units repeat sub-expressions (each
    of lut_mul's 2x2 sub-products slices its own copy of a digit); per column of ``b`` a repeat
    would be stored, and read per pair, once per copy."""
    first, canonical = {}, {}
    for node in graph.nodes:
        key = (node.op, tuple(canonical[a].index for a in node.args), node.width, node.attrs)
        canonical[node] = first.setdefault(key, node)
    return canonical


class _Emitter:
    """C statements for the nodes of one graph; look-up tables are named ``<prefix>table<node>``,
    so that several graphs share a translation unit.

    ``narrow``: each node is held in ``uint32_t`` when it fits, else ``uint64_t``, and each
    operation computes in the wider of its operands' and its result's types. A vectorised
    loop then has twice the lanes for most nodes (mitchell's one 47-bit shifter no longer
    puts its 170 other nodes in 64-bit lanes). Otherwise every node is ``uint64_t``.
    """

    def __init__(self, graph: Graph, narrow: bool = True, prefix: str = ""):
        self.graph, self.narrow, self.prefix = graph, narrow, prefix
        self.tables = []
        self.canonical = _canonical(graph)

    def bits(self, node) -> int:
        return 32 if self.narrow and node.width <= 32 else 64

    def ctype(self, node) -> str:
        return f"uint{self.bits(node)}_t"

    def name(self, node) -> str:
        node = self.canonical[node]
        if node.op == "const":
            return f"(({self.ctype(node)}){node.attrs[0]}ull)"
        if node.op == "input":
            return node.attrs[0]
        return f"v{node.index}"

    def statement(self, node) -> str:
        return f"const {self.ctype(node)} v{node.index} = {self.expression(node)};"

    def expression(self, node) -> str:
        op, w = node.op, node.width
        # The type the operation computes in (operands are widened to it), and its cast.
        bits = max([self.bits(node)] + [self.bits(a) for a in node.args])
        if op == "lod":
            bits = self.bits(node.args[0])
        t = f"(uint{bits}_t)"
        x = [self.name(a) if self.bits(a) == bits else f"({t}{self.name(a)})" for a in node.args]
        widths = [a.width for a in node.args]
        if op == "add":
            return _reduce(f"{x[0]} + {x[1]}", w, bits) if w < max(widths) + 1 else f"{t}({x[0]} + {x[1]})"
        if op == "sub":
            return _reduce(f"{x[0]} - {x[1]}", w, bits)
        if op == "mul":
            return _reduce(f"{x[0]} * {x[1]}", w, bits) if w < sum(widths) else f"{t}({x[0]} * {x[1]})"
        if op in ("and", "or", "xor"):
            symbol = {"and": "&", "or": "|", "xor": "^"}[op]
            return f"{t}({x[0]} {symbol} {x[1]})"
        if op == "not":
            return f"{t}({x[0]} ^ {t}{(1 << w) - 1}ull)"
        if op in ("shl", "shr"):
            # C leaves shifts by the type's width or more undefined; numpy and the hardware give 0.
            shifted = f"({x[0]} << {x[1]})" if op == "shl" else f"({x[0]} >> {x[1]})"
            if (1 << widths[1]) - 1 >= bits:
                shifted = f"({x[1]} >= {bits} ? {t}0 : {t}{shifted})"
            return _reduce(shifted, w, bits) if op == "shl" else f"{t}{shifted}"
        if op == "slice":
            lo = node.attrs[0]
            value = f"({x[0]} >> {lo})" if lo else x[0]
            return _reduce(value, w, bits) if widths[0] - lo > w else f"{t}{value}"
        if op == "cat":
            parts, offset = [], 0
            for name, width in zip(x, widths):
                parts.append(name if offset == 0 else f"({t}{name} << {offset})")
                offset += width
            return f"{t}(" + " | ".join(parts) + ")"
        if op == "mux":
            return f"({x[0]} ? {x[1]} : {x[2]})"
        if op == "eq":
            return f"{t}({x[0]} == {x[1]})"
        if op == "lt":
            return f"{t}({x[0]} < {x[1]})"
        if op == "lod":
            clz = "__builtin_clz" if bits == 32 else "__builtin_clzll"
            return f"({x[0]} ? {t}({bits - 1} - {clz}({x[0]})) : {t}0)"
        if op == "lookup":
            packed = _packed_lookup(x[0], node.attrs, bits)
            if packed is not None:
                return packed
            table = f"{self.prefix}table{node.index}"
            element = next(f"uint{b}_t" for b in (8, 16, 32, 64) if max(node.attrs) < 1 << b)
            self.tables.append(f"static const {element} {table}[{len(node.attrs)}] = "
                               f"{{{', '.join(f'{v}ull' for v in node.attrs)}}};")
            return f"{t}{table}[{x[0]}]"
        raise AssertionError(f"no C form for operation {op!r}")


#: Most words a small table is packed into (see :func:`_packed_lookup`).
_PACKED_WORDS = 4


def _packed_lookup(index: str, table: tuple, bits: int) -> str | None:
    """``table[index]`` as shifts of constants, or ``None`` when the table is too large for that.

    A table read from memory in a vectorised loop is a gather, which gcc emulates
    element by element where the CPU's gathers are slow (AMD Zen, ``-march=native``):
    ``lut_mul``'s 49 tables of 16 entries took 20 ns per pair. Packed, the entries
    (``stride`` bits each, a power of two, at least their widest) fill up to
    :data:`_PACKED_WORDS` constants of ``bits`` bits: the index's high bits choose a word
    (a tree of selects, blends in SIMD), its low bits how far to shift it (a
    per-lane variable shift), so the lookup is a few vector instructions.
    """
    t = f"(uint{bits}_t)"
    if len(set(table)) == 1:
        return f"({t}{table[0]}ull)"
    widest = max(table).bit_length()
    stride = 1 << (widest - 1).bit_length()
    per_word = bits // stride
    if per_word == 0 or len(table) > per_word * _PACKED_WORDS:
        return None
    per_word = min(per_word, len(table))
    words = len(table) // per_word
    packed = [sum(v << (stride * k) for k, v in enumerate(table[w * per_word:(w + 1) * per_word]))
              for w in range(words)]
    low = per_word.bit_length() - 1                 # index bits within a word
    offset = f"({index} & {per_word - 1})" if words > 1 else index
    shift = f"({offset} << {stride.bit_length() - 1})" if stride > 1 else offset

    def select(first: int, count: int) -> str:     # the word of words[first:first + count]
        if count == 1:
            return f"({t}{packed[first]}ull)"
        half = count // 2
        bit = low + half.bit_length() - 1
        return f"(({index} >> {bit}) & 1 ? {select(first + half, half)} : {select(first, half)})"

    if per_word == 1:                               # a word per entry: a select tree only
        return select(0, words)
    return f"(({select(0, words)} >> {shift}) & {t}{(1 << widest) - 1}ull)"


#: Most index bits of ``a`` a row-specialised look-up may have (its table has a word per value).
_ROW_INDEX_BITS = 8


@dataclass
class _RowLookups:
    """Look-ups of the exhaustive loop specialised to the row: see :func:`_row_lookups`."""
    tables: list        # static arrays: one packed word per value of the index's a bits
    per_row: list       # statements once per value of a: the row's word of each look-up
    per_column: list    # (name, C type, expression): shift amounts, stored per column of b
    per_pair: dict      # {node: statement} replacing the look-up's own in the pair loop


def _row_lookups(nodes: list, depends: dict, emit: _Emitter) -> _RowLookups:
    """Look-ups whose index is a concatenation of bits of ``a`` alone and bits of ``b`` alone
    (a 2x2 sub-multiplier's digit pair), evaluated one row of ``a`` against all of ``b``.

    For a fixed ``a``, such a table is a small table of the index's ``b`` bits: packed into one
    word (as :func:`_packed_lookup` packs whole tables), it is read once per row from an array
    of every value of the ``a`` bits, and per pair the look-up is one variable shift, by an
    amount computed once per column, and a mask.
    """
    result = _RowLookups([], [], [], {})
    amounts = {}
    for node in nodes:
        index = node.args[0] if node.op == "lookup" else None
        if index is None or index.op != "cat" or len(depends[node]) != 2 \
                or any(len(depends[part]) == 2 for part in index.args):
            continue
        a_parts, b_parts, offset = [], [], 0
        for part in index.args:
            (b_parts if depends[part] == {"b"} else a_parts).append((offset, part))
            offset += part.width
        a_bits, b_bits = sum(p.width for _, p in a_parts), sum(p.width for _, p in b_parts)
        widest = max(node.attrs).bit_length()
        stride = 1 << max(0, widest - 1).bit_length()
        word = 32 if (stride << b_bits) <= 32 else 64
        if a_bits > _ROW_INDEX_BITS or (stride << b_bits) > 64 or widest == 0:
            continue

        def spread(value: int, parts: list) -> int:    # compact bits of value to their index places
            placed, shift = 0, 0
            for at, part in parts:
                placed |= ((value >> shift) & ((1 << part.width) - 1)) << at
                shift += part.width
            return placed

        def compact(parts: list, bits: int) -> str:     # the C value of the parts' bits, packed
            terms, shift = [], 0
            for _, part in parts:
                terms.append(f"((uint{bits}_t){emit.name(part)} << {shift})" if shift else
                             f"(uint{bits}_t){emit.name(part)}")
                shift += part.width
            return "(" + " | ".join(terms) + ")"

        words = [sum(node.attrs[spread(x, a_parts) | spread(y, b_parts)] << (stride * y)
                     for y in range(1 << b_bits)) for x in range(1 << a_bits)]
        table = f"{emit.prefix}rows{node.index}"
        result.tables.append(f"static const uint{word}_t {table}[{len(words)}] = "
                             f"{{{', '.join(f'{w}ull' for w in words)}}};")
        result.per_row.append(f"const uint{word}_t w{node.index} = {table}[{compact(a_parts, 32)}];")
        shift = compact(b_parts, 32) if stride == 1 else \
            f"({compact(b_parts, 32)} << {stride.bit_length() - 1})"
        if shift not in amounts:    # (names are canonical: a repeated digit is one column array)
            amounts[shift] = f"k{node.index}"
            result.per_column.append((amounts[shift], "uint32_t", shift))
        value = f"((w{node.index} >> {amounts[shift]}) & (uint{word}_t){(1 << widest) - 1}ull)"
        result.per_pair[node] = f"const {emit.ctype(node)} v{node.index} = ({emit.ctype(node)}){value};"
    return result


def _error_bits(spec: KernelSpec) -> int:
    """A bound (in bits) of the magnitude of any exact result, model output or error."""
    if spec.kind == "add":
        exact = max(spec.a_width, spec.b_width) + 1
    elif spec.kind == "mul":
        exact = spec.a_width + spec.b_width
    else:
        exact = spec.a_width + spec.frac_bits
    return max(exact, spec.output_width) + 1


def _to_double(expression: str, bits: int) -> str:
    # int64 -> double has no AVX2 instruction; below 2^51 the magic-number
    # conversion is exact (the same double) and vectorises.
    return f"small_to_double({expression})" if bits <= 50 else f"(double)({expression})"


_PRELUDE = r"""
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
typedef unsigned __int128 u128;
typedef __int128 i128;
typedef struct {
  uint64_t count, errors, nonzero, excluded, max_abs, overflow;
  uint64_t sum_abs_lo, sum_abs_hi, sum_err_lo, sum_err_hi;
  double sum_abs_f, sum_err_f, max_abs_f, sum_sq, sum_rel, sum_rel_sq, sum_signed_rel, max_rel;
} acc_t;
/* Exact for |x| < 2^51: 1.5 * 2^52 + x has x in its mantissa (AVX-512DQ converts in one instruction). */
static inline double small_to_double(int64_t x) {
#ifdef __AVX512DQ__
  return (double)x;
#endif
  union { uint64_t u; double d; } c;
  c.u = (uint64_t)x + 0x4338000000000000ull;
  return c.d - 6755399441055744.0;
}
static inline void store_i128(uint64_t *lo, uint64_t *hi, i128 value) {
  *lo = (uint64_t)value; *hi = (uint64_t)((u128)value >> 64);
}
"""


class _Stats:
    """The C text of the error terms of one kind: declarations, per-pair code, reductions, merge."""

    def __init__(self, spec: KernelSpec, wide: bool):
        self.spec, self.wide = spec, wide
        bits = _error_bits(spec)
        self.convert = lambda e: _to_double(e, bits)
        self.parts = ["i"] + (["q"] if spec.kind == "div" else [])

    def declarations(self) -> str:
        lines = []
        for p in self.parts:
            lines.append(f"uint64_t {p}_count = 0, {p}_errors = 0, {p}_nonzero = 0, {p}_maxabs = 0, "
                         f"{p}_overflow = 0;")
            lines.append(f"double {p}_sq = 0, {p}_rel = 0, {p}_relsq = 0, {p}_srel = 0, {p}_maxrel = 0, "
                         f"{p}_abs_f = 0, {p}_err_f = 0, {p}_maxabs_f = 0;")
            if self.wide:
                lines.append(f"u128 {p}_abs = 0; i128 {p}_err = 0;")
            else:
                lines.append(f"uint64_t {p}_abs = 0; int64_t {p}_err = 0;")
        return "\n".join(lines)

    def pragma(self) -> str:
        if self.wide:
            return ""
        sums = ",".join(f"{p}_{n}" for p in self.parts for n in
                        ("count", "errors", "nonzero", "overflow", "sq", "rel", "relsq", "srel", "abs",
                         "err", "abs_f", "err_f"))
        maxima = ",".join(f"{p}_{n}" for p in self.parts for n in ("maxabs", "maxrel", "maxabs_f"))
        return f"#pragma omp simd reduction(+:{sums}) reduction(max:{maxima})"

    def _relative(self, p: str, error: str, magnitude: str, keep: str, nonzero: bool = True) -> list:
        # numpy: e / inf == +-0 where the exact result is 0 (left out of the relative sums).
        # A row loop that never sees an exact 0 (``nonzero`` false) divides directly and
        # counts its nonzero references per row.
        divisor = f"({magnitude} != 0 ? {magnitude} : INFINITY)" if nonzero else magnitude
        return [
            f"const double {p}_r = {error} / {divisor};",
            f"const double {p}_ra = fabs({p}_r);",
            *([f"{p}_nonzero += {keep}({magnitude} != 0);"] if nonzero else []),
            f"{p}_sq += {keep}({error} * {error});",
            f"{p}_rel += {keep}{p}_ra; {p}_relsq += {keep}({p}_r * {p}_r); {p}_srel += {keep}{p}_r;",
            f"{p}_maxrel = {p}_ra > {p}_maxrel ? {p}_ra : {p}_maxrel;",
        ]

    def _integer(self, p: str, approx: str, exact: str, magnitude: str, keep: str,
                 row: bool = False) -> list:
        # numpy: (approx - exact) in uint64 viewed as int64; |e| as uint64 (2^63 flags an overflow).
        # When no error can reach 2^62 there is no overflow to flag, and |e| is one vpabsq.
        # ``row``: the row loop of a multiplier, which counts its pairs and nonzero references
        # per row and never sees an exact 0 (see c_source).
        small = _error_bits(self.spec) <= 62
        absolute = f"(uint64_t)__builtin_llabs({p}_e)" if small else \
            f"({p}_e < 0 ? -(uint64_t){p}_e : (uint64_t){p}_e)"
        lines = [
            f"const int64_t {p}_e = (int64_t)((uint64_t)({approx}) - (uint64_t)({exact}));",
            f"const uint64_t {p}_ae = {keep}{absolute};",
            *([] if row else [f"{p}_count += {keep}1;"]),
            f"{p}_errors += ({p}_ae < 1 ? {p}_ae : 1);",     # e != 0, as a vpminuq
            *([] if small else [f"{p}_overflow += ({p}_ae >> 63);"]),
            f"{p}_maxabs = {p}_ae > {p}_maxabs ? {p}_ae : {p}_maxabs;",
            f"{p}_abs += {p}_ae; {p}_err += {keep}{p}_e;" if not self.wide else
            f"{p}_abs += {p}_ae; {p}_err += {keep}(i128){p}_e;",
            f"const double {p}_ef = {self.convert(f'{p}_e')};",
        ]
        return lines + self._relative(p, f"{p}_ef", magnitude, keep, nonzero=not row)

    def row_form(self) -> bool:
        """True when the exhaustive loop runs as rows of a multiplier (see :meth:`per_pair`)."""
        return self.spec.kind == "mul" and max(self.spec.a_width, self.spec.b_width) <= 32

    def per_pair(self, output: str, row: bool = False) -> str:
        """The per-pair statements. ``row`` (a multiplier's exhaustive row, a is fixed and no
        exact product is 0): the product is the progression ``exact_0 + a*j``, its magnitude
        ``|da * bd[j]|`` (exact in double: both are integers and the product is below 2^53, or
        ``bd[j]`` is infinity where b == 0), and the row's pair and nonzero counts are added once
        per row by the caller."""
        spec = self.spec
        ow = spec.output_width
        if spec.signed:
            approx = f"((int64_t)((uint64_t)({output}) << {64 - ow}) >> {64 - ow})" if ow < 64 \
                else f"(int64_t)({output})"
        else:
            approx = f"(uint64_t)({output})"
        bits = _error_bits(spec)
        lines = [f"const int64_t approx_v = (int64_t){approx};"]
        if spec.kind in ("add", "mul"):
            if spec.kind == "add":
                lines.append("const uint64_t exact_u = (uint64_t)(aval + bval);")
            elif row:
                lines.append("const uint64_t exact_u = exact_0 + (uint64_t)aval * (uint64_t)j;")
            elif max(spec.a_width, spec.b_width) <= 32:
                # A 32 x 32 -> 64-bit product: one AVX2 multiply (vpmuldq / vpmuludq), not three.
                lines.append("const uint64_t exact_u = (uint64_t)((int64_t)(int32_t)aval * (int32_t)bval);"
                             if spec.signed else
                             "const uint64_t exact_u = (uint64_t)(uint32_t)aval * (uint32_t)bval;")
            elif spec.signed:
                lines.append("const uint64_t exact_u = (uint64_t)(aval * bval);")
            else:
                lines.append("const uint64_t exact_u = (uint64_t)aval * (uint64_t)bval;")
            if row:
                magnitude = "fabs(da * bd[j])" if spec.signed else "da * bd[j]"
            elif spec.signed:
                magnitude = f"fabs({_to_double('(int64_t)exact_u', bits)})"
            else:
                magnitude = _to_double("exact_u", bits) if bits <= 50 else "(double)exact_u"
            lines.append(f"const double exact_m = {magnitude};")
            lines += self._integer("i", "approx_v", "exact_u", "exact_m", "", row=row)
            return "\n".join(lines)
        # Dividers: the exact fixed-point quotient (integer part) and the real quotient.
        f = spec.frac_bits
        lines.append("const int keep = bval != 0;")
        if spec.signed:
            lines += ["const uint64_t mag_a = aval < 0 ? -(uint64_t)aval : (uint64_t)aval;",
                      "const uint64_t mag_b = keep ? (bval < 0 ? -(uint64_t)bval : (uint64_t)bval) : 1;",
                      f"const uint64_t mag_q = (mag_a << {f}) / mag_b;",
                      "const int64_t exact_s = ((aval < 0) != (bval < 0)) ? -(int64_t)mag_q : (int64_t)mag_q;",
                      "const uint64_t exact_u = (uint64_t)exact_s;",
                      f"const double exact_m = fabs({_to_double('exact_s', bits)});"]
        else:
            lines += ["const uint64_t safe_b = keep ? (uint64_t)bval : 1;",
                      f"const uint64_t exact_u = ((uint64_t)aval << {f}) / safe_b;",
                      "const double exact_m = " + (_to_double("(int64_t)exact_u", bits) if bits <= 50
                                                    else "(double)exact_u") + ";"]
        # Pairs with b == 0 are left out: every contribution of the integer part is masked.
        lines += [self._masked(line) for line in self._integer("i", "approx_v", "exact_u", "exact_m", "")]
        approx_d = _to_double("approx_v", bits) if spec.signed else \
            (_to_double("approx_v", bits) if bits <= 50 else "(double)(uint64_t)approx_v")
        lines += [
            f"const double real = ({_to_double('aval', 40)} / (keep ? {_to_double('bval', 40)} : 1.0)) "
            f"* {float(2 ** f)!r};",
            f"const double q_e = keep ? {approx_d} - real : 0.0;",
            "const double q_ae = fabs(q_e);",
            "q_count += keep; q_errors += (q_e != 0);",
            "q_abs_f += q_ae; q_err_f += q_e;",
            "q_maxabs_f = q_ae > q_maxabs_f ? q_ae : q_maxabs_f;",
            "const double q_m = keep ? fabs(real) : 0.0;",
        ]
        lines += self._relative("q", "q_e", "q_m", "")
        return "\n".join(lines)

    @staticmethod
    def _masked(line: str) -> str:
        # The integer part of a divider counts only pairs with b != 0.
        replacements = {
            "i_count += 1;": "i_count += keep;",
        }
        if line in replacements:
            return replacements[line]
        if line.startswith("const uint64_t i_ae = "):
            return line.replace("= (", "= keep ? (", 1).rstrip(";") + " : 0;"
        if line.startswith("i_abs += i_ae; i_err += "):
            return line.replace("i_err += ", "i_err += keep ? ", 1).rstrip(";") + " : 0;"
        if line.startswith("i_nonzero += "):
            return "i_nonzero += keep & (exact_m != 0);"
        if line.startswith("const double i_ef = "):
            return line.replace("= ", "= keep ? ", 1).rstrip(";") + " : 0.0;"
        return line

    def merge(self) -> str:
        # Block sums into the totals (128-bit integer sums, so nothing overflows).
        lines = []
        for k, p in enumerate(self.parts):
            lines += [
                f"t[{k}].count += {p}_count; t[{k}].errors += {p}_errors; t[{k}].nonzero += {p}_nonzero;",
                f"t[{k}].overflow += {p}_overflow;",
                f"if ({p}_maxabs > t[{k}].max_abs) t[{k}].max_abs = {p}_maxabs;",
                f"if ({p}_maxrel > t[{k}].max_rel) t[{k}].max_rel = {p}_maxrel;",
                f"if ({p}_maxabs_f > t[{k}].max_abs_f) t[{k}].max_abs_f = {p}_maxabs_f;",
                f"t[{k}].sum_abs += (u128){p}_abs; t[{k}].sum_err += (i128){p}_err;",
                f"t[{k}].sum_abs_f += {p}_abs_f; t[{k}].sum_err_f += {p}_err_f;",
                f"t[{k}].sum_sq += {p}_sq; t[{k}].sum_rel += {p}_rel; t[{k}].sum_rel_sq += {p}_relsq;",
                f"t[{k}].sum_signed_rel += {p}_srel;",
            ]
        return "\n".join(lines)


_TOTALS = r"""
typedef struct {
  uint64_t count, errors, nonzero, excluded, max_abs, overflow;
  u128 sum_abs; i128 sum_err;
  double sum_abs_f, sum_err_f, max_abs_f, sum_sq, sum_rel, sum_rel_sq, sum_signed_rel, max_rel;
} total_t;
static void store_totals(const total_t *t, int parts, int64_t excluded, uint64_t *out) {
  for (int k = 0; k < parts; k++) {
    acc_t *o = (acc_t *)out + k;
    o->count = t[k].count; o->errors = t[k].errors; o->nonzero = t[k].nonzero;
    o->excluded = (uint64_t)excluded; o->max_abs = t[k].max_abs; o->overflow = t[k].overflow;
    o->sum_abs_lo = (uint64_t)t[k].sum_abs; o->sum_abs_hi = (uint64_t)(t[k].sum_abs >> 64);
    store_i128(&o->sum_err_lo, &o->sum_err_hi, t[k].sum_err);
    o->sum_abs_f = t[k].sum_abs_f; o->sum_err_f = t[k].sum_err_f; o->max_abs_f = t[k].max_abs_f;
    o->sum_sq = t[k].sum_sq; o->sum_rel = t[k].sum_rel; o->sum_rel_sq = t[k].sum_rel_sq;
    o->sum_signed_rel = t[k].sum_signed_rel; o->max_rel = t[k].max_rel;
  }
}
"""


def c_source(graph: Graph, spec: KernelSpec) -> str:
    """The C translation unit of ``graph`` and the error statistics of ``spec``.

    It defines three functions (all operands by value, ``int64_t``):

    * ``model_pairs(pa, pb, n, out)``: the output bit patterns of ``n`` operand
      bit-pattern pairs (the numpy interpreter's ``evaluate``);
    * ``eval_pairs(a, b, n, acc)``: the statistics of ``n`` operand value pairs;
    * ``eval_range(a_lo, a_hi, b_lo, b_hi, acc)``: those of every pair of
      ``[a_lo, a_hi) x [b_lo, b_hi)``.

    ``acc`` receives one accumulator per measure (two for dividers: the exact
    fixed-point quotient, then the real quotient).

    Raises
    ------
    ValueError
        If a node is wider than 64 bits.
    """
    widest = graph.max_width
    if widest > 64:
        raise ValueError(f"the compiled engine holds at most 64-bit values, but a node is {widest} bits wide")
    emit = _Emitter(graph)
    canonical = emit.canonical
    nodes = [n for n in _live(graph, canonical) if n.op not in ("input", "const")]
    depends = _dependencies(graph)
    statements = {n: emit.statement(n) for n in nodes}
    output = emit.name(graph.output)
    error_bits = _error_bits(spec)
    # Block sums of |e| < 2^46 stay in 64 bits (2^14 * 2^46 < 2^63); larger errors
    # (32-bit multipliers and dividers) are summed in 128 bits pair by pair.
    wide = error_bits > 46
    block = 1 << 14
    stats = _Stats(spec, wide)
    parts = len(stats.parts)
    mask_a, mask_b = (1 << spec.a_width) - 1, (1 << spec.b_width) - 1
    a_only = [n for n in nodes if depends[n] == {"a"}]
    b_only = [n for n in nodes if depends[n] == {"b"}]
    neither = [n for n in nodes if not depends[n]]
    both = [n for n in nodes if len(depends[n]) == 2]
    # Values of b alone that the per-pair loop reads: kept in arrays over a column block,
    # except a slice of b, which is cheaper to recompute than to load.
    read_b = [n for n in b_only if any(n is canonical[x] for m in both for x in m.args)
              or n is canonical[graph.output]]
    stored = [n for n in read_b if not (n.op == "slice" and n.args[0].op == "input")]
    recomputed = [n for n in read_b if n not in stored]
    specialised = _row_lookups(both, depends, emit)
    columns = [(f"s{n.index}", emit.ctype(n), f"v{n.index}", f"v{n.index}") for n in stored] + \
        [(f"s{name}", ctype, name, value) for name, ctype, value in specialised.per_column]
    type_a, type_b = emit.ctype(graph.inputs["a"]), emit.ctype(graph.inputs["b"])
    input_a = f"const {type_a} a = ({type_a})((uint64_t)aval & {mask_a}ull);"
    input_b = f"const {type_b} b = ({type_b})((uint64_t)bval & {mask_b}ull);"
    sep = "\n"

    pair_code = sep.join([input_a, input_b, *(statements[n] for n in nodes), stats.per_pair(output)])

    def range_loop(lo: str, hi: str, row: bool) -> str:
        inner = sep.join(["const int64_t bval = c0 + j;", input_b,
                          *(f"const {ctype} {name} = {array}[j];" for array, ctype, name, _ in columns),
                          *(statements[n] for n in recomputed),
                          *(specialised.per_pair.get(n, statements[n]) for n in both),
                          stats.per_pair(output, row=row)])
        return f"{stats.pragma()}\n    for (int64_t j = {lo}; j < {hi}; j++) {{\n{inner}\n}}"

    row = stats.row_form()
    if row:
        # A multiplier's row (a != 0): the products are a progression, and their magnitudes
        # |a| * bd[j], with bd[j] the double of b, or infinity where b == 0 (e / inf == +-0, as in
        # the general loop). The row a == 0 takes the general loop.
        row_loops = f"""if (aval == 0) {{
        {range_loop("0", "cn", False)}
      }} else {{
        const uint64_t exact_0 = (uint64_t)aval * (uint64_t)c0;
        const double da = (double)aval;
        {range_loop("0", "cn", True)}
        i_count += cn; i_nonzero += cn - (c0 <= 0 && 0 < c0 + cn);    /* (a variable here stops
        gcc from using the vectorised loop) */
      }}"""
    else:
        row_loops = range_loop("0", "cn", False)
    excluded_pairs = ("for (int64_t i = 0; i < n; i++) excluded += b[i] == 0;" if spec.kind == "div" else "")
    excluded_range = ("excluded = (b_lo <= 0 && 0 < b_hi) ? (a_hi - a_lo) : 0;" if spec.kind == "div" else "")
    source = f"""{_PRELUDE}
{_TOTALS}
{sep.join(emit.tables + specialised.tables)}

void model_pairs(const uint64_t *pa, const uint64_t *pb, int64_t n, uint64_t *out) {{
  for (int64_t i = 0; i < n; i++) {{
    const {type_a} a = ({type_a})pa[i];
    const {type_b} b = ({type_b})pb[i];
    {sep.join(statements[n] for n in nodes)}
    out[i] = (uint64_t)({output});
  }}
}}

void eval_pairs(const int64_t *va, const int64_t *vb, int64_t n, uint64_t *out) {{
  total_t t[{parts}] = {{0}};
  int64_t excluded = 0;
  {{ const int64_t *b = vb; {excluded_pairs} }}
  for (int64_t start = 0; start < n; start += {block}) {{
    const int64_t stop = n - start < {block} ? n : start + {block};
    {stats.declarations()}
    {stats.pragma()}
    for (int64_t i = start; i < stop; i++) {{
      const int64_t aval = va[i], bval = vb[i];
      {pair_code}
    }}
    {stats.merge()}
  }}
  store_totals(t, {parts}, excluded, out);
}}

void eval_range(int64_t a_lo, int64_t a_hi, int64_t b_lo, int64_t b_hi, uint64_t *out) {{
  total_t t[{parts}] = {{0}};
  int64_t excluded = 0;
  {excluded_range}
  {sep.join(statements[n] for n in neither)}
  uint64_t *scratch = {f"malloc(sizeof(uint64_t) * {len(columns)} * {block})" if columns else "0"};
  {sep.join(f"{ctype} *{array} = ({ctype} *)(scratch + {k * block});" for k, (array, ctype, _, _) in enumerate(columns))}
  {f"double *bd = malloc(sizeof(double) * {block});" if row else ""}
  for (int64_t c0 = b_lo; c0 < b_hi; c0 += {block}) {{
    const int64_t cn = b_hi - c0 < {block} ? b_hi - c0 : {block};
    for (int64_t j = 0; j < cn; j++) {{
      const int64_t bval = c0 + j;
      {"bd[j] = bval != 0 ? (double)bval : INFINITY;" if row else ""}
      {input_b}
      {sep.join(statements[n] for n in b_only)}
      {sep.join(f"{array}[j] = {value};" for array, _, _, value in columns)}
    }}
    for (int64_t aval = a_lo; aval < a_hi; aval++) {{
      {input_a}
      {sep.join(statements[n] for n in a_only)}
      {sep.join(specialised.per_row)}
      {stats.declarations()}
      {row_loops}
      {stats.merge()}
    }}
  }}
  free(scratch);
  {"free(bd);" if row else ""}
  store_totals(t, {parts}, excluded, out);
}}
"""
    return source


def c_function(graph: Graph, name: str) -> str:
    """``static inline uint64_t name(uint64_t a, uint64_t b)``: the graph's output bit pattern for
    the operand bit patterns ``a``, ``b`` (higher bits ignored), as C for another translation unit.

    Every node is a ``uint64_t``; its look-up tables are named after it. This is how the compiled golden
    model (:mod:`hls.golden`) inlines a kernel's approximate units.

    Raises
    ------
    ValueError
        If a node is wider than 64 bits.
    """
    if graph.max_width > 64:
        raise ValueError(f"the compiled engine holds at most 64-bit values, but a node is "
                         f"{graph.max_width} bits wide")
    emit = _Emitter(graph, narrow=False, prefix=f"{name}_")
    body = [emit.statement(n) for n in _live(graph, emit.canonical) if n.op not in ("input", "const")]
    masks = [f"a &= {(1 << graph.inputs['a'].width) - 1}ull;" if "a" in graph.inputs else "(void)a;",
             f"b &= {(1 << graph.inputs['b'].width) - 1}ull;" if "b" in graph.inputs else "(void)b;"]
    sep = "\n  "
    return (f"{chr(10).join(emit.tables)}\n"
            f"static inline uint64_t {name}(uint64_t a, uint64_t b) {{\n  {sep.join(masks + body)}\n"
            f"  return (uint64_t)({emit.name(graph.output)});\n}}\n")


# --- compilation and loading ---------------------------------------------------------------------

_LIBRARIES: dict = {}
_LOCK = threading.Lock()


def _cache_directory() -> Path:
    from .synth import default_cache_dir    # the one rule for where axhls caches things
    return default_cache_dir() / "compiled"


@functools.cache
def _compiler_identity(path: str) -> str:
    result = subprocess.run([path, "--version"], capture_output=True, text=True)
    return result.stdout.splitlines()[0] if result.stdout else path


@functools.cache
def _machine() -> str:
    # -march=native code runs only where it was compiled: the CPU is part of the key.
    try:
        flags = next((line for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith(("flags", "Features"))), "")
    except OSError:
        flags = ""
    return f"{platform.machine()} {platform.processor()} {flags}"


def shared_library(source: str, flags=COMPILE_FLAGS, *, what: str = "the error kernel") -> Path:
    """The shared object of C ``source`` compiled with ``flags``: from ``<cache>/compiled/`` when
    it is there, else compiled and written there atomically (keyed by the source, the compiler,
    the flags and the CPU, so concurrent processes and other machines never share a wrong one).

    Raises
    ------
    CompilerUnavailable
        No C compiler, or it rejects the source (``what`` names it in the message).
    """
    reason = unavailable_reason()
    if reason:
        raise CompilerUnavailable(f"the compiled engine is unavailable: {reason}")
    cc = compiler()
    key = hashlib.sha256("\0".join([source, _compiler_identity(cc), " ".join(flags),
                                    _machine()]).encode()).hexdigest()[:32]
    directory = _cache_directory()
    target = directory / f"kernel_{key}.so"
    if not target.is_file():
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="axhls-kernel-") as work:
            c_file, so_file = Path(work, "kernel.c"), Path(work, "kernel.so")
            c_file.write_text(source)
            result = subprocess.run([cc, *flags, str(c_file), "-o", str(so_file)],
                                    capture_output=True, text=True)
            if result.returncode != 0:
                first = next((line for line in (result.stderr or result.stdout).splitlines()
                              if "error" in line), "the compiler failed")
                raise CompilerUnavailable(f"{cc} cannot compile {what}: {first}")
            # Atomic: another process compiling the same kernel sees the whole file or none.
            artefacts.write_bytes(target, so_file.read_bytes())
    return target


def _load(source: str) -> ctypes.CDLL:
    """Compile ``source`` (or find it compiled in the cache) and load it."""
    key = hashlib.sha256(source.encode()).hexdigest()
    with _LOCK:
        library = _LIBRARIES.get(key)
        if library is not None:
            return library
        library = ctypes.CDLL(str(shared_library(source)))
        i64, pointer = ctypes.c_int64, ctypes.c_void_p
        library.model_pairs.argtypes = (pointer, pointer, i64, pointer)
        library.eval_pairs.argtypes = (pointer, pointer, i64, pointer)
        library.eval_range.argtypes = (i64, i64, i64, i64, pointer)
        for function in (library.model_pairs, library.eval_pairs, library.eval_range):
            function.restype = None
        _LIBRARIES[key] = library
        return library


# --- accumulators --------------------------------------------------------------------------------

def _signed128(lo: int, hi: int) -> int:
    value = lo | (hi << 64)
    return value - (1 << 128) if value >> 127 else value


class _Raw:
    """Exact totals of one measure over any number of kernel calls (Python ints for the integer sums)."""

    def __init__(self, words: np.ndarray):
        ints = [int(v) for v in words[:len(_INT_FIELDS)]]
        floats = words[len(_INT_FIELDS):].view(np.float64)
        fields = dict(zip(_INT_FIELDS, ints))
        self.count, self.errors, self.nonzero = fields["count"], fields["errors"], fields["nonzero"]
        self.excluded, self.max_abs, self.overflow = fields["excluded"], fields["max_abs"], fields["overflow"]
        self.sum_abs = fields["sum_abs_lo"] | (fields["sum_abs_hi"] << 64)
        self.sum_err = _signed128(fields["sum_err_lo"], fields["sum_err_hi"])
        for name, value in zip(_FLOAT_FIELDS, floats):
            setattr(self, name, float(value))

    def merge(self, other: "_Raw") -> "_Raw":
        for name in ("count", "errors", "nonzero", "excluded", "overflow", "sum_abs", "sum_err",
                     "sum_abs_f", "sum_err_f", "sum_sq", "sum_rel", "sum_rel_sq", "sum_signed_rel"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("max_abs", "max_abs_f", "max_rel"):
            setattr(self, name, max(getattr(self, name), getattr(other, name)))
        return self

    def integer_stats(self) -> ErrorStats:
        """As :meth:`ErrorStats.of` (against integer references)."""
        if self.overflow:
            raise OverflowError("an error does not fit in 64 bits")
        if self.count == 0:
            return ErrorStats(excluded=self.excluded)
        return ErrorStats(count=self.count, errors=self.errors, sum_abs=float(self.sum_abs),
                          sum_err=float(self.sum_err), sum_sq=self.sum_sq, max_abs=self.max_abs,
                          nonzero=self.nonzero, sum_rel=self.sum_rel, sum_rel_sq=self.sum_rel_sq,
                          sum_signed_rel=self.sum_signed_rel, max_rel=self.max_rel,
                          excluded=self.excluded)

    def quotient_stats(self) -> ErrorStats:
        """As :meth:`ErrorStats.of_quotient` (against the real-valued quotient)."""
        return ErrorStats(count=self.count, errors=self.errors, sum_abs=self.sum_abs_f,
                          sum_err=self.sum_err_f, max_abs=self.max_abs_f, excluded=self.excluded,
                          sum_sq=self.sum_sq, nonzero=self.nonzero, sum_rel=self.sum_rel,
                          sum_rel_sq=self.sum_rel_sq, sum_signed_rel=self.sum_signed_rel,
                          max_rel=self.max_rel)


# --- the evaluator -------------------------------------------------------------------------------

class Evaluator:
    """A graph compiled with its error statistics: the model and :class:`ErrorStats` at C speed.

    Parameters
    ----------
    graph : Graph
        The traced unit (or a translated netlist, see :mod:`approx_units.verilog_eval`).
    spec : KernelSpec

    Attributes
    ----------
    kind : str
        As ``spec.kind`` (the error engine reads it).

    Raises
    ------
    CompilerUnavailable
        If there is no C compiler, or it cannot compile the kernel.
    ValueError
        If a node is wider than 64 bits.
    """

    def __init__(self, graph: Graph, spec: KernelSpec):
        self.graph, self.spec, self.kind = graph, spec, spec.kind
        self.source = c_source(graph, spec)
        self._library = _load(self.source)

    @property
    def parts(self) -> int:
        return 2 if self.kind == "div" else 1

    def model(self, a_patterns, b_patterns) -> np.ndarray:
        """The output bit patterns (``uint64``) for arrays of operand bit patterns, as
        :func:`~approx_units.numpy_backend.evaluate` gives them."""
        a, b = np.broadcast_arrays(np.asarray(a_patterns, dtype=np.uint64),
                                   np.asarray(b_patterns, dtype=np.uint64))
        shape = a.shape
        a, b = np.ascontiguousarray(a.ravel()), np.ascontiguousarray(b.ravel())
        out = np.empty(a.size, dtype=np.uint64)
        self._library.model_pairs(a.ctypes.data, b.ctypes.data, a.size, out.ctypes.data)
        return out.reshape(shape)

    def _raw(self, words: np.ndarray) -> list:
        return [_Raw(words[k * _ACC_WORDS:(k + 1) * _ACC_WORDS]) for k in range(self.parts)]

    def _parts(self, raws: list) -> dict:
        if self.kind != "div":
            return {"exact": raws[0].integer_stats()}
        return {"quotient": raws[1].quotient_stats(), "integer": raws[0].integer_stats()}

    def raw_pairs(self, a, b) -> list:
        a = np.ascontiguousarray(np.asarray(a, dtype=np.int64).ravel())
        b = np.ascontiguousarray(np.asarray(b, dtype=np.int64).ravel())
        if a.size != b.size:
            raise ValueError(f"operand arrays differ in length: {a.size} and {b.size}")
        words = np.zeros(self.parts * _ACC_WORDS, dtype=np.uint64)
        self._library.eval_pairs(a.ctypes.data, b.ctypes.data, a.size, words.ctypes.data)
        return self._raw(words)

    def raw_range(self, a_range: tuple, b_range: tuple) -> list:
        words = np.zeros(self.parts * _ACC_WORDS, dtype=np.uint64)
        self._library.eval_range(int(a_range[0]), int(a_range[1]), int(b_range[0]), int(b_range[1]),
                                 words.ctypes.data)
        return self._raw(words)

    def pair_stats(self, a, b) -> dict:
        """``{measure: ErrorStats}`` of the operand value pairs ``a`` and ``b`` (broadcast together),
        with the measures of the error engine (``exact``; or ``quotient`` and ``integer``).

        Raises
        ------
        ValueError
            If a value is outside its operand's range.
        """
        a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
        for role, values, width in (("a", a, self.spec.a_width), ("b", b, self.spec.b_width)):
            lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if self.spec.signed else (0, (1 << width) - 1)
            if values.size and (int(values.min()) < lo or int(values.max()) > hi):
                bad = values[(values < lo) | (values > hi)].flat[0]
                raise ValueError(f"operand {role} value {int(bad)} is out of range for "
                                 f"{'signed' if self.spec.signed else 'unsigned'} {width}-bit operands; "
                                 f"allowed: {lo}..{hi}")
        return self._parts(self.raw_pairs(a, b))

    def range_stats(self, a_range: tuple, b_range: tuple, *, workers: int | None = None,
                    progress: bool = False, rows_per_task: int | None = None) -> dict:
        """``{measure: ErrorStats}`` of every pair of the half-open value ranges, on ``workers`` threads.

        Rows of ``a`` are cut into tasks of about 2^22 pairs; each thread runs
        the compiled loop without the GIL. The integer sums are merged exactly.
        A progress bar with the estimated time (tqdm, on stderr) shows after
        two seconds when ``progress``. On Ctrl-C (KeyboardInterrupt) the tasks
        not yet started are dropped and the running ones (a few milliseconds
        each) finish before the exception propagates.

        Raises
        ------
        ValueError
            ``workers`` is not positive.
        """
        a_lo, a_hi = (int(v) for v in a_range)
        b_lo, b_hi = (int(v) for v in b_range)
        columns = max(1, b_hi - b_lo)
        rows = rows_per_task or max(1, _TASK_PAIRS // columns)
        tasks = [(lo, min(lo + rows, a_hi)) for lo in range(a_lo, a_hi, rows)]
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be a positive number of threads, not {workers}")
        workers = workers or os.cpu_count() or 1
        results = [None] * len(tasks)
        with tqdm(total=(a_hi - a_lo) * (b_hi - b_lo), unit="pair", unit_scale=True, file=sys.stderr,
                  disable=not progress, leave=False, delay=2.0) as bar, \
                artefacts.interrupts_deferred() as interrupt:
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="axhls-eval")
            try:
                futures = {pool.submit(self.raw_range, task, (b_lo, b_hi)): index
                           for index, task in enumerate(tasks)}
                for future in interrupts.as_completed(futures, interrupt):
                    index = futures[future]
                    results[index] = future.result()
                    lo, hi = tasks[index]
                    bar.update((hi - lo) * (b_hi - b_lo))
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        # Merged in task order, whichever thread finished first: the float sums are deterministic.
        totals = self._raw(np.zeros(self.parts * _ACC_WORDS, dtype=np.uint64))
        for raws in results:
            totals = [t.merge(r) for t, r in zip(totals, raws)]
        return self._parts(totals)


def kernel_spec(operator) -> KernelSpec | None:
    """The :class:`KernelSpec` of a library unit or a translated netlist.

    ``None`` if ``operator`` has no dataflow graph with inputs ``a`` and ``b`` as
    wide as its declared operand widths (the error engine then uses its model).
    """
    graph = getattr(operator, "graph", None)
    if not isinstance(graph, Graph) or set(graph.inputs) != {"a", "b"} or graph.output is None:
        return None
    width = operator.width
    if isinstance(width, tuple):
        declared = tuple(width)
    else:
        b_width = getattr(operator, "width_b", None)
        declared = (width, b_width if b_width is not None else width)
    a_width, b_width = graph.inputs["a"].width, graph.inputs["b"].width
    if declared != (a_width, b_width):
        return None
    params = getattr(operator, "params", None) or {}
    signed = bool(params.get("signed", getattr(operator, "signed", False)))
    frac_bits = int(params.get("frac_bits", getattr(operator, "frac_bits", 0)) or 0)
    return KernelSpec(kind=operator.kind, a_width=a_width, b_width=b_width,
                      output_width=graph.output.width, signed=signed, frac_bits=frac_bits)


def evaluator_for(operator) -> Evaluator:
    """The compiled :class:`Evaluator` of a library unit or a :class:`~approx_units.verilog_eval.GateNetlist`.

    Raises
    ------
    CompilerUnavailable
        If there is no C compiler.
    ValueError
        If ``operator`` has no dataflow graph, or a node is wider than 64 bits.
    """
    own = getattr(operator, "compiled_evaluator", None)
    if callable(own):       # a gate netlist compiles bit-sliced (approx_units.bitsliced)
        return own()
    spec = kernel_spec(operator)
    if spec is None:
        raise ValueError(f"{operator!r} has no dataflow graph to compile")
    return Evaluator(operator.graph, spec)
