"""Pages a brief asks for (offline planner helper): "an about page", "a pricing page and a contact
page", "a multi-page site with Home, Menu, Contact", "Integrate a “Contact Us” page".

A brief that names no page beside the home page keeps its one-page plan, unchanged. Otherwise the
plan gets one :class:`~mmstudio.plan.PagePlan` per page asked (home first, ``index.html``); each
body section goes to the page the brief puts it on (its sentences name the page, or its title is
the page's name, or — for a page nothing else fills — it is the first section of the kind the
page's name implies: "Contact" → the form); the hero and every other section stay on the home
page; a page still empty gets the sections a short brief for it would get (the planner run on
"a <name> section for <title>"). The header and footer become the shared frame of every page, and
the header's navigation links every page (its own items kept, each item naming a page standing
for that page's link).

Public API: :func:`asked_pages` (the names, in brief order), :func:`without_page_lists` (the
brief the sections are read from) and :func:`paginate` (the plan with its pages). Pure and
deterministic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from mmstudio.plan import HOME_PATH, DesignPlan, PagePlan, Section, page_slug
from mmstudio.resources import resource

#: unquoted words that name a page of a small site ("an about page", "a contact page")
PAGE_WORDS = (
    "about", "about us", "pricing", "prices", "contact", "contact us", "menu", "team", "services",
    "blog", "news", "faq", "gallery", "portfolio", "work", "projects", "events", "careers",
    "jobs", "shop", "store", "booking", "bookings", "reservations", "classes", "courses",
    "schedule", "program", "programme", "location", "locations", "visit", "story", "our story",
    "resources", "reviews", "testimonials", "press", "quiz", "leaderboard", "membership",
    "signup", "sign-up", "register", "login", "account", "profile", "favorites", "favourites",
    "cart", "checkout", "speakers", "tickets", "venue", "features", "support", "help", "docs",
    "documentation", "partners", "donate", "volunteer", "archive", "calendar", "products",
)  # fmt: skip
MAX_PAGES = 8  # pages beyond these (a brief listing twenty) stay sections of the home page
_WORDS = "|".join(sorted((re.escape(w) for w in PAGE_WORDS), key=len, reverse=True))
_LEAD = r"\b(?:an?|one|separate|dedicated|own|new|extra|second|third|plus)\s+"
_QUOTED = re.compile(r"[“\"]([^”\"\n]{2,60})[”\"]\s+page\b(?!s)", re.I)
_SINGLE = re.compile(
    _LEAD + r"(?:(?:separate|dedicated|simple|short|small|own)\s+)?(" + _WORDS + r")\s+page\b(?!s)",
    re.I,
)
_PLURAL = re.compile(
    r"\b((?:(?:" + _WORDS + r")\s*,\s*)*(?:" + _WORDS + r")\s*,?\s+(?:and|&)\s+(?:" + _WORDS + r"))"
    r"\s+pages\b",
    re.I,
)
_LISTED = re.compile(
    r"\b(?:multi-?page|(?:\d|two|three|four|five|six|seven|eight)[- ]page)\s+(?:web)?site\b"
    r"(?P<mid>[^.;:]{0,40}?)(?:\bwith\b|\bpages?\b|:)\s*:?\s*(?P<a>[^.;:]+)"
    r"|\bpages\s*(?::|\blike\b|\bsuch as\b|\bcalled\b|\bnamed\b)\s*(?P<b>[^.;:]+)"
    r"|\bseparate pages for\s+(?P<c>[^.;:]+)",
    re.I,
)
_KNOWN = frozenset(PAGE_WORDS) | {"home", "homepage"}
_LABELED = re.compile(
    r"\b(?:an?|separate|dedicated|new)\s+(?:(?:separate|dedicated|new)\s+)?page\b[^.“\"]{0,80}?"
    r"\b(?:labell?ed|called|named|titled)\s+[“\"]([^”\"\n]{2,60}?)[,.]?[”\"]",
    re.I,
)
_TAIL = re.compile(r"\s+(?:for|with|that|where|which|to|in|on|of|at)\b.*$", re.I | re.S)
_SPLIT = re.compile(r"\s*(?:,|/|\band\b|&|\+)\s*", re.I)
_ITEM = re.compile(r"^[“\"]?([A-Za-z][A-Za-z'’ -]{0,38}?)[”\"]?(?:\s+(?:pages?|news))?$")
_HOME = ("home", "homepage", "home page", "landing", "index", "start")
_CONTACT = ("contact", "contact us", "get in touch")


@dataclass(frozen=True)
class AskedPage:
    """One page the brief asks for: ``name`` as the brief writes it, ``start`` its offset."""

    name: str
    start: int

    @property
    def key(self) -> str:
        return _key(self.name)


def _key(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _title(name: str) -> str:
    """ "about us" → "About Us"; a quoted name keeps its own capitals."""
    name = " ".join(name.split())
    return name if any(c.isupper() for c in name) else name.title()


def asked_pages(prose: str) -> list[AskedPage]:
    """The pages other than the home page that ``prose`` asks for, in the order it names them
    (each once; at most :data:`MAX_PAGES` − 1). Empty for a one-page brief."""
    found: list[AskedPage] = []
    for match in _QUOTED.finditer(prose):
        found.append(AskedPage(match.group(1).strip(), match.start(1)))
    for match in _LABELED.finditer(prose):
        found.append(AskedPage(match.group(1).strip(), match.start(1)))
    for match in _SINGLE.finditer(prose):
        found.append(AskedPage(match.group(1), match.start(1)))
    for match in _PLURAL.finditer(prose):
        for name, offset in _parts(match.group(1), match.start(1)):
            found.append(AskedPage(name, offset))
    for match in _LISTED.finditer(prose):
        group = next(g for g in "abc" if match.group(g))
        for name, offset in _parts(match.group(group), match.start(group)):
            item = _ITEM.match(name)
            if item and (item.group(1)[0].isupper() or _key(item.group(1)) in _KNOWN):
                found.append(AskedPage(item.group(1).strip(), offset))
    pages: list[AskedPage] = []
    seen: set[str] = set()
    for page in sorted(found, key=lambda p: p.start):
        key = _key(page.name)
        if not key or key in _HOME or key in seen or len(key.split()) > 5:
            continue
        seen.add(key)
        pages.append(page)
    return pages[: MAX_PAGES - 1]


def without_page_lists(prose: str) -> str:
    """``prose`` with the runs that list page names ("a multi-page site with Home, Menu,
    Contact for Nove" → "a site for Nove"; "pages: Home, About" → "pages") cut, so that the
    planner's reading of a short brief does not take the page names for parts of the home
    page; what follows the list ("… pages: a hero photo, …" → "… with a hero photo, …") stays."""
    out: list[str] = []
    position = 0
    for match in _LISTED.finditer(prose):
        group = next(g for g in "abc" if match.group(g))
        tail = _TAIL.search(match.group(group))
        end = match.start(group) + (tail.start() if tail else len(match.group(group)))
        rest = prose[end : match.end()]
        lead = "site" + (match.group("mid") or "").rstrip(" ,") if group == "a" else "pages"
        after = prose[match.end() :].lstrip()
        if after.startswith(":") and not rest.strip():
            out.append(prose[position : match.start()] + lead + " with ")
            position = len(prose) - len(after[1:].lstrip())
            continue
        out.append(prose[position : match.start()] + lead + rest)
        position = match.end()
    out.append(prose[position:])
    return "".join(out)


def _parts(text: str, offset: int) -> list[tuple[str, int]]:
    """The items of a listed run "Home, Menu and Contact" with their offsets."""
    parts: list[tuple[str, int]] = []
    position = 0
    for piece in _SPLIT.split(text):
        at = text.find(piece, position) if piece else -1
        if at >= 0:
            position = at + len(piece)
        piece = _TAIL.sub("", piece.strip()).strip().strip("“”\"'")
        if piece and len(piece.split()) <= 4:
            parts.append((piece, offset + max(at, 0)))
    return parts


@cache
def _kinds() -> dict[str, list[str]]:
    data = json.loads(resource("offline", "nav_targets.json").read_text(encoding="utf-8"))
    kinds = dict(data["kinds"])
    kinds.update({"menu": ["pricing"], "contact": ["form"], "us": []})
    return kinds


def paginate(
    plan: DesignPlan, prose: str, sub_plan: Callable[[str], DesignPlan] | None = None
) -> DesignPlan:
    """``plan`` with the pages ``prose`` asks for (see the module notes); ``plan`` itself when it
    asks for none. ``sub_plan(brief)`` plans the sections of a page nothing else fills (the
    offline planner; None: such a page gets one titled section). Returns a validated plan."""
    asked = asked_pages(prose)
    if not asked:
        return plan
    taken: set[str] = {"home"}
    pages = [PagePlan(id="home", path=HOME_PATH, title=plan.title[:200], nav_label="Home")]
    for ask in asked:
        slug = page_slug(ask.name, taken)
        taken.add(slug)
        pages.append(PagePlan(id=slug, path=f"{slug}.html", title=_title(ask.name)[:200]))
    owner = _assign(plan, prose, asked, pages)
    data = plan.model_dump()
    sections = [s.model_copy(update={"page": owner.get(s.id)}) for s in plan.sections]
    images, videos, charts = data["images"], data["videos"], data["charts"]
    filled = set(owner.values())
    home_body = [s for s in sections if s.page is None and s.kind not in ("header", "footer")]
    wanted = [
        (p, "contact form" if a.key in _CONTACT else a.name)
        for p, a in zip(pages[1:], asked, strict=True)
    ]
    if not home_body:
        wanted.insert(0, (pages[0], "hero photo"))
    for page, name in wanted:
        if page.id in filled:
            continue
        new_sections, new_elements = _sections_for(page, name, plan, sub_plan)
        if page.path == HOME_PATH:
            new_sections = [s.model_copy(update={"page": None}) for s in new_sections]
            sections = _after_header(sections, new_sections)
        else:
            sections = _before_footer(sections, new_sections)
        for element in new_elements:
            {"image": images, "video": videos, "chart": charts}[element["kind"]].append(element)
    sections, pages = _nav(sections, pages)
    data["sections"] = [s.model_dump() for s in sections]
    data["pages"] = [p.model_dump() for p in pages]
    return DesignPlan.model_validate(data)


def _assign(
    plan: DesignPlan, prose: str, asked: list[AskedPage], pages: list[PagePlan]
) -> dict[str, str]:
    """``{section id: page id}`` for the body sections that go to a page other than home."""
    body = [s for s in plan.sections if s.kind not in ("header", "footer", "hero", "sidebar")]
    owner: dict[str, str] = {}
    named = list(zip(asked, pages[1:], strict=True))
    for section in body:  # its own sentences put it on a page: "the about page tells …"
        text = f"{section.description} {section.title}".lower()
        for ask, page in named:
            if re.search(r"\b" + re.escape(ask.name.lower()) + r"[”\"]?\s+page\b", text):
                owner[section.id] = page.id
                break
    scopes = _scopes(prose, asked)
    for section in body:  # the brief lists it on the page: "an about page with … a portrait"
        title = section.title.lower().strip()
        if section.id in owner or len(title) < 3:
            continue
        pattern = re.compile(r"\b" + re.escape(title) + r"s?\b")
        for (_ask, page), scope in zip(named, scopes, strict=True):
            if scope and pattern.search(scope):
                owner[section.id] = page.id
                break
    for section in body:  # its title is the page's name
        if section.id in owner:
            continue
        title = _key(section.title)
        for ask, page in named:
            if title and (title == ask.key or ask.key in title.split() or title in ask.key):
                owner[section.id] = page.id
                break
    for ask, page in named:  # the first section of the kind the page's name implies
        if page.id in owner.values():
            continue
        kinds = [k for w in (ask.key, *ask.key.split()) for k in _kinds().get(w, [])]
        for kind in kinds:
            first = next((s for s in body if s.kind == kind and s.id not in owner), None)
            if first is not None:
                owner[first.id] = page.id
                break
    return owner


def _after_header(sections: list[Section], new: list[Section]) -> list[Section]:
    cut = 0
    while cut < len(sections) and sections[cut].kind == "header":
        cut += 1
    return [*sections[:cut], *new, *sections[cut:]]


_PAGE_WITH = re.compile(
    r"^[”\"]?\s+page\s*(?:,\s*)?(?:with|that (?:has|shows|holds)|featuring|showing|including|"
    r"holding|where|for|to)\b",
    re.I,
)
_CLAUSE_END = re.compile(r"[.!?;\n]")


def _scopes(prose: str, asked: list[AskedPage]) -> list[str]:
    """For each asked page, the words the brief lists for it ("an about page with the founder's
    story and a portrait" → "the founder's story and a portrait"), up to the next page it names
    or the end of the sentence; "" when the brief lists nothing for it there."""
    starts = sorted(a.start for a in asked)
    scopes = []
    for ask in asked:
        after = ask.start + len(ask.name)
        opener = _PAGE_WITH.match(prose[after : after + 60])
        if opener is None:
            scopes.append("")
            continue
        begin = after + opener.end()
        end = min([s for s in starts if s > ask.start] + [len(prose)])
        stop = _CLAUSE_END.search(prose, begin, end)
        scopes.append(prose[begin : stop.start() if stop else end].lower())
    return scopes


def _before_footer(sections: list[Section], new: list[Section]) -> list[Section]:
    cut = len(sections)
    while cut and sections[cut - 1].kind == "footer":
        cut -= 1
    return [*sections[:cut], *new, *sections[cut:]]


def _sections_for(
    page: PagePlan, name: str, plan: DesignPlan, sub_plan: Callable[[str], DesignPlan] | None
) -> tuple[list[Section], list[dict]]:
    """The sections (on ``page``) and element plans (dicts) of a page nothing in the plan fills:
    the body of what ``sub_plan`` plans for "A page for <title> with a <name> and a footer."
    (a short brief: its part builders write the section and its honest sample copy), ids
    prefixed with the page's id; one titled section with a line of sample copy when there is
    no sub-planner or it plans no body for the name."""
    taken = {s.id for s in plan.sections} | {e.id for e in plan.elements()}
    body: list[Section] = []
    elements: list[dict] = []
    if sub_plan is not None:
        article = "an" if name[:1].lower() in "aeiou" else "a"
        sub = sub_plan(f"A page for {plan.title} with {article} {name} and a footer.")
        rename = {}
        for item in [*sub.sections, *sub.elements()]:
            rename[item.id] = _fresh(f"{page.id}-{item.id}"[:64], taken)
            taken.add(rename[item.id])
        for section in sub.sections:
            if section.kind in ("header", "footer", "sidebar"):
                continue
            body.append(
                section.model_copy(
                    update={
                        "id": rename[section.id],
                        "page": page.id,
                        "element_ids": [rename[e] for e in section.element_ids],
                    }
                )
            )
        kept = {s.id for s in body}
        for element in sub.elements():
            new_id = rename[element.id]
            if rename[element.context.section] not in kept:
                continue
            data = element.model_dump()
            data["id"] = new_id
            data["context"]["section"] = rename[element.context.section]
            for field in ("save_path", "poster_path", "mp4_path"):
                if data.get(field):
                    data[field] = data[field].replace(f"assets/{element.id}", f"assets/{new_id}")
            elements.append(data)
    if not body:
        line = f"A short introduction to {page.title} at {plan.title}, in your own words."
        section = Section(id=_fresh(page.id, taken), kind="content", title=page.title,
                          paragraphs=[line], page=page.id)  # fmt: skip
        return [section], []
    if page.path != HOME_PATH and body[0].kind != "hero":
        body[0] = body[0].model_copy(update={"title": page.title})
    return body, elements


def _fresh(base: str, taken: set[str]) -> str:
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base[:60]}-{n}", n + 1
    return candidate


def _nav(sections: list[Section], pages: list[PagePlan]) -> tuple[list[Section], list[PagePlan]]:
    """The shared header's nav links every page: its items naming a page (by name, the label
    kept; or by where their section went, then labelled with the page's name) stand for that
    page's link, the other items stay;
    pages no item names are added, Home first. A plan without a shared header or footer gets
    one (the footer repeats the page links)."""
    header = next((s for s in sections if s.kind == "header" and s.page is None), None)
    if header is None:
        brand = pages[0].title
        header = Section(id=_fresh("header", {s.id for s in sections}), kind="header", title=brand)
        sections = [header, *sections]
    by_key = {_key(p.title): p for p in pages} | {_key(p.id): p for p in pages}
    by_key.update({k: pages[0] for k in _HOME})
    placed = {s.id: s.page for s in sections}
    section_keys = {_key(s.title): s.id for s in sections if s.title}
    labels: dict[str, str] = {}
    items: list[str] = []
    for item in header.nav_items:
        key = _key(item)
        page = by_key.get(key)
        if page is None and key in section_keys and placed.get(section_keys[key]):
            page = next(p for p in pages if p.id == placed[section_keys[key]])
        if page is None and key in _CONTACT:
            page = next((p for p in pages if _key(p.title) in _CONTACT), None)
        if page is not None:
            if page.id in labels:
                continue
            # an item naming the page keeps its words; one that only led to a section now on
            # that page ("List of tasting events" → the Events page) takes the page's name
            item = item if by_key.get(key) is page else page.title
            labels[page.id] = item
        items.append(item)
    missing = [p for p in pages if p.id not in labels]
    for page in missing:
        labels[page.id] = page.nav_label or page.title
    home = [labels["home"]] if pages[0] in missing else []
    items = home + items + [labels[p.id] for p in missing if p.id != "home"]
    pages = [
        p.model_copy(update={"nav_label": labels[p.id][:80]}) if labels[p.id] != p.title else p
        for p in pages
    ]
    sections = [
        s.model_copy(update={"nav_items": items[:30]}) if s.id == header.id else s for s in sections
    ]
    if not any(s.kind == "footer" and s.page is None for s in sections):
        footer = Section(
            id=_fresh("footer", {s.id for s in sections}),
            kind="footer",
            title=pages[0].title,
            paragraphs=[f"© {pages[0].title}"],
            nav_items=items[:30],
        )
        sections = [*sections, footer]
    return sections, pages
