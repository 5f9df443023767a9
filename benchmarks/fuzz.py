"""Differential fuzzing of the compiler: ``python benchmarks/fuzz.py --count N --seed S``.

Generates N random kernels (``sim.fuzz.generate(S, i)`` for i in START..START+N-1),
compiles and simulates each, and compares it with its Python run. Each failure is
printed, shrunk (unless ``--no-shrink``) and saved as a pytest file under
``tests/sim/regressions/``. Besides hardware against Python, every approximate
operation of a Python run is held to its unit's error bound (``out_of_bound``
failures, ``sim.fuzz.approx_bound_check``), and the compiled golden model that the
simulation compares with must equal the Python run (``compiled_mismatch`` failures,
``sim.fuzz.compiled_difference``); a line counts the operations held to a
bound and those whose unit has none known. Before the summary, a line counts the programs that
hold each loop-nest and array construct (``Program.constructs``: nests, inner
breaks, unrolls, partitioned and local arrays, indices in several loop counters). The last line is ``N passed, M
failed``; the exit status is 1 if anything failed.

``--streams-only`` generates only stream programs (``sim.fuzz.FuzzConfig.streams_only``):
stream kernels that read and write at least once (under conditions, in pipelined loops,
flattened nests and unrolled loops) and, for 40 % of them, ``@hls.dataflow`` chains of 2-4
such kernels joined by ``hls.fifo``s; every one runs under random ``valid``/``ready`` stalls
of probability 0.3 on every input and output (seeded by the index), and its tokens are
compared in order and count with the compiled golden model, which is itself compared
with the Python run. A line gives the seconds per stream program.

``--containing TEXT`` runs only the programs whose source contains ``TEXT``
(the others are generated and skipped, and counted apart): after a change that
can only alter kernels using one construct or unit (``--containing
mitchell_refined``), the programs it cannot alter need not run again.
"""

from __future__ import annotations

import argparse
import collections
import functools
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim import fuzz  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="programs to run (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="first program index (default 0)")
    parser.add_argument("--backend", default="amaranth", choices=("amaranth", "icarus", "verilator"))
    parser.add_argument("--no-shrink", action="store_true", help="save failures unshrunk")
    parser.add_argument("--regressions", type=Path, default=ROOT / "tests" / "sim" / "regressions",
                        help="where shrunk failures are saved (default tests/sim/regressions)")
    parser.add_argument("--max-shrink-attempts", type=int, default=300)
    parser.add_argument("--streams-only", action="store_true",
                        help="generate only stream programs: stream kernels and dataflow chains, run under "
                             "random stalls (see sim.fuzz.FuzzConfig.streams_only)")
    parser.add_argument("--containing", metavar="TEXT",
                        help="run only the programs whose source contains TEXT (default: every program)")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error(f"--count must be at least 1, not {args.count}")
    if args.start < 0:
        parser.error(f"--start must be at least 0, not {args.start}")
    if args.containing is not None and not args.containing:
        parser.error("--containing needs a non-empty TEXT")

    config = fuzz.FuzzConfig.streams_only() if args.streams_only else fuzz.FuzzConfig()
    passed = failed = skipped = 0
    stream_programs, stream_seconds = 0, 0.0
    cycles = 0
    bounded = unbounded = 0
    constructs = collections.Counter()
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="axhls-fuzz-") as directory:
        check = functools.partial(fuzz.check, backend=args.backend, directory=directory)
        for index in range(args.start, args.start + args.count):
            program = fuzz.generate(args.seed, index, config)
            if args.containing is not None and args.containing not in program.source:
                skipped += 1
                continue
            constructs.update(program.constructs)
            started = time.perf_counter()
            verdict = check(program)
            if "stream" in program.constructs:
                stream_programs += 1
                stream_seconds += time.perf_counter() - started
            if verdict.approx is not None:
                bounded += verdict.approx.checked
                unbounded += verdict.approx.unbounded
            if verdict.passed:
                passed += 1
                cycles += verdict.cycles or 0
            else:
                failed += 1
                print(f"seed {args.seed} index {index}: {verdict.kind}: {verdict.detail}", flush=True)
                # The shrinker edits one kernel; a chain is saved whole.
                if not args.no_shrink and not program.is_chain:
                    program, verdict = fuzz.shrink(program, verdict, check,
                                                   max_attempts=args.max_shrink_attempts)
                path = fuzz.write_regression(program, verdict, args.regressions, backend=args.backend)
                print(f"  saved {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} "
                      f"({program.statement_count} statements)", flush=True)
            done = passed + failed
            if done and done % 50 == 0:
                print(f"[{done}/{args.count}] {passed} passed, {failed} failed, "
                      f"{time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - began
    ran = passed + failed
    if args.containing is not None:
        print(f"{ran} of {args.count} programs contain {args.containing!r}; {skipped} skipped")
    print(f"{args.backend}: {ran} programs in {elapsed:.1f} s "
          f"({elapsed / max(ran, 1):.2f} s each), {cycles} simulated cycles in passing programs")
    print(f"stream programs: {stream_programs} ({constructs['chain']} chains) in {stream_seconds:.1f} s "
          f"({stream_seconds / max(stream_programs, 1):.2f} s each), under stalls of probability "
          f"{fuzz.STALL_PROBABILITY} on every input and output")
    print(f"approximate operations: {bounded} held to their unit's error bound, "
          f"{unbounded} with no known bound (units wider than the exhaustive limit)")
    print("programs holding: " + (", ".join(f"{name} {count}" for name, count in sorted(constructs.items()))
                                  or "none of the nest and array constructs"))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
