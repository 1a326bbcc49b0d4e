"""The model-backed halves of a feedback turn: splitting the turn's words into requirements
(structured output, ``prompts/feedback_split.md.j2``) and judging the requirements measurement
cannot decide, with the page's screenshot (``prompts/feedback_judge.md.j2``).

Both take any :class:`~mmstudio.providers.protocols.ChatModel`; replies are validated pydantic
models (one repair request, then StructuredOutputError). A target id the page does not have is
dropped (the requirement becomes page-wide) and an operation that does not fit its value falls
back to ``free`` — the model never reaches the page's bytes without a measured check.

Behaviour requirements (:func:`~mmstudio.feedback.functional.is_functional`) are judged by
driving the page: the judge sees the page's HTML and may answer with a short action script, which
is validated and run with Playwright in the renderer's sandboxed browser
(:mod:`mmstudio.feedback.functional`); the script's outcome, not the model's word, is then the
verdict. A script that is not acceptable leaves the requirement unchecked (``passed`` None).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from pydantic import BaseModel, Field

from mmstudio.providers.prompting import render_prompt
from mmstudio.providers.protocols import ChatModel, Message
from mmstudio.providers.structured import schema_text, structured_chat

from . import functional
from .critic import Judge
from .elements import PageElement, by_id
from .functional import ScriptError, StepProposal
from .ledger import Verdict
from .requirements import COLOURS, TONES, Requirement

log = logging.getLogger(__name__)

HTML_CHARS = 12_000  # characters of the page's HTML shown to the judge for behaviour checks

_VALUES = {
    "move": ("up", "down"),
    "resize": ("bigger", "smaller"),
    "tone": TONES,
}


class ProposedRequirement(BaseModel):
    text: str = Field(description="the requirement in one checkable sentence")
    op: str = Field(description="text|colour|hide|show|move|resize|add_text|tone|free")
    target: str | None = Field(default=None, description="an element id, or null for the page")
    value: str = ""
    behaviour: bool = Field(
        default=False, description="true when it is about what the page does (click, form, menu)"
    )
    asset: bool = Field(
        default=False,
        description="true when it is about the content of the target image, video or chart "
        "itself (what the picture shows, the chart's data), not how the page shows it",
    )


class RequirementList(BaseModel):
    requirements: list[ProposedRequirement]


class Judged(BaseModel):
    id: str
    passed: bool
    detail: str = ""
    steps: list[StepProposal] = Field(
        default_factory=list,
        description="behaviour requirements only: the steps a browser runs to prove it",
    )


class JudgedList(BaseModel):
    verdicts: list[Judged]


def accept(proposed: ProposedRequirement, elements: list[PageElement]) -> Requirement:
    """A model's proposal as a ledger requirement, made safe (see the module docstring)."""
    element = by_id(elements, proposed.target or "")
    op, value = proposed.op.strip().lower(), proposed.value.strip()
    if op == "colour":
        value = COLOURS.get(value.lower(), value.lower())
        op = op if value.startswith("#") and len(value) in (4, 7) else "free"
    elif not _fits(op, value):
        op = "free"
    if op in ("text", "hide", "show", "move", "resize") and element is None:
        op = "free"
    kind = element.kind if element else "page"
    aspect = "design"
    if op == "free" and proposed.behaviour:
        aspect = "behaviour"
    elif op == "free" and proposed.asset and kind in ("image", "video", "chart"):
        aspect = "asset"
    return Requirement(
        text=proposed.text, op=op, target=element.id if element else None, target_kind=kind,
        value=value, aspect=aspect, anchor=element.text if element and element.kind == "text"
        else "", section=element.section if element else None,
    )  # fmt: skip


def _fits(op: str, value: str) -> bool:
    """Does ``value`` suit ``op`` (a known direction, size or style word; a non-empty text)?"""
    if op in _VALUES:
        return value.lower() in _VALUES[op]
    if op in ("text", "add_text"):
        return bool(value)
    return op in ("hide", "show", "free")


def model_splitter(chat: ChatModel):
    """A :data:`~mmstudio.feedback.turn.Splitter` that asks ``chat`` for the requirements."""

    async def split(text, marks, elements, words) -> list[Requirement]:
        prompt = render_prompt(
            "feedback_split.md.j2",
            words=words,
            elements=[e for e in elements if e.kind != "text" or e.text][:120],
            schema=schema_text(RequirementList),
        )
        reply = await structured_chat(
            chat, [Message("user", prompt)], RequirementList, role="judge", stage="feedback-split"
        )
        return [accept(p, elements) for p in reply.requirements]

    return split


def model_judge(chat: ChatModel, *, html_chars: int = HTML_CHARS, vision: bool = True) -> Judge:
    """A :data:`~mmstudio.feedback.critic.Judge` that shows ``chat`` the screenshot (unless the
    model lacks ``vision``) and the page's text blocks (and, for behaviour requirements, the
    page's HTML trimmed to ``html_chars`` characters); requirements it does not answer stay
    unchecked. Behaviour requirements answered with ``steps`` are decided by running them (see
    the module doc)."""

    async def judge(requirements: list[Requirement], render) -> list[Verdict]:
        from .elements import page_elements

        texts = [e for e in page_elements(render) if e.kind == "text"][:80]
        behaviour = [r for r in requirements if functional.is_functional(r)]
        prompt = render_prompt(
            "feedback_judge.md.j2",
            requirements=requirements,
            behaviour={r.id for r in behaviour},
            elements=texts,
            html=page_html(render, html_chars) if behaviour else "",
            max_steps=functional.MAX_STEPS,
            schema=schema_text(JudgedList),
        )
        shot = Path(render.screenshot) if render.screenshot else None
        images = (shot.read_bytes(),) if vision and shot and shot.is_file() else ()
        reply = await structured_chat(
            chat, [Message("user", prompt, images)], JudgedList, role="judge",
            stage="feedback-judge",
        )  # fmt: skip
        by_id = {r.id: r for r in requirements}
        verdicts = []
        for judged in reply.verdicts:
            req = by_id.get(judged.id)
            if req is None:
                continue
            if functional.is_functional(req) and judged.steps:
                verdicts.append(await _run_steps(judged, render))
            else:
                verdicts.append(Verdict(judged.id, judged.passed, f"judge: {judged.detail}"))
        return verdicts

    return judge


async def _run_steps(judged: Judged, render) -> Verdict:
    """The verdict of a behaviour requirement from running the judge's script on the page."""
    try:
        steps = functional.parse_script(judged.steps)
    except ScriptError as exc:
        return Verdict(judged.id, None, f"unchecked: the judge's steps are not acceptable: {exc}")
    site = Path(render.site_dir) if render.site_dir else None
    if site is None or not (site / render.page).is_file():
        detail = f"judge: {judged.detail} (steps not run: the rendered page is gone)"
        return Verdict(judged.id, judged.passed, detail)
    width = (render.viewport or {}).get("width", 1280)
    outcome = await functional.run_script(site, steps, page=render.page, width=width)
    return Verdict(judged.id, outcome.passed, f"steps: {outcome.detail}")


_SCRIPT = re.compile(r"(<script\b[^>]*>).*?(</script\s*>)", re.I | re.S)
_STYLE = re.compile(r"<style\b[^>]*>.*?</style\s*>", re.I | re.S)
_SPACE = re.compile(r"\n\s*\n+")


def page_html(render, limit: int = HTML_CHARS) -> str:
    """The rendered page's HTML with script bodies and style blocks removed, at most ``limit``
    characters ("" when the page's file is gone)."""
    path = Path(render.site_dir or "") / (render.page or "index.html")
    try:
        html = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    html = _SPACE.sub("\n", _STYLE.sub("", _SCRIPT.sub(r"\1…\2", html)))
    return html if len(html) <= limit else html[:limit] + "\n<!-- … cut -->"
