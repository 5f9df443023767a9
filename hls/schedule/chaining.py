"""Earliest start times under chaining, and the recurrence that forbids them.

A point in time is a pair ``(cycle, offset_ns)``, ordered lexicographically;
this is exactly the order the dependence rule of :mod:`hls.schedule.problem`
uses.  Every step from an operation's start to a successor's earliest start
is a monotone function of time:

* ``ready``: ``(c, o) -> (c, o + delay)`` for a combinational operator,
  ``(c, o) -> (c + latency, outgoing_delay)`` for a registered one;
* a dependence with routing (:attr:`~hls.schedule.problem.Dependence.route_delay`):
  ``(c, o) -> (c, o + route)`` if ``o > 0``;
* a dependence with a tail (:attr:`~hls.schedule.problem.Dependence.tail_delay`):
  ``(c, o) -> (c + 1, 0)`` if ``o > 0`` and ``o + tail > period``;
* the iteration shift: ``(c, o) -> (c - distance * II, o)``;
* ``fit``: an operation that would overflow the clock period moves to the
  start of the next cycle, ``(c, o) -> (c + 1, 0)`` if ``o + delay > period``.

Monotone functions on a total order distribute over ``max``, so iterating
``start[v] = fit_v(max((0, 0), max over u->v of arrival(start[u])))`` (``ready``, then the
tail's rounding, then the shift: :func:`arrival`)
from ``(0, 0)`` computes, like Bellman-Ford, the longest "walk" to each
operation: the least solution of the dependence constraints, if one exists.

If one exists, no start cycle in it exceeds ``sum(latency + 1)`` over all
operations (it is the least solution of a system of difference constraints
whose edges each weigh at most ``latency + 1``: a tail's rounding and ``fit`` never
both add a cycle), and the iteration stops as
soon as a start passes that bound: the dependences cannot be met at this II.
Following the predecessor that last raised each start then leads into a
cycle of dependences (a chain without a cycle cannot climb past the bound,
since each step adds at most ``latency + 1`` cycles).  That cycle is reported
as the one responsible only once :func:`cycle_is_feasible` has confirmed that
it cannot be met on its own; the predecessors are also followed every
``n`` updates, which usually finds the blocking cycle long before the bound.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .problem import EPSILON, Dependence, OperatorType, Problem

__all__ = ["Time", "fit", "ready", "arrival", "later", "EarliestStarts", "earliest_starts",
           "solve_start_times", "cycle_is_feasible", "cycle_length"]

#: ``(cycle, offset_ns)``.
Time = tuple[int, float]


def fit(optype: OperatorType, time: Time, period: float) -> Time:
    """The earliest time >= ``time`` at which ``optype`` fits in its cycle."""
    cycle, offset = time
    if offset + optype.incoming_delay > period + EPSILON:
        return cycle + 1, 0.0
    return time


def ready(optype: OperatorType, start: Time) -> Time:
    """When the result of an operation started at ``start`` can be used."""
    cycle, offset = start
    if optype.latency == 0:
        return cycle, offset + optype.incoming_delay
    return cycle + optype.latency, optype.outgoing_delay


def arrival(optype: OperatorType, start: Time, dep: Dependence, shift: int, period: float) -> Time:
    """When ``dep``'s destination can use the result of its source (of type ``optype``, started
    at ``start``), on the destination's time line (``shift`` is ``dep.distance * II``): the
    source's :func:`ready` time, plus the dependence's routing where the result is chained (ready
    after the cycle's start), rounded up to the next cycle's start where the dependence's
    tail does not fit the rest of the ``period``."""
    cycle, offset = ready(optype, start)
    if dep.route_delay and offset > EPSILON:
        offset += dep.route_delay
    if dep.tail_delay and offset > EPSILON and offset + dep.tail_delay > period + EPSILON:
        cycle, offset = cycle + 1, 0.0
    return cycle - shift, offset


def later(a: Time, b: Time) -> bool:
    """``a > b``, with offsets compared to within :data:`EPSILON`."""
    return a[0] > b[0] or (a[0] == b[0] and a[1] > b[1] + EPSILON)


@dataclass
class EarliestStarts:
    """Outcome of :func:`earliest_starts`.

    Attributes
    ----------
    times : dict of str to Time, or None
        The least start time of every operation; ``None`` if the dependences
        cannot be met.
    cycle : list of Dependence, or None
        When ``times`` is ``None``: dependences forming a cycle whose
        constraints alone cannot be met, in order along the cycle.  ``None``
        if the predecessor chain did not close on such a cycle (the blocking
        constraints then involve several cycles at once).
    """

    times: dict[str, Time] | None
    cycle: list[Dependence] | None = None

    @property
    def feasible(self) -> bool:
        return self.times is not None


def earliest_starts(problem: Problem, ii: int) -> EarliestStarts:
    """Least start times meeting every dependence at ``ii``, ignoring resources.

    ``ii`` may be 0, to find which recurrences forbid every II below 1.
    The problem must pass :meth:`Problem.check`.
    """
    edges = [(dep, dep.distance * ii) for dep in problem.dependences]
    return solve_start_times(problem, list(problem.operations), edges)


def solve_start_times(problem: Problem, operations: list[str], edges: list[tuple[Dependence, int]],
                      earliest_cycle: dict[str, int] | None = None) -> EarliestStarts:
    """Least start times of ``operations`` meeting ``edges``.

    Each edge is a dependence with the number of cycles its iteration
    distance shifts the destination by (``distance * II``).
    ``earliest_cycle`` optionally gives operations a least start cycle.
    """
    period = problem.clock_period_ns
    optypes = {name: problem.operator_type_of(name) for name in operations}
    successors: dict[str, list[tuple[Dependence, int]]] = {name: [] for name in operations}
    for dep, shift in edges:
        successors[dep.src].append((dep, shift))
    earliest_cycle = earliest_cycle or {}
    bound = sum(optype.latency + 1 for optype in optypes.values()) + 1 + max(earliest_cycle.values(), default=0)

    times = {name: fit(optypes[name], (earliest_cycle.get(name, 0), 0.0), period) for name in operations}
    raised_by: dict[str, tuple[Dependence, int]] = {}
    queue = deque(operations)
    queued = set(operations)
    # Checking the predecessor graph for a cycle every len(operations)
    # updates finds a blocking recurrence long before starts climb to the
    # bound; each candidate is confirmed on its own before it is believed.
    updates = 0
    while queue:
        src = queue.popleft()
        queued.discard(src)
        for dep, shift in successors[src]:
            dst = dep.dst
            candidate = fit(optypes[dst], arrival(optypes[src], times[src], dep, shift, period), period)
            if not later(candidate, times[dst]):
                continue
            times[dst] = candidate
            raised_by[dst] = (dep, shift)
            updates += 1
            if candidate[0] > bound or updates % len(operations) == 0:
                cycle = _closed_chain(raised_by, dst)
                if cycle is not None and not cycle_is_feasible(problem, cycle):
                    return EarliestStarts(None, [dep_ for dep_, _shift in cycle])
                if candidate[0] > bound:
                    return EarliestStarts(None, None)
            if dst not in queued:
                queued.add(dst)
                queue.append(dst)
    return EarliestStarts(times)


def _closed_chain(raised_by: dict[str, tuple[Dependence, int]],
                  start: str) -> list[tuple[Dependence, int]] | None:
    """The cycle reached by following ``raised_by`` back from ``start``, in
    forward order, or ``None`` if the chain ends."""
    seen: dict[str, int] = {}
    chain: list[tuple[Dependence, int]] = []
    node = start
    while node not in seen:
        seen[node] = len(chain)
        edge = raised_by.get(node)
        if edge is None:
            return None
        chain.append(edge)
        node = edge[0].src
    # chain[i] raised the i-th node visited; the cycle is chain[seen[node]:], backwards.
    return list(reversed(chain[seen[node]:]))


def cycle_is_feasible(problem: Problem, cycle: list[tuple[Dependence, int]]) -> bool:
    """Whether the dependences of one cycle, each with its shift in cycles,
    can all be met on their own.

    ``cycle`` is in order: each dependence's destination is the next one's
    source.  Only the start of the first operation matters (the others
    follow from it), so this follows it trip after trip around the cycle
    until it stops rising (feasible), or until it comes back to an offset it
    had before in a later cycle: every step of the timing rule commutes with
    a shift by whole cycles, so it would then rise by as much on every trip.
    """
    first = cycle[0][0].src
    period = problem.clock_period_ns
    steps = [(problem.operator_type_of(dep.src), problem.operator_type_of(dep.dst), dep, shift)
             for dep, shift in cycle]
    assert all(dep.dst == cycle[(index + 1) % len(cycle)][0].src for index, (dep, _shift) in enumerate(cycle))
    time = fit(problem.operator_type_of(first), (0, 0.0), period)
    # The same bound as in solve_start_times, as a guard.
    bound = sum(src_type.latency + 1 for src_type, _dst_type, _dep, _shift in steps) + 1
    seen_offsets: list[float] = []
    while True:
        reached = time
        for src_type, dst_type, dep, shift in steps:
            reached = fit(dst_type, arrival(src_type, reached, dep, shift, period), period)
        if not later(reached, time):
            return True
        if reached[0] > bound or any(abs(reached[1] - offset) <= EPSILON for offset in seen_offsets):
            return False
        seen_offsets.append(time[1])
        time = reached


def cycle_length(problem: Problem, cycle: list[Dependence]) -> int:
    """Cycles one trip around ``cycle`` takes: the least total shift (sum of
    ``distance * II`` over its edges) at which its dependences can be met.

    For one cycle only the total shift matters, since shifting by whole cycles
    commutes with every step of the timing rule.
    """
    def feasible(total: int) -> bool:
        return cycle_is_feasible(problem, [(cycle[0], total)] + [(dep, 0) for dep in cycle[1:]])

    if feasible(0):
        return 0
    low, high = 0, 1  # low infeasible; feasibility only grows with the shift
    while not feasible(high):
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if feasible(middle):
            high = middle
        else:
            low = middle
    return high
