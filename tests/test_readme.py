"""The README's Python snippets run as written, without a warning: they are what a new user copies."""

import dataclasses
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SNIPPETS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)


def test_the_readme_has_snippets():
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_runs_without_warnings(index, tmp_path):
    script = tmp_path / f"snippet{index}.py"
    script.write_text(SNIPPETS[index])
    result = subprocess.run([sys.executable, "-W", "always", str(script)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


# --- sample outputs and figures: generated, or named after what measured them ------------------

sys.path.insert(0, str(ROOT))
from benchmarks import docs_samples  # noqa: E402

DOCUMENTS = docs_samples.documents(ROOT)
SAMPLES = [sample for path in DOCUMENTS for sample in docs_samples.samples(path)]
#: A script or command named as a figure's source: `python benchmarks/x.py`, a marker, `axhls ...`.
SOURCE = re.compile(r"benchmarks/[\w/]+\.py|<!-- (?:measured|sample|figures)[^>]*-->")
#: Table headers whose columns hold measurements (as opposed to a language's rules or an API).
MEASUREMENT_HEADER = re.compile(r"MHz|LUT|\bFF\b|cycles|MRED|\bms\b|\bns\b|seconds|\btime\b|\btotal\b|\bratio\b|"
                                r"\bII\b|\bbits\b", re.IGNORECASE)
#: A cell that is a measured number (``0.523 %``, ``110.6``, ``**-44.3 %**``, ``85.0 / 67.2 s``).
FIGURE_CELL = re.compile(r"\|\s*\**[-+]?\d[\d.,]*(?:\s*(?:%|MHz|ms|s|ns))?\**[^|]*\|")


def _blocks_and_tables(path):
    """``(kind, line, text, text above it up to the previous heading)`` for every fenced
    block without a language (or ``json``; its first line) and every table of ``path`` (all of it)."""
    lines = path.read_text().splitlines()
    found, fence, index = [], None, 0
    section_start = 0
    while index < len(lines):
        line = lines[index]
        if fence is None and line.startswith("#"):
            section_start = index
        if line.startswith("```"):
            if fence is None:
                fence = line[3:].strip()
                if fence in ("", "json"):
                    found.append(("block", index + 1, lines[index + 1] if index + 1 < len(lines) else "",
                                  "\n".join(lines[section_start:index])))
            else:
                fence = None
        elif fence is None and line.lstrip().startswith("|"):
            start = index
            while index < len(lines) and lines[index].lstrip().startswith("|"):
                index += 1
            found.append(("table", start + 1, "\n".join(row.strip() for row in lines[start:index]),
                          "\n".join(lines[section_start:start])))
            continue
        index += 1
    return found


def test_the_docs_have_samples_and_each_names_a_command():
    assert len(SAMPLES) >= 4
    assert all(sample.command.startswith(("axhls ", "python ")) for sample in SAMPLES)


@pytest.mark.parametrize("sample", SAMPLES, ids=[f"{s.path.name}:{s.line}" for s in SAMPLES])
def test_sample_output_is_what_its_command_prints(sample):
    """Regenerate with `python benchmarks/docs_samples.py` when the compiler's reports change."""
    assert docs_samples.run(sample, ROOT) == sample.text, \
        f"{sample.path.name}:{sample.line} is stale: run python benchmarks/docs_samples.py"


FIGURE_TABLES = [table for path in DOCUMENTS for table in docs_samples.figure_tables(path)]


def test_the_unit_docs_have_tables_of_figures():
    assert {table.path.name for table in FIGURE_TABLES} >= {"units.md"}
    assert all(table.command.startswith("python benchmarks/docs_figures.py ") for table in FIGURE_TABLES)
    # The EvoApproxLib comparison is among them, so its 8-bit library MREDs are rerun below.
    assert {table.command.split()[-1] for table in FIGURE_TABLES if table.path.name == "units.md"} >= {
        "fpga-8bit", "mitchell-mred", "evoapproxlib-8", "evoapproxlib-8-buckets", "evoapproxlib-8-signed",
        "evoapproxlib-16", "evoapproxlib-16-buckets"}


def test_a_wrong_figure_or_verdict_in_the_comparison_does_not_survive_the_cheap_rerun():
    table = next(table for table in FIGURE_TABLES if table.command.endswith(" evoapproxlib-8"))
    row = next(line for line in table.text.splitlines() if line.startswith("| mul8u_R92 |"))
    cells = row.split(" | ")
    assert cells[5:] == ["0.523 %", "109", "met |"]                 # lut_mul t=5 meets mul8u_R92
    doctored = " | ".join([cells[0], cells[1], "100", *cells[3:5], "0.500 %", *cells[6:]])
    fresh = docs_samples.run_figures(dataclasses.replace(table, text=table.text.replace(row, doctored)), ROOT,
                                     cheap=True)
    # The library's MRED is measured again; the verdict follows from the circuit's 100 LUT-eq.
    assert " | ".join([cells[0], cells[1], "100", *cells[3:6], "109", "not met (+9 LUT-eq) |"]) in fresh


@pytest.mark.parametrize("table", FIGURE_TABLES, ids=[f"{t.path.name}:{t.line}" for t in FIGURE_TABLES])
def test_the_8_bit_figures_are_what_their_command_prints(table):
    """The exhaustive 8-bit error figures, recomputed (the others need synthesis or the EvoApproxLib mirror).
    Regenerate every figure with `python benchmarks/docs_samples.py --figures`."""
    assert docs_samples.run_figures(table, ROOT, cheap=True) == table.text, \
        f"{table.path.name}:{table.line} is stale: run python benchmarks/docs_samples.py --figures"


@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_every_output_block_is_generated_or_names_what_measured_it(path):
    """A fenced block without a language is output (code and diagrams are ```python, ```sh, ```text)."""
    lines = path.read_text().splitlines()
    for kind, line, _, _ in _blocks_and_tables(path):
        if kind == "block":
            above = lines[line - 2] if line >= 2 else ""
            assert docs_samples.MARKER.match(above) or docs_samples.MEASURED.match(above), \
                f"{path.name}:{line}: an output block needs <!-- sample: COMMAND --> or <!-- measured: SCRIPT -->"


@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_every_table_of_figures_names_the_script_that_measures_it(path):
    for kind, line, header, above in _blocks_and_tables(path):
        header, *rows = header.splitlines()
        if kind == "table" and MEASUREMENT_HEADER.search(header) and any(FIGURE_CELL.search(row) for row in rows):
            assert SOURCE.search(above), \
                f"{path.name}:{line}: a table of measurements needs its script named in its section above it"


@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_the_scripts_named_as_sources_exist(path):
    for script in sorted(set(re.findall(r"benchmarks/[\w/]+\.py", path.read_text()))):
        assert (ROOT / script).is_file(), f"{path.name} names {script}, which does not exist"
