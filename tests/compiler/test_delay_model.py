"""The delay model against its nextpnr-ecp5 measurements, and its basic shape."""

import pytest

from hls.delay_model import (MEASURED, MEASURED_CONTROL, REGISTER_SETUP, loop_control, loop_control_fmax,
                              operator_delay)


@pytest.mark.parametrize("key", sorted(MEASURED, key=str))
def test_model_within_a_quarter_of_measurement(key):
    kind, widths, width = key
    estimate = operator_delay(kind, width, widths) + REGISTER_SETUP
    assert estimate == pytest.approx(MEASURED[key], rel=0.25)


def test_delays_grow_with_width():
    for kind in ("add", "lt", "mul", "eq", "floordiv"):
        delays = [operator_delay(kind, 2 * w, (w, w)) for w in (4, 8, 16, 32)]
        assert delays == sorted(delays) and delays[0] < delays[-1]


def test_constant_shift_is_a_wire_and_unknown_kind_is_an_error():
    assert operator_delay("shl", 12, (8, 0)) == 0.0
    with pytest.raises(ValueError, match="'pow'"):
        operator_delay("pow", 8)


@pytest.mark.parametrize("key", sorted(MEASURED_CONTROL))
def test_loop_control_is_never_faster_than_measured_and_within_a_quarter(key):
    # The report's claimed clock must be reached: the model errs on the slow side.
    estimate = loop_control(*key) + REGISTER_SETUP
    assert estimate >= MEASURED_CONTROL[key]
    assert estimate == pytest.approx(MEASURED_CONTROL[key], rel=0.25)
    assert loop_control_fmax(*key) == pytest.approx(1000 / estimate)


def test_loop_control_grows_with_the_counter_and_the_pipeline():
    assert loop_control(4, 4, 2) < loop_control(32, 32, 2)
    assert loop_control(4, 4, 2) < loop_control(4, 4, 80)
    # A while loop has no counter: only the valid chain's OR before the control logic.
    assert loop_control(0, 0, 2) < loop_control(8, 8, 2)


def test_the_report_claims_the_clock_the_loop_control_reaches():
    from benchmarks.kernels import load
    from hls.compiler import compile_kernel

    kernel = load("vsum")[0]
    assert compile_kernel(kernel).report.to_json()["claimed_clock_mhz"] == 100
    report = compile_kernel(kernel, target=kernel.target.replace(clock_mhz=200)).report
    data = report.to_json()
    assert data["clock_mhz"] == 200 and data["claimed_clock_mhz"] < 130
    assert f"claimed to reach {data['claimed_clock_mhz']:.0f} MHz, not 200" in report.to_text()


def test_a_unit_whose_slowest_operation_exceeds_the_period_lowers_the_claim():
    # A 32-bit divider at 200 MHz: one subtraction row alone is longer than 3 ns; the kernel
    # compiles, and the report claims the clock that row reaches instead of 200 MHz.
    import division_kernels
    from hls.compiler import compile_kernel
    from hls.target import Target

    compiled = compile_kernel(division_kernels.divmod_s32, target=Target(clock_mhz=200))
    data = compiled.report.to_json()
    assert data["claimed_clock_mhz"] < 200
    assert any("slowest single operation" in line for line in data["timing"])
