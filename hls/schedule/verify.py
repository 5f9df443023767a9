"""An independent check of any schedule against its problem.

The verifier restates the rules of :mod:`hls.schedule.problem` directly,
with no code shared with the algorithms beyond the problem description, so
that a bug in an algorithm cannot hide behind the same bug in its checker.
It favours being obviously correct over being fast: resource sharing is
checked with an exhaustive colouring of the (small) sets of operations that
land in one modulo slot, and the schedule's binding instance by instance,
since the hardware builds exactly that binding.
"""

from __future__ import annotations

from .problem import EPSILON, Problem, Schedule

__all__ = ["ScheduleError", "verify"]


class ScheduleError(Exception):
    """A schedule violates its problem; the message names the violated rule
    and the operations involved."""


def verify(problem: Problem, schedule: Schedule) -> None:
    """Check ``schedule`` against every rule of ``problem``.

    Parameters
    ----------
    problem : Problem
    schedule : Schedule

    Raises
    ------
    ScheduleError
        On the first violation found, in this order: a bad II, a missing,
        unknown or negative start, a bad offset, an operation overflowing the
        clock period, a dependence violated, a resource over its limit in a
        modulo slot, and then the binding: an operation of a limited type
        without an instance, an instance index outside ``0 .. limit - 1``
        (or a binding for an operation of an unlimited type), or one instance
        holding two operations in one modulo slot that are not mutually
        exclusive operations starting in the same cycle.
    """
    ii = schedule.ii
    if isinstance(ii, bool) or not isinstance(ii, int) or ii < 1:
        raise ScheduleError(f"II must be an integer >= 1, not {ii!r}")
    _check_starts(problem, schedule)
    _check_cycle_budget(problem, schedule)
    for dep in problem.dependences:
        _check_dependence(problem, schedule, dep)
    for optype in problem.operator_types.values():
        if optype.limit is not None:
            _check_resource(problem, schedule, optype)
    _check_binding(problem, schedule)


def _check_starts(problem: Problem, schedule: Schedule) -> None:
    for name in schedule.start:
        if name not in problem.operations:
            raise ScheduleError(f"schedule starts unknown operation {name!r}")
    for name in schedule.start_in_cycle:
        if name not in problem.operations:
            raise ScheduleError(f"schedule gives an offset to unknown operation {name!r}")
    for name in problem.operations:
        if name not in schedule.start:
            raise ScheduleError(f"operation {name!r} has no start cycle")
        start = schedule.start[name]
        if isinstance(start, bool) or not isinstance(start, int):
            raise ScheduleError(f"operation {name!r}: start cycle must be an integer, not {start!r}")
        if start < 0:
            raise ScheduleError(f"operation {name!r} starts at cycle {start}; start cycles must be >= 0")
        offset = schedule.offset(name)
        if not offset >= 0:  # also rejects NaN
            raise ScheduleError(f"operation {name!r}: offset in cycle must be >= 0 ns, not {offset!r}")


def _check_cycle_budget(problem: Problem, schedule: Schedule) -> None:
    period = problem.clock_period_ns
    for name in problem.operations:
        optype = problem.operator_type_of(name)
        offset = schedule.offset(name)
        if offset + optype.incoming_delay > period + EPSILON:
            raise ScheduleError(
                f"operation {name!r} (type {optype.name!r}) starts {offset:g} ns into cycle "
                f"{schedule.start[name]} and needs {optype.incoming_delay:g} ns: it ends at "
                f"{offset + optype.incoming_delay:g} ns, past the clock period of {period:g} ns")


def _check_dependence(problem: Problem, schedule: Schedule, dep) -> None:
    src_type = problem.operator_type_of(dep.src)
    ready_cycle = schedule.start[dep.src] + src_type.latency
    if src_type.latency == 0:
        ready_offset = schedule.offset(dep.src) + src_type.incoming_delay
    else:
        ready_offset = src_type.outgoing_delay
    if dep.route_delay and ready_offset > EPSILON:
        ready_offset += dep.route_delay
    if dep.tail_delay and ready_offset > EPSILON and ready_offset + dep.tail_delay > problem.clock_period_ns + EPSILON:
        # Its tail does not fit the rest of the cycle: taken from a register, from the next cycle's start.
        ready_cycle, ready_offset = ready_cycle + 1, 0.0
    # Both ends on the time line of the source's iteration.
    use_cycle = schedule.start[dep.dst] + dep.distance * schedule.ii
    use_offset = schedule.offset(dep.dst)
    if use_cycle > ready_cycle:
        return
    if use_cycle == ready_cycle and use_offset + EPSILON >= ready_offset:
        return
    raise ScheduleError(
        f"{dep.kind} dependence {dep.src!r} -> {dep.dst!r} (distance {dep.distance}, II {schedule.ii}"
        f"{f', tail {dep.tail_delay:g} ns' if dep.tail_delay else ''}"
        f"{f', routing {dep.route_delay:g} ns' if dep.route_delay else ''}) "
        f"is violated: {dep.src!r}'s result is ready at cycle {ready_cycle} + {ready_offset:g} ns, "
        f"but {dep.dst!r} uses it at cycle {use_cycle} + {use_offset:g} ns")


def _check_resource(problem: Problem, schedule: Schedule, optype) -> None:
    slots: dict[int, list[str]] = {}
    for name in problem.users_of(optype.name):
        slots.setdefault(schedule.start[name] % schedule.ii, []).append(name)
    for slot, names in sorted(slots.items()):
        needed = _instances_needed(problem, schedule, names)
        if needed > optype.limit:
            listing = ", ".join(f"{name!r} (cycle {schedule.start[name]})" for name in names)
            raise ScheduleError(
                f"resource {optype.name!r} (limit {optype.limit}): modulo slot {slot} of II {schedule.ii} "
                f"holds {listing}, which need {needed} instances")


def _instances_needed(problem: Problem, schedule: Schedule, names: list[str]) -> int:
    """Least number of instances that serve ``names`` in one slot: a group of
    operations can share an instance only if every two of them start in the
    same cycle (same iteration) and are mutually exclusive."""
    by_cycle: dict[int, list[str]] = {}
    for name in names:
        by_cycle.setdefault(schedule.start[name], []).append(name)
    return sum(_least_groups(problem, group) for group in by_cycle.values())


def _least_groups(problem: Problem, names: list[str]) -> int:
    # Exhaustive search for the smallest k that admits a grouping into sets of
    # pairwise exclusive operations; the sets are a handful of operations, and
    # a clear search beats a clever one here.
    for k in range(1, len(names) + 1):
        if _partition_into(problem, names, k, []):
            return k
    return 0


def _partition_into(problem: Problem, names: list[str], k: int, groups: list[list[str]]) -> bool:
    if not names:
        return True
    first, rest = names[0], names[1:]
    for group in groups:
        if all(problem.are_exclusive(first, other) for other in group):
            group.append(first)
            if _partition_into(problem, rest, k, groups):
                return True
            group.pop()
    if len(groups) < k:
        groups.append([first])
        if _partition_into(problem, rest, k, groups):
            return True
        groups.pop()
    return False


def _check_binding(problem: Problem, schedule: Schedule) -> None:
    binding = schedule.binding
    for name in binding:
        if name not in problem.operations:
            raise ScheduleError(f"schedule binds unknown operation {name!r}")
    holders: dict[tuple[str, int, int], list[str]] = {}   # (type, instance, slot) -> operations
    for name in problem.operations:
        optype = problem.operator_type_of(name)
        if optype.limit is None:
            if name in binding:
                raise ScheduleError(f"operation {name!r} is bound to an instance, but its type "
                                    f"{optype.name!r} has no limit")
            continue
        if name not in binding:
            raise ScheduleError(f"operation {name!r} of the limited type {optype.name!r} is not bound "
                                f"to an instance")
        instance = binding[name]
        if isinstance(instance, bool) or not isinstance(instance, int) or not 0 <= instance < optype.limit:
            raise ScheduleError(f"operation {name!r} is bound to instance {instance!r} of {optype.name!r}, "
                                f"which has instances 0 to {optype.limit - 1}")
        holders.setdefault((optype.name, instance, schedule.start[name] % schedule.ii), []).append(name)
    for (typename, instance, slot), names in holders.items():
        for index, a in enumerate(names):
            for b in names[index + 1:]:
                if schedule.start[a] != schedule.start[b] or not problem.are_exclusive(a, b):
                    raise ScheduleError(
                        f"instance {instance} of {typename!r} holds {a!r} (cycle {schedule.start[a]}) and "
                        f"{b!r} (cycle {schedule.start[b]}) in modulo slot {slot} of II {schedule.ii}, "
                        f"which are not exclusive operations of one cycle")
