"""The offline planner: a deterministic, rule-based reader of long design prompts → DesignPlan.

MM-WebAgent §3 (hierarchical planning) without a model: the prompt's sentences are grouped into
sections in the order it describes them; every quoted string is placed in the slot its wording
names (nav item, button, headline, tag, KPI, caption, …); hex and named colours get palette roles;
every image, video and chart the prompt asks for becomes a sized element plan whose ``prompt`` is
the prompt's own sentences about it; dataset tables feed charts, KPI tiles and tables.

Public API: :func:`plan_from_prompt`. Pure and deterministic; ≈ 40–60 ms of CPU for a 22k-character
bench prompt (``benchmarks/planner_fidelity.py``).

Steps and where they live: sentences, quotes, colours, tables (``prompt_text``); keyword tables
(``vocabulary``); sections in prompt order (``planner_sections``); images, videos, charts and
negations (``planner_elements``); palette, fonts, structure, mood (``planner_style``); chart and
table data (``planner_data``); ids, sizes and the validated plan (``planner_assembly``). This
module reads the title and page kind and places every quoted string in its slot.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Callable

from mmstudio.plan import DesignPlan, SectionItem
from mmstudio.providers.offline import planner_assembly as assembly
from mmstudio.providers.offline import planner_elements as element_rules
from mmstudio.providers.offline import planner_sections as sections
from mmstudio.providers.offline import planner_style as style
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab

log = logging.getLogger(__name__)

_LIST_GAP = re.compile(r"^[\s,;:.]*(?:(?:and|or|then|&|plus)\b)?[\s,]*$", re.I)


def plan_from_prompt(prompt: str) -> DesignPlan:
    """Plan a page from a design prompt.

    Returns a validated :class:`DesignPlan`; raises ``ValueError`` for an empty prompt."""
    if not prompt or not prompt.strip():
        raise ValueError("the design prompt is empty")
    prose, dataset = pt.split_dataset(prompt)
    units = pt.split_units(prose)
    title = find_title(prose)
    drafts, global_units = sections.segment(units, title)
    bans = element_rules.banned_modalities(units, global_units)
    for draft in drafts:
        draft.elements = element_rules.find_elements(draft.units, draft.kind, bans)
    place_quotes(prose, units, drafts, global_units)
    sections.refine_kinds(drafts)
    tables = pt.parse_tables(dataset)
    page_kind = find_page_kind(units[0].text if units else prose[:400], prose)
    layout = style.global_layout(
        prompt, prose, units, global_units, page_kind, _scope(units, drafts)
    )
    plan = assemble(title, page_kind, layout, drafts, tables)
    log.debug(
        "planned %r: %d sections, %d images, %d videos, %d charts",
        plan.title,
        len(plan.sections),
        len(plan.images),
        len(plan.videos),
        len(plan.charts),
    )
    return plan


def _scope(units: list[pt.Unit], drafts: list[sections.Draft]) -> Callable[[int], str]:
    """``scope(offset)`` → the kind of the section whose sentence holds ``offset`` ("" if none)."""
    kinds = {u.start: d.kind for d in drafts for u in d.units}
    starts = [u.start for u in units]

    def scope(offset: int) -> str:
        index = bisect.bisect_right(starts, offset) - 1
        return kinds.get(starts[index], "") if index >= 0 else ""

    return scope


_NAMED = re.compile(r"\b(?:called|titled|named|entitled)\s+[“\"]([^”\"\n]{2,80})[”\"]")
_BRAND = re.compile(
    r"\b(?:logo|wordmark|brand(?: name)?|site (?:name|title)|masthead)\b[^“\".]{0,80}"
    r"[“\"]([^”\"\n]{2,80})[”\"]",
    re.I,
)
_DESCRIPTOR = re.compile(r"(?:inspired by|like|about|such as|similar to)\s+(?:an?|the)?\s*$", re.I)


def find_title(prose: str) -> str:
    """The page title: the quote after "called/titled/named" in the opening sentence, else its
    first quote unless that is a descriptor ("inspired by a “…”"), else the logo/brand text, else
    the opening words. Trailing punctuation is trimmed."""
    first_line = prose.strip().split("\n", 1)[0]
    first = pt.split_units(first_line[:3000])[:1]
    sentence = first[0].text if first else ""
    named = _NAMED.search(sentence)
    quotes = [q for q in pt.find_quotes(sentence) if not _DESCRIPTOR.search(sentence[: q.start])]
    brand = _NAMED.search(first_line[:3000]) or _BRAND.search(prose[:6000])
    if named or quotes or brand:
        title = named.group(1) if named else (quotes[0].text if quotes else brand.group(1))
        return title.strip().rstrip(",.;:").strip()[:300] or "Untitled page"
    words = re.sub(r"^(?:design|create|build|make)\s+(?:a|an)\s+", "", prose.strip(), flags=re.I)
    return " ".join(words.split()[:6])[:300] or "Untitled page"


def find_page_kind(opening: str, prose: str) -> str:
    """One of plan.PAGE_KINDS: the first specific page word of the opening sentence (quoted
    names count: "a portfolio website … festival posters" is a portfolio), else of the prose
    outside quotes; "landing" when only a generic word (homepage, website) or none is found."""
    for text in (opening, pt.blank_quotes(prose[:3000])):
        hits = [kind for _, kind in pt.keyword_hits(text, vocab.PAGE_KINDS) if kind != "landing"]
        if hits:
            return hits[0]
    return "landing"


def place_quotes(
    prose: str, units: list[pt.Unit], drafts: list[sections.Draft], global_units: list[pt.Unit]
) -> None:
    """Put every quoted string of the prose into the slot of the section (or element) that the
    prompt places it in. Quotes of global sentences land in the first body section."""
    owner = {u.start: d for d in drafts for u in d.units}
    starts = [u.start for u in units]
    body = next((d for d in drafts if d.kind not in ("header", "footer")), drafts[-1])
    placed: set[str] = {_key(d.first("title")) for d in drafts[:1]}
    previous: tuple[int, tuple[str, bool] | None] = (-1, None)
    candidates: list[tuple[pt.Quote, sections.Draft, str, bool, pt.Unit]] = []
    for quote in pt.find_quotes(prose):
        index = bisect.bisect_right(starts, quote.start) - 1
        unit = units[max(index, 0)]
        draft = owner.get(unit.start)
        if draft is None and quote.text.strip(" ,.") in vocab.NAMED_FONTS:
            continue  # a font name in a page-level sentence is a typography hint, not copy
        prefix = pt.blank_quotes(prose[unit.start : quote.start])
        gap = prose[previous[0] : quote.start] if 0 <= quote.start - previous[0] <= 40 else "x"
        run = previous[1] if _LIST_GAP.match(gap) else None
        slot, explicit = run or _slot(prefix, (draft or body).kind, quote.text)
        if draft is None:  # page-level sentence: a chip of the first body section
            draft, slot, explicit = body, "tag", True
        previous = (quote.end, (slot, explicit))
        candidates.append((quote, draft, slot, explicit, unit))
    shown: dict[int, str] = {}  # per section, the quotes placed so far (normalised, joined)
    for quote, draft, slot, explicit, unit in _best_occurrences(candidates, placed):
        key = _key(quote.text)
        if key in shown.get(id(draft), ""):
            continue  # “Creative” inside the headline “Level Up Your Creative Superpowers.”
        shown[id(draft)] = shown.get(id(draft), "") + "\n" + key
        _put(draft, slot, explicit, quote, unit, prose)


def _best_occurrences(candidates: list, placed: set[str]) -> list:
    """One occurrence per distinct quote, in prose order: the first one, unless a later one
    names it explicitly as a title ("a card titled “Today’s Tasks”")."""
    best: dict[str, int] = {}
    for index, (quote, _, slot, explicit, unit) in enumerate(candidates):
        key = _key(quote.text)
        if key in placed:
            continue
        chosen = candidates[best[key]] if key in best else None
        titled = slot == "title" and explicit and _TITLED.search(quote_prefix(quote, unit))
        if chosen is None or (titled and chosen[2] != "title"):
            best[key] = index
    return [candidates[i] for i in sorted(best.values())]


_TITLED = re.compile(r"\b(?:titled|headed|called|labell?ed)\s*:?\s*[“\"]?$", re.I)


def quote_prefix(quote: pt.Quote, unit: pt.Unit) -> str:
    """Up to 40 characters of the quote's sentence before its opening quote mark (and it)."""
    return unit.text[max(0, quote.start - unit.start - 40) : quote.start - unit.start + 1]


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _slot(prefix: str, kind: str, text: str) -> tuple[str, bool]:
    """``(slot, explicit)`` for a quote: the nearest slot word before it in its sentence
    (explicit), else the section kind's default or a guess by length (not explicit)."""
    tail = prefix[-90:]
    if re.search(
        r"\b(?:titled|called|named|headed|heading|headline)(?:\s+(?:that\s+)?(?:reads?|"
        r"says|is))?\s*:?\s*$",
        tail,
        re.I,
    ):
        return "title", True
    if re.search(
        r"\b(?:card|panel|widget|section|module|box|column)\s+(?:labeled|labelled)\s*$", tail, re.I
    ):
        return "title", True
    if re.search(r"(?:^|[,;.]\s*)(?:body |its )?(?:text|copy|description)\s*:\s*$", tail, re.I):
        return "paragraph", True
    hits = pt.keyword_hits(tail, vocab.SLOT_WORDS)
    if hits and hits[-1][1] != "item":
        return hits[-1][1], True
    if hits and kind not in ("testimonials", "header", "footer", "sidebar", "stats"):
        return "item", False
    return _by_kind(kind, text), False


def _by_kind(kind: str, text: str) -> str:
    words = len(text.split())
    if kind in ("header", "footer", "sidebar") and words <= 4:
        return "tag" if text.rstrip()[-1:] in ".!?" else "nav"
    defaults = {
        "stats": "kpi",
        "pricing": "item",
        "team": "item",
        "timeline": "item",
        "features": "item",
        "gallery": "item",
        "form": "field",
        "table": "item",
    }
    if words > 9 or (words > 5 and text.rstrip()[-1:] in ".!?"):
        return "quote" if kind == "testimonials" else "paragraph"
    return defaults.get(kind, "heading")


def _put(
    draft: sections.Draft, slot: str, explicit: bool, quote: pt.Quote, unit: pt.Unit, prose: str
) -> None:
    """Place one quote into ``draft`` (or its element) according to ``slot``."""
    text = quote.text
    if draft.kind == "stats" and slot in ("tag", "item", "heading", "paragraph"):
        slot = "kpi"
    element = element_rules.element_at(draft.elements, unit, quote.start)
    if element is not None and element_rules.claims(element, slot, explicit, quote):
        return
    if slot in ("nav", "button"):
        target = (
            "nav_items"
            if slot == "nav" and draft.kind in ("header", "footer", "sidebar")
            else "buttons"
        )
        draft.add(target, text)
    elif slot in ("title", "subtitle"):
        draft.add(
            slot if not draft.first(slot) else ("headings" if slot == "title" else "paragraphs"),
            text,
        )
    elif slot == "tag":
        draft.add("tags", text)
    elif slot == "kpi":
        draft.add("items", SectionItem(label=text, value=_value_after(prose, quote.end)))
    elif slot == "field":
        draft.add("items", SectionItem(label=text, meta="field"))
    elif slot == "item":
        draft.add("items", SectionItem(title=text) if len(text) <= 60 else SectionItem(text=text))
    elif slot in ("paragraph", "quote", "caption"):
        draft.add("paragraphs", text)
    else:
        draft.add("headings", text)


def _value_after(prose: str, end: int) -> str:
    """A KPI value written right after its label: “Daily Active Players” (show 2,000,000)."""
    match = re.match(
        r"\s*\((?:show(?:ing)?|e\.g\.,?|value:?)?\s*([^)]{1,24})\)", prose[end : end + 40]
    )
    return match.group(1).strip() if match else ""


def assemble(
    title: str, page_kind: str, layout: dict, drafts: list[sections.Draft], tables: list[pt.Table]
) -> DesignPlan:
    """Build and validate the DesignPlan from section drafts, element drafts and dataset tables."""
    return assembly.build_plan(title, page_kind, layout, drafts, tables)
