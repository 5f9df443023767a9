"""The explorer's SQLite store: every evaluated assignment of a space, so that a re-run skips it.

One row per (space digest, selection); each row is committed as it is written, so a
search stopped by Ctrl-C leaves every finished evaluation in the store and the next
run (same seed) replays them from it without running them again.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

__all__ = ["EvaluationStore"]


class EvaluationStore:
    """Evaluations keyed by space and selection.

    Parameters
    ----------
    path : path-like or None
        The SQLite file (created with its table); ``None`` keeps them in memory.
    space : str
        The space's digest (:meth:`hls.explore.space.Space.digest`).
    """

    def __init__(self, path, space: str):
        self.path = None if path is None else Path(path)
        self.space = space
        self.connection = sqlite3.connect(":memory:" if path is None else str(path))
        self.connection.execute("CREATE TABLE IF NOT EXISTS evaluations (space TEXT NOT NULL, selection TEXT NOT NULL, "
                                "metrics TEXT NOT NULL, lut_equivalents REAL NOT NULL, "
                                "PRIMARY KEY (space, selection))")
        self.connection.commit()
        self.hits = 0

    @staticmethod
    def _key(selection) -> str:
        return ",".join(str(int(index)) for index in selection)

    def get(self, selection) -> tuple[dict, float] | None:
        row = self.connection.execute("SELECT metrics, lut_equivalents FROM evaluations WHERE space = ? AND selection = ?",
                                      (self.space, self._key(selection))).fetchone()
        if row is None:
            return None
        self.hits += 1
        return json.loads(row[0]), row[1]

    def put(self, selection, metrics: dict, lut_equivalents: float) -> None:
        with self.connection:
            self.connection.execute("INSERT OR REPLACE INTO evaluations VALUES (?, ?, ?, ?)",
                                    (self.space, self._key(selection), json.dumps(metrics, sort_keys=True),
                                     float(lut_equivalents)))

    def all(self) -> list[tuple[tuple, dict, float]]:
        """Every evaluation of the space: ``(selection, metrics, lut_equivalents)``, in selection order."""
        rows = self.connection.execute("SELECT selection, metrics, lut_equivalents FROM evaluations WHERE space = ? "
                                       "ORDER BY selection", (self.space,)).fetchall()
        return [(tuple(int(i) for i in key.split(",")), json.loads(metrics), lut) for key, metrics, lut in rows]

    def __len__(self) -> int:
        return self.connection.execute("SELECT COUNT(*) FROM evaluations WHERE space = ?", (self.space,)).fetchone()[0]

    def close(self) -> None:
        self.connection.close()
