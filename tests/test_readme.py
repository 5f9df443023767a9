"""The README's Python snippets run as written, without a warning: they are what a new user copies."""

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
