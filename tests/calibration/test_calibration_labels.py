"""The hand-labelled calibration set is well formed (no browser needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGES = HERE / "pages"
KINDS = {
    "copy",
    "label",
    "nav",
    "section",
    "image",
    "video",
    "chart",
    "widget",
    "palette",
    "font",
    "layout",
    "prohibition",
    "leak",
    "duplicate-image",
    "truncated",
    "empty",
    "other",
}
FIELDS = {"id", "kind", "key", "element", "span", "what", "checkable"}


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _labels() -> dict:
    return json.loads((HERE / "labels.json").read_text(encoding="utf-8"))


def test_format_and_size():
    labels = _labels()
    assert labels["format"] == 1
    pages = labels["pages"]
    assert len(pages) >= 10
    assert sum(len(p["defects"]) for p in pages.values()) >= 80


def test_every_labelled_page_has_its_files():
    labels = _labels()
    folders = {p.name for p in PAGES.iterdir() if p.is_dir()}
    assert set(labels["pages"]) == folders
    for page_id in labels["pages"]:
        assert (PAGES / page_id / "prompt.txt").is_file(), page_id
        assert (PAGES / page_id / "index.html").is_file(), page_id
        assert not (PAGES / page_id / "vendor").exists(), "vendor/ is copied in at run time"


def test_defects_are_well_formed():
    seen: set[str] = set()
    for page_id, page in _labels()["pages"].items():
        prompt = _norm((PAGES / page_id / "prompt.txt").read_text(encoding="utf-8"))
        html = (PAGES / page_id / "index.html").read_text(encoding="utf-8")
        assert page["defects"], page_id
        for defect in page["defects"]:
            assert set(defect) == FIELDS, defect
            assert defect["id"] not in seen, defect["id"]
            seen.add(defect["id"])
            assert defect["id"].startswith(f"{page_id}-d"), defect["id"]
            assert defect["kind"] in KINDS, defect
            assert isinstance(defect["checkable"], bool), defect
            assert isinstance(defect["what"], str) and defect["what"].strip(), defect
            assert defect["key"] is None or (isinstance(defect["key"], str) and defect["key"]), (
                defect
            )
            if defect["kind"] not in {"duplicate-image", "truncated", "empty"}:
                assert defect["key"], f"{defect['id']}: a keyed kind needs a key"
            element = defect["element"]
            if element is not None:
                assert f'"{element}"' in html, f"{defect['id']}: no element {element} in the page"
            span = _norm(defect["span"])
            assert span, defect["id"]
            assert span in prompt, f"{defect['id']}: span not in the prompt: {span!r}"
