"""The three applications of issue 12 measured end to end, exact and approximate.

    python benchmarks/apps.py [--json] [--app image|ecg|tracking ...] [--config NAME ...]
                              [--version sequential|chained ...] [--plots DIR] [--seeds N] [--no-synth]

Each application (``examples/apps/``: image, ECG, tracking) is a chain of
kernels.  For each configuration (:data:`CONFIGS`: exact, and the kernels'
``*`` and ``//`` between variables replaced through ``kernel.with_approx``):

* **quality** against the exact pipeline (the Python runs, which use the units'
  bit-exact models): image PSNR/SSIM, ECG sensitivity/positive
  predictivity/F1 (50 ms), tracking RMSE against the exact tracker and the
  true path;
* **cycles**: every kernel of the chain simulated in Amaranth's simulator on
  the full input, from ``start`` to ``done``, summed; ``match`` says every
  kernel's hardware equals its Python run;
* **area**: LUT4, CCU2C and FF of every kernel alone, ``synth_ecp5 -nodsp
  -nobram -nolutram -nowidelut``, summed; LUT equivalents = LUT4 + 2 x CCU2C;
* **Fmax**: nextpnr-ecp5 (``--25k --package CABGA256 --freq 100``) of every
  kernel inside :func:`approx_units.synth.fold_wrapper`, the median over placement
  seeds 1 .. N (``--seeds``, default 3: the definition ``benchmarks/run.py --fmax``
  uses, since one placement's Fmax moves by about 7 % between seeds); the chain runs
  on one clock, so its Fmax is the slowest kernel's.  Each kernel's row also lists
  every seed's Fmax (``fmax_mhz_seeds``);
* latency = cycles / Fmax (us), ADP = LUT equivalents x latency, and the %
  change of each against the exact configuration.

An application with a chained version (``CHAIN`` and ``run_chain`` in its module: the ECG
detector as one ``@hls.dataflow`` chain, the image's blur -> Sobel as one chain followed by
``normalise``) gets a second row per configuration, ``version`` ``chained`` (``chain`` in the
table) beside the ``sequential`` one (``seq``): the configuration applied to the chain with
``Dataflow.with_approx``, the chain simulated, synthesised and placed as one design (inside the
same fold wrapper, so its stream ports are registered and folded like a kernel's), its changes
measured against the exact chained row, and ``same_as_sequential`` saying its result is the
sequential run's of that configuration, bit for bit (the stages do the kernels' arithmetic; a
difference fails the run).  ``--version`` chooses the versions measured (default both).

Synthesis and simulation results are cached (``$AXHLS_CACHE_DIR``, see
:func:`approx_units.synth.default_cache_dir`), keyed by the Verilog and the
inputs, so a rerun runs no tool.  ``--plots DIR`` writes one plot per
application, quality against ADP (default ``out/apps``).

Target (issue 12): for each application, a configuration with ADP at least
30 % below exact and image PSNR >= 35 dB, ECG F1 >= 0.99 against exact,
tracking RMSE against the true path at most 5 % above exact's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

APPS = ("image", "ecg", "tracking")

#: ``(name, mapping for kernel.with_approx)``: None is the exact pipeline.
CONFIGS = (
    ("exact", None),
    ("drum6", {"mul": ("drum", {"k": 6})}),
    ("mitchell", {"mul": "mitchell"}),
    ("mitchell_refined", {"mul": "mitchell_refined"}),
    ("mitchell_div", {"div": "mitchell_div"}),
    ("mitchell_div_refined", {"div": "mitchell_div_refined"}),
    ("drum6+mitchell_div_refined", {"mul": ("drum", {"k": 6}), "div": "mitchell_div_refined"}),
    ("mitchell_refined+mitchell_div_refined", {"mul": "mitchell_refined", "div": "mitchell_div_refined"}),
    ("mitchell_refined+mitchell_div", {"mul": "mitchell_refined", "div": "mitchell_div"}),
)
CONFIG_NAMES = tuple(name for name, _ in CONFIGS)

#: The quality plotted against ADP, and its axis label, per application.
PLOTTED = {"image": ("psnr_db", "PSNR against exact (dB)"), "ecg": ("f1", "F1 against exact (50 ms)"),
           "tracking": ("rmse_vs_truth_m", "RMSE against the true path (m)")}


def app_module(name: str):
    """The module of application ``name`` (``examples.apps.image`` ...)."""
    # The applications import hls and their input packages; load them only when measured.
    import importlib
    return importlib.import_module(f"examples.apps.{name}")


def configure(kernels, mapping):
    """``kernels`` with ``mapping`` applied through ``with_approx`` (``None``: the kernels as they are)."""
    if mapping is None:
        return tuple(kernels)
    return tuple(kernel.with_approx(mapping) for kernel in kernels)


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:32]


def simulate(kernel, verilog: str, args: dict, cache) -> dict:
    """``{"cycles", "match"}`` of ``kernel`` on ``args`` in Amaranth's simulator, cached by Verilog and args."""
    import sim
    key = "apps-sim-" + _digest([verilog, args])
    cached = cache.get(key)
    if cached is not None:
        return cached
    result = sim.run(kernel, args, max_cycles=2_000_000)
    value = {"cycles": result.cycles, "match": result.match}
    cache.put(key, value)
    return value


def _design(unit) -> tuple[str, str, float]:
    """``(verilog, top, clock MHz)`` of a kernel or of a chain (whose stages share one clock: the
    lowest of their targets)."""
    from hls.compiler import compile_kernel
    from hls.dataflow import Dataflow
    if isinstance(unit, Dataflow):
        return unit.verilog(), unit.name, min(stage.kernel.clock_mhz for stage in unit.stages)
    compiled = compile_kernel(unit)
    return compiled.verilog(), compiled.ir.name, unit.clock_mhz


def measure_trace(name: str, label: str, trace, *, synth: bool, cache, progress, seeds: int) -> dict:
    """Cycles (and with ``synth`` area and Fmax) of every kernel or chain of ``trace``, run one
    after another: the per-unit entries and their sums (Fmax the slowest unit's)."""
    from approx_units.synth import synthesize_kernel_seeds
    per_kernel = []
    for unit, args in trace:
        verilog, top, clock = _design(unit)
        progress.set_description(f"{name} {label} {top}: simulate")
        run = simulate(unit, verilog, args, cache)
        entry = {"kernel": top, "cycles": run["cycles"], "match": run["match"]}
        if synth:
            progress.set_description(f"{name} {label} {top}: synthesise")
            placed = synthesize_kernel_seeds(verilog, top, clock_mhz=clock, seeds=range(1, seeds + 1), cache=cache)
            area = placed[0]
            entry.update(luts=area.luts, ccu2c=area.carry, lut_equivalents=area.lut_equivalents,
                         ffs=area.ffs, fmax_mhz=statistics.median(p.fmax_mhz for p in placed),
                         fmax_mhz_seeds=[p.fmax_mhz for p in placed])
        per_kernel.append(entry)
        progress.update(1)
    row = {"cycles": sum(k["cycles"] for k in per_kernel), "match": all(k["match"] for k in per_kernel),
           "kernels": per_kernel}
    if synth:
        fmax = min(k["fmax_mhz"] for k in per_kernel)
        latency = row["cycles"] / fmax
        lut_equivalents = sum(k["lut_equivalents"] for k in per_kernel)
        row.update(luts=sum(k["luts"] for k in per_kernel), ccu2c=sum(k["ccu2c"] for k in per_kernel),
                   lut_equivalents=lut_equivalents, ffs=sum(k["ffs"] for k in per_kernel), fmax_mhz=fmax,
                   latency_us=latency, adp=lut_equivalents * latency)
    return row


#: The versions of an application: its kernels one after another, and its ``@hls.dataflow`` chain.
VERSIONS = ("sequential", "chained")


def chained(name: str) -> bool:
    """Whether application ``name`` has a chained version (``CHAIN`` and ``run_chain`` in its module)."""
    return hasattr(app_module(name), "CHAIN")


def measure_app(name: str, configs, *, synth: bool, cache, progress, seeds: int = 3,
                versions=VERSIONS) -> list[dict]:
    """One row per configuration of application ``name`` (see the module docstring), and for an
    application with a chained version one more per configuration (``"version": "chained"``),
    of the ``versions`` asked for; each kernel's or chain's Fmax is the median over placement
    seeds ``1 .. seeds``."""
    import numpy as np
    app = app_module(name)
    data = app.default_input()
    reference = app.run(app.KERNELS, data)
    rows = []
    versions = [version for version in versions if version == "sequential" or chained(name)]
    for version in versions:
        for config, mapping in configs:
            trace = []
            sequential_output = app.run(configure(app.KERNELS, mapping), data, trace)
            row = {"app": name, "version": version, "config": config, "approx": mapping}
            if version == "chained":
                trace = []
                output = app.run_chain(data, mapping, trace)
                # The chain's stages do the kernels' arithmetic: their results are the same, bit for bit.
                row["same_as_sequential"] = bool(np.array_equal(output, sequential_output))
            else:
                output = sequential_output
            row["quality"] = app.quality(reference, output, data)
            row.update(measure_trace(name, f"{version} {config}", trace, synth=synth, cache=cache,
                                      progress=progress, seeds=seeds))
            rows.append(row)
    for version in versions:
        exact = next((r for r in rows if r["config"] == "exact" and r["version"] == version), None)
        for row in rows:
            if row["version"] != version:
                continue
            for key in ("luts", "lut_equivalents", "ffs", "fmax_mhz", "cycles", "latency_us", "adp"):
                if exact is not None and key in row:
                    row[f"{key}_change_pct"] = 100.0 * (row[key] - exact[key]) / exact[key]
                elif key in row:
                    row[f"{key}_change_pct"] = None
    return rows


def plot(name: str, rows: list[dict], path: str) -> None:
    """Quality against ADP for one application: every configuration labelled, exact marked."""
    import artefacts
    # matplotlib is the plot extra, and slow to import: only plotting needs it.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metric, label = PLOTTED[name]
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for index, row in enumerate(rows):
        value = row["quality"][metric]
        shown = value if value is not None and math.isfinite(value) else None
        if shown is None:
            # PSNR of the exact pipeline against itself is infinite: draw it at the top of the axis.
            finite = [r["quality"][metric] for r in rows if r["quality"][metric] is not None
                      and math.isfinite(r["quality"][metric])]
            shown = (max(finite) + 5) if finite else 100.0
        exact = row["config"] == "exact"
        axes.scatter([row["adp"]], [shown], marker="*" if exact else "o", s=160 if exact else 40,
                     color="black" if exact else ("tab:green" if row["quality"]["meets_target"] else "tab:red"),
                     zorder=3)
        text = row["config"] + (" (PSNR = inf)" if exact and (value is None or not math.isfinite(value)) else "")
        # Configurations of equal quality sit on one line: stagger their labels so that none hides another.
        axes.annotate(text, (row["adp"], shown), textcoords="offset points", xytext=(5, 4 + 11 * (index % 4)),
                      fontsize=7, arrowprops={"arrowstyle": "-", "color": "grey", "linewidth": 0.5})
    exact_adp = next(r["adp"] for r in rows if r["config"] == "exact")
    axes.axvline(0.7 * exact_adp, color="grey", linestyle=":", linewidth=1)
    axes.text(0.7 * exact_adp, axes.get_ylim()[0], " -30 % ADP", fontsize=7, color="grey", va="bottom")
    axes.set_xlabel("ADP (LUT equivalents x latency, us)")
    axes.set_ylabel(label)
    axes.set_title(f"{name}: quality against ADP (ECP5 LUT-only; green meets the quality target)")
    axes.grid(True, alpha=0.3)
    figure.tight_layout()
    try:
        artefacts.write_figure(path, figure)
    finally:
        plt.close(figure)


def _format_quality(quality: dict) -> str:
    parts = []
    for key, value in quality.items():
        if key == "meets_target" or key in ("tp", "fn", "fp"):
            continue
        parts.append(f"{key} {value:.4g}" if isinstance(value, float) else f"{key} {value}")
    return ", ".join(parts)


def _version(row: dict) -> str:
    """The table's cell for a row's version: ``seq``, or ``chain`` with ``(DIFFERS)`` when the
    chain's result is not the sequential kernels'."""
    if row["version"] == "sequential":
        return "seq"
    return "chain" if row["same_as_sequential"] else "chain (DIFFERS)"


def _pct(value) -> str:
    return "-" if value is None else f"{value:+.1f} %"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print a JSON list of rows instead of the table")
    parser.add_argument("--app", nargs="*", choices=APPS, default=list(APPS))
    parser.add_argument("--config", nargs="*", default=list(CONFIG_NAMES),
                        help=f"configurations (default all: {', '.join(CONFIG_NAMES)})")
    parser.add_argument("--plots", default="out/apps", help="directory of the plots (default out/apps)")
    parser.add_argument("--seeds", type=int, default=3, metavar="N",
                        help="place and route every kernel with seeds 1..N, its Fmax the median (default 3)")
    parser.add_argument("--no-synth", action="store_true", help="quality and cycles only: no synthesis, no plots")
    parser.add_argument("--version", nargs="*", choices=VERSIONS, default=list(VERSIONS),
                        help="the versions measured (default both; chained only where the application has one)")
    options = parser.parse_args(argv)
    if not 1 <= options.seeds <= 20:
        parser.error(f"--seeds must be 1..20, not {options.seeds}")
    unknown = [c for c in options.config if c not in CONFIG_NAMES]
    if unknown:
        parser.error(f"unknown configuration(s) {', '.join(unknown)}; known: {', '.join(CONFIG_NAMES)}")
    if "exact" not in options.config:
        parser.error("the configurations must include 'exact' (every change is measured against it)")

    import artefacts
    from tqdm import tqdm

    from approx_units.synth import ResultCache, SynthesisError

    synth = not options.no_synth
    cache = ResultCache()
    configs = [c for c in CONFIGS if c[0] in options.config]
    if synth:
        try:
            cache.check()
            artefacts.check_directory_destination(options.plots)
        except artefacts.DestinationError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    if not options.version:
        parser.error("--version needs sequential, chained or both")
    steps = sum((len(app_module(a).KERNELS) if "sequential" in options.version else 0)
                + (len(app_module(a).CHAIN) if chained(a) and "chained" in options.version else 0)
                for a in options.app) * len(configs)
    rows = []
    failures = []
    with tqdm(total=steps, unit="kernel", file=sys.stderr, disable=None) as progress:
        for name in options.app:
            try:
                app_rows = measure_app(name, configs, synth=synth, cache=cache, progress=progress,
                                       seeds=options.seeds, versions=options.version)
            except SynthesisError as error:
                print(f"error: {name}: {error}", file=sys.stderr)
                return 1
            rows.extend(app_rows)
            if synth:
                os.makedirs(options.plots, exist_ok=True)
                for version, suffix in (("sequential", ""), ("chained", "-chained")):
                    shown = [row for row in app_rows if row["version"] == version]
                    if shown:
                        plot(name, shown, os.path.join(options.plots, f"{name}{suffix}.png"))
    for row in rows:
        if not row["match"]:
            failures.append(f"{row['app']} {row['version']} {row['config']}: hardware differs from the Python run")
        if row.get("same_as_sequential") is False:
            failures.append(f"{row['app']} chained {row['config']}: the chain's result differs from the "
                            f"sequential kernels'")
    if options.json:
        print(json.dumps(artefacts.json_safe(rows), indent=1))
    else:
        header = ["app", "version", "config", "quality", "LUT4", "LUT-eq", "FF", "Fmax MHz", "cycles", "latency us", "ADP",
                  "ADP change"]
        table = [header]
        for row in rows:
            if synth:
                table.append([row["app"], _version(row), row["config"], _format_quality(row["quality"]),
                              str(row["luts"]),
                              f"{row['lut_equivalents']} ({_pct(row['lut_equivalents_change_pct'])})",
                              str(row["ffs"]), f"{row['fmax_mhz']:.1f} ({_pct(row['fmax_mhz_change_pct'])})",
                              f"{row['cycles']} ({_pct(row['cycles_change_pct'])})",
                              f"{row['latency_us']:.1f} ({_pct(row['latency_us_change_pct'])})",
                              f"{row['adp']:.0f}", _pct(row["adp_change_pct"])])
            else:
                table.append([row["app"], _version(row), row["config"], _format_quality(row["quality"]), "-", "-",
                              "-", "-",
                              f"{row['cycles']} ({_pct(row['cycles_change_pct'])})", "-", "-", "-"])
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        for cells in table:
            print("  ".join(c.ljust(w) for c, w in zip(cells, widths)))
        if synth:
            for name in options.app:
                for version in ("sequential", "chained"):
                    mine = [r for r in rows if r["app"] == name and r["version"] == version]
                    if not mine:
                        continue
                    best = [r for r in mine if r["config"] != "exact" and r["quality"]["meets_target"]
                            and r["adp_change_pct"] <= -30.0]
                    if best:
                        top = min(best, key=lambda r: r["adp"])
                        print(f"target {name} {version}: met by {top['config']} (ADP {top['adp_change_pct']:+.1f} %, "
                              f"{_format_quality(top['quality'])})")
                    else:
                        print(f"target {name} {version}: NOT met (no configuration with ADP -30 % or better "
                              f"within the quality bound)")
            plots = [os.path.join(options.plots, f"{n}{suffix}.png") for n in options.app
                     for version, suffix in (("sequential", ""), ("chained", "-chained"))
                     if version in options.version and (version == "sequential" or chained(n))]
            print(f"plots: {', '.join(plots)}")
    if failures:
        print("; ".join(failures), file=sys.stderr)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
