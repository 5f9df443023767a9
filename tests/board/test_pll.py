"""The PLL dividers of ``hls.board.pll``: the same choice as Project Trellis's ecppll and IceStorm's icepll."""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from hls.board.pll import output_range, pll_settings


def _tool(name: str) -> str:
    return str(Path(sys.executable).parent / name)


ECP5_REQUESTS = [(25, 50), (25, 33.3), (25, 100), (25, 120), (25, 12.5), (100, 75), (25, 397)]
ICE40_REQUESTS = [(12, 24), (12, 33.3), (12, 48), (12, 16), (12, 100), (12, 275)]


def test_ecp5_dividers_are_ecpplls(tmp_path):
    for f_in, f_out in ECP5_REQUESTS:
        printed = subprocess.run([_tool("yowasp-ecppll"), "-i", str(f_in), "-o", str(f_out), "-f", "pll.v"],
                                 cwd=tmp_path, capture_output=True, text=True, check=True).stdout
        clki, clkfb, clkop = map(int, re.findall(r"divisor: (\d+)", printed))
        got = pll_settings("ecp5", f_in, f_out)
        assert got.dividers == {"CLKI_DIV": clki, "CLKFB_DIV": clkfb, "CLKOP_DIV": clkop,
                                "CLKOP_CPHASE": clkop - 1}, (f_in, f_out)
        assert float(got.output_mhz) == pytest.approx(float(re.search(r"clkout0 frequency: ([\d.]+)", printed)[1]),
                                                      rel=1e-5)


def test_ice40_dividers_are_iceplls():
    for f_in, f_out in ICE40_REQUESTS:
        printed = subprocess.run([_tool("yowasp-icepll"), "-i", str(f_in), "-o", str(f_out)],
                                 capture_output=True, text=True, check=True).stdout
        expected = {name: int(value) for name, value in re.findall(r"(DIV[RFQ]|FILTER_RANGE):\s+(\d+)", printed)}
        got = pll_settings("ice40", f_in, f_out)
        assert got.dividers == expected, (f_in, f_out)
        achieved = float(re.search(r"F_PLLOUT:\s+([\d.]+) MHz \(achieved\)", printed)[1])
        assert float(got.output_mhz) == pytest.approx(achieved, abs=1e-3)   # icepll prints 3 decimals


@pytest.mark.parametrize("family", ["ecp5", "ice40"])
def test_settings_obey_the_datasheet_ranges_and_give_their_output(family):
    f_in = 25 if family == "ecp5" else 12
    low, high = output_range(family)
    for f_out in range(low, high + 1, 7):
        s = pll_settings(family, f_in, f_out)
        d = s.dividers
        if family == "ecp5":
            assert s.pfd_mhz == Fraction(f_in, d["CLKI_DIV"]) and 3.125 <= s.pfd_mhz <= 400
            assert s.output_mhz == s.pfd_mhz * d["CLKFB_DIV"]
            assert s.vco_mhz == s.output_mhz * d["CLKOP_DIV"] and 400 <= s.vco_mhz <= 800
        else:
            assert s.pfd_mhz == Fraction(f_in, d["DIVR"] + 1) and 10 <= s.pfd_mhz <= 133
            assert s.vco_mhz == s.pfd_mhz * (d["DIVF"] + 1) and 533 <= s.vco_mhz <= 1066
            assert s.output_mhz == s.vco_mhz / 2 ** d["DIVQ"] and 1 <= d["DIVQ"] <= 6
        # The grid of reachable clocks is fine but not dense: 24 MHz from 25 MHz on ECP5 is
        # 25 MHz (24/25 would need a PFD of 1 MHz, below 3.125), 4 % off.
        assert abs(s.output_mhz - f_out) <= Fraction(5, 100) * f_out


@pytest.mark.parametrize("family, clock, message", [
    ("ecp5", 401, r"clock 401 MHz is out of the ecp5 PLL's range \(allowed: 10 to 400 MHz\)"),
    ("ecp5", 9.5, r"clock 9\.5 MHz is out of the ecp5 PLL's range \(allowed: 10 to 400 MHz\)"),
    ("ice40", 300, r"clock 300 MHz is out of the ice40 PLL's range \(allowed: 16 to 275 MHz\)"),
    ("ice40", float("nan"), r"clock nan is not a number of MHz \(allowed: 16 to 275 MHz\)"),
])
def test_an_unreachable_clock_is_refused_naming_the_range(family, clock, message):
    with pytest.raises(ValueError, match=message):
        pll_settings(family, 25 if family == "ecp5" else 12, clock)


def test_an_input_the_pll_cannot_take_is_refused():
    with pytest.raises(ValueError, match=r"the ice40 PLL takes no input of 5 MHz"):
        pll_settings("ice40", 5, 24)
