"""Recurrences whose operations compete for a limited operator.

ResMII and the dependence-only RecMII are each a bound on its own; together
they can miss the real minimum.  In ``a[i] = a[i] + a[i-1]`` the store feeds
both reads of the next iteration, the recurrence alone allows II 2 and one
read port allows II 2, but the two reads cannot share the port in one cycle,
so one of them, and the recurrence through it, is a cycle later: II 3.

For each strongly connected component of the dependence graph, the
operations in it are tied to each other in both directions: fixing one
operation's start cycle bounds every other's to a window of a few IIs (a
path of total distance ``D`` from ``u`` to ``v`` forces
``start[v] >= start[u] - D * II``).  :func:`component_schedulable` searches
those windows exhaustively for the component's users of limited operators
(with :class:`hls.schedule.search.PinningSearch`), pruning with the least
start times of the component given the cycles chosen so far.  The component alone is a relaxation of the whole problem, so if it
cannot be scheduled at an II, neither can the problem: the bound it gives is
a true lower bound.  The search has a budget; when it runs out the II is
assumed possible, which keeps the bound valid.
"""

from __future__ import annotations

import networkx as nx

from .chaining import solve_start_times
from .problem import Problem
from .search import OutOfBudget, PinningSearch

__all__ = ["competing_components", "component_schedulable", "RECURRENCE_SEARCH_NODES"]

#: Search nodes (least-start-time propagations) the search of one
#: recurrence may spend on one II, times the number of operations in the
#: component (each costs about a pass over them).  Not the same budget as
#: :data:`hls.schedule.search.SCHEDULE_SEARCH_NODES`: this one only bounds the
#: MII, and running out assumes the II possible.
RECURRENCE_SEARCH_NODES = 200_000


def competing_components(problem: Problem) -> list[list[str]]:
    """Strongly connected components (as operation lists, problem order) in
    which some limited operator has more users than instances."""
    graph = nx.DiGraph()
    graph.add_nodes_from(problem.operations)
    graph.add_edges_from((dep.src, dep.dst) for dep in problem.dependences)
    order = {name: index for index, name in enumerate(problem.operations)}
    found = []
    for component in nx.strongly_connected_components(graph):
        if len(component) < 2:
            continue
        counts: dict[str, int] = {}
        for name in component:
            optype = problem.operator_type_of(name)
            if optype.limit is not None:
                counts[optype.name] = counts.get(optype.name, 0) + 1
        if any(count > problem.operator_types[name].limit for name, count in counts.items()):
            found.append(sorted(component, key=order.__getitem__))
    return found


def component_schedulable(problem: Problem, component: list[str], ii: int) -> bool:
    """Whether the operations of ``component`` alone, with the dependences
    between them and the limits of their operators, can be scheduled at
    ``ii``.  ``True`` also when the search runs out of budget."""
    members = set(component)
    sub = Problem(problem.clock_period_ns, name=problem.name, operator_types=dict(problem.operator_types))
    for name in component:
        sub.operations[name] = problem.operations[name]
    sub.dependences = [dep for dep in problem.dependences if dep.src in members and dep.dst in members]
    sub.exclusions = {pair: None for pair in problem.exclusions if pair <= members}
    users = [name for name in component if sub.operator_type_of(name).limit is not None]
    # Least total distance between operations: how far apart they can be.
    graph = nx.DiGraph()
    for dep in sub.dependences:
        if not graph.has_edge(dep.src, dep.dst) or graph[dep.src][dep.dst]["distance"] > dep.distance:
            graph.add_edge(dep.src, dep.dst, distance=dep.distance)
    anchor = users[0]
    ahead = nx.single_source_dijkstra_path_length(graph, anchor, weight="distance")
    behind = nx.single_source_dijkstra_path_length(graph.reverse(copy=False), anchor, weight="distance")
    # Every schedule of the component can be shifted (whole cycles commute with
    # every rule) so that the anchor starts here and nothing starts below 0.
    anchor_cycle = ii * max(ahead.values())
    latest = {name: anchor_cycle + ii * behind[name] for name in users}

    def window(name: str, low: int) -> range:
        return range(low, latest[name] + 1)

    least = solve_start_times(sub, component, [(dep, dep.distance * ii) for dep in sub.dependences],
                              {anchor: anchor_cycle})
    if not least.feasible or least.times[anchor][0] != anchor_cycle:
        return False
    search = PinningSearch(sub, ii, least.times, max(100, RECURRENCE_SEARCH_NODES // len(component)), window,
                           pinned={anchor: anchor_cycle}, relaxed=True)
    try:
        return search.run() is not None
    except OutOfBudget:
        return True
