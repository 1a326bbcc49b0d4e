#!/usr/bin/env bash
# Set up MM Studio in this checkout and run the main job on the demo prompt.
#
#   scripts/setup.sh            set up, then generate demo-project/ from resources/demo/prompt.txt
#   scripts/setup.sh --no-demo  set up only (the test command uses this)
#
# Makes .venv/ (Python deps + this package, editable), installs the npm deps (ECharts, the Iconify
# icon sets of the offline pictures) and copies them into resources/vendor/, and finds a Chromium
# for Playwright: Playwright's own download where that works, else the system's chromium,
# installing Debian's package when running as root.
set -euo pipefail
cd "$(dirname "$0")/.."

demo=1
[ "${1:-}" = "--no-demo" ] && demo=0
say() { printf '==> %s\n' "$*" >&2; }
as_root_on_debian() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_updated=0
apt_install() {
  [ "$apt_updated" = 1 ] || { apt-get update -qq >&2; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

# --- Python ------------------------------------------------------------------------------
python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || {
  echo "error: MM Studio needs Python 3.11 or newer as \$PYTHON or python3" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  "$python" -m venv .venv || { as_root_on_debian && apt_install python3-venv && "$python" -m venv .venv; }
fi
stamp=.venv/.mmstudio-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  say "installing Python packages (first run downloads PySide6, Playwright, …)"
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
  touch "$stamp"
fi

# --- npm (ECharts, vendored into generated sites) -----------------------------------------
if ! command -v npm >/dev/null 2>&1; then
  if as_root_on_debian; then say "installing Node.js and npm"; apt_install nodejs npm
  else echo "error: npm not found; install Node.js (it brings npm) and run this again" >&2; exit 1; fi
fi
# the Iconify JSON icon sets the offline designer draws its motifs from (resources/motifs/)
icon_sets="fluent-emoji-flat noto openmoji game-icons tabler"
missing_set=0
for icon_set in $icon_sets; do [ -f "node_modules/@iconify-json/$icon_set/icons.json" ] || missing_set=1; done
if [ ! -f node_modules/echarts/dist/echarts.min.js ] || [ "$missing_set" = 1 ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
mkdir -p resources/vendor/iconify
cp node_modules/echarts/dist/echarts.min.js resources/vendor/echarts.min.js
for icon_set in $icon_sets; do cp -u "node_modules/@iconify-json/$icon_set/icons.json" "resources/vendor/iconify/$icon_set.json"; done

# --- a Chromium for Playwright ---------------------------------------------------------------
have_browser() { .venv/bin/python -c 'from mmstudio.render import find_browser as f; import sys; sys.exit(f().executable is None)' 2>/dev/null; }
if ! have_browser; then
  say "installing Chromium for Playwright"
  if ! timeout 600 .venv/bin/python -m playwright install chromium >/dev/null 2>&1; then
    if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
      if as_root_on_debian; then say "Playwright's download failed; installing Debian's chromium"; apt_install chromium fonts-liberation
      else echo "warning: no Chromium found: run 'python -m playwright install chromium' or install your system's chromium" >&2; fi
    fi
  fi
fi
have_browser || echo "warning: no usable Chromium; rendering and evaluation will not work (see mmstudio doctor)" >&2

# --- the X libraries the desktop app's Qt xcb plugin needs (not part of the PySide6 wheel) -----
# ldd names what the plugin (and QtWebEngine) cannot find; nothing is installed when all are there.
qt_dir=$(.venv/bin/python -c 'import PySide6, os; print(os.path.join(os.path.dirname(PySide6.__file__), "Qt"))' 2>/dev/null || true)
missing_qt_libs() {
  [ -n "$qt_dir" ] || return 0
  for lib in "$qt_dir/plugins/platforms/libqxcb.so" "$qt_dir/lib/libQt6XcbQpa.so.6" "$qt_dir/lib/libQt6WebEngineCore.so.6"; do
    [ -f "$lib" ] && ldd "$lib" 2>/dev/null | awk '/not found/ {print $1}'
  done | sort -u
}
if [ -n "$qt_dir" ] && [ -n "$(missing_qt_libs)" ]; then
  if as_root_on_debian; then
    say "installing the X libraries of the desktop app: $(missing_qt_libs | tr '\n' ' ')"
    apt_install libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 \
      libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libxkbcommon-x11-0 \
      libxkbcommon0 libegl1 libgl1 libfontconfig1 libdbus-1-3 libnss3 libxcomposite1 \
      libxdamage1 libxrandr2 libxtst6 libxkbfile1 libxshmfence1 libgbm1
    [ -z "$(missing_qt_libs)" ] || echo "warning: still missing for the desktop app: $(missing_qt_libs | tr '\n' ' ')" >&2
  else
    echo "warning: the desktop app cannot open a window under X: missing $(missing_qt_libs | tr '\n' ' ')" >&2
    echo "  Debian/Ubuntu: sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0 libxcb-xkb1 libxkbcommon-x11-0" >&2
  fi
fi

say "set-up done: $(.venv/bin/mmstudio --version)"
[ "$demo" = 1 ] || exit 0

# --- the main job on the demo prompt ----------------------------------------------------------
if [ -e demo-project/mmstudio.json ]; then
  say "demo-project/ exists and is kept (your changes are in it); remove it to generate it again"
  .venv/bin/mmstudio history demo-project
  printf '  site:   %s\n  report: %s\n' "$PWD/demo-project/site/index.html" "$PWD/demo-project/report.json"
  exit 0
fi
.venv/bin/mmstudio new demo-project --prompt-file resources/demo/prompt.txt
