"""Every construct outside the kernel language gives one KernelSyntaxError line
``file:line:col: message (hint: ...)`` pointing at the construct."""

import pytest

from hls.errors import KernelSyntaxError

K = "@hls.kernel\n"

#: (id, source, marker, message): the error must point at the first occurrence of
#: ``marker`` after the file's import lines (in ``PREFIX|MARK``: at MARK, after
#: PREFIX), and its message must contain ``message``.
CASES = [
    ("recursion", K + "def f(n: unsigned(4)) -> unsigned(4):\n    return f(n)\n",
     "f(n)\n", "recursive call to f"),
    ("indirect-recursion",
     "@hls.function\ndef g(n: unsigned(4)) -> unsigned(4):\n    return h(n)\n"
     "@hls.function\ndef h(n: unsigned(4)) -> unsigned(4):\n    x = g(n)\n    return x\n"
     + K + "def f(n: unsigned(4)) -> unsigned(4):\n    return g(n)\n",
     "g(n)\n    return x", "recursive call to g"),
    ("float", K + "def f(n: unsigned(4)):\n    x = 1.5\n", "1.5", "floats are not supported: 1.5"),
    ("float-constant", "SCALE = 0.5\n" + K + "def f(n: unsigned(4)):\n    x = n * SCALE\n",
     "SCALE\n", "'SCALE' is the float 0.5; floats are not supported"),
    ("string", K + "def f(n: unsigned(4)):\n    x = 'abc'\n", "'abc'", "strings are not supported"),
    ("f-string", K + "def f(n: unsigned(4)):\n    x = f'{n}'\n", "f'", "strings are not supported"),
    ("dict", K + "def f(n: unsigned(4)):\n    d = {}\n", "{}", "dicts are not supported"),
    ("list", K + "def f(n: unsigned(4)):\n    l = [1, 2]\n", "[1", "lists cannot be built in a kernel"),
    ("list-comprehension", K + "def f(n: unsigned(4)):\n    l = [i for i in range(n)]\n", "[i",
     "comprehensions are not supported"),
    ("generator-expression", K + "def f(n: unsigned(4)):\n    g = (i for i in range(n))\n", "(i",
     "generator expressions are not supported"),
    ("yield", K + "def f(n: unsigned(4)):\n    yield n\n", "yield", "generators (yield) are not supported"),
    ("lambda", K + "def f(n: unsigned(4)):\n    g = lambda x: x\n", "lambda", "lambdas are not supported"),
    ("try", K + "def f(n: unsigned(4)):\n    try:\n        x = n\n    except Exception:\n        x = 0\n",
     "try", "exceptions (try) are not supported"),
    ("raise", K + "def f(n: unsigned(4)):\n    raise ValueError(n)\n", "raise",
     "exceptions (raise) are not supported"),
    ("global", "G = 1\n" + K + "def f(n: unsigned(4)):\n    global G\n", "global", "global is not supported"),
    ("with", K + "def f(n: unsigned(4)):\n    with open('x'):\n        pass\n", "with",
     "with statements are not supported"),
    ("import", K + "def f(n: unsigned(4)):\n    import math\n", "import math",
     "imports inside a kernel are not supported"),
    ("unknown-call", "def helper(x):\n    return x\n" + K + "def f(n: unsigned(4)):\n    y = helper(n)\n",
     "helper(n)", "unknown call helper(...)"),
    ("builtin-call", K + "def f(n: unsigned(4)):\n    y = sum(n)\n", "sum(n)", "unknown call sum(...)"),
    ("print", K + "def f(n: unsigned(4)):\n    print(n)\n", "print", "print is not supported in a kernel"),
    ("unannotated-parameter", K + "def f(a, n: unsigned(4)):\n    pass\n", "a,",
     "parameter 'a' has no type annotation"),
    ("array-without-depth", K + "def f(a: hls.Array[signed(8)]):\n    pass\n", "a:",
     "array parameter 'a' has no depth"),
    ("annotation-not-a-shape", K + "def f(a: int):\n    pass\n", "int)",
     "parameter 'a' is annotated <class 'int'>, which is not a shape"),
    ("assign-array-parameter", K + "def f(a: hls.Array[signed(8), 4]):\n    a = 0\n", "a = 0",
     "cannot assign to array parameter 'a'"),
    ("array-as-value", K + "def f(a: hls.Array[signed(8), 4]):\n    b = a\n", "a\n",
     "array 'a' can only be indexed"),
    ("slicing", K + "def f(a: hls.Array[signed(8), 4]):\n    x = a[1:3]\n", "1:3", "slicing is not supported"),
    ("two-dimensional", K + "def f(a: hls.Array[signed(8), 4]):\n    x = a[1][2]\n", "a[1][2]",
     "arrays are one-dimensional"),
    ("tuple-index", K + "def f(a: hls.Array[signed(8), 4]):\n    x = a[1, 2]\n", "1, 2",
     "arrays are one-dimensional"),
    ("nested-function", K + "def f(n: unsigned(4)):\n    def g():\n        pass\n", "def g",
     "nested functions are not supported"),
    ("attribute", K + "def f(n: unsigned(4)):\n    x = hls.kernel\n", "x = |hls.kernel",
     "attribute access 'hls.kernel' is not supported"),
    ("negative-step", K + "def f(a: hls.Array[signed(8), 4]):\n    for i in range(3, 0, -1):\n        a[i] = 0\n",
     "-1", "range step must be positive, not -1"),
    ("zero-step", K + "def f(a: hls.Array[signed(8), 4]):\n    for i in range(0, 3, 0):\n        a[i] = 0\n",
     "0)", "range step must be positive, not 0"),
    ("run-time-step", K + "def f(a: hls.Array[signed(8), 4], s: unsigned(2)):\n    for i in range(0, 3, s):\n        a[i] = 0\n",
     "s)", "the range step 's' must be an integer constant"),
    ("constant-index-out-of-range", K + "def f(a: hls.Array[signed(8), 4]):\n    x = a[4]\n", "a[|4]",
     "index 4 out of range for a[4]"),
    ("unannotated-return", K + "def f(n: unsigned(4)):\n    return n\n", "return",
     "f returns a value but has no return annotation"),
    ("missing-return", K + "def f(n: unsigned(4)) -> unsigned(4):\n    x = n\n", "def f",
     "f declares a return shape but does not end with a return statement"),
    ("return-not-last", K + "def f(n: unsigned(4)) -> unsigned(4):\n    for i in range(n):\n        return i\n    return n\n",
     "return i", "return must be the last statement of the kernel"),
    ("return-arity", K + "def f(n: unsigned(4)) -> tuple[unsigned(4), unsigned(4)]:\n    return n\n",
     "return", "return gives 1 value(s) but the annotation declares 2"),
    ("true-division", K + "def f(n: unsigned(4)):\n    x = n / 2\n", "n / 2", "/ is true division"),
    ("power", K + "def f(n: unsigned(4)):\n    x = n ** 2\n", "n ** 2", "** is not supported"),
    ("for-else", K + "def f(n: unsigned(4)):\n    for i in range(n):\n        x = i\n    else:\n        x = 0\n",
     "x = 0", "for ... else is not supported"),
    ("while-else", K + "def f(n: unsigned(4)):\n    while n:\n        break\n    else:\n        x = 0\n",
     "x = 0", "while ... else is not supported"),
    ("assign-loop-variable", K + "def f(n: unsigned(4)):\n    for i in range(n):\n        i = 0\n",
     "i = 0", "cannot assign to loop variable 'i' inside its loop"),
    ("loop-variable-after-loop", K + "def f(n: unsigned(4)) -> unsigned(4):\n    for i in range(n):\n        x = i\n    return i\n",
     "return |i", "loop variable 'i' is read after its loop"),
    ("read-before-assign", K + "def f(n: unsigned(4)):\n    x = y\n    y = 1\n", "y\n",
     "'y' is read before it is assigned"),
    ("unknown-name", K + "def f(n: unsigned(4)):\n    x = nothing\n", "nothing", "unknown name 'nothing'"),
    ("is-comparison", K + "def f(n: unsigned(4)):\n    x = n is n\n", "n is", "the 'is' comparison is not supported"),
    ("in-comparison", K + "def f(n: unsigned(4)):\n    x = n in 1\n", "n in", "the 'in' comparison is not supported"),
    ("helper-in-while", "@hls.function\ndef g(n: unsigned(4)) -> unsigned(4):\n    return n\n"
     + K + "def f(n: unsigned(4)):\n    while g(n) > 2:\n        n = n - 1\n",
     "g(n)", "helper call g(...) in a while condition"),
    ("helper-in-short-circuit", "@hls.function\ndef g(n: unsigned(4)) -> unsigned(4):\n    return n\n"
     + K + "def f(n: unsigned(4)):\n    x = n > 1 and g(n) > 2\n",
     "g(n)", "helper call g(...) in the right operand of and"),
    ("signed-shift", K + "def f(n: unsigned(4), s: signed(3)):\n    x = n << s\n", "n << s",
     "the shift amount of << must be unsigned, but it is 's', which is signed(3)"),
    ("negative-constant-shift", K + "def f(n: unsigned(4)):\n    x = n >> -1\n", "n >>",
     "the shift amount of >> must be unsigned, but it is the constant -1"),
    ("huge-shift", K + "def f(n: unsigned(4), s: unsigned(16)):\n    x = n << s\n", "n << s",
     "the result of << would be 65539 bits wide (the shift amount 's' has 16 bits, so it can shift "
     "by up to 65535); the limit is 65536"),
    ("default-value", K + "def f(n: unsigned(4) = 3):\n    pass\n", "3)", "default parameter values are not supported"),
    ("varargs", K + "def f(*n):\n    pass\n", "n)", "*args parameters are not supported"),
    ("helper-array-mismatch",
     "@hls.function\ndef g(b: hls.Array[signed(8), 8]) -> signed(8):\n    return b[0]\n"
     + K + "def f(a: hls.Array[signed(8), 4]) -> signed(8):\n    return g(a)\n",
     "a)\n", "a is hls.Array[signed(8), 4] but g expects hls.Array[signed(8), 8] for 'b'"),
    ("helper-arity", "@hls.function\ndef g(x: signed(8)) -> signed(8):\n    return x\n"
     + K + "def f(n: signed(8)) -> signed(8):\n    return g(n, n)\n", "g(n, n)", "g takes 1 argument(s), 2 given"),
    ("pipeline-ii", K + "def f(a: hls.Array[signed(8), 4]):\n    for i in hls.pipeline(range(4), ii=0):\n        a[i] = 0\n",
     "0)", "ii must be a positive integer constant, not '0'"),
    ("not-a-range", K + "def f(a: hls.Array[signed(8), 4]):\n    for x in a:\n        pass\n", "in |a:",
     "for loops must iterate over range(...), not 'a'"),
    ("chained-assignment", K + "def f(n: unsigned(4)):\n    x = y = n\n", "x = y", "chained assignment"),
    ("local-array", K + "def f(n: unsigned(4)):\n    b: hls.Array[signed(8), 4] = 0\n", "b:",
     "an array cannot be declared by annotation ('b')"),
    ("none", K + "def f(n: unsigned(4)):\n    x = None\n", "None", "None is not a value in a kernel"),
    ("walrus", K + "def f(n: unsigned(4)):\n    x = (y := n)\n", "y :=", "assignment expressions (:=) are not supported"),
    ("assert", K + "def f(n: unsigned(4)):\n    assert n\n", "assert", "assert is not supported"),
    ("del", K + "def f(n: unsigned(4)):\n    x = n\n    del x\n", "del", "del is not supported"),
    ("match", K + "def f(n: unsigned(4)):\n    match n:\n        case 1:\n            pass\n", "match",
     "match statements are not supported"),
    ("no-effect", K + "def f(n: unsigned(4)):\n    n + 1\n", "n + 1", "has no effect"),
    ("redeclared", K + "def f(n: unsigned(4)):\n    x: signed(8) = 0\n    x: signed(9) = 0\n", "x: signed(9)",
     "'x' is already declared as signed(8)"),
    ("range-outside-for", K + "def f(n: unsigned(4)):\n    x = range(n)\n", "range(n)",
     "range(...) can only be iterated by a for loop"),
    ("async", "@hls.kernel\nasync def f(n: unsigned(4)):\n    pass\n", "async", "async functions are not supported"),
    ("unroll-non-range", K + "def f(a: hls.Array[signed(8), 4]):\n    for i in hls.unroll(a):\n        pass\n",
     "a):", "hls.unroll must wrap range(...), not 'a'"),
    ("unroll-factor-zero", K + "def f(a: hls.Array[signed(8), 4], n: unsigned(3)):\n"
     "    for i in hls.unroll(range(n), factor=0):\n        a[i] = 0\n", "0)",
     "hls.unroll factor must be an integer constant from 1 to 256, not 0"),
    ("unroll-factor-large", K + "def f(a: hls.Array[signed(8), 4], n: unsigned(3)):\n"
     "    for i in hls.unroll(range(n), factor=1000):\n        a[i] = 0\n", "1000)",
     "hls.unroll factor must be an integer constant from 1 to 256, not 1000"),
    ("unroll-factor-variable", K + "def f(a: hls.Array[signed(8), 4], n: unsigned(3)):\n"
     "    for i in hls.unroll(range(4), factor=n):\n        a[i] = 0\n", "n)",
     "hls.unroll factor must be an integer constant from 1 to 256, not n"),
    ("unroll-runtime-full", K + "def f(a: hls.Array[signed(8), 4], n: unsigned(3)):\n"
     "    for i in hls.unroll(range(n)):\n        a[i] = 0\n", "hls.unroll(range(n)):",
     "hls.unroll without a factor needs constant range bounds"),
    ("unroll-too-many", K + "def f(a: hls.Array[signed(8), 4]):\n    for i in hls.unroll(range(1000)):\n"
     "        a[0] = 0\n", "hls.unroll(range(1000))", "makes more than 256 copies"),
    ("unroll-break", K + "def f(a: hls.Array[signed(8), 4]):\n    for i in hls.unroll(range(4)):\n"
     "        if a[i] == 0:\n            break\n", "break", "break in an unrolled loop is not supported"),
    ("unroll-inner-loop", K + "def f(a: hls.Array[signed(8), 4], n: unsigned(3)):\n"
     "    for i in hls.unroll(range(2)):\n        for j in range(n):\n            a[j] = i\n", "for j",
     "a loop inside an hls.unroll loop must be unrolled too"),
    ("local-in-loop", K + "def f(n: unsigned(3)):\n    for i in range(n):\n        b = hls.local(signed(8), 4)\n",
     "b = hls", "hls.local arrays must be declared at the top level of the kernel body"),
    ("local-depth", K + "def f(n: unsigned(3)):\n    b = hls.local(signed(8), n)\n", "n)",
     "the depth of hls.local must be a positive integer constant, not 'n'"),
    ("local-shape", K + "def f(n: unsigned(3)):\n    b = hls.local(8, 4)\n", "8,",
     "the element shape '8' of hls.local is not an Amaranth shape"),
    ("local-partition", K + "def f(n: unsigned(3)):\n    b = hls.local(signed(8), 8, partition=hls.partition('cyclic', 3))\n",
     "hls.partition", "cyclic partition factor must be a power of two"),
    ("local-assigned", K + "def f(n: unsigned(3)):\n    b = hls.local(signed(8), 8)\n    b = 1\n", "b = 1",
     "cannot assign to array 'b'"),
    ("local-as-value", K + "def f(n: unsigned(3)):\n    b = hls.local(signed(8), 8)\n    x = b\n", "b\n",
     "array 'b' can only be indexed"),
]


@pytest.mark.parametrize("source,marker,message", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_construct_outside_the_language(load_source, source, marker, message):
    module, path = load_source(source)
    text = open(path).read()
    prefix, _, mark = marker.rpartition("|")
    offset = text.index(prefix + mark, len("import hls\n")) + len(prefix)
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    with pytest.raises(KernelSyntaxError) as caught:
        module.f.analyze()
    error = caught.value
    assert (error.filename, error.lineno, error.col) == (path, line, col), str(error)
    assert message in error.message
    rendered = str(error)
    assert "\n" not in rendered
    assert rendered.startswith(f"{path}:{line}:{col}: {error.message}")
    if error.hint:
        assert rendered.endswith(f" (hint: {error.hint})")


def test_every_error_has_a_hint_or_is_self_explanatory():
    # Errors that replace a construct with another one name the replacement.
    from hls.frontend.check import _UNSUPPORTED_EXPRESSIONS, _UNSUPPORTED_STATEMENTS
    for table in (_UNSUPPORTED_STATEMENTS, _UNSUPPORTED_EXPRESSIONS):
        for node_type, (message, hint) in table.items():
            assert message and message[0].islower(), node_type


def test_kernel_errors_reach_the_command_line_as_one_line(load_source):
    from axhls.command import CommandError
    from axhls.loading import load_kernel
    _, path = load_source(K + "def f(n: unsigned(4)):\n    x = 1.5\n")
    with pytest.raises(CommandError) as caught:
        load_kernel(f"{path}:f")
    assert caught.value.status == 2
    assert str(caught.value) == (f"{path}:5:9: floats are not supported: 1.5 "
                                 f"(hint: use integers (fixed point: scale by a power of two))")


def test_errors_survive_pickling_for_process_pools():
    import pickle
    from hls.errors import KernelRuntimeError
    error = pickle.loads(pickle.dumps(KernelSyntaxError("/k.py", 3, 5, "floats are not supported", "use ints")))
    assert (error.filename, error.lineno, error.col, error.message, error.hint) == \
        ("/k.py", 3, 5, "floats are not supported", "use ints")
    assert str(error) == "/k.py:3:5: floats are not supported (hint: use ints)"
    runtime = pickle.loads(pickle.dumps(KernelRuntimeError("/k.py", 7, "index 9 out of range for a[4]")))
    assert str(runtime) == "/k.py:7: index 9 out of range for a[4]"
