"""The widths of a kernel's registers, from the value analysis (issue 20, Deliver 5).

A register between pipeline stages holds one operation's value for a cycle.  Its
operation's shape is the one Amaranth's rules give the expression (``a + b`` one bit
wider than its widest operand), which can be far wider than the values it ever holds:
the value analysis (:mod:`hls.analysis.values`) proves an interval for every
operation, and a register that holds only values of that interval needs only the
bits of ``Shape.cast(range(low, high + 1))`` (unsigned when the interval is not
negative).  Widened back to the operation's shape at its every use (sign- or
zero-extended as the narrow shape says), the register gives the value it held: the
hardware computes the same results bit for bit.

The interval is the analysis's value of the operation in *every* execution, under no
predicate: an operation placed speculatively, before its predicate is known, holds a
value of that interval too.  A register in a cycle that belongs to no iteration (its
valid bit clear) holds a value no side effect uses, narrowed or not.

A variable's register holds the values its commits and carries write, and the zero
it starts from: :func:`variable_intervals` finds their hull by iterating the value
analysis over the kernel, each variable read bounded by the hull found so far, until
nothing grows (a variable still growing after :data:`ROUNDS` rounds takes its
declared shape).  A variable a ``for`` loop accumulates (``s = s + d``, through
adds, subtracts, wraps that cannot wrap, and selects that reset it to a value that
does not depend on it) grows by at most ``d`` per iteration over at most the trip
count its counter's range allows, from the value the block before the loop commits.
Scalar parameters keep their declared shapes (they are ports' copies).

That accumulation is recognised here (:func:`_accumulation`), not read from the value
analysis: an abstract value there is an affine form *or* an interval, and ``x + d`` keeps
``x``'s coefficient only while ``d`` is affine. The common increment is not (``s + a[i] *
b[i]``: a product of two reads has an interval and no form, so the sum has none), nor is a
reset (a select's value is the hull of its arms), and whether a wrap on the way can change a
value depends on the bound over the whole run, which one iteration's values do not give.
Reading it from the analysis would need forms with an interval remainder and selects that
keep their arms, a change to the arithmetic the banks and the memory dependences rely on.

Besides widths, :func:`mirrored_commits` finds the carried variables whose carry
register would only copy the variable's own register: every iteration commits the
value it carries, in the same cycle and under the same valid bit, so one register
serves both.
"""

from __future__ import annotations

from amaranth.hdl import Shape, signed, unsigned

from ..ir.nodes import PipelinedLoop
from ..ir.ops import operator_of
from ..types import shape_range
from .values import Value, ValueAnalysis

__all__ = ["RegisterWidths", "interval_shape", "mirrored_commits", "variable_intervals"]

#: Rounds of :func:`variable_intervals` before a variable still growing takes its declared range.
ROUNDS = 6


def interval_shape(low: int, high: int, declared) -> Shape:
    """The narrowest shape that holds ``[low, high]``, or ``declared`` when that is no wider.

    Parameters
    ----------
    low, high : int
        The interval (inclusive); it must lie inside ``declared``'s range.
    declared : Shape-castable
    """
    declared = Shape.cast(declared)
    least, greatest = shape_range(declared)
    if not least <= low <= high <= greatest:
        # An interval outside the shape says nothing (the shape wraps): keep the shape.
        return declared
    # Shape.cast(range(low, high + 1)), without a range (whose length overflows past 2 ** 63).
    if low >= 0:
        narrow = unsigned(high.bit_length())
    else:
        narrow = signed(max((-low - 1).bit_length(), max(high, 0).bit_length()) + 1)
    return narrow if narrow.width < declared.width else declared


class RegisterWidths:
    """The shape of each pipeline register of a kernel.

    Parameters
    ----------
    ir : hls.ir.KernelIR
    enabled : bool
        ``False`` gives every register its operation's shape (the baseline of
        ``compile_kernel(narrowing=False)``).

    Attributes
    ----------
    enabled : bool
    narrowed : dict of str to (int, int)
        Operation name -> (declared bits, bits built) of every register narrowed so far.
    """

    def __init__(self, ir, *, enabled: bool = True):
        self.enabled = enabled
        analyses = [node.values for node in ir.nodes if isinstance(node, PipelinedLoop) and node.values is not None]
        # One analysis serves the whole kernel (the builder's); a kernel without loops has no counters.
        self.values = analyses[0] if analyses else ValueAnalysis()
        # Forwarding may have rewritten operands since the values were computed.
        self.values.forget()
        self.narrowed: dict[str, tuple[int, int]] = {}
        self._shapes: dict = {}
        self.variables = {var: Shape.cast(shape) for var, shape in ir.variables.items()}
        if enabled:
            intervals = variable_intervals(ir, self.values)
            for var, (low, high) in intervals.items():
                self.variables[var] = interval_shape(low, high, ir.variables[var])
            # Pipeline registers then see every variable read bounded as its register is.
            self.values = _Bounded(self.values, intervals)
        #: Variable -> (declared bits, bits built) of every variable register narrowed.
        self.narrowed_variables = {var: (Shape.cast(ir.variables[var]).width, shape.width)
                                   for var, shape in self.variables.items()
                                   if shape.width < Shape.cast(ir.variables[var]).width}

    def variable(self, var: str) -> Shape:
        """The shape of variable ``var``'s register (and of its carry registers)."""
        return self.variables[var]

    def pipeline(self, op) -> Shape:
        """The shape of a register that holds ``op``'s value for a cycle."""
        declared = Shape.cast(op.shape)
        if not self.enabled:
            return declared
        if op not in self._shapes:
            value = self.values.value(op)
            shape = interval_shape(value.low, value.high, declared)
            self._shapes[op] = shape
            if shape.width < declared.width:
                self.narrowed[op.name] = (declared.width, shape.width)
        return self._shapes[op]


def mirrored_commits(body, start: dict) -> dict:
    """``{variable: commit}`` of a loop body's carried variables whose only commit writes the
    carried value itself, unpredicated, in the carry's cycle.

    The carry register is loaded from the variable's register when the loop starts, and
    from then on both take the same value in the same cycles: one register holds both.

    Parameters
    ----------
    body : hls.ir.Block
        A pipelined loop's body.
    start : dict of str to int
        The schedule's start cycle of every operation.
    """
    carries = {op.attrs["var"]: op for op in body.ops if _category(op) == "carry"}
    commits: dict = {}
    for op in body.ops:
        if _category(op) == "register" and op.attrs["var"] in carries:
            commits.setdefault(op.attrs["var"], []).append(op)
    mirrored = {}
    for var, carry in carries.items():
        writes = commits.get(var, [])
        if len(writes) != 1:
            continue
        commit = writes[0]
        if commit.predicate is None and carry.predicate is None and commit.operands[0] is carry.operands[0] \
                and start[commit.name] == start[carry.name]:
            mirrored[var] = commit
    return mirrored


def _category(op) -> str:
    return operator_of(op.kind).category


class _Bounded(ValueAnalysis):
    """The value analysis with every variable read bounded by an interval given for it."""

    def __init__(self, base: ValueAnalysis, intervals: dict):
        super().__init__()
        self._counters = base._counters
        self._goldens = base._goldens
        self.intervals = intervals

    def variable(self, op) -> Value:
        low, high = self.intervals[op.attrs["var"]]
        return Value.symbol(op, low, high)


def _depends(op, sources, memo) -> bool:
    if op in sources:
        return True
    if op not in memo:
        memo[op] = False
        memo[op] = any(_depends(operand, sources, memo) for operand in op.operands)
    return memo[op]


def _accumulation(value_of, op, sources, memo):
    """``op`` as ``x + d`` of the variable's read ``x`` (one of ``sources``): ``(resets, d,
    wraps)``, the values a select may reset it to, ``d``'s interval, and each wrap on the way
    with the part of ``d`` added before it; ``None`` when it is not of that form."""
    if op in sources:
        return [], Value.of(0), []
    if op.predicate is not None and _depends(op.predicate, sources, memo):
        return None
    kind, operands = op.kind, op.operands
    if kind == "wrap":
        inner = _accumulation(value_of, operands[0], sources, memo)
        if inner is None:
            return None
        resets, d, wraps = inner
        return resets, d, wraps + [(op, d)]
    if kind in ("add", "sub"):
        first, second = (_depends(operand, sources, memo) for operand in operands)
        if first == second:
            return None
        inner = _accumulation(value_of, operands[0 if first else 1], sources, memo)
        if inner is None:
            return None
        resets, d, wraps = inner
        other = value_of(operands[1 if first else 0])
        if kind == "sub" and not first:
            return None                         # c - x: not an accumulation
        return resets, (d - other if kind == "sub" else d + other), wraps
    if kind == "select":
        condition, if_true, if_false = operands
        if _depends(condition, sources, memo):
            return None
        on_true, on_false = _depends(if_true, sources, memo), _depends(if_false, sources, memo)
        if on_true == on_false:
            return None
        inner = _accumulation(value_of, if_true if on_true else if_false, sources, memo)
        if inner is None:
            return None
        resets, d, wraps = inner
        return resets + [value_of(if_false if on_true else if_true)], d, wraps
    return None


def _trips(loop, values: ValueAnalysis) -> int | None:
    """The most iterations one run of ``loop`` can have: its counter's values, for a ``for`` loop."""
    if loop.kind != "for":
        return None
    counter = next((values.counter_of(op) for op in loop.body.ops if op.kind == "induction"), None)
    if counter is None or counter.step == 0:
        return None
    return (counter.high - counter.low) // abs(counter.step) + 1


def _accumulated(loop, carry, analysis, intervals, trips):
    """The hull of the values ``carry`` writes over one run of ``loop`` (and those its
    variable holds in the run), when it accumulates its variable; else ``None``."""
    var = carry.attrs["var"]
    sources = {op for op in loop.body.ops if operator_of(op.kind).variable == "read" and op.attrs["var"] == var}
    form = _accumulation(analysis.value, carry.operands[0], sources, {})
    if form is None:
        return None
    resets, d, wraps = form
    entry = intervals[var]
    commits = [op for op in (loop.preheader.ops if loop.preheader is not None else []) if _category(op) == "register"
               and op.attrs["var"] == var]
    if len(commits) == 1 and commits[0].predicate is None:
        value = analysis.value(commits[0].operands[0])
        entry = (value.low, value.high)
    low = min([entry[0]] + [reset.low for reset in resets])
    high = max([entry[1]] + [reset.high for reset in resets])
    bound = (low + trips * min(d.low, 0), high + trips * max(d.high, 0))
    # No wrap on the way may change a value: with every value of the run at most `bound`
    # and the part of d added before it, each must lie inside its shape.
    for wrap, partial in wraps:
        least, greatest = shape_range(Shape.cast(wrap.shape))
        if not (least <= bound[0] + min(partial.low, 0) and bound[1] + max(partial.high, 0) <= greatest):
            return None
    return bound


def variable_intervals(ir, values: ValueAnalysis) -> dict:
    """``{variable: (low, high)}``: every value each variable's register can hold.

    Parameters
    ----------
    ir : hls.ir.KernelIR
    values : ValueAnalysis
        The builder's analysis (it knows the loops' counters).
    """
    declared = {var: shape_range(Shape.cast(shape)) for var, shape in ir.variables.items()}
    params = {name for name, _ in ir.scalar_params}
    intervals = {var: (declared[var] if var in params else (0, 0)) for var in ir.variables}
    loops = [node for node in ir.nodes if isinstance(node, PipelinedLoop)]
    blocks = [node for node in ir.nodes if not isinstance(node, PipelinedLoop)]
    # Rounds until nothing grows; after ROUNDS rounds, a variable that still grows takes its
    # declared range at once (which cannot grow), so the iteration ends.
    round_ = 0
    while True:
        analysis = _Bounded(values, intervals)
        # Each round joins what it finds to the intervals so far: they only grow.
        found = {var: [(0, 0), intervals[var]] for var in ir.variables}

        def written(var, value):
            found[var].append((value.low, value.high) if isinstance(value, Value) else value)
        for block in blocks:
            for op in block.ops:
                if _category(op) == "register":
                    written(op.attrs["var"], analysis.value(op.operands[0]))
        for loop in loops:
            trips = _trips(loop, values)
            accumulated = {}
            for op in loop.body.ops:
                if _category(op) == "carry":
                    bound = None if trips is None else _accumulated(loop, op, analysis, intervals, trips)
                    if bound is not None:
                        accumulated[op.operands[0]] = bound
                    written(op.attrs["var"], bound if bound is not None else analysis.value(op.operands[0]))
            for op in loop.body.ops:
                if _category(op) == "register":
                    bound = accumulated.get(op.operands[0])
                    written(op.attrs["var"], bound if bound is not None else analysis.value(op.operands[0]))
        following = {}
        for var in ir.variables:
            low = min(low for low, _ in found[var])
            high = max(high for _, high in found[var])
            if var in params or low < declared[var][0] or high > declared[var][1]:
                # A port's copy, or a value that may wrap into the register: every value of its shape.
                low, high = declared[var]
            following[var] = (low, high)
        if following == intervals:
            return intervals
        round_ += 1
        if round_ >= ROUNDS:
            following = {var: (declared[var] if following[var] != intervals[var] else following[var])
                         for var in ir.variables}
        intervals = following
