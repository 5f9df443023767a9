"""Loop nests of each kind that ``hls.frontend.flatten`` flattens (or must not), for ``test_flatten.py``.
"""

import hls
from amaranth import signed, unsigned


@hls.kernel
def perfect(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 64]):
    for i in range(8):
        for j in range(8):
            out[i * 8 + j] = a[i * 8 + j] * (i - j)


@hls.kernel
def imperfect(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8], rows: unsigned(4),
              cols: unsigned(4)) -> tuple[unsigned(4), unsigned(4), signed(16)]:
    s: signed(16) = 0
    last_i: unsigned(4) = 0
    last_j: unsigned(4) = 0
    for i in range(rows):
        s = i
        last_i = i
        for j in range(cols):
            s = s + a[i * 8 + j]
            last_j = j
        out[i] = s
    return last_i, last_j, s


@hls.kernel
def triangular(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8], n: unsigned(4)):
    for i in range(n):
        s: signed(16) = 0
        for j in range(i):
            s = s + a[i * 8 + j]
        out[i] = s


@hls.kernel
def bounds_from_memory(ptr: hls.Array[unsigned(6), 9], val: hls.Array[signed(8), 32],
                       out: hls.Array[signed(16), 8], rows: unsigned(4)):
    for r in range(rows):
        s: signed(16) = 0
        for k in range(ptr[r], ptr[r + 1]):
            s = s + val[k]
        out[r] = s


@hls.kernel
def inner_break(a: hls.Array[unsigned(4), 64], out: hls.Array[unsigned(4), 8], key: unsigned(4),
                rows: unsigned(4)) -> unsigned(4):
    last_j: unsigned(4) = 0
    for i in range(rows):
        position: unsigned(4) = 8
        for j in range(8):
            last_j = j
            if a[i * 8 + j] == key:
                position = j
                break
            out[i] = j
        if position != 8:
            out[i] = position
    return last_j


@hls.kernel
def inner_continue(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8], rows: unsigned(4)):
    for i in range(rows):
        s: signed(16) = 0
        for j in range(8):
            v = a[i * 8 + j]
            if v < 0:
                continue
            s = s + v
        out[i] = s


@hls.kernel
def row_dependence(x: hls.Array[signed(16), 8], lower: hls.Array[signed(4), 64], b: hls.Array[signed(8), 8],
                   n: unsigned(4)):
    # A unit lower-triangular solve: row i reads the x[j] that earlier rows wrote.
    for i in range(n):
        s: signed(16) = b[i]
        for j in range(i):
            s = s - lower[i * 8 + j] * x[j]
        x[i] = s


@hls.kernel
def rows_in_place(a: hls.Array[signed(16), 64], n: unsigned(4), m: unsigned(4)):
    # Each row is the previous one plus its own values: a row written, the next row read.
    for i in range(1, n):
        for j in range(m):
            a[i * 8 + j] = a[(i - 1) * 8 + j] + a[i * 8 + j]


@hls.kernel
def three_levels(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 16], n: unsigned(3),
                 m: unsigned(3)) -> signed(16):
    total: signed(16) = 0
    for i in range(n):
        for j in range(i % 3, m):
            s: signed(16) = j
            for k in range(j):
                s = s + a[i * 8 + k]
            out[i * 2 + (j & 1)] = s
            total = total + s
    return total


@hls.kernel
def steps(a: hls.Array[signed(8), 32], out: hls.Array[signed(16), 16], n: unsigned(5)) -> signed(16):
    s: signed(16) = 0
    for i in range(2, n, 3):
        for j in range(i, 20, 4):
            s = s + a[j] * i
        out[i % 16] = s
    return s


@hls.kernel
def outer_break(a: hls.Array[signed(8), 64], rows: unsigned(4)) -> signed(16):
    s: signed(16) = 0
    for i in range(rows):
        if a[i * 8] < -100:
            break
        for j in range(8):
            s = s + a[i * 8 + j]
    return s


@hls.kernel
def sequential_outer(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8]):
    for i in hls.sequential(range(8)):
        s: signed(16) = 0
        for j in range(8):
            s = s + a[i * 8 + j]
        out[i] = s


@hls.kernel
def inner_while(a: hls.Array[unsigned(4), 64], out: hls.Array[unsigned(4), 8]):
    for i in range(8):
        j: unsigned(4) = 0
        while j < 8 and a[i * 8 + j] != 0:
            j = j + 1
        out[i] = j


@hls.kernel
def inner_target_ii(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8]):
    for i in range(8):
        s: signed(16) = 0
        for j in hls.pipeline(range(8), ii=2):
            s = s + a[i * 8 + j]
        out[i] = s


@hls.function
def row_sums(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8], rows: unsigned(4)):
    for i in range(rows):
        s: signed(16) = 0
        for j in range(i, 8):
            s = s + a[i * 8 + j]
        out[i] = s


@hls.kernel
def nest_in_sequential_and_if(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8], rows: unsigned(4),
                              mode: unsigned(1)) -> signed(16):
    total: signed(16) = 0
    for t in hls.sequential(range(2)):
        if mode:
            row_sums(a, out, rows)
        for i in range(rows):
            for j in range(2):
                total = total + out[i] * (t + j)
    return total


@hls.kernel
def continue_between(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8], rows: unsigned(4)):
    for i in range(rows):
        if a[i * 8] < -64:
            continue
        s: signed(16) = 0
        for j in range(1, 8):
            s = s + a[i * 8 + j]
        if s < 0:
            continue
        out[i] = s


@hls.kernel
def inner_under_if(ptr: hls.Array[unsigned(6), 9], val: hls.Array[signed(8), 32],
                   out: hls.Array[signed(16), 8], rows: unsigned(4), skip: unsigned(3)):
    for r in range(rows):
        s: signed(16) = r
        if r != skip and r < 8:
            for k in range(ptr[r], ptr[r + 1]):
                s = s + val[k]
        out[r & 7] = s


@hls.kernel
def not_flattened(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 8], n: unsigned(4)):
    for i in range(n):
        s: signed(16) = 0
        for j in range(4):
            s = s + a[i * 8 + j]
        for j in range(4, 8):
            s = s - a[i * 8 + j]
        out[i] = s
    for i in range(n):
        for j in hls.sequential(range(8)):
            out[i] = out[i] + a[j]
    for i in range(n):
        if i > 2:
            for j in range(8):
                out[i] = out[i] + 1
        else:
            out[i] = 0


# Each nest beside the single loop with the same body over the same iterations (issue 20): the
# flattened nest must take the single loop's cycles.

@hls.kernel
def rows_of_eight(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 64], n: unsigned(4)):
    for i in range(n):
        for j in range(8):
            out[i * 8 + j] = a[i * 8 + j] * 3


@hls.kernel
def one_loop_of_rows(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 64], n: unsigned(4)):
    for k in range(n * 8):
        out[k] = a[k] * 3


@hls.kernel
def rows_at_ii_eight(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 64], n: unsigned(4)):
    # II above the depth: a last iteration that only fails the test would cost a whole II.
    for i in range(n):
        for j in hls.pipeline(range(8), ii=8):
            out[i * 8 + j] = a[i * 8 + j] * 3


@hls.kernel
def one_loop_at_ii_eight(a: hls.Array[signed(8), 64], out: hls.Array[signed(16), 64], n: unsigned(4)):
    for k in hls.pipeline(range(n * 8), ii=8):
        out[k] = a[k] * 3


@hls.kernel
def deep_rows(a: hls.Array[signed(8), 64], out: hls.Array[signed(32), 64], n: unsigned(4)):
    # The depth well above the II.
    for i in range(n):
        for j in hls.pipeline(range(8), ii=2):
            x = a[i * 8 + j]
            out[i * 8 + j] = (x * x + 3) * x // 5


@hls.kernel
def one_deep_loop(a: hls.Array[signed(8), 64], out: hls.Array[signed(32), 64], n: unsigned(4)):
    for k in hls.pipeline(range(n * 8), ii=2):
        x = a[k]
        out[k] = (x * x + 3) * x // 5


@hls.kernel
def first_match_per_row(a: hls.Array[unsigned(4), 64], out: hls.Array[unsigned(4), 8], key: unsigned(4),
                        rows: unsigned(4), n: unsigned(4)) -> tuple[unsigned(4), unsigned(8)]:
    # Issue 20: the break ends its row's run only, and the nest still reaches II 1.
    found: unsigned(8) = 0
    last: unsigned(4) = 0
    for r in range(rows):
        for k in range(n):
            last = k
            if a[r * 8 + k] == key:
                out[r] = k
                found = found + 1
                break
    return last, found


@hls.kernel
def break_in_three_levels(a: hls.Array[unsigned(4), 64], out: hls.Array[unsigned(4), 16], key: unsigned(4),
                          rows: unsigned(3), n: unsigned(4)):
    for p in range(2):
        for r in range(rows):
            position: unsigned(4) = 15
            for k in range(n):
                if a[p * 32 + r * 8 + k] == key:
                    position = k
                    break
            out[p * 8 + r] = position
