"""The ECP5 delay model against its nextpnr-ecp5 measurements of whole kernels, and its basic shape
(single operators of both devices: test_devices.py)."""

import pytest

from benchmarks.delay_calibration.ecp5 import (MEASURED_CONTROL, MEASURED_DIGIT_PRODUCTS, MEASURED_PATHS,
                                               MEASURED_UNIT_SEGMENTS)
from hls.target import Target

ECP5 = Target(device="ecp5").delay_model
REGISTER_SETUP = ECP5.register_setup
operator_delay = Target(device="ecp5").operator_delay


def test_delays_grow_with_width():
    for kind in ("add", "lt", "mul", "eq", "floordiv"):
        delays = [operator_delay(kind, 2 * w, (w, w)) for w in (4, 8, 16, 32)]
        assert delays == sorted(delays) and delays[0] < delays[-1]


def test_constant_shift_is_a_wire_and_unknown_kind_is_an_error():
    assert operator_delay("shl", 12, (8, 0)) == 0.0
    with pytest.raises(ValueError, match="'pow'"):
        operator_delay("pow", 8)


@pytest.mark.parametrize("name", sorted(MEASURED_CONTROL))
def test_loop_control_is_never_faster_than_measured(name):
    # The report's claimed clock must be reached: the model errs on the slow side.  Several points
    # are data paths (an upper bound of the control), so only the slowest is close (next test).
    key, measured = MEASURED_CONTROL[name]
    estimate = ECP5.loop_control(*key) + REGISTER_SETUP
    assert estimate >= measured
    assert ECP5.loop_control_fmax(*key) == pytest.approx(1000 / estimate)


def test_loop_control_logic_is_the_fit_of_the_measured_points():
    from benchmarks.delay_calibration.loop_control import fit
    assert ECP5.loop_control_logic == pytest.approx(fit(ECP5, MEASURED_CONTROL))
    slowest = max(measured - ECP5.loop_control(*key) - REGISTER_SETUP for key, measured in MEASURED_CONTROL.values())
    assert -0.05 < slowest <= 0


def test_exit_logic_is_the_fit_of_the_measured_exit_paths():
    # Each path: register_setup, the condition's modelled ready offset, then the exit's logic.
    from benchmarks.delay_calibration.ecp5 import MEASURED_EXITS
    from benchmarks.delay_calibration.loop_control import fit_exits
    assert ECP5.exit_logic == pytest.approx(fit_exits(ECP5, MEASURED_EXITS))
    for offset, measured in MEASURED_EXITS.values():
        assert REGISTER_SETUP + offset + ECP5.exit_logic >= measured


def _exit_timing(kernel, clock):
    from hls.compiler import compile_kernel
    compiled = compile_kernel(kernel, target=kernel.target.replace(clock_mhz=clock), retarget=False)
    (loop,) = [node for node in compiled.ir.nodes if hasattr(node, "exit_ops")]
    scheduled = compiled.schedule_of(loop.body)
    problem, schedule = scheduled.problem.problem, scheduled.schedule
    (exit,) = loop.exit_ops
    return compiled, schedule.start[exit.name], schedule.ready(problem, exit.operands[0].name), schedule.ii


def test_an_exit_chains_on_its_condition_only_where_its_logic_fits_after_it():
    from benchmarks.kernels import load
    kernel = load("find_first_break")[0]
    # 100 MHz: `a[i] > t` is ready at 4.26 ns, the exit's 1.95 ns fit in the 8 ns left to logic.
    _, start, (cycle, offset), ii = _exit_timing(kernel, 100)
    assert start == cycle and offset + ECP5.exit_logic <= Target(clock_mhz=100).usable_period_ns
    # 150 MHz: 4.67 ns: the condition is registered and the exit fires a cycle later, at the same II.
    _, start, (cycle, offset), ii = _exit_timing(kernel, 150)
    assert start == cycle + 1 and offset + ECP5.exit_logic > Target(clock_mhz=150).usable_period_ns
    assert ii == 1


def test_an_exit_whose_logic_fills_the_period_lowers_the_claim():
    # 260 MHz leaves 1.85 ns to logic, less than the exit's 1.95: the kernel compiles, the report
    # claims no more than the exit logic reaches from a register and says why.
    from benchmarks.kernels import load
    compiled, *_ = _exit_timing(load("find_first_break")[0], 260)
    data = compiled.report.to_json()
    assert data["claimed_clock_mhz"] <= 1000 / (REGISTER_SETUP + ECP5.exit_logic)
    assert any("the exit logic of the loop on line" in line for line in data["timing"])


@pytest.mark.parametrize("name", sorted(MEASURED_UNIT_SEGMENTS))
def test_unit_segments_are_never_faster_than_measured_in_kernels(name):
    # The measured kernel's unit, pipelined in the stages it had when measured: its slowest
    # segment, with the routing the compiler adds, must not be faster than nextpnr's median.
    from amaranth import unsigned

    from hls.approx import UnitChoice
    from hls.unit_operators import _approx_segments, approx_unit
    (unit, (a, b), stages), measured = MEASURED_UNIT_SEGMENTS[name]
    built = approx_unit(UnitChoice("mul", unit), unsigned(a), unsigned(b))
    estimate = max(_approx_segments(built, stages, ECP5)) + ECP5.unit_routing(unit) + REGISTER_SETUP
    assert estimate >= measured
    assert estimate == pytest.approx(measured, rel=0.1)


def test_a_unit_with_an_allowance_gets_more_stages_than_without():
    import dataclasses

    from amaranth import unsigned

    from hls.approx import UnitChoice
    from hls.unit_operators import approx_plan
    period = Target().usable_period_ns
    choice = UnitChoice("mul", "mitchell_refined")
    without = dataclasses.replace(ECP5, unit_segment_allowance={})
    plain = approx_plan(choice, unsigned(16), unsigned(16), period, without)
    allowed = approx_plan(choice, unsigned(16), unsigned(16), period, ECP5)
    assert ECP5.unit_routing("mitchell_refined") > ECP5.routing_hop == ECP5.unit_routing("drum")
    assert allowed.stages == plain.stages + 1
    assert max(allowed.segment_delays) + ECP5.unit_routing("mitchell_refined") <= period


def test_loop_control_grows_with_the_counter_and_the_pipeline():
    assert ECP5.loop_control(4, 4, 2) < ECP5.loop_control(32, 32, 2)
    assert ECP5.loop_control(4, 4, 2) < ECP5.loop_control(4, 4, 80)
    # A while loop has no counter: only the valid chain's OR before the control logic.
    assert ECP5.loop_control(0, 0, 2) < ECP5.loop_control(8, 8, 2)


def test_the_report_claims_the_clock_the_loop_control_reaches():
    from benchmarks.kernels import load
    from hls.compiler import compile_kernel

    kernel = load("vsum")[0]
    assert compile_kernel(kernel).report.to_json()["claimed_clock_mhz"] == 100
    report = compile_kernel(kernel, target=kernel.target.replace(clock_mhz=200), retarget=False).report
    data = report.to_json()
    assert data["clock_mhz"] == 200 and data["claimed_clock_mhz"] < 200
    assert data["claimed_clock_mhz"] == pytest.approx(ECP5.loop_control_fmax(7, 7, 3), abs=0.1)
    assert f"claimed to reach {ECP5.loop_control_fmax(7, 7, 3):.0f} MHz, not 200" in report.to_text()


def test_a_unit_whose_slowest_operation_exceeds_the_period_lowers_the_claim():
    # A 32-bit divider at 200 MHz: one subtraction row alone is longer than 3 ns; the kernel
    # compiles, and the report claims the clock that row reaches instead of 200 MHz.
    import division_kernels
    from hls.compiler import compile_kernel

    compiled = compile_kernel(division_kernels.divmod_s32, target=Target(clock_mhz=200))
    data = compiled.report.to_json()
    assert data["claimed_clock_mhz"] < 200
    assert any("slowest single operation" in line for line in data["timing"])


def test_a_multicycle_path_lowers_the_claim_to_what_it_reaches_in_one_period():
    # bipartite_matching on iCE40 at 100 MHz: the forwarding of vtx[u] is slower than a period
    # and has no registered lowering, so it is a multicycle path; nextpnr, without multicycle
    # constraints, times it whole, so the claim is the clock its whole path reaches.
    from benchmarks.kernels import load
    from hls.compiler import compile_kernel
    from hls.ir.ops import operator_of
    from hls.report import multicycle_path_ns

    kernel = load("bipartite_matching")[0]
    target = kernel.target.replace(clock_mhz=100, device="ice40")
    compiled = compile_kernel(kernel, target=target, retarget=False)
    paths = [multicycle_path_ns(scheduled, op.name, target.usable_period_ns)
             for scheduled in compiled.schedules.values() for op in scheduled.problem.slow_ops
             if operator_of(op.kind).pipelined is None and not operator_of(op.kind).has_unit]
    assert paths and max(paths) > target.usable_period_ns
    data = compiled.report.to_json()
    reach = 1000 / (max(paths) + target.delay_model.register_setup)
    assert data["claimed_clock_mhz"] == pytest.approx(reach, abs=0.1) and data["claimed_clock_mhz"] <= reach
    assert any("multicycle path" in line and f"claimed to reach {reach:.0f} MHz" in line for line in data["timing"])
    # Asked for 100 MHz with the search, the kernel is built for a clock its design reaches.
    searched = compile_kernel(kernel, target=target).report.to_json()
    assert searched["claimed_clock_mhz"] > data["claimed_clock_mhz"]


def test_a_multiplier_grows_smoothly_between_powers_of_two():
    # Synthesis' compressor tree deepens with every bit of the narrow operand, not in whole
    # levels at powers of two: each width from 8 to 16 is slower than the one before.
    delays = [operator_delay("mul", 2 * w, (w, w)) for w in range(8, 17)]
    assert all(a < b for a, b in zip(delays, delays[1:]))
    # At powers of two the calibrated chain counts hold (MEASURED: 8x8, 16x8, 16x16).
    assert operator_delay("mul", 16, (8, 8)) + REGISTER_SETUP == pytest.approx(8.14)
    assert operator_delay("mul", 32, (16, 16)) + REGISTER_SETUP == pytest.approx(12.10)


@pytest.mark.parametrize("shape", sorted({shape for shape, _ in MEASURED_DIGIT_PRODUCTS.values()}))
def test_a_digit_product_is_charged_no_less_than_its_placements(shape):
    # Each shape's median over the kernels and seeds where it was the critical path: the charge
    # (for its compressor stages) is never faster, and within 5 %.  The formula at the digit's own
    # rows said 8.58 ns for 14 x 7, under every one of its nine placements (8.99-9.38).
    import statistics

    from hls.ir.ops import _digit_product_delay
    placed = statistics.median(ns for measured, ns in MEASURED_DIGIT_PRODUCTS.values() if measured == shape)
    charged = _digit_product_delay(ECP5, *shape) + REGISTER_SETUP
    assert placed <= charged <= 1.05 * placed


def test_a_predicated_store_costs_its_forwarding_one_lut_level():
    from hls.ir.ops import OPERATORS

    class Shape:
        def __init__(self, width):
            self.width = width

    class Value:
        def __init__(self, width, predicate=None):
            self.shape, self.predicate = Shape(width), predicate

    class Forward:
        def __init__(self, predicate):
            self.operands = (Value(16), Value(5))
            self.shape = Shape(16)
            self.attrs = {"stores": [Value(16, predicate)]}

    plain = OPERATORS["forward"].op_delay(ECP5, Forward(None))
    gated = OPERATORS["forward"].op_delay(ECP5, Forward(object()))
    assert gated == pytest.approx(plain + ECP5.lut)


def _pipelined(name):
    from benchmarks.kernels import load
    from hls.compiler import compile_kernel
    from hls.ir import PipelinedLoop

    compiled = compile_kernel(load(name)[0])
    (loop,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    scheduled = compiled.schedule_of(loop.body)
    return scheduled.problem, scheduled.schedule


def _ops(problem, kind):
    return [name for name, op in problem.ops.items() if op.kind == kind]


def test_insertion_sort_compares_the_forwarded_value_a_cycle_later_at_the_same_ii():
    # MEASURED_PATHS["insertion_sort"]: memory data, the gated forwarding and the comparison
    # modelled in one cycle are longer than measured, so they are not chained; the II stays
    # at the MII (2: the read, forwarding, comparison and store over a distance of 2).
    problem, schedule = _pipelined("insertion_sort")
    (forward,) = _ops(problem, "forward")
    (gt,) = _ops(problem, "gt")
    chained = (ECP5.memory_clock_to_out + problem.problem.operator_type_of(forward).incoming_delay
               + problem.problem.operator_type_of(gt).incoming_delay + REGISTER_SETUP)
    assert chained >= MEASURED_PATHS["insertion_sort"][0]
    assert schedule.start[gt] > schedule.start[forward]
    assert schedule.ii == 2


def test_the_measured_multiply_paths_are_not_chained_in_one_cycle():
    # image.sobel: the 14 x 14 square alone is modelled no faster than it measured, so at
    # 100 MHz it is pipelined, not a one-cycle operator.
    assert operator_delay("mul", 28, (14, 14)) + REGISTER_SETUP >= MEASURED_PATHS["image.sobel"][0]
    # bipartite_matching: the product and its comparison with 1 fill the cycle, and the
    # store whose enable that comparison is goes to the next one.
    problem, schedule = _pipelined("bipartite_matching")
    (eq,) = _ops(problem, "eq")
    (mul,) = [operand.name for operand in problem.ops[eq].operands if operand.kind == "mul"]
    stores = _ops(problem, "store")
    assert schedule.start[eq] == schedule.start[mul]
    assert all(schedule.start[store] > schedule.start[eq] for store in stores)
    assert schedule.ii == 3


def _entries(compiled):
    """``{(producer kind, user kind): route_delay}`` of the data dependences of ``compiled``'s
    pipelined loop into carry-chain operators, through wiring."""
    from hls.analysis.block_problems import _producer
    from hls.ir import PipelinedLoop
    (loop,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    problem = compiled.schedule_of(loop.body).problem
    model = compiled.target.delay_model
    found = {}
    for dep in problem.problem.dependences:
        if dep.kind == "data" and dep.distance == 0 and dep.dst in problem.ops:
            src = _producer(problem.ops[dep.src], model)
            found.setdefault((src.kind, problem.ops[dep.dst].kind), set()).add(dep.route_delay)
    return found


def test_a_carry_chain_entered_from_another_pays_the_routing_unless_synthesis_merges_the_sums():
    from delay_kernels import carry_chains

    from hls.compiler import compile_kernel
    found = _entries(compile_kernel(carry_chains))
    # d = x - y has two users: the sum enters its chain from d's; abs enters from the sum's.
    assert found[("sub", "add")] == {ECP5.carry_entry} and ECP5.carry_entry > 0
    assert found[("add", "abs")] == {ECP5.carry_entry}
    # (x + y) + 3: x + y has one user, a sum, so the two are one multi-operand adder.
    assert found[("add", "add")] == {0.0}
    # Into an array's data or from a read: no carry chain entered from another.
    assert found[("load", "sub")] == {0.0}


def test_a_min_chained_on_a_sum_pays_the_select_entry_beyond_the_carry_entry():
    from delay_kernels import sum_then_min

    from hls.compiler import compile_kernel
    from hls.ir import PipelinedLoop
    found = _entries(compile_kernel(sum_then_min))
    assert found[("add", "lt")] == {ECP5.carry_entry}
    assert found[("add", "min")] == {ECP5.carry_entry + ECP5.select_entry} and ECP5.select_entry > 0
    # The chain from the reads through the sum into the min, with and without the select entry:
    # at a clock between the two the min takes the sum from a register; with room for both it
    # chains on it.
    reads = ECP5.memory_clock_to_out
    chained = (reads + operator_delay("add", 17, (16, 16)) + operator_delay("min", 16, (16, 16))
               + ECP5.carry_entry + REGISTER_SETUP)
    for ns, together in ((chained + ECP5.select_entry / 2, False), (chained + ECP5.select_entry + 0.2, True)):
        target = Target(device="ecp5", clock_mhz=1000 / ns)
        compiled = compile_kernel(sum_then_min, target=target, retarget=False)
        (loop,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
        scheduled = compiled.schedule_of(loop.body)
        (add,), (low,) = _ops(scheduled.problem, "add"), _ops(scheduled.problem, "min")
        assert (scheduled.schedule.start[low] == scheduled.schedule.start[add]) == together, ns


def test_carry_entry_select_entry_and_memory_read_are_the_fits_of_their_calibration_placements():
    from benchmarks.delay_calibration import chains, memories
    from benchmarks.delay_calibration.ecp5 import MEASURED_CHAINS, MEASURED_MEMORIES
    target = Target(device="ecp5")
    assert set(MEASURED_CHAINS) == set(chains.POINTS)
    assert chains.fit(target, MEASURED_CHAINS) == ECP5.carry_entry
    assert chains.fit_select(target, MEASURED_CHAINS) == ECP5.select_entry
    excess = chains.excesses(target, MEASURED_CHAINS)
    plain = {point: value for point, value in excess.items() if not chains.model_terms(target, *point)[2]}
    selects = {point: value for point, value in excess.items() if chains.model_terms(target, *point)[2]}
    # Each fit is a median: the typical entry, at or above half of its chains.
    for group, constant in ((plain, ECP5.carry_entry), (selects, ECP5.select_entry)):
        assert sum(value <= constant + 0.05 for value in group.values()) >= 0.5 * len(group)
    # Without a min/max entry, every chain is within 0.45 ns an entry of carry_entry; with one,
    # at most 1.6 ns above select_entry, and those more than 0.25 ns above it all have two variable
    # operands (MEASURED_CHAINS' note: against a constant, a min/max pays about nothing).
    assert max(plain.values()) <= ECP5.carry_entry + 0.45
    assert max(selects.values()) <= ECP5.select_entry + 1.6
    above = {steps for (_, steps), value in selects.items() if value > ECP5.select_entry + 0.25}
    assert above and not any(":" in step for steps in above for step in steps)
    assert memories.fit(MEASURED_MEMORIES, REGISTER_SETUP) == (ECP5.memory_read_base, ECP5.memory_read_per_level)
    for (depth, _width), ns in MEASURED_MEMORIES.items():
        assert REGISTER_SETUP + ECP5.memory_read(depth) >= ns
    assert ECP5.memory_read(4) < ECP5.memory_read(64) < ECP5.memory_read(256)


def test_a_local_arrays_word_comes_after_its_multiplexer_a_parameters_from_its_memory():
    from array_kernels import local_memory

    from hls.compiler import compile_kernel
    compiled = compile_kernel(local_memory)
    outgoing = {}
    for scheduled in compiled.schedules.values():
        for name, op in scheduled.problem.ops.items():
            if op.kind == "load":
                outgoing[op.attrs["array"]] = scheduled.problem.problem.operator_type_of(name).outgoing_delay
    assert outgoing == {"a": ECP5.memory_clock_to_out, "buf": ECP5.memory_read(32)}
