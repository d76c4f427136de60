# Sourced by scripts/play and scripts/test: make .venv (if missing) and install the project.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "splitnet: creating .venv with $($py --version 2>&1)" >&2
  "$py" -m venv .venv
fi
stamp=.venv/.splitnet-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "splitnet: installing dependencies into .venv" >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >&2 || true
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[$extras]" >&2
  touch "$stamp"
fi
