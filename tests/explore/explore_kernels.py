"""Kernels of the explorer's tests: several approximable operations of each kind, signed and unsigned."""

from amaranth import signed, unsigned

import hls

N = 16


@hls.function
def scaled(x: signed(9), w: unsigned(8)) -> signed(14):
    return (x * w) >> 4


@hls.kernel
def mix(a: hls.Array[signed(8), N], b: hls.Array[unsigned(8), N], o: hls.Array[signed(20), N],
        d: unsigned(8)) -> signed(20):
    total: signed(20) = 0
    for i in range(N):
        p = a[i] * b[i] + scaled(b[i], d) + scaled(a[i], b[i])
        q = p // (d + 1) if i < 8 else b[i] // d
        o[i] = p + q
        total = total + q
    return total


@hls.kernel
def plain(a: unsigned(8)) -> unsigned(9):
    return a + 1


@hls.kernel
def taps(a: hls.Array[signed(8), N], b: hls.Array[unsigned(8), N], c: hls.Array[unsigned(7), N],
         o: hls.Array[signed(18), N]):
    for i in range(N):
        o[i] = a[i] * b[i] + (b[i] + c[i]) * a[i]


M = 4


@hls.kernel
def scale(a: hls.Array[unsigned(8), M], w: unsigned(8), o: hls.Array[unsigned(16), M]):
    for i in range(M):
        o[i] = a[i] * w


@hls.kernel
def scale_twice(a: hls.Array[unsigned(8), M], w: unsigned(8), o: hls.Array[unsigned(16), M],
                p: hls.Array[unsigned(16), M]):
    for i in range(M):
        o[i] = a[i] * w
        p[i] = a[i] * w


@hls.kernel
def square(x: hls.Array[unsigned(16), M], o: hls.Array[unsigned(16), M]):
    for i in range(M):
        y = x[i] >> 8
        o[i] = y * y


@hls.kernel
def kept_bits(a: hls.Array[signed(12), M], b: hls.Array[unsigned(8), M], w: unsigned(8), s: unsigned(3),
              o: hls.Array[signed(10), M], p: hls.Array[unsigned(16), M], q: hls.Array[unsigned(2), M],
              r: hls.Array[signed(6), M]):
    for i in range(M):
        o[i] = (a[i] * b[i]) >> 6           # bits 6..15 of 20
        p[i] = (b[i] * w) >> s              # a shift by a variable reads every bit
        q[i] = (b[i] * b[i] + w) >> 12      # the sum's bits 12..13: the product's 0..13
        r[i] = (a[i] * w) >> 18             # bits 18..23 of the product extended: its 18 and sign bit 19


def chain_run(kernels, data):
    """``scale`` then ``square`` on its output: the second kernel's arguments come from the first's run."""
    first, second = kernels
    scaled_values, squared = [0] * M, [0] * M
    first(a=list(data["a"]), w=data["w"], o=scaled_values)
    second(x=scaled_values, o=squared)
    return squared


def chain_quality(reference, output, data):
    return {"mae": sum(abs(x - y) for x, y in zip(reference, output)) / M}


CHAIN = (scale, square)


def chain_data():
    return {"a": [200, 17, 255, 99], "w": 201}


@hls.kernel
def signed_products(a: hls.Array[signed(4), N], b: hls.Array[signed(4), N], c: hls.Array[unsigned(3), N],
                    u: hls.Array[unsigned(4), N], o: hls.Array[signed(8), N], p: hls.Array[signed(8), N],
                    q: hls.Array[unsigned(8), N], r: hls.Array[signed(9), N]):
    for i in range(N):
        o[i] = a[i] * b[i]
        p[i] = a[i] * c[i]
        q[i] = u[i] * u[i]
        r[i] = a[i] * u[i]


F = 64


@hls.kernel
def signed_fir(x: hls.Array[signed(8), F], h0: signed(8), h1: signed(8), h2: signed(8), h3: signed(8),
               y: hls.Array[signed(18), F]):
    for i in range(F - 3):
        y[i] = x[i] * h0 + x[i + 1] * h1 + x[i + 2] * h2 + x[i + 3] * h3


def signed_fir_data():
    """Four calls of :func:`signed_fir`: random signed samples, one set of taps."""
    import random           # here, so that the operations above keep the lines the tests name
    rng = random.Random(1)
    return [{"x": [rng.randint(-128, 127) for _ in range(F)], "h0": -23, "h1": 90, "h2": 87, "h3": -31,
             "y": [0] * F} for _ in range(4)]


def signed_fir_quality(reference, output, data):
    errors = [abs(a - b) for ref, out in zip(reference, output) for a, b in zip(ref["y"], out["y"])]
    return {"mae": sum(errors) / len(errors)}


@hls.kernel
def summed(a: hls.Array[unsigned(8), M], b: hls.Array[unsigned(8), M], c: hls.Array[unsigned(4), M],
           w: unsigned(8), o: hls.Array[unsigned(17), M], p: hls.Array[unsigned(16), M],
           q: hls.Array[unsigned(1), M], r: hls.Array[unsigned(8), M], t: hls.Array[signed(14), M],
           u: hls.Array[signed(14), M]):
    for i in range(M):
        x = a[i] * w
        o[i] = x + b[i] * b[i]              # both products feed the one sum: each other's addend
        p[i] = ((a[i] * b[i]) >> 4) - c[i]  # through a constant shift, into a difference
        q[i] = b[i] * w > 100               # a comparison is no sum
        y = c[i] * w
        r[i] = y + y                        # one value twice: no other summand
        v = c[i] * b[i]
        t[i] = w + v if a[i] > 3 else w - v  # two consumers, one other summand
        g = c[i] * c[i]
        u[i] = w + g if a[i] > 3 else b[i] - g  # two other summands


@hls.kernel
def narrow(a: unsigned(4), b: unsigned(4), x: unsigned(16), y: unsigned(16)) -> unsigned(34):
    return a * b + a // b + x * y


@hls.kernel
def dot_pair(a: hls.Array[unsigned(8), M], b: hls.Array[unsigned(8), M], c: hls.Array[unsigned(8), M],
             d: hls.Array[unsigned(8), M], o: hls.Array[unsigned(17), M]):
    for i in range(M):
        o[i] = a[i] * b[i] + c[i] * d[i]    # two products into one sum, each a site, the sum one too


@hls.kernel
def residues(a: hls.Array[signed(8), M], b: hls.Array[unsigned(6), M], n: unsigned(3), m: unsigned(2),
             o: hls.Array[signed(10), M], r: hls.Array[unsigned(6), M]):
    for i in range(M):
        o[i] = a[i] - b[i] + (n - m)        # a `-` on an adder unit of 8 bits, one of 4
        r[i] = a[i] % b[i] + n % m          # a `%` on a divider unit of 8 bits, one of 4


@hls.function
def weighted(x: unsigned(8), w: unsigned(8)) -> unsigned(16):
    return x * w


@hls.kernel
def half_dead(a: hls.Array[unsigned(8), M], b: hls.Array[unsigned(8), M], c: hls.Array[unsigned(8), M],
              o: hls.Array[unsigned(16), M]):
    for i in range(M):
        unused = a[i] * b[i]
        kept = weighted(a[i], c[i])
        dropped = weighted(b[i], c[i])
        o[i] = kept


@hls.kernel
def all_dead(a: unsigned(8), b: unsigned(8), d: unsigned(4)) -> unsigned(9):
    product = a * b
    quotient = a // d
    return a + b
