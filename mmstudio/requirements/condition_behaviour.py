"""Behaviours in a FronTalk condition: navigation (a named control, or a named feature reached
from the homepage), a form whose submission shows a confirmation, a click on a named control
that shows a quoted text. Parts have ``kind`` "behaviour" and ``checker`` ``cond.navigate`` /
``cond.submit`` / ``cond.reveal``; :mod:`.condition_steps` checks them on the site.
"""

from __future__ import annotations

import re

from .condition_rules import _req
from .model import Requirement
from .text import quotes, strip_label

_NAV = re.compile(
    r"\b(navigat(?:e|es|ed|ing|ion(?= to\b))|leads?|takes?|directs?|opens?|brings?|redirects?"
    r"|returns?|goes|accessible(?= (?:from|via|through|on))"
    r"|accessed(?= (?:directly )?(?:from|via|through))|access(?:ing)?(?! to\b))\b"
    r"(?:\s+(?:the\s+)?users?)?"
    r"\s*(?:back\s+)?(?:to\b)?\s*",
    re.I,
)
_CONFIRMS = re.compile(r"\b(?:confirmation|thank[- ]you|success(?:ful)? message)\b", re.I)
_SUBMITS = re.compile(
    r"\b(?:submit\w*|subscrib(?:e|es|ing)|sign(?:ing)? up|send(?:s|ing)?|sav(?:e|es|ing))\b", re.I
)
_REVEAL = re.compile(r"\b(?:displays?|shows?|reveals?|expands? to show)(?: the| a| an)?\s", re.I)


def behaviour_parts(text: str, plain: str, parts: list[Requirement]) -> list[Requirement]:
    """Navigation (a named control, or a named feature reachable from the homepage), a form
    whose submission shows a confirmation, a click on a named control that shows a quoted
    text."""
    controls = [p for p in parts if p.checker == "cond.control"]
    found: list[Requirement] = []
    nav = _NAV.search(plain)
    if nav and not re.search(r"\bnavigation (?:arrows|controls|dots)\b", plain, re.I):
        found += _navigation(text, plain, nav, controls, parts)
    if _CONFIRMS.search(plain) and _SUBMITS.search(plain):
        label = next((c.label for c in controls if c.role == "button"), "")
        found.append(
            _req(
                "behaviour",
                "submit",
                label or "form",
                "Submitting the form shows a confirmation",
                (0, len(text)),
                label=label,
                source=text,
            )
        )
    click = re.search(r"\bclick\w*\b", plain, re.I)
    reveal = _REVEAL.search(plain, click.end()) if click else None
    if click and reveal and controls and not found:
        shown = [q for q in quotes(text) if reveal.end() <= q[1] <= reveal.end() + 2]
        if shown and strip_label(shown[0][0]) != controls[0].label:
            found.append(
                _req(
                    "behaviour",
                    "reveal",
                    controls[0].label,
                    f"Clicking “{controls[0].label}” shows “{strip_label(shown[0][0])}”",
                    (click.start(), len(text)),
                    label=controls[0].label,
                    values=[strip_label(shown[0][0])],
                    source=text,
                )
            )
    return found


_VIA = re.compile(r"\s+(?:via|through|using|by clicking|from the home ?page via)\s+", re.I)
_FROM_HOME = re.compile(
    r"\b(?:from|on) the home ?page\b|\bhome ?page(?:'s)? navigation\b|^navigat\w* to\b", re.I
)


def _navigation(text, plain, nav, controls, parts) -> list[Requirement]:
    """``label`` the control clicked ("" when the condition names none); ``values`` the
    destination's name ("home" for the homepage); ``role`` home | named | vague. Without a
    named control only a feature reached from the homepage is read ("X is accessible from
    the homepage", "navigate to X from the homepage"); a click on an unnamed item is not."""
    if re.match(r"\s*away\b", plain[nav.end() :]):
        return []
    if nav.group(1).lower().startswith(("accessible", "accessed")):
        before_verb = [
            p.label
            for p in parts
            if p.checker in ("cond.named", "cond.text") and p.span.start < nav.start()
        ]
        control = next((c for c in controls if c.span.start > nav.start()), None)
        if not before_verb:
            return []
        return [
            _req(
                "behaviour",
                "navigate",
                before_verb[-1],
                f"“{before_verb[-1]}” is reached from the homepage",
                (nav.start(), nav.end()),
                label=control.label if control else "",
                values=[before_verb[-1]],
                role="named",
                order=1,  # reached, not clicked: a click the condition names stays unread
                source=text,
            )
        ]
    phrase = plain[nav.end() : nav.end() + 120]
    phrase = re.split(
        r"\s+when\b|\s+with\b|\s+and\s+(?:view|verify|see|locate|select)|,|\.|;", phrase
    )[0]
    via = _VIA.search(phrase)
    dest_text = phrase[: via.start()] if via else phrase
    dest_at = (nav.end(), nav.end() + len(dest_text))
    via_at = (nav.end() + via.end(), nav.end() + len(phrase)) if via else (0, 0)
    source = [c for c in controls if via_at[0] <= c.span.start + 1 < via_at[1]]
    before = [c for c in controls if c.span.start < nav.start()]
    control = (source or before[-1:] or [None])[0]
    if control is None and (re.search(r"\bclick", plain, re.I) or not _FROM_HOME.search(plain)):
        return []
    dest_clean = re.sub(r"\s+(?:on|from|in) the home ?page.*$", "", dest_text.strip(), flags=re.I)
    named = [strip_label(q[0]) for q in quotes(text) if dest_at[0] <= q[1] < dest_at[1] + 2]
    features = [
        p.label
        for p in parts
        if p.checker in ("cond.named", "cond.page")
        and dest_at[0] <= p.span.start + 2 <= dest_at[1] + 2
    ]
    if re.match(r"^(?:back\s+)?(?:to\s+)?(?:the\s+)?(?:home ?page|home)\b", dest_clean, re.I):
        role, dest = "home", "home"
    elif named or features:
        role, dest = "named", (named or features)[0]
    else:
        dest = re.sub(r"^(?:back\s+)?(?:to\s+)?(?:the|a|an|its)\s+", "", dest_clean, flags=re.I)
        role = "vague"
    label = control.label if control is not None else ""
    if not label and role != "named":
        return []
    return [
        _req(
            "behaviour",
            "navigate",
            label or dest,
            f"“{label or 'a homepage link'}” leads to {dest or 'another page'}",
            (nav.start(), nav.end() + len(phrase)),
            label=label,
            values=[dest],
            role=role,
            source=text,
        )
    ]


def destination_needs(parts: list[Requirement]) -> list[Requirement]:
    """Widgets named after a navigation ("leads to a quiz page with multiple-choice questions")
    belong to the destination: they move into the navigation's ``values`` as ``needs:<role>``;
    the destination's own name is no text the page must show."""
    nav = next((p for p in parts if p.checker == "cond.navigate"), None)
    if nav is None:
        return parts
    kept = []
    dest = nav.values[0] if nav.values else ""
    for part in parts:
        if part.checker == "cond.widget" and part.span.start > nav.span.start:
            nav.values.append(f"needs:{part.role}")
        elif part.checker in ("cond.text", "cond.named") and part.label == dest and nav.label:
            continue  # the destination's name: the navigation checks where the link goes
        else:
            kept.append(part)
    return kept
