"""Export a site folder as a self-contained site (a folder or a zip) and check its hygiene.

The export holds the site's files only: no plan, history, report, key or machine path. A site is
self-contained when no HTML/CSS/JS/SVG file references ``http(s)://`` or ``//`` URLs, no file
mentions a machine path, and every local ``src``/``href`` resolves inside the folder.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
import time
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

from mmstudio.project import atomic
from mmstudio.project.errors import UserError

_TEXT_SUFFIXES = (".html", ".htm", ".css", ".js", ".svg", ".json")
_EXTERNAL = re.compile(
    r"""(?:src|href|poster)\s*=\s*["']\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//"""
    r"""|@import\s+["']?(?:https?:)?//""",
    re.IGNORECASE,
)
_MACHINE_PATH = re.compile(r"file://|(?<![\w.])(?:/tmp/|/work/|/root/|/home/|/Users/|[A-Z]:\\\\)")
_SKIP_DIRS = {"vendor"}


class ExportError(UserError):
    """The export cannot be written; the message is one line for the user."""


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "poster", "data") and value:
                self.refs.append(value)


def _site_files(site: Path) -> list[Path]:
    files: list[Path] = []
    for root, dirs, names in os.walk(site):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        files.extend(Path(root) / n for n in sorted(names))
    return files


def hygiene_problems(site: Path) -> list[str]:
    """One line per self-containment problem of the site folder ``site`` (empty when clean)."""
    problems: list[str] = []
    for path in _site_files(site):
        if path.suffix.lower() not in _TEXT_SUFFIXES:
            continue
        rel = path.relative_to(site).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        for label, pattern in (("external reference", _EXTERNAL), ("machine path", _MACHINE_PATH)):
            problems += [f"{label} in {rel}: {m.group(0)!r}" for m in pattern.finditer(text)]
        if path.suffix.lower() in (".html", ".htm"):
            problems += _missing_refs(path, site, text)
    return problems


def _missing_refs(page: Path, site: Path, text: str) -> list[str]:
    parser = _Refs()
    parser.feed(text)
    problems = []
    name = page.relative_to(site).as_posix()
    for ref in parser.refs:
        local = unquote(ref.split("#")[0].split("?")[0])
        if not local or re.match(r"^(?:[a-z][a-z0-9+.-]*:|//)", local, re.IGNORECASE):
            continue
        target = (page.parent / local).resolve()
        if not target.is_relative_to(site.resolve()) or not target.exists():
            problems.append(f"missing file referenced by {name}: {ref}")
    return problems


def export_site(
    site: Path,
    dest: Path,
    *,
    as_zip: bool = False,
    overwrite: bool = False,
    extra: dict[str, bytes] | None = None,
) -> Path:
    """Copy the site folder ``site`` to ``dest`` (a folder, or a ``.zip`` file when ``as_zip``).

    Raises ExportError when ``site`` has no index.html, ``dest`` exists and is not empty and
    ``overwrite`` is False, or the disk refuses a write (then ``dest`` is as it was, or absent
    when it was being replaced). The copy is written beside ``dest`` under a hidden
    ``.<name>.mmstudio-partial-*`` name and renamed into place, so ``dest`` is never half
    written; the partial copy a killed export left is removed by the next export to ``dest``.
    Symlinks are not followed out of the site. ``extra`` maps top-level file names of the copy
    to their bytes (``CREDITS.txt``: the attribution the bundled icon sets' licences ask for);
    a name the site already has is not replaced. Returns the written path."""
    if not (site / "index.html").is_file():
        raise ExportError(f"{site} has no index.html to export")
    dest = dest.expanduser().absolute()
    if as_zip and dest.suffix.lower() != ".zip":
        dest = dest.with_suffix(".zip")
    root, target = site.resolve(), dest.resolve()
    if root.is_relative_to(target) or target.is_relative_to(root):
        # replacing the destination would delete the site (or the project holding it)
        raise ExportError(f"{dest} overlaps the site being exported; choose a folder outside it")
    if dest.exists() and not overwrite and (dest.is_file() or any(dest.iterdir())):
        raise ExportError(f"{dest} already exists and is not empty; pass --force to replace it")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_partials(dest)
        extra = {n: b for n, b in (extra or {}).items() if not (site / n).exists() and "/" not in n}
        return _write_zip(site, dest, extra) if as_zip else _write_folder(site, dest, extra)
    except OSError as exc:
        raise ExportError(f"cannot write {dest}: {_reason(exc)}; nothing was exported") from exc


def _partial_prefix(dest: Path) -> str:
    """Names of the hidden folder/file an export of ``dest`` is written into before its rename."""
    return f".{dest.name}.mmstudio-partial-"


def _remove_stale_partials(dest: Path) -> None:
    """Delete what an export of ``dest`` killed before its final rename left beside it."""
    for stale in dest.parent.glob(f"{_partial_prefix(dest)}*"):
        shutil.rmtree(stale) if stale.is_dir() and not stale.is_symlink() else stale.unlink()


def _reason(exc: OSError) -> str:
    """A few words for ``exc``; a copytree Error (a list of per-file errors) gives its first."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list):
        text = str(exc.args[0][0][-1]) if exc.args[0] else "copy failed"
    else:
        text = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC or os.strerror(errno.ENOSPC) in text:
        return "no space left on device"
    return text.removeprefix(f"[Errno {exc.errno}] ").lower()


def _write_folder(site: Path, dest: Path, extra: dict[str, bytes]) -> Path:
    """Copy into a hidden folder beside ``dest``, then rename: ``dest`` is absent or complete."""
    staging = Path(tempfile.mkdtemp(prefix=_partial_prefix(dest), dir=dest.parent))
    try:
        shutil.copytree(site, staging / "site", symlinks=False, ignore=_ignore_links(site))
        for name, data in extra.items():
            (staging / "site" / name).write_bytes(data)
        if dest.exists():
            shutil.rmtree(dest) if dest.is_dir() else dest.unlink()
        (staging / "site").rename(dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def _ignore_links(site: Path):
    root = site.resolve()

    def ignore(folder: str, names: list[str]) -> list[str]:
        skipped = []
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                skipped.append(name)
        return skipped

    return ignore


def _write_zip(site: Path, dest: Path, extra: dict[str, bytes]) -> Path:
    root = site.resolve()
    fd, tmp = tempfile.mkstemp(prefix=_partial_prefix(dest), dir=dest.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(site.rglob("*")):
                if path.is_file() and path.resolve().is_relative_to(root):
                    archive.write(path, path.relative_to(site).as_posix())
            for name, data in extra.items():
                info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
                info.external_attr = 0o644 << 16  # readable by a web server, like the site's
                archive.writestr(info, data, zipfile.ZIP_DEFLATED)
        atomic.publish(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest
