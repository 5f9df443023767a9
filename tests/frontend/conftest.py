import importlib.util
import itertools
import os
import sys
import textwrap

import pytest

# benchmarks/ is not an installed package; make `benchmarks.kernels` importable from the
# repository root (pyproject's pytest settings do not add it to the path).
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

_counter = itertools.count()


@pytest.fixture
def load_source(tmp_path):
    """Write ``source`` (a kernel file body; ``import hls`` and the shapes are prepended)
    to a fresh file and import it; returns ``(module, path)``."""

    def load(source: str, header: bool = True):
        text = textwrap.dedent(source)
        if header:
            text = "import hls\nfrom amaranth import signed, unsigned\n" + text
        path = tmp_path / f"kernels_{next(_counter)}.py"
        path.write_text(text)
        name = f"_frontend_test_{path.stem}_{id(tmp_path)}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module, str(path)

    return load
