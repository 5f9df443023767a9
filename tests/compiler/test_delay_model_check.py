"""benchmarks/delay_model_check.py's model side: the predicted critical path and the chain it names."""

import pytest
from amaranth import unsigned

import hls
from benchmarks.delay_model_check import model_critical_path, predicted_critical_path
from hls.compiler import compile_kernel
from hls.ir import PipelinedLoop


@hls.kernel
def chained(a: unsigned(8), b: unsigned(8), c: unsigned(8)) -> unsigned(9):
    s = a + b
    if s < c:
        s = c
    return s


def test_the_path_names_the_chain_in_order_and_ends_where_the_prediction_does():
    compiled = compile_kernel(chained, target=hls.Target(clock_mhz=50, device="ecp5"))
    ns, path = model_critical_path(compiled)
    steps = path.split(" > ")
    kinds = [step.split(" (")[1].split(")")[0] for step in steps]
    # The sum, the comparison on it, then the select on the comparison (or the predicate's `not`
    # beside it, which ends at the same ns): each chained on the one before.
    chain = [kind for kind in kinds if kind != "wrap"]
    assert chain[:2] == ["add", "lt"] and chain[2] in ("select", "not") and len(chain) == 3
    ends = [float(step.rsplit(" ", 1)[1]) for step in steps]
    assert ends == sorted(ends)
    model = compiled.target.delay_model
    assert ns == predicted_critical_path(compiled) == pytest.approx(model.register_setup + ends[-1], abs=0.01)


@hls.kernel
def counted(a: hls.Array[unsigned(8), 256], n: unsigned(8)) -> unsigned(16):
    total: unsigned(16) = 0
    for i in range(n):
        total += a[i]
    return total


def test_a_loop_control_slower_than_its_body_is_named():
    compiled = compile_kernel(counted, target=hls.Target(clock_mhz=100, device="ecp5"))
    ns, path = model_critical_path(compiled)
    model = compiled.target.delay_model
    assert path == f"the control of the loop on line {compiled.ir.loops[0].line}"
    loop = next(node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop))
    control = model.loop_control(loop.counter_shape.width, compiled.ir.variables[loop.stop_var].width,
                                 compiled.schedule_of(loop.body).length)
    assert ns == pytest.approx(model.register_setup + control)
