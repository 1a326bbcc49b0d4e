"""Layering rules from DESIGN.md that the code must keep."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mmstudio"
QT_MODULES = ("PySide6", "qasync", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_only_gui_imports_qt():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "gui" in path.relative_to(PACKAGE).parts:
            continue
        qt = [m for m in imported_modules(path) if m.split(".")[0] in QT_MODULES]
        if qt:
            offenders.append(f"{path.relative_to(PACKAGE.parent)} imports {', '.join(sorted(qt))}")
    assert offenders == []


def test_the_check_itself_sees_qt_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom PySide6.QtCore import QObject\nimport qasync as q\n")
    assert {"PySide6.QtCore", "qasync"} <= imported_modules(sample)


def test_core_modules_import_without_qt():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['PySide6'] = None; sys.modules['qasync'] = None\n"
        "import mmstudio.cli, mmstudio.plan, mmstudio.report, mmstudio.project\n"
        "import mmstudio.studio.create, mmstudio.studio.bench"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
