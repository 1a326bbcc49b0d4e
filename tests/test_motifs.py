"""Subject motifs for offline pictures: matching, page assignment, scenes, videos, fallback."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from mmstudio.plan import (
    DesignPlan,
    ElementContext,
    GlobalLayout,
    ImagePlan,
    MotifRecord,
    PaletteColor,
    Section,
    Typography,
    VideoAttributes,
    VideoPlan,
)
from mmstudio.providers import likeness
from mmstudio.providers.offline import art, motifs, motion, scenes
from mmstudio.providers.offline.designer import OfflineDesigner

needs_sets = pytest.mark.skipif(
    not motifs.available(),
    reason=f"motif sets unavailable ({motifs.missing_reason()}); run scripts/setup.sh",
)
PALETTE = [("background", "#faf7f2"), ("surface", "#ffffff"), ("text", "#1f2430"),
           ("primary", "#2f6fde"), ("accent", "#f2994a")]  # fmt: skip
FLOOR = likeness.NEAR_BITS  # pHash bits (of 64) any two pictures of one page must differ by
MOTION_FLOOR = 1.1  # mean |frame - next frame| (0-255); the abstract loops measured 0.19-0.98


def image(eid: str, role: str, prompt: str, size: str = "1536x1024", section: str = "main"):
    return ImagePlan(
        id=eid, save_path=f"assets/{eid}.webp", context=ElementContext(section=section, role=role),
        prompt=prompt, display_width_px=600, display_height_px=400, size=size,
    )  # fmt: skip


def video(eid: str, role: str, prompt: str, camera: str = "static") -> VideoPlan:
    return VideoPlan(
        id=eid, save_path=f"assets/{eid}.webm", context=ElementContext(section="main", role=role),
        prompt=prompt, display_width_px=640, display_height_px=360,
        attributes=VideoAttributes(camera_behavior=camera),
    )  # fmt: skip


def page(*elements, title: str = "Test page", kind: str = "landing") -> DesignPlan:
    return DesignPlan(
        title=title,
        page_kind=kind,
        layout=GlobalLayout(
            palette=[PaletteColor(role=r, hex=h) for r, h in PALETTE],
            typography=Typography(heading="serif", body="sans-serif"),
        ),
        sections=[Section(id="main", kind="content", element_ids=[e.id for e in elements])],
        images=[e for e in elements if e.kind == "image"],
        videos=[e for e in elements if e.kind == "video"],
    )


# --- the index and the sets ------------------------------------------------------------------


def test_every_set_records_its_licence_and_source():
    sets = motifs.index_data()["sets"]
    assert set(sets) == set(motifs.SETS)
    for name, info in sets.items():
        assert info["licence"] and info["licence_url"].startswith("https://"), name
        assert info["package"] == f"@iconify-json/{name}"
    attributed = {n for n, i in sets.items() if i["attribution_required"]}
    assert attributed == {"openmoji", "game-icons"}  # CC BY-SA 4.0 and CC BY 3.0


def test_installed_packages_state_the_recorded_licences():
    root = Path(motifs.__file__).resolve().parents[3] / "node_modules" / "@iconify-json"
    if not root.is_dir():
        pytest.skip(f"no npm packages at {root} (run scripts/setup.sh)")
    for name, info in motifs.index_data()["sets"].items():
        meta = json.loads((root / name / "package.json").read_text())
        assert meta["license"] == info["licence"], name
        assert meta["version"] == info["version"], f"{name}: update resources/motifs/index.json"


@needs_sets
def test_every_alias_people_and_generic_name_is_an_icon():
    lib, data = motifs.library(), motifs.index_data()
    names = {n for v in data["aliases"].values() for n in v}
    names |= set(data["people"]) | {n for v in data["generic"].values() for n in v}
    missing = sorted(n for n in names if not lib.named(n, (*motifs.COLOUR_SETS, "game-icons")))
    assert missing == []


def test_subject_words_leave_out_layout_words_and_mark_names():
    words = motifs.words_of("A small, left-aligned photo of a barista; portrait of Juno Lee", True)
    assert words == ["barista", "portrait", "^juno", "^lee"]  # layout words out, names marked
    assert motifs.singular("berries") == "berry" and motifs.singular("cups") == "cup"
    assert motifs.singular("glass") == "glass"


# --- matching ----------------------------------------------------------------------------------


@needs_sets
@pytest.mark.parametrize(
    ("prompt", "expect"),
    [
        ("a mechanic at work under a car", "mechanic"),
        ("three garments on a rail", ("t-shirt", "dress", "coat", "jeans")),
        ("a game board with pieces", ("chess", "game-die")),
        ("a steaming coffee mug next to a croissant", ("hot-beverage", "coffee")),
        ("a timber lodge in a snowy forest", ("hut", "house")),
    ],
)
def test_the_main_motif_names_the_subject(prompt, expect):
    element = image("pic", "illustration", prompt)
    choice = motifs.choose(element, page(element))
    assert choice.main is not None and not choice.note
    expected = (expect,) if isinstance(expect, str) else expect
    assert any(e in choice.main.name for e in expected), choice.main
    assert choice.words and choice.words[0] in prompt


@needs_sets
@pytest.mark.parametrize(
    ("prompt", "wrong"),
    [
        # the demo's hero: a board game piece for "slate board", a drum kit for "drum roaster"
        ("a dark roasted coffee bean close-up on a slate board", ("chess", "game-die")),
        ("coffee beans tumbling out of a drum roaster, shallow depth of field", ("drum", "hockey")),
        ("a strong two-column layout with a quick heavy feel", ("strong", "quick", "heavy")),
        ("muted sage green accents and coral, teal and yellow blobs", ("seedling", "coral")),
        ("rows of filled chocolate shells lined up on parchment", ("shell",)),
        ("mountain bike gear for the weekend", ("gear",)),
        ("a stylized portrait for static design, the speaker returns", ("paintbrush", "return")),
        ("a cosy reading room with boxes of books", ("mens-room", "bento")),
        ("Watch a lesson: protective gear, gloves and a bike pump", ("watch", "gear", "fuel")),
    ],
)
def test_no_unrelated_icon_stands_for_a_subject_word(prompt, wrong):
    element = image("pic", "photo", prompt)
    choice = motifs.choose(element, page(element, title="Weekend"))
    drawn = [m.name for m in [choice.main, *choice.support] if m is not None]
    assert not [n for n in drawn if any(w in n for w in wrong)], drawn


@needs_sets
def test_the_record_gives_the_reason_for_every_motif():
    element = image("pic", "product shot", "a steaming coffee mug next to a croissant")
    record = motifs.annotate(page(element)).images[0].motifs
    assert record is not None and len(record.words) == len(record.motifs)
    assert record.words[0] in ("coffee mug", "mug", "coffee") and "croissant" in record.words
    unmatched = image("pic", "photo", "a close-up of zorblat quux")
    record = motifs.annotate(page(unmatched, kind="event")).images[0].motifs
    assert record is not None and record.note and record.words[0] == "(event theme)"


def test_compounds_colours_and_parts_of_speech_are_read():
    tokens = {t.word: t for t in motifs.tokens_of("a drum roaster on a soft peach background")}
    assert tokens["drum"].modifier and not tokens["roaster"].modifier
    assert tokens["peach"].colour  # colour talk
    fruit = motifs.tokens_of("a ripe peach in a bowl")
    assert fruit[1].word == "peach" and not fruit[1].colour
    dog = motifs.tokens_of("a dog runs across the yard")
    assert not dog[0].modifier  # "runs" is the dog's verb, not a compound's head


@needs_sets
def test_an_unmatched_subject_says_so_and_draws_the_page_theme():
    element = image("pic", "photo", "a close-up of zorblat quux")
    choice = motifs.choose(element, page(element, title="Crumb & Co. bakery"))
    assert choice.main is not None
    assert choice.note == "no motif for 'zorblat quux'; drew a generic bakery scene"


@needs_sets
@pytest.mark.parametrize(
    "prompt",
    ["une tasse de café sur une table en bois", ".", "sourdough crumb " * 320, "图片：山和湖"],
    ids=["french", "empty", "5000-chars", "chinese"],
)
def test_any_subject_gives_a_picture_and_a_clear_record(prompt):
    element = image("pic", "photo", prompt[:5000])
    plan = motifs.annotate(page(element, title="Weekend"))
    record = plan.images[0].motifs
    assert record is not None and record.motifs, "a motif is always drawn"
    assert record.words or record.note.startswith("no motif for")
    picture = art.paint_image(plan.images[0], plan)
    assert picture.size == (1536, 1024) and np.asarray(picture).std() > 5


@needs_sets
def test_portraits_vary_their_people_and_skin_tones():
    faces = [image(f"face{i}", "team portrait", "a team member, smiling") for i in range(4)]
    plan = page(*faces)
    chosen = motifs.assign_page(plan)
    people = [tuple(m.name for m in chosen[f.id].people) for f in faces]
    assert all(people) and len(set(people)) == len(people)


# --- one page: distinct pictures -------------------------------------------------------------


@needs_sets
def test_pictures_of_a_page_differ_even_with_the_same_subject_and_role():
    cards = [image(f"card{i}", "feature illustration", "a coffee cup on a table") for i in range(5)]
    thumbs = [image(f"thumb{i}", "thumbnail", "a coffee cup", "1024x1024") for i in range(3)]
    plan = motifs.annotate(page(*cards, *thumbs, title="Roastery"))
    mains = [e.motifs.motifs[0] for e in plan.images]
    assert len(set(mains[:5])) >= 4, mains
    prints = {e.id: likeness.fingerprint(art.paint_image(e, plan)) for e in plan.images}
    pairs = list(itertools.combinations(prints, 2))
    close = [
        (a, b) for a, b in pairs if likeness.hash_distance(prints[a].phash, prints[b].phash) < FLOOR
    ]
    alike = [(a, b) for a, b in pairs if likeness.look_alike(prints[a], prints[b])]
    assert close == [] and alike == [], [likeness.distances(prints[a], prints[b]) for a, b in alike]


# --- scenes by role --------------------------------------------------------------------------


@needs_sets
@pytest.mark.parametrize(
    ("role", "kind"),
    [("hero banner", "hero"), ("product shot", "product"), ("team portrait", "portrait"),
     ("card thumbnail", "thumbnail"), ("icon", "icon"), ("texture", "pattern"),
     ("background", "background"), ("feature illustration", "illustration")],
)  # fmt: skip
def test_each_role_composes_its_scene(role, kind):
    element = image("pic", role, "a bicycle in a park")
    plan = page(element)
    choice = motifs.choose(element, plan)
    scene = scenes.compose(element, plan, choice, (768, 512))
    assert scene.kind == kind and scene.background.size == (768, 512)
    assert [layer for layer in scene.layers if layer.role in ("main", "deco")]
    if kind not in ("pattern", "background"):
        [main] = [layer for layer in scene.layers if layer.role == "main"]
        assert 0 <= main.x <= 768 and 0 <= main.y <= 512 + main.image.height / 2


@needs_sets
def test_the_scene_fits_the_slot_aspect():
    for size in ("1536x1024", "1024x1536", "1024x1024"):
        element = image("pic", "hero banner", "a sailboat on the sea", size)
        picture = art.paint_image(element, page(element))
        assert f"{picture.width}x{picture.height}" == size
        rgb = np.asarray(picture, np.int16)
        assert rgb.std() > 20, "the motif stands out from its ground"


@needs_sets
def test_mono_motifs_take_the_palette_colour():
    motif = motifs.Motif("game-icons", "coffee-cup")
    drawn = np.asarray(motifs.raster(motif, 64, "#d0302a"), np.int16)
    opaque = drawn[drawn[..., 3] > 200]
    assert len(opaque) > 100 and np.abs(opaque[:, :3] - [208, 48, 42]).max() < 4


# --- plans record the motifs -----------------------------------------------------------------


@needs_sets
def test_the_offline_plan_records_motifs_and_notices():
    designer = OfflineDesigner()
    plan = asyncio.run(designer.plan(
        "A landing page for a bakery called Crumb & Co. with a hero photo of fresh bread, "
        "a gallery of pastries and a contact form"
    ))  # fmt: skip
    records = [e.motifs for e in plan.images]
    assert records and all(r is not None and r.motifs for r in records)
    assert any("bread" in ref or "croissant" in ref for r in records for ref in r.motifs)
    again = DesignPlan.model_validate_json(plan.model_dump_json())
    assert again.images[0].motifs == plan.images[0].motifs
    assert all("no motif for" in n for n in designer.notices)
    assert motifs.credits(plan) and "licence" in motifs.credits(plan)[0]


def test_a_plan_from_before_motif_records_still_loads():
    element = image("pic", "photo", "a lake")
    old = json.loads(page(element).model_dump_json())
    for e in old["images"]:
        del e["motifs"]
    plan = DesignPlan.model_validate(old)
    assert plan.images[0].motifs is None
    assert art.paint_image(plan.images[0], plan).size == (1536, 1024)


@needs_sets
def test_a_recorded_choice_is_what_gets_drawn():
    element = image("pic", "feature illustration", "a lighthouse")
    record = MotifRecord(motifs=["fluent-emoji-flat:sailboat"], words=["sailboat"])
    plan = page(element.model_copy(update={"motifs": record}))
    choice = motifs.choice_for(plan.images[0], plan)
    assert choice is not None and choice.main == motifs.Motif("fluent-emoji-flat", "sailboat")


# --- videos ----------------------------------------------------------------------------------


def frame_change(element: VideoPlan, plan: DesignPlan) -> tuple[float, float]:
    drawn = np.stack([np.asarray(f, np.int16) for f in motion.frames(element, plan, (320, 180))])
    steps = np.abs(np.diff(drawn, axis=0)).mean(axis=(1, 2, 3))
    return float(steps.mean()), float(np.abs(drawn[-1] - drawn[0]).mean() / max(steps.max(), 1e-6))


@needs_sets
def test_video_motifs_move_visibly_and_loop():
    hero = video("hero_loop", "hero loop", "a cyclist riding through a city")
    change, wrap = frame_change(hero, page(hero))
    assert change > MOTION_FLOOR
    assert wrap <= 1.1, "the last frame flows into the first"


@needs_sets
def test_background_loops_are_calmer_than_hero_loops():
    calm = video("bg_loop", "ambient background", "a cyclist riding through a city")
    lively = video("hero_loop", "hero loop", "a cyclist riding through a city")
    plan = page(calm, lively)
    assert motion.liveliness(calm) < motion.liveliness(lively)
    assert frame_change(calm, plan)[0] < frame_change(lively, plan)[0]


@needs_sets
def test_a_stats_loop_counts_up():
    stats = video("kpi_loop", "stats counter", "members joined this year")
    plan = page(stats)
    frames = list(motion.frames(stats, plan, (320, 180)))
    first, late = (
        np.asarray(frames[0], np.int16),
        np.asarray(frames[len(frames) * 3 // 4], np.int16),
    )
    assert np.abs(first - late)[:70].mean() > 2, "the figure changes as it counts"


# --- without the sets ------------------------------------------------------------------------


def test_without_the_sets_pictures_fall_back_to_abstract_art(tmp_path, monkeypatch):
    monkeypatch.setattr(motifs, "_library", motifs.Library(tmp_path))
    monkeypatch.setattr(art, "_fallback_noted", [])
    assert not motifs.available() and "not installed" in motifs.missing_reason()
    element = image("pic", "hero banner", "a sailboat on the sea")
    plan = motifs.annotate(page(element))
    assert plan.images[0].motifs.motifs == []
    assert "drew abstract art" in plan.images[0].motifs.note
    picture = art.paint_image(plan.images[0], plan)
    assert picture.size == (1536, 1024)
    assert "abstract art" in art.fallback_notice()
    clip = video("loop", "hero loop", "a sailboat")
    assert len(list(motion.frames(clip, page(clip), (160, 90)))) == clip.seconds * motion.FPS
