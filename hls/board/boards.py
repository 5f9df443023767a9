"""The boards ``axhls build`` makes bitstreams for: their platform, oscillator, serial bridge and default clock.

Each :class:`Board` names an ``amaranth-boards`` platform class (imported only
when a bitstream is built, so that listing the boards needs nothing of the
``board`` extra), the device's family (``"ecp5"`` or ``"ice40"``: the PLL and
the delay model the kernel is scheduled with), the oscillator that feeds the
PLL, the USB-serial bridge that carries the host link, and a default clock that
the benchmark kernels meet in nextpnr (``benchmarks/boards.py``).

The serial pins are the platform's ``uart`` resource 0 and the oscillator its
``default_clk``; a board without a ``uart`` resource (the OrangeCrab talks USB
only) has no host link and is not here, nor is the iCEstick: its iCE40HX1K has 1280
logic cells, fewer than the host link and the smallest kernel take (vsum: 1356 on the
iCEBreaker's UP5K).  docs/board.md says how to add a board.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["Board", "BOARDS", "board_named"]


@dataclass(frozen=True)
class Board:
    """One board ``axhls build --board NAME`` knows.

    Parameters
    ----------
    name : str
        The name on the command line, e.g. ``"ulx3s-85f"``.
    platform : str
        ``"module:Class"`` of the ``amaranth-boards`` platform, e.g.
        ``"amaranth_boards.ulx3s:ULX3S_85F_Platform"``.
    family : str
        ``"ecp5"`` or ``"ice40"``.
    device : str
        The FPGA, as the platform names it (for the listing and the manifest).
    oscillator_mhz : float
        The frequency of the platform's ``default_clk``, the PLL's input.
    default_clock_mhz : float
        The kernel's clock when ``--clock-mhz`` is not given.
    serial_bridge : str
        The USB-serial chip wired to the FPGA's ``uart`` pins.
    max_baud : int
        The fastest rate that bridge carries.
    pll_primitive : str
        The PLL cell: ``"EHXPLLL"`` (ECP5); ``"SB_PLL40_PAD"`` where the
        oscillator arrives on the iCE40's PLL pad, ``"SB_PLL40_CORE"`` where it
        comes through the fabric.
    synth_opts : tuple of str
        Extra options of Yosys's ``synth_ecp5``/``synth_ice40`` (``-dsp`` on the
        UP5K, whose multipliers ``synth_ice40`` leaves unused without it).
    """

    name: str
    platform: str
    family: str
    device: str
    oscillator_mhz: float
    default_clock_mhz: float
    serial_bridge: str
    max_baud: int
    pll_primitive: str
    synth_opts: tuple = ()

    def platform_class(self):
        """The ``amaranth-boards`` platform class (imports ``amaranth_boards``)."""
        module, _, name = self.platform.partition(":")
        return getattr(importlib.import_module(module), name)

    def to_json(self) -> dict:
        return {"name": self.name, "family": self.family, "device": self.device,
                "oscillator_mhz": self.oscillator_mhz, "default_clock_mhz": self.default_clock_mhz,
                "serial_bridge": self.serial_bridge, "max_baud": self.max_baud}


def _ulx3s(size: str) -> Board:
    # The ULX3S's FTDI FT231X: up to 3 Mbaud.  Its UART pins are M1 (rx) and L4 (tx).
    return Board(name=f"ulx3s-{size.lower()}", platform=f"amaranth_boards.ulx3s:ULX3S_{size}_Platform",
                 family="ecp5", device=f"LFE5U-{size}", oscillator_mhz=25.0, default_clock_mhz=50.0,
                 serial_bridge="FT231X", max_baud=3_000_000, pll_primitive="EHXPLLL")


#: Every board, by name, in the order ``axhls build --list-boards`` prints them.
BOARDS: dict[str, Board] = {board.name: board for board in [
    _ulx3s("85F"), _ulx3s("45F"), _ulx3s("25F"), _ulx3s("12F"),
    # ECPIX-5: 100 MHz oscillator; FT2232H channel B on R26 (rx), R24 (tx).
    Board(name="ecpix5-85f", platform="amaranth_boards.ecpix5:ECPIX585Platform", family="ecp5",
          device="LFE5UM5G-85F", oscillator_mhz=100.0, default_clock_mhz=50.0, serial_bridge="FT2232H",
          max_baud=12_000_000, pll_primitive="EHXPLLL"),
    # iCEBreaker: 12 MHz oscillator on pin 35, the UP5K's PLL pad; FT2232H channel B on pins 6 (rx), 9 (tx).
    Board(name="icebreaker", platform="amaranth_boards.icebreaker:ICEBreakerPlatform", family="ice40",
          device="iCE40UP5K", oscillator_mhz=12.0, default_clock_mhz=24.0, serial_bridge="FT2232H",
          max_baud=12_000_000, pll_primitive="SB_PLL40_PAD", synth_opts=("-dsp",)),
]}


def board_named(name: str) -> Board:
    """The board called ``name``.

    Raises
    ------
    ValueError
        One line naming ``name`` and every board there is.
    """
    try:
        return BOARDS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown board {name!r}; boards: {', '.join(BOARDS)}") from None
