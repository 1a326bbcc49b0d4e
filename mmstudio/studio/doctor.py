"""``mmstudio doctor``: is everything the product needs installed and working?"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmstudio.project.errors import one_line
from mmstudio.resources import data_dir, vendor_file

if TYPE_CHECKING:
    from mmstudio.providers.settings import Settings


@dataclass(frozen=True)
class Check:
    """One finding of ``mmstudio doctor``: what was checked (``name``), whether it works
    (``ok``) and one line saying what was found or what is wrong (``detail``)."""

    name: str
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        """``{name, ok, detail}``."""
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


def _check(name: str, probe) -> Check:
    try:
        return Check(name, True, probe())
    except Exception as exc:  # a failed probe is a finding, not a crash
        return Check(name, False, one_line(exc) if str(exc) else repr(exc))


def _python() -> str:
    return f"{sys.version.split()[0]} at {sys.executable}"


def _ffmpeg() -> str:
    import imageio_ffmpeg

    return f"{imageio_ffmpeg.get_ffmpeg_exe()} ({imageio_ffmpeg.get_ffmpeg_version()})"


def _echarts() -> str:
    path = vendor_file("echarts.min.js")
    return f"{path} ({path.stat().st_size // 1024} KiB)"


def _data_folders() -> str:
    return ", ".join(str(data_dir(name)) for name in ("resources", "prompts", "ui"))


def _browser() -> str:
    from mmstudio.render import find_browser

    info = find_browser()
    if not info.executable:
        raise RuntimeError(info.problem or "no Chromium found")
    return f"{info.executable} ({info.source}, {info.version or 'version unknown'})"


def _qt() -> str:
    if importlib.util.find_spec("PySide6") is None:
        raise RuntimeError("PySide6 is not installed: pip install pyside6 (needed by the app)")
    return "PySide6 installed (desktop app available)"


#: the Qt libraries whose shared-library needs decide whether the app opens a window under X
QT_WINDOW_LIBRARIES = (
    "plugins/platforms/libqxcb.so",
    "lib/libQt6XcbQpa.so.6",
    "lib/libQt6WebEngineCore.so.6",
)
#: soname → the Debian / Ubuntu package that ships it (what ``scripts/setup.sh`` installs)
DEBIAN_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0", "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0", "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0", "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0", "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0", "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1", "libxcb.so.1": "libxcb1", "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6", "libXext.so.6": "libxext6", "libXfixes.so.3": "libxfixes3",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0", "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbfile.so.1": "libxkbfile1", "libxshmfence.so.1": "libxshmfence1",
    "libXcomposite.so.1": "libxcomposite1", "libXdamage.so.1": "libxdamage1",
    "libXrandr.so.2": "libxrandr2", "libXtst.so.6": "libxtst6", "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1", "libOpenGL.so.0": "libopengl0", "libgbm.so.1": "libgbm1",
    "libfontconfig.so.1": "libfontconfig1", "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0", "libnss3.so": "libnss3", "libnssutil3.so": "libnss3",
    "libsmime3.so": "libnss3", "libnspr4.so": "libnspr4", "libasound.so.2": "libasound2",
}  # fmt: skip


def missing_libraries(ldd_output: str) -> list[str]:
    """The sonames ``ldd`` reports as ``not found`` (sorted, once each)."""
    found = re.findall(r"^\s*(\S+)\s+=>\s+not found", ldd_output, re.M)
    return sorted(set(found))


def install_hint(libraries: list[str]) -> str:
    """What to install for ``libraries`` on Debian / Ubuntu (one ``apt-get install`` line; a
    soname the table does not know is named as it is)."""
    packages = sorted({DEBIAN_PACKAGES.get(lib, "") for lib in libraries} - {""})
    unknown = [lib for lib in libraries if lib not in DEBIAN_PACKAGES]
    hint = f"sudo apt-get install {' '.join(packages)}" if packages else ""
    if unknown:
        hint += ("; " if hint else "") + f"and the packages that provide {', '.join(unknown)}"
    return hint + " (or run scripts/setup.sh as root)"


def _qt_dir() -> Path:
    """PySide6's bundled Qt folder, found without importing Qt (only the GUI imports it)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("PySide6 is not installed: pip install pyside6 (needed by the app)")
    return Path(next(iter(spec.submodule_search_locations))) / "Qt"


def window_check(qt_dir: Path | None = None, ldd: str | None = None) -> str:
    """Whether the desktop app can open a window: on Linux, every library Qt's xcb platform
    plugin (and QtWebEngine) needs is found (``ldd`` on them, as ``scripts/setup.sh`` does).
    Returns what was found; raises RuntimeError naming the missing libraries and the Debian
    packages to install. Not Linux, or no ``ldd``: nothing to check (Qt uses the platform's
    own windowing there)."""
    if not sys.platform.startswith("linux"):
        return f"{sys.platform}: Qt uses the platform's own windows (no xcb plugin needed)"
    if importlib.util.find_spec("PySide6") is None:
        raise RuntimeError("PySide6 is not installed: pip install pyside6 (needed by the app)")
    ldd = ldd or shutil.which("ldd")
    if ldd is None:
        return "no ldd on this system: the xcb plugin's libraries were not checked"
    qt_dir = qt_dir or _qt_dir()
    plugin = qt_dir / QT_WINDOW_LIBRARIES[0]
    if not plugin.is_file():
        raise RuntimeError(f"PySide6 has no xcb platform plugin at {plugin}: reinstall pyside6")
    missing: set[str] = set()
    for name in QT_WINDOW_LIBRARIES:
        path = qt_dir / name
        if path.is_file():
            done = subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=30)
            missing |= set(missing_libraries(done.stdout + done.stderr))
    if missing:
        libraries = sorted(missing)
        raise RuntimeError(
            f"the app cannot open a window under X: missing {', '.join(libraries)}; "
            + install_hint(libraries)
        )
    display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    where = f"display {display}" if display else "no display now (Xvfb, or a desktop session)"
    return f"the xcb plugin finds all its libraries; {where}"


def run_checks() -> list[Check]:
    """Each check (:class:`Check`): Python, data folders, ECharts, ffmpeg, browser, Qt,
    and whether the app can open a window (:func:`window_check`)."""
    return [
        _check("python", _python),
        _check("data folders", _data_folders),
        _check("echarts", _echarts),
        _check("ffmpeg", _ffmpeg),
        _check("browser", _browser),
        _check("qt", _qt),
        _check("window", window_check),
    ]


def endpoint_checks(settings: Settings) -> list[Check]:
    """The model endpoint's checks (:func:`mmstudio.providers.doctor.endpoint_checks`: the
    endpoint, each role's model, the fallbacks) as :class:`Check` rows, in that order. Call it
    outside any running event loop."""
    from mmstudio.providers.doctor import endpoint_checks as rows

    return [Check(r["name"], r["ok"], r["detail"]) for r in rows(settings)]
