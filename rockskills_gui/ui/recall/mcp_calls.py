"""The session panel's MCP strip (RockBot (current) only, upstream PRs 410 and 412).

The user plays the agent's part: "Selects server" simulates ``mcp_get_service_details`` for a
server, "Parameter error" an ``mcp_invoke_tool`` call that misses a required field. Either tool
result gets the ``mcp/{server}`` skills appended (each content capped at 4,000 characters); the
session tree shows it under the turn, computed by
:meth:`rockskills_gui.core.recall.session.RecallSession.mcp_call`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QWidget

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.names import fold, sorted_names
from rockskills_gui.core.model.profile import AgentProfile
from rockskills_gui.core.model.rules import mcp_server
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall.session import (
    MCP_PARAMETER_ERROR,
    MCP_SELECT,
    MCP_SKILL_CONTENT_CAP,
    McpInjection,
)

MCP_POSITION = 1000  # session-tree position of the first MCP tool result of a turn


def mcp_profile(library: Library | None) -> AgentProfile | None:
    """The profile of a library whose agent injects MCP skills on MCP tool calls (RockBot
    (current)), else None."""
    return library.profile if library is not None and library.profile.injection.mcp_skills else None


def mcp_servers(skills: Iterable[Skill]) -> list[str]:
    """The servers named by ``mcp/{server}[/...]`` skills, lower-cased, in name order."""
    found: dict[str, str] = {}
    for skill in skills:
        server = mcp_server(skill.name)
        if server is not None:
            found.setdefault(fold(server), server)
    return sorted_names(found.values())


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def mcp_item_texts(call: McpInjection) -> tuple[str, str, str]:
    """``(kind, detail, tooltip)`` of one MCP tool result in the session tree."""
    kind = f"Tool result: {call.tool_name}"
    what = "selects" if call.trigger == MCP_SELECT else "parameter error on"
    if call.block is None:
        detail = f"{what} '{call.server}' · no mcp/{call.server.lower()} skill: nothing appended"
    else:
        detail = f"{what} '{call.server}' · {_plural(len(call.skills), 'skill')} appended"
        if call.block.truncated:
            detail += f", {len(call.block.truncated)} cut at {MCP_SKILL_CONTENT_CAP:,} chars"
    trigger = ("the agent narrowed in on this MCP server (mcp_get_service_details)"
               if call.trigger == MCP_SELECT else
               "an mcp_invoke_tool call missed a required field no default could fill")
    tip = (f"RockBot (current): {trigger}, so the mcp/{{server}} skills are appended to that tool "
           f"result -- every time, whether or not they were recalled. Each content is cut after "
           f"{MCP_SKILL_CONTENT_CAP:,} characters. Parts only the live server knows are shown as "
           "⟨…⟩; a Stale/Renamed marker line would follow a heading if the live server no longer "
           "matched the skill's baseline (not knowable offline).")
    return kind, detail, tip


class ServerCombo(QComboBox):
    """An editable server box whose list is read from the library when it opens."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setObjectName("recallMcpServer")
        self.setMinimumContentsLength(10)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.provider: Callable[[], list[str]] = list
        line_edit = self.lineEdit()  # editable: Qt made one
        if line_edit is not None:
            line_edit.setPlaceholderText("server")

    def refill(self) -> None:
        text = self.currentText()
        self.blockSignals(True)
        self.clear()
        self.addItems(self.provider())
        self.setEditText(text)
        self.blockSignals(False)

    def showPopup(self) -> None:
        self.refill()
        super().showPopup()


class McpCallBar(QWidget):
    """Server box + "Selects server" + "Parameter error"; ``called(trigger, server)``."""

    called = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recallMcpBar")
        self.label = QLabel("MCP call:", self)
        self.server = ServerCombo(self)
        self.select_button = QPushButton("Selects server", self)
        self.select_button.setObjectName("recallMcpSelect")
        self.error_button = QPushButton("Parameter error", self)
        self.error_button.setObjectName("recallMcpError")
        for button, trigger in ((self.select_button, MCP_SELECT),
                                (self.error_button, MCP_PARAMETER_ERROR)):
            button.clicked.connect(lambda _=False, t=trigger: self._emit(t))
        server_edit = self.server.lineEdit()
        if server_edit is not None:
            server_edit.returnPressed.connect(lambda: self._emit(MCP_SELECT))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.server, 1)
        row.addWidget(self.select_button)
        row.addWidget(self.error_button)
        self._turns = 0
        self._key: object = None
        self._tips()

    def set_state(self, turns: int, servers: Callable[[], list[str]], key: object) -> None:
        """``turns`` sent so far (the calls happen while the agent answers the last one);
        ``servers`` lists the library's MCP servers, read again when ``key`` changes."""
        self._turns = turns
        self.server.provider = servers
        if key is not self._key:
            self._key = key
            self.server.setEditText("")
            self.server.refill()
            if self.server.count():
                self.server.setCurrentIndex(0)
        self._tips()

    def _tips(self) -> None:
        ready = self._turns > 0
        for button in (self.select_button, self.error_button):
            button.setEnabled(ready)
        if not ready:
            tip = ("Add a turn first: the agent calls MCP tools while it answers a message.")
            self.select_button.setToolTip(tip)
            self.error_button.setToolTip(tip)
            return
        self.select_button.setToolTip(
            f"While answering turn {self._turns}, the agent calls mcp_get_service_details for this "
            "server: RockBot (current) appends its mcp/{server} skills to the result")
        self.error_button.setToolTip(
            f"While answering turn {self._turns}, an mcp_invoke_tool call to this server misses a "
            "required field: RockBot (current) appends its mcp/{server} skills to the enriched "
            "error")

    def _emit(self, trigger: str) -> None:
        server = self.server.currentText().strip()
        if self._turns > 0 and server:
            self.called.emit(trigger, server)
