"""The plan tree: page → sections → elements, each row with a score badge from the report; and
the page-level badge bar (overall and the six dimensions).

The plan is the designer's to edit from the tree (double-click a row, or its context menu): an
image's or video's subject ("Edit subject…"), a chart's type ("Chart type ▸") or title, a
section's title or place ("Move up" / "Move down"), a palette colour. The tree only asks
(:meth:`PlanTree.ask_text`, :meth:`PlanTree.ask_colour`) and emits
:attr:`PlanTree.edit_requested`; the window runs the edit as a job
(:mod:`mmstudio.studio.plan_edit`)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QColorDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from mmstudio.evaluate.scoring import section_score
from mmstudio.pipeline.charts import CHART_TYPES
from mmstudio.plan import DesignPlan
from mmstudio.report import DIMENSIONS, Issue, Report, RequirementResult
from mmstudio.studio.plan_edit import moved_order

ID_ROLE = Qt.ItemDataRole.UserRole
SCORE_ROLE = Qt.ItemDataRole.UserRole + 1
ISSUES_ROLE = Qt.ItemDataRole.UserRole + 2
RUNNING_ROLE = Qt.ItemDataRole.UserRole + 3  # True while a job works on the row's element
EDIT_ROLE = Qt.ItemDataRole.UserRole + 4  # what a double-click edits: "subject:<id>", …
PAGE_ROLE = Qt.ItemDataRole.UserRole + 5  # a page row's file ("about.html")
SPIN_MS = 90  # spinner frame interval


def row_issues(report: Report | None, item_id: str | None) -> list[Issue]:
    """The issues of one plan row: those the report places on ``item_id`` and the failed
    requirements of the brief aimed at it (evidence ``target``: the evaluation keeps a finding
    about a section or a text block on the page, naming what it is about). ``None``: the
    page-level issues, those aimed at a section included."""
    if report is None:
        return []
    if item_id is None:
        return report.issues_for(None)
    return [i for i in report.issues if i.element == item_id or issue_target(i) == item_id]


def issue_target(issue: Issue) -> str | None:
    target = issue.evidence.get("target") if isinstance(issue.evidence, dict) else None
    return target if isinstance(target, str) and target else None


def brief_of(report: Report | None, item_id: str) -> tuple[int, int, list[RequirementResult]]:
    """(met, checked, failed results) of the brief's requirements about ``item_id``."""
    if report is None:
        return 0, 0, []
    mine = [r for r in report.requirements if r.element == item_id and r.status != "unchecked"]
    failed = [r for r in mine if r.status == "fail"]
    return len(mine) - len(failed), len(mine), failed


REQUIREMENT_LOSS = 0.2  # per failed requirement the measured score left out (as element scores)


def row_badge(
    report: Report | None, item_id: str, measured: float | None
) -> tuple[float | None, int, str]:
    """(score 0–1 or None, issue count, tooltip) of one row's badge. The measured score (the
    element's, or the section's) already counts the failed requirements whose issue sits on
    the row itself; each other failed requirement about the row (a section's finding kept on
    the page with its ``target``, a requirement of another dimension) costs
    :data:`REQUIREMENT_LOSS` more, so a row that misses what the brief asks of it never reads
    1.00. Without a measured score the share of its checked requirements met is shown; None:
    nothing judged it."""
    if report is None or report.failed:
        return None, 0, "not evaluated"
    met, checked, failed = brief_of(report, item_id)
    listed = next((e.issues for e in report.elements if e.id == item_id), [])
    issues = set(listed) | {i.id for i in row_issues(report, item_id)}
    counted = set(listed) | {i.id for i in report.issues if i.element == item_id}
    by_requirement = {
        i.evidence.get("requirement"): i.id for i in report.issues if i.source == "requirement"
    }
    missed = [r for r in failed if by_requirement.get(r.id) not in counted]
    if measured is not None:
        score: float | None = round(max(0.0, measured - REQUIREMENT_LOSS * len(missed)), 4)
    else:
        score = round(met / checked, 4) if checked else None
    lines = [f"{item_id}: " + ("not judged" if score is None else f"{score:.2f} (0–1)")]
    lines.append("measured: " + ("not measured" if measured is None else f"{measured:.2f}"))
    if checked:
        lines.append(f"the brief: {met} of {checked} checked requirement(s) met")
    if measured is not None and missed:
        lines.append(f"−{REQUIREMENT_LOSS:.1f} for each failed requirement the measure left out")
    lines += [f"✗ {r.text}" + (f" — {r.message}" if r.message else "") for r in failed[:5]]
    return score, len(issues), "\n".join(lines)


def badge_colour(score: float | None) -> QColor:
    """Green ≥ 0.8, amber ≥ 0.5, red below, grey when not evaluated."""
    if score is None:
        return QColor("#9AA0A6")
    if score >= 0.8:
        return QColor("#2E9E5B")
    if score >= 0.5:
        return QColor("#E0A526")
    return QColor("#D64545")


class BadgeDelegate(QStyledItemDelegate):
    """Paints column 1 as a rounded pill: the score (0–1) and the issue count; while a job runs
    on the row's element, a turning arc before the score."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        score = index.data(SCORE_ROLE)
        issues = index.data(ISSUES_ROLE) or 0
        if index.data(ID_ROLE) is None:
            return super().paint(painter, option, index)
        text = "–" if score is None else f"{score:.2f}"
        if issues:
            text += f" · {issues}"
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(option.rect).adjusted(4, 3, -4, -3)
        rect.setWidth(min(rect.width(), 74))
        painter.setBrush(badge_colour(score))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        painter.setPen(QColor("white"))
        if index.data(RUNNING_ROLE):
            side = rect.height() - 6
            arc = QRectF(rect.left() + 5, rect.top() + 3, side, side)
            angle = getattr(self.parent(), "spin_angle", 0)
            pen = QPen(QColor("white"), 2)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.drawArc(arc, -angle * 16, 270 * 16)
            rect = rect.adjusted(side + 4, 0, 0, 0)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()
        return None


class PlanTree(QTreeWidget):
    """Shows a DesignPlan; emits ``element_selected(id)`` when a section or element is picked
    (or one of its detail rows), ``page_selected()`` when the page row or one of its rows
    (palette, typography) is; a multi-page plan's sections sit under their page's row, whose
    pick emits ``site_page_selected(file)`` too."""

    element_selected = Signal(str)
    page_selected = Signal()
    site_page_selected = Signal(str)  # a multi-page plan's page row: its file ("about.html")
    #: ``(what, item_id, changes)``: what is "element" (changes: prompt/alt, chart_type, title),
    #: "section" (title), "order" (item_id: the section moved; changes: {"order": ids}) or
    #: "palette" (item_id: the role; changes: {role: hex})
    edit_requested = Signal(str, str, dict)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["Plan", "Score"])
        self.header().setStretchLastSection(False)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        self.setColumnWidth(1, 84)
        self.setItemDelegateForColumn(1, BadgeDelegate(self))
        self.itemSelectionChanged.connect(self._selection_changed)
        self._items: dict[str, QTreeWidgetItem] = {}
        self._running: set[str] = set()
        self.spin_angle = 0
        self._spinner = QTimer(self)
        self._spinner.setInterval(SPIN_MS)
        self._spinner.timeout.connect(self._spin)
        self.plan: DesignPlan | None = None
        self.setExpandsOnDoubleClick(False)  # a double-click edits (the arrow expands)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.itemDoubleClicked.connect(lambda item, _column: self._double_clicked(item))

    def bind(self, state) -> None:
        """Follow a :class:`~mmstudio.studio.state.StudioState`: the plan and badges of its
        head (or a site folder's evaluated elements), its flags, its selection and the
        elements its jobs work on; picking a row selects it in the state."""
        self.element_selected.connect(state.select)
        self.page_selected.connect(lambda: state.select(None))
        state.subscribe(self._state_changed)

    def _state_changed(self, state, change) -> None:
        if change.touches("project", "plan", "report"):
            if state.view is not None:
                self.show_plan(state.view.plan, state.view.report)
            elif state.site_only is not None and state.report is not None:
                self.show_report_elements(state.report)
            else:
                self.clear()
        if change.touches("project", "plan", "report", "flags"):
            self.show_flags(state.flags)
        if change.touches("jobs", "project", "plan", "report"):
            running = state.running_elements
            if running != self._running or change.touches("project", "plan", "report"):
                self.show_running(running)
        if change.touches("selection", "plan", "report") and state.selection is not None:
            self.select(state.selection)

    def clear(self) -> None:
        """Remove every row (and forget them: a deleted row is never touched again)."""
        self._items.clear()
        super().clear()

    def show_plan(self, plan: DesignPlan, report: Report | None) -> None:
        """Rebuild the tree from ``plan``, with badges from ``report`` (None: not evaluated)."""
        self.clear()
        self.plan = plan
        scores = {e.id: e for e in report.elements} if report else {}
        page = QTreeWidgetItem(self, [f"Page — {plan.title}"])
        for colour in plan.layout.palette:
            swatch = QTreeWidgetItem(page, [f"{colour.role}: {colour.hex}"])
            swatch.setBackground(0, QColor(colour.hex))
            swatch.setForeground(0, QColor("white" if _dark(colour.hex) else "black"))
            swatch.setData(0, EDIT_ROLE, f"colour:{colour.role}")
            swatch.setToolTip(0, f"double-click to change the {colour.role} colour")
        QTreeWidgetItem(page, [f"Headings: {plan.layout.typography.heading}"])
        QTreeWidgetItem(page, [f"Body: {plan.layout.typography.body}"])
        pages = self._page_rows(plan)
        home = plan.site_pages()[0].id
        for section in plan.sections:
            # a multi-page plan: each section under its page, the shared header / footer on top
            shared = plan.is_shared(section)
            parent = self if shared else pages.get(section.page or home, self)
            row = self._row(parent, section.id, f"{section.kind} · {section.title or section.id}")
            row.setData(0, EDIT_ROLE, f"section-title:{section.id}")
            measured = section_score(report, section.id, section.element_ids)
            self._badge(row, report, section.id, measured)
            for element_id in section.element_ids:
                element = plan.element(element_id)
                child = self._row(row, element.id, _element_label(element))
                score = scores.get(element.id)
                self._badge(child, report, element.id, score.score if score else None)
                edit = ("chart-title:" if element.kind == "chart" else "subject:") + element.id
                child.setData(0, EDIT_ROLE, edit)
                if element.kind == "chart":
                    title = QTreeWidgetItem(child, [f"title: {element.title or '(none)'}"])
                    title.setData(0, EDIT_ROLE, f"chart-title:{element.id}")
                QTreeWidgetItem(child, [f"role: {element.context.role}"])
                QTreeWidgetItem(child, [f"file: {element.save_path}"])
                prompt = QTreeWidgetItem(child, [f"prompt: {element.prompt[:120]}"])
                if element.kind != "chart":
                    prompt.setData(0, EDIT_ROLE, f"subject:{element.id}")
                    prompt.setToolTip(0, f"double-click to change the subject of {element.id}")
        self.expandToDepth(0)
        self.show_running(self._running)

    def _page_rows(self, plan: DesignPlan) -> dict[str, QTreeWidgetItem]:
        """A multi-page plan's page rows (key: the page id), which hold their sections; a
        one-page plan has none (its sections sit at the top level)."""
        rows: dict[str, QTreeWidgetItem] = {}
        for page in plan.site_pages() if plan.multi_page else []:
            row = QTreeWidgetItem(self, [f"Page · {page.title} ({page.path})", ""])
            row.setData(0, PAGE_ROLE, page.path)
            row.setToolTip(0, f"{page.path}: select it to show the page in the preview")
            rows[page.id] = row
        return rows

    def show_report_elements(self, report: Report) -> None:
        """Site-folder mode (no plan): the elements the evaluation discovered, with badges."""
        self.clear()
        self.plan = None
        page = QTreeWidgetItem(self, ["Page (no plan: evaluated as found)"])
        for element in report.elements:
            row = self._row(page, element.id, f"{element.kind} · {element.id}")
            self._badge(row, report, element.id, element.score)
            QTreeWidgetItem(row, [f"file: {element.path}"])
        self.expandToDepth(0)
        self.show_running(self._running)

    def _badge(self, row: QTreeWidgetItem, report, item_id: str, measured) -> None:
        score, issues, tip = row_badge(report, item_id, measured)
        row.setData(1, SCORE_ROLE, score)
        row.setData(1, ISSUES_ROLE, issues)
        row.setToolTip(1, tip)

    def _row(self, parent, item_id: str, label: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent, [label, ""])
        item.setData(1, ID_ROLE, item_id)
        item.setData(0, ID_ROLE, item_id)
        item.setToolTip(0, item_id)
        self._items[item_id] = item
        return item

    def show_running(self, element_ids: set[str]) -> None:
        """Spin the badges of ``element_ids`` (the elements jobs are working on); stop the rest."""
        self._running = set(element_ids)
        for item_id, item in self._items.items():
            item.setData(1, RUNNING_ROLE, item_id in self._running)
        if self._running & self._items.keys():
            self._spinner.start()
        else:
            self._spinner.stop()

    def _spin(self) -> None:
        self.spin_angle = (self.spin_angle + 30) % 360
        self.viewport().update()

    def show_flags(self, flagged: set[str]) -> None:
        """Mark flagged rows with a flag (and unmark the rest)."""
        for item_id, item in self._items.items():
            label = item.text(0).removeprefix("⚑ ")
            item.setText(0, f"⚑ {label}" if item_id in flagged else label)

    def select(self, item_id: str) -> None:
        """Select the row of a section or element id (from a click in the preview)."""
        item = self._items.get(item_id)
        if item is not None and not item.isSelected():
            self.setCurrentItem(item)

    def select_page(self) -> None:
        """Select the page row (the page's own issues)."""
        page = self.topLevelItem(0) if self.topLevelItemCount() else None
        if page is not None and page.data(0, ID_ROLE) is None:
            self.setCurrentItem(page)

    # -- editing the plan --------------------------------------------------------------------
    def ask_text(self, title: str, label: str, value: str) -> str | None:
        """The designer's words for an edit (None: cancelled). A dialog (several lines for a
        subject, one for a title); tests replace it."""
        if title == "Edit subject":
            text, ok = QInputDialog.getMultiLineText(self, title, label, value)
        else:
            text, ok = QInputDialog.getText(self, title, label, text=value)
        return text if ok else None

    def ask_colour(self, hex_colour: str, role: str) -> str | None:
        """The designer's colour for palette ``role`` as ``#rrggbb`` (None: cancelled)."""
        colour = QColorDialog.getColor(QColor(hex_colour), self, f"The {role} colour")
        return colour.name() if colour.isValid() else None

    def edit_actions(self, item: QTreeWidgetItem) -> list[tuple[str, object]]:
        """The context menu's edits for ``item``: (label, callback) pairs, or (label, list of
        (label, callback)) for a submenu ("Chart type ▸"); empty for a row nothing edits."""
        edit = _edit_of(item)
        if edit is None or self.plan is None:
            return []
        what, item_id = edit
        if what == "colour":
            return [(f"Change the {item_id} colour…", lambda: self.edit_item(item))]
        if what == "section-title":
            ids = [s.id for s in self.plan.sections]
            actions: list[tuple[str, object]] = [("Edit title…", lambda: self.edit_item(item))]
            if ids.index(item_id) > 0:
                actions.append(("Move up", lambda: self.move_section(item_id, -1)))
            if ids.index(item_id) < len(ids) - 1:
                actions.append(("Move down", lambda: self.move_section(item_id, 1)))
            return actions
        try:
            element = self.plan.element(item_id)
        except KeyError:
            return []
        if element.kind != "chart":
            return [("Edit subject…", lambda: self.edit_item(item))]
        current = element.attributes.chart_type
        types = [
            (("✓ " if t == current else "") + t, lambda t=t: self._chart_type(item_id, t))
            for t in CHART_TYPES
        ]
        return [("Edit title…", lambda: self.edit_item(item)), ("Chart type", types)]

    def edit_item(self, item: QTreeWidgetItem) -> bool:
        """Ask for the new value of what ``item`` edits and emit :attr:`edit_requested`;
        returns whether an edit was requested (False: cancelled, unchanged, not editable)."""
        edit = _edit_of(item)
        if edit is None or self.plan is None:
            return False
        what, item_id = edit
        if what == "colour":
            old = self.plan.layout.color(item_id) or "#000000"
            hex_colour = self.ask_colour(old, item_id)
            if not hex_colour or hex_colour.lower() == old.lower():
                return False
            self.edit_requested.emit("palette", item_id, {item_id: hex_colour})
            return True
        if what == "section-title":
            section = next(s for s in self.plan.sections if s.id == item_id)
            title = self.ask_text("Edit title", f"Title of the section {item_id}:", section.title)
            if title is None or not title.strip() or title.strip() == section.title:
                return False
            self.edit_requested.emit("section", item_id, {"title": title.strip()})
            return True
        element = self.plan.element(item_id)
        if what == "chart-title":
            title = self.ask_text("Edit title", f"Title of the chart {item_id}:", element.title)
            if title is None or not title.strip() or title.strip() == element.title:
                return False
            self.edit_requested.emit("element", item_id, {"title": title.strip()})
            return True
        label = f"What {item_id} shows (its {element.kind} is made again):"
        subject = self.ask_text("Edit subject", label, element.prompt)
        if subject is None or not subject.strip() or subject.strip() == element.prompt:
            return False
        subject = subject.strip()
        self.edit_requested.emit("element", item_id, {"prompt": subject, "alt": subject[:400]})
        return True

    def move_section(self, section_id: str, by: int) -> None:
        """Ask for the sections in a new order: ``section_id`` moved ``by`` places (−1 up)."""
        if self.plan is None:
            return
        ids = moved_order(self.plan, section_id, by)
        if ids != [s.id for s in self.plan.sections]:
            self.edit_requested.emit("order", section_id, {"order": ids})

    def _chart_type(self, item_id: str, chart_type: str) -> None:
        element = self.plan.element(item_id) if self.plan is not None else None
        if element is not None and element.attributes.chart_type != chart_type:
            self.edit_requested.emit("element", item_id, {"chart_type": chart_type})

    def _double_clicked(self, item: QTreeWidgetItem) -> None:
        if item.data(0, EDIT_ROLE):
            self.edit_item(item)

    def _context_menu(self, at: QPoint) -> None:
        item = self.itemAt(at)
        actions = self.edit_actions(item) if item is not None else []
        if not actions:
            return
        menu = self.context_menu(actions)
        menu.exec(self.viewport().mapToGlobal(at))

    def context_menu(self, actions: list[tuple[str, object]]) -> QMenu:
        """A QMenu of :meth:`edit_actions` (a list becomes a submenu)."""
        menu = QMenu(self)
        for label, action in actions:
            if isinstance(action, list):
                sub = menu.addMenu(label)
                for sub_label, callback in action:
                    sub.addAction(sub_label).triggered.connect(lambda _=False, c=callback: c())
            else:
                menu.addAction(label).triggered.connect(lambda _=False, c=action: c())
        return menu

    def _selection_changed(self) -> None:
        items = self.selectedItems()
        if not items:
            return
        item = items[0]
        if item.data(0, PAGE_ROLE):
            self.site_page_selected.emit(item.data(0, PAGE_ROLE))
        while item is not None and not item.data(0, ID_ROLE):  # a detail row: its owner
            item = item.parent()
        if item is None:
            self.page_selected.emit()
        else:
            self.element_selected.emit(item.data(0, ID_ROLE))


def _edit_of(item: QTreeWidgetItem) -> tuple[str, str] | None:
    """(what, id) a row edits — plain strings in the item (a Python tuple in a QVariant is not
    safe across selection changes) — or None."""
    edit = item.data(0, EDIT_ROLE)
    if not isinstance(edit, str) or ":" not in edit:
        return None
    what, _, item_id = edit.partition(":")
    return what, item_id


def _element_label(element) -> str:
    """ "image · hero_photo", "chart (bar) · sales" — a chart's type as the plan has it now."""
    if element.kind == "chart":
        return f"chart ({element.attributes.chart_type}) · {element.id}"
    return f"{element.kind} · {element.id}"


def _dark(hex_colour: str) -> bool:
    colour = QColor(hex_colour)
    return colour.lightnessF() < 0.5


def _brief_tip(report: Report) -> str:
    """What the brief pill means, in words."""
    checked = [r for r in report.requirements if r.status != "unchecked"]
    if not report.requirements:
        return "no brief: the page was not checked against a prompt"
    passed = sum(r.status == "pass" for r in checked)
    unchecked = len(report.requirements) - len(checked)
    return (
        f"the brief: {passed} of {len(checked)} checked requirements met; "
        f"{unchecked} could not be checked"
    )


class BadgeBar(QWidget):
    """Page-level pills: overall, the six dimensions and the brief (the share of the brief's
    checked requirements the page meets); grey when absent or not evaluated."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.pills: dict[str, QLabel] = {}
        for name in ("overall", *DIMENSIONS, "brief"):
            pill = QLabel(self)
            pill.setObjectName("badge")
            self.pills[name] = pill
            layout.addWidget(pill)
        layout.addStretch(1)
        self.show_report(None)

    def bind(self, state) -> None:
        """Follow a :class:`~mmstudio.studio.state.StudioState`'s report."""
        state.subscribe(lambda s, change: change.touches("project", "report") and
                        self.show_report(s.report))  # fmt: skip

    def show_report(self, report: Report | None) -> None:
        """The pills of ``report`` (None: not evaluated): a dimension nothing measured reads
        "not judged", never a score."""
        scores = report.scores.model_dump() if report else {}
        scores["brief"] = report.requirement_share if report else None
        for name, pill in self.pills.items():
            value = scores.get(name)
            if value is not None:
                pill.setText(f"{name} {value:.2f}")
                tip = f"{name}: {value:.2f} (0–1)"
            elif report is None:
                pill.setText(f"{name} –")
                tip = "not evaluated"
            else:
                pill.setText(f"{name} not judged")
                tip = (
                    f"not judged: nothing on this page was measured for {name}"
                    if name != "brief"
                    else "not judged: none of the brief's requirements could be checked"
                )
            if name == "brief" and report is not None:
                tip = _brief_tip(report)
            pill.setToolTip(tip)
            pill.setStyleSheet(
                f"background:{badge_colour(value).name()}; color:white; border-radius:9px;"
                "padding:2px 10px; font-weight:600;"
            )
