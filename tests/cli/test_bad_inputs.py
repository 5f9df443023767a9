"""The table of bad inputs: each gets its exit status and one clear line, no traceback, no hang.

The rows live in ``tests/cli/bad_inputs_*.py`` (a list ``ROWS`` in each: the
kernel language, the unit commands, the kernel commands and the environment);
:mod:`bad_input_runner` runs one and says what a row holds.  A new command
adds its bad inputs to a row file, or a row file of its own.
"""

import importlib.util
from pathlib import Path

import pytest

from bad_input_runner import check_rows, run_row

HERE = Path(__file__).resolve().parent


def _row_files() -> dict[str, list[dict]]:
    tables = {}
    for path in sorted(HERE.glob("bad_inputs_*.py")):
        spec = importlib.util.spec_from_file_location(f"_rows_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        check_rows(module.ROWS, path.name)
        tables[path.name] = module.ROWS
    return tables


TABLES = _row_files()
ROWS = [row for rows in TABLES.values() for row in rows]


def test_row_ids_are_unique():
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_the_commands_table_has_its_rows():
    assert len(TABLES.get("bad_inputs_commands.py", [])) >= 40


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_bad_input(row, tmp_path):
    run_row(row, tmp_path)
