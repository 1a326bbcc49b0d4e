"""Ten checked FronTalk conditions (five that pass, five that fail) with the evidence behind each
verdict, from a finished ``mmstudio bench --frontalk`` output folder (MM Studio issue 16).

For each verdict: the condition, its type and turn, the rules' one-line finding (what was
measured, which link was followed, which script ran), the markup of the site at the final turn
around the thing the condition names, and a small crop of the page's last render where the
thing is on it.

    python benchmarks/frontalk_examples.py OUT_DIR [-o benchmarks/results/frontalk_examples.md]

Writes the Markdown file and ``frontalk_example_<n>.png`` crops beside it (each at most 640 px
wide). Picks conditions of different kinds (control, navigation, script, per-item, style …) in
a stable order so reruns on the same folder give the same page.
"""

from __future__ import annotations

import argparse
import html
import json
import re
from pathlib import Path

KINDS = (
    ("navigation", r"leads to|leads nowhere|lead"),
    ("script", r"steps:"),
    ("items", r"items"),
    ("hover", r":hover|hover"),
    ("control", r"control|button|link"),
    ("text", r"on the page|heading"),
    ("style", r"font|colour|contrast|px"),
    ("widget", r"."),
)


def _records(out: Path) -> list[tuple[dict, Path]]:
    found = []
    for path in sorted((out / "records").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("ok"):
            found.append((record, out / "projects" / record["name"]))
    return found


def _label(condition: str) -> str:
    quoted = re.findall(r"[\"“]([^\"”]{2,60})[\"”]", condition)
    return quoted[0] if quoted else ""


def _excerpt(site: Path, label: str, detail: str) -> str:
    page = (site / "index.html").read_text(encoding="utf-8", errors="replace")
    body = page[page.find("<body") :]
    keys = [label] if label else []
    keys += re.findall(r"#([\w-]+)", detail) + re.findall(r"“([^”]{3,40})”", detail)
    for key in keys:
        at = body.find(html.escape(key, quote=False)) if key else -1
        if at < 0 and key:
            at = body.find(f'id="{key}"')
        if at >= 0:
            start = body.rfind("<", 0, max(0, at - 160))
            snippet = re.sub(r"\s+", " ", body[max(0, start) : at + 260])
            return snippet[:420]
    return ""


def _pick(rows: list[dict], status: str, n: int) -> list[dict]:
    chosen, used = [], set()
    for kind, pattern in KINDS:
        for row in rows:
            if row["status"] != status or row["key"] in used:
                continue
            if re.search(pattern, row["detail"], re.I):
                chosen.append({**row, "kind": kind})
                used.add(row["key"])
                break
        if len(chosen) == n:
            break
    return chosen


def _crop(project: Path, label: str, target: Path) -> bool:
    """A crop of the project's last render (the feedback cache of its final turn) around the
    first text block that starts with ``label``; False when there is none."""
    last = project / "renders" / "feedback" / "last.json"
    if not label or not last.is_file():
        return False
    from PIL import Image

    render = json.loads(last.read_text(encoding="utf-8"))["render"]
    texts = (render.get("probe") or {}).get("texts") or []
    want = label.lower()[:30]
    hit = next((t for t in texts if t.get("snippet", "").lower().startswith(want)), None)
    shot = Path(render.get("screenshot") or "")
    if hit is None or not shot.is_file():
        return False
    with Image.open(shot) as image:
        top = max(0, int(hit["box"]["y"]) - 140)
        crop = image.crop((0, top, image.width, min(image.height, top + 560))).convert("RGB")
        crop.thumbnail((640, 640))
        crop.save(target, optimize=True)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a finished bench --frontalk output folder")
    parser.add_argument("-o", "--output", type=Path,
                        default=Path("benchmarks/results/frontalk_examples.md"))  # fmt: skip
    args = parser.parse_args()
    rows = []
    for record, project in _records(args.out):
        for test in record["tests"]:
            status = test["statuses"][-1]
            if status not in ("pass", "fail"):
                continue
            condition = test["condition"].split(" Passes when:")[0]
            rows.append({
                "key": (record["name"], test["id"]), "dialogue": record["name"],
                "project": project, "turn": test["turn"], "type": test["type"],
                "status": status, "condition": condition,
                "detail": test["detail"].removeprefix("rules: "),
            })  # fmt: skip
    picked = _pick(rows, "pass", 5) + _pick(rows, "fail", 5)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        "# FronTalk: ten checked conditions and their evidence",
        "",
        f"From `{args.out}` (offline replay, `mmstudio bench --frontalk`). Each verdict is the "
        "condition rules' finding at the dialogue's final turn; the markup is the site's "
        "`index.html` at that turn; the crop is the page's last render. Regenerate with "
        "`python benchmarks/frontalk_examples.py OUT_DIR`.",
        "",
    ]
    for n, row in enumerate(picked, start=1):
        label = _label(row["condition"])
        excerpt = _excerpt(row["project"] / "site", label, row["detail"])
        png = args.output.parent / f"frontalk_example_{n}.png"
        shot = _crop(row["project"], label, png)
        lines += [
            f"## {n}. {row['status'].upper()} — {row['type']}, turn {row['turn']}, "
            f"{row['kind']} (`{row['dialogue'][:8]}`)",
            "",
            f"> {row['condition']}",
            "",
            f"**Finding:** {row['detail']}",
            "",
        ]
        if excerpt:
            lines += ["**Markup:**", "", "```html", excerpt, "```", ""]
        if shot:
            lines += [f"![render around “{label}”]({png.name})", ""]
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(picked)} examples → {args.output}")


if __name__ == "__main__":
    main()
