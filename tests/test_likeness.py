"""One measure of "the same picture twice" for the picture makers and the evaluator
(:mod:`mmstudio.providers.likeness`, :func:`mmstudio.evaluate.grounded.check_duplicates`).

Pairs a designer reads as one picture twice come from the hand-labelled calibration pages (copies
of one abstract template, marked duplicate by the reviewer); pairs a designer reads as different
pictures are motif scenes the offline designer drew for dev prompts 023, 086, 111 and 050, which
the earlier layout-hash check flagged, and two scale-page scenes on one arch backdrop whose grey
copies are 8 pHash bits apart (``tests/fixtures/likeness/``, 320 px copies).
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mmstudio.evaluate.findings import Findings
from mmstudio.evaluate.grounded import check_duplicates
from mmstudio.providers import likeness
from mmstudio.render.facts import PageFacts, Picture
from mmstudio.render.model import Render
from mmstudio.render.sandbox import ORIGIN

HERE = Path(__file__).parent
PAGES = HERE / "calibration" / "pages"
SCENES = HERE / "fixtures" / "likeness"

#: (page, picture, picture) a reviewer labelled as one composition twice
TEMPLATE_COPIES = [
    ("001", "team_portrait", "team_portrait_2"),  # one silhouette, byte-identical
    ("008", "table_2_photo", "table_2_photo_2"),  # moon over grey hills
    ("037", "hero_photo", "hero_photo_2"),  # moon over red hills
    ("073", *(f"content_balcony_herb_basics_illustration_{n}" for n in (2, 3))),  # blue disc
]
#: motif scenes of one page whose subjects differ (the earlier check flagged the first three)
DIFFERENT_SUBJECTS = [
    "ticket-hand", "chart-books", "person-map", "portrait-gear-grey", "telescope-umbrella",
]  # fmt: skip


def _calibration(page: str, name: str) -> likeness.Fingerprint:
    found = likeness.fingerprint_file(PAGES / page / "assets" / f"{name}.webp")
    assert found is not None
    return found


def _scene(name: str) -> likeness.Fingerprint:
    found = likeness.fingerprint_file(SCENES / f"{name}.webp")
    assert found is not None
    return found


@pytest.mark.parametrize(("page", "a", "b"), TEMPLATE_COPIES)
def test_copies_of_one_composition_look_alike(page, a, b):
    first, second = _calibration(page, a), _calibration(page, b)
    assert likeness.look_alike(first, second), likeness.distances(first, second)


@pytest.mark.parametrize("pair", DIFFERENT_SUBJECTS)
def test_scenes_of_different_subjects_do_not_look_alike(pair):
    a, b = _scene(f"{pair}-a"), _scene(f"{pair}-b")
    assert not likeness.look_alike(a, b), likeness.distances(a, b)


def test_perceptual_hash_tells_alike_from_different():
    rng = np.random.default_rng(1)
    base = Image.fromarray(rng.integers(0, 255, (64, 96, 3), np.uint8)).resize((384, 256))
    brighter = Image.fromarray(np.clip(np.asarray(base, np.int16) + 12, 0, 255).astype(np.uint8))
    other = base.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    h = likeness.perceptual_hash
    assert likeness.hash_distance(h(base), h(brighter)) < 6
    assert likeness.hash_distance(h(base), h(other)) > likeness.NEAR_BITS


def test_a_re_encoded_brighter_copy_looks_alike_and_a_flipped_one_does_not():
    with Image.open(SCENES / "ticket-hand-a.webp") as image:
        base = image.convert("RGB")
    brighter = Image.fromarray(np.clip(np.asarray(base, np.int16) + 14, 0, 255).astype(np.uint8))
    jpeg = io.BytesIO()
    brighter.resize((200, 134)).save(jpeg, "JPEG", quality=60)
    copy = Image.open(io.BytesIO(jpeg.getvalue()))
    flipped = base.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    print_ = likeness.fingerprint
    assert likeness.hash_distance(print_(base).phash, print_(copy).phash) < likeness.NEAR_BITS
    assert likeness.look_alike(print_(base), print_(copy))
    assert not likeness.look_alike(print_(base), print_(flipped))


def test_a_flat_picture_has_no_foreground_and_reads_no_colours():
    flat = likeness.fingerprint(Image.new("RGB", (120, 80), (200, 180, 160)))
    assert not any(flat.foreground)
    assert likeness.colour_distance(flat, flat) == 1.0


def test_an_unreadable_file_has_no_fingerprint(tmp_path):
    broken = tmp_path / "broken.webp"
    broken.write_bytes(b"not a picture")
    assert likeness.fingerprint_file(broken) is None


def _render(site: Path, names: list[str]) -> Render:
    pictures = [
        Picture(kind="img", src=f"{ORIGIN}/assets/{n}", rect={"w": 320, "h": 200}, owner=n)
        for n in names
    ]
    return Render(site_dir=str(site), page="index.html", facts=PageFacts(pictures=pictures))


def test_the_evaluator_flags_a_template_copy_and_not_different_subjects(tmp_path):
    assets = tmp_path / "assets"
    assets.mkdir()
    page, a, b = TEMPLATE_COPIES[1]
    for name in (a, b):
        shutil.copy(PAGES / page / "assets" / f"{name}.webp", assets / f"{name}.webp")
    scenes = [f"{pair}-{side}.webp" for pair in DIFFERENT_SUBJECTS[:3] for side in "ab"]
    for name in scenes:
        shutil.copy(SCENES / name, assets / name)
    found = Findings({})
    check_duplicates(_render(tmp_path, [*scenes[:2], f"{a}.webp", *scenes[2:], f"{b}.webp"]), found)
    flagged = [issue for issue in found.issues if issue.code == "duplicate-image"]
    assert [issue.evidence["pair"] for issue in flagged] == [[f"{a}.webp", f"{b}.webp"]]
    assert flagged[0].evidence["distances"]["phash"] < 64
