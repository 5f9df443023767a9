"""The golden model's semantics, pinned: the Python run must compute what the
Amaranth hardware computes. The cross-check simulates the same expressions in
Amaranth's simulator exhaustively at 4 bits."""

import importlib.util
import sys

import numpy as np
import pytest
from amaranth.hdl import Module, Mux, Signal, signed, unsigned
from amaranth.sim import Simulator

from hls.errors import KernelRuntimeError
from hls.types import shape_range

#: (kernel expression, the same on Amaranth values) - the places Python and hardware differ.
CROSS_CHECKED = [
    ("a // b", lambda a, b: a // b),          # flooring, and x // 0 == 0
    ("a % b", lambda a, b: a % b),            # flooring, and x % 0 == 0
    ("a >> abs(b)", lambda a, b: a >> abs(b)),     # arithmetic for signed a
    ("a << abs(b)", lambda a, b: a << abs(b)),
    ("~a", lambda a, b: ~a),                  # unsigned: flips the bits, Python: -a - 1
    ("~(a + b)", lambda a, b: ~(a + b)),
    ("-a", lambda a, b: -a),
    ("a < b", lambda a, b: a < b),            # mixed signedness: mathematically correct
    ("a >= b", lambda a, b: a >= b),
    ("a == b", lambda a, b: a == b),
    ("a & b", lambda a, b: a & b),
    ("a ^ b", lambda a, b: a ^ b),
    ("a | -2", lambda a, b: a | -2),
    ("abs(a)", lambda a, b: abs(a)),
    ("a * b - 7", lambda a, b: a * b - 7),
    ("min(a, b)", lambda a, b: Mux(a < b, a, b)),
    ("max(a, b)", lambda a, b: Mux(a > b, a, b)),
    ("a if b & 1 else -b", lambda a, b: Mux((b & 1).bool(), a, -b)),    # truthiness
    ("a and b", lambda a, b: a.bool() & b.bool()),
    ("a or b", lambda a, b: a.bool() | b.bool()),
    ("not a", lambda a, b: ~a.bool()),
    ("(a & 1) + (not b)", lambda a, b: (a & 1) + ~b.bool()),
]

SHAPE_PAIRS = [(signed(4), signed(4)), (unsigned(4), unsigned(4)),
               (signed(4), unsigned(4)), (unsigned(4), signed(3))]


def _name(shape):
    return f"{'signed' if shape.signed else 'unsigned'}({shape.width})"


def _amaranth_outputs(sa, sb, builds, wraps):
    """Every output for every (a, b), from Amaranth's simulator."""
    m = Module()
    a, b = Signal(sa, name="a"), Signal(sb, name="b")
    outputs = []
    for build in builds:
        value = build(a, b)
        output = Signal(value.shape())
        m.d.comb += output.eq(value)
        outputs.append(output)
    for shape, build in wraps:
        output = Signal(shape)
        m.d.comb += output.eq(build(a, b))
        outputs.append(output)
    results = {}

    async def testbench(ctx):
        for va in range(shape_range(sa)[0], shape_range(sa)[1] + 1):
            for vb in range(shape_range(sb)[0], shape_range(sb)[1] + 1):
                ctx.set(a, va)
                ctx.set(b, vb)
                results[(va, vb)] = [ctx.get(output) for output in outputs]

    sim = Simulator(m)
    sim.add_testbench(testbench)
    sim.run()
    return results


#: Assignment to a narrower variable wraps, as Amaranth's .eq does.
WRAPS = [(signed(3), "a + b", lambda a, b: a + b),
         (unsigned(2), "a * b", lambda a, b: a * b),
         (signed(5), "a - b - 9", lambda a, b: a - b - 9)]


@pytest.mark.parametrize("sa,sb", SHAPE_PAIRS, ids=[f"{_name(a)}-{_name(b)}" for a, b in SHAPE_PAIRS])
def test_golden_model_matches_amaranth_exhaustively(tmp_path, sa, sb):
    lines = ["import hls", "from amaranth import signed, unsigned", ""]
    probe_a, probe_b = Signal(sa), Signal(sb)
    for index, (text, build) in enumerate(CROSS_CHECKED):
        shape = build(probe_a, probe_b).shape()
        lines += ["@hls.kernel", f"def e{index}(a: {_name(sa)}, b: {_name(sb)}) -> {_name(shape)}:",
                  f"    return {text}", ""]
    for index, (shape, text, _) in enumerate(WRAPS):
        lines += ["@hls.kernel", f"def w{index}(a: {_name(sa)}, b: {_name(sb)}) -> {_name(shape)}:",
                  f"    x: {_name(shape)} = {text}", "    return x", ""]
    path = tmp_path / "cross.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(f"cross_{id(path)}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)

    hardware = _amaranth_outputs(sa, sb, [build for _, build in CROSS_CHECKED],
                                 [(shape, build) for shape, _, build in WRAPS])
    kernels = [getattr(module, f"e{i}") for i in range(len(CROSS_CHECKED))]
    kernels += [getattr(module, f"w{i}") for i in range(len(WRAPS))]
    texts = [text for text, _ in CROSS_CHECKED] + [f"x: {_name(s)} = {t}" for s, t, _ in WRAPS]
    for (va, vb), expected in hardware.items():
        for kernel, text, want in zip(kernels, texts, expected):
            assert kernel(a=va, b=vb) == want, f"{text} at a={va}, b={vb}"


def test_python_and_amaranth_floor_division_of_negatives(load_source):
    module, _ = load_source("""
        @hls.kernel
        def divmod_(a: signed(8), b: signed(8)) -> tuple[signed(9), signed(8)]:
            return a // b, a % b
    """)
    assert module.divmod_(-7, 2) == (-4, 1)
    assert module.divmod_(7, -2) == (-4, -1)
    assert module.divmod_(-7, -2) == (3, -1)
    assert module.divmod_(-128, -1) == (128, 0)   # the quotient has one more bit
    assert module.divmod_(-7, 0) == (0, 0)        # division by zero gives 0, as in Amaranth


def test_assignment_wraps_to_declared_width(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(x: unsigned(8)) -> tuple[unsigned(8), signed(8), signed(8)]:
            u: unsigned(8) = x
            u = u + 300
            s: signed(8) = 127
            s = s + 1
            t = -x
            return u, s, t
    """)
    assert module.k(5) == ((5 + 300) % 256, -128, -5)
    # t is inferred from -x: signed(9), then wrapped to the signed(8) return.
    assert module.k(200) == ((200 + 300) % 256, -128, 56)


def test_invert_of_unsigned_follows_amaranth(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(x: unsigned(4), y: signed(4)) -> tuple[unsigned(8), signed(8), unsigned(8)]:
            return ~x, ~y, ~5
    """)
    assert module.k(3, 3) == (12, -4, 2)   # ~5 is ~Const(5): 3 bits, 0b010


def test_truthiness_and_boolean_results(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(x: unsigned(8), y: signed(8)) -> tuple[unsigned(8), unsigned(8), unsigned(8)]:
            odd = 0
            if x & 1:
                odd = 1
            both: unsigned(8) = x and y
            either: unsigned(8) = x or y
            return odd, both, either
    """)
    assert module.k(5, -3) == (1, 1, 1)     # Python's `5 and -3` is -3; hardware gives 1
    assert module.k(4, 0) == (0, 0, 1)
    assert module.k(0, 0) == (0, 0, 0)


def test_short_circuit_skips_the_faulting_read_and_bounds_are_checked(load_source):
    module, path = load_source("""
        @hls.kernel
        def find(a: hls.Array[signed(8), 4], t: signed(8)) -> unsigned(3):
            i: unsigned(3) = 0
            while i < 4 and a[i] <= t:
                i += 1
            return i

        @hls.kernel
        def bad(a: hls.Array[signed(8), 4], t: signed(8)) -> unsigned(3):
            i: unsigned(3) = 0
            while a[i] <= t and i < 4:
                i += 1
            return i
    """)
    assert module.find([1, 2, 3, 4], 10) == 4   # a[4] is never read
    assert module.find([1, 2, 3, 4], 2) == 2
    with pytest.raises(KernelRuntimeError) as error:
        module.bad([1, 2, 3, 4], 10)
    assert str(error.value) == f"{path}:14: index 4 out of range for a[4]"


def test_negative_index_is_an_error_not_python_wraparound(load_source):
    module, path = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(16), 64], i: signed(8)) -> signed(16):
            return a[i]
    """)
    with pytest.raises(KernelRuntimeError, match=r":6: index -1 out of range for a\[64\]$"):
        module.k(list(range(64)), -1)


def test_zero_trip_loops(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 4], n: unsigned(3)) -> signed(16):
            s: signed(16) = 7
            for i in range(n):
                s = s + a[i]
            for j in range(3, 1):
                s = 0
            while n > 9:
                s = 0
            return s
    """)
    assert module.k([1, 2, 3, 4], 0) == 7
    assert module.k([1, 2, 3, 4], 3) == 13


def test_arrays_are_updated_in_place_and_stores_wrap(load_source):
    module, _ = load_source("""
        @hls.kernel
        def scale(a: hls.Array[signed(8), 4], k: signed(8)):
            for i in range(4):
                a[i] = a[i] * k
    """)
    values = [1, -2, 50, 127]
    module.scale(values, 3)
    assert values == [3, -6, 150 - 256, 381 - 256]
    array = np.array([1, -2, 50, 127], dtype=np.int16)
    module.scale(array, 3)
    assert array.tolist() == [3, -6, 150 - 256, 381 - 256]


def test_writes_before_a_fault_stay_visible(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(a: hls.Array[unsigned(8), 3], n: unsigned(3)):
            for i in range(n):
                a[i] = 9
    """)
    values = [0, 0, 0]
    with pytest.raises(KernelRuntimeError):
        module.k(values, 4)
    assert values == [9, 9, 9]


def test_argument_checks(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(a: hls.Array[signed(8), 4], n: unsigned(3)) -> unsigned(3):
            return n
    """)
    with pytest.raises(ValueError, match=r"argument n = 8 does not fit unsigned\(3\) \(0\.\.7\)"):
        module.k([0] * 4, 8)
    with pytest.raises(ValueError, match=r"a\[2\] = 200 does not fit signed\(8\) \(-128\.\.127\)"):
        module.k([0, 0, 200, 0], 1)
    with pytest.raises(ValueError, match="has 3 elements; .* needs exactly 4"):
        module.k([0] * 3, 1)
    with pytest.raises(TypeError, match="missing argument"):
        module.k([0] * 4)
    with pytest.raises(TypeError, match="has no parameter 'm'"):
        module.k([0] * 4, 1, m=3)
    with pytest.raises(TypeError, match="must be an integer"):
        module.k([0] * 4, 1.5)
    with pytest.raises(TypeError, match="cannot hold signed"):
        module.k(np.zeros(4, dtype=np.uint8), 1)
    assert module.k(a=np.zeros(4, dtype=np.int64), n=np.uint8(5)) == 5


def test_helpers_are_inlined_and_callable_from_python(load_source):
    module, _ = load_source("""
        @hls.function
        def clamp(x: signed(16), lo: signed(16), hi: signed(16)) -> signed(16):
            return min(max(x, lo), hi)

        @hls.function
        def swap(a: hls.Array[signed(16), 4], i: unsigned(2), j: unsigned(2)):
            t = a[i]
            a[i] = a[j]
            a[j] = t

        @hls.kernel
        def k(a: hls.Array[signed(16), 4]) -> signed(16):
            s: signed(16) = 0
            for i in range(4):
                s = s + clamp(a[i], -10, 10)
            swap(a, 0, 3)
            return s
    """)
    assert module.clamp(50, -10, 10) == 10
    values = [50, -3, -40, 4]
    assert module.k(values) == 10 - 3 - 10 + 4
    assert values == [4, -3, -40, 50]


def test_variable_read_on_a_path_that_did_not_assign_it_reads_zero(load_source):
    module, _ = load_source("""
        @hls.kernel
        def k(x: unsigned(4)) -> unsigned(4):
            if x > 5:
                y = x
            return y
    """)
    assert module.k(9) == 9
    assert module.k(2) == 0


# -- a bounded run: a loop that never ends stops (issue 21) -------------------------------------

def test_a_bounded_run_stops_a_loop_that_never_ends_at_its_line(load_source):
    import pickle

    from hls.errors import KernelLoopLimit
    module, path = load_source("""
        @hls.kernel
        def spin(n: unsigned(8)) -> unsigned(8):
            s: unsigned(8) = 0
            while n < 10 or n >= 10:
                s = s + 1
            return s
    """)
    model = module.spin.golden_model()
    with pytest.raises(KernelLoopLimit) as error:
        model.run(model.bind((), {"n": 3}), max_loop_iterations=500)
    assert (error.value.filename, error.value.lineno, error.value.limit) == (path, 7, 500)
    assert str(error.value).endswith(":7: the Python run stopped after 500 iterations of this loop")
    assert isinstance(error.value, KernelRuntimeError)
    copy = pickle.loads(pickle.dumps(error.value))
    assert (type(copy), copy.lineno, copy.limit, str(copy)) == (KernelLoopLimit, 7, 500, str(error.value))
    with pytest.raises(KernelLoopLimit):
        model.run_checked(model.bind((), {"n": 3}), max_loop_iterations=1)
    with pytest.raises(ValueError, match="max_loop_iterations must be a positive integer or None, not 0"):
        model.run(model.bind((), {"n": 3}), max_loop_iterations=0)


def test_the_bound_counts_each_loop_over_the_whole_run(load_source):
    from hls.errors import KernelLoopLimit
    module, _ = load_source("""
        @hls.kernel
        def nest(n: unsigned(8)) -> unsigned(16):
            s: unsigned(16) = 0
            for i in range(10):
                for j in range(n):
                    s = s + 1
            for k in range(60):
                s = s + 1
            for m in range(60):
                s = s + 1
            return s
    """)
    model = module.nest.golden_model()
    bound = model.bind((), {"n": 10})
    # 100 iterations of the inner loop over all entries; the sibling loops' 120 count apart.
    assert model.run(bound, max_loop_iterations=100)[0] == 220
    assert model.call((), {"n": 10}, max_loop_iterations=100) == 220
    with pytest.raises(KernelLoopLimit) as error:
        model.run(bound, max_loop_iterations=99)
    assert error.value.lineno == 8                   # the inner loop, on its eleventh entry
    assert module.nest(n=10) == 220                  # a plain call has no bound


def test_constants_that_fit_and_values_computed_at_run_time_are_accepted(load_source):
    """Only a constant written into a declared shape it does not fit is an error (issue 21);
    the range's edges fit, a loop variable of an unrolled loop and an unannotated local's later
    values are computed, and wrap."""
    import warnings

    from hls.errors import KernelWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module, _ = load_source("""
            @hls.kernel
            def k(a: hls.Array[signed(8), 8]) -> tuple[signed(8), unsigned(8), unsigned(1), unsigned(4)]:
                s: signed(8) = -128
                u: unsigned(8) = 255
                b: unsigned(1) = True
                for t in hls.unroll(range(8)):
                    a[t] = t * 40
                    w: unsigned(2) = t
                c = 0
                c = 1000
                return s, u, b, c
        """)
        assert module.k(a=[0] * 8) == (-128, 255, 1, 0)      # c is unsigned(1): 1000 wraps to 0
    assert any(issubclass(w.category, KernelWarning) and "'c' is unsigned(1)" in str(w.message) for w in caught)
    arrays = [0] * 8
    module.k(a=arrays)
    assert arrays == [((t * 40 + 128) % 256) - 128 for t in range(8)]
