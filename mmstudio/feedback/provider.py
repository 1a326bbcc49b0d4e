"""The model-backed halves of a feedback turn: splitting the turn's words into requirements
(structured output, ``prompts/feedback_split.md.j2``) and judging the requirements measurement
cannot decide, with the page's screenshot (``prompts/feedback_judge.md.j2``).

Both take any :class:`~mmstudio.providers.protocols.ChatModel`; replies are validated pydantic
models (one repair request, then StructuredOutputError). A target id the page does not have is
dropped (the requirement becomes page-wide) and an operation that does not fit its value falls
back to ``free`` — the model never reaches the page's bytes without a measured check.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import BaseModel, Field

from mmstudio.providers.prompting import render_prompt
from mmstudio.providers.protocols import ChatModel, Message
from mmstudio.providers.structured import schema_text, structured_chat

from .critic import Judge
from .elements import PageElement, by_id
from .ledger import Verdict
from .requirements import COLOURS, TONES, Requirement

log = logging.getLogger(__name__)

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


class RequirementList(BaseModel):
    requirements: list[ProposedRequirement]


class Judged(BaseModel):
    id: str
    passed: bool
    detail: str = ""


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
    return Requirement(
        text=proposed.text, op=op, target=element.id if element else None,
        target_kind=element.kind if element else "page", value=value,
        anchor=element.text if element and element.kind == "text" else "",
        section=element.section if element else None,
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
            chat, [Message("user", prompt)], RequirementList, role="critic", stage="feedback-split"
        )
        return [accept(p, elements) for p in reply.requirements]

    return split


def model_judge(chat: ChatModel) -> Judge:
    """A :data:`~mmstudio.feedback.critic.Judge` that shows ``chat`` the screenshot and the
    page's text blocks; requirements it does not answer stay unchecked."""

    async def judge(requirements: list[Requirement], render) -> list[Verdict]:
        from .elements import page_elements

        texts = [e for e in page_elements(render) if e.kind == "text"][:80]
        prompt = render_prompt(
            "feedback_judge.md.j2",
            requirements=requirements,
            elements=texts,
            schema=schema_text(JudgedList),
        )
        shot = Path(render.screenshot) if render.screenshot else None
        images = (shot.read_bytes(),) if shot and shot.is_file() else ()
        reply = await structured_chat(
            chat, [Message("user", prompt, images)], JudgedList, role="judge",
            stage="feedback-judge",
        )  # fmt: skip
        wanted = {r.id for r in requirements}
        return [Verdict(v.id, v.passed, f"judge: {v.detail}") for v in reply.verdicts
                if v.id in wanted]  # fmt: skip

    return judge
