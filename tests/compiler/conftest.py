import os
import sys

# The kernels these tests compile live next to them; benchmarks/ is not an installed
# package, so make `benchmarks.kernels` importable from the repository root; and
# tests/sim's helpers (`sim_helpers.require_simulator`) serve the Icarus runs here too.
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for path in (HERE, ROOT, os.path.join(os.path.dirname(HERE), "sim")):
    if path not in sys.path:
        sys.path.insert(0, path)
