"""The golden model at compiled speed: a kernel's typed body as C, compiled with the system's compiler.

:class:`CompiledModel` translates the body of a kernel's
:class:`~hls.frontend.typed.TypedKernel` (the statements the Python run of
:mod:`hls.frontend.golden` executes: loops, branches, ``break``/``continue``,
early ``return``, array reads and writes, helpers inlined) into one C function,
compiles it (``gcc -O2 -fwrapv``), keeps the shared object in
``<cache>/compiled/`` keyed by a hash of the source, the compiler, the flags and
the CPU (:func:`approx_units.compiled.shared_library`: written atomically, so
concurrent processes share it safely), and calls it through :mod:`ctypes`.
Calling it is calling the kernel: ``kernel.compiled_model()(a=..., n=...)``
updates the array arguments in place and returns ``None``, an ``int`` or a
tuple, as ``kernel(...)`` does.

Bit-exact with the Python run
-----------------------------
* Every value is computed in one signed C type, ``int64_t`` when every
  expression, variable and parameter shape of the kernel has at most 61
  magnitude bits, else ``__int128`` (at most 125): each value of the Python run
  lies in its expression's Amaranth shape, so it is held exactly, and mixed
  signed/unsigned comparisons, ``min``/``max`` and ``abs`` mean what they mean
  on Python ints.
* Assignments, stores and returns wrap to their shapes as the Python run does;
  ``//`` and ``%`` floor, with ``x // 0 == x % 0 == 0``; ``>>`` is arithmetic;
  ``~`` of ``unsigned(n)`` flips ``n`` bits; ``and``/``or`` and ``a if c else b``
  short-circuit, so a guard still protects a read.
* Each operator's C form is chosen by its kind in the operator table
  (:mod:`hls.ir.ops`); an approximate unit is its traced graph
  (:func:`hls.unit_operators.approx_unit`, the one the hardware and the Python
  run interpret) emitted as C by :func:`approx_units.compiled.c_function`, with
  the same sign handling.
* Reads are evaluated in the Python run's order, so a run with two bad indices
  fails at the same one: every out-of-range index raises the same
  :class:`~hls.errors.KernelRuntimeError`, every loop counts its iterations
  against ``max_loop_iterations`` (:class:`~hls.errors.KernelLoopLimit`), and
  writes made before an error are visible in the caller's arrays.
* Arguments are checked as the Python run checks them; list arguments are read
  and written back through a small C helper over CPython's list API (numpy
  arrays through their buffers), so a call costs microseconds, not the
  per-element Python work of the checks.

Fallback
--------
Streams
-------
A stream read takes the next token of a buffer that holds the input stream's list (or
tuple, or numpy array), checked whole before the run as the Python run checks it; a
read past its end, or any read of another iterable, calls back into Python, which takes
exactly one token (so an iterator is advanced as often as the Python run advances it)
or raises the Python run's own :class:`~hls.errors.KernelRuntimeError`. A write wraps
the token to the stream's shape and appends it to a buffer that is emptied into the
caller's list when full and at the end (also after an error, as the Python run's
writes are visible). :attr:`CompiledModel.tokens_read` counts the tokens read, so a
chain (:class:`hls.dataflow.CompiledDataflow`) runs each stage compiled.

Fallback
--------
A kernel the translation cannot hold (a shape wider than 125 magnitude bits, a
unit graph wider than 64 bits, an operator without a C form) or a machine
without a C compiler gets a model that runs the Python run:
:attr:`CompiledModel.fallback_reason` says why (``None`` when compiled), and
``CompiledModel(kernel, fallback=False)`` raises :class:`CompiledModelUnsupported`
instead. Calls inside an :func:`hls.unit_operators.observe_approx` block also
take the Python run, whose approximate operations the observer must see.
"""

from __future__ import annotations

import ast
import builtins
import ctypes
import functools
import itertools
import sysconfig
import threading
import time

import numpy as np
from amaranth.hdl import Shape

from approx_units import compiled as native

from .errors import KernelLoopLimit, KernelRuntimeError
from .approx import EXACT_OPERATOR, KINDS
from .frontend.golden import InputStream, StreamSite, check_loop_bound
from .frontend.typed import SHAPE_ATTR
from .ir.ops import APPROX_ATTR, APPROX_CALL, OPERATION_ATTR, operator_for_syntax, operator_of, stream_call
from .types import shape_range
from .unit_operators import UnitWidthError, approx_observed, approx_unit

__all__ = ["CompiledModel", "CompiledModelUnsupported", "FLAGS"]

#: Flags of every compiled model: ``-fwrapv`` gives signed arithmetic two's complement wrap-around
#: and ``<<`` of negative values their bit pattern meaning, which the translation relies on.
FLAGS = ("-O2", "-march=native", "-fPIC", "-shared", "-fwrapv", "-fno-strict-aliasing", "-std=gnu11", "-w")

#: Magnitude bits (width, less the sign bit) a kernel's widest shape may have in each value type.
_INT64_BITS, _INT128_BITS = 61, 125

#: A loop budget no run reaches (``max_loop_iterations=None``).
_NO_LIMIT = (1 << 63) - 1

#: C return codes of ``run``.
_FELL_OFF, _RETURNED, _BAD_INDEX, _LOOP_LIMIT, _STREAM_IO = 0, 1, 2, 3, 4

#: Tokens an output stream's buffer holds before the compiled code hands them to the caller's list.
_OUTPUT_BUFFER = 256


class CompiledModelUnsupported(ValueError):
    """A kernel the compiled golden model cannot translate; the message names the line and the reason."""


class _Unsupported(Exception):
    def __init__(self, node, reason: str):
        super().__init__(reason)
        self.lineno = getattr(node, "lineno", None)
        self.reason = reason


_PRELUDE = r"""
#include <stdint.h>
typedef {value} V;
#define BITS {bits}
static inline V h_abs(V x) {{ return x < 0 ? -x : x; }}
static inline V h_min(V a, V b) {{ return b < a ? b : a; }}
static inline V h_max(V a, V b) {{ return b > a ? b : a; }}
static inline V h_floordiv(V a, V b) {{
  if (b == 0) return 0;
  V q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}}
static inline V h_mod(V a, V b) {{
  if (b == 0) return 0;
  V r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}}
/* Amounts are unsigned (the front end says so); an amount past the type's width can only
   shift 0 left, since the exact result fits its shape. */
static inline V h_shl(V a, V b) {{ return b >= BITS ? (V)0 : a << b; }}
static inline V h_shr(V a, V b) {{ return b >= BITS ? (a < 0 ? (V)-1 : (V)0) : a >> b; }}
static inline V h_wrap_signed(V v, V mask, V sign) {{ return ((v & mask) ^ sign) - sign; }}
static inline V h_unit_signed(uint64_t p, int w) {{ return (V)((int64_t)(p << (64 - w)) >> (64 - w)); }}
/* The caller's stream service: (frame, 2k) puts input k's next token in the frame's fetched
   word, (frame, 2k + 1) empties output k's buffer into its list; nonzero when it raised. */
typedef int (*stream_io)(int64_t *frame, int64_t what, int64_t site);
"""

_LISTS_SOURCE = r"""
#include <Python.h>
#include <stdint.h>
/* layout: one row of 5 words per array (offset in the frame, depth, low, high, offset of its
   original or -1). Array k is read when values[k] is a list of exactly `depth` exact ints in
   [low, high] (into the frame, and its original); else status[k] = 1, for the caller to check.
   Returns how many arrays were not read. */
int64_t lists_read(PyObject *values, int64_t *frame, const int64_t *layout, int64_t count, int64_t *status) {
  int64_t unread = 0;
  for (int64_t k = 0; k < count; k++) {
    const int64_t *row = layout + 5 * k;
    PyObject *list = PyTuple_GET_ITEM(values, k);
    status[k] = 1;
    if (!PyList_CheckExact(list) || PyList_GET_SIZE(list) != row[1]) { unread++; continue; }
    int64_t *buffer = frame + row[0];
    int64_t i = 0;
    for (; i < row[1]; i++) {
      PyObject *item = PyList_GET_ITEM(list, i);
      if (!PyLong_CheckExact(item)) break;
      int overflow = 0;
      long long value = PyLong_AsLongLongAndOverflow(item, &overflow);
      if (overflow || value < row[2] || value > row[3]) break;
      buffer[i] = value;
    }
    if (i < row[1]) { unread++; continue; }
    if (row[4] >= 0) for (i = 0; i < row[1]; i++) frame[row[4] + i] = buffer[i];
    status[k] = 0;
  }
  return unread;
}
/* Each array that lists_read read and that has an original: its list's elements become the
   frame's wherever they changed. -1 if an int cannot be made. */
int lists_write(PyObject *values, const int64_t *frame, const int64_t *layout, int64_t count,
                const int64_t *status) {
  for (int64_t k = 0; k < count; k++) {
    const int64_t *row = layout + 5 * k;
    if (status[k] != 0 || row[4] < 0) continue;
    PyObject *list = PyTuple_GET_ITEM(values, k);
    for (int64_t i = 0; i < row[1]; i++) {
      if (frame[row[0] + i] == frame[row[4] + i]) continue;
      PyObject *value = PyLong_FromLongLong(frame[row[0] + i]);
      if (value == NULL) return -1;
      PyList_SetItem(list, i, value);
    }
  }
  return 0;
}
"""


@functools.cache
def _lists_library():
    """The list helper (:data:`_LISTS_SOURCE`), or ``None`` when it cannot be built (numpy converts then)."""
    include = sysconfig.get_paths().get("include")
    try:
        path = native.shared_library(_LISTS_SOURCE, (*FLAGS, f"-I{include}"), what="the list helper")
    except native.CompilerUnavailable:
        return None
    library = ctypes.PyDLL(str(path))     # holds the GIL: it makes and drops Python objects
    library.lists_read.argtypes = (ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                   ctypes.c_void_p)
    library.lists_read.restype = ctypes.c_int64
    library.lists_write.argtypes = (ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                    ctypes.c_void_p)
    library.lists_write.restype = ctypes.c_int
    return library


_LOADED: dict = {}
_LOCK = threading.Lock()


def _load_model(source: str):
    path = native.shared_library(source, FLAGS, what="the compiled golden model")
    with _LOCK:
        function = _LOADED.get(path)
        if function is None:
            function = ctypes.CDLL(str(path)).run
            function.argtypes = (ctypes.c_void_p,)
            function.restype = ctypes.c_int
            _LOADED[path] = function
    return function


def _magnitude_bits(shape: Shape) -> int:
    return shape.width - 1 if shape.signed else shape.width


def _fits_int64(shape: Shape) -> bool:
    """Whether a value of ``shape`` fits one int64 word: as itself, or ``unsigned(64)`` as its bit pattern."""
    return _magnitude_bits(shape) <= 63 or shape == Shape(64, False)


def _unsigned64(shape: Shape) -> bool:
    """A shape held in an int64 word as its bit pattern (read back zero-extended)."""
    return shape == Shape(64, False)


def _words(values) -> np.ndarray:
    """Python ints of one shape as int64 words (``unsigned(64)`` values as their bit patterns)."""
    values = [int(v) for v in values]
    return np.array(values, dtype=np.uint64 if any(v >= 1 << 63 for v in values) else np.int64).view(np.int64)


class _Frame:
    """Where one call's words live in its int64 frame: the C function's only argument.

    ``[array status][error: 3][results][loop budgets][scalars][arrays][originals][locals]
    [selection][streams: 3 each][fetched token][stream service]``:
    one allocation per call, zero-filled (local arrays start at 0, as on-chip memories
    do). A stream's tokens live in a buffer of their own, whose address the frame holds. An array's *original* is its contents at the call, kept for the arrays the kernel
    stores to, so that only the elements that changed are written back into a list.
    """

    def __init__(self, typed, stored: set, loops: int, selections: int = 0):
        arrays = [param for param in typed.params if param.kind == "array"]
        at = 0

        def take(words: int) -> int:
            nonlocal at
            at += words
            return at - words

        self.status = take(len(arrays))
        self.error = take(3)
        self.results = take(max(1, len(typed.return_shapes)))
        self.remaining = take(max(1, loops))
        self.loops = loops
        self.scalars = {param.name: take(1) for param in typed.params if param.kind == "scalar"}
        self.arrays = {param.name: take(param.depth) for param in arrays}
        self.originals = {param.name: take(param.depth) for param in arrays if param.name in stored}
        self.locals = {name: take(local.depth) for name, local in typed.local_arrays.items()}
        self.selection = take(selections)
        self.selections = selections
        # A stream's words: [tokens read or written, tokens in its buffer (input) or its
        # capacity (output), the buffer's address]; the fetched token; the service's address.
        self.streams = {param.name: take(3) for param in typed.params if param.kind == "stream"}
        self.fetched = take(1)
        self.io = take(1)
        self.size = at
        # One row per array parameter for the list helper: offset, depth, low, high, original (-1: none).
        rows = []
        for param in arrays:
            low, high = shape_range(param.shape)
            # An unsigned(64) array is read and written by the caller (depth -1: no list matches).
            if _unsigned64(param.shape):
                depth, high = -1, 0
            else:
                depth = param.depth
            rows.append((self.arrays[param.name], depth, low, high, self.originals.get(param.name, -1)))
        self.layout = np.array(rows or [(0, 0, 0, 0, -1)], dtype=np.int64)


class _Translation:
    """The C source of one typed kernel (see the module documentation)."""

    def __init__(self, typed, switched: dict | None = None):
        self.typed = typed
        #: Operation key -> the units one run may choose for it (selection 0 is exact, i the i-th unit).
        self.switched = dict(switched or {})
        self.switch_slots = {key: slot for slot, key in enumerate(self.switched)}
        self.lines: list[str] = []
        self.depth = 1
        self.temporaries = itertools.count()
        self.accesses: list[tuple] = []     # (filename, lineno, array as the user named it, depth)
        self.loops: list[tuple] = []        # (filename, lineno)
        self.stream_sites: list[StreamSite] = []
        self.stream_slots = {param.name: slot for slot, param in
                             enumerate(param for param in typed.params if param.kind == "stream")}
        self.units: dict = {}               # (choice, shapes) -> C function name
        self.unit_code: list[str] = []
        self.widest = 0
        self.names: dict[str, str] = {}
        self.array_slots: dict[str, int] = {}
        self.stored: set[str] = set()
        self.frame: _Frame | None = None
        for index, param in enumerate(typed.params):
            self.names[param.name] = f"p{index}"
        for index, name in enumerate(typed.variables):
            self.names[name] = f"v{index}"
        slot = 0
        for param in typed.params:
            if param.kind == "array":
                self.array_slots[param.name] = slot
                slot += 1
        for name in typed.local_arrays:
            self.array_slots[name] = slot
            slot += 1

    # -- the whole function -----------------------------------------------------------------

    def source(self) -> str:
        typed = self.typed
        for param in typed.params:
            self.storage(param.shape, param, f"parameter {param.name}")
        for shape in typed.return_shapes:
            self.storage(shape, typed.body[0] if typed.body else None, "the return value")
        for local in typed.local_arrays.values():
            self.storage(local.shape, None, f"local array {typed.display_name(local.name)}")
        for shape in typed.variables.values():
            self.need(shape, None)
        body = self.lines
        self.statements(typed.body)
        if self.widest <= _INT64_BITS:
            value, bits = "int64_t", 64
        elif self.widest <= _INT128_BITS:
            value, bits = "__int128", 128
        else:
            raise _Unsupported(None, f"a value needs {self.widest} magnitude bits; the compiled model holds "
                                     f"at most {_INT128_BITS}")
        self.frame = frame = _Frame(typed, self.stored, len(self.loops), len(self.switched))
        header = ["int run(int64_t *const frame) {", "  int status = 0;",
                  f"  int64_t *const error = frame + {frame.error};",
                  f"  int64_t *const results = frame + {frame.results};",
                  f"  int64_t *const remaining = frame + {frame.remaining};",
                  f"  const int64_t *const selection = frame + {frame.selection};"]
        if frame.streams:
            header += [f"  const stream_io io = (stream_io)(intptr_t)frame[{frame.io}];",
                       f"  const int64_t *const fetched = frame + {frame.fetched};"]
        for param in typed.params:
            if param.kind == "stream":
                words = frame.streams[param.name]
                header += [f"  int64_t *const {self.names[param.name]} = frame + {words};",
                           f"  int64_t *const {self.names[param.name]}_buffer = (int64_t *)(intptr_t)frame[{words + 2}];"]
            elif param.kind == "array":
                header.append(f"  int64_t *const {self.names[param.name]} = frame + {frame.arrays[param.name]};")
            else:
                header.append(f"  V {self.names[param.name]} = {self.word(f'frame[{frame.scalars[param.name]}]', param.shape)};")
        for name in typed.local_arrays:
            header.append(f"  int64_t *const l{self.array_slots[name]} = frame + {frame.locals[name]};")
        header += [f"  V {self.names[name]} = 0;" for name in typed.variables]
        footer = ["done:", "  return status;", "}"]
        return "\n".join([_PRELUDE.format(value=value, bits=bits), *self.unit_code, *header, *body, *footer, ""])

    @staticmethod
    def word(word: str, shape: Shape) -> str:
        """The value of shape ``shape`` held in the int64 ``word``."""
        return f"(V)(uint64_t){word}" if _unsigned64(shape) else f"(V){word}"

    def storage(self, shape: Shape, node, what: str) -> None:
        if not _fits_int64(shape):
            raise _Unsupported(node, f"{what} is {'signed' if shape.signed else 'unsigned'}({shape.width}); "
                                     f"the compiled model passes values as int64")
        self.need(shape, node)

    def need(self, shape: Shape, node) -> None:
        self.widest = max(self.widest, _magnitude_bits(shape))

    # -- statements -------------------------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)

    def temporary(self) -> str:
        return f"t{next(self.temporaries)}"

    def statements(self, statements) -> None:
        for statement in statements:
            self.statement(statement)

    def nested(self, statements) -> None:
        self.depth += 1
        self.statements(statements)
        self.depth -= 1

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Expr) and stream_call(node.value) is not None:
            # o.write(v): v wrapped to the stream's shape, then appended (a full buffer is
            # first handed to the caller's list).
            stream, value = node.value.args
            shape = getattr(node.value, SHAPE_ATTR)
            self.need(shape, node)
            token = self.value_temporary(self.wrap(self.expr(value), shape))
            port, what = self.names[stream.id], 2 * self.stream_slots[stream.id] + 1
            self.emit(f"if ({port}[0] == {port}[1] && io(frame, {what}, 0)) {{ status = {_STREAM_IO}; goto done; }}")
            self.emit(f"{port}_buffer[{port}[0]++] = (int64_t){token};")
            return
        if isinstance(node, ast.Assign):
            target = node.targets[0]
            shape = getattr(target, SHAPE_ATTR)
            self.need(shape, node)
            if isinstance(target, ast.Name):
                value = self.expr(node.value)
                self.emit(f"{self.name(target)} = {self.wrap(value, shape)};")
                return
            # The Python run evaluates the index, then the value, then checks the index.
            array = target.value.id
            index = self.value_temporary(self.expr(target.slice))
            value = self.expr(node.value)
            self.check_index(target, array, index)
            self.stored.add(array)
            self.emit(f"{self.array(array)}[{index}] = (int64_t)({self.wrap(value, shape)});")
            return
        if isinstance(node, ast.Return):
            elements = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            values = []
            for element, shape in zip(elements, self.typed.return_shapes):
                values.append(self.value_temporary(self.wrap(self.expr(element), shape)))
            for index, value in enumerate(values):
                self.emit(f"results[{index}] = (int64_t){value};")
            self.emit(f"status = {_RETURNED}; goto done;")
            return
        if isinstance(node, ast.If):
            test = self.expr(node.test)
            self.emit(f"if ({test}) {{")
            self.nested(node.body)
            if node.orelse:
                self.emit("} else {")
                self.nested(node.orelse)
            self.emit("}")
            return
        if isinstance(node, ast.For):
            start, stop, step = node.iter.args
            if not isinstance(step, ast.Constant) or not isinstance(step.value, int) or step.value <= 0:
                raise _Unsupported(node, "a range step that is not a positive constant")
            self.widest = max(self.widest, step.value.bit_length())
            counter = self.temporary()
            self.emit("{")
            self.depth += 1
            low = self.value_temporary(self.expr(start))
            high = self.value_temporary(self.expr(stop))
            self.emit(f"for (V {counter} = {low}; {counter} < {high}; {counter} += {step.value}) {{")
            self.depth += 1
            self.emit(f"{self.name(node.target)} = {counter};")
            self.count_iteration(node)
            self.statements(node.body)
            self.depth -= 1
            self.emit("}")
            self.depth -= 1
            self.emit("}")
            return
        if isinstance(node, ast.While):
            self.emit("for (;;) {")
            self.depth += 1
            test = self.expr(node.test)
            self.emit(f"if (!({test})) break;")
            self.count_iteration(node)
            self.statements(node.body)
            self.depth -= 1
            self.emit("}")
            return
        if isinstance(node, ast.Break):
            self.emit("break;")
            return
        if isinstance(node, ast.Continue):
            self.emit("continue;")
            return
        raise _Unsupported(node, f"the statement {type(node).__name__} has no C form")

    def count_iteration(self, loop) -> None:
        self.loops.append((getattr(loop, "hls_filename", self.typed.filename), loop.lineno))
        index = len(self.loops) - 1
        self.emit(f"if (--remaining[{index}] < 0) {{ error[0] = {index}; status = {_LOOP_LIMIT}; goto done; }}")

    def name(self, node: ast.Name) -> str:
        """The C name of a variable or scalar parameter."""
        if node.id not in self.names:
            raise _Unsupported(node, f"the name {node.id!r} is neither a parameter nor a typed variable")
        return self.names[node.id]

    def array(self, name: str) -> str:
        if name in self.typed.local_arrays:
            return f"l{self.array_slots[name]}"
        return self.names[name]

    def check_index(self, node: ast.Subscript, array: str, index: str) -> None:
        depth = self.typed.array(array)[1]
        self.accesses.append((getattr(node, "hls_filename", self.typed.filename), node.lineno,
                              self.typed.display_name(array), depth))
        access = len(self.accesses) - 1
        # The index's high word: for int64_t its sign, for __int128 bits 64..127 (two shifts
        # of 32, each valid C for either type, as the type is chosen after the translation).
        high = f"(int64_t)((({index}) >> 32) >> 32)"
        self.emit(f"if ({index} < 0 || {index} >= {depth}) {{ error[0] = {access}; error[1] = (int64_t){index}; "
                  f"error[2] = {high}; status = {_BAD_INDEX}; goto done; }}")

    def value_temporary(self, value: str) -> str:
        if value.isidentifier():
            return value
        name = self.temporary()
        self.emit(f"const V {name} = {value};")
        return name

    # -- expressions ------------------------------------------------------------------------

    def wrap(self, value: str, shape: Shape) -> str:
        if shape.width == 0:
            return "((V)0)"
        mask = self.literal((1 << shape.width) - 1)
        if not shape.signed:
            return f"(({value}) & {mask})"
        return f"h_wrap_signed({value}, {mask}, {self.literal(1 << (shape.width - 1))})"

    @staticmethod
    def literal(value: int) -> str:
        value = int(value)
        if -(1 << 62) <= value < (1 << 62):
            return f"((V){value}ll)"
        low = value & ((1 << 62) - 1)
        return f"(((V){value >> 62}ll << 62) + (V){low}ll)"

    def expr(self, node: ast.expr) -> str:
        shape = getattr(node, SHAPE_ATTR, None)
        if shape is not None:
            self.need(shape, node)
        if isinstance(node, ast.Constant):
            return self.literal(node.value)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Subscript):
            array = node.value.id
            index = self.value_temporary(self.expr(node.slice))
            self.check_index(node, array, index)
            name = self.temporary()
            self.emit(f"const V {name} = {self.word(f'{self.array(array)}[{index}]', self.typed.array(array)[0])};")
            return name
        if isinstance(node, ast.BinOp):
            left, right = self.expr(node.left), self.expr(node.right)
            return self.binary(node, operator_for_syntax(type(node.op)), left, right)
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand)
            if isinstance(node.op, ast.UAdd):
                return operand
            entry = operator_for_syntax(type(node.op))
            if entry is None or entry.c_form is None:
                raise _Unsupported(node, f"the unary operator {type(node.op).__name__} has no C form")
            return self.c_form(entry, (node.operand,), (operand,))
        if isinstance(node, ast.BoolOp):
            # Python's short circuit: a later operand is evaluated only when it decides.
            result = self.temporary()
            self.emit(f"V {result} = ({self.expr(node.values[0])}) != 0;")
            opened = 0
            for value in node.values[1:]:
                self.emit(f"if ({'' if isinstance(node.op, ast.And) else '!'}{result}) {{")
                self.depth += 1
                opened += 1
                self.emit(f"{result} = ({self.expr(value)}) != 0;")
            for _ in range(opened):
                self.depth -= 1
                self.emit("}")
            return result
        if isinstance(node, ast.Compare):
            entry = operator_for_syntax(type(node.ops[0]))
            left, right = self.expr(node.left), self.expr(node.comparators[0])
            if entry is None or entry.c_form is None or len(node.ops) != 1:
                raise _Unsupported(node, "a comparison without a C form")
            return self.c_form(entry, (node.left, node.comparators[0]), (left, right))
        if isinstance(node, ast.IfExp):
            # Only the branch taken is evaluated, as in Python.
            result = self.temporary()
            self.emit(f"V {result};")
            self.emit(f"if ({self.expr(node.test)}) {{")
            self.depth += 1
            self.emit(f"{result} = {self.expr(node.body)};")
            self.depth -= 1
            self.emit("} else {")
            self.depth += 1
            self.emit(f"{result} = {self.expr(node.orelse)};")
            self.depth -= 1
            self.emit("}")
            return result
        if isinstance(node, ast.Call) and node.func.id == APPROX_CALL:
            operands = [self.expr(argument) for argument in node.args]
            return self.unit_call(node, operands)
        if stream_call(node) is not None:
            # x = s.read(): the buffer's next token; past its end the caller's service takes
            # the iterable's next (or raises the Python run's error for the missing one).
            stream = node.args[0].id
            self.stream_sites.append(StreamSite(getattr(node, "hls_filename", self.typed.filename), node.lineno))
            port, what = self.names[stream], 2 * self.stream_slots[stream]
            shape = getattr(node, SHAPE_ATTR)
            name = self.temporary()
            self.emit(f"V {name};")
            self.emit(f"if ({port}[0] < {port}[1]) {name} = {self.word(f'{port}_buffer[{port}[0]]', shape)};")
            self.emit(f"else if (io(frame, {what}, {len(self.stream_sites) - 1})) {{ status = {_STREAM_IO}; "
                      f"goto done; }}")
            self.emit(f"else {name} = {self.word('fetched[0]', shape)};")
            self.emit(f"{port}[0]++;")
            return name
        if isinstance(node, ast.Call):
            entry = operator_for_syntax(getattr(builtins, node.func.id, None))
            operands = [self.expr(argument) for argument in node.args]
            if entry is not None and entry.c_form is not None and len(operands) == entry.arity:
                return self.c_form(entry, node.args, operands)
            raise _Unsupported(node, f"the call {node.func.id}() has no C form")
        raise _Unsupported(node, f"the expression {type(node).__name__} has no C form")

    def c_form(self, entry, operand_nodes, operands) -> str:
        """The C expression of operator-table ``entry`` over ``operands`` (C expressions of the
        typed ``operand_nodes``): the entry's :attr:`~hls.ir.ops.Operator.c_form`."""
        shapes = tuple(getattr(operand, SHAPE_ATTR) for operand in operand_nodes)
        return entry.c_form(shapes, self.literal, *operands)

    def binary(self, node, entry, left: str, right: str) -> str:
        key = getattr(node, OPERATION_ATTR, None)
        exact = self.exact_binary(node, entry, (node.left, node.right), left, right)
        if key in self.switched:
            return self.switch(node, key, exact, (left, right), (node.left, node.right))
        return exact

    def switch(self, node, key: str, exact: str, operands: tuple, operand_nodes: tuple) -> str:
        """Operation ``key`` as a C switch on its selection word: 0 (or a unit these operand widths do not
        allow, which ``approx=`` leaves exact too) the ``exact`` expression, ``i`` the i-th unit."""
        operands = tuple(self.value_temporary(operand) for operand in operands)
        shapes = tuple(getattr(operand, SHAPE_ATTR) for operand in operand_nodes)
        result = self.temporary()
        self.emit(f"V {result};")
        self.emit(f"switch (selection[{self.switch_slots[key]}]) {{")
        for index, choice in enumerate(self.switched[key], 1):
            try:
                value = self.unit_expression(node, choice, shapes, operands)
            except _Unsupported as error:
                if not isinstance(error.__cause__, UnitWidthError):
                    raise
                continue
            self.emit(f"  case {index}: {result} = {value}; break;")
        self.emit(f"  default: {result} = {exact}; break;")
        self.emit("}")
        return result

    def exact_binary(self, node, entry, operand_nodes, left: str, right: str) -> str:
        if entry is None or entry.c_form is None:
            raise _Unsupported(node, f"the operator {entry.kind if entry else type(node.op).__name__} "
                                     f"has no C form")
        return self.c_form(entry, operand_nodes, (left, right))

    def unit_call(self, node: ast.Call, operands: list[str]) -> str:
        shapes = tuple(getattr(argument, SHAPE_ATTR) for argument in node.args)
        choice = getattr(node, APPROX_ATTR)
        key = getattr(node, OPERATION_ATTR, None)
        if key in self.switched:
            # The unit approx= chose is one of the choices; selection 0 is the exact operator.
            operands = [self.value_temporary(operand) for operand in operands]
            exact = self.exact_binary(node, operator_of(EXACT_OPERATOR[choice.kind]), node.args, *operands)
            return self.switch(node, key, exact, tuple(operands), tuple(node.args))
        return self.unit_expression(node, choice, shapes, operands)

    def unit_expression(self, node, choice, shapes: tuple, operands) -> str:
        """The C expression of unit ``choice`` on ``operands`` of ``shapes``."""
        key = (choice, tuple((shape.width, shape.signed) for shape in shapes))
        try:
            unit = approx_unit(choice, *shapes)
        except UnitWidthError as error:
            raise _Unsupported(node, str(error)) from error
        name = self.units.get(key)
        if name is None:
            name = self.units[key] = f"unit{len(self.units)}"
            try:
                self.unit_code.append(native.c_function(unit.graph, name))
            except ValueError as error:
                raise _Unsupported(node, f"{choice.label}: {error}") from None
        call = f"{name}((uint64_t)({operands[0]}), (uint64_t)({operands[1]}))"
        result = unit.result
        if result.signed:
            return f"h_unit_signed({call}, {result.width})"
        return f"((V){call})"


class CompiledModel:
    """A kernel's golden model compiled to C: call it as the kernel itself is called.

    Parameters
    ----------
    function : hls.Function or hls.Kernel
    fallback : bool
        ``True`` (default): a kernel the translation cannot hold, or a machine without a
        C compiler, gives a model that runs the Python run (:attr:`fallback_reason` says
        why). ``False`` raises instead.
    choices : dict of str to list of hls.approx.UnitChoice, optional
        Operations whose unit each run chooses (``selection=``), compiled once for every
        choice: operation key (:attr:`hls.frontend.typed.Operation.key`) -> its units.
        A run's ``selection`` gives one integer per key, in this order: 0 for the exact
        operator, ``i`` for the i-th unit (a unit that the operand widths of one copy of the
        operation do not allow leaves that copy exact, as ``approx=`` does). Each run equals
        the Python run of ``function.with_approx(self.mapping(selection))``.

    Attributes
    ----------
    name : str
    source : str or None
        The generated C (``None`` when falling back).
    fallback_reason : str or None
        Why calls run the Python run; ``None`` when they run the compiled code.
    compile_seconds : float
        Time spent translating and compiling (0 when the shared object was cached).

    Raises
    ------
    CompiledModelUnsupported
        With ``fallback=False``: the file and line of the construct and why it cannot be
        compiled, or that no C compiler is available.
    hls.errors.KernelSyntaxError
        If the kernel is outside the language.
    ValueError
        ``choices`` for a kernel whose ``approx=`` has kind keys (selection 0 means exact).
    """

    def __init__(self, function, *, fallback: bool = True, choices: dict | None = None):
        began = time.perf_counter()
        self.function = function
        self.choices = {key: list(units) for key, units in (choices or {}).items()}
        self.name = function.name
        kinds = sorted(set(getattr(function, "approx", None) or {}) & set(KINDS))
        if self.choices and kinds:
            # Selection 0 is the exact operator, which a kind key would replace in the Python run.
            raise ValueError(f"{function.name}: choices= needs a kernel without kind keys in approx= "
                             f"(it has {', '.join(kinds)}); use kernel.with_approx(None)")
        self.golden = function.golden_model()
        self.typed = typed = function.analyze()
        self.source = None
        self.fallback_reason = None
        self._run_c = None
        translation = _Translation(typed, self.choices)
        try:
            self.source = translation.source()
            self._run_c = _load_model(self.source)
        except _Unsupported as error:
            where = f"{typed.filename}:{error.lineno}: " if error.lineno else f"{typed.filename}: "
            self.fallback_reason = f"{where}{error.reason}"
            self.source = None
        except native.CompilerUnavailable as error:
            self.fallback_reason = str(error)
            self.source = None
        if self.fallback_reason is not None and not fallback:
            raise CompiledModelUnsupported(f"{typed.name}: {self.fallback_reason}")
        self._accesses = translation.accesses
        self._loops = translation.loops
        self._frame = translation.frame
        self._arrays = [param for param in typed.params if param.kind == "array"]
        self._scalars = [(param, shape_range(param.shape)) for param in typed.params if param.kind == "scalar"]
        self._returns = len(typed.return_shapes)
        self._streams = [param for param in typed.params if param.kind == "stream"]
        self._stream_sites = translation.stream_sites
        self._tokens_read: dict[str, int] = {}
        self.compile_seconds = time.perf_counter() - began

    def mapping(self, selection) -> dict:
        """The ``approx=`` mapping (operation key -> unit) of a run's ``selection``, over the kernel's own.

        Raises
        ------
        ValueError
            A selection of the wrong length or with a value out of range.
        """
        selection = self._selection(selection)
        mapping = dict(getattr(self.function, "approx", None) or {})
        for (key, units), index in zip(self.choices.items(), selection):
            if index:
                mapping[key] = units[index - 1]
            else:
                mapping.pop(key, None)
        return mapping

    def _selection(self, selection) -> tuple:
        if selection is None:
            selection = (0,) * len(self.choices)
        selection = tuple(int(index) for index in selection)
        if len(selection) != len(self.choices):
            raise ValueError(f"{self.name}: a selection has one index per switched operation "
                             f"({len(self.choices)}), not {len(selection)}")
        for (key, units), index in zip(self.choices.items(), selection):
            if not 0 <= index <= len(units):
                raise ValueError(f"{self.name}: selection {index} for {key} is out of range 0..{len(units)}")
        return selection

    def _python_model(self, selection):
        """The Python run's model for ``selection`` (the golden model itself when nothing is switched)."""
        if not self.choices:
            return self.golden
        return self.function.with_approx(self.mapping(selection)).golden_model()

    @property
    def compiled(self) -> bool:
        """Whether calls run the compiled code (not the Python run)."""
        return self._run_c is not None

    @property
    def tokens_read(self) -> dict[str, int]:
        """After a call: how many tokens the body read from each input stream."""
        return dict(self._tokens_read)

    def __call__(self, *args, **kwargs):
        """Run the model: as calling the kernel (arrays updated in place; ``None``, ``int`` or tuple).

        Raises
        ------
        TypeError, ValueError, hls.errors.KernelRuntimeError
            As calling the kernel does.
        """
        return self.call(args, kwargs)

    def call(self, args: tuple, kwargs: dict, *, max_loop_iterations: int | None = None, selection=None):
        """Bind, run, write the arrays back into the caller's lists or numpy arrays, return:
        :meth:`hls.frontend.golden.GoldenModel.call`, at compiled speed (``selection``: see ``choices``)."""
        if self._run_c is None or approx_observed():
            return self._python_call(selection, "call", args, kwargs, max_loop_iterations=max_loop_iterations)
        check_loop_bound(max_loop_iterations)
        bound = self.golden.match(args, kwargs)
        values = tuple(bound[param.name] for param in self._arrays)
        frame, converted = self._load(bound, values, max_loop_iterations, selection)
        streams = _StreamRun(self, bound, frame, {name: bound[name] for name in self._outputs()})
        try:
            return self._execute(frame, max_loop_iterations, streams)
        finally:
            self._write_back(values, frame, converted)
            self._tokens_read = streams.finish()

    def _python_call(self, selection, method: str, *args, **kwargs):
        """The Python run's ``call`` or ``run``, keeping its token counts as this model's."""
        model = self._python_model(selection)
        try:
            return getattr(model, method)(*args, **kwargs)
        finally:
            self._tokens_read = dict(model.tokens_read)

    def _outputs(self) -> list[str]:
        """The names of the output streams."""
        return [param.name for param in self._streams if param.direction == "out"]

    def run(self, bound: dict, *, max_loop_iterations: int | None = None,
            selection=None) -> tuple[object, dict[str, list[int]]]:
        """Run on already-bound arguments without touching them:
        :meth:`hls.frontend.golden.GoldenModel.run`, at compiled speed (``selection``: see ``choices``).

        Returns
        -------
        (result, arrays)
            The return value and the final contents of every array parameter (lists of int).
        """
        if self._run_c is None or approx_observed():
            return self._python_call(selection, "run", bound, max_loop_iterations=max_loop_iterations)
        check_loop_bound(max_loop_iterations)
        frame, _ = self._load(bound, tuple(bound[param.name] for param in self._arrays), max_loop_iterations,
                              selection)
        written = {name: [] for name in self._outputs()}
        streams = _StreamRun(self, bound, frame, written)
        try:
            result = self._execute(frame, max_loop_iterations, streams)
        finally:
            self._tokens_read = streams.finish()
        return result, {**{param.name: self._contents(frame, param).tolist() for param in self._arrays}, **written}

    # -- arguments --------------------------------------------------------------------------

    def _load(self, bound: dict, values: tuple, max_loop_iterations, selection=None):
        """``(frame, converted)``: a new frame holding the arguments, checked as the Python run
        checks them. Lists of exact ints are read by the list helper; the other arrays here
        (``converted``: their indices, to be written back here)."""
        layout = self._frame
        frame = np.zeros(layout.size, dtype=np.int64)
        if layout.selections:
            frame[layout.selection:layout.selection + layout.selections] = self._selection(selection)
        elif selection:
            self._selection(selection)
        for param, (low, high) in self._scalars:
            value = bound[param.name]
            if type(value) is not int or not low <= value <= high:
                self.golden.check_argument(param, value)
                value = int(value)
            frame[layout.scalars[param.name]] = value if value < (1 << 63) else value - (1 << 64)
        if layout.loops:
            frame[layout.remaining:layout.remaining + layout.loops] = \
                _NO_LIMIT if max_loop_iterations is None else max_loop_iterations
        lists = _lists_library()
        address = frame.ctypes.data
        if lists is not None and self._arrays:
            unread = lists.lists_read(values, address, layout.layout.ctypes.data, len(self._arrays),
                                      address + 8 * layout.status)
            if not unread:
                return frame, ()
        converted = []
        for k, (param, value) in enumerate(zip(self._arrays, values)):
            if lists is not None and frame[layout.status + k] == 0:
                continue
            offset = layout.arrays[param.name]
            buffer = frame[offset:offset + param.depth]
            low, high = shape_range(param.shape)
            if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu" \
                    and len(value) == param.depth and np.iinfo(value.dtype).min <= low \
                    and np.iinfo(value.dtype).max >= high and _within(value, low, high):
                buffer[:] = value.astype(np.uint64).view(np.int64) if _unsigned64(param.shape) else value
            else:
                # The Python run's checks raise the error it would raise; what passes them is
                # converted element by element (and written back whole, as ints, as it does).
                self.golden.check_argument(param, value)
                items = value.tolist() if isinstance(value, np.ndarray) else value
                buffer[:] = _words(items)
            converted.append(k)
        return frame, converted

    def _execute(self, frame: np.ndarray, max_loop_iterations, streams: "_StreamRun"):
        layout = self._frame
        status = self._run_c(frame.ctypes.data)
        if status == _STREAM_IO:
            # The stream service raised (a read past the last token, a token that does not fit):
            # the Python run's own error, from the same place.
            raise streams.error
        if status == _RETURNED:
            values = [int(v) & ((1 << 64) - 1) if _unsigned64(shape) else int(v)
                      for v, shape in zip(frame[layout.results:layout.results + self._returns],
                                          self.typed.return_shapes)]
            return values[0] if len(values) == 1 else tuple(values)
        if status == _FELL_OFF:
            return None
        error = frame[layout.error:layout.error + 3]
        if status == _BAD_INDEX:
            filename, lineno, array, depth = self._accesses[int(error[0])]
            index = (int(error[2]) << 64) | (int(error[1]) & ((1 << 64) - 1))
            raise KernelRuntimeError(filename, lineno, f"index {index} out of range for {array}[{depth}]")
        if status == _LOOP_LIMIT:
            filename, lineno = self._loops[int(error[0])]
            raise KernelLoopLimit(filename, lineno, max_loop_iterations)
        raise AssertionError(f"the compiled model of {self.name} returned status {status}")

    def _write_back(self, values: tuple, frame: np.ndarray, converted) -> None:
        layout = self._frame
        lists = _lists_library()
        if lists is not None and self._arrays:
            address = frame.ctypes.data
            if lists.lists_write(values, address, layout.layout.ctypes.data, len(self._arrays),
                                 address + 8 * layout.status) != 0:
                raise MemoryError(f"{self.name}: cannot write the arrays back")
        for k in converted:
            param, value = self._arrays[k], values[k]
            buffer = self._contents(frame, param)
            if isinstance(value, np.ndarray):
                if param.name in layout.originals:
                    value[:] = buffer
            else:
                value[:] = buffer.tolist()

    def _contents(self, frame: np.ndarray, param) -> np.ndarray:
        """Array ``param``'s elements in ``frame`` (an ``unsigned(64)`` array's as ``uint64``)."""
        offset = self._frame.arrays[param.name]
        words = frame[offset:offset + param.depth]
        return words.view(np.uint64) if _unsigned64(param.shape) else words


#: The C type of the stream service (``stream_io`` in :data:`_PRELUDE`).
_STREAM_IO_TYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)


class _StreamRun:
    """One call's streams: their buffers, the service the C code calls, and the tokens' ends.

    An input stream given as a list, tuple or 1-D numpy array is checked whole (as the
    Python run checks it) and copied into its buffer; the C code reads the buffer, and a
    read past its end asks the service, whose :class:`~hls.frontend.golden.InputStream`
    raises the Python run's error. Another iterable is read one token per read, through the
    service, so it is advanced exactly as often as the Python run advances it. An output
    stream's tokens go to a buffer of :data:`_OUTPUT_BUFFER` tokens, which the service
    empties into the caller's list when it is full, and :meth:`finish` at the end.
    """

    def __init__(self, model: CompiledModel, bound: dict, frame: np.ndarray, outputs: dict):
        self.frame = frame
        self.sites = model._stream_sites
        self.error: BaseException | None = None
        self.inputs: dict[int, tuple] = {}      # slot -> (param, InputStream, words)
        self.outputs: dict[int, tuple] = {}     # slot -> (param, list, buffer, words)
        self.buffers = []
        if not model._streams:
            return
        layout = model._frame
        self.fetched = layout.fetched
        for slot, param in enumerate(model._streams):
            value = bound[param.name]
            model.golden.check_argument(param, value)
            words = layout.streams[param.name]
            if param.direction == "in":
                stream = InputStream(param.name, param.shape, ())
                if isinstance(value, np.ndarray):
                    value = value.tolist()
                if isinstance(value, (list, tuple)):
                    buffer = _words(value) if value else np.zeros(1, dtype=np.int64)
                    frame[words + 1] = stream.count = len(value)
                else:
                    buffer, stream.tokens = np.zeros(1, dtype=np.int64), iter(value)
                self.inputs[slot] = (param, stream, words)
            else:
                buffer = np.zeros(_OUTPUT_BUFFER, dtype=np.int64)
                frame[words + 1] = _OUTPUT_BUFFER
                self.outputs[slot] = (param, outputs[param.name], buffer, words)
            frame[words + 2] = buffer.ctypes.data
            self.buffers.append(buffer)
        self.service = _STREAM_IO_TYPE(self._serve)
        frame[layout.io] = ctypes.cast(self.service, ctypes.c_void_p).value

    def _serve(self, frame_address, what: int, site: int) -> int:
        try:
            slot, output = divmod(what, 2)
            if output:
                self._flush(slot)
            else:
                param, stream, words = self.inputs[slot]
                stream.count = int(self.frame[words])
                token = stream.read(self.sites[site])
                self.frame[self.fetched] = token if token < (1 << 63) else token - (1 << 64)
            return 0
        except BaseException as error:     # re-raised by _execute, in the caller's thread
            self.error = error
            return 1

    def _flush(self, slot: int) -> None:
        param, target, buffer, words = self.outputs[slot]
        count = int(self.frame[words])
        tokens = buffer[:count]
        target.extend((tokens.view(np.uint64) if _unsigned64(param.shape) else tokens).tolist())
        self.frame[words] = 0

    def finish(self) -> dict[str, int]:
        """Hand the buffered output tokens to their lists; the tokens read from each input stream."""
        for slot in self.outputs:
            self._flush(slot)
        return {param.name: int(self.frame[words]) for param, _, words in self.inputs.values()}


def _within(values: np.ndarray, low: int, high: int) -> bool:
    return values.size == 0 or (int(values.min()) >= low and int(values.max()) <= high)
