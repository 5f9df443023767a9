"""Kernels of issue 20: flattened nests whose banks and memory dependences the value analysis decides."""

import hls
from amaranth import signed, unsigned


@hls.kernel
def blk_flat(B: hls.Array[signed(8), 16, hls.partition("block", 2)], C: hls.Array[signed(9), 64], m: unsigned(4)):
    # B[j] is in bank 0 and B[8 + j] in bank 1 in every iteration: one read of each bank.
    for i in range(m):
        for j in range(8):
            C[8 * i + j] = B[j] + B[8 + j]


@hls.kernel
def cyclic_flat(A: hls.Array[signed(8), 16, hls.partition("cyclic", 4)], out: hls.Array[signed(9), 128],
                m: unsigned(3)):
    # j runs 1, 5, 9, 13: A[j] is always in bank 1 and A[j + 1] in bank 2.
    for i in range(m):
        for j in range(1, 16, 4):
            out[i * 16 + j] = A[j] + A[j + 1]


@hls.kernel
def write_then_read(C: hls.Array[signed(10), 16], x: hls.Array[signed(8), 16], y: hls.Array[signed(10), 16]):
    # C[i * 4 + j] is written before the inner loop and read back after it, one flattened
    # iteration later: a real dependence that "distinct for distinct (i, j)" alone would drop.
    for i in range(4):
        for j in range(4):
            C[i * 4 + j] = x[i * 4 + j]
            s: signed(10) = 0
            for k in range(2):
                s = s + k
            y[i * 4 + j] = C[i * 4 + j] + s


@hls.kernel
def row_chain(C: hls.Array[signed(12), 16], A: hls.Array[signed(8), 16]):
    # Each (i, j) starts from the element (i, j - 1) just wrote: a read after the write of the
    # previous flattened iteration.
    for i in range(4):
        for j in range(1, 4):
            s: signed(12) = C[i * 4 + j - 1]
            for k in range(2):
                s = s + A[i * 4 + k]
            C[i * 4 + j] = s


@hls.kernel
def accumulate_runtime(C: hls.Array[signed(16), 16], A: hls.Array[signed(8), 16], n: unsigned(3)):
    # The pattern of benchmarks/kernels/matmul_acc with a run-time inner trip count: the exact
    # test follows the nest for each of n's 8 values.
    for i in range(4):
        s: signed(16) = C[i]
        for k in range(n):
            s = s + A[i * 4 + k]
        C[i] = s


@hls.kernel
def odd_from_even(C: hls.Array[signed(10), 64], m: unsigned(3), n: unsigned(3)):
    # Run-time bounds: no exact test. C[2 * i + 1] is never C[2 * j] (the GCD test).
    for i in range(m):
        for j in range(n):
            C[2 * i + 1] = C[2 * j] + 1


@hls.kernel
def even_from_even(C: hls.Array[signed(10), 64], m: unsigned(3), n: unsigned(3)):
    # C[4 * j + 2] and C[2 * i] meet (i = 2 * j + 1): the dependence stays.
    for i in range(m):
        for j in range(n):
            C[2 * i] = C[4 * j + 2] + 1


@hls.kernel
def accumulate_wide(C: hls.Array[signed(16), 16], A: hls.Array[signed(8), 64], n: unsigned(7)):
    # A run-time inner bound of 128 values, more states than the exact test follows (64): the
    # nest's structure decides instead (C[i] is read in the first iteration of each i and
    # written in its last).
    for i in range(4):
        s: signed(16) = C[i]
        for k in range(n):
            s = s + A[(i * 16 + k) & 63]
        C[i] = s


@hls.kernel
def partitioned_matmul(a: hls.Array[signed(8), 64, hls.partition("cyclic", 8)],
                       b: hls.Array[signed(8), 64, hls.partition("block", 8)], c: hls.Array[signed(24), 64]):
    # The partitioned matrix multiply: copy k reads bank k of a (cyclic: i * 8 + k) and
    # bank k of b (block: k * 8 + j with j in range(8)), one read of every bank per iteration.
    for i in range(8):
        for j in range(8):
            s: signed(24) = 0
            for k in hls.unroll(range(8)):
                s = s + a[i * 8 + k] * b[k * 8 + j]
            c[i * 8 + j] = s


@hls.kernel
def opaque_write_then_guarded_read(a: hls.Array[unsigned(12), 4], x: unsigned(7)) -> unsigned(8):
    # Found by the fuzzer (sim.fuzz seed 2, program 241): the write's index goes through an
    # approximate unit (opaque to the value analysis), the read is on the other side of the
    # condition. The conservative write -> read dependence cannot be at distance 0 (they never
    # both run in one iteration) but must stay at distance 1: the read of the next flattened
    # iteration sees a[3] written.
    c: unsigned(8) = 0
    for i2 in range(6):
        for i3 in range(i2):
            if i2 * i3:
                a[hls.approx.add(i3, i2, unit="eta1", l=2) & 3] = 2
            else:
                if x < a[3]:
                    continue
                c = c + 1
    return c


@hls.kernel
def constant_write_then_guarded_read(a: hls.Array[unsigned(12), 4], x: unsigned(7)) -> unsigned(8):
    # The same element in every iteration, written on one side of a condition and read on the
    # other: the write -> read dependence is at distance 1.
    c: unsigned(8) = 0
    for i in range(6):
        if i & 1:
            a[3] = 2
        else:
            if x < a[3]:
                continue
            c = c + 1
    return c


# -- beyond the exact test: the nest's structure decides (issue 20, Deliver 2) ----------------

# matmul_acc_16, shift_left_rows, next_row_read, shift_right_rows and previous_row_16 are
# benchmarks/nest_dependences.py's.
from benchmarks.nest_dependences import (matmul_acc_16, next_row_read, previous_row_16,  # noqa: E402,F401
                                         shift_left_rows, shift_right_rows)


@hls.kernel
def matmul_acc_rows(A: hls.Array[signed(8), 128], B: hls.Array[signed(8), 256], C: hls.Array[signed(24), 128],
                    n: unsigned(7)):
    # The same with a run-time row count of 128 values (the arrays hold the 8 rows the tests run).
    for i in range(n):
        for j in range(16):
            s: signed(24) = C[i * 16 + j]
            for k in range(16):
                s = s + A[i * 16 + k] * B[k * 16 + j]
            C[i * 16 + j] = s


@hls.kernel
def overlapping_rows(A: hls.Array[signed(8), 16], C: hls.Array[signed(16), 128], n: unsigned(7)):
    # C[i * 8 + j] with j in range(16) is not distinct for distinct (i, j) (row i's second half is
    # row i + 1's first), so the dependences stay; but each i takes 32 iterations (the constant j
    # and k loops): the element written is read 15 iterations later, far enough for II 1.
    for i in range(n):
        for j in range(16):
            s: signed(16) = C[i * 8 + j]
            for k in range(2):
                s = s + A[j] * k + 1
            C[i * 8 + j] = s


@hls.kernel
def touching_rows(A: hls.Array[signed(8), 16], C: hls.Array[signed(16), 64], n: unsigned(7)):
    # Row i's last element is row i + 1's first (C[i * 3 + j], j in range(4)): it is read one
    # iteration after it is written, which only the kept dependence orders.
    for i in range(n):
        for j in range(4):
            s: signed(16) = C[i * 3 + j]
            for k in range(3):
                s = s + A[j * 4 + k]
            C[i * 3 + j] = s


@hls.kernel
def column_only(A: hls.Array[signed(8), 16], C: hls.Array[signed(16), 16], n: unsigned(7)):
    # C[j] is distinct for distinct j only: every row reads what the row before wrote, two
    # iterations earlier.
    for i in range(n):
        for j in range(2):
            s: signed(16) = C[j]
            for k in range(1):
                s = s + A[j * 4 + k] + i
            C[j] = s


@hls.kernel
def first_match_rows(a: hls.Array[unsigned(4), 64], found: hls.Array[unsigned(4), 64], key: unsigned(4),
                     n: unsigned(3)):
    # Control that depends on data (a break per (i, j) run): no exact test. found[i * 8 + j] is
    # read before the inner loop and written after it.
    for i in range(n):
        for j in range(8):
            f: unsigned(4) = found[i * 8 + j]
            for k in range(4):
                if a[(j * 4 + k) & 63] == key:
                    f = f + 1
                    break
            found[i * 8 + j] = f


@hls.kernel
def write_then_read_rows(C: hls.Array[signed(10), 64], x: hls.Array[signed(8), 64], y: hls.Array[signed(10), 64],
                         n: unsigned(7)):
    # write_then_read with a run-time row count: the write on the first iteration of each (i, j),
    # the read of its element on the last, one iteration later; only the read -> write direction
    # can be dropped.
    for i in range(n):
        for j in range(4):
            C[i * 4 + j] = x[i * 4 + j]
            s: signed(10) = 0
            for k in range(2):
                s = s + k
            y[i * 4 + j] = C[i * 4 + j] + s


@hls.kernel
def grid_update(C: hls.Array[signed(12), 64], A: hls.Array[signed(8), 8], n: unsigned(7)):
    # A perfect nest updating its element in place: each (i, j) is one iteration, so the write
    # never precedes a read of its element in a later one.
    for i in range(n):
        for j in range(8):
            C[i * 8 + j] = C[i * 8 + j] + A[j]


# -- accesses whose forms differ by a constant (issue 20, Deliver 2) --------------------------

@hls.kernel
def previous_row_read(C: hls.Array[signed(12), 256], A: hls.Array[signed(8), 16], n: unsigned(7), m: unsigned(4)):
    # A near miss: row i - 1, written one iteration of i earlier, is read: write -> read stays.
    # With a run-time row length m the element is read m iterations after its write: 1 for m = 1,
    # so II 2 is needed (benchmarks/nest_dependences.py's previous_row_16, with 16 columns, reads
    # it 16 iterations later, at II 1).
    for i in range(1, n):
        for j in range(m):
            C[i * 16 + j] = C[(i - 1) * 16 + j] + A[j]


@hls.kernel
def around_shifted(C: hls.Array[signed(16), 256], A: hls.Array[signed(8), 64], n: unsigned(7)):
    # The C += A x B shape with the write one element on: s = C[i * 8 + j] before the k loop,
    # C[i * 8 + j + 1] = s after it. The read of an element follows its write by at least one
    # iteration of j (the dependence stays); the write never follows the read of its element.
    for i in range(n):
        for j in range(8):
            s: signed(16) = C[i * 8 + j]
            for k in range(4):
                s = s + A[(j * 4 + k) & 63]
            C[i * 8 + j + 1] = s


# -- indices that wrap (issue 20, Deliver 2) --------------------------------------------------

@hls.kernel
def ring_rows(C: hls.Array[signed(12), 64], A: hls.Array[signed(8), 16], n: unsigned(7)):
    # A ring of 4 rows of 16: row i + 1 (modulo 4) is computed from row i. The indices wrap
    # (& 63): the element written at (i, j) is read at (i + 1, j), one row (16 iterations)
    # later, and read at (i, j) it is written again at (i + 3, j), 48 iterations later. II 1.
    for i in range(n):
        for j in range(16):
            C[(i * 16 + j + 16) & 63] = C[(i * 16 + j) & 63] + A[j]


@hls.kernel
def ring_running_sum(C: hls.Array[signed(12), 64], A: hls.Array[signed(8), 16], n: unsigned(7)):
    # A near miss through the wrap: the element written at (i, j) is read at (i, j + 1), one
    # iteration later (and at (i + 1, 0) after j = 15): write -> read stays at 1, II 2.
    for i in range(n):
        for j in range(16):
            C[(i * 16 + j + 1) & 63] = C[(i * 16 + j) & 63] + A[j]
