"""Kernels on their generated Verilog, under cocotb 2.1 with Icarus Verilog or Verilator.

``sim.run(kernel, args, backend="icarus" | "verilator")`` runs a kernel's
generated Verilog through this module: it describes the kernel's ports for
the testbench from the component's signature, runs the testbench, and
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
* drives every input stream from its list and takes every output stream's tokens,
  with random ``valid``/``ready`` stalls when ``stall_probability`` is set
  (:class:`sim.testbenches.StreamStalls`, the same stalls as in Amaranth's simulator
  for a seed): the handshakes are set 1 ns after each falling edge, and a transfer is
  sampled 1 ns later, when the design has settled;
* counts rising edges from the one that sees ``start`` (cycle 1) to the first
  one after which ``ctrl__done`` is high, which is how ``sim.kernel.run``
  counts in Amaranth's simulator;
* then reads the results (``ret``, or ``ret_0``, ``ret_1``, ...) and the
  memories, and writes them as JSON for this process to read back.

The ports come from the kernel's :class:`hls.backend.component.KernelSignature`
(:func:`spec_from_signature`), written to ``spec.json`` with the arguments
in ``args.json``; every kernel runs the same cocotb test,
``sim.cocotb_tests.run_kernel``, whose coroutine :func:`drive_kernel` (in
:mod:`sim.testbenches`) holds the one memory model. Building (cached, locked,
pruned) and running go through :mod:`sim.cocotb_run`, as for the units.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amaranth.hdl import Shape
from amaranth.lib import wiring

import artefacts
from hls.backend.component import KernelSignature

from .cocotb_run import SIMULATORS, WAVEFORM, log_tail, run_testbench, work_directory
from .errors import CocotbRunError, CocotbTimeout
from .testbenches import DEFAULT_MAX_CYCLES, ArraySpec, PortSpec, StreamSpec, TestbenchSpec

__all__ = [
    "RawRun", "spec_from_component", "spec_from_signature", "simulate_verilog",
]

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
    streams : dict[str, list[int]]
        The tokens each output stream gave.
    tokens_read : dict[str, int]
        How many tokens the kernel took from each input stream.
    """

    returns: list[int]
    arrays: dict[str, list[int]]
    cycles: int
    vcd: Path | None = None
    streams: dict[str, list[int]] | None = None
    tokens_read: dict[str, int] | None = None


# --------------------------------------------------------------------------- spec from a signature

def spec_from_component(component: wiring.Component, *, toplevel: str,
                        depths: dict[str, int] | None = None,
                        max_cycles: int = DEFAULT_MAX_CYCLES) -> TestbenchSpec:
    """Read a kernel component's signature into a :class:`TestbenchSpec`; see :func:`spec_from_signature`."""
    return spec_from_signature(component.signature, toplevel=toplevel, depths=depths,
                               max_cycles=max_cycles)


def spec_from_signature(signature: KernelSignature, *, toplevel: str,
                        depths: dict[str, int] | None = None,
                        max_cycles: int = DEFAULT_MAX_CYCLES) -> TestbenchSpec:
    """Describe the ports of a kernel with ``signature`` for the testbench.

    Everything is read from the signature's attributes (its control group,
    scalars, results and array groups); Verilog port names join the member
    path with ``__``, as :func:`amaranth.back.verilog.convert` does.

    Parameters
    ----------
    signature : hls.backend.component.KernelSignature
    toplevel : str
        The Verilog module name the component was converted under.
    depths : dict[str, int], optional
        Array name -> number of elements of its memory model; by default the
        array's depth. At most ``2**addr_width``.
    max_cycles : int

    Raises
    ------
    ValueError
        If ``signature`` is not a :class:`KernelSignature`, or ``depths`` names
        an array the kernel does not have or a depth out of range.
    """
    if not isinstance(signature, KernelSignature):
        members = ", ".join(signature.members.keys()) if isinstance(signature, wiring.Signature) else ""
        raise ValueError(f"kernel component {toplevel!r}: its signature is not a KernelSignature "
                         f"(hls.backend.component), so its ports do not follow the kernel "
                         f"convention (members: {members or 'none'})")
    depths = dict(depths or {})
    unknown = sorted(set(depths) - set(signature.arrays))
    if unknown:
        raise ValueError(f"kernel component {toplevel!r} has no ports for array(s) {', '.join(unknown)}")
    ctrl = signature.control
    scalars = {name: _port(name, shape) for name, shape in signature.scalars.items()}
    returns = [_port(name, shape) for name, shape in signature.results]
    arrays = []
    for name, (shape, declared) in signature.arrays.items():
        addr_width = signature.addr_width(name)
        if name in signature.partitions:
            # One memory model per bank, named after the bank's read group (sim.kernel splits
            # the argument into banks and joins them back).
            if name in depths:
                raise ValueError(f"array {name!r} is partitioned; its banks' depths are fixed")
            for read, write, bank_depth in signature.bank_groups[name]:
                arrays.append(ArraySpec(name=read, depth=bank_depth, element=_port(f"{read}__data", shape),
                                        read_addr=f"{read}__addr", read_en=f"{read}__en",
                                        write_addr=f"{write}__addr", write_data=f"{write}__data",
                                        write_en=f"{write}__en", addr_width=addr_width))
            continue
        read, write = signature.array_groups[name]
        depth = depths.get(name, declared)
        if not 1 <= depth <= 1 << addr_width:
            raise ValueError(f"array {name!r}: depth must be in 1..{1 << addr_width} for a "
                             f"{addr_width}-bit address, not {depth}")
        arrays.append(ArraySpec(name=name, depth=depth, element=_port(f"{read}__data", shape),
                                read_addr=f"{read}__addr", read_en=f"{read}__en",
                                write_addr=f"{write}__addr", write_data=f"{write}__data",
                                write_en=f"{write}__en", addr_width=addr_width))
    streams = [StreamSpec(name, direction, _port(f"{name}__payload", shape), f"{name}__valid", f"{name}__ready")
               for name, (shape, direction) in signature.streams.items()]
    return TestbenchSpec(toplevel=toplevel, start=f"{ctrl}__start", busy=f"{ctrl}__busy",
                         done=f"{ctrl}__done", scalars=scalars, returns=returns, arrays=arrays,
                         streams=streams, max_cycles=max_cycles)


def _port(name: str, shape) -> PortSpec:
    shape = Shape.cast(shape)
    return PortSpec(name, shape.width, shape.signed)


# --------------------------------------------------------------------------- running

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
        Write a VCD waveform of the run there. The destination is checked
        before anything is built, and the file appears, whole, only when the
        run succeeds (:func:`artefacts.atomic_path`).
    keep_dir : path, optional
        Run the testbench in this directory and keep it (spec, arguments, log,
        results); by default a temporary directory is used and removed (kept
        when the run fails, for its log).

    Raises
    ------
    ValueError
        Unknown simulator, or an array argument longer than the array.
    artefacts.DestinationError
        ``vcd`` cannot be written (a ``ValueError``; one line naming the path).
    sim.errors.ToolUnavailable
        The simulator is missing or too old (one-line message).
    CocotbRunError
        The design did not build, the simulation crashed, or ``done`` never
        came (:class:`CocotbTimeout`).
    """
    if simulator not in SIMULATORS:
        raise ValueError(f"simulator must be one of {', '.join(SIMULATORS)}, not {simulator!r}")
    for array in spec.arrays:
        values = args.get(array.name)
        if values is not None and len(values) > array.depth:
            raise ValueError(f"array argument {array.name!r} has {len(values)} values, "
                             f"more than its depth {array.depth}")
    if vcd is not None:
        artefacts.check_file_destination(vcd)
    with work_directory(keep_dir, prefix="axhls-tb-") as work:
        artefacts.write_text(work / "spec.json", json.dumps(spec.to_json(), indent=1))
        artefacts.write_text(work / "args.json", json.dumps(_plain_args(args)))
        result_file = work / "result.json"
        result_file.unlink(missing_ok=True)
        log = run_testbench(verilog, spec.toplevel, test_module="sim.cocotb_tests", testcase="run_kernel",
                            work_dir=work, simulator=simulator, waveform=vcd is not None)
        if not result_file.exists():
            raise CocotbRunError(f"{simulator} simulation of {spec.toplevel} produced no result"
                                 f"{log_tail(log)}", log)
        outcome = json.loads(result_file.read_text())
        if outcome["error"]:
            error_class = CocotbTimeout if outcome.get("timeout") else CocotbRunError
            raise error_class(f"{simulator} testbench of {spec.toplevel}: {outcome['error']}", log)
        vcd_path = None
        if vcd is not None:
            vcd_path = Path(vcd)
            _install_file(work / WAVEFORM, vcd_path)
        return RawRun(returns=outcome["returns"], arrays=outcome["arrays"],
                      cycles=outcome["cycles"], vcd=vcd_path, streams=outcome.get("streams"),
                      tokens_read=outcome.get("tokens_read"))


def _plain_args(args: dict[str, Any]) -> dict[str, Any]:
    plain = {}
    for name, value in args.items():
        if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
            plain[name] = [int(element) for element in value]
        else:
            plain[name] = int(value)
    return plain


def _install_file(source: Path, target: Path) -> None:
    """Copy the simulator's ``source`` to the user's ``target``, atomically (:mod:`artefacts`)."""
    if not source.exists():
        raise CocotbRunError(f"the simulator wrote no waveform ({source} is missing)")
    with artefacts.atomic_path(target) as temporary:
        shutil.copyfile(source, temporary)
