"""The Recall tab's trigger evals: which skill the model picks when the agent lists its skills in
the prompt (Claude Code, Codex, Gemini CLI, ...), row by row of the field's trigger-eval files.

- **Rows**: a skill's own file is found when the skill is selected (``<skill>/evals/
  trigger-evals.json``; RockBot's beside the query sets), or opened from anywhere (Open…); rows
  are edited here (query, should trigger) and kept as a draft per skill until Save writes them
  (one undoable change in a SKILL.md library). "All skills with a file" runs every file at once.
- **Run** against the endpoint of Preferences (the key from the keyring, never written): the
  agent's listing in the system prompt and its activation tool, N runs per query, a threshold,
  requests at a time; the estimate shows before anything is sent; progress and Cancel (what
  finished is kept). The engine is :mod:`rockskills_gui.core.evals`.
- **Results**: per row the trigger rate and pass/fail, per skill precision and recall, the
  confusion view; snapshots compared with the last run; the description what-if (the editor's
  unsaved descriptions: only the rows whose request changes are asked again,
  :mod:`~rockskills_gui.core.evals.what_if`).

Parts: :class:`~.trigger_rows.TriggerRowsModel` (the rows), :class:`~.trigger_results.
TriggerResults` (skills, confusion, problems), :class:`~.trigger_runs.TriggerRuns` (estimate
and runs through ``ctx.query``), :class:`~.trigger_snapshots.TriggerSnapshots`.

Signals:
    openSkillRequested(str): the user opened a skill (a confusion row).
    finished(): a run's results are on screen.
    scanned(): the library's trigger-eval files were read.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.budget.entries import entries_of
from rockskills_gui.core.budget.report import agents_for
from rockskills_gui.core.evals import snapshots
from rockskills_gui.core.evals.presentation import TOOLS, showing_of
from rockskills_gui.core.evals.report import RowResult, TriggerReport
from rockskills_gui.core.evals.run import DEFAULT_CONCURRENCY, DEFAULT_RUNS, DEFAULT_THRESHOLD, EvalOptions
from rockskills_gui.core.evals.skill_files import (
    FoundSets,
    candidates,
    home_file,
    read_found,
    save_rows,
    write_rows,
)
from rockskills_gui.core.evals.trigger_file import (
    TriggerEvalSet,
    TriggerFileError,
    TriggerRow,
    read_trigger_file,
    skill_of_file,
)
from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.columns import ColumnFitter
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import OperationResult
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.recall.trigger_results import TriggerResults
from rockskills_gui.ui.recall.trigger_rows import QUERY_ROLE, RowItem, TriggerRowsModel
from rockskills_gui.ui.recall.trigger_runs import Guess, Outcome, RunInputs, TriggerRuns
from rockskills_gui.ui.recall.trigger_snapshots import TriggerSnapshots

ALL = "\x00all"  # the source that runs every skill's file at once
OWN_TOOL = ""  # the agent's own activation tool
SAVED_LABEL = "saved descriptions"  # what the "vs" column compares with after a what-if
SCAN_DELAY_MS = 300
RESULTS_MIN = 340  # pixels the results (scores, confusion) keep: their names stay readable
Key = tuple[str, str]  # (skill, query)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


class TriggerEvalPanel(QWidget):
    """Trigger-eval files of the open library: edit, run, compare (see the module doc)."""

    openSkillRequested = Signal(str)
    finished = Signal()
    scanned = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("triggerEvalPanel")
        self.ctx = ctx
        self.found: dict[str, TriggerEvalSet] = {}  # each skill's own file, by folded name
        self.problems: tuple[str, ...] = ()  # own files that could not be read
        self.drafts: dict[str, tuple[TriggerRow, ...]] = {}  # unsaved rows, by skill (its spelling)
        self.opened: dict[str, Path] = {}  # the file a draft was opened from
        # the drafts of each library opened before (by folder): opening it again brings them back
        self.kept: dict[Path, tuple[dict[str, tuple[TriggerRow, ...]], dict[str, Path]]] = {}
        self._library_dir: Path | None = None
        self.source = ""  # a skill's name, ALL, or "" (nothing to show)
        self._all_chosen = False  # the user chose ALL: selecting a skill does not leave it
        self.outcome: Outcome | None = None
        self.diffs: dict[Key, snapshots.RowDiff] = {}
        self.versus_label = ""
        self.guess: Guess | None = None
        self.last_message = ""
        self.edits_provider: Callable[[], list[Skill]] = list
        self._filling = False
        self.runs = TriggerRuns(ctx, self)
        self._build()
        self.runs.estimated.connect(self._on_estimated)
        self.runs.progressed.connect(self._on_progress)
        self.runs.finished.connect(self._on_finished)
        self.runs.failed.connect(self._fail)
        self.runs.busyChanged.connect(lambda _busy: self._update_enabled())
        self.snaps = TriggerSnapshots(self.snapshot_box, self._fail)
        self._scans = ctx.channel(self, "scan")
        ctx.libraryChanged.connect(self._on_library)
        ctx.changeApplied.connect(self._on_change)
        ctx.currentSkillChanged.connect(self.follow_skill)
        ctx.preferencesChanged.connect(lambda _changed: self._refresh_estimate())
        ctx.dirtyChanged.connect(lambda _name: self._refresh_estimate())
        self._on_library(ctx.library)

    # ---------------------------------------------------------------- layout

    def _build(self) -> None:
        self.source_box = QComboBox(self)
        self.source_box.setObjectName("triggerSource")
        self.source_box.setAccessibleName("Trigger evals of")
        self.source_box.setMinimumContentsLength(18)
        self.source_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.source_box.activated.connect(self._on_source_chosen)
        self.open_button = self._button("Open…", "triggerOpen",
                                        "Open a trigger-eval file ([{\"query\", \"should_trigger\"}]) "
                                        "for the skill whose evals/ folder holds it, or the one shown")
        self.open_button.clicked.connect(self._choose_file)
        self.save_button = self._button("Save", "triggerSave",
                                        "Write these rows as the skill's trigger-eval file (in a "
                                        "SKILL.md skill's evals/ folder: undoable with Edit ▸ Undo)")
        self.save_button.clicked.connect(lambda: self.save())
        self.revert_button = self._button("Revert", "triggerRevert", "Drop the unsaved rows")
        self.revert_button.clicked.connect(self.revert)
        self.export_button = self._button("Export…", "triggerExport",
                                          "Write these rows in the field's format to a file of your "
                                          "choice")
        self.export_button.clicked.connect(self._choose_export)

        self.agent_box = QComboBox(self)
        self.agent_box.setObjectName("triggerAgent")
        self.agent_box.setAccessibleName("Listing of")
        self.agent_box.setToolTip("Whose listing the model is shown: exactly the Budget tab's text "
                                  "for this agent, under the same limits")
        self.agent_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.agent_box.currentIndexChanged.connect(lambda _i: self._settings_changed())
        self.tool_box = QComboBox(self)
        self.tool_box.setObjectName("triggerTool")
        self.tool_box.setAccessibleName("Activation tool")
        self.tool_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.tool_box.addItem("the agent's own", OWN_TOOL)
        for name, tool in TOOLS.items():
            self.tool_box.addItem(f"{name} ({tool.agent})", name)
        self.tool_box.setToolTip("The tool the model calls to activate a skill")
        self.tool_box.currentIndexChanged.connect(lambda _i: self._settings_changed())
        self.runs_box = QSpinBox(self)
        self.runs_box.setObjectName("triggerRuns")
        self.runs_box.setAccessibleName("Runs per query")
        self.runs_box.setRange(1, 50)
        self.runs_box.setValue(DEFAULT_RUNS)
        self.runs_box.setToolTip("Runs per query: the trigger rate is the share that activate the skill")
        self.threshold_box = QDoubleSpinBox(self)
        self.threshold_box.setObjectName("triggerThreshold")
        self.threshold_box.setAccessibleName("Threshold")
        self.threshold_box.setRange(0.0, 1.0)
        self.threshold_box.setSingleStep(0.05)
        self.threshold_box.setDecimals(2)
        self.threshold_box.setValue(DEFAULT_THRESHOLD)
        self.threshold_box.setToolTip("A row that should trigger passes at this rate or more; a near "
                                      "miss only below it")
        self.concurrency_box = QSpinBox(self)
        self.concurrency_box.setObjectName("triggerConcurrency")
        self.concurrency_box.setAccessibleName("Requests at a time")
        self.concurrency_box.setRange(1, 64)
        self.concurrency_box.setValue(DEFAULT_CONCURRENCY)
        self.concurrency_box.setToolTip("Requests sent at a time")
        for box in (self.runs_box, self.threshold_box, self.concurrency_box):
            box.valueChanged.connect(lambda _v: self._settings_changed())

        self.run_button = self._button("Run", "triggerRun", "Send every row's runs (cached ones are "
                                                            "not sent again)")
        self.run_button.clicked.connect(lambda: self.run())
        self.what_if_button = self._button("With unsaved edits", "triggerWhatIf",
                                           "Description what-if: run the rows with the editor's "
                                           "unsaved descriptions in the listing (only the rows whose "
                                           "request changes are asked again) and compare")
        self.what_if_button.clicked.connect(lambda: self.run(what_if=True))
        self.cancel_button = self._button("Cancel", "triggerCancel",
                                          "Stop: the requests in flight are dropped, what finished "
                                          "is kept")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("triggerProgress")
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.estimate_label = secondary(QLabel(self))
        self.estimate_label.setObjectName("triggerEstimate")
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.summary = QLabel(self)
        self.summary.setObjectName("triggerSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = TriggerRowsModel(self)
        self.model.rowsEdited.connect(self._on_rows_edited)
        self.table = QTableView(self)
        self.table.setObjectName("triggerRows")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        remove = QShortcut(QKeySequence.StandardKey.Delete, self.table, lambda: self.remove_rows())
        remove.setContext(Qt.ShortcutContext.WidgetShortcut)
        m = TriggerRowsModel
        # the marks and what fired take what they need (capped); the query takes the rest
        self.columns = ColumnFitter(self.table, order=[m.MARK, m.SHOULD, m.RATE, m.SKILL, m.VERSUS, m.FIRED],
                                    stretch=m.QUERY, caps={m.SKILL: 0.18, m.VERSUS: 0.2, m.FIRED: 0.22},
                                    elide=Qt.TextElideMode.ElideRight)  # a query reads from its start
        self.new_query = QLineEdit(self)
        self.new_query.setObjectName("triggerNewQuery")
        self.new_query.setPlaceholderText("a user message… (Enter adds it)")
        self.new_query.returnPressed.connect(lambda: self.add_row())
        self.new_should = QCheckBox("should trigger", self)
        self.new_should.setObjectName("triggerNewShould")
        self.new_should.setChecked(True)
        self.new_should.setToolTip("Unticked: a near miss, the skill should not be activated")
        self.add_button = self._button("Add row", "triggerAddRow", "Add this query to the rows")
        self.add_button.clicked.connect(lambda: self.add_row())
        self.remove_button = self._button("Remove rows", "triggerRemoveRows",
                                          "Remove the selected rows (Delete)")
        self.remove_button.clicked.connect(lambda: self.remove_rows())
        self.results = TriggerResults(self)
        self.results.describe = self._description
        self.results.openSkillRequested.connect(self.openSkillRequested)

        self.snapshot_box = QComboBox(self)
        self.snapshot_box.setObjectName("triggerSnapshots")
        self.snapshot_box.setAccessibleName("Trigger-eval snapshots")
        self.snapshot_box.setMinimumContentsLength(16)
        self.snapshot_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.snapshot_button = self._button("Save snapshot", "triggerSaveSnapshot",
                                            "Keep the last run's rates to compare with later "
                                            "(recall-tests/trigger-snapshots/)")
        self.snapshot_button.clicked.connect(lambda: self.save_snapshot())
        self.compare_button = self._button("Compare to last run", "triggerCompare",
                                           "Per row: what changed between the chosen snapshot and "
                                           "the last run")
        self.compare_button.clicked.connect(lambda: self.compare_snapshot())
        self.where = secondary(QLabel(self))
        self.where.setObjectName("triggerWhere")
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        source = QHBoxLayout()
        source.addWidget(QLabel("Evals of:", self))
        source.addWidget(self.source_box, 1)
        for button in (self.open_button, self.save_button, self.revert_button, self.export_button):
            source.addWidget(button)
        settings = QHBoxLayout()
        fields: list[tuple[str, QWidget]] = [
            ("Listing:", self.agent_box), ("Tool:", self.tool_box), ("Runs:", self.runs_box),
            ("Threshold:", self.threshold_box), ("At a time:", self.concurrency_box)]
        for title, field in fields:
            settings.addWidget(QLabel(title, self))
            settings.addWidget(field)
            settings.addSpacing(6)
        settings.addStretch(1)
        actions = QHBoxLayout()
        for button in (self.run_button, self.what_if_button, self.cancel_button):
            actions.addWidget(button)
        actions.addWidget(self.progress, 1)
        actions.addWidget(self.estimate_label, 3)

        left = QWidget(self)
        lbox = QVBoxLayout(left)
        lbox.setContentsMargins(0, 0, 0, 0)
        lbox.addWidget(self.summary)
        lbox.addWidget(self.table, 1)
        add = QHBoxLayout()
        add.addWidget(self.new_query, 1)
        add.addWidget(self.new_should)
        add.addWidget(self.add_button)
        add.addWidget(self.remove_button)
        lbox.addLayout(add)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("triggerSplitter")
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.results)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.results.setMinimumWidth(RESULTS_MIN)
        self.splitter.setChildrenCollapsible(False)
        snaps = QHBoxLayout()
        snaps.addWidget(QLabel("Snapshot:", self))
        snaps.addWidget(self.snapshot_box)
        snaps.addWidget(self.snapshot_button)
        snaps.addWidget(self.compare_button)
        snaps.addSpacing(12)
        snaps.addWidget(self.where, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(source)
        layout.addLayout(settings)
        layout.addLayout(actions)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(snaps)

    def _button(self, text: str, name: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setToolTip(tip)
        return button

    # ---------------------------------------------------------------- the library

    def _description(self, name: str) -> str | None:
        library = self.ctx.library
        skill = library.get(name) if library is not None else None
        return skill.summary if skill is not None else None

    def _on_library(self, library: Library | None) -> None:
        self.runs.stop()
        self._scans.cancel()
        if self._library_dir is not None and self.drafts:
            self.kept[self._library_dir] = (self.drafts, self.opened)
        self._library_dir = library.agent_dir if library is not None else None
        drafts, opened = self.kept.pop(library.agent_dir, ({}, {})) if library is not None else ({}, {})
        self.found, self.problems, self.drafts, self.opened = {}, (), drafts, opened
        self.outcome, self.diffs, self.versus_label, self.guess = None, {}, "", None
        self.source, self._all_chosen = "", False
        self._fill_agents(library)
        self.snaps.set_library(library.layout if library is not None else None)
        if library is not None and self.ctx.current_skill:
            self.source = self.ctx.current_skill
        self._show()
        self.rescan(delay_ms=0)

    def _fill_agents(self, library: Library | None) -> None:
        self._filling = True
        try:
            self.agent_box.clear()
            for profile in agents_for(library, "all") if library is not None else []:
                self.agent_box.addItem(profile.label, profile.id)
        finally:
            self._filling = False

    def rescan(self, delay_ms: int = SCAN_DELAY_MS) -> None:
        """Read the library's trigger-eval files again, off the UI thread (where each may be is
        asked of the library here; only the files are read there)."""
        library = self.ctx.library
        if library is None:
            return
        places = [(name, candidates(library, name)) for name in library.names()]
        self.ctx.query(self, "scan", lambda _control: read_found(places), self._on_scanned,
                       delay_ms=delay_ms)

    def _on_scanned(self, found: FoundSets) -> None:
        self.found = {fold(s.skill): s for s in found.sets}
        self.problems = found.problems
        if not self.source and self.found:
            self.source = ALL
        self._show()
        self.scanned.emit()

    def _on_change(self, change: ChangeSet) -> None:
        for old, new in change.renamed:
            if old in self.drafts:
                self.drafts[new] = self.drafts.pop(old)
            if fold(self.source) == fold(old):
                self.source = new
        self.rescan()

    @property
    def busy(self) -> bool:
        """A run, an estimate or a read of the files is under way."""
        return self.runs.busy or self.runs.estimating or self._scans.busy

    def wait(self) -> None:
        """Block until the background work is done (tests and shutdown)."""
        self._scans.wait()
        self.runs.wait()

    # ---------------------------------------------------------------- sources and rows

    def follow_skill(self, name: str) -> None:
        """The skill selected elsewhere: show its rows (unless the user chose all files)."""
        if name and not self._all_chosen and self.ctx.library is not None:
            self.show_source(name)

    def show_source(self, source: str) -> None:
        """Show ``source`` (a skill's name or :data:`ALL`)."""
        self.source = source
        self._all_chosen = source == ALL
        self._show()

    def _on_source_chosen(self, index: int) -> None:
        data = self.source_box.itemData(index)
        if isinstance(data, str):
            self.show_source(data)

    def rows_of(self, skill: str) -> tuple[TriggerRow, ...]:
        """The rows shown for ``skill``: its draft, else its file's."""
        if skill in self.drafts:
            return self.drafts[skill]
        found = self.found.get(fold(skill))
        return found.rows if found is not None else ()

    def sets_shown(self) -> list[TriggerEvalSet]:
        """The sets a run would send: the shown skill's rows, or every file's."""
        if self.source == ALL:
            names = [s.skill for s in self.found.values()]
            names += [n for n in self.drafts if fold(n) not in self.found]
            return [TriggerEvalSet(n, self.rows_of(n)) for n in names if self.rows_of(n)]
        rows = self.rows_of(self.source) if self.source else ()
        return [TriggerEvalSet(self.source, rows)] if rows else []

    def _set_draft(self, rows: Sequence[TriggerRow]) -> None:
        self.drafts[self.source] = tuple(rows)
        self._show()

    def _on_rows_edited(self) -> None:
        if self.source and self.source != ALL:
            self.drafts[self.source] = tuple(self.model.trigger_rows())
            self._fill_sources()
            self._update_enabled()
            self._refresh_estimate()

    def add_row(self, query: str | None = None, should_trigger: bool | None = None) -> bool:
        """Add a row to the shown skill's rows (default: the text and box under the table)."""
        text = (query if query is not None else self.new_query.text()).strip()
        should = self.new_should.isChecked() if should_trigger is None else should_trigger
        if not text or not self.source or self.source == ALL:
            return False
        rows = [r for r in self.rows_of(self.source) if r.query != text]
        self._set_draft([*rows, TriggerRow(text, should)])
        if query is None:
            self.new_query.clear()
        return True

    def remove_rows(self, queries: Sequence[str] | None = None) -> int:
        """Remove the rows of ``queries`` (default: the selected ones); how many went."""
        if not self.source or self.source == ALL:
            return 0
        if queries is None:
            queries = [self.model.index(i.row(), 0).data(QUERY_ROLE)
                       for i in self.table.selectionModel().selectedRows()]
        gone = set(queries)
        rows = self.rows_of(self.source)
        kept = [r for r in rows if r.query not in gone]
        if len(kept) != len(rows):
            self._set_draft(kept)
        return len(rows) - len(kept)

    def revert(self) -> None:
        """Drop the shown skill's unsaved rows."""
        self.drafts.pop(self.source, None)
        self.opened.pop(self.source, None)
        self._show()

    def open_file(self, path: Path, skill: str | None = None) -> bool:
        """Open a trigger-eval file: its rows become the draft of the skill whose folder holds
        it, else of ``skill``, else of the skill shown. Nothing is written until Save."""
        library = self.ctx.library
        if library is None:
            return False
        try:
            rows = read_trigger_file(path)
        except TriggerFileError as exc:
            self._fail(str(exc))
            return False
        target = skill or skill_of_file(path, entries_of(library))
        if target is None and self.source and self.source != ALL:
            target = self.source
        if target is None or library.get(target) is None:
            self._fail(f"{path.name}: which skill is it about? Select the skill first, then open it.")
            return False
        target = library.get(target).name  # type: ignore[union-attr]
        self.drafts[target] = rows
        self.opened[target] = path
        self.show_source(target)
        self.ctx.status(f"Opened {path.name}: {_plural(len(rows), 'row')} for {target}; Save keeps "
                        "them as its trigger-eval file.", 8000)
        return True

    def _choose_file(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, "Open a trigger-eval file", "",
                                                    "Trigger-eval files (*.json);;All files (*)")
        if path:
            self.open_file(Path(path))

    def save(self) -> bool:
        """Write the shown skill's rows as its trigger-eval file (an undoable change in a SKILL.md
        library; beside the query sets for RockBot)."""
        skill = self.source
        rows = self.rows_of(skill) if skill and skill != ALL else ()
        if not rows:
            return False
        return self._write(lambda lib: save_rows(lib, skill, rows), f"Save trigger evals of '{skill}'",
                           TriggerEvalSet(skill, rows))

    def export_to(self, target: Path) -> bool:
        """Write the shown rows in the field's format to ``target`` (into the library: undoable)."""
        sets = self.sets_shown()
        if len(sets) != 1:
            self._fail("Export writes one skill's rows: choose a skill first.")
            return False
        rows = sets[0].rows
        library = self.ctx.library
        shown = library.layout.display_path(target) if library is not None else str(target)
        label = f"Export trigger evals to {shown}"
        return self._write(lambda lib: write_rows(lib, rows, target, label), label)

    def _choose_export(self) -> None:
        library = self.ctx.library
        if library is None or not self.source or self.source == ALL:
            return
        try:
            suggested = str(home_file(library, self.source))
        except TriggerFileError:
            suggested = ""
        path, _filter = QFileDialog.getSaveFileName(self, "Export trigger evals", suggested,
                                                    "Trigger-eval files (*.json)")
        if path:
            self.export_to(Path(path))

    def _write(self, operation: Callable[[Library], ChangeSet | None], label: str,
               saved: TriggerEvalSet | None = None) -> bool:
        """Run a core write through the operation runner (refusals reach the window as every
        operation's do); ``saved``: the skill's draft it wrote (its file's rows from now on,
        until the library's files are read again)."""
        ticket = self.ctx.run(operation, label, long=False)
        if ticket is None:
            return False

        def done(result: OperationResult) -> None:
            if not result.ok:
                self._fail(result.error or f"{label}: cancelled")
                return
            if saved is not None:
                self.drafts.pop(saved.skill, None)
                self.opened.pop(saved.skill, None)
                self.found[fold(saved.skill)] = saved
                self._show()
            self.ctx.status(f"{label}: done" + ("" if result.change is not None
                                                 else " (outside the library's history)"), 6000)
            self.rescan(delay_ms=0)

        if ticket.result is not None:
            done(ticket.result)
            return ticket.result.ok
        ticket.finished.connect(done)
        return True

    # ---------------------------------------------------------------- showing

    def _items(self) -> list[RowItem]:
        results: dict[Key, RowResult] = {}
        if self.outcome is not None:
            results = {(r.skill, r.row.query): r for r in self.outcome.report.rows}
        items = []
        for eval_set in self.sets_shown():
            for row in eval_set.rows:
                key = (eval_set.skill, row.query)
                result = results.get(key)
                if result is not None and result.row != row:
                    result = replace(result, row=row)  # a mark changed since: the runs still hold
                items.append(RowItem(eval_set.skill, row, result, self.diffs.get(key)))
        return items

    def _fill_sources(self) -> None:
        library = self.ctx.library
        names: dict[str, str] = {fold(s.skill): s.skill for s in self.found.values()}
        for name in self.drafts:
            names.setdefault(fold(name), name)
        if self.source and self.source != ALL:
            names.setdefault(fold(self.source), self.source)
        self.source_box.blockSignals(True)
        try:
            self.source_box.clear()
            for _key, name in sorted(names.items()):
                rows = len(self.rows_of(name))
                state = ("no file yet" if fold(name) not in self.found and name not in self.drafts
                         else _plural(rows, "row"))
                if name in self.drafts:
                    state += ", unsaved"
                self.source_box.addItem(f"{name} · {state}", name)
            if self.found:
                self.source_box.addItem(f"All skills with a file ({len(self.found)})", ALL)
            index = self.source_box.findData(self.source)
            self.source_box.setCurrentIndex(index)
            if not names:
                self.source_box.setPlaceholderText(
                    "select a skill, or open a trigger-eval file" if library is not None
                    else "no library open")
        finally:
            self.source_box.blockSignals(False)

    def _show(self) -> None:
        """Rows, results and buttons for the shown source and the last run."""
        self._fill_sources()
        self.model.editable = bool(self.source) and self.source != ALL
        self.table.setColumnHidden(TriggerRowsModel.SKILL, self.source != ALL)
        self.table.setColumnHidden(TriggerRowsModel.VERSUS, not self.diffs)
        self.model.set_items(self._items(), self.versus_label)
        report = self.outcome.report if self.outcome is not None else None
        self.results.show_report(report)
        self._show_summary()
        self._show_where()
        self._update_enabled()
        self._refresh_estimate()

    def _show_summary(self) -> None:
        items = self.model.rows
        library = self.ctx.library
        if library is None:
            self.summary.setText("Open a library to run its trigger evals.")
            return
        if not items:
            what = ("Select a skill in the tree (its evals/trigger-evals.json is found), or open a "
                    "trigger-eval file." if not self.source or self.source == ALL
                    else f"No rows for <b>{html.escape(self.source)}</b> yet: add queries it should "
                         "(and should not) trigger below, or open a file.")
            self.summary.setText(what)
            return
        run = [i for i in items if i.result is not None and i.result.runs]
        passed = sum(1 for i in run if i.result is not None and i.result.passed)
        text = f"{_plural(len(items), 'row')}"
        if run:
            text += f": <b>{passed} pass</b>, <b>{len(run) - passed} fail</b>"
            if len(run) < len(items):
                text += f", {len(items) - len(run)} not run"
        report = self.outcome.report if self.outcome is not None else None
        if report is not None and run:
            text += (f" · {report.requests} requests ({report.cached} cached, {report.sent} sent) in "
                     f"{report.elapsed:.1f} s · {html.escape(report.agent)} listing, tool "
                     f"{html.escape(report.tool)}, model {html.escape(report.model)}")
            if report.aborted:
                text += f" · <b>{html.escape(report.aborted)}</b>: what finished is shown"
        if self.outcome is not None and self.outcome.what_if is not None and run:
            text += "<br>" + html.escape(self.outcome.what_if.why())
        elif self.versus_label and self.diffs:
            changed = [d for d in self.diffs.values() if d.changed]
            regressed = sum(1 for d in changed if d.regressed)
            text += (f"<br>vs {html.escape(self.versus_label)}: {_plural(len(changed), 'row')} changed, "
                     f"{regressed} regressed")
        self.summary.setText(text)

    def _show_where(self) -> None:
        library = self.ctx.library
        if library is None or not self.source or self.source == ALL:
            count = len(self.problems)
            self.where.setText(f"{_plural(count, 'trigger-eval file')} could not be read: "
                               + "; ".join(self.problems[:3]) if count else "")
            return
        try:
            path = home_file(library, self.source)
        except TriggerFileError as exc:
            self.where.setText(str(exc))
            return
        shown = library.layout.display_path(path)
        if self.source in self.opened:
            shown = f"opened from {self.opened[self.source]}; Save writes {shown}"
        self.where.setText(f"File: {shown}")
        self.where.setToolTip(str(path))

    def _update_enabled(self) -> None:
        library = self.ctx.library
        running = self.runs.busy
        one = bool(self.source) and self.source != ALL
        has_rows = bool(self.sets_shown())
        ready = library is not None and has_rows and bool(self.ctx.prefs.model) and not running
        self.source_box.setEnabled(library is not None)
        self.open_button.setEnabled(library is not None)
        self.save_button.setEnabled(one and self.source in self.drafts and bool(self.rows_of(self.source)))
        self.revert_button.setEnabled(one and self.source in self.drafts)
        self.export_button.setEnabled(one and bool(self.rows_of(self.source)))
        adding: list[QWidget] = [self.new_query, self.new_should, self.add_button]
        for part in adding:
            part.setEnabled(one)
        self.remove_button.setEnabled(one and bool(self.model.rows))
        self.run_button.setEnabled(ready)
        self.what_if_button.setEnabled(ready and bool(self.edits_provider()))
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        has_report = self.outcome is not None
        self.snapshot_button.setEnabled(has_report and library is not None)
        self.compare_button.setEnabled(has_report and self.snapshot_box.count() > 0)
        settings: list[QWidget] = [self.agent_box, self.tool_box, self.runs_box, self.threshold_box,
                                   self.concurrency_box]
        for widget in settings:
            widget.setEnabled(library is not None and not running)

    # ---------------------------------------------------------------- runs

    def options(self) -> EvalOptions:
        return EvalOptions(runs=self.runs_box.value(), threshold=round(self.threshold_box.value(), 4),
                           concurrency=self.concurrency_box.value())

    def inputs(self, what_if: bool = False) -> RunInputs | None:
        """What a run of the shown rows sends (``what_if``: with the editor's unsaved skills)."""
        library = self.ctx.library
        sets = self.sets_shown()
        prefs = self.ctx.prefs
        if library is None or not sets or not prefs.model:
            return None
        agent = self.agent_box.currentData()
        tool = self.tool_box.currentData() or None
        try:
            showing = showing_of(library, agent if isinstance(agent, str) else None, tool)
        except ValueError as exc:
            self._fail(str(exc))
            return None
        edits = tuple(self.edits_provider()) if what_if else ()
        return RunInputs(tuple(sets), showing, prefs.effective_base_url, prefs.model,
                         float(prefs.timeout), self.options(), edits)

    def _settings_changed(self) -> None:
        if not self._filling:
            self._refresh_estimate()

    def _refresh_estimate(self) -> None:
        self._update_enabled()
        library = self.ctx.library
        prefs = self.ctx.prefs
        if library is None or not self.sets_shown():
            self.guess = None
            self.runs.estimate(None)
            self.estimate_label.setText("")
            return
        if not prefs.model:
            self.guess = None
            self.runs.estimate(None)
            self.estimate_label.setText("Choose an endpoint and a model in Preferences ▸ LLM endpoint "
                                        "to run.")
            return
        self.runs.estimate(self.inputs(what_if=bool(self.edits_provider())))

    def _on_estimated(self, guess: Guess) -> None:
        self.guess = guess
        prefs = self.ctx.prefs
        text = f"{prefs.effective_base_url} · {prefs.model}: {guess.run.line()}."
        if guess.what_if is not None:
            extra = guess.what_if_run
            text += " " + guess.what_if.why()
            if extra is not None:
                text += f" With unsaved edits: {extra.to_send} more requests ({extra.cached} cached)."
        self.estimate_label.setText(text)
        self.estimate_label.setToolTip(text)

    def run(self, what_if: bool = False) -> bool:
        """Run the shown rows (``what_if``: the description what-if); False when nothing can run."""
        if self.runs.busy:
            return False
        inputs = self.inputs(what_if=what_if)
        if inputs is None or (what_if and not inputs.edits):
            return False
        self.progress.setRange(0, 0)
        self.progress.setFormat("starting…")
        self.runs.run(inputs)
        self._update_enabled()
        return True

    def cancel(self) -> None:
        """Stop the run (what finished is kept and shown)."""
        self.runs.cancel()

    def _on_progress(self, progress: object) -> None:
        from rockskills_gui.core.evals.run import EvalProgress

        if not isinstance(progress, EvalProgress):
            return
        self.progress.setRange(0, max(1, progress.total))
        self.progress.setValue(progress.done)
        phase = self.runs.phase
        self.progress.setFormat(f"{phase + ': ' if phase not in ('', 'run') else ''}%v/%m runs "
                                f"({progress.cached} cached)")

    def _on_finished(self, outcome: Outcome) -> None:
        self.outcome = outcome
        if outcome.what_if is not None and outcome.saved is not None and outcome.saved is not outcome.report:
            self.diffs = {(d.skill, d.query): d for d in snapshots.compare(
                snapshots.take(outcome.saved, SAVED_LABEL), snapshots.take(outcome.report, "edited"))}
            self.versus_label = SAVED_LABEL
        else:
            self.diffs, self.versus_label = {}, ""
        self._show()
        self.finished.emit()

    # ---------------------------------------------------------------- snapshots

    @property
    def report(self) -> TriggerReport | None:
        return self.outcome.report if self.outcome is not None else None

    def save_snapshot(self, name: str | None = None) -> str | None:
        """Keep the last run's results as snapshot ``name``."""
        if self.report is None:
            return None
        saved = self.snaps.save(self.report, name)
        self._update_enabled()
        return saved

    def compare_snapshot(self, name: str | None = None) -> list[snapshots.RowDiff]:
        """Per row: the chosen snapshot against the last run (shown in the "vs" column)."""
        if self.report is None:
            return []
        diffs = self.snaps.compare(self.report, name)
        if diffs is None:
            return []
        self.diffs = {(d.skill, d.query): d for d in diffs}
        self.versus_label = name or self.snapshot_box.currentText()
        self._show()
        return diffs

    # ---------------------------------------------------------------- messages

    def _fail(self, message: str) -> None:
        self.last_message = message
        self.ctx.status(message, 10000)


__all__ = ["ALL", "TriggerEvalPanel"]
