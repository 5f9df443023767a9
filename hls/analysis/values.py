"""What is known of every value of the IR: affine forms and intervals (issue 20).

One abstract interpretation serves every analysis that asks what a value can
be (the banks of partitioned arrays, memory dependences).  The abstract value
of an operation (:class:`Value`) is

* an **interval** ``[low, high]`` that holds its every value, and
* an **affine form** ``constant + sum(coefficient * symbol)`` when it has one.
  Symbols are the counters of loops (:class:`Counter`: a pipelined loop's
  counter, and each level's counter of a flattened nest) and the values the
  analysis cannot see into (a variable read, a memory read: the operation
  itself).  After a wrap that may change the value, the form still holds
  modulo ``2 ** width`` (:attr:`Value.modulus`), which keeps the residues a
  cyclic partition needs.

Each operator's transfer function is its entry's ``transfer`` in the operator
table (:mod:`hls.ir.ops`), beside its golden function: ``transfer(op, facts,
*operand_values)``, written over :class:`Value`'s arithmetic, which follows
Python's operators on ints as the golden functions do.  An entry without one
(a load, an approximate unit) gives a symbol of its own, bounded by its shape.
Every result is clipped to its operation's shape, which holds an expression's
value exactly.

A flattened nest's levels are nested: each counter knows the counters of the
levels around it (:attr:`Counter.outer`), and :meth:`ValueAnalysis.add_position`
records the predicates that hold only in the first or the last iteration of the
flattened loop that belongs to one iteration of a level (the code before and
after an inner loop), which the memory dependence analysis reads to order the
accesses of one ``(i, j)`` without following the iterations.

Counters whose values are known only while an iteration runs (a flattened
nest's inner counter is in its range only in the iterations its predicate
``has`` selects) are *conditional*: :meth:`ValueAnalysis.value` asked under a
predicate uses a fact only when that predicate is built on the fact's own
(``outer & cond`` chains), so a value is never bounded by a range it has only
in other iterations.

:func:`iterations` runs a pipelined loop's control on Python integers with the
golden functions: for a loop whose counters, bounds and flags do not depend on
data (constant trip counts), it gives the exact value of each operation in
every iteration, which the exact dependence test reads.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass

from amaranth.hdl import Shape, unsigned

from ..ir.ops import operator_of
from ..types import shape_range, wrap

__all__ = ["Counter", "Value", "ValueAnalysis", "conjuncts", "entry_states", "iterations"]


@dataclass(frozen=True, eq=False)
class Counter:
    """A loop counter as a symbol of affine forms.

    Attributes
    ----------
    name : str
        The user's loop variable.
    low, high : int
        Bounds of its value in every iteration it counts (inclusive).
    start : int or None
        Its first value in every run, when that is a constant.
    step : int
    outer : tuple of Counter
        For a level of a flattened nest, the counters of the levels around it, outermost
        first (empty for the outermost level and for a pipelined loop's own counter). The
        values of ``outer + (self,)`` are distinct in distinct iterations of this level,
        and each such iteration is one run of consecutive iterations of the flattened loop.
    length : int or None
        For a level of a flattened nest, how many iterations of the flattened loop each of its
        iterations takes, when that is one constant in every iteration (1 for the innermost
        level; for an outer one, the inner loop's bounds are constants and no ``break``,
        ``continue`` or condition cuts or empties its runs); ``None`` otherwise.
    """

    name: str
    low: int
    high: int
    start: int | None
    step: int
    outer: tuple = ()
    length: int | None = None

    def __repr__(self) -> str:
        return self.name


def _key(symbol) -> tuple:
    if isinstance(symbol, Counter):
        return (0, symbol.name, id(symbol))
    return (1, symbol.name, id(symbol))


@dataclass(frozen=True)
class Value:
    """An abstract value: an interval, and an affine form when there is one.

    Attributes
    ----------
    low, high : int
        Every value lies in ``[low, high]``.
    terms : tuple of (symbol, int) or None
        The form's non-zero coefficients, sorted; ``None`` when the value is not affine.
    constant : int
    modulus : int
        0 when the form is the value; ``2 ** w`` when it equals the value only modulo that.
    """

    low: int
    high: int
    terms: tuple | None = ()
    constant: int = 0
    modulus: int = 0

    # -- construction ----------------------------------------------------------------------

    @staticmethod
    def of(constant: int) -> "Value":
        return Value(constant, constant, (), constant)

    @staticmethod
    def between(low: int, high: int) -> "Value":
        """A value known only by its bounds."""
        return Value(low, high, None)

    @staticmethod
    def symbol(symbol, low: int, high: int) -> "Value":
        return Value(low, high, ((symbol, 1),), 0)

    @property
    def affine(self) -> bool:
        return self.terms is not None

    @property
    def exact_form(self) -> bool:
        """The form is the value itself (not only modulo :attr:`modulus`)."""
        return self.terms is not None and not self.modulus

    def coefficient(self, symbol) -> int:
        return dict(self.terms or ()).get(symbol, 0)

    def _form(self, terms: dict | None, constant: int, modulus: int, low: int, high: int) -> "Value":
        if terms is None:
            return Value(low, high, None)
        terms = tuple(sorted(((s, c) for s, c in terms.items() if c), key=lambda item: _key(item[0])))
        if not modulus:
            # The form bounds the value too: `j - j` is 0 whatever j's range.
            form_low, form_high = _form_bounds(terms, constant)
            low, high = max(low, form_low), min(high, form_high)
        return Value(low, high, terms, constant, modulus)

    # -- arithmetic, as Python's operators on ints -----------------------------------------

    def __add__(self, other: "Value") -> "Value":
        return self._combine(other, 1, self.low + other.low, self.high + other.high)

    def __sub__(self, other: "Value") -> "Value":
        return self._combine(other, -1, self.low - other.high, self.high - other.low)

    def _combine(self, other, sign, low, high):
        if self.terms is None or other.terms is None:
            return Value(low, high, None)
        terms = dict(self.terms)
        for symbol, coefficient in other.terms:
            terms[symbol] = terms.get(symbol, 0) + sign * coefficient
        return self._form(terms, self.constant + sign * other.constant, _modulus(self.modulus, other.modulus),
                          low, high)

    def __neg__(self) -> "Value":
        return self.scaled(-1)

    def __invert__(self) -> "Value":
        return -self - Value.of(1)

    def scaled(self, factor: int) -> "Value":
        low, high = sorted((self.low * factor, self.high * factor))
        if self.terms is None:
            return Value(low, high, None)
        return self._form({s: c * factor for s, c in self.terms}, self.constant * factor, self.modulus, low, high)

    def __mul__(self, other: "Value") -> "Value":
        if other.is_constant:
            return self.scaled(other.low)
        if self.is_constant:
            return other.scaled(self.low)
        products = (self.low * other.low, self.low * other.high, self.high * other.low, self.high * other.high)
        return Value(min(products), max(products), None)

    def __lshift__(self, other: "Value") -> "Value":
        if other.is_constant and other.low >= 0:
            return self.scaled(1 << other.low)
        if self.is_constant and self.low == 0:
            return self             # 0 << n
        return self.unknown()

    def __rshift__(self, other: "Value") -> "Value":
        if other.is_constant and other.low >= 0:
            # Floor division by a power of two: monotone.
            return Value(self.low >> other.low, self.high >> other.low, None)
        if other.low >= 0:
            # Rising with the value, and with the shift falling (a value >= 0) or rising (< 0):
            # the corners bound it.  Past the value's bits every shift gives 0 or -1.
            far = min(other.high, max(abs(self.low), abs(self.high)).bit_length())
            corners = [value >> shift for value in (self.low, self.high) for shift in (other.low, far)]
            return Value(min(corners), max(corners), None)
        return self.unknown()

    def __floordiv__(self, other: "Value") -> "Value":
        if _zero(self) or _zero(other):
            return Value.of(0)      # 0 // d, and x // 0 == 0 (the golden functions': Amaranth's)
        if other.is_constant and other.low > 0:
            return Value(self.low // other.low, self.high // other.low, None)
        return self.unknown()

    def __mod__(self, other: "Value") -> "Value":
        if _zero(self) or _zero(other):
            return Value.of(0)      # 0 % d, and x % 0 == 0
        if other.is_constant and other.low > 0:
            divisor = other.low
            if 0 <= self.low and self.high < divisor:
                return self
            return self._residue_of(divisor, Value(0, divisor - 1, None))
        return self.unknown()

    def __and__(self, other: "Value") -> "Value":
        for value, mask in ((self, other), (other, self)):
            if mask.is_constant and mask.low >= 0:
                if 0 <= value.low and value.high <= mask.low and _all_ones(mask.low):
                    return value
                if _all_ones(mask.low):
                    return value._residue_of(mask.low + 1, Value(0, mask.low, None))
                return Value(0, mask.low, None)
        if self.low >= 0 and other.low >= 0:
            return Value(0, min(self.high, other.high), None)
        return self.unknown()

    def __or__(self, other: "Value") -> "Value":
        return self._bitwise(other)

    def __xor__(self, other: "Value") -> "Value":
        return self._bitwise(other)

    def _bitwise(self, other):
        if self.low >= 0 and other.low >= 0:
            return Value(0, (1 << max(self.high, other.high).bit_length()) - 1, None)
        return self.unknown()

    def __abs__(self) -> "Value":
        if self.low >= 0:
            return self
        if self.high <= 0:
            return -self
        return Value(0, max(-self.low, self.high), None)

    def minimum(self, other: "Value") -> "Value":
        return Value(min(self.low, other.low), min(self.high, other.high), None)

    def maximum(self, other: "Value") -> "Value":
        return Value(max(self.low, other.low), max(self.high, other.high), None)

    def choose(self, if_true: "Value", if_false: "Value") -> "Value":
        """``if_true if self else if_false``."""
        if self.is_constant:
            return if_true if self.low else if_false
        if if_true == if_false:
            return if_true
        return Value(min(if_true.low, if_false.low), max(if_true.high, if_false.high), None)

    def compared(self, other: "Value", relation) -> "Value":
        """A truth value: decided when ``relation`` (``operator.lt``...) holds for every pair or for none."""
        if relation in (operator.eq, operator.ne):
            if self.high < other.low or other.high < self.low:
                return Value.of(int(relation is operator.ne))
            return Value.between(0, 1)
        # The other relations are monotone: the corners decide them.
        corners = {relation(a, b) for a in (self.low, self.high) for b in (other.low, other.high)}
        return Value.of(int(corners.pop())) if len(corners) == 1 else Value.between(0, 1)

    def truth(self, negate: bool = False) -> "Value":
        """``bool(self)`` (or ``not self``) as a 1-bit value."""
        if self.low > 0 or self.high < 0:
            return Value.of(int(not negate))
        if self.low == self.high == 0:
            return Value.of(int(negate))
        return Value.between(0, 1)

    def wrapped(self, shape: Shape) -> "Value":
        """The value assigned to ``shape`` (two's complement wrap)."""
        low, high = shape_range(Shape.cast(shape))
        if low <= self.low and self.high <= high:
            return self
        if self.is_constant:
            return Value.of(wrap(self.low, Shape.cast(shape)))
        if self.terms is None:
            return Value(low, high, None)
        # The wrap keeps the value modulo 2 ** width.
        return Value(low, high, self.terms, self.constant, _modulus(self.modulus, 1 << Shape.cast(shape).width))

    def unknown(self) -> "Value":
        return Value(-(1 << 64), 1 << 64, None)

    def clipped(self, shape: Shape) -> "Value":
        """Within ``shape``'s range (an operation's shape holds its value exactly)."""
        low, high = shape_range(Shape.cast(shape))
        if low <= self.low and self.high <= high:
            return self
        return Value(max(low, self.low), min(high, self.high), self.terms, self.constant, self.modulus)

    def _residue_of(self, modulus: int, bounds: "Value") -> "Value":
        # `x % 2**k` and `x & (2**k - 1)` are x modulo 2**k: the form holds modulo that.
        if self.terms is None or modulus & (modulus - 1):
            return bounds
        return Value(bounds.low, bounds.high, self.terms, self.constant, _modulus(self.modulus, modulus))

    # -- what the analyses ask ----------------------------------------------------------------

    @property
    def is_constant(self) -> bool:
        return self.low == self.high

    def residue(self, modulus: int) -> int | None:
        """The value modulo ``modulus`` when it is the same in every execution, else ``None``."""
        if self.is_constant:
            return self.low % modulus
        if self.terms is None or (self.modulus and self.modulus % modulus):
            return None
        residue = self.constant
        for symbol, coefficient in self.terms:
            if coefficient % modulus == 0:
                continue
            if isinstance(symbol, Counter) and symbol.start is not None and coefficient * symbol.step % modulus == 0:
                residue += coefficient * symbol.start
                continue
            return None
        return residue % modulus

    def text(self) -> str:
        """The form as a reader writes it (``4*i + j + 1``), or the interval."""
        if self.terms is None:
            return f"[{self.low}, {self.high}]"
        parts = [f"{'' if c == 1 else '-' if c == -1 else f'{c}*'}{_name(s)}" for s, c in self.terms]
        if self.constant or not parts:
            parts.append(str(self.constant))
        return " + ".join(parts).replace("+ -", "- ")


def _name(symbol) -> str:
    return symbol.name if isinstance(symbol, Counter) else getattr(symbol, "text", "") or symbol.name


def _zero(value: Value) -> bool:
    return value.low == value.high == 0


def _all_ones(value: int) -> bool:
    return value & (value + 1) == 0


def _modulus(a: int, b: int) -> int:
    """The modulus two forms' combination holds to (powers of two: the smaller; 0 is exact)."""
    if not a:
        return b
    if not b:
        return a
    return min(a, b)


def _form_bounds(terms, constant) -> tuple[int, int]:
    low = high = constant
    for symbol, coefficient in terms:
        bounds = _symbol_bounds(symbol)
        if bounds is None:
            return -(1 << 64), 1 << 64
        a, b = coefficient * bounds[0], coefficient * bounds[1]
        low, high = low + min(a, b), high + max(a, b)
    return low, high


def _symbol_bounds(symbol):
    if isinstance(symbol, Counter):
        return symbol.low, symbol.high
    return shape_range(symbol.shape)


def conjuncts(predicate) -> list:
    """``predicate`` and the predicates it was built from as ``outer & cond`` (innermost first)."""
    chain = []
    while predicate is not None:
        chain.append(predicate)
        predicate = predicate.operands[0] if predicate.kind == "and" and predicate.shape == unsigned(1) else None
    return chain


class ValueAnalysis:
    """The abstract values of a kernel's operations, built up as the IR builder makes them.

    Counters are registered with :meth:`add_counter`; every other operation's value
    follows from its operands through its operator-table entry.
    """

    def __init__(self):
        #: op -> (Counter, predicate under which the op is the counter, or None: always)
        self._counters: dict = {}
        #: predicate -> {Counter: positions}: see add_position
        self._positions: dict = {}
        self._memo: dict = {}
        #: op -> its golden function on ints; (block, its control, entry state) -> iterations()
        self._goldens: dict = {}
        self._iterations: dict = {}

    def add_counter(self, op, counter: Counter, predicate=None) -> None:
        """``op`` is ``counter`` (in every execution, or in those where ``predicate`` holds)."""
        self._counters[op] = (counter, predicate)
        self._memo.clear()

    def add_position(self, predicate, counter: Counter, positions) -> None:
        """``predicate`` holds only in the first (``"first"`` in ``positions``) or the last
        (``"last"``) iteration of the flattened loop of each iteration of ``counter``'s level,
        and only in those that belong to one (:mod:`hls.frontend.flatten`'s ``if first:``
        before the inner loop and after it; for the innermost level, each iteration that
        runs its body is one of its iterations, both first and last)."""
        known = self._positions.setdefault(predicate, {})
        known[counter] = known.get(counter, frozenset()) | frozenset(positions)

    def positions(self, predicate) -> dict:
        """``{Counter: frozenset of "first"/"last"}`` known of the iterations in which
        ``predicate`` holds, from every predicate it is built on (``outer & cond`` chains)."""
        out = {}
        for conjunct in conjuncts(predicate):
            for counter, positions in self._positions.get(conjunct, {}).items():
                out[counter] = out.get(counter, frozenset()) | positions
        return out

    def _golden(self, op, entry):
        function = self._goldens.get(op)
        if function is None:
            function = self._goldens[op] = entry.golden_for([operand.shape for operand in op.operands], op.attrs)
        return function

    def iterations(self, body, entry_values: dict, *, induction=None, limit: int = 4096):
        """:func:`iterations`, computed once for each state of ``body``'s control."""
        needed = _slice(body.ops, [op for op in body.ops if _category(op) in _ROOTS])
        key = (body, tuple((op, tuple(op.operands), op.predicate) for op in needed),
               tuple(sorted(entry_values.items())), induction, limit)
        if key not in self._iterations:
            self._iterations[key] = iterations(body, entry_values, induction=induction, limit=limit,
                                               goldens=self._goldens)
        return self._iterations[key]

    def forget(self) -> None:
        """Drop what was computed (after operands were rewritten, or operations folded into
        constants: :mod:`hls.ir.fold`); the counters stay."""
        self._memo.clear()
        self._goldens.clear()
        self._iterations.clear()

    def counter_of(self, op) -> Counter | None:
        entry = self._counters.get(op)
        return None if entry is None else entry[0]

    def counters_in(self, ops) -> list[Counter]:
        """The counters registered for any of ``ops`` (a flattened nest's levels, in a loop body),
        each once, in the order first met."""
        found = {}
        for op in ops:
            entry = self._counters.get(op)
            if entry is not None:
                found.setdefault(id(entry[0]), entry[0])
        return list(found.values())

    def value(self, op, predicate=None) -> Value:
        """The abstract value of ``op`` in the executions where ``predicate`` holds."""
        chain = {id(pred) for pred in conjuncts(predicate)}
        enabled = frozenset(op_ for op_, (_, pred) in self._counters.items()
                            if pred is None or id(pred) in chain)
        memo = self._memo.setdefault(enabled, {})
        return self._value(op, enabled, memo)

    def _value(self, op, enabled, memo) -> Value:
        if op in memo:
            return memo[op]
        if op in enabled:
            counter = self._counters[op][0]
            result = Value.symbol(counter, counter.low, counter.high)
        else:
            entry = operator_of(op.kind)
            operands = [self._value(operand, enabled, memo) for operand in op.operands]
            if operands and entry.golden is not None and all(value.is_constant for value in operands):
                # Constants fold through the golden function itself.
                result = Value.of(self._golden(op, entry)(*(value.low for value in operands)))
            elif entry.transfer is None:
                result = self.opaque(op)
            else:
                result = entry.transfer(op, self, *operands)
        result = result.clipped(op.shape)
        memo[op] = result
        return result

    # -- leaves, for the structural entries' transfer functions ------------------------------

    def constant(self, value: int) -> Value:
        return Value.of(value)

    def opaque(self, op) -> Value:
        """A value the analysis does not see into: a symbol of its own, bounded by its shape."""
        low, high = shape_range(op.shape)
        return Value.symbol(op, low, high)

    def variable(self, op) -> Value:
        """A variable read (``live_in``): a symbol, the same value wherever the block reads it."""
        return self.opaque(op)

    def counter(self, op) -> Value:
        """A pipelined loop's ``induction`` (registered with :meth:`add_counter`)."""
        counter = self.counter_of(op)
        if counter is None:
            return self.opaque(op)
        return Value.symbol(counter, counter.low, counter.high)


def entry_states(preheader, body, wanted=(), *, limit: int = 64):
    """The states a pipelined loop can start in.

    The loop's variables are what the block before it (``preheader``, or ``None``) commits,
    computed from that block's own variable reads; those reads, and the variables the body
    reads and never writes (run-time bounds), take every value of their shapes, the
    narrowest first, as long as there are at most ``limit`` combinations (the others stay
    unknown: a loop whose control needs them has no exact test).

    Parameters
    ----------
    preheader : Block or None
    body : Block
    wanted : iterable of str
        Variables to give besides those the body reads (a ``for`` loop's start and stop).

    Returns
    -------
    (list of dict, list of str)
        The states (variable -> int; a variable missing is not known) and the variables
        enumerated.
    """
    registers = [] if preheader is None else [op for op in preheader.ops if _category(op) == "register"]
    commits = {op.attrs["var"]: op.operands[0] for op in registers if op.predicate is None}
    # A variable the block may or may not write has no one value to follow: it stays unknown.
    maybe = {op.attrs["var"] for op in registers if op.predicate is not None}
    written = {op.attrs["var"] for op in body.ops if _variable(op) == "write"}
    read = {op.attrs["var"]: op.shape for op in body.ops if _variable(op) == "read" and op.attrs["var"] not in maybe}
    given = (set(read) | set(wanted)) - maybe
    free = {}           # variable -> its shape's range
    feeding = [commits[var] for var in given if var in commits]
    for op in _slice(preheader.ops if preheader is not None else [], feeding) + feeding:
        if _variable(op) == "read" and op.attrs["var"] not in maybe:
            free[op.attrs["var"]] = shape_range(op.shape)
    for var, shape in read.items():
        if var not in commits and var not in written:
            free.setdefault(var, shape_range(shape))
    names, count = [], 1
    for var in sorted(free, key=lambda var: (free[var][1] - free[var][0], var)):
        size = free[var][1] - free[var][0] + 1
        if count * size > limit:
            break
        names.append(var)
        count *= size
    states = []
    for combination in itertools.product(*(range(free[var][0], free[var][1] + 1) for var in names)):
        known = dict(zip(names, combination))
        before = _Iteration(known, None, {})
        memo, state = {}, {var: value for var, value in known.items() if var not in commits}
        for var in given:
            if var in commits:
                value = before._value(commits[var], frozenset(), memo)
                if value.is_constant:
                    state[var] = value.low
        states.append(state)
    return states, names


#: Categories of the operations whose operands decide a loop's control and its accesses:
#: carried values, variable registers, exits and memory accesses.
_ROOTS = ("carry", "register", "exit", "memory")


def _category(op) -> str:
    return operator_of(op.kind).category


def _variable(op) -> str | None:
    return operator_of(op.kind).variable


def iterations(body, entry_values: dict, *, induction=None, limit: int = 4096, goldens: dict | None = None):
    """The value of every operation of a pipelined loop's ``body`` in each iteration.

    The same transfer functions run on constants: with every operand a constant, an
    operation's value is its golden function's.  Memory reads and variables not in
    ``entry_values`` stay unknown.

    Parameters
    ----------
    body : Block
        The loop body, in program order.
    entry_values : dict
        Variable -> its int value when the loop starts (missing: not known).
    induction : tuple of (int, int, int) or None
        ``(start, step, trip count)`` for a ``for`` loop's counter.
    limit : int
        Iterations to follow at most.
    goldens : dict or None
        A cache of the operations' golden functions, shared between calls.

    Returns
    -------
    list of dict or None
        One ``op -> int or None (unknown)`` map per iteration that may run, ending with
        the one whose exit fires; ``None`` when the loop's control depends on data (an
        exit that cannot be decided) or runs past ``limit``.
    """
    carries = {op.attrs["var"]: op for op in body.ops if _category(op) == "carry"}
    commits = {op.attrs["var"]: op for op in body.ops if _category(op) == "register"}
    exits = [op for op in body.ops if _category(op) == "exit"]
    if induction is not None:
        start, step, trips = induction
        if trips is None or trips > limit:
            return None
    elif not exits:
        return None
    # Only what decides the control and the accesses: the rest is data.
    needed = _slice(body.ops, [op for op in body.ops if _category(op) in _ROOTS])
    goldens = {} if goldens is None else goldens
    state = dict(entry_values)
    out = []
    for index in range(limit + 1):
        if induction is not None and index >= trips:
            return out
        run = _Iteration(state, None if induction is None else start + index * step, goldens)
        memo, values = {}, {}
        for op in needed:
            value = run._value(op, frozenset(), memo)
            values[op] = value.low if value.is_constant else None
        out.append(values)
        fired = [values[op.operands[0]] for op in exits]
        if any(value is None for value in fired):
            return None
        if any(fired):
            return out
        following = {}
        for var in set(carries) | set(commits):
            if var in carries:
                following[var] = values[carries[var].operands[0]]
                continue
            commit = commits[var]
            taken = 1 if commit.predicate is None else values[commit.predicate]
            if taken is None:
                following[var] = None
            else:
                following[var] = values[commit.operands[0]] if taken else state.get(var)
        state.update(following)
    return None


def _slice(ops, roots) -> list:
    """The operations ``roots`` need (their operands and predicates, transitively), in program
    order; a load's own data is not needed, only its index and predicate."""
    needed, stack = set(), []
    for root in roots:
        stack.extend(root.operands[:1] if _category(root) == "memory" else root.operands)
        if root.predicate is not None:
            stack.append(root.predicate)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        stack.extend(op.operands)
    return [op for op in ops if op in needed]


class _Iteration(ValueAnalysis):
    """One iteration of a loop: variables and the counter are the iteration's ints."""

    def __init__(self, state: dict, induction_value: int | None, goldens: dict):
        super().__init__()
        self._goldens = goldens
        self.state = state
        self.induction_value = induction_value

    def variable(self, op) -> Value:
        value = self.state.get(op.attrs["var"])
        return self.opaque(op) if value is None else Value.of(value)

    def counter(self, op) -> Value:
        return self.opaque(op) if self.induction_value is None else Value.of(self.induction_value)
