"""Property tests over random dependence graphs: every schedule is verified,
the verifier rejects broken schedules, the MII is a true lower bound and the
scheduler reaches it where it is known to be feasible."""

import itertools
import os

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hls.schedule import (DEPENDENCE_KINDS, Dependence, Operation, OperatorType, Problem, Schedule,
                          ScheduleError, minimum_ii, schedule, schedule_sequential, verify)
from hls.schedule.modulo import iterative_modulo_schedule
from hls.schedule.search import search_modulo_schedule
from schedule_brute_force import schedule_exists

DELAYS = (0.0, 0.5, 1.0, 2.5, 4.0, 6.0)
#: Examples per property; raise it for a longer campaign, for example
#: ``AXHLS_SCHEDULE_EXAMPLES=3000 pytest tests/schedule``.
EXAMPLES = int(os.environ.get("AXHLS_SCHEDULE_EXAMPLES", "150"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def problems(draw, max_ops=12, limits=True, exclusions=True, carried=True):
    period = draw(st.sampled_from((5.0, 8.0, 10.0)))
    problem = Problem(clock_period_ns=period, name="random")
    for index in range(draw(st.integers(1, 4))):
        latency = draw(st.integers(0, 3))
        incoming = draw(st.sampled_from([d for d in DELAYS if d <= period]))
        outgoing = draw(st.sampled_from(DELAYS)) if latency else 0.0
        limit = draw(st.one_of(st.none(), st.integers(1, 2))) if limits else None
        problem.add_operator_type(OperatorType(f"t{index}", latency, incoming, outgoing, limit))
    types = list(problem.operator_types)
    count = draw(st.integers(1, max_ops))
    for index in range(count):
        problem.add_operation(Operation(f"o{index}", draw(st.sampled_from(types)), (index + 1,)))
    names = list(problem.operations)
    kinds = st.sampled_from(DEPENDENCE_KINDS)
    # A dependence with a tail (a stream operation's predicate into the stall) in about one edge of two.
    tails = st.sampled_from((0.0, 0.0, 0.0, 1.0, 4.0, 9.0))
    # Routing into a chained operation (a carry chain entered from another) in about one edge of three.
    routes = st.sampled_from((0.0, 0.0, 0.5, 2.0))
    # Forward edges (distance 0 only from lower to higher index: a DAG) ...
    for src, dst in itertools.combinations(range(count), 2):
        if draw(st.integers(0, 3)) == 0:
            problem.add_dependence(Dependence(names[src], names[dst], 0, draw(kinds), tail_delay=draw(tails),
                                              route_delay=draw(routes)))
    # ... and loop-carried edges anywhere, self-loops included.
    for _ in range(draw(st.integers(0, 3)) if carried else 0):
        src, dst = draw(st.integers(0, count - 1)), draw(st.integers(0, count - 1))
        problem.add_dependence(Dependence(names[src], names[dst], draw(st.integers(1, 3)), draw(kinds),
                                          tail_delay=draw(tails), route_delay=draw(routes)))
    if exclusions and count > 1:
        for _ in range(draw(st.integers(0, count))):
            a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
            problem.add_exclusion(a, b)
    return problem


@PROPERTY
@given(problems())
def test_every_schedule_passes_the_verifier_and_respects_the_mii(problem):
    bound = minimum_ii(problem)
    result = schedule(problem)
    verify(problem, result)
    assert result.ii >= bound.mii == max(bound.res_mii, bound.rec_mii)
    assert set(bound.lines) <= {line for op in problem.operations.values() for line in op.lines}
    assert set(bound.operations) <= set(problem.operations)
    sequential = schedule_sequential(problem)
    verify(problem, sequential)
    assert sequential.ii >= sequential.depth(problem)


@PROPERTY
@given(problems())
def test_each_algorithm_alone_passes_the_verifier(problem):
    ii = minimum_ii(problem).mii
    for algorithm in (iterative_modulo_schedule, search_modulo_schedule):
        result = algorithm(problem, ii)
        if result is not None:
            assert result.ii == ii
            verify(problem, result)
            assert min(result.start.values()) == 0


@PROPERTY
@given(problems(limits=False))
def test_without_resource_limits_the_scheduler_reaches_the_recmii(problem):
    bound = minimum_ii(problem)
    assert bound.res_mii == 1
    result = schedule(problem)
    verify(problem, result)
    assert result.ii == bound.rec_mii
    if bound.dependences:
        # The blamed recurrence is a cycle, listed in order, through the operations named.
        deps = bound.dependences
        assert all(dep.dst == deps[(index + 1) % len(deps)].src for index, dep in enumerate(deps))
        assert [dep.src for dep in deps] == list(bound.operations[:len(deps)])
        assert bound.lines == tuple(sorted({line for name in bound.operations
                                            for line in problem.operations[name].lines}))
    if bound.rec_mii > 1:
        assert bound.kind in ("recurrence", "memory", "exit")
        kinds = {dep.kind for dep in bound.dependences}
        assert bound.kind == ("memory" if "memory" in kinds else "exit" if "exit" in kinds else "recurrence")
        assert sum(dep.distance for dep in bound.dependences) >= 1


@PROPERTY
@given(problems(exclusions=False, carried=False))
def test_without_recurrences_the_scheduler_reaches_the_resmii(problem):
    bound = minimum_ii(problem)
    assert bound.rec_mii == 1 and bound.kind == "resource"
    result = schedule(problem)
    verify(problem, result)
    assert result.ii == bound.res_mii


@PROPERTY
@given(problems(), st.data())
def test_the_verifier_rejects_broken_schedules(problem, data):
    result = schedule(problem)
    names = list(problem.operations)
    mutation = data.draw(st.sampled_from(("dependence", "overflow", "missing", "negative", "ii", "resource")))
    start, offsets = dict(result.start), dict(result.start_in_cycle)
    ii = result.ii
    if mutation == "dependence":
        # Move a destination one step earlier than its source allows.
        dep = data.draw(st.sampled_from(problem.dependences)) if problem.dependences else None
        assume(dep is not None and dep.src != dep.dst)
        src_type = problem.operator_type_of(dep.src)
        if src_type.latency == 0:
            ready_cycle, ready_offset = start[dep.src], offsets[dep.src] + src_type.incoming_delay
        else:
            ready_cycle, ready_offset = start[dep.src] + src_type.latency, src_type.outgoing_delay
        use_cycle = ready_cycle - dep.distance * ii
        if ready_offset > 0:
            assume(use_cycle >= 0)
            start[dep.dst], offsets[dep.dst] = use_cycle, 0.0
        else:
            assume(use_cycle - 1 >= 0)
            start[dep.dst] = use_cycle - 1
    elif mutation == "overflow":
        name = data.draw(st.sampled_from(names))
        offsets[name] = problem.clock_period_ns - problem.operator_type_of(name).incoming_delay + 0.25
    elif mutation == "missing":
        del start[data.draw(st.sampled_from(names))]
    elif mutation == "negative":
        start[data.draw(st.sampled_from(names))] = -1
    elif mutation == "ii":
        ii = data.draw(st.sampled_from((0, -1, 1.0, True)))
    else:
        # Crowd more mutually conflicting users of a limited type into one cycle than it has instances.
        crowded = [(optype, [name for name in problem.users_of(optype.name)])
                   for optype in problem.limited_operator_types()]
        crowded = [(optype, users) for optype, users in crowded
                   if any(not any(problem.are_exclusive(a, b) for a, b in itertools.combinations(group, 2))
                          for group in itertools.combinations(users, optype.limit + 1))]
        assume(crowded)
        optype, users = data.draw(st.sampled_from(crowded))
        group = next(group for group in itertools.combinations(users, optype.limit + 1)
                     if not any(problem.are_exclusive(a, b) for a, b in itertools.combinations(group, 2)))
        cycle = start[group[0]]
        for name in group:
            start[name] = cycle + ii * data.draw(st.integers(0, 2))
    with pytest.raises(ScheduleError):
        verify(problem, Schedule(ii, start, offsets, result.binding))


@settings(max_examples=60, deadline=None)
@given(problems(max_ops=3))
def test_mii_is_a_lower_bound_and_tiny_problems_reach_the_optimum(problem):
    """Exhaustively: no schedule exists below the MII, and the scheduler
    finds the least II that any schedule with starts below a horizon has."""
    bound = minimum_ii(problem)
    result = schedule(problem)
    horizon = sum(problem.operator_type_of(name).latency + 1 for name in problem.operations) + 1
    if bound.mii > 1:
        assert not schedule_exists(problem, bound.mii - 1, horizon + bound.mii - 1)
    assert not any(schedule_exists(problem, ii, horizon + ii) for ii in range(bound.mii, result.ii))


def _limited(problem):
    return [name for name in problem.operations if problem.operator_type_of(name).limit is not None]


@PROPERTY
@given(problems())
def test_every_algorithm_binds_every_limited_operation_within_its_limit(problem):
    ii = minimum_ii(problem).mii
    found = [schedule(problem), schedule_sequential(problem),
             iterative_modulo_schedule(problem, ii), search_modulo_schedule(problem, ii),
             schedule(problem, algorithm="search"), schedule(problem, algorithm="iterative")]
    for result in found:
        if result is None:
            continue
        verify(problem, result)
        assert set(result.binding) == set(_limited(problem))
        for name, instance in result.binding.items():
            assert 0 <= instance < problem.operator_type_of(name).limit
        # One instance, one slot: one operation, or exclusive ones of one cycle.
        held = {}
        for name, instance in result.binding.items():
            held.setdefault((problem.operations[name].operator_type, instance, result.start[name] % result.ii),
                            []).append(name)
        for names in held.values():
            for a, b in itertools.combinations(names, 2):
                assert result.start[a] == result.start[b] and problem.are_exclusive(a, b)


@PROPERTY
@given(problems(), st.data())
def test_the_verifier_rejects_broken_bindings(problem, data):
    result = schedule(problem)
    limited = _limited(problem)
    assume(limited)
    binding = dict(result.binding)
    mutation = data.draw(st.sampled_from(("shared", "beyond", "missing", "negative", "unlimited")))
    if mutation == "shared":
        # Two operations of one slot that may not share, put on one instance.
        pairs = [(a, b) for a, b in itertools.combinations(limited, 2)
                 if problem.operations[a].operator_type == problem.operations[b].operator_type
                 and result.start[a] % result.ii == result.start[b] % result.ii
                 and (result.start[a] != result.start[b] or not problem.are_exclusive(a, b))]
        assume(pairs)
        a, b = data.draw(st.sampled_from(pairs))
        binding[b] = binding[a]
    elif mutation == "beyond":
        name = data.draw(st.sampled_from(limited))
        binding[name] = problem.operator_type_of(name).limit + data.draw(st.integers(0, 2))
    elif mutation == "negative":
        binding[data.draw(st.sampled_from(limited))] = -1
    elif mutation == "missing":
        del binding[data.draw(st.sampled_from(limited))]
    else:
        unlimited = [name for name in problem.operations if name not in limited]
        assume(unlimited)
        binding[data.draw(st.sampled_from(unlimited))] = 0
    with pytest.raises(ScheduleError):
        verify(problem, Schedule(result.ii, result.start, result.start_in_cycle, binding))
