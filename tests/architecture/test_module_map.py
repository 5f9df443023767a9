"""``docs/architecture.md``'s module map names every module of the source tree, and nothing else."""

from __future__ import annotations

import re

from test_import_graph import ROOT, _modules

MAP = ROOT / "docs" / "architecture.md"

#: A row of the map: the module, in backquotes, in the first column.
ROW = re.compile(r"^\|\s*`([A-Za-z_][\w.]*)`\s*\|")


def _mapped_modules() -> list[str]:
    """The module of every row of the section ``## Module map``, in order."""
    lines = MAP.read_text().splitlines()
    start = lines.index("## Module map")
    section = []
    for line in lines[start + 1:]:
        if re.match(r"^#{1,2} ", line):
            break
        section.append(line)
    return [match.group(1) for match in map(ROW.match, section) if match]


def test_the_map_is_found():
    assert {"hls.kernel", "sim.kernel", "approx_units.registry", "axhls.cli", "artefacts"} <= set(_mapped_modules())


def test_every_module_is_in_the_map_once_and_every_row_is_a_module():
    mapped = _mapped_modules()
    modules = set(_modules())
    missing = sorted(modules - set(mapped))
    absent = sorted(set(mapped) - modules)
    twice = sorted({name for name in mapped if mapped.count(name) > 1})
    assert not missing, f"modules missing from the map in {MAP.name}: {', '.join(missing)}"
    assert not absent, f"rows of {MAP.name}'s map that name no module: {', '.join(absent)}"
    assert not twice, f"modules listed twice in {MAP.name}'s map: {', '.join(twice)}"
