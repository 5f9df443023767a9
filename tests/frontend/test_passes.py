"""The front end's passes as plain functions: the construct check over a def's AST alone,
and shape inference over a walked body."""

import ast
import textwrap

import pytest
from amaranth.hdl import signed, unsigned

from hls.errors import KernelSyntaxError
from hls.frontend import analyze, shape_of
from hls.frontend.check import check
from hls.frontend.infer import SOURCE_ATTR, ShapeInput, infer_shapes
from hls.frontend.typed import SHAPE_ATTR


def _def(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def test_check_reads_the_text_alone():
    # No names are known: `hls`, `signed` and `helper` are not defined here, and strings are
    # arguments of calls, which the check leaves to the typing walk.
    check(_def("""
        def k(a, n):
            buf = hls.local(signed(8), 4, partition=hls.partition("cyclic", 2))
            for i in hls.pipeline(range(n), ii=1):
                x = hls.approx.mul(a[i], n, unit="drum", k=4)
                if x > 3:
                    break
            return helper(x), n
    """), "k.py", is_kernel=True)


@pytest.mark.parametrize("body,line,col,message", [
    ("x = [1]", 3, 9, "lists cannot be built in a kernel"),
    ("for i in range(n):\n        pass\n    else:\n        pass", 6, 9, "for ... else is not supported"),
    ("break", 3, 5, "break outside a loop"),
    ("if n:\n        return 1\n    return 2", 4, 9, "return must be the last statement of the helper"),
    ("x = n if n is a else 0", 3, 14, "the 'is' comparison is not supported"),
    ("x = a[1][2]", 3, 9, "arrays are one-dimensional"),
    ("n /= 2", 3, 5, "operator Div is not supported"),
])
def test_check_raises_at_the_first_construct_outside_the_language(body, line, col, message):
    tree = _def(f"\ndef h(a, n):\n    {body}\n")
    with pytest.raises(KernelSyntaxError) as caught:
        check(tree, "h.py", is_kernel=False)
    assert (caught.value.filename, caught.value.lineno, caught.value.col) == ("h.py", line, col)
    assert message in caught.value.message


def test_the_body_of_an_unrolled_loop_of_no_trips_is_checked(load_source):
    # The walk copies such a body no times, so it never typed it; the check still reads it.
    module, path = load_source("""
        @hls.kernel
        def k(n: unsigned(4)) -> unsigned(4):
            for t in hls.unroll(range(0)):
                n = n / 2
            return n
    """)
    with pytest.raises(KernelSyntaxError, match=r"/ is true division"):
        analyze(module.k)


def test_infer_shapes_types_a_walked_body():
    body = ast.parse("x = n * n + 1\ny = x < n\n").body
    for binop in (body[0].value, body[0].value.left):
        setattr(binop, SOURCE_ATTR, ("k.py", binop))
    for node in ast.walk(body[0]):
        if isinstance(node, ast.Constant):
            setattr(node, SHAPE_ATTR, unsigned(1))
    variables = {"x": None, "y": None}
    sites, operations = infer_shapes(body, ShapeInput(filename="k.py", variables=variables,
                                                      params={"n": signed(8)}, arrays={}, streams={}))
    assert variables == {"x": signed(17), "y": unsigned(1)}
    assert shape_of(body[0].value) == signed(17) and shape_of(body[1].value) == unsigned(1)
    # n * n is an operation approx= may name; + 1 has a literal operand, so it is not.
    assert sites == [] and [entry[3:5] for entry in operations.values()] == [["n * n", "mul"]]


def test_a_loop_variable_is_shared_by_loops_whose_ranges_have_one_shape(load_source):
    module, path = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 100], n: unsigned(7)) -> signed(16):
            s: signed(16) = 0
            for i in range(4):
                s += a[i]
            for i in range(100):
                s += a[i]
            for i in range(n):
                s += a[i]
            for i in range(4):
                s += a[i]
            return s
    """)
    typed = analyze(module.k)
    loops = [node.target.id for node in typed.body if isinstance(node, ast.For)]
    assert loops == ["i", "i_2", "i_2", "i_3"]
    assert [typed.variables[name] for name in ("i", "i_2", "i_3")] == [unsigned(3), unsigned(7), unsigned(3)]
    assert typed.display_names["i_2"] == typed.display_names["i_3"] == "i"
