"""The compiled golden model (``hls.golden``) against the Python run, on the three applications.

    python benchmarks/golden_speed.py [--app image|ecg|tracking ...] [--config NAME ...] [--repeat N] [--warm]

For each application (``examples/apps/``) and configuration (``benchmarks/apps.py``'s
:data:`CONFIGS`: exact, and the kernels' ``*``/``//`` between variables replaced by
approximate units), on the application's full input (``default_input()``), in one
process:

* **compile**: seconds to translate and compile every kernel of the chain
  (``kernel.compiled_model()``). By default the C compiler's cache is a fresh
  temporary directory, so this is the real compile time; ``--warm`` uses the
  usual cache (``$AXHLS_CACHE_DIR``), where a rerun finds the shared objects;
* **kernels**: the seconds of one run of the chain's kernel calls, each on the
  arguments the application gives it (copied beforehand, outside the timing),
  through the Python run and through the compiled model, and their ratio;
* **chain**: the same for the application's whole ``run`` (its Python glue
  included: building the argument lists, reading the results back);
* ``exact`` says the compiled chain's outputs equal the Python run's, bit for bit.

Each time is the best of ``--repeat`` runs (default 5), for both models alike: the
machine is shared, and the minimum is the run least disturbed.

Target (issue 23): the compiled model at least 50x the Python run on each
application (the ``kernels`` ratio).
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.apps import APPS, CONFIG_NAMES, CONFIGS, app_module, configure  # noqa: E402

TARGET = 50.0


def best(function, repeat: int) -> float:
    """The fewest seconds of ``repeat`` calls of ``function()``."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def calls(runners, trace, repeat: int) -> float:
    """The best time of one pass of ``runners[i](**arguments_i)`` over the trace."""
    times = []
    for _ in range(repeat):
        copies = [copy.deepcopy(args) for _, args in trace]
        began = time.perf_counter()
        for runner, args in zip(runners, copies):
            runner(**args)
        times.append(time.perf_counter() - began)
    return min(times)


def measure(name: str, config: str, mapping, repeat: int) -> dict:
    app = app_module(name)
    data = app.default_input()
    kernels = configure(app.KERNELS, mapping)
    trace = []
    expected = app.run(kernels, data, trace)
    began = time.perf_counter()
    models = tuple(kernel.compiled_model() for kernel in kernels)
    compile_seconds = time.perf_counter() - began
    fallback = [f"{model.name}: {model.fallback_reason}" for model in models if not model.compiled]
    output = app.run(models, data)
    exact = bool((output == expected).all()) if hasattr(output, "all") else output == expected
    python_kernels = calls([kernel for kernel, _ in trace], trace, repeat)
    by_kernel = dict(zip(kernels, models))
    compiled_kernels = calls([by_kernel[kernel] for kernel, _ in trace], trace, repeat)
    python_chain = best(lambda: app.run(kernels, data), repeat)
    compiled_chain = best(lambda: app.run(models, data), repeat)
    return {"app": name, "config": config, "compile_s": compile_seconds, "python_s": python_kernels,
            "compiled_s": compiled_kernels, "ratio": python_kernels / compiled_kernels,
            "python_chain_s": python_chain, "compiled_chain_s": compiled_chain,
            "chain_ratio": python_chain / compiled_chain, "exact": exact, "fallback": fallback}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", action="append", choices=APPS, help="an application (default: all three)")
    parser.add_argument("--config", action="append", choices=CONFIG_NAMES,
                        help="a configuration of benchmarks/apps.py (default: all)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement, the best kept (default 5)")
    parser.add_argument("--warm", action="store_true", help="use the usual compile cache, not a fresh one")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    apps = args.app or list(APPS)
    configs = [(name, mapping) for name, mapping in CONFIGS if not args.config or name in args.config]
    with tempfile.TemporaryDirectory(prefix="axhls-golden-speed-") as cache:
        if not args.warm:
            os.environ["AXHLS_CACHE_DIR"] = cache
        print(f"{'app':9} {'config':38} {'compile s':>9} {'python s':>9} {'compiled s':>10} {'ratio':>7}  "
              f"{'chain: python s':>15} {'compiled s':>10} {'ratio':>6}  exact")
        worst = {}
        for name in apps:
            for config, mapping in configs:
                row = measure(name, config, mapping, args.repeat)
                worst[name] = min(worst.get(name, row["ratio"]), row["ratio"])
                print(f"{name:9} {config:38} {row['compile_s']:9.3f} {row['python_s']:9.5f} "
                      f"{row['compiled_s']:10.6f} {row['ratio']:6.0f}x  {row['python_chain_s']:15.5f} "
                      f"{row['compiled_chain_s']:10.6f} {row['chain_ratio']:5.0f}x  {row['exact']}", flush=True)
                for line in row["fallback"]:
                    print(f"  fallback to the Python run: {line}")
    failed = [name for name, ratio in worst.items() if ratio < TARGET]
    for name, ratio in worst.items():
        print(f"{name}: slowest configuration {ratio:.0f}x the Python run "
              f"({'meets' if ratio >= TARGET else 'misses'} the {TARGET:.0f}x target)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
