"""The report's critical path (hls.report.critical_path): the model's longest path, the chain it
names, its budget and the delay expected after place and route."""

import pytest
from amaranth import unsigned

import hls
from hls.compiler import compile_kernel
from hls.ir import PipelinedLoop
from hls.report import critical_path


@hls.kernel
def chained(a: unsigned(8), b: unsigned(8), c: unsigned(8)) -> unsigned(9):
    s = a + b
    if s < c:
        s = c
    return s


def test_the_path_names_the_chain_in_order_and_ends_where_the_prediction_does():
    compiled = compile_kernel(chained, target=hls.Target(clock_mhz=50, device="ecp5"))
    path = critical_path(compiled)
    steps = path.through.split(" > ")
    kinds = [step.split(" (")[1].split(")")[0] for step in steps]
    # The sum, the comparison on it, then the select on the comparison (or the predicate's `not`
    # beside it, which ends at the same ns): each chained on the one before.
    chain = [kind for kind in kinds if kind != "wrap"]
    assert chain[:2] == ["add", "lt"] and chain[2] in ("select", "not") and len(chain) == 3
    ends = [float(step.rsplit(" ", 1)[1]) for step in steps]
    assert ends == sorted(ends)
    model = compiled.target.delay_model
    assert path.budget_ns == pytest.approx(model.register_setup + ends[-1], abs=0.01)
    assert path.expected_ns == pytest.approx(model.expected_ratio * path.budget_ns)
    assert path.expected_ns < path.budget_ns
    reported = compiled.report.to_json()["critical_path"]
    assert reported == {"budget_ns": round(path.budget_ns, 2), "expected_ns": round(path.expected_ns, 2),
                        "through": path.through}
    assert f"critical path: {path.budget_ns:.2f} ns in the delay model's budget" in compiled.report.to_text()


@hls.kernel
def counted(a: hls.Array[unsigned(8), 256], n: unsigned(8)) -> unsigned(16):
    total: unsigned(16) = 0
    for i in range(n):
        total += a[i]
    return total


def test_a_loop_control_slower_than_its_body_is_named():
    compiled = compile_kernel(counted, target=hls.Target(clock_mhz=100, device="ecp5"))
    path = critical_path(compiled)
    model = compiled.target.delay_model
    assert path.through == f"the control of the loop on line {compiled.ir.loops[0].line}"
    loop = next(node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop))
    control = model.loop_control(loop.counter_shape.width, compiled.ir.variables[loop.stop_var].width,
                                 compiled.schedule_of(loop.body).length)
    assert path.budget_ns == pytest.approx(model.register_setup + control)


def test_a_chain_through_a_carried_value_names_each_operation_once():
    # list_walk's `j = nxt[j]`: the carry and the live-in are ready where they start, and a
    # carried dependence leads from one back to the other within the cycle.
    from benchmarks.kernels import load
    kernel = load("list_walk")[0]
    path = critical_path(compile_kernel(kernel, target=kernel.target.replace(clock_mhz=100), retarget=False))
    steps = [step.rsplit(" ", 1)[0] for step in path.through.split(" > ")]
    assert len(steps) == len(set(steps)) and steps[-1] == "loop condition (exit)"
