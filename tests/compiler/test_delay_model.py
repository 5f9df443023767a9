"""The delay model against its nextpnr-ecp5 measurements, and its basic shape."""

import pytest

from hls.delay_model import MEASURED, REGISTER_SETUP, operator_delay


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
