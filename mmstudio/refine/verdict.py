"""Keep or revert: compare the report a change was made from with the report of its trial.

A change is kept only when it does not score worse (MM Studio issue 5) and gains something:
- the page still renders;
- the overall score (0–1) does not drop; for an element change, the element's score does not
  drop either;
- no issue appears on the element (element changes) or on the page (global changes) that the
  baseline did not have — unless the element's own score rose (a missing image painted, now
  merely cropped, is a gain the next round can finish);
- at least one issue the change addressed is gone, or the score rose.
"""

from __future__ import annotations

from collections import Counter

from mmstudio.report import Report

from .model import Change

EPS = 1e-6


def _codes(report: Report, element: str | None, page: bool) -> Counter[str]:
    """Issue codes of one element, or (``page``) of the whole page."""
    return Counter(i.code for i in report.issues if page or i.element == element)


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
    fixed = [c for c in dict.fromkeys(change.codes) if new[c] < old[c]]
    if fixed:
        return True, f"fixed {', '.join(fixed)} (overall {before:.3f} → {after:.3f})"
    if after > before + EPS:
        return True, f"overall {before:.3f} → {after:.3f}"
    return False, f"no gain: {', '.join(change.codes) or 'the issues'} still reported"
