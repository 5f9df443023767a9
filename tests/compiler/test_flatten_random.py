"""Random loop nests (depth 2 and 3; run-time, outer-dependent and memory-read bounds; breaks,
continues and stores in the innermost body and between the loops): the flattening rewrite against the user's nest in
the golden model on many inputs, and a few in hardware."""

import copy
import random

import pytest

from hls.frontend.flatten import flatten_nests
from hls.frontend.golden import GoldenModel
from sim.fuzz import Program, load_program
from sim.kernel import run

HEADER = """import hls
from amaranth import signed, unsigned


@hls.kernel
def nest(a: hls.Array[signed(8), 32], p: hls.Array[unsigned(3), 9], out: hls.Array[signed(16), 16],
         n: unsigned(3), m: unsigned(3)) -> signed(16):
    acc: signed(16) = 0
    c: signed(16) = 1
"""

VARIABLES = ("i", "j", "k")


def _bounds(rng, level, outer):
    if level == 0:
        return rng.choice(("range(n)", "range(1, n)", "range(0, 7, 2)", "range(m, 6)"))
    v = outer[-1]
    return rng.choice(("range(m)", f"range({v})", f"range({v}, 5)", f"range(p[{v} & 7], p[({v} & 7) + 1])",
                       f"range({v} % 3)", "range(2)", f"range(0, {v} + 3, 2)"))


def _between(rng, outer, indent):
    v = outer[-1]
    pad = " " * indent
    choices = [f"{pad}acc = acc + {v}", f"{pad}out[({v} + acc) & 15] = acc", f"{pad}c = a[{v} & 31]",
               f"{pad}if a[({v} * 3) & 31] > 0:\n{pad}    acc = acc - c\n{pad}else:\n{pad}    c = c + 1",
               f"{pad}acc = acc + out[{v} & 15]", f"{pad}if a[({v} + 9) & 31] == 4:\n{pad}    continue"]
    return [rng.choice(choices) for _ in range(rng.randint(0, 2))]


def _innermost(rng, loops, indent):
    pad = " " * indent
    index = " + ".join(loops)
    body = [f"{pad}acc = acc + a[({index}) & 31] * c"]
    extra = [f"{pad}if a[({index} + 7) & 31] == 3:\n{pad}    break",
             f"{pad}if a[({index} + 5) & 31] < -60:\n{pad}    continue",
             f"{pad}out[({index}) & 15] = acc",
             f"{pad}c = c + a[({loops[-1]} * 5) & 31]"]
    for _ in range(rng.randint(1, 3)):
        body.insert(rng.randint(0, len(body)), rng.choice(extra))
    return body


def nest_source(rng):
    depth = rng.choice((2, 2, 3))
    lines, loops, indent = [], [], 4
    posts = []
    for level in range(depth):
        variable = VARIABLES[level]
        if loops:
            lines += _between(rng, loops, indent)
        if loops and rng.random() < 0.2:
            # the inner loop under an if: its run is empty when the condition is false
            lines.append(f"{' ' * indent}if a[({loops[-1]} + 13) & 31] > -50:")
            indent += 4
        lines.append(f"{' ' * indent}for {variable} in {_bounds(rng, level, loops)}:")
        loops.append(variable)
        indent += 4
        posts.append((list(loops), indent))
    lines += _innermost(rng, loops, indent)
    for outer, level_indent in reversed(posts[:-1]):
        lines += _between(rng, outer, level_indent)
    if rng.random() < 0.2:
        # a break of the outermost loop, between its loops
        lines.insert(1, "        if a[(i + 11) & 31] == 4:\n            break")
    return HEADER + "\n".join(lines) + "\n    return acc\n"


def _args(rng):
    return {"a": [rng.randint(-128, 127) if rng.random() < 0.8 else rng.choice((3, 4, -100)) for _ in range(32)],
            "p": [rng.randint(0, 7) for _ in range(9)], "out": [rng.randint(-9, 9) for _ in range(16)],
            "n": rng.randint(0, 7), "m": rng.randint(0, 7)}


def _program(index):
    rng = random.Random(f"flatten-random-{index}")
    return Program(name="nest", source=nest_source(rng), args=_args(rng), seed=0, index=index), rng


@pytest.mark.parametrize("chunk", range(4))
def test_random_nests_keep_their_python_meaning(chunk, tmp_path):
    flattened_any = 0
    for index in range(chunk * 40, chunk * 40 + 40):
        program, rng = _program(index)
        kernel = load_program(program, tmp_path)
        typed = kernel.analyze()
        rewritten = flatten_nests(typed)
        flattened_any += any(pragma.flattened for pragma in rewritten.loops.values())
        original, flattened = GoldenModel(typed), GoldenModel(rewritten)
        for args in [program.args] + [_args(rng) for _ in range(12)]:
            want = original.run(original.bind((), copy.deepcopy(args)))
            got = flattened.run(flattened.bind((), copy.deepcopy(args)))
            assert got == want, (program.source, args)
    assert flattened_any >= 30


@pytest.mark.parametrize("index", range(6))
def test_random_nests_in_hardware(index, tmp_path):
    program, rng = _program(index)
    kernel = load_program(program, tmp_path)
    for args in (program.args, _args(rng)):
        result = run(kernel, args, max_cycles=50_000)
        assert result.match, (program.source, args, result.differences)
