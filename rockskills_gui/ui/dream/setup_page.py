"""Wizard page 1: the passes to run and who proposes (an OpenAI-compatible endpoint, or offline).

The proposer, endpoint and model start from the Preferences, and the ones a run starts with are
remembered there for the next run. A key typed here stays in memory for this run (it is never
written anywhere); without one the key saved for the endpoint in the system keyring is used, then
``ROCKSKILLS_API_KEY``. Beside each pass: whether RockBot itself would run it on this data
(``core.dream.pass_outlook``), worked out on a background thread (it reads every usage, feedback
and conversation log) while the page says it is reading; the answer is shown when it arrives.
"""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError
from PySide6.QtCore import QDateTime, Qt, QTimeZone
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from rockskills_gui.core.app.keys import ENV_VAR
from rockskills_gui.core.app.settings import PRESET_BY_ID, PRESETS
from rockskills_gui.core.dream.inputs import DreamInputs
from rockskills_gui.core.dream.llm import DEFAULT_RETRIES, Endpoint
from rockskills_gui.core.dream.mcp_refresh import McpSurface, SurfaceFileError, read_surfaces
from rockskills_gui.core.dream.pass_outlook import brief, describe, pass_outlook, read_ledger
from rockskills_gui.core.dream.passes import LLM_PASSES, DreamPass
from rockskills_gui.core.model.profile import Curation
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio
from rockskills_gui.ui.common.queries import channel
from rockskills_gui.ui.common.theme import secondary
from rockskills_gui.ui.common.wrapping_label import WrappingLabel
from rockskills_gui.ui.dream.common import PASS_HINTS, PASS_TITLES
from rockskills_gui.ui.dream.state import WizardState, page_id, wizard_of

log = logging.getLogger(__name__)
SURFACES_MAX_BYTES = 16_000_000  # a surfaces file: every server's tools and schemas
Outlook = dict[DreamPass, tuple[str, str]]  # pass -> (the words beside it, the whole reason)


def outlook_texts(agent_dir: Path, curation: Curation, skills: list[Skill], now: Timestamp,
                  rockbot_data: bool = True) -> Outlook:
    """Whether RockBot would run each pass, from the agent's logs (read here: off the UI thread)."""
    try:
        inputs = DreamInputs.read(agent_dir, now)
        ledger = read_ledger(agent_dir, curation.ledger_file)
        return {p: (brief(o), describe(o))
                for p, o in pass_outlook(skills, inputs, ledger, curation, rockbot_data=rockbot_data).items()}
    except OSError as exc:  # an unreadable log: the run itself will say more
        log.warning("pass outlook: %s", exc)
        return {}


class SetupPage(QWizardPage):
    """Passes, proposer, endpoint, protected prefixes and the reference time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dreamSetupPage")
        self.setTitle("Dream run")
        self.setSubTitle("Choose what to run. Nothing touches the library until you have reviewed "
                         "every proposal and pressed Apply.")
        self.library_label = QLabel(self)
        self.library_label.setObjectName("dreamLibraryLabel")
        self.library_label.setWordWrap(True)

        passes = QGroupBox("Passes (in RockBot's order)", self)
        grid = QGridLayout(passes)
        self.pass_boxes: dict[DreamPass, QCheckBox] = {}
        self.outlook_labels: dict[DreamPass, QLabel] = {}  # "RockBot would not run this pass: …"
        for index, dream_pass in enumerate(LLM_PASSES):
            box = QCheckBox(PASS_TITLES[dream_pass], passes)
            box.setObjectName(f"dreamPass_{dream_pass.value}")
            box.setChecked(True)
            box.toggled.connect(self._changed)
            self.pass_boxes[dream_pass] = box
            grid.addWidget(box, index, 0)
            grid.addWidget(secondary(QLabel(PASS_HINTS[dream_pass], passes)), index, 1)
            outlook = QLabel(passes)  # beside the hint: a few words, the whole reason as tooltip
            outlook.setObjectName(f"dreamPassOutlook_{dream_pass.value}")
            outlook.setTextFormat(Qt.TextFormat.PlainText)
            outlook.setContentsMargins(12, 0, 0, 0)
            outlook.hide()
            self.outlook_labels[dream_pass] = outlook
            grid.addWidget(outlook, index, 2)
        self.outlook_reading = secondary(QLabel("Reading the agent's logs to see which passes "
                                                "RockBot itself would run…", passes))
        self.outlook_reading.setObjectName("dreamOutlookReading")
        self.outlook_reading.hide()
        grid.addWidget(self.outlook_reading, len(LLM_PASSES) + 1, 0, 1, 3)
        self.reader = channel(self, "pass outlook")  # off the UI thread (newest wins)
        self.reader.busyChanged.connect(self.outlook_reading.setVisible)
        self.prune_box = QCheckBox("Prune", passes)
        self.prune_box.setObjectName("dreamPass_prune")
        self.prune_box.setChecked(True)
        grid.addWidget(self.prune_box, len(LLM_PASSES), 0)
        grid.addWidget(secondary(QLabel("skills inactive for 18 months; RockBot prunes before "
                                        "consolidating (unticked: proposed, but not pre-selected)",
                                        passes)), len(LLM_PASSES), 1, 1, 2)
        # RockBot (current)'s MCP skill refresh pass (#615): only where the profile runs it; it needs
        # the servers' current tools, which only a surfaces file gives offline.
        row = len(LLM_PASSES) + 2
        self.refresh_box = QCheckBox(PASS_TITLES[DreamPass.MCP_REFRESH], passes)
        self.refresh_box.setObjectName("dreamPass_mcp-refresh")
        self.refresh_box.toggled.connect(self._changed)
        self.surfaces = QLineEdit(passes)
        self.surfaces.setObjectName("dreamSurfaces")
        self.surfaces.setPlaceholderText("the servers' tools: a surfaces file (see rockskills dream "
                                         "--mcp-surfaces)")
        self.surfaces.textChanged.connect(self._changed)
        self.surfaces_button = QPushButton("Choose…", passes)
        self.surfaces_button.clicked.connect(self._choose_surfaces)
        self.surfaces_error = QLabel(passes)
        self.surfaces_error.setObjectName("dreamSurfacesError")
        self.surfaces_error.setWordWrap(True)
        self.surfaces_error.hide()
        surfaces_row = QHBoxLayout()
        surfaces_row.addWidget(self.surfaces, 1)
        surfaces_row.addWidget(self.surfaces_button)
        grid.addWidget(self.refresh_box, row, 0)
        grid.addLayout(surfaces_row, row, 1, 1, 2)
        grid.addWidget(self.surfaces_error, row + 1, 1, 1, 2)
        self.refresh_widgets: tuple[QWidget, ...] = (self.refresh_box, self.surfaces, self.surfaces_button)
        self.mcp_surfaces: dict[str, McpSurface] = {}  # read when the page is left
        grid.setColumnStretch(2, 1)

        who = QGroupBox("Proposer", self)
        who_layout = QVBoxLayout(who)
        self.llm_radio = QRadioButton("An LLM on an OpenAI-compatible endpoint", who)
        self.llm_radio.setObjectName("dreamUseLlm")
        self.offline_radio = QRadioButton("Offline: deterministic suggestions from the library alone "
                                          "(prune, near-duplicates, cluster guides, thin skills, "
                                          "links between skills used together)", who)
        self.offline_radio.setObjectName("dreamUseOffline")
        group = QButtonGroup(who)
        group.addButton(self.llm_radio)
        group.addButton(self.offline_radio)
        self.llm_radio.setChecked(True)
        self.llm_radio.toggled.connect(self._changed)
        who_layout.addWidget(self.llm_radio)

        self.endpoint_box = QWidget(who)
        form = QFormLayout(self.endpoint_box)
        form.setContentsMargins(24, 0, 0, 0)
        self.preset = QComboBox(self.endpoint_box)
        self.preset.setObjectName("dreamPreset")
        for preset in PRESETS:
            self.preset.addItem(preset.title, preset.id)
        self.preset.currentIndexChanged.connect(self._preset_chosen)
        self.base_url = QLineEdit(self.endpoint_box)
        self.base_url.setObjectName("dreamBaseUrl")
        self.base_url.setPlaceholderText("http://127.0.0.1:11434/v1")
        self.base_url.textChanged.connect(self._changed)
        self.base_url.editingFinished.connect(self._update_key_note)  # not per keystroke (keyring)
        self.model = QLineEdit(self.endpoint_box)
        self.model.setObjectName("dreamModel")
        self.model.setPlaceholderText("the model name the server knows")
        self.model.textChanged.connect(self._changed)
        self.api_key = QLineEdit(self.endpoint_box)
        self.api_key.setObjectName("dreamApiKey")
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_note = secondary(WrappingLabel("", self.endpoint_box))  # (in a form row)
        self.timeout = QDoubleSpinBox(self.endpoint_box)
        self.timeout.setObjectName("dreamTimeout")
        self.timeout.setRange(1.0, 900.0)
        self.timeout.setDecimals(0)
        self.timeout.setSuffix(" s")
        self.json_mode = QCheckBox("Ask for a JSON object (falls back to plain text when refused)",
                                   self.endpoint_box)
        self.json_mode.setObjectName("dreamJsonMode")
        self.json_mode.setChecked(True)
        for field in (self.preset, self.base_url, self.model, self.api_key):
            field.setMaximumWidth(560)
        self.timeout.setMaximumWidth(120)
        form.addRow("&Endpoint:", self.preset)
        form.addRow("&Base URL:", self.base_url)
        form.addRow("&Model:", self.model)
        form.addRow("API &key:", self.api_key)
        form.addRow("", self.key_note)
        form.addRow("&Timeout:", self.timeout)
        form.addRow("", self.json_mode)
        who_layout.addWidget(self.endpoint_box)
        who_layout.addWidget(self.offline_radio)

        rules = QGroupBox("Rules for this run", self)
        rules_form = QFormLayout(rules)
        self.protected = QLineEdit(rules)
        self.protected.setObjectName("dreamProtected")
        self.protected.setPlaceholderText("e.g. patrol/, billing/")
        self.fixed_time = QCheckBox("Fixed reference time (UTC):", rules)
        self.fixed_time.setObjectName("dreamFixedTime")
        self.time_edit = QDateTimeEdit(rules)
        self.time_edit.setObjectName("dreamTime")
        self.time_edit.setAccessibleName("Reference time (UTC)")
        self.time_edit.setTimeZone(QTimeZone.utc())
        self.time_edit.setDisplayFormat("yyyy-MM-dd HH:mm:ss")
        self.time_edit.setCalendarPopup(True)
        self.time_edit.setDateTime(QDateTime.currentDateTimeUtc())
        self.time_edit.setEnabled(False)
        self.fixed_time.toggled.connect(self.time_edit.setEnabled)
        self.fixed_time.toggled.connect(lambda _on: self.refresh_outlook())
        self.time_edit.editingFinished.connect(self.refresh_outlook)
        when = QHBoxLayout()
        when.addWidget(self.fixed_time)
        when.addWidget(self.time_edit)
        when.addStretch(1)
        self.protected.setMaximumWidth(560)
        rules_form.addRow("&Protected prefixes:", self.protected)
        rules_form.addRow("", secondary(QLabel("Proposals that delete, prune or overwrite a skill "
                                               "under these prefixes are blocked. Comma-separated.",
                                               rules)))
        rules_form.addRow("Reference time:", when)

        self.load_button = QPushButton("&Load a saved plan…", self)
        self.load_button.setObjectName("dreamLoadPlan")
        self.load_button.setToolTip("Review a plan made earlier (here or with `rockskills dream`)")
        bottom = QHBoxLayout()
        bottom.addWidget(secondary(QLabel("or review a plan saved earlier:", self)))
        bottom.addWidget(self.load_button)
        bottom.addStretch(1)

        self.groups = (passes, who, rules)  # disabled while there is no library to dream over
        # The page scrolls when the screen is too short (a 1280×720 one): nothing is squashed
        # and the wizard's buttons stay on the screen.
        scroll = QScrollArea(self)
        scroll.setObjectName("dreamSetupScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        content = QWidget(scroll)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.library_label)
        layout.addWidget(passes)
        layout.addWidget(who)
        layout.addWidget(rules)
        layout.addStretch(1)
        layout.addLayout(bottom)
        scroll.setWidget(content)

    def wiz(self) -> WizardState:
        return wizard_of(self)

    # ---------------------------------------------------------------- state

    def load_defaults(self) -> None:
        """Fill the proposer, endpoint and rules from the Preferences."""
        prefs = self.wiz().ctx.prefs
        (self.offline_radio if prefs.dream_proposer == "offline" else self.llm_radio).setChecked(True)
        index = self.preset.findData(prefs.endpoint)
        self.preset.blockSignals(True)
        self.preset.setCurrentIndex(max(0, index))
        self.preset.blockSignals(False)
        self.base_url.setText(prefs.effective_base_url)
        self.model.setText(prefs.model)
        self.timeout.setValue(prefs.timeout)
        self.protected.setText(", ".join(prefs.protected_prefixes))
        self._update_key_note()
        self._changed()

    def _preset_chosen(self) -> None:
        preset = PRESET_BY_ID.get(self.preset.currentData())
        if preset is not None and preset.base_url:
            self.base_url.setText(preset.base_url)
        self._update_key_note()

    def _update_key_note(self) -> None:
        url = self.base_url.text().strip()
        ctx = self.wiz().ctx if self.wizard() is not None else None
        stored = ctx is not None and bool(url) and ctx.keys.get(url) is not None
        preset = PRESET_BY_ID.get(self.preset.currentData())
        if stored:
            self.api_key.setPlaceholderText("using the key saved for this endpoint")
        elif os.environ.get(ENV_VAR):
            self.api_key.setPlaceholderText(f"using ${ENV_VAR}")
        elif preset is not None and not preset.needs_key:
            self.api_key.setPlaceholderText("usually not needed for this server")
        else:
            self.api_key.setPlaceholderText("needed by this server")
        self.key_note.setText("The proposer, endpoint and model are remembered for the next run. "
                              "A key typed here is used for this run only and never saved; save "
                              "keys in Preferences (system keyring).")

    def _changed(self, *_args: object) -> None:
        offline = self.offline_radio.isChecked()
        self.endpoint_box.setEnabled(not offline)
        for box in self.pass_boxes.values():
            box.setEnabled(not offline)
        for widget in self.refresh_widgets:
            widget.setEnabled(not offline)
        self.completeChanged.emit()

    @property
    def offline(self) -> bool:
        return self.offline_radio.isChecked()

    def passes(self) -> list[DreamPass]:
        chosen = [p for p, box in self.pass_boxes.items() if box.isChecked()]
        if self.refresh_box.isVisibleTo(self) and self.refresh_box.isChecked() and not self.offline:
            chosen.append(DreamPass.MCP_REFRESH)
        return chosen

    def _show_refresh(self) -> None:
        """The refresh pass row, where the open library's profile runs it (RockBot (current))."""
        library = self.wiz().dream_library() if self.wizard() is not None else None
        shown = library is not None and DreamPass.MCP_REFRESH.value in library.profile.curation.passes
        for widget in self.refresh_widgets:
            widget.setVisible(shown)
        self.surfaces_error.setVisible(shown and bool(self.surfaces_error.text()))

    def _choose_surfaces(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "MCP Server Surfaces", "",
                                              "Surfaces (*.json);;All files (*)")
        if path:
            self.surfaces.setText(path)
            self.refresh_box.setChecked(True)

    def read_surfaces(self) -> bool:
        """Read the surfaces file for the refresh pass (when it runs); False, saying why, when it
        cannot be used (the page stays)."""
        self.mcp_surfaces = {}
        self.surfaces_error.clear()
        self.surfaces_error.hide()
        if DreamPass.MCP_REFRESH not in self.passes():
            return True
        path = self.surfaces.text().strip()
        try:
            if not path:
                raise SurfaceFileError("choose the servers' surfaces file, or untick the pass")
            self.mcp_surfaces = read_surfaces(fileio.read_regular(Path(path), SURFACES_MAX_BYTES))
        except (OSError, SurfaceFileError) as exc:
            why = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)
            self.surfaces_error.setText(f"MCP skill refresh: {why}")
            self.surfaces_error.show()
            return False
        return True

    def prune(self) -> bool:
        return self.prune_box.isChecked()

    def protected_prefixes(self) -> list[str]:
        return [p.strip() for p in self.protected.text().split(",") if p.strip()]

    def now(self) -> Timestamp | None:
        """The fixed reference time, or None for "the time the run starts"."""
        if not self.fixed_time.isChecked():
            return None
        value = self.time_edit.dateTime().toUTC().toSecsSinceEpoch()
        return Timestamp.from_datetime(datetime.fromtimestamp(value, UTC))

    def set_now(self, value: Timestamp | None) -> None:
        self.fixed_time.setChecked(value is not None)
        if value is not None:
            moment = QDateTime.fromSecsSinceEpoch(int(value.to_datetime().timestamp()), QTimeZone.utc())
            self.time_edit.setDateTime(moment)
        self.refresh_outlook()

    def endpoint(self) -> Endpoint | None:
        url = self.base_url.text().strip().rstrip("/")
        model = self.model.text().strip()
        if not url or not model:
            return None
        return Endpoint(url, model, timeout=self.timeout.value(), retries=DEFAULT_RETRIES,
                        json_mode=self.json_mode.isChecked())

    def api_key_for(self, base_url: str) -> str | None:
        """The typed key, else the saved one, else the environment's (memory only)."""
        typed = self.api_key.text().strip()
        keys = self.wiz().ctx.keys
        if typed:
            return keys.mark_secret(typed)  # used for this run only, but redacted from logs too
        return keys.get(base_url) or os.environ.get(ENV_VAR) or None

    # ---------------------------------------------------------------- QWizardPage

    def initializePage(self) -> None:
        self._show_refresh()
        self._changed()
        self.refresh_outlook()

    def validatePage(self) -> bool:
        if self.wiz().after_setup() != page_id("review"):  # a run starts (not a saved plan)
            if not self.read_surfaces():
                return False
            self.remember()
        return True

    def remember(self) -> None:
        """Keep this run's proposer, endpoint and model in the Preferences for the next run (an
        unusable base URL is not kept; the API key never is)."""
        store = self.wiz().ctx.preferences
        proposer = {"dream_proposer": "offline" if self.offline else "llm"}
        changes: dict[str, object] = dict(proposer)
        if not self.offline:
            url = self.base_url.text().strip().rstrip("/")
            preset = PRESET_BY_ID.get(self.preset.currentData())
            if preset is not None and preset.base_url and url == preset.base_url:
                changes["endpoint"] = preset.id
            elif url:
                changes.update(endpoint="custom", base_url=url)
            changes["model"] = self.model.text().strip()
        try:
            try:
                store.update(**changes)
            except ValidationError:
                store.update(**proposer)
        except (OSError, ValidationError) as exc:
            log.warning("could not remember the dream run's choices: %s", exc)

    def refresh_outlook(self) -> None:
        """Say beside each pass whether RockBot would run it on the open library's data: the logs
        are read on a worker (:func:`outlook_texts`); the page says it is reading meanwhile."""
        library = self.wiz().dream_library() if self.wizard() is not None else None
        if library is None:
            self.reader.cancel()
            self._show_outlook({})
            return
        now = self.now() or Timestamp.now()
        agent_dir, skills = library.agent_dir, library.skills()
        curation, rockbot_data = library.profile.curation, library.profile.holds.usage_log
        self.reader.request(lambda _control: outlook_texts(agent_dir, curation, skills, now, rockbot_data),
                            self._show_outlook, failure=lambda error: log.warning(
                                "pass outlook: %s: %s", type(error).__name__, error))

    def _show_outlook(self, texts: object) -> None:
        shown: Outlook = texts if isinstance(texts, dict) else {}
        for dream_pass, label in self.outlook_labels.items():
            short, whole = shown.get(dream_pass, ("", ""))
            label.setText(short)
            label.setToolTip(whole)
            label.setVisible(bool(short))

    def outlook_text(self, dream_pass: DreamPass) -> str:
        """The words beside a pass and, after " — ", the whole reason (its tooltip)."""
        label = self.outlook_labels[dream_pass]
        return f"{label.text()} — {label.toolTip()}" if label.text() else ""

    def isComplete(self) -> bool:
        if self.wizard() is None or self.wiz().dream_library() is None:
            return False
        if self.offline:
            return True
        return bool(self.passes()) and self.endpoint() is not None

    def nextId(self) -> int:
        return self.wiz().after_setup()

    def set_library_text(self, text: str, ok: bool) -> None:
        """Say which library the run is on; without one (``ok`` False) every control is off."""
        if not ok and self.wizard() is not None and self.wiz().ctx.library is None:
            text = ("A dream run needs a library, and none is open: close this window and open "
                    "a library first (File ▸ Open Library…).")
        self.library_label.setText(text)
        self.library_label.setTextFormat(Qt.TextFormat.PlainText)
        font = self.library_label.font()
        font.setBold(not ok)
        self.library_label.setFont(font)
        self.load_button.setEnabled(ok)
        for group in self.groups:
            group.setEnabled(ok)
        self.refresh_outlook()
        self.completeChanged.emit()
