"""``axhls explore``: choose the approximate unit of each operation of a kernel or chain (:mod:`hls.explore`).

    axhls explore examples.apps.image:KERNELS --data examples.apps.image:default_input \\
        --run examples.apps.image:run --quality examples.apps.image:quality --bound 'psnr_db>=35' \\
        --store image.sqlite --json

``TARGET`` is ``FILE.py:NAME`` or ``MODULE:NAME`` (an importable module, e.g. a package's),
naming a kernel or a tuple/list of kernels; ``--data``, ``--run`` and ``--quality`` name
functions the same way (``--data``'s is called with no argument).  Every failure of the
user's input is one line and exit status 2.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

import artefacts
from hls.kernel import Kernel

from .arguments import integer
from .command import CommandError, print_json
from .loading import import_file, user_errors
from .progress_options import add_progress_option, progress_wanted
from .units_cache import open_cache

__all__ = ["register", "run_explore"]


def _module(name: str, option: str, modules: dict):
    if name in modules:
        return modules[name]
    if name.endswith(".py"):
        module = import_file(name)
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(name)
        except Exception as error:      # the user's module: any failure is bad input
            raise CommandError(f"{option} {name}: cannot import it: {type(error).__name__}: "
                               f"{' '.join(str(error).splitlines())}") from None
    modules[name] = module
    return module


def _named(spec: str, option: str, modules: dict):
    path, colon, name = spec.rpartition(":")
    if not colon or not path or not name:
        raise CommandError(f"{option} {spec!r}: expected FILE.py:NAME or MODULE:NAME")
    module = _module(path, option, modules)
    if not hasattr(module, name):
        raise CommandError(f"{option} {spec}: {path} has no {name!r}")
    return getattr(module, name)


def _kernels(spec: str, modules: dict) -> tuple:
    found = _named(spec, "TARGET", modules)
    kernels = tuple(found) if isinstance(found, (list, tuple)) else (found,)
    if not kernels or not all(isinstance(kernel, Kernel) for kernel in kernels):
        raise CommandError(f"{spec}: expected an @hls.kernel or a tuple of them, not {type(found).__name__}")
    with user_errors():
        for kernel in kernels:
            kernel.analyze()
    return kernels


def _function(spec: str, option: str, modules: dict):
    found = _named(spec, option, modules)
    if not callable(found):
        raise CommandError(f"{option} {spec}: not a function")
    return found


def run_explore(args) -> int:
    """Handler of ``axhls explore``."""
    # hls.explore loads numpy, approx_units and the synthesis flow: only this command needs them.
    from hls.explore import ExploreError, explore, parse_bound, parse_candidates, verilog_candidates
    # Every destination first: nothing is searched for a result that cannot be written.
    for path in (args.store, args.apply_to):
        if path:
            artefacts.check_file_destination(path)
    if args.plot:
        artefacts.check_figure_destination(args.plot)
        try:
            # matplotlib is the `plot` extra: only --plot needs it.
            import matplotlib  # noqa: F401
        except ModuleNotFoundError:
            raise CommandError("--plot needs matplotlib: pip install 'axhls[plot]'") from None
    if args.verify is not None and args.verify != "all" and not (args.verify.isdigit() and int(args.verify) >= 1):
        raise CommandError(f"--verify {args.verify}: expected 'all' or a number of front points >= 1")
    if args.verify_uniform and args.verify is None:
        raise CommandError("--verify-uniform needs --verify (the uniform configurations are measured beside the front)")
    if args.apply is not None and not args.apply_to:
        raise CommandError("--apply N needs --apply-to FILE.json (where the assignment is written)")
    try:
        bound = parse_bound(args.bound)
        candidates = parse_candidates(args.candidates, [kind.strip() for kind in args.kinds.split(",") if kind.strip()])
        if args.verilog is not None:
            verilog_candidates(args.verilog, tuple(candidates))     # each circuit read (and kept) before any work
    except ExploreError as error:
        raise CommandError(str(error)) from None
    cache = open_cache(args.cache_dir)
    modules: dict = {}
    kernels = _kernels(args.target, modules)
    data_function = _function(args.data, "--data", modules)
    quality = _function(args.quality, "--quality", modules)
    run = _function(args.run, "--run", modules) if args.run else None
    try:
        data = data_function()
    except Exception as error:
        raise CommandError(f"--data {args.data}: raised {type(error).__name__}: "
                           f"{' '.join(str(error).splitlines())}") from None
    try:
        with user_errors():
            result = explore(kernels, data, quality, bound=bound, run=run, candidates=candidates, verilog=args.verilog,
                             evaluations=args.evaluations, population=args.population, seed=args.seed,
                             store=args.store, cache=cache, scheduler=args.scheduler, progress=progress_wanted(args),
                             objective=args.objective, simulate=simulate,
                             names=(f"--data {args.data}", f"--quality {args.quality}", f"--run {args.run}"))
            say = _say if progress_wanted(args) is not False else None
            if args.verify is not None:
                result.verify(None if args.verify == "all" else int(args.verify), simulate=simulate, cache=cache,
                              progress=say)
            if args.verify_uniform:
                result.verify(points=result.uniform, simulate=simulate, cache=cache,
                              progress=(lambda text: say(f"uniform {text}")) if say else None)
            applied = result.approx(args.apply) if args.apply is not None else None
            if args.plot:
                from hls.explore.plot import plot     # matplotlib (checked above), only for --plot
                plot(result, args.plot, simulate=simulate, cache=cache)
    except ExploreError as error:
        raise CommandError(str(error)) from None
    if applied is not None:
        artefacts.write_text(args.apply_to, json.dumps(applied, indent=2, sort_keys=True) + "\n")
    if args.json:
        print_json(result.to_json())
        return 0
    print(f"{len(result.space.sites)} operations, {result.space.size:.3g} assignments; {len(result.points)} "
          f"evaluated ({result.evaluated} now, {result.cached} from the store); bound {result.bound}; "
          f"objective {result.objective}")
    for skipped in result.space.skipped:
        print(f"  skipped: {skipped.kernel} {skipped.describe()}")
    print("verified front (measured, estimate beside):" if result.verified_front is not None
          else "estimated front (not verified; --verify measures it):")
    for n, point in enumerate(result.reported_front()):
        chosen = ", ".join(f"{row['kernel']} {row['key']} {row['text']} -> {row['unit']}"
                           f"{'(' + ','.join(f'{k}={v}' for k, v in row['params'].items()) + ')' if row['params'] else ''}"
                           for row in result.assignment(point) if row["unit"] != "exact")
        verified = point.get("verified")
        estimate = f"LUT-eq~{point['lut_equivalents']:.0f}" + (f" ADP~{point['adp']:.0f}" if "adp" in point else "")
        measured = (f"LUT-eq {verified['lut_equivalents']} FF {verified['ffs']} Fmax {verified['fmax_mhz']:.1f} MHz "
                    f"cycles {verified['cycles']} ADP {verified['adp']:.0f} (estimate {estimate}, "
                    f"{verified['lut_error_pct']:+.1f} % LUT-eq)") if verified else estimate
        print(f"  [{n}] {bound.metric}={point['quality']:.4g}  {measured}  {chosen or 'exact'}")
    measured = [point for point in result.uniform if "verified" in point]
    if measured:
        print("uniform configurations (measured):")
        for point in measured:
            verified = point["verified"]
            print(f"  {point['label']}: {bound.metric}={point['quality']:.4g}  LUT-eq {verified['lut_equivalents']} "
                  f"FF {verified['ffs']} Fmax {verified['fmax_mhz']:.1f} MHz cycles {verified['cycles']} "
                  f"ADP {verified['adp']:.0f}")
    if applied is not None:
        print(f"wrote front point {args.apply} to {args.apply_to}")
    return 0


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def simulate(kernel, args):
    """One kernel call in Amaranth's simulator against its Python run (``sim.run``)."""
    # sim pulls in the simulator and the whole compiler: only a search that simulates needs it.
    import sim
    return sim.run(kernel, args, max_cycles=SIMULATION_CYCLES, golden="python")


#: The cycle budget of each simulated call (the applications' longest runs take about 30,000).
SIMULATION_CYCLES = 2_000_000


def register(subparsers) -> None:
    """Add ``explore`` to the ``axhls`` parser."""
    parser = subparsers.add_parser(
        "explore", help="choose the approximate unit of each operation against a quality bound (NSGA-II)",
        description="Search the per-operation unit assignments of TARGET (FILE.py:NAME or MODULE:NAME: a kernel "
                    "or a tuple of kernels) for the front of quality against LUT equivalents.")
    parser.add_argument("target", metavar="TARGET")
    parser.add_argument("--data", required=True, metavar="MODULE:FUNC",
                        help="FUNC() returns the data: a list of argument dicts for one kernel, or --run's input")
    parser.add_argument("--quality", required=True, metavar="MODULE:FUNC",
                        help="FUNC(reference, output, data) returns a dict of metrics against the exact run")
    parser.add_argument("--run", metavar="MODULE:FUNC", help="FUNC(kernels, data) runs a chain, returns its output")
    parser.add_argument("--bound", required=True, metavar="METRIC>=V", help="the quality bound, e.g. 'psnr_db>=35'")
    parser.add_argument("--kinds", default="mul,div", help="kinds of operation searched (default mul,div; add, sub (-) and mod (%%) too)")
    parser.add_argument("--candidates", metavar="KIND=UNIT(P=V),...;...",
                        help="candidate units per kind, e.g. 'mul=drum(k=4),mitchell;div=mitchell_div' "
                             "(default: hls.explore.DEFAULT_CANDIDATES)")
    parser.add_argument("--verilog", metavar="DIR",
                        help="third-party circuits (DIR/NAME.v defining module NAME, as units survey reads them): "
                             "each is a candidate for the operations of its kind whose operands fit its ports")
    parser.add_argument("--evaluations", type=integer(1), default=400, help="NSGA-II proposals (default 400)")
    parser.add_argument("--population", type=integer(2), default=40, help="NSGA-II population (default 40)")
    parser.add_argument("--seed", type=integer(0), default=1, help="search seed (default 1)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the quality runs on this Dask scheduler, e.g. tcp://host:8786 (same front)")
    parser.add_argument("--store", metavar="FILE.sqlite", help="keep evaluations here; a re-run skips them")
    parser.add_argument("--cache-dir", metavar="DIR", help="synthesis result cache (default ~/.cache/axhls)")
    parser.add_argument("--apply", type=integer(0), metavar="N", help="write front point N (0: cheapest) ...")
    parser.add_argument("--apply-to", metavar="FILE.json", help="... to this file, as {kernel: approx= mapping}")
    parser.add_argument("--objective", choices=("luts", "adp"), default="luts",
                        help="the cost searched: estimated LUT-eq, or ADP (LUT-eq x cycles / Fmax, cycles from "
                             "each schedule by one simulation per distinct schedule) (default luts)")
    parser.add_argument("--verify", nargs="?", const="all", metavar="N",
                        help="measure every front point whole (or its N cheapest): simulate each kernel call "
                             "against its Python run (cycles), synthesise, place and route (Fmax the median of "
                             "seeds 1-3); the front reported is then the verified one")
    parser.add_argument("--verify-uniform", action="store_true",
                        help="measure every uniform configuration whole too (as --verify), so that the plot and "
                             "the JSON compare the front with measured uniform figures")
    parser.add_argument("--plot", metavar="FILE.png|svg|pdf",
                        help="plot quality against ADP (measured where verified, else estimated), the uniform "
                             "configurations beside the front")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress_option(parser)
    parser.set_defaults(handler=run_explore)
