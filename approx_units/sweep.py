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

import functools
import itertools
import json
import os
import sqlite3
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import artefacts

from . import evaluate as ev
from . import interrupts, progress as progress_bars, synth
from .registry import get as get_unit
from .registry import spec

__all__ = ["ErrorKey", "AreaKey", "UnknownParameterError", "grid", "error_job", "area_job", "ResultStore",
           "run_sweep", "table", "process_pool"]


class UnknownParameterError(ValueError):
    """A swept parameter that none of the selected units has.

    The message names the parameter and each unit's parameters, for example
    ``"q: no selected unit has it (loa: l, signed; drum: k, signed, width_b)"``.

    Attributes
    ----------
    parameter : str
    accepted : dict of str to list of str
        Each selected unit and the parameters it takes.
    """

    def __init__(self, parameter: str, accepted: dict[str, list[str]]):
        self.parameter = parameter
        self.accepted = accepted
        listed = "; ".join(f"{unit}: {', '.join(names)}" for unit, names in accepted.items())
        super().__init__(f"{parameter}: no selected unit has it ({listed})")


def parameters_of(units: list[str]) -> dict[str, list[str]]:
    """The parameters each unit takes, ``signed`` (and ``width_b`` where it applies) included, sorted."""
    return {name: sorted({p.name for p in spec(name).params} | {"signed"}
                         | ({"width_b"} if spec(name).non_square else set())) for name in units}


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

    def describe(self) -> str:
        """The job for a person: ``"error metrics of loa(l=2), 8 bits, exhaustive"``."""
        width_b = dict(self.params).get("width_b", self.width)
        if self.samples is None and self.width + width_b <= ev.DEFAULT_EXHAUSTIVE_BITS:
            sampling = "exhaustive"
        else:
            sampling = f"{'sampled' if self.samples is None else f'{self.samples} samples'}, seed {self.seed}"
        return f"error metrics of {_configuration(self.unit, self.params, self.width)}, {self.width} bits, {sampling}"


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

    def describe(self) -> str:
        """The job for a person: ``"synthesis of loa(l=2), 8 bits, 0 stages, on ecp5"``."""
        return f"synthesis of {_configuration(self.unit, self.params, self.width)}, {self.width} bits, " \
               f"{self.stages} stages, on {self.target}{'' if self.timing else ' (no place and route)'}"


def _configuration(unit: str, params: tuple, width: int) -> str:
    """``loa(l=2)``, ``drum(k=6, signed)``: what is not a default of the key's own (unsigned, square)."""
    shown = ["signed" if name == "signed" else f"{name}={value}" for name, value in params
             if not (name == "signed" and not value) and not (name == "width_b" and value == width)]
    return f"{unit}({', '.join(shown)})"


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

    Raises
    ------
    UnknownParameterError
        A parameter of ``params`` that no unit of ``units`` has (a typo would
        otherwise sweep the defaults and look like a result).
    """
    accepted_by = parameters_of(units)
    for parameter in params:
        if not any(parameter in accepted for accepted in accepted_by.values()):
            raise UnknownParameterError(parameter, accepted_by)
    error_keys, area_keys, rejected = {}, {}, []
    for name in units:
        accepted = set(accepted_by[name])
        own = {k: v for k, v in params.items() if k in accepted}
        for width in widths:
            for values in itertools.product(*own.values()):
                chosen = dict(zip(own, values))
                try:
                    unit = get_unit(name, width=width, **chosen)
                except ValueError as error:
                    rejected.append(f"{_configuration(name, tuple(chosen.items()), width)} at {width} bits: {error}")
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
    subject = ev.LibraryUnit(key.unit, key.width, 0, key.params)
    result = ev.evaluate(subject, samples=key.samples, seed=key.seed, workers=1, progress=False)
    return {"metrics": result.metrics, "ci95": result.ci95, "exhaustive": result.exhaustive,
            "samples": result.samples, "seconds": result.seconds}


def area_job(key: AreaKey, cache_directory: str | None = None) -> dict:
    """LUTs, FFs and Fmax of one configuration on one target.

    ``cache_directory`` is the synthesis cache's folder (default: the default cache).
    """
    unit = get_unit(key.unit, width=key.width, stages=key.stages, **dict(key.params))
    cache = synth.ResultCache(cache_directory)
    return synth.synthesize_unit(unit, key.target, timing=key.timing, cache=cache).to_dict()


class ResultStore:
    """The sweep's SQLite database: one row per finished job, keyed by the job's key.

    Parameters
    ----------
    path : path-like
        The database file; created with its tables if absent.  SQLite's own
        journal makes each :meth:`put` atomic, so an interrupted sweep leaves
        every finished row and no half of one.

    Raises
    ------
    artefacts.DestinationError
        If ``path`` is a folder, its folder is missing or cannot be written (SQLite
        keeps its journal beside the database), or the file cannot be written;
        checked before any job runs.
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
        self.path = self.check(path)
        try:
            self.connection = sqlite3.connect(self.path)
            self.connection.executescript(self.SCHEMA)
        except sqlite3.DatabaseError as error:
            raise ValueError(f"{path}: not a sweep results database ({error})") from None

    @staticmethod
    def check(path: str | Path) -> Path:
        """Check that a results database can be created or updated at ``path``.

        Raises
        ------
        artefacts.DestinationError
            See the class.
        """
        target = artefacts.check_file_destination(path)
        if target.exists() and not os.access(target, os.R_OK | os.W_OK):
            raise artefacts.DestinationError(path, "cannot write there: Permission denied")
        return target

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


def run_sweep(error_keys, area_keys, store: ResultStore, executor: Executor, *, log=None,
              cache_directory: str | None = None, progress: bool | None = None) -> dict:
    """Submit every job missing from ``store`` to ``executor`` and record each as it finishes.

    Returns a summary: ``{"jobs", "reused", "computed", "failed": [messages]}``.
    A failing job (for example a synthesis error) is reported and not recorded, so
    a later run retries it.  ``cache_directory`` is passed to every :func:`area_job`.
    ``log`` gets the amount of work up front, then a line per finished job;
    ``progress`` is a bar over the jobs to run, with tqdm's estimate of the time
    left (:func:`approx_units.progress.bar`; ``None``: when stderr is a terminal).
    """
    log = log or (lambda line: None)
    synthesise = functools.partial(area_job, cache_directory=cache_directory)
    pending = [(error_job, key) for key in error_keys if not store.done(key)] + \
              [(synthesise, key) for key in area_keys if not store.done(key)]
    total = len(error_keys) + len(area_keys)
    summary = {"jobs": total, "reused": total - len(pending), "computed": 0, "failed": []}
    to_synthesise = sum(function is synthesise for function, _ in pending)
    log(f"{total} jobs, {summary['reused']} already in the results database: {len(pending)} to run "
        f"({len(pending) - to_synthesise} error evaluations, {to_synthesise} synthesis runs)")
    futures = {}
    finished = 0
    # Deferred, so that Ctrl-C lands neither inside concurrent.futures nor half-way through a
    # row of the store.
    with artefacts.interrupts_deferred() as interrupt, \
            progress_bars.bar(len(pending), unit="job", description="sweep", enabled=progress) as bar:
        try:
            with interrupts.interrupts_held():   # a process_pool() forks its workers at the first submit
                futures = {executor.submit(function, key): key for function, key in pending}
            for future in interrupts.as_completed(futures, interrupt):
                key = futures[future]
                bar.update()
                try:
                    result = future.result()
                except Exception as error:  # a job's failure must not lose the others' results
                    summary["failed"].append(f"{key.text()}: {type(error).__name__}: {error}")
                    finished += 1
                    log(f"[{finished}/{len(pending)}] failed: {key.describe()}: {error}")
                    continue
                store.put(key, result)
                summary["computed"] += 1
                finished += 1
                log(f"[{finished}/{len(pending)}] {key.describe()}")
        finally:
            for future in futures:
                future.cancel()
    return summary


def process_pool(jobs: int | None = None) -> ProcessPoolExecutor:
    """A local pool of ``jobs`` worker processes (default: every core) that leave Ctrl-C to this one."""
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be a positive number of worker processes, not {jobs}")
    return ProcessPoolExecutor(max_workers=jobs, initializer=interrupts.ignore_interrupts)


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
