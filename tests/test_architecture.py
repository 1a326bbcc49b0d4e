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


# --- typed results at the service boundary (docs/architecture.md, "Service boundary") ---------

#: the service packages: every public function and public method of a public class in them
BOUNDARY_PACKAGES = ("studio", "project")
#: the front ends: what they import as a function from elsewhere in mmstudio is a service too
FRONT_ENDS = (PACKAGE / "cli.py", PACKAGE / "gui")
#: serialisers of a typed result: their JSON object is the result's rendering, not the result
SERIALISERS = frozenset({"to_json"})
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping"})


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # typing.Any, t.Dict
        return node.attr
    return None


def untyped_return(annotation: ast.expr | None) -> str | None:
    """Why a return annotation is untyped: none at all, a bare ``dict``, ``dict[str, Any]``
    or ``Any`` anywhere in it (a quoted annotation is read too); None when it is typed."""
    if annotation is None:
        return "no return annotation"
    subscripted = {id(n.value) for n in ast.walk(annotation) if isinstance(n, ast.Subscript)}
    for node in ast.walk(annotation):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found = untyped_return(ast.parse(node.value, mode="eval").body)
            if found:
                return found
        name = _name(node) if isinstance(node, ast.Name | ast.Attribute) else None
        if name == "Any":
            return "Any"
        if name in _MAPPINGS and id(node) not in subscripted:
            return f"bare {name}"
    return None


def _public_functions(tree: ast.Module):
    """(qualified name, node) of module-level public functions and public methods of public
    classes (nested functions and private names left out)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if not node.name.startswith("_"):
                yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                is_function = isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                if is_function and not item.name.startswith("_"):
                    yield f"{node.name}.{item.name}", item


def untyped_returns_in(path: Path, only: set[str] | None = None) -> list[str]:
    """``file:line name -> annotation (why)`` for each public function of ``path`` (or only the
    names in ``only``) whose result is untyped; serialisers (``to_json``) are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for name, node in _public_functions(tree):
        if name.rsplit(".", 1)[-1] in SERIALISERS or (only is not None and name not in only):
            continue
        why = untyped_return(node.returns)
        if why:
            shown = ast.unparse(node.returns) if node.returns else "?"
            found.append(f"{path.name}:{node.lineno} {name} -> {shown} ({why})")
    return found


def front_end_services(package: Path = PACKAGE) -> dict[Path, set[str]]:
    """{module file: names} that the front ends import from a module outside the service
    packages and the GUI (``from mmstudio.x.y import name``, inside functions too), resolved
    through a package's ``__init__`` re-exports to the file defining the name."""
    import importlib
    import inspect

    wanted: dict[Path, set[str]] = {}
    files = [p for f in FRONT_ENDS for p in ([f] if f.is_file() else sorted(f.rglob("*.py")))]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
                continue
            parts = node.module.split(".")
            if parts[0] != "mmstudio" or (len(parts) > 1 and parts[1] in (*BOUNDARY_PACKAGES,
                                                                             "gui")):  # fmt: skip
                continue
            module = importlib.import_module(node.module)
            for alias in node.names:
                value = getattr(module, alias.name, None)
                if inspect.isfunction(value) and value.__module__.startswith("mmstudio."):
                    source = Path(inspect.getfile(value))
                    wanted.setdefault(source, set()).add(value.__name__)
    return wanted


def boundary_violations() -> list[str]:
    found = []
    for package in BOUNDARY_PACKAGES:
        for path in sorted((PACKAGE / package).glob("*.py")):
            found += untyped_returns_in(path)
    for path, names in sorted(front_end_services().items()):
        found += untyped_returns_in(path, names)
    return found


def test_no_untyped_results_at_the_service_boundary():
    """Every service the front ends call returns a typed result (a dataclass, a pydantic model,
    a TypedDict of a persisted document, or typed data such as ``dict[str, str]``)."""
    assert boundary_violations() == []


def test_the_boundary_check_finds_untyped_results(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from __future__ import annotations\n"
        "import typing\n"
        "from typing import Any\n"
        "def bare() -> dict: ...\n"
        "def loose() -> dict[str, Any]: ...\n"
        "def nested() -> list[dict] | None: ...\n"
        "def anything() -> typing.Any: ...\n"
        "def quoted() -> 'tuple[list[dict], int]': ...\n"
        "def unannotated(): ...\n"
        "async def run() -> Any: ...\n"
        "class Service:\n"
        "    def view(self) -> dict: ...\n"
        "    def to_json(self) -> dict[str, Any]: ...\n"
        "    def _private(self) -> dict: ...\n"
        "class _Hidden:\n"
        "    def view(self) -> dict: ...\n"
        "def typed() -> dict[str, str]: ...\n"
        "def rows() -> list[tuple[str, int]]: ...\n"
        "def _helper() -> dict: ...\n"
    )
    names = [line.split()[1] for line in untyped_returns_in(sample)]
    assert names == ["bare", "loose", "nested", "anything", "quoted", "unannotated", "run",
                     "Service.view"]  # fmt: skip
    assert [line.split()[1] for line in untyped_returns_in(sample, {"loose"})] == ["loose"]
