"""The Amaranth back end: a scheduled :class:`~hls.ir.KernelIR` as a ``wiring.Component``.

Hardware structure
------------------
* **Variables** are registers.  A block reads them (``live_in``) and writes them
  (``commit``) at the cycles the schedule gives.
* **Control** is a token passed between the nodes of the CFG: each node has a
  ``go`` pulse and produces a ``done`` pulse that is routed, through the
  block's exits or branch condition, to the ``go`` of its successor.  Only one
  node holds the token at a time, so the nodes share the array ports and the
  variable registers without arbitration beyond a priority multiplexer.
* **A block** run once has a chain of valid bits ``v[0] = go``, ``v[t+1] =
  v[t]`` delayed by a cycle; the operation scheduled at cycle ``t`` performs its
  side effect (store, commit, port access) when ``v[t]`` is set; ``done`` is
  ``v[L]`` where ``L`` is the block's schedule length.
* **A pipelined loop** drives the same valid chain from its issue logic: every
  II cycles, while the counter is inside the range, a new iteration starts
  (``v[0] = 1``).  An operation at cycle ``t`` of an iteration then sees ``v[t]``
  set exactly in the cycle that belongs to it, so the datapath generator is the
  same for both.  ``done`` is raised once issuing has stopped and every valid
  bit has drained.
* **Values** crossing cycles go through delay lines (one register per cycle
  of lifetime, shared by all users of a value): a value born at cycle ``b`` and
  used at cycle ``t`` is read ``t - b`` registers down its line.  Because every
  register shifts every cycle, this is also correct in a pipeline whose
  values live longer than the II (the rotating-register case).
* **Array ports**: each array has one read and one write port with the
  signatures of ``amaranth.lib.memory.ReadPort.Signature`` and
  ``WritePort.Signature`` (flipped), read data one cycle after the address;
  each bank of a partitioned array has its own pair (``NAME_read_K``,
  ``NAME_write_K``), addressed by a bit field of the index.
* **Local arrays** (``hls.local``) are an :class:`amaranth.lib.memory.Memory`
  per bank inside the component (one read and one write port each), or one
  register per element when completely partitioned (read without latency,
  cleared at ``start``).  A bank that no operation reads or writes (its accesses dead,
  or its reads folded into 0: :mod:`hls.ir.fold`) is not built, nor an array held in
  registers with none.
* **Streams** (``hls.Stream[shape]``): an input is a port with the flipped
  ``amaranth.lib.stream.Signature(shape)``, an output one with the signature itself.
  A read at cycle ``t`` takes the input's ``payload`` in the cycle its iteration is
  there, and raises ``ready`` in it; a write puts its token into a two-entry
  ``amaranth.lib.fifo.SyncFIFO`` whose ``r_rdy``/``r_data`` are the output's
  ``valid``/``payload`` (registered: no path from ``ready`` to ``valid``).  When a
  stream operation due in this cycle cannot complete (its input's ``valid`` is low, or
  its output buffer is full), ``stall`` is high and the whole kernel holds: every
  register of the kernel is enabled by ``~stall`` (``amaranth.hdl.EnableInserter``),
  memory reads hold their data (``en`` low), and no memory write, stream transfer or
  ``done`` happens.  A stalled cycle is then a cycle that did not happen, so no token is
  lost, repeated or reordered.  The stall, computed late in the cycle from the loops'
  issue logic and the streams' handshakes, is kept out of wide logic: a local memory
  writes each cycle's write a cycle later from registers the stall holds (a read of that
  next cycle takes it from them where the addresses match), so the stall reaches those
  registers' enables and not the memory's write decoding, and an address or write data
  bus with a single request is driven by it whatever its request's condition, so the
  condition (the loop's issue logic) does not gate a memory's read multiplexer.  This is
  the conservative design: a stall of one stream
  holds every stage, including those with nothing to do with it.  ``done`` also waits
  until every output buffer has drained, so that every token has been taken when it rises.
  A kernel without streams has neither ``stall`` nor buffers.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, EnableInserter, Fragment, Module, Mux, Shape, Signal, Value, signed
from amaranth.lib import fifo, memory, stream, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from ..analysis.registers import RegisterWidths, mirrored_commits
from ..ir.build import amaranth_value
from ..ir.ops import Lowering, covering_shape, operator_of
from ..ir.nodes import Block, PipelinedLoop

__all__ = ["ControlSignature", "KernelSignature", "KernelComponent", "kernel_signature", "port_name_of_result",
           "register_bits"]


class ControlSignature(wiring.Signature):
    """The ``start``/``busy``/``done`` handshake, as seen from the kernel.

    Members
    -------
    start : In(1)
        Pulse (or hold) for one cycle while ``busy`` is low to start a run; the
        scalar arguments are latched in that cycle.
    busy : Out(1)
        High from the cycle after ``start`` until ``done``.
    done : Out(1)
        High for exactly one cycle when the run finishes; results are valid from
        that cycle on, until the next ``start``.
    """

    def __init__(self):
        super().__init__({"start": In(1), "busy": Out(1), "done": Out(1)})

    def __eq__(self, other):
        return type(other) is ControlSignature

    def __hash__(self):
        return hash(ControlSignature)

    def __repr__(self):
        return "ControlSignature()"


def port_name_of_result(index: int, count: int) -> str:
    """``ret`` for a single result, ``ret_0``, ``ret_1``, ... for a tuple."""
    return "ret" if count == 1 else f"ret_{index}"


class KernelSignature(wiring.Signature):
    """The component signature of a kernel: handshake, arguments, results and array ports.

    Computed from its parameters, as Amaranth's own signatures are: two
    ``KernelSignature`` objects with the same parameters are equal. The port
    convention it encodes (see ``docs/compiler.md``) is read from its
    attributes by the simulators and the command line, never by parsing member
    names.

    Parameters
    ----------
    scalars : dict of str to shape-castable
        Scalar arguments, in order: one input port each, named after the parameter.
    results : sequence of shape-castable
        Result shapes, in order: output ``ret`` for one result, ``ret_0``,
        ``ret_1``, ... for several.
    arrays : dict of str to (shape-castable, int)
        Array arguments: element shape and depth. Each gets a read group
        ``NAME_read`` and a write group ``NAME_write`` with the flipped
        signatures of :class:`amaranth.lib.memory.ReadPort` and
        :class:`~amaranth.lib.memory.WritePort`, with ``ceil_log2(depth)``
        address bits.
    partitions : dict of str to hls.types.Partition, optional
        Arrays split into banks: bank ``K`` gets the groups ``NAME_read_K`` and
        ``NAME_write_K`` (same signatures, ``ceil_log2(bank depth)`` address bits)
        instead of ``NAME_read``/``NAME_write``.
    streams : dict of str to (shape-castable, str), optional
        Stream parameters: token shape and direction, ``"in"`` (a port
        ``In(amaranth.lib.stream.Signature(shape))``, that is the flipped signature:
        ``payload`` and ``valid`` in, ``ready`` out) or ``"out"``
        (``Out(amaranth.lib.stream.Signature(shape))``).

    Members
    -------
    ctrl : Out(ControlSignature())
    <scalar> : In(shape)
    ret, ret_<i> : Out(shape)
    <array>_read : In(memory.ReadPort.Signature(...))
    <array>_write : In(memory.WritePort.Signature(...))
    <array>_read_<k>, <array>_write_<k> : the same, per bank of a partitioned array
    <stream> : In(stream.Signature(shape)) for an input, Out(stream.Signature(shape)) for an output

    Attributes
    ----------
    control : str
        Name of the handshake group, ``"ctrl"``.
    scalars : dict of str to Shape
    results : list of (str, Shape)
        Port name and shape of each result, in order.
    arrays : dict of str to (Shape, int)
        Element shape and depth of each array.
    array_groups : dict of str to (str, str)
        Names of the read and write port groups of each array that is not partitioned.
    partitions : dict of str to Partition
        The partitioned arrays.
    bank_groups : dict of str to list of (str, str, int)
        Every array's banks in order (one for an array that is not partitioned): the
        read and write group names and the number of elements of the bank.
    streams : dict of str to (Shape, str)
        Token shape and direction (``"in"`` or ``"out"``) of each stream.

    Raises
    ------
    TypeError
        A shape that is not shape-castable, or a depth that is not an integer.
    ValueError
        A depth below 1, a stream direction other than ``"in"`` and ``"out"``, or two
        ports with the same name.
    """

    control = "ctrl"

    def __init__(self, *, scalars=None, results=(), arrays=None, partitions=None, streams=None):
        self.scalars = {str(name): Shape.cast(shape) for name, shape in (scalars or {}).items()}
        results = [Shape.cast(shape) for shape in results]
        self.results = [(port_name_of_result(index, len(results)), shape)
                        for index, shape in enumerate(results)]
        self.arrays = {}
        for name, (shape, depth) in (arrays or {}).items():
            if isinstance(depth, bool) or not isinstance(depth, int):
                raise TypeError(f"array {name!r}: depth must be an integer, not {depth!r}")
            if depth < 1:
                raise ValueError(f"array {name!r}: depth must be at least 1, not {depth}")
            self.arrays[str(name)] = (Shape.cast(shape), depth)
        self.partitions = {str(name): partition for name, partition in (partitions or {}).items()
                           if partition is not None}
        for name, partition in self.partitions.items():
            if name not in self.arrays:
                raise ValueError(f"partition of {name!r}, which is not an array of the kernel")
            problem = partition.check(self.arrays[name][1])
            if problem is not None:
                raise ValueError(f"array {name!r}: {problem}")
        self.array_groups = {name: (f"{name}_read", f"{name}_write") for name in self.arrays
                             if name not in self.partitions}
        self.bank_groups = {}
        for name, (_, depth) in self.arrays.items():
            partition = self.partitions.get(name)
            if partition is None:
                self.bank_groups[name] = [(f"{name}_read", f"{name}_write", depth)]
            else:
                self.bank_groups[name] = [(f"{name}_read_{bank}", f"{name}_write_{bank}",
                                           partition.bank_depth(depth))
                                          for bank in range(partition.banks(depth))]
        self.streams = {}
        for name, (shape, direction) in (streams or {}).items():
            if direction not in ("in", "out"):
                raise ValueError(f"stream {name!r}: direction must be 'in' or 'out', not {direction!r}")
            self.streams[str(name)] = (Shape.cast(shape), direction)
        members = {self.control: Out(ControlSignature())}

        def add(name, member):
            if name in members:
                raise ValueError(f"kernel port {name!r} is defined twice (a parameter's name "
                                 f"clashes with a port the convention makes)")
            members[name] = member

        for name, shape in self.scalars.items():
            add(name, In(shape))
        for name, shape in self.results:
            add(name, Out(shape))
        for name, (shape, depth) in self.arrays.items():
            for read, write, bank_depth in self.bank_groups[name]:
                addr_width = ceil_log2(bank_depth)
                add(read, In(memory.ReadPort.Signature(addr_width=addr_width, shape=shape)))
                add(write, In(memory.WritePort.Signature(addr_width=addr_width, shape=shape)))
        for name, (shape, direction) in self.streams.items():
            add(name, (In if direction == "in" else Out)(stream.Signature(shape)))
        super().__init__(members)

    def addr_width(self, array: str) -> int:
        """Address bits of the ports of ``array`` (of each of its banks, when partitioned)."""
        return ceil_log2(self.bank_groups[array][0][2])

    def ports(self) -> list[dict]:
        """Every Verilog port of a component with this signature, in member order.

        Each is ``{"name", "direction", "width", "signed"}``; the name joins the
        member path with ``__``, as :func:`amaranth.back.verilog.convert` does.
        """
        ports = []
        for path, member in self.members.flatten():
            if member.is_port:
                shape = Shape.cast(member.shape)
                ports.append({"name": "__".join(str(part) for part in path),
                              "direction": "input" if member.flow == In else "output",
                              "width": shape.width, "signed": shape.signed})
        return ports

    def __eq__(self, other):
        return (type(other) is KernelSignature and self.scalars == other.scalars
                and self.results == other.results and self.arrays == other.arrays
                and self.partitions == other.partitions and self.streams == other.streams)

    def __hash__(self):
        return hash((KernelSignature, tuple(self.scalars.items()), tuple(self.results),
                     tuple(self.arrays.items()), tuple(self.partitions.items()), tuple(self.streams.items())))

    def __repr__(self):
        partitions = f", partitions={self.partitions!r}" if self.partitions else ""
        streams = f", streams={self.streams!r}" if self.streams else ""
        return (f"KernelSignature(scalars={self.scalars!r}, "
                f"results={[shape for _, shape in self.results]!r}, arrays={self.arrays!r}{partitions}{streams})")


def kernel_signature(ir) -> KernelSignature:
    """The :class:`KernelSignature` of a kernel's IR."""
    return KernelSignature(scalars=dict(ir.scalar_params),
                           results=[ir.variables[var] for var in ir.return_vars],
                           arrays=ir.arrays,
                           partitions={name: ir.layout(name).partition for name in ir.arrays},
                           streams=getattr(ir, "streams", None))


def _signal_name(text: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in text).strip("_") or "v"


class KernelComponent(wiring.Component):
    """The hardware of one compiled kernel.

    Parameters
    ----------
    compiled : hls.compiler.CompiledKernel
        The IR and a schedule for every block.
    """

    def __init__(self, compiled):
        self._compiled = compiled
        super().__init__(kernel_signature(compiled.ir))

    def elaborate(self, platform):
        generator = self.generator = _Generator(self, self._compiled)
        if generator.stall is None:
            return generator.module
        # Streams: every register of the kernel holds while a stream operation cannot complete;
        # the output buffers stay outside, free to take the consumer's `ready` every cycle.
        m = Module()
        m.submodules.pipeline = EnableInserter({"sync": ~generator.stall})(generator.module)
        for name, buffer in generator.stream_buffers.items():
            m.submodules[f"{_signal_name(name)}_buffer"] = buffer
        # Local memories too: their writes come from registers the stall holds (_Port.pending),
        # so the stall reaches only those registers' enables, not the memory's write decoding.
        for name, mem in generator.local_memories.items():
            m.submodules[name] = mem
        return m


def register_bits(compiled) -> dict:
    """The flip-flops the kernel's module declares, before synthesis: ``{"bits": total, "variables":
    {var: [declared, built]}, "pipeline_registers_narrowed": n, "pipeline_bits_saved": bits,
    "shared_carries": [var, ...], "direct_carry_reads": n}`` (the last four: what the value
    analysis changed; :mod:`hls.analysis.registers`).  Units' own stages are counted too."""
    component = KernelComponent(compiled)
    fragment = Fragment.get(component, None)
    generator = component.generator
    signals = {}

    def collect(fragment):
        for statement in getattr(fragment, "statements", {}).get("sync", []):
            # Amaranth 0.5 has no public walk over a statement's targets.
            for signal in statement._lhs_signals():
                signals[id(signal)] = len(signal)
        for subfragment, _name, _src in getattr(fragment, "subfragments", []):
            collect(Fragment.get(subfragment, None))
    collect(fragment)
    widths = generator.widths
    return {"bits": sum(signals.values()),
            "variables": {var: list(pair) for var, pair in sorted(widths.narrowed_variables.items())},
            "pipeline_registers_narrowed": len(widths.narrowed),
            "pipeline_bits_saved": sum(generator.delay_registers.get(name, 0) * (declared - built)
                                       for name, (declared, built) in widths.narrowed.items()),
            "shared_carries": sorted(generator.shared_carries),
            "direct_carry_reads": generator.direct_carry_reads}


class _Port:
    """Requests on one array port (of one bank) from every block; a priority multiplexer drives it.

    ``port`` is the component's port group, or a port of a local memory: it has
    ``addr``, ``en`` and ``data``.  ``data`` is what a read sees a cycle after its address.

    With ``pending`` (a local memory's ports in a kernel with streams), the write port takes
    each cycle's write from registers, a cycle late: ``pending`` is that write's
    ``(en, addr, data)``, set by :meth:`_Generator.drive_ports`, and a read's ``data`` takes
    the pending write where it hits the address read, as if it were already in the memory.
    """

    def __init__(self, port, *, pending: bool = False):
        self.port = port
        self.requests = []   # (active, addr, data or None)
        self.pending = None
        self.data = port.data
        if pending:
            self.data = Signal.like(port.data, name=f"{port.data.name}_seen")
            self.pending = (Signal(name=f"{port.addr.name}_pending_en"),
                            Signal.like(port.addr, name=f"{port.addr.name}_pending"),
                            Signal.like(port.data, name=f"{port.data.name}_pending"))


class _Generator:
    """Builds the module of one :class:`KernelComponent`: variables, control token, blocks, loops, ports."""

    def __init__(self, component, compiled):
        self.c = component
        self.compiled = compiled
        ir = self.ir = compiled.ir
        m = self.module = Module()
        #: Registers take the shapes of the intervals the value analysis proves
        #: (``compile_kernel(narrowing=False)``: the declared and the operations' own shapes).
        self.widths = RegisterWidths(ir, enabled=compiled.narrowing)
        self.shared_carries = []        # carried variables whose register is the variable's own
        self.direct_carry_reads = 0     # taps that read a carry register instead of a delay line
        self.delay_registers = {}       # op name -> delay registers built for it
        self.registers = {var: Signal(self.widths.variable(var), name=f"var_{_signal_name(var)}")
                          for var in ir.variables}
        #: Each variable's register widened back to its declared shape: what every read sees.
        self.reads = {}
        for var, shape in ir.variables.items():
            self.reads[var] = self.registers[var]
            if self.widths.variable(var) != Shape.cast(shape):
                self.reads[var] = Signal(shape, name=f"var_{_signal_name(var)}_wide")
                m.d.comb += self.reads[var].eq(self.registers[var])
        # (array, bank) -> _Port; bank None for an array that is not partitioned.
        self.read_ports, self.write_ports = {}, {}
        self.register_banks = {}     # array -> one register per element (complete local partition)
        streams = getattr(ir, "streams", None) or {}
        #: Local memories of a kernel with streams: built outside the stall's enable (see _Port).
        self.local_memories = {}
        for name in getattr(ir, "layouts", None) or ir.arrays:
            layout = ir.layout(name)
            # A local bank nothing reads or writes (its accesses dead or folded) is not built.
            banks = ir.built_banks(name)
            if layout.registers:
                if banks:
                    self.register_banks[name] = [Signal(layout.shape, name=f"{_signal_name(name)}_{index}")
                                                 for index in range(layout.depth)]
                continue
            for bank in banks:
                suffix = "" if bank is None else f"_{bank}"
                pending = bool(layout.local and streams)
                if layout.local:
                    mem = memory.Memory(shape=layout.shape, depth=layout.bank_depth, init=[])
                    if pending:
                        self.local_memories[f"local_{_signal_name(name)}{suffix}"] = mem
                    else:
                        m.submodules[f"local_{_signal_name(name)}{suffix}"] = mem
                    read, write = mem.read_port(), mem.write_port()
                else:
                    read = getattr(component, f"{name}_read{suffix}")
                    write = getattr(component, f"{name}_write{suffix}")
                self.read_ports[(name, bank)] = _Port(read, pending=pending)
                self.write_ports[(name, bank)] = _Port(write, pending=pending)
        self.go = {id(node): [] for node in ir.nodes}
        self.loop_signals = {}   # loop name -> its control signals, for tests and debugging
        self.in_flight = []      # of each loop whose runs overlap: any iteration still in its pipeline
        self.finish = []
        # Streams: the requests of every read and write, the output buffers, and the stall.
        self.stall = Signal(name="stall") if streams else None
        self.stream_requests = {name: [] for name in streams}     # [(active, data or None)]
        self.stream_buffers = {}
        for name, (shape, direction) in streams.items():
            if direction == "out":
                buffer = self.stream_buffers[name] = fifo.SyncFIFO(width=Shape.cast(shape).width, depth=2)
                # `done` waits for the consumer to take every token.
                self.in_flight.append(buffer.r_rdy)

        busy = Signal()
        start = component.ctrl.start & ~busy
        go_entry = Signal()
        m.d.sync += go_entry.eq(start)
        with m.If(start):
            m.d.sync += busy.eq(1)
            # Local arrays start at zero, as in the golden model; registers can be cleared.
            for registers in self.register_banks.values():
                m.d.sync += [register.eq(0) for register in registers]
            for name, _ in ir.scalar_params:
                m.d.sync += self.registers[name].eq(getattr(component, name))
        self.go[id(ir.entry)].append(go_entry)

        self.go_signals = {id(node): Signal(name=f"go_{_signal_name(node.name)}") for node in ir.nodes}
        for node in ir.nodes:
            if isinstance(node, PipelinedLoop):
                self.pipelined_loop(node)
            else:
                self.block(node)
        for node in ir.nodes:
            sources = self.go[id(node)]
            m.d.comb += self.go_signals[id(node)].eq(_any(sources))

        finished = Signal()
        if self.in_flight:
            # An overlapped loop may still drain when control reaches the kernel's end: `done`
            # waits for its last iterations, so that every result is final when it rises.
            ending, waiting, in_flight = Signal(), Signal(), Signal()
            m.d.comb += [ending.eq(_any(self.finish)), in_flight.eq(_any(self.in_flight)),
                         finished.eq((ending | waiting) & ~in_flight)]
            with m.If(ending & in_flight):
                m.d.sync += waiting.eq(1)
            with m.If(finished):
                m.d.sync += waiting.eq(0)
        else:
            m.d.comb += finished.eq(_any(self.finish))
        with m.If(finished):
            m.d.sync += busy.eq(0)
        # A stalled cycle does not happen: no `done` in it.
        m.d.comb += [component.ctrl.busy.eq(busy),
                     component.ctrl.done.eq(finished if self.stall is None else finished & ~self.stall)]
        for index, var in enumerate(ir.return_vars):
            port = getattr(component, port_name_of_result(index, len(ir.return_vars)))
            m.d.comb += port.eq(self.reads[var])
        self.drive_ports()
        self.drive_streams()

    # -- control ----------------------------------------------------------------
    def route(self, target, pulse):
        if target is None:
            self.finish.append(pulse)
        else:
            self.go[id(target)].append(pulse)

    def block(self, block: Block):
        m = self.module
        go = self.go_signals[id(block)]
        if not block.ops and not block.exits:
            # Nothing to do: pass the token on in the same cycle.
            self.route(block.successor, go)
            return
        schedule = self.compiled.schedules[id(block)]
        length = max(1, schedule.length)
        valid = [go] + [Signal(name=f"{_signal_name(block.name)}_v{t}") for t in range(1, length + 1)]
        for t in range(1, length + 1):
            m.d.sync += valid[t].eq(valid[t - 1])
        datapath = _Datapath(self, block, schedule, valid, induction=None,
                             invariant_reads=self.widths.enabled and not getattr(self.compiled, "overlaps", {}))
        done = valid[length]
        taken = []
        for exit in block.exits:
            condition = datapath.tap(exit.condition, length)
            pulse = Signal(name=f"{_signal_name(block.name)}_{exit.kind}")
            m.d.comb += pulse.eq(done & condition & ~_any(taken))
            taken.append(condition)
            self.route(exit.target, pulse)
        otherwise = Signal(name=f"{_signal_name(block.name)}_next")
        m.d.comb += otherwise.eq(done & ~_any(taken))
        if block.branch is not None:
            condition, if_true, if_false = block.branch
            value = datapath.tap(condition, length)
            true_pulse, false_pulse = Signal(), Signal()
            m.d.comb += [true_pulse.eq(otherwise & value), false_pulse.eq(otherwise & ~value)]
            self.route(if_true, true_pulse)
            self.route(if_false, false_pulse)
        else:
            self.route(block.successor, otherwise)

    def pipelined_loop(self, loop: PipelinedLoop):
        m = self.module
        prefix = _signal_name(loop.name)
        go = self.go_signals[id(loop)]
        schedule = self.compiled.schedules[id(loop.body)]
        ii = schedule.ii
        length = max(1, schedule.length)
        running = Signal(name=f"{prefix}_running")
        slot = Signal(range(max(2, ii)), name=f"{prefix}_slot")
        # `go` only loads the counter and starts the loop; the first iteration issues in the
        # next cycle, so that no combinational path runs from the previous block's `done`
        # through the exit test into the whole pipeline.
        if loop.kind == "for":
            counter = Signal(loop.counter_shape, name=f"{prefix}_counter")
            current = counter
            stop = self.reads[loop.stop_var]

            def inside(value):
                return (value < stop) if loop.step > 0 else (value > stop)
            # `counter < stop`, registered with each new counter value: the comparison's carry
            # chain then ends in this flip-flop instead of running on through `issue` into the
            # counter's multiplexer and the valid chain (a plain sum: 141-146 MHz on seeds 1-3
            # with the comparison in front of `issue`). The bound's register does not change
            # while the loop runs: only the block before the loop writes it.
            in_range = Signal(name=f"{prefix}_in_range")

            def inside_next(value):
                # `inside(value + step)`, in the cycle of an issue, where `inside(value)` holds. For
                # a step of 1 that is `value + 1 != stop`, tested bit by bit without a carry chain
                # (`_plus_one_equals`): the increment and the comparison were two carry chains in
                # series, the critical path of a plain sum (174-190 MHz on seeds 1-3 at 150).
                if loop.step == 1:
                    return ~_plus_one_equals(m, value, stop, f"{prefix}_last")
                if loop.step == -1:
                    return ~_plus_one_equals(m, stop, value, f"{prefix}_last")
                return inside(value + loop.step)
        else:
            current, in_range = None, Const(1, 1)   # a while loop ends only through its exits
        at_slot0 = running & (slot == 0)
        issue = Signal(name=f"{prefix}_issue")
        ending = Signal(name=f"{prefix}_ending")
        # The loop ends as soon as its counter has passed the last iteration, not at the next
        # slot 0: with II above the depth, that would wait for an iteration that never issues.
        m.d.comb += [issue.eq(at_slot0 & in_range), ending.eq(running & ~in_range)]
        # Forwarding looks at the previous iteration, II cycles further down the valid chain.
        chain = max([length] + [schedule.start[op.name] + ii for op in loop.body.ops if op.kind == "forward"])
        valid = [issue] + [Signal(name=f"{prefix}_v{t}") for t in range(1, chain + 1)]
        for t in range(1, chain + 1):
            m.d.sync += valid[t].eq(valid[t - 1])
        draining = Signal(name=f"{prefix}_draining")
        done = Signal(name=f"{prefix}_done")
        # Overlapped runs (hls.analysis.overlap): control passes on `early` cycles before the
        # last iteration completes, once no iteration is left in stages 1 .. length-early-1;
        # the analysis proved that nothing the code after the loop or the next run touches is
        # still used by those last iterations.
        overlap = getattr(self.compiled, "overlaps", {}).get(loop.name)
        early = 0 if overlap is None else overlap.cycles
        assert 0 <= early < length, f"{loop.name}: overlap of {early} cycles with depth {length}"
        m.d.comb += done.eq((ending | draining) & ~_any(valid[1:length - early]))
        if early:
            self.in_flight.append(_any(valid[1:length]))
        with m.If(running):
            m.d.sync += slot.eq(Mux(slot == ii - 1, 0, slot + 1))
        with m.If(go):
            m.d.sync += [running.eq(1), slot.eq(0)]
            if current is not None:
                first = self.reads[loop.start_var]
                m.d.sync += [counter.eq(first), in_range.eq(inside(first))]
        if current is not None:
            with m.If(issue):
                m.d.sync += [counter.eq(current + loop.step), in_range.eq(inside_next(current))]
        with m.If(ending):
            m.d.sync += [running.eq(0), draining.eq(1)]
        carry_registers, carry_reads = {}, {}
        mirrored = mirrored_commits(loop.body, schedule.start) if self.widths.enabled and not early else {}
        for op in loop.body.ops:
            if op.kind == "carry":
                var = op.attrs["var"]
                if var in mirrored:
                    # Every iteration commits the value it carries, in the same cycle and under the
                    # same valid bit: the variable's register is the carry register.
                    carry_registers[var], carry_reads[var] = self.registers[var], self.reads[var]
                    self.shared_carries.append(var)
                    continue
                register = Signal(self.widths.variable(var), name=f"{prefix}_carry_{_signal_name(var)}")
                carry_registers[var] = carry_reads[var] = register
                with m.If(go):
                    m.d.sync += register.eq(self.registers[var])
                if self.widths.variable(var) != Shape.cast(self.ir.variables[var]):
                    carry_reads[var] = Signal(self.ir.variables[var], name=f"{prefix}_carry_{_signal_name(var)}_wide")
                    m.d.comb += carry_reads[var].eq(register)
        # With overlapped runs, the next run's `go` reloads the carry registers while the last
        # iterations drain: those read what they carried in the cycle they read it.
        datapath = _Datapath(self, loop.body, schedule, valid, induction=current,
                             carry_registers=carry_registers, carry_reads=carry_reads, go=go,
                             mirrored=set(mirrored.values()), holds=self.widths.enabled and not early,
                             late_induction=((self.reads[loop.start_var], loop.step)
                                             if current is not None and self.widths.enabled and not early else None),
                             invariant_reads=self.widths.enabled and not early)
        for time, fire in datapath.exit_fires:
            # Squash: the iterations younger than the exiting one sit at cycles below
            # `time`; clear their valid bits (and this cycle's issue) and stop issuing.
            with m.If(fire):
                m.d.sync += [valid[t].eq(0) for t in range(1, time + 1)]
                m.d.sync += [running.eq(0), draining.eq(1)]
        # `done` needs `ending` (which clears `running` itself) or `draining` (set only where
        # `running` was cleared, and a run's next `go` comes after its `done`), so it clears
        # `draining` alone: `running`'s reset then reads the exit and range tests, not the
        # valid chain's OR as well.
        with m.If(done):
            m.d.sync += draining.eq(0)
        self.route(loop.successor, done)
        self.loop_signals[loop.name] = {"go": go, "issue": issue, "running": running, "draining": draining,
                                        "done": done, "valid": valid, "carry": carry_registers,
                                        "exits": [fire for _, fire in datapath.exit_fires], "datapath": datapath}

    def read_address_width(self, array: str) -> int:
        """Bits of the whole array's index (what forwarding compares)."""
        return self.ir.layout(array).index_width

    def bank_address(self, array: str, index):
        """The address in its bank of element ``index`` (the index itself when not partitioned)."""
        layout = self.ir.layout(array)
        if layout.partition is None:
            return index
        low, width = layout.offset_bits()
        if not width:
            return Const(0, 0)
        extended = Signal(Shape(max(low + width, len(index)), index.shape().signed))
        self.module.d.comb += extended.eq(index)
        return extended[low:low + width]

    # -- ports ------------------------------------------------------------------
    def drive_ports(self):
        m = self.module
        # In a stalled cycle a read port holds its data, and nothing is written.
        moving = Const(1, 1) if self.stall is None else ~self.stall
        streams = self.stall is not None
        for key, port in self.read_ports.items():
            read = port.port
            m.d.comb += read.en.eq(moving)
            _priority(m, read.addr, port.requests, lambda r: r[1], last_by_default=streams)
        for key, port in self.write_ports.items():
            write, requests = port.port, port.requests
            if port.pending is None:
                m.d.comb += write.en.eq(_any([r[0] for r in requests]) & moving)
                _priority(m, write.addr, requests, lambda r: r[1], last_by_default=streams)
                _priority(m, write.data, requests, lambda r: r[2], last_by_default=streams)
                continue
            # The write of a cycle that happens (a stalled cycle's is not taken: these registers
            # hold, and the memory writes the held write again, the same value) goes to the
            # memory in the next cycle; a read of that next cycle takes it from the registers.
            en, addr, data = port.pending
            addr_now, data_now = Signal.like(addr, name=f"{addr.name}_now"), Signal.like(data, name=f"{data.name}_now")
            _priority(m, addr_now, requests, lambda r: r[1], last_by_default=True)
            _priority(m, data_now, requests, lambda r: r[2], last_by_default=True)
            m.d.sync += [en.eq(_any([r[0] for r in requests])), addr.eq(addr_now), data.eq(data_now)]
            m.d.comb += [write.en.eq(en), write.addr.eq(addr), write.data.eq(data)]
            read = self.read_ports[key]
            hit, held = Signal(name=f"{addr.name}_hit"), Signal.like(data, name=f"{data.name}_held")
            m.d.sync += [hit.eq(en & (addr == read.port.addr)), held.eq(data)]
            m.d.comb += read.data.eq(Mux(hit, held, read.port.data))


    def drive_streams(self):
        """Each stream's handshake from its requests, and ``stall``: a request that cannot complete."""
        if self.stall is None:
            return
        m = self.module
        blocked = []
        for name, requests in self.stream_requests.items():
            active = Signal(name=f"{_signal_name(name)}_active")
            m.d.comb += active.eq(_any([request[0] for request in requests]))
            port = getattr(self.c, name)
            if name in self.stream_buffers:
                buffer = self.stream_buffers[name]
                m.d.comb += [buffer.w_en.eq(active & ~self.stall), port.payload.eq(buffer.r_data),
                             port.valid.eq(buffer.r_rdy), buffer.r_en.eq(port.ready)]
                _priority(m, buffer.w_data, requests, lambda r: r[1], last_by_default=True)
                blocked.append(active & ~buffer.w_rdy)
            else:
                m.d.comb += port.ready.eq(active & ~self.stall)
                blocked.append(active & ~port.valid)
        m.d.comb += self.stall.eq(_any(blocked))


def _placement_of(entry) -> str:
    """The back end's builder of ``entry``'s operations (``_Datapath._place_<name>``): the entry's
    :attr:`~hls.ir.ops.Operator.placement`, or ``"logic"`` for an operator built from its lowering
    or unit.

    Raises
    ------
    TypeError
        For an entry with neither (an internal error: the table is incomplete)."""
    if entry.placement is not None:
        return entry.placement
    if entry.lowering is None and entry.unit is None:
        raise TypeError(f"IR kind {entry.kind!r} has neither a placement nor a lowering in the operator "
                        f"table: the back end cannot build it")
    return "logic"


#: How many operations deep a recomputation reaches back through cheap logic.
_RECOMPUTE_DEPTH = 3


def _operand_values(entry, op, value) -> list:
    """``op``'s operands for ``entry``'s lowering: constant shift amounts and the like stay Python
    ints (so that ``x << 2`` widens as Amaranth's does), every other operand is ``value(operand)``."""
    return [operand.attrs["value"] if index in entry.constant_operands and operand.kind == "const"
            else value(operand) for index, operand in enumerate(op.operands)]


def _uses(block, schedule) -> dict:
    """``{op: [cycle, ...]}`` at which the datapath taps each operation of ``block``: operands and
    predicates at their user's start, a forwarded store's a modulo period later."""
    uses = {}

    def use(op, cycle):
        uses.setdefault(op, []).append(cycle)
    start, ii = schedule.start, schedule.ii
    for op in block.ops:
        t = start[op.name]
        for operand in op.operands:
            use(operand, t)
        if op.predicate is not None:
            use(op.predicate, t)
        if op.kind == "forward":
            for store in op.attrs["stores"]:
                for operand in store.operands:
                    use(operand, t + ii)
                if store.predicate is not None:
                    use(store.predicate, t + ii)
    return uses


def _priority(m, target, requests, pick, *, last_by_default=False):
    """Drive ``target`` (an address or data bus) from the first active of ``requests``, 0 where
    none is.

    With ``last_by_default`` (kernels with streams), the last request is the default instead,
    taken when no earlier one is active: where none is, the port's enable is low (or its read
    unused), so the bus's value does not matter, and a port with a single request is driven by
    it directly.  The requests' conditions (an iteration's valid bit, the loop's issue logic, a
    predicate: the paths the stall also waits for) then select among addresses only where
    several requests share the port, never gate a lone address into a wide read multiplexer."""
    if not requests:
        return
    *earlier, last = requests if last_by_default else (*requests, None)
    if not earlier:
        m.d.comb += target.eq(pick(last))
        return
    with m.If(earlier[0][0]):
        m.d.comb += target.eq(pick(earlier[0]))
    for request in earlier[1:]:
        with m.Elif(request[0]):
            m.d.comb += target.eq(pick(request))
    if last is not None:
        with m.Else():
            m.d.comb += target.eq(pick(last))


def _plus_one_equals(m, x, y, name: str):
    """A 1-bit signal, ``x + 1 == y``, from one LUT per bit and an AND tree: no carry chain.

    Both operands are sign- or zero-extended to ``W`` bits, one more than the wider: each
    value lies in ``[-2**(W-2), 2**(W-1))``, so ``x + 1 - y`` lies strictly between
    ``-2**W`` and ``2**W``, and equality modulo ``2**W`` is equality.  Adding 1 to ``x`` gives ``y`` exactly when
    the carry into every bit ``i`` is ``x[i] ^ y[i]``: the carry into bit 0 is 1, and the
    carry out of bit ``i`` is ``x[i] & c[i]``, which with ``c[i] = x[i] ^ y[i]`` is
    ``x[i] & ~y[i]``.  Each term reads four bits, one LUT4.
    """
    width = max(len(x), len(y)) + 1
    xs, ys = Signal(signed(width), name=f"{name}_x"), Signal(signed(width), name=f"{name}_y")
    m.d.comb += [xs.eq(x), ys.eq(y)]
    terms = [xs[0] ^ ys[0]] + [(xs[i + 1] ^ ys[i + 1]) == (xs[i] & ~ys[i]) for i in range(width - 1)]
    equal = Signal(name=name)
    m.d.comb += equal.eq(Cat(*terms).all())
    return equal


def _any(values):
    values = list(values)
    if not values:
        return Const(0, 1)
    # One reduction, not a chain of ORs: a deep pipeline's valid bits would nest one
    # operator per stage, past the recursion limit of Amaranth's simulator compiler.
    return Cat(*values).any()


class _Datapath:
    """The operations of one block, placed at their scheduled cycles."""

    def __init__(self, generator, block, schedule, valid, *, induction, carry_registers=None, carry_reads=None,
                 go=None, mirrored=frozenset(), holds=False, late_induction=None, invariant_reads=False):
        self.g = generator
        #: Reads of variables the block never writes, when nothing else runs beside it (no
        #: overlapped runs): the variable's register holds that value in every cycle of the
        #: block, so a later cycle reads the register, not a delay line.
        written = {op.attrs["var"] for op in block.ops if operator_of(op.kind).variable == "write"}
        self.invariant = (set(generator.ir.variables) - written) if invariant_reads else set()
        self.everywhere = set()
        #: ``(first, step)`` of a ``for`` loop whose iterations reach each stage in order (no
        #: overlapped runs): the induction value at a late stage is counted there instead of
        #: carried (:meth:`late_counter`); ``None`` otherwise.
        self.late_induction = late_induction
        self.late_counters = {}     # cycle -> register counting the iterations that reach it
        #: op -> the cycles at which operations tap it, and the last (its delay line reaches it anyway).
        self.uses = _uses(block, schedule) if generator.widths.enabled else {}
        self.last_use = {op: max(cycles) for op, cycles in self.uses.items()}
        self.reborn = {}            # op -> cycle at which it is recomputed, or None
        self.recomputed = {}        # (op, cycle) -> its value recomputed at that cycle
        self.carry_registers = carry_registers or {}
        self.carry_reads = carry_reads or self.carry_registers     # widened back to the variable's shape
        self.mirrored = mirrored    # commits whose variable's register is the carry register itself
        #: live_in of a carried variable -> (first, last, register): the cycles of an iteration in
        #: which the carry register holds the value that iteration read.
        self.held = {}
        self.holds = holds
        self.go = go
        self.exit_fires = []    # (cycle, pulse) of each exit operation
        self.m = generator.module
        self.block = block
        self.schedule = schedule
        self.valid = valid
        self.induction = induction
        self.born = {}      # op -> (cycle, value)
        self.lines = {}     # op -> delay line [value at born, born+1, ...]
        self.shared = {}    # operator type name -> [(op, operands)]
        self.pending_forwards = []
        self.carries = {op.attrs["var"]: op for op in block.ops if op.kind == "carry"}
        self.bypasses = []
        self.pending_bypass_values = {}
        for op in block.ops:
            self.place(op)
        for op, t, result in self.pending_forwards:
            self.forward(op, t, result)
        for op, t, carry in self.bypasses:
            bypassed, registered = self.pending_bypass_values[op]
            made_now = self.tap(carry.operands[0], self.start(carry))
            # The previous iteration is at cycle t + II = start(carry) now.
            self.m.d.comb += bypassed.eq(Mux(self.valid[self.start(carry)], made_now, registered))
        for optype, users in self.shared.items():
            self.share(optype, users)

    def start(self, op):
        return self.schedule.start[op.name]

    def tap(self, op, cycle):
        """``op``'s value as seen at relative ``cycle``."""
        if op.kind == "const":
            return Const(op.attrs["value"], op.shape)
        key = op
        born, value = self.born[op]
        if op in self.everywhere:
            return value
        if self.g.widths.enabled and cycle - born >= 2:
            rebirth = self.rebirth(op)
            if rebirth is not None and cycle > rebirth:
                # Recomputed at `rebirth` from operands whose delay lines reach it anyway: the
                # delay line starts there instead of at the operation's own cycle.
                key, born, value = (op, "reborn"), rebirth, self.value_at(op, rebirth, _RECOMPUTE_DEPTH, own=True)
        held = self.held.get(op) if key is op else None
        if held is not None and cycle >= held[0]:
            first, last, register = held
            if cycle <= last:
                if cycle > born:
                    self.g.direct_carry_reads += 1
                return register
            # Past the carry's write: a line from the register as it was in the cycle of the write.
            key, born, value = (op, "held"), last, register
        delay = cycle - born
        assert delay >= 0, f"{op.name} used at cycle {cycle} before it exists at {born}"
        # [(register, the register widened back to the operation's shape)]
        line = self.lines.setdefault(key, [(value, value)])
        # Callers never tap inside an m.If: the registers of a delay line shift unconditionally.
        while len(line) <= delay:
            name = f"{op.name}_d{len(line)}" if key is op else f"{op.name}_{key[1][0]}{len(line)}"
            shape = self.g.widths.pipeline(op)
            register = Signal(shape, name=name)
            self.g.delay_registers[op.name] = self.g.delay_registers.get(op.name, 0) + 1
            self.m.d.sync += register.eq(line[-1][0])
            view = register
            if shape != op.shape:
                # The interval holds every value the register can take: widened back, it is the value.
                view = Signal(op.shape, name=f"{name}_wide")
                self.m.d.comb += view.eq(register)
            line.append((register, view))
        return line[delay][1]

    # -- delay lines replaced by recomputation (registers sized by their ranges) ----------

    def _cheap(self, op) -> bool:
        """Whether ``op`` is combinational logic of its operands alone, recomputable anywhere."""
        if op.kind == "wrap":
            return True
        entry = operator_of(op.kind)
        if entry.placement is not None:
            return False        # built by the back end itself: never recomputed at another cycle
        if entry.has_unit:
            return False
        optype = self.g.compiled.schedule_of(self.block).problem.problem.operator_type_of(op.name)
        return optype.limit is None and optype.latency == 0

    def available(self, op, cycle, depth) -> bool:
        """Whether ``op``'s value at ``cycle`` costs no new delay register: a constant, a delay
        line that reaches ``cycle`` anyway, a late induction counter, or cheap logic of such."""
        if op.kind == "const":
            return True
        if op in self.everywhere or self.born[op][0] <= cycle <= self.last_use.get(op, -1):
            return True
        if op.kind == "induction":
            return self.late_induction is not None and cycle >= 1
        return depth > 0 and self._cheap(op) and all(self.available(x, cycle, depth - 1) for x in op.operands)

    def rebirth(self, op):
        """The cycle from which ``op``'s later uses read it recomputed (see :meth:`tap`), or ``None``.

        Its uses at cycles ``u_1 < ... < u_n`` need a delay line to ``u_n``.  When the
        operation can be recomputed at ``u_k - 1`` at no register cost (:meth:`available`), the
        uses from ``u_k`` on read a line from that cycle, and the ``u_k - 1 - u_(k-1)``
        registers between go; the widest such gap is taken."""
        if op in self.reborn:
            return self.reborn[op]
        best, saved = None, 1       # a rebirth costs a register of its own: it must save 2
        recomputable = op.kind == "induction" or self._cheap(op)
        born = self.born[op][0]
        if recomputable:
            uses = sorted({u for u in self.uses.get(op, ()) if u > born})
            previous = born
            for use in uses:
                candidate = use - 1
                if candidate - previous > saved and all(self.available(x, candidate, _RECOMPUTE_DEPTH - 1)
                                                        for x in op.operands) \
                        and (op.kind != "induction" or self.late_induction is not None):
                    best, saved = candidate, candidate - previous
                previous = use
        self.reborn[op] = best
        return best

    def value_at(self, op, cycle, depth, *, own=False):
        """``op``'s value for the iteration at ``cycle``, recomputed where :meth:`available` says so."""
        if op.kind == "const":
            return Const(op.attrs["value"], op.shape)
        if not own and (op in self.everywhere or self.born[op][0] <= cycle <= self.last_use.get(op, -1)
                        or depth <= 0):
            return self.tap(op, cycle)
        if op.kind == "induction":
            return self.late_counter(cycle)
        if not self._cheap(op):
            return self.tap(op, cycle)
        key = (op, cycle)
        if key not in self.recomputed:
            out = Signal(op.shape, name=f"{op.name}_at{cycle}")
            if op.kind == "wrap":
                self.m.d.comb += out.eq(self.value_at(op.operands[0], cycle, depth - 1))
            else:
                entry = operator_of(op.kind)
                operands = _operand_values(entry, op, lambda operand: self.value_at(operand, cycle, depth - 1))
                self.m.d.comb += out.eq(entry.lower(*operands))
            self.recomputed[key] = out
        return self.recomputed[key]

    def late_counter(self, cycle):
        """The induction value of the iteration at ``cycle``: a counter that starts where the
        loop's counter starts and steps once per iteration that reaches ``cycle``.  Iterations
        reach a stage in issue order and only a squash drops one, and a squash drops every
        younger iteration (the loop then ends), so the k-th arrival is the k-th iteration."""
        if cycle not in self.late_counters:
            first, step = self.late_induction
            register = Signal(self.induction.shape(), name=f"{_signal_name(self.block.name)}_induction_at{cycle}")
            self.m.d.sync += register.eq(Mux(self.go, first, Mux(self.valid[cycle], register + step, register)))
            self.late_counters[cycle] = register
        return self.late_counters[cycle]

    def operand(self, op, cycle):
        # Constant shift amounts stay Python ints, so that `x << 2` widens as Amaranth's does.
        return self.tap(op, cycle)

    def place(self, op):
        """Build ``op`` at its scheduled cycle with the builder its table entry names: its
        :attr:`~hls.ir.ops.Operator.placement` (``_place_<placement>``), or, for an entry with none,
        its lowering or unit (:meth:`_place_logic`)."""
        name = _placement_of(operator_of(op.kind))
        builder = getattr(self, f"_place_{name}", None)
        if builder is None:
            raise TypeError(f"IR kind {op.kind!r}: the operator table names placement {name!r}, which the "
                            f"back end does not have (known: {', '.join(sorted(PLACEMENTS))})")
        t = self.start(op)
        builder(op, t, self.valid[t])

    # -- the builders of the structural kinds (Operator.placement) ---------------------------

    def _place_const(self, op, t, valid):
        """Nothing: every use of a constant is the constant itself (:meth:`tap`)."""

    def _place_live_in(self, op, t, valid):
        var = op.attrs["var"]
        if var in self.carry_registers:
            # The carry register is loaded from the variable when the loop starts (a cycle
            # before the first iteration).  When the previous iteration makes the value in
            # this very cycle, it is bypassed.
            value = self.carry_reads[var]
            carry = self.carries[var]
            written = self.start(carry)
            # Iteration k + 1 reads at its cycle c what iteration k wrote at its cycle `written`
            # (the write is seen from written - II + 1 on) until it writes the register itself.
            if self.holds:
                self.held[op] = (max(t + 1, written - self.schedule.ii + 1), written, value)
            if self.start(carry) == t + self.schedule.ii:
                self.bypasses.append((op, t, carry))
                bypassed = Signal(op.shape, name=f"{op.name}_bypass")
                self.born[op] = (t, bypassed)
                self.pending_bypass_values[op] = (bypassed, value)
            else:
                self.born[op] = (t, value)
        else:
            self.born[op] = (t, self.g.reads[var])
            if var in self.invariant:
                self.everywhere.add(op)

    def _place_carry(self, op, t, valid):
        value = self.tap(op.operands[0], t)     # outside the If: a delay line must shift every cycle
        with self.m.If(valid):
            self.m.d.sync += self.carry_registers[op.attrs["var"]].eq(value)

    def _place_exit(self, op, t, valid):
        fire = Signal(name=f"{op.name}_fire")
        self.m.d.comb += fire.eq(valid & self.tap(op.operands[0], t))
        self.exit_fires.append((t, fire))

    def _place_forward(self, op, t, valid):
        # Its stores come later in program order: wire it once every value exists.
        result = Signal(op.shape, name=op.name)
        self.born[op] = (t, result)
        self.pending_forwards.append((op, t, result))

    def _place_induction(self, op, t, valid):
        self.born[op] = (0, self.induction)

    def _place_wrap(self, op, t, valid):
        out = Signal(op.shape, name=op.name)
        self.m.d.comb += out.eq(self.tap(op.operands[0], t))
        self.born[op] = (t, out)

    def _place_commit(self, op, t, valid):
        if op in self.mirrored:
            return
        enable = valid if op.predicate is None else valid & self.tap(op.predicate, t)
        value = self.tap(op.operands[0], t)     # outside the If: a delay line must shift every cycle
        with self.m.If(enable):
            self.m.d.sync += self.g.registers[op.attrs["var"]].eq(value)

    def _place_load(self, op, t, valid):
        array, bank = op.attrs["array"], op.attrs.get("bank")
        if array in self.g.register_banks:
            # A register: no latency, and no port to request, so its predicate is not
            # needed (the scheduler does not wait for it: the read may start before it).
            self.born[op] = (t, self.g.register_banks[array][bank])
            return
        # A speculated read requests the port whatever its predicate (it was not scheduled after it).
        guard = self.g.compiled.schedule_of(self.block).problem.guard(op)
        active = valid if guard is None else valid & self.tap(guard, t)
        if op.attrs.get("first_iteration_only"):
            active = active & ~self.valid[t + self.schedule.ii]   # no previous iteration in flight
        port = self.g.read_ports[(array, bank)]
        port.requests.append((active, self.g.bank_address(array, self.tap(op.operands[0], t)), None))
        self.born[op] = (t + 1, port.data)

    def _place_stream_read(self, op, t, valid):
        active = valid if op.predicate is None else valid & self.tap(op.predicate, t)
        self.g.stream_requests[op.attrs["stream"]].append((active, None))
        self.born[op] = (t, getattr(self.g.c, op.attrs["stream"]).payload)

    def _place_stream_write(self, op, t, valid):
        active = valid if op.predicate is None else valid & self.tap(op.predicate, t)
        self.g.stream_requests[op.attrs["stream"]].append((active, self.tap(op.operands[0], t)))

    def _place_store(self, op, t, valid):
        active = valid if op.predicate is None else valid & self.tap(op.predicate, t)
        array, bank = op.attrs["array"], op.attrs.get("bank")
        data = self.tap(op.operands[1], t)
        if array in self.g.register_banks:
            with self.m.If(active):
                self.m.d.sync += self.g.register_banks[array][bank].eq(data)
            return
        self.g.write_ports[(array, bank)].requests.append(
            (active, self.g.bank_address(array, self.tap(op.operands[0], t)), data))

    def _place_logic(self, op, t, valid):
        """An operator built from its table entry: its lowering, its registered stages, or an
        instance of a shared operator type (:meth:`share`)."""
        m = self.m
        entry = operator_of(op.kind)
        operands = _operand_values(entry, op, lambda operand: self.tap(operand, t))
        out = Signal(op.shape, name=op.name)
        problem = self.g.compiled.schedule_of(self.block).problem.problem
        optype = problem.operator_type_of(op.name)
        if optype.limit is not None:
            self.shared.setdefault(optype.name, []).append((op, operands, out))
            if entry.has_unit and optype.latency >= 1:
                # A pipelined unit shared by its users (see share()): the result
                # appears `latency` cycles after the start.
                self.born[op] = (t + optype.latency, out)
                return
        else:
            # Slower than a cycle: the entry's registered stages, where it has them for these operands.
            staged = None
            if optype.latency >= 1 or entry.unit is not None:
                staged = entry.lower_pipelined(
                    Lowering(m, op.name, op.shape, optype.latency, lambda stage: self.valid[t + stage],
                             op.attrs, target=self.g.compiled.target),
                    operands)
            if staged is not None:
                cycles, value = staged
                self.born[op] = (t + cycles, value)
                return
            m.d.comb += out.eq(entry.lower(*operands))
        self.born[op] = (t, out)

    def forward(self, op, t, result):
        """The load's data, or the data of the latest matching store of the previous iteration.

        At cycle ``t`` of iteration ``k``, the previous iteration is at cycle
        ``t + II``: its store's address, data and predicate are read there, and
        its valid bit is ``v[t + II]``.
        """
        m = self.m
        load, index = op.operands
        address_width = self.g.read_address_width(op.attrs["array"])
        address = self.tap(index, t)
        previous = t + self.schedule.ii
        candidates = []
        for store in op.attrs["stores"]:
            store_index, store_data = store.operands
            hit = self.valid[previous]
            if store.predicate is not None:
                hit = hit & self.tap(store.predicate, previous)
            if address_width:
                hit = hit & (self.tap(store_index, previous)[:address_width] == address[:address_width])
            candidates.append((hit, self.tap(store_data, previous)))
        memory_data = self.tap(load, t)
        m.d.comb += result.eq(memory_data)
        for hit, data in candidates:       # later stores in program order override earlier ones
            with m.If(hit):
                m.d.comb += result.eq(data)

    def share(self, optype_name, users):
        """Build the instances of a limited operator type that the schedule's binding names.

        ``users`` holds ``(op, operands, out)`` for every operation of the type;
        ``schedule.binding`` (checked by the verifier) gives each one an
        instance.  Operations of one instance lie in different modulo slots,
        so at most one of their valid bits is set in any cycle, or start in the
        same cycle and are mutually exclusive, so at most one of their
        predicates holds: the active one selects the instance's operands.
        One limit may cover several kinds (``"div"`` covers ``//`` and ``%``):
        such an instance is one divider giving both the quotient and the
        remainder of its operands, and each operation takes its own.
        """
        m = self.m
        binding = self.schedule.schedule.binding
        instances = {}      # instance index -> [(op, operands, out)]
        for user in users:
            instances.setdefault(binding[user[0].name], []).append(user)
        for index, bound in sorted(instances.items()):
            arity = len(bound[0][1])
            shapes = []
            for position in range(arity):
                values = [operands[position] for _, operands, _ in bound]
                shapes.append(covering_shape([Value.cast(v).shape() for v in values]))
            inputs = [Signal(shape, name=f"{_signal_name(self.block.name)}_{_signal_name(optype_name)}{index}_in{p}")
                      for p, shape in enumerate(shapes)]
            # Every predicate is tapped before the If chain opens: a tap may add delay
            # registers to the module, which would end the chain between an If and its Elif.
            actives = []
            block_problem = self.g.compiled.schedule_of(self.block).problem
            for op, operands, _out in bound:
                t = self.start(op)
                active = self.valid[t]
                guard = block_problem.guard(op)     # None when speculated: nothing shares its slot
                if guard is not None:
                    active = active & self.tap(guard, t)
                actives.append(active)
            for position, ((_op, operands, _out), active) in enumerate(zip(bound, actives)):
                with (m.If(active) if position == 0 else m.Elif(active)):
                    m.d.comb += [inputs[p].eq(operands[p]) for p in range(arity)]
            results = {}
            optype = self.g.compiled.schedule_of(self.block).problem.problem.operator_types[optype_name]
            for kind in dict.fromkeys(op.kind for op, _, _ in bound):
                entry = operator_of(kind)
                staged = None
                if entry.unit is not None or (entry.unit_timing is not None and optype.latency >= 1):
                    # One pipelined unit per instance: a new operation may enter every cycle.
                    valid = _any(actives)
                    staged = entry.lower_pipelined(
                        Lowering(m, f"{_signal_name(self.block.name)}_{_signal_name(optype_name)}{index}", None,
                                 optype.latency, lambda stage, valid=valid: valid, bound[0][0].attrs,
                                 target=self.g.compiled.target), inputs)
                expression = amaranth_value(kind, inputs) if staged is None else staged[1]
                suffix = "" if len(results) == 0 and all(op.kind == kind for op, _, _ in bound) else f"_{kind}"
                results[kind] = Signal(expression.shape(),
                                       name=f"{_signal_name(self.block.name)}_{_signal_name(optype_name)}{index}_out{suffix}")
                m.d.comb += results[kind].eq(expression)
            for op, _, out in bound:
                m.d.comb += out.eq(results[op.kind])


#: The placements the back end builds: the names an :attr:`~hls.ir.ops.Operator.placement` may take.
PLACEMENTS = frozenset(name.removeprefix("_place_") for name in vars(_Datapath) if name.startswith("_place_"))
