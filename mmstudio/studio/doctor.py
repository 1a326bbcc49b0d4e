"""``mmstudio doctor``: is everything the product needs installed and working?"""

from __future__ import annotations

import importlib.util
import sys

from mmstudio.resources import data_dir, vendor_file


def _check(name: str, probe) -> dict:
    try:
        detail = probe()
        return {"name": name, "ok": True, "detail": detail}
    except Exception as exc:  # a failed probe is a finding, not a crash
        return {
            "name": name,
            "ok": False,
            "detail": str(exc).splitlines()[0] if str(exc) else repr(exc),
        }


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


def run_checks() -> list[dict]:
    """Each check as ``{name, ok, detail}``: Python, data folders, ECharts, ffmpeg, browser, Qt."""
    return [
        _check("python", _python),
        _check("data folders", _data_folders),
        _check("echarts", _echarts),
        _check("ffmpeg", _ffmpeg),
        _check("browser", _browser),
        _check("qt", _qt),
    ]
