"""Features a turn's words ask for, built offline from the behaviour kit (MM Studio issue 16).

A FronTalk-style instruction names features ("Introduce a “Featured Comic” section … with a brief
description and a “Read More” button", "a search bar above the grid", "a Like button that
counts", "an accordion FAQ", "a subscription form", "a “Wishlist” link on the homepage"). This
module reads one clause into a :class:`FeatureSpec` (:func:`read_clause`) — the feature's name,
the controls it names (buttons, menu links, with where they lead), the kit components its words
summon (:func:`mmstudio.pipeline.behaviours.summon`), options, form fields, the items it lists,
where it goes — and builds it into a page (:func:`build`): a section in the page's own classes
(``section``, ``section-head``, ``items cards``, ``card``, ``button``: the page's palette and type)
holding the working kit components, a link to it in the header's navigation when the words say
it is reached from a menu or a link, and the kit files the page must load.

A feature that is already on the page (a section of that name, built by an earlier turn or by the
planner) is extended, not built twice. Nothing here reads a test condition: only the turn's words.
Every text written is escaped; scripts are the kit's shipped files (confined by the guardrails).
"""

from __future__ import annotations

import html as htmllib
import json
import re
from dataclasses import asdict, dataclass, field
from functools import cache
from html import escape

from mmstudio.pipeline import behaviours as kit
from mmstudio.refine import html_edit
from mmstudio.resources import resource

FEATURE_CSS = "assets/css/mm-features.css"
_QUOTE = re.compile(r"[\"“]([^\"”]{1,80})[\"”]")
_BUILD = re.compile(
    r"\b(?:introduc\w*|add\w*|implement\w*|integrat\w*|creat\w*|includ\w*|incorporat\w*|build\w*"
    r"|provid\w*|develop\w*|offer\w*|establish\w*|insert\w*|design\w*|set up|features?|showcas\w*"
    r"|enhanc\w*|refin\w*|display\w*|allow\w*|enabl\w*|ensur\w*|launch\w*|embed\w*|put|place)\b",
    re.I,
)
_CONTROL_NOUN = re.compile(
    r"^\W{0,3}\s*(?:(?:call[- ]to[- ]action|cta|primary|secondary|toggle)\s+)?"
    r"(buttons?|links?|menu items?|menu options?|menu|navigation items?|nav items?|tabs?|options?"
    r"|icons?|ctas?)\b",
    re.I,
)
_LABELLED = re.compile(
    r"\b(buttons?|links?|menu items?|menus?|tabs?|ctas?|options?)\s+(?:labell?ed|titled|called"
    r"|named|reading|that (?:says|reads))\s*\W?\s*$",
    re.I,
)
_FEATURE_NOUN = (
    r"section|feature|page|tool|area|panel|sidebar|gallery|archive|hub|center|centre|board|forum"
    r"|directory|library|portal|showcase|tracker|planner|calculator|finder|explorer|quiz|timeline"
    r"|calendar|blog|catalog(?:ue)?|marketplace|dashboard|generator|configurator|builder|guide"
    r"|simulator|map|list|widget|module|corner|zone|space|lounge|wall|feed|stories|program(?:me)?"
)
_NOUN_AFTER = re.compile(rf"^\W{{0,3}}\s*({_FEATURE_NOUN}|banner|carousel|slider)s?\b", re.I)
#: "Enhance the “Climate News Digest” section by integrating a dedicated “Weekly Highlights”
#: feature": the clause builds the second name, beside the first
_ENHANCE_BY = re.compile(
    r"^\W*(?:enhance|refine|improve|update|expand|extend|enrich|upgrade)\b.{3,120}?\bby\s+"
    r"(?:introduc|add|integrat|includ|creat|incorporat|implement|embedd?)\w*\s+(?:(?:a|an|the"
    r"|new|dedicated|separate)\s+)*$",
    re.I | re.S,
)
_TITLED = re.compile(
    r"\b((?:[A-Z][\w'’&-]*\s+(?:(?:and|&|of|for|the|to|in|on)\s+)?){1,6}"
    r"(?:[A-Z][\w'’-]*))(?:\s+(feature|section|tool|page|area|sidebar|hub))?\b"
)
_LOWER = re.compile(
    rf"\b(?:a|an|the|our|its|their|dedicated)\s+((?:[a-z][\w'-]*\s+){{0,4}}?(?:{_FEATURE_NOUN}))\b"
)
_REFINE = re.compile(
    r"^\W*(?:enhance|refine|improve|update|redesign|revamp|polish|upgrade|restyle)\s+(?:the\s+"
    r"(?:visual\s+)?(?:design|look|layout|appearance|style|presentation)\s+of\s+)?the\s+"
    r"(?:[\w'’-]+\s+){1,5}?(?:page|pages|section|feature|area)\b",
    re.I,
)
#: "the lawyer and legal services directory page", "the movie review pages": a part of the site
#: a clause refers to by name (what a design turn refines)
_REFERENCE = re.compile(
    r"\bthe\s+((?:[a-z][\w'’-]*\s+){1,5}?)(?:page|pages|section|feature|area)\b"
)
_DEST = re.compile(
    r"\b(?:that|which|to)?\s*(?:navigat\w*|leads?|takes?|directs?|opens?|brings?|links?"
    r"|redirects?|returns?|goes)\s+(?:the\s+)?(?:users?\s+|visitors?\s+|them\s+)?(?:back\s+)?"
    r"(?:directly\s+)?(?:to\s+|into\s+)?(?P<dest>[^,.;]{2,80})",
    re.I,
)
_OPTIONS = re.compile(
    r"\b(?:such as|like|including|includes|by|options?|categories|filters?|between|from)\b", re.I
)
_MENU = re.compile(
    r"\b(?:menu|navigation|nav bar|navbar|accessible|accessed|access|via|from the homepage"
    r"|(?:a|with) homepage link)\b",
    re.I,
)
_BUILD_BEFORE = re.compile(
    r"\b(?:introduc\w*|add\w*|implement\w*|integrat\w*|creat\w*|includ\w*|incorporat\w*"
    r"|build|provid\w*|develop\w*|offer|establish|insert|design|set up|launch|embed|enhance"
    r"|refine|improve|update|redesign)\s+(?:(?:the|a|an|our|its|new|dedicated|visually \w+)\s+)*$",
    re.I,
)
_LINKS_TO = re.compile(
    r"\b(?:access|links?|navigation)\s+(?:to|for)\s+(?:the\s+)?(.{3,160}?)(?:[.;]|$)", re.I
)
_REGIONS = {"hero": "hero", "header": "header", "footer": "footer", "banner": "banner"}
_GENERIC = {
    "page", "section", "feature", "area", "website", "site", "homepage", "home page", "main page",
    "list", "tool", "map", "widget", "module", "space", "zone", "panel", "icon", "menu",
    "detail page", "details page", "web page", "landing page", "entire page", "whole page",
    "same page", "new page", "separate page", "dedicated page", "this page", "results page",
    "search results page", "navigation bar", "navigation menu", "main menu", "top",
}  # fmt: skip
_SKIP_FIRST = {"the", "a", "an", "our", "its", "their", "this", "each", "every", "all", "any"}
_STOP = {
    "Build", "Create", "Implement", "Introduce", "Add", "Include", "Integrate", "Enhance",
    "Refine", "Ensure", "Design", "Incorporate", "Develop", "Provide", "Allow", "Users", "Use",
    "When", "Each", "The", "This", "These", "Also", "Additionally", "Finally", "Make", "On", "In",
    "From", "Position", "Place", "Display", "Showcase", "Utilize", "Apply", "Style", "Offer",
}  # fmt: skip
_RATINGS = (4.6, 4.9, 4.1, 4.8, 3.9, 4.4)  # out of 5: an order of their own, not the dates'


@dataclass
class Control:
    """A control the words name: ``label``, ``role`` button | link | tab | option, and the
    words of where it leads (``dest``; "" when they say nothing)."""

    label: str
    role: str = "button"
    dest: str = ""
    menu: bool = False  # reached from the site's menu / header


@dataclass
class FeatureSpec:
    """One feature read from a clause (see the module doc). ``name`` is the feature's heading
    ("" when the clause adds to the turn's previous feature); ``region`` names a part of the
    page the clause extends instead (hero | header | footer | banner)."""

    name: str = ""
    region: str = ""
    controls: list[Control] = field(default_factory=list)
    kits: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)
    subject: str = ""  # what the feature lists ("comic strip", "project")
    about: str = ""  # a sentence saying what it does (the section's lede)
    place: str = "end"  # start | end | after:<section words>
    sticky: bool = False  # the header / navigation stays at the top
    meta: list[str] = field(default_factory=list)  # what each item shows: date | rating | price
    menu: bool = False  # a link to it belongs in the header's navigation
    links: list[str] = field(default_factory=list)  # features the navigation links to
    sorts: list[list[str]] = field(default_factory=list)  # [label, "KEY-asc|desc"] choices
    dropdown: bool = False  # the categories are a dropdown, not buttons
    searches: bool = False  # the words ask for a search field
    pictures: bool = False  # each entry shows a picture (thumbnails, photos, images)
    icons: bool = False  # each entry carries an icon
    hover: list[str] = field(default_factory=list)  # hover effects asked: lift, scale, …
    hovered: str = ""  # what is hovered: cards | pictures | menu | buttons
    per_item: bool = False  # the controls belong on each entry ("each … a “Read More” link")
    shape: list[str] = field(default_factory=list)  # the entries' look: rounded | border | shadow
    page: bool = False  # the feature is a page of its own ("a dedicated “Quiz” page")
    drop: bool = False  # remove the page ``name`` names ("remove the Pricing page")

    @property
    def empty(self) -> bool:
        return not (self.name or self.controls or self.kits or self.sticky or self.region
                    or self.drop
                    or self.links or self.hover or self.icons or self.pictures
                    or self.meta or self.shape)  # fmt: skip

    def dumps(self) -> str:
        """The spec as JSON (kept in a requirement's ``content``)."""
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def loads(cls, text: str) -> FeatureSpec:
        """A spec from :meth:`dumps`; raises ValueError for text that is not one."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a feature spec is a JSON object")
        data["controls"] = [Control(**c) for c in data.get("controls", [])]
        return cls(**data)


def _clean(name: str) -> str:
    name = re.sub(r"\s+", " ", name).strip(" '\"“”‘’.,:;!?")
    return name[:1].upper() + name[1:] if name else ""


def _words(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2} - {
        "the", "and", "for", "with", "page", "secti", "featu", "users", "user",
    }  # fmt: skip


def overlap(a: str, b: str) -> float:
    """Share of the words of ``a`` (5-letter stems) that ``b`` holds (0–1)."""
    wa = _words(a)
    return len(wa & _words(b)) / len(wa) if wa else 0.0


def _quoted(clause: str) -> list[tuple[str, int, int]]:
    return [(m.group(1).strip(" ,."), m.start(), m.end()) for m in _QUOTE.finditer(clause)]


def _controls(clause: str) -> tuple[list[Control], set[int]]:
    """Quoted names a control noun follows or leads; the quote starts they used."""
    found, used = [], set()
    quotes = _quoted(clause)
    for i, (text, start, end) in enumerate(quotes):
        after = clause[end : end + 40]
        before = clause[max(0, start - 40) : start]
        noun = _CONTROL_NOUN.match(after)
        lead = _LABELLED.search(before)
        if noun is None:  # "“Most Recent,” “Highest Rating” options": the group's last noun
            for _text, s2, e2 in quotes[i + 1 :]:
                gap = clause[end:s2] if s2 > end else ""
                if not re.fullmatch(r"[\s,]*(?:and|or)?[\s,]*", gap):
                    break
                noun, end = _CONTROL_NOUN.match(clause[e2 : e2 + 40]), e2
        word = (noun.group(1) if noun else lead.group(1) if lead else "").lower()
        if not word:
            continue
        role = (
            "link" if re.match(r"link|menu|nav", word) else "tab" if word.startswith("tab")
            else "option" if word.startswith("option") else "button"
        )  # fmt: skip
        dest = _DEST.search(clause, end)
        dest_text = ""
        if dest is not None and dest.start() - end < 60:
            dest_text = re.split(r"\s+(?:where|with|that|featuring|when|for|and|so)\b",
                                 dest.group("dest"))[0].strip()  # fmt: skip
        menu = role == "link" or bool(re.search(r"\bmenu|navigation|nav\b", word))
        menu = menu or bool(re.search(r"\b(?:in|on|to|within) the (?:\w+ )?(?:navigation|nav|menu"
                                      r"|header)\b", clause[end : end + 60]))  # fmt: skip
        found.append(Control(_clean(text), role, dest_text, menu))
        used.add(start)
    return found, used


def _names(clause: str, used: set[int]) -> list[tuple[str, str, int]]:
    """(name, noun, position) of the features a clause names: quoted names a feature noun
    follows, capitalised names, then plain noun phrases ("a comic archive")."""
    found: list[tuple[str, str, int]] = []
    for text, start, end in _quoted(clause):
        if start in used:
            continue
        noun = _NOUN_AFTER.match(clause[end : end + 30])
        if noun:
            found.append((_clean(text), noun.group(1).lower(), start))
    if found:
        return found
    plain = _QUOTE.sub(lambda m: " " * len(m.group()), clause)
    for m in _TITLED.finditer(plain):
        words = m.group(1).split()
        while words and (words[0] in _STOP or words[0].lower() in _SKIP_FIRST):
            words = words[1:]
        if words and words[-1].lower() in ("section", "feature", "page", "area"):
            words = words[:-1]
        if len(words) >= 2 and not (m.start() == 0 and len(words) < 2):
            found.append((_clean(" ".join(words)), (m.group(2) or "").lower(), m.start()))
    if found:
        return found
    for m in _LOWER.finditer(plain):
        if not _BUILD_BEFORE.search(plain[max(0, m.start() - 30) : m.start()]):
            continue  # "explore a comic from the archive": a place named, not one to build
        name = m.group(1).strip()
        words = name.split()
        while words and words[0] in _SKIP_FIRST:
            words = words[1:]
        name = " ".join(words)
        core = re.sub(r"\s+(?:page|section|feature|area)$", "", name)
        if name.lower() in _GENERIC or core.lower() in _GENERIC or len(core) < 3:
            continue
        if re.search(r"\b(?:home ?page|detail|results?|each|every)\b", core):
            continue
        if name.split()[-1].lower() == "section" and not core.endswith("s"):
            core = f"{core}s"  # "the comment section" is the Comments
        found.append((_clean(core), name.split()[-1].lower(), m.start()))
    return found


#: "a dedicated page", "its own page", "a separate page": the feature is a page of its own
_OWN_PAGE = re.compile(r"\b(?:dedicated|separate|its own|a new|standalone)\s+(?:[\w-]+\s+)?page\b")
_DROP_PAGE = re.compile(
    r"^\W*(?:please\s+)?(?:remove|delete|drop|get rid of)\s+(?:the\s+)?[\"“]?"
    r"(?P<name>[^\"”]{2,60}?)[\"”]?\s+page\b(?!\s+(?:section|title|heading|header|footer|hero|image|button|link))",
    re.I,
)


def read_page_drop(clause: str) -> FeatureSpec | None:
    """The page a clause removes ("Remove the Pricing page", "delete the “FAQ” page"), as a
    spec with ``drop`` set; None for any other clause (and for the homepage, never removed)."""
    m = _DROP_PAGE.match(clause)
    if m is None:
        return None
    name = _clean(re.sub(r"^(?:whole|entire|separate)\s+", "", m.group("name").strip(), flags=re.I))
    if not name or re.fullmatch(r"(?:home|main|landing|front|this|that|whole|entire)", name, re.I):
        return None
    return FeatureSpec(name=name, drop=True)


def page_frame(home: str, title: str) -> str:
    """A new page of the site made from the homepage ``home``: the same head (styles, scripts),
    header and footer, its own ``<title>`` and an empty ``<main>``; the links of the frame that
    pointed into the homepage (``#section``) point to ``index.html#section``."""
    site = _site_title(home)
    page = re.sub(r"<title>.*?</title>", f"<title>{_e(title)} · {_e(site)}</title>", home,
                  count=1, flags=re.S)  # fmt: skip
    page = re.sub(r'<meta name="mm-feature"[^>]*>\n?', "", page)
    main = re.search(r"(<main\b[^>]*>)(.*)(</main>)", page, re.S)
    if main is not None:
        page = page[: main.start()] + main.group(1) + "\n" + main.group(3) + page[main.end() :]

    def home(m: re.Match) -> str:
        anchor = f"#{m.group(2)}" if m.group(2) not in ("", "top") else ""
        return f'{m.group(1)}index.html{anchor}"'

    return re.sub(r'(<a\b[^>]*?\bhref=")#([^"]*)"', home, page)


def nav_link(page: str, label: str, href: str, current: bool = False) -> str:
    """``page`` with a link ``label`` → ``href`` in its header's navigation (see :func:`_nav`),
    marked ``aria-current="page"`` on the page it leads to."""
    page = _nav(page, label, href)
    if current:
        link = rf'<a href="{re.escape(_e(href))}">({re.escape(_e(label))})</a>'
        page = re.sub(link, rf'<a href="{_e(href)}" aria-current="page">\1</a>', page, count=1)
    return page


def _referenced(clause: str) -> list[tuple[str, str, int]]:
    """(name, noun, position) of the part of the site a clause refines ("Enhance the visual
    design of the lawyer and legal services directory page" → "Lawyer and legal services
    directory"): the feature the user takes to exist, built when it does not."""
    plain = _QUOTE.sub(lambda m: " " * len(m.group()), clause)
    for m in _REFERENCE.finditer(plain):
        words = m.group(1).split()
        while words and words[0] in _SKIP_FIRST:
            words = words[1:]
        core = " ".join(words)
        if not core or core in _GENERIC or f"{core} page" in _GENERIC or len(core) < 4:
            continue
        if re.search(
            r"\b(?:home ?page|home|main|entire|whole|same|this|each|every|overall|"
            r"visual|design|layout|user's|landing|web|top|bottom)\b",
            core,
        ):
            continue
        noun = re.search(r"\b(page|pages|section|feature|area)\b", m.group(0)).group(1)
        return [(_clean(_singular(core) if noun == "pages" else core), noun.rstrip("s"),
                 m.start())]  # fmt: skip
    return []


def _options(clause: str, used: set[int]) -> list[str]:
    """Quoted names listed after "such as", "like", "by" … that are not controls or features."""
    out = []
    for text, start, end in _quoted(clause):
        if start in used:
            continue
        before = clause[max(0, start - 40) : start]
        listed = _OPTIONS.search(before) or re.search(r"[\"”],?\s*(?:and|or)?\s*$", before)
        if listed and not _NOUN_AFTER.match(clause[end : end + 30]):
            out.append(_clean(text))
    return out


_FIELD_WORDS = {
    "name": ("Name", "text"), "email": ("Email", "email"), "message": ("Message", "textarea"),
    "phone": ("Phone", "tel"), "date": ("Date", "date"), "comment": ("Comment", "textarea"),
    "subject": ("Subject", "text"), "password": ("Password", "password"),
    "username": ("Username", "text"), "title": ("Title", "text"),
    "description": ("Description", "textarea"), "address": ("Address", "text"),
    "time": ("Time", "time"), "guests": ("Guests", "number"), "company": ("Company", "text"),
}  # fmt: skip


def _fields(clause: str) -> list[str]:
    m = re.search(r"\b(?:fields?|inputs?|asks?|asking|enter|provide|submit)\b(.{0,160})", clause,
                  re.I)  # fmt: skip
    if m is None:
        return []
    words = re.findall(r"[a-z]+", m.group(1).lower())
    found = [w for w in _FIELD_WORDS if w in words or f"{w}s" in words]
    if "e-mail" in m.group(1).lower() and "email" not in found:
        found.append("email")
    return found


def _subject(clause: str, name: str) -> str:
    """What the feature lists: the noun after "of", "showcasing", "displaying" …, else the
    name's last word."""
    m = re.search(
        r"\b(?:of|showcas(?:ing|es?)|display(?:ing|s)|listing|lists? of|lists?|shows?|"
        r"highlight(?:ing|s)|"
        r"featuring|browse|collection of|selection of|find)\s+(?:the\s+|a\s+|an\s+|their\s+|"
        r"past\s+|all\s+|highlighted\s+|specific\s+|selected\s+|latest\s+|highest-rated\s+|"
        r"top\s+|three\s+|five\s+|four\s+|most\s+\w+\s+)*"
        r"([a-z][\w-]*(?:\s+[a-z][\w-]*)?)",
        clause,
    )
    noun = m.group(1) if m else ""
    noun = re.sub(r"^(?:the|a|an|this|that|each|every)(?:\s+|$)", "", noun)
    if not noun or noun.split()[0] in ("users", "them", "it", "its", "their", "up", "how", "what"):
        noun = name.split()[-1].lower() if name else "item"
    noun = re.sub(r"\b(?:and|or|with|to|for|in|on|by|from|about|that|which)\b.*$", "", noun)
    noun = noun.strip(" '’") or "item"
    return _singular(entry_subject(noun, name))


_SINGULAR = {
    "movies": "movie",
    "cookies": "cookie",
    "series": "series",
    "species": "species",
    "zombies": "zombie",
    "calories": "calorie",
    "rookies": "rookie",
    "selfies": "selfie",
}


def _singular(noun: str) -> str:
    words = noun.split()
    last = words[-1]
    if last in _SINGULAR:
        last = _SINGULAR[last]
    elif last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "sses", "xes")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us", "news")):
        last = last[:-1]
    return " ".join([*words[:-1], last])


def _about(clause: str, name: str) -> str:
    """The section's lede: what the clause says the feature does, as one sentence."""
    m = re.search(
        r"\b(?:that|which|to|where|allowing|letting|enabling)\s+(?:users?\s+(?:can|to)\s+)?"
        r"(?:will\s+)?([a-z][^.;]{12,160})",
        _QUOTE.sub(lambda q: q.group(1), clause),
    )
    if m is None:
        return f"Everything about {name.lower()}, in one place." if name else ""
    text = re.split(r",\s*(?:and\s+)?(?:ensuring|making|so|while|drawing|with|using|offering"
                    r"|providing|enhancing)\b|\s+(?:with|and)\s+an?\s+\w+\s+(?:button|link)\b",
                    m.group(1))[0].strip()  # fmt: skip
    text = re.sub(r"^(?:allow|let|enable)s?\s+(?:users?|visitors?)\s+to\s+", "", text)
    text = re.sub(r"\busers?\b", "you", text)
    text = re.sub(r"\btheir\b", "your", text)
    return _clean(text) + "."


_ON_THIS = re.compile(r"\s(?:on|to|in|within|for|into|of)\s+(?:this|that|the same)$", re.I)


def read_clause(clause: str, previous: str = "") -> FeatureSpec | None:
    """The feature a clause asks for, or None when it asks for none (no build verb, or nothing
    to build). ``previous`` is the name of the turn's feature before this clause (a clause that
    adds a button or a search names no feature of its own)."""
    controls, used = _controls(clause)
    if not _BUILD.search(clause) and not controls:
        return None
    hover = _hover_words(clause.lower())
    # "a filter functionality on this page": the page the turn is about, no feature "… on this"
    names = [n for n in _names(clause, used) if not _ON_THIS.search(n[0])]
    low = clause.lower()
    kits = [k for k in kit.summon(_QUOTE.sub(" ", clause)) if k != "form" or _asks_form(low)]
    if re.search(r"\bcomments?\b", low) and re.search(r"\b(?:post|leave|write|add|submit)\w*\b",
                                                       low) and "list" not in kits:  # fmt: skip
        kits.append("list")
    sticky = bool(re.search(r"\b(?:sticky|fixed)\b", low)
                  and re.search(r"\b(?:nav\w*|header|menu|bar)\b", low))  # fmt: skip
    region = next((r for w, r in _REGIONS.items()
                   if re.search(rf"\b{w}(?: section| image| area)?\b", low)), "")  # fmt: skip
    links = []
    navbar = re.search(r"\b(?:navigation|nav)\s*(?:bar|menu)|\bmenu bar\b", low)
    to = _LINKS_TO.search(_QUOTE.sub(lambda q: q.group(1), clause)) if navbar else None
    if to is not None:
        parts = re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+", to.group(1))
        links = [_clean(re.sub(r"^(?:the|a|an|our)\s+", "", p.strip(), flags=re.I)) for p in parts]
        links = [x for x in links if 2 < len(x) <= 40 and x.lower() not in _GENERIC][:6]
        names = [n for n in names if n[2] < to.start()]
    if re.search(
        r"\b(?:introduc|add|implement|creat|includ|incorporat|integrat)\w*\s+(?:a|an|the)"
        r"\s+(?:[\w-]+\s+){0,2}(?:sticky|fixed)\s+(?:nav|header|menu)",
        low,
    ):
        names = []  # the bar itself is the header's navigation, not a section
    refined = _REFINE.match(clause)
    if (refined or not names) and not controls and not links:
        # "Enhance the X page by introducing …": what it introduces goes into X
        names = _referenced(clause[: refined.end()] if refined else clause) or names
    if not names and _OWN_PAGE.search(low):
        # "Create a separate page … via a navigation menu labeled “Coupon Stacking Guide”"
        label = next((c.label for c in controls if c.menu), "")
        names = [(label, "page", 0)] if label else names
    name, noun = "", ""
    for candidate, noun_, _at in names:
        if candidate.lower().split()[-1] in _REGIONS or candidate.lower() in _REGIONS:
            continue
        name, noun = candidate, noun_
        break
    host = ""
    for candidate, _noun, at in names[1:]:
        if _ENHANCE_BY.match(clause[:at]) and candidate != name:
            host, name = name, candidate
            break
    if region and name and overlap(name, region) > 0:
        name = ""
    if region == "footer" and _FOOTER.search(low):
        return _footer_spec(clause, low)
    if not name and not controls and not kits and not sticky and not links:
        icons = bool(re.search(r"\bicons?\b", low))
        pictures = bool(re.search(r"\b(?:thumbnails?|images?|photos?|pictures?)\b", low))
        each = bool(re.search(r"\b(?:each|every|all)\b", low))
        meta = [m for m in ("date", "rating", "price") if re.search(rf"\b{m}s?\b", low)]
        shape = _shape_words(low)
        if hover or shape or ((icons or pictures or meta) and each):
            return FeatureSpec(hover=hover[0] if hover else [], hovered=hover[1] if hover else "",
                               region=region, icons=icons, pictures=pictures,
                               meta=meta if each else [], shape=shape)  # fmt: skip
        return None
    if region and not name and not controls and not kits:
        return FeatureSpec(sticky=True, links=links) if sticky or links else None
    spec = FeatureSpec(
        name=name,
        region="" if name else region if region in ("hero", "footer", "header") else "",
        controls=controls,
        kits=kits,
        options=_options(clause, used),
        fields=_fields(clause),
        subject=_subject(clause, name or previous),
        about=_about(clause, name) if name else "",
        sticky=sticky,
        meta=[m for m in ("date", "rating", "price") if re.search(rf"\b{m}s?\b", low)],
        menu=(bool(_MENU.search(low)) and bool(name)) or any(c.menu for c in controls),
        links=links,
        hover=hover[0] if hover else [],
        hovered=hover[1] if hover else "",
    )
    # "each with … a “Learn More” button" (not "a link on each article page")
    spec.shape = _shape_words(low)
    spec.page = (
        bool(name) and not refined and not host and (noun == "page" or bool(_OWN_PAGE.search(low)))
    )
    spec.per_item = bool(controls) and bool(
        re.search(r"\b(?:each|every)\b(?![\w\s'’-]{0,30}\bpages?\b)", low)
    )
    spec.searches = bool(re.search(r"\bsearch", low))
    spec.icons = bool(re.search(r"\bicons?\b", low))
    spec.pictures = bool(re.search(r"\b(?:thumbnails?|images?|photos?|pictures?|illustrations?"
                                   r"|covers?|posters?)\b", low))  # fmt: skip
    _sorting(spec, low)
    if noun == "quiz" and "quiz" not in spec.kits:
        spec.kits.append("quiz")
    where = re.search(r"\b(?:below|under|after|beneath)\s+the\s+([a-z][\w -]{2,30}?)"
                      r"(?:\s+section)?\b(?=[,.;]|\s+(?:to|so|and|on)\b|$)", low)  # fmt: skip
    if host:
        spec.place = f"after:{host}"
    elif re.search(r"\bat the top\b|\babove the\b", low):
        spec.place = "start"
    elif where:
        spec.place = f"after:{where.group(1)}"
    return spec


_SORTS = (
    (r"recent|newest|latest|new", "date-desc", "date"),
    (r"oldest", "date-asc", "date"),
    (r"highest|top|best", "rating-desc", "rating"),
    (r"lowest|worst", "rating-asc", "rating"),
    (r"cheap|low(?:est)? price|price.*low", "price-asc", "price"),
    (r"expensive|high(?:est)? price|price.*high", "price-desc", "price"),
    (r"a-z|name|alphabet|title", "text-asc", ""),
    (r"popular", "rating-desc", "rating"),
)


def _sorting(spec: FeatureSpec, low: str) -> None:
    """Sort choices ("sort by “Most Recent,” “Highest Rating”") become the list's sort menu;
    categories in a dropdown become its filter menu (both run in the kit's filter)."""
    dropdown = bool(re.search(r"drop-?downs?|select menu", low))
    if re.search(r"\bsort", low):
        for option in list(spec.options):
            how = next(((v, m) for w, v, m in _SORTS if re.search(w, option.lower())), None)
            if how is None:
                continue
            spec.sorts.append([option, how[0]])
            spec.options.remove(option)
            if how[1] and how[1] not in spec.meta:
                spec.meta.append(how[1])
        if not spec.sorts and dropdown:
            spec.sorts = [["Most recent", "date-desc"], ["Highest rated", "rating-desc"]]
            spec.meta += [m for m in ("date", "rating") if m not in spec.meta]
    if spec.sorts or (dropdown and spec.options):
        spec.dropdown = dropdown
        if "filter" not in spec.kits:
            spec.kits.append("filter")
    elif dropdown and "filter" in spec.kits:
        spec.dropdown = True  # "a dropdown menu … to facilitate this filtering": the categories


_FOOTER = re.compile(
    r"\b(?:introduc|add|implement|creat|includ|incorporat|design|enhanc|refin)\w*\s+"
    r"(?:a|an|the)\s+(?:[\w-]+\s+){0,3}footer"
    r"|\bfooter (?:also |should )?(?:contains?|includes?|has|holds?|features?|displays?)"
)


_HOVER_WORDS = (
    (r"enlarg|scal|zoom|grow|bigger|increas\w* (?:the |its )?size", "scale"),
    (r"elevat|lift|rais|float|depth", "lift"),
    (r"shadow", "shadow"),
    (r"glow", "glow"),
    (r"bright", "brightness"),
    (r"underlin", "underline"),
    (r"rotat|tilt", "rotate"),
    (r"border", "border"),
    (r"colou?r|highlight|darken|lighten", "colour"),
)


def _hover_words(low: str) -> tuple[list[str], str] | None:
    """(the hover effects a clause asks for, what is hovered) or None without a hover."""
    at = re.search(r"\bhover\w*|\bmouse ?over", low)
    if at is None:
        return None
    effects = [e for w, e in _HOVER_WORDS if re.search(rf"\b{w}", low)] or ["lift", "colour"]
    hovered = next((k for w, k in ((r"menu|nav|link", "menu"), (r"button|cta", "buttons"),
                                   (r"image|photo|picture|thumbnail|avatar|icon|logo", "pictures"),
                                   (r"card|tile|item|entr|project|product|post", "cards"))
                    if re.search(rf"\b(?:{w})", low)), "cards")  # fmt: skip
    return effects, hovered


_HOVER_CSS = {
    "scale": "transform:scale(1.05)",
    "lift": "transform:translateY(-4px);box-shadow:0 14px 30px rgba(0,0,0,.16)",
    "shadow": "box-shadow:0 14px 30px rgba(0,0,0,.18)",
    "glow": "box-shadow:0 0 0 3px var(--accent, #f90), 0 0 18px var(--accent, #f90)",
    "brightness": "filter:brightness(1.1)",
    "underline": "text-decoration:underline;text-underline-offset:4px",
    "rotate": "transform:rotate(-6deg)",
    "border": "border-color:var(--primary, currentColor)",
    "colour": "color:var(--accent-text, inherit);border-color:var(--primary, currentColor)",
}


def _shape_words(low: str) -> list[str]:
    """The look a clause asks of a feature's entries (rounded corners, a border, a shadow),
    outside what a hover does to them."""
    still = re.sub(r"\b(?:hover\w*|mouse ?over)\b.*", "", low)  # "… on hover, a shadow": hover's
    found = []
    if re.search(r"\brounded\b|\bround corners\b", still):
        found.append("rounded")
    if re.search(r"\bborders?\b", still) and not re.search(
        r"\bborder colou?r|\bno borders?", still
    ):
        found.append("border")
    if re.search(r"\b(?:box )?shadows?\b", still) and "text shadow" not in still:
        found.append("shadow")
    return found


_SHAPE_CSS = {
    "rounded": "border-radius:var(--radius, 12px);overflow:hidden",
    "border": "border:1px solid var(--border, rgba(0,0,0,.18))",
    "shadow": "box-shadow:0 6px 18px rgba(0,0,0,.12)",
}


def shape_css(spec: FeatureSpec, own: str) -> str:
    """A one-line CSS rule giving the entries of section ``own`` ("" for the page) the look
    ``spec.shape`` asks (rounded corners, a border, a shadow)."""
    scope = f"#{own} " if own else ""
    targets = f"{scope}.card, {scope}[data-mm-item], {scope}.items > li"
    return f"{targets}{{{';'.join(_SHAPE_CSS[k] for k in spec.shape)}}}"


def hover_css(spec: FeatureSpec, own: str) -> str:
    """One-line CSS rules giving the hovered elements of section ``own`` ("" for the page) the
    asked effects, with a transition so they ease in."""
    scope = f"#{own} " if own else ""
    targets = {
        "menu": ".nav-list a, nav a",
        "buttons": f"{scope}.button, {scope}button",
        "pictures": f"{scope}img, {scope}.fb-thumb, {scope}svg",
        "cards": f"{scope}.card, {scope}[data-mm-item], {scope}.items > li",
    }[spec.hovered or "cards"]
    transforms = [e for e in spec.hover if e in ("scale", "lift", "rotate")]
    decls = []
    if len(transforms) > 1:  # one transform property holds them all
        parts = {"scale": "scale(1.05)", "lift": "translateY(-4px)", "rotate": "rotate(-6deg)"}
        decls.append("transform:" + " ".join(parts[t] for t in transforms))
        decls += [d for e in spec.hover for d in _HOVER_CSS[e].split(";")
                  if not d.startswith("transform")]  # fmt: skip
    else:
        decls = [d for e in spec.hover for d in _HOVER_CSS[e].split(";")]
    decls = list(dict.fromkeys(decls))
    hovered = ", ".join(f"{t.strip()}:hover" for t in targets.split(","))
    return (
        f"{targets}{{transition:transform .2s ease, box-shadow .2s ease, filter .2s ease, "
        f"color .2s ease, border-color .2s ease}}\n{hovered}{{{';'.join(decls)}}}"
    )


def _footer_spec(clause: str, low: str) -> FeatureSpec:
    """A footer: what it holds (about, contact, social links, newsletter) and how it looks."""
    parts = [p for p in ("about", "contact", "social", "newsletter", "copyright", "links")
             if re.search(rf"\b{p}", low)]  # fmt: skip
    if re.search(r"\bdark\b", low):
        parts.append("dark")
    kits = ["form"] if "newsletter" in parts or re.search(r"\bsubscri", low) else []
    return FeatureSpec(region="footer", options=parts, kits=kits, fields=["email"] if kits else [])


def _asks_form(low: str) -> bool:
    return bool(re.search(r"\b(?:form|sign[- ]?up|subscri\w+|newsletter|rsvp|registration"
                          r"|contact us|booking)\b", low))  # fmt: skip


# --- building ---------------------------------------------------------------------------------


def slug(name: str) -> str:
    """The section id of a feature name ("Featured Comic" → "featured-comic")."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "feature"


def _e(text: str) -> str:
    return escape(text, quote=True)


def _title(text: str) -> str:
    return " ".join(w if w.isupper() else w[:1].upper() + w[1:] for w in text.split())


def find_feature(page: str, name: str) -> html_edit.Node | None:
    """The section of ``page`` that is the feature ``name`` (its id, else its heading)."""
    if not name:
        return None
    node = html_edit.find(page, "data-mm-section", f"fb-{slug(name)}")
    if node is not None:
        return node
    nodes = html_edit.parse(page)
    best: tuple[float, html_edit.Node] | None = None
    for n in nodes:
        if "data-mm-section" not in n.attrs or n.tag in ("header", "footer", "nav"):
            continue
        heads = [
            html_edit.text_of(page, c)
            for c in nodes
            if c.tag in ("h1", "h2", "h3") and n.start <= c.start < n.end
        ][:2]
        label = " ".join([n.attrs.get("aria-label", ""), n.attrs.get("id", "").replace("-", " "),
                          *heads])  # fmt: skip
        score = overlap(name, label)
        # "Software Comparison History" is not the "Dynamic Software Comparison Tool"
        least = 0.75 if len(_words(name)) >= 3 else 0.6
        if score >= least and overlap(label, name) >= 0.5 and (best is None or score > best[0]):
            best = (score, n)
    return best[1] if best else None


@cache
def _entry_copy() -> dict:
    """``resources/offline/entry_copy.json`` (see its ``_about``); raises ValueError naming
    the file when it is unreadable."""
    path = resource("offline", "entry_copy.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["leads"] = re.compile(data["leads"], re.I)
        for entry in data["subjects"]:
            entry["match"] = re.compile(rf"\b(?:{entry['match']})", re.I)
        return data
    except (OSError, KeyError, TypeError, ValueError, re.error) as exc:
        raise ValueError(f"{path} is not an entry-copy file: {exc}") from None


def entry_subject(noun: str, name: str = "") -> str:
    """What a feature lists, from the words after "of" / "showcasing" … (``noun``): the leads
    of the copy file dropped and the qualifying words it names ("a list of past comics" →
    "comics", "available deal" → "deal"); a noun that is none
    ("of their", "page") gives the last word of the feature's ``name``, else "entry"."""
    data = _entry_copy()
    noun = data["leads"].sub("", noun.strip()).strip()
    words = noun.split()
    while len(words) > 1 and words[0].lower() in data["skip_first"]:
        words = words[1:]
    noun = " ".join(words)
    first = noun.split()[0].lower() if noun else ""
    if not first or first in data["not_subjects"] or first in data["skip_first"]:
        last = name.split()[-1].lower() if name.split() else ""
        return last if last and last not in data["not_subjects"] else "entry"
    return noun


def entry_copy(subject: str, topic: str, count: int = 6) -> list[tuple[str, str]]:
    """``count`` (title, text) sample entries of a feature listing ``subject`` on the site
    ``topic`` (its title): the copy file's titles and texts for the subject when it has them,
    else "<Subject> n" titles and its text templates."""
    data = _entry_copy()
    entry = next((e for e in data["subjects"] if e["match"].search(subject)), None)
    if entry is not None:
        titles, texts = entry["titles"], entry["texts"]
    else:
        titles = [f"{_title(subject)} {n}" for n in range(1, count + 1)]
        texts = [t.format(subject=subject, topic=topic or "this site") for t in data["texts"]]
    return [(titles[n % len(titles)], texts[n % len(texts)]) for n in range(count)]


def _items(spec: FeatureSpec, topic: str = "", count: int = 6) -> list[tuple[str, str, str]]:
    """(title, meta line, text) of the entries a feature lists (``topic``: the site's title):
    the options the words list, else sample entries of its subject (:func:`entry_copy`)."""
    copy = entry_copy(spec.subject or "entry", topic, count)
    titles = [o for o in spec.options if len(o) <= 40][:6] if "filter" not in spec.kits else []
    titles = titles or [t for t, _x in copy]
    items = []
    for n, title in enumerate(titles):
        items.append((title, " · ".join(_meta(spec, n)), copy[n % len(copy)][1]))
    return items


def _tags(spec: FeatureSpec) -> list[str]:
    return [o for o in spec.options if len(o) <= 30][:6]


def _card(title: str, meta: str, text: str, extra: str = "", art: int = -1) -> str:
    meta_html = f'<p class="item-label">{_e(meta)}</p>' if meta else ""
    picture = _art(title, art) if art >= 0 else ""
    return (
        f'{picture}<h3 class="item-title">{_e(title)}</h3>{meta_html}'
        f'<p class="item-text">{_e(text)}</p>{extra}'
    )


_GLYPHS = (
    '<circle cx="12" cy="12" r="7"/>',
    '<path d="M12 3l2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9z"/>',
    '<rect x="5" y="5" width="14" height="14" rx="3"/>',
    '<path d="M12 4l8 15H4z"/>',
)


def _icon(n: int) -> str:
    """A small decorative icon (24 px, the page's primary colour)."""
    glyph = _GLYPHS[n % len(_GLYPHS)]
    return (
        '<svg class="fb-icon" width="28" height="28" viewBox="0 0 24 24" aria-hidden="true" '
        f'fill="var(--primary, currentColor)">{glyph}</svg>'
    )


def _art(title: str, n: int) -> str:
    """A small inline picture for a card (shapes in the page's primary / accent colours; the
    card's title as its accessible name) — a thumbnail a designer replaces with the real one."""
    x, y, r = 40 + (n * 37) % 160, 30 + (n * 23) % 50, 18 + (n * 11) % 22
    return (
        f'<svg class="fb-thumb" viewBox="0 0 240 120" role="img" aria-label="{_e(title)}">'
        f'<rect width="240" height="120" fill="var(--surface, #eee)"/>'
        f'<rect width="240" height="120" fill="var(--primary, #456)" opacity=".18"/>'
        f'<circle cx="{x}" cy="{y}" r="{r}" fill="var(--accent, #e96)" opacity=".85"/>'
        f'<path d="M0 120 L{60 + n * 13 % 60} {55 + n * 7 % 30} L{150 + n * 9 % 50} 120Z" '
        f'fill="var(--primary, #456)" opacity=".7"/></svg>'
    )


def _component(name: str, spec: FeatureSpec, key: str, site_title: str) -> str:
    """The markup of kit component ``name`` configured for ``spec``."""
    label = spec.name or _title(spec.subject)
    items = _items(spec, site_title)
    if name == "form":
        config = kit.configure("form", " ".join([label, *spec.fields]))
        if spec.fields and "fields" not in config:
            config["fields"] = tuple(
                kit.Field(f, _FIELD_WORDS[f][0], _FIELD_WORDS[f][1]) for f in spec.fields
            )
            first = spec.fields[0]
            config["confirm"] = f"Thank you! We received your {label.lower()} details."
            if first == "name":
                config["confirm"] = "Thank you, {name}! We received your details."
        config["form_id"] = f"{key}-form"
        return kit.snippet("form", **config, mm_id=f"{key}-form-box")
    if name == "quiz":
        heads = [t for t, _m, _x in items[:3]]
        questions = [
            (f"Which of these is part of {site_title}?", [label, "A weather report", "A recipe"],
             label),
            (f"What does {label} help you do?", ["Explore and enjoy it", "File taxes",
                                                 "Book a flight"], "Explore and enjoy it"),
            ("How often is new content added?", ["Regularly", "Never", "Only in leap years"],
             "Regularly"),
        ]  # fmt: skip
        del heads
        return kit.snippet("quiz", questions=questions, mm_id=f"{key}-quiz")
    if name == "carousel":
        slides = [(t, f"{m} — {x}" if m else x) for t, m, x in items]
        return kit.snippet("carousel", slides=slides, label=label, mm_id=f"{key}-carousel")
    if name == "accordion":
        pairs = [(f"What is {label}?", spec.about or f"{label} is part of {site_title}."),
                 (f"How do I use {label}?", "Open it from the menu at the top of the page."),
                 ("Is it free?", "Yes: everything here is free to use.")]  # fmt: skip
        if spec.options:
            pairs = [(o, f"{o}: {spec.about or 'details below.'}") for o in spec.options[:6]]
        return kit.snippet("accordion", items=pairs, mm_id=f"{key}-accordion")
    if name == "tabs":
        titles = spec.options or [t for t, _m, _x in items[:3]]
        texts = [x for _t, _m, x in items]
        pairs = [(t, texts[n % len(texts)]) for n, t in enumerate(titles[:6])]
        return kit.snippet("tabs", items=pairs, prefix=f"{key}-tab", mm_id=f"{key}-tabs")
    if name == "list":
        if re.search(r"comment", spec.subject + " " + label, re.I) or "comment" in spec.about:
            return kit.snippet("list", items=[], label="Comments", field_label="Add a comment",
                               add="Post comment", empty="No comments yet: be the first.",
                               key=f"{key}-comments", mm_id=f"{key}-list")  # fmt: skip
        config = kit.configure("list", label)
        config["key"] = key
        return kit.snippet("list", **config, mm_id=f"{key}-list")
    if name == "modal":
        return kit.snippet("modal", title=label, body=spec.about or label,
                           dialog_id=f"{key}-dialog", mm_id=f"{key}-modal")  # fmt: skip
    if name == "counter":
        config = kit.configure("counter", label)
        config["key"] = f"{key}-{config['key']}"[:40]
        return kit.snippet("counter", **config, mm_id=f"{key}-counter")
    raise KeyError(name)


def _href(control: Control, page: str, own: str) -> str:
    """Where a control leads: the homepage's top, a feature section its words name, else the
    feature's own section."""
    dest = control.dest.lower()
    if re.fullmatch(r"(?:back to )?home(?: ?page)?", control.label.lower()):
        return "#top"
    if re.match(r"^(?:the\s+)?(?:home ?page|home|top)\b", dest):
        return "#top"
    if dest:
        target = find_feature(page, dest) or find_feature(page, re.sub(r"\s+page$", "", dest))
        if target is not None and target.attrs.get("id"):
            return f"#{target.attrs['id']}"
    return f"#{own}"


def _nav(page: str, label: str, href: str) -> str:
    """``page`` with a link ``label`` → ``href`` in the header's navigation (made when the
    header has none); unchanged when such a link is there."""
    if re.search(rf'<a\b[^>]*href="{re.escape(href)}"[^>]*>\s*{re.escape(_e(label))}\s*</a>', page):
        return page
    header = re.search(r"<header\b.*?</header>", page, re.S)
    same = rf"<a\b[^>]*>\s*{re.escape(_e(label))}\s*</a>"
    if header and re.search(same, header.group(0), re.I):
        return page  # the navigation has this label already (the page's own link): never twice
    item = f'<li><a href="{_e(href)}">{_e(label)}</a></li>'
    lst = re.search(r'<ul\b[^>]*class="[^"]*\bnav-list\b[^"]*"[^>]*>', page)
    header = re.search(r"<header\b.*?</header>", page, re.S)
    if lst and (header is None or header.start() <= lst.start() < header.end()):
        return page[: lst.end()] + item + page[lst.end() :]
    nav = f'<nav class="site-nav fb-nav" aria-label="Main"><ul class="nav-list">{item}</ul></nav>'
    tools = re.search(r'<div class="header-tools">', page)
    if tools:
        return page[: tools.end()] + nav + page[tools.end() :]
    if header:
        close = page.rfind("</header>", header.start(), header.end())
        return page[:close] + nav + page[close:]
    body = re.search(r"<body[^>]*>", page)
    at = body.end() if body else 0
    return page[:at] + f"<header>{nav}</header>" + page[at:]


def _button(control: Control, href: str) -> str:
    cls = "button button-primary" if control.role == "button" else "button button-secondary"
    return f'<a class="{cls}" href="{_e(href)}">{_e(control.label)}</a>'


def _site_title(page: str) -> str:
    m = re.search(r"<title>(.*?)</title>", page, re.S)
    return htmllib.unescape(m.group(1)).strip() if m else "this site"


def _region(page: str, region: str) -> html_edit.Node | None:
    for n in html_edit.parse(page):
        if n.tag == region or n.attrs.get("data-mm-section") == region:
            return n
        if region == "hero" and "hero" in n.attrs.get("class", "").split():
            return n
    return None


def _close_of(page: str, node: html_edit.Node) -> int:
    """Where content goes at the end of ``node``: before its ``.wrap`` child's close, else
    before its own end tag."""
    inner = page[node.open_end : node.end]
    wrap = re.search(r'<div class="wrap">', inner)
    if wrap:
        nodes = html_edit.parse(page)
        at = node.open_end + wrap.start()
        child = next((n for n in nodes if n.start == at), None)
        if child is not None:
            return page.rfind("</", child.open_end, child.end)
    return page.rfind("</", node.open_end, node.end)


def _place(page: str, markup: str, where: str) -> str:
    """``page`` with the new section ``markup`` at ``where`` (start | end | after:<words>)."""
    main = re.search(r"<main\b[^>]*>", page)
    if where.startswith("after:"):
        node = _region(page, "hero") if "hero" in where else find_feature(page, where[6:])
        if node is not None and node.tag != "header":
            return page[: node.end] + "\n" + markup + page[node.end :]
    if main and where == "start":
        nodes = html_edit.parse(page)
        hero = next((n for n in nodes if n.attrs.get("data-mm-section") == "hero"), None)
        at = hero.end if hero is not None else main.end()
        return page[:at] + "\n" + markup + page[at:]
    close = page.rfind("</main>")
    if close < 0:
        footer = re.search(r"<footer\b", page)
        close = footer.start() if footer else page.rfind("</body>")
    close = close if close >= 0 else len(page)
    return page[:close] + markup + "\n" + page[close:]


def build(page: str, spec: FeatureSpec, key: str) -> tuple[str, list[str]]:
    """(``page`` with the feature built, the kit components it now uses). ``key`` (the
    requirement's id, e.g. "t3-r2") keeps element ids unique. Raises ValueError when the spec
    asks for nothing this module can build."""
    if spec.empty:
        raise ValueError("the words name no feature to build")
    title = _site_title(page)
    if spec.sticky:
        page = _sticky(page)
    for name in spec.links:
        target = find_feature(page, name)
        if target is not None and target.attrs.get("id"):
            page = _nav(page, _title(name), f"#{target.attrs['id']}")
    if spec.region == "footer" and not spec.name:
        return _finish(_footer(page, spec, title, key))
    if (spec.hover or spec.icons or spec.pictures or spec.meta or spec.shape) and not (
        spec.name or spec.controls or spec.kits
    ):
        target = _region(page, spec.region) if spec.region else _last_feature(page)
        own = target.attrs.get("id", "") if target is not None else ""
        if spec.hover:
            page = html_edit.set_patch_block(page, "fb-features", hover_css(spec, own))
        if spec.shape and own:
            page = html_edit.set_patch_block(page, "fb-features", shape_css(spec, own))
        if own and (spec.icons or spec.pictures or spec.meta):
            page = _enrich(page, own, spec)
        return _finish(page)
    node = find_feature(page, spec.name) if spec.name else None
    if node is None and not spec.name and spec.region:
        node = _region(page, spec.region)
    if node is None and not spec.name and (spec.controls or spec.kits):
        node = _last_feature(page)
    if node is None and not spec.name and not (spec.controls or spec.kits):
        return _finish(page)  # the header's navigation only
    fresh = node is None
    own = node.attrs.get("id", "") if node is not None else ""
    if fresh:
        own = slug(spec.name or _title(spec.subject) or "New feature")
        if html_edit.find(page, "id", own) is not None:
            own = f"{own}-{key}"
    elif not own:
        own = f"feature-{key}"
        page = html_edit.set_attribute(page, node, "id", own)
        node = html_edit.find(page, "id", own)
    parts = [
        _component(name, spec, f"{own}-{key}", title)
        for name in spec.kits
        if name != "filter" and (fresh or not _has_kit(page, node, name))
    ]
    wants_filter = "filter" in spec.kits and (fresh or not _has_kit(page, node, "filter"))
    buttons, each = [], []
    for control in spec.controls:
        if control.role in ("tab", "option"):
            continue
        href = _href(control, page, own)
        if control.menu and not spec.per_item:
            page = _nav(page, control.label, href)
        elif spec.per_item:
            each.append(_button(control, href))
        elif not (node is not None and _has_label(page, node, control.label)):
            buttons.append(_button(control, href))
    if spec.menu and spec.name and not any(c.menu for c in spec.controls):
        page = _nav(page, spec.name, f"#{own}")
    actions = f'<div class="actions">{"".join(buttons)}</div>' if buttons else ""
    if fresh:
        plain = {"carousel", "quiz", "form", "list"} & set(spec.kits)
        listing = "" if plain else _grid(spec, title)
        if wants_filter:
            listing = _filter_around(listing or _grid(spec, title), spec, f"{own}-{key}")
        name = spec.name or _title(spec.subject)
        lede = f'<p class="lede">{_e(spec.about)}</p>' if spec.about else ""
        listing = _each_card(listing, "".join(each)) if each else listing
        markup = (
            f'<section id="{own}" data-mm-section="fb-{own}" class="section section-feature '
            f'layout-stack" aria-label="{_e(name)}">\n<div class="wrap"><div class="stack">'
            f'<div class="section-head"><h2 id="{own}--title">{_e(name)}</h2>{lede}</div>'
            f"{listing}{''.join(parts)}{actions}</div></div>\n</section>"
        )
        page = _place(page, markup, spec.place)
    else:
        if wants_filter:
            page = _add_filter(page, own, spec, key)
        elif "filter" in spec.kits and spec.dropdown:
            page = _tags_to_select(page, own, key)
        if spec.icons or spec.pictures or spec.meta or each:
            page = _enrich(page, own, spec, "".join(each))
        body = "".join(parts) + actions
        if body:
            node = html_edit.find(page, "id", own)
            if node is None:
                raise ValueError("the feature's section went missing while it was built")
            at = _close_of(page, node)
            page = page[:at] + body + page[at:]
    if spec.hover:
        page = html_edit.set_patch_block(page, "fb-features", hover_css(spec, own))
    if spec.shape:
        page = html_edit.set_patch_block(page, "fb-features", shape_css(spec, own))
    return _finish(page)


def _footer(page: str, spec: FeatureSpec, title: str, key: str) -> str:
    """``page`` with a site footer holding what ``spec.options`` names (about, contact, social
    links, a newsletter form), dark when asked; an existing footer gains the parts it lacks."""
    host = re.sub(r"[^a-z0-9]+", "", title.lower())[:24] or "studio"
    blocks = []
    want = set(spec.options) or {"about", "contact"}
    existing = re.search(r"<footer\b.*?</footer>", page, re.S)
    have = existing.group(0).lower() if existing else ""
    if "about" in want and ">about<" not in have:
        blocks.append(
            f'<div class="fb-footer-block"><h2 class="fb-footer-title">About</h2><p>{_e(title)} '
            "is made by a small, independent team. We share new work every week and read every "
            "message we get.</p></div>"
        )
    if "contact" in want and "contact" not in have:
        blocks.append(
            '<div class="fb-footer-block"><h2 class="fb-footer-title">Contact</h2>'
            f'<p><a href="mailto:hello@{host}.example">hello@{host}.example</a><br>'
            "+1 (555) 014-2290<br>120 Market Street, Suite 4</p></div>"
        )
    if "social" in want and "social" not in have:
        links = "".join(
            f'<li><a class="fb-social" href="#top" aria-label="{n} (profile link to add)">'
            f"{_icon(k)}{n}</a></li>" for k, n in enumerate(("Instagram", "Mastodon", "YouTube"))
        )  # fmt: skip
        blocks.append(
            '<div class="fb-footer-block"><h2 class="fb-footer-title">Follow us</h2>'
            f'<ul class="fb-social-list">{links}</ul></div>'
        )
    if "form" in spec.kits and 'data-mm-behaviour="form"' not in have:
        form = kit.snippet("form", **kit.configure("form", "newsletter"), mm_id=f"footer-{key}")
        form = form.replace('id="signup-form"', f'id="signup-{key}"').replace(
            'for="signup-form-', f'for="signup-{key}-').replace('id="signup-form-',
                                                                 f'id="signup-{key}-')  # fmt: skip
        blocks.append(f'<div class="fb-footer-block">{form}</div>')
    dark = " fb-footer-dark" if "dark" in spec.options else ""
    if existing:
        node = next(n for n in html_edit.parse(page) if n.start == existing.start())
        if dark:
            classes = node.attrs.get("class", "")
            page = html_edit.set_attribute(page, node, "class", f"{classes}{dark}".strip())
            node = next(n for n in html_edit.parse(page) if n.start == existing.start())
        if blocks:
            at = _close_of(page, node)
            page = page[:at] + f'<div class="fb-footer-grid">{"".join(blocks)}</div>' + page[at:]
        return page
    year = "2025"
    markup = (
        f'<footer id="site-footer" data-mm-section="fb-footer" class="site-footer fb-footer{dark}"'
        f' aria-label="Footer">\n<div class="wrap"><div class="fb-footer-grid">{"".join(blocks)}'
        f'</div><p class="fb-footer-note">© {year} {_e(title)}</p></div>\n</footer>'
    )
    at = page.rfind("</body>")
    at = at if at >= 0 else len(page)
    return page[:at] + markup + "\n" + page[at:]


def _enrich(page: str, own: str, spec: FeatureSpec, each: str = "") -> str:
    """``page`` with each entry of section ``own`` (a list item with a title) that lacks one
    given an icon (``spec.icons``) or a picture (``spec.pictures``) before its title, the meta
    line ``spec.meta`` asks for (date, rating, price) after it, and the controls ``each`` at its
    end."""
    node = html_edit.find(page, "id", own)
    if node is None:
        return page
    inside = page[node.start : node.end]
    count = 0

    def add(m: re.Match) -> str:
        nonlocal count
        head, title, rest = m.group(1), m.group(2), m.group(3)
        extra = ""
        if spec.icons and "fb-icon" not in head:
            extra += _icon(count)
        if spec.pictures and "fb-thumb" not in head and "<img" not in head + rest:
            extra += _art(htmllib.unescape(re.sub(r"<[^>]+>", "", title)), count)
        meta = [] if 'class="item-label"' in rest else _meta(spec, count)
        after = f'<p class="item-label">{_e(" · ".join(meta))}</p>' if meta else ""
        tail = each if each and each not in rest else ""
        count += 1
        return f"{head}{extra}{title}{after}{rest}{tail}</li>"

    pattern = (
        r"(<li\b[^>]*>(?:(?!<h[34]|</li>).)*?)(<h[34]\b[^>]*>.*?</h[34]>)((?:(?!</li>).)*)</li>"
    )
    inside = re.sub(pattern, add, inside, flags=re.S)
    return page[: node.start] + inside + page[node.end :]


def _meta(spec: FeatureSpec, n: int) -> list[str]:
    """The meta line of entry ``n``: the date, rating and price ``spec.meta`` asks for."""
    meta = []
    if "date" in spec.meta:
        meta.append(f"{28 - 3 * (n % 9)} May 2025")
    if "rating" in spec.meta:
        meta.append(f"★ {_RATINGS[n % 6]:.1f} / 5")
    if "price" in spec.meta:
        meta.append(f"${19 + 10 * n}")
    return meta


def _each_card(listing: str, controls: str) -> str:
    """``listing`` with ``controls`` at the end of each of its entries."""
    return re.sub(r"</li>", lambda _m: f"{controls}</li>", listing)


def _finish(page: str) -> tuple[str, list[str]]:
    names = sorted(set(_kits_on(page)))
    if names:
        page = kit.with_head_tags(page, names)
    return _with_css(page), names


def _has_label(page: str, node: html_edit.Node, label: str) -> bool:
    return f">{_e(label)}<" in page[node.start : node.end]


def _grid(spec: FeatureSpec, topic: str = "") -> str:
    """The feature's entries as a card grid in the page's own card classes (``topic``: the
    site's title, for the sample entries)."""
    counter = "counter" in spec.kits
    cards = []
    for n, (title, meta, text) in enumerate(_items(spec, topic)):
        extra = ""
        if counter:
            extra = kit.snippet("counter", label="Like", key=f"like-{slug(title)}-{n}")
        keys = "".join(
            f' data-mm-sort-{k}="{v}"'
            for k, v in (("date", f"2025-05-{28 - 3 * n:02d}"),
                         ("rating", f"{_RATINGS[n % 6]:.1f}"),
                         ("price", str(19 + 10 * n)))
            if k in spec.meta
        )  # fmt: skip
        art = n if spec.pictures else -1
        icon = _icon(n) if spec.icons else ""
        cards.append(f'<li class="card"{keys}>{icon}{_card(title, meta, text, extra, art)}</li>')
    cols = 3 if len(cards) >= 3 else max(1, len(cards))
    return f'<ul class="items cards cols-{cols} fb-cards">{"".join(cards)}</ul>'


def _filter_bits(spec: FeatureSpec, key: str) -> tuple[str, str]:
    """(the search field, tag buttons and count that go above a list; the empty message
    after it) of a filter (the kit's ``filter`` DOM contract)."""
    label = spec.name or _title(spec.subject)
    fid = f"{key}-search"
    tags = _tags(spec)
    buttons = ""
    if tags and spec.dropdown:
        options = '<option value="">All</option>' + "".join(
            f'<option value="{_e(slug(t))}">{_e(t)}</option>' for t in tags
        )
        buttons = (
            f'<p class="fb-select"><label for="{key}-category">Category</label> '
            f'<select id="{key}-category" data-mm-filter-select>{options}</select></p>'
        )
    elif tags:
        buttons = '<div class="mm-filter-tags" role="group" aria-label="Filter by category">'
        buttons += '<button type="button" data-mm-filter-tag="">All</button>'
        buttons += "".join(
            f'<button type="button" data-mm-filter-tag="{_e(slug(t))}">{_e(t)}</button>'
            for t in tags
        )
        buttons += "</div>"
    if spec.sorts:
        options = "".join(f'<option value="{_e(v)}">{_e(t)}</option>' for t, v in spec.sorts)
        buttons += (
            f'<p class="fb-select"><label for="{key}-sort">Sort by</label> '
            f'<select id="{key}-sort" data-mm-sort>{options}</select></p>'
        )
    search = (
        f'<label for="{fid}">Search {_e(label.lower())}</label> '
        f'<input id="{fid}" type="search" data-mm-filter-input autocomplete="off" '
        f'placeholder="Type a keyword">'
    )
    if spec.sorts or spec.dropdown:
        search = search if spec.searches else ""
    head = (
        f'<div class="fb-search">{search}{buttons}'
        f'<p class="mm-filter-count" data-mm-filter-count></p></div>'
    )
    return head, "<p data-mm-filter-empty>Nothing matches your search.</p>"


def _items_marked(listing: str, spec: FeatureSpec) -> str:
    """``listing`` with each entry (``<li>`` of its first list) an item of the filter, tagged
    round-robin with the spec's categories."""
    tags = [slug(t) for t in _tags(spec)]
    count = 0

    def mark(m: re.Match) -> str:
        nonlocal count
        tag = f' data-mm-tags="{tags[count % len(tags)]}"' if tags else ""
        count += 1
        return f"{m.group(0)[:-1]} data-mm-item{tag}>"

    return re.sub(r"<li\b[^>]*>", mark, listing)


def _filter_around(listing: str, spec: FeatureSpec, key: str) -> str:
    head, empty = _filter_bits(spec, key)
    return (
        f'<div class="fb-body" data-mm-behaviour="filter">{head}'
        f"{_items_marked(listing, spec)}{empty}</div>"
    )


def _add_filter(page: str, own: str, spec: FeatureSpec, key: str) -> str:
    """``page`` with a search filtering the list of section ``own`` (its first ``ul.items``
    or card grid; a new grid when it has none)."""
    node = html_edit.find(page, "id", own)
    if node is None:
        raise ValueError(f"no section {own} to add a search to")
    nodes = html_edit.parse(page)
    lists = [
        n for n in nodes
        if n.tag in ("ul", "ol") and node.start < n.start < node.end
        and re.search(r"\b(?:items|cards|fb-cards|grid|list)\b", n.attrs.get("class", ""))
    ]  # fmt: skip
    if not lists:
        at = _close_of(page, node)
        grid = _grid(spec, _site_title(page))
        return page[:at] + _filter_around(grid, spec, f"{own}-{key}") + page[at:]
    target = lists[0]
    wrapped = _filter_around(page[target.start : target.end], spec, f"{own}-{key}")
    return page[: target.start] + wrapped + page[target.end :]


def _tags_to_select(page: str, own: str, key: str) -> str:
    """``page`` with the category buttons of section ``own``'s filter turned into a dropdown
    of the same categories (the kit's filter reads either)."""
    node = html_edit.find(page, "id", own)
    if node is None:
        return page
    inside = page[node.start : node.end]
    group = re.search(r'<div class="mm-filter-tags"[^>]*>(.*?)</div>', inside, re.S)
    if group is None:
        return page
    tags = re.findall(r'<button type="button" data-mm-filter-tag="([^"]*)">(.*?)</button>',
                      group.group(1))  # fmt: skip
    options = "".join(f'<option value="{value}">{label}</option>' for value, label in tags if value)
    select = (
        f'<p class="fb-select"><label for="{own}-{key}-category">Category</label> '
        f'<select id="{own}-{key}-category" data-mm-filter-select><option value="">All</option>'
        f"{options}</select></p>"
    )
    inside = inside[: group.start()] + select + inside[group.end() :]
    return page[: node.start] + inside + page[node.end :]


def _has_kit(page: str, node: html_edit.Node | None, name: str) -> bool:
    if node is None:
        return False
    return f'data-mm-behaviour="{name}"' in page[node.start : node.end]


def _kits_on(page: str) -> list[str]:
    return [n for n in re.findall(r'data-mm-behaviour="([a-z]+)"', page) if n in kit.KIT]


def _last_feature(page: str) -> html_edit.Node | None:
    found = [n for n in html_edit.parse(page) if n.attrs.get("data-mm-section", "").startswith(
        "fb-")]  # fmt: skip
    return found[-1] if found else None


def _sticky(page: str) -> str:
    m = re.search(r"<header\b[^>]*>", page)
    if m is None:
        return page
    node = next(n for n in html_edit.parse(page) if n.start == m.start())
    classes = node.attrs.get("class", "")
    if "fb-sticky" in classes.split():
        return page
    return html_edit.set_attribute(page, node, "class", f"{classes} fb-sticky".strip())


def _with_css(page: str) -> str:
    tag = f'<link rel="stylesheet" href="{FEATURE_CSS}">'
    if tag in page:
        return page
    at = page.lower().find("</head>")
    return page if at < 0 else page[:at] + tag + "\n" + page[at:]


def stylesheet() -> bytes:
    """The features' stylesheet (``assets/css/mm-features.css``): the kit's controls in the
    page's palette variables (``--primary``, ``--surface``, ``--border``, ``--radius``)."""
    from mmstudio.resources import resource

    return (resource("behaviours") / "features.css").read_bytes()
