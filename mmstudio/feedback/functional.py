"""Functional checks (FronTalk's ``function`` test conditions; MM Studio issue 7): a short action
script — click, type, select, expect text, expect visible — that the judge model proposes and
Playwright runs on the rendered page, so behaviour is proven by driving the page, not guessed
from a screenshot.

Invariants:
- The script is untrusted model output. :func:`parse_script` validates it strictly: known actions
  only, at most :data:`MAX_STEPS` steps, selectors and texts bounded in length and free of control
  characters, selector engines allow-listed (no ``internal:``, ``_react=`` … engines).
- :func:`run_script` drives a fresh browser context of the process's one warm Chromium (the
  renderer's pool and its render slots) behind the renderer's :class:`~mmstudio.render.sandbox.
  Sandbox`: files of the site folder only, no network, WebSockets closed. Unlike a render, a
  script may follow links WITHIN the site (FronTalk sites are multi-page); leaving it is aborted.
- Every step runs under :data:`STEP_TIMEOUT_S` and the whole script under
  :data:`SCRIPT_TIMEOUT_S`; the context is closed in ``finally``. The first failing step ends the
  script; its number, action and reason become the verdict's detail. Only caller mistakes raise.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mmstudio.project.errors import first_line
from mmstudio.render.browser import BrowserPool, BrowserUnavailable, shared_pool
from mmstudio.render.sandbox import ORIGIN, Sandbox, site_path

log = logging.getLogger(__name__)

MAX_STEPS = 8
MAX_SELECTOR = 200  # characters
MAX_TEXT = 200  # characters
STEP_TIMEOUT_S = 2.0
SCRIPT_TIMEOUT_S = 15.0
LOAD_TIMEOUT_S = 5.0
ENGINES = ("css", "text", "id", "xpath", "role", "data-testid", "nth", "visible")
_ENGINE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*=")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

Action = Literal["click", "type", "select", "expect_text", "expect_visible"]
_NEEDS_SELECTOR = ("click", "type", "select", "expect_visible")
_NEEDS_TEXT = ("type", "select", "expect_text")


class ScriptError(ValueError):
    """A proposed script is not acceptable (one line naming the step and the problem)."""


def check_selector(selector: str) -> str:
    """``selector`` stripped, or ValueError: empty, too long, control characters, an engine
    outside :data:`ENGINES` (in any ``>>`` part), or a Playwright ``internal:`` selector."""
    selector = selector.strip()
    if not selector:
        raise ValueError("the selector is empty")
    if len(selector) > MAX_SELECTOR or _CONTROL.search(selector):
        raise ValueError("the selector is too long or has control characters")
    for part in selector.split(">>"):
        if part.strip().lower().startswith("internal:"):
            raise ValueError("internal selectors are not allowed")
        engine = _ENGINE.match(part)
        if engine and engine.group(1).lower() not in ENGINES:
            raise ValueError(f"the selector engine {engine.group(1)!r} is not allowed")
    return selector


class Step(BaseModel):
    """One validated step: ``click`` / ``type`` (fill ``text``) / ``select`` (the option whose
    value or label is ``text``) on the first element matching ``selector``; ``expect_text``
    (``text`` visible, inside ``selector`` when given); ``expect_visible`` (``selector``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Action
    selector: str = Field(default="", max_length=MAX_SELECTOR)
    text: str = Field(default="", max_length=MAX_TEXT)

    @field_validator("selector")
    @classmethod
    def _selector(cls, value: str) -> str:
        return check_selector(value) if value.strip() else ""

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        if _CONTROL.search(value.replace("\n", " ")):
            raise ValueError("the text has control characters")
        return value

    @model_validator(mode="after")
    def _complete(self) -> Step:
        if self.action in _NEEDS_SELECTOR and not self.selector:
            raise ValueError(f"{self.action} needs a selector")
        if self.action in _NEEDS_TEXT and not self.text.strip():
            raise ValueError(f"{self.action} needs a text")
        return self

    def line(self) -> str:
        """The step in words: ``click `#more` `` / ``type "a@b.c" into `#email` ``."""
        where = f" `{self.selector}`" if self.selector else ""
        if self.action == "type":
            return f'type "{self.text[:40]}" into{where}'
        if self.action == "select":
            return f'select "{self.text[:40]}" in{where}'
        if self.action == "expect_text":
            return f'expect text "{self.text[:40]}"' + (f" in{where}" if where else "")
        return f"{self.action.replace('_', ' ')}{where}"


class StepProposal(BaseModel):
    """One browser step on the page."""  # sent in the schema; parse_script makes it a Step

    action: str = Field(description="click | type | select | expect_text | expect_visible")
    selector: str = Field(default="", description="CSS selector (optional for expect_text)")
    text: str = Field(
        default="", description="type: text to enter; select: option; expect_text: text to see"
    )


def parse_script(proposals: list[StepProposal] | list[dict]) -> list[Step]:
    """Validated steps, or ScriptError (one line) for an empty or too long script or any bad
    step."""
    if not proposals:
        raise ScriptError("the script has no steps")
    if len(proposals) > MAX_STEPS:
        raise ScriptError(f"the script has {len(proposals)} steps; at most {MAX_STEPS}")
    steps = []
    for n, proposal in enumerate(proposals, start=1):
        raw = proposal.model_dump() if isinstance(proposal, BaseModel) else proposal
        try:
            steps.append(Step.model_validate(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise ScriptError(f"step {n}: {first['msg'].removeprefix('Value error, ')}") from None
    return steps


@dataclass
class Outcome:
    """What a script did: ``passed`` (every step succeeded), ``detail`` one line (the failing
    step and why), ``steps_run`` how many steps ran, ``seconds`` wall time."""

    passed: bool
    detail: str
    steps_run: int = 0
    seconds: float = 0.0


class _ScriptSandbox(Sandbox):
    """The renderer's sandbox, letting the main frame follow links to other pages of the site."""

    def _leaving(self, request) -> bool:
        if request.is_navigation_request() and request.frame.parent_frame is None:
            path, _ = site_path(request.url, Path(self.site_dir))
            return path is None
        return False


async def run_script(
    site_dir: Path,
    steps: list[Step],
    *,
    page: str = "index.html",
    width: int = 1280,
    height: int = 800,
    pool: BrowserPool | None = None,
) -> Outcome:
    """Run ``steps`` on ``site_dir/page`` at ``width`` × ``height`` px (see the module
    invariants). Raises FileNotFoundError when the page does not exist; a page that misbehaves,
    a step that fails or a browser that cannot start is a failed Outcome, never an exception."""
    site_dir = Path(site_dir).resolve()
    if not (site_dir / page).is_file():
        raise FileNotFoundError(f"no page {page!r} in {site_dir}")
    pool = pool or shared_pool()
    started, done = time.perf_counter(), [0]
    context = None
    try:
        async with pool.slots:
            browser = await pool.browser()
            context = await browser.new_context(
                viewport={"width": width, "height": height}, device_scale_factor=1,
                service_workers="block", accept_downloads=False,
            )  # fmt: skip
            context.set_default_timeout(STEP_TIMEOUT_S * 1000)
            url = f"{ORIGIN}/{page}"
            sandbox = _ScriptSandbox(site_dir, url)
            await context.route("**/*", sandbox.handle)
            await context.route_web_socket("**/*", sandbox.handle_websocket)
            tab = await context.new_page()
            sandbox.attach(context, tab)
            outcome = await asyncio.wait_for(_drive(tab, url, steps, done), SCRIPT_TIMEOUT_S)
    except TimeoutError:
        outcome = Outcome(False, f"the script ran past {SCRIPT_TIMEOUT_S:g} s at step {done[0]}")
    except BrowserUnavailable as exc:
        outcome = Outcome(False, f"no browser to run the steps: {exc}")
    except Exception as exc:  # a crashed page or browser is a failed check, not a crash of ours
        log.warning("functional check on %s failed", site_dir / page, exc_info=True)
        outcome = Outcome(False, f"the page could not be driven: {first_line(exc)[:200]}")
    finally:
        if context is not None:
            try:
                await asyncio.wait_for(context.close(), 10)
            except Exception:
                log.debug("closing the script context failed", exc_info=True)
    outcome.steps_run, outcome.seconds = done[0], round(time.perf_counter() - started, 3)
    return outcome


async def _drive(tab, url: str, steps: list[Step], done: list[int]) -> Outcome:
    """Load the page, then run the steps in order; ``done[0]`` counts the steps that ran."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        await tab.goto(url, wait_until="load", timeout=LOAD_TIMEOUT_S * 1000)
    except PlaywrightTimeout:
        log.info("%s did not finish loading; running the steps anyway", url)
    for n, step in enumerate(steps, start=1):
        done[0] = n
        reason = await _step(tab, step)
        if reason and not await _responsive(tab):
            reason = "the page stopped responding (a page script ran without end)"
        if reason:
            return Outcome(False, f"step {n} ({step.line()}): {reason}")
    return Outcome(True, f"all {len(steps)} step(s) passed: " + "; ".join(s.line() for s in steps))


async def _step(tab, step: Step) -> str:
    """Run one step; "" when it succeeded, else the reason in a few words."""
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    from playwright.async_api import expect

    ms = STEP_TIMEOUT_S * 1000
    target = tab.locator(step.selector).first if step.selector else None
    try:
        if step.action == "click":
            await target.click(timeout=ms)
        elif step.action == "type":
            await target.fill(step.text, timeout=ms)
        elif step.action == "select":
            await target.select_option(step.text, timeout=ms)
        elif step.action == "expect_visible":
            await target.wait_for(state="visible", timeout=ms)
        elif target is not None:
            await expect(target).to_contain_text(step.text, timeout=ms)
        else:
            await tab.get_by_text(step.text).first.wait_for(state="visible", timeout=ms)
    except PlaywrightTimeout:
        return _timeout_reason(step)
    except AssertionError:
        return f"the text is not there within {STEP_TIMEOUT_S:g} s"
    except PlaywrightError as exc:
        return first_line(exc)[:200]
    return ""


async def _responsive(tab, within_s: float = 1.0) -> bool:
    """Whether the page's main thread still answers (False: a script holds it, e.g. an
    endless loop a click started)."""
    try:
        await asyncio.wait_for(tab.evaluate("1"), within_s)
    except TimeoutError:
        return False
    except Exception:  # a closed or crashed page: the step's own reason says enough
        return True
    return True


def _timeout_reason(step: Step) -> str:
    limit = f"within {STEP_TIMEOUT_S:g} s"
    if step.action == "expect_text":
        return f"the text is not visible {limit}"
    if step.action == "expect_visible":
        return f"no visible element matches {limit}"
    return f"no usable element matches {limit} (missing, hidden or disabled)"


def is_functional(requirement) -> bool:
    """Is ``requirement`` about behaviour (checked by driving the page)? Its ``aspect`` is
    "behaviour" (a FronTalk ``function`` test condition, a behaviour requirement of a split)."""
    return getattr(requirement, "aspect", "") == "behaviour"
