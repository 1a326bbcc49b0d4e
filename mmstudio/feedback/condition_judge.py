"""FronTalk test conditions judged by rules on the rendered site (no model).

:func:`condition_judge` is a :data:`~mmstudio.feedback.critic.Judge`: for every FronTalk test
condition among the requirements (a ``check_only`` requirement whose text is
``<condition> Passes when: … Fails when: …``) it reads the condition
(:func:`~.conditions.read_condition`), checks each part on the page it is about — the homepage,
the page it names (rendered on demand), or any page of the site — and gives a verdict with
:func:`verdict`. Behaviours run as scripts of :mod:`mmstudio.feedback.functional` in the
sandboxed browser: a form filled and submitted must show a confirmation, a click on a named
control must show a named text, a scripted link must reach its destination. A model judge,
when given, is asked first; the rules decide only what it left unchecked.

Renders of other pages, static reads and script outcomes are cached by the content of the
site's HTML / CSS / JS, so re-checking every condition after every turn costs little while the
site does not change.
"""

from __future__ import annotations

import hashlib
import logging
import re
import tempfile
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mmstudio.project.errors import one_line
from mmstudio.requirements.condition_checks import check_part
from mmstudio.requirements.condition_dom import STOP, SiteDom, Target, overlap
from mmstudio.requirements.condition_steps import Behaviours
from mmstudio.requirements.condition_view import PageView, result
from mmstudio.requirements.conditions import ConditionReading, read_condition
from mmstudio.requirements.model import Requirement, RequirementResult
from mmstudio.requirements.text import loose

log = logging.getLogger(__name__)

MAX_PAGES = 8  # pages of a site a "anywhere on the site" condition looks at
#: ``await render_page(site_dir, file, width) -> (facts, screenshot image) | None``
PageRender = Callable[[Path, str, int], Awaitable[Any]]


def condition_of(req: Any) -> tuple[str, str, str] | None:
    """(condition, pass, fail) of a FronTalk condition requirement, or None for any other."""
    if not getattr(req, "check_only", False):
        return None
    text = req.text
    condition, _, rest = text.partition(" Passes when: ")
    passes, _, fails = rest.partition(" Fails when: ")
    if " Fails when: " in condition:  # a condition with a fail text and no pass text
        condition, _, fails = condition.partition(" Fails when: ")
    return condition, passes, fails


def page_target(dom: SiteDom, name: str, headings: list[str] | None = None) -> Target | None:
    """The page (or homepage section) a condition's page name is about: the page of one item
    (:func:`item_page`), else what :meth:`SiteDom.resolve` finds by file, title, link or
    heading (``headings``: the rendered homepage's); None when nothing matches."""
    return item_page(dom, name) or dom.resolve(name, headings or [])


def item_page(dom: SiteDom, name: str) -> Target | None:
    """The page of one item for a page name that starts with the kind of item the site gives
    pages of their own: “a restaurant's profile”, “the restaurant profile”, “each restaurant's
    page”, “section within each restaurant's profile” (the possessive names the kind) →
    ``restaurant1.html`` (a file ``<kind><n>.html`` or a title “<Kind> <n>”, the first
    of them), so the site's subject word being on every page does not leave “profile” to pick
    the owners' portal. None when the site has no such pages, or when the other words of the
    name are in another page's file name or title (“Restaurant Owner Portal”)."""
    raw = re.findall(r"[\w']+", name.lower().replace("\u2019", "'"))
    owner = max((i for i, w in enumerate(raw) if w.endswith("'s")), default=0)
    words = [w.removesuffix("'s") for w in raw[owner:]]  # “… within each restaurant's …”
    words = [w for w in words if w not in STOP]
    if not words:
        return None
    kind, rest = re.escape(words[0]), " ".join(words[1:])
    items, others = [], []
    for file in dom.files[1:]:
        stem, title = Path(file).stem.lower(), dom.page(file).title.lower()
        if re.fullmatch(rf"{kind}s?[-_]?\d+", stem) or re.match(rf"{kind}s?\s+#?\d+\b", title):
            items.append(file)
        else:
            others.append(f"{stem.replace('-', ' ').replace('_', ' ')} {title}")
    if not items or (rest and any(overlap(rest, label) >= 0.5 for label in others)):
        return None
    return Target(items[0])


def verdict(reading: ConditionReading, results: list[RequirementResult]) -> tuple[str, str]:
    """(status, one-line detail): fail when a part fails, pass when every part passes and the
    reading is complete, else unchecked (never a pass)."""
    if not results:
        return "unchecked", "no rule reads this condition"
    failed = [r for r in results if r.status == "fail"]
    if failed:
        return "fail", f"{failed[0].text}: {failed[0].message}"
    passed = [r for r in results if r.status == "pass"]
    if len(passed) == len(results) and not reading.unread:
        return "pass", "; ".join(f"{r.text}: {r.message}" for r in results)[:300]
    open_ = [r.text for r in results if r.status == "unchecked"]
    why = f"not read: {', '.join(reading.unread[:4])}" if reading.unread else ""
    why = "; ".join(x for x in (why, f"undecided: {', '.join(open_[:2])}" if open_ else "") if x)
    return "unchecked", f"{len(passed)}/{len(results)} part(s) pass; {why}"


class SiteCheck(Behaviours):
    """One site folder under the judge: its markup, its rendered pages, its scripts' outcomes."""

    def __init__(
        self,
        site_dir: Path,
        main: str,
        main_view: PageView,
        key: str,
        cache: _Cache,
        render_page: PageRender | None,
    ) -> None:
        self.site_dir, self.main, self.key, self.cache = site_dir, main, key, cache
        self.dom = SiteDom(site_dir, main)
        self.views = {main: main_view}
        self.render_page = render_page
        self.shared: str | None = None

    async def view(self, file: str) -> PageView | None:
        """The rendered view of page ``file`` (rendered once per content; None when it could
        not be rendered or no renderer is given)."""
        if file in self.views:
            return self.views[file]
        if self.shared is None:
            self.shared = site_key(self.site_dir, (".css", ".js"))
        key = ("view", page_key(self.site_dir, file, self.shared))
        view = self.cache.get(key)
        if view is None and self.render_page is not None:
            view = await _render_view(
                self.render_page, self.site_dir, file, self.dom, self.views[self.main].width
            )
            self.cache.put(key, view)
        if view is not None:
            self.views[file] = view
        return view

    async def run(self, steps: list[dict], page: str) -> tuple[bool, str]:
        """(passed, detail) of a functional script on ``page`` (once per site content). Raises
        ScriptError (a ValueError) for steps the runner refuses."""
        from mmstudio.feedback import functional

        key = (self.key, page, repr(steps))
        hit = self.cache.get(key)
        if hit is None:
            outcome = await functional.run_script(
                self.site_dir, functional.parse_script(steps), page=page
            )
            hit = (outcome.passed, outcome.detail)
            self.cache.put(key, hit)
        return hit

    async def judge(self, reading: ConditionReading) -> tuple[str, str]:
        """(status, detail) of one reading: its parts checked on the page(s) it is about."""
        pages = await self._pages(reading)
        if isinstance(pages, RequirementResult):
            return verdict(reading, [pages])
        results = [
            await self._part(part, pages, reading)
            for part in reading.parts
            if part.checker != "cond.page"
        ]
        if reading.where == "page":
            results.insert(0, result(reading.parts[0], "pass", f"the page is {pages[0].file}"))
        return verdict(reading, results)

    async def _pages(self, reading: ConditionReading):
        if reading.where == "home":
            return [self.views[self.main]]
        if reading.where == "page":
            heads = (
                [b.text for b in self.views[self.main].facts.blocks if b.heading]
                if self.views[self.main].facts
                else []
            )
            target = page_target(self.dom, reading.page, heads)
            if target is None:
                return result(
                    reading.parts[0], "fail", f"no page or section of the site is “{reading.page}”"
                )
            view = await self.view(target.file)
            return (
                [view]
                if view is not None
                else result(reading.parts[0], "unchecked", f"{target.file} could not be rendered")
            )
        views = [await self.view(f) for f in self.dom.files[:MAX_PAGES]]
        return [v for v in views if v is not None]

    async def _part(self, part: Requirement, pages: list[PageView], reading) -> RequirementResult:
        name = part.checker.removeprefix("cond.")
        if name == "named":
            return self._named(part)
        if name in ("items", "icon"):
            return self._items(part, pages)
        if name in ("hover", "motion", "rounded", "border"):
            return self._hover(part, pages)
        if name in ("navigate", "submit", "reveal"):
            return await self._behaviour(name, part, pages)
        if name == "home_link":
            return await self._home_link(part, pages, reading)
        if name == "reached":
            return self._reached(part)
        if name == "item_link":
            return self._item_link(part, pages)
        found = [_pinned(part, v, check_part(part, v)) for v in pages]
        for status in ("pass", "fail"):
            hit = next((r for r in found if r.status == status), None)
            if hit is not None:
                return hit
        return found[0] if found else result(part, "unchecked", "no page to check")

    async def _home_link(self, part: Requirement, pages: list[PageView], reading):
        """A link back to the homepage on the page the journey starts from: the page the
        condition names, else the page of the feature it names (a section of the homepage, or
        no named start, leaves it unchecked)."""
        from mmstudio.requirements.condition_things import check_home_link

        if reading.where != "page":
            named = [p.label for p in reading.parts if p.label and (p.checker == "cond.named"
                     or (p.checker == "cond.text" and p.role == "section"))]  # fmt: skip
            target = self.dom.resolve(named[0]) if named else None
            view = (await self.view(target.file)
                    if target is not None and target.file != self.main and not target.section
                    else None)  # fmt: skip
            if view is None:
                return result(part, "unchecked", "no page of its own to start the way back from")
            pages = [view]
        found = [check_home_link(part, view, self.main) for view in pages]
        return next((r for r in found if r.status == "pass"), found[0] if found else
                    result(part, "unchecked", "no page to check"))  # fmt: skip

    def _item_link(self, part: Requirement, pages: list[PageView]) -> RequirementResult:
        """Every item of the section ``part.label`` links to a page of its own: another page
        of the site, a different one per item or one named like the item. Items that are no
        links fail; items only a script may handle (buttons) stay unchecked."""
        from mmstudio.requirements.condition_dom import Target
        from mmstudio.requirements.condition_items import entries

        found: list[RequirementResult] = []
        for view in pages:
            try:
                html = (self.site_dir / view.file).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            items = entries(html, part.label)
            where = f"“{part.label}” on {view.file}"
            if items is None:
                found.append(result(part, "fail", f"no section {where}"))
                continue
            if len(items) < 2:
                found.append(result(part, "fail", f"no repeated items in {where}"))
                continue
            linked = []
            for item in items:
                targets = [self.dom.follow(h, view.file) for h in item.links]
                own = [t for t in targets if t is not None and t.file != view.file]
                if own:
                    linked.append((item, own[0]))
            files = {t.file for _i, t in linked}
            named = [i for i, t in linked
                     if overlap(i.title, self.dom.describe(Target(t.file))) >= 0.5]  # fmt: skip
            if len(linked) == len(items) and (len(files) == len(items) or named):
                return result(part, "pass", f"{len(items)} items in {where} link to "
                              f"{', '.join(sorted(files)[:3])}")  # fmt: skip
            if linked or any(i.buttons for i in items):
                found.append(result(part, "unchecked", f"{len(linked)} of {len(items)} items in "
                                    f"{where} link to a page of their own"))  # fmt: skip
                continue
            nowhere = sum(bool(i.links) for i in items)
            found.append(
                result(
                    part,
                    "fail",
                    f"the {len(items)} items in {where} are no links"
                    + (f" ({nowhere} lead nowhere in the site)" if nowhere else ""),
                )
            )
        for status in ("pass", "unchecked", "fail"):
            hit = next((r for r in found if r.status == status), None)
            if hit is not None:
                return hit
        return result(part, "unchecked", "no page to read")

    def _reached(self, part: Requirement) -> RequirementResult:
        """A link of the homepage (of its menu, when ``part.label`` is "menu") leads to the page
        or section ``part.values[0]`` resolves to; a section of the homepage is reached there
        unless the menu is asked."""
        dest = part.values[0] if part.values else part.key
        main = self.views[self.main]
        heads = [b.text for b in main.facts.blocks if b.heading] if main.facts else []
        target = self.dom.resolve(dest, heads)
        if target is None:
            return result(part, "fail", f"no page or section of the site is “{dest}”")
        menu = None
        if part.label == "menu":
            blocks = main.facts.blocks if main.facts else []
            menu = {loose(b.text) for b in blocks if b.header and (b.link or b.button)}
        for control in self.dom.page(self.main).controls:
            found = self.dom.follow(control.target, self.main) if control.target else None
            if found is None or found.file != target.file:
                continue
            if (
                target.section
                and found.section != target.section
                and overlap(dest, control.text) < 0.5
            ):
                continue
            if menu is not None and loose(control.text) not in menu:
                continue
            where = found.file + (f"#{found.section}" if found.section else "")
            return result(part, "pass", f"the homepage's “{control.text[:40]}” leads to {where}")
        if target.file == self.main and menu is None:
            return result(part, "pass", f"“{dest}” is on the homepage itself")
        at = "menu" if menu is not None else "homepage"
        return result(part, "fail", f"no link of the {at} leads to “{dest}” ({target.file})")

    def _items(self, part: Requirement, pages: list[PageView]) -> RequirementResult:
        """Every item of some repeated group (in the named section) holds what is asked, on
        the first page where it does; else the first page's failure."""
        from mmstudio.requirements.condition_items import check_icon, check_items

        check = check_items if part.checker == "cond.items" else check_icon
        found = []
        for view in pages:
            try:
                html = (self.site_dir / view.file).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            found.append(check(part, html, view.file))
            if found[-1].status == "pass":
                return found[-1]
        return found[0] if found else result(part, "unchecked", "no page to read")

    def _hover(self, part: Requirement, pages: list[PageView]) -> RequirementResult:
        """A ``:hover`` rule with the asked effects (or a rule giving the rounded corners or the
        border asked) in the style sheets of some page."""
        from mmstudio.requirements.condition_hover import check_hover, check_motion
        from mmstudio.requirements.condition_shape import check_shape

        check = {"cond.hover": check_hover, "cond.motion": check_motion}.get(
            part.checker, check_shape
        )
        found = [check(part, view.dom.styles) for view in pages]
        hit = next((r for r in found if r.status == "pass"), None)
        return hit or (found[0] if found else result(part, "unchecked", "no page to read"))

    def _named(self, part: Requirement) -> RequirementResult:
        """Some page, heading, section, link or title of the site names the feature."""
        for file in self.dom.files[: MAX_PAGES * 2]:
            dom = self.dom.page(file)
            names = [
                dom.title,
                *dom.headings,
                *(c.text for c in dom.controls),
                *(i.replace("-", " ") for i in dom.ids),
                Path(file).stem.replace("-", " "),
            ]
            view = self.views.get(file)
            if view and view.facts and loose(part.label) in loose(view.facts.text):
                return result(part, "pass", f"named on {file}")
            best = max((overlap(part.label, n) for n in names if n), default=0)
            if best >= 0.5:
                return result(part, "pass", f"named on {file}")
        return result(part, "fail", f"nothing on the site is named “{part.label}”")


def _pinned(part: Requirement, view: PageView, found: RequirementResult) -> RequirementResult:
    """A fixed-header check that failed on the page's ``<header>`` passes when the style
    sheets pin a navigation bar of their own (``nav.sticky-nav { position: sticky }``)."""
    if found.status != "fail" or part.kind != "layout" or part.role != "header":
        return found
    pins = [s for s in view.dom.pinned() if re.search(r"nav|header|menu|top", s, re.I)]
    if not pins:
        return found
    return result(part, "pass", f"the style sheet pins “{pins[0]}” (sticky / fixed)")


class _Cache:
    """A small LRU of rendered page views and script outcomes."""

    def __init__(self, size: int = 64) -> None:
        self.size, self.items = size, OrderedDict()

    def get(self, key):
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        return None

    def put(self, key, value) -> None:
        self.items[key] = value
        while len(self.items) > self.size:
            self.items.popitem(last=False)


def site_key(site_dir: Path, only: tuple[str, ...] = (".html", ".css", ".js")) -> str:
    """A digest of the site's HTML, CSS and JS (what pages show and scripts do); ``only``
    narrows it to some suffixes."""
    digest = hashlib.sha256()
    for path in sorted(Path(site_dir).rglob("*")):
        if path.suffix in only and "vendor" not in path.parts:
            digest.update(path.relative_to(site_dir).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def page_key(site_dir: Path, file: str, shared: str) -> str:
    """A digest of one page and the site's shared CSS / JS (``shared``): its render changes
    with them only, not with the other pages."""
    try:
        data = (Path(site_dir) / file).read_bytes()
    except OSError:
        data = b""
    return hashlib.sha256(shared.encode() + file.encode() + data).hexdigest()


def _load_image(path: str):
    if not path or not Path(path).is_file():
        return None
    from PIL import Image

    with Image.open(path) as img:
        return img.convert("RGB")


async def _render_view(
    render_page: PageRender, site: Path, file: str, dom: SiteDom, width: float
) -> PageView | None:
    try:
        rendered = await render_page(site, file, int(width))
    except (OSError, ValueError) as exc:
        log.info("could not render %s: %s", file, exc)
        return None
    if rendered is None:
        return None
    facts, image = rendered
    return PageView(file, facts, dom.page(file), image, width)


async def default_render(site: Path, file: str, width: int):
    """(facts, screenshot) of another page of the site, rendered in the shared browser (None
    when the render failed)."""
    from mmstudio.render import get_renderer

    with tempfile.TemporaryDirectory(prefix="mmstudio-condition-") as out:
        rendered = await get_renderer().render(site, file, width, Path(out), accessibility=False)
        if rendered.failure:
            return None
        return rendered.facts, _load_image(rendered.screenshot)


def condition_judge(
    base=None, *, render_page: PageRender | None = default_render, turns: bool = False
):
    """A judge that decides FronTalk test conditions by rules (see the module doc); ``base``
    (a model judge, or None) is asked first and keeps every verdict it gives; other pages of
    the site are rendered with ``render_page`` (None: only the rendered page is read). With
    ``turns`` the free requirements of feedback turns are read as conditions too (their own
    words: "the header stays fixed at the top", "a form asking for name and email")."""
    cache = _Cache()

    def reading_of(req: Any) -> tuple[str, str, str] | None:
        found = condition_of(req)
        if found is None and turns and getattr(req, "op", None) == "free":
            return " ".join(str(req.text).split()), "", ""
        return found

    async def judge(requirements: list, render) -> list:
        from mmstudio.feedback.ledger import Verdict
        from mmstudio.providers.base import DesignerError

        verdicts: dict[str, Any] = {}
        if base is not None:
            try:
                verdicts = {v.requirement: v for v in await base(requirements, render)}
            except (DesignerError, ValueError, OSError) as exc:
                line = one_line(exc, 200)
                log.warning("the judge failed: %s", line)
                verdicts = {
                    r.id: Verdict(r.id, None, f"unchecked: the judge failed: {line}")
                    for r in requirements
                }
        todo = [
            (r, c)
            for r in requirements
            if (c := reading_of(r)) is not None
            and getattr(verdicts.get(r.id), "passed", None) is None
        ]
        site = _site(render, cache, render_page) if todo else None
        for req, (condition, passes, fails) in todo if site is not None else ():
            try:
                status, detail = await site.judge(read_condition(condition, passes, fails))
            except Exception as exc:  # a rule that trips on an odd page must not sink the turn
                log.warning("condition rules failed on %s", req.id, exc_info=True)
                status, detail = "unchecked", f"the rules failed: {type(exc).__name__}: {exc}"
            turn = not getattr(req, "check_only", False)
            if status == "pass" and turn and not states_a_result(condition):
                # "frobnicate the footer": a footer on the page is no proof of the change
                status, detail = "unchecked", f"the rules read only part of it ({detail})"
            if status == "unchecked" and req.id in verdicts:
                continue  # the model's own reason stays
            passed = None if status == "unchecked" else status == "pass"
            verdicts[req.id] = Verdict(req.id, passed, f"rules: {detail}"[:400])
        return list(verdicts.values())

    return judge


#: a turn that begins with one of these asks for something to be there, which the rules can see
_PRESENCE_VERBS = frozenset(
    ("add", "include", "put", "place", "show", "insert", "keep", "display", "use", "give")
)
_STATE_WORDS = re.compile(r"\b(?:should|must|needs? to|has to|have to)\b", re.I)


def states_a_result(text: str) -> bool:
    """A turn's words describe the page it wants ("Add a “Book” button", "The header should
    stay fixed"), so the rules' pass on that page is the turn's pass — unlike a change verb the
    rules do not measure ("make the form ask for …", "frobnicate the footer")."""
    words = re.findall(r"[a-z']+", text.lower())
    return bool(words) and (words[0] in _PRESENCE_VERBS or bool(_STATE_WORDS.search(text)))


def _site(render, cache: _Cache, render_page: PageRender | None) -> SiteCheck | None:
    """The site under ``render`` (None without its folder or facts)."""
    site_dir = Path(render.site_dir or "")
    if not render.site_dir or not (site_dir / render.page).is_file() or render.facts is None:
        return None
    width = float((render.viewport or {}).get("width", 1280))
    key = site_key(site_dir)
    dom = SiteDom(site_dir, render.page)
    main = PageView(
        render.page, render.facts, dom.page(render.page), _load_image(render.screenshot), width
    )
    return SiteCheck(site_dir, render.page, main, key, cache, render_page)
