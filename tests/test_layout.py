"""The offline layout agent: slots, text fidelity, palette, hygiene, escaping, order, visibility.

Fast and browser-free: the page is parsed with :mod:`html.parser`. Fixture plans in
``tests/fixtures/plans/`` resemble real bench prompts (event landing page, dark sidebar dashboard,
brutalist single-column research site).
"""

from __future__ import annotations

import itertools
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markupsafe import escape

from mmstudio.plan import ChartPlan, DesignPlan, ImagePlan, VideoPlan, slot_problems
from mmstudio.providers.offline import page_css
from mmstudio.providers.offline.layout import render_page
from mmstudio.providers.offline.planner import plan_from_prompt

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "plans").glob("*.json"))
TEXT_ATTRS = ("alt", "title", "aria-label", "placeholder", "value")


class Page(HTMLParser):
    """Visible text (outside style/script), text attributes, tags with attributes, in order."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.attr_text: list[str] = []
        self.tags: list[tuple[str, dict[str, str]]] = []
        self._skip = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.tags.append((tag, values))
        self.attr_text += [values[a] for a in TEXT_ATTRS if values.get(a)]
        if tag in ("style", "script"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)

    def visible(self) -> str:
        return norm(" ".join(self.text))

    def find(self, tag: str | None = None, **attrs: str) -> list[dict[str, str]]:
        return [
            a
            for t, a in self.tags
            if (tag is None or t == tag)
            and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def cell_text(value: float | int | str | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def plan_texts(plan: DesignPlan) -> list[str]:
    """Every text field of the plan that must be visible on the page."""
    texts = [plan.title]
    for s in plan.sections:
        texts += [s.title, s.subtitle, s.eyebrow, *s.headings, *s.paragraphs]
        texts += [*s.buttons, *s.nav_items, *s.tags]
        for item in s.items:
            meta = "" if item.meta == "field" else item.meta  # a form field: label + input
            texts += [item.title, item.text, item.value, item.label, meta, *item.points]
        if s.table:
            texts += [*s.table.columns, s.table.source]
            texts += [cell_text(c) for row in s.table.rows for c in row]
    for element in plan.elements():
        texts.append(element.caption)
        if isinstance(element, ChartPlan):
            texts.append(element.title)
    return [norm(t) for t in texts if t and t.strip()]


def missing_texts(plan: DesignPlan, html: str) -> list[str]:
    visible = Page(html).visible()
    return [t for t in plan_texts(plan) if t not in visible]


def load(path: Path) -> DesignPlan:
    return DesignPlan.model_validate_json(path.read_text(encoding="utf-8"))


@pytest.fixture(params=FIXTURES, ids=[p.stem for p in FIXTURES])
def plan(request: pytest.FixtureRequest) -> DesignPlan:
    return load(request.param)


def test_fixtures_exist() -> None:
    assert {p.stem for p in FIXTURES} >= {"event_landing", "dark_dashboard", "brutalist_research"}


def test_one_slot_per_element_and_section(plan: DesignPlan) -> None:
    assert slot_problems(plan, render_page(plan)) == []


def test_every_plan_text_is_visible(plan: DesignPlan) -> None:
    assert missing_texts(plan, render_page(plan)) == []


def test_alt_text_and_captions_on_slots(plan: DesignPlan) -> None:
    html = render_page(plan)
    for image in plan.images:
        assert f'alt="{escape(image.alt)}"' in html
    captioned = plan.model_copy(deep=True)
    first = next(captioned.elements())
    first.caption = "Plate 01: bench surface"
    assert "<figcaption>Plate 01: bench surface</figcaption>" in render_page(captioned)


def test_text_check_can_fail(plan: DesignPlan) -> None:
    html = render_page(plan)
    nav = next(t for s in plan.sections for t in s.nav_items)
    assert nav in missing_texts(plan, html.replace(f">{nav}<", "><"))


def test_every_palette_hex_and_variable(plan: DesignPlan) -> None:
    html = render_page(plan).lower()
    for colour in plan.layout.palette:
        assert colour.hex.lower() in html
    for name in page_css.palette_variables(plan.layout):
        assert f"{name}:" in html
    for role in ("--bg:", "--text:", "--primary:", "--border:", "--font-heading:", "--font-body:"):
        assert role in html


def test_self_contained(plan: DesignPlan) -> None:
    html = render_page(plan)
    for bad in ("http://", "https://", "//", "file:", "/tmp/", "/work/", "/home/", "/root/"):
        assert bad not in html, bad
    page = Page(html)
    for _, attrs in page.tags:
        for key in ("src", "href", "poster"):
            ref = attrs.get(key)
            if ref is not None:
                assert ref.startswith(("#", "assets/")), ref


def test_sections_in_plan_order(plan: DesignPlan) -> None:
    page = Page(render_page(plan))
    order = [a["data-mm-section"] for _, a in page.tags if "data-mm-section" in a]
    assert order == [s.id for s in plan.sections]
    for t, a in page.tags:
        if "data-mm-section" in a:
            kind = plan.section(a["data-mm-section"]).kind
            assert a["id"] == a["data-mm-section"]
            assert t == {"header": "header", "footer": "footer"}.get(kind, "section")


def test_nothing_hidden_or_lazy(plan: DesignPlan) -> None:
    html = render_page(plan)
    compact = re.sub(r"\s+", "", html.lower())
    assert 'loading="lazy"' not in html
    assert "opacity:0" not in compact and "opacity:0;" not in compact
    assert "visibility:hidden" not in compact and "display:none" not in compact


def test_semantics(plan: DesignPlan) -> None:
    html = render_page(plan)
    page = Page(html)
    assert html.startswith("<!DOCTYPE html>")
    assert len(page.find("main")) == 1
    assert len(page.find("h1")) == 1
    assert page.find("html")[0]["lang"] == plan.language
    assert page.find("title")
    assert all(a.get("alt") for a in page.find("img"))
    levels = [int(t[1]) for t, _ in page.tags if re.fullmatch(r"h[1-6]", t)]
    assert levels[0] in (1, 2)
    assert all(b - a <= 1 for a, b in itertools.pairwise(levels)), levels


def test_element_slots_are_sized(plan: DesignPlan) -> None:
    page = Page(render_page(plan))
    for element in plan.elements():
        attrs = page.find(data_mm_id=element.id)[0]
        w, h = element.display_width_px, element.display_height_px
        if isinstance(element, ImagePlan):
            assert attrs["src"] == element.save_path
            assert (attrs["width"], attrs["height"]) == (str(w), str(h))
            assert f"aspect-ratio: {w} / {h}" in attrs["style"]
        elif isinstance(element, VideoPlan):
            assert {"autoplay", "muted", "loop", "playsinline"} <= set(attrs)
            assert attrs.get("poster") == element.poster_path or element.poster_path is None
        else:
            assert attrs["src"] == element.save_path and attrs["loading"] == "eager"
            assert attrs["title"]
    if plan.videos:
        sources = page.find("source", type="video/webm")
        assert {s["src"] for s in sources} == {v.save_path for v in plan.videos}


def test_chart_frames_have_planned_height_and_title() -> None:
    plan = load(FIXTURES[[p.stem for p in FIXTURES].index("dark_dashboard")])
    html = render_page(plan)
    for chart in plan.charts:
        assert f"height: {chart.display_height_px}px;" in html
        assert re.search(rf'class="chart-title">{re.escape(chart.title)}</h[23]>', html)
    assert 'class="shell"' in html and "side section-sidebar" in html


def test_text_contrast_meets_aa(plan: DesignPlan) -> None:
    moods = page_css.detect_moods(plan.layout)
    bg = page_css.page_background(plan.layout, moods)
    tone = page_css.tone_for(plan.layout, bg, moods)
    assert page_css.contrast(tone.text, tone.bg) >= 4.5
    assert page_css.contrast(tone.muted, tone.bg) >= 4.5
    assert page_css.contrast(tone.card_text, tone.surface) >= 4.5
    assert page_css.contrast(tone.on_primary, tone.primary) >= 3


def _tiny_plan(**section: object) -> dict:
    base = {"id": "hero", "kind": "hero", "title": "Hello"}
    return {
        "title": "Tiny",
        "layout": {
            "palette": [
                {"role": "background", "hex": "#101010"},
                {"role": "text", "hex": "#202020"},
                {"role": "primary", "hex": "#ff00aa"},
            ],
            "typography": {"heading": "Georgia", "body": "Arial"},
        },
        "sections": [base | section],
    }


def test_unreadable_text_colour_is_replaced() -> None:
    plan = DesignPlan.model_validate(_tiny_plan())
    tone = page_css.tone_for(plan.layout, "#101010", frozenset())
    assert tone.text != "#202020"
    assert page_css.contrast(tone.text, "#101010") >= 4.5


def test_untrusted_text_is_escaped() -> None:
    evil = "<script>alert('x')</script>"
    data = _tiny_plan(
        paragraphs=[f"Read {evil} at https://evil.example/a and /home/me/x"],
        nav_items=[evil],
        buttons=['"><img src=x onerror=alert(1)>'],
        table={"columns": [evil], "rows": [[evil]]},
    )
    data["title"] = evil
    data["layout"]["typography"]["heading"] = "Georgia</style><script>alert(1)</script>"
    plan = DesignPlan.model_validate(data)
    html = render_page(plan)
    assert "<script" not in html.lower()
    assert "<img src=x" not in html
    assert "https://" not in html and "/home/" not in html
    assert missing_texts(plan, html) == []


def test_render_is_deterministic(plan: DesignPlan) -> None:
    assert render_page(plan) == render_page(plan)


def test_palette_variables_are_unique() -> None:
    data = _tiny_plan()
    data["layout"]["palette"] += [
        {"role": "accent", "hex": "#00ff00"},
        {"role": "accent", "hex": "#0000ff"},
        {"role": "§§", "hex": "#abcdef"},
    ]
    names = page_css.palette_variables(DesignPlan.model_validate(data).layout)
    assert len(names) == 6
    assert names["--color-accent"] == "#00ff00" and names["--color-accent-2"] == "#0000ff"
    assert names["--color-extra-6"] == "#abcdef"


def test_font_stack_is_sanitised() -> None:
    stack = page_css.font_stack("Georgia</style><script>", "serif")
    assert "<" not in stack and "/" not in stack and stack.endswith("serif")
    assert (
        page_css.font_stack("'Courier New', monospace", "sans-serif") == "'Courier New', monospace"
    )


def test_section_background_role_and_hex() -> None:
    data = _tiny_plan(background="primary")
    data["sections"].append(
        {"id": "band", "kind": "content", "title": "B", "background": "#fafafa"}
    )
    html = render_page(DesignPlan.model_validate(data))
    rules = re.findall(r'\[data-mm-section="(\w+)"\] \{([^}]*)\}', html)
    assert {name for name, _ in rules} == {"hero", "band"}
    band = dict(rules)["band"]
    assert "--bg: #fafafa" in band and "--text: var(--color-text)" in band
    hero = dict(rules)["hero"]
    assert "--bg: var(--color-primary)" in hero


def test_dashboard_without_sidebar_uses_header_as_side_column() -> None:
    path = FIXTURES[[p.stem for p in FIXTURES].index("dark_dashboard")]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sections"] = [s for s in data["sections"] if s["kind"] != "sidebar"]
    data["charts"][0]["title"] = ""
    plan = DesignPlan.model_validate(data)
    html = render_page(plan)
    page = Page(html)
    assert slot_problems(plan, html) == []
    header = page.find("header")[0]
    assert "side" in header["class"].split()
    assert 'class="shell"' in html
    # an untitled chart still gets a visible heading (its alt text)
    assert re.search(rf'class="chart-title">{re.escape(plan.charts[0].alt)}</h[23]>', html)


def _image(element_id: str, section: str, width: int = 240, height: int = 240) -> dict:
    return {
        "id": element_id,
        "save_path": f"assets/{element_id}.webp",
        "context": {"section": section, "role": "portrait"},
        "prompt": "a smiling customer holding a mug",
        "alt": "A smiling customer",
        "display_width_px": width,
        "display_height_px": height,
        "size": "1024x1024",
    }


def test_testimonial_is_a_blockquote_with_cite_beside_its_portrait() -> None:
    data = _tiny_plan()
    data["sections"].append(
        {
            "id": "testimonials",
            "kind": "testimonials",
            "items": [{"text": "The best ritual.", "title": "Maya R.", "label": "Subscriber"}],
            "element_ids": ["quote_portrait"],
        }
    )
    data["images"] = [_image("quote_portrait", "testimonials")]
    plan = DesignPlan.model_validate(data)
    html = render_page(plan)
    assert slot_problems(plan, html) == []
    card = re.search(r'<li class="card quote with-portrait">(.*?)</li>', html, re.S)
    assert card, "the quote card holds its portrait"
    body = card.group(1)
    assert 'data-mm-id="quote_portrait"' in body
    assert "<blockquote" in body and "<p>The best ritual.</p></blockquote>" in body
    assert "<cite>Maya R.</cite>" in body and "Subscriber" in body
    assert "--portrait-w: 240px;" in body
    assert missing_texts(plan, html) == []


def test_dark_section_background_gets_light_text() -> None:
    data = _tiny_plan()
    data["layout"]["palette"] = [
        {"role": "background", "hex": "#fbf6ee"},
        {"role": "text", "hex": "#2b1d14"},
        {"role": "primary", "hex": "#d9642b"},
    ]
    data["sections"].append(
        {"id": "footer", "kind": "footer", "buttons": ["Subscribe"], "background": "#2b1d14"}
    )
    html = render_page(DesignPlan.model_validate(data))
    rule = dict(re.findall(r'\[data-mm-section="(\w+)"\] \{([^}]*)\}', html))["footer"]
    assert "--bg: var(--color-text)" in rule  # the planned hex, through its palette variable
    assert "--text: var(--color-background)" in rule  # cream text on the espresso footer
    footer = re.search(r"<footer.*?</footer>", html, re.S).group()
    assert re.search(r'<a class="button button-primary" href="#\w+">Subscribe</a>', footer)


def test_header_shows_its_brand_only() -> None:
    data = _tiny_plan()
    data["title"] = "Ember & Oak Coffee Roasters"
    data["sections"].insert(0, {"id": "header", "kind": "header", "title": "EMBER & OAK"})
    html = render_page(DesignPlan.model_validate(data))
    header = re.search(r"<header.*?</header>", html, re.S).group()
    assert "EMBER &amp; OAK" in header and "Coffee Roasters" not in header


def test_chart_alt_is_its_label_and_a_repeated_title_is_not_repeated() -> None:
    data = _tiny_plan(title="Flavour Notes", element_ids=["chart_notes"])
    data["charts"] = [
        {
            "id": "chart_notes",
            "save_path": "assets/chart_notes.html",
            "context": {"section": "hero", "role": "bar chart"},
            "prompt": "a bar chart",
            "title": "Flavour Notes",
            "alt": "Bar chart: Flavour Notes — Sweetness, Acidity",
            "display_width_px": 720,
            "display_height_px": 360,
            "source_data": {"columns": ["Origin", "Body"], "rows": [["Guji", 5]]},
        }
    ]
    html = render_page(DesignPlan.model_validate(data))
    assert 'aria-label="Bar chart: Flavour Notes — Sweetness, Acidity"' in html
    assert 'class="chart-title"' not in html  # the section's h1 already says "Flavour Notes"
    assert "color-scheme: normal" in html  # no white canvas behind charts on dark pages


def test_media_and_cards_follow_the_prompt_order() -> None:
    data = _tiny_plan(
        description="Three cards: “Source” with the text “A”. Beneath the cards is a photo of "
        "steam from a cup.",
        items=[{"title": "Source", "text": "A"}],
        element_ids=["hero_photo"],
    )
    data["images"] = [_image("hero_photo", "hero", 640, 360)]
    data["images"][0]["prompt"] = "Beneath the cards is a photo of steam from a cup."
    html = render_page(DesignPlan.model_validate(data))
    assert html.index("Source</h") < html.index('data-mm-id="hero_photo"')


def test_form_fields_are_inputs() -> None:
    data = _tiny_plan(items=[{"label": "you@example.com", "meta": "field"}])
    html = render_page(DesignPlan.model_validate(data))
    assert 'placeholder="you@example.com"' in html and "<input" in html
    assert ">field<" not in html


def test_three_half_width_photos_share_one_row_and_fields_get_their_input() -> None:
    plan = plan_from_prompt(  # a short brief: photos placed in the hero, a named-field form
        "A simple website for “Spoke Doctor”, a bike repair shop. Three sections: a hero with "
        "“Fixed by Friday” as the heading, a price list with “Full service” £65 and “Brake "
        "tune-up” £20, and a contact form with fields “Your name”, “Email”, “Phone” and "
        "“Message”. Use three photos of the workshop in the hero."
    )
    html = render_page(plan)
    hero = html[html.index('data-mm-section="hero"') : html.index('data-mm-section="pricing"')]
    assert re.findall(r"--span: (\d+);", hero) == ["4", "4", "4"]  # one row, no orphan
    assert '<input type="text" placeholder="Your name"' in html
    assert '<input type="email" placeholder="Email"' in html
    assert '<input type="tel" placeholder="Phone"' in html
    assert '<textarea rows="4" placeholder="Message"' in html
