"""Grid sweeps (units x parameters x widths x stages x targets) that resume.

A sweep is two kinds of job, each a plain function of a small picklable key:

* an *error* job per ``(unit, width, params)``, since stages and targets do
  not change a unit's function (:func:`error_job`);
* an *area* job per ``(unit, width, params, stages, target)`` (:func:`area_job`).

Jobs run through any :class:`concurrent.futures.Executor`: a local process
pool by default, or a Dask cluster's (``distributed.Client(address).get_executor()``).
Only this process writes the results, into an SQLite database, one committed
row per finished job; so an interrupted sweep keeps what it finished, and a
second run submits only what is missing (a full re-run computes nothing).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ErrorKey", "AreaKey", "grid", "error_job", "area_job", "ResultStore", "run_sweep",
           "register_cli"]


@dataclass(frozen=True)
class ErrorKey:
    """One unit configuration's error evaluation."""
    unit: str
    width: int
    params: tuple
    samples: int | None
    seed: int

    def text(self) -> str:
        return json.dumps(["error", self.unit, self.width, list(map(list, self.params)), self.samples,
                           self.seed])


@dataclass(frozen=True)
class AreaKey:
    """One unit configuration's synthesis on one target."""
    unit: str
    width: int
    params: tuple
    stages: int
    target: str
    timing: bool

    def text(self) -> str:
        return json.dumps(["area", self.unit, self.width, list(map(list, self.params)), self.stages,
                           self.target, self.timing])


def grid(units: list[str], params: dict[str, list], widths: list[int], stages: list,
         targets: list[str], *, samples: int | None = None, seed: int = 0, timing: bool = True):
    """The jobs of a sweep and the configurations that were ruled out.

    Each unit takes the parameters of ``params`` that it has (others are ignored
    for it) over every combination of values; ``stages`` holds integers or
    ``"rec"`` (the unit's recommended depth at that width).

    Returns
    -------
    (list of ErrorKey, list of AreaKey, list of str)
        The last list explains each configuration rejected by the unit's checks.
    """
    import approx_units
    from approx_units.unit import spec
    error_keys, area_keys, rejected = {}, {}, []
    for name in units:
        accepted = {p.name for p in spec(name).params} | {"signed"}
        own = {k: v for k, v in params.items() if k in accepted}
        for width in widths:
            for values in itertools.product(*own.values()):
                chosen = dict(zip(own, values))
                try:
                    unit = approx_units.get(name, width=width, **chosen)
                except ValueError as error:
                    rejected.append(f"{name} width={width} {chosen}: {error}")
                    continue
                frozen = tuple(sorted(unit.params.items()))
                error_key = ErrorKey(name, width, frozen, samples, seed)
                error_keys[error_key] = None
                for depth in stages:
                    depth = unit.recommended_stages if depth == "rec" else depth
                    for target in targets:
                        area_keys[AreaKey(name, width, frozen, depth, target, timing)] = None
    return list(error_keys), list(area_keys), rejected


def error_job(key: ErrorKey) -> dict:
    """Error metrics of one configuration (in this process: the sweep parallelises across jobs)."""
    from . import evaluate as ev
    subject = ev.LibraryUnit(key.unit, key.width, 0, key.params)
    result = ev.evaluate(subject, samples=key.samples, seed=key.seed, workers=1, progress=False)
    return {"metrics": result.metrics, "ci95": result.ci95, "exhaustive": result.exhaustive,
            "samples": result.samples, "seconds": result.seconds}


def area_job(key: AreaKey) -> dict:
    """LUTs, FFs and Fmax of one configuration on one target."""
    import approx_units
    from . import synth
    unit = approx_units.get(key.unit, width=key.width, stages=key.stages, **dict(key.params))
    return synth.synthesize_unit(unit, key.target, timing=key.timing).to_dict()


class ResultStore:
    """The sweep's SQLite database: one row per finished job, keyed by the job's key.

    Parameters
    ----------
    path : path-like
        The database file; created with its tables if absent.

    Raises
    ------
    ValueError
        If the file exists but is not an SQLite database of this format.
    """

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS errors (key TEXT PRIMARY KEY, unit TEXT, width INTEGER, params TEXT,
                                       result TEXT, finished REAL);
    CREATE TABLE IF NOT EXISTS areas (key TEXT PRIMARY KEY, unit TEXT, width INTEGER, params TEXT,
                                      stages INTEGER, target TEXT, result TEXT, finished REAL);
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.connection = sqlite3.connect(self.path)
            self.connection.executescript(self.SCHEMA)
        except sqlite3.DatabaseError as error:
            raise ValueError(f"{self.path}: not a sweep results database ({error})") from None

    def close(self) -> None:
        self.connection.close()

    def done(self, key) -> bool:
        table = "errors" if isinstance(key, ErrorKey) else "areas"
        return self.connection.execute(f"SELECT 1 FROM {table} WHERE key = ?", (key.text(),)).fetchone() is not None

    def put(self, key, result: dict) -> None:
        params = json.dumps(dict(key.params))
        payload = json.dumps(result, allow_nan=True)
        with self.connection:               # one transaction per row: all of it or nothing
            if isinstance(key, ErrorKey):
                self.connection.execute("INSERT OR REPLACE INTO errors VALUES (?, ?, ?, ?, ?, ?)",
                                        (key.text(), key.unit, key.width, params, payload, time.time()))
            else:
                self.connection.execute("INSERT OR REPLACE INTO areas VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                        (key.text(), key.unit, key.width, params, key.stages, key.target,
                                         payload, time.time()))

    def get(self, key) -> dict | None:
        table = "errors" if isinstance(key, ErrorKey) else "areas"
        row = self.connection.execute(f"SELECT result FROM {table} WHERE key = ?", (key.text(),)).fetchone()
        return json.loads(row[0]) if row else None


def run_sweep(error_keys, area_keys, store: ResultStore, executor: Executor, *, log=None) -> dict:
    """Submit every job missing from ``store`` to ``executor`` and record each as it finishes.

    Returns a summary: ``{"jobs", "reused", "computed", "failed": [messages]}``.
    A failing job (for example a synthesis error) is reported and not recorded, so
    a later run retries it.
    """
    log = log or (lambda line: None)
    pending = [(error_job, key) for key in error_keys if not store.done(key)] + \
              [(area_job, key) for key in area_keys if not store.done(key)]
    total = len(error_keys) + len(area_keys)
    summary = {"jobs": total, "reused": total - len(pending), "computed": 0, "failed": []}
    futures = {executor.submit(function, key): key for function, key in pending}
    try:
        for future in as_completed(futures):
            key = futures[future]
            try:
                result = future.result()
            except Exception as error:  # a job's failure must not lose the others' results
                summary["failed"].append(f"{key.text()}: {type(error).__name__}: {error}")
                log(f"failed {key.text()}: {error}")
                continue
            store.put(key, result)
            summary["computed"] += 1
            log(f"done {key.text()}")
    finally:
        for future in futures:
            future.cancel()
    return summary


def table(error_keys, area_keys, store: ResultStore) -> list[dict]:
    """One row per area configuration (or per error configuration without targets), joined."""
    rows = []
    errors = {(k.unit, k.width, k.params): store.get(k) for k in error_keys}
    for key in area_keys:
        error = errors.get((key.unit, key.width, key.params))
        area = store.get(key)
        rows.append({"unit": key.unit, "width": key.width, "params": dict(key.params), "stages": key.stages,
                     "target": key.target, "metrics": error["metrics"] if error else None,
                     "area": area})
    if not area_keys:
        for key in error_keys:
            error = errors[(key.unit, key.width, key.params)]
            rows.append({"unit": key.unit, "width": key.width, "params": dict(key.params),
                         "metrics": error["metrics"] if error else None})
    return rows


# --- command line -----------------------------------------------------------------------------

def _split(text: str, option: str, convert=str) -> list:
    from .cli import _error
    try:
        return [convert(part.strip()) for part in text.split(",") if part.strip()]
    except ValueError:
        raise _error(f"{option} expects comma-separated values, got {text!r}") from None


def _connect_dask(address: str, timeout: float):
    from .cli import _error
    try:
        from distributed import Client
    except ModuleNotFoundError:
        raise _error("--dask needs the 'distributed' package: pip install 'axhls[sweep]'") from None
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise _error(f"--dask {address}: cannot connect to the Dask scheduler ({detail})") from None


def _sweep_command(args) -> int:
    import approx_units
    from . import synth
    from .cli import _error, _print_json
    units = _split(args.units, "--units")
    for name in units:
        if name not in approx_units.names():
            raise _error(f"--units: unknown unit {name!r}; known units: {', '.join(approx_units.names())}")
    params = {}
    for text in args.param or []:
        name, sep, values = text.partition("=")
        if not sep or not name:
            raise _error(f"--param expects NAME=V1,V2,..., got {text!r}")
        params[name] = [v == "true" if v in ("true", "false") else v
                        for v in _split(values, f"--param {name}")]
        try:
            params[name] = [v if isinstance(v, bool) else int(v, 0) for v in params[name]]
        except ValueError:
            raise _error(f"--param {name}: values must be integers or true/false, got {values!r}") from None
    widths = _split(args.widths, "--widths", int)
    stages = [s if s == "rec" else int(s) for s in _split(args.stages, "--stages")] \
        if all(s == "rec" or s.lstrip("-").isdigit() for s in _split(args.stages, "--stages")) else None
    if stages is None:
        raise _error(f"--stages expects integers or 'rec', got {args.stages!r}")
    targets = [] if args.targets == "none" else _split(args.targets, "--targets")
    for target in targets:
        if target not in synth.TARGETS:
            raise _error(f"--targets: unknown target {target!r}; choose from {', '.join(synth.TARGETS)} or none")
    try:
        error_keys, area_keys, rejected = grid(units, params, widths, stages, targets, samples=args.samples,
                                               seed=args.seed, timing=not args.no_timing)
    except ValueError as error:
        raise _error(str(error)) from None
    if not error_keys:
        raise _error("the grid is empty: " + ("; ".join(rejected[:3]) or "no configuration"))
    try:
        store = ResultStore(args.db)
    except ValueError as error:
        raise _error(str(error)) from None
    log = None if args.json else (lambda line: print(line, file=sys.stderr))
    client = None
    try:
        if args.dask:
            client = _connect_dask(args.dask, args.connect_timeout)
            executor = client.get_executor()
        else:
            executor = ProcessPoolExecutor(max_workers=args.jobs)
        try:
            summary = run_sweep(error_keys, area_keys, store, executor, log=log)
        finally:
            if client is None:
                executor.shutdown(cancel_futures=True)
        rows = table(error_keys, area_keys, store)
    finally:
        store.close()
        if client is not None:
            client.close()
    summary.update({"db": str(args.db), "rejected": rejected, "rows": rows})
    if args.json:
        _print_json(summary)
    else:
        print(f"{summary['jobs']} jobs: {summary['computed']} computed, {summary['reused']} reused from "
              f"{args.db}, {len(summary['failed'])} failed, {len(rejected)} configurations rejected")
        for row in rows:
            metrics, area = row.get("metrics") or {}, row.get("area") or {}
            params = ",".join(f"{k}={v}" for k, v in row["params"].items() if k != "signed")
            where = f" s{row['stages']} {row['target']}: {area.get('luts')} LUTs {area.get('fmax_mhz')} MHz" \
                if "target" in row else ""
            print(f"  {row['unit']}({params}) w{row['width']}{where}  mred={metrics.get('mred')}")
    return 1 if summary["failed"] else 0


def register_cli(commands) -> None:
    parser = commands.add_parser("sweep", help="a grid of configurations into an SQLite database, resumable")
    parser.add_argument("--units", required=True, help="comma-separated unit ids")
    parser.add_argument("--param", action="append", metavar="NAME=V1,V2",
                        help="parameter values to combine (repeatable); units without it ignore it")
    parser.add_argument("--widths", default="8", help="comma-separated widths (default 8)")
    parser.add_argument("--stages", default="0", help="comma-separated stage counts or 'rec' (default 0)")
    parser.add_argument("--targets", default="ecp5", help="comma-separated targets, or 'none' (default ecp5)")
    parser.add_argument("--samples", type=int, help="Monte Carlo pairs (default: exhaustive up to 2 x 12 bits)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-timing", action="store_true", help="skip place and route (no Fmax)")
    parser.add_argument("--db", type=Path, default=Path("sweep.sqlite"), help="results database")
    parser.add_argument("--jobs", type=int, default=None, help="local worker processes (default: every core)")
    parser.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--connect-timeout", type=float, default=5.0, metavar="SECONDS",
                        help="how long to try reaching the Dask scheduler (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=_sweep_command)
