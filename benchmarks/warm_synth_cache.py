"""Synthesise catalog entries into the on-disk cache, one at a time, and time each.

    nice -n 19 .venv/bin/python benchmarks/warm_synth_cache.py --targets xc7,ice40 --widths 32

Each entry is synthesised exactly as ``axhls units export`` does it (same
Verilog text, module name, target and flags), so the results land under the
same cache keys and a later ``axhls units export`` (or ``--cached-only``)
picks them up without running a tool.  Entries already in the cache are
reported as cached and cost nothing.

Order: combinational (stages 0) entries before pipelined ones; within each
group, the units named by ``--slow`` after the other units, and the units
named by ``--later`` after all of those.  The defaults put the exact divider
(minutes per target at 32 bits) behind the other units, and the refined
Mitchell units (still being changed, so to be synthesised again anyway) last.  A failing tool
is printed and the run goes on.  One line per entry is printed, and with
``--log FILE`` also appended to FILE as JSON.
"""

import argparse
import json
import sys
import time

import artefacts
from approx_units import catalog, synth

SLOW = ("exact_div",)
LATER = ("mitchell_refined", "mitchell_div_refined")


def ordered_entries(units, widths, slow=SLOW, later=LATER):
    """Catalog entries as :func:`catalog.entries` gives them, reordered as the module docstring says."""
    configured = catalog.entries(units, widths)
    return sorted(configured, key=lambda unit: (unit.stages > 0, unit.name in later, unit.name in slow))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--targets", default="xc7,ice40", help="comma-separated targets (default xc7,ice40)")
    parser.add_argument("--widths", default="32", help="comma-separated widths (default 32)")
    parser.add_argument("--units", help="comma-separated unit ids (default: every unit)")
    parser.add_argument("--slow", default=",".join(SLOW), help="units synthesised after the other units")
    parser.add_argument("--later", default=",".join(LATER), help="units synthesised after all others")
    parser.add_argument("--stages", choices=("all", "0", "pipelined"), default="all",
                        help="only combinational or only pipelined entries")
    parser.add_argument("--no-timing", action="store_true", help="skip place and route")
    parser.add_argument("--dry-run", action="store_true",
                        help="run no tool: report each entry as cached or missing")
    parser.add_argument("--log", help="append one JSON object per entry to this file")
    args = parser.parse_args(argv)

    def split(text):
        return tuple(item.strip() for item in text.split(",") if item.strip()) if text else ()
    targets = split(args.targets)
    for target in targets:
        if target not in synth.TARGETS:
            parser.error(f"--targets: unknown target {target!r}; choose from {', '.join(synth.TARGETS)}")
    units = list(split(args.units)) or None
    widths = tuple(int(width) for width in split(args.widths))
    configured = ordered_entries(units, widths, split(args.slow), split(args.later))
    if args.stages == "0":
        configured = [unit for unit in configured if unit.stages == 0]
    elif args.stages == "pipelined":
        configured = [unit for unit in configured if unit.stages > 0]

    cache = synth.ResultCache()
    try:
        # Before hours of synthesis, not after the first entry. The log is appended to line by
        # line (a record per finished entry), not replaced, so it is only checked here.
        if not args.dry_run:
            cache.check()
        if args.log:
            artefacts.check_file_destination(args.log)
    except artefacts.DestinationError as error:
        parser.error(str(error))
    print(f"{len(configured)} entries x {len(targets)} targets, cache {cache.directory}", flush=True)
    missing = 0
    for unit in configured:
        module = catalog.module_name(unit)
        verilog = synth.unit_verilog(unit, module)
        for target in targets:
            hits = cache.hits
            started = time.perf_counter()
            record = {"module": module, "target": target}
            try:
                report = synth.synthesize_verilog(verilog, module, target, timing=not args.no_timing, cache=cache,
                                                  cached_only=args.dry_run)
            except synth.SynthesisError as error:
                record["error"] = str(error)
            else:
                if report is None:
                    missing += 1
                    print(json.dumps({**record, "missing": True}), flush=True)
                    continue
                record.update(luts=report.luts, carry=report.carry, ffs=report.ffs,
                              lut_equivalents=report.lut_equivalents, fmax_mhz=report.fmax_mhz)
            record["seconds"] = round(time.perf_counter() - started, 1)
            record["cached"] = cache.hits > hits
            record["finished"] = time.strftime("%H:%M:%S")
            print(json.dumps(record), flush=True)
            if args.log:
                with open(args.log, "a") as log:
                    log.write(json.dumps(record) + "\n")
    if args.dry_run:
        print(f"{missing} of {len(configured) * len(targets)} not in the cache", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
