"""Behaviours of FronTalk conditions on the rendered site: a click that navigates, a form whose
submission shows a confirmation, a click that shows a named text.

Navigation is read from the markup first (where a link's ``href`` or ``onclick`` goes: a page
of the site, an anchor of a page, nowhere); a control only a script handles, a form, and a
click that must reveal a text become short scripts for :mod:`mmstudio.feedback.functional`
(click / type / select / expect), run in the sandboxed browser by the judge. A script can only
prove what appears: a confirmation shown in an ``alert()`` box, or a text already on the page
before the click, leaves the part unchecked.
"""

from __future__ import annotations

import re

from .condition_checks import matches
from .condition_dom import Target, overlap, stems
from .condition_view import PageView, result
from .model import Requirement, RequirementResult
from .text import loose

CONFIRM = "text=/thank|success|subscribed|confirm|received|submitted|sent|welcome|registered/i"


class Behaviours:
    """The behaviour checks of :class:`~mmstudio.feedback.condition_judge.SiteCheck`
    (``self.dom`` the site's markup, ``self.main`` its main page,
    ``await self.run(steps, page)`` a script's outcome)."""

    async def _behaviour(self, name: str, part: Requirement, pages: list[PageView]):
        """The part on the first page where it passes; else the first undecided; else the
        first page's failure."""
        found = []
        for view in pages:
            found.append(await getattr(self, f"_{name}")(part, view))
            if found[-1].status == "pass":
                return found[-1]
        undecided = [r for r in found if r.status == "unchecked"]
        return (undecided or found or [result(part, "unchecked", "no page to check")])[0]

    async def _navigate(self, part: Requirement, view: PageView) -> RequirementResult:
        dest, role = (part.values or [""])[0], part.role
        dom = view.dom
        if part.label:
            controls = [c for c in dom.controls if matches(part.label, c.text)]
            if not controls:
                return result(part, "fail", f"no “{part.label}” link or button on {view.file}")
        elif view.file != self.main:
            return result(part, "unchecked", "reached from the homepage, not from this page")
        else:
            controls = [c for c in dom.controls if c.target and overlap(dest, c.text) >= 0.5]
            home = (
                [*dom.headings, *(b.text for b in view.facts.blocks if b.heading)]
                if view.facts
                else dom.headings
            )
            if not controls and any(overlap(dest, h) >= 0.5 for h in home):
                status = "unchecked" if _needs(part) else "pass"  # what it holds: not read here
                return result(part, status, f"“{dest}” is on {view.file} itself")
            if not controls:
                return result(part, "fail", f"no link on {view.file} leads to “{dest}”")
        outcomes = [await self._follow(part, view, c, dest, role) for c in controls[:4]]
        for status in ("pass", "unchecked", "fail"):
            hit = next((r for r in outcomes if r.status == status), None)
            if hit is not None:
                return hit
        return outcomes[0]

    async def _follow(self, part, view: PageView, control, dest: str, role: str):
        label = control.text[:40] or part.label
        target = self.dom.follow(control.target, view.file) if control.target else None
        if target is None:
            if view.dom.handled(control) or control.form >= 0:
                return await self._scripted(part, view, control, dest, role)
            where = f"href “{control.target}”" if control.target else "no link target"
            return result(part, "fail", f"“{label}” leads nowhere ({where}, no script)")
        desc = self.dom.describe(target)
        if role == "home":
            ok = target.file == self.main and not target.section
            return result(
                part,
                "pass" if ok else "fail",
                f"“{label}” leads to {target.file}{'#' + target.section if target.section else ''}",
            )
        has = {n: _has(self.dom.page(target.file), n) for n in _needs(part)}
        missing = [n for n, ok in has.items() if ok is False]
        if missing:
            return result(
                part, "fail", f"“{label}” leads to {target.file}, which has no {missing[0]}"
            )
        if target == Target(view.file) and not target.section:
            return result(part, "fail", f"“{label}” leads back to the same page")
        heads = " ".join(self.dom.page(target.file).headings[:6]) if not target.section else ""
        named = overlap(dest, f"{desc} {control.text} {heads}")
        if None in has.values():
            return result(part, "unchecked", f"“{label}” leads to {target.file}; what it must "
                          f"hold ({', '.join(has)}) no rule reads")  # fmt: skip
        if named >= 0.5 or (role == "vague" and not stems(dest)):
            return result(
                part,
                "pass",
                f"“{label}” leads to {target.file}{'#' + target.section if target.section else ''}",
            )
        return result(
            part,
            "unchecked",
            f"“{label}” leads to {target.file}"
            f"{'#' + target.section if target.section else ''}, not clearly “{dest}”",
        )

    async def _scripted(self, part, view: PageView, control, dest: str, role: str):
        if role == "home" or not stems(dest):
            return result(part, "unchecked", f"a script handles “{control.text[:40]}”")
        if view.facts and loose(dest) in loose(view.facts.text):
            return result(part, "unchecked", f"“{dest}” is already shown before the click")
        steps = [
            {"action": "click", "selector": _selector(control)},
            {"action": "expect_text", "text": dest[:80]},
        ]
        return await self._outcome(part, view, steps)

    async def _reveal(self, part: Requirement, view: PageView) -> RequirementResult:
        control = next((c for c in view.dom.controls if matches(part.label, c.text)), None)
        shown = part.values[0] if part.values else ""
        if control is None:
            return result(part, "fail", f"no “{part.label}” control on {view.file}")
        if view.facts and loose(shown) in loose(view.facts.text):
            return result(part, "unchecked", f"“{shown}” is already shown before the click")
        steps = [
            {"action": "click", "selector": _selector(control)},
            {"action": "expect_text", "text": shown[:80]},
        ]
        return await self._outcome(part, view, steps)

    async def _submit(self, part: Requirement, view: PageView) -> RequirementResult:
        dom = view.dom
        if not dom.forms:
            return result(part, "fail", f"no form on {view.file}")
        if view.facts and re.search(CONFIRM[6:-2], view.facts.text, re.I):
            return result(part, "unchecked", "confirmation words are on the page before submitting")
        form = next(
            (
                c.form
                for c in dom.controls
                if part.label and matches(part.label, c.text) and c.form >= 0
            ),
            0,
        )
        steps = _fill(dom, form)
        if steps is None:
            return result(part, "fail", f"the form on {view.file} has no submit control")
        outcome = await self._outcome(part, view, steps)
        if outcome.status == "fail" and re.search(r"alert\s*\(", dom.scripts):
            return result(
                part,
                "unchecked",
                "the page may confirm in an alert box, which a script cannot read",
            )
        return outcome

    async def _outcome(self, part, view: PageView, steps: list[dict]) -> RequirementResult:
        try:
            passed, detail = await self.run(steps, view.file)
        except ValueError as exc:  # a selector the script runner refuses
            return result(part, "unchecked", f"no script: {exc}")
        return result(part, "pass" if passed else "fail", f"steps: {detail}", steps=len(steps))


def _needs(part: Requirement) -> list[str]:
    return [v[6:] for v in part.values[1:] if v.startswith("needs:")]


def _has(dom, need: str) -> bool | None:
    """Whether the destination's markup has the widget ``need`` (None: no rule reads it)."""
    if need == "radio":
        return any(f.type == "radio" for f in dom.fields)
    if need == "form":
        return dom.forms > 0 or bool(dom.fields)
    if need == "select":
        return any(f.tag == "select" for f in dom.fields) or "dropdown" in dom.names
    if need in ("table", "calendar", "map", "search", "carousel"):
        return need in dom.names or dom.tags.get(need, 0) > 0 or need in dom.title.lower()
    return None


def _selector(control) -> str:
    if control.id and re.fullmatch(r"[A-Za-z][\w-]*", control.id):
        return f"#{control.id}"
    text = control.text.replace('"', "")[:60]
    tag = "a" if control.tag == "a" else "button, input[type=submit], input[type=button]"
    return f'css={tag} >> text="{text}"'


_VALUES = {
    "email": "test@example.com",
    "password": "Passw0rd!2024",
    "tel": "5551234567",
    "number": "3",
    "date": "2025-05-01",
    "url": "https://example.com",
    "time": "10:30",
}


def _fill(dom, form: int) -> list[dict] | None:
    """Steps that fill form number ``form`` (at most six fields) and press its submit control."""
    base = f"css=form >> nth={form} >> "
    steps: list[dict] = []
    for f in [f for f in dom.fields if f.form == form][:6]:
        key = (
            f"#{f.id}"
            if f.id and re.fullmatch(r"[A-Za-z][\w-]*", f.id)
            else f'[name="{f.name}"]'
            if f.name and re.fullmatch(r"[\w-]+", f.name)
            else ""
        )
        if not key or f.type in ("hidden", "file", "submit", "button", "search"):
            continue
        if f.type in ("checkbox", "radio"):
            steps.append({"action": "click", "selector": base + key})
        elif f.tag == "select":
            if len(f.options) > 1:
                steps.append({"action": "select", "selector": base + key, "text": f.options[1]})
        else:
            steps.append(
                {
                    "action": "type",
                    "selector": base + key,
                    "text": _VALUES.get(f.type, "Test message"),
                }
            )
    submit = next((c for c in dom.controls if c.form == form and c.tag != "a"), None)
    if submit is None:
        return None
    steps.append(
        {
            "action": "click",
            "selector": base + "css=button, input[type=submit]"
            if not submit.id
            else f"#{submit.id}",
        }
    )
    steps.append({"action": "expect_visible", "selector": CONFIRM})
    return steps
