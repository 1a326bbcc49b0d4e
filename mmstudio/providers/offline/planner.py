"""The offline planner: a deterministic, rule-based reader of long design prompts → DesignPlan.

MM-WebAgent §3 (hierarchical planning) without a model: the prompt's sentences are grouped into
sections in the order it describes them; every quoted string is placed in the slot its wording
names (nav item, button, headline, tag, KPI, caption, …; ``planner_quotes``); hex and named
colours get palette roles; every image, video and chart the prompt asks for becomes a sized
element plan whose ``prompt`` is the prompt's own sentences about it; dataset tables feed charts,
KPI tiles and tables.

Public API: :func:`plan_from_prompt`. Pure and deterministic; ≈ 40–60 ms of CPU for a 22k-character
bench prompt (``benchmarks/planner_fidelity.py``).

Steps and where they live: sentences, quotes, colours, tables (``prompt_text``); keyword tables
(``vocabulary``); sections in prompt order (``planner_sections``); images, videos, charts and
negations (``planner_elements``); palette, fonts, structure, mood (``planner_style``); chart and
table data (``planner_data``); ids, sizes and the validated plan (``planner_assembly``). This
module reads the title and page kind and runs the stages.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Callable

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline import planner_assembly as assembly
from mmstudio.providers.offline import planner_bans as looks
from mmstudio.providers.offline import planner_brief as brief
from mmstudio.providers.offline import planner_colours as colours
from mmstudio.providers.offline import planner_directives as directives
from mmstudio.providers.offline import planner_elements as element_rules
from mmstudio.providers.offline import planner_entries as entries
from mmstudio.providers.offline import planner_pages as site_pages
from mmstudio.providers.offline import planner_pricing as pricing
from mmstudio.providers.offline import planner_quotes as quotes
from mmstudio.providers.offline import planner_schedule as schedule
from mmstudio.providers.offline import planner_sections as sections
from mmstudio.providers.offline import planner_style as style
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab

log = logging.getLogger(__name__)


def plan_from_prompt(prompt: str) -> DesignPlan:
    """Plan a page — or a site, when the prompt asks for further pages ("an about page", "a
    multi-page site with Home, Menu, Contact"; ``planner_pages``) — from a design prompt.

    Returns a validated :class:`DesignPlan`; raises ``ValueError`` for an empty prompt."""
    return _plan(prompt, paginate=True)


def _plan(prompt: str, *, paginate: bool) -> DesignPlan:
    if not prompt or not prompt.strip():
        raise ValueError("the design prompt is empty")
    asked = ""
    if paginate and site_pages.asked_pages(prompt):
        asked, prompt = prompt, site_pages.without_page_lists(prompt)
    prose, dataset = pt.split_dataset(prompt)
    units = pt.split_units(prose)
    title = find_title(prose)
    drafts, global_units = sections.segment(units, title)
    bans = element_rules.banned_modalities(units, global_units)
    for draft in drafts:
        draft.elements = element_rules.find_elements(draft.units, draft.kind, bans)
    quotes.place_quotes(prose, units, drafts, global_units)
    sections.refine_kinds(drafts)
    for draft in drafts:
        pricing.group_plans(draft)  # each plan's name, price, line and features in one card
        schedule.group_rows(draft)  # each time with its session and subline in one row
        entries.group_entries(draft)  # "the second entry: name …; role line: …" in one card
    if not dataset.strip():
        drafts = brief.expand(prose, title, drafts)  # a short brief's listed parts
    tables = pt.parse_tables(dataset)
    page_kind = find_page_kind(units[0].text if units else prose[:400], prose)
    layout = style.global_layout(
        prompt, prose, units, global_units, page_kind, _scope(units, drafts)
    )
    layout["avoid"] = looks.page_bans(units, global_units)  # "no shadows", "no rounded corners"
    if not layout["column_ratio"]:  # "the page body … left column 65 %, right 35 %"
        layout["column_ratio"] = directives.page_ratio(units)
    layout["text_colours"] = colours.text_colours(prose, layout["palette"])
    plan = assemble(title, page_kind, layout, drafts, tables)
    if asked:
        source, _dataset = pt.split_dataset(asked)
        plan = site_pages.paginate(plan, source, lambda brief: _plan(brief, paginate=False))
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
_PART_NAMED = re.compile(  # "a bar chart titled “…”" names a part, not the page
    r"\b(?:chart|graph|plot|table|map|section|card|panel|tile|column|list|gallery|video|image)s?"
    r"\b[^.!?]{0,30}$",
    re.I,
)
_DESCRIPTOR = re.compile(r"(?:inspired by|like|about|such as|similar to)\s+(?:an?|the)?\s*$", re.I)


def _page_named(text: str) -> re.Match[str] | None:
    """The first "called/titled “…”" of ``text`` that names the page, not one of its parts."""
    for match in _NAMED.finditer(text):
        if not _PART_NAMED.search(text[max(0, match.start() - 60) : match.start()]):
            return match
    return None


def find_title(prose: str) -> str:
    """The page title: the quote after "called/titled/named" in the opening sentence, else its
    first quote unless that is a descriptor ("inspired by a “…”"), else the logo/brand text, else
    an unquoted name ("called Crumb & Co." → "Crumb & Co."), else the subject as a noun phrase
    ("product page for a smart water bottle" → "Smart Water Bottle"), else the opening clause.
    Trailing punctuation is trimmed (an abbreviation's full stop stays)."""
    first_line = prose.strip().split("\n", 1)[0]
    first = pt.split_units(first_line[:3000])[:1]
    sentence = first[0].text if first else ""
    named = _NAMED.search(sentence)
    quotes = [q for q in pt.find_quotes(sentence) if not _DESCRIPTOR.search(sentence[: q.start])]
    brand = _page_named(first_line[:3000]) or _BRAND.search(prose[:6000])
    if named:
        title = named.group(1)
    elif quotes:
        title = quotes[0].text
    elif brand:
        title = brand.group(1)
    else:
        title = None
    if title is not None:
        return title.strip().rstrip(",.;:").strip()[:300] or "Untitled page"
    name = brief.unquoted_name(sentence)
    if name:
        return name[:300]
    about = brief.title_from_subject(brief.subject(sentence))
    return about[:300] or _opening_words(sentence or prose)


_STOP_TAIL = {"a", "an", "the", "for", "of", "with", "and", "or", "to", "in", "on", "by", "small"}


def _opening_words(text: str) -> str:
    """At most six words of the opening clause, without a leading verb or trailing stop word."""
    clause = re.split(r"[,:;.!?]|\s(?:with|that|which|featuring|including)\s", text.strip())[0]
    clause = re.sub(r"^(?:design|create|build|make)\s+(?:a|an)\s+", "", clause, flags=re.I)
    words = clause.split()[:6]
    while len(words) > 1 and words[-1].lower() in _STOP_TAIL:
        words.pop()
    head = re.sub(r"^(?:an?|the)\s+", "", " ".join(words), flags=re.I)
    if (
        not head
        or head.lower() in ("page", "site", "website")
        or pt.first_key(head.split()[0], vocab.BRIEF_PARTS)
    ):
        return "Untitled page"  # "A hero with …" names a part, not the page
    return " ".join(words)[:300]


def find_page_kind(opening: str, prose: str) -> str:
    """One of plan.PAGE_KINDS: the first specific page word of the opening sentence (quoted
    names count: "a portfolio website … festival posters" is a portfolio), else of the prose
    outside quotes; "landing" when only a generic word (homepage, website) or none is found."""
    for text in (opening, pt.blank_quotes(prose[:3000])):
        hits = [kind for _, kind in pt.keyword_hits(text, vocab.PAGE_KINDS) if kind != "landing"]
        if hits:
            return hits[0]
    return "landing"


def assemble(
    title: str, page_kind: str, layout: dict, drafts: list[sections.Draft], tables: list[pt.Table]
) -> DesignPlan:
    """Build and validate the DesignPlan from section drafts, element drafts and dataset tables."""
    return assembly.build_plan(title, page_kind, layout, drafts, tables)
