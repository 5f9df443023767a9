"""Run a kernel's hardware in Amaranth's simulator and compare it with its Python run.

:func:`run` builds the kernel's component, puts an
:class:`amaranth.lib.memory.Memory` behind every array port (attached with
``wiring.connect``, no adapter: one cycle of read latency, as block RAM), drives
the ``start``/``busy``/``done`` handshake, and returns the results, the final
array contents, the cycle count and whether they match the golden model.

Cycles are counted as in the cocotb testbenches of :mod:`sim.cocotb_kernel`:
the rising edge that sees ``start`` is cycle 1, and the count is the number of
the first rising edge after which ``done`` is high.

Streams: every input stream's port is driven from the list given for it (a
producer that raises ``valid`` and holds it, with the token, until ``ready``),
and every output stream's tokens are collected from its port; with
``stall_probability=p`` the producer waits, and the consumer lowers ``ready``,
with probability ``p`` in each cycle (a seeded ``random.Random``: the same
run every time). The tokens each output got, and how many each input gave, are
compared with the golden model's.

Port names come from the component's
:class:`~hls.backend.component.KernelSignature`. A waveform (``vcd=``) is
checked before anything is compiled and written atomically through
:mod:`artefacts`: it appears, whole, only when the run succeeds.
"""

from __future__ import annotations

import copy
import dataclasses
import numbers
from dataclasses import dataclass, field
from typing import Any

from amaranth.hdl import Module
from amaranth.lib import memory, wiring
from amaranth.sim import Simulator

import artefacts
from hls.backend.component import kernel_signature
from hls.compiler import compile_kernel
from hls.dataflow import Dataflow

from .cocotb_kernel import simulate_verilog, spec_from_signature
from .errors import SimulationTimeout
from .testbenches import StreamStalls

__all__ = ["run", "KernelRun", "BACKENDS", "GOLDEN_MODELS"]

#: Simulators :func:`run` knows: Amaranth's, and cocotb with Icarus or Verilator.
BACKENDS = ("amaranth", "icarus", "verilator")

#: The golden models :func:`run` compares with: the compiled one (:mod:`hls.golden`), or the Python run.
GOLDEN_MODELS = ("compiled", "python")


@dataclass
class KernelRun:
    """The outcome of one simulated run.

    Attributes
    ----------
    outputs : dict
        ``{"return": int, list of int or None, "arrays": {name: list of int}}`` from the hardware;
        a kernel with streams adds ``"streams"`` (each output stream's tokens, in order) and
        ``"tokens_read"`` (how many tokens the kernel took from each input stream).
    expected : dict
        The same, from the golden model run on a deep copy of the arguments.
    match : bool
    cycles : int
        From the rising edge that sees ``start`` to the first after which ``done`` is high.
    backend : str
    """

    outputs: dict
    expected: dict
    match: bool
    cycles: int
    backend: str
    differences: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"outputs": self.outputs, "expected": self.expected, "match": self.match,
                "cycles": self.cycles, "backend": self.backend}


def _as_return(value):
    if value is None:
        return None
    if isinstance(value, tuple):
        return [int(v) for v in value]
    return int(value)


def expected_outputs(kernel, args: dict[str, Any], max_loop_iterations: int | None = None, *,
                     golden: str = "compiled") -> dict:
    """The golden model's outputs for ``args`` (which are not modified).

    ``max_loop_iterations`` bounds the run (see
    :meth:`hls.frontend.golden.GoldenModel.run`): past it, one loop raises
    :class:`hls.errors.KernelLoopLimit`. ``golden`` is ``"compiled"`` (the
    model compiled to C, :mod:`hls.golden`, bit-exact with the Python run) or
    ``"python"`` (the Python run itself).

    Raises
    ------
    ValueError
        For another ``golden``.
    """
    model = _golden_model(kernel, golden)
    arguments = with_output_streams(kernel, copy.deepcopy(dict(args)))
    result = model.call((), arguments, max_loop_iterations=max_loop_iterations)
    arrays = {}
    for param in kernel.params:
        if param.kind == "array":
            arrays[param.name] = [int(v) for v in arguments[param.name]]
    out = {"return": _as_return(result), "arrays": arrays}
    if any(param.kind == "stream" for param in kernel.params):
        out["streams"] = {param.name: [int(v) for v in arguments[param.name]] for param in kernel.params
                          if param.kind == "stream" and param.direction == "out"}
        out["tokens_read"] = dict(model.tokens_read)
    return out


def with_output_streams(kernel, args: dict) -> dict:
    """``args`` with an empty list for every output stream it does not name (the kernel fills it)."""
    for param in kernel.params:
        if param.kind == "stream" and param.direction == "out" and param.name not in args:
            args[param.name] = []
    return args


def _check_golden(golden: str) -> None:
    if golden not in GOLDEN_MODELS:
        raise ValueError(f"unknown golden model {golden!r}; expected one of {', '.join(GOLDEN_MODELS)}")


def _golden_model(kernel, golden: str):
    _check_golden(golden)
    return kernel.compiled_model() if golden == "compiled" else kernel.golden_model()


def differences(outputs: dict, expected: dict) -> list[str]:
    """Human-readable lines naming the outputs that differ, first differences first."""
    out = []
    if outputs["return"] != expected["return"]:
        out.append(f"return: hardware {outputs['return']}, Python {expected['return']}")
    for name, values in expected["arrays"].items():
        got = outputs["arrays"].get(name)
        if got != values:
            bad = [i for i, (a, b) in enumerate(zip(got, values)) if a != b]
            shown = ", ".join(f"{name}[{i}]: hardware {got[i]}, Python {values[i]}" for i in bad[:3])
            more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
            out.append(shown + more)
    for name, tokens in expected.get("streams", {}).items():
        got = outputs["streams"][name]
        if got != tokens:
            first = next((i for i, (a, b) in enumerate(zip(got, tokens)) if a != b), min(len(got), len(tokens)))
            out.append(f"stream {name}: {len(got)} tokens from the hardware, {len(tokens)} from Python; token "
                       f"{first}: hardware {_token_at(got, first)}, Python {_token_at(tokens, first)}")
    for name, count in expected.get("tokens_read", {}).items():
        if outputs["tokens_read"][name] != count:
            out.append(f"stream {name}: the hardware took {outputs['tokens_read'][name]} tokens, Python {count}")
    return out


def _token_at(tokens: list[int], index: int):
    return tokens[index] if index < len(tokens) else "none"


def run(kernel, args: dict[str, Any], backend: str = "amaranth", vcd: str | None = None, *,
        max_cycles: int = 200_000, pipelining: bool = True, overlap: bool = True, narrowing: bool = True,
        stall_probability: float = 0.0, stall_seed: int = 0, golden: str = "compiled") -> KernelRun:
    """Simulate ``kernel`` on ``args`` and compare with its golden model.

    Parameters
    ----------
    kernel : hls.Kernel or hls.Dataflow
        A kernel, or a chain of stream kernels (``@hls.dataflow``; ``pipelining`` and
        ``overlap`` do not apply to it).
    args : dict
        Parameter name -> int (scalars) or list of ints (arrays, ``depth`` elements; an input
        stream's tokens; an output stream may be left out or given ``[]``).
    backend : str
        ``"amaranth"`` (Amaranth's simulator), or ``"icarus"`` / ``"verilator"``: the
        emitted Verilog under cocotb, through :mod:`sim.cocotb_kernel`.
    vcd : str or os.PathLike or None
        Path of a VCD file to write. It is checked before the simulation
        starts, and written atomically: an interrupted or failed run leaves
        no file (and an existing one untouched).
    max_cycles : int
        Cycle budget before :class:`SimulationTimeout`. It bounds the Python run
        first, in iterations of any one loop: the hardware starts at most one
        iteration of a loop per cycle, so a kernel whose Python run needs more
        could not finish in time either (a ``while`` that never ends raises
        :class:`hls.errors.KernelLoopLimit` instead of hanging).
    pipelining : bool
        ``False`` simulates the kernel with every loop sequential (a baseline).
    overlap : bool
        ``False`` lets every run of an inner loop drain before the code after it
        starts (the baseline for overlapped runs, ``hls.analysis.overlap``).
    narrowing : bool
        ``False`` builds every register at its declared or operation's shape (the baseline
        of ``hls.analysis.registers``).
    stall_probability : float
        In ``[0, 1)``: in each cycle, with this probability, an input stream's producer
        waits before offering its next token and an output stream's consumer is not
        ready (random ``valid``/``ready`` stalls); 0 streams at full speed.
    stall_seed : int
        Seed of those stalls.
    golden : str
        ``"compiled"`` (default): the expected outputs come from the golden model
        compiled to C (:mod:`hls.golden`, bit-exact with the Python run, streams
        included; a kernel it cannot compile runs the Python run); ``"python"``:
        from the Python run itself.

    Raises
    ------
    ValueError
        For an unknown backend or golden model, or arguments that do not fit the parameters.
    artefacts.DestinationError
        ``vcd`` cannot be written (a folder, a missing folder, no permission);
        a ``ValueError`` whose one-line message starts with the path.
    sim.errors.ToolUnavailable, sim.errors.CocotbRunError
        When the Verilog simulator is missing or its run fails.
    TypeError
        For missing or unexpected arguments.
    hls.errors.KernelSyntaxError
        If the kernel is outside the language.
    SimulationTimeout
        If ``done`` does not come within ``max_cycles``; the message is one line.
    hls.errors.KernelLoopLimit
        If a loop of the Python run ran more than ``max_cycles`` iterations.
    hls.errors.KernelRuntimeError
        An array index out of range in the Python run.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown simulation backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    _check_golden(golden)     # before anything is built
    if isinstance(stall_probability, bool) or not isinstance(stall_probability, numbers.Real) \
            or not 0 <= stall_probability < 1:
        raise ValueError(f"stall_probability must be a number in [0, 1), not {stall_probability!r}")
    args = with_output_streams(kernel, dict(args))
    if vcd is not None:
        artefacts.check_file_destination(vcd)
    expected = expected_outputs(kernel, args, max_loop_iterations=max_cycles, golden=golden)
    if isinstance(kernel, Dataflow):
        # A chain: its stages are compiled (each for its own target) when its component is built.
        name, signature = kernel.name, kernel.signature()
        component, verilog = kernel.to_amaranth, kernel.verilog
    else:
        compiled = compile_kernel(kernel, pipelining=pipelining, overlap=overlap, narrowing=narrowing)
        name, signature = compiled.ir.name, kernel_signature(compiled.ir)
        component, verilog = compiled.component, compiled.verilog
    if backend == "amaranth":
        outputs, cycles = _simulate_amaranth(component(), name, args, vcd, max_cycles,
                                             _Streams(signature, args, stall_probability, stall_seed))
    else:
        outputs, cycles = _simulate_verilog(verilog(name), signature, name, args, backend, vcd, max_cycles,
                                            stall_probability, stall_seed)
    diffs = differences(outputs, expected)
    return KernelRun(outputs, expected, not diffs, cycles, backend, diffs)


def _simulate_verilog(verilog, signature, name, args, simulator, vcd, max_cycles, stall_probability, stall_seed):
    """The kernel's Verilog under cocotb (:mod:`sim.cocotb_kernel`), with the same memory model, count
    and stream stalls."""
    # The memory models hold exactly the arrays' depths (the default), so the final arrays compare directly.
    spec = dataclasses.replace(spec_from_signature(signature, toplevel=name, max_cycles=max_cycles),
                               stall_probability=stall_probability, stall_seed=stall_seed)
    # A partitioned array is one memory model per bank, named after its read group.
    bank_args = dict(args)
    for array in signature.partitions:
        for (read, _, _), contents in zip(signature.bank_groups[array],
                                          bank_contents(signature, array, [int(v) for v in args[array]])):
            bank_args[read] = contents
    raw = simulate_verilog(verilog, spec, bank_args, simulator=simulator, vcd=vcd)
    returns = [int(value) for value in raw.returns]
    result = None if not returns else (returns[0] if len(returns) == 1 else returns)
    arrays = {}
    for array in signature.arrays:
        if array in signature.partitions:
            banks = [[int(v) for v in raw.arrays[read]] for read, _, _ in signature.bank_groups[array]]
            arrays[array] = array_from_banks(signature, array, banks)
        else:
            arrays[array] = [int(v) for v in raw.arrays[array]]
    outputs = {"return": result, "arrays": arrays}
    if signature.streams:
        outputs.update(streams=raw.streams, tokens_read=raw.tokens_read)
    return outputs, raw.cycles


def bank_contents(signature, array: str, values: list[int]) -> list[list[int]]:
    """The initial contents of each memory behind ``array``'s port groups (its banks when partitioned)."""
    partition = signature.partitions.get(array)
    if partition is None:
        return [list(values)]
    return partition.split(values, signature.arrays[array][1])


def array_from_banks(signature, array: str, banks: list[list[int]]) -> list[int]:
    """``array``'s elements from the contents of the memories behind its port groups."""
    partition = signature.partitions.get(array)
    if partition is None:
        return list(banks[0])
    return partition.join(banks, signature.arrays[array][1])


class _Streams:
    """The producers and consumers of a kernel's stream ports in Amaranth's simulator
    (:class:`sim.testbenches.StreamStalls` decides the handshakes, as under cocotb).

    In each cycle, :meth:`drive` sets every handshake and samples what transfers at the
    coming edge; :meth:`advance` takes it into account after the edge.
    """

    def __init__(self, signature, args, probability: float, seed: int):
        streams = signature.streams
        self.stalls = StreamStalls({name: args[name] for name, (_, way) in streams.items() if way == "in"},
                                   [name for name, (_, way) in streams.items() if way == "out"], probability, seed)
        self.inputs, self.outputs = self.stalls.inputs, self.stalls.outputs
        self.transfers = ([], {})

    def drive(self, ctx, dut):
        offers, ready = self.stalls.offer(), self.stalls.ready()
        for name, token in offers.items():
            port = getattr(dut, name)
            if token is not None:
                ctx.set(port.payload, token)
            ctx.set(port.valid, token is not None)
        for name, flag in ready.items():
            ctx.set(getattr(dut, name).ready, flag)
        taken = [name for name, token in offers.items() if token is not None and ctx.get(getattr(dut, name).ready)]
        given = {name: int(ctx.get(getattr(dut, name).payload)) for name, flag in ready.items()
                 if flag and ctx.get(getattr(dut, name).valid)}
        self.transfers = (taken, given)

    def advance(self):
        self.stalls.transferred(*self.transfers)
        self.transfers = ([], {})


def _simulate_amaranth(dut, top, args, vcd, max_cycles, streams):
    signature = dut.signature
    m = Module()
    m.submodules.kernel = dut
    memories = {}    # array -> its memory per bank (one when not partitioned)
    for name, (shape, depth) in signature.arrays.items():
        banks = bank_contents(signature, name, [int(v) for v in args[name]])
        memories[name] = []
        for (read, write, bank_depth), contents in zip(signature.bank_groups[name], banks):
            mem = memory.Memory(shape=shape, depth=bank_depth, init=contents)
            m.submodules[f"mem_{read}"] = mem
            wiring.connect(m, getattr(dut, read), mem.read_port())
            wiring.connect(m, getattr(dut, write), mem.write_port())
            memories[name].append(mem)
    control = getattr(dut, signature.control)

    result = {}

    async def testbench(ctx):
        for scalar in signature.scalars:
            ctx.set(getattr(dut, scalar), int(args[scalar]))
        ctx.set(control.start, 1)
        streams.drive(ctx, dut)
        await ctx.tick()
        streams.advance()
        ctx.set(control.start, 0)
        cycles = 1
        while not ctx.get(control.done):
            if cycles >= max_cycles:
                raise SimulationTimeout(f"{top}: no done after {max_cycles} cycles")
            streams.drive(ctx, dut)
            await ctx.tick()
            streams.advance()
            cycles += 1
        values = [ctx.get(getattr(dut, port)) for port, _ in signature.results]
        result["return"] = None if not values else (values[0] if len(values) == 1 else values)
        result["arrays"] = {name: array_from_banks(signature, name,
                                                   [[int(ctx.get(mem.data[i])) for i in range(mem.depth)]
                                                    for mem in mems])
                            for name, mems in memories.items()}
        result["cycles"] = cycles
        if streams.inputs or streams.outputs:
            result["streams"] = streams.outputs
            result["tokens_read"] = streams.stalls.taken

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    if vcd is not None:
        # Checked before compiling; written beside the destination and renamed on success.
        with artefacts.atomic_path(vcd, check=False) as temporary:
            with sim.write_vcd(str(temporary)):
                sim.run()
    else:
        sim.run()
    outputs = {"return": result["return"], "arrays": result["arrays"]}
    if "streams" in result:
        outputs.update(streams=result["streams"], tokens_read=result["tokens_read"])
    return outputs, result["cycles"]
