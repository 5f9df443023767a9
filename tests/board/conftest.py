import sys
from pathlib import Path

# benchmarks/ is not an installed package; board_kernels.py is imported by the tests of this directory.
sys.path.insert(0, str(Path(__file__).parents[2]))
sys.path.insert(0, str(Path(__file__).parent))
