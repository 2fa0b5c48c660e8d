"""The session simulation's MCP strip (RockBot (current) only, issue 20): the user plays the
agent selecting an MCP server or hitting a parameter error, the tool result with the appended
``mcp/{server}`` skills appears under the turn, exactly as the core computes it."""

from __future__ import annotations

from pathlib import Path

from rockskills_gui.core.recall.session import MCP_PARAMETER_ERROR, MCP_SELECT, mcp_injection
from rockskills_gui.ui.recall.recall_panels import TOOL_RESULT_ROLE
from rockskills_gui.ui.shell.main_window import MainWindow
from tests.rockbot_current import snapshot


def tool_rows(panel, turn_row: int) -> list[tuple[str, str, str]]:
    item = panel.tree.topLevelItem(turn_row)
    return [(item.child(i).text(0), item.child(i).text(1), item.child(i).data(0, TOOL_RESULT_ROLE))
            for i in range(item.childCount()) if item.child(i).data(0, TOOL_RESULT_ROLE) is not None]


def test_mcp_calls_show_the_injected_tool_result(qtbot, cwindow: MainWindow, current: Path) -> None:
    before = snapshot(current)
    cwindow.show_pane("recall")
    pane = cwindow.recall_pane
    panel = pane.session_panel
    pane.set_query("check the calendar", immediate=True)
    bar = panel.mcp_bar
    assert bar.isVisible()
    assert [bar.server.itemText(i) for i in range(bar.server.count())] == ["github", "ms365"]
    assert not bar.select_button.isEnabled()  # no turn yet: the agent calls tools in a turn
    pane.add_turn()
    assert bar.select_button.isEnabled() and bar.error_button.isEnabled()
    bar.server.setEditText("ms365")
    bar.select_button.click()
    bar.server.setEditText("slack")
    bar.error_button.click()
    lib = cwindow.ctx.library
    select = mcp_injection(lib.profile, lib.skills(), "ms365", MCP_SELECT, 1)
    error = mcp_injection(lib.profile, lib.skills(), "slack", MCP_PARAMETER_ERROR, 1)
    rows = tool_rows(panel, 0)
    assert rows == [
        ("Tool result: mcp_get_service_details", "selects 'ms365' · 1 skill appended", select.result),
        ("Tool result: mcp_invoke_tool", "parameter error on 'slack' · no mcp/slack skill: "
         "nothing appended", error.result)]
    assert panel.text.toPlainText() == error.result  # the new result is selected and shown
    assert panel.caption.text().startswith("Exact tool-result text")
    assert "2 MCP tool results" in panel.summary.text()
    pane.set_query("web search", immediate=True)  # a refresh keeps them under turn 1
    assert len(tool_rows(panel, 0)) == 2
    pane.reset_session()
    assert tool_rows(panel, 0) == [] and not bar.select_button.isEnabled()
    assert snapshot(current) == before


def test_no_mcp_strip_for_64e82cc(qtbot, window: MainWindow) -> None:
    window.show_pane("recall")
    pane = window.recall_pane
    pane.set_query("email", immediate=True)
    pane.add_turn()
    assert not pane.session_panel.mcp_bar.isVisible()
    assert tool_rows(pane.session_panel, 0) == []


# ---------------------------------------------------------------- the query vector from the endpoint


def test_embed_query_makes_the_hybrid_score_exact(qtbot, cwindow: MainWindow) -> None:
    from rockskills_gui.core.recall.hybrid import explain_hybrid
    from tests.embedding_server import EmbeddingServer

    with EmbeddingServer(vectors={"web search": [0.1, 0.5, -0.25, 1.0]}) as server:
        cwindow.ctx.preferences.update(endpoint="custom", base_url=server.base_url)
        cwindow.show_pane("recall")
        pane = cwindow.recall_pane
        pane.set_query("web search", immediate=True)
        panel = pane.hybrid_panel
        pane.side.setCurrentWidget(panel)
        qtbot.waitUntil(lambda: panel.explanation is not None)
        assert not panel.explanation.query_vector
        bar = panel.embed_bar
        bar.model.setText("missing-model")
        bar.button.click()
        qtbot.waitUntil(lambda: not bar.busy(), timeout=10_000)
        assert bar.status.text().startswith("No query vector:") and panel.vector is None
        bar.model.setText("embed-model")
        bar.button.click()
        qtbot.waitUntil(lambda: panel.vector is not None, timeout=10_000)
        found = panel.explanation
        assert found is not None and found.query_vector
        lib = cwindow.ctx.library
        expected = explain_hybrid(pane.recall, lib.skills_dir, "web search", top=20,
                                  query_vector=panel.vector[2])
        shown = [[panel.tree.topLevelItem(i).text(c) for c in (0, 5)]
                 for i in range(panel.tree.topLevelItemCount())]
        assert shown == [[r.name, f"{r.score:.3f}"] for r in expected.rows]
        assert "embed-model" in panel.header.text()
        assert cwindow.ctx.settings.value("recall/embeddingModel") == "embed-model"
        pane.set_query("web searches", immediate=True)  # another query: the vector is moot
        assert not panel.explanation.query_vector
