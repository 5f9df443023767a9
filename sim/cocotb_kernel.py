"""Kernels on their generated Verilog, under cocotb 2.1 with Icarus Verilog or Verilator.

``sim.run(kernel, args, backend="icarus" | "verilator")`` runs a kernel's
generated Verilog through this module: it generates a cocotb testbench from
the component's signature, runs it through :mod:`cocotb_tools.runner`, and
returns the raw outputs for ``sim.kernel`` to compare with the Python run.

What the generated testbench does, cycle by cycle (clock period 10 ns):

* holds ``rst`` for one rising edge, then drives every scalar argument and
  raises ``ctrl__start`` for exactly one rising edge;
* behind every array ``NAME`` it keeps a Python list as the memory. The
  requests (``NAME_read__en/addr``, ``NAME_write__en/addr/data``) are sampled
  1 ns after each falling edge, when the design has settled; at the next
  falling edge, that is half a cycle after the rising edge that the requests
  were meant for, the write is committed and ``NAME_read__data`` takes the
  value read. The data is therefore in place for the rising edge after the
  one that saw the address: one cycle of synchronous read latency, like
  :class:`amaranth.lib.memory.Memory` and block RAM. A read and a write of the
  same address in the same cycle read the old value (Amaranth's default,
  non-transparent read port);
* counts rising edges from the one that sees ``start`` (cycle 1) to the first
  one after which ``ctrl__done`` is high, which is how ``sim.kernel.run``
  counts in Amaranth's simulator;
* then reads the results (``ret``, or ``ret_0``, ``ret_1``, ...) and the
  memories, and writes them as JSON for this process to read back.

The testbench is generated as a small Python module, ``tb_<kernel>.py``, next
to a ``spec.json`` that names the ports; the coroutine it calls,
:func:`drive_kernel`, lives here so that every kernel shares one memory model.

Builds are cached under :func:`cache_root` by a hash of the Verilog, the
simulator and its version, so that a kernel simulated on many inputs is
compiled once. A file lock makes concurrent runs (pytest-xdist) safe. Each
use marks a build as recently used; after a new build, builds beyond the
:data:`KEEP_BUILDS` most recent that have not been used for
:data:`PRUNE_AFTER_DAYS` days are removed, so the cache does not grow
without bound (a Verilator build takes several megabytes).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .kernel import SimulationTimeout
from .tools import Tool, ToolUnavailable, find_simulator, tool_environment

if TYPE_CHECKING:
    from amaranth.lib import wiring

# Amaranth is imported only where a spec is built: the generated testbench imports
# this module inside the simulator, and every run would pay for it.

__all__ = [
    "SIMULATORS", "CocotbRunError", "CocotbTimeout", "PortSpec", "ArraySpec", "TestbenchSpec",
    "RawRun", "spec_from_component", "spec_from_signature", "simulate_verilog",
    "cache_root", "cached_build", "prune_cache", "drive_kernel", "ToolUnavailable",
]

#: Back ends this module drives, as ``cocotb_tools.runner.get_runner`` names them.
SIMULATORS = ("icarus", "verilator")

#: Warnings that would otherwise stop Verilator from building Amaranth's output.
#: Lint (``sim.lint``) reports them; a simulation only needs to build.
VERILATOR_BUILD_ARGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-UNOPTFLAT")

#: Give up on a kernel that has not raised ``done`` after this many cycles.
DEFAULT_MAX_CYCLES = 1_000_000

_CLOCK_PERIOD_NS = 10


class CocotbRunError(RuntimeError):
    """The simulator could not build or run the design, or the testbench gave up.

    The message is one line; ``log`` holds the path of the full simulator log when there is one.
    """

    def __init__(self, message: str, log: Path | None = None):
        super().__init__(message)
        self.log = log


class CocotbTimeout(CocotbRunError, SimulationTimeout):
    """``done`` did not come within the cycle budget (also a ``sim.kernel.SimulationTimeout``)."""


@dataclass(frozen=True)
class PortSpec:
    """One Verilog port of the kernel's top-level module.

    Attributes
    ----------
    port : str
        The Verilog name, e.g. ``"a_read__addr"``.
    width : int
    signed : bool
    """

    port: str
    width: int
    signed: bool = False


@dataclass(frozen=True)
class ArraySpec:
    """An array argument: the memory model behind one read and one write port group.

    Attributes
    ----------
    name : str
        The kernel's parameter name.
    depth : int
        Number of elements.
    element : PortSpec
        Width and signedness of an element (``port`` is the read data port).
    read_addr, read_en : str | None
        Verilog names of the read group, None if the kernel never reads the array.
    write_addr, write_data, write_en : str | None
        Verilog names of the write group, None if the kernel never writes it.
    """

    name: str
    depth: int
    element: PortSpec
    read_addr: str | None = None
    read_en: str | None = None
    write_addr: str | None = None
    write_data: str | None = None
    write_en: str | None = None


@dataclass(frozen=True)
class TestbenchSpec:
    """Everything the generated testbench needs to know about a kernel's ports.

    Attributes
    ----------
    toplevel : str
        Verilog module name.
    start, busy, done : str
        Handshake ports.
    scalars : dict[str, PortSpec]
        Parameter name -> input port.
    returns : list[PortSpec]
        ``ret`` or ``ret_0``, ``ret_1``, ... in order; empty for a kernel without a result.
    arrays : list[ArraySpec]
    clk, rst : str
    max_cycles : int
    """

    __test__ = False  # not a pytest test class, despite the name

    toplevel: str
    start: str
    busy: str
    done: str
    scalars: dict[str, PortSpec] = field(default_factory=dict)
    returns: list[PortSpec] = field(default_factory=list)
    arrays: list[ArraySpec] = field(default_factory=list)
    clk: str = "clk"
    rst: str = "rst"
    max_cycles: int = DEFAULT_MAX_CYCLES

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "TestbenchSpec":
        data = dict(data)
        data["scalars"] = {name: PortSpec(**port) for name, port in data["scalars"].items()}
        data["returns"] = [PortSpec(**port) for port in data["returns"]]
        data["arrays"] = [ArraySpec(**{**array, "element": PortSpec(**array["element"])})
                          for array in data["arrays"]]
        return cls(**data)


@dataclass
class RawRun:
    """What the Verilog simulation produced, before comparison with Python.

    Attributes
    ----------
    returns : list[int]
        One value per result port, sign-extended as declared.
    arrays : dict[str, list[int]]
        Final memory contents.
    cycles : int
        From ``start`` to ``done``, as :mod:`sim.kernel` counts.
    vcd : Path | None
        The waveform, when one was asked for.
    """

    returns: list[int]
    arrays: dict[str, list[int]]
    cycles: int
    vcd: Path | None = None


# --------------------------------------------------------------------------- spec from a component

_RETURN_NAME = re.compile(r"ret(_\d+)?\Z")


def spec_from_component(component: wiring.Component, *, toplevel: str,
                        depths: dict[str, int] | None = None,
                        max_cycles: int = DEFAULT_MAX_CYCLES) -> TestbenchSpec:
    """Read a kernel component's signature into a :class:`TestbenchSpec`; see :func:`spec_from_signature`."""
    return spec_from_signature(component.signature, toplevel=toplevel, depths=depths,
                               max_cycles=max_cycles)


def spec_from_signature(signature: wiring.Signature, *, toplevel: str,
                        depths: dict[str, int] | None = None,
                        max_cycles: int = DEFAULT_MAX_CYCLES) -> TestbenchSpec:
    """Read a kernel's component signature into a :class:`TestbenchSpec`.

    The convention (see ``docs/compiler.md``): a ``ctrl`` group with ``start``,
    ``busy`` and ``done``; scalar inputs named after the parameters; ``ret`` or
    ``ret_<i>`` outputs; and per array ``NAME`` the groups ``NAME_read``
    (flipped ``ReadPort.Signature``) and/or ``NAME_write`` (flipped
    ``WritePort.Signature``). Verilog port names join the member path with
    ``__``, as :func:`amaranth.back.verilog.convert` does.

    Parameters
    ----------
    signature : wiring.Signature
    toplevel : str
        The Verilog module name the component was converted under.
    depths : dict[str, int], optional
        Array name -> number of elements; an array not listed gets ``2**addr_width``.
    max_cycles : int

    Raises
    ------
    ValueError
        If the signature does not follow the convention; the message names the member.
    """
    from amaranth.hdl import Shape
    from amaranth.lib import wiring

    depths = dict(depths or {})
    members = signature.members
    if "ctrl" not in members or not members["ctrl"].is_signature:
        raise ValueError(f"kernel component {toplevel!r} has no 'ctrl' group "
                         f"(members: {', '.join(members.keys())})")
    ctrl = members["ctrl"].signature.members
    for name in ("start", "busy", "done"):
        if name not in ctrl:
            raise ValueError(f"kernel component {toplevel!r}: 'ctrl' has no {name!r} "
                             f"(it has {', '.join(ctrl.keys())})")

    scalars: dict[str, PortSpec] = {}
    returns: dict[int, PortSpec] = {}
    groups: dict[str, dict[str, Any]] = {}
    for name, member in members.items():
        if name == "ctrl":
            continue
        if member.is_signature:
            array, _, role = name.rpartition("_")
            if role not in ("read", "write") or not array:
                raise ValueError(f"kernel component {toplevel!r}: port group {name!r} is "
                                 f"neither NAME_read nor NAME_write")
            sub = member.signature.members
            group = groups.setdefault(array, {"name": array})
            if role == "read":
                group["element"] = _port(f"{name}__data", sub["data"].shape)
                group["read_addr"] = f"{name}__addr"
                group["read_en"] = f"{name}__en"
                group["addr_width"] = Shape.cast(sub["addr"].shape).width
            else:
                group.setdefault("element", _port(f"{name}__data", sub["data"].shape))
                group["write_addr"] = f"{name}__addr"
                group["write_data"] = f"{name}__data"
                group["write_en"] = f"{name}__en"
                group.setdefault("addr_width", Shape.cast(sub["addr"].shape).width)
        elif _RETURN_NAME.match(name):
            if member.flow != wiring.Out:
                raise ValueError(f"kernel component {toplevel!r}: {name!r} must be an output")
            index = int(name[4:]) if name != "ret" else 0
            returns[index] = _port(name, member.shape)
        elif member.flow == wiring.In:
            scalars[name] = _port(name, member.shape)
        else:
            raise ValueError(f"kernel component {toplevel!r}: unexpected output {name!r} "
                             f"(expected ret or ret_<i>)")
    if sorted(returns) != list(range(len(returns))):
        raise ValueError(f"kernel component {toplevel!r}: result ports are not numbered "
                         f"0..{len(returns) - 1}: {sorted(returns)}")

    arrays = []
    for name, group in groups.items():
        addr_width = group.pop("addr_width")
        depth = depths.pop(name, 1 << addr_width)
        if not 1 <= depth <= 1 << addr_width:
            raise ValueError(f"array {name!r}: depth must be in 1..{1 << addr_width} for a "
                             f"{addr_width}-bit address, not {depth}")
        arrays.append(ArraySpec(depth=depth, **group))
    if depths:
        raise ValueError(f"kernel component {toplevel!r} has no ports for array(s) "
                         f"{', '.join(sorted(depths))}")
    return TestbenchSpec(toplevel=toplevel, start="ctrl__start", busy="ctrl__busy",
                         done="ctrl__done", scalars=scalars,
                         returns=[returns[i] for i in range(len(returns))], arrays=arrays,
                         max_cycles=max_cycles)


def _port(name: str, shape) -> PortSpec:
    from amaranth.hdl import Shape
    shape = Shape.cast(shape)
    return PortSpec(name, shape.width, shape.signed)


# --------------------------------------------------------------------------- the testbench (runs inside the simulator)

async def drive_kernel(dut, spec: dict, args: dict, result_file: str) -> None:
    """The cocotb coroutine every generated testbench calls; see the module docstring.

    It never fails the cocotb test itself: the outcome, or the reason it gave
    up (``"error"``), goes to ``result_file`` as JSON, and :func:`simulate_verilog`
    raises in the calling process.
    """
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import FallingEdge, Timer

    spec = TestbenchSpec.from_json(spec)
    outcome: dict[str, Any] = {"error": None}
    try:
        handles = {}

        def handle(name):
            # Looked up once: a cocotb handle lookup costs as much as a signal read.
            if name not in handles:
                try:
                    handles[name] = getattr(dut, name)
                except AttributeError:
                    raise _TestbenchError(f"the design has no port {name!r}") from None
            return handles[name]

        def read(port: PortSpec | str, signed: bool = False) -> int:
            name, signed = (port.port, port.signed) if isinstance(port, PortSpec) else (port, signed)
            value = handle(name).value
            if not value.is_resolvable:
                raise _TestbenchError(f"port {name} is {value} (X or Z) at cycle {cycles}")
            if not hasattr(value, "to_unsigned"):  # a 1-bit port gives a Logic
                return int(value)
            return value.to_signed() if signed else value.to_unsigned()

        def write(port: str, width: int, value: int) -> None:
            handle(port).value = value & ((1 << width) - 1)

        memories = {array.name: _initial_contents(array, args.get(array.name)) for array in spec.arrays}
        cycles = 0
        cocotb.start_soon(Clock(handle(spec.clk), _CLOCK_PERIOD_NS, unit="ns").start())
        handle(spec.rst).value = 1
        handle(spec.start).value = 0
        for array in spec.arrays:
            if array.read_addr is not None:
                write(array.element.port, array.element.width, 0)
        await FallingEdge(handle(spec.clk))
        handle(spec.rst).value = 0
        for name, port in spec.scalars.items():
            if name not in args:
                raise _TestbenchError(f"no value for scalar argument {name!r}")
            write(port.port, port.width, args[name])
        handle(spec.start).value = 1
        await Timer(1, "ns")
        while True:
            # Requests the design presents to the coming rising edge.
            requests = []
            for array in spec.arrays:
                read_addr = (read(array.read_addr) if array.read_en is not None
                             and read(array.read_en) else None)
                write_request = None
                if array.write_en is not None and read(array.write_en):
                    write_request = (read(array.write_addr),
                                     read(array.write_data, array.element.signed))
                requests.append((array, read_addr, write_request))
            await FallingEdge(handle(spec.clk))
            cycles += 1
            if cycles == 1:
                handle(spec.start).value = 0
            for array, read_addr, write_request in requests:
                memory = memories[array.name]
                if read_addr is not None:
                    # Out-of-range reads happen in squashed pipeline iterations; they must not crash.
                    data = memory[read_addr] if read_addr < array.depth else 0
                    write(array.element.port, array.element.width, data)
                if write_request is not None:
                    address, data = write_request
                    if address >= array.depth:
                        raise _TestbenchError(f"write to {array.name}[{address}] at cycle {cycles}, "
                                              f"outside its depth {array.depth}")
                    memory[address] = data
            await Timer(1, "ns")
            if read(spec.done):
                break
            if cycles >= spec.max_cycles:
                outcome["timeout"] = True
                raise _TestbenchError(f"{spec.done} not raised within {spec.max_cycles} cycles")
        outcome.update(cycles=cycles, returns=[read(port) for port in spec.returns],
                       arrays=memories)
    except _TestbenchError as error:
        outcome["error"] = str(error)
    except Exception as error:  # reported by the calling process, which has no other channel
        outcome["error"] = f"testbench crashed: {type(error).__name__}: {error}"
    tmp = f"{result_file}.tmp"
    with open(tmp, "w") as file:
        json.dump(outcome, file)
    os.replace(tmp, result_file)


class _TestbenchError(Exception):
    pass


def _initial_contents(array: ArraySpec, values) -> list[int]:
    if values is None:
        return [0] * array.depth
    values = [int(value) for value in values]
    if len(values) > array.depth:
        raise _TestbenchError(f"array {array.name!r} has depth {array.depth}, "
                              f"but {len(values)} values were given")
    return values + [0] * (array.depth - len(values))


_TESTBENCH_TEMPLATE = '''\
"""cocotb testbench for {toplevel}, generated by sim.cocotb_kernel.

Ports and memories are described in spec.json; arguments in args.json.
"""
import json
from pathlib import Path

import cocotb

from sim.cocotb_kernel import drive_kernel

_HERE = Path(__file__).parent


@cocotb.test()
async def run_{toplevel}(dut):
    spec = json.loads((_HERE / "spec.json").read_text())
    args = json.loads((_HERE / "args.json").read_text())
    await drive_kernel(dut, spec, args, str(_HERE / "result.json"))
'''

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


# --------------------------------------------------------------------------- building and running

def cache_root() -> Path:
    """Where builds are cached: ``$AXHLS_SIM_CACHE``, else ``~/.cache/axhls/cocotb``."""
    configured = os.environ.get("AXHLS_SIM_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "axhls" / "cocotb"


def _runner(simulator: str):
    from cocotb_tools.runner import Icarus, get_runner

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


@contextlib.contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


#: Builds always kept, most recently used first.
KEEP_BUILDS = 64
#: Older builds are removed once unused for this long; long enough that no
#: run still in progress elsewhere can be using one.
PRUNE_AFTER_DAYS = 7


def prune_cache(root: Path | None = None, *, keep: int = KEEP_BUILDS,
                older_than_days: float = PRUNE_AFTER_DAYS) -> list[Path]:
    """Remove cached builds beyond the ``keep`` most recently used that are unused for a while.

    Returns the removed build directories.
    """
    import time
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

    Shared by the kernel testbenches here and the unit testbenches of
    :mod:`sim.cocotb_runner`.

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
    with _locked(cache_root() / f"{build_dir.name}.lock"):
        if stamp.exists():
            return build_dir
        if build_dir.exists():
            shutil.rmtree(build_dir)  # a build that was interrupted
        build_dir.mkdir(parents=True)
        source = build_dir / f"{toplevel}.v"
        source.write_text(_kick_combinational_blocks(verilog) if tool.name == "icarus" else verilog)
        sources = [source]
        build_args: list[str] = []
        if tool.name == "icarus":
            dump = build_dir / "axhls_vcd_dump.v"
            dump.write_text(_ICARUS_VCD_MODULE.format(toplevel=toplevel))
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
        stamp.write_text("ok\n")
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


def simulate_verilog(verilog: str, spec: TestbenchSpec, args: dict[str, Any], *,
                     simulator: str = "icarus", vcd: str | os.PathLike | None = None,
                     keep_dir: str | os.PathLike | None = None) -> RawRun:
    """Simulate a kernel's Verilog under cocotb with memory models behind its array ports.

    Parameters
    ----------
    verilog : str
        The whole design; ``spec.toplevel`` is its top module.
    spec : TestbenchSpec
        From :func:`spec_from_component`.
    args : dict
        Parameter name -> int for scalars, list of ints for arrays (shorter lists are
        padded with zeros up to the array's depth).
    simulator : str
        ``"icarus"`` or ``"verilator"``.
    vcd : path, optional
        Write a VCD waveform of the run there (replaced atomically).
    keep_dir : path, optional
        Run the testbench in this directory and keep it (generated testbench, log,
        results); by default a temporary directory is used and removed.

    Raises
    ------
    ValueError
        Unknown simulator, or an array argument longer than the array.
    ToolUnavailable
        The simulator is missing or too old (one-line message).
    CocotbRunError
        The design did not build, the simulation crashed, or ``done`` never came.
    """
    if simulator not in SIMULATORS:
        raise ValueError(f"simulator must be one of {', '.join(SIMULATORS)}, not {simulator!r}")
    for array in spec.arrays:
        values = args.get(array.name)
        if values is not None and len(values) > array.depth:
            raise ValueError(f"array argument {array.name!r} has {len(values)} values, "
                             f"more than its depth {array.depth}")
    tool = find_simulator(simulator)
    build_dir = cached_build(verilog, spec.toplevel, tool, waves=vcd is not None)

    with contextlib.ExitStack() as stack:
        if keep_dir is None:
            test_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="axhls-tb-")))
        else:
            test_dir = Path(keep_dir).resolve()
            test_dir.mkdir(parents=True, exist_ok=True)
        module = f"tb_{spec.toplevel}"
        (test_dir / f"{module}.py").write_text(_TESTBENCH_TEMPLATE.format(toplevel=spec.toplevel))
        (test_dir / "spec.json").write_text(json.dumps(spec.to_json(), indent=1))
        (test_dir / "args.json").write_text(json.dumps(_plain_args(args)))
        result_file = test_dir / "result.json"
        result_file.unlink(missing_ok=True)
        log = test_dir / "sim.log"
        plusargs, waves = [], False
        if vcd is not None:
            if simulator == "icarus":
                plusargs = [f"+axhls_vcd={test_dir / 'dump.vcd'}"]
            else:
                waves = True
        try:
            with tool_environment(tool):
                _runner(simulator).test(
                    test_module=module, hdl_toplevel=spec.toplevel, hdl_toplevel_lang="verilog",
                    build_dir=build_dir,
                    test_dir=test_dir, results_xml=str(test_dir / "results.xml"),
                    plusargs=plusargs, waves=waves, log_file=log,
                    extra_env={"COCOTB_LOG_LEVEL": "WARNING"})
        except (SystemExit, RuntimeError, OSError) as error:
            raise CocotbRunError(f"{simulator} simulation of {spec.toplevel} failed: {error}"
                                 f"{_log_tail(log)}", log) from None
        if not result_file.exists():
            raise CocotbRunError(f"{simulator} simulation of {spec.toplevel} produced no result"
                                 f"{_log_tail(log)}", log)
        outcome = json.loads(result_file.read_text())
        if outcome["error"]:
            error_class = CocotbTimeout if outcome.get("timeout") else CocotbRunError
            raise error_class(f"{simulator} testbench of {spec.toplevel}: {outcome['error']}", log)
        vcd_path = None
        if vcd is not None:
            vcd_path = Path(vcd)
            _install_file(test_dir / "dump.vcd", vcd_path)
        return RawRun(returns=outcome["returns"], arrays=outcome["arrays"],
                      cycles=outcome["cycles"], vcd=vcd_path)


def _plain_args(args: dict[str, Any]) -> dict[str, Any]:
    plain = {}
    for name, value in args.items():
        if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
            plain[name] = [int(element) for element in value]
        else:
            plain[name] = int(value)
    return plain


def _install_file(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` through a temporary file in the target's directory."""
    if not source.exists():
        raise CocotbRunError(f"the simulator wrote no waveform ({source} is missing)")
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    os.close(descriptor)
    try:
        shutil.copyfile(source, tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 is for secrets, not waveforms
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _log_tail(log: Path) -> str:
    if not log.exists():
        return ""
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return f" ({(errors or lines or [''])[-1].strip()}; log: {log})"
