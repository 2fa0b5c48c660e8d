from tests.ui.test_tree_pane import *
from tests.ui.test_main_window import test_opens_the_fixture_with_counts_in_the_status_bar as first
from PySide6.QtWidgets import QApplication, QLineEdit
def test_a(window, agent):
    first(window, agent)
def test_b(window, qtbot, agent):
    pane = pane_of(window)
    pane.view.setFocus()
    select(pane, "mcp/calendar")
    window.commands["tree.rename"].trigger()
    editor = pane.view.findChild(QLineEdit, "inlineRename")
    editor.setText("")
    qtbot.keyClicks(editor, "google/calendar")
    print("focus before return", QApplication.focusWidget(), "active", QApplication.activeWindow())
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.wait(200)
    print("focus after", QApplication.focusWidget(), pane.dialog, pane.message.text(), window.ctx.library.get("google/calendar"))
