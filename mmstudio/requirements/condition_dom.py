"""The static side of a site for FronTalk condition checks: each page's links, buttons, form
fields, select options, headings and scripts, read from its HTML (no browser), and the
resolution of a page or feature name ("the comic archive page", "the Contact Us page") to the
page file or the section that plays it.

What a visitor *sees* comes from :class:`~mmstudio.render.facts.PageFacts`; this module answers
what the markup *does*: where a link goes, which options a dropdown offers, which inputs a form
holds, whether a script handles a button. Names are compared by word stems (first five letters:
"comparison" ~ "compare"), so a page titled "Compare Software" plays "the software comparison
tool".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: words that never name a page or feature on their own
STOP = frozenset({
    "a", "an", "the", "of", "and", "or", "to", "for", "in", "on", "at", "by", "with", "from",
    "into", "each", "every", "any", "all", "this", "that", "its", "it's", "their", "your", "our",
    "my", "user", "users", "page", "pages", "section", "sections", "feature", "features", "area",
    "tool", "tools", "system", "portal", "website", "site", "main", "full", "dedicated",
    "individual", "detailed", "new", "separate", "specific", "homepage", "home", "view", "link",
    "button", "menu", "item", "items", "option",
})  # fmt: skip
_CAPTURE = {"a", "button", "label", "option", "title", "h1", "h2", "h3", "h4", "select",
            "textarea", "li", "summary"}  # fmt: skip
_LOCATION = re.compile(r"""(?:window\.|document\.)?location(?:\.href)?\s*=\s*['"]([^'"]+)['"]""")


def stems(text: str) -> set[str]:
    """The content-word stems of ``text`` (lower case, first five letters, no stop words)."""
    words = re.findall(r"[a-z0-9]+", text.lower().replace("'s", ""))
    return {w[:5] for w in words if w not in STOP and len(w) > 1}


def overlap(name: str, text: str) -> float:
    """Share (0–1) of the content stems of ``name`` found in ``text`` (0 when name has none)."""
    want = stems(name)
    return len(want & stems(text)) / len(want) if want else 0.0


@dataclass
class Control:
    """A link, a button or a submit input: its visible words and where it goes."""

    tag: str
    text: str = ""
    href: str = ""
    onclick: str = ""
    id: str = ""
    classes: str = ""
    type: str = ""
    form: int = -1

    @property
    def target(self) -> str:
        """Where a click goes by markup alone: the href, or a ``location = '…'`` of its onclick
        ("" when neither says)."""
        if self.href:
            return self.href
        m = _LOCATION.search(self.onclick)
        return m.group(1) if m else ""


@dataclass
class Field:
    """A form control (input, textarea, select) with every word that names it."""

    tag: str
    type: str = ""
    name: str = ""
    id: str = ""
    placeholder: str = ""
    label: str = ""
    form: int = -1
    options: list[str] = field(default_factory=list)

    @property
    def words(self) -> str:
        return f"{self.tag} {self.type} {self.name} {self.id} {self.placeholder} {self.label}"


@dataclass
class PageDom:
    """One page's markup, as far as the checks need it."""

    file: str
    title: str = ""
    headings: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    names: str = ""  # every id and class, lower case, space separated
    tags: dict[str, int] = field(default_factory=dict)
    controls: list[Control] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)
    forms: int = 0
    scripts: str = ""  # inline scripts and the site's own script files
    styles: str = ""  # inline style sheets and the site's own CSS files
    images: list[str] = field(default_factory=list)  # the src of every <img>
    drawn: int = 0  # inline <svg role="img"> pictures (drawn thumbnails; not icons)

    def pinned(self) -> list[str]:
        """Selectors the style sheets pin with ``position: sticky`` or ``fixed``."""
        rules = re.finditer(r"([^{}]+)\{([^{}]*)\}", self.styles)
        return [
            m.group(1).strip()[-80:]
            for m in rules
            if re.search(r"position\s*:\s*(?:sticky|fixed)", m.group(2))
        ]

    @property
    def options(self) -> list[str]:
        return [o for f in self.fields for o in f.options]

    def handled(self, control: Control) -> bool:
        """Whether a script may react to ``control`` (an inline handler, or its id / class
        named in the page's scripts)."""
        if control.onclick and not _LOCATION.search(control.onclick):
            return True
        keys = [control.id, *control.classes.split()]
        return any(k and re.search(rf"[#.'\"]{re.escape(k)}\b", self.scripts) for k in keys)


class _Parser(HTMLParser):
    def __init__(self, dom: PageDom) -> None:
        super().__init__(convert_charrefs=True)
        self.dom = dom
        self.open: list[tuple[str, object, list[str]]] = []  # (tag, record, words)
        self.label_for: dict[str, str] = {}
        self.form = -1
        self.script = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        dom = self.dom
        dom.tags[tag] = dom.tags.get(tag, 0) + 1
        if a.get("id"):
            dom.ids.add(a["id"])
        dom.names += f" {a.get('id', '')} {a.get('class', '')}".lower()
        if tag == "img":
            dom.images.append(a.get("src", ""))
        if tag == "svg" and a.get("role") == "img" and "icon" not in a.get("class", "").lower():
            small = re.fullmatch(r"(?:[1-5]?\d|6[0-4])(?:px)?", a.get("width", ""))
            dom.drawn += 0 if small else 1
        if tag == "form":
            dom.forms += 1
            self.form = dom.forms - 1
        self.script = "script" if tag == "script" and not a.get("src") else ""
        self.script = "style" if tag == "style" else self.script
        record: object = None
        if (
            tag == "a"
            or tag == "button"
            or (tag == "input" and a.get("type") in ("submit", "button"))
        ):
            record = Control(
                tag,
                a.get("value", ""),
                a.get("href", ""),
                a.get("onclick", ""),
                a.get("id", ""),
                a.get("class", ""),
                a.get("type", ""),
                self.form,
            )
            dom.controls.append(record)
        elif tag in ("input", "textarea", "select"):
            record = Field(
                tag,
                a.get("type", "text" if tag == "input" else tag),
                a.get("name", ""),
                a.get("id", ""),
                a.get("placeholder", ""),
                a.get("aria-label", ""),
                self.form,
            )
            dom.fields.append(record)
        if tag == "label" and a.get("for"):
            record = a["for"]
        if tag in _CAPTURE:
            self.open.append((tag, record, []))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.form = -1
        self.script = ""
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                _, record, words = self.open.pop(i)
                self._close(tag, record, " ".join(" ".join(words).split()))
                break

    def _close(self, tag: str, record: object, text: str) -> None:
        dom = self.dom
        if isinstance(record, Control):
            record.text = record.text or text
        elif tag == "label" and isinstance(record, str):
            self.label_for[record] = text
        elif tag == "option" and dom.fields and dom.fields[-1].tag == "select":
            dom.fields[-1].options.append(text)
        elif tag == "title":
            dom.title = text
        elif tag in ("h1", "h2", "h3", "h4") and text:
            dom.headings.append(text)

    def handle_data(self, data: str) -> None:
        if self.script == "style":
            self.dom.styles += data + "\n"
            return
        if self.script:
            self.dom.scripts += data + "\n"
            return
        for _, _, words in self.open:
            words.append(data)

    def finish(self) -> PageDom:
        for f in self.dom.fields:
            f.label = f.label or self.label_for.get(f.id, "")
        return self.dom


@lru_cache(maxsize=128)
def _parse(file: str, html: str, scripts: str, styles: str = "") -> PageDom:
    parser = _Parser(PageDom(file))
    parser.feed(html)
    parser.close()
    dom = parser.finish()
    dom.scripts += scripts
    dom.styles += styles
    return dom


@dataclass
class Target:
    """Where a name resolves: a page file, and the section id on it ("" for the whole page)."""

    file: str
    section: str = ""


class SiteDom:
    """The pages of one site folder (``index.html`` first), parsed on first use."""

    def __init__(self, site_dir: Path | str, main: str = "index.html") -> None:
        self.root = Path(site_dir)
        self.main = main
        found = sorted(
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*.html")
            if "vendor" not in p.parts and "assets" not in p.parts
        )
        self.files = [main, *[f for f in found if f != main][:24]]
        js = sorted(self.root.glob("*.js"))
        self._scripts = "\n".join(p.read_text("utf-8", "replace")[:200_000] for p in js)
        css = sorted(p for p in self.root.rglob("*.css") if "vendor" not in p.parts)
        self._styles = "\n".join(p.read_text("utf-8", "replace")[:200_000] for p in css)

    def page(self, file: str) -> PageDom:
        try:
            html = (self.root / file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            html = ""
        return _parse(file, html, self._scripts, self._styles)

    def exists(self, file: str) -> bool:
        return file in self.files or (self.root / file).is_file()

    def follow(self, href: str, base: str) -> Target | None:
        """The page and anchor a link ``href`` on page ``base`` leads to, or None when it leads
        nowhere in the site ("#", ``javascript:``, a missing file or anchor, another site)."""
        parts = urlsplit(href.strip())
        if parts.scheme or parts.netloc or not (parts.path or parts.fragment):
            return None
        path = unquote(parts.path)
        file = (Path(base).parent / path).as_posix().lstrip("./") if path else base
        if path.endswith("/") or not path.split("/")[-1]:
            file = (file.rstrip("/") + "/index.html").lstrip("/") if path else base
        if not self.exists(file):
            return None
        anchor = unquote(parts.fragment)
        if anchor and anchor != "top" and anchor not in self.page(file).ids:
            return None
        return Target(file, anchor if anchor != "top" else "")

    def describe(self, target: Target) -> str:
        """The words that name what a target shows: the file's stem, title and headings, or
        the anchor's id and the headings of the page."""
        dom = self.page(target.file)
        stem = Path(target.file).stem.replace("-", " ").replace("_", " ")
        if target.section:
            return f"{target.section.replace('-', ' ').replace('_', ' ')}"
        return f"{stem if stem != 'index' else 'home'} {dom.title} {' '.join(dom.headings[:3])}"

    def common(self) -> set[str]:
        """Stems in at least half of the site's pages' names (when it has three or more):
        the site's subject ("software", "comic"), which names no page in particular."""
        if len(self.files) < 3:
            return set()
        counts: dict[str, int] = {}
        for file in self.files:
            for stem in stems(self.describe(Target(file))):
                counts[stem] = counts.get(stem, 0) + 1
        return {s for s, n in counts.items() if n >= len(self.files) / 2}

    def resolve(self, name: str, facts_headings: list[str] = ()) -> Target | None:
        """The page file (or the section of the main page) that ``name`` names: by file name,
        title or first headings of a page, by the words of a link that leads there, or by a
        section id or heading of the main page. None when nothing matches half of its words."""
        common = self.common()
        if stems(name) - common:  # "software's detail" on a software site: "detail" decides
            name = " ".join(w for w in re.findall(r"[\w']+", name) if w.lower()[:5] not in common)
        if not stems(name):
            return None
        best: tuple[float, Target] | None = None

        def offer(score: float, target: Target) -> None:
            nonlocal best
            if score >= 0.5 and (best is None or score > best[0]):
                best = (score, target)

        for file in self.files[1:]:
            offer(overlap(name, self.describe(Target(file))), Target(file))
        home = self.page(self.main)
        for control in home.controls:
            target = self.follow(control.target, self.main) if control.target else None
            if target is not None:
                offer(overlap(name, control.text) - 0.01, target)
        for anchor in home.ids:
            offer(
                overlap(name, anchor.replace("-", " ").replace("_", " ")) - 0.02,
                Target(self.main, anchor),
            )
        for heading in [*home.headings, *facts_headings]:
            offer(overlap(name, heading) - 0.03, Target(self.main))
        return best[1] if best else None
