"""Memory dependences by address in flattened nests beyond the exact test (issue 20, Deliver 2).

Run ``python benchmarks/nest_dependences.py [--repeat K]``.  For each kernel below it prints
the II and MII the compiler reaches, the memory dependences it keeps through ``C`` (``load ->
store @1``: the store of an element must follow its read of one iteration earlier), the
report's proof for the pair, and the compile time (best of K) twice: as compiled, where the
exact dependence test is skipped up front when the nest's trip counts bound it above
``EXACT_LIMIT`` iterations, and with that bound ignored, so that the exact test follows the
nest until it gives up (``EXACT_LIMIT + 1`` iterations, as the compiler did before).  Both give
the same dependences; the second is the time that was wasted.  Every kernel is simulated against
its Python run once (``match``).
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import hls  # noqa: E402
from amaranth import signed, unsigned  # noqa: E402

from hls.analysis import memdep  # noqa: E402
from hls.compiler import compile_kernel  # noqa: E402
from hls.ir import PipelinedLoop  # noqa: E402
from sim.kernel import run  # noqa: E402


@hls.kernel
def matmul_acc_16(A: hls.Array[signed(8), 256], B: hls.Array[signed(8), 256], C: hls.Array[signed(24), 256]):
    # C += A x B, 16 x 16 by 16 x 16: 4,096 iterations. C[i * 16 + j] is read before the k loop
    # and written after it.
    for i in range(16):
        for j in range(16):
            s: signed(24) = C[i * 16 + j]
            for k in range(16):
                s = s + A[i * 16 + k] * B[k * 16 + j]
            C[i * 16 + j] = s


@hls.kernel
def shift_left_rows(C: hls.Array[signed(12), 256], A: hls.Array[signed(8), 16], n: unsigned(7)):
    # C[i * 16 + j + 1] is read before C[i * 16 + j] is written in place: the element read is
    # written one iteration of j (or of i, for j = 15) later, never earlier. Only read -> write
    # at distance 1 stays; no write is read back, so II 1.
    for i in range(n):
        for j in range(15):
            C[i * 16 + j] = C[i * 16 + j + 1] + A[j]


@hls.kernel
def next_row_read(C: hls.Array[signed(12), 256], A: hls.Array[signed(8), 16], n: unsigned(7)):
    # C[(i + 1) * 16 + j] is read before row i + 1 is written: read -> write at one iteration of
    # i or more, never write -> read.
    for i in range(n):
        for j in range(16):
            C[i * 16 + j] = C[(i + 1) * 16 + j] - A[j]


@hls.kernel
def shift_right_rows(C: hls.Array[signed(12), 256], A: hls.Array[signed(8), 16], n: unsigned(7)):
    # A near miss: C[i * 16 + j + 1] is written, and read as C[i * 16 + j] one iteration later
    # (a running sum along each row, and across rows at j = 15): write -> read at distance 1.
    for i in range(n):
        for j in range(16):
            C[i * 16 + j + 1] = C[i * 16 + j] + A[j]


@hls.kernel
def previous_row_16(C: hls.Array[signed(12), 256], A: hls.Array[signed(8), 16], n: unsigned(7)):
    # Row i - 1 is read after its write, one iteration of i later: as each i takes the 16
    # iterations of the constant j loop, 16 flattened iterations later. II 1.
    for i in range(1, n):
        for j in range(16):
            C[i * 16 + j] = C[(i - 1) * 16 + j] + A[j]


KERNELS = {
    "matmul_acc_16": (matmul_acc_16, {"A": 256, "B": 256, "C": 256}, {}),
    "shift_left_rows": (shift_left_rows, {"C": 256, "A": 16}, {"n": 5}),
    "next_row_read": (next_row_read, {"C": 256, "A": 16}, {"n": 5}),
    "shift_right_rows": (shift_right_rows, {"C": 256, "A": 16}, {"n": 5}),
    "previous_row_16": (previous_row_16, {"C": 256, "A": 16}, {"n": 5}),
}


def _best(kernel, repeat: int) -> tuple[float, object]:
    best, compiled = None, None
    for _ in range(repeat):
        start = time.perf_counter()
        compiled = compile_kernel(kernel)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, compiled


def _dependences(compiled) -> str:
    (loop,) = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    deps = sorted(f"{d.src.kind} -> {d.dst.kind} @{d.distance}" for d in memdep.loop_dependences(loop)
                  if d.src.attrs["array"] == "C")
    return ", ".join(deps) or "none"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="compile each kernel K times, keep the best (default 3)")
    args = parser.parse_args(argv)
    rng = random.Random(20)
    print(f"{'kernel':<18} {'II':>3} {'MII':>4}  {'compile ms':>10}  {'following':>9}  match  C dependences")
    proofs = []
    for name, (kernel, arrays, scalars) in KERNELS.items():
        compile_kernel(kernel)      # warm the caches the first compile fills
        seconds, compiled = _best(kernel, args.repeat)
        (entry,) = [loop for loop in compiled.report.to_json()["loops"] if loop["pipelined"]]
        kept = _dependences(compiled)
        # The exact test as it was: no bound from the trip counts, the nest followed until it gives up.
        original = memdep._ExactTest.longest
        memdep._ExactTest.longest = property(lambda self: None)
        try:
            following, walked = _best(kernel, args.repeat)
            assert _dependences(walked) == kept, name
        finally:
            memdep._ExactTest.longest = original
        inputs = {array: [rng.randint(-100, 100) for _ in range(depth)] for array, depth in arrays.items()}
        result = run(kernel, {**inputs, **scalars}, max_cycles=50_000)
        print(f"{name:<18} {entry['ii']:>3} {entry['mii']:>4}  {seconds * 1000:>10.0f}  {following * 1000:>9.0f}  "
              f"{'yes' if result.match else 'NO':<5}  {kept}")
        proofs += [f"  {name}: {proof}" for proof in entry["independent"]]
    print("proofs in the reports:")
    print("\n".join(proofs))


if __name__ == "__main__":
    main()
