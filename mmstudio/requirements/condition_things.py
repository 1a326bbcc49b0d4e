"""Things a FronTalk condition asks a page to show that no other rule reads: a timeline, a news
ticker, badges, a sort control, social media links, star ratings, thumbnails (the vocabulary is
data: ``resources/requirements/condition_things.json``), and a link back to the homepage
("users can navigate back to the homepage from the “Community Forum” page").

:func:`thing_parts` reads a condition into parts with ``checker`` ``cond.thing`` (``role`` the
thing's name) and ``cond.home_link``; :func:`check_thing` decides a thing on one rendered page
from its markup (ids, classes, tags, controls, dropdown options, link targets), its visible
text and its pictures' boxes; :func:`check_home_link` decides whether a page links to the
homepage. A thing passes when one of its marks is on the page and fails when none is; a thing's
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
    return found


def thing_parts(text: str, plain: str) -> list[Requirement]:
    """A ``cond.thing`` part for each thing the condition names (not negated), and a
    ``cond.home_link`` part for a journey back to the homepage."""
    found = []
    for thing in things().values():
        m = next((m for m in thing.words.finditer(plain) if not negated(plain, m.start())), None)
        if m is not None:
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
