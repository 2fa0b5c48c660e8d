#!/usr/bin/env bash
# Build the one-folder app with PyInstaller, then run the *built* binaries headless:
# --version of both programs, a screenshot of the main window on the bundled demo library, and
# a CLI lint of that library. Prints how long each step took.
#
#   bash packaging/build_and_smoke.sh [OUT_DIR]       (default OUT_DIR: build/smoke)
#
# Uses the project's virtual environment ($ROCKSKILLS_VENV, default .venv) and installs the
# "packaging" extra (PyInstaller) into it. Nothing is written to your home: the smoke run gets
# fresh config/data folders under OUT_DIR.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${ROCKSKILLS_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
OUT="$(realpath -m "${1:-$ROOT/build/smoke}")"
DIST="$ROOT/build/dist"
WORK="$ROOT/build/pyinstaller"
APP="$DIST/rockskills-gui"

log() { printf '\033[1m[build]\033[0m %s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ -x "$PY" ] || { log "no virtual environment at $VENV (run: bash packaging/bootstrap.sh test)"; exit 2; }
"$PY" -c 'import PyInstaller' 2>/dev/null || {
  log "installing the packaging extra (PyInstaller)"
  "$PY" -m pip install -q --disable-pip-version-check -e "$ROOT[packaging]"
}

t0="$(now)"
log "PyInstaller $("$PY" -m PyInstaller --version)"
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$DIST" --workpath "$WORK" "$ROOT/packaging/rockskills-gui.spec"
build_s="$(since "$t0")"
log "built $APP in ${build_s} s ($(du -sh "$APP" | cut -f1))"

rm -rf "$OUT"
mkdir -p "$OUT"
export QT_QPA_PLATFORM=offscreen
export ROCKSKILLS_CONFIG_DIR="$OUT/config" ROCKSKILLS_DATA_DIR="$OUT/data"
export PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring  # never the build machine's keyring

t1="$(now)"
gui_version="$("$APP/rockskills-gui" --version)"
cli_version="$("$APP/rockskills" --version)"
log "versions: $gui_version / $cli_version"
"$APP/rockskills-gui" --select research/fact-check --size 1400x900 --screenshot "$OUT/main.png"
"$APP/rockskills-gui" --theme dark --select research/fact-check --size 1400x900 \
  --screenshot "$OUT/main-dark.png"
smoke_s="$(since "$t1")"

# The screenshots are real PNGs of the requested size (read from the PNG header; no Qt needed).
"$PY" - "$OUT/main.png" "$OUT/main-dark.png" <<'PY'
import struct, sys
for name in sys.argv[1:]:
    with open(name, "rb") as handle:
        head = handle.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{name} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    assert (width, height) == (1400, 900), (name, width, height)
    print(f"{name}: {width}x{height} PNG")
PY
set +e
"$APP/rockskills" lint "$ROCKSKILLS_DATA_DIR/demo-library" >"$OUT/lint.txt"
lint_status=$?
set -e
[ "$lint_status" -le 1 ] || { log "rockskills lint failed ($lint_status)"; cat "$OUT/lint.txt"; exit 1; }
[ -s "$ROCKSKILLS_DATA_DIR/logs/rockskills-gui.log" ] || { log "the app wrote no log"; exit 1; }
log "smoke run (versions, two screenshots, lint) in ${smoke_s} s; total $(since "$t0") s"
echo "build_seconds=$build_s smoke_seconds=$smoke_s app=$APP screenshot=$OUT/main.png"
