"""Random nested expressions: the golden model and the inferred shapes against Amaranth.

A seeded generator builds each expression twice, as kernel source and as an
Amaranth value over signals of the same shapes; Amaranth's simulator evaluates
the latter. Every kernel returns its expression at exactly the expression's
own shape, so nothing wraps and any difference in value or shape is a bug.
"""

import importlib.util
import random
import sys

from amaranth.hdl import Const, Module, Mux, Signal, signed, unsigned
from amaranth.sim import Simulator

from hls.frontend import shape_of
from hls.types import shape_range

LEAVES = {"a": signed(5), "b": unsigned(4), "c": unsigned(3)}
COUNT = 150
POINTS = 24


def _name(shape):
    return f"{'signed' if shape.signed else 'unsigned'}({shape.width})"


class _Expressions:
    """Builds (text, amaranth value) pairs."""

    BINARY = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "<", ">=", "==", "!="]

    def __init__(self, seed, signals):
        self.random = random.Random(seed)
        self.signals = signals

    def leaf(self, unsigned_only=False):
        names = [n for n, s in LEAVES.items() if not (unsigned_only and s.signed)]
        if self.random.random() < 0.3:
            value = self.random.randint(0 if unsigned_only else -9, 9)
            return (f"({value})", Const(value))
        name = self.random.choice(names)
        return name, self.signals[name]

    def build(self, depth):
        if depth == 0 or self.random.random() < 0.2:
            return self.leaf()
        kind = self.random.choice(["binary"] * 6 + ["unary", "bool", "ifexp", "minmax", "abs"])
        if kind == "binary":
            op = self.random.choice(self.BINARY)
            left_text, left = self.build(depth - 1)
            if op in ("<<", ">>"):
                right_text, right = self.leaf(unsigned_only=True)  # shift amounts are unsigned
            else:
                right_text, right = self.build(depth - 1)
            value = {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
                     "//": lambda: left // right, "%": lambda: left % right, "&": lambda: left & right,
                     "|": lambda: left | right, "^": lambda: left ^ right, "<<": lambda: left << right,
                     ">>": lambda: left >> right, "<": lambda: left < right, ">=": lambda: left >= right,
                     "==": lambda: left == right, "!=": lambda: left != right}[op]()
            return f"({left_text} {op} {right_text})", value
        if kind == "unary":
            text, value = self.build(depth - 1)
            if isinstance(value, Const):   # -literal is a literal; keep unary ops on non-literals
                return text, value
            op = self.random.choice(["-", "~", "not "])
            amaranth = {"-": lambda: -value, "~": lambda: ~value, "not ": lambda: ~value.bool()}[op]()
            return f"({op}{text})", amaranth
        if kind == "bool":
            (lt, lv), (rt, rv) = self.build(depth - 1), self.build(depth - 1)
            if self.random.random() < 0.5:
                return f"({lt} and {rt})", lv.bool() & rv.bool()
            return f"({lt} or {rt})", lv.bool() | rv.bool()
        if kind == "ifexp":
            (ct, cv), (lt, lv), (rt, rv) = self.build(depth - 1), self.build(depth - 1), self.build(depth - 1)
            return f"({lt} if {ct} else {rt})", Mux(cv.bool(), lv, rv)
        if kind == "minmax":
            (lt, lv), (rt, rv) = self.build(depth - 1), self.build(depth - 1)
            if self.random.random() < 0.5:
                return f"min({lt}, {rt})", Mux(lv < rv, lv, rv)
            return f"max({lt}, {rt})", Mux(lv > rv, lv, rv)
        text, value = self.build(depth - 1)
        return f"abs({text})", abs(value)


def test_random_expressions_match_amaranth(tmp_path):
    signals = {name: Signal(shape, name=name) for name, shape in LEAVES.items()}
    generator = _Expressions(2026, signals)
    expressions = [generator.build(4) for _ in range(COUNT)]

    params = ", ".join(f"{name}: {_name(shape)}" for name, shape in LEAVES.items())
    lines = ["import hls", "from amaranth import signed, unsigned", ""]
    for index, (text, value) in enumerate(expressions):
        lines += ["@hls.kernel", f"def e{index}({params}) -> {_name(value.shape())}:", f"    return {text}", ""]
    path = tmp_path / "random_expressions.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("random_expressions", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    kernels = [getattr(module, f"e{index}") for index in range(COUNT)]

    for kernel, (text, value) in zip(kernels, expressions):
        returned = kernel.analyze().body[-1].value
        assert shape_of(returned) == value.shape(), text

    m = Module()
    outputs = []
    for _, value in expressions:
        output = Signal(value.shape())
        m.d.comb += output.eq(value)
        outputs.append(output)
    inputs = random.Random(7)
    points = [{name: inputs.randint(*shape_range(shape)) for name, shape in LEAVES.items()}
              for _ in range(POINTS)]
    points += [{name: shape_range(shape)[corner] for name, shape in LEAVES.items()} for corner in (0, 1)]
    points.append({"a": -1, "b": 0, "c": 0})
    hardware = []

    async def testbench(ctx):
        for point in points:
            for name, value in point.items():
                ctx.set(signals[name], value)
            hardware.append([ctx.get(output) for output in outputs])

    sim = Simulator(m)
    sim.add_testbench(testbench)
    sim.run()

    for point, results in zip(points, hardware):
        for kernel, (text, _), want in zip(kernels, expressions, results):
            assert kernel(**point) == want, f"{text} at {point}"
