"""Per-element crops of a full-page screenshot (PNG files named after the element id)."""

from __future__ import annotations

import logging
from pathlib import Path

from PIL import Image

from .model import MediaProbe

log = logging.getLogger(__name__)


def save_crops(screenshot: Path, media: list[MediaProbe], out_dir: Path) -> dict[str, str]:
    """Crop each visible element's box (page px) out of ``screenshot`` into ``out_dir/<id>.png``.

    Returns {element id: crop path}; elements that are hidden, empty or outside the shot are
    skipped."""
    if not screenshot.is_file() or not media:
        return {}
    out_dir.mkdir(parents=True, exist_ok=True)
    crops: dict[str, str] = {}
    with Image.open(screenshot) as shot:
        shot.load()
        for item in media:
            box = _box(item, shot.size)
            if box is None or not item.id:
                continue
            path = out_dir / f"{item.id}.png"
            shot.crop(box).save(path, compress_level=1)
            crops[item.id] = str(path)
    return crops


def _box(item: MediaProbe, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    r = item.rect
    left, top = max(0, int(r.x)), max(0, int(r.y))
    right, bottom = min(size[0], int(r.x + r.w)), min(size[1], int(r.y + r.h))
    if right - left < 2 or bottom - top < 2:
        return None
    return left, top, right, bottom
