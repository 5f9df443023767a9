"""How many operator instances a set of operations needs, given exclusion.

Operations that are not mutually exclusive *conflict*: they cannot share an
instance.  The least number of instances for a set of operations that may
share is the chromatic number of their conflict graph (equivalently, the
least clique cover of the exclusion graph).  Colouring is NP-hard, but the
sets here are the users of one operator type in one loop body, rarely more
than a few dozen, and their conflict graphs are dense (only operations on
opposite branches of an ``if`` are exclusive), where a greedy clique already
proves the greedy colouring optimal.  Otherwise an exact DSatur branch and
bound runs within a step budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .problem import EPSILON, Problem

__all__ = ["InstanceBounds", "instances_needed", "same_cycle_possible"]

#: Search nodes the exact colouring may visit before settling for bounds.
COLOURING_STEPS = 20_000


@dataclass(frozen=True)
class InstanceBounds:
    """``lower <= least number of instances <= upper``; equal when exact.

    Attributes
    ----------
    lower, upper : int
    groups : tuple of tuple of str
        A grouping achieving ``upper``: each group can share one instance.
    """

    lower: int
    upper: int
    groups: tuple[tuple[str, ...], ...]

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


def instances_needed(problem: Problem, operations: list[str],
                     can_share: Callable[[str, str], bool] | None = None) -> InstanceBounds:
    """Bounds on the instances ``operations`` need if exclusive ones may share.

    Parameters
    ----------
    problem : Problem
        Supplies the exclusions.
    operations : list of str
        Operation names, all of one operator type.
    can_share : callable or None
        ``can_share(a, b)``; by default :meth:`Problem.are_exclusive`.
    """
    can_share = can_share or problem.are_exclusive
    nodes = list(dict.fromkeys(operations))
    if not nodes:
        return InstanceBounds(0, 0, ())
    conflicts = {name: {other for other in nodes if other != name and not can_share(name, other)}
                 for name in nodes}
    if all(len(others) == len(nodes) - 1 for others in conflicts.values()):
        # Nothing can share (the common case): one instance each.
        return InstanceBounds(len(nodes), len(nodes), tuple((name,) for name in nodes))
    lower = len(_greedy_clique(nodes, conflicts))
    colouring = _dsatur(nodes, conflicts)
    upper = max(colouring.values()) + 1
    if lower < upper:
        search = _ExactColouring(nodes, conflicts, colouring, upper)
        search.run()
        colouring, upper = search.best_colouring, search.best
        if search.complete:
            lower = upper
    groups: dict[int, list[str]] = {}
    for name in nodes:
        groups.setdefault(colouring[name], []).append(name)
    return InstanceBounds(lower, upper, tuple(tuple(group) for _colour, group in sorted(groups.items())))


def _greedy_clique(nodes, conflicts) -> list[str]:
    best: list[str] = []
    for seed in nodes:
        clique = [seed]
        # Ties in the order of ``nodes``: a set's own order would depend on string hashing.
        members = [name for name in nodes if name in conflicts[seed]]
        for other in sorted(members, key=lambda name: -len(conflicts[name])):
            if all(other in conflicts[member] for member in clique):
                clique.append(other)
        if len(clique) > len(best):
            best = clique
    return best


def _dsatur(nodes, conflicts) -> dict[str, int]:
    colouring: dict[str, int] = {}
    while len(colouring) < len(nodes):
        node = max((name for name in nodes if name not in colouring),
                   key=lambda name: (len({colouring[n] for n in conflicts[name] if n in colouring}),
                                     len(conflicts[name])))
        taken = {colouring[n] for n in conflicts[node] if n in colouring}
        colouring[node] = next(colour for colour in range(len(nodes)) if colour not in taken)
    return colouring


class _ExactColouring:
    """DSatur branch and bound: the least colouring, within a step budget."""

    def __init__(self, nodes, conflicts, colouring, colours):
        self.nodes = nodes
        self.conflicts = conflicts
        self.best = colours
        self.best_colouring = dict(colouring)
        self.steps = 0
        self.complete = True

    def run(self) -> None:
        self._search({}, 0)

    def _search(self, colouring: dict[str, int], used: int) -> None:
        if used >= self.best:
            return
        if len(colouring) == len(self.nodes):
            self.best, self.best_colouring = used, dict(colouring)
            return
        self.steps += 1
        if self.steps > COLOURING_STEPS:
            self.complete = False
            return
        node = max((name for name in self.nodes if name not in colouring),
                   key=lambda name: (len({colouring[n] for n in self.conflicts[name] if n in colouring}),
                                     len(self.conflicts[name])))
        taken = {colouring[n] for n in self.conflicts[node] if n in colouring}
        for colour in range(used + 1):
            if colour in taken:
                continue
            colouring[node] = colour
            self._search(colouring, max(used, colour + 1))
            del colouring[node]


def same_cycle_possible(problem: Problem) -> Callable[[str, str], bool]:
    """A predicate telling whether two operations of one iteration can start
    in the same cycle, as sharing an instance requires.

    They cannot if a chain of distance-0 dependences leads from one to the
    other through a registered operator (which ends the cycle), or through
    combinational operators whose delays, both ends included, exceed the
    clock period.
    """
    period = problem.clock_period_ns
    successors = {name: [dep.dst for dep in problem.successors(name) if dep.distance == 0]
                  for name in problem.operations}
    separated: dict[str, set[str]] = {}

    def reach(source: str) -> set[str]:
        # Longest combinational delay on an all-combinational chain from
        # ``source`` to each operation, and which operations a registered
        # operator separates from it.
        if source in separated:
            return separated[source]
        far: set[str] = set()
        delay: dict[str, float] = {}
        stack = [(source, problem.operator_type_of(source).incoming_delay, False)]
        while stack:
            name, chained, registered = stack.pop()
            for succ in successors[name]:
                registered_here = registered or problem.operator_type_of(name).latency > 0
                through = chained + problem.operator_type_of(succ).incoming_delay
                if registered_here or through > period + EPSILON:
                    if succ not in far:
                        far.add(succ)
                        stack.append((succ, 0.0, True))
                elif succ not in far and through > delay.get(succ, -1.0):
                    delay[succ] = through
                    stack.append((succ, through, False))
        separated[source] = far
        return far

    def possible(a: str, b: str) -> bool:
        return b not in reach(a) and a not in reach(b)
    return possible
