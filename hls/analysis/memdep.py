"""Memory dependence analysis: which accesses to one array must stay ordered, and at what distance.

For two accesses ``P`` (earlier in program order) and ``Q`` of the same array,
at least one of them a store, a dependence ``P -> Q`` at distance ``d`` says
that ``Q`` in iteration ``k + d`` may touch the element ``P`` touched in
iteration ``k``; ``Q -> P`` likewise with ``d >= 1``.  Only the shortest
distance of each direction is kept: it orders the longer ones too.  The
indices are read from the value analysis (:mod:`hls.analysis.values`), in
four tests, the first that applies deciding:

* **exact**, where the loop's control does not depend on data (constant trip
  counts, a flattened nest of them included, up to :data:`EXACT_LIMIT`
  iterations; run-time bounds of few values, each followed in turn:
  :func:`hls.analysis.values.entry_states`): the loop's counters, flags and
  indices are computed for every iteration
  (:func:`hls.analysis.values.iterations`) and two accesses conflict at
  distance ``d`` exactly when both run ``d`` iterations apart at one address.  In the ``C[i][j] += A[i][k] * B[k][j]`` nest, ``s = C[i * 4 + j]``
  runs on the first ``k`` iteration of each ``(i, j)`` and ``C[i * 4 + j] = s``
  on the last: no read ever follows the write of its element;
* **affine**, over the pipelined loop's counter and loop-invariant variables:
  same invariant part and counter coefficient ``c`` (per iteration ``a = c *
  step``): the distance is exactly ``(bP - bQ) / a``, none when that is not an
  integer (``a[2i]`` against ``a[2i+1]``); both invariant: the same element
  every iteration, or never;
* **nest**, where the exact test does not apply (more iterations or run-time
  values than it follows, control that depends on data; a nest whose levels'
  trip counts multiply to more than :data:`EXACT_LIMIT` is not followed at all)
  in a flattened nest: both indices are one affine form in the counters of
  levels ``0..L`` (and in variables the loop never writes) up to their
  constants. Every difference of the counters at which the two touch one element
  is found (:func:`_differences`: ``C[i * 16 + j]`` against ``C[i * 16 + j + 1]``,
  ``0 <= j <= 15``, meet where ``(i, j)`` differ by ``(0, 1)`` or ``(1, -15)``).
  A difference first non-zero at level ``l``, by ``n`` of its steps, puts the
  two at least ``|n|`` flattened iterations apart, the one with the later
  counters later: each iteration of a level is a run of consecutive iterations
  of the flattened loop, at least one long. The difference 0 (one iteration of
  level ``L``, with ``C[i * 16 + j]`` on both sides: distinct for distinct
  ``(i, j)``) is a run of consecutive iterations in which an access that runs only
  in its first iteration (the code before an inner loop) or only in its last (the
  code after it) fixes the order: ``C[i][j] += ...`` reads before and writes after,
  and no read follows the write of its element. The shortest distance of each
  direction is kept, and a direction no difference gives has none. Nothing is
  assumed about the trip counts (empty inner runs included) nor about how many
  iterations are in flight: the distances are bounds from below;
* **GCD and bounds**, otherwise (other counters, indices read from memory):
  no dependence when the two indices' intervals are disjoint or the GCD of
  their coefficients does not divide the difference of their constants (at
  distance 0, where both see the same values, over the difference of the two
  forms); anything else is conservative, ``P -> Q`` at distance 0 and ``Q ->
  P`` at distance 1.

Two accesses on opposite sides of one condition never both run in one iteration: they
have no dependence at distance 0, but one iteration's access may still meet the next
one's, so ``P -> Q`` then starts at distance 1 (in the exact test, by the iterations
followed; otherwise wherever the indices may be equal).

Accesses to different banks of a partitioned array (``attrs["bank"]``) never
depend on each other: the banks hold disjoint elements.  :func:`independence_proofs`
says, for the report, why each pair of a loop that could have conflicted does not.

All dependences found here have kind ``"memory"``.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass

from ..ir.nodes import Block
from ..ir.ops import operator_of
from .predicates import exclusive
from .values import Counter, Value, ValueAnalysis, entry_states

__all__ = ["MemoryDependence", "memory_dependences", "loop_dependences", "independence_proofs", "EXACT_LIMIT"]

#: Iterations the exact test follows at most in one run, in all runs, and the states it starts from.
EXACT_LIMIT = 1024
EXACT_TOTAL = 8192
EXACT_STATES = 64
#: Counter differences the nest test considers at most for one pair (it gives up beyond).
NEST_SOLUTIONS = 256


@dataclass(frozen=True)
class MemoryDependence:
    """``dst`` in iteration ``k + distance`` must follow ``src`` in iteration ``k``.

    Attributes
    ----------
    src, dst : Op
    distance : int
    exact : bool
        ``True`` when ``dst`` touches ``src``'s element at exactly this distance in every
        iteration (an affine pair); ``False`` when it may (the shortest distance of
        conflicts found, or assumed because the indices could not be compared).
    """

    src: object
    dst: object
    distance: int
    exact: bool


def loop_dependences(loop) -> list[MemoryDependence]:
    """The memory dependences of a :class:`~hls.ir.nodes.PipelinedLoop`'s body."""
    return memory_dependences(loop.body, loop_step=loop.step or 1, trip_count=loop.info.trip_count,
                              values=loop.values, loop=loop)


def independence_proofs(loop) -> list[str]:
    """Why the accesses of ``loop`` that could have conflicted do not, one sentence per pair."""
    proofs = []
    memory_dependences(loop.body, loop_step=loop.step or 1, trip_count=loop.info.trip_count,
                       values=loop.values, loop=loop, proofs=proofs)
    return proofs


def memory_dependences(block: Block, *, loop_step: int | None = None, trip_count: int | None = None,
                       values: ValueAnalysis | None = None, loop=None,
                       proofs: list | None = None) -> list[MemoryDependence]:
    """Ordering constraints between the memory accesses of ``block``.

    Parameters
    ----------
    block : Block
        Its ``ops`` list is in program order.
    loop_step : int or None
        For the body of a pipelined loop, the counter's step; ``None`` for a block
        run once (only distance-0 dependences are returned).
    trip_count : int or None
        When known, dependences at distances of ``trip_count`` or more are dropped.
    values : ValueAnalysis or None
        The IR builder's, which knows the loops' counters (a fresh one otherwise).
    loop : PipelinedLoop or None
        The loop whose body ``block`` is: the block before it and its counter's
        variables give the states it starts in (for the exact test). Without it the
        exact test knows a ``for`` loop's counter only from a constant start and
        ``trip_count``.
    proofs : list or None
        Receives a sentence for each pair of a loop found independent, and why.
    """
    values = ValueAnalysis() if values is None else values
    values.forget()     # forwarding may have rewritten operands since the values were computed
    accesses = [op for op in block.ops if operator_of(op.kind).category == "memory"]
    forms = {op: values.value(op.operands[0], op.predicate) for op in accesses}
    induction = next((op for op in block.ops if op.kind == "induction"), None)
    # The counter's symbol: its Counter where the builder registered one, the operation otherwise.
    counter = None if induction is None else values.counter_of(induction) or induction
    written = {op.attrs["var"] for op in block.ops if operator_of(op.kind).category == "register"}
    exact = _ExactTest(block, accesses, values, loop, induction is not None, loop_step,
                       (counter.start if isinstance(counter, Counter) else None, trip_count))
    out = []
    for i, first in enumerate(accesses):
        for second in accesses[i + 1:]:
            if first.attrs["array"] != second.attrs["array"]:
                continue
            if first.attrs.get("bank") != second.attrs.get("bank"):
                continue    # banks of a partitioned array hold disjoint elements
            if not (_writes(first) or _writes(second)):
                continue
            exclusive_in_iteration = exclusive(first, second)
            found, decided, why = _pair(first, second, forms[first], forms[second], loop_step, trip_count,
                                        counter, written, exclusive_in_iteration)
            exact_found = exact.pair(first, second, exclusive_in_iteration) if not decided and loop_step else None
            nest_found = None
            if exact_found is None and not decided and loop_step:
                nest_found = _nest_pair(first, second, forms[first], forms[second], values, written,
                                        exclusive_in_iteration, found)
            if exact_found is not None:
                found = exact_found
                if proofs is not None and len(found) < 2:
                    proofs.append(_exact_proof(first, second, found, forms[first], forms[second], exact.checked))
            elif nest_found is not None:
                found, proof = nest_found
                if proofs is not None:
                    proofs.append(proof)
            elif proofs is not None and loop_step is not None and not found:
                proofs.append(f"{_name(first)} and {_name(second)}: never the same element "
                              f"({forms[first].text()} against {forms[second].text()}: {why})")
            out.extend(found)
    return out


class _ExactTest:
    """Every iteration's addresses in every state the loop can start in, computed once, and
    only when a pair needs them.

    ``counted`` says the loop has a counter (a ``for``); without ``loop``, its start and trip
    count are ``fallback`` (``(start or None, trip count or None)``)."""

    def __init__(self, block, accesses, values, loop, counted, step, fallback):
        self.block, self.accesses, self.values, self.loop = block, accesses, values, loop
        self.counted, self.step, self.fallback = counted, step, fallback
        self._events, self._failed, self.total = [], False, 0

    @functools.cached_property
    def states(self):
        if self.loop is None:
            return [{}], []
        wanted = (self.loop.start_var, self.loop.stop_var) if self.counted else ()
        return entry_states(self.loop.preheader, self.block, wanted, limit=EXACT_STATES)

    def induction(self, state):
        """``(start, step, trip count)`` of the counter in ``state``, ``None`` for a ``while``;
        ``False`` when it is not known."""
        if not self.counted:
            return None
        if self.loop is None:
            start, trips = self.fallback
        else:
            start, stop = state.get(self.loop.start_var), state.get(self.loop.stop_var)
            trips = None if start is None or stop is None else len(range(start, stop, self.step))
        return False if start is None or trips is None else (start, self.step, trips)

    @functools.cached_property
    def longest(self) -> int | None:
        """At most how many iterations one run of a flattened nest takes, from its levels'
        counters alone (``None`` when the loop is no such nest).

        Each iteration of a level is a run of the flattened loop as long as the runs of the
        level inside it, or one iteration when that level runs none; a level counts at most
        ``(high - low) // |step| + 1`` iterations. A ``break`` ends its run in the iteration after
        the one that takes it, or in that one when it is the run's last: never past the level's
        count (:mod:`hls.frontend.flatten`). The product of the levels' counts bounds every run from above, so a nest
        whose bound exceeds :data:`EXACT_LIMIT` may still be followed (a bound from above is
        loose for triangular nests), and one whose bound is below never runs past it."""
        counters = [] if self.counted else self.values.counters_in(self.block.ops)
        if not counters:
            return None
        deepest = max(counters, key=lambda counter: len(counter.outer))
        levels = {id(counter): counter for counter in counters + list(deepest.outer)}
        total = 1
        for counter in levels.values():
            total *= (counter.high - counter.low) // abs(counter.step) + 1
        return total

    def events(self, index: int):
        """``access -> address -> iterations`` in state ``index``, or ``None`` when its control
        depends on data or the runs so far are too long (computed once, on demand: a pair whose
        addresses are not known in the first state needs no other)."""
        if self.longest is not None and self.longest > EXACT_LIMIT:
            self._failed = True     # decided from the trip counts, without following the nest
        while len(self._events) <= index and not self._failed:
            state = self.states[0][len(self._events)]
            induction = self.induction(state)
            runs = None if induction is False else \
                self.values.iterations(self.block, state, induction=induction, limit=EXACT_LIMIT)
            if runs is None or self.total + len(runs) > EXACT_TOTAL:
                self._failed = True
                break
            self.total += len(runs)
            self._events.append(_events(self.accesses, runs))
        return self._events[index] if index < len(self._events) else None

    @property
    def checked(self) -> str:
        """What the exact test followed, for a proof."""
        names = self.states[1]
        if not names:
            return f"all {self.total} iterations"
        return f"all {self.total} iterations of {len(self.states[0])} runs, one for each value of {', '.join(names)}"

    def pair(self, first, second, exclusive_in_iteration) -> list | None:
        """The shortest conflicts of two accesses over every state, or ``None`` (no exact test)."""
        shortest = {}
        for index in range(len(self.states[0])):
            events = self.events(index)
            if events is None or first not in events or second not in events:
                return None
            for dep in _exact_pair(first, second, events[first], events[second], exclusive_in_iteration):
                key = (dep.src, dep.dst)
                if key not in shortest or dep.distance < shortest[key].distance:
                    shortest[key] = dep
        return list(shortest.values())


def _events(accesses, runs) -> dict:
    """access -> address -> sorted iterations in which it may run there; accesses whose address
    is not known in some iteration that may run them are left out."""
    out = {}
    for access in accesses:
        by_address = {}
        for index, values in enumerate(runs):
            runs_here = 1 if access.predicate is None else values[access.predicate]
            if runs_here == 0:
                continue
            address = values[access.operands[0]]
            if address is None:
                break
            by_address.setdefault(address, []).append(index)
        else:
            out[access] = by_address
    return out


def _exact_pair(first, second, at_first: dict, at_second: dict, exclusive_in_iteration: bool) -> list:
    """The shortest ``first -> second`` (distance >= 0) and ``second -> first`` (>= 1) conflicts."""
    forward = backward = None
    for address, iterations_first in at_first.items():
        iterations_second = at_second.get(address)
        if not iterations_second:
            continue
        for k in iterations_first:
            # first at k, second at the earliest k + d, d >= 0 (d == 0 only when both can run then).
            later = bisect.bisect_left(iterations_second, k)
            if later < len(iterations_second) and iterations_second[later] == k and exclusive_in_iteration:
                later += 1
            if later < len(iterations_second):
                distance = iterations_second[later] - k
                forward = distance if forward is None else min(forward, distance)
            # second at k, first at the earliest k + d, d >= 1.
        for k in iterations_second:
            later = bisect.bisect_right(iterations_first, k)
            if later < len(iterations_first):
                distance = iterations_first[later] - k
                backward = distance if backward is None else min(backward, distance)
    found = []
    if forward is not None:
        found.append(MemoryDependence(first, second, forward, False))
    if backward is not None:
        found.append(MemoryDependence(second, first, backward, False))
    return found


def _exact_proof(first, second, found, form: Value, other: Value, checked: str) -> str:
    directions = {(dep.src, dep.dst) for dep in found}
    missing = [(a, b) for a, b in ((first, second), (second, first)) if (a, b) not in directions]
    parts = [f"{_kind(b)} on line {_line(b)} never touches an element after {_kind(a)} on line {_line(a)} "
             f"does" for a, b in missing]
    # One index, distinct for distinct counters: the two meet only within one iteration of them.
    distinct = _injective(form) if form == other else ""
    if distinct:
        parts.insert(0, f"`{_text(first)}`: distinct for distinct {distinct}")
    return f"{'; '.join(parts)} ({checked} checked)"


def _injective(form: Value) -> str:
    """The counters' names when ``form`` takes distinct values for distinct counter values, else ''."""
    if not form.exact_form or not form.terms or not all(isinstance(s, Counter) for s, _ in form.terms):
        return ""
    if not _dominated(form.terms):
        return ""
    names = [symbol.name for symbol, _ in sorted(form.terms, key=lambda item: -abs(item[1]))]
    return names[0] if len(names) == 1 else f"({', '.join(names)})"


def _dominated(terms) -> bool:
    """Each counter's coefficient exceeds what all those of smaller coefficients can add up to
    over their ranges (``16*i + j``, ``0 <= j <= 15``), so that the sum takes distinct values
    for distinct counter values: where they differ, the largest differing term decides."""
    reach = 0
    for symbol, coefficient in sorted(terms, key=lambda item: abs(item[1])):
        if abs(coefficient) <= reach:
            return False
        reach += abs(coefficient) * (symbol.high - symbol.low)
    return True


def _nest_pair(first, second, form_p: Value, form_q: Value, values: ValueAnalysis, written, exclusive_in_iteration,
               conservative: list):
    """``(dependences, proof)`` from a flattened nest's structure, or ``None`` when it proves no
    more than ``conservative`` (the pair :func:`_pair` falls back to).

    Both indices are one affine form ``S`` in the counters of levels ``0..L`` of the nest (and
    in variables the loop never writes), up to their constants: ``first`` touches ``S(x) +
    cP`` in an iteration whose counters are ``x``, ``second`` touches ``S(y) + cQ``. They
    touch one element exactly when ``S(x) - S(y) = sum(a_l * (x_l - y_l)) = cQ - cP``
    (:func:`_differences` finds every such difference ``x - y`` the counters' intervals
    allow). The proof that this gives every distance at which they can meet:

    * the iterations of level ``l`` inside one iteration of the levels around it are runs of
      consecutive iterations of the flattened loop, each at least one long (an empty inner
      run takes one), in the order of their counter values; two iterations whose counters
      differ first at level ``l``, by ``n`` of its steps, are then at least ``|n|`` flattened
      iterations apart (the earlier run's rest is at least 1, and the ``|n| - 1`` runs
      between at least 1 each), the later one being the one with the larger iteration
      number. A difference that is not a multiple of the step at its first level cannot
      occur (both counters started from one start in one iteration of the levels around).
      Each such difference is a dependence from the earlier access to the later at
      ``|n|``, and the shortest one of each direction orders the others;
    * the difference 0 (one iteration of level ``L``, only when ``cP == cQ``) is the
      same-run case: an access that runs only in the run's first iteration (the code before
      an inner loop) or only in its last (the code after it; the innermost body runs in one
      iteration of each) fixes the order within it: ``second -> first`` (at distance >= 1)
      needs ``first`` in a later iteration of the run than ``second``, ``first -> second``
      at a distance >= 1 needs ``second`` in a later one.

    Nothing is assumed about the trip counts (empty inner runs included) nor about how many
    iterations are in flight: the distances are lower bounds, reached when the runs between
    are one iteration long (run-time bounds), and larger when inner trip counts are constant.
    ``C[i * 16 + j]`` against ``C[i * 16 + j + 1]`` (``0 <= j <= 15``) meet where ``(i, j)``
    differ by ``(0, 1)`` or ``(1, -15)``: the second's element is the first's one iteration of
    ``j`` or of ``i`` later, at least 1 flattened iteration, never earlier."""
    nest = _nest_levels(form_p, form_q, written)
    if nest is None:
        return None
    levels, coefficients, modulus = nest
    solutions = _differences(levels, coefficients, form_q.constant - form_p.constant, modulus)
    if solutions is None:
        return None
    shortest = {}       # (earlier, later) -> distance
    meets = {}          # (earlier, later) -> [later's counters minus earlier's]
    lengths = [counter.length for counter in levels]
    at_p = values.positions(first.predicate).get(levels[-1], frozenset())
    at_q = values.positions(second.predicate).get(levels[-1], frozenset())
    # Where in an iteration of level L each runs (flattened iterations from its start), when
    # that iteration's length is a constant.
    offsets = None if lengths[-1] is None else \
        tuple(_offsets(values.positions(op.predicate), levels[-1]) for op in (first, second))
    timed = set()       # the levels whose lengths gave a distance
    across = {}         # (earlier, later) -> distance, in different iterations of level L
    for difference in solutions:
        level = next((k for k, d in enumerate(difference) if d), None)
        if level is None:
            continue                                    # one iteration of level L: below
        n, remainder = divmod(difference[level], levels[level].step)
        if remainder:
            continue
        apart = _apart(levels, difference, level)
        if apart is not None and offsets is not None:
            # first's iteration minus second's is in [low, high]: each direction's shortest.
            (a_p, b_p), (a_q, b_q) = offsets
            low, high = apart + a_p - b_q, apart + b_p - a_q
            directions = ([((second, first), max(1, low))] if high >= 1 else []) + \
                ([((first, second), max(1, -high))] if low <= -1 else [])
            timed.update(range(level, len(levels)))
        else:
            directions = [((second, first), abs(n))] if n > 0 else [((first, second), abs(n))]
        for pair, distance in directions:
            # difference = first's counters - second's.
            later_minus_earlier = difference if pair[0] is second else tuple(-d for d in difference)
            shortest[pair] = min(shortest.get(pair, distance), distance)
            across[pair] = min(across.get(pair, distance), distance)
            meets.setdefault(pair, []).append(later_minus_earlier)
    same_run = any(not any(difference) for difference in solutions)
    where, within_only, run_later = "", False, {}
    if same_run:
        options = []
        if offsets is not None:
            # One iteration of level L, its length known: the offsets order the two.
            (a_p, b_p), (a_q, b_q) = offsets
            if b_p - a_q >= 1:                                          # second, then first later
                options.append(((second, first), max(1, a_p - b_q)))
            later = [((first, second), max(1, a_q - b_p))] if b_q - a_p >= 1 else []
            if not exclusive_in_iteration and a_p <= b_q and a_q <= b_p:
                options.append(((first, second), 0))                    # in one iteration
                within_only = not later and (first, second) not in meets
            options += later
            run_later = {pair: distance for pair, distance in options if distance}
            if lengths[-1] > 1:
                timed.add(len(levels) - 1)
        else:
            if not ("first" in at_p or "last" in at_q):                 # second, then first later in the run
                options.append(((second, first), 1))
            if not ("last" in at_p or "first" in at_q):                 # first, then second later in the run
                options.append(((first, second), 1 if exclusive_in_iteration else 0))
            elif not exclusive_in_iteration:
                options.append(((first, second), 0))                    # within one iteration only
                within_only = (first, second) not in meets
        for pair, distance in options:
            shortest[pair] = min(shortest.get(pair, distance), distance)
        where = _where([(first, at_p), (second, at_q)], _names(levels))
    found = [MemoryDependence(src, dst, distance, False) for (src, dst), distance in shortest.items()]
    if {(dep.src, dep.dst): dep.distance for dep in found} == \
            {(dep.src, dep.dst): dep.distance for dep in conservative}:
        return None
    lengths_text = "; ".join(note for note in (_lengths_text(levels, timed),
                                                f"the indices are equal only modulo {modulus}" if modulus else "")
                             if note)
    run_later = {pair: distance for pair, distance in run_later.items() if shortest[pair] == distance}
    return found, _nest_proof(first, second, levels, across, meets, within_only, where, lengths_text, run_later,
                              set(shortest))


def _offsets(positions: dict, level: Counter) -> tuple[int, int]:
    """The first and the last flattened iteration, counted from the start of an iteration of
    ``level`` (of constant length), in which an access can run whose predicate holds only at
    ``positions`` (:meth:`ValueAnalysis.positions`) of iterations of ``level`` or of the levels
    inside it: the first iteration of an iteration of a level inside, ``length`` long, is at most
    ``level.length - length`` into it, the last at least ``length - 1``."""
    low, high = 0, level.length - 1
    for counter, where in positions.items():
        if counter is level:
            length = level.length
        elif level in counter.outer and counter.length is not None:
            length = counter.length
        else:
            continue
        if where == {"first"}:
            high = min(high, level.length - length)
        elif where == {"last"}:
            low = max(low, length - 1)
    if low > high:
        return 0, level.length - 1        # runs in no iteration: any bound holds; the widest
    return low, high


def _apart(levels, difference, level: int) -> int | None:
    """How many flattened iterations the iteration of level L whose counters are ``y +
    difference`` starts after the one whose counters are ``y`` (first non-zero at ``level``), when
    the lengths of the iterations of ``level`` and of every level inside it are constants and the
    levels inside it start from constants (so that an iteration of level ``m`` starts
    ``(x_m - start_m) / step_m`` lengths of level ``m`` after the iteration of level ``m - 1``
    around it); ``None`` otherwise.

    The iterations of ``level`` inside one iteration of the levels around it are consecutive,
    each ``length`` flattened iterations long, in the order of their counters (both counters of
    ``level`` step from one start): ``difference[level] / step`` of them apart, exactly."""
    apart = 0
    for m in range(level, len(levels)):
        counter = levels[m]
        if counter.length is None or (m > level and counter.start is None):
            return None
        steps, remainder = divmod(difference[m], counter.step)
        if remainder:
            return None
        apart += steps * counter.length
    return apart


def _lengths_text(levels, used) -> str:
    """``each i takes 16 iterations``, for a proof: the lengths of the iterations of the levels
    ``used`` (indices into ``levels``) that are longer than one, each level named by its counters
    and those around it (an iteration of ``j`` inside ``i`` is one ``(i, j)``)."""
    parts = [f"each {_names(levels[:k + 1])} {levels[k].length}" for k in sorted(used) if levels[k].length > 1]
    if not parts:
        return ""
    head, *rest = parts
    name, length = head.rsplit(" ", 1)
    return ", ".join([f"{name} takes {length} iterations"] + rest)


def _nest_proof(first, second, levels, across, meets, within_only, where, lengths, run_later, directions) -> str:
    """What :func:`_nest_pair` proved, for the report: ``meets`` and ``across`` (the shortest
    distance of each direction between different iterations of level L) as in it, ``within_only``
    when ``first -> second`` is only the same-iteration one, ``lengths`` the constant lengths of
    the levels' iterations that the distances come from (``each i takes 16 iterations``),
    ``run_later`` the ``(earlier, later) -> distance`` of the two within one iteration of level L
    that those lengths give, and ``directions`` the ``(earlier, later)`` pairs kept."""
    names = _names(levels)
    parts = []
    for (earlier, later), differences in sorted(meets.items(), key=lambda item: item[0] != (first, second)):
        distance = across[(earlier, later)]
        alternatives = _alternatives(sorted(set(differences)))
        parts.append(f"{_kind(later)} on line {_line(later)} touches an element {_kind(earlier)} on line "
                     f"{_line(earlier)} touched only where its {names} {'is' if len(levels) == 1 else 'are'} "
                     f"that one's plus {alternatives}, at least {distance} iteration{'s' if distance > 1 else ''} "
                     f"later")
    parts += [f"{_kind(later)} on line {_line(later)} touches the element {_kind(earlier)} on line {_line(earlier)} "
              f"touched in the same {names} {distance} iteration{'s' if distance > 1 else ''} later"
              for (earlier, later), distance in sorted(run_later.items(),
                                                       key=lambda item: item[0] != (first, second))]
    parts += [f"{_kind(b)} on line {_line(b)} never touches an element after {_kind(a)} on line {_line(a)} does"
              for a, b in ((first, second), (second, first)) if (a, b) not in directions]
    if within_only:
        parts.append(f"{_kind(second)} on line {_line(second)} touches the element {_kind(first)} on line "
                     f"{_line(first)} does only in the same iteration")
    if not meets and _text(first) == _text(second):
        text = "; ".join([f"`{_text(first)}`: distinct for distinct {names}"] + parts)
    else:
        head = f"`{_text(first)}`" if _text(first) == _text(second) else f"`{_text(first)}` and `{_text(second)}`"
        text = f"{head}: {'; '.join(parts)}"
    notes = "; ".join(note for note in (where, lengths) if note)
    return text + (f" ({notes})" if notes else "")


def _alternatives(differences) -> str:
    """``(0, 1) or (1, -15)``; beyond four, the three smallest and how many more (indices that
    wrap meet every few rows)."""
    if len(differences) > 4:
        nearest = sorted(differences, key=lambda difference: (tuple(map(abs, difference)), difference))
        return " or ".join(_vector(difference) for difference in nearest[:3]) + f" or {len(differences) - 3} more"
    return " or ".join(_vector(difference) for difference in differences)


def _names(levels) -> str:
    return levels[0].name if len(levels) == 1 else f"({', '.join(counter.name for counter in levels)})"


def _vector(difference) -> str:
    return str(difference[0]) if len(difference) == 1 else f"({', '.join(map(str, difference))})"


def _where(accesses, names: str) -> str:
    """In which iterations of each iteration of the level ``names`` the accesses run, for a proof:
    ``the read runs only in the first iteration of each (i, j), the write only in the last``."""
    out = []
    for op, positions in accesses:
        if not positions:
            continue
        if positions >= {"first", "last"}:
            where = "in one iteration" if not out else "in one"
        else:
            (position,) = positions
            where = f"only in the {position}" + ("" if out else " iteration")
        out.append(f"{_kind(op)} {where}" if out else f"{_kind(op)} runs {where} of each {names}")
    return ", ".join(out)


def _nest_levels(form_p: Value, form_q: Value, written):
    """``(levels, coefficients, modulus)`` of two index forms that are one affine form, up to
    their constants, in the counters of levels ``0..L`` of a flattened nest (outermost first),
    or ``None``. ``modulus`` is 0 when both forms are their indices, else the power of two
    modulo which both hold (an index through a wrap or a mask, ``(i * 16 + j) & 63``: two
    indices are equal only where their forms are equal modulo it).

    Their other symbols must be variables the loop never writes (one value in every
    iteration); every level ``0..L`` whose counter takes more than one value must be in the
    form (otherwise two of its iterations touch one element, at least one flattened iteration
    apart: no better than the conservative pair) unless its iterations have a constant length
    (``C[j]`` in a nest over ``i``, each ``i`` 16 iterations: 16 apart), and no counter of
    another loop."""
    if not (form_p.affine and form_q.affine) or _form_key(form_p)[1] != _form_key(form_q)[1]:
        return None
    counters = [symbol for symbol, _ in form_p.terms if isinstance(symbol, Counter)]
    if not counters:
        return None
    for symbol, _ in form_p.terms:
        if not isinstance(symbol, Counter) and not _invariant(symbol, written):
            return None
    level = max(counters, key=lambda counter: len(counter.outer))
    levels = level.outer + (level,)
    if not set(counters) <= set(levels):
        return None
    if any(counter.high > counter.low and counter not in counters and counter.length is None for counter in levels):
        return None
    moduli = [form.modulus for form in (form_p, form_q) if form.modulus]
    return levels, [form_p.coefficient(counter) for counter in levels], min(moduli, default=0)


def _differences(levels, coefficients, delta: int, modulus: int = 0) -> list | None:
    """Every ``d`` (one int per level) with ``sum(c * d) == delta`` (modulo ``modulus``, when
    not 0) and ``|d_l|`` within the span of level ``l``'s counter (a multiple of its step where
    its start is a constant), or ``None`` when there are more than :data:`NEST_SOLUTIONS`
    candidates.

    Modulo ``modulus``, ``sum(c * d) == delta + t * modulus`` for some ``t``, which ``|sum(c *
    d)| <= reach`` bounds: ``t`` is one more level, ``|t| <= (reach + |delta|) // modulus + 1``,
    left out of the solutions.

    The terms are taken largest coefficient first: what the smaller ones can still add up to
    (``reach``) leaves a window of ``2 * reach + 1`` values for ``c * d``. Where each
    coefficient exceeds the reach of the smaller ones (``16 * i + j``, ``0 <= j <= 15``) that
    window holds at most two multiples of ``c``, so a nest of ``L`` levels has at most ``2 **
    L`` solutions, and exactly one (zero) for ``delta == 0``: distinct for distinct counters."""
    if modulus:
        reach = sum(abs(c) * (counter.high - counter.low) for counter, c in zip(levels, coefficients))
        wraps = Counter("wraps", 0, (reach + abs(delta)) // modulus + 1, None, 1)
        solutions = _differences(tuple(levels) + (wraps,), list(coefficients) + [modulus], delta)
        return None if solutions is None else sorted({solution[:-1] for solution in solutions})
    order = sorted(range(len(levels)), key=lambda k: -abs(coefficients[k]))
    reach = [0] * (len(order) + 1)
    for position in reversed(range(len(order))):
        k = order[position]
        reach[position] = reach[position + 1] + abs(coefficients[k]) * (levels[k].high - levels[k].low)
    partial = [((0,) * len(levels), delta)]
    for position, k in enumerate(order):
        counter, c = levels[k], coefficients[k]
        span, rest, size = counter.high - counter.low, reach[position + 1], abs(c)
        grown = []
        for chosen, remaining in partial:
            wanted = remaining if c > 0 else -remaining        # size * d within wanted +- rest
            if not size:
                low, high = (-span, span) if abs(remaining) <= rest else (0, -1)
            else:
                low, high = max(-span, -((rest - wanted) // size)), min(span, (wanted + rest) // size)
            if high - low >= NEST_SOLUTIONS:
                return None
            for d in range(low, high + 1):
                if counter.start is not None and d % counter.step:
                    continue                                    # both counters start + a multiple of step
                grown.append((chosen[:k] + (d,) + chosen[k + 1:], remaining - c * d))
            if len(grown) > NEST_SOLUTIONS:
                return None
        partial = grown
    return [chosen for chosen, remaining in partial if remaining == 0]


def _form_key(form: Value) -> tuple:
    """A form with each variable read named by its variable (two reads of one variable are one
    value in one iteration) and each counter by itself."""
    def name(symbol):
        if isinstance(symbol, Counter):
            return "counter", str(id(symbol))
        var = symbol.attrs.get("var")
        return ("var", var) if var else ("value", str(id(symbol)))
    return form.constant, tuple(sorted((name(symbol), c) for symbol, c in form.terms))


def _kind(op) -> str:
    return "the write" if _writes(op) else "the read"


def _writes(op) -> bool:
    return operator_of(op.kind).writes_memory


def _invariant(symbol, written) -> bool:
    """Whether the symbol ``symbol`` (an operation) is a read of a variable the block never writes."""
    return operator_of(symbol.kind).variable == "read" and symbol.attrs["var"] not in written


def _line(op) -> str:
    return ", ".join(map(str, op.lines)) or "?"


def _text(op) -> str:
    return (op.text or op.attrs["array"]).removesuffix(" = ...")


def _name(op) -> str:
    return f"`{op.text or op.attrs['array']}` (line {_line(op)})"


def _pair(first, second, form_p: Value, form_q: Value, loop_step, trip_count, counter, written, exclusive_in_iteration):
    """``(dependences, decided, why)``: ``decided`` is ``False`` when they are only the conservative
    pair; ``why`` says, when there are none, what proves it.

    ``exclusive_in_iteration``: the two are on opposite sides of one condition, so they never
    both run in one iteration: no ``first -> second`` dependence at distance 0, but where they
    may meet in different iterations, the shortest one left is at distance 1 (dropping the
    distance-0 one alone would leave ``second`` in the next iteration unordered after ``first``)."""
    # The shortest distance of ``first -> second`` for accesses that may meet in one iteration.
    nearest = 1 if exclusive_in_iteration else 0
    if _disjoint(form_p, form_q):
        # Bounds: the two never touch one element.
        return [], True, f"{form_p.low}..{form_p.high} and {form_q.low}..{form_q.high} are disjoint"
    same = _difference(form_p, form_q)
    meets_in_iteration = same is None or not _never_zero(same)
    if loop_step is None or (trip_count is not None and trip_count <= 1):
        if not meets_in_iteration:
            return [], True, f"{same.text()} is never 0"
        if exclusive_in_iteration:
            return [], True, "they are on opposite sides of one condition"
        return [MemoryDependence(first, second, 0, same is not None and same.is_constant and same.low == 0)], \
            same is not None, ""
    invariant = _invariant_forms(form_p, form_q, counter, written)
    if invariant is not None and invariant[0] == invariant[1] and _rest(form_p, counter) == _rest(form_q, counter):
        # Both c * counter + (the same invariant part) + b: the distance is (bP - bQ) / (c * step).
        per_iteration = invariant[0] * loop_step
        if per_iteration == 0:
            if form_p.constant != form_q.constant:
                return [], True, "different elements in every iteration"
            return [MemoryDependence(first, second, nearest, True), MemoryDependence(second, first, 1, True)], True, ""
        delta, remainder = divmod(form_p.constant - form_q.constant, per_iteration)
        if remainder:
            return [], True, f"{form_p.constant - form_q.constant} is not a multiple of the stride {per_iteration}"
        if trip_count is not None and abs(delta) >= trip_count:
            return [], True, f"{abs(delta)} iterations apart, beyond the trip count {trip_count}"
        if delta == 0 and exclusive_in_iteration:
            return [], True, "they meet only within one iteration, on opposite sides of one condition"
        if delta >= 0:
            return [MemoryDependence(first, second, delta, True)], True, ""
        return [MemoryDependence(second, first, -delta, True)], True, ""
    divisor = _gcd_separating(form_p, form_q)
    if divisor:
        return [], True, f"the GCD {divisor} of the coefficients does not divide {form_q.constant - form_p.constant}"
    return [MemoryDependence(first, second, nearest if meets_in_iteration else 1, False),
            MemoryDependence(second, first, 1, False)], False, ""


def _disjoint(a: Value, b: Value) -> bool:
    return a.high < b.low or b.high < a.low


def _difference(a: Value, b: Value) -> Value | None:
    """``a - b`` in one execution (both see the same symbols), or ``None`` if either is not affine."""
    if not (a.exact_form and b.exact_form):
        return None
    return a - b


def _never_zero(value: Value) -> bool:
    if value.low > 0 or value.high < 0:
        return True
    if not value.terms:
        return value.constant != 0
    divisor = math.gcd(*(coefficient for _, coefficient in value.terms))
    return value.constant % divisor != 0


def _invariant_forms(form_p: Value, form_q: Value, counter, written):
    """The counter coefficients of two forms whose other symbols keep their value in every
    iteration (variables the loop never writes), or ``None``."""
    if not (form_p.exact_form and form_q.exact_form):
        return None
    for form in (form_p, form_q):
        for symbol, _ in form.terms:
            if symbol is counter:
                continue
            if isinstance(symbol, Counter) or not _invariant(symbol, written):
                return None
    return form_p.coefficient(counter), form_q.coefficient(counter)


def _rest(form: Value, counter) -> tuple:
    """The form's terms other than ``counter``'s, by variable (two reads of one variable are one value)."""
    return tuple(sorted((symbol.attrs["var"], c) for symbol, c in form.terms if symbol is not counter))


def _gcd_separating(form_p: Value, form_q: Value) -> int:
    """The GCD of every coefficient (each side's symbols free integers) when it does not divide the
    difference of the constants, so ``form_p`` in one iteration never equals ``form_q`` in any; else 0."""
    if not (form_p.exact_form and form_q.exact_form):
        return 0
    coefficients = [c for form in (form_p, form_q) for _, c in form.terms]
    divisor = math.gcd(*coefficients) if coefficients else 0
    difference = form_q.constant - form_p.constant
    if divisor == 0:
        return 0    # two constants: the bounds test has seen them
    return divisor if difference % divisor else 0
