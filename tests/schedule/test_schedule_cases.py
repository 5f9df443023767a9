"""Hand-made scheduling problems with known answers."""

import pytest

from hls.schedule import (Dependence, IIBelowMIIError, NoScheduleError, Operation, OperatorType, Problem,
                          ProblemError, Schedule, ScheduleError, depth, format_schedule, minimum_ii, rec_mii,
                          res_mii, schedule, schedule_sequential, verify)
from hls.schedule.search import search_modulo_schedule
from schedule_brute_force import schedule_exists

ADD = OperatorType("add", latency=0, incoming_delay=2.0, description="adder")
MUL2 = OperatorType("mul", latency=2, incoming_delay=1.0, outgoing_delay=0.5)
READ_A = OperatorType("read:a", latency=1, incoming_delay=1.5, outgoing_delay=1.0, limit=1,
                      description="read port of `a`")
WRITE_A = OperatorType("write:a", latency=1, incoming_delay=1.5, limit=1, description="write port of `a`")
CMP = OperatorType("cmp", latency=0, incoming_delay=1.5)


def build(types, operations, dependences, *, period=10.0, exclusions=()):
    problem = Problem(clock_period_ns=period, name="loop")
    for optype in types:
        problem.add_operator_type(optype)
    for name, typename, *lines in operations:
        problem.add_operation(Operation(name, typename, tuple(lines)))
    for src, dst, *rest in dependences:
        distance = rest[0] if rest else 0
        kind = rest[1] if len(rest) > 1 else "data"
        problem.add_dependence(Dependence(src, dst, distance, kind))
    for a, b in exclusions:
        problem.add_exclusion(a, b)
    return problem


def scheduled(problem, **options):
    result = schedule(problem, **options)
    verify(problem, result)
    return result


def test_single_add_recurrence_reaches_ii_1():
    problem = build([ADD, READ_A], [("rd", "read:a", 5), ("s", "add", 7)],
                    [("rd", "s"), ("s", "s", 1)])
    bound = minimum_ii(problem)
    assert (bound.mii, bound.rec_mii, bound.res_mii) == (1, 1, 1)
    assert bound.kind == "recurrence"
    assert bound.operations == ("s",)
    assert bound.lines == (7,)
    assert bound.detail == "a loop-carried dependence through `s` (adder, 1 cycle) at distance 1"
    result = scheduled(problem)
    assert result.ii == 1
    # The read's data comes 1 ns into cycle 1, the add chains after it.
    assert result.start == {"rd": 0, "s": 1}
    assert result.offset("s") == pytest.approx(1.0)
    assert depth(problem, result) == 2


def test_two_cycle_multiply_on_recurrence_gives_ii_2():
    problem = build([MUL2], [("m", "mul", 3)], [("m", "m", 1)])
    assert rec_mii(problem) == 2
    bound = minimum_ii(problem)
    assert bound.kind == "recurrence" and bound.mii == 2
    assert "(mul, 2 cycles) at distance 1" in bound.detail
    assert scheduled(problem).ii == 2


def test_recurrence_at_distance_2_halves_the_bound():
    mul3 = OperatorType("mul", latency=3, incoming_delay=1.0, outgoing_delay=0.5)
    problem = build([mul3, ADD], [("m", "mul"), ("a", "add")], [("m", "a"), ("a", "m", 2)])
    # One trip takes 3 cycles: the add chains after the multiplier's output
    # delay, and the next multiply chains after the add (0.5 + 2 + 1 ns).
    bound = minimum_ii(problem)
    assert bound.rec_mii == 2
    assert bound.detail == "a loop-carried dependence through `m` -> `a` (mul, adder, 3 cycles) at distance 2"
    assert scheduled(problem).ii == 2


def test_chained_adds_that_fit_one_period_give_ii_1():
    problem = build([ADD], [(f"a{k}", "add") for k in range(5)],
                    [(f"a{k}", f"a{k + 1}") for k in range(4)] + [("a4", "a0", 1)])
    assert rec_mii(problem) == 1  # 5 x 2 ns = 10 ns fits a 10 ns period exactly
    result = scheduled(problem)
    assert result.ii == 1
    assert set(result.start.values()) == {0}
    assert result.offset("a4") == pytest.approx(8.0)


def test_chained_adds_that_do_not_fit_one_period():
    problem = build([ADD], [(f"a{k}", "add", 10 + k) for k in range(6)],
                    [(f"a{k}", f"a{k + 1}") for k in range(5)] + [("a5", "a0", 1)])
    # 6 x 2 ns = 12 ns: the recurrence needs two cycles per iteration
    bound = minimum_ii(problem)
    assert bound.rec_mii == 2 and bound.kind == "recurrence"
    assert bound.operations[0] == "a0" and len(bound.operations) == 6
    assert bound.lines == tuple(range(10, 16))
    result = scheduled(problem)
    assert result.ii == 2
    # Without the recurrence the chain is split over two cycles instead.
    acyclic = build([ADD], [(f"a{k}", "add") for k in range(6)], [(f"a{k}", f"a{k + 1}") for k in range(5)])
    result = scheduled(acyclic)
    assert result.ii == 1 and depth(acyclic, result) == 2


def test_three_reads_of_one_port_give_res_mii_3():
    problem = build([READ_A, ADD], [("r0", "read:a", 4), ("r1", "read:a", 5), ("r2", "read:a", 6),
                                    ("s", "add", 7)],
                    [("r0", "s"), ("r1", "s"), ("r2", "s"), ("s", "s", 1)])
    assert res_mii(problem) == 3
    bound = minimum_ii(problem)
    assert bound.kind == "resource" and bound.mii == 3 and bound.rec_mii == 1
    assert bound.operations == ("r0", "r1", "r2") and bound.lines == (4, 5, 6)
    assert bound.detail == "3 uses of read port of `a` (limit 1)"
    assert bound.operator_type == "read:a"
    result = scheduled(problem)
    assert result.ii == 3
    assert sorted(result.start[r] % 3 for r in ("r0", "r1", "r2")) == [0, 1, 2]


def test_exclusive_writes_share_one_port():
    # if c: a[i] = x  else: a[i] = y
    problem = build([CMP, WRITE_A], [("c", "cmp", 3), ("w_then", "write:a", 4), ("w_else", "write:a", 6)],
                    [("c", "w_then", 0, "control"), ("c", "w_else", 0, "control")],
                    exclusions=[("w_then", "w_else")])
    assert res_mii(problem) == 1
    assert scheduled(problem).ii == 1
    # Without the exclusion they need two slots.
    problem.exclusions.clear()
    assert res_mii(problem) == 2
    assert scheduled(problem).ii == 2


def test_exclusive_ops_share_only_within_one_iteration():
    problem = build([WRITE_A], [("w_then", "write:a"), ("w_else", "write:a")], [],
                    exclusions=[("w_then", "w_else")])
    verify(problem, Schedule(1, {"w_then": 0, "w_else": 0}, binding={"w_then": 0, "w_else": 0}))
    # Same slot, but cycle 1 is the previous iteration's: both may write.
    with pytest.raises(ScheduleError, match=r"resource 'write:a' \(limit 1\): modulo slot 0"):
        verify(problem, Schedule(1, {"w_then": 0, "w_else": 1}, binding={"w_then": 0, "w_else": 0}))


def test_resource_detail_counts_sharing():
    problem = build([WRITE_A], [(f"w{k}", "write:a") for k in range(4)], [],
                    exclusions=[("w0", "w1"), ("w2", "w3")])
    bound = minimum_ii(problem)
    assert bound.res_mii == 2
    assert bound.detail == "4 uses of write port of `a`, 2 after sharing between exclusive branches (limit 1)"
    assert scheduled(problem).ii == 2


def test_memory_and_exit_kinds():
    # a[i] = a[i-1] + x : read -> add -> write, write -> read of the next iteration
    memory = build([READ_A, WRITE_A, ADD], [("rd", "read:a", 3), ("s", "add", 3), ("wr", "write:a", 3)],
                   [("rd", "s"), ("s", "wr"), ("wr", "rd", 1, "memory")])
    bound = minimum_ii(memory)
    assert bound.kind == "memory" and bound.rec_mii == 2
    assert bound.operations == ("rd", "s", "wr")
    assert bound.detail.startswith("a loop-carried memory dependence through `rd` -> `s` -> `wr`")
    assert scheduled(memory).ii == 2

    # while a[i] <= t: i = i + 1  -- the next address waits for the exit test
    read2 = OperatorType("read:a", latency=2, incoming_delay=1.5, outgoing_delay=1.0, limit=1)
    exits = build([read2, ADD, CMP], [("i", "add", 8), ("rd", "read:a", 8), ("cmp", "cmp", 8)],
                  [("i", "rd"), ("rd", "cmp"), ("cmp", "i", 1, "exit"), ("i", "i", 1)])
    bound = minimum_ii(exits)
    assert bound.kind == "exit" and bound.rec_mii == 2 and bound.lines == (8,)
    assert "exit condition" in bound.detail
    assert scheduled(exits).ii == 2

    # both: memory wins
    both = build([READ_A, WRITE_A, CMP], [("rd", "read:a"), ("cmp", "cmp"), ("wr", "write:a")],
                 [("rd", "cmp"), ("cmp", "wr", 0, "exit"), ("wr", "rd", 1, "memory")])
    assert minimum_ii(both).kind == "memory"


def test_recurrence_reported_when_it_ties_with_resources():
    problem = build([MUL2, READ_A], [("m", "mul"), ("r0", "read:a"), ("r1", "read:a")],
                    [("m", "m", 1), ("r0", "m")])
    bound = minimum_ii(problem)
    assert (bound.res_mii, bound.rec_mii) == (2, 2) and bound.kind == "recurrence"


def test_no_bound_at_all():
    problem = build([ADD], [("a", "add"), ("b", "add")], [("a", "b")])
    bound = minimum_ii(problem)
    assert bound.mii == 1 and bound.kind == "resource" and bound.operations == ()
    assert scheduled(problem).ii == 1


def test_requested_ii_below_mii_is_an_error_with_the_bound():
    problem = build([MUL2], [("m", "mul", 9)], [("m", "m", 1)])
    with pytest.raises(IIBelowMIIError) as caught:
        schedule(problem, ii=1)
    assert caught.value.bound.mii == 2 and caught.value.bound.lines == (9,)
    assert caught.value.requested == 1
    assert str(caught.value) == ("loop: requested II 1 is below the minimum II 2, imposed by a loop-carried "
                                 "dependence through `m` (mul, 2 cycles) at distance 1")


def test_requested_ii_above_mii_is_honoured():
    problem = build([MUL2], [("m", "mul")], [("m", "m", 1)])
    assert scheduled(problem, ii=5).ii == 5


@pytest.mark.parametrize("options, message", [
    ({"ii": 0}, "ii must be an integer >= 1, not 0"),
    ({"ii": 1.5}, "ii must be an integer >= 1, not 1.5"),
    ({"max_ii": 1}, "max_ii 1 is below the II 2"),
])
def test_bad_options(options, message):
    problem = build([MUL2], [("m", "mul")], [("m", "m", 1)])
    with pytest.raises(ProblemError, match=message):
        schedule(problem, **options)


def test_max_ii_exhausted():
    problem = build([MUL2], [("m", "mul")], [("m", "m", 1)])

    def never(problem, ii):
        return None

    with pytest.raises(NoScheduleError, match="no schedule found for II 2 to 3"):
        schedule(problem, max_ii=3, algorithm=never)
    # Without a limit the sequential schedule is the fallback.
    assert scheduled(problem, algorithm=never) == schedule_sequential(problem)


def test_malformed_problems():
    with pytest.raises(ProblemError, match="cycle a -> b -> a"):
        build([ADD], [("a", "add"), ("b", "add")], [("a", "b"), ("b", "a")]).check()
    slow = OperatorType("div", latency=0, incoming_delay=12.0)
    with pytest.raises(ProblemError, match=r"'d' \(type 'div'\) needs 12.00 ns, more than the clock period"):
        schedule(build([slow], [("d", "div")], []))
    with pytest.raises(ProblemError, match="unknown operation 'x'"):
        build([ADD], [("a", "add")], [("a", "x")])
    with pytest.raises(ProblemError, match=r"'p': limit must be an integer >= 1 or None, not 0$"):
        OperatorType("p", limit=0)
    with pytest.raises(ProblemError, match=r"'p': latency must be an integer >= 0, not 1.5$"):
        OperatorType("p", latency=1.5)
    with pytest.raises(ProblemError, match=r"'p': delays must be >= 0 ns, not incoming nan, outgoing 0.0$"):
        OperatorType("p", incoming_delay=float("nan"))
    with pytest.raises(ProblemError, match=r"dependence a->b: distance must be an integer >= 0, not -1$"):
        Dependence("a", "b", -1)
    with pytest.raises(ProblemError, match=r"dependence a->b: kind must be one of .*, not 'war'$"):
        Dependence("a", "b", 1, "war")
    with pytest.raises(ProblemError, match=r"clock_period_ns must be a finite number > 0, not 0$"):
        Problem(clock_period_ns=0)


def test_sequential_schedule_never_overlaps_iterations():
    problem = build([READ_A, MUL2, ADD], [("rd", "read:a"), ("m", "mul"), ("s", "add")],
                    [("rd", "m"), ("m", "s"), ("s", "s", 1)])
    result = schedule_sequential(problem)
    verify(problem, result)
    assert result.ii == depth(problem, result) == 4
    assert result.start == {"rd": 0, "m": 1, "s": 3}


def test_sequential_ii_covers_output_delay():
    # The read's data arrives 1 ns into the cycle after the iteration's last
    # start; reading it back at offset 0 of the next iteration is too early.
    problem = build([READ_A], [("rd", "read:a")], [("rd", "rd", 1)])
    result = schedule_sequential(problem)
    verify(problem, result)
    assert depth(problem, result) == 1 and result.ii == 2


def test_format_schedule():
    problem = build([ADD, READ_A], [("rd", "read:a", 5), ("s", "add", 7)], [("rd", "s"), ("s", "s", 1)])
    text = format_schedule(problem, scheduled(problem))
    assert text.splitlines() == [
        "loop: II 1, depth 2, clock 10 ns",
        "cycle  slot  ns  operation  type         lines",
        "    0     0   0  rd         read:a (1c)  5",
        "    1     0   1  s          add (2ns)    7",
    ]


def test_recurrence_whose_reads_compete_for_one_port():
    # a[i] = a[i] + a[i-1]: the store feeds both reads of the next iteration;
    # the recurrence alone allows II 2 and so does one read port, but the two
    # reads cannot use the port in one cycle, so one of them is a cycle late.
    read = OperatorType("read:a", latency=1, incoming_delay=0.6, outgoing_delay=2.0, limit=1,
                        description="read port of `a`")
    write = OperatorType("write:a", latency=1, incoming_delay=0.6, limit=1, description="write port of `a`")
    problem = build([read, write, ADD], [("ld_i", "read:a", 12), ("ld_im1", "read:a", 12), ("add", "add", 12),
                                         ("st", "write:a", 12)],
                    [("ld_i", "add"), ("ld_im1", "add"), ("add", "st"),
                     ("ld_i", "st", 0, "memory"), ("ld_im1", "st", 0, "memory"),
                     ("st", "ld_i", 1, "memory"), ("st", "ld_im1", 1, "memory")])
    bound = minimum_ii(problem)
    assert (bound.res_mii, bound.rec_mii, bound.mii) == (2, 3, 3)
    assert bound.kind == "memory"
    assert bound.detail.endswith(", on which 2 uses of read port of `a` (limit 1) compete")
    assert set(bound.operations) == {"ld_i", "ld_im1", "add", "st"}
    assert scheduled(problem).ii == 3
    with pytest.raises(IIBelowMIIError):
        schedule(problem, ii=2)
    # The bound is real: no schedule at II 2.  All four operations are on the
    # recurrence, a path of distance <= 1 leads from each to each, so starts
    # differ by at most II; shifted to start at 0, starts below 8 cover all.
    assert not schedule_exists(problem, 2, 8)
    assert schedule_exists(problem, 3, 8)


def test_search_finds_what_iterative_scheduling_misses():
    # Found by the property tests: four users of one instance at II 4 must
    # take one slot each, and the recurrence o5 <-> o7 decides which.
    t0 = OperatorType("t0", latency=2, incoming_delay=1.0, outgoing_delay=2.5, limit=1)
    t1 = OperatorType("t1", latency=2, incoming_delay=0.0, outgoing_delay=4.0)
    problem = build([t0, t1], [("o0", "t0"), ("o1", "t0"), ("o2", "t1"), ("o3", "t0"), ("o4", "t0"),
                               ("o5", "t1"), ("o6", "t1"), ("o7", "t1"), ("o8", "t1")],
                    [("o0", "o1"), ("o1", "o4"), ("o1", "o5"), ("o1", "o6"), ("o1", "o7"), ("o3", "o5"),
                     ("o4", "o5"), ("o4", "o7"), ("o5", "o7"), ("o7", "o5", 1), ("o5", "o1", 2),
                     ("o0", "o5", 2)],
                    exclusions=[("o8", "o5"), ("o1", "o2"), ("o1", "o7"), ("o4", "o1")])
    assert minimum_ii(problem).mii == 4
    found = search_modulo_schedule(problem, 4)
    assert found is not None
    verify(problem, found)
    assert scheduled(problem).ii == 4


@pytest.mark.parametrize("ii, start, offsets, message", [
    (0, {"rd": 0, "s": 1}, {}, r"^II must be an integer >= 1, not 0$"),
    (1, {"rd": 0}, {}, r"^operation 's' has no start cycle$"),
    (1, {"rd": 0, "s": 1, "x": 0}, {}, r"^schedule starts unknown operation 'x'$"),
    (1, {"rd": 0, "s": -2}, {}, r"^operation 's' starts at cycle -2; start cycles must be >= 0$"),
    (1, {"rd": 0, "s": 1.0}, {}, r"^operation 's': start cycle must be an integer, not 1.0$"),
    (1, {"rd": 0, "s": 1}, {"s": -1.0}, r"^operation 's': offset in cycle must be >= 0 ns, not -1.0$"),
    (1, {"rd": 0, "s": 1}, {"s": 9.0},
     r"^operation 's' \(type 'add'\) starts 9 ns into cycle 1 and needs 2 ns: it ends at 11 ns, "
     r"past the clock period of 10 ns$"),
    (1, {"rd": 0, "s": 1}, {"s": 0.5},
     r"^data dependence 'rd' -> 's' \(distance 0, II 1\) is violated: 'rd''s result is ready at cycle 1 \+ 1 ns, "
     r"but 's' uses it at cycle 1 \+ 0.5 ns$"),
])
def test_verifier_messages(ii, start, offsets, message):
    problem = build([ADD, READ_A], [("rd", "read:a"), ("s", "add")], [("rd", "s"), ("s", "s", 1)])
    verify(problem, Schedule(1, {"rd": 0, "s": 1}, {"s": 1.0}, {"rd": 0}))
    with pytest.raises(ScheduleError, match=message):
        verify(problem, Schedule(ii, start, offsets, {"rd": 0}))


def test_verifier_resource_message():
    problem = build([READ_A], [("rd", "read:a"), ("rd2", "read:a")], [])
    verify(problem, Schedule(2, {"rd": 1, "rd2": 0}, binding={"rd": 0, "rd2": 0}))
    with pytest.raises(ScheduleError, match=r"^resource 'read:a' \(limit 1\): modulo slot 0 of II 1 holds "
                                            r"'rd' \(cycle 1\), 'rd2' \(cycle 0\), which need 2 instances$"):
        verify(problem, Schedule(1, {"rd": 1, "rd2": 0}, binding={"rd": 0, "rd2": 0}))


def test_empty_problem():
    problem = Problem(clock_period_ns=10.0)
    assert minimum_ii(problem).mii == 1
    for result in (schedule(problem), schedule_sequential(problem), search_modulo_schedule(problem, 1)):
        verify(problem, result)
        assert result.ii == 1 and depth(problem, result) == 0


def test_output_delay_beyond_the_period_pushes_the_user_a_cycle_later():
    slow_out = OperatorType("ram", latency=1, outgoing_delay=12.0)
    problem = build([slow_out, ADD], [("rd", "ram"), ("s", "add")], [("rd", "s"), ("rd", "rd", 1)])
    result = scheduled(problem)
    assert minimum_ii(problem).rec_mii == 2 and result.ii == 2
    assert result.start["s"] == result.start["rd"] + 2 and result.offset("s") == 0.0


def _tailed(period, tail):
    # if k < n: x = s.read()  -- the compare chains on the counter; the read's predicate also
    # drives `tail` ns of logic (the stall) within the read's cycle.
    stream = OperatorType("stream:s", limit=1, description="stream `s`")
    problem = Problem(clock_period_ns=period, name="loop")
    for optype in (CMP, stream, ADD):
        problem.add_operator_type(optype)
    for name, typename in (("lt", "cmp"), ("rd", "stream:s"), ("use", "add")):
        problem.add_operation(Operation(name, typename))
    problem.add_dependence(Dependence("lt", "rd", 0, "control", tail_delay=tail))
    problem.add_dependence(Dependence("rd", "use"))
    return problem


def test_a_dependence_with_a_tail_chains_only_where_the_tail_fits_the_period():
    # 1.5 ns of compare and a 5 ns tail fit 10 ns: chained, as without a tail.
    fits = scheduled(_tailed(10.0, 5.0))
    assert (fits.start["rd"], fits.offset("rd")) == (0, 1.5)
    # Not in 6 ns: the read takes the compare from a register, at the start of the next cycle,
    # and the token's user chains on it there.
    result = scheduled(_tailed(6.0, 5.0))
    assert (result.start["lt"], result.start["rd"], result.offset("rd")) == (0, 1, 0.0)
    assert (result.start["use"], result.offset("use")) == (1, 0.0)
    for algorithm in ("sequential", "search"):
        other = schedule(_tailed(6.0, 5.0), algorithm=algorithm)
        verify(_tailed(6.0, 5.0), other)
        assert other.start["rd"] == other.start["lt"] + 1
    # Chained in the compare's cycle, the read breaks the rule, and the verifier says which.
    with pytest.raises(ScheduleError, match=r"^control dependence 'lt' -> 'rd' \(distance 0, II 1, tail 5 ns\) is "
                                            r"violated: 'lt''s result is ready at cycle 1 \+ 0 ns, but 'rd' uses it "
                                            r"at cycle 0 \+ 1.5 ns$"):
        verify(_tailed(6.0, 5.0), Schedule(1, {"lt": 0, "rd": 0, "use": 0}, {"rd": 1.5, "use": 1.5}, {"rd": 0}))
    # A result that is a register's output (ready at a cycle's start) is used in that cycle: a
    # later cycle would not shorten the tail.
    stream = OperatorType("stream:s", limit=1)
    free = OperatorType("read:a", latency=1, incoming_delay=1.5, outgoing_delay=0.0, limit=1)
    registered = build([stream, free], [("a", "read:a"), ("rd", "stream:s")], [], period=6.0)
    registered.add_dependence(Dependence("a", "rd", 0, "control", tail_delay=5.0))
    assert scheduled(registered).start == {"a": 0, "rd": 1}
    with pytest.raises(ProblemError, match=r"tail_delay must be >= 0 ns, not -1"):
        Dependence("a", "rd", tail_delay=-1)


def test_port_shared_on_a_recurrence_that_has_room_stays_a_resource_bound():
    # Three reads and a write of `a` on a recurrence at distance 2: the port
    # alone forces II 3, and at II 3 the recurrence has room for it.
    problem = build([READ_A, WRITE_A, ADD],
                    [("r0", "read:a"), ("r1", "read:a"), ("r2", "read:a"), ("s", "add"), ("w", "write:a")],
                    [("r0", "s"), ("r1", "s"), ("r2", "s"), ("s", "w")]
                    + [(read, "w", 0, "memory") for read in ("r0", "r1", "r2")]
                    + [("w", read, 2, "memory") for read in ("r0", "r1", "r2")])
    bound = minimum_ii(problem)
    assert (bound.res_mii, bound.rec_mii, bound.kind) == (3, 1, "resource")
    assert bound.detail == "3 uses of read port of `a` (limit 1)"
    assert scheduled(problem).ii == 3


def test_recurrence_detail_names_a_variable_once():
    problem = Problem(clock_period_ns=10.0)
    for optype in (ADD, OperatorType("reg", latency=1, description="variable register"), OperatorType("wire")):
        problem.add_operator_type(optype)
    problem.add_operation(Operation("read_s", "wire", (3,), description="s"))
    problem.add_operation(Operation("add", "add", (5,), description="s + d"))
    problem.add_operation(Operation("write_s", "reg", (5,), description="s"))
    for src, dst, distance in (("read_s", "add", 0), ("add", "write_s", 0), ("write_s", "read_s", 1)):
        problem.add_dependence(Dependence(src, dst, distance))
    bound = minimum_ii(problem)
    assert bound.detail == ("a loop-carried dependence through `s` -> `s + d` -> `s` "
                            "(adder, variable register, 1 cycle) at distance 1")
    assert bound.operations == ("read_s", "add", "write_s") and bound.lines == (3, 5)


def test_the_algorithm_is_chosen_by_name():
    from hls.schedule import ALGORITHMS
    problem = build([READ_A, ADD], [("r0", "read:a"), ("r1", "read:a"), ("s", "add")],
                    [("r0", "s"), ("r1", "s"), ("s", "s", 1)])
    assert set(ALGORITHMS) == {"modulo", "iterative", "search", "sequential"}
    for name in ALGORITHMS:
        result = scheduled(problem, algorithm=name)
        assert result.binding == {"r0": 0, "r1": 0}
        assert result.ii == (3 if name == "sequential" else 2)
    with pytest.raises(ProblemError, match=r"^loop: unknown scheduling algorithm 'rau'; expected one of "
                                           r"modulo, iterative, search, sequential$"):
        schedule(problem, algorithm="rau")


def test_binding_shares_an_instance_only_between_exclusive_operations_of_one_cycle():
    from hls.schedule import bind
    mul = OperatorType("mul", latency=0, incoming_delay=3.0, limit=2)
    problem = build([mul], [("m_then", "mul"), ("m_else", "mul"), ("m", "mul")], [],
                    exclusions=[("m_then", "m_else")])
    result = scheduled(problem)
    assert result.ii == 1 and result.start == {"m_then": 0, "m_else": 0, "m": 0}
    binding = result.binding
    assert binding["m_then"] == binding["m_else"] != binding["m"] and set(binding.values()) == {0, 1}
    # In different cycles the exclusive pair belongs to two iterations: three instances.
    assert bind(problem, 1, {"m_then": 0, "m_else": 1, "m": 0})["m_else"] == 2
    with pytest.raises(ScheduleError, match=r"^resource 'mul' \(limit 2\): modulo slot 0 of II 1 holds .*, which "
                                            r"need 3 instances$"):
        verify(problem, Schedule(1, {"m_then": 0, "m_else": 1, "m": 0},
                                 binding=bind(problem, 1, {"m_then": 0, "m_else": 1, "m": 0})))
    with pytest.raises(ScheduleError, match=r"^operation 'm' is bound to instance 2 of 'mul', which has "
                                            r"instances 0 to 1$"):
        verify(problem, Schedule(1, result.start, binding={"m_then": 0, "m_else": 0, "m": 2}))
    with pytest.raises(ScheduleError, match=r"^instance 0 of 'mul' holds 'm_then' \(cycle 0\) and 'm' \(cycle 0\) "
                                            r"in modulo slot 0 of II 1, which are not exclusive operations of "
                                            r"one cycle$"):
        verify(problem, Schedule(1, result.start, binding={"m_then": 0, "m": 0, "m_else": 1}))
    with pytest.raises(ScheduleError, match=r"^operation 'm' of the limited type 'mul' is not bound"):
        verify(problem, Schedule(1, result.start, binding={"m_then": 0, "m_else": 0}))


def test_reservation_table_counts_exclusive_operations_of_one_cycle_once():
    from hls.schedule import ReservationTable
    problem = build([WRITE_A, ADD], [("w_then", "write:a"), ("w_else", "write:a"), ("w", "write:a"),
                                     ("s", "add")], [], exclusions=[("w_then", "w_else")])
    table = ReservationTable(problem, 2)
    table.reserve("w_then", 0)
    assert table.fits("w_else", 0) and not table.fits("w_else", 2) and not table.fits("w", 0)
    assert table.fits("w", 1) and table.fits("s", 0)
    table.reserve("w_else", 0)
    assert table.holders("w", 2) == ["w_then", "w_else"]
    assert table.fits("w", 0, ignoring="w_then") is False
    table.release("w_then")
    table.release("w_else")
    assert table.fits("w", 0) and table.holders("w", 0) == []


def test_dependence_lists_follow_new_dependences():
    problem = build([ADD], [("a", "add"), ("b", "add"), ("c", "add")], [("a", "b")])
    assert [dep.dst for dep in problem.successors("a")] == ["b"]
    problem.add_dependence(Dependence("a", "c"))
    assert [dep.dst for dep in problem.successors("a")] == ["b", "c"]
    assert [dep.src for dep in problem.predecessors("c")] == ["a"]
    problem.dependences = [Dependence("b", "c")]
    assert problem.successors("a") == [] and [dep.src for dep in problem.predecessors("c")] == ["b"]


def _routed(period, route):
    # s = a + b; t = s - c: the difference's carry chain entered from the sum's, `route` ns of
    # routing beyond what the sum's delay holds; u = r + s with r a register's output.
    registered = OperatorType("reg", latency=1)
    problem = build([ADD, registered], [("s", "add"), ("t", "add"), ("r", "reg"), ("u", "add")],
                    [("r", "u")], period=period)
    problem.add_dependence(Dependence("s", "t", route_delay=route))
    return problem


def test_a_dependence_with_routing_adds_it_only_where_the_result_is_chained():
    # 2 ns of sum, 1 ns of routing, 2 ns of difference: 5 ns fit 10.
    chained = scheduled(_routed(10.0, 1.0))
    assert (chained.start["t"], chained.offset("t")) == (0, 3.0)
    # Not in 4.5 ns: the difference takes the sum from a register, without the routing.
    result = scheduled(_routed(4.5, 1.0))
    assert (result.start["t"], result.offset("t")) == (1, 0.0)
    for algorithm in ("sequential", "search"):
        other = schedule(_routed(4.5, 1.0), algorithm=algorithm)
        verify(_routed(4.5, 1.0), other)
        assert other.start["t"] == other.start["s"] + 1
    # Without the routing the same two fit 4.5 ns, chained.
    assert scheduled(_routed(4.5, 0.0)).start["t"] == 0
    # A register's output (ready at offset 0) pays none: u starts with its cycle.
    problem = _routed(10.0, 1.0)
    problem.add_dependence(Dependence("r", "u", route_delay=1.0))
    assert scheduled(problem).offset("u") == 0.0
    with pytest.raises(ScheduleError, match=r"^data dependence 's' -> 't' \(distance 0, II 1, routing 1 ns\) is "
                                            r"violated: 's''s result is ready at cycle 0 \+ 3 ns, but 't' uses it "
                                            r"at cycle 0 \+ 2 ns$"):
        verify(_routed(10.0, 1.0), Schedule(1, {"s": 0, "t": 0, "r": 0, "u": 1}, {"t": 2.0}, {}))
    with pytest.raises(ProblemError, match=r"route_delay must be >= 0 ns, not -1"):
        Dependence("s", "t", route_delay=-1)
