"""hls.Target: validated once, one default, and one kernel compiled for several targets."""

import dataclasses
import inspect

import pytest

import hls
import semantics_kernels as kernels
from benchmarks.kernels import load
from hls.compiler import compile_kernel
from hls.target import DEFAULT_CLOCK_MHZ, Target


def test_defaults_and_value_semantics():
    target = Target()
    assert (target.clock_mhz, dict(target.resources), target.device) == (DEFAULT_CLOCK_MHZ, {}, "ecp5")
    assert target.usable_period_ns == pytest.approx(10.0 - target.delay_model.register_setup)
    assert Target(clock_mhz=100, resources={"mul": 1}) == Target(clock_mhz=100.0, resources={"mul": 1})
    assert len({Target(), Target(clock_mhz=100), Target(resources={"mul": 1})}) == 2
    assert Target(clock_mhz=150).replace(resources={"div": 2}) == Target(clock_mhz=150, resources={"div": 2})


def test_target_is_frozen_and_does_not_share_the_callers_dict():
    limits = {"mul": 2}
    target = Target(resources=limits)
    limits["mul"] = 1
    assert target.resources["mul"] == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.clock_mhz = 50
    with pytest.raises(TypeError):
        target.resources["mul"] = 1


@pytest.mark.parametrize("options, error, message", [
    ({"clock_mhz": 0}, ValueError, r"clock_mhz must be a positive number of MHz, not 0 \(allowed: 0 < clock_mhz < 500\)"),
    ({"clock_mhz": -5.5}, ValueError, r"not -5.5 \(allowed"),
    ({"clock_mhz": True}, TypeError, r"clock_mhz must be a number of MHz, not True"),
    ({"clock_mhz": "100"}, TypeError, r"clock_mhz must be a number of MHz, not '100'"),
    ({"clock_mhz": 800}, ValueError, r"clock_mhz=800 leaves no time for logic: .*allowed: 0 < clock_mhz < 500"),
    ({"clock_mhz": 500}, ValueError, r"clock_mhz=500 leaves no time for logic"),
    ({"resources": [("mul", 1)]}, TypeError, r"resources must be a dict such as \{'mul': 1\}"),
    ({"resources": {"mul": 0}}, ValueError, r"resource limit 'mul' must be a positive integer, not 0"),
    ({"resources": {"mul": 1.5}}, ValueError, r"resource limit 'mul' must be a positive integer, not 1.5"),
    ({"resources": {"mul": True}}, ValueError, r"not True"),
    ({"resources": {3: 1}}, TypeError, r"resource names are strings such as 'mul', not 3"),
    ({"resources": {"add": 1}}, ValueError,
     r"no operator named 'add' can be limited \(allowed: 'mul', 'div', 'floordiv', 'mod'\)"),
    ({"device": "xc7"}, ValueError, r"device must be one of 'ecp5', 'ice40' .* not 'xc7'"),
])
def test_bad_options_name_the_parameter_and_the_allowed_range(options, error, message):
    with pytest.raises(error, match=message):
        Target(**options)
    if "device" not in options:
        # The decorator's shorthand is checked the same way, when it runs.
        with pytest.raises(error, match=message):
            hls.kernel(**options)


def test_the_default_clock_is_written_once():
    assert inspect.signature(hls.kernel).parameters["clock_mhz"].default is None
    assert inspect.signature(hls.Kernel).parameters["clock_mhz"].default is None
    assert inspect.signature(compile_kernel).parameters["target"].default is None
    assert hls.kernel(lambda: None).target == Target()


def test_kernel_shorthand_and_long_form():
    shorthand = hls.kernel(clock_mhz=150, resources={"mul": 1})(kernels.one_multiplier.fn)
    long_form = hls.kernel(target=Target(clock_mhz=150, resources={"mul": 1}))(kernels.one_multiplier.fn)
    assert shorthand.target == long_form.target
    assert shorthand.clock_mhz == 150.0 and shorthand.resources == {"mul": 1}
    shorthand.resources["mul"] = 5          # a copy: the target stays as it was
    assert shorthand.target.resources == {"mul": 1}
    with pytest.raises(TypeError, match="either target= or clock_mhz=/resources=, not both"):
        hls.kernel(clock_mhz=150, target=Target())
    with pytest.raises(TypeError, match="target must be an hls.Target, not 100"):
        hls.kernel(target=100)
    with pytest.raises(TypeError, match="target must be an hls.Target, not"):
        compile_kernel(kernels.one_multiplier, target={"clock_mhz": 100})


def _pipelined(compiled):
    return next(loop for loop in compiled.report.to_json()["loops"] if loop["pipelined"])


def test_one_kernel_compiled_for_two_targets_gets_two_schedules():
    kernel = kernels.one_multiplier     # two multiplies per iteration, resources={"mul": 1}
    assert kernel.target == Target(resources={"mul": 1})
    shared = compile_kernel(kernel)
    free = compile_kernel(kernel, target=Target())
    again = compile_kernel(kernel)
    assert (_pipelined(shared)["ii"], _pipelined(free)["ii"], _pipelined(again)["ii"]) == (2, 1, 2)
    # Nothing of the second target leaks into the third compile, nor into the kernel.
    assert shared.target == again.target == kernel.target and free.target == Target()
    assert shared.report.to_json()["resources"]["limits"] == {"mul": 1}
    assert free.report.to_json()["resources"]["limits"] == {}
    assert _pipelined(shared) == _pipelined(again)
    assert kernel.report().to_json()["resources"]["limits"] == {"mul": 1}


def test_a_slower_clock_chains_more_into_a_cycle():
    kernel = load("fir")[0]
    depths = {}
    for clock in (50, 100, 250):
        compiled = compile_kernel(kernel, target=Target(clock_mhz=clock), retarget=False)
        report = compiled.report.to_json()
        assert report["clock_mhz"] == clock
        depths[clock] = _pipelined(compiled)["depth"]
    assert depths[50] < depths[100] < depths[250], depths
    assert kernel.report().to_json()["clock_mhz"] == 100.0


def test_typed_kernel_and_ir_do_not_carry_the_target():
    compiled = compile_kernel(kernels.one_multiplier, target=Target(clock_mhz=50))
    fields = {field.name for field in dataclasses.fields(compiled.ir)}
    assert not fields & {"clock_mhz", "resources", "target"}
    typed_fields = {field.name for field in dataclasses.fields(kernels.one_multiplier.analyze())}
    assert not typed_fields & {"clock_mhz", "resources", "target"}
