"""Bad inputs of the kernel language, of loading ``FILE.py:KERNEL`` and ``--args`` files,
and of the Python that runs ``axhls``: each with the exit status and the one line it gets.

``ROWS`` is a list of dicts, one bad input each:

``id``
    A unique name.
``files``
    ``{relative name: text}``: files written into an empty temporary directory, which
    is the working directory while the command runs (so ``argv`` names them relatively,
    and messages show them that way).
``argv``
    The ``axhls`` arguments.
``exit``
    The expected exit status: 2 for a user's mistake, 1 for a run that failed.
``message``
    A regex searched in the one line on stderr (``axhls: ...``); with ``--json`` in
    ``argv``, in the one line on stdout (``{"error": ..., "status": ...}``) instead.
    For an ``argparse`` usage error the line is the last one, after the usage lines.
``python_flags`` (optional)
    Run as a subprocess, ``python FLAGS -m axhls ARGV``, with the repository on
    ``PYTHONPATH``: ``["-S"]`` is a Python without the installed dependencies.

Every row runs in well under a second in-process; ``tests/cli/test_bad_inputs_language.py``
runs them.
"""

from __future__ import annotations

import json
import re

__all__ = ["ROWS", "HEADER"]

#: The top of the kernel file ``k.py`` of most rows: helpers to call, a module constant.
HEADER = '''import hls
from amaranth import signed, unsigned

N = 100000


@hls.function
def helper(x: unsigned(4)) -> unsigned(4):
    return x


@hls.function
def pair(x: unsigned(8)) -> tuple[unsigned(8), unsigned(8)]:
    return x, x


@hls.function
def rec(x: unsigned(4)) -> unsigned(4):
    return rec(x)


@hls.kernel
def k(a: hls.Array[signed(16), 8], n: unsigned(8)) -> unsigned(8):
'''

#: The line of the kernel body's first statement in ``k.py``.
FIRST_LINE = HEADER.count("\n") + 1


def _kernel(body: str) -> str:
    """``k.py``: :data:`HEADER` and ``body`` (statements, unindented) as the kernel's body."""
    return HEADER + "".join(f"    {line}\n" for line in body.strip("\n").splitlines())


def _at(line: int, col: int) -> str:
    """The regex of ``k.py:LINE:COL: `` with ``line`` counted from the body's first statement (1)."""
    return re.escape(f"k.py:{FIRST_LINE + line - 1}:{col}: ")


def _language(id: str, body: str, message: str, command: str = "report") -> dict:
    """A kernel body outside the language: ``axhls report k.py:k`` exits 2 naming file:line:col."""
    argv = {"report": ["report", "k.py:k"], "compile": ["compile", "k.py:k", "-o", "out"],
            "check": ["check", "k.py:k", "--args", "args.json"]}[command]
    return {"id": id, "files": {"k.py": _kernel(body), "args.json": json.dumps({"a": [0] * 8, "n": 1})},
            "argv": argv, "exit": 2, "message": message}


def _file(id: str, text: str, message: str, argv: list[str] | None = None, exit: int = 2) -> dict:
    """A whole kernel file ``k.py`` of its own."""
    return {"id": id, "files": {"k.py": text}, "argv": argv or ["report", "k.py:k"], "exit": exit,
            "message": message}


def _args(id: str, arguments: str, message: str, command: str = "sim", exit: int = 2) -> dict:
    """An ``--args`` file (its text) for the kernel of :data:`HEADER`, whose body is ``return n``."""
    return {"id": id, "files": {"k.py": _kernel("return n"), "args.json": arguments},
            "argv": [command, "k.py:k", "--args", "args.json"], "exit": exit, "message": message}


_SIMPLE = "import hls\nfrom amaranth import signed, unsigned\n\n\n"

#: A kernel whose ``while`` never ends: only a bound on the Python run stops it.
_ENDLESS = _SIMPLE + '''@hls.kernel
def spin(n: unsigned(8)) -> unsigned(8):
    s: unsigned(8) = 0
    while n < 10 or n >= 10:
        s = s + 1
    return s
'''

_LANGUAGE = [
    # -- constructs outside the language
    _language("float", "x: unsigned(8) = 1.5\nreturn n", _at(1, 22) + "floats are not supported: 1.5"),
    _language("string", 'x: unsigned(8) = "s"\nreturn n', _at(1, 22) + "strings are not supported"),
    _language("f_string", 'x: unsigned(8) = f"{n}"\nreturn n', "strings are not supported"),
    _language("dict", "x: unsigned(8) = {}\nreturn n", "dicts are not supported"),
    _language("list", "x: unsigned(8) = [1, 2]\nreturn n", "lists cannot be built in a kernel"),
    _language("set", "x: unsigned(8) = {1, 2}\nreturn n", "sets are not supported"),
    _language("list_comprehension", "x: unsigned(8) = [i for i in range(3)]\nreturn n",
              "comprehensions are not supported"),
    _language("generator_expression", "x: unsigned(8) = (i for i in range(3))\nreturn n",
              "generator expressions are not supported"),
    _language("lambda", "x: unsigned(8) = (lambda: 1)\nreturn n", "lambdas are not supported"),
    _language("yield", "yield n\nreturn n", r"generators \(yield\) are not supported"),
    _language("walrus", "x: unsigned(8) = (y := 1)\nreturn n", r"assignment expressions \(:=\) are not supported"),
    _language("try", "try:\n    x: unsigned(8) = 1\nexcept Exception:\n    pass\nreturn n",
              _at(1, 5) + r"exceptions \(try\) are not supported"),
    _language("raise", "raise ValueError()\nreturn n", r"exceptions \(raise\) are not supported"),
    _language("with", "with open('f'):\n    pass\nreturn n", "with statements are not supported"),
    _language("import", "import os\nreturn n", "imports inside a kernel are not supported"),
    _language("global", "global N\nreturn n", "global is not supported"),
    _language("del", "x: unsigned(8) = 1\ndel x\nreturn n", "del is not supported"),
    _language("assert", "assert n > 0\nreturn n", "assert is not supported in a kernel"),
    _language("match", "match n:\n    case 1:\n        pass\nreturn n", "match statements are not supported"),
    _language("class", "class C:\n    pass\nreturn n", "classes are not supported inside a kernel"),
    # A nested def whose body returns: the nested def is the error, not "return must be last".
    _language("nested_def_with_return", "def inner(x):\n    return x\nreturn n",
              _at(1, 5) + r"nested functions are not supported \(hint: define an @hls.function helper"),
    _language("unknown_call", "x: unsigned(8) = foo(n)\nreturn n", r"unknown call foo\(\.\.\.\)"),
    _language("print", "print(n)\nreturn n", "print is not supported in a kernel"),
    _language("float_call", "x: unsigned(8) = float(n)\nreturn n", r"float\(\) is not supported"),
    _language("slice", "x: signed(16) = a[1:3]\nreturn n", "slicing is not supported"),
    _language("attribute", "x: unsigned(8) = n.real\nreturn n", "attribute"),
    _language("attribute_assignment", "n.real = 1\nreturn n", "attribute assignment is not supported"),
    _language("true_division", "x: unsigned(8) = n / 2\nreturn n", "/ is true division"),
    _language("power", "x: unsigned(8) = n ** 2\nreturn n", r"\*\* is not supported"),
    _language("expression_statement", "n + 1\nreturn n", r"expression statement 'n \+ 1' has no effect"),
    _language("chained_assignment", "x: unsigned(8) = 0\ny: unsigned(8) = 0\nx = y = 1\nreturn n",
              r"chained assignment \(a = b = \.\.\.\) is not supported"),
    _language("starred_assignment", "*x, y = 1, 2\nreturn n", "starred"),
    _language("unpack_a_name", "x: unsigned(8) = 0\ny: unsigned(8) = 0\nx, y = n\nreturn n",
              "only a tuple or a helper returning a tuple can be unpacked"),
    _language("unpack_count", "x: unsigned(8) = 0\ny: unsigned(8) = 0\nx, y = 1, 2, 3\nreturn n",
              "cannot unpack 3 values into 2 names"),
    # -- names, annotations and declarations
    _language("reserved_name", "__hls_x: unsigned(8) = 1\nreturn n", "names starting with __hls_ are reserved"),
    _language("declared_twice", "x: unsigned(8) = 1\nx: unsigned(8) = 2\nreturn n",
              r"'x' is already declared as unsigned\(8\)"),
    _language("annotated_late", "x = 1\nx: unsigned(8) = 2\nreturn n", "'x' is annotated after it was first assigned"),
    _language("annotated_element", "a[0]: signed(16) = 1\nreturn n", "only plain names can be annotated"),
    _language("annotation_not_a_shape", "x: int = 1\nreturn n", r"annotation 'int' of 'x' is not a shape"),
    _language("annotation_cannot_evaluate", "x: nowhere(8) = 1\nreturn n",
              r"cannot evaluate annotation 'nowhere\(8\)'"),
    _language("array_by_annotation", "b: hls.Array[signed(8), 4] = 0\nreturn n",
              "an array cannot be declared by annotation"),
    _language("assign_array_parameter", "a = 0\nreturn n", "cannot assign to array parameter 'a'"),
    # -- loops
    _language("range_step_negative", "for i in range(10, 0, -1):\n    a[0] = i\nreturn n",
              "range step must be positive, not -1"),
    _language("range_step_variable", "for i in range(0, 8, n):\n    a[0] = i\nreturn n",
              r"the range step 'n' must be an integer constant"),
    _language("range_arguments", "for i in range(1, 2, 3, 4):\n    a[0] = i\nreturn n",
              "range takes 1 to 3 positional arguments"),
    _language("range_outside_for", "x: unsigned(8) = range(3)\nreturn n",
              r"range\(\.\.\.\) can only be iterated by a for loop"),
    _language("for_over_array", "for v in a:\n    pass\nreturn n", r"for loops must iterate over range\(\.\.\.\), not 'a'"),
    _language("for_two_names", "for i, j in range(3):\n    pass\nreturn n", "a for loop must bind a single name"),
    _language("for_else", "for i in range(3):\n    pass\nelse:\n    pass\nreturn n", "for ... else is not supported"),
    _language("while_else", "while n < 3:\n    break\nelse:\n    pass\nreturn n", "while ... else is not supported"),
    # Python itself rejects these when it compiles the file: the file as the user named it, line, column.
    _language("break_outside_loop", "break\nreturn n", r"^axhls: " + _at(1, 5) + "'break' outside loop"),
    _language("continue_outside_loop", "continue\nreturn n", r"^axhls: " + _at(1, 5) + "'continue' not properly in loop"),
    _language("assign_loop_variable", "for i in range(3):\n    i = 2\nreturn n",
              "cannot assign to loop variable 'i' inside its loop"),
    _language("loop_variable_reused", "for i in range(3):\n    for i in range(2):\n        a[0] = i\nreturn n",
              _at(2, 13) + "cannot assign to loop variable 'i' inside its loop"),
    _language("pipeline_ii_zero", "for i in hls.pipeline(range(3), ii=0):\n    a[i] = 1\nreturn n",
              "ii must be a positive integer constant, not '0'"),
    _language("pipeline_keyword", "for i in hls.pipeline(range(3), depth=2):\n    a[i] = 1\nreturn n",
              "hls.pipeline has no keyword 'depth'"),
    _language("pipeline_not_range", "for i in hls.pipeline(a):\n    pass\nreturn n",
              r"hls.pipeline must wrap range\(\.\.\.\), not 'a'"),
    _language("unroll_not_range", "for i in hls.unroll(a):\n    pass\nreturn n", r"hls.unroll must wrap range\(\.\.\.\)"),
    _language("unroll_factor_zero", "for i in hls.unroll(range(n), factor=0):\n    a[0] = i\nreturn n",
              "hls.unroll factor must be an integer constant from 1 to 256, not 0"),
    _language("unroll_needs_constant_bounds", "for i in hls.unroll(range(n)):\n    a[0] = i\nreturn n",
              "hls.unroll without a factor needs constant range bounds"),
    _language("unroll_too_many_copies", "for i in hls.unroll(range(300)):\n    a[0] = i\nreturn n",
              "hls.unroll of 300 iterations makes more than 256 copies"),
    _language("unroll_break", "for i in hls.unroll(range(4)):\n    break\nreturn n",
              "break in an unrolled loop is not supported"),
    _language("unroll_while_inside", "for i in hls.unroll(range(4)):\n    while n < 3:\n        break\nreturn n",
              "a while loop inside an hls.unroll loop is not supported"),
    _language("unroll_loop_inside", "for i in hls.unroll(range(4)):\n    for j in range(n):\n        a[0] = j\nreturn n",
              "a loop inside an hls.unroll loop must be unrolled too"),
    # -- arrays and hls.local
    _language("constant_index_out_of_range", "x: signed(16) = a[8]\nreturn n", "index 8 out of range for a"),
    _language("local_in_loop", "for i in range(3):\n    buf = hls.local(unsigned(8), 4)\nreturn n",
              "hls.local arrays must be declared at the top level of the kernel body"),
    _language("local_no_depth", "buf = hls.local(unsigned(8))\nreturn n", "hls.local needs an element shape and a depth"),
    _language("local_depth_zero", "buf = hls.local(unsigned(8), 0)\nreturn n",
              "the depth of hls.local must be a positive integer constant, not '0'"),
    _language("local_shape", "buf = hls.local(8, 4)\nreturn n", "the element shape '8' of hls.local is not an Amaranth shape"),
    _language("local_twice", "buf = hls.local(unsigned(8), 4)\nbuf = hls.local(unsigned(8), 4)\nreturn n",
              "array 'buf' is already declared"),
    _language("local_keyword", "buf = hls.local(unsigned(8), 4, banks=2)\nreturn n", "hls.local has no keyword 'banks'"),
    _language("partition_factor", 'buf = hls.local(unsigned(8), 8, partition=hls.partition("cyclic", 3))\nreturn n',
              "power of two"),
    _language("len_of_scalar", "x: unsigned(8) = len(n)\nreturn n", "len takes one array parameter"),
    _language("min_one_value", "x: unsigned(8) = min(n)\nreturn n", "min takes two or more values"),
    _language("shift_by_signed", "s: signed(4) = 1\nx: unsigned(8) = n << s\nreturn n",
              "the shift amount of << must be unsigned"),
    # -- results and helpers
    _language("return_not_last", "if n:\n    return 1\nreturn 2", "return must be the last statement of the kernel"),
    _language("helper_result_count", "x: unsigned(8) = pair(n)\nreturn n",
              r"pair returns 2 value\(s\), but 1 are used here"),
    _language("helper_recursion", "x: unsigned(8) = rec(n)\nreturn n", "recursive call to rec"),
    _language("helper_argument_count", "x: unsigned(8) = helper(n, n)\nreturn n", r"helper takes 1 argument\(s\), 2 given"),
    _language("helper_keyword", "x: unsigned(8) = helper(y=1)\nreturn n", "helper has no parameter 'y'"),
    _language("helper_in_while_condition", "while helper(n) < 3:\n    break\nreturn n",
              r"helper call helper\(\.\.\.\) in a while condition"),
    _language("approx_call_without_unit", "x: unsigned(16) = hls.approx.mul(n, n)\nreturn n",
              "hls.approx.mul needs unit="),
    _language("approx_call_unknown_unit", "x: unsigned(16) = hls.approx.mul(n, n, unit='nope')\nreturn n",
              "unknown mul unit 'nope'"),
    _language("unpack_a_call", "x: unsigned(8) = 0\ny: unsigned(8) = 0\nx, y = min(n, 1)\nreturn n",
              "only a helper returning a tuple can be unpacked"),
    _language("array_two_dimensional", "x: signed(16) = a[0][1]\nreturn n", "arrays are one-dimensional"),
    _language("array_two_indices", "x: signed(16) = a[0, 1]\nreturn n", "arrays are one-dimensional"),
    _language("assign_local_array", "buf = hls.local(unsigned(8), 4)\nbuf = 0\nreturn n", "cannot assign to array 'buf'"),
    _language("local_over_scalar", "buf: unsigned(8) = 0\nbuf = hls.local(unsigned(8), 4)\nreturn n",
              "'buf' is already a scalar variable"),
    _language("local_partition_not_partition", "buf = hls.local(unsigned(8), 4, partition=2)\nreturn n",
              "partition= must be hls.partition"),
    _language("local_shape_twice", "buf = hls.local(unsigned(8), 4, shape=unsigned(8))\nreturn n",
              "hls.local got 'shape' twice"),
    _language("local_too_many_arguments", "buf = hls.local(unsigned(8), 4, None, 5)\nreturn n",
              "hls.local takes shape, depth and optionally partition"),
    _language("local_outside_assignment", "x: unsigned(8) = hls.local(unsigned(8), 4)\nreturn n",
              r"hls.local\(\.\.\.\) can only be assigned to a name"),
    _language("unroll_keyword", "for i in hls.unroll(range(4), copies=2):\n    a[0] = i\nreturn n",
              "hls.unroll has no keyword 'copies'"),
    _language("unroll_two_arguments", "for i in hls.unroll(range(4), 2):\n    a[0] = i\nreturn n",
              r"hls.unroll takes one range\(\.\.\.\) argument"),
    _language("unroll_factor_variable", "for i in hls.unroll(range(8), factor=n):\n    a[0] = i\nreturn n",
              "hls.unroll factor must be an integer constant from 1 to 256, not n"),
    _language("sequential_two_arguments", "for i in hls.sequential(range(4), range(2)):\n    a[0] = i\nreturn n",
              r"hls.sequential takes one range\(\.\.\.\) argument"),
    _language("pipeline_ii_variable", "for i in hls.pipeline(range(3), ii=n):\n    a[i] = 1\nreturn n",
              "ii must be a positive integer constant, not 'n'"),
    _language("pipeline_outside_for", "x: unsigned(8) = hls.pipeline(range(3))\nreturn n",
              r"hls.pipeline\(\.\.\.\) can only be iterated by a for loop"),
    _language("abs_two_values", "x: unsigned(8) = abs(n, n)\nreturn n", "abs takes one value"),
    _language("helper_array_argument", "x: unsigned(4) = helper(a)\nreturn n",
              _at(1, 29) + re.escape("array 'a' can only be indexed (hint: write a[i])")),
    _language("helper_starred_argument", "x: unsigned(4) = helper(*a)\nreturn n",
              _at(1, 29) + "starred arguments are not supported"),
    _language("helper_missing_argument", "x: unsigned(4) = helper()\nreturn n", r"helper is missing argument\(s\) x"),
    _language("print_in_expression", "x: unsigned(8) = print(n)\nreturn n", "print is not supported in a kernel"),
    # -- constants that do not fit their declared shape (issue 21)
    _language("initialiser_too_big", "s: unsigned(4) = 100\nreturn n",
              _at(1, 22) + re.escape("constant 100 does not fit 's' (unsigned(4), range 0..15) "
                                     "(hint: declare unsigned(7), or write 4 if the wrapped value is meant)")),
    _language("initialiser_too_negative", "s: signed(8) = -200\nreturn n",
              _at(1, 20) + re.escape("constant -200 does not fit 's' (signed(8), range -128..127)")),
    _language("initialiser_negative_into_unsigned", "s: unsigned(8) = -1\nreturn n",
              _at(1, 22) + re.escape("constant -1 does not fit 's' (unsigned(8), range 0..255) "
                                     "(hint: declare signed(9), or write 255")),
    _language("initialiser_module_constant", "s: unsigned(8) = N\nreturn n",
              _at(1, 22) + re.escape("constant N = 100000 does not fit 's' (unsigned(8), range 0..255)")),
    _language("return_constant_too_big", "return 1000",
              _at(1, 12) + re.escape("constant 1000 does not fit the return value of k (unsigned(8), range 0..255)")),
    _language("store_constant_too_big", "a[0] = 100000\nreturn n",
              _at(1, 12) + re.escape("constant 100000 does not fit an element of a (signed(16), range -32768..32767)")),
    _language("assignment_to_declared_name", "s: unsigned(4) = 0\ns = 16\nreturn n",
              _at(2, 9) + re.escape("constant 16 does not fit 's' (unsigned(4), range 0..15)")),
    _language("assignment_to_parameter", "n = 256\nreturn n",
              _at(1, 9) + re.escape("constant 256 does not fit 'n' (unsigned(8), range 0..255)")),
    _language("tuple_store_constant", "x: unsigned(8) = 0\na[0], x = 40000, 1\nreturn n",
              re.escape("constant 40000 does not fit an element of a (signed(16), range -32768..32767)")),
    _language("helper_argument_constant", "x: unsigned(8) = helper(100)\nreturn n",
              re.escape("constant 100 does not fit parameter 'x' of helper (unsigned(4), range 0..15)")),
    _language("compile_initialiser_too_big", "s: unsigned(4) = 100\nreturn n",
              _at(1, 22) + re.escape("constant 100 does not fit 's' (unsigned(4), range 0..15)"), command="compile"),
    _language("check_initialiser_too_big", "s: unsigned(4) = 100\nreturn n",
              _at(1, 22) + re.escape("constant 100 does not fit 's' (unsigned(4), range 0..15)"), command="check"),
]

_SIGNATURES = [
    _file("parameter_without_annotation", _SIMPLE + "@hls.kernel\ndef k(m) -> unsigned(8):\n    return 1\n",
          re.escape("k.py:6:7: parameter 'm' has no type annotation")),
    _file("parameter_unsigned_zero", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(0)) -> unsigned(8):\n    return n\n",
          re.escape("k.py:6:10: parameter 'n' is unsigned(0), which has no bits and holds only 0 "
                    "(hint: give it at least one bit, e.g. unsigned(8))")),
    _file("array_of_unsigned_zero", _SIMPLE + "@hls.kernel\ndef k(a: hls.Array[unsigned(0), 4]):\n    pass\n",
          re.escape("k.py:6:10: the elements of array parameter 'a' is unsigned(0), which has no bits")),
    _file("return_unsigned_zero", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8)) -> unsigned(0):\n    return 0\n",
          re.escape("the return value of k is unsigned(0), which has no bits")),
    _file("parameter_unsigned_not_called", _SIMPLE + "@hls.kernel\ndef k(n: unsigned) -> unsigned(8):\n    return n\n",
          re.escape("k.py:6:10: unsigned without a width is not a shape (hint: write unsigned(N), e.g. unsigned(8))")),
    _file("return_signed_not_called", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8)) -> signed:\n    return n\n",
          re.escape("k.py:6:26: signed without a width is not a shape (hint: write signed(N)")),
    _file("local_unsigned_not_called", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8)):\n    x: unsigned = n\n",
          re.escape("k.py:7:8: unsigned without a width is not a shape")),
    _file("array_of_unsigned_not_called", _SIMPLE + "@hls.kernel\ndef k(a: hls.Array[unsigned, 4]):\n    pass\n",
          re.escape("k.py:6: importing it failed: TypeError: hls.Array element shape must be an Amaranth shape "
                    "such as signed(16), not unsigned without a width (write unsigned(N))")),
    _file("array_without_depth", _SIMPLE + "@hls.kernel\ndef k(a: hls.Array[signed(8)]):\n    pass\n",
          "array parameter 'a' has no depth"),
    _file("parameter_annotated_int", _SIMPLE + "@hls.kernel\ndef k(n: int) -> unsigned(8):\n    return n\n",
          "parameter 'n' is annotated <class 'int'>, which is not a shape"),
    _file("star_kwargs", _SIMPLE + "@hls.kernel\ndef k(**n: unsigned(8)):\n    pass\n",
          r"\*\*kwargs parameters are not supported"),
    _file("positional_only", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8), /):\n    pass\n",
          "positional-only and keyword-only parameters are not supported"),
    _file("return_tuple_element_not_a_shape",
          _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8)) -> tuple[unsigned(8), int]:\n    return n, n\n",
          "return annotation element <class 'int'> is not a shape"),
    _file("indirect_recursion", _SIMPLE + "@hls.function\ndef g(x: unsigned(4)) -> unsigned(4):\n    return h(x)\n\n\n"
          "@hls.function\ndef h(x: unsigned(4)) -> unsigned(4):\n    return g(x)\n\n\n"
          "@hls.kernel\ndef k(n: unsigned(4)) -> unsigned(4):\n    return g(n)\n", "recursive call to g"),
    _file("star_args", _SIMPLE + "@hls.kernel\ndef k(*n: unsigned(8)):\n    pass\n", r"\*args parameters are not supported"),
    _file("default_value", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8) = 1):\n    pass\n",
          "default parameter values are not supported"),
    _file("keyword_only", _SIMPLE + "@hls.kernel\ndef k(*, n: unsigned(8)):\n    pass\n",
          "positional-only and keyword-only parameters are not supported"),
    _file("return_without_annotation", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8)):\n    return n\n",
          "k returns a value but has no return annotation"),
    _file("no_return_statement", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8)) -> unsigned(8):\n    pass\n",
          "k declares a return shape but does not end with a return statement"),
    _file("return_count", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8)) -> tuple[unsigned(8), unsigned(8)]:\n"
          "    return n\n", r"return gives 1 value\(s\) but the annotation declares 2"),
    _file("return_annotated_int", _SIMPLE + "@hls.kernel\ndef k(n: unsigned(8)) -> int:\n    return n\n",
          "return annotation <class 'int'> is not a shape"),
    # approx= values no operand width allows: the range at the operation's widths (2..16), not the widest.
    _file("approx_parameter_at_the_operand_widths",
          _SIMPLE + "@hls.kernel(approx={'mul': ('drum', {'k': 99})})\n"
          "def k(a: unsigned(16), b: unsigned(16)) -> unsigned(32):\n    return a * b\n",
          re.escape("k.py:7:12: `a * b`: approx={'mul': ...}: drum(k=99) at 16x16 bits (unsigned(16) and "
                    "unsigned(16) operands): k=99 is out of range; allowed: 2..16")),
    _file("approx_parameter_without_an_operation",
          _SIMPLE + "@hls.kernel(approx={'mul': ('drum', {'k': 99})})\n"
          "def k(a: unsigned(16), b: unsigned(16)) -> unsigned(17):\n    return a + b\n",
          re.escape("k.py:6:1: approx={'mul': ...}: 'drum': k=99 is out of range; allowed: 2..32 "
                    "(at 32-bit operands, the widest)")),
    _file("approx_unknown_unit", _SIMPLE + "@hls.kernel(approx={'mul': 'drums'})\n"
          "def k(a: unsigned(8)) -> unsigned(8):\n    return a\n",
          r"k.py:5: importing it failed: ValueError: approx=\{'mul': \.\.\.\}: unknown mul unit 'drums'"),
]

_LOADING = [
    _file("spec_without_kernel", _kernel("return n"), re.escape("k.py: expected FILE.py:KERNEL"), ["report", "k.py"]),
    _file("spec_empty_kernel", _kernel("return n"), re.escape("k.py:: expected FILE.py:KERNEL"), ["report", "k.py:"]),
    _file("missing_file", _kernel("return n"), re.escape("nope.py: no such file"), ["report", "nope.py:k"]),
    _file("no_such_kernel", _kernel("return n"),
          re.escape("k.py: no kernel named 'zz' (kernels in this file: k)"), ["report", "k.py:zz"]),
    _file("helper_is_not_a_kernel", _kernel("return n"), re.escape("k.py: 'helper' is not an @hls.kernel"),
          ["report", "k.py:helper"]),
    _file("python_syntax_error", "import hls\n\ndef k(:\n    pass\n", r"^axhls: k\.py:3:\d+: "),
    _file("import_raises", _SIMPLE + "x = 1 // 0\n",
          re.escape("k.py:5: importing it failed: ZeroDivisionError: integer division or modulo by zero")),
    _file("import_calls_sys_exit", _SIMPLE + "import sys\n\n@hls.kernel\ndef k(n: unsigned(8)) -> unsigned(8):\n"
          "    return n\n\nsys.exit(3)\n",
          re.escape('k.py:11: importing it called sys.exit(3); guard the file\'s script code with '
                    '`if __name__ == "__main__":`')),
    # Its own argparse sees `k.py` as its command line, not axhls's; its usage is not printed as axhls's.
    _file("import_runs_argparse", _SIMPLE + "import argparse\n\n@hls.kernel\ndef k(n: unsigned(8)) -> unsigned(8):\n"
          "    return n\n\nparser = argparse.ArgumentParser()\nparser.add_argument('--width', required=True)\n"
          "parser.parse_args()\n",
          re.escape("k.py:13: importing it called sys.exit(2) after printing 'usage: k.py [-h] --width WIDTH k.py: "
                    "error: the following arguments are required: --width'")),
    _file("report_json_syntax_error", _kernel("s: unsigned(4) = 100\nreturn n"),
          re.escape('{"error": "') + _at(1, 22) + "constant 100 does not fit .*" + re.escape('"status": 2}'),
          ["report", "k.py:k", "--json"]),
    _args("args_missing_file", "{}", re.escape("nope.json: no such file")) | {"argv": ["sim", "k.py:k", "--args", "nope.json"]},
    _args("args_bad_json", "{'n': 1}", r"args\.json:1:2: bad JSON: Expecting property name enclosed in double quotes"),
    _args("args_not_an_object", "[1, 2]", "args.json: expected a JSON object mapping parameter names to values"),
    _args("args_missing_parameter", '{"n": 1}', r"args.json: k\(\) is missing argument\(s\): a"),
    _args("args_unknown_parameter", '{"n": 1, "a": [0, 0, 0, 0, 0, 0, 0, 0], "q": 3}',
          r"args.json: k\(\) has no parameter 'q' \(parameters: a, n\)"),
    _args("args_scalar_too_big", '{"n": 300, "a": [0, 0, 0, 0, 0, 0, 0, 0]}',
          re.escape("args.json: argument n = 300 does not fit unsigned(8) (0..255)")),
    _args("args_scalar_not_integer", '{"n": 1.5, "a": [0, 0, 0, 0, 0, 0, 0, 0]}',
          "args.json: argument 'n' must be an integer, not 1.5"),
    _args("args_scalar_boolean", '{"n": true, "a": [0, 0, 0, 0, 0, 0, 0, 0]}',
          "args.json: argument 'n' must be an integer, not True"),
    _args("args_array_length", '{"n": 1, "a": [0, 0, 0]}',
          re.escape("args.json: array argument 'a' has 3 elements; hls.Array[signed(16), 8] needs exactly 8")),
    _args("args_array_element_too_big", '{"n": 1, "a": [0, 0, 40000, 0, 0, 0, 0, 0]}',
          re.escape("args.json: a[2] = 40000 does not fit signed(16) (-32768..32767)")),
    _args("args_array_not_a_list", '{"n": 1, "a": 5}', "args.json: array argument 'a' must be a list or a numpy array, not int"),
    _args("check_args_scalar_too_big", '{"n": 300, "a": [0, 0, 0, 0, 0, 0, 0, 0]}',
          re.escape("args.json: argument n = 300 does not fit unsigned(8) (0..255)"), command="check"),
    # Run-time faults: status 1.
    {"id": "check_index_out_of_range", "files": {"k.py": _kernel("x: signed(16) = a[n]\nreturn n"),
                                                 "args.json": json.dumps({"a": [0] * 8, "n": 9})},
     "argv": ["check", "k.py:k", "--args", "args.json"], "exit": 1,
     "message": re.escape(f"k.py:{FIRST_LINE}: index 9 out of range for a[8]")},
    {"id": "sim_index_out_of_range_json", "files": {"k.py": _kernel("x: signed(16) = a[n]\nreturn n"),
                                                    "args.json": json.dumps({"a": [0] * 8, "n": 9})},
     "argv": ["sim", "k.py:k", "--args", "args.json", "--json"], "exit": 1,
     "message": re.escape(f'{{"error": "k.py:{FIRST_LINE}: index 9 out of range for a[8]", "status": 1}}')},
    # A while that never ends: the Python run before the hardware's stops at --max-cycles iterations (issue 21).
    {"id": "sim_endless_while", "files": {"k.py": _ENDLESS, "args.json": '{"n": 3}'},
     "argv": ["sim", "k.py:spin", "--args", "args.json", "--max-cycles", "1000"], "exit": 1,
     "message": re.escape("k.py:8: the Python run stopped after 1000 iterations of this loop "
                          "(the limit set by --max-cycles 1000)")},
    {"id": "sim_endless_while_json", "files": {"k.py": _ENDLESS, "args.json": '{"n": 3}'},
     "argv": ["sim", "k.py:spin", "--args", "args.json", "--max-cycles", "50", "--json"], "exit": 1,
     "message": re.escape('{"error": "k.py:8: the Python run stopped after 50 iterations of this loop '
                          '(the limit set by --max-cycles 50)", "status": 1}')},
    {"id": "check_endless_while", "files": {"k.py": _ENDLESS, "args.json": '{"n": 3}'},
     "argv": ["check", "k.py:spin", "--args", "args.json", "--max-iterations", "1000"], "exit": 1,
     "message": re.escape("k.py:8: the Python run stopped after 1000 iterations of this loop "
                          "(the limit set by --max-iterations 1000)")},
    {"id": "check_max_iterations_zero", "files": {"k.py": _ENDLESS, "args.json": '{"n": 3}'},
     "argv": ["check", "k.py:spin", "--args", "args.json", "--max-iterations", "0"], "exit": 2,
     "message": re.escape("axhls check: error: argument --max-iterations: expected a positive integer, not 0")},
    {"id": "check_max_iterations_text", "files": {"k.py": _ENDLESS, "args.json": '{"n": 3}'},
     "argv": ["check", "k.py:spin", "--args", "args.json", "--max-iterations", "many"], "exit": 2,
     "message": re.escape("axhls check: error: argument --max-iterations: expected a positive integer, not 'many'")},
    {"id": "sim_max_cycles_negative", "files": {"k.py": _ENDLESS, "args.json": '{"n": 3}'},
     "argv": ["sim", "k.py:spin", "--args", "args.json", "--max-cycles", "-5"], "exit": 2,
     "message": re.escape("axhls sim: error: argument --max-cycles: expected a positive integer, not -5")},
    {"id": "sim_unknown_backend", "files": {"k.py": _ENDLESS, "args.json": '{"n": 3}'},
     "argv": ["sim", "k.py:spin", "--args", "args.json", "--backend", "ghdl"], "exit": 2,
     "message": re.escape("axhls sim: error: argument --backend: invalid choice: 'ghdl'")},
    {"id": "sim_without_args", "files": {"k.py": _ENDLESS}, "argv": ["sim", "k.py:spin"], "exit": 2,
     "message": re.escape("axhls sim: error: the following arguments are required: --args")},
    {"id": "compile_output_is_a_file", "files": {"k.py": _kernel("return n"), "out": "not a directory"},
     "argv": ["compile", "k.py:k", "-o", "out"], "exit": 2, "message": r"^axhls: out: exists and is not a directory$"},
    _args("sim_approx_unknown_unit", '{"n": 1, "a": [0, 0, 0, 0, 0, 0, 0, 0]}', "unknown mul unit 'drums'")
    | {"argv": ["sim", "k.py:k", "--args", "args.json", "--approx", "mul=drums"]},
    _args("sim_approx_syntax", '{"n": 1, "a": [0, 0, 0, 0, 0, 0, 0, 0]}',
          re.escape("--approx 'mul': expected KIND=UNIT[:PARAM=VALUE[,PARAM=VALUE...]], e.g. mul=drum:k=6"))
    | {"argv": ["sim", "k.py:k", "--args", "args.json", "--approx", "mul"]},
    _args("sim_vcd_in_missing_directory", '{"n": 1, "a": [0, 0, 0, 0, 0, 0, 0, 0]}',
          r"nowhere/w\.vcd: directory .* does not exist")
    | {"argv": ["sim", "k.py:k", "--args", "args.json", "--vcd", "nowhere/w.vcd"]},
]

#: A kernel with an input stream ``s``, an output stream ``o`` and a scalar ``n``; its body comes after.
_STREAM_HEADER = _SIMPLE + "@hls.kernel\ndef k(s: hls.Stream[signed(8)], o: hls.Stream[signed(8)], n: unsigned(8)):\n"


def _stream(id: str, body: str, message: str, argv: list[str] | None = None, files: dict | None = None) -> dict:
    """The kernel of :data:`_STREAM_HEADER` with ``body`` (unindented; line 1 of it is line 7 of ``k.py``)."""
    text = _STREAM_HEADER + "".join(f"    {line}\n" for line in body.strip("\n").splitlines())
    return {"id": id, "files": {"k.py": text, **(files or {})}, "argv": argv or ["report", "k.py:k"], "exit": 2,
            "message": message}


#: The body of a kernel of :data:`_STREAM_HEADER` that is in the language: copy n tokens.
_STREAM_COPY = "for i in range(n):\n    x = s.read()\n    o.write(x)"

_STREAMS = [
    _stream("stream_as_value", "x = s + 1\no.write(x)",
            re.escape("k.py:7:9: stream 's' is not a value (hint: read a token with x = s.read(), or write one "
                      "with s.write(v))")),
    _stream("stream_read_and_written", "x = s.read()\ns.write(x)\no.write(x)",
            re.escape("k.py:8:5: stream 's' is written here and read on line 7: a stream parameter is either an "
                      "input (read) or an output (written)")),
    _stream("stream_read_inside_expression", "x = s.read() + 1\no.write(x)",
            re.escape("k.py:7:9: s.read() must be the whole value of an assignment (hint: take the token first: "
                      "x = s.read(), then use x)")),
    _stream("stream_read_dropped", "s.read()\no.write(1)",
            re.escape("k.py:7:5: the token s.read() takes would be lost (hint: assign it to a variable: "
                      "x = s.read())")),
    _stream("stream_write_as_value", "x = o.write(s.read())",
            re.escape("k.py:7:9: o.write(...) is a statement and has no value")),
    _stream("stream_unknown_method", "x = s.peek()\no.write(x)",
            re.escape("k.py:7:9: stream 's' has no method 'peek' in a kernel")),
    _stream("stream_attribute", "x = s.valid\no.write(x)",
            re.escape("k.py:7:9: stream 's' has no attribute 'valid' in a kernel")),
    _stream("stream_write_without_value", "x = s.read()\no.write()",
            re.escape("k.py:8:5: o.write takes one value (hint: write o.write(v))")),
    _stream("stream_read_with_argument", "x = s.read(1)\no.write(x)",
            re.escape("k.py:7:9: s.read takes no arguments (hint: write x = s.read())")),
    _stream("stream_never_used", "x = s.read()",
            re.escape("k.py:6:33: stream parameter 'o' is never read or written, so it is neither an input nor "
                      "an output")),
    _stream("stream_assigned", "s = 1\no.write(s)",
            re.escape("stream parameter 's' is assigned in the body")),
    _stream("stream_constant_too_wide", "x = s.read()\no.write(300)",
            re.escape("k.py:8:13: constant 300 does not fit a token of stream 'o' (signed(8), range -128..127)")),
    _file("stream_of_a_number", _SIMPLE + "@hls.kernel\ndef k(s: hls.Stream[8]):\n    x = s.read()\n",
          re.escape("k.py:6: importing it failed: TypeError: hls.Stream token shape must be an Amaranth shape "
                    "such as signed(16), not 8")),
    _file("stream_of_two_items", _SIMPLE + "@hls.kernel\ndef k(s: hls.Stream[signed(8), 4]):\n    x = s.read()\n",
          re.escape("hls.Stream takes one item, the token shape (hls.Stream[signed(16)]), not 2 items")),
    _file("stream_in_helper", _SIMPLE + "@hls.function\ndef h(t: hls.Stream[signed(8)]) -> signed(8):\n"
          "    return t.read()\n\n\n@hls.kernel\ndef k(s: hls.Stream[signed(8)]) -> signed(8):\n"
          "    return h(s)\n",
          re.escape("k.py:6:7: helper h takes the stream parameter 't': only a kernel's own parameters can be "
                    "streams")),
    _stream("stream_args_output_not_a_list", _STREAM_COPY,
            re.escape("args.json: output stream argument 'o' must be a list the kernel appends its tokens to, "
                      "not int"), ["sim", "k.py:k", "--args", "args.json"],
            {"args.json": '{"s": [1, 2], "o": 3, "n": 2}'}),
    _stream("stream_args_token_too_wide", _STREAM_COPY,
            re.escape("args.json: token 1 of stream 's' = 200 does not fit signed(8) (-128..127)"),
            ["sim", "k.py:k", "--args", "args.json"], {"args.json": '{"s": [1, 200], "n": 2}'}),
    _stream("stream_args_input_not_a_list", _STREAM_COPY,
            re.escape("args.json: input stream argument 's' must be an iterable of integers (a list), not int"),
            ["sim", "k.py:k", "--args", "args.json"], {"args.json": '{"s": 5, "n": 2}'}),
    _stream("stream_args_too_few_tokens", _STREAM_COPY,
            re.escape("k.py:8: read 3 of stream 's', which gave only 2 token(s)"),
            ["sim", "k.py:k", "--args", "args.json"], {"args.json": '{"s": [1, 2], "n": 3}'}) | {"exit": 1},
    _stream("stream_stall_probability_one", _STREAM_COPY,
            re.escape("axhls sim: error: argument --stall-probability: expected a number from 0 up to (not "
                      "including) 1, not 1"),
            ["sim", "k.py:k", "--args", "args.json", "--stall-probability", "1"], {"args.json": '{"s": [1], "n": 1}'}),
    _stream("stream_stall_seed_negative", _STREAM_COPY,
            re.escape("axhls sim: error: argument --stall-seed: expected a non-negative integer, not -1"),
            ["sim", "k.py:k", "--args", "args.json", "--stall-seed", "-1"], {"args.json": '{"s": [1], "n": 1}'}),
]

_ENVIRONMENT = [
    # The system's Python, without the dependencies (`python3 -m axhls` outside .venv): a hint, not a traceback.
    {"id": "python_without_dependencies", "files": {"k.py": _kernel("return n")}, "argv": ["report", "k.py:k"],
     "python_flags": ["-S"], "exit": 2,
     "message": r"^axhls: this Python \(.*\) has no module '(amaranth|numpy|networkx|tqdm)'; axhls runs in its "
                r"virtual environment: set it up with `bash dev\.sh demo` in the repository, then run "
                r"\.venv/bin/axhls"},
]

#: Every bad input of this module.
ROWS: list[dict] = _LANGUAGE + _SIGNATURES + _LOADING + _STREAMS + _ENVIRONMENT
