"""The table of ``axhls units`` bad inputs (``tests/cli/bad_inputs_units.py``), run with every other
table by ``tests/cli/test_bad_inputs.py``: here, what the table itself must hold."""

import importlib.util
from pathlib import Path


def _rows():
    # Loaded by path: the table is data beside this file, not a module of a package.
    path = Path(__file__).with_name("bad_inputs_units.py")
    spec = importlib.util.spec_from_file_location("bad_inputs_units", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ROWS


def test_the_table_is_large_and_its_ids_unique():
    rows = _rows()
    ids = [row["id"] for row in rows]
    assert len(ids) >= 60
    assert len(set(ids)) == len(ids)
    assert all(row["argv"][0] == "units" for row in rows)
