"""``axhls units sweep``: a grid of configurations into an SQLite database, resumable."""

from __future__ import annotations

from pathlib import Path

import approx_units
from approx_units import sweep, synth

from .arguments import integer, positive_number
from .command import CommandError, print_json
from .progress_options import add_progress_option, progress_wanted, stderr_log
from .units_cache import open_cache

__all__ = ["register", "run_sweep_command"]


def _split(text: str, option: str, convert=str) -> list:
    try:
        return [convert(part.strip()) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError(f"{option} expects comma-separated values, got {text!r}") from None


def _connect_dask(address: str, timeout: float):
    try:
        from distributed import Client     # optional (the `sweep` extra) and only for --dask
    except ModuleNotFoundError:
        raise CommandError("--dask needs the 'distributed' package: pip install 'axhls[sweep]'") from None
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CommandError(f"--dask {address}: cannot connect to the Dask scheduler ({detail})") from None


def run_sweep_command(args) -> int:
    units = _split(args.units, "--units")
    for name in units:
        if name not in approx_units.names():
            raise CommandError(f"--units: unknown unit {name!r}; known units: {', '.join(approx_units.names())}")
    params = {}
    for text in args.param or []:
        name, sep, values = text.partition("=")
        if not sep or not name:
            raise CommandError(f"--param expects NAME=V1,V2,..., got {text!r}")
        params[name] = [v == "true" if v in ("true", "false") else v
                        for v in _split(values, f"--param {name}")]
        try:
            params[name] = [v if isinstance(v, bool) else int(v, 0) for v in params[name]]
        except ValueError:
            raise CommandError(f"--param {name}: values must be integers or true/false, got {values!r}") from None
    widths = _split(args.widths, "--widths", int)
    stages = [s if s == "rec" else int(s) for s in _split(args.stages, "--stages")] \
        if all(s == "rec" or s.lstrip("-").isdigit() for s in _split(args.stages, "--stages")) else None
    if stages is None:
        raise CommandError(f"--stages expects integers or 'rec', got {args.stages!r}")
    targets = [] if args.targets == "none" else _split(args.targets, "--targets")
    for target in targets:
        if target not in synth.TARGETS:
            raise CommandError(f"--targets: unknown target {target!r}; choose from {', '.join(synth.TARGETS)} or none")
    # Where the results go is checked before any job runs (DestinationError: one line, exit 2).
    sweep.ResultStore.check(args.db)
    cache_directory = str(Path(args.cache_dir) / "synth") if args.cache_dir else None
    if targets and not args.dask:
        open_cache(args.cache_dir)        # the local workers' synthesis cache
    try:
        error_keys, area_keys, rejected = sweep.grid(units, params, widths, stages, targets, samples=args.samples,
                                               seed=args.seed, timing=not args.no_timing)
    except sweep.UnknownParameterError as error:
        raise CommandError(f"--param {error}") from None
    except ValueError as error:
        raise CommandError(str(error)) from None
    if not error_keys:
        raise CommandError("the grid is empty: " + ("; ".join(rejected[:3]) or "no configuration"))
    try:
        store = sweep.ResultStore(args.db)
    except ValueError as error:
        raise CommandError(str(error)) from None
    log = stderr_log(args)
    client = None
    try:
        if args.dask:
            client = _connect_dask(args.dask, args.connect_timeout)
            executor = client.get_executor()
        else:
            executor = sweep.process_pool(args.jobs)
        try:
            summary = sweep.run_sweep(error_keys, area_keys, store, executor, log=log,
                                      cache_directory=cache_directory, progress=progress_wanted(args))
        finally:
            if client is None:
                executor.shutdown(cancel_futures=True)
        rows = sweep.table(error_keys, area_keys, store)
    finally:
        store.close()
        if client is not None:
            client.close()
    summary.update({"db": str(args.db), "rejected": rejected, "rows": rows})
    if args.json:
        print_json(summary)
    else:
        print(f"{summary['jobs']} jobs: {summary['computed']} computed, {summary['reused']} reused from "
              f"{args.db}, {len(summary['failed'])} failed, {len(rejected)} configurations rejected")
        for row in rows:
            metrics, area = row.get("metrics") or {}, row.get("area") or {}
            params = ",".join(f"{k}={v}" for k, v in row["params"].items() if k != "signed")
            where = f" s{row['stages']} {row['target']}: {area.get('luts')} LUTs, Fmax {synth.fmax_text(area.get('fmax_mhz'))}" \
                if "target" in row else ""
            mred = metrics.get("mred")
            print(f"  {row['unit']}({params}) w{row['width']}{where}  mred={'-' if mred is None else f'{mred:.6g}'}")
    return 1 if summary["failed"] else 0


def register(commands) -> None:
    parser = commands.add_parser("sweep", help="a grid of configurations into an SQLite database, resumable")
    parser.add_argument("--units", required=True, help="comma-separated unit ids")
    parser.add_argument("--param", action="append", metavar="NAME=V1,V2",
                        help="parameter values to combine (repeatable); units without it ignore it")
    parser.add_argument("--widths", default="8", help="comma-separated widths (default 8)")
    parser.add_argument("--stages", default="0", help="comma-separated stage counts or 'rec' (default 0)")
    parser.add_argument("--targets", default="ecp5", help="comma-separated targets, or 'none' (default ecp5)")
    parser.add_argument("--samples", type=integer(1), help="Monte Carlo pairs (default: exhaustive up to 16 x 16 bits)")
    parser.add_argument("--seed", type=integer(0), default=0, help="Monte Carlo seed (default 0)")
    parser.add_argument("--no-timing", action="store_true", help="skip place and route (no Fmax)")
    parser.add_argument("--db", type=Path, default=Path("sweep.sqlite"), help="results database")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help="synthesis result cache (default ~/.cache/axhls; on a Dask cluster, the workers')")
    parser.add_argument("--jobs", type=integer(1), default=None, help="local worker processes (default: every core)")
    parser.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--connect-timeout", type=positive_number, default=5.0, metavar="SECONDS",
                        help="how long to try reaching the Dask scheduler (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress_option(parser)
    parser.set_defaults(handler=run_sweep_command)
