"""Things a FronTalk condition asks a page to show that no other rule reads: a timeline, a news
ticker, badges, a sort control, social media links, star ratings, thumbnails (the vocabulary is
data: ``resources/requirements/condition_things.json``), and a link back to the homepage
("users can navigate back to the homepage from the “Community Forum” page"), and a page or
feature reached from the homepage ("Verify that the “Event Calendar” page is accessible from the
homepage", "Community Engagement Forum is accessible from the homepage via the navigation
menu").

:func:`thing_parts` reads a condition into parts with ``checker`` ``cond.thing`` (``role`` the
thing's name) and ``cond.home_link``; :func:`check_thing` decides a thing on one rendered page
from its markup (ids, classes, tags, controls, dropdown options, link targets), its visible
text and its pictures' boxes; :func:`check_home_link` decides whether a page links to the
homepage; the judge decides a page reached from the homepage
(:meth:`~mmstudio.feedback.condition_judge.SiteCheck` ``_reached``: a link of the homepage —
of its menu when the words say so — leads to the page or section the name resolves to). A
thing passes when one of its marks is on the page and fails when none is; a thing's
check reads only the nouns that name it (:func:`reads`), so a claim about what it does ("the
ticker scrolls", "results can be sorted by date") stays unread and can only be failed by the
thing missing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from posixpath import normpath
from urllib.parse import urlsplit

from mmstudio.resources import resource

from .condition_rules import _req
from .condition_view import PageView, result
from .model import Requirement, RequirementResult
from .structure import negated

#: a journey back to the homepage ("navigate back to the homepage", "return to the homepage")
_BACK_HOME = re.compile(
    r"\b(?:navigat\w*|return\w*|go(?:es|ing)?|get(?:s|ting)?|link\w*|way)\s+back\s+to\s+"
    r"(?:the\s+)?(?:home ?page|main page|home)\b|\breturn\w*\s+to\s+(?:the\s+)?home ?page\b",
    re.I,
)


#: "… is accessible from the homepage (via the navigation menu)"
_REACHED = re.compile(
    r"\b(?:easily\s+|directly\s+)?(?:accessible|reachable|accessed|reached)\s+(?:directly\s+)?"
    r"from\s+(?:the\s+)?home ?page\b(?P<menu>[^.;]{0,40}?\b(?:navigation|nav bar|navbar|menu"
    r"|header)\b)?",
    re.I,
)
#: a feature named at the start of the sentence, without an article ("Community Engagement
#: Forum is accessible …")
_LEAD_NAME = re.compile(
    r"^(?:(?:verify|confirm|check|ensure)\s+(?:that\s+)?)?(?:the\s+)?"
    r"(?P<name>[A-Z][\w&'-]*(?:\s+(?:(?:of|and|&|for)\s+)?[A-Z][\w&'-]*){1,5})\s+(?:is|are)\s+",
)


#: "clicking a headline in the “Latest News” section … takes the user to the full article page"
_ITEM_CLICK = re.compile(
    r"\bclick\w*\s+(?:on\s+)?(?:a|an|any|each|the)\s+(?P<item>[\w'’ -]{2,40}?)\s+"
    r"(?:in|on|within|from|of)\s+(?:the|a)\b(?P<where>.{0,80}?)"
    r"\b(?:navigates?|takes?|opens?|leads?|directs?|brings?|redirects?)\b(?P<dest>[^.;]{0,70}?)"
    r"\bpages?\b",
    re.I,
)


@dataclass(frozen=True)
class Thing:
    """One thing of the vocabulary (see the data file's ``_about``)."""

    name: str
    words: re.Pattern[str]
    reads: str
    names: re.Pattern[str] | None = None
    tags: tuple[str, ...] = ()
    text: re.Pattern[str] | None = None
    links: re.Pattern[str] | None = None
    controls: re.Pattern[str] | None = None
    options: re.Pattern[str] | None = None
    pictures: int = 0
    alts: re.Pattern[str] | None = None
    unless: re.Pattern[str] | None = None


def _pattern(value: str | None) -> re.Pattern[str] | None:
    return re.compile(value, re.I) if value else None


@cache
def things() -> dict[str, Thing]:
    """The vocabulary, by name; raises ValueError naming the file when it is malformed."""
    path = resource("requirements", "condition_things.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))["things"]
        return {
            name: Thing(
                name,
                re.compile(spec["words"], re.I),
                spec["reads"],
                _pattern(spec.get("names")),
                tuple(spec.get("tags", ())),
                _pattern(spec.get("text")),
                _pattern(spec.get("links")),
                _pattern(spec.get("controls")),
                _pattern(spec.get("options")),
                int(spec.get("pictures", 0)),
                _pattern(spec.get("alts")),
                _pattern(spec.get("unless")),
            )
            for name, spec in data.items()
        }
    except (OSError, KeyError, TypeError, ValueError, re.error) as exc:
        raise ValueError(f"{path} is not a condition-things vocabulary: {exc}") from None


def reads() -> dict[str, str]:
    """``{"thing:<name>": words}`` for :data:`~.condition_words.READ_BY`: the words each
    thing's check reads, plus "back" / "return" / "navigate" for the homepage link."""
    found = {f"thing:{t.name}": t.reads for t in things().values()}
    found["home_link"] = r"navigat\w*|return\w*|back|way|links?|accessible|access\w*"
    found["reached"] = r"accessible|access\w*|reach\w*"
    found["item_link"] = r"click\w*|navigat\w*|leads?|directs?|redirects?|opens?"
    return found


def item_link_part(text: str, plain: str, parts: list[Requirement]) -> list[Requirement]:
    """A ``cond.item_link`` part (``label`` the section holding the items, ``values`` [the
    item's noun]) for a click on an unnamed item of a named section that leads to the item's
    own page ("clicking a headline in the “Latest News” section … takes the user to the full
    article page"); [] for any other condition."""
    m = _ITEM_CLICK.search(plain)
    if m is None or any(p.checker in ("cond.navigate", "cond.reveal") for p in parts):
        return []
    inside = [p for p in parts if p.checker in ("cond.text", "cond.named") and p.label
              and m.start("where") - 2 <= p.span.start <= m.end("where") + 2]  # fmt: skip
    if not inside:
        return []
    return [
        _req("behaviour", "item_link", inside[0].label,
             f"Each {m.group('item')} in “{inside[0].label}” leads to its own page",
             (m.start(), m.end()), label=inside[0].label, values=[m.group("item")],
             source=text)
    ]  # fmt: skip


def reached_part(text: str, plain: str, where: str, page: str,
                 parts: list[Requirement]) -> list[Requirement]:  # fmt: skip
    """A ``cond.reached`` part (``values`` [the destination's name]; ``label`` "menu" when the
    words name the menu) for a page (the condition's place) or a feature named at the start of
    the sentence that "is accessible from the homepage"; [] when a navigation part reads it
    already or nothing names the destination."""
    m = _REACHED.search(plain)
    if m is None or any(p.checker in ("cond.navigate", "cond.reached") for p in parts):
        return []
    dest = page if where == "page" else ""
    if not dest:
        lead = _LEAD_NAME.match(text)
        dest = lead.group("name") if lead and lead.end() <= m.start() + 1 else ""
    if not dest:
        return []
    return [
        _req("behaviour", "reached", dest, f"“{dest}” is reached from the homepage",
             (m.start(), m.end()), values=[dest], label="menu" if m.group("menu") else "",
             role="named", source=text)
    ]  # fmt: skip


def thing_parts(text: str, plain: str) -> list[Requirement]:
    """A ``cond.thing`` part for each thing the condition names (not negated), and a
    ``cond.home_link`` part for a journey back to the homepage."""
    found = []
    for thing in things().values():
        m = next((m for m in thing.words.finditer(plain) if not negated(plain, m.start())), None)
        if m is not None and not (thing.unless and thing.unless.search(plain)):
            found.append(
                _req("widget", "thing", thing.name, f"A {thing.name}", (m.start(), m.end()),
                     role=thing.name, source=text)
            )  # fmt: skip
    back = _BACK_HOME.search(plain)
    if back is not None:
        found.append(
            _req("behaviour", "home_link", "home", "A link back to the homepage",
                 (back.start(), back.end()), role="home", source=text)
        )  # fmt: skip
    return found


def check_thing(part: Requirement, view: PageView) -> RequirementResult:
    """Whether the thing ``part.role`` is on the page (see the module doc)."""
    thing = things().get(part.role)
    if thing is None:
        return result(part, "unchecked", f"no rule reads a {part.role}")
    dom, facts = view.dom, view.facts
    if thing.names is not None:
        hit = thing.names.search(dom.names)
        if hit:
            return result(part, "pass", f"a {thing.name}: the markup names “{hit.group()}”")
    for tag in thing.tags:
        if dom.tags.get(tag):
            return result(part, "pass", f"a {thing.name}: a <{tag}>")
    if thing.text is not None and facts is not None:
        hit = thing.text.search(facts.text)
        if hit:
            return result(part, "pass", f"a {thing.name}: the page shows “{hit.group()}”")
    if thing.alts is not None and facts is not None:
        alt = next((p.alt for p in [*facts.pictures, *facts.icons]
                    if p.alt and thing.alts.search(p.alt.strip())), None)  # fmt: skip
        if alt is not None:
            return result(part, "pass", f"a {thing.name}: a picture “{alt[:40]}”")
    if thing.controls is not None:
        hit_c = next((c for c in dom.controls if thing.controls.search(c.text.strip())), None)
        if hit_c is not None:
            return result(part, "pass", f"a {thing.name}: the control “{hit_c.text[:40]}”")
    if thing.links is not None:
        hit_c = next((c for c in dom.controls if c.href and thing.links.search(c.href)), None)
        if hit_c is not None:
            return result(part, "pass", f"a {thing.name}: a link to {hit_c.href[:60]}")
    if thing.options is not None:
        sorts = [f for f in dom.fields if f.tag == "select" and
                 sum(bool(thing.options.search(o)) for o in f.options) >= 2]  # fmt: skip
        if sorts:
            return result(part, "pass", f"a {thing.name}: a dropdown of {sorts[0].options[:4]}")
    if thing.pictures and facts is not None:
        small = [p for p in facts.pictures
                 if 40 <= p.rect.w <= view.width / 2 and p.rect.h >= 40]  # fmt: skip
        if len(small) >= thing.pictures:
            return result(part, "pass", f"{len(small)} thumbnail-sized pictures")
        if len(small) + dom.drawn >= thing.pictures:  # pictures drawn inline (svg role=img)
            return result(part, "pass", f"{len(small)} picture(s) and {dom.drawn} drawn inline")
        if not small and dom.images and not facts.pictures:
            return result(part, "unchecked", f"{len(dom.images)} <img> did not load")
        return result(part, "fail", f"{len(small)} thumbnail-sized picture(s) on {view.file}")
    return result(part, "fail", f"no {thing.name} on {view.file}")


def home_target(href: str, file: str, main: str = "index.html") -> bool:
    """Whether the link ``href`` on page ``file`` leads to the homepage ``main`` (its top, not
    one of its sections: a fragment other than ``#top`` / ``#home`` is a section)."""
    if not href or re.match(r"(?:javascript|mailto|tel):", href, re.I):
        return False
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return False
    if parts.fragment and parts.fragment.lower() not in ("top", "home", "main"):
        return False
    if not parts.path:
        return file == main and bool(parts.fragment)
    base = file.rsplit("/", 1)[0] if "/" in file else ""
    path = normpath(f"{base}/{parts.path}" if base and not parts.path.startswith("/")
                    else parts.path.lstrip("/"))  # fmt: skip
    return path in (main, ".", "")


def check_home_link(part: Requirement, view: PageView, main: str = "index.html"):
    """Whether page ``view`` links back to the homepage ``main``; on the homepage itself the
    journey is not there to check (unchecked)."""
    if view.file == main:
        return result(part, "unchecked", "the homepage itself: no way back to check")
    hit = next((c for c in view.dom.controls if home_target(c.target, view.file, main)), None)
    if hit is not None:
        return result(part, "pass", f"“{hit.text[:40] or hit.target}” on {view.file} leads home")
    return result(part, "fail", f"no link on {view.file} leads to the homepage")
