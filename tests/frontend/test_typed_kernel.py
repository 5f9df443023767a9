"""The TypedKernel contract of docs/architecture.md: fields, normalised forms, inlining."""

import ast

import pytest
from amaranth.hdl import signed, unsigned

from hls import Target
from hls.frontend import LoopPragma, Param, TypedKernel, analyze, shape_of


def _every_expression_has_a_shape(body):
    """Every value in the body has a shape; the exceptions are not values: a loop's
    ``range(...)`` call, callee names, array names, and a returned tuple."""
    exempt = set()
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.For):
                exempt |= {id(node.iter), id(node.iter.func)}
            elif isinstance(node, ast.Call):
                exempt.add(id(node.func))
            elif isinstance(node, ast.Subscript):
                exempt.add(id(node.value))
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                exempt.add(id(node.value))
    checked = 0
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.expr) and id(node) not in exempt:
                shape_of(node)
                checked += 1
    assert checked


def test_fields_and_normalised_body(load_source):
    module, path = load_source("""
        N = 8

        @hls.kernel(clock_mhz=150, resources={"mul": 1})
        def k(a: hls.Array[signed(16), N], n: unsigned(4)) -> tuple[signed(32), unsigned(4)]:
            \"\"\"A docstring is dropped.\"\"\"
            s: signed(32) = 0
            hits: unsigned(4) = 0
            for i in hls.pipeline(range(n), ii=2):
                s += a[i] * a[i]
                a[i] -= 1
            for j in hls.sequential(range(1, N, 2)):
                if 0 <= a[j] < 5:
                    hits += 1
            m: unsigned(5) = 0
            while m < n:
                m = m + 1
            return s, hits
    """)
    typed = analyze(module.k)
    assert isinstance(typed, TypedKernel)
    assert typed.name == "k" and typed.filename == path
    assert typed.params == [Param("a", "array", signed(16), 8, 7, 6), Param("n", "scalar", unsigned(4), None, 7, 35)]
    assert typed.return_shapes == [signed(32), unsigned(4)]
    # The target belongs to the kernel, not to the typed kernel (issue 10).
    assert module.k.target == Target(clock_mhz=150, resources={"mul": 1})
    assert not hasattr(typed, "clock_mhz") and not hasattr(typed, "resources")
    assert typed.variables == {"s": signed(32), "hits": unsigned(4), "i": unsigned(4),
                               "j": unsigned(4), "m": unsigned(5)}
    assert ast.unparse(ast.Module(body=typed.body, type_ignores=[])) == "\n".join([
        "s = 0",
        "hits = 0",
        "for i in range(0, n, 1):",
        "    s = s + a[i] * a[i]",
        "    a[i] = a[i] - 1",
        "for j in range(1, 8, 2):",
        "    if 0 <= a[j] and a[j] < 5:",
        "        hits = hits + 1",
        "m = 0",
        "while m < n:",
        "    m = m + 1",
        "return (s, hits)",
    ])
    loops = [node for node in typed.body if isinstance(node, (ast.For, ast.While))]
    assert [typed.loops[loop] for loop in loops] == [LoopPragma("pipeline", 2), LoopPragma("sequential"),
                                                    LoopPragma("auto")]
    assert typed.body[2].lineno == 11   # the user's line numbers
    _every_expression_has_a_shape(typed.body)
    assert shape_of(typed.body[2].body[0].value) == signed(33)  # s + a[i] * a[i]: signed(32) + signed(32)


def test_shape_of_rejects_nodes_outside_a_typed_body(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(n: unsigned(4)) -> unsigned(4):
            return n
    """)
    with pytest.raises(KeyError, match="has no inferred shape"):
        shape_of(module.k.tree.body[0].value)


def test_helpers_are_inlined_with_unique_names(load_source):
    module, _ = load_source("""
        @hls.function
        def sq(x: signed(8)) -> signed(16):
            y = x * x
            return y

        @hls.function
        def sum_sq(x: signed(8), z: signed(8)) -> tuple[signed(17), signed(16)]:
            return sq(x) + sq(z), sq(z)

        @hls.kernel
        def k(p: signed(8), q: signed(8)) -> signed(17):
            t, u = sum_sq(p, q)
            return t - u
    """)
    typed = module.k.analyze()
    names = [statement.targets[0].id for statement in typed.body if isinstance(statement, ast.Assign)]
    assert len(names) == len(set(names)) or set(names) >= {"t", "u"}
    assert typed.display_names["sq_y"] == "y" and typed.display_names["sq_y_2"] == "y"
    assert typed.variables["sum_sq_result"] == signed(17)
    assert module.k(3, -4) == 9
    assert module.k(-128, -128) == 16384   # t = 32768 fits signed(17)


def test_tuple_assignment_evaluates_everything_first(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(x: signed(8), y: signed(8)) -> tuple[signed(8), signed(8)]:
            a = x
            b = y
            a, b = b, a
            return a, b
    """)
    assert module.k(1, 2) == (2, 1)


def test_assigned_scalar_parameter_becomes_a_local_copy(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(x: unsigned(8)) -> unsigned(8):
            while x > 10:
                x = x - 10
            return x
    """)
    typed = module.k.analyze()
    assert ast.unparse(typed.body[0]) == "x_local = x"
    assert typed.display_name("x_local") == "x"
    assert module.k(47) == 7


def test_reused_loop_variable_gets_its_own_shape(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 64]):
            for i in range(4):
                a[i] = 1
            for i in range(4):
                a[i] = 2
            for i in range(-2, 64):
                a[abs(i)] = 3
    """)
    typed = module.k.analyze()
    assert typed.variables["i"] == unsigned(3)
    assert typed.variables["i_2"] == signed(8)
    assert typed.display_name("i_2") == "i"
    assert [loop.target.id for loop in typed.body] == ["i", "i", "i_2"]


def test_augmented_store_with_computed_index_evaluates_it_once(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(h: hls.Array[unsigned(8), 4], x: hls.Array[unsigned(2), 4]):
            for i in range(4):
                h[x[i]] += 1
    """)
    typed = module.k.analyze()
    loop = typed.body[0]
    assert ast.unparse(loop.body[0]) == "index = x[i]"
    assert ast.unparse(loop.body[1]) == "h[index] = h[index] + 1"
    h = [0, 0, 0, 0]
    module.k(h, [1, 1, 3, 1])
    assert h == [0, 3, 0, 1]


def test_names_of_builtins_can_be_variables(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(n: unsigned(4)) -> unsigned(8):
            int: unsigned(8) = 0
            for range_ in range(n):
                int = int + (range_ > 2 and range_ < 9)
            return int
    """)
    assert module.k(12) == 6


def test_helper_from_another_file_reports_its_own_file(load_source, tmp_path):
    from hls.errors import KernelRuntimeError
    helpers = tmp_path / "helpers_for_test.py"
    helpers.write_text("import hls\nfrom amaranth import signed, unsigned\n\n"
                       "@hls.function\ndef get(a: hls.Array[signed(8), 4], i: signed(4)) -> signed(8):\n"
                       "    return a[i]\n")
    module, _ = load_source("""
        import sys
        sys.path.insert(0, %r)
        import helpers_for_test

        @hls.kernel
        def k(a: hls.Array[signed(8), 4], i: signed(4)) -> signed(8):
            return helpers_for_test.get(a, i)
    """ % str(tmp_path))
    assert module.k([5, 6, 7, 8], 2) == 7
    with pytest.raises(KernelRuntimeError) as caught:
        module.k([5, 6, 7, 8], -3)
    assert (caught.value.filename, caught.value.lineno) == (str(helpers), 6)


def test_future_annotations_and_closure_constants(load_source):
    module, _ = load_source("""
        from __future__ import annotations
        import hls
        from amaranth import signed, unsigned

        def make(depth):
            @hls.kernel
            def total(a: hls.Array[signed(8), depth]) -> signed(16):
                s: signed(16) = 0
                for i in range(depth):
                    s = s + a[i]
                return s
            return total

        total4 = make(4)
    """, header=False)
    assert module.total4([1, 2, 3, -10]) == -4
    assert module.total4.params[0].depth == 4


def test_load_kernel_names_the_line_of_an_import_failure(tmp_path):
    from axhls.command import CommandError
    from axhls.loading import load_kernel
    path = tmp_path / "bad_annotation.py"
    path.write_text("import hls\nfrom amaranth import signed\n\n@hls.kernel\n"
                    "def k(a: hls.Array[signed(8), 0]):\n    pass\n")
    with pytest.raises(CommandError) as caught:
        load_kernel(f"{path}:k")
    assert str(caught.value) == (f"{path}:5: importing it failed: TypeError: "
                                 f"hls.Array depth must be a positive integer, not 0")


def test_kernel_decorator_checks_its_options():
    import hls
    with pytest.raises(ValueError, match="clock_mhz must be a positive number of MHz, not 0"):
        hls.kernel(clock_mhz=0)(lambda: None)
    with pytest.raises(ValueError, match="resource limit 'mul' must be a positive integer, not 0"):
        hls.kernel(resources={"mul": 0})(lambda: None)
    with pytest.raises(TypeError, match="hls.Array takes"):
        hls.Array[signed(8), 4, 2]
    with pytest.raises(TypeError, match="element shape must be an Amaranth shape"):
        hls.Array[8, 4]
    with pytest.raises(TypeError, match="hls.pipeline wraps a range"):
        hls.pipeline([1, 2])
    with pytest.raises(ValueError, match="ii must be a positive integer"):
        hls.pipeline(range(3), ii=0)
    assert list(hls.sequential(range(3))) == [0, 1, 2]


def test_numpy_integer_constants(load_source):
    module, _ = load_source("""
        import numpy as np
        N = np.int64(4)
        SCALE = np.uint8(3)

        @hls.kernel
        def k(a: hls.Array[signed(8), N]) -> signed(12):
            s: signed(12) = 0
            for i in range(N):
                s = s + a[i] * SCALE
            return s
    """)
    assert module.k([1, 2, 3, 4]) == 30
    assert module.k.params[0].depth == 4 and type(module.k.params[0].depth) is int
