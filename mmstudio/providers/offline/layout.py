"""The offline layout agent: a :class:`DesignPlan` → the page's ``index.html`` (MM-WebAgent §3.3).

Deterministic, no network. The page is one file (inline ``<style>``) plus the planned assets:

* every section is one element (``<header>`` / ``<footer>`` / ``<section>``) with
  ``data-mm-section`` and ``id`` equal to the section id, in plan order;
* every planned element has exactly one slot with ``data-mm-id`` (``<img>`` / ``<video>`` /
  chart ``<iframe>``), sized as planned (``aspect-ratio`` from ``display_*_px``);
* every text field of the plan is visible text (titles, copy, buttons, nav, tags, items, tables,
  alt text, chart titles) — quoted-string fidelity depends on it;
* nothing starts hidden or lazy: no opacity 0, no reveal on scroll, ``loading="eager"``.

Each section's view (blocks, slots, arrangement) is built by ``layout_section``; this module
groups the sections into the page (header and sidebar run, ``<main>``, footers) and renders it.

Plan text is untrusted model output: the Jinja environment autoescapes, and every plain string
additionally has ``/`` written as ``&#47;`` so that text can never form a URL or a machine path in
the raw HTML (the browser shows the same characters).
"""

from __future__ import annotations

import logging
import re
from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from mmstudio.plan import HOME_PATH, DesignPlan, Section
from mmstudio.providers.offline import layout_colours, page_css
from mmstudio.providers.offline.layout_section import (
    SectionView,
    content_width,
    is_dashboard,
    item_columns,
    section_view,
)
from mmstudio.resources import resource

log = logging.getLogger(__name__)

_LANG = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")


def _finalize(value: Any) -> Any:
    """Escape plain strings and write ``/`` as ``&#47;``; Markup (trusted paths, styles) passes."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return Markup(str(escape(value)).replace("/", "&#47;"))


@cache
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(resource("templates"))),
        autoescape=True,
        finalize=_finalize,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _h1_owner(plan: DesignPlan) -> str | None:
    """The id of the section whose title is the page's one ``<h1>`` (hero first, then the
    header's brand, then the first titled section); None when no section can hold it. On a
    page other than the home page of a multi-page site: its first titled body section."""
    current = plan.current_page
    if current is not None and plan.site.multi_page and current.path != HOME_PATH:
        body = [s for s in plan.sections if s.kind not in ("header", "footer") and s.title]
        if body:
            return body[0].id
    for section in plan.sections:
        if section.kind == "hero" and section.title:
            return section.id
    for section in plan.sections:
        if section.kind == "header":
            return section.id
    return next((s.id for s in plan.sections if s.title), None)


def _is_side(section: Section) -> bool:
    return section.kind == "sidebar" or section.layout.lower() == "sidebar"


def _groups(plan: DesignPlan) -> tuple[list[tuple[str, Section]], list[Section], list[Section]]:
    """Split the sections, in order, into a leading run (headers and sidebars, with their role),
    the ``<main>`` sections and the trailing footers."""
    sections = list(plan.sections)
    lead: list[tuple[str, Section]] = []
    while sections and (sections[0].kind == "header" or _is_side(sections[0])):
        first = sections.pop(0)
        lead.append(("side" if _is_side(first) else "header", first))
    tail: list[Section] = []
    while sections and sections[-1].kind == "footer":
        tail.insert(0, sections.pop())
    dashboard = plan.layout.structure == "sidebar-dashboard"
    if dashboard and lead and all(role == "header" for role, _ in lead):
        lead[0] = ("side", lead[0][1])
    return lead, sections, tail


def _role(section: Section) -> str:
    return {"header": "header", "footer": "footer"}.get(section.kind, "section")


def _compact(view: SectionView) -> bool:
    """True for a dashboard section small enough to share a row with another (a half panel)."""
    s = view.section
    groups = view.media_groups
    return (
        s.kind not in ("hero", "header", "footer")
        and s.table is None
        and len(s.element_ids) <= 1
        and len(s.items) <= 4
        and len(s.paragraphs) <= 2
        and not (groups and groups[0]["elements"][0].get("wide"))
    )


def _panels(views: list[SectionView], width_px: int) -> list[SectionView]:
    """Mark consecutive pairs of compact dashboard sections as half panels (a lone one stays
    full width so the grid has no holes); their items get the columns of a half-width panel
    (``width_px`` is the main column's width)."""
    index = 0
    while index < len(views):
        if index + 1 < len(views) and _compact(views[index]) and _compact(views[index + 1]):
            for view in views[index : index + 2]:
                view.half = True
                view.item_cols = item_columns(view, width_px // 2)
            index += 2
        else:
            index += 1
    return views


def _label_landmarks(views: list[SectionView]) -> None:
    """Give every section a unique accessible name (title, eyebrow, first heading or kind,
    numbered on repeats) and demote repeated top-level headers / footers to regions."""
    seen: dict[str, int] = {}
    roles: set[str] = set()
    for view in views:
        s = view.section
        base = (s.title or s.eyebrow or (s.headings or [""])[0] or s.kind)[:80]
        seen[base] = seen.get(base, 0) + 1
        view.label = base if seen[base] == 1 else f"{base} ({seen[base]})"
        if view.role in ("header", "footer"):
            view.landmark = "group" if view.role in roles else ""
            roles.add(view.role)


def build_view(plan: DesignPlan) -> dict[str, Any]:
    """The template context of ``page.html.j2`` for ``plan``."""
    owner = _h1_owner(plan)
    lead, main, tail = _groups(plan)

    def view(role: str, section: Section) -> SectionView:
        return section_view(plan, section, role, 1 if section.id == owner else 2)

    leading = [view(role, s) for role, s in lead]
    sides = [v for v in leading if v.role == "side"]
    middle = [view(_role(s), s) for s in main]
    trailing = [view("footer", s) for s in tail]
    _label_landmarks([*leading, *middle, *trailing])
    moods = page_css.detect_moods(plan.layout)
    dashboard = is_dashboard(plan)
    body = ["page", f"structure-{plan.layout.structure}", *(f"mood-{m}" for m in sorted(moods))]
    if dashboard:
        body.append("page-dashboard")
    lang = plan.language if _LANG.match(plan.language) else "en"
    current = plan.current_page
    title = plan.title
    if current is not None and plan.site.multi_page and current.path != HOME_PATH:
        title = f"{current.title} · {plan.title}"
    return {
        "lang": lang,
        "title": title,
        "brand": plan.title,
        "css": Markup(page_css.render_css(plan, content_width(plan) + 64) + _site_css(plan)),
        "body_class": " ".join(body),
        "leading": leading,
        "main": _panels(middle, content_width(plan)) if dashboard else middle,
        "trailing": trailing,
        "shell": bool(sides),
        "side_span": Markup(f"--side-span: {len(leading) - len(sides) + 1 + len(tail)};"),
        "fallback_h1": plan.title if owner is None else None,
    }


#: the current page's link in the shared navigation of a multi-page site
_CURRENT_CSS = (
    '\n.nav-list a[aria-current="page"] { color: var(--accent-text); text-decoration: underline;'
    " text-underline-offset: .3em; }\n"
)


def _site_css(plan: DesignPlan) -> str:
    """CSS only a page of a multi-page site needs (a one-page plan's page stays as it was)."""
    return _CURRENT_CSS if plan.site.multi_page else ""


def render_page(plan: DesignPlan) -> str:
    """The complete ``index.html`` for ``plan`` (UTF-8 text, inline CSS, relative asset paths);
    for a :meth:`~mmstudio.plan.DesignPlan.page_view` of a multi-page plan, that page's file
    (its sections, the shared header and footer, nav links to the other pages' files).

    The result passes :func:`mmstudio.plan.slot_problems` (one slot per element and section)."""
    html = _environment().get_template("page.html.j2").render(**build_view(plan))
    html = layout_colours.paint(html, plan)  # "“Beginner” in white": the prompt's text colours
    log.debug("layout: %d sections, %d chars", len(plan.sections), len(html))
    return html
