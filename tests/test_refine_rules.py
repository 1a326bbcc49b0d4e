"""Each offline refiner rule on the broken-page corpus (tests/cases): after the refiner the issue is
gone, nothing outside the element's patch changed, and the score did not drop."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest
from refine_fixtures import project_from, requires_browser, site_files

from mmstudio.refine import html_edit
from mmstudio.studio.refining import RefineService

#: the async tests share the session's loop (and its browser); the sync ones carry no asyncio mark
pytestmark = [requires_browser]
session_loop = pytest.mark.asyncio(loop_scope="session")

# case: (level, issue code, how index.html may change: "patch" | "tag" | "remove" | "same")
RULES = {
    "opacity-chart": ("context", "invisible-default", "patch"),
    "cover-portrait": ("context", "cover-crop", "patch"),
    "stretched-image": ("context", "stretched", "patch"),
    "short-frame": ("context", "frame-too-short", "patch"),
    "covered-image": ("context", "covered", "patch"),
    "a11y": ("context", "missing-alt", "tag"),
    "vh-chart": ("local", "chart-overflow", "same"),
    "missing-asset": ("local", "missing-asset", "same"),
    "pale-hero": ("global", "low-contrast", "patch"),
    "overflow-390": ("global", "horizontal-overflow", "patch"),
    "text-spill": ("global", "text-overflow", "patch"),
    "cdn-script": ("global", "blocked-request", "remove"),
}
PATCH = re.compile(r'<style data-mm-patch="[^"]+">.*?</style>\n?', re.S)


def assert_only_scoped_changes(before: str, after: str, kind: str, element: str | None) -> None:
    """``after`` differs from ``before`` only by patch blocks, the element's start tag, or
    removed markup, as ``kind`` allows."""
    stripped = PATCH.sub("", after)
    if kind in ("patch", "same"):
        assert stripped == before
        assert (kind == "same") == (after == before)
        return
    opcodes = difflib.SequenceMatcher(None, before, stripped, autojunk=False).get_opcodes()
    changed = [(tag, i1, i2) for tag, i1, i2, _j1, _j2 in opcodes if tag != "equal"]
    assert changed
    if kind == "remove":
        assert all(tag == "delete" for tag, *_ in changed)
    else:
        node = html_edit.element_node(before, element or "")
        assert all(node.start <= i1 <= i2 <= node.open_end for _tag, i1, i2 in changed)


@session_loop
@pytest.mark.parametrize("case", sorted(RULES))
async def test_offline_rule_fixes_its_issue(renderer, cases: Path, tmp_path, case):
    level, code, kind = RULES[case]
    project = project_from(cases / case, tmp_path / "p")
    service = RefineService(project)
    before = await service.evaluate()
    project.commit("broken")
    issue = next(i for i in before.issues if i.code == code)
    files_before, html_before = site_files(project), (project.site_dir / "index.html").read_text()
    outcomes = await service.refine(level)
    assert [o.outcome for o in outcomes] == ["accepted"], [o.reason for o in outcomes]
    after = project.read_report()
    assert code not in {i.code for i in after.issues}
    assert after.scores.overall >= before.scores.overall
    files_after = site_files(project)
    html_after = files_after.pop("index.html").decode()
    files_before.pop("index.html")
    assert_only_scoped_changes(html_before, html_after, kind, issue.element)
    changed = {
        p for p in {*files_before, *files_after} if files_before.get(p) != files_after.get(p)
    }
    element_path = next((e.path for e in before.elements if e.id == issue.element), None)
    assert changed == ({element_path} if level == "local" else set())
    head = project.history.get(project.manifest.head)
    assert (head.level, head.element) == (level, None if level == "global" else issue.element)


@session_loop
async def test_patches_are_labelled_and_element_scoped(renderer, cases: Path, tmp_path):
    project = project_from(cases / "stretched-image", tmp_path / "p")
    service = RefineService(project)
    await service.evaluate()
    await service.refine("context", element="product_shot")
    html = (project.site_dir / "index.html").read_text()
    assert html_edit.patch_css(html, "product_shot").startswith('[data-mm-id="product_shot"]{')
    assert html.index('data-mm-patch="product_shot"') < html.index("</head>")


@session_loop
async def test_a_worse_change_is_reverted_with_its_reason(renderer, cases: Path, tmp_path):
    project = project_from(cases / "good", tmp_path / "p")
    service = RefineService(project)
    baseline = await service.evaluate()
    original = (project.site_dir / "index.html").read_text()
    from mmstudio.refine import Change

    hide = '[data-mm-id="hero_image"]{opacity:0!important}'
    change = Change(
        "context",
        "hero_image",
        ["stretched"],
        "hide the hero",
        page=lambda html: html_edit.set_patch_block(html, "hero_image", hide),
    )
    outcome = await service.editor.attempt(change, baseline)
    assert outcome.outcome == "reverted" and "fell" in outcome.reason
    assert (project.site_dir / "index.html").read_text() == original
    attempts = project.history.attempts()
    assert [(a.outcome, a.element) for a in attempts] == [("reverted", "hero_image")]


@session_loop
async def test_guardrails_reject_a_patch_that_drops_an_element(renderer, cases: Path, tmp_path):
    project = project_from(cases / "good", tmp_path / "p")
    service = RefineService(project)
    baseline = await service.evaluate()
    from mmstudio.refine import Change

    def drop(html: str) -> str:
        node = html_edit.element_node(html, "visits_chart")
        return html[: node.start] + html[node.end :]

    def external(html: str) -> str:
        return html.replace(
            "</head>", '<link rel="stylesheet" href="https://cdn.example.com/x.css"></head>'
        )

    for edit, words in ((drop, "drops the id 'visits_chart'"), (external, "external URL")):
        outcome = await service.editor.attempt(
            Change("context", "x", [], "bad", page=edit), baseline
        )
        assert outcome.outcome == "rejected" and words in outcome.reason
    assert [a.outcome for a in project.history.attempts()] == ["rejected", "rejected"]


@session_loop
async def test_the_brief_chart_rebuild_takes_the_brief_s_data_and_names_what_it_shows():
    """A made-up chart titled “Chart” for "a bar chart of students per month (Jan 6, …)" is
    rebuilt with the brief's numbers, titled by what it shows, and the page's figure heading
    and frame title follow; a page without that chart keeps its markup."""
    from mmstudio.plan import ChartPlan
    from mmstudio.refine.brief_charts import rebuilt
    from mmstudio.requirements import extract

    (req,) = [
        r
        for r in extract("A bar chart of students per month (Jan 6, Feb 8, Mar 10).")
        if r.kind == "chart"
    ]
    spec = ChartPlan.model_validate(
        {"id": "c1", "save_path": "assets/c1.html", "prompt": "a chart", "title": "Chart",
         "context": {"section": "charts", "role": "bar chart"},
         "display_width_px": 720, "display_height_px": 360,
         "attributes": {"chart_type": "bar"},
         "source_data": {"columns": ["Category", "Value"],
                         "rows": [["Jan", 26], ["Feb", 55], ["Mar", 93]]}}
    )  # fmt: skip
    new = rebuilt(spec, req)
    assert new.title == "Students per month"
    assert new.source_data.rows == [["Jan", 6.0], ["Feb", 8.0], ["Mar", 10.0]]
    page = (
        '<figure class="chart-panel"><h2 class="chart-title">Chart</h2>'
        '<iframe data-mm-id="c1" src="assets/c1.html" title="Chart"></iframe></figure>'
    )
    edit = html_edit.media_page_edit(spec, new)
    assert edit is not None
    after = edit(page)
    assert '<h2 class="chart-title">Students per month</h2>' in after
    assert 'title="Students per month"' in after


def test_a_long_label_with_stray_punctuation_is_restored_whole_never_cut():
    """The stray-punctuation rule writes the brief's whole label back: a requirement's display
    text is cut at 60 characters ("…across Ethiopia…"), and once replaced the page's copy."""
    from mmstudio.refine import requirement_rules
    from mmstudio.refine.model import RefineInput
    from mmstudio.report import Issue, Report

    label = "We buy directly from twelve partner farms across Ethiopia, Colombia and Guatemala"
    shown = "Balcony Herb Basics."
    html = f"<ul><li>{shown}</li><li>{label}.</li></ul>"
    issue = Issue(
        id="req-copy@page", dimension="layout", level="global", severity="minor",
        code="req-copy", source="requirement",
        message=f"Copy “{label[:57]}…”: “{shown}” has stray punctuation (asked: “{shown[:-1]}”)",
        evidence={"closest": shown, "asked": shown[:-1]},
    )  # fmt: skip

    def call(issue):
        return RefineInput(level="global", element=None, issues=[issue], report=Report(),
                           plan=None, site_dir=Path("."), html=html)  # fmt: skip

    (change,) = requirement_rules.propose(call(issue))
    page = change.page(html)
    assert f"<li>{shown[:-1]}</li>" in page and f"<li>{label}.</li>" in page
    no_asked = issue.model_copy(update={"evidence": {"closest": shown}})
    (change,) = requirement_rules.propose(call(no_asked))
    assert f"<li>{shown[:-1]}</li>" in change.page(html)


def test_labels_set_as_the_brief_says_by_their_requirement_s_css_and_nothing_else():
    """A failed typography requirement (kind ``font``) names the declarations that would pass it;
    the rule marks the elements whose whole text is the label and styles them, one mark per
    label set; declarations that are not plain property/value pairs never reach the page."""
    from mmstudio.refine import requirement_rules
    from mmstudio.refine.model import RefineInput
    from mmstudio.report import Issue, Report

    html = (
        "<head><style>p{}</style></head><body><div class='btn'><a href='#'>Book a class</a></div>"
        "<h3>Make Something Slowly</h3><p>Make Something Slowly, every week</p></body>"
    )

    def issue(label, css, n):
        return Issue(
            id=f"req-font-{n}@page", dimension="style", level="global", severity="minor",
            code="req-font", source="requirement", message=f"“{label}” is not …",
            evidence={"labels": [label], "css": css},
        )  # fmt: skip

    issues = [
        issue("Book a class", {"text-transform": "uppercase"}, 1),
        issue("Make Something Slowly", {"font-weight": "700"}, 2),
        issue("Make Something Slowly", {"text-align": "center"}, 3),
        issue("Make Something Slowly", {"color": "red;}</style><script>alert(1)</script>"}, 4),
    ]
    inp = RefineInput(level="global", element=None, issues=issues, report=Report(), plan=None,
                      site_dir=Path("."), html=html)  # fmt: skip
    (change,) = requirement_rules.propose(inp)
    page = change.page(html)
    # the link itself, not its wrapper; the heading, not the longer paragraph
    assert "<a href='#' data-mm-type=\"1\">Book a class</a>" in page
    assert '<h3 data-mm-type="2">Make Something Slowly</h3>' in page
    assert "<p>Make Something Slowly, every week</p>" in page
    assert '[data-mm-type="1"]{text-transform:uppercase!important;}' in page
    assert '[data-mm-type="2"]{font-weight:700!important;text-align:center!important;}' in page
    assert "<script>" not in page and "alert" not in page
    assert not requirement_rules.fixable(issues[3])
