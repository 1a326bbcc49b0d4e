"""Where the data folders live: ``resources/``, ``prompts/`` and ``ui/``.

In a source checkout (and an editable install) they sit at the repository root beside the
package; an installed wheel carries them inside the package as ``mmstudio/_data/<name>``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """The folder ``name`` (resources | prompts | ui); raises FileNotFoundError if absent."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"MM Studio data folder {name!r} not found next to {_PACKAGE}")


def resource(*parts: str) -> Path:
    """A path under ``resources/`` (not checked for existence)."""
    return data_dir("resources").joinpath(*parts)


def vendor_file(name: str) -> Path:
    """A vendored front-end file (``echarts.min.js``); raises FileNotFoundError with the fix."""
    path = resource("vendor", name)
    if not path.is_file():
        raise FileNotFoundError(
            f"{name} is missing from {path.parent}: run scripts/setup.sh (it copies it from npm)"
        )
    return path
