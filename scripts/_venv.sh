# Shared by scripts/test, scripts/demo and scripts/package-check: find Python >= 3.11, create .venv
# (PYLON_VENV names another folder), install pylon.
# Idempotent: re-running only reinstalls when pyproject.toml changed since the last install.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="${PYLON_VENV:-$ROOT/.venv}"

find_python() {
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3 python; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  echo "error: pylon needs Python 3.11 or newer on PATH (or set PYTHON=/path/to/python3.11)." >&2
  return 1
}

find_python_version() {  # $1: "3.12": the path of a working python3.12 (PATH, then pyenv's installs)
  local want="$1" candidate
  for candidate in "python$want" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$want".*/bin/"python$want"; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       [ "$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$want" ]; then
      command -v "$candidate"; return 0
    fi
  done
  return 1
}

ensure_venv() {  # $1: extras: "" (plain), "test" (the default tier's) or "full" (test's and the full tier's)
  local extras="$1" spec="$ROOT" stamp wider other
  command -v git >/dev/null 2>&1 || { echo "error: git is required." >&2; return 1; }
  if [ ! -x "$VENV/bin/python" ]; then
    local py; py=$(find_python)
    echo "Creating $VENV with $("$py" --version)" >&2
    "$py" -m venv "$VENV"
  fi
  [ -n "$extras" ] && spec="$ROOT[$extras]"
  stamp="$VENV/.pylon-installed-$extras"
  # A wider install serves a narrower one: full holds test, test holds the plain install (the demo
  # after the tests).
  case "$extras" in "") wider="test full" ;; test) wider="full" ;; *) wider="" ;; esac
  for other in $wider; do
    if [ ! -f "$stamp" ] && [ -f "$VENV/.pylon-installed-$other" ] && [ ! "$ROOT/pyproject.toml" -nt "$VENV/.pylon-installed-$other" ]; then
      stamp="$VENV/.pylon-installed-$other"
    fi
  done
  if [ ! -f "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ] || ! "$VENV/bin/python" -c 'import pylon' 2>/dev/null; then
    echo "Installing pylon into $VENV ..." >&2
    # Only a pip too old for an editable install from pyproject.toml (PEP 660, pip 21.3) is upgraded
    # first: the upgrade asks the package index each time (seconds, and nothing without a network).
    if ! "$VENV/bin/python" -c 'import sys, pip; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (21, 3))' 2>/dev/null; then
      "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec" 2>&1 | grep -v "^WARNING: Location" >&2 || true
    "$VENV/bin/python" -c 'import pylon' || { echo "error: installing pylon failed (see above)." >&2; return 1; }
    touch "$stamp"
  fi
}
