"""Keep or revert: compare the report a change was made from with the report of its trial.

A change is kept only when it does not score worse (MM Studio issue 5) and gains something:
- the page still renders;
- the overall score (0–1) does not drop; for an element change, the element's score does not
  drop either;
- no issue appears on the element (element changes) or on the page (global changes) that the
  baseline did not have — unless the element's own score rose (a missing image painted, now
  merely cropped, is a gain the next round can finish);
- at least one issue the change addressed is gone, the score rose, or what is left of the
  addressed issues weighs less (severity × text blocks: a contrast fix that mended some of a
  section's blocks, or turned a major issue into a minor one) — or the change does what the
  user asked in words (``Change.requested``): then making nothing worse is enough.

Both reports come from the same evaluator: with a model judge, the trial is judged again, and
the judge's issues count like measured ones (a judged issue still reported is not fixed).
"""

from __future__ import annotations

from collections import Counter

from mmstudio.report import Report

from .model import SEVERITY_RANK, Change

EPS = 1e-6
# a finding that changes severity keeps its family: "low-contrast" → "low-contrast-minor" is a
# gain (lighter), not a new issue
FAMILY = {"low-contrast-minor": "low-contrast", "section-missing-minor": "section-missing"}


def _family(code: str) -> str:
    return FAMILY.get(code, code)


def _codes(report: Report, element: str | None, page: bool) -> Counter[str]:
    """Issue codes of one element, or (``page``) of the whole page."""
    return Counter(_family(i.code) for i in report.issues if page or i.element == element)


def _mass(report: Report, change: Change, page: bool) -> float:
    """How much of what ``change`` addressed is still reported: per issue its severity rank
    (1–3) times the blocks it covers (``evidence.blocks``, e.g. low-contrast text blocks)."""
    return sum(
        SEVERITY_RANK[i.severity] * float(i.evidence.get("blocks") or 1)
        for i in report.issues
        if _family(i.code) in {_family(c) for c in change.codes}
        and (page or i.element == change.element)
    )


def _element_score(report: Report, element: str | None) -> float | None:
    row = next((e for e in report.elements if e.id == element), None)
    return row.score if row else None


def judge(baseline: Report, trial: Report, change: Change) -> tuple[bool, str]:
    """(keep?, one-line reason) for ``change`` whose trial scored ``trial``."""
    if any(i.code == "render-failed" for i in trial.issues):
        return False, "the page no longer renders after the change"
    before, after = baseline.scores.overall or 0.0, trial.scores.overall or 0.0
    if after < before - EPS:
        return False, f"the overall score fell from {before:.3f} to {after:.3f}"
    page = change.level == "global" or change.element is None
    rose = False
    if not page:
        b, a = _element_score(baseline, change.element), _element_score(trial, change.element)
        if b is not None and a is not None and a < b - EPS:
            return False, f"the score of {change.element} fell from {b:.2f} to {a:.2f}"
        rose = b is not None and a is not None and a > b + EPS
    old, new = _codes(baseline, change.element, page), _codes(trial, change.element, page)
    added = sorted(set(new) - set(old))
    if rose:
        return True, f"the score of {change.element} rose to {a:.2f} (overall {after:.3f})"
    if added:
        return False, f"the change introduces {', '.join(added)}"
    if change.requested:
        words = " ".join(change.requested.split())[:80]
        return True, f"done as asked (“{words}”; overall {before:.3f} → {after:.3f})"
    fixed = [c for c in dict.fromkeys(map(_family, change.codes)) if new[c] < old[c]]
    if fixed:
        return True, f"fixed {', '.join(fixed)} (overall {before:.3f} → {after:.3f})"
    if after > before + EPS:
        return True, f"overall {before:.3f} → {after:.3f}"
    old_mass, new_mass = _mass(baseline, change, page), _mass(trial, change, page)
    if new_mass < old_mass - EPS:
        return True, f"fewer {', '.join(change.codes)} findings ({old_mass:g} → {new_mass:g})"
    return False, f"no gain: {', '.join(change.codes) or 'the issues'} still reported"
