"""The delay models against place and route, on kernels their calibration never saw (issue 20).

    .venv/bin/python benchmarks/delay_model_check.py [--device ice40|ecp5 ...] [--clocks 100,150]
                                                     [--seeds 1,2,3] [--fuzz 30] [--cached-only] [--paths]

The kernels: the first ``--fuzz`` programs of the differential fuzzer that compile
(:func:`sim.fuzz.generate` at seeds 1, 2, ..., index 0, less the chains it draws; fixed, so every
run checks the same programs) and the application kernels of ``examples/apps`` (exact), less every kernel named
in a calibration table of ``benchmarks/delay_calibration/`` (``image.sobel``).  Each is compiled
for each clock with ``hls.Target(clock_mhz=..., device=...)`` as a user compiles it (a clock the
kernel cannot reach gives the fastest design, claiming less), synthesised and placed and routed
inside :func:`approx_units.synth.fold_wrapper` at ``--freq`` the clock
(:func:`approx_units.synth.synthesize_kernel_seeds`).

For each kernel the script prints the model's critical path and nextpnr's (``1000 / Fmax``,
register to register), their error, and whether the claimed clock is reached.  The model's
critical path is the one the report gives (:func:`hls.report.critical_path`): the longest of the
model's register-to-register paths, its budget (what the schedule and the claim are made from)
and the path expected after place and route (the budget times the device's ``expected_ratio``,
fitted on the benchmark kernels: :meth:`approx_units.devices.DelayModel.expected_path`); the
prediction checked is the expected one.  Seed 1 is placed first; the remaining ``--seeds`` only where
seed 1 is within 10 % of the claim (Fmax moves by about 7 % between seeds), and a claim is
judged on the median of the seeds placed.  The last lines give the error distribution and the
issue's two targets: every claim reached, and the prediction within 15 % of nextpnr for at
least 90 % of the kernels.

Every placement is cached per (Verilog, clock, seed, device, tool versions) in the synthesis
cache (``$AXHLS_CACHE_DIR``), so a rerun is free and an interrupted run resumes; with
``--cached-only`` nothing is placed and rows without a cached seed 1 are left out.  The cache
keeps nextpnr's critical path of each placement too; ``--paths`` prints it (its cells, and the
named nets along it with the ns to each) under every row that misses its claim or whose error
exceeds the tolerance, with the model's own longest path (the report's ``critical_path.through``:
the chain of operations, a unit's segment, a multicycle path or a loop's control) below it.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import tempfile
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: Within this fraction of the claim, seed 1 alone does not decide: the other seeds are placed.
CLOSE_CALL = 0.10
#: The issue's bound on the model's error, and the share of kernels that must be within it.
TOLERANCE, SHARE = 0.15, 0.90


def fitted_kernels() -> set[str]:
    """Names of the kernels whose measurements the models were calibrated on (left out)."""
    from benchmarks.delay_calibration import ecp5, ice40
    names = set()
    for module in (ecp5, ice40):
        for table in ("MEASURED_PATHS", "MEASURED_CONTROL", "MEASURED_UNIT_SEGMENTS"):
            names.update(key.split("@")[0] for key in getattr(module, table, {}))
    return names


def held_out_kernels(fuzz_count: int, directory: str) -> dict:
    """``name -> kernel``: ``fuzz_count`` fuzzer programs that compile, then the application
    kernels, none of them in :func:`fitted_kernels`."""
    import hls
    from sim import fuzz
    kernels = {}
    seed = 0
    while len(kernels) < fuzz_count:
        seed += 1
        if seed > 10 * fuzz_count:
            raise RuntimeError(f"only {len(kernels)} of the fuzzer's first {seed - 1} programs compile")
        program = fuzz.generate(seed, 0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kernel = fuzz.load_program(program, directory)
                if not isinstance(kernel, hls.Kernel):
                    continue    # a dataflow chain: the check places single kernels
                kernel.to_verilog()
        except hls.KernelSyntaxError:
            continue
        kernels[program.name] = kernel
    from benchmarks.apps import APPS, app_module
    fitted = fitted_kernels()
    for app in APPS:
        for kernel in app_module(app).KERNELS:
            name = f"{app}.{kernel.name}"
            if name not in fitted:
                kernels[name] = kernel
    return kernels


def check(name, kernel, device: str, clock: float, seeds, cache, cached_only: bool) -> dict | None:
    """One row: the kernel compiled for ``clock`` on ``device``, placed and routed."""
    import hls
    from approx_units.synth import kernel_critical_path, synthesize_kernel_seeds
    from hls.compiler import compile_kernel
    from hls.report import critical_path
    compiled = compile_kernel(kernel, target=hls.Target(clock_mhz=clock, device=device))
    verilog, top = compiled.verilog(), compiled.ir.name
    claim = compiled.report.to_json()["claimed_clock_mhz"]
    modelled = critical_path(compiled)

    def place(chosen):
        reports = synthesize_kernel_seeds(verilog, top, clock_mhz=clock, seeds=chosen, cache=cache, target=device,
                                          cached_only=cached_only)
        return None if reports is None else [report.fmax_mhz for report in reports]

    fmax = place(seeds[:1])
    if fmax is None:
        return None
    if fmax[0] < claim * (1 + CLOSE_CALL) and len(seeds) > 1:
        more = place(seeds[1:])
        if more is not None:
            fmax += more
    median = statistics.median(fmax)
    achieved = 1000.0 / fmax[0]
    path = kernel_critical_path(verilog, top, clock_mhz=clock, seed=seeds[0], target=device, cache=cache)
    return {"kernel": name, "device": device, "clock_mhz": clock, "claimed_mhz": claim, "fmax_mhz": fmax,
            "median_mhz": median, "reaches_claim": median >= claim, "budget_ns": modelled.budget_ns,
            "predicted_ns": modelled.expected_ns, "achieved_ns": achieved,
            "error": (modelled.expected_ns - achieved) / achieved, "path": path, "model_path": modelled.through}


def describe_path(path: list | None) -> str:
    """nextpnr's critical path (:func:`approx_units.synth.kernel_critical_path`) in one line: its
    logic and routing ns, and the signals along it, each with the ns from the start to where the
    path leaves it.  A signal is a net's name up to the cell suffixes nextpnr and Yosys append
    (``_TRELLIS_FF_Q``, ``_LUT4_Z``, ``_CCU2C``...); Yosys' own ``$`` nets are left out."""
    if not path:
        return "path not kept (placed before paths were cached)"
    logic = sum(delay for kind, delay, *_ in path if kind != "routing")
    routing = sum(delay for kind, delay, *_ in path if kind == "routing")
    cells = sum(kind == "logic" for kind, *_ in path)
    signals, at = [], 0.0
    for kind, delay, _source, _sink, net in path:
        at += delay
        if kind != "routing" or not net or net.startswith("$"):
            continue
        signal = re.split(r"_(?:TRELLIS_|LUT4_|CCU2C_|SB_|DI\b)", net)[0].split("$")[0]
        if signals and signals[-1][0] == signal:
            signals[-1] = (signal, at)
        else:
            signals.append((signal, at))
    return (f"{cells} logic cells, {logic:.2f} ns in cells, {routing:.2f} ns routing: "
            + " > ".join(f"{signal} {at:.1f}" for signal, at in signals))


def _clocks(text: str) -> tuple[float, ...]:
    try:
        clocks = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"clocks are MHz separated by commas, such as 100,150, not {text!r}")
    if not all(0 < clock < 500 for clock in clocks):
        raise argparse.ArgumentTypeError(f"each clock must be between 0 and 500 MHz (exclusive), not {text!r}")
    return clocks


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds are integers separated by commas, such as 1,2,3, not {text!r}")
    if not seeds or not all(1 <= seed <= 100 for seed in seeds) or len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"seeds must be distinct integers 1..100, not {text!r}")
    return seeds


def summary(rows: list[dict]) -> list[str]:
    """The error distribution and the issue's two targets over ``rows``."""
    if not rows:
        return ["no rows"]
    errors = sorted(row["error"] for row in rows)
    within = sum(abs(error) <= TOLERANCE for error in errors)
    reached = sum(row["reaches_claim"] for row in rows)

    def pct(q):
        return 100 * errors[min(len(errors) - 1, max(0, math.ceil(q * len(errors)) - 1))]
    return [f"error (model - nextpnr) / nextpnr over {len(rows)} rows: min {100 * errors[0]:+.1f} %, "
            f"10th {pct(0.1):+.1f} %, median {100 * statistics.median(errors):+.1f} %, 90th {pct(0.9):+.1f} %, "
            f"max {100 * errors[-1]:+.1f} %; mean |error| {100 * statistics.mean(abs(e) for e in errors):.1f} %",
            f"within {100 * TOLERANCE:.0f} %: {within} of {len(rows)} ({100 * within / len(rows):.0f} %; target "
            f">= {100 * SHARE:.0f} %): {'met' if within >= SHARE * len(rows) else 'NOT met'}",
            f"claims reached (median of the seeds placed): {reached} of {len(rows)}: "
            f"{'met' if reached == len(rows) else 'NOT met'}"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", action="append", choices=("ice40", "ecp5"),
                        help="device to check (repeatable; default ice40, then ecp5)")
    parser.add_argument("--clocks", type=_clocks, default=(100.0, 150.0), help="MHz, comma-separated (default 100,150)")
    parser.add_argument("--seeds", type=_seeds, default=(1, 2, 3), help="nextpnr seeds (default 1,2,3)")
    parser.add_argument("--fuzz", type=int, default=30, metavar="N", help="fuzzer programs, 1..200 (default 30)")
    parser.add_argument("--cached-only", action="store_true", help="place nothing: report what the cache holds")
    parser.add_argument("--paths", action="store_true",
                        help="print nextpnr's critical path under each row off by more than the tolerance or missed")
    options = parser.parse_args(argv)
    if not 1 <= options.fuzz <= 200:
        parser.error(f"--fuzz must be 1..200, not {options.fuzz}")
    import hls
    from approx_units.synth import ResultCache, SynthesisError
    from hls.errors import KernelSyntaxError
    from hls.schedule.problem import ProblemError
    cache = ResultCache()
    cache.check()
    devices = options.device or ["ice40", "ecp5"]
    with tempfile.TemporaryDirectory(prefix="axhls-delay-check-") as directory:
        kernels = held_out_kernels(options.fuzz, directory)
        print(f"{len(kernels)} kernels not used for fitting: {', '.join(kernels)}", flush=True)
        for device in devices:
            rows = []
            model = hls.Target(device=device).delay_model
            print(f"\n{device}: kernel, clock, claim, Fmax per seed, the model's budget and expected critical path "
                  f"(expected = {model.expected_ratio:g} x budget), achieved (seed 1)")
            for name, kernel in kernels.items():
                for clock in options.clocks:
                    try:
                        row = check(name, kernel, device, clock, options.seeds, cache, options.cached_only)
                    except (KernelSyntaxError, ProblemError, SynthesisError) as error:
                        # The kernel does not compile for this clock, or a tool failed: said, and left out.
                        print(f"  {name:28} {clock:5g} not measured: {str(error).splitlines()[0]}", flush=True)
                        continue
                    if row is None:
                        continue
                    rows.append(row)
                    fmax = "/".join(f"{value:.1f}" for value in row["fmax_mhz"])
                    print(f"  {name:28} {clock:5g} claim {row['claimed_mhz']:6.1f}  Fmax {fmax:17} "
                          f"{'reached' if row['reaches_claim'] else 'MISSED '}  budget {row['budget_ns']:6.2f} ns  "
                          f"expected {row['predicted_ns']:6.2f} ns"
                          f"  achieved {row['achieved_ns']:6.2f} ns  error {100 * row['error']:+6.1f} %", flush=True)
                    if options.paths and (abs(row["error"]) > TOLERANCE or not row["reaches_claim"]):
                        print(f"      nextpnr: {describe_path(row['path'])}", flush=True)
                        print(f"      model:   {row['model_path']}", flush=True)
            for line in summary(rows):
                print(f"{device}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
