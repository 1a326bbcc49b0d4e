"""Measured checks on the whole page: overflow, text boxes, sandbox records, accessibility, plan."""

from __future__ import annotations

from collections import defaultdict
from urllib.parse import urlsplit

from mmstudio.plan import DesignPlan
from mmstudio.render.model import Render, TextProbe

from .findings import Element, Findings

OVERFLOW_MIN_PX = 4
OVERLAP_MIN_SHARE = 0.5  # share of the smaller text box covered by another text
MAX_TEXT_ISSUES = 3
A11Y_IMPACTS = ("serious", "critical")
A11Y_ALWAYS = ("heading-order",)  # named by MM Studio issue 3 even though axe rates it moderate
IGNORED_MISSING = ("favicon.ico",)
_MINOR_SECTIONS = ("header", "footer", "cta")


def check_page(render: Render, elements: dict[str, Element], found: Findings) -> None:
    """Every page-level check that needs no plan."""
    _overflow(render, found)
    _texts(render, found)
    _sandbox(render, elements, found)
    _scripts(render, elements, found)
    _a11y(render, elements, found)


def _overflow(render: Render, found: Findings) -> None:
    for item in render.overflow:
        if item.overflow_px <= OVERFLOW_MIN_PX:
            continue
        culprits = [c.selector for c in item.culprits]
        owners = {c.owner for c in item.culprits if c.owner}
        found.add(
            "horizontal-overflow",
            f"At {item.viewport_w} px wide the page scrolls sideways: its content is "
            f"{item.scroll_w} px wide ({round(item.overflow_px)} px too wide)"
            + (f", pushed by {', '.join(culprits[:3])}." if culprits else "."),
            next(iter(owners)) if len(owners) == 1 else None,
            viewport_px=item.viewport_w,
            content_px=item.scroll_w,
            culprits=culprits,
            screenshot=item.screenshot or None,
        )


def _texts(render: Render, found: Findings) -> None:
    probe = render.probe
    overlaps = [o for o in probe.overlaps if o.share >= OVERLAP_MIN_SHARE]
    for o in overlaps[:MAX_TEXT_ISSUES]:
        a, b = probe.texts[o.a], probe.texts[o.b]
        found.add(
            "text-overlap",
            f"Text “{a.snippet[:40]}” overlaps text “{b.snippet[:40]}” ({o.share:.0%} of the "
            "smaller block).",
            a.owner or b.owner,
            selectors=[a.selector, b.selector],
            share=round(o.share, 2),
        )
    spilled = [t for t in probe.texts if _spills(t)]
    for t in spilled[:MAX_TEXT_ISSUES]:
        found.add(
            "text-overflow",
            f"Text “{t.snippet[:40]}” runs out of its box ({t.selector}).",
            t.owner,
            text_px=[round(t.rect.x), round(t.rect.w)],
            box_px=[round(t.box.x), round(t.box.w)],
            count=len(spilled),
        )


def _spills(t: TextProbe) -> bool:
    """Glyphs past the element's own box (visible overflow), or cut off without an ellipsis."""
    if (t.display.startswith("inline") and t.display != "inline-block") or t.box.w < 8:
        return False
    right_over = t.rect.x + t.rect.w - (t.box.x + t.box.w)
    left_over = t.box.x - t.rect.x
    if t.overflow_x == "visible" and max(right_over, left_over) > OVERFLOW_MIN_PX:
        return True
    clipped = t.overflow_y in ("hidden", "clip") and t.scroll_h > t.client_h + OVERFLOW_MIN_PX
    return clipped and t.line_clamp in ("none", "") and t.text_overflow != "ellipsis"


def _sandbox(render: Render, elements: dict[str, Element], found: Findings) -> None:
    claimed = {e.probe.path for e in elements.values() if e.probe is not None and e.probe.path}
    claimed |= {e.probe.src for e in elements.values() if e.probe is not None and e.probe.src}
    hosts: dict[tuple[str, str], list[str]] = defaultdict(list)
    for record in render.blocked:
        if record.reason == "navigation":
            found.add(
                "navigation",
                f"A script tried to navigate the page away to {record.url[:120]}; it was blocked.",
                url=record.url[:300],
            )
        elif record.reason == "popup":
            found.add("navigation", "A script opened a popup window; it was closed.")
        elif record.reason == "missing" and record.path not in claimed:
            if record.path.rsplit("/", 1)[-1] not in IGNORED_MISSING:
                found.add(
                    "missing-file",
                    f"The page asks for {record.path}, which is not in the site folder.",
                    path=record.path,
                    kind=record.resource_type,
                )
        elif record.reason in ("network", "outside-site") and record.url not in claimed:
            host = urlsplit(record.url).netloc or record.url[:40]
            hosts[(host, record.resource_type)].append(record.url)
    for (host, kind), urls in list(hosts.items())[:5]:
        severity = "major" if kind in ("script", "stylesheet", "document") else "minor"
        found.add(
            "blocked-request",
            f"The page loads a {kind or 'file'} from {host}; the renderer blocked it. A site "
            "must be self-contained: bundle it in the site folder or drop it.",
            severity=severity,
            host=host,
            urls=urls[:5],
        )


def _scripts(render: Render, elements: dict[str, Element], found: Findings) -> None:
    for dialog in render.dialogs[:3]:
        found.add(
            "dialog",
            f"The page opens a dialog ({dialog[:120]}); it was dismissed. Pages must not "
            "interrupt the visitor with alerts.",
            dialog=dialog,
        )
    if render.console_errors:
        found.add(
            "console-error",
            f"The page logs {len(render.console_errors)} script error(s), first: "
            f"{render.console_errors[0][:160]}",
            errors=render.console_errors[:5],
        )
    attributed = any(i.code == "chart-script-hang" for e in elements.values() for i in e.issues)
    if render.script_timeouts and not attributed:
        found.add(
            "script-timeout",
            "A page script ran without end (an endless loop); the renderer stopped it. The page "
            "is shown as it was when stopped.",
            stages=[t["stage"] for t in render.script_timeouts],
        )


def _a11y(render: Render, elements: dict[str, Element], found: Findings) -> None:
    by_src = {e.probe.src: e.id for e in elements.values() if e.probe is not None and e.probe.src}
    for violation in render.a11y:
        if violation.impact not in A11Y_IMPACTS and violation.id not in A11Y_ALWAYS:
            continue
        if violation.id == "image-alt":
            loose = []
            for node in violation.nodes:
                owner = node.owner if node.owner in elements else by_src.get(node.src)
                if owner:
                    found.add(
                        "missing-alt",
                        f"The image {owner} has no alt text; describe it for screen readers.",
                        owner,
                        target=node.target,
                    )
                else:
                    loose.append(node)
            if not loose:
                continue
        owners = {n.owner for n in violation.nodes}
        found.add(
            "a11y",
            f"Accessibility ({violation.id}): {violation.help} — {len(violation.nodes)} "
            f"element(s), e.g. {violation.nodes[0].target if violation.nodes else ''}.",
            owners.pop() if len(owners) == 1 else None,
            rule=violation.id,
            impact=violation.impact,
            targets=[n.target for n in violation.nodes[:5]],
        )


def check_plan(render: Render, plan: DesignPlan, found: Findings) -> None:
    """The page against its plan: planned sections present and in order, planned elements
    present in their section, and offline pictures whose plan records that no motif matched
    their subject (the motif record's note: "no motif for 'sourdough crumb'; drew a generic
    bakery scene")."""
    probe = render.probe
    page_sections = [s.id for s in probe.sections]
    for section in plan.sections:
        if section.id not in page_sections:
            code = "section-missing-minor" if section.kind in _MINOR_SECTIONS else "section-missing"
            found.add(code, f"The planned {section.kind} section {section.id!r} is missing.")
    planned = [s.id for s in plan.sections if s.id in page_sections]
    seen = [s for s in dict.fromkeys(page_sections) if s in planned]
    if seen != planned:
        found.add(
            "section-order",
            "Sections are out of the planned order.",
            planned=planned,
            page=seen,
        )
    where = {i.id: i.section for i in probe.ids}
    for element in plan.elements():
        record = getattr(element, "motifs", None)
        if element.id in where and record is not None and record.note:
            found.add(
                "subject-unmatched",
                f"{element.id} does not show its subject: {record.note}",
                element.id,
                motifs=record.motifs or None,
                words=record.words or None,
            )
        if element.id not in where:
            found.add(
                "element-missing",
                f"The planned {element.kind} {element.id!r} is not on the page.",
                element.id,
            )
        elif where[element.id] != element.context.section:
            found.add(
                "element-misplaced",
                f"{element.id!r} sits in section {where[element.id]!r}, planned in "
                f"{element.context.section!r}.",
                element.id,
            )
