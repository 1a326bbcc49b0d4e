"""Check requirements on what a visitor sees (:class:`~mmstudio.render.facts.PageFacts`).

Pure functions: ``check_all(requirements, facts)`` gives one :class:`RequirementResult` per
requirement. A requirement nothing here can read is ``unchecked`` (never a pass); without facts
(a page whose facts could not be read) every requirement is unchecked.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable

from mmstudio.render.facts import PageFacts

from .alike import check_alike
from .arrangement import check_arrangement
from .aspect import check_aspect
from .colour import colour_check
from .leaks import check_leak
from .model import Requirement, RequirementResult, Span
from .pairs import check_pairing
from .placement import check_placement
from .social import check_social_icons
from .text import fold, loose
from .typography import check_typography

log = logging.getLogger(__name__)
Check = Callable[[Requirement, PageFacts], RequirementResult]


def check_all(reqs: list[Requirement], facts: PageFacts | None) -> list[RequirementResult]:
    """One result per requirement, in the order given."""
    if facts is None:
        return [
            RequirementResult.of(r, "unchecked", "the page's facts could not be read") for r in reqs
        ]
    from .charts import check_data

    data = [r for r in reqs if (r.kind == "chart" and r.role != "axis") or r.checker == "data"]
    by_id = {res.id: res for res in check_data(data, facts)} if data else {}
    _unreadable_charts(by_id, facts)
    order = _order_result(reqs, facts)
    results = []
    for req in reqs:
        if req.id in by_id:
            results.append(by_id[req.id])
        elif req.kind == "section" and req.id == order.id:
            results.append(order)
        else:
            results.append(_one(req, facts))
    extra = [order] if order.status != "unchecked" and order.id not in by_id else []
    targets = nav_targets(reqs, results)
    return results + extra + ([targets] if targets.status != "unchecked" else [])


def _unreadable_charts(by_id: dict[str, RequirementResult], facts: PageFacts) -> None:
    """A chart reported missing while the page draws graphics no ECharts instance owns (a
    canvas, a large svg) or holds chart frames the render could not read (``unread_charts``)
    may be one of those: unchecked, not failed — as many as there are."""
    spare = len(facts.widgets.get("graphics") or []) + len(facts.widgets.get("unread_charts") or [])
    for key, res in list(by_id.items()):
        if spare and res.kind == "chart" and res.status == "fail" and not res.element:
            by_id[key] = res.model_copy(
                update={"status": "unchecked", "message": "drawn without ECharts: not readable"}
            )
            spare -= 1


def _one(req: Requirement, facts: PageFacts) -> RequirementResult:
    check = (
        check_repeat
        if req.role == "repeat"
        else BY_CHECKER.get(req.checker) or CHECKS.get(req.kind)
    )
    if check is None:
        return RequirementResult.of(req, "unchecked", "no rule reads this requirement")
    try:
        return check(req, facts)
    except Exception as exc:  # a check that trips on odd page facts must not sink the report
        log.warning("check %s failed", req.id, exc_info=True)
        return RequirementResult.of(req, "unchecked", f"the check failed: {type(exc).__name__}")


def _visible(facts: PageFacts, containers: list[str] = ()) -> str:
    """The page's visible words (and its charts' texts), padded with spaces, with every
    occurrence of the ``containers`` (loose longer quotes) cut out."""
    page = f" {loose(' '.join([facts.text, *(t for c in facts.charts for t in c.texts())]))} "
    for container in sorted(containers, key=len, reverse=True):
        page = page.replace(f" {container} ", " | ")
    return page


def check_copy(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Quoted copy must be visible text (alt text does not count) in its own right: its words
    inside a longer quote of the brief (``values``) do not show it; words the brief puts
    inside a picture can only be read by a judge (unchecked unless they are visible text).
    Capitals the brief asks for must show (after ``text-transform``)."""
    if req.role == "chart":
        return check_chart_text(req, facts)
    want = loose(req.label.replace("\\n", " "))  # a brief's "\\n" asks for a line break
    page = _visible(facts, req.values)
    if want and f" {want} " in page and req.role == "in-image":
        loose_block = _picture_free_block(want, facts)
        if loose_block:
            msg = f"“{_cut(req.label)}” is printed as page copy, not in the picture"
            return RequirementResult.of(req, "fail", msg, closest=loose_block)
        return RequirementResult.of(req, "pass", "shown over the picture")
    if want and f" {want} " in page:
        stray = _stray_punctuation(req, facts)
        if stray:
            what = (
                "is cut short" if stray.rstrip().endswith(("…", "...")) else "has stray punctuation"
            )
            msg = f"“{stray}” {what} (asked: “{req.label}”)"
            return RequirementResult.of(req, "fail", msg, closest=stray, asked=req.label)
        if "\\n" in req.label and "\\n" in facts.text:
            msg = f"“{_cut(req.label)}” is printed with its escape sequences (\\n) as text"
            return RequirementResult.of(req, "fail", msg, closest=req.label)
        demoted = _not_a_heading(req, facts) if req.role == "heading" else None
        if demoted:
            msg = f"“{_cut(req.label)}” is {demoted}, not a heading"
            return RequirementResult.of(req, "fail", msg, closest=req.label)
        shown = _lost_capitals(req.label, facts)
        if shown:
            msg = f"“{shown}” is not in capitals (asked: “{req.label}”)"
            return RequirementResult.of(req, "fail", msg, closest=shown)
        return RequirementResult.of(req, "pass", "visible", element=_block_owner(req, facts))
    if req.role == "in-image":
        return RequirementResult.of(req, "unchecked", "words inside a picture: a judge reads them")
    inside = next((c for c in req.values if want and f" {c} " in _visible(facts)), None)
    if inside:
        msg = f"“{_cut(req.label)}” shows only inside “{_cut(inside)}”, not on its own"
        return RequirementResult.of(req, "fail", msg, closest=inside)
    in_alt = any(want and want in loose(p.alt) for p in facts.pictures)
    near = _nearest_block(req.label, facts)
    msg = f"“{_cut(req.label)}” is not visible on the page"
    if in_alt:
        msg += " (only in an image's alt text)"
    elif near:
        msg += f"; the closest text is “{_cut(near)}”"
    return RequirementResult.of(req, "fail", msg, closest=near, in_alt=in_alt or None)


def check_chart_text(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Words the brief puts in a chart (a tick, an axis name, a legend entry): drawn by a live
    ECharts instance (its option's categories, series, legend and axis names) or shown as page
    text. A number inside a chart's value range is a tick or a value label ECharts draws by
    itself: unchecked, not a pass. With no readable chart on the page, unchecked."""
    want = loose(req.label)
    words = [t for c in facts.charts for t in c.texts()]
    words += [a.name for c in facts.charts for a in (*c.x_axis, *c.y_axis) if a.name]
    drawn = f" {loose(' '.join(words))} "
    if want and f" {want} " in drawn:
        return RequirementResult.of(req, "pass", "drawn in a chart")
    if want and f" {want} " in f" {loose(facts.text)} ":
        return RequirementResult.of(req, "pass", "visible", element=_block_owner(req, facts))
    readable = [c for c in facts.charts if c.readable]
    if not readable or facts.widgets.get("unread_charts"):
        return RequirementResult.of(req, "unchecked", "the chart it belongs to could not be read")
    number = _number_of(req.label)
    values = [v for c in readable for v in _chart_values(c)]
    if number is not None and values and min(0.0, *values) <= number <= 1.5 * max(values):
        msg = "a number in the chart's value range: ECharts draws its ticks and labels itself"
        return RequirementResult.of(req, "unchecked", msg)
    msg = f"“{_cut(req.label)}” is drawn in no chart and not shown on the page"
    return RequirementResult.of(req, "fail", msg, closest=_nearest_block(req.label, facts))


def _number_of(label: str) -> float | None:
    """'1,200' -> 1200.0, '45%' -> 45.0; None for words."""
    m = re.fullmatch(r"[$€£]?\s*(-?\d[\d,]*(?:\.\d+)?)\s*%?", label.strip())
    return float(m.group(1).replace(",", "")) if m else None


def _chart_values(chart) -> list[float]:
    """The numbers a chart's series draw (plain values, ``{value}`` items, [x, y] pairs)."""
    out: list[float] = []
    for series in chart.series:
        for d in series.data:
            d = d.get("value") if isinstance(d, dict) else d
            for v in d if isinstance(d, list) else [d]:
                if isinstance(v, int | float) and not isinstance(v, bool):
                    out.append(float(v))
    return out


def _picture_free_block(want: str, facts: PageFacts) -> str | None:
    """The text of a block showing ``want`` that overlaps no picture, video or chart (words the
    brief puts inside a picture, printed beside it), or None."""
    frames = [p.rect for p in facts.pictures] + [v.rect for v in facts.videos]
    for block in facts.blocks:
        text = loose(block.text)
        if f" {want} " not in f" {text} " or len(text) > 2 * len(want) + 20:
            continue
        r = block.rect
        over = any(
            r.x < f.x + f.w and f.x < r.x + r.w and r.y < f.y + f.h and f.y < r.y + r.h
            for f in frames
        )
        if not over:
            return block.text
    return None


def check_repeat(req: Requirement, facts: PageFacts) -> RequirementResult:
    """A quote the brief places in ``count`` paragraphs (a brand in the header and the footer)
    must show at least that many times, not counting its words inside longer quotes; a list
    of them (``values`` with ``numbers``) must show each label as often."""
    if req.numbers:
        page = _visible(facts)
        short = [
            label for label, need in zip(req.values, req.numbers, strict=False)
            if page.count(f" {loose(label)} ") < need
        ]  # fmt: skip
        if not short:
            return RequirementResult.of(req, "pass", f"all {len(req.values)} shown again")
        names = ", ".join(f"“{x}”" for x in short[:6])
        verb = "is" if len(short) == 1 else "are"
        msg = f"{names} {verb} not shown again where the brief lists them"
        return RequirementResult.of(req, "fail", msg, labels=short)
    want = loose(req.label)
    shown = _visible(facts, req.values).count(f" {want} ") if want else 0
    need = req.count or 2
    if shown >= need:
        return RequirementResult.of(req, "pass", f"shown {shown} times")
    times = "once" if shown == 1 else f"{shown} times"
    msg = f"“{_cut(req.label)}” shows {times}; the brief places it in {need} places"
    return RequirementResult.of(req, "fail", msg, shown=shown, expected=need)


def _not_a_heading(req: Requirement, facts: PageFacts) -> str | None:
    """How a heading the brief names is shown when no block shows it as one — "a button",
    "small text (13 px)" — or None: it is a heading (an ``h1``–``h6``, 20 px or more, or bold
    15 px or more), or no block holds it whole (it sits inside longer copy: unclear)."""
    want = fold(req.label)
    if len(want.split()) > 8:
        return None  # a sentence after "heading … and below it": copy, whatever its size
    whole = [b for b in facts.blocks if fold(b.text).rstrip(".,;:!?") == want.rstrip(".,;:!?")]
    if not whole:
        return None
    if any(
        b.heading
        or b.font_size >= 20
        or (b.font_weight >= 600 and b.font_size >= 15 and not b.button)
        for b in whole
    ):
        return None
    if all(b.button or b.link for b in whole):
        return "a button" if any(b.button for b in whole) else "a link"
    return f"small text ({round(min(b.font_size for b in whole))} px)"


def _lost_capitals(label: str, facts: PageFacts) -> str | None:
    """The block showing ``label`` in other case when the brief asks for capitals (block text is
    the rendered ``innerText``, so ``text-transform: uppercase`` counts as capitals)."""
    letters = [c for c in label if c.isalpha()]
    if len(letters) < 3 or not all(c.isupper() for c in letters):
        return None
    want = loose(label)
    shown = [b.text for b in facts.blocks if f" {want} " in f" {loose(b.text)} "]
    if not shown or any(label in b or label.replace("’", "'") in b for b in shown):
        return None
    return min(shown, key=len)


def check_label(req: Requirement, facts: PageFacts) -> RequirementResult:
    """A short label must be some element's whole text (no stray punctuation, not merged)."""
    want = fold(req.label)
    blocks = [
        b for b, row in zip(facts.blocks, folded_blocks(facts), strict=True) if row[1] == want
    ]
    if req.kind == "nav":
        links = [b for b in blocks if b.link or b.button]
        if links:
            return _nav_target(req, links[0], facts)
        if blocks:
            return RequirementResult.of(req, "fail", f"“{req.label}” is on the page but not a link")
    elif blocks:
        hit = next((b for b in blocks if b.button), blocks[0])
        if req.role == "button" and not any(b.button or b.link for b in blocks):
            return RequirementResult.of(req, "fail", f"“{req.label}” is text, not a button")
        return RequirementResult.of(req, "pass", "an element's whole text", element=hit.owner)
    near = _nearest_block(req.label, facts)
    if near and loose(near) == loose(req.label):
        return RequirementResult.of(
            req,
            "fail",
            f"“{near}” has stray punctuation (asked: “{req.label}”)",
            closest=near,
            asked=req.label,
        )
    where = "in the navigation" if req.kind == "nav" else "as a label"
    msg = f"“{req.label}” is missing {where}"
    if near:
        msg += f"; the closest text is “{_cut(near)}”"
    return RequirementResult.of(req, "fail", msg, closest=near)


def _nav_target(req: Requirement, link, facts: PageFacts) -> RequirementResult:
    """A nav link is there: it passes, and its evidence says whether it leads somewhere —
    another page, or a section id on this one (not ``#``, ``#top`` or a missing id)."""
    href = (link.href or "").strip()
    target = href[1:] if href.startswith("#") else None
    dead = target is not None and (not target or target == "top" or target not in facts.anchors)
    if fold(req.label) in ("home", "start", "top"):
        dead = False
    where = link.owner or link.section
    return RequirementResult.of(req, "pass", f"a link to {href or 'itself'}", element=where,
                                href=href, dead=dead or None)  # fmt: skip


def nav_targets(reqs: list[Requirement], results: list[RequirementResult]) -> RequirementResult:
    """One result for the whole navigation: the brief's nav links lead to their sections."""
    navs = [r for r in results if r.kind == "nav" and r.status == "pass"]
    first = next((q for q in reqs if q.kind == "nav"), None)
    base = Requirement(
        id="prompt-nav-targets", kind="nav", key="nav targets",
        text="Nav links lead to their sections", span=first.span if first else Span(),
        severity="major",
    )  # fmt: skip
    if not navs:
        return RequirementResult.of(base, "unchecked", "no nav link to follow")
    dead = [r.key for r in navs if r.evidence.get("dead")]
    if not dead:
        return RequirementResult.of(base, "pass", f"{len(navs)} links lead somewhere")
    hrefs = sorted({str(r.evidence.get("href")) for r in navs if r.evidence.get("dead")})
    msg = f"{', '.join(f'“{d}”' for d in dead[:6])} lead nowhere ({', '.join(hrefs)})"
    return RequirementResult.of(base, "fail", msg, dead=dead, element=navs[0].element)


def _stray_punctuation(req: Requirement | str, facts: PageFacts) -> str | None:
    """A label shown with punctuation that is not its own, by the brief's words: a trailing
    comma, semicolon or colon (“ColorBloom Studio,” on a chip); a doubled dash before an
    attribution (“— — Maya Ortiz”); the period of the brief's sentence on a title or on the
    last item of a list (“Closing Circle & Take-Home Guide.”); or, for a short label, a badge,
    button, tag or heading whose whole text is the label plus . , ; : — never a sentence, a
    caption or an initial ("Avery P.")."""
    label = req if isinstance(req, str) else req.label
    sentence_end = False if isinstance(req, str) else req.sentence_end
    want = fold(label)
    rows = folded_blocks(facts)
    if not want:
        return None
    for block, (_, folded, _) in zip(facts.blocks, rows, strict=True):
        if folded == want or block.tag in ("blockquote", "q"):
            continue
        if len(label.split()) <= 8 and folded[:-1] == want and folded[-1:] in ",;:":
            return block.text
        if want.startswith("-") and folded.endswith(want) and folded[: -len(want)].strip() == "-":
            return block.text
        if sentence_end and folded == want + ".":
            return block.text
    words = label.split()
    if len(words) > 4 or label.rstrip()[-1:] in ".,;:!?" or re.search(r"[.!?,]\s", label):
        return None
    if re.search(r"(?:^|\s)[A-Z]$", label):
        return None
    if any(row[1] == want for row in rows):
        return None
    for block, (_, folded, _) in zip(facts.blocks, rows, strict=True):
        if block.tag in _PROSE_TAGS:
            continue
        if folded != want and folded.rstrip(".,;:") == want:
            return block.text
    return None


_PROSE_TAGS = ("p", "figcaption", "blockquote", "dd", "cite", "q")


_FOLDED: dict[int, tuple[PageFacts, list[tuple[str, str, set[str]]]]] = {}


def folded_blocks(facts: PageFacts) -> list[tuple[str, str, set[str]]]:
    """(text, folded text, loose words) of every block, computed once per facts object."""
    cached = _FOLDED.get(id(facts))
    if cached is None or cached[0] is not facts:
        rows = [(b.text, fold(b.text), set(loose(b.text).split())) for b in facts.blocks]
        _FOLDED.clear()
        _FOLDED[id(facts)] = cached = (facts, rows)
    return cached[1]


def _nearest_block(label: str, facts: PageFacts) -> str | None:
    """The visible block sharing most words with ``label`` (None below half of them)."""
    want = set(loose(label).split())
    if not want:
        return None
    best, score = None, 0.0
    for text, _, have in folded_blocks(facts):
        block_text = text
        share = len(want & have) / max(len(want), len(have))
        if share > score:
            best, score = block_text, share
    return best if score >= 0.5 else None


def _block_owner(req: Requirement, facts: PageFacts) -> str | None:
    want = loose(req.label)
    for block in facts.blocks:
        if want and want in loose(block.text):
            return block.owner or block.section
    return None


def _cut(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"


def check_section(req: Requirement, facts: PageFacts) -> RequirementResult:
    """A section whose id, classes, label or heading name it (hero: the first section)."""
    found = find_section(req.role, facts, req.values)
    if found is None:
        return RequirementResult.of(req, "fail", f"no {req.role} section on the page")
    return RequirementResult.of(req, "pass", "present", element=found.id or None, y=found.rect.y)


def find_section(name: str, facts: PageFacts, titles: list[str] | tuple = ()):
    """The first page section that plays ``name`` — by its id, classes, label or heading, or by
    one of the brief's ``titles`` for it as its heading (hero: the first section) — or None."""
    from .text import vocabulary, words_pattern

    entry = vocabulary()["sections"].get(name, {"words": [name]})
    pattern = words_pattern([name, *entry["words"]])
    for section in facts.sections:
        names = f"{section.id} {section.classes} {section.label}".replace("-", " ").replace(
            "_", " "
        )
        if pattern.search(names) or pattern.search(section.heading):
            return section
        if section.heading and fold(section.heading) in {fold(t) for t in titles}:
            return section
        if sum(loose(t) in loose(section.text) for t in titles if len(t) > 3) >= 2:
            return section
        if name == "header" and section.tag in ("header", "nav"):
            return section
        if name == "footer" and section.tag == "footer":
            return section
    if name == "hero":
        body = [s for s in facts.sections if s.tag not in ("header", "nav", "footer")]
        return body[0] if body and body[0].rect.y < 900 else None
    return None


def _order_result(reqs: list[Requirement], facts: PageFacts) -> RequirementResult:
    """One extra result: the sections found appear in the brief's order (top to bottom)."""
    asked = sorted((r for r in reqs if r.kind == "section"), key=lambda r: r.order or 0)
    base = Requirement(
        id="prompt-section-order",
        kind="section",
        key="section order",
        text="Sections in the brief's order",
        span=asked[0].span if asked else Span(),
        severity="major",
    )
    ys = [
        (r.role, find_section(r.role, facts)) for r in asked if r.role not in ("header", "footer")
    ]
    placed = [(name, s.rect.y) for name, s in ys if s is not None]
    if len(placed) < 2:
        return RequirementResult.of(base, "unchecked", "fewer than two sections to order")
    swaps = [(a[0], b[0]) for i, a in enumerate(placed) for b in placed[i + 1 :] if b[1] < a[1] - 1]
    if swaps:
        first = swaps[0]
        msg = f"{first[1]} comes before {first[0]} (the brief has {first[0]} first)"
        return RequirementResult.of(base, "fail", msg, swapped=[list(s) for s in swaps[:5]])
    return RequirementResult.of(base, "pass", "in order", order=[p[0] for p in placed])


def check_logo_icon(req: Requirement, facts: PageFacts) -> RequirementResult:
    """A small mark (an svg, a small picture, an emoji) in the header, by the logo."""
    header = find_section("header", facts)
    if header is None:
        return RequirementResult.of(req, "unchecked", "no header on the page to look in")
    top, bottom = header.rect.y, header.rect.y + header.rect.h
    marks = [i for i in facts.icons if top <= i.rect.y + i.rect.h / 2 <= bottom]
    marks += [
        b for b in facts.blocks
        if top <= b.rect.y <= bottom and len(b.text.strip()) <= 2
        and any(unicodedata.category(c) == "So" for c in b.text)
    ]  # fmt: skip
    if marks:
        return RequirementResult.of(req, "pass", "a mark in the header", element=header.id or None)
    msg = "no icon or mark by the logo in the header"
    return RequirementResult.of(req, "fail", msg, element=header.id or None)


def _section_pictures(req: Requirement, facts: PageFacts) -> RequirementResult:
    """``count`` pictures inside the section the brief describes (unchecked when that section
    is not on the page: the section requirement reports it)."""
    scope = _scope(req, facts)
    if scope is None:
        return RequirementResult.of(req, "unchecked", "the section is not on the page")
    top, bottom = scope.rect.y, scope.rect.y + scope.rect.h
    inside = [
        p for p in facts.pictures
        if p.rect.w * p.rect.h >= 4000 and top <= p.rect.y + p.rect.h / 2 < bottom
    ]  # fmt: skip
    n, where = req.count or 2, req.label or f"section “{_cut(scope.heading)}”"
    if len(inside) >= n:
        return RequirementResult.of(req, "pass", f"{len(inside)} pictures in the {where}")
    msg = f"{len(inside)} picture{'s' if len(inside) != 1 else ''} in the {where}, {n} asked"
    return RequirementResult.of(req, "fail", msg, element=scope.id or None, found=len(inside))


def check_image(req: Requirement, facts: PageFacts) -> RequirementResult:
    if req.role == "logo-icon":
        return check_logo_icon(req, facts)
    if req.role == "count":
        return _section_pictures(req, facts)
    pictures = [p for p in facts.pictures if p.rect.w * p.rect.h >= 4000]
    asked = req.count or 1
    if len(pictures) >= asked:
        return RequirementResult.of(req, "pass", f"{len(pictures)} pictures", found=len(pictures))
    msg = f"{len(pictures)} picture{'s' if len(pictures) != 1 else ''} on the page, {asked} asked"
    return RequirementResult.of(req, "fail", msg, found=len(pictures), asked=asked)


def check_video(req: Requirement, facts: PageFacts) -> RequirementResult:
    if facts.videos:
        return RequirementResult.of(req, "pass", "a visible video", element=facts.videos[0].owner)
    return RequirementResult.of(req, "fail", "no visible video on the page")


def check_field(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Input fields the brief names by label or placeholder (``values``: “Your Name”, “Email
    Address”, “you@example.com”): each an input, textarea or select whose label, placeholder,
    name or aria-label holds the words, or that sits right below or beside a line showing
    them. The words as a chip or a card with no input are no field."""
    missing, as_text = [], []
    for label in req.values or [req.label]:
        found = _field(label, facts)
        if found is None or found:
            missing.append(label)
        if found:
            as_text.append(found)
    if not missing:
        n = len(req.values or [req.label])
        return RequirementResult.of(req, "pass", f"{n} input field{'s' if n > 1 else ''}")
    names = ", ".join(f"“{_cut(x)}”" for x in missing[:5])
    how = "shown as text with no input" if as_text else "no input field"
    msg = f"{names}: {how}" if len(missing) > 1 or as_text else f"no input field {names}"
    return RequirementResult.of(req, "fail", msg, labels=missing, closest=(as_text or [None])[0])


def _field(label: str, facts: PageFacts) -> str | None:
    """None when no input shows ``label``; "" when one does; the block's text when the words
    are on the page but no input goes with them."""
    want = loose(label)
    inputs = facts.widgets.get("inputs") or []
    for field in inputs:
        said = loose(" ".join(str(field.get(k) or "") for k in ("label", "placeholder", "name")))
        if want and (f" {want} " in f" {said} " or (said and f" {said} " in f" {want} ")):
            return ""
    for block in facts.blocks:
        if loose(block.text) != want:
            continue
        r = block.rect
        for field in inputs:
            f = field.get("rect") or {}
            fx, fy = f.get("x", -9999), f.get("y", -9999)
            below = 0 <= fy - (r.y + r.h) <= 60 and abs(fx - r.x) <= 80
            beside = abs(fy - r.y) <= 30 and 0 <= fx - (r.x + r.w) <= 120
            if below or beside:
                return ""
        return block.text or None
    return None


def check_widget(req: Requirement, facts: PageFacts) -> RequirementResult:
    if req.role == "field":
        return check_field(req, facts)
    value = facts.widgets.get(req.role)
    if req.role == "form":
        value = facts.widgets.get("form", 0) or len(facts.widgets.get("inputs", []))
    if value is None:
        return RequirementResult.of(req, "unchecked", f"no rule reads a {req.role}")
    if value:
        return RequirementResult.of(req, "pass", f"{req.role} present", found=value)
    return RequirementResult.of(req, "fail", f"no {req.role} on the page")


def check_font(req: Requirement, facts: PageFacts) -> RequirementResult:
    """A named typeface (or one of the brief's alternatives) is used and drawable here."""
    names = req.values or [req.label]
    drawable = {fold(k): v for k, v in facts.available.items()}
    misses = []
    for name in names:
        want = fold(name)
        stacks = [f for f in facts.fonts if want in fold(f.family)]
        if stacks and drawable.get(want) is not False:
            return RequirementResult.of(req, "pass", "declared", where=[f.where for f in stacks])
        if stacks:
            misses.append((name, _fallback(stacks[0].family, drawable)))
    if misses:
        name, shown = misses[0]
        msg = f"{name} is named but not available; the text renders in {shown}"
        return RequirementResult.of(req, "fail", msg)
    used = sorted({f.family.split(",")[0].strip("\"' ") for f in facts.fonts})
    msg = f"{' or '.join(names)} is not used; the page uses {', '.join(used) or 'the default font'}"
    return RequirementResult.of(req, "fail", msg, used=used)


def _fallback(stack: str, drawable: dict[str, bool]) -> str:
    """The first family of a CSS font stack this browser can draw (else the generic one)."""
    names = [n.strip().strip("\"'") for n in stack.split(",")]
    return next((n for n in names if drawable.get(fold(n))), names[-1] if names else "a default")


def check_layout(req: Requirement, facts: PageFacts) -> RequirementResult:
    if req.role == "header":
        header = facts.header
        if header is None:
            return RequirementResult.of(req, "fail", "no header on the page")
        if header.scrolled < 200:
            return RequirementResult.of(req, "unchecked", "the page is too short to scroll")
        if -2 <= header.top_after <= 40:
            return RequirementResult.of(req, "pass", "stays at the top", element=header.section)
        top, scrolled = round(header.top_after), round(header.scrolled)
        msg = f"the header scrolls away (top {top} px after scrolling {scrolled} px)"
        return RequirementResult.of(
            req, "fail", msg, element=header.section, position=header.position
        )
    if req.ratio:
        return _ratio(req, facts)
    if req.count:
        return _count(req, facts)
    return RequirementResult.of(req, "unchecked", "no rule reads this layout directive")


def _ratio(req: Requirement, facts: PageFacts) -> RequirementResult:
    """The row closest to the brief's shares — inside the section the brief describes there
    when that section is on the page (a split of one section is not met by another's)."""
    from .arrangement import in_scope, scope_of

    best = None
    scope = (_scope(req, facts) or scope_of(req, facts, req.values)) if req.values else None
    if scope is None and req.label:
        scope = _scope(req, facts)
    for row in in_scope(facts.rows, scope) if scope is not None else facts.rows:
        if row.per_row != len(req.ratio) or row.width < 600:
            continue
        total = sum(row.widths) or 1
        error = max(abs(w / total - r) for w, r in zip(row.widths, req.ratio, strict=True))
        if best is None or error < best[0]:
            best = (error, row)
    if best is None:
        where = f"in “{_cut(scope.heading or scope.id)}”" if scope is not None else "on the page"
        msg = f"no {len(req.ratio)}-column row {where}"
        return RequirementResult.of(req, "fail", msg, element=scope.id if scope else None)
    error, row = best
    shares = [round(w / (sum(row.widths) or 1), 2) for w in row.widths]
    if error <= 0.03:
        return RequirementResult.of(req, "pass", f"columns {shares}", element=row.section)
    msg = f"the closest columns are {' / '.join(f'{s:.0%}' for s in shares)}"
    return RequirementResult.of(req, "fail", msg, element=row.section, shares=shares)


def _count(req: Requirement, facts: PageFacts) -> RequirementResult:
    """A row of ``count`` side by side (columns) or a group of exactly ``count`` (cards, tiles,
    plans: nine pooled tags are no three cards) — inside the section the brief describes
    (``label``, with its titles in ``values``) when that section is on the page."""
    n = req.count or 0
    scope = _scope(req, facts)
    rows = facts.rows
    where = ""
    if scope is not None:
        top, bottom = scope.rect.y, scope.rect.y + scope.rect.h
        rows = [r for r in rows if (scope.id and r.section == scope.id) or top <= r.y < bottom]
        where = f" in the {req.label or 'section “' + _cut(scope.heading) + '”'}"
    fits = [r for r in rows if (r.total == n if req.role == "grid" else r.per_row == n)]
    if fits:
        return RequirementResult.of(req, "pass", f"a row of {n}{where}", element=fits[0].section)
    element = (scope.id or None) if scope is not None else None
    if req.role == "grid":
        sizes = sorted({r.total for r in rows})[:6]
        msg = f"no group of {n} {req.key.split(' ', 1)[-1]}{where} (groups of {sizes or 0})"
        return RequirementResult.of(req, "fail", msg, element=element)
    widest = max((r.per_row for r in rows), default=0)
    msg = f"no row of {n} side by side{where} (widest row: {widest})"
    return RequirementResult.of(req, "fail", msg, element=element)


def _scope(req: Requirement, facts: PageFacts):
    """The page section a layout directive is about: by the section's name (``label``) and its
    titles (``values``), or, for a section the brief does not name, by a title as its heading."""
    if req.label:
        return find_section(req.label, facts, req.values)
    titles = {fold(t) for t in req.values}
    return next((s for s in facts.sections if s.heading and fold(s.heading) in titles), None)


def check_axis(req: Requirement, facts: PageFacts) -> RequirementResult:
    """A chart's value axis names what it measures (its ECharts ``yAxis.name``), on the chart
    the brief titles (``values``) or, without a title, on any chart; a word shared by its start
    (five letters: "minutes" / "Avg. minutes", "revenue in thousands" / "Revenue (k)") will do."""
    charts = facts.charts
    if req.values:
        titled = [c for c in charts if c.title and loose(c.title) == loose(req.values[0])]
        charts = titled or charts
    if not charts:
        return RequirementResult.of(req, "unchecked", "no readable chart on the page")
    stems = {w[:5] for w in loose(req.label).split() if len(w) >= 3} - {"the", "and", "in"}
    named = [a.name for c in charts for a in c.y_axis if a.name]
    if any(stems & {w[:5] for w in loose(n).split()} for n in named):
        return RequirementResult.of(req, "pass", "the axis names it", element=charts[0].owner)
    where = f" of “{_cut(req.values[0])}”" if req.values else ""
    shown = f" (its name: “{_cut(named[0])}”)" if named and req.values else ""
    msg = f"the y-axis{where} does not say “{req.label}”{shown}"
    return RequirementResult.of(req, "fail", msg, element=charts[0].owner)


def check_prohibition(req: Requirement, facts: PageFacts) -> RequirementResult:
    found = {
        "video": [v.src for v in facts.videos],
        "gradient": [g.get("selector") for g in facts.styles.gradients],
        "shadow": [s.get("selector") for s in facts.styles.box_shadows],
        "photo": [p.src for p in facts.pictures if p.rect.w * p.rect.h >= 4000],
        "chart": [c.owner for c in facts.charts],
    }.get(req.role)
    if found is None:
        return RequirementResult.of(req, "unchecked", f"no rule reads 'no {req.role}'")
    if not found:
        return RequirementResult.of(req, "pass", f"no {req.role} on the page")
    msg = f"the brief says no {req.role}, the page has {len(found)}"
    return RequirementResult.of(req, "fail", msg, found=[str(f) for f in found[:5]])


CHECKS: dict[str, Check] = {
    "chart": lambda req, facts: check_axis(req, facts),
    "copy": check_copy,
    "label": check_label,
    "nav": check_label,
    "section": check_section,
    "image": check_image,
    "video": check_video,
    "widget": check_widget,
    "palette": colour_check,
    "font": check_font,
    "layout": check_layout,
    "prohibition": check_prohibition,
    "leak": check_leak,
    "pairing": check_pairing,
}
#: checks chosen by a requirement's ``checker`` before its kind's
BY_CHECKER: dict[str, Check] = {
    "typography": check_typography,
    "placement": check_placement,
    "arrangement": check_arrangement,
    "social": check_social_icons,
    "aspect": check_aspect,
    "alike": check_alike,
}
