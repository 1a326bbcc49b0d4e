"""Model-backed refiners: the local, context and global levels of MM-WebAgent §3.4 through a
chat model, with the offline rules standing in per call.

Each call asks the model once (:class:`~mmstudio.providers.llm.refine.LLMRefiner`: retries,
usage and cost are the provider's), checks the untrusted reply, and returns Changes for the
:class:`~mmstudio.refine.apply.SiteEditor`, which checks the guardrails again on the latest
page, renders, scores and keeps or reverts:

- local: an image whose model takes edits is edited in place (``images.edit`` with the
  current image and the issues' fixes, MM-WebAgent's local refinement); otherwise a revised
  prompt/attributes (images, videos: made again by the designer's asset path) or an ECharts
  option patch (charts: the chart page and option JSON written again);
- context: a replacement of the element's editable span and/or CSS rules scoped to the element,
  in its labelled ``<style data-mm-patch="ID">`` block — the request carries only the element's
  bounded excerpt (:mod:`.excerpt`);
- global: a revised page or page CSS (``data-mm-patch="page"``).

When the model call fails (a provider error, no valid reply after the repair) or its reply is
refused (it would drop a ``data-mm-id``, change an asset path, add a script or an external URL,
or a CSS rule is not scoped to the element), the call is recorded as a ``failed`` / ``rejected``
attempt with its one-line reason and the rule-based refiner's Changes follow it, each noted as
a fallback. Elements no plan describes get the rules directly (the model refines planned
assets).
"""

from __future__ import annotations

import io
import json
import logging
import re
from typing import Any

from PIL import Image

from mmstudio.pipeline import charts
from mmstudio.plan import ChartPlan, DesignPlan, ImagePlan, VideoPlan
from mmstudio.project.errors import one_line
from mmstudio.providers.base import DesignerError
from mmstudio.providers.llm.page import extract_html
from mmstudio.providers.llm.refine import CssRule, ElementPlan, LLMRefiner, revised_spec
from mmstudio.providers.models import Models
from mmstudio.providers.settings import Settings
from mmstudio.providers.usage import UsageLog
from mmstudio.resources import vendor_file

from . import guardrails, html_edit, local
from .excerpt import context_excerpt, editable_span, locate
from .loop import Target
from .model import Change, RefineInput
from .page_rules import PAGE_KEY
from .registry import Refiners, RuleRefiners

log = logging.getLogger(__name__)

# inline scripts, unnamed frames, handler attributes, javascript: URLs; a <script src> is allowed
# here and confined by the guardrails (a local file under assets/js/, see guardrails.py)
_ACTIVE = re.compile(
    r"<script\b(?![^>]*\ssrc\s*=)|<iframe\b(?![^>]*data-mm-id)|\son\w+\s*=|javascript:", re.I
)
_MARKUP_ONLY = re.compile(r"<(?:style|link|meta|base|head|body|html)\b", re.I)
_BAD_CSS = re.compile(
    r"[{}<]|@import|expression\s*\(|javascript:|behavior\s*:|url\(\s*['\"]?\s*(?:[a-z]+:|//)",
    re.I,
)


# measured image issues an edit of the current image cannot fix: it is made again instead
_REGENERATE = {"missing-asset", "broken-asset", "cover-crop", "stretched"}


class UnusableReply(ValueError):
    """A model reply the refiner refuses (one line: why)."""


def active_content(before: str, after: str) -> list[str]:
    """A problem line when ``after`` has more inline scripts, frames, event handlers or
    ``javascript:`` URLs than ``before`` (empty list: it has not). Scripts loaded from files
    are checked by :func:`~mmstudio.refine.guardrails.script_problems` instead."""
    old, new = _ACTIVE.findall(before), _ACTIVE.findall(after)
    if len(new) <= len(old):
        return []
    fresh = [t for t in new if t not in old] or new
    return [f"the reply adds active content ({fresh[0].strip()[:40]})"]


def _normal(selector: str) -> str:
    """``selector`` without quotes, with single spaces and no spaces around ``>``, ``+``,
    ``~`` and inside ``:has(``."""
    text = " ".join(re.sub(r"[\"']", "", selector).split())
    return re.sub(r"\s*([>+~(])\s*", r"\1", text)


def in_scope(selector: str, element: str) -> bool:
    """Whether ``selector`` selects only the element (``element`` is its selector), things
    inside it, or its wrapper (``…:has(> ELEMENT)`` at the end) — never siblings, and never
    the page through ``:has()``."""
    sel, own = _normal(selector), _normal(element)
    if sel.endswith(f":has(>{own})"):
        return sel.count(own) == 1
    at = sel.find(own)
    if at < 0 or ":has(" in sel:
        return False
    tail = sel[sel.rfind(own) + len(own) :]
    return not re.search(r"[+~]", re.sub(r"\[[^\]]*\]", "", tail))


def scoped_css(rules: list[CssRule], selector: str) -> str:
    """The reply's CSS rules as text, each selector of each rule in the element's scope
    (:func:`in_scope`); raises UnusableReply for an unscoped selector or an unsafe
    declaration."""
    lines = []
    for rule in rules:
        sel = " ".join(rule.selector.split())
        body = " ".join(rule.declarations.split()).strip().rstrip(";")
        if not sel or not body:
            continue
        parts = [p for p in sel.split(",") if p.strip()]
        if not all(in_scope(p, selector) for p in parts):
            raise UnusableReply(f"the CSS rule {sel[:80]!r} is not scoped to {selector}")
        if _BAD_CSS.search(sel.replace(">", " ")) or _BAD_CSS.search(body):
            raise UnusableReply(f"the CSS rule {sel[:80]!r} holds something unsafe")
        lines.append(f"{sel}{{{body}}}")
    return "\n".join(lines)


def page_css(css: str) -> str:
    """The reply's page CSS, checked; raises UnusableReply when it could load or run
    something."""
    text = css.strip()
    if re.search(r"@import|expression\s*\(|javascript:|behavior\s*:|</", text, re.I):
        raise UnusableReply("the page CSS holds an import, a script or a closing tag")
    return text


def _codes(inp: RefineInput) -> list[str]:
    return list(dict.fromkeys(i.code or i.dimension for i in inp.issues))


def _with_element(plan: DesignPlan, spec: ElementPlan) -> DesignPlan:
    """``plan`` with ``spec`` in place of the element of the same id."""
    new = plan.model_copy(deep=True)
    name = {"image": "images", "video": "videos", "chart": "charts"}[spec.kind]
    setattr(new, name, [spec if e.id == spec.id else e for e in getattr(new, name)])
    return new


def current_option(spec: ChartPlan, plan: DesignPlan, inp: RefineInput) -> dict[str, Any]:
    """The chart's option as the site has it (its option JSON), else as the plan builds it."""
    path = inp.site_dir / spec.option_path
    try:
        option = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        option = None
    return option if isinstance(option, dict) else charts.build_option(spec, plan)


def chart_files(spec: ChartPlan, option: dict[str, Any], inp: RefineInput) -> dict[str, bytes]:
    """The chart page and option JSON for ``option`` (and the vendored ECharts if missing)."""
    files = {
        spec.save_path: charts.chart_page(option, spec).encode(),
        spec.option_path: (json.dumps(option, ensure_ascii=False, indent=1) + "\n").encode(),
    }
    if not (inp.site_dir / "vendor/echarts.min.js").is_file():
        files["vendor/echarts.min.js"] = vendor_file("echarts.min.js").read_bytes()
    return files


class ModelRefiners:
    """The model-backed :class:`~mmstudio.refine.registry.Refiners` (module docstring).
    ``fallbacks`` lists, one line each, why a call fell back to the rules."""

    name = "openai"

    def __init__(
        self,
        settings: Settings,
        *,
        refiner: LLMRefiner | None = None,
        rules: Refiners | None = None,
    ) -> None:
        self.refiner = refiner or LLMRefiner(settings)
        self.rules = rules or RuleRefiners()
        self.fallbacks: list[str] = []
        self._owned = True  # closing closes the refiner's client (not a shared bundle's)

    @classmethod
    def of(cls, models: Models) -> ModelRefiners:
        """The refiners of ``models``' refiner role; :meth:`aclose` leaves the bundle's client
        open (its owner closes it)."""
        refiners = cls(models.settings, refiner=models.new_refiner())
        refiners._owned = False
        return refiners

    @property
    def usage(self) -> UsageLog:
        """Tokens, images and cost of every model call so far."""
        return self.refiner.usage

    @property
    def note(self) -> str:
        return f"by the model {self.refiner.model}"

    async def aclose(self) -> None:
        if self._owned:
            await self.refiner.aclose()

    async def propose(self, target: Target, inp: RefineInput) -> list[Change]:
        """The model's Change for ``target`` — or, when it fails or is refused, that attempt
        (settled) followed by the rule-based Changes."""
        make = {"local": self._local, "context": self._context, "global": self._global}
        try:
            change = await make[target.level](inp)
        except UnusableReply as exc:
            why = f"the model's {target.level} patch was refused: {exc}"
            return await self._fallback(target, inp, "rejected", why)
        except (DesignerError, ValueError) as exc:  # ProviderError is a DesignerError
            why = f"the model's {target.level} refine failed: {one_line(exc)}"
            return await self._fallback(target, inp, "failed", why)
        if change is None:  # not the model's to refine (an element no plan describes)
            return await self.rules.propose(target, inp)
        return [change]

    async def _fallback(
        self, target: Target, inp: RefineInput, outcome: str, why: str
    ) -> list[Change]:
        self.fallbacks.append(why)
        log.warning("%s/%s: %s; using the rules", target.level, target.element or "page", why)
        what = target.element or "the page"
        record = Change(
            target.level, target.element, _codes(inp), f"Model {target.level} refine of {what}",
            settled=(outcome, why),
        )  # fmt: skip
        changes = await self.rules.propose(target, inp)
        for change in changes:
            change.note = f"rule-based fallback: the model's reply {outcome}"
        return [record, *changes]

    def _current_image(self, spec: ImagePlan, inp: RefineInput) -> bytes | None:
        """The element's image to edit (``images.edit``), or None when it is to be made again:
        the image model takes no edits, the file is missing or is no image, or its issues are
        about its shape (a crop, a stretch), which the edit keeps."""
        if not self.refiner.models["image"].can("image_edits"):
            return None
        if set(_codes(inp)) & _REGENERATE:
            return None
        path = inp.site_dir / spec.save_path
        try:
            data = path.read_bytes()
            with Image.open(io.BytesIO(data)) as image:
                image.verify()  # bytes that are no image are made again, never sent to edit
        except (OSError, ValueError, Image.DecompressionBombError):
            return None
        return data

    async def _edit_image(
        self, spec: ImagePlan, plan: DesignPlan, current: bytes, inp: RefineInput
    ) -> Change:
        data = await self.refiner.edit_image(spec, plan, current, inp.issues, inp.instruction)
        what = "; ".join(i.message[:80] for i in inp.issues[:3]) or inp.instruction[:120]
        summary = f"Model edit of image {spec.id} (images.edit): {what or 'improved'}"
        note = f"edited by the image model {self.refiner.models['image'].name}"
        files = {spec.save_path: data}
        return Change("local", spec.id, _codes(inp), summary, files=files, note=note)

    async def _local(self, inp: RefineInput) -> Change | None:
        spec, plan = inp.element_plan(), inp.plan
        if spec is None or plan is None:
            return None
        if isinstance(spec, ImagePlan):
            current = self._current_image(spec, inp)
            if current is not None:
                return await self._edit_image(spec, plan, current, inp)
        option = current_option(spec, plan, inp) if isinstance(spec, ChartPlan) else None
        revision = await self.refiner.revise_asset(spec, inp.issues, inp.instruction, option)
        summary = f"Model refine of {spec.kind} {spec.id}: {revision.summary or 'revised'}"
        if isinstance(spec, ChartPlan):
            try:
                new_option = self.refiner.chart_option(option or {}, revision)
            except ValueError as exc:
                raise UnusableReply(f"the option patch breaks the chart: {_first(exc)}") from None
            files = chart_files(spec, new_option, inp)
            return Change("local", spec.id, _codes(inp), summary, files=files, note=self.note)
        try:
            new = revised_spec(spec, revision)
        except ValueError as exc:
            raise UnusableReply(f"the revised plan is invalid: {_first(exc)}") from None
        new_plan = _with_element(plan, new)
        page = None
        if isinstance(new, ImagePlan):
            files = {new.save_path: await self.refiner.image(new, new_plan)}
        else:
            assert isinstance(new, VideoPlan)
            files = await self.refiner.video(new, new_plan)
            if "video-format" in _codes(inp):
                page = local.webm_source(new.id, inp.element_path(), new.save_path)
        return Change(
            "local", spec.id, _codes(inp), summary, page=page, files=files, plan=new_plan,
            note=self.note,
        )  # fmt: skip

    async def _context(self, inp: RefineInput) -> Change | None:
        excerpt = context_excerpt(inp)
        if excerpt is None:
            return None
        patch = await self.refiner.patch_context(excerpt, inp.issues, inp.instruction)
        css = scoped_css(patch.css, excerpt.selector)
        markup = patch.markup.strip()
        if markup and excerpt.editable == "none":
            raise UnusableReply("the reply replaces markup it was only shown in part")
        if markup and _MARKUP_ONLY.search(markup):
            raise UnusableReply("the replacement markup holds page-level tags")
        if not css and not markup:
            raise UnusableReply("the reply changes nothing")
        edit = _context_edit(inp, excerpt.markup if markup else "", markup, css)
        _check(inp.html, edit(inp.html), bool(markup))
        summary = f"Model context fix for {inp.element}: {patch.summary or ', '.join(_codes(inp))}"
        return Change("context", inp.element, _codes(inp), summary, page=edit, note=self.note)

    async def _global(self, inp: RefineInput) -> Change | None:
        patch = await self.refiner.patch_page(inp.html, inp.issues, inp.instruction)
        page = None
        if patch.html.strip():
            page = extract_html(patch.html)
            if page is None:
                raise UnusableReply("the revised page is not one complete HTML document")
        css = page_css(patch.css)
        if page is None and not css:
            raise UnusableReply("the reply changes nothing")
        base = inp.html

        def edit(html: str) -> str:
            if page is not None:
                if html != base:  # a global job runs alone: this is a bug, not a race to lose
                    raise RuntimeError("the page changed while the global refine ran")
                html = page
            return html_edit.set_patch_block(html, PAGE_KEY, css) if css else html

        _check(base, edit(base), page is not None)
        summary = f"Model page fix: {patch.summary or ', '.join(_codes(inp))}"
        return Change("global", None, _codes(inp), summary, page=edit, note=self.note)


def _first(exc: Exception) -> str:
    return one_line(exc, 160)


def _context_edit(inp: RefineInput, original: str, markup: str, css: str):
    """The page edit of a context patch: the element's editable span replaced by ``markup``
    (only while it still reads ``original``), then ``css`` in the element's patch block."""
    element_id, path, key = inp.element or "", inp.element_path(), inp.element or "page"

    def edit(html: str) -> str:
        if markup:
            found = locate(html, element_id, path)
            if found is not None:
                start, end, _kind = editable_span(html, *found)
                if html[start:end] == original:
                    html = html[:start] + markup + html[end:]
        return html_edit.set_patch_block(html, key, css) if css else html

    return edit


def _check(before: str, after: str, markup: bool) -> None:
    """Raise UnusableReply when ``after`` breaks a guardrail or (for new markup) adds active
    content."""
    problems = guardrails.page_problems(before, after)
    if markup:
        problems += active_content(before, after)
    if problems:
        raise UnusableReply(problems[0])
