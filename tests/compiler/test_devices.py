"""One delay model per device, reached through hls.Target: ECP5 and iCE40 against their measurements."""

import math

import pytest

import hls
from approx_units.devices import DEVICES, ECP5, ICE40
from benchmarks.delay_calibration import ecp5, ice40
from benchmarks.kernels import load
from hls.compiler import compile_kernel

MEASURED = [("ecp5", key, ns) for key, ns in ecp5.MEASURED.items()] + \
           [("ice40", key, ns) for key, ns in ice40.MEASURED.items()]


@pytest.mark.parametrize("device, key, measured", MEASURED, ids=lambda value: str(value))
def test_each_device_model_is_within_a_quarter_of_its_measurements(device, key, measured):
    kind, widths, width = key
    target = hls.Target(device=device)
    assert target.operator_delay(kind, width, widths) + target.delay_model.register_setup == \
        pytest.approx(measured, rel=0.25)


def test_the_target_reaches_each_device_model_by_its_name():
    assert set(DEVICES) == {"ecp5", "ice40"}
    assert hls.Target().delay_model is ECP5
    assert hls.Target(device="ice40").delay_model is ICE40
    assert all(model.device == name for name, model in DEVICES.items())


def test_an_unknown_device_is_an_error_that_lists_the_devices():
    with pytest.raises(ValueError, match=r"^device must be one of 'ecp5', 'ice40' \(the devices the delay model "
                                         r"is calibrated for\), not 'xc7'$"):
        hls.Target(device="xc7")


def test_the_same_operator_has_each_device_delay():
    # iCE40's carry chain is about four times as slow per bit as ECP5's (benchmarks/delay_calibration).
    ecp5_add, ice40_add = (hls.Target(device=device).operator_delay("add", 33, (32, 32)) for device in ("ecp5", "ice40"))
    assert ice40_add > 2 * ecp5_add


def test_a_kernel_gets_a_schedule_of_its_device():
    # prefix_sum's recurrence (two 32-bit adds) fits one 100 MHz cycle on ECP5, not on iCE40.
    kernel = load("prefix_sum")[0]
    (on_ecp5,), (on_ice40,) = (compile_kernel(kernel, target=hls.Target(device=device), retarget=False)
                               .report.to_json()["loops"] for device in ("ecp5", "ice40"))
    assert (on_ecp5["ii"], on_ice40["ii"]) == (1, 2)
    assert on_ice40["ii"] == on_ice40["mii"]


def test_a_claim_follows_the_device_loop_control():
    # The same loop's control reaches a different clock on each device, and the report claims it.
    kernel = load("vsum")[0]
    claims = {}
    for device in ("ecp5", "ice40"):
        target = hls.Target(clock_mhz=250, device=device)
        compiled = compile_kernel(kernel, target=target, retarget=False)
        claim = compiled.report.to_json()["claimed_clock_mhz"]
        model = target.delay_model
        (loop,) = [node for node in compiled.ir.nodes if hasattr(node, "counter_shape")]
        reach = model.loop_control_fmax(loop.counter_shape.width, compiled.ir.variables[loop.stop_var].width,
                                        max(1, compiled.schedule_of(loop.body).length))
        assert claim == pytest.approx(min(250, reach), abs=0.1)
        claims[device] = claim
    # iCE40's control (fitted on vsum placed whole: 91.0 MHz) is slower than ECP5's.
    assert claims["ice40"] < 100 < claims["ecp5"]


@pytest.mark.parametrize("device, name", [("ice40", name) for name in sorted(ice40.MEASURED_CONTROL)])
def test_ice40_loop_control_is_never_faster_than_measured_and_within_a_quarter(device, name):
    key, measured = ice40.MEASURED_CONTROL[name]
    model = hls.Target(device=device).delay_model
    estimate = model.loop_control(*key) + model.register_setup
    assert measured <= estimate == pytest.approx(measured, rel=0.25)


def test_the_stream_stall_is_the_slowest_measured_stall_path():
    # benchmarks/delay_calibration/ecp5.py: each path is register_setup, the predicate's ready
    # offset and the stall's logic; the model covers the slowest, rounded up to 0.1 ns.
    tails = [ns - ECP5.register_setup - offset for offset, ns in ecp5.MEASURED_STALL.values()]
    assert ECP5.stream_stall == pytest.approx(math.ceil(max(tails) * 10) / 10)
    assert ECP5.stream_stall < ICE40.stream_stall


def test_each_device_expects_the_median_of_its_placed_kernels_over_their_budgets():
    # benchmarks/delay_calibration/kernels.py: whole benchmark kernels placed and routed; the
    # model's sums are budgets above what placement gives, by the median ratio.
    from benchmarks.delay_calibration.kernels import errors, fit
    for module, model in ((ecp5, ECP5), (ice40, ICE40)):
        assert model.expected_ratio == fit(module.MEASURED_KERNELS) < 1
        assert model.expected_path(10.0) == pytest.approx(10 * model.expected_ratio)
        # The median: as many points expected slow as fast.
        signs = [error > 0 for error in errors(module.MEASURED_KERNELS, model.expected_ratio)]
        assert abs(sum(signs) - len(signs) / 2) <= 0.1 * len(signs)
