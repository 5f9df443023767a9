"""A list schedule for loops whose iterations must not overlap.

For ``hls.sequential`` loops (and as the always-available fallback of
:func:`hls.schedule.modulo.schedule`): operations are placed as soon as
possible, in order of their distance-0 dependences, chaining under the clock
period and within the operator limits of each cycle.  The II is then the
depth, raised further only if a loop-carried result arrives after the next
iteration would use it (a registered result available only after some
output delay in the iteration's last cycle).  Since every start is below the
depth, which is at most the II, modulo slots are plain cycles and no two
iterations ever run at once.
"""

from __future__ import annotations

import networkx as nx

from .chaining import Time, arrival, fit, later
from .problem import Problem, Schedule
from .reservation import ReservationTable, bind

__all__ = ["schedule_sequential"]


def schedule_sequential(problem: Problem, earliest_cycle: dict[str, int] | None = None) -> Schedule:
    """An as-soon-as-possible schedule whose iterations never overlap; ``earliest_cycle``
    optionally gives operations a least start cycle.

    Raises
    ------
    ProblemError
        If the problem fails :meth:`Problem.check`.
    """
    problem.check()
    period = problem.clock_period_ns
    optype = {name: problem.operator_type_of(name) for name in problem.operations}
    graph = nx.DiGraph()
    graph.add_nodes_from(problem.operations)
    graph.add_edges_from((dep.src, dep.dst) for dep in problem.dependences if dep.distance == 0)
    position = {name: index for index, name in enumerate(problem.operations)}
    order = list(nx.lexicographical_topological_sort(graph, key=position.__getitem__))

    times: dict[str, Time] = {}
    # No two iterations overlap, so a slot is a plain cycle.
    table = ReservationTable(problem, None)
    for name in order:
        earliest: Time = ((earliest_cycle or {}).get(name, 0), 0.0)
        for dep in problem.predecessors(name):
            if dep.distance:
                continue
            src_ready = arrival(optype[dep.src], times[dep.src], dep, 0, period)
            if later(src_ready, earliest):
                earliest = src_ready
        earliest = fit(optype[name], earliest, period)
        cycle = earliest[0]
        while not table.fits(name, cycle):
            cycle += 1
        table.reserve(name, cycle)
        times[name] = (cycle, earliest[1] if cycle == earliest[0] else 0.0)

    start = {name: times[name][0] for name in problem.operations}
    offsets = {name: times[name][1] for name in problem.operations}
    ii = max(1, Schedule(1, start).depth(problem))
    while not all(_carried_met(problem, optype, times, dep, ii) for dep in problem.dependences if dep.distance):
        ii += 1
    # Every start is below the depth, so at this II too the slots are the cycles.
    return Schedule(ii, start, offsets, bind(problem, ii, start))


def _carried_met(problem, optype, times, dep, ii) -> bool:
    cycle, offset = times[dep.dst]
    return not later(arrival(optype[dep.src], times[dep.src], dep, dep.distance * ii, problem.clock_period_ns),
                     (cycle, offset))
