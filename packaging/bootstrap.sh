#!/usr/bin/env bash
# One entry point for a fresh Debian/Ubuntu machine (Python 3.11+):
#   bash packaging/bootstrap.sh gui    install, then launch the GUI on the bundled demo library
#   bash packaging/bootstrap.sh test   install everything, then run the whole test suite headless
# Qt's system libraries are installed with apt-get when we are root (or have password-less sudo);
# otherwise the missing ones are listed so you can install them yourself.
set -euo pipefail

MODE="${1:-gui}"
shift || true
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${ROCKSKILLS_VENV:-$ROOT/.venv}"

# Shared libraries the PySide6 wheels load (xcb for a real screen, EGL/GL, fonts for any text).
QT_SYSTEM_PACKAGES=(
  libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libfreetype6 libdbus-1-3
  libglib2.0-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-render-util0
  libxcb-image0 libxcb-randr0 libxcb-xinerama0 libx11-xcb1 fonts-dejavu-core
)

log() { printf '\033[1m[bootstrap]\033[0m %s\n' "$*" >&2; }

install_system_packages() {
  command -v dpkg-query >/dev/null 2>&1 || { log "not a Debian/Ubuntu system: skipping apt"; return 0; }
  local missing=() pkg alt
  for pkg in "${QT_SYSTEM_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      # Ubuntu 24.04 renamed some libraries with a t64 suffix.
      alt="${pkg}t64"
      dpkg-query -W -f='${Status}' "$alt" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    fi
  done
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then missing+=(python3-venv); fi
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      log "please install these system packages, then re-run: ${missing[*]}"
      return 0
    fi
  fi
  log "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  local installable=()
  for pkg in "${missing[@]}"; do
    if apt-cache show "$pkg" >/dev/null 2>&1; then installable+=("$pkg")
    elif apt-cache show "${pkg}t64" >/dev/null 2>&1; then installable+=("${pkg}t64")
    else log "not available here, skipped: $pkg"; fi
  done
  [ ${#installable[@]} -gt 0 ] && $sudo apt-get install -y -qq --no-install-recommends "${installable[@]}"
}

pick_python() {
  local candidate
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  log "Python 3.11 or newer is required"; exit 2
}

make_venv() {
  local extras="$1" py
  if [ ! -x "$VENV/bin/python" ]; then
    py="$(pick_python)"
    log "creating $VENV with $($py --version)"
    "$py" -m venv "$VENV"
  fi
  log "installing rockskills-gui$extras"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e "$ROOT$extras"
}

case "$MODE" in
  gui)
    install_system_packages
    make_venv ""
    exec "$VENV/bin/rockskills-gui" "$@"
    ;;
  test)
    install_system_packages
    make_venv "[test]"
    cd "$ROOT"
    export QT_QPA_PLATFORM=offscreen
    log "ruff"
    "$VENV/bin/ruff" check rockskills_gui tests resources
    log "import contracts (layers, no Qt in the core; see ARCHITECTURE.md)"
    "$VENV/bin/lint-imports"
    log "mypy (strict, the whole package)"
    "$VENV/bin/mypy"
    log "pytest"
    exec "$VENV/bin/python" -m pytest -q "$@"
    ;;
  *)
    log "usage: bash packaging/bootstrap.sh gui|test [args...]"; exit 2 ;;
esac
