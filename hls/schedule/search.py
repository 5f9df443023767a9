"""A depth-first search for a modulo schedule at one II, for when iterative
modulo scheduling gives up.

Only operations of limited operator types need choosing: once their start
cycles are fixed ("pinned"), every other operation goes at its least start
time given the dependences, which :class:`PinningSearch` maintains
incrementally (the same monotone iteration as :mod:`hls.schedule.chaining`,
restarted from the parent's solution, which lies below the new one).  The
search takes the limited operations in order of their least start times and
tries, for each, the cycles of a window from its least start on (one II
wide, then three, then as wide as an iteration can be), keeping only choices
that leave room in the reservation table (exclusive operations of one cycle
share) and that do not push an operation already pinned out of its cycle.  It is complete within those windows and bounded by a budget of
search nodes; it finds, for example, schedules that need an operation put
off to a later slot so that the recurrence behind it keeps its own.
"""

from __future__ import annotations

from typing import Callable, Iterable

from .chaining import Time, arrival, earliest_starts, fit, later
from .problem import Problem, Schedule
from .reservation import ReservationTable, bind

__all__ = ["search_modulo_schedule", "PinningSearch", "OutOfBudget", "SCHEDULE_SEARCH_NODES"]

#: Search nodes (pinning attempts) :func:`search_modulo_schedule` may spend
#: on one II, times the number of operations: one node's propagation may
#: touch every operation.
SCHEDULE_SEARCH_NODES = 20_000


def search_modulo_schedule(problem: Problem, ii: int, *, nodes: int | None = None) -> Schedule | None:
    """A modulo schedule at exactly ``ii``, or ``None`` if the search found
    none within its windows and budget (``nodes``, by default
    ``SCHEDULE_SEARCH_NODES / number of operations``).  The problem must pass
    :meth:`Problem.check`."""
    if nodes is None:
        nodes = max(200, SCHEDULE_SEARCH_NODES // max(1, len(problem.operations)))
    asap = earliest_starts(problem, ii)
    if not asap.feasible:
        return None
    span = sum(problem.operator_type_of(name).latency + 1 for name in problem.operations) + ii
    times = None
    # Narrow windows first: most schedules put each operation within one II
    # of its least start; wider ones let exclusive operations meet in a cycle.
    for width in (ii, 3 * ii, span):
        def window(name: str, low: int, width: int = width) -> range:
            return range(low, low + width)
        try:
            times = PinningSearch(problem, ii, asap.times, nodes // 3, window).run()
        except OutOfBudget:
            continue
        if times is not None or width >= span:
            break
    if times is None:
        return None
    first = min((cycle for cycle, _offset in times.values()), default=0)
    start = {name: times[name][0] - first for name in problem.operations}
    return Schedule(ii, start, {name: times[name][1] for name in problem.operations},
                    bind(problem, ii, start))


class OutOfBudget(Exception):
    """A :class:`PinningSearch` used up its nodes."""


class PinningSearch:
    """Depth-first search over the start cycles of the limited operations.

    Parameters
    ----------
    problem : Problem
    ii : int
    least : dict of str to Time
        The least start times of all operations (given ``pinned``).
    nodes : int
        Pinning attempts allowed; :meth:`run` raises :class:`OutOfBudget`
        past them.
    window : callable
        ``window(name, low)``: the cycles to try for ``name``, whose least
        start cycle is ``low`` given the operations pinned so far.
    pinned : dict of str to int
        Operations already fixed at a cycle.
    relaxed : bool
        Count a slot's instances with the lower bound of
        :func:`~hls.schedule.sharing.instances_needed` (for a lower bound on
        the II) rather than the upper one (for a schedule).  They differ
        only if the exact colouring runs out of budget.
    """

    def __init__(self, problem: Problem, ii: int, least: dict[str, Time], nodes: int,
                 window: Callable[[str, int], Iterable[int]], pinned: dict[str, int] | None = None,
                 relaxed: bool = False):
        self.problem = problem
        self.relaxed = relaxed
        self.window = window
        self.ii = ii
        self.period = problem.clock_period_ns
        self.optype = {name: problem.operator_type_of(name) for name in problem.operations}
        self.successors = {name: problem.successors(name) for name in problem.operations}
        self.pins: dict[str, int] = dict(pinned or {})
        self.users = sorted((name for name in problem.operations
                             if self.optype[name].limit is not None and name not in self.pins),
                            key=lambda name: least[name])
        self.least = least
        self.nodes = nodes
        self.table = ReservationTable(problem, ii, relaxed=relaxed)
        for name, cycle in self.pins.items():
            self.table.reserve(name, cycle)
        self.bound = sum(optype.latency + 1 for optype in self.optype.values()) + 1
        self.twin_before = _twins(problem, list(self.pins) + self.users)

    def run(self) -> dict[str, Time] | None:
        """Start times with every limited operation pinned, or ``None`` if no
        choice within the windows works."""
        return self._place(0, dict(self.least))

    def _place(self, index: int, times: dict[str, Time]) -> dict[str, Time] | None:
        if index == len(self.users):
            return times
        name = self.users[index]
        twin = self.twin_before.get(name)
        for cycle in self.window(name, times[name][0]):
            if twin is not None and cycle < self.pins[twin]:
                # Interchangeable with an operation placed before it: any
                # schedule can swap them, so take only the ordered ones.
                continue
            if not self.table.fits(name, cycle):
                continue
            self.nodes -= 1
            if self.nodes < 0:
                raise OutOfBudget
            pinned = self._pin(times, name, cycle)
            if pinned is None:
                continue
            self.pins[name] = cycle
            self.table.reserve(name, cycle)
            found = self._place(index + 1, pinned)
            if found is not None:
                return found
            self.table.release(name)
            del self.pins[name]
        return None

    def _pin(self, times: dict[str, Time], name: str, cycle: int) -> dict[str, Time] | None:
        """Least start times with ``name`` at ``cycle`` too, or ``None`` if
        that pushes a pinned operation out of its cycle."""
        times = dict(times)
        start = fit(self.optype[name], (cycle, 0.0), self.period)
        if start[0] != cycle:
            return None
        if later(start, times[name]):
            times[name] = start
        stack = [name]
        limit = max([cycle, *self.pins.values()]) + self.bound
        while stack:
            src = stack.pop()
            for dep in self.successors[src]:
                dst = dep.dst
                candidate = fit(self.optype[dst],
                                arrival(self.optype[src], times[src], dep, dep.distance * self.ii, self.period),
                                self.period)
                if not later(candidate, times[dst]):
                    continue
                if candidate[0] > limit or (dst in self.pins or dst == name) and \
                        candidate[0] != (cycle if dst == name else self.pins[dst]):
                    return None
                times[dst] = candidate
                stack.append(dst)
        return times


def _twins(problem: Problem, order: list[str]) -> dict[str, str]:
    """For each operation of ``order``, the last one before it that it can
    swap places with in any schedule: same operator type, the same
    dependences from and to the same other operations (at the same
    distances), the same exclusions, and none between the two."""
    incoming: dict[str, set] = {name: set() for name in order}
    outgoing: dict[str, set] = {name: set() for name in order}
    for dep in problem.dependences:
        if dep.dst in incoming:
            incoming[dep.dst].add(("itself" if dep.src == dep.dst else dep.src, dep.distance))
        if dep.src in outgoing:
            outgoing[dep.src].add(("itself" if dep.src == dep.dst else dep.dst, dep.distance))
    partners: dict[str, set] = {name: set() for name in order}
    for pair in problem.exclusions:
        for name in pair:
            if name in partners:
                partners[name] |= pair - {name}
    # Equal signatures rule out dependences between the two (each would see
    # the other by name, itself as "itself") and exclusion between them.
    last: dict[tuple, str] = {}
    twin_before: dict[str, str] = {}
    for name in order:
        signature = (problem.operations[name].operator_type, frozenset(incoming[name]),
                     frozenset(outgoing[name]), frozenset(partners[name]))
        if signature in last:
            twin_before[name] = last[signature]
        last[signature] = name
    return twin_before
