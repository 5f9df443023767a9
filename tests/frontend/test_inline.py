"""Inlining as a plain function (hls.frontend.inline.inline): every helper call of a kernel's body
prepared, with the helper's body checked and unrolled where it is called, and the errors kept for the
walk to raise in program order."""

import ast

import pytest

from hls.errors import KernelSyntaxError
from hls.frontend import analyze
from hls.frontend.inline import inline
from hls.frontend.signature import signature
from hls.frontend.unroll import BOUND_ATTR, UnrollFinished


def _inline(kernel):
    return inline(kernel, signature(kernel, is_kernel=True))


def _calls(body):
    """``(call as written, its HelperCall)`` for every prepared call of ``body``, in source order."""
    return sorted(((ast.unparse(call), prepared) for call, prepared in body.calls.items()),
                  key=lambda item: [(call.lineno, call.col_offset) for call in body.calls
                                    if body.calls[call] is item[1]])


def test_arguments_are_bound_in_parameter_order_and_nested_helpers_are_prepared(load_source):
    module, path = load_source("""
        @hls.function
        def inc(x: signed(8)) -> signed(9):
            return x + 1

        @hls.function
        def pair(a: hls.Array[signed(8), 4], x: signed(8), y: signed(8)) -> tuple[signed(9), signed(9)]:
            \"\"\"A docstring is no statement.\"\"\"
            return inc(x), inc(a[y])

        @hls.kernel
        def k(a: hls.Array[signed(8), 4], n: signed(8)) -> signed(10):
            p, q = pair(y=n, a=a, x=1)
            return p + q
    """)
    body = _inline(module.k)
    [(text, call)] = _calls(body)
    assert text == "pair(y=n, a=a, x=1)"
    assert call.error is None and call.body_error is None
    assert [ast.unparse(argument) for argument in call.arguments] == ["a", "1", "n"]
    assert call.body.statements == []                     # the docstring and the return are split off
    assert [ast.unparse(value) for value in call.body.returned] == ["inc(x)", "inc(a[y])"]
    inner = _calls(call.body)
    assert [text for text, _ in inner] == ["inc(x)", "inc(a[y])"]
    assert all(prepared.helper is module.inc and prepared.body is not None for _, prepared in inner)
    assert [ast.unparse(value) for value in body.returned] == ["p + q"]
    assert body.assigned == {"p", "q"}


def test_a_helper_is_unrolled_where_it_is_called(load_source):
    # A constant-trip loop is unrolled in an hls.pipeline body (as if the helper were written there),
    # and kept as a loop elsewhere.
    module, path = load_source("""
        @hls.function
        def dot2(a: hls.Array[signed(8), 8], i: unsigned(3)) -> signed(12):
            s: signed(12) = 0
            for j in range(2):
                s += a[(i + j) & 7]
            return s

        @hls.kernel
        def k(a: hls.Array[signed(8), 8], n: unsigned(3)) -> signed(16):
            t: signed(16) = 0
            for i in hls.pipeline(range(n)):
                t += dot2(a, i)
            for i in range(n):
                t += dot2(a, i)
            return t
    """)
    pipelined, plain = (prepared.body for _, prepared in _calls(_inline(module.k)))
    assert not any(isinstance(statement, ast.For) for statement in pipelined.statements)
    assert any(isinstance(statement, UnrollFinished) for statement in pipelined.statements)
    bounds = [getattr(node, BOUND_ATTR).value for statement in pipelined.statements
              for node in ast.walk(statement) if hasattr(node, BOUND_ATTR)]
    assert bounds == [0, 1]
    assert [type(statement).__name__ for statement in plain.statements] == ["AnnAssign", "For"]


def test_a_helper_in_each_copy_of_an_unrolled_loop_is_prepared_once_per_copy(load_source):
    module, path = load_source("""
        @hls.function
        def sq(x: signed(8)) -> signed(16):
            return x * x

        @hls.kernel
        def k(a: hls.Array[signed(8), 4]) -> signed(20):
            s: signed(20) = 0
            for i in hls.unroll(range(4)):
                s += sq(a[i])
            return s
    """)
    body = _inline(module.k)
    assert len(body.calls) == 4
    assert len({id(prepared.body) for prepared in body.calls.values()}) == 4
    # The user's AST is left untouched: no call node of the source carries anything of the pass.
    for node in ast.walk(module.k.tree):
        assert not any(name.startswith("hls_") for name in vars(node))


@pytest.mark.parametrize("call,message", [
    ("x = f(n) if n else 0", "helper call f(...) in a conditional expression"),
    ("x = n and f(n)", "helper call f(...) in the right operand of and"),
    ("x = k(n)", "recursive call to k"),
    ("x = f(n, n)", "f takes 1 argument(s), 2 given"),
    ("x = f()", "f is missing argument(s) y"),
    ("x = f(n, y=n)", "f got 'y' twice"),
    ("x = f(z=n)", "f has no parameter 'z'"),
    ("x = f(*n)", "starred arguments are not supported"),
    ("x, z = f(n)", "f returns 1 value(s), but 2 are used here"),
    ("x = g(n)", "g returns no value"),
])
def test_errors_at_a_call_are_kept_for_the_walk(load_source, call, message):
    module, path = load_source(f"""
        @hls.function
        def f(y: unsigned(4)) -> unsigned(4):
            return y

        @hls.function
        def g(y: unsigned(4)):
            y = 1

        @hls.kernel
        def k(n: unsigned(4)) -> unsigned(4):
            x = undefined
            {call}
            return x
    """)
    body = _inline(module.k)     # raises nothing
    errors = [prepared.error for prepared in body.calls.values() if prepared.error is not None]
    assert errors and message in errors[0].message
    assert (errors[0].filename, errors[0].lineno) == (path, 15)
    # The walk reports the first error in program order: the unknown name before the call.
    with pytest.raises(KernelSyntaxError, match="unknown name 'undefined'"):
        analyze(module.k)


def test_a_recursive_helper_is_prepared_until_it_calls_itself(load_source):
    module, path = load_source("""
        @hls.function
        def f(x: unsigned(4)) -> unsigned(4):
            return g(x)

        @hls.function
        def g(x: unsigned(4)) -> unsigned(4):
            return f(x)

        @hls.kernel
        def k(n: unsigned(4)) -> unsigned(4):
            return f(n)
    """)
    [f_call] = _inline(module.k).calls.values()
    [g_call] = f_call.body.calls.values()
    [again] = g_call.body.calls.values()
    assert again.error.message == "recursive call to f" and again.body is None


def test_a_helper_body_outside_the_language_is_raised_after_its_arguments(load_source):
    module, path = load_source("""
        @hls.function
        def f(x: unsigned(4)) -> unsigned(4):
            y = [x]
            return x

        @hls.kernel
        def k(n: unsigned(4)) -> unsigned(4):
            return f(n) + f(undefined)
    """)
    first, second = _inline(module.k).calls.values()
    assert first.error is None and first.body is None
    assert "lists cannot be built" in first.body_error.message and first.body_error.lineno == 6
    # The walk binds the first call's argument, then raises the helper's error, before the second call.
    with pytest.raises(KernelSyntaxError, match="lists cannot be built") as caught:
        analyze(module.k)
    assert caught.value.lineno == 6


def test_a_return_that_does_not_match_the_annotation_is_raised_after_the_body(load_source):
    module, path = load_source("""
        @hls.function
        def f(x: unsigned(4)) -> tuple[unsigned(4), unsigned(4)]:
            return x

        @hls.function
        def h(x: unsigned(4)) -> unsigned(4):
            y = x

        @hls.kernel
        def k(n: unsigned(4)) -> unsigned(4):
            a, b = f(n)
            return h(a)
    """)
    (_, f_call), (_, h_call) = _calls(_inline(module.k))
    assert f_call.body.return_error.message == "return gives 1 value(s) but the annotation declares 2"
    assert h_call.body.return_error.message == "h declares a return shape but does not end with a return statement"
    with pytest.raises(KernelSyntaxError, match="return gives 1 value"):
        analyze(module.k)


def test_a_local_that_shadows_a_helper_later_leaves_the_call_to_the_helper(load_source):
    # The walk resolves a callee when it reaches the call: the helper, since `f` is not yet assigned.
    module, path = load_source("""
        @hls.function
        def f(x: unsigned(4)) -> unsigned(5):
            return x + 1

        @hls.kernel
        def k(n: unsigned(4)) -> unsigned(5):
            y = f(n)
            f = 3
            return y
    """)
    assert len(_inline(module.k).calls) == 1
    assert module.k(4) == 5
    typed = analyze(module.k)
    assert "f_x" in typed.variables
