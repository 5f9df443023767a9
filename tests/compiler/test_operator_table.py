"""The operator table (hls/ir/ops.py): every operator of the language has a complete entry,
the entry's golden function is what its Amaranth lowering computes, and an unknown kind
is a clear error everywhere."""

import ast
import random
import re
from pathlib import Path

import pytest
from amaranth.hdl import Module, Shape, Signal, signed, unsigned
from amaranth.sim import Simulator

import hls
from benchmarks.kernels import load
from hls.backend.component import PLACEMENTS, _placement_of
from hls.analysis.block_problems import LIMITABLE, build_problem
from hls.compiler import compile_kernel
from hls.frontend.check import COMPARISONS
from hls.frontend.shapes import BINARY_OPERATORS
from hls.ir import Block, Op, amaranth_shape, amaranth_value
from hls.ir.ops import OPERATORS, Lowering, Operator, Timing, UnknownOperatorError, operator_for_syntax, operator_of

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(path.stem for path in (ROOT / "benchmarks" / "kernels").glob("*.py")
                    if not path.stem.startswith("_"))


def _kinds_in_source():
    """Every kind the IR builder and the analyses create by name: `op("kind", ...)` / `Op(name, "kind", ...)`."""
    kinds = set()
    for path in [ROOT / "hls" / "ir" / "build.py", *(ROOT / "hls" / "analysis").glob("*.py")]:
        text = path.read_text()
        kinds |= set(re.findall(r"\bop\(\s*\"(\w+)\"", text))
        kinds |= set(re.findall(r"\bOp\([^,()]+(?:\([^()]*\))?[^,()]*,\s*\"(\w+)\"", text))
    return kinds


def _kinds_compiled():
    kinds = set()
    for name in BENCHMARKS:
        compiled = compile_kernel(load(name)[0])
        kinds |= {op.kind for block in compiled.ir.blocks() for op in block.ops}
    return kinds


#: Python operators and builtins the front end accepts in an expression.
LANGUAGE_SYNTAX = (list(BINARY_OPERATORS) + list(COMPARISONS)
                   + [ast.USub, ast.Invert, ast.Not, ast.And, ast.Or, ast.IfExp, min, max, abs])


def test_every_kind_the_compiler_makes_has_an_entry():
    made = _kinds_in_source() | _kinds_compiled()
    # The source scan must see the structural kinds, or it is not scanning anything.
    assert {"const", "live_in", "commit", "carry", "exit", "load", "store", "wrap", "induction", "select",
            "forward", "bool", "stream_read", "stream_write"} <= made
    assert made <= set(OPERATORS), sorted(made - set(OPERATORS))


@pytest.mark.parametrize("syntax", LANGUAGE_SYNTAX, ids=lambda s: getattr(s, "__name__", str(s)))
def test_every_operator_of_the_language_has_a_complete_entry(syntax):
    entry = operator_for_syntax(syntax)
    assert entry is not None, f"{syntax} has no entry"
    assert entry.category == "logic" and entry.lowering and entry.golden and entry.logic
    shapes = [unsigned(1)] + [signed(8)] * (entry.arity - 1) if entry.kind == "select" else [unsigned(8)] * entry.arity
    assert isinstance(entry.shape(*shapes), Shape)
    assert callable(entry.golden_for(shapes))
    assert entry.delay(hls.Target().delay_model, entry.shape(*shapes).width, tuple(s.width for s in shapes)) > 0
    # The compiled golden model (hls.golden) writes each operator from its entry's C form; only the
    # short-circuiting constructs it keeps as C control flow have none.
    assert (entry.c_form is None) == (entry.kind in ("land", "lor", "select")), entry.kind


def test_every_entry_is_complete_for_its_category():
    for kind, entry in OPERATORS.items():
        assert entry.kind == kind and entry.arity >= 0
        if entry.lowering is not None:
            assert entry.golden is not None and entry.logic is not None, kind
        assert (entry.port is not None) == (entry.category in ("memory", "stream")), kind
        if entry.category != "logic":
            assert entry.lowering is None and entry.logic is None and not entry.limited_by, kind
            assert entry.c_form is None, kind
            assert entry.description, kind
        if entry.pipelined is not None:
            assert entry.pipelined_description, kind
    # The resource names the table declares are exactly what resources= accepts.
    # Approximate units are limited as the operators they replace (issue 12).
    assert LIMITABLE == {"mul": ("mul", "approx_mul"), "div": ("floordiv", "mod", "approx_div", "approx_mod"),
                         "floordiv": ("floordiv", "approx_div"), "mod": ("mod", "approx_mod")}


def test_unknown_kind_is_a_clear_error_not_an_assertion():
    with pytest.raises(UnknownOperatorError, match=r"no operator 'pow' in the operator table .*known: add, sub"):
        operator_of("pow")
    with pytest.raises(ValueError, match="'pow'"):
        amaranth_value("pow", [Signal(4), Signal(4)])
    with pytest.raises(ValueError, match="'pow'"):
        amaranth_shape("pow", [unsigned(4), unsigned(4)])
    block = Block("b0")
    left = Op("a", "const", [], unsigned(4), attrs={"value": 3})
    block.ops = [left, Op("p", "pow", [left, left], unsigned(8))]
    with pytest.raises(UnknownOperatorError, match="'pow'"):
        build_problem(block, hls.Target())
    with pytest.raises(TypeError, match="structural"):
        OPERATORS["load"].lower(Signal(4))


SHAPE_PAIRS = [(unsigned(4), unsigned(3)), (signed(4), unsigned(3)), (signed(5), signed(3)),
               (unsigned(1), signed(4)), (unsigned(6), unsigned(1))]


def _values(shape, count, rng):
    low = -(1 << (shape.width - 1)) if shape.signed else 0
    high = (1 << (shape.width - 1)) - 1 if shape.signed else (1 << shape.width) - 1
    corners = [low, high, 0, min(1, high), max(-1, low)]
    return corners + [rng.randint(low, high) for _ in range(count)]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_golden_functions_compute_what_the_hardware_lowering_does(shapes):
    """Each entry's golden function against its Amaranth lowering, in Amaranth's simulator."""
    left_shape, right_shape = shapes
    rng = random.Random(str(shapes))
    a, b, c = Signal(left_shape, name="a"), Signal(right_shape, name="b"), Signal(name="c")
    m = Module()
    checks = []   # (kind, output signal, golden function, operand signals)
    for kind, entry in OPERATORS.items():
        if entry.lowering is None:
            continue
        if kind == "select":
            operands = [c, a, b]
        elif entry.arity == 2:
            if kind in ("shl", "shr") and right_shape.signed:
                continue        # the language rejects signed shift amounts
            operands = [a, b]
        else:
            operands = [a]
        expression = entry.lower(*operands)
        out = Signal(expression.shape(), name=f"out_{kind}")
        m.d.comb += out.eq(expression)
        checks.append((kind, out, entry.golden_for([o.shape() for o in operands]), operands))
    # Constant shift amounts are lowered as Python ints.
    for kind in ("shl", "shr"):
        out = Signal(OPERATORS[kind].lower(a, 2).shape(), name=f"out_{kind}_const")
        m.d.comb += out.eq(OPERATORS[kind].lower(a, 2))
        checks.append((f"{kind} 2", out, lambda x, _f=OPERATORS[kind].golden_for([left_shape, unsigned(2)]): _f(x, 2),
                       [a]))
    pairs = [(x, y, z) for x in _values(left_shape, 12, rng) for y in _values(right_shape, 6, rng) for z in (0, 1)]
    mismatches = []

    async def bench(ctx):
        for x, y, z in pairs:
            ctx.set(a, x)
            ctx.set(b, y)
            ctx.set(c, z)
            for kind, out, golden, operands in checks:
                arguments = [{"a": x, "b": y, "c": z}[operand.name] for operand in operands]
                expected = golden(*arguments)
                if ctx.get(out) != expected:
                    mismatches.append((kind, arguments, ctx.get(out), expected))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert not mismatches, mismatches[:10]


def test_python_inline_entries_mean_what_python_does():
    """Where the golden model keeps Python's operator, the entry's golden function agrees with it."""
    rng = random.Random(1)
    python = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
              "shl": lambda x, y: x << y, "shr": lambda x, y: x >> y, "and": lambda x, y: x & y,
              "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y, "lt": lambda x, y: int(x < y),
              "le": lambda x, y: int(x <= y), "gt": lambda x, y: int(x > y), "ge": lambda x, y: int(x >= y),
              "eq": lambda x, y: int(x == y), "ne": lambda x, y: int(x != y),
              "land": lambda x, y: int(bool(x) and bool(y)), "lor": lambda x, y: int(bool(x) or bool(y)),
              "neg": lambda x: -x, "select": lambda c, x, y: x if c else y}
    inline = {kind for kind, entry in OPERATORS.items() if entry.python_inline}
    assert inline == set(python)
    # The golden model keeps `and`, `or` and `if`-`else` as Python's, for their short-circuit.
    assert {"land", "lor", "select"} <= inline
    for kind in inline:
        entry = OPERATORS[kind]
        function = entry.golden_for([signed(8)] * entry.arity)
        for _ in range(200):
            arguments = [rng.randint(0, 7) if kind in ("shl", "shr") and i == 1 else rng.randint(-128, 127)
                         for i in range(entry.arity)]
            assert function(*arguments) == python[kind](*arguments), (kind, arguments)


def test_delay_model_formulas_are_the_tables():
    target = hls.Target()
    delay_model = target.delay_model
    for kind, entry in OPERATORS.items():
        if entry.logic is not None:
            assert target.operator_delay(kind, 16, (16, 16)[:entry.arity]) == \
                entry.delay(delay_model, 16, (16, 16)[:entry.arity])
    # A multiplication by a constant is the adders synthesis makes of it.
    assert OPERATORS["mul"].delay(delay_model, 16, (8, 8), constant=5) == \
        OPERATORS["add"].delay(delay_model, 16, (16,))
    assert OPERATORS["mul"].delay(delay_model, 16, (8, 8), constant=4) == 0.0


def test_a_new_operator_is_one_entry(monkeypatch):
    """An operator with its own pipeline stages (as issue 12's units will be) is one entry:
    the scheduler takes its latency, resources= limits it, the back end's hooks are its own."""
    def staged(lowering, operands):
        a, b = operands
        product = Signal(lowering.shape, name=f"{lowering.name}_product")
        with lowering.module.If(lowering.valid(0)):        # a clock enable: moves with valid data only
            lowering.module.d.sync += product.eq(a * b)
        return 1, product

    entry = Operator("staged_mul", 2, lowering=lambda a, b: a * b, golden=lambda shapes: (lambda a, b: a * b),
                     logic=lambda model, width, widths: 20.0, limited_by=("unit",), pipelined=staged,
                     pipelined_description="a unit of three registered stages",
                     timing=lambda delay, period: Timing(3, 1.5))
    monkeypatch.setitem(OPERATORS, "staged_mul", entry)
    block = Block("b0")
    a = Op("a", "const", [], unsigned(8), attrs={"value": 3})
    b = Op("b", "live_in", [], unsigned(8), attrs={"var": "x"})
    block.ops = [a, b, Op("p", "staged_mul", [b, b], unsigned(16))]
    problem = build_problem(block, hls.Target()).problem
    assert (problem.operator_type_of("p").latency, problem.operator_type_of("p").incoming_delay) == (3, 1.5)
    limited = build_problem(block, hls.Target(resources={"unit": 2})).problem
    assert limited.operator_type_of("p").name == "unit" and limited.operator_type_of("p").limit == 2
    assert entry.shape(unsigned(8), unsigned(8)) == unsigned(16)
    # Its pipelined lowering takes the clock enable of its stage.
    m = Module()
    x, y, valid = Signal(8), Signal(8), Signal()
    cycles, value = entry.lower_pipelined(Lowering(m, "p", unsigned(16), 3, lambda stage: valid), [x, y])
    assert cycles == 1 and value.shape() == unsigned(16)
    seen = []

    async def bench(ctx):
        ctx.set(x, 12)
        ctx.set(y, 11)
        await ctx.tick()
        seen.append(ctx.get(value))         # no valid data: the stage kept its value
        ctx.set(valid, 1)
        await ctx.tick()
        seen.append(ctx.get(value))

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen == [0, 132]


def test_the_classes_of_kinds_come_from_the_entries():
    # What the IR builder merges (value numbering) and what must not act in a squashed or
    # unselected iteration (the scheduler's control dependences, the exits' ordering) are read
    # from each entry's category and port, so a new kind falls in its class by its entry alone.
    effects = {kind for kind, entry in OPERATORS.items() if entry.has_effect}
    assert effects == {"commit", "store", "stream_read", "stream_write"}
    merged = {kind for kind, entry in OPERATORS.items() if entry.pure}
    assert {"load", "wrap", "add", "select", "approx_mul", "const", "live_in"} <= merged
    assert not merged & (effects | {"carry", "exit"})
    # The analyses ask "does it read or write an array / a variable" of the entry, not of a kind name.
    assert {kind for kind, entry in OPERATORS.items() if entry.reads_memory} == {"load"}
    assert {kind for kind, entry in OPERATORS.items() if entry.writes_memory} == {"store"}
    assert {kind for kind, entry in OPERATORS.items() if entry.variable == "read"} == {"live_in"}
    assert {kind for kind, entry in OPERATORS.items() if entry.variable == "write"} == {"commit", "carry"}


@pytest.mark.parametrize("name", ["histogram", "matmul_acc", "insertion_sort"])
def test_the_entries_say_which_operations_access_variables_and_arrays(name):
    # An operation names the variable it reads or writes (attrs["var"]) exactly when its entry says
    # it accesses one, and every memory access names its array: the analyses that follow variables
    # and arrays through the table's `variable`, `reads_memory` and `writes_memory` see them all.
    kernel, _ = load(name)
    ir = compile_kernel(kernel).ir
    ops = [op for block in ir.blocks() for op in block.ops]
    assert any(operator_of(op.kind).variable == "write" for op in ops)
    assert any(operator_of(op.kind).writes_memory for op in ops)
    for op in ops:
        entry = operator_of(op.kind)
        assert ("var" in op.attrs) == (entry.variable is not None), op
        if entry.category == "memory":
            assert "array" in op.attrs and entry.reads_memory != entry.writes_memory, op


def test_every_structural_kind_names_a_placement_the_back_end_has():
    # The back end places each operation with the builder its entry names (Operator.placement),
    # never by a switch over kinds: a structural entry without one, or naming a builder the
    # back end lacks, cannot be built.
    structural = {kind for kind, entry in OPERATORS.items() if entry.lowering is None and entry.unit is None}
    assert {"const", "live_in", "induction", "wrap", "commit", "carry", "exit", "load", "store",
            "stream_read", "stream_write", "forward"} <= structural
    for kind in structural:
        assert OPERATORS[kind].placement in PLACEMENTS, kind
    # Operators built from their lowering or unit take the back end's one builder for those.
    for kind, entry in OPERATORS.items():
        if kind not in structural:
            assert entry.placement is None, kind
            assert _placement_of(entry) == "logic" and "logic" in PLACEMENTS
    # Every builder the back end has is some entry's (no dead builder for a kind that is gone).
    assert PLACEMENTS == {entry.placement for entry in OPERATORS.values() if entry.placement} | {"logic"}


def test_a_kind_with_neither_placement_nor_lowering_is_a_clear_internal_error():
    with pytest.raises(TypeError, match=r"'ghost' has neither a placement nor a lowering"):
        _placement_of(Operator("ghost", 1, "wire", description="nothing"))
