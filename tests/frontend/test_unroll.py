"""The unrolling pass (hls.frontend.unroll.unroll) over a body as written, and what the walk makes
of its copies: one copy per iteration, no copies for no trips, nested bounds read from the loops
around them, counters for factor=, and errors where the user wrote them, in program order."""

import ast
import textwrap

import pytest
from amaranth.hdl import unsigned

import hls
from hls.errors import KernelSyntaxError
from hls.frontend import analyze
from hls.frontend.unroll import (BOUND_ATTR, CONTEXT_ATTR, Bound, Context, CounterBound, UnrollCheck,
                                 UnrollFinished, UnrollScope, unroll)

_NAMESPACE = {"hls": hls, "range": range, "len": len}


def _body(source: str) -> list[ast.stmt]:
    return ast.parse(textwrap.dedent(source)).body[0].body


def _bounds(statement: ast.stmt, name: str) -> list:
    return [getattr(node, BOUND_ATTR) for node in ast.walk(statement) if isinstance(node, ast.Name) and node.id == name]


def test_a_full_unroll_is_one_copy_per_iteration_reading_the_iteration_value():
    body = _body("""
        def k(a):
            for t in hls.unroll(range(1, 7, 2)):
                a[t] = t
    """)
    before = ast.dump(body[0])
    out = unroll(body, UnrollScope(_NAMESPACE, frozenset({"a", "t"}), {"a": 8}))
    assert [type(node) for node in out] == [UnrollCheck, ast.Assign, ast.Assign, ast.Assign, UnrollFinished]
    # Both names of t in each copy (the index and the value) are bound; the range's shape holds 1..5.
    assert [_bounds(copy, "t") for copy in out[1:4]] == [[Bound(value, unsigned(3))] * 2 for value in (1, 3, 5)]
    assert all(getattr(copy, CONTEXT_ATTR) == Context(unrolled=True) for copy in out[1:4])
    # The user's AST is untouched: a helper's body is unrolled again where it is inlined next.
    assert ast.dump(body[0]) == before and not any(hasattr(node, BOUND_ATTR) for node in ast.walk(body[0]))


def test_a_loop_of_no_trips_has_no_copies_and_its_body_is_not_typed(load_source):
    out = unroll(_body("""
        def k(a):
            for t in hls.unroll(range(3, 3)):
                a[t] = undefined
    """), UnrollScope(_NAMESPACE, frozenset({"a", "t"}), {"a": 8}))
    assert [type(node) for node in out] == [UnrollCheck, UnrollFinished]
    module, _ = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 4]):
            for t in hls.unroll(range(0)):
                a[t] = undefined
    """)
    assert analyze(module.k).body == []


def test_nested_bounds_read_the_enclosing_copy_value(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 9]):
            for i in hls.unroll(range(3)):
                for j in hls.unroll(range(i + 1, 3)):
                    a[i * 3 + j] = 1
    """)
    typed = analyze(module.k)
    # i = 0: j = 1, 2; i = 1: j = 2; i = 2: no copies. The indices are folded to literals.
    assert [statement.targets[0].slice.value for statement in typed.body] == [1, 2, 5]


def test_a_computed_index_of_an_update_is_a_literal_again_so_banks_stay_known(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 8, hls.partition("cyclic", 2)], x: signed(8)):
            for t in hls.unroll(range(4)):
                a[t * 2 + 1] += x
    """)
    typed = analyze(module.k)
    assert [statement.targets[0].slice.value for statement in typed.body] == [1, 3, 5, 7]
    assert not any(name.startswith("index") for name in typed.variables)


def test_a_factor_gives_a_counter_loop_of_copies_and_a_remainder(load_source):
    module, path = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 16], n: unsigned(5)) -> signed(16):
            s: signed(16) = 0
            for t in hls.unroll(range(n), factor=3):
                s += a[t]
            return s
    """)
    typed = analyze(module.k)
    loops = [statement for statement in typed.body if isinstance(statement, ast.For)]
    assert [loop.target.id for loop in loops] == ["t_unrolled", "t"]
    assert typed.display_names["t_unrolled"] == "t"
    assert loops[1].hls_loop_name == "loop_7_remainder"
    reads = [ast.unparse(node) for node in ast.walk(loops[0]) if isinstance(node, ast.Subscript)]
    assert reads == ["a[t_unrolled]", "a[t_unrolled + 1]", "a[t_unrolled + 2]"]
    assert module.k(a=list(range(16)), n=11) == sum(range(11))

    out = unroll(_body("""
        def k(a, n):
            for t in hls.unroll(range(n), factor=2):
                a[t] = 0
    """), UnrollScope(_NAMESPACE, frozenset({"a", "n", "t"}), {"a": 16}))
    counter_loop = next(node for node in out if isinstance(node, ast.For) and node.body[0].__class__ is ast.Assign)
    offsets = [bound.offset for copy in counter_loop.body[:2] for bound in _bounds(copy, "t")]
    assert offsets == [0, 1] and all(isinstance(bound, CounterBound) for copy in counter_loop.body[:2]
                                     for bound in _bounds(copy, "t"))


def test_constant_trip_loops_in_a_pipelined_loop_are_unrolled(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 16], n: unsigned(4)) -> signed(16):
            s: signed(16) = 0
            for i in hls.pipeline(range(n)):
                for j in range(3):
                    s += a[j]
            return s
    """)
    typed = analyze(module.k)
    outer = next(statement for statement in typed.body if isinstance(statement, ast.For))
    assert not any(isinstance(statement, ast.For) for statement in outer.body)
    assert [ast.unparse(node) for node in ast.walk(outer) if isinstance(node, ast.Subscript)] == \
        ["a[0]", "a[1]", "a[2]"]


def test_a_local_array_in_an_unrolled_loop_is_declared_by_its_first_copy(load_source):
    module, path = load_source("""
        @hls.kernel
        def k() -> signed(8):
            for t in hls.unroll(range(2)):
                buf = hls.local(signed(8), 4)
            return 0
    """)
    with pytest.raises(KernelSyntaxError, match="array 'buf' is already declared") as caught:
        analyze(module.k)
    assert (caught.value.filename, caught.value.lineno, caught.value.col) == (path, 7, 9)


def test_a_helper_inlined_in_a_copy_is_unrolled_as_if_written_there(load_source):
    module, path = load_source("""
        @hls.function
        def total(a: hls.Array[signed(8), 4]) -> signed(10):
            s: signed(10) = 0
            for i in range(4):
                s += a[i]
            return s

        @hls.kernel
        def k(a: hls.Array[signed(8), 4]) -> signed(12):
            s: signed(12) = 0
            for t in hls.unroll(range(2)):
                s += total(a)
            for t in hls.pipeline(range(2)):
                s += total(a)
            return s
    """)
    # In the copy the helper's rolled loop is an error, at the helper's line; the same helper
    # in a pipelined loop has its constant-trip loop unrolled.
    with pytest.raises(KernelSyntaxError, match="a loop inside an hls.unroll loop must be unrolled too") as caught:
        analyze(module.k)
    assert (caught.value.lineno, caught.value.col) == (7, 5)


@pytest.mark.parametrize("loop,line,col,message", [
    ("for t in hls.unroll(range(4)):\n        if t > n:\n            break", 7, 13,
     "break in an unrolled loop is not supported"),
    ("for t in hls.unroll(range(n)):\n        pass", 5, 14, "hls.unroll without a factor needs constant range bounds"),
    ("for t in hls.unroll(range(4), factor=0):\n        pass", 5, 42, "hls.unroll factor must be an integer"),
    ("for t in hls.unroll(range(0, 4, 0)):\n        pass", 5, 37, "range step must be positive, not 0"),
    ("for t in hls.unroll(range(4)):\n        while n:\n            pass", 6, 9,
     "a while loop inside an hls.unroll loop is not supported"),
    ("for t in hls.unroll(range(4)):\n        t = 1", 6, 9, "cannot assign to loop variable 't'"),
])
def test_errors_of_unrolled_loops_name_the_users_line(load_source, loop, line, col, message):
    module, path = load_source("@hls.kernel\ndef k(n: unsigned(4)):\n    " + loop + "\n")
    with pytest.raises(KernelSyntaxError, match=message) as caught:
        analyze(module.k)
    assert (caught.value.filename, caught.value.lineno, caught.value.col) == (path, line, col)


def test_an_unrolling_error_comes_after_an_earlier_error_in_the_text(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(n: unsigned(4)):
            x = undefined
            for t in hls.unroll(range(n)):
                pass
    """)
    with pytest.raises(KernelSyntaxError, match="unknown name 'undefined'"):
        analyze(module.k)
