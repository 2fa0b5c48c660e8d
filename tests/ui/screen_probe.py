"""Run in a child process whose offscreen screen has a given size (``tests/ui/test_small_screen``):
start ``rockskills-gui LIB`` itself (``app.main``), look at its window once the library is in,
then quit as the user would (the layout is saved).

    QT_QPA_PLATFORM=offscreen:configfile=SCREEN.json python -m tests.ui.screen_probe LIB
        [--resize WxH] [--wizard]

Prints one JSON object: the screen's available rectangle, the window's frame, its status bar and
Problems dock (global rectangles), and with ``--wizard`` (``--pane dream``) the Dream wizard's
frame, its Next and Cancel buttons and the API-key note (its height and the height it needs).
``--resize`` resizes the window before quitting (what is then saved).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget, QWizard


def rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def global_rect(widget: QWidget) -> list[int]:
    return rect(QRect(widget.mapToGlobal(widget.rect().topLeft()), widget.size()))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("library", type=Path)
    parser.add_argument("--resize")
    parser.add_argument("--wizard", action="store_true")
    args = parser.parse_args(argv)
    app = QApplication(["rockskills-gui"])
    from rockskills_gui.ui.shell import app as gui
    from rockskills_gui.ui.shell.gallery import settle
    from rockskills_gui.ui.shell.main_window import MainWindow

    out: dict[str, object] = {}

    def look() -> None:
        windows = [w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()
                   and w.ctx.library is not None and (w.dream_wizard is not None or not args.wizard)]
        if not windows:
            QTimer.singleShot(50, look)
            return
        window = windows[0]
        settle()
        out.update(screen=rect(app.primaryScreen().availableGeometry()),
                   frame=rect(window.frameGeometry()), maximized=window.isMaximized(),
                   status=global_rect(window.statusBar()),
                   problems=global_rect(window.problems_dock) if window.problems_dock.isVisible()
                   else None)
        wizard = window.dream_wizard
        if wizard is not None:
            out["wizard"] = rect(wizard.frameGeometry())
            out["buttons"] = [global_rect(wizard.button(b)) for b in (
                QWizard.WizardButton.NextButton, QWizard.WizardButton.CancelButton)]
            note = wizard.setup.key_note
            out["note"] = [note.height(), note.heightForWidth(note.width())]
            wizard.close()
        if args.resize:
            window.setWindowState(Qt.WindowState.WindowNoState)
            window.resize(*map(int, args.resize.split("x")))
            settle()
        app.quit()

    QTimer.singleShot(0, look)
    status = gui.main([str(args.library), *(["--pane", "dream"] if args.wizard else [])])
    print(json.dumps(out))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
