"""Problems dock, in two groups.

*Load problems*: files the core could not load, left untouched (path, kind, message), and the
skills with problems: what the Library's Flags ▸ Has problems filter finds (a see-also naming no
skill or the skill itself, a problem file claiming the name).

*Lint*: what ``rockskills lint`` reports beyond the load problems (severity, skill, kind,
message), computed off the UI thread a moment after the library last changed (the window counts
it in the status bar, and shows the dock for warnings). A library of more than :data:`LINT_LARGE`
skills is linted only while the dock is shown (a hidden dock costs nothing; it catches up when
shown); over :data:`LINT_AUTO_MAX` skills, on request only.

Double-click (or Enter) shows a file as it is on disk, read-only; nothing here is ever written.
On a skill, or a lint finding about a skill, it opens the skill.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTabBar,
    QTreeView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import Facts, problems_by_name
from rockskills_gui.core.model.names import fold
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.models import ProblemsModel
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.library.lint_rows import (
    SEVERITY_FILTERS,
    LintModel,
    lint_findings,
    lint_summary,
)

if TYPE_CHECKING:
    from rockskills_gui.core.lint.linter import Finding  # numpy: imported by the lint worker
    from rockskills_gui.ui.library.tree_dialogs import RawFileDialog  # (when first shown)

LOAD_GROUP, LINT_GROUP = 0, 1
LINT_DEBOUNCE_MS = 400  # lint waits for a pause in changes (a typing burst of saves runs it once)
LINT_DEBOUNCE_LARGE_MS = 1500
LINT_LARGE = 5_000  # skills from which lint waits longer (about 0.15 ms a skill on 2 CPUs)
LINT_AUTO_MAX = 20_000  # above this, lint runs only when asked (about 3.5 s at 20,000 skills)


def skill_problems(library: Library | None) -> list[tuple[str, str]]:
    """``(name, reasons)`` of every skill the tree's "Has problems" filter lists (same facts)."""
    if library is None:
        return []
    skills = library.skills()
    known = {fold(skill.name) for skill in skills}
    facts = Facts(now=library.clock(), file_problems=problems_by_name(library.problems),
                  exists=lambda name: fold(name) in known)
    found = []
    for skill in skills:
        reasons = facts.problems(skill)
        if reasons:
            found.append((skill.name, "; ".join(reasons)))
    return sorted(found, key=lambda row: fold(row[0]))


class ProblemsPane(QWidget):
    """Two groups: load problems (``ctx.library.problems`` and the skills with problems) and
    lint findings; each with a short empty state.

    Signals:
        openSkillRequested(str): a skill row was activated (it is already the current skill).
        lintFinished(): new lint findings are shown (or lint failed; see :attr:`lint_status`).
    """

    openSkillRequested = Signal(str)
    lintFinished = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("problemsPane")
        self.ctx = ctx
        self.groups = QTabBar(self)
        self.groups.setObjectName("problemsGroups")
        self.groups.setAccessibleName("Problem group")
        self.groups.setDocumentMode(True)
        self.groups.setDrawBase(False)
        self.groups.setExpanding(False)
        self.groups.addTab("Load problems")
        self.groups.addTab("Lint")
        self.groups.setTabToolTip(LOAD_GROUP, "Files that could not be loaded, and skills with "
                                              "problems (Library ▸ Flags ▸ Has problems)")
        self.groups.setTabToolTip(LINT_GROUP, "What 'rockskills lint' reports: the format's rules, "
                                              "names, summaries, see-also, near-duplicates, content")
        self.severity = QComboBox(self)
        self.severity.setObjectName("lintSeverity")
        self.severity.setAccessibleName("Lint severity filter")
        for label, _shown in SEVERITY_FILTERS:
            self.severity.addItem(label)
        self.severity.currentIndexChanged.connect(self._show_lint)
        self.lint_status = _label(self, "lintStatus")
        self.lint_button = QPushButton("Run Lint", self)
        self.lint_button.setObjectName("lintRun")
        self.lint_button.setToolTip("Lint the library now (large libraries are not linted "
                                    "after every change)")
        self.lint_button.clicked.connect(lambda: self.request_lint(now=True, asked=True))
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 4, 0)
        bar.addWidget(self.groups)
        bar.addStretch(1)
        bar.addWidget(self.lint_status)
        bar.addWidget(self.severity)
        bar.addWidget(self.lint_button)

        self.model = ProblemsModel(self)
        self.view = QTreeView(self)
        self.view.setObjectName("problemsView")
        self.view.setModel(self.model)
        _table(self.view)
        self.skills_view = QTreeWidget(self)
        self.skills_view.setObjectName("skillProblemsView")
        self.skills_view.setHeaderLabels(["Skill", "Problem"])
        self.skills_view.setRootIsDecorated(False)
        self.skills_view.setAlternatingRowColors(True)
        self.skills_view.setUniformRowHeights(True)
        self.skills_view.setToolTip("Double-click a skill to open it")
        self.skills_view.itemActivated.connect(self._open_skill)
        self.empty_label = _empty_label(self, "problemsEmpty")
        load_page = QWidget(self)
        load_layout = QVBoxLayout(load_page)
        load_layout.setContentsMargins(0, 0, 0, 0)
        load_layout.addWidget(self.view)
        load_layout.addWidget(self.skills_view)
        load_layout.addWidget(self.empty_label, 1)
        self.view.setToolTip("Double-click a file to see it as it is on disk (read-only)")
        self.view.activated.connect(self.open_raw)

        self.lint_model = LintModel(self)
        self.lint_view = QTreeView(self)
        self.lint_view.setObjectName("lintView")
        self.lint_view.setModel(self.lint_model)
        _table(self.lint_view)
        self.lint_view.header().setSortIndicator(LintModel.SEVERITY, Qt.SortOrder.AscendingOrder)
        self.lint_view.setSortingEnabled(True)
        self.lint_view.setToolTip("Double-click a finding to open its skill")
        self.lint_view.activated.connect(self.open_finding)
        self.lint_empty = _empty_label(self, "lintEmpty")
        lint_page = QWidget(self)
        lint_layout = QVBoxLayout(lint_page)
        lint_layout.setContentsMargins(0, 0, 0, 0)
        lint_layout.addWidget(self.lint_view)
        lint_layout.addWidget(self.lint_empty, 1)

        self.pages = QStackedWidget(self)
        self.pages.addWidget(load_page)
        self.pages.addWidget(lint_page)
        self.groups.currentChanged.connect(self._show_group)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.pages, 1)
        self._skill_rows: list[tuple[str, str]] = []
        self.viewer: RawFileDialog | None = None
        self.findings: list[Finding] = []  # every lint finding (the severity filter hides some)
        self._lint_stale = True
        self._lint_error = ""
        self.linter = ctx.channel(self, "lint")  # (ctx.query: newest request wins)
        self.linter.busyChanged.connect(lambda _busy: self._update_lint_status())
        ctx.libraryChanged.connect(self._on_library_changed)
        ctx.changeApplied.connect(lambda _change: self._on_change())
        self.refresh(ctx.library)
        self._show_group(LOAD_GROUP)
        self._show_lint()

    # ---------------------------------------------------------------- load problems

    def refresh(self, library: Library | None = None,
                rows: list[tuple[str, str]] | None = None) -> None:
        """Show ``library``'s problems (``rows``: its :func:`skill_problems`, if already made)."""
        self.model.set_problems(library.problems if library is not None else [])
        self.view.resizeColumnToContents(0)
        self.view.resizeColumnToContents(1)
        self._skill_rows = rows if rows is not None else skill_problems(library)
        self.skills_view.clear()
        for name, reasons in self._skill_rows:
            item = QTreeWidgetItem(self.skills_view, [name, reasons])
            item.setToolTip(1, reasons)
        self.skills_view.resizeColumnToContents(0)
        files, skills = self.count(), self.skill_count()
        self.view.setVisible(files > 0)
        self.skills_view.setVisible(skills > 0)
        self.empty_label.setVisible(not files and not skills)
        self.empty_label.setText(
            "No library open." if library is None else
            "No problems: every file loaded and every see-also names a skill.")
        self.groups.setTabText(LOAD_GROUP, f"Load problems ({files + skills})" if files + skills
                               else "Load problems")

    def _on_library_changed(self, library: Library | None) -> None:
        self.linter.cancel()
        self.findings = []
        self._lint_error = ""
        # Made on the loader's worker (0.3-0.5 s at 100,000 skills: a frozen UI on this thread).
        prepared = self.ctx.prepared.get("skill_problems") if library is not None else None
        self.refresh(library, prepared if isinstance(prepared, list) else None)
        self._show_lint()
        self.request_lint()

    def _on_change(self) -> None:
        self.refresh(self.ctx.library)
        self.request_lint()

    def _show_group(self, group: int) -> None:
        self.pages.setCurrentIndex(group)
        lint = group == LINT_GROUP
        self.severity.setVisible(lint)
        self.lint_status.setVisible(lint)
        self._update_lint_status()

    # ---------------------------------------------------------------- lint

    def request_lint(self, now: bool = False, asked: bool = False) -> None:
        """Lint the open library off the UI thread, after a pause in changes; only while the dock
        is shown (else when it is next shown). Large libraries wait for ``asked``."""
        library = self.ctx.library
        self._lint_stale = True
        if library is None:
            self.linter.cancel()
            self._update_lint_status()
            return
        hidden_large = not self.isVisible() and len(library) > LINT_LARGE
        if not asked and (hidden_large or len(library) > LINT_AUTO_MAX):
            self._update_lint_status()
            return
        self._lint_stale = False
        pause = LINT_DEBOUNCE_LARGE_MS if len(library) > LINT_LARGE else LINT_DEBOUNCE_MS
        self.ctx.query(self, "lint", lambda _control: lint_findings(library), self._on_lint,
                       failure=self._on_lint_failed, delay_ms=0 if now else pause)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._lint_stale:
            self.request_lint()

    def _on_lint(self, findings: list[Finding]) -> None:
        self.findings = findings
        self._lint_error = ""
        self._show_lint()
        self.lintFinished.emit()

    def _on_lint_failed(self, error: Exception) -> None:
        self._lint_error = f"{type(error).__name__}: {error}"
        self._show_lint()
        self.lintFinished.emit()

    def _show_lint(self) -> None:
        shown = SEVERITY_FILTERS[max(0, self.severity.currentIndex())][1]
        rows = [f for f in self.findings if f.severity in shown]
        self.lint_model.set_rows(rows)
        for column in (LintModel.SEVERITY, LintModel.SKILL, LintModel.KIND):
            self.lint_view.resizeColumnToContents(column)
        self.lint_view.setVisible(bool(rows))
        self.lint_empty.setVisible(not rows)
        total = len(self.findings)
        self.groups.setTabText(LINT_GROUP, f"Lint ({total})" if total else "Lint")
        self.groups.setTabToolTip(LINT_GROUP, f"Lint: {lint_summary(self.findings)}")
        self._update_lint_status()

    def _update_lint_status(self) -> None:
        library = self.ctx.library
        big = library is not None and len(library) > LINT_AUTO_MAX
        self.lint_button.setVisible(self.pages.currentIndex() == LINT_GROUP and big)
        if self.linter.busy:
            status = "Linting…"
        elif self._lint_error:
            status = "Lint failed"
        elif self.findings:
            status = lint_summary(self.findings) + (" (before the last change)"
                                                    if big and self._lint_stale else "")
        else:
            status = ""
        self.lint_status.setText(status)
        self.lint_status.setToolTip(self._lint_error)
        if library is None:
            empty = "No library open."
        elif self._lint_error:
            empty = f"Lint failed: {self._lint_error}"
        elif self.linter.busy or (self._lint_stale and not big):
            empty = "Linting…"
        elif big and self._lint_stale:
            empty = (f"Libraries over {LINT_AUTO_MAX:,} skills are not linted after every "
                     "change: press Run Lint.")
        elif self.findings:
            empty = "Nothing at this severity."
        else:
            empty = "Nothing to report: every lint check passed."
        self.lint_empty.setText(empty)

    def open_finding(self, index: QModelIndex) -> None:
        """Open the skill of a lint finding (its file, read-only, when it names no skill)."""
        finding = self.lint_model.finding_at(index.row()) if index.isValid() else None
        library = self.ctx.library
        if finding is None or library is None:
            return
        if finding.name and self.ctx.select_skill(finding.name):
            self.openSkillRequested.emit(finding.name)
            return
        self._show_raw(library.agent_dir / finding.path, finding.path,
                       f"{finding.kind}: {finding.message}")

    def lint_counts(self) -> dict[str, int]:
        """How many lint findings of each severity were found (the filter aside)."""
        counts: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.severity] = counts.get(finding.severity, 0) + 1
        return counts

    def show_lint_group(self) -> None:
        self.groups.setCurrentIndex(LINT_GROUP)

    def count(self) -> int:
        """Files that could not be loaded (or loaded with a warning)."""
        return self.model.rowCount()

    def skill_count(self) -> int:
        """Skills with problems: what the Library's Flags ▸ Has problems filter lists."""
        return len(self._skill_rows)

    def skill_rows(self) -> list[tuple[str, str]]:
        return list(self._skill_rows)

    def _open_skill(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        name = item.text(0)
        if self.ctx.select_skill(name):
            self.openSkillRequested.emit(name)

    def open_raw(self, index: QModelIndex) -> RawFileDialog | None:
        """Show the problem file of ``index``'s row read-only (a non-modal viewer)."""
        library = self.ctx.library
        problem = self.model.problem_at(index.row()) if index.isValid() else None
        if library is None or problem is None:
            return None
        return self._show_raw(library.agent_dir / problem.path, problem.path,
                              f"{problem.kind.value}: {problem.message}")

    def _show_raw(self, path: Path, shown: str, reason: str) -> RawFileDialog:
        from rockskills_gui.ui.library.tree_dialogs import RawFileDialog

        viewer = RawFileDialog(path, shown, reason, self)
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        viewer.destroyed.connect(lambda: setattr(self, "viewer", None))
        self.viewer = viewer
        viewer.show()
        return viewer


def _table(view: QTreeView) -> None:
    """A flat, read-only table in a tree view (the dock's look)."""
    view.setRootIsDecorated(False)
    view.setAlternatingRowColors(True)
    view.setUniformRowHeights(True)
    view.setWordWrap(False)
    header = view.header()
    header.setStretchLastSection(True)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)


def _label(parent: QWidget, name: str) -> QLabel:
    """A secondary (de-emphasised) label."""
    label = QLabel(parent)
    secondary(label)
    label.setObjectName(name)
    return label


def _empty_label(parent: QWidget, name: str) -> QLabel:
    label = _label(parent, name)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    return label
