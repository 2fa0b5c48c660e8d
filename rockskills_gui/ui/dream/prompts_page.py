"""Wizard page 2: the exact messages of each pass: the system directive (editable for this run)
and the user message RockBot would build, with a token estimate."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from rockskills_gui.core.dream.directives import Directive, DirectiveSource
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.prompts import estimate_tokens, printable
from rockskills_gui.core.dream.run import PromptSet, RunOptions, prompt_for
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.ui.common.theme import monospace, secondary
from rockskills_gui.ui.dream.common import PASS_TITLES
from rockskills_gui.ui.dream.state import WizardState, page_id, wizard_of


class PassPrompt(QWidget):
    """One pass: its directive (editable) above its user message (read-only)."""

    def __init__(self, prompts: PromptSet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prompts = prompts
        self.original: Directive = prompts.directive
        name = prompts.dream_pass.value
        self.source = secondary(QLabel(self))
        self.source.setWordWrap(True)
        self.reset = QPushButton("Reset", self)
        self.reset.setObjectName(f"dreamResetDirective_{name}")
        self.reset.setToolTip("Put back the directive this run started with")
        self.reset.clicked.connect(self._reset)
        self.system = QPlainTextEdit(self)
        self.system.setObjectName(f"dreamSystem_{name}")
        self.system.setAccessibleName(f"{PASS_TITLES[prompts.dream_pass]} system message")
        monospace(self.system)
        self.system.setPlainText(prompts.directive.text)
        self.system.textChanged.connect(self._update)
        self.user = QPlainTextEdit(self)
        self.user.setObjectName(f"dreamUser_{name}")
        self.user.setAccessibleName(f"{PASS_TITLES[prompts.dream_pass]} user message")
        self.user.setReadOnly(True)
        self.user.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        monospace(self.user)
        if prompts.user is not None:
            self.user.setPlainText(printable(prompts.user))
        else:
            self.user.setPlainText(f"RockBot would skip this pass: {prompts.skipped}")
        self.tokens = QLabel(self)
        self.tokens.setObjectName(f"dreamTokens_{name}")

        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>System message</b> (the directive; you may edit it for this run)", top))
        head.addStretch(1)
        head.addWidget(self.reset)
        top_layout.addLayout(head)
        top_layout.addWidget(self.source)
        top_layout.addWidget(self.system)
        bottom = QWidget(self)
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(QLabel("<b>User message</b> (exactly as RockBot builds it)", bottom))
        bottom_layout.addWidget(self.user)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.tokens)
        self._update()

    def directive_text(self) -> str:
        return self.system.toPlainText()

    def edited(self) -> bool:
        return self.directive_text() != self.original.text

    def _reset(self) -> None:
        self.system.setPlainText(self.original.text)

    def _update(self) -> None:
        directive = self.original.edited(self.directive_text())
        if directive.source is DirectiveSource.LIBRARY:
            where = f"from the library: {directive.path}"
        elif directive.source is DirectiveSource.BUILT_IN:
            where = ("built in (this app's own text, to RockBot's intent and output schema); the "
                     "library has no directive file for this pass")
        else:
            where = f"edited for this run (was: {self.original.source.value}); the file is not changed"
        self.source.setText(f"Source: {where}")
        self.reset.setEnabled(self.edited())
        system_tokens = estimate_tokens(self.directive_text())
        if self.prompts.user is None:
            self.tokens.setText("No request will be sent for this pass.")
            return
        user_tokens = estimate_tokens(self.prompts.user)
        self.tokens.setText(f"≈ {system_tokens + user_tokens:,} tokens (system ≈ {system_tokens:,}, "
                            f"user ≈ {user_tokens:,}; {len(self.prompts.user):,} characters)")


class PromptPage(QWizardPage):
    """A tab per chosen pass, built when the page is shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamPromptPage")
        self.setTitle("The prompts")
        self.setSubTitle("What will be sent, pass by pass. Each later pass is built on what the "
                         "earlier ones propose, as RockBot builds it; the plan keeps every message "
                         "actually sent.")
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("dreamPromptTabs")
        self.note = secondary(QLabel(self))
        self.note.setWordWrap(True)
        self.setButtonText(QWizard.WizardButton.NextButton, "&Run >")
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.note)
        self.prompts: dict[DreamPass, PassPrompt] = {}

    def wiz(self) -> WizardState:
        return wizard_of(self)

    def initializePage(self) -> None:
        wizard = self.wiz()
        library = wizard.dream_library()
        self._remember_edits()
        keep = dict(wizard.directives)
        self.tabs.clear()
        for widget in self.prompts.values():
            widget.deleteLater()
        self.prompts = {}
        if library is None:
            return
        now = wizard.setup.now() or Timestamp.now()
        options = RunOptions(now=now)  # the originals; edits are laid over them below
        for dream_pass in wizard.setup.passes():
            if dream_pass is DreamPass.MCP_REFRESH:
                continue  # one message per stale skill, made during the run (the Run page shows them)
            widget = PassPrompt(prompt_for(library, dream_pass, now, options), self.tabs)
            if dream_pass in keep:
                widget.system.setPlainText(keep[dream_pass])
            self.prompts[dream_pass] = widget
            self.tabs.addTab(widget, PASS_TITLES[dream_pass])
        note = f"Reference time {now.isoformat()}."
        if DreamPass.OPTIMIZE in self.prompts and DreamPass.CONSOLIDATE in self.prompts:
            note += (" The optimization message shown assumes the consolidation changes nothing; "
                     "in the run it is built on the consolidation's result.")
        self.note.setText(note)

    def _remember_edits(self) -> None:
        """Keep this page's directive edits in the wizard (they survive Back and Next)."""
        directives = self.wiz().directives
        for dream_pass, widget in self.prompts.items():
            if widget.edited():
                directives[dream_pass] = widget.directive_text()
            else:
                directives.pop(dream_pass, None)

    def validatePage(self) -> bool:
        self._remember_edits()
        return True

    def cleanupPage(self) -> None:
        self._remember_edits()

    def nextId(self) -> int:
        return page_id("run")
