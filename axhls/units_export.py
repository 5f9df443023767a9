"""``axhls units export``: regenerate ``netlists/`` (Verilog, ``catalog.json``, ``catalog.md``)."""

from __future__ import annotations

import sys
from pathlib import Path

import approx_units
import artefacts
from approx_units import catalog as catalog_module
from approx_units import synth

from .arguments import integer
from .command import CommandError, print_json
from .progress_options import add_progress_option, progress_wanted, stderr_log
from .units_cache import open_cache

__all__ = ["register", "run_export"]


def run_export(args) -> int:
    targets = [] if args.no_synth else [t.strip() for t in args.targets.split(",") if t.strip()]
    for target in targets:
        if target not in synth.TARGETS:
            raise CommandError(f"--targets: unknown target {target!r}; choose from {', '.join(synth.TARGETS)}")
    units = None
    if args.units:
        units = [u.strip() for u in args.units.split(",") if u.strip()]
        for name in units:
            if name not in approx_units.names():
                raise CommandError(f"--units: unknown unit {name!r}; known units: {', '.join(approx_units.names())}")
    widths = catalog_module.WIDTHS
    if args.widths:
        try:
            widths = tuple(int(w) for w in args.widths.split(","))
        except ValueError:
            raise CommandError(f"--widths expects comma-separated integers, got {args.widths!r}") from None
    # Both destinations are checked before the metrics and synthesis, not after them.
    artefacts.check_directory_destination(args.output)
    cache = None
    if targets and not args.cached_only:
        cache = open_cache(args.cache_dir)
    elif args.cache_dir:
        cache = synth.ResultCache(Path(args.cache_dir) / "synth")     # only read
    try:
        catalog = catalog_module.export(args.output, targets=targets, units=units, widths=widths,
                         timing=not args.no_timing, cache=cache, jobs=args.jobs,
                         cached_only=args.cached_only, log=stderr_log(args), progress=progress_wanted(args))
    except ValueError as error:
        raise CommandError(str(error)) from None
    except synth.SynthesisError as error:
        raise CommandError(str(error), 1) from None
    summary = {"directory": str(args.output), "entries": len(catalog["entries"]),
               "targets": catalog["targets"], "seconds": catalog["seconds"],
               "synthesis_failures": catalog["synthesis_failures"]}
    if args.json:
        print_json(summary)
    else:
        print(f"wrote {summary['entries']} entries to {args.output} "
              f"(metrics {catalog['seconds']['metrics']} s, synthesis {catalog['seconds']['synthesis']} s)")
        for failure in catalog["synthesis_failures"]:
            print(f"synthesis failed: {failure}", file=sys.stderr)
    # The catalog is complete either way; a tool failure is a failed check (status 1).
    return 1 if catalog["synthesis_failures"] else 0


def register(commands) -> None:
    parser = commands.add_parser("export", help="regenerate netlists/ (Verilog, catalog.json, catalog.md)")
    parser.add_argument("-o", "--output", type=Path, default=catalog_module.DEFAULT_DIRECTORY, metavar="DIR",
                        help="the catalog directory (default: the repository's netlists/)")
    parser.add_argument("--targets", default="ecp5,xc7,ice40", help="comma-separated synthesis targets")
    parser.add_argument("--no-synth", action="store_true", help="error metrics and Verilog only")
    parser.add_argument("--no-timing", action="store_true", help="skip place and route (no Fmax)")
    parser.add_argument("--cached-only", action="store_true",
                        help="run no synthesis: use cached results, leave the rest blank")
    parser.add_argument("--units", help="comma-separated unit ids (default: all)")
    parser.add_argument("--widths", help="comma-separated widths (default: 8,16,32)")
    parser.add_argument("--jobs", type=integer(1), default=2, help="synthesis runs at a time (default 2)")
    parser.add_argument("--cache-dir", metavar="DIR", help="result cache (default ~/.cache/axhls)")
    parser.add_argument("--json", action="store_true", help="print one JSON summary object")
    add_progress_option(parser)
    parser.set_defaults(handler=run_export)
