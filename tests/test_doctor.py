"""``mmstudio doctor``'s window check: can the desktop app open a window under X (Qt's xcb
platform plugin finds its libraries), and what to install when it cannot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mmstudio.studio import doctor

LDD_MISSING = """\
\tlinux-vdso.so.1 (0x00007ffc8a5f2000)
\tlibxcb-cursor.so.0 => not found
\tlibxkbcommon-x11.so.0 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f3b1c000000)
\tlibxcb-cursor.so.0 => not found
"""

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xcb is Linux's")


def fake_qt(tmp_path: Path, ldd_says: str) -> tuple[Path, str]:
    """A Qt folder holding the xcb plugin, and an ``ldd`` that prints ``ldd_says``."""
    qt = tmp_path / "Qt"
    for name in doctor.QT_WINDOW_LIBRARIES[:2]:
        (qt / name).parent.mkdir(parents=True, exist_ok=True)
        (qt / name).write_bytes(b"\x7fELF")
    said = tmp_path / "ldd-output.txt"
    said.write_text(ldd_says)
    ldd = tmp_path / "ldd"
    ldd.write_text(f"#!/bin/sh\ncat '{said}'\n")
    ldd.chmod(0o755)
    return qt, str(ldd)


def test_missing_libraries_are_read_from_ldd():
    assert doctor.missing_libraries(LDD_MISSING) == ["libxcb-cursor.so.0", "libxkbcommon-x11.so.0"]
    assert doctor.missing_libraries("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_the_hint_names_the_debian_packages():
    hint = doctor.install_hint(["libxcb-cursor.so.0", "libxkbcommon-x11.so.0", "libodd.so.9"])
    assert hint.startswith("sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0")
    assert "libodd.so.9" in hint and "scripts/setup.sh" in hint


@linux_only
def test_a_missing_xcb_library_fails_the_window_row_with_what_to_install(tmp_path):
    qt, ldd = fake_qt(tmp_path, LDD_MISSING)
    with pytest.raises(RuntimeError) as failed:
        doctor.window_check(qt, ldd)
    message = str(failed.value)
    assert "cannot open a window" in message and "libxcb-cursor.so.0" in message
    assert "apt-get install libxcb-cursor0 libxkbcommon-x11-0" in message


@linux_only
def test_all_libraries_found_is_a_good_window_row(tmp_path, monkeypatch):
    qt, ldd = fake_qt(tmp_path, "\tlibxcb.so.1 => /lib/libxcb.so.1 (0x1)\n")
    monkeypatch.setenv("DISPLAY", ":99")
    assert doctor.window_check(qt, ldd) == "the xcb plugin finds all its libraries; display :99"


@linux_only
def test_a_pyside6_without_the_plugin_says_so(tmp_path):
    _, ldd = fake_qt(tmp_path, "")
    with pytest.raises(RuntimeError, match="no xcb platform plugin"):
        doctor.window_check(tmp_path / "elsewhere", ldd)


def test_doctor_has_a_window_row():
    rows = {row.name: row for row in doctor.run_checks()}
    assert "window" in rows and rows["window"].detail
    assert rows["window"].to_json() == {
        "name": "window", "ok": rows["window"].ok, "detail": rows["window"].detail,
    }  # fmt: skip
