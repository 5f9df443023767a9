"""Shape inference against Amaranth 0.5: each kernel expression must have exactly the
shape of the same expression built on Amaranth signals."""


import pytest
from amaranth.hdl import Mux, Shape, Signal, signed, unsigned

from hls.frontend import shape_of

SHAPES = [unsigned(1), unsigned(4), unsigned(7), signed(1), signed(4), signed(8)]
PAIRS = [(sa, sb) for sa in SHAPES for sb in SHAPES]

#: (kernel expression, the same expression on Amaranth signals a, b and unsigned c)
EXPRESSIONS = [
    ("a + b", lambda a, b, c: a + b),
    ("a - b", lambda a, b, c: a - b),
    ("a * b", lambda a, b, c: a * b),
    ("a // b", lambda a, b, c: a // b),
    ("a % b", lambda a, b, c: a % b),
    ("a & b", lambda a, b, c: a & b),
    ("a | b", lambda a, b, c: a | b),
    ("a ^ b", lambda a, b, c: a ^ b),
    ("a << c", lambda a, b, c: a << c),
    ("a >> c", lambda a, b, c: a >> c),
    ("a << 3", lambda a, b, c: a << 3),
    ("a >> 2", lambda a, b, c: a >> 2),
    ("-a", lambda a, b, c: -a),
    ("~a", lambda a, b, c: ~a),
    ("abs(a)", lambda a, b, c: abs(a)),
    ("a + 3", lambda a, b, c: a + 3),
    ("a * -2", lambda a, b, c: a * -2),
    ("5 - a", lambda a, b, c: 5 - a),
    ("a & 1", lambda a, b, c: a & 1),
    ("a == b", lambda a, b, c: a == b),
    ("a < b", lambda a, b, c: a < b),
    ("a >= -1", lambda a, b, c: a >= -1),
    ("a if c else b", lambda a, b, c: Mux(c, a, b)),
    ("min(a, b)", lambda a, b, c: Mux(a < b, a, b)),
    ("max(a, b, c)", lambda a, b, c: Mux(Mux(a > b, a, b) > c, Mux(a > b, a, b), c)),
    ("not a", lambda a, b, c: ~a.bool()),
    ("a and b", lambda a, b, c: a.bool() & b.bool()),
    ("a or b or c", lambda a, b, c: a.bool() | b.bool() | c.bool()),
    ("(a + b) * (a - c)", lambda a, b, c: (a + b) * (a - c)),
    ("a * b // (c + 1)", lambda a, b, c: a * b // (c + 1)),
]


def _name(shape):
    return f"{'signed' if shape.signed else 'unsigned'}({shape.width})"


@pytest.fixture(scope="module")
def typed_pairs(tmp_path_factory):
    """One kernel per operand-shape pair, assigning every expression to a local."""
    import importlib.util
    import sys
    path = tmp_path_factory.mktemp("shapes") / "shape_kernels.py"
    lines = ["import hls", "from amaranth import signed, unsigned", ""]
    for index, (sa, sb) in enumerate(PAIRS):
        lines += ["@hls.kernel", f"def k{index}(a: {_name(sa)}, b: {_name(sb)}, c: unsigned(3)):"]
        lines += [f"    e{number} = {text}" for number, (text, _) in enumerate(EXPRESSIONS)]
        lines.append("")
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("shape_kernels", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["shape_kernels"] = module
    spec.loader.exec_module(module)
    return {pair: getattr(module, f"k{index}").analyze() for index, pair in enumerate(PAIRS)}


@pytest.mark.parametrize("sa,sb", PAIRS, ids=[f"{_name(a)}-{_name(b)}" for a, b in PAIRS])
def test_expression_shapes_match_amaranth(typed_pairs, sa, sb):
    typed = typed_pairs[(sa, sb)]
    a, b, c = Signal(sa), Signal(sb), Signal(unsigned(3))
    assignments = {statement.targets[0].id: statement for statement in typed.body}
    for number, (text, build) in enumerate(EXPRESSIONS):
        statement = assignments[f"e{number}"]
        expected = build(a, b, c).shape()
        assert shape_of(statement.value) == expected, f"{text} with a: {sa}, b: {sb}"
        # A local without annotation takes its first value's shape.
        assert typed.variables[f"e{number}"] == expected


def test_signed_shift_amount_is_rejected_as_amaranth_does(load_source):
    from hls.errors import KernelSyntaxError
    with pytest.raises(TypeError):
        Signal(8) << Signal(signed(3))
    module, _ = load_source("""
        @hls.kernel
        def k(a: unsigned(8), b: signed(3)) -> unsigned(8):
            return a << b
    """)
    with pytest.raises(KernelSyntaxError, match="shift amount of << must be unsigned"):
        module.k.analyze()


@pytest.mark.parametrize("loop,expected", [
    ("range(10)", Shape.cast(range(0, 11))),
    ("range(-3, 5)", signed(4)),
    ("range(2, 64, 4)", unsigned(7)),
    ("range(n)", unsigned(7)),
    ("range(s, n)", signed(8)),
    ("range(1, n)", unsigned(7)),
    ("range(a[0], a[1])", signed(16)),
])
def test_loop_variable_holds_every_value_and_both_bounds(load_source, loop, expected):
    module, _ = load_source(f"""
        @hls.kernel
        def k(a: hls.Array[signed(16), 4], n: unsigned(7), s: signed(4)):
            for i in {loop}:
                a[2] = i
    """)
    typed = module.k.analyze()
    assert typed.variables["i"] == expected
    loop_node = typed.body[0]
    assert shape_of(loop_node.target) == expected


def test_annotation_fixes_the_shape_and_later_wider_values_wrap(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(a: unsigned(8), b: unsigned(8)) -> unsigned(4):
            s: signed(12) = a
            t = a
            t = a + b
            return t
    """)
    from hls.errors import KernelWarning
    with pytest.warns(KernelWarning, match="'t' is unsigned\\(8\\), .* this unsigned\\(9\\) value wraps"):
        typed = module.k.analyze()
    assert typed.variables["s"] == signed(12)
    assert typed.variables["t"] == unsigned(8)   # from the first assignment
    assert shape_of(typed.body[2].value) == unsigned(9)
    assert module.k(a=200, b=100) == (300 % 256) % 16


def test_constants_have_amaranth_const_shapes(load_source):
    from amaranth.hdl import Const
    module, _ = load_source("""
        N = 100
        @hls.kernel
        def k():
            x = 0
            y = -1
            z = N
            w = True
            v = -129
    """)
    typed = module.k.analyze()
    for name, value in {"x": 0, "y": -1, "z": 100, "w": 1, "v": -129}.items():
        assert typed.variables[name] == Const(value).shape(), name


def test_narrow_inferred_local_warns_at_the_wider_assignment(load_source):
    from hls.errors import KernelWarning
    module, path = load_source("""
        @hls.kernel
        def k(a: hls.Array[unsigned(8), 4]) -> unsigned(8):
            count = 0
            best = a[0]
            for i in range(4):
                if a[i] > 3:
                    count += 1
                best = max(best, a[i])
            return count + best
    """)
    with pytest.warns(KernelWarning) as caught:
        module.k.analyze()
    assert len(caught) == 1
    warning = caught[0]
    assert (warning.filename, warning.lineno) == (path, 10)
    assert str(warning.message).startswith(
        "'count' is unsigned(1), the shape of its first value (line 6); this unsigned(2) value wraps to it (hint: declare the shape it needs where it is first assigned, e.g. count: unsigned(32) = ...)")
    assert module.k([5, 5, 5, 0]) == 1 + 5      # 3 increments of a 1-bit counter


def test_benchmark_kernels_do_not_warn():
    import warnings
    from benchmarks.kernels import all_kernels
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kernel, _ in all_kernels().values():
            kernel.analyze()
