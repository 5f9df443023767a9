"""The board's clock: the oscillator through the device's PLL to the kernel's clock, and a clean reset.

:func:`pll_settings` chooses the dividers the way ``ecppll`` (Project Trellis)
and ``icepll`` (Project IceStorm) do, so the same request gives the same
settings as those tools (``tests/board/test_pll.py`` checks it against
``yowasp-ecppll``/``yowasp-icepll``), but in exact rational arithmetic:

* **ECP5 EHXPLLL**: ``f_pfd = f_in / CLKI_DIV`` in [3.125, 400] MHz,
  ``f_vco = f_pfd * CLKFB_DIV * CLKOP_DIV`` in [400, 800] MHz, output
  ``f_pfd * CLKFB_DIV`` in [10, 400] MHz; the nearest output wins, then the
  VCO nearest 600 MHz.
* **iCE40 SB_PLL40 (simple feedback)**: ``f_pfd = f_in / (DIVR + 1)`` in
  [10, 133] MHz, ``f_vco = f_pfd * (DIVF + 1)`` in [533, 1066] MHz, output
  ``f_vco / 2**DIVQ`` (DIVQ 1..6) in [16, 275] MHz; the first nearest output wins.

:class:`BoardClock` instantiates the PLL, drives the ``sync`` domain (defined by
its parent) from its output, and holds that domain in reset until the PLL has
locked (and the board's reset button, where it has one, is released) and
:data:`RESET_HOLD_US` more have passed: iCE40 block RAM cannot be read for the
first microseconds after configuration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from amaranth.hdl import ClockDomain, ClockSignal, Const, Elaboratable, Instance, Module, ResetSignal, Signal
from amaranth.lib import io
from amaranth.lib.cdc import FFSynchronizer

__all__ = ["PllSettings", "pll_settings", "output_range", "BoardClock", "RESET_HOLD_US"]

#: After the PLL locks, the kernel's domain stays in reset this long, in µs.
RESET_HOLD_US = 20


@dataclass(frozen=True)
class PllSettings:
    """The dividers of one PLL and the clock they give.

    Attributes
    ----------
    family : str
        ``"ecp5"`` or ``"ice40"``.
    input_mhz, output_mhz, pfd_mhz, vco_mhz : fractions.Fraction
        Exact frequencies; ``output_mhz`` is the clock the kernel gets.
    dividers : dict
        ECP5: ``CLKI_DIV``, ``CLKFB_DIV``, ``CLKOP_DIV``, ``CLKOP_CPHASE``;
        iCE40: ``DIVR``, ``DIVF``, ``DIVQ``, ``FILTER_RANGE``.
    """

    family: str
    input_mhz: Fraction
    output_mhz: Fraction
    pfd_mhz: Fraction
    vco_mhz: Fraction
    dividers: dict

    def to_json(self) -> dict:
        return {"primitive_family": self.family, "input_mhz": float(self.input_mhz),
                "output_mhz": float(self.output_mhz), "pfd_mhz": float(self.pfd_mhz),
                "vco_mhz": float(self.vco_mhz), "dividers": dict(self.dividers)}


#: (output min, output max) in MHz of each family's PLL.
_OUTPUT_RANGE = {"ecp5": (10, 400), "ice40": (16, 275)}


def output_range(family: str) -> tuple[int, int]:
    """The lowest and highest output clock of ``family``'s PLL, in MHz."""
    return _OUTPUT_RANGE[family]


def _ecp5(f_in: Fraction, f_out: Fraction) -> PllSettings | None:
    best = None
    for clki in range(1, 129):
        pfd = f_in / clki
        if not 3.125 <= pfd <= 400:
            continue
        for clkfb in range(1, 81):
            out = pfd * clkfb
            # The CLKOP_DIV whose VCO is nearest 600 MHz within [400, 800] (the smaller on a tie):
            # ecppll's search over every CLKOP_DIV, without the loop.
            low, high = max(1, math.ceil(400 / out)), min(128, math.floor(800 / out))
            if low > high:
                continue
            nearest = min(min(max(math.floor(600 / out), low), high), min(max(math.ceil(600 / out), low), high),
                          key=lambda clkop: (abs(out * clkop - 600), clkop))
            vco = out * nearest
            key = (abs(out - f_out), abs(vco - 600))
            if best is None or key < best[0]:
                best = (key, PllSettings("ecp5", f_in, out, pfd, vco,
                                         {"CLKI_DIV": clki, "CLKFB_DIV": clkfb, "CLKOP_DIV": nearest,
                                          "CLKOP_CPHASE": nearest - 1}))
    return best and best[1]


def _ice40_filter_range(pfd: Fraction) -> int:
    for bound, value in ((17, 1), (26, 2), (44, 3), (66, 4), (101, 5)):
        if pfd < bound:
            return value
    return 6


def _ice40(f_in: Fraction, f_out: Fraction) -> PllSettings | None:
    best = None
    for divr in range(16):
        pfd = f_in / (divr + 1)
        if not 10 <= pfd <= 133:
            continue
        for divf in range(128):
            vco = pfd * (divf + 1)
            if not 533 <= vco <= 1066:
                continue
            for divq in range(1, 7):
                out = vco / 2 ** divq
                if best is None or abs(out - f_out) < best[0]:
                    best = (abs(out - f_out), PllSettings(
                        "ice40", f_in, out, pfd, vco,
                        {"DIVR": divr, "DIVF": divf, "DIVQ": divq, "FILTER_RANGE": _ice40_filter_range(pfd)}))
    return best and best[1]


def pll_settings(family: str, input_mhz, output_mhz) -> PllSettings:
    """The PLL settings nearest to ``output_mhz`` from an oscillator of ``input_mhz``.

    Parameters
    ----------
    family : str
        ``"ecp5"`` or ``"ice40"``.
    input_mhz, output_mhz : int, float or Fraction
        Frequencies in MHz (floats are taken at their decimal value: 33.3 is 333/10).

    Raises
    ------
    ValueError
        One line: ``output_mhz`` outside the PLL's output range (named), or no
        divider that the input frequency allows.
    """
    if family not in _OUTPUT_RANGE:
        raise ValueError(f"no PLL for family {family!r}; families: {', '.join(_OUTPUT_RANGE)}")
    low, high = _OUTPUT_RANGE[family]
    if not isinstance(output_mhz, (int, float, Fraction)) or isinstance(output_mhz, bool) or \
            not math.isfinite(output_mhz):
        raise ValueError(f"clock {output_mhz!r} is not a number of MHz (allowed: {low} to {high} MHz)")
    f_out = Fraction(str(output_mhz))
    if not low <= f_out <= high:
        raise ValueError(f"clock {float(f_out):g} MHz is out of the {family} PLL's range "
                         f"(allowed: {low} to {high} MHz)")
    f_in = Fraction(str(input_mhz))
    settings = (_ecp5 if family == "ecp5" else _ice40)(f_in, f_out)
    if settings is None:
        raise ValueError(f"the {family} PLL takes no input of {float(f_in):g} MHz")
    return settings


class BoardClock(Elaboratable):
    """The board's oscillator through its PLL: the clock and reset of the ``sync`` domain.

    The domain itself is defined by the parent (:class:`hls.board.build.BoardTop`), so that
    every submodule of the design sees it; this drives its clock, and holds its reset
    until the PLL is locked.

    Parameters
    ----------
    settings : PllSettings
    primitive : str
        ``"EHXPLLL"``, ``"SB_PLL40_PAD"`` or ``"SB_PLL40_CORE"`` (see :class:`~hls.board.boards.Board`).
    oscillator : str
        The platform's resource of the oscillator (its ``default_clk``).

    Attributes
    ----------
    clock : Signal
        The PLL's output, the ``sync`` domain's clock (the net of the clock constraint).
    """

    def __init__(self, settings: PllSettings, primitive: str, oscillator: str):
        expected = {"ecp5": ("EHXPLLL",), "ice40": ("SB_PLL40_PAD", "SB_PLL40_CORE")}[settings.family]
        if primitive not in expected:
            raise ValueError(f"PLL primitive {primitive!r} is not one of the {settings.family}'s "
                             f"({', '.join(expected)})")
        self.settings = settings
        self.primitive = primitive
        self.oscillator = oscillator
        self.clock = Signal(name="pll_clk")

    def _buffered(self, m: Module, platform) -> Signal:
        m.submodules.oscillator = buffer = io.Buffer("i", platform.request(self.oscillator, 0, dir="-"))
        return buffer.i

    def _pll(self, m: Module, platform, lock: Signal) -> Instance:
        s, d = self.settings, self.settings.dividers
        if self.primitive == "EHXPLLL":
            reference = self._buffered(m, platform)
            # As ecppll writes it: the attributes give nextpnr the frequencies, the feedback is CLKOP.
            return Instance(
                "EHXPLLL",
                a_FREQUENCY_PIN_CLKI=f"{float(s.input_mhz):g}", a_FREQUENCY_PIN_CLKOP=f"{float(s.output_mhz):g}",
                a_ICP_CURRENT="12", a_LPF_RESISTOR="8", a_MFG_ENABLE_FILTEROPAMP="1", a_MFG_GMCREF_SEL="2",
                p_PLLRST_ENA="DISABLED", p_INTFB_WAKE="DISABLED", p_STDBY_ENABLE="DISABLED",
                p_DPHASE_SOURCE="DISABLED", p_OUTDIVIDER_MUXA="DIVA", p_OUTDIVIDER_MUXB="DIVB",
                p_OUTDIVIDER_MUXC="DIVC", p_OUTDIVIDER_MUXD="DIVD", p_CLKI_DIV=d["CLKI_DIV"],
                p_CLKOP_ENABLE="ENABLED", p_CLKOP_DIV=d["CLKOP_DIV"], p_CLKOP_CPHASE=d["CLKOP_CPHASE"],
                p_CLKOP_FPHASE=0, p_FEEDBK_PATH="CLKOP", p_CLKFB_DIV=d["CLKFB_DIV"],
                i_RST=Const(0), i_STDBY=Const(0), i_CLKI=reference, o_CLKOP=self.clock, i_CLKFB=self.clock,
                i_PHASESEL0=Const(0), i_PHASESEL1=Const(0), i_PHASEDIR=Const(1), i_PHASESTEP=Const(1),
                i_PHASELOADREG=Const(1), i_PLLWAKESYNC=Const(0), i_ENCLKOP=Const(0), o_LOCK=lock)
        common = dict(p_FEEDBACK_PATH="SIMPLE", p_DIVR=d["DIVR"], p_DIVF=d["DIVF"], p_DIVQ=d["DIVQ"],
                      p_FILTER_RANGE=d["FILTER_RANGE"], i_RESETB=Const(1), i_BYPASS=Const(0), o_LOCK=lock)
        if self.primitive == "SB_PLL40_PAD":
            # The oscillator's pin is the PLL's own pad: the PLL takes the raw pin, no input buffer.
            pin = platform.request(self.oscillator, 0, dir="-")
            return Instance("SB_PLL40_PAD", i_PACKAGEPIN=pin.io, o_PLLOUTGLOBAL=self.clock, **common)
        reference = self._buffered(m, platform)
        return Instance("SB_PLL40_CORE", i_REFERENCECLK=reference, o_PLLOUTGLOBAL=self.clock, **common)

    def elaborate(self, platform):
        m = Module()
        lock = Signal()
        m.submodules.pll = self._pll(m, platform, lock)
        platform.add_clock_constraint(self.clock, float(self.settings.output_mhz) * 1e6)

        # "hold" runs on the PLL's clock without a reset of its own: it counts RESET_HOLD_US
        # after the (synchronised) lock and releases the kernel's domain.
        m.domains.hold = ClockDomain("hold", reset_less=True)
        m.d.comb += [ClockSignal("hold").eq(self.clock), ClockSignal("sync").eq(self.clock)]
        locked = Signal()
        m.submodules.lock_sync = FFSynchronizer(lock, locked, o_domain="hold", init=0)
        if platform.default_rst is not None:
            # The board's reset button (the ECPIX-5's) restarts the hold as a lost lock does.
            pressed = Signal()
            button_port = platform.request(platform.default_rst, 0, dir="-")
            m.submodules.reset_button = button = io.Buffer("i", button_port)
            m.submodules.reset_sync = FFSynchronizer(button.i, pressed, o_domain="hold", init=1)
            locked_now, locked = locked, Signal()
            m.d.comb += locked.eq(locked_now & ~pressed)
        hold_cycles = int(RESET_HOLD_US * self.settings.output_mhz)
        count = Signal(range(hold_cycles + 1), init=0)
        released = Signal(init=0)
        with m.If(~locked):
            m.d.hold += [count.eq(0), released.eq(0)]
        with m.Elif(count == hold_cycles):
            m.d.hold += released.eq(1)
        with m.Else():
            m.d.hold += count.eq(count + 1)
        m.d.comb += ResetSignal("sync").eq(~released)
        return m
