"""Flip-flops before and after registers are sized by their ranges (issue 20, Deliver 5).

    python benchmarks/register_bits.py [--seeds N] [--no-synth] [KERNEL ...]

One row per kernel: every benchmark kernel of ``benchmarks/run.py`` (its first
example) and the eight application kernels (``examples/apps``: image, ECG, tracking;
each on the arguments of the exact chain's Python run on the application's default
input), each compiled twice:

* **before**: ``compile_kernel(kernel, narrowing=False)``, every register at its
  declared or operation's shape and every carried variable in a register of its own
  (the hardware of the commit before this change, byte for byte);
* **after**: the default, :mod:`hls.analysis.registers`.

Columns: ``bits`` (the flip-flops the Amaranth module declares,
:func:`hls.backend.component.register_bits`), ``FF`` and ``LUT4`` of the kernel alone
(``synth_ecp5 -nodsp -nobram -nolutram -nowidelut``), ``Fmax`` (nextpnr-ecp5 inside the
fold wrapper at the kernel's clock, the median over placement seeds 1..N, ``--seeds``,
default 1), ``cycles`` simulated in Amaranth's simulator from ``start`` to ``done`` (with
``match``: hardware equals the Python run), then what changed: variables narrowed
(``name declared->built``), carried variables sharing their variable's register, and
pipeline registers narrowed.  The last lines give the totals and the targets
(FF -25 %, cycles and Fmax no worse).  Synthesis and simulation are cached
(``$AXHLS_CACHE_DIR``), keyed by the Verilog and the arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: The applications whose kernels are measured (``examples/apps``).
APPS = ("image", "ecg", "tracking")
#: The issue's target: the total FF falls by at least this fraction.
FF_TARGET = 0.25


def kernels(names=None):
    """``[(row name, kernel, args)]``: the benchmark kernels, then the applications' kernels."""
    from benchmarks.apps import app_module
    from benchmarks.kernels import KERNEL_NAMES, load
    rows = []
    for name in KERNEL_NAMES:
        if names and name not in names:
            continue
        kernel, examples = load(name)
        rows.append((name, kernel, examples[0]))
    for app in APPS:
        module = app_module(app)
        trace = []
        module.run(module.KERNELS, module.default_input(), trace)
        for kernel, args in trace:
            name = f"{app}.{kernel.name}"
            if not names or name in names:
                rows.append((name, kernel, args))
    return rows


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _simulate(kernel, verilog, args, narrowing, cache) -> dict:
    import sim
    key = "register-bits-sim-" + _digest([verilog, args])
    cached = cache.get(key)
    if cached is None:
        result = sim.run(kernel, args, max_cycles=2_000_000, narrowing=narrowing)
        cached = {"cycles": result.cycles, "match": result.match}
        cache.put(key, cached)
    return cached


def measure(kernel, args, narrowing: bool, *, synth: bool, seeds: int, cache) -> dict:
    """One side of a row: register bits, cycles, and (with ``synth``) FF, LUT4 and Fmax."""
    from approx_units.synth import synthesize_kernel_seeds
    from hls.backend.component import register_bits
    from hls.compiler import compile_kernel

    compiled = compile_kernel(kernel, narrowing=narrowing)
    verilog = compiled.verilog()
    entry = {"registers": register_bits(compiled), **_simulate(kernel, verilog, args, narrowing, cache)}
    if synth:
        placed = synthesize_kernel_seeds(verilog, compiled.ir.name, clock_mhz=kernel.clock_mhz,
                                         seeds=range(1, seeds + 1), cache=cache)
        entry.update(ff=placed[0].ffs, lut4=placed[0].luts,
                     fmax_mhz=statistics.median(p.fmax_mhz for p in placed),
                     fmax_mhz_seeds=[p.fmax_mhz for p in placed])
    return entry


def _changes(registers: dict) -> str:
    parts = [f"{var} {declared}->{built}" for var, (declared, built) in registers["variables"].items()]
    if registers["shared_carries"]:
        parts.append(f"{len(registers['shared_carries'])} carries share their variable's register")
    if registers["pipeline_registers_narrowed"]:
        parts.append(f"{registers['pipeline_registers_narrowed']} pipeline values narrowed "
                     f"(-{registers['pipeline_bits_saved']} bits)")
    if registers["direct_carry_reads"]:
        parts.append(f"{registers['direct_carry_reads']} carry reads without a delay line")
    return "; ".join(parts) or "-"


def _pct(before, after) -> str:
    return "-" if not before else f"{100.0 * (after - before) / before:+.1f} %"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", help="row names (default: all; applications' as image.blur)")
    parser.add_argument("--seeds", type=int, default=1, metavar="N",
                        help="nextpnr placement seeds 1..N, Fmax the median (default 1)")
    parser.add_argument("--no-synth", action="store_true", help="register bits and cycles only")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON instead of the table")
    options = parser.parse_args(argv)
    if not 1 <= options.seeds <= 20:
        parser.error(f"--seeds must be 1..20, not {options.seeds}")

    import artefacts
    from approx_units.synth import ResultCache, SynthesisError

    cache = ResultCache()
    try:
        cache.check()
    except artefacts.DestinationError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    selected = kernels(set(options.kernels) if options.kernels else None)
    unknown = set(options.kernels) - {name for name, _, _ in selected}
    if unknown:
        parser.error(f"unknown kernel(s) {', '.join(sorted(unknown))}")
    synth = not options.no_synth
    rows = []
    for name, kernel, args in selected:
        try:
            before = measure(kernel, args, False, synth=synth, seeds=options.seeds, cache=cache)
            after = measure(kernel, args, True, synth=synth, seeds=options.seeds, cache=cache)
        except SynthesisError as error:
            print(f"error: {name}: {error}", file=sys.stderr)
            return 1
        rows.append({"kernel": name, "before": before, "after": after})
        print(f"{name}: bits {before['registers']['bits']} -> {after['registers']['bits']}"
              + (f", FF {before['ff']} -> {after['ff']}" if synth else ""), file=sys.stderr, flush=True)
    if options.json:
        print(json.dumps(artefacts.json_safe(rows), indent=1))
    header = ["kernel", "bits", "FF", "LUT4", "Fmax MHz", "cycles", "match", "what changed"]
    table = [header]
    for row in rows:
        b, a = row["before"], row["after"]
        cells = [row["kernel"], f"{b['registers']['bits']} -> {a['registers']['bits']}"]
        if synth:
            cells += [f"{b['ff']} -> {a['ff']} ({_pct(b['ff'], a['ff'])})", f"{b['lut4']} -> {a['lut4']}",
                      f"{b['fmax_mhz']:.1f} -> {a['fmax_mhz']:.1f}"]
        else:
            cells += ["-", "-", "-"]
        cells += [f"{b['cycles']} -> {a['cycles']}", "yes" if b["match"] and a["match"] else "NO",
                  _changes(a["registers"])]
        table.append(cells)
    failures = []
    total = {side: {key: sum(row[side]["registers"]["bits"] if key == "bits" else row[side][key] for row in rows)
                    for key in (("bits", "ff", "lut4", "cycles") if synth else ("bits", "cycles"))}
             for side in ("before", "after")}
    for row in rows:
        b, a = row["before"], row["after"]
        if not (b["match"] and a["match"]):
            failures.append(f"{row['kernel']}: hardware differs from the Python run")
        if a["cycles"] > b["cycles"]:
            failures.append(f"{row['kernel']}: {a['cycles']} cycles > {b['cycles']}")
        if synth and a["fmax_mhz"] < b["fmax_mhz"]:
            failures.append(f"{row['kernel']}: Fmax {a['fmax_mhz']:.1f} < {b['fmax_mhz']:.1f} MHz")
    if not options.json:
        widths = [max(len(r[i]) for r in table) for i in range(len(header) - 1)]
        for cells in table:
            print("  ".join(c.ljust(w) for c, w in zip(cells, widths)) + "  " + cells[-1])
        seeds = "seed 1" if options.seeds == 1 else f"median of seeds 1-{options.seeds}"
        line = (f"total over {len(rows)} kernels: bits {total['before']['bits']} -> {total['after']['bits']} "
                f"({_pct(total['before']['bits'], total['after']['bits'])})")
        if synth:
            line += (f"; FF {total['before']['ff']} -> {total['after']['ff']} "
                     f"({_pct(total['before']['ff'], total['after']['ff'])}); LUT4 {total['before']['lut4']} -> "
                     f"{total['after']['lut4']} ({_pct(total['before']['lut4'], total['after']['lut4'])}); "
                     f"Fmax: {seeds}")
        print(line)
    if synth and total["after"]["ff"] > (1 - FF_TARGET) * total["before"]["ff"]:
        failures.append(f"total FF {_pct(total['before']['ff'], total['after']['ff'])}, target "
                        f"-{100 * FF_TARGET:.0f} %")
    print("targets: " + ("all met" if not failures else "; ".join(failures)),
          file=sys.stderr if options.json else sys.stdout)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
