"""Exhaustive search for schedules, for checking lower bounds on tiny problems.

Written from the timing rule of ``hls/schedule/problem.py`` and the verifier
only, not from the scheduler's own code."""

import itertools

from hls.schedule import Schedule, ScheduleError, verify


def least_offsets(problem, ii, start):
    """The least offsets for these start cycles."""
    offsets = {name: 0.0 for name in problem.operations}
    for _ in range(4 * len(problem.operations) + 4):
        changed = False
        for dep in problem.dependences:
            optype = problem.operator_type_of(dep.src)
            if optype.latency == 0:
                cycle, offset = start[dep.src], offsets[dep.src] + optype.incoming_delay
            else:
                cycle, offset = start[dep.src] + optype.latency, optype.outgoing_delay
            if offset > 1e-9:
                offset += dep.route_delay
            if cycle == start[dep.dst] + dep.distance * ii and offset > offsets[dep.dst] + 1e-9:
                offsets[dep.dst] = offset
                changed = True
        if not changed:
            break
    return offsets


def schedule_exists(problem, ii, horizon):
    """Whether some schedule at ``ii`` has every start below ``horizon``
    (and some binding of its operations to instances)."""
    names = list(problem.operations)
    limited = [name for name in names if problem.operator_type_of(name).limit is not None]
    bindings = [dict(zip(limited, instances)) for instances in
                itertools.product(*(range(problem.operator_type_of(name).limit) for name in limited))]
    for starts in itertools.product(range(horizon), repeat=len(names)):
        start = dict(zip(names, starts))
        offsets = least_offsets(problem, ii, start)
        for binding in bindings:
            try:
                verify(problem, Schedule(ii, start, offsets, binding))
                return True
            except ScheduleError:
                continue
    return False
