"""The minimum initiation interval, and which operations impose it.

``MII = max(ResMII, RecMII)`` is a lower bound on the II of any valid
schedule:

* **ResMII** -- for each operator type with a ``limit``, its users need
  ``chi`` instance-slots per iteration, where ``chi`` is the least number of
  groups of pairwise mutually exclusive users (the chromatic number of their
  conflict graph, see :mod:`hls.schedule.sharing`); ``II`` slots of ``limit``
  instances hold them only if ``II * limit >= chi``.
* **RecMII** -- the least II at which the dependences alone, chaining
  included, can be met (:func:`hls.schedule.chaining.earliest_starts`).
  Feasibility only grows with II, so it is found by a galloping then binary
  search.  At ``RecMII - 1`` the check fails on cycles of dependences; the
  heaviest is the *critical recurrence*, which names the operations and
  source lines that bound the II.  RecMII is raised further where a
  recurrence whose operations compete for a limited operator cannot fit at
  ``max(RecMII, ResMII)`` (:mod:`hls.schedule.recurrence`).

:func:`minimum_ii` packs both into an :class:`MIIBound` that a compiler can
print, in the manner of Vitis HLS's message 200-880.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import networkx as nx

from .chaining import cycle_is_feasible, cycle_length, earliest_starts
from .problem import Dependence, OperatorType, Problem
from .recurrence import competing_components, component_schedulable
from .sharing import instances_needed, same_cycle_possible

__all__ = ["MIIBound", "BOUND_KINDS", "res_mii", "rec_mii", "minimum_ii", "critical_recurrence",
           "bounding_resource"]

#: What can bound the II, for reports.
BOUND_KINDS = ("resource", "recurrence", "memory", "exit")


@dataclass(frozen=True)
class MIIBound:
    """The minimum II of a problem and its explanation.

    Attributes
    ----------
    mii, res_mii, rec_mii : int
        ``mii == max(res_mii, rec_mii)``; each is at least 1.
    kind : str
        One of :data:`BOUND_KINDS`.  ``"resource"`` when ResMII is larger
        than RecMII (or when there is no recurrence at all); otherwise the
        kind of the critical recurrence: ``"memory"`` if a memory dependence
        is on it, else ``"exit"`` if an exit dependence is, else
        ``"recurrence"``.
    operations : tuple of str
        The operations on the critical recurrence, in order along it, or the
        users of the bounding operator type; empty if nothing bounds the II.
    lines : tuple of int
        Sorted union of their source lines.
    detail : str
        One sentence for humans, for example "a loop-carried dependence
        through `s` (add, 1 cycle) at distance 1".
    dependences : tuple of Dependence
        The dependences around the critical recurrence (empty for resources).
    operator_type : str or None
        The bounding operator type, for ``kind == "resource"``.
    """

    mii: int
    res_mii: int
    rec_mii: int
    kind: str
    operations: tuple[str, ...]
    lines: tuple[int, ...]
    detail: str
    dependences: tuple[Dependence, ...] = ()
    operator_type: str | None = None


def _resource_ii(problem: Problem, optype: OperatorType, same_cycle) -> tuple[int, int]:
    """``(ResMII of this type, instance-slots its users need)``."""
    def can_share(a: str, b: str) -> bool:
        return problem.are_exclusive(a, b) and same_cycle(a, b)
    needed = instances_needed(problem, problem.users_of(optype.name), can_share).lower
    return max(1, -(-needed // optype.limit)), needed


def res_mii(problem: Problem) -> int:
    """The resource-constrained minimum II (1 without limited operators).

    Exclusive users share an instance only if they can start in the same
    cycle (:func:`hls.schedule.sharing.same_cycle_possible`).
    """
    same_cycle = same_cycle_possible(problem)
    return max((_resource_ii(problem, optype, same_cycle)[0] for optype in problem.limited_operator_types()),
               default=1)


def bounding_resource(problem: Problem) -> tuple[OperatorType, int] | None:
    """The limited operator type with the largest ResMII (ties: most users),
    with the instance-slots its users need; ``None`` if no limited type is used."""
    best = None
    same_cycle = same_cycle_possible(problem)
    for optype in problem.limited_operator_types():
        users = problem.users_of(optype.name)
        if not users:
            continue
        ii, needed = _resource_ii(problem, optype, same_cycle)
        key = (ii, len(users))
        if best is None or key > best[0]:
            best = (key, optype, needed)
    return None if best is None else (best[1], best[2])


def rec_mii(problem: Problem) -> int:
    """The least II the recurrences allow.

    That is the least II at which the dependences, with chaining, can be
    met; raised further only where a recurrence (strongly connected
    component) whose operations compete for a limited operator cannot be
    scheduled, with that operator's limit, at the larger of that II and
    ResMII (:mod:`hls.schedule.recurrence`): then to the least II at which
    it can.  So RecMII exceeds both plain bounds only when their combination
    on a recurrence does, and a port merely shared by too many operations
    stays a resource bound.

    Raises
    ------
    ProblemError
        If the problem fails :meth:`Problem.check`.
    """
    problem.check()
    return _recurrence_iis(problem, res_mii(problem))[1]


def _recurrence_iis(problem: Problem, res: int) -> tuple[int, int, list[str] | None]:
    """``(II the dependences allow, RecMII, the competing component that
    raised it or None)``."""
    dependence_ii = _least_feasible_ii(problem)
    floor = max(dependence_ii, res)
    rec, blamed = dependence_ii, None
    for component in competing_components(problem):
        ii = max(floor, rec)
        while not component_schedulable(problem, component, ii):
            ii += 1
        if ii > max(floor, rec):
            rec, blamed = ii, component
    return dependence_ii, rec, blamed


def _least_feasible_ii(problem: Problem) -> int:
    if earliest_starts(problem, 1).feasible:
        return 1
    # Any II of at least sum(latency + 1) is feasible: a whole iteration's
    # dependence chain fits before the next one starts.
    ceiling = sum(problem.operator_type_of(name).latency + 1 for name in problem.operations) + 1
    low, high = 1, 2  # low infeasible
    while high < ceiling and not earliest_starts(problem, high).feasible:
        low, high = high, high * 2
    high = min(high, ceiling)
    while high - low > 1:
        middle = (low + high) // 2
        if earliest_starts(problem, middle).feasible:
            high = middle
        else:
            low = middle
    return high


def critical_recurrence(problem: Problem, rec: int) -> list[Dependence] | None:
    """The recurrence to blame for RecMII ``rec``, or ``None`` if there is none.

    Every cycle of dependences that alone forbids II ``rec - 1`` is to blame;
    among them (the first :data:`CYCLE_SEARCH_LIMIT` simple cycles) this
    picks the heaviest, the one with the most latency and delay per
    iteration of distance, because it holds the computation a user would
    recognise (``s = s + d * d`` rather than just the register of ``s``).
    Returned in order along the cycle, starting at the destination of a
    loop-carried edge.
    """
    def blocking(cycle: list[Dependence]) -> bool:
        return not cycle_is_feasible(problem, [(dep, dep.distance * (rec - 1)) for dep in cycle])

    cycles = [cycle for cycle in _simple_cycles(problem) if blocking(cycle)]
    if cycles:
        cycle = _heaviest(problem, cycles)
    else:
        outcome = earliest_starts(problem, rec - 1)
        cycle = outcome.cycle
        if cycle is None and rec == 1:
            # Only delay-free recurrences, which bound nothing: name one anyway.
            cycle = next(iter(_simple_cycles(problem)), None)
    if cycle is None:
        return None
    # Rotate so that the cycle reads from the value a previous iteration left.
    carried = next(index for index, dep in enumerate(cycle) if dep.distance > 0)
    return cycle[carried + 1:] + cycle[:carried + 1]


def _shortest_cycle_through(problem: Problem, members: set[str], name: str) -> list[Dependence]:
    graph = nx.DiGraph()
    for dep in problem.dependences:
        if dep.src in members and dep.dst in members:
            if not graph.has_edge(dep.src, dep.dst) or graph[dep.src][dep.dst]["dep"].distance > dep.distance:
                graph.add_edge(dep.src, dep.dst, dep=dep)
    back = min((pred for pred in graph.predecessors(name)), key=lambda pred: nx.shortest_path_length(
        graph, name, pred))
    path = nx.shortest_path(graph, name, back) + [name]
    return [graph[src][dst]["dep"] for src, dst in zip(path, path[1:])]


def _heaviest(problem: Problem, cycles: list[list[Dependence]]) -> list[Dependence]:
    """The cycle of most :func:`_weight`; among equals, the one whose
    operations come first in the problem (program) order, so that the choice
    does not depend on the order in which the cycles were found."""
    index_of = {name: index for index, name in enumerate(problem.operations)}
    return min(cycles, key=lambda cycle: (-_weight(problem, cycle),
                                          sorted(index_of[dep.src] for dep in cycle)))


def _weight(problem: Problem, cycle: list[Dependence]) -> float:
    """Latency (in ns of clock period) and delay around ``cycle`` per
    iteration of distance: how much computation the recurrence holds."""
    cost = sum(problem.operator_type_of(dep.src).latency * problem.clock_period_ns
               + problem.operator_type_of(dep.src).incoming_delay for dep in cycle)
    return cost / sum(dep.distance for dep in cycle)


#: Operations a recurrence's detail names one by one before it abbreviates.
MAX_NAMED_OPERATIONS = 8

#: Simple cycles examined when looking for the recurrence to blame.
CYCLE_SEARCH_LIMIT = 2_000


def _simple_cycles(problem: Problem):
    """Simple cycles of dependences, taking between two operations the
    dependence of least distance (the tightest)."""
    # Nodes are the operations' indices in problem order: networkx keeps
    # strongly connected components as sets, whose order for strings depends
    # on string hashing (PYTHONHASHSEED) but for small integers does not, so
    # the cycles, the first CYCLE_SEARCH_LIMIT of them and the recurrence a
    # report blames are the same on every run.
    index_of = {name: index for index, name in enumerate(problem.operations)}
    tightest: dict[tuple[int, int], Dependence] = {}
    for dep in problem.dependences:
        key = (index_of[dep.src], index_of[dep.dst])
        if key not in tightest or dep.distance < tightest[key].distance:
            tightest[key] = dep
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(index_of)))
    graph.add_edges_from(tightest)
    for nodes in itertools.islice(nx.simple_cycles(graph), CYCLE_SEARCH_LIMIT):
        yield [tightest[(src, nodes[(index + 1) % len(nodes)])] for index, src in enumerate(nodes)]


def minimum_ii(problem: Problem) -> MIIBound:
    """ResMII, RecMII, their maximum and what imposes it.

    When both bounds are equal the recurrence is reported: adding operator
    instances cannot lower it.

    Raises
    ------
    ProblemError
        If the problem fails :meth:`Problem.check`.
    """
    problem.check()
    res = res_mii(problem)
    dependence_ii, rec, component = _recurrence_iis(problem, res)
    mii = max(res, rec)
    if rec >= res and component is not None:
        cycle, competing = _competing_recurrence(problem, component)
        return _recurrence_bound(problem, mii, res, rec, cycle, competing)
    cycle = critical_recurrence(problem, rec) if rec >= res else None
    if cycle is not None:
        return _recurrence_bound(problem, mii, res, rec, cycle)
    resource = bounding_resource(problem)
    if resource is None:
        return MIIBound(mii, res, rec, "resource", (), (),
                        "nothing bounds the II: no recurrence and no limited operator")
    optype, needed = resource
    users = tuple(problem.users_of(optype.name))
    detail = f"{len(users)} uses of {optype.label} (limit {optype.limit})"
    if needed < len(users):
        detail = (f"{len(users)} uses of {optype.label}, {needed} after sharing between exclusive "
                  f"branches (limit {optype.limit})")
    return MIIBound(mii, res, rec, "resource", users, _lines(problem, users), detail,
                    operator_type=optype.name)


def _competing_recurrence(problem: Problem, component: list[str]) -> tuple[list[Dependence], list[str]]:
    """The heaviest cycle of ``component`` through an operation of a limited
    operator with more users in the component than instances, and those users."""
    members = set(component)
    counts: dict[str, list[str]] = {}
    for name in component:
        optype = problem.operator_type_of(name)
        if optype.limit is not None:
            counts.setdefault(optype.name, []).append(name)
    competing = [name for typename, names in counts.items()
                 if len(names) > problem.operator_types[typename].limit for name in names]
    cycles = [cycle for cycle in _simple_cycles(problem)
              if all(dep.src in members for dep in cycle) and any(dep.src in competing for dep in cycle)]
    if not cycles:
        # Too many cycles elsewhere to reach one here: close the shortest one
        # through a competing operation.
        cycles = [_shortest_cycle_through(problem, members, competing[0])]
    cycle = _heaviest(problem, cycles)
    carried = next(index for index, dep in enumerate(cycle) if dep.distance > 0)
    return cycle[carried + 1:] + cycle[:carried + 1], competing


def _recurrence_bound(problem: Problem, mii: int, res: int, rec: int, cycle: list[Dependence],
                      competing: list[str] = ()) -> MIIBound:
    kinds = {dep.kind for dep in cycle}
    kind = "memory" if "memory" in kinds else "exit" if "exit" in kinds else "recurrence"
    operations = tuple(dep.src for dep in cycle)
    distance = sum(dep.distance for dep in cycle)
    length = cycle_length(problem, cycle)
    what = {"memory": "memory dependence", "exit": "dependence on the exit condition",
            "recurrence": "dependence"}[kind]
    labels = []
    for name in operations:
        # The read and the update of one variable usually carry the same name.
        if not labels or labels[-1] != problem.operations[name].label:
            labels.append(problem.operations[name].label)
    if len(labels) > MAX_NAMED_OPERATIONS:
        # Long recurrences: the ends say where it starts and closes; the lines list all of it.
        labels = labels[:3] + [f"... ({len(labels) - 5} more)"] + labels[-2:]
    through = " -> ".join(labels)
    # Delay-free operators (wires) cost nothing on the recurrence: leave them out.
    costly = [problem.operator_type_of(name) for name in operations]
    types = ", ".join(dict.fromkeys(optype.description or optype.name for optype in costly
                                    if optype.latency or optype.incoming_delay))
    cost = f"{types}, " if types else ""
    detail = (f"a loop-carried {what} through {through} ({cost}{length} cycle{'s' * (length != 1)}) "
              f"at distance {distance}")
    if competing:
        by_type: dict[str, list[str]] = {}
        for name in competing:
            by_type.setdefault(problem.operations[name].operator_type, []).append(name)
        uses = " and ".join(f"{len(names)} uses of {problem.operator_types[typename].label} "
                            f"(limit {problem.operator_types[typename].limit})"
                            for typename, names in by_type.items())
        detail += f", on which {uses} compete"
        operations = tuple(dict.fromkeys(operations + tuple(competing)))
    return MIIBound(mii, res, rec, kind, operations, _lines(problem, operations), detail,
                    dependences=tuple(cycle))


def _lines(problem: Problem, operations) -> tuple[int, ...]:
    return tuple(sorted({line for name in operations for line in problem.operations[name].lines}))
