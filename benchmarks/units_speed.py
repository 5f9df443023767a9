"""Speed of the error engine against C references compiled here, measured in one run (issues 3, 13 and 24).

    .venv/bin/python benchmarks/units_speed.py                  # 16-bit: takes several minutes
    .venv/bin/python benchmarks/units_speed.py --width 12       # a quick run (2^24 pairs each)
    .venv/bin/python benchmarks/units_speed.py --evoapprox /work/.mirror/ehw-fit+evoapproxlib/repo
    .venv/bin/python benchmarks/units_speed.py --evoapprox MIRROR --skip-8bit --only mul16u_5A2,largest

For each circuit it writes a plain single-threaded C program (the circuit's
model and the error metrics of ``approx_units.metrics`` over every operand
pair), compiles it with ``gcc -O2``, checks its outputs against axhls's model
on random pairs, and times it beside axhls's exhaustive evaluation on
``--workers`` cores (the compiled engine, kernels compiled beforehand):

* every library multiplier (``approx_units.names()`` of kind ``mul``) at its
  default parameters for the width (the catalogue's; DRUM's k is 6 at 16
  bits), against the same algorithm as a researcher writes it in C: a loop
  over the partial products or digits the paper draws (``LIBRARY_C``; a unit
  added to the library without one is named and left out);
* ``loa16``: a 16-bit third-party-style gate-level adder (lower-part OR on 6
  bits, ripple-carry gates above), as Verilog evaluated through Yosys and as
  gate-by-gate C in EvoApproxLib's style;
* when ``--evoapprox`` names the EvoApproxLib mirror (a bare git repository or
  a checkout), circuits with their own C models, read from there at run time:
  ``add16u_0P8``; ``mul16u_5A2``; and the largest 16x16 unsigned multiplier
  netlist by gate count after Yosys's mapping (every ``*.v`` of
  ``multiplers/16x16_unsigned/``, ``*_pdk45.v`` left out, is loaded to count).

axhls runs each race twice, on one thread and on ``--workers``; both times are
printed. Targets, as ratios measured in the same run against the C model on
one core: third-party netlists on ``--workers`` cores no slower than their C
model (ratio <= 1, issues 13 and 24); the library's 16x16 units at most a
quarter of it (ratio <= 0.25, issue 24). The machine may be shared: the load
average is printed with every timing.

The 8x8 section times every library unit exhaustively (issue 3: < 0.1 s each),
then the one-pair-per-call cost of a few 16-bit units through the scalar
interpreter and through the numpy model (docs/units.md, "Units inside kernels").
The last lines are a table of the library multipliers' ratios, wall (the
target) and CPU time, and whether each is within the target.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import approx_units
from approx_units import compiled
from approx_units import evaluate as ev
from approx_units.verilog_eval import load_verilog

# The error metrics of approx_units.metrics.ErrorStats over every pair, in plain C.
HARNESS = r"""
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
%(model)s
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "check") == 0) {     /* pairs on stdin -> outputs on stdout */
    uint64_t pair[2];
    while (fread(pair, sizeof pair[0], 2, stdin) == 2) {
      uint64_t o = %(function)s(pair[0], pair[1]);
      fwrite(&o, sizeof o, 1, stdout);
    }
    return 0;
  }
  const uint64_t n = 1ull << %(width)d;
  uint64_t count = 0, errors = 0, nonzero = 0, max_abs = 0;
  unsigned __int128 sum_abs = 0;
  __int128 sum_err = 0;
  double sum_sq = 0, sum_rel = 0, sum_rel_sq = 0, sum_signed_rel = 0, max_rel = 0;
  for (uint64_t a = 0; a < n; a++) {
    for (uint64_t b = 0; b < n; b++) {
      const uint64_t approx = %(function)s(a, b);
      const uint64_t exact = %(exact)s;
      const int64_t e = (int64_t)(approx - exact);
      const uint64_t ae = e < 0 ? -(uint64_t)e : (uint64_t)e;
      count++;
      errors += e != 0;
      sum_abs += ae;
      sum_err += e;
      if (ae > max_abs) max_abs = ae;
      const double ef = (double)e;
      sum_sq += ef * ef;
      if (exact != 0) {
        const double r = ef / (double)exact;
        nonzero++;
        sum_rel += fabs(r);
        sum_rel_sq += r * r;
        sum_signed_rel += r;
        if (fabs(r) > max_rel) max_rel = fabs(r);
      }
    }
  }
  printf("{\"er\": %%.17g, \"med\": %%.17g, \"mse\": %%.17g, \"bias\": %%.17g, \"mred\": %%.17g, "
         "\"wce\": %%llu, \"wcre\": %%.17g}\n",
         (double)errors / count, (double)sum_abs / count, sum_sq / count, (double)sum_err / count,
         sum_rel / nonzero, (unsigned long long)max_abs, max_rel);
  return 0;
}
"""

# Mitchell's algorithm as approx_units.multipliers.mitchell computes it (n x n, n <= 16):
# the leading one k and the n-1 fraction bits below it of each operand, their sum, and
# the antilogarithm (1.f) * 2^k truncated; 0 when an operand is 0.
MITCHELL_C = r"""
static inline uint64_t mitchell(uint64_t a, uint64_t b) {
  const int f = %(width)d - 1;
  if (a == 0 || b == 0) return 0;
  const int ka = 63 - __builtin_clzll(a), kb = 63 - __builtin_clzll(b);
  const uint64_t mask = (1ull << f) - 1;
  const uint64_t xa = (a << (f - ka)) & mask, xb = (b << (f - kb)) & mask;
  const uint64_t sum = (((uint64_t)ka << f) | xa) + (((uint64_t)kb << f) | xb);
  const uint64_t k = sum >> f, m = (sum & mask) | (1ull << f);
  return ((m << k) >> f) & ((1ull << (2 * %(width)d)) - 1);
}
"""


# The unit catalogue's other multipliers, each as a researcher models its algorithm in C: a loop
# over the partial products (or the digits) the paper draws, no tables, no vector code.

# exact_mul: the sum of every 2-bit digit of a times every 2-bit digit of b (2x2 sub-multipliers).
EXACT_MUL_C = r"""
static inline uint64_t exact_mul(uint64_t a, uint64_t b) {
  uint64_t p = 0;
  for (int i = 0; i < %(width)d; i += 2)
    for (int j = 0; j < %(width)d; j += 2)
      p += (((a >> i) & 3) * ((b >> j) & 3)) << (i + j);
  return p;
}
"""

# trunc_mul(c): the partial-product array, row by row, with every bit in a column below c dropped.
TRUNC_MUL_C = r"""
static inline uint64_t trunc_mul(uint64_t a, uint64_t b) {
  const uint64_t kept = ~((1ull << %(c)d) - 1);
  uint64_t p = 0;
  for (int j = 0; j < %(width)d; j++)
    p += ((b >> j) & 1) * ((a << j) & kept);
  return p;
}
"""

# vctm_mul(t), stagger 0: the array truncated below column t, and each row's first dropped bit
# (column t-1) added once more at column t (King and Swartzlander's variable correction).
VCTM_MUL_C = r"""
static inline uint64_t vctm_mul(uint64_t a, uint64_t b) {
  const int t = %(t)d;
  uint64_t p = 0;
  for (int j = 0; j < %(width)d; j++) {
    const uint64_t bj = (b >> j) & 1;
    const int first = t > j ? t - j : 0;                 /* the row's first kept bit of a */
    p += bj * ((a >> first) << (first + j));
    const int i = t - 1 - j;                             /* its first dropped bit */
    if (t > 0 && i >= 0 && i < %(width)d) p += (bj & (a >> i)) << t;
  }
  return p;
}
"""

# lut_mul(t), edge 0: 2x2 sub-products; those below column t rounded (half up) to multiples of 2^t.
# Rounded by 4 bits or more, only 3 x 3 = 9 still rounds up: such a sub-product is left out.
LUT_MUL_C = r"""
static inline uint64_t lut_mul(uint64_t a, uint64_t b) {
  const int t = %(t)d;
  uint64_t p = 0;
  for (int i = 0; i < %(width)d; i += 2)
    for (int j = 0; j < %(width)d; j += 2) {
      const uint64_t s = ((a >> i) & 3) * ((b >> j) & 3);
      const int column = i + j, shift = t - column;
      if (shift <= 0) p += s << column;
      else if (shift <= 3) p += ((s + (1ull << (shift - 1))) >> shift) << t;
    }
  return p;
}
"""

# Mitchell's multiplier with the error refinement of approx_units.multipliers.mitchell_refined:
# fractions truncated to m bits (plus a half LSB), the dropped term (1-x1)(1-x2) or x1*x2 put back
# at the centres of the q-bit regions of the fractions, and the antilogarithm.
MITCHELL_REFINED_C = r"""
static inline uint64_t mitchell_refined(uint64_t a, uint64_t b) {
  const int f = %(width)d - 1, m = %(mantissa_bits)d, q = %(index_bits)d;
  if (a == 0 || b == 0) return 0;
  const int ka = 63 - __builtin_clzll(a), kb = 63 - __builtin_clzll(b);
  uint64_t xa = ((a << (f - ka)) & ((1ull << f) - 1)) >> (f - m);       /* top m fraction bits */
  uint64_t xb = ((b << (f - kb)) & ((1ull << f) - 1)) >> (f - m);
  int p = m;
  if (m < f) { xa = (xa << 1) | 1; xb = (xb << 1) | 1; p++; }           /* half an LSB */
  const uint64_t ta = xa >> (p - q), tb = xb >> (p - q);               /* the regions */
  uint64_t centres = ((ta << 1) | 1) * ((tb << 1) | 1);                /* 2q + 2 fraction bits */
  centres = 2 * q + 2 > p ? centres >> (2 * q + 2 - p) : centres << (p - 2 * q - 2);
  const int second = ((ta + tb) >> q) & 1;      /* x1 + x2 >= 1: the (1-x1)(1-x2) form */
  const uint64_t low = (1ull << (p - q)) - 1, low_sum = (xa & low) + (xb & low);
  /* (x1 - c1) + (x2 - c2): the low bits' sum minus one region width, in p + 2 bits */
  const uint64_t offsets = q < p ? (low_sum - (1ull << (p - q))) & ((1ull << (p + 2)) - 1)
                                 : (1ull << (p + 2)) - 1;
  uint64_t mantissa = (1ull << p) + xa + xb;                            /* 1 + x1 + x2 */
  if (second) mantissa += offsets;
  mantissa = (mantissa + centres) & ((1ull << (p + 2)) - 1);             /* in [1, 4) */
  return ((mantissa << (ka + kb)) >> p) & ((1ull << (2 * %(width)d)) - 1);
}
"""

# Babic's iterative logarithmic multiplier: the basic block (leading ones kept, residues
# shifted) and then the same block on the residues, once per correction.
ITERLOG_C = r"""
static inline uint64_t iterlog(uint64_t a, uint64_t b) {
  uint64_t p = 0;
  for (int step = 0; step <= %(corrections)d && a != 0 && b != 0; step++) {
    const int ka = 63 - __builtin_clzll(a), kb = 63 - __builtin_clzll(b);
    const uint64_t ra = a ^ (1ull << ka), rb = b ^ (1ull << kb);
    p += (1ull << (ka + kb)) + (ra << kb) + (rb << ka);
    a = ra; b = rb;
  }
  return p & ((1ull << (2 * %(width)d)) - 1);
}
"""

# DRUM(k) as approx_units.multipliers.drum computes it: each operand's k bits from its leading
# one (the lowest forced to 1 when bits were cut), their product, shifted back.
DRUM_C = r"""
static inline uint64_t drum_operand(uint64_t x, int *shift) {
  const int k = %(k)d;
  const int position = x ? 63 - __builtin_clzll(x) : 0;
  const int cut = position >= k;
  *shift = cut ? position - (k - 1) : 0;
  return ((x >> *shift) & ((1ull << k) - 1)) | (uint64_t)cut;
}
static inline uint64_t drum(uint64_t a, uint64_t b) {
  int sa, sb;
  const uint64_t ta = drum_operand(a, &sa), tb = drum_operand(b, &sb);
  return ((ta * tb) << (sa + sb)) & ((1ull << (2 * %(width)d)) - 1);
}
"""

#: The C reference of each library multiplier, formatted with the width and the unit's parameters.
LIBRARY_C = {"exact_mul": EXACT_MUL_C, "trunc_mul": TRUNC_MUL_C, "drum": DRUM_C, "mitchell": MITCHELL_C,
             "mitchell_refined": MITCHELL_REFINED_C, "iterlog": ITERLOG_C, "lut_mul": LUT_MUL_C,
             "vctm_mul": VCTM_MUL_C}

#: Issue 24: a library unit's exhaustive evaluation on ``--workers`` threads, as a fraction
#: of its C reference's time on one.
LIBRARY_TARGET = 0.25

#: EvoApproxLib's 16x16 unsigned multipliers, each in several Pareto folders.
EVO_MULTIPLIERS = "multiplers/16x16_unsigned"


def loa_verilog(width: int, low: int) -> str:
    """A lower-part-OR adder as a third party writes it: OR gates, then a ripple-carry adder of gates."""
    return f"""
module loa{width}(input [{width - 1}:0] A, input [{width - 1}:0] B, output [{width}:0] O);
  wire [{width}:{low}] c;
  assign O[{low - 1}:0] = A[{low - 1}:0] | B[{low - 1}:0];
  assign c[{low}] = A[{low - 1}] & B[{low - 1}];
  genvar i;
  generate for (i = {low}; i < {width}; i = i + 1) begin : fa
    assign O[i] = A[i] ^ B[i] ^ c[i];
    assign c[i + 1] = (A[i] & B[i]) | (c[i] & (A[i] ^ B[i]));
  end endgenerate
  assign O[{width}] = c[{width}];
endmodule
"""


def loa_c(width: int, low: int) -> str:
    """The same adder gate by gate, in the style of EvoApproxLib's C models."""
    lines = [f"uint64_t loa{width}(uint64_t a, uint64_t b) {{", f"  int wa[{width}], wb[{width}];",
             "  uint64_t y = 0;"]
    lines += [f"  wa[{i}] = (a >> {i}) & 0x01; wb[{i}] = (b >> {i}) & 0x01;" for i in range(width)]
    lines += [f"  y |= ((wa[{i}] | wb[{i}]) & 0x01) << {i};" for i in range(low)]
    lines.append(f"  int c_{low} = wa[{low - 1}] & wb[{low - 1}];")
    for i in range(low, width):
        lines += [f"  int p_{i} = wa[{i}] ^ wb[{i}];",
                  f"  int s_{i} = p_{i} ^ c_{i};",
                  f"  int c_{i + 1} = (wa[{i}] & wb[{i}]) | (c_{i} & p_{i});",
                  f"  y |= (s_{i} & 0x01) << {i};"]
    lines += [f"  y |= (c_{width} & 0x01) << {width};", "  return y;", "}"]
    return "\n".join(lines)


def read_from_mirror(mirror: Path, path: str) -> str:
    """A file of the EvoApproxLib mirror: a checkout, or a bare git repository (any of its branches)."""
    if (mirror / path).is_file():
        return (mirror / path).read_text()
    for ref in ("HEAD", "v2022", "master", "main"):
        result = subprocess.run(["git", "--git-dir", str(mirror), "show", f"{ref}:{path}"],
                                capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout
    raise SystemExit(f"{mirror}: no {path} in the checkout or in its branches")


def list_mirror(mirror: Path, folder: str) -> list:
    """The paths of the files under ``folder`` in the mirror (a checkout, or a bare repository's ``v2022``)."""
    if (mirror / folder).is_dir():
        return sorted(str(p.relative_to(mirror)) for p in (mirror / folder).rglob("*") if p.is_file())
    for ref in ("v2022", "HEAD"):
        result = subprocess.run(["git", "--git-dir", str(mirror), "ls-tree", "-r", "--name-only", ref, folder],
                                capture_output=True, text=True)
        if result.returncode == 0 and result.stdout.strip():
            return sorted(result.stdout.split())
    raise SystemExit(f"{mirror}: no folder {folder} in the checkout or in its branches")


def evoapprox_multipliers(mirror: Path, work: Path) -> dict:
    """``{name: (verilog path in the mirror, GateNetlist)}`` of every unique 16x16 unsigned multiplier."""
    paths = {}
    for path in list_mirror(mirror, EVO_MULTIPLIERS):
        name = Path(path).stem
        if path.endswith(".v") and not name.endswith("_pdk45"):
            paths.setdefault(name, path)
    circuits = {}
    for name, path in sorted(paths.items()):
        local = Path(work, f"{name}.v")
        local.write_text(read_from_mirror(mirror, path))
        circuits[name] = (path, load_verilog(local, name, "mul", 16))
    return circuits


def published(c_model: str, name: str) -> int | None:
    """A metric of the header comment of an EvoApproxLib C model (``// WCE = 780197``)."""
    for line in c_model.splitlines():
        if line.startswith(f"// {name} = "):
            return int(float(line.split("=")[1].split()[0]))
    return None


class CReference:
    """A compiled single-threaded C program: a model and the metrics loop."""

    def __init__(self, work: Path, name: str, model: str, function: str, exact: str, width: int):
        self.source = Path(work, f"{name}.c")
        self.binary = Path(work, name)
        self.source.write_text(HARNESS % {"model": model, "function": function, "exact": exact,
                                          "width": width})
        command = ["gcc", "-O2", "-o", str(self.binary), str(self.source), "-lm"]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"gcc failed on {self.source}:\n{result.stderr}")

    def outputs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        pairs = np.stack([a, b], axis=1).astype(np.uint64).tobytes()
        result = subprocess.run([str(self.binary), "check"], input=pairs, capture_output=True, check=True)
        return np.frombuffer(result.stdout, dtype=np.uint64)

    def run(self) -> tuple:
        """``(wall seconds, CPU seconds, metrics)`` of one run over every pair."""
        started, cpu = time.perf_counter(), _children_cpu()
        result = subprocess.run([str(self.binary)], capture_output=True, text=True, check=True)
        return time.perf_counter() - started, _children_cpu() - cpu, json.loads(result.stdout)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check_bit_exact(reference: CReference, model, width: int, label: str, count: int = 200_000,
                    strict: bool = True) -> bool:
    """Whether the C reference's outputs equal ``model``'s on random and edge pairs.

    A reference written here must (the script stops otherwise). A third party's own C model
    (``strict=False``) may compute the Verilog's function with its operands swapped (EvoApproxLib's
    mul16u_5A2 does), which gives the same metrics over all pairs: that counts as equal and is
    said. One that disagrees otherwise is said, and False returned.
    """
    rng = np.random.default_rng(13)
    a = np.concatenate([rng.integers(0, 1 << width, count), [0, (1 << width) - 1, 0, 1]])
    b = np.concatenate([rng.integers(0, 1 << width, count), [0, (1 << width) - 1, 1, 0]])
    expected = np.asarray(model(a, b)).astype(np.uint64)
    got = reference.outputs(a, b)
    if not strict and not np.array_equal(got, expected) \
            and np.array_equal(got, np.asarray(model(b, a)).astype(np.uint64)):
        print(f"  C model of {label} equals axhls's model with a and b swapped on {a.size} random pairs "
              f"(its C and its Verilog name the operands the other way round): the same metrics")
        return True
    if not np.array_equal(got, expected):
        wrong = np.flatnonzero(got != expected)
        bad = int(wrong[0])
        message = (f"{label}: the C reference differs from the model on {wrong.size} of {a.size} pairs, "
                   f"first at a={a[bad]}, b={b[bad]}: {got[bad]} against {expected[bad]}")
        if strict:
            raise SystemExit(message)
        print(f"  {message}: the C model and the Verilog of this circuit disagree, so its metrics are "
              f"compared with the published ones only")
        return False
    print(f"  C reference of {label} equals axhls's model on {a.size} random pairs")
    return True


#: Relative tolerance of each metric of the C harness. ``wce`` is an integer maximum, ``wcre``
#: a maximum of the same roundings, ``er``, ``med`` and ``bias`` come from exact integer sums:
#: all equal. ``mse`` and ``mred`` are the harness's sequential double sums of up to 2^32
#: rounded terms, which drift by up to 2^32 * 2^-53 (5e-7) of the total: mul16u_5A2's MSE is
#: off in the 10th digit, where axhls's equals the exact 128-bit integer sum.
TOLERANCE = {"wce": 0.0, "wcre": 0.0, "er": 1e-15, "med": 1e-15, "bias": 1e-15, "mse": 1e-6, "mred": 1e-6}


def compare_metrics(label: str, c_metrics: dict, axhls_metrics: dict):
    for name, value in c_metrics.items():
        theirs = axhls_metrics[name]
        same = abs(theirs - value) <= TOLERANCE[name] * abs(value)
        if not same:
            raise SystemExit(f"{label}: metric {name} is {theirs} in axhls and {value} in C")
    print(f"  metrics agree with the C reference: {', '.join(f'{k}={v:.6g}' for k, v in c_metrics.items())}")


def race(label: str, reference: CReference, subject, workers: int, target: float, same: bool = True) -> tuple:
    """Time the C reference, then axhls on one thread and on ``workers``; print the times, the ratios
    and the load; axhls's metrics must equal C's when ``same`` (the two compute the same function).
    Returns ``(seconds on workers threads / C, seconds on one thread / C, metrics)``."""
    load = os.getloadavg()[0]
    c_seconds, c_cpu, c_metrics = reference.run()
    print(f"  C (gcc -O2, 1 thread): {c_seconds:.2f} s, {c_cpu:.2f} CPU-s   (load average before: {load:.2f})")
    seconds, cpu_seconds = {}, {}
    for threads in sorted({1, workers}):
        load = os.getloadavg()[0]
        started, cpu = time.perf_counter(), time.process_time()
        result = ev.evaluate(subject, exhaustive=True, workers=threads, engine="compiled", progress=False)
        seconds[threads], cpu_seconds[threads] = time.perf_counter() - started, time.process_time() - cpu
        print(f"  axhls ({threads} thread{'s' if threads > 1 else ''}, compiled engine): {seconds[threads]:.2f} s, "
              f"{cpu_seconds[threads]:.2f} CPU-s   (load average before: {load:.2f})")
        if same:
            compare_metrics(label, c_metrics, result.metrics)
    if not same:
        print("  C model's metrics: " + ", ".join(f"{k}={v:.6g}" for k, v in c_metrics.items()))
        print("  axhls's metrics:   " + ", ".join(f"{k}={result.metrics[k]:.6g}" for k in c_metrics))
    ratio, single = seconds[workers] / c_seconds, seconds[1] / c_seconds
    cpu_ratio = cpu_seconds[1] / c_cpu if c_cpu > 0 else float("nan")
    print(f"  ratio axhls ({workers} threads) / C = {ratio:.3f} (target <= {target:g}): "
          f"{'met' if ratio <= target else 'NOT met'}; on 1 thread {single:.3f}; CPU-s on 1 thread {cpu_ratio:.3f}")
    return (ratio, single, cpu_ratio), result.metrics


def eight_bit_section():
    print("8x8 exhaustive, all metrics (best of 5, after one warm-up that traces the unit):")
    worst = 0.0
    for name in approx_units.names():
        unit = approx_units.get(name, width=8)
        subject = ev.LibraryUnit(name, 8, 0, tuple(sorted(unit.params.items())))
        ev.evaluate(subject, progress=False)
        times = []
        for _ in range(5):
            started = time.perf_counter()
            result = ev.evaluate(subject, progress=False)
            times.append(time.perf_counter() - started)
        seconds = min(times)
        worst = max(worst, seconds)
        print(f"  {name:<22} {seconds * 1000:7.1f} ms  {result.samples / seconds / 1e6:6.1f} Mpairs/s  "
              f"mred={result.metrics['mred']:.5f}")
    print(f"  slowest: {worst * 1000:.1f} ms (target < 100 ms): {'met' if worst < 0.1 else 'NOT met'}")


#: Units whose one-pair-at-a-time cost docs/units.md ("Units inside kernels") gives, at 16 bits.
SCALAR_UNITS = ("mitchell", "mitchell_refined", "drum", "mitchell_div_refined")


def scalar_section(pairs: int = 2000, calls: int = 100):
    """One operand pair per call, as a kernel's golden model calls a unit: the scalar interpreter
    (``python_backend.compile_scalar``) against the numpy model, each the best of 3 timings."""
    from approx_units.python_backend import compile_scalar
    print("16-bit units, one pair per call (best of 3): scalar interpreter against the numpy model")
    rng = np.random.default_rng(0)
    a, b = (rng.integers(1, 1 << 16, pairs).tolist() for _ in range(2))
    for name in SCALAR_UNITS:
        unit = approx_units.get(name, width=16)
        function = compile_scalar(unit.graph)
        unit.model(a[0], b[0])

        def scalar_run():
            for x, y in zip(a, b):
                function(x, y)

        def numpy_run():
            for x, y in zip(a[:calls], b[:calls]):
                unit.model(x, y)

        scalar = min(_timed(scalar_run) for _ in range(3)) / pairs
        vector = min(_timed(numpy_run) for _ in range(3)) / calls
        print(f"  {name:<22} scalar {scalar * 1e6:6.1f} us/pair   numpy {vector * 1e3:6.2f} ms/pair   "
              f"({vector / scalar:.0f}x)")


def _timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--width", type=int, default=16, help="operand width of the races (default 16)")
    parser.add_argument("--workers", type=int, default=2, help="threads of axhls's evaluation (default 2)")
    parser.add_argument("--evoapprox", type=Path, help="the EvoApproxLib mirror (race add16u_0P8 too)")
    parser.add_argument("--skip-8bit", action="store_true", help="skip the 8x8 per-unit section")
    parser.add_argument("--only", metavar="NAMES",
                        help="race only these, comma-separated: a library multiplier's name (exact_mul, "
                             "drum, ...), loa16 (loa at --width), add16u_0P8, mul16u_5A2, largest")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None

    def wanted(name: str) -> bool:
        return only is None or name in only

    if shutil.which("gcc") is None:
        raise SystemExit("this benchmark compiles its C references with gcc, which is not installed")
    if not compiled.available():
        raise SystemExit(f"the compiled engine is unavailable: {compiled.unavailable_reason()}")
    width = args.width
    if not args.skip_8bit:
        eight_bit_section()
        scalar_section()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"races at {width}x{width} bits (2^{2 * width} pairs), axhls on {args.workers} threads")
    ratios, unraced = {}, []
    with tempfile.TemporaryDirectory(prefix="axhls-speed-") as work:
        for name in approx_units.names():
            unit = approx_units.get(name, width=width)
            if unit.kind != "mul" or not wanted(name):
                continue
            described = ", ".join(f"{k}={v}" for k, v in unit.unit_params.items())
            label = f"{name}({described})" if described else name
            if name not in LIBRARY_C:
                print(f"{label} {width}x{width} (library unit): no C reference written here, not raced")
                unraced.append(name)
                continue
            print(f"{label} {width}x{width} (library unit, default parameters):")
            c_model = LIBRARY_C[name] % {"width": width, **unit.unit_params}
            reference = CReference(Path(work), name, c_model, name, "a * b", width)
            check_bit_exact(reference, unit.model, width, label)
            started = time.perf_counter()
            compiled.evaluator_for(unit)
            print(f"  axhls kernel compiled (or found in the cache) in {time.perf_counter() - started:.2f} s")
            subject = ev.LibraryUnit(name, width, 0, tuple(sorted(unit.params.items())))
            ratios[label] = race(label, reference, subject, args.workers, LIBRARY_TARGET)[0]

        # (the name --only takes, module, kind, Verilog, C model)
        circuits = [("loa16", f"loa{width}", "add", loa_verilog(width, min(6, width - 2)),
                     loa_c(width, min(6, width - 2)))]
        if args.evoapprox:
            if width != 16:
                raise SystemExit("--evoapprox races 16-bit circuits: leave --width at 16")
            base = "adders/16_unsigned/pareto_pwr_mae/add16u_0P8"
            circuits.append(("add16u_0P8", "add16u_0P8", "add", read_from_mirror(args.evoapprox, base + ".v"),
                             read_from_mirror(args.evoapprox, base + ".c")))
            if wanted("mul16u_5A2") or wanted("largest"):
                started = time.perf_counter()
                multipliers = evoapprox_multipliers(args.evoapprox, Path(work))
                by_size = sorted(multipliers.items(), key=lambda item: (-len(item[1][1].gates), item[0]))
                print(f"EvoApproxLib {EVO_MULTIPLIERS}: {len(multipliers)} unique netlists read in "
                      f"{time.perf_counter() - started:.1f} s; largest by gates: "
                      + ", ".join(f"{name} {len(netlist.gates)}" for name, (_, netlist) in by_size[:3]))
                for key, name in (("mul16u_5A2", "mul16u_5A2"), ("largest", by_size[0][0])):
                    path = multipliers[name][0]
                    circuits.append((key, name, "mul", read_from_mirror(args.evoapprox, path),
                                     read_from_mirror(args.evoapprox, path[:-2] + ".c")))
        for key, top, kind, verilog, c_model in circuits:
            if not wanted(key) or top in ratios:
                continue
            noun = "adder" if kind == "add" else "multiplier"
            print(f"{top} (third-party Verilog, {width}-bit {noun}):")
            path = Path(work, f"{top}.v")
            path.write_text(verilog)
            started = time.perf_counter()
            netlist = load_verilog(path, top, kind, width)
            compiled.evaluator_for(netlist)
            print(f"  Yosys netlist ({len(netlist.gates)} gates) and bit-sliced kernel in "
                  f"{time.perf_counter() - started:.2f} s")
            model = c_model.replace("#include <stdint.h>", "").replace("#include <stdlib.h>", "")
            reference = CReference(Path(work), top, model, top, "a + b" if kind == "add" else "a * b", width)
            same = check_bit_exact(reference, netlist.model, width, top, strict=key == "loa16")
            ratios[top], metrics = race(top, reference, netlist, args.workers, 1.0, same)
            mae, wce = published(c_model, "MAE"), published(c_model, "WCE")
            if mae is not None and wce is not None:
                agree = round(metrics["med"]) == mae and metrics["wce"] == wce
                print(f"  published MAE {mae}, WCE {wce}; measured MAE {metrics['med']:.3f}, WCE {metrics['wce']}: "
                      f"{'as published' if agree else 'NOT as published'}")
    print("summary (axhls on {} threads / C on 1): ".format(args.workers)
          + ", ".join(f"{name} {ratio:.3f}" for name, (ratio, _, _) in ratios.items())
          + f"; load average now {os.getloadavg()[0]:.2f}")
    print("summary (axhls on 1 thread / C on 1): "
          + ", ".join(f"{name} {single:.3f}" for name, (_, single, _) in ratios.items()))
    print("summary (CPU-seconds, axhls on 1 thread / C): "
          + ", ".join(f"{name} {cpu:.3f}" for name, (_, _, cpu) in ratios.items()))
    library = [name for name in ratios if name.split("(")[0] in LIBRARY_C]
    if library:
        print(f"library multipliers {width}x{width}, target (issue 24, at 16x16): axhls on {args.workers} "
              f"threads <= {LIBRARY_TARGET:g} x C on 1 (wall); load average now {os.getloadavg()[0]:.2f}:")
        column = max(len(name) for name in library)
        print(f"  {'unit':<{column}} {'wall ratio':>10} {'CPU ratio':>10}  target")
        for name in library:
            ratio, _, cpu = ratios[name]
            print(f"  {name:<{column}} {ratio:10.3f} {cpu:10.3f}  {'met' if ratio <= LIBRARY_TARGET else 'NOT met'}")
        met = sum(ratios[name][0] <= LIBRARY_TARGET for name in library)
        print(f"  {met} of {len(library)} met" + (f"; not raced (no C reference): {', '.join(unraced)}"
                                                   if unraced else ""))


if __name__ == "__main__":
    sys.exit(main())
