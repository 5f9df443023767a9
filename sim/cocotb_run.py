"""The one way sim builds a design and runs a cocotb testbench on it, for kernels and units alike.

:func:`run_testbench` takes Verilog text, a top module and a cocotb test
module, and:

1. builds the Verilog with Icarus Verilog or Verilator through
   :func:`cached_build`;
2. runs the test module on it with :mod:`cocotb_tools.runner` in a work
   directory, with ``$AXHLS_WORK_DIR`` pointing at it. Testbenches exchange
   data with the caller through files there (by convention ``spec.json`` in,
   ``result.json`` out, written by :mod:`sim.cocotb_tests`);
3. raises :class:`~sim.errors.CocotbRunError`, with the last error line of
   the simulator's log, when the build or the run fails.

Kernels (:mod:`sim.cocotb_kernel`) and approximate units (:mod:`sim.unit_simulation`)
both go through it.

Builds are cached under :func:`cache_root` by a hash of the Verilog, the
simulator and its version, so that a design simulated on many inputs is
compiled once. A file lock makes concurrent runs (pytest-xdist) safe. Each use
marks a build as recently used; after a new build, builds beyond the
:data:`KEEP_BUILDS` most recent that have not been used for
:data:`PRUNE_AFTER_DAYS` days are removed, so the cache does not grow without
bound (a Verilator build takes several megabytes). A build counts only once
its ``built.ok`` stamp exists (written last, atomically, through
:mod:`artefacts` like the sources), so an interrupted build is redone.

For Icarus, every build includes a small module that dumps a VCD when the run
is given ``+axhls_vcd=PATH``, so that a waveform never needs its own build.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Iterator

import artefacts

from .errors import CocotbRunError, SimulationError
from .tools import Tool, find_simulator, tool_environment

# cocotb_tools (the runner) is imported inside the functions that run a simulator:
# it is an optional dependency, and a heavy one, that most users of sim never need.

__all__ = ["SIMULATORS", "VERILATOR_BUILD_ARGS", "KEEP_BUILDS", "PRUNE_AFTER_DAYS", "cache_root",
           "cached_build", "prune_cache", "run_testbench", "work_directory", "log_tail", "WAVEFORM", "LOG"]

#: Back ends, as ``cocotb_tools.runner.get_runner`` names them.
SIMULATORS = ("icarus", "verilator")

#: Warnings that would otherwise stop Verilator from building Amaranth's output.
#: Lint (``sim.lint``) reports them; a simulation only needs to build.
VERILATOR_BUILD_ARGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-UNOPTFLAT")

#: Builds always kept, most recently used first.
KEEP_BUILDS = 64
#: Older builds are removed once unused for this long; long enough that no
#: run still in progress elsewhere can be using one.
PRUNE_AFTER_DAYS = 7

#: File names in the work directory: the waveform (when asked for) and the simulator's log.
WAVEFORM = "dump.vcd"
LOG = "sim.log"

_ICARUS_VCD_MODULE = '''\
// Dumps a VCD of the whole design when the simulation is run with +axhls_vcd=PATH.
module axhls_vcd_dump();
initial begin
    reg [8*4096-1:0] path;
    if ($value$plusargs("axhls_vcd=%s", path)) begin
        $dumpfile(path);
        $dumpvars(0, {toplevel});
    end
end
endmodule
'''


def cache_root() -> Path:
    """Where builds are cached: ``$AXHLS_SIM_CACHE``, else ``~/.cache/axhls/cocotb``."""
    configured = os.environ.get("AXHLS_SIM_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "axhls" / "cocotb"


def _runner(simulator: str):
    from cocotb_tools.runner import Icarus, get_runner     # optional (the `cocotb` extra) and heavy

    if simulator != "icarus":
        return get_runner(simulator)

    class IcarusVcd(Icarus):
        # The stock runner passes `-none` (no dump at all) unless it was asked for
        # FST waves; our dump module writes VCD, which needs vvp's `-vcd` instead.
        def _test_command(self):
            commands = super()._test_command()
            if any(arg.startswith("+axhls_vcd=") for arg in self.plusargs):
                commands = [["-vcd" if arg == "-none" else arg for arg in command]
                            for command in commands]
            return commands

    return IcarusVcd()


def _check_cache_root() -> None:
    """One line naming the cache, not a traceback, when builds cannot be cached where configured.

    Raises
    ------
    artefacts.DestinationError
        The cache folder (or a parent of it) is a file, or cannot be written.
    """
    root = cache_root()
    try:
        artefacts.check_directory_destination(root)
    except artefacts.DestinationError as error:
        raise artefacts.DestinationError(root, f"{str(error).removeprefix(f'{root}: ')} (the simulation build "
                                               f"cache, $AXHLS_SIM_CACHE or ~/.cache/axhls/cocotb)") from None


@contextlib.contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def prune_cache(root: Path | None = None, *, keep: int = KEEP_BUILDS,
                older_than_days: float = PRUNE_AFTER_DAYS) -> list[Path]:
    """Remove cached builds beyond the ``keep`` most recently used that are unused for a while.

    Returns the removed build directories.
    """
    root = cache_root() if root is None else Path(root)
    stamps = sorted(root.glob("*/built.ok"), key=lambda p: p.stat().st_mtime, reverse=True)
    cutoff = time.time() - older_than_days * 86400
    removed = []
    for stamp in stamps[keep:]:
        if stamp.stat().st_mtime >= cutoff:
            continue
        build_dir = stamp.parent
        shutil.rmtree(build_dir, ignore_errors=True)
        Path(f"{build_dir}.lock").unlink(missing_ok=True)
        removed.append(build_dir)
    return removed


def cached_build(verilog: str, toplevel: str, tool: Tool, waves: bool = False) -> Path:
    """Build once per (Verilog, simulator, version, waves); return the build directory.

    Parameters
    ----------
    verilog : str
        The whole design.
    toplevel : str
        Its top module.
    tool : sim.tools.Tool
        From :func:`sim.tools.find_simulator`.
    waves : bool
        Build for a waveform (matters for Verilator only, which traces at build time).

    Raises
    ------
    CocotbRunError
        If the simulator cannot build the design (the message names the log).
    """
    key = hashlib.sha256("\0".join([verilog, toplevel, tool.name, repr(tool.version),
                                    str(waves and tool.name == "verilator"), "v2"])
                         .encode()).hexdigest()[:20]
    build_dir = cache_root() / f"{tool.name}-{toplevel}-{key}"
    stamp = build_dir / "built.ok"
    if stamp.exists():
        stamp.touch()       # recently used: kept by prune_cache
        return build_dir
    _check_cache_root()
    with _locked(cache_root() / f"{build_dir.name}.lock"):
        if stamp.exists():
            return build_dir
        if build_dir.exists():
            shutil.rmtree(build_dir)  # a build that was interrupted
        build_dir.mkdir(parents=True)
        source = build_dir / f"{toplevel}.v"
        artefacts.write_text(source, _kick_combinational_blocks(verilog) if tool.name == "icarus" else verilog,
                             check=False)
        sources = [source]
        build_args: list[str] = []
        if tool.name == "icarus":
            dump = build_dir / "axhls_vcd_dump.v"
            artefacts.write_text(dump, _ICARUS_VCD_MODULE.format(toplevel=toplevel), check=False)
            sources.append(dump)
            build_args = ["-s", "axhls_vcd_dump"]
        else:
            build_args = list(VERILATOR_BUILD_ARGS)
        log = build_dir / "build.log"
        try:
            with tool_environment(tool):
                _runner(tool.name).build(
                    sources=sources, hdl_toplevel=toplevel, build_dir=build_dir,
                    build_args=build_args, timescale=("1ns", "1ps"),
                    waves=waves and tool.name == "verilator", log_file=log, always=True)
        except (SystemExit, RuntimeError, OSError) as error:
            raise CocotbRunError(f"{tool.name} could not build {toplevel}: {error} "
                                 f"(log: {log})", log) from None
        artefacts.write_text(stamp, "ok\n", check=False)
    prune_cache()
    return build_dir


# Yosys's Verilog makes every `always @*` block read a dummy register
# initialised to 0, so that simulators evaluate the block at time 0. Icarus 11
# runs that initialiser before the blocks wait on it, so blocks whose real
# inputs never change (an FSM output while the FSM idles) stay X until the
# first state change. Raising the dummy at 1 ns wakes every block; the dummy
# has no other reader.
_YOSYS_INIT_TRIGGER = re.compile(r"(reg (\\\$auto\$verilog_backend\.cc:\d+:dump_module\$\d+) += 0;)")


def _kick_combinational_blocks(verilog: str) -> str:
    return _YOSYS_INIT_TRIGGER.sub(lambda match: f"{match.group(1)}\n  initial #1 {match.group(2)} = 1'h1;",
                                   verilog)


def run_testbench(verilog: str, toplevel: str, *, test_module: str, testcase: str | None = None,
                  work_dir: str | os.PathLike, simulator: str = "icarus",
                  env: dict[str, str] | None = None, waveform: bool = False,
                  test_dir: str | os.PathLike | None = None) -> Path:
    """Build ``verilog`` (cached) and run the cocotb tests of ``test_module`` on it.

    Parameters
    ----------
    verilog : str
        The whole design, containing module ``toplevel``.
    toplevel : str
    test_module : str
        The cocotb test module, importable in the simulator (for example
        ``"sim.cocotb_tests"``, found through this process's ``sys.path``,
        which cocotb's runner passes on).
    testcase : str, optional
        Run only this test of the module.
    work_dir : path
        Existing directory where the testbench runs: ``$AXHLS_WORK_DIR`` points
        there, and the log (:data:`LOG`) and waveform (:data:`WAVEFORM`) are left there.
    simulator : str
        ``"icarus"`` or ``"verilator"``.
    env : dict of str to str, optional
        Further environment for the testbench.
    waveform : bool
        Dump a VCD of the run to ``work_dir / WAVEFORM``.
    test_dir : path, optional
        Directory cocotb runs in; ``work_dir`` by default (a test module given
        as a plain file name is found there).

    Returns
    -------
    Path
        The simulator's log.

    Raises
    ------
    ValueError
        For an unknown simulator.
    sim.errors.ToolUnavailable
        The simulator is missing or too old (one-line message).
    CocotbRunError
        The design did not build or the simulation crashed.
    """
    if simulator not in SIMULATORS:
        raise ValueError(f"simulator must be one of {', '.join(SIMULATORS)}, not {simulator!r}")
    tool = find_simulator(simulator)
    build_dir = cached_build(verilog, toplevel, tool, waves=waveform)
    work = Path(work_dir).resolve()
    log = work / LOG
    plusargs, waves = [], False
    if waveform:
        if simulator == "icarus":
            plusargs = [f"+axhls_vcd={work / WAVEFORM}"]
        else:
            waves = True        # Verilator's runner writes dump.vcd in the directory it runs in
    with tool_environment(tool):
        try:
            _runner(simulator).test(
                test_module=test_module, testcase=testcase, hdl_toplevel=toplevel,
                hdl_toplevel_lang="verilog", build_dir=build_dir,
                test_dir=Path(test_dir).resolve() if test_dir is not None else work,
                results_xml=str(work / "results.xml"), plusargs=plusargs, waves=waves,
                log_file=log,
                extra_env={"COCOTB_LOG_LEVEL": "WARNING", **(env or {}), "AXHLS_WORK_DIR": str(work)})
        except (SystemExit, RuntimeError, OSError) as error:
            raise CocotbRunError(f"{simulator} simulation of {toplevel} failed: {error}"
                                 f"{log_tail(log)}", log) from None
    return log


def log_tail(log: Path) -> str:
    """`` (last error line of the log; log: PATH)``, to end a one-line message; ``""`` without a log."""
    if not log.exists():
        return ""
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return f" ({(errors or lines or [''])[-1].strip()}; log: {log})"


@contextlib.contextmanager
def work_directory(keep: str | os.PathLike | None, prefix: str) -> Iterator[Path]:
    """The directory a testbench runs in.

    ``keep`` is created if needed and left behind. Otherwise a fresh temporary
    directory is used: removed when the block succeeds or is interrupted, kept
    when it fails with an error that names its log (:class:`CocotbRunError`,
    :class:`~sim.errors.SimulationError`), so that the log can be read.
    """
    if keep is not None:
        path = Path(keep).resolve()
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    except (CocotbRunError, SimulationError):
        raise
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise
    shutil.rmtree(path, ignore_errors=True)
