"""Recall and precision of ``mmstudio evaluate`` against the hand-labelled calibration set.

    .venv/bin/python benchmarks/calibration.py [--mm .venv/bin/mmstudio] [--page ID ...] [--json]

The set is ``tests/calibration/`` (see its README): pages the product made, each with its prompt,
and ``labels.json``, the defects a strict reviewer marked by hand. For each page the page folder
is copied to a temporary folder, ``resources/vendor/`` is copied into it as ``vendor/`` (the chart
frames in ``assets/`` load ``../vendor/echarts.min.js``), and

    mmstudio evaluate TMP --prompt-file TMP/prompt.txt --json --quiet

is run. Findings are the failed requirements (kind, key, element) plus the measured issues whose
code is ``duplicate-image``, ``text-overflow``, ``empty-section`` or ``empty-card`` (kinds
duplicate-image, truncated, empty). A finding matches a labelled defect when the kinds agree
(``label``, ``copy`` and ``nav`` count as one family) and the keys agree after normalising
(casefold, punctuation and whitespace dropped; equal, or one contains the other; a finding's
keys are its key, the items its evidence names, the hex of a colour word and its prompt span when
that is short, the brief's own words for the demand), or, for the
keyless kinds, when the element agrees (a duplicate-image finding names both pictures of its pair).
Each defect matches at most one finding and each finding at most one defect (a maximum matching).

Prints per page and in total: defects, findings, matched, recall (matched defects / defects),
precision (matched findings / findings) and recall over the ``checkable`` defects, then the
unmatched defects and findings of each page. ``--json`` prints the same as one JSON object.
Exits 0; 1 when the evaluator cannot take ``--prompt-file`` or the labels cannot be read.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CALIBRATION = ROOT / "tests" / "calibration"
VENDOR = ROOT / "resources" / "vendor"

MEASURED_KINDS = {
    "duplicate-image": "duplicate-image",
    "text-overflow": "truncated",
    "empty-section": "empty",
    "empty-card": "empty",
}
KEYLESS_KINDS = {"duplicate-image", "truncated", "empty"}
TEXT_FAMILY = {"label", "copy", "nav"}


#: the same directive in other words: a reviewer's "sticky header" is the evaluator's "fixed
#: header" (keys are compared after :func:`norm_key`, so these are normalised too)
SYNONYMS = {
    "fixedheader": (
        "stickyheader", "pinnedheader", "fixedtopbar", "stickynav", "stickynavigation",
        "fixednavigation", "pinnedtothetop", "stickytopbar", "fixednav", "stickynavbar",
    ),
}  # fmt: skip
_NUMBERS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6"}


def norm_key(value: object) -> str:
    """Casefolded letters and digits only ('CREATIVE CAMP.' -> 'creativecamp'; 'two-column'
    -> '2column'; 'sticky header' -> 'fixedheader')."""
    if value is None:
        return ""
    words = str(value).casefold().replace("-", " ").split()
    key = "".join(ch for w in words for ch in _NUMBERS.get(w, w) if ch.isalnum())
    for canonical, others in SYNONYMS.items():
        if key in others:
            return canonical
    return key.removesuffix("s") if key.endswith(("columns", "cards")) else key


#: kinds the labels did not have: a reviewer files a pooled card as "other" or "layout", and how
#: a label is set (bold, upper case, its size: the evaluator's typography findings, kind
#: ``font``) as "other" — the labels' ``font`` kind is for typefaces
FINDING_FAMILIES = {
    "pairing": ("other", "layout"),
    "palette": ("other",),
    "font": ("other", "font"),
}


def family(kind: str) -> str:
    return "text" if kind in TEXT_FAMILY else kind


def same_family(defect_kind: str, finding_kind: str) -> bool:
    """Whether a finding of ``finding_kind`` can stand for a defect of ``defect_kind``."""
    if defect_kind in FINDING_FAMILIES.get(finding_kind, ()):
        return True
    return family(defect_kind) == family(finding_kind)


def matches(defect: dict, finding: dict) -> bool:
    """Whether one finding stands for one labelled defect."""
    if not same_family(defect["kind"], finding["kind"]):
        return False
    if defect["kind"] in KEYLESS_KINDS:
        element = defect.get("element")
        return bool(element) and element in finding["elements"]
    a = norm_key(defect.get("key"))
    return any(
        a and b and (a == b or a in b or b in a)
        for b in (norm_key(k) for k in finding.get("keys") or [finding.get("key")])
    )


def max_matching(defects: list[dict], findings: list[dict]) -> dict[int, int]:
    """Maximum bipartite matching (Kuhn): defect index -> finding index."""
    edges = [[j for j, f in enumerate(findings) if matches(d, f)] for d in defects]
    # Prefer exact key agreement when a defect has several candidates.
    for i, d in enumerate(defects):
        edges[i].sort(key=lambda j, d=d: norm_key(d.get("key")) != norm_key(findings[j].get("key")))
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(defects)):
        augment(i, set())
    return {i: j for j, i in owner.items()}


def findings_of(report: dict) -> list[dict]:
    """Failed requirements and the measured issues the labels have kinds for."""
    out: list[dict] = []
    for req in report.get("requirements") or []:
        if req.get("status") != "fail":
            continue
        element = req.get("element")
        evidence = req.get("evidence") or {}
        # a finding that names several things (leaked words, off-palette colours) is one
        # finding per thing: the report lists each of them
        items = evidence.get("leaked") or list(evidence.get("off") or {}) or [None]
        for item in items:
            keys = [req.get("key")] + [k for k in (item, evidence.get("closest")) if k]
            keys += [*(evidence.get("dead") or []), evidence.get("name") or ""]
            keys += [evidence.get("suggest") or ""] if evidence.get("off") else []
            keys += [evidence.get("expected_type") or "", *(evidence.get("fields") or [])]
            keys += [evidence.get("hex") or ""]
            # a short span is the brief's own words for the demand ("three vertical cards")
            excerpt = (req.get("span") or {}).get("excerpt") or ""
            keys += [excerpt] if len(excerpt) <= 60 else []
            keys += list(evidence.get("labels") or [])
            keys = [k for k in keys if k]
            out.append(
                {
                    "source": "requirement",
                    "id": req.get("id"),
                    "kind": req.get("kind") or "other",
                    "key": item or req.get("key"),
                    "keys": keys,
                    "element": element,
                    "elements": [element] if element else [],
                    "text": req.get("text") or req.get("message") or "",
                }
            )
    for issue in report.get("issues") or []:
        if issue.get("source") != "measured" or issue.get("code") not in MEASURED_KINDS:
            continue
        element = issue.get("element")
        elements = [element] if element else []
        pair = (issue.get("evidence") or {}).get("pair") or []
        elements += [e for e in pair if isinstance(e, str) and e not in elements]
        out.append(
            {
                "source": "measured",
                "id": issue.get("id"),
                "kind": MEASURED_KINDS[issue["code"]],
                "key": None,
                "element": element,
                "elements": elements,
                "text": issue.get("message") or "",
            }
        )
    return out


def supports_prompt_file(mm: str) -> bool:
    try:
        done = subprocess.run(
            [mm, "evaluate", "--help"], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and "--prompt-file" in done.stdout


def evaluate_page(mm: str, page_dir: Path, timeout: float) -> tuple[dict | None, str]:
    """Run the evaluator on a temporary copy of one page: (report, error)."""
    with tempfile.TemporaryDirectory(prefix=f"mm-cal-{page_dir.name}-") as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(page_dir, site)
        if VENDOR.is_dir():
            shutil.copytree(VENDOR, site / "vendor", dirs_exist_ok=True)
        cmd = [mm, "evaluate", str(site), "--prompt-file", str(site / "prompt.txt")]
        cmd += ["--json", "--quiet"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout:.0f} s"
        except OSError as exc:
            return None, str(exc)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            return None, f"exit {done.returncode}: {tail[0]}"
        try:
            return json.loads(done.stdout), ""
        except json.JSONDecodeError as exc:
            return None, f"unreadable JSON report: {exc}"


def adjudicated(rows: list[dict], review_path: Path) -> dict:
    """Precision counting also the unmatched findings a second reviewer judged real
    (``second_review.json``: a sample of findings no first label matched, each judged against
    the page and the brief; matched here by page, kind and key). The first labels stay as
    written; this is the figure with the second review's adjudication added."""
    try:
        review = json.loads(review_path.read_text(encoding="utf-8"))["findings"]
    except (OSError, ValueError, KeyError):
        return {}
    # a verdict names its finding by page, kind and key, and by its text when several findings
    # share a key (one label asked bold and at 11 px)
    real = {
        (r["page"], r["kind"], norm_key(r["key"]), r.get("text"))
        for r in review
        if r["verdict"] == "real"
    }
    findings = matched = confirmed = 0
    for row in rows:
        if row.get("error"):
            continue
        findings += row["findings"]
        matched += row["matched"]
        confirmed += sum(
            bool(
                {(row["page"], f["kind"], norm_key(f.get("key")), t) for t in (None, f.get("text"))}
                & real
            )
            for f in row["unmatched_findings"]
        )
    return {
        "confirmed_by_review": confirmed,
        "precision_adjudicated": ratio(matched + confirmed, findings),
    }


def ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def score_page(defects: list[dict], findings: list[dict]) -> dict:
    pairs = max_matching(defects, findings)
    matched_findings = set(pairs.values())
    checkable = [i for i, d in enumerate(defects) if d.get("checkable")]
    return {
        "defects": len(defects),
        "findings": len(findings),
        "matched": len(pairs),
        "checkable": len(checkable),
        "matched_checkable": sum(1 for i in checkable if i in pairs),
        "pairs": [[defects[i]["id"], findings[j]["id"]] for i, j in sorted(pairs.items())],
        "unmatched_defects": [d for i, d in enumerate(defects) if i not in pairs],
        "unmatched_findings": [
            {k: v for k, v in f.items() if k != "elements"}
            for j, f in enumerate(findings)
            if j not in matched_findings
        ],
    }


def with_rates(row: dict) -> dict:
    row["recall"] = ratio(row["matched"], row["defects"])
    row["precision"] = ratio(row["matched"], row["findings"])
    row["recall_checkable"] = ratio(row["matched_checkable"], row["checkable"])
    return row


def pct(value: float | None) -> str:
    return "   -" if value is None else f"{100 * value:3.0f}%"


def print_text(result: dict) -> None:
    head = f"{'page':<6} {'defects':>7} {'findings':>8} {'matched':>7} "
    head += f"{'recall':>6} {'precis.':>7} {'recall(chk)':>11}"
    print(head)
    rows = [*result["pages"], {"page": "total", **result["total"]}]
    for row in rows:
        if row.get("error"):
            print(f"{row['page']:<6} error: {row['error']}")
            continue
        print(
            f"{row['page']:<6} {row['defects']:>7} {row['findings']:>8} {row['matched']:>7} "
            f"{pct(row['recall']):>6} {pct(row['precision']):>7} {pct(row['recall_checkable']):>11}"
        )
    total = result["total"]
    if total.get("precision_adjudicated") is not None:
        print(
            f"precision with the second review's adjudication: "
            f"{pct(total['precision_adjudicated'])} ({total['confirmed_by_review']} unmatched "
            "findings judged real)"
        )
    for row in result["pages"]:
        if row.get("error"):
            continue
        print(f"\n== {row['page']}: unmatched defects ({len(row['unmatched_defects'])})")
        for d in row["unmatched_defects"]:
            mark = "" if d.get("checkable") else " (not checkable)"
            where = f" @{d['element']}" if d.get("element") else ""
            print(f"  {d['id']} [{d['kind']}] {d.get('key')!r}{where}: {d['what']}{mark}")
        print(f"== {row['page']}: unmatched findings ({len(row['unmatched_findings'])})")
        for f in row["unmatched_findings"]:
            where = f" @{f['element']}" if f.get("element") else ""
            print(f"  {f['id']} [{f['kind']}] {f.get('key')!r}{where}: {f['text']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="recall and precision of mmstudio evaluate on tests/calibration"
    )
    parser.add_argument(
        "--mm",
        default=str(ROOT / ".venv" / "bin" / "mmstudio"),
        help="the mmstudio executable (default: .venv/bin/mmstudio)",
    )
    parser.add_argument("--labels", type=Path, default=CALIBRATION / "labels.json")
    parser.add_argument(
        "--pages",
        type=Path,
        default=CALIBRATION / "pages",
        help="folder of page folders (default: tests/calibration/pages)",
    )
    parser.add_argument(
        "--page", action="append", default=[], metavar="ID", help="only this page (repeatable)"
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per page")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)

    try:
        labels = json.loads(args.labels.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"calibration: cannot read {args.labels}: {exc}", file=sys.stderr)
        return 1
    if not supports_prompt_file(args.mm):
        print(
            f"calibration: {args.mm} evaluate does not take --prompt-file (or does not run); "
            "this benchmark needs an evaluator that checks a page against a given prompt",
            file=sys.stderr,
        )
        return 1
    if not (VENDOR / "echarts.min.js").is_file():
        print(
            f"calibration: warning: {VENDOR}/echarts.min.js is missing; charts will not draw "
            "(run scripts/setup.sh)",
            file=sys.stderr,
        )

    ids = sorted(labels["pages"])
    if args.page:
        ids = [i for i in ids if i in set(args.page)]
    rows: list[dict] = []
    total = {k: 0 for k in ("defects", "findings", "matched", "checkable", "matched_checkable")}
    for page_id in ids:
        defects = labels["pages"][page_id]["defects"]
        if not args.json:
            print(f"evaluating {page_id} ...", file=sys.stderr)
        report, error = evaluate_page(args.mm, args.pages / page_id, args.timeout)
        if report is None:
            rows.append({"page": page_id, "error": error, "defects": len(defects)})
            continue
        row = with_rates({"page": page_id, **score_page(defects, findings_of(report))})
        rows.append(row)
        for k in total:
            total[k] += row[k]
    result = {"pages": rows, "total": with_rates(total)}
    result["total"].update(adjudicated(rows, CALIBRATION / "second_review.json"))
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
    else:
        print_text(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
