"""Iterative modulo scheduling (Rau, MICRO-27, 1994) with chaining and
control-flow-aware resource sharing.

:func:`schedule` is the entry point a compiler calls: it starts at the MII
(or at a requested II, never below the MII), and tries one II after the
other with an algorithm -- by default :func:`iterative_modulo_schedule` --
until one succeeds.  Every schedule it returns has passed
:func:`hls.schedule.verify.verify`.

:func:`iterative_modulo_schedule` for one II:

1. The least start times meeting every dependence at this II
   (:func:`hls.schedule.chaining.earliest_starts`) give each operation a
   lower bound on its start.
2. Operations are taken by priority: largest *height* first, the longest
   path (in cycles, a chained operator counting its fraction of the clock
   period) from the operation to the end of the iteration, loop-carried
   edges counting ``- distance * II`` as in Rau's HeightR, so operations on
   critical recurrences and long chains go first.
3. An operation's earliest start comes from its scheduled predecessors; in
   that cycle it chains after them (its offset is their latest ready time),
   or moves to the next cycle if it would overflow the clock period.  It
   takes the first of the next II cycles where the modulo reservation table
   has room for it; exclusive operations of one iteration share an instance
   when they start in the same cycle.
4. If no cycle has room, it is placed anyway, at its earliest start (or one
   cycle after where it was last placed, so that the search moves on), and
   the operations it displaces in the reservation table, and scheduled
   successors whose dependence it now violates, are unscheduled again.
5. After ``BUDGET_RATIO * n`` placements without success, this II fails.

A successful schedule is then compacted, a secondary goal being a short
pipeline: each operation moves to the earliest cycle its predecessors and
the reservation table allow (earlier results never hurt successors), and
offsets are recomputed as early as chaining allows.
"""

from __future__ import annotations

import heapq
from typing import Callable

from .chaining import Time, arrival, earliest_starts, fit, later
from .mii import MIIBound, minimum_ii
from .problem import EPSILON, Dependence, Problem, ProblemError, Schedule
from .reservation import ReservationTable, bind
from .search import search_modulo_schedule
from .sequential import schedule_sequential
from .verify import ScheduleError, verify

__all__ = ["IIBelowMIIError", "NoScheduleError", "schedule", "modulo_schedule", "iterative_modulo_schedule",
           "sequential_at", "ALGORITHMS", "BUDGET_RATIO"]

#: Placements allowed per operation before an II is given up (Rau suggests a few).
BUDGET_RATIO = 6

#: An algorithm: a schedule for the problem at exactly this II, or ``None``.
Algorithm = Callable[[Problem, int], "Schedule | None"]


class IIBelowMIIError(ProblemError):
    """The requested II is below the minimum II.

    Attributes
    ----------
    requested : int
    bound : MIIBound
        What imposes the minimum, to explain it to the user.
    """

    def __init__(self, problem: Problem, requested: int, bound: MIIBound):
        super().__init__(f"{problem.name}: requested II {requested} is below the minimum II {bound.mii}, "
                         f"imposed by {bound.detail}")
        self.requested = requested
        self.bound = bound


class NoScheduleError(Exception):
    """No schedule was found up to the largest II allowed."""


def schedule(problem: Problem, ii: int | None = None, max_ii: int | None = None, *,
             algorithm: Algorithm | str | None = None, bound: MIIBound | None = None) -> Schedule:
    """A valid schedule at the least II the algorithm reaches.

    Parameters
    ----------
    problem : Problem
    ii : int or None
        The II to start from; by default the MII.
    max_ii : int or None
        The largest II to try.  By default there is no limit: if the
        algorithm fails up to the II of :func:`schedule_sequential`, that
        schedule, which never overlaps iterations, is returned.
    algorithm : callable, str or None
        ``algorithm(problem, ii) -> Schedule | None``, or the name of one in
        :data:`ALGORITHMS` (``"iterative"``, ``"search"``, ``"sequential"``,
        ``"modulo"``); by default :func:`modulo_schedule`, iterative modulo
        scheduling and then the search.
    bound : MIIBound or None
        ``minimum_ii(problem)``, if the caller has already computed it.

    Raises
    ------
    ProblemError
        If the problem is malformed (:meth:`Problem.check`), ``ii`` /
        ``max_ii`` is not an integer >= 1, or ``algorithm`` names no algorithm.
    IIBelowMIIError
        If ``ii`` is below the MII; it carries the :class:`MIIBound`.
    NoScheduleError
        If no schedule was found up to ``max_ii``.
    """
    for name, value in (("ii", ii), ("max_ii", max_ii)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ProblemError(f"{problem.name}: {name} must be an integer >= 1, not {value!r}")
    if isinstance(algorithm, str):
        if algorithm not in ALGORITHMS:
            raise ProblemError(f"{problem.name}: unknown scheduling algorithm {algorithm!r}; "
                               f"expected one of {', '.join(ALGORITHMS)}")
        algorithm = ALGORITHMS[algorithm]
    algorithm = algorithm or modulo_schedule
    if bound is None:
        bound = minimum_ii(problem)  # also checks the problem
    else:
        problem.check()
    if ii is not None and ii < bound.mii:
        raise IIBelowMIIError(problem, ii, bound)
    first = bound.mii if ii is None else ii
    if max_ii is not None and max_ii < first:
        raise ProblemError(f"{problem.name}: max_ii {max_ii} is below the II {first} scheduling starts from")

    fallback = None
    candidate = first
    while True:
        result = algorithm(problem, candidate)
        if result is not None:
            try:
                verify(problem, result)
            except ScheduleError as error:
                raise RuntimeError(f"{problem.name}: the scheduler produced an invalid schedule at II "
                                   f"{candidate} (a bug): {error}") from error
            return result
        if max_ii is None and fallback is None:
            fallback = schedule_sequential(problem)
        if candidate >= (max_ii if max_ii is not None else fallback.ii):
            break
        candidate += 1
    if fallback is None:
        raise NoScheduleError(f"{problem.name}: no schedule found for II {first} to {max_ii} "
                              f"(the MII is {bound.mii}, imposed by {bound.detail})")
    # A sequential schedule stays valid at any larger II.
    return Schedule(max(first, fallback.ii), dict(fallback.start), dict(fallback.start_in_cycle),
                    dict(fallback.binding))


def modulo_schedule(problem: Problem, ii: int) -> Schedule | None:
    """The default algorithm: :func:`iterative_modulo_schedule`, then, if it
    gives up, :func:`hls.schedule.search.search_modulo_schedule`."""
    return iterative_modulo_schedule(problem, ii) or search_modulo_schedule(problem, ii)


def sequential_at(problem: Problem, ii: int) -> Schedule | None:
    """:func:`~hls.schedule.sequential.schedule_sequential` as an algorithm:
    its schedule at ``ii`` if its iterations fit in ``ii`` cycles, else ``None``."""
    found = schedule_sequential(problem)
    if found.ii > ii:
        return None
    # Every start is below found.ii <= ii: the slots stay the cycles, the binding stays valid.
    return Schedule(ii, dict(found.start), dict(found.start_in_cycle), dict(found.binding))


def iterative_modulo_schedule(problem: Problem, ii: int, *, budget_ratio: int = BUDGET_RATIO) -> Schedule | None:
    """A modulo schedule at exactly ``ii``, or ``None`` if none was found.

    The problem must pass :meth:`Problem.check`.
    """
    asap = earliest_starts(problem, ii)
    if not asap.feasible:
        return None
    state = _ModuloState(problem, ii, asap.times)
    if not state.run(budget_ratio * max(1, len(problem.operations))):
        return None
    state.compact()
    return state.to_schedule()


class _ModuloState:
    """A partial modulo schedule with its reservation table."""

    def __init__(self, problem: Problem, ii: int, asap: dict[str, Time]):
        self.problem = problem
        self.ii = ii
        self.period = problem.clock_period_ns
        self.asap = asap
        self.optype = {name: problem.operator_type_of(name) for name in problem.operations}
        # The problem's cached dependence lists, looked up once per operation.
        self.predecessors = {name: problem.predecessors(name) for name in problem.operations}
        self.successors = {name: problem.successors(name) for name in problem.operations}
        self.times: dict[str, Time] = {}
        self.last_cycle: dict[str, int] = {}
        self.table = ReservationTable(problem, ii)
        height = _heights(problem, ii)
        order = sorted(problem.operations,
                       key=lambda name: (-height[name], asap[name][0], asap[name][1]))
        self.rank = {name: index for index, name in enumerate(order)}

    # -- the iterative search ----------------------------------------------
    def run(self, budget: int) -> bool:
        queue = [(self.rank[name], name) for name in self.problem.operations]
        heapq.heapify(queue)
        unscheduled = set(self.problem.operations)
        for _ in range(budget):
            while queue and queue[0][1] not in unscheduled:
                heapq.heappop(queue)
            if not queue:
                return True
            _rank, name = heapq.heappop(queue)
            unscheduled.discard(name)
            earliest = self.earliest_start(name)
            cycle = self.free_cycle(name, earliest)
            offset = earliest[1] if cycle == earliest[0] else 0.0
            for evicted in self.place(name, (cycle, offset)):
                unscheduled.add(evicted)
                heapq.heappush(queue, (self.rank[evicted], evicted))
        return not unscheduled

    def earliest_start(self, name: str) -> Time:
        """Earliest start after every scheduled predecessor (and the ASAP bound)."""
        earliest = self.asap[name]
        for dep in self.predecessors[name]:
            if dep.src in self.times:
                candidate = arrival(self.optype[dep.src], self.times[dep.src], dep, dep.distance * self.ii,
                                    self.period)
                if later(candidate, earliest):
                    earliest = candidate
        return fit(self.optype[name], earliest, self.period)

    def free_cycle(self, name: str, earliest: Time) -> int:
        if self.optype[name].limit is None:
            # Always room, and starting later only delays the successors.
            return earliest[0]
        window = range(earliest[0], earliest[0] + self.ii)
        roomy = [cycle for cycle in window if self.has_room(name, cycle)]
        # Unlike Rau's original, prefer a cycle that also keeps the scheduled
        # successors valid: an operation without predecessors would otherwise
        # keep displacing the successors that displaced it.
        for cycle in roomy:
            if self.successors_met(name, (cycle, earliest[1] if cycle == earliest[0] else 0.0)):
                return cycle
        if roomy:
            return roomy[0]
        previous = self.last_cycle.get(name)
        if previous is None or earliest[0] > previous:
            return earliest[0]
        return previous + 1

    def has_room(self, name: str, cycle: int, ignoring: str | None = None) -> bool:
        return self.table.fits(name, cycle, ignoring=ignoring)

    def place(self, name: str, time: Time) -> list[str]:
        """Schedule ``name`` at ``time``; unschedule and return what it displaces."""
        evicted = []
        while not self.table.fits(name, time[0]):
            # Displace the least urgent operation that cannot share with this one.
            users = self.table.holders(name, time[0])
            rivals = [user for user in users
                      if self.times[user][0] != time[0] or not self.problem.are_exclusive(user, name)]
            victim = max(rivals or users, key=lambda user: self.rank[user])
            self.unschedule(victim)
            evicted.append(victim)
        self.table.reserve(name, time[0])
        self.times[name] = time
        self.last_cycle[name] = time[0]
        for dep in self.successors[name]:
            if dep.dst in self.times and dep.dst != name and not self._met(time, dep):
                self.unschedule(dep.dst)
                evicted.append(dep.dst)
        for dep in self.predecessors[name]:
            if dep.src in self.times and dep.src != name and not self._met(self.times[dep.src], dep):
                self.unschedule(dep.src)
                evicted.append(dep.src)
        return evicted

    def successors_met(self, name: str, time: Time) -> bool:
        return all(self._met(time, dep) for dep in self.successors[name]
                   if dep.dst in self.times and dep.dst != name)

    def _met(self, src_time: Time, dep: Dependence) -> bool:
        """Whether ``dep`` holds with its source started at ``src_time``."""
        return not later(arrival(self.optype[dep.src], src_time, dep, dep.distance * self.ii, self.period),
                         self.times[dep.dst])

    def unschedule(self, name: str) -> None:
        self.table.release(name)
        del self.times[name]

    # -- finishing ------------------------------------------------------------
    def compact(self) -> None:
        """Move operations to earlier cycles where dependences and resources
        allow, then rebase so the first operation starts at cycle 0."""
        changed = True
        while changed:
            changed = False
            for name in sorted(self.times, key=lambda name: self.times[name]):
                earliest = self.earliest_start(name)
                current = self.times[name][0]
                for cycle in range(earliest[0], current):
                    if self.has_room(name, cycle, ignoring=name):
                        self.unschedule(name)
                        displaced = self.place(name, (cycle, earliest[1] if cycle == earliest[0] else 0.0))
                        # Starting earlier only brings results earlier, and
                        # there was room: nothing can be displaced.
                        assert not displaced, displaced
                        changed = True
                        break
        first = min((cycle for cycle, _offset in self.times.values()), default=0)
        if first:
            self.times = {name: (cycle - first, offset) for name, (cycle, offset) in self.times.items()}
        self._settle_offsets()

    def _settle_offsets(self) -> None:
        """Least offsets for the final start cycles (a fixed point from zero,
        bounded by the current offsets, which are valid)."""
        offsets = {name: 0.0 for name in self.times}
        changed = True
        while changed:
            changed = False
            for dep in self.problem.dependences:
                src_cycle, _ = self.times[dep.src]
                src_ready = arrival(self.optype[dep.src], (src_cycle, offsets[dep.src]), dep, dep.distance * self.ii,
                                    self.period)
                if src_ready[0] == self.times[dep.dst][0] and src_ready[1] > offsets[dep.dst] + EPSILON:
                    offsets[dep.dst] = src_ready[1]
                    changed = True
        self.times = {name: (cycle, offsets[name]) for name, (cycle, _offset) in self.times.items()}

    def to_schedule(self) -> Schedule:
        start = {name: self.times[name][0] for name in self.problem.operations}
        return Schedule(self.ii, start, {name: self.times[name][1] for name in self.problem.operations},
                        bind(self.problem, self.ii, start))


def _heights(problem: Problem, ii: int) -> dict[str, float]:
    """Rau's HeightR in cycles: the longest path from each operation to the
    end of the iteration, a loop-carried edge weighing ``-distance * II``."""
    period = problem.clock_period_ns
    weight = {}
    for name in problem.operations:
        optype = problem.operator_type_of(name)
        weight[name] = optype.latency if optype.latency else optype.incoming_delay / period
    height = dict(weight)
    # Bellman-Ford; heights are well defined when the recurrences allow this
    # II, which chaining can make subtly untrue for fractional weights, so
    # stop after n rounds whatever happens: these are only priorities.
    for _round in range(len(problem.operations)):
        changed = False
        for dep in problem.dependences:
            candidate = weight[dep.src] + height[dep.dst] - dep.distance * ii
            if candidate > height[dep.src] + EPSILON:
                height[dep.src] = candidate
                changed = True
        if not changed:
            break
    return height


#: The algorithms :func:`schedule` can be given by name.
ALGORITHMS: dict[str, Algorithm] = {
    "modulo": modulo_schedule,
    "iterative": iterative_modulo_schedule,
    "search": search_modulo_schedule,
    "sequential": sequential_at,
}
