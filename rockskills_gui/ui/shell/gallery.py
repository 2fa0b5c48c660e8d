"""Screenshots of every pane and dialog at the common window sizes, light and dark, in one folder.

    python -m rockskills_gui.ui.shell.gallery OUT_DIR [--library DIR] [--size WxH ...]
                                        [--theme light|dark ...] [--only NAME ...] [--audit]

The window panes are shot at 1280×720, 1400×900 and 1920×1080 (the Dream wizard at the size it
takes on such a screen); the small dialogs at their own size. Files are named
``<scene>-<W>x<H>-<theme>.png`` (dialogs: ``<scene>-<theme>.png``). ``--audit`` also runs the
layout audit (:mod:`rockskills_gui.ui.common.layout_audit`) on every shot and lists what it finds.

It works on a private copy of the library (the demo library by default) and a private settings
folder, so it changes nothing of yours. :class:`Studio` is what tests/ui/test_layout_audit.py
walks too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

SIZES: tuple[tuple[int, int], ...] = ((1280, 720), (1400, 900), (1920, 1080))
THEMES: tuple[str, ...] = ("light", "dark")
QUERY = "summarize this arxiv paper"
SKILL = "research/fact-check"
TRIGGER_ROWS = (("is this claim in the article true?", True), ("check the facts in my draft", True),
                ("summarize this arxiv paper", False))


@dataclass
class Shot:
    """One picture: ``widget`` (a window or dialog) as it is now."""

    scene: str
    theme: str
    size: tuple[int, int] | None  # None: a dialog at its own size
    widget: QWidget  # (Qt is imported for type checking only: this module loads without it)

    @property
    def filename(self) -> str:
        size = f"-{self.size[0]}x{self.size[1]}" if self.size else ""
        return f"{self.scene}{size}-{self.theme}.png"


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Process events until ``condition()`` holds (True) or ``timeout`` seconds pass (False)."""
    from PySide6.QtCore import QCoreApplication, QEventLoop

    end = time.monotonic() + timeout
    while True:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        if condition():
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.002)


def settle(rounds: int = 4) -> None:
    """Let posted layout requests, resizes and deferred timers run."""
    from PySide6.QtCore import QCoreApplication, QEvent

    for _ in range(rounds):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        wait_until(lambda: False, 0.01)


class Studio:
    """Windows on a private copy of a library, posed scene by scene.

    ``shots()`` yields a :class:`Shot` per scene, theme and size; the widget in it is only valid
    until the next one is asked for.
    """

    def __init__(self, library: Path, workdir: Path) -> None:
        from rockskills_gui.ui.common.context import AppContext
        from rockskills_gui.ui.shell.main_window import MainWindow

        self.workdir = workdir
        self._cleanup: list[Callable[[], object]] = []
        self.library = workdir / library.name  # (the name the status bar shows)
        if not self.library.exists():
            shutil.copytree(library, self.library)
        for folder, _dirs, files in os.walk(self.library):  # a read-only source stays usable
            for name in [folder, *(os.path.join(folder, f) for f in files)]:
                os.chmod(name, os.stat(name).st_mode | 0o200)
        self.window = MainWindow(AppContext(), interactive=False)
        self.window.setObjectName("mainWindow")
        self.empty = MainWindow(AppContext(), interactive=False)
        for window in (self.window, self.empty):
            window.resize(*SIZES[0])
            window.show()
        errors: list[str] = []
        self.window.loadFinished.connect(errors.append)
        self.window.open_path(self.library)
        if not wait_until(lambda: bool(errors), 30):
            raise RuntimeError(f"{self.library} did not open in 30 s")
        if errors[0]:
            raise RuntimeError(f"{self.library} did not open: {errors[0]}")

    def close(self) -> None:
        for window in (self.window, self.empty):
            window.recall_pane.wait()
            window.usage_pane.wait()
            if window.dream_wizard is not None:
                window.dream_wizard.run.stop()
                window.dream_wizard.close()
            window.loader.cancel()
            window.loader.wait()
            window.close()
            window.deleteLater()
        settle(2)

    # ---------------------------------------------------------------- driving

    def theme(self, kind: str) -> None:
        self.window.apply_theme_mode(kind, override=True)
        settle(2)

    def size_window(self, size: tuple[int, int], window: QWidget | None = None) -> None:
        target = window or self.window
        target.resize(*size)
        settle()

    def shots(self, themes: Sequence[str] = THEMES,
              sizes: Sequence[tuple[int, int]] = SIZES,
              only: Sequence[str] = ()) -> Iterator[Shot]:
        for theme in themes:
            self.theme(theme)
            for name, pose, sized in self.scenes():
                if only and not any(name.startswith(o) for o in only):
                    continue
                widget = pose()
                try:
                    for size in (sizes if sized else (None,)):
                        if size is not None:
                            self.size_window(size, widget)
                        else:
                            settle()
                        yield Shot(name, theme, size, widget)
                finally:
                    self.unpose(widget)

    def unpose(self, widget: QWidget) -> None:
        from PySide6.QtWidgets import QDialog

        if isinstance(widget, QDialog) and widget is not self.window.dream_wizard:
            widget.close()
            widget.deleteLater()
        self.window.problems_dock.hide()
        while self._cleanup:
            self._cleanup.pop()()
        settle(1)

    # ---------------------------------------------------------------- scenes

    def scenes(self) -> list[tuple[str, Callable[[], QWidget], bool]]:
        """(name, pose, sized): ``pose()`` sets the scene up and returns the widget to shoot;
        ``sized`` scenes are shot at every size."""
        return [
            ("no-library", self.pose_empty, True),
            ("editor-no-skill", self.pose_no_skill, True),
            ("editor", lambda: self.pose_editor(SKILL), True),
            ("editor-problems", lambda: self.pose_editor(SKILL, problems=True), True),
            ("recall-session", lambda: self.pose_recall("session"), True),
            ("recall-why-not", lambda: self.pose_recall("why"), True),
            ("recall-query-sets", lambda: self.pose_recall("sets"), True),
            ("recall-compare", lambda: self.pose_recall("compare"), True),
            ("recall-trigger-evals", self.pose_trigger_evals, True),
            ("usage-table", lambda: self.pose_usage(0), True),
            ("usage-top-pairs", lambda: self.pose_usage(1), True),
            ("usage-sessions", lambda: self.pose_usage(2), True),
            ("usage-signals", lambda: self.pose_usage(3), True),
            ("usage-problems", lambda: self.pose_usage(0, problems=True), True),
            ("dream-1-setup", lambda: self.pose_dream("setup"), True),
            ("dream-2-prompts", lambda: self.pose_dream("prompts"), True),
            ("dream-3-run", lambda: self.pose_dream("run"), True),
            ("dream-4-review", lambda: self.pose_dream("review"), True),
            ("dream-5-apply", lambda: self.pose_dream("apply"), True),
            ("dialog-preferences", self.pose_preferences, False),
            ("dialog-shortcuts", self.pose_shortcuts, False),
            ("dialog-palette", self.pose_palette, False),
            ("dialog-new-skill", self.pose_new_skill, False),
            ("dialog-move", self.pose_move, False),
            ("dialog-rename", self.pose_rename, False),
            ("dialog-delete", self.pose_delete, False),
            ("editor-new-skill", self.pose_new_skill_editor, True),
            ("tree-rename-refused", self.pose_rename_refused, True),
            ("dialog-archive", self.pose_archive, False),  # (last: its undo re-lays the editor)
        ]

    def pose_empty(self) -> QWidget:
        return self.empty

    def pose_no_skill(self) -> QWidget:
        """A library open, no skill selected: the editor's empty state."""
        self.window.ctx.select_skill("")
        self.window.show_pane("editor")
        self.window.problems_dock.setVisible(False)
        return self.window

    def pose_editor(self, name: str, problems: bool = False) -> QWidget:
        window = self.window
        window.ctx.select_skill(name)
        window.library_pane.reveal(name)
        window.show_pane("editor")
        window.problems_dock.setVisible(problems)
        wait_until(lambda: not window.problems_pane.linter.busy, 15)  # lint rows: same every shot
        return window

    def pose_recall(self, tab: str) -> QWidget:
        window = self.window
        pane = window.recall_pane
        window.show_pane("recall")
        pane.set_compare("okapi" if tab == "compare" else "")
        pane.set_query(QUERY, immediate=True)
        if tab == "session" and pane.sim is not None and not pane.sim.turns:
            pane.add_turn()
        if tab == "why" and not pane.pins:
            pane.pin("research/fact-check")
        pane.side.setCurrentWidget({"session": pane.session_panel, "why": pane.why_panel,
                                    "sets": pane.sets_panel, "compare": pane.session_panel}[tab])
        wait_until(lambda: not pane.busy, 10)
        return window

    def pose_trigger_evals(self) -> QWidget:
        """The Recall tab's trigger evals for a skill, with unsaved rows (nothing is sent)."""
        from rockskills_gui.ui.recall.recall_view import PLAYGROUND, TRIGGERS

        window = self.window
        pane = window.recall_pane
        window.show_pane("recall")
        pane.show_mode(TRIGGERS)
        self._cleanup.append(lambda: pane.show_mode(PLAYGROUND))
        panel = pane.trigger_panel
        window.ctx.select_skill(SKILL)
        if not panel.rows_of(SKILL):
            for query, should in TRIGGER_ROWS:
                panel.add_row(query, should)
        wait_until(lambda: not panel.busy, 10)
        return window

    def pose_usage(self, tab: int, problems: bool = False) -> QWidget:
        window = self.window
        pane = window.usage_pane
        window.show_pane("heatmap")
        window.problems_dock.setVisible(problems)
        wait_until(lambda: pane.report is not None and not pane.busy
                   and not window.problems_pane.linter.busy, 15)
        pane.side.setCurrentIndex(tab)
        if tab == 2 and pane.view.data is not None and len(pane.view.data) > 1:
            pane.view.select(0, 1)
        pane.view.fit()
        return window

    def pose_dream(self, page: str) -> QWidget:
        from PySide6.QtWidgets import QWizard

        window = self.window
        wizard = window.dream_wizard
        if wizard is None or page == "setup":
            if wizard is not None:
                wizard.close()
                self.window._forget_dream_wizard()
                settle(1)
            window.show_pane("dream")
            wizard = window.dream_wizard
            assert wizard is not None
        setup = wizard.setup
        if page == "prompts":
            wizard.restart()
            setup.llm_radio.setChecked(True)
            setup.base_url.setText("http://127.0.0.1:11434/v1")
            setup.model.setText("llama3.1")
            wizard.next()
        elif page == "run":
            wizard.restart()
            setup.offline_radio.setChecked(True)
            wizard.next()
            wait_until(lambda: not wizard.run.running, 30)
        elif page == "review":
            if wizard.currentId() != wizard.page_id("run"):
                self.pose_dream("run")
            wizard.next()
        elif page == "apply":
            if wizard.currentId() != wizard.page_id("review"):
                self.pose_dream("review")
            if wizard.button(QWizard.WizardButton.NextButton).isEnabled():
                wizard.next()
        settle()
        return wizard

    def pose_preferences(self) -> QWidget:
        self.window.show_preferences()
        dialog = self.window.preferences_dialog
        if dialog is None:  # (show_preferences makes it)
            raise RuntimeError("the preferences dialog did not open")
        return dialog

    def pose_shortcuts(self) -> QWidget:
        from rockskills_gui.ui.shell.shortcuts import ShortcutsDialog

        dialog = ShortcutsDialog(self.window.commands, self.window)
        dialog.show()
        return dialog

    def pose_palette(self) -> QWidget:
        from rockskills_gui.ui.shell.palette import CommandPalette

        dialog = CommandPalette(self.window.commands, self.window)
        dialog.show()
        return dialog

    def pose_new_skill(self) -> QWidget:
        pane = self.window.library_pane
        self.window.library_pane.reveal(SKILL)
        dialog = pane.new_skill()
        assert dialog is not None
        dialog.name.setText("research/bad name!")  # shows the validation message
        return dialog

    def pose_move(self) -> QWidget:
        pane = self.window.library_pane
        pane.reveal(SKILL)
        dialog = pane.move_selected()
        assert dialog is not None
        dialog.folder.setText("research/not a folder!")
        return dialog

    def pose_rename(self) -> QWidget:
        pane = self.window.library_pane
        library = self.window.ctx.library
        assert library is not None
        target = next((s.name for s in library.skills() if library.references_to([s.name])),
                      SKILL)
        dialog = pane.request_rename({target: f"renamed/{target.rsplit('/', 1)[-1]}"})
        if dialog is None:
            raise RuntimeError("no skill with see-also references to rename")
        return dialog

    def pose_rename_refused(self) -> QWidget:
        """F2 on a skill and a name RockBot refuses: the reason shows at the inline editor."""
        from PySide6.QtWidgets import QAbstractItemDelegate, QLineEdit

        window = self.window
        pane = window.library_pane
        window.show_pane("editor")
        pane.reveal(SKILL)
        pane.edits.rename_current()
        settle(1)
        editor = next(e for e in pane.view.findChildren(QLineEdit, "inlineRename") if e.isVisible())
        editor.setText("research/fact check!")
        pane.edits.on_inline_text(editor.text())
        self._cleanup.append(lambda: pane.view.closeEditor(
            editor, QAbstractItemDelegate.EndEditHint.RevertModelCache))
        return window

    def pose_delete(self) -> QWidget:
        from rockskills_gui.ui.library.tree_dialogs import delete_box

        library = self.window.ctx.library
        assert library is not None
        names = [s.name for s in library.skills()][:3]
        box = delete_box(names, 2, self.window)
        box.show()
        return box

    def pose_archive(self) -> QWidget:
        """Tools ▸ Skill Archive… with a skill deleted in the tree (undone after the shot)."""
        window = self.window
        library = window.ctx.library
        assert library is not None
        name = sorted(s.name for s in library.skills())[-1]
        window.library_pane.edits.delete_now([name])
        wait_until(lambda: library.get(name) is None, 10)
        self._cleanup.append(window.ctx.undo)
        window.show_archive()
        view = window.archive_view
        assert view is not None
        self._cleanup.append(view.close)
        settle()
        return view

    def pose_new_skill_editor(self) -> QWidget:
        window = self.window
        if window.library_pane.create_skill("drafts/new-skill"):
            self._cleanup.append(window.ctx.undo)
        window.show_pane("editor")
        settle()
        return window


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rockskills_gui.ui.shell.gallery",
                                     description="Write screenshots of every pane and dialog.")
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("--library", type=Path, default=None,
                        help="library to show (default: the bundled demo library)")
    parser.add_argument("--size", type=_size, action="append", metavar="WxH",
                        help="window size (repeatable; default 1280x720, 1400x900, 1920x1080)")
    parser.add_argument("--theme", choices=THEMES, action="append",
                        help="theme (repeatable; default both)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="scenes whose name starts with NAME (repeatable)")
    parser.add_argument("--audit", action="store_true", help="also run the layout audit")
    args = parser.parse_args(argv)

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    scratch = Path(tempfile.mkdtemp(prefix="rockskills-gallery-"))
    os.environ["ROCKSKILLS_CONFIG_DIR"] = str(scratch / "config")  # nothing of the user's
    os.environ["ROCKSKILLS_DATA_DIR"] = str(scratch / "data")

    from PySide6.QtWidgets import QApplication

    from rockskills_gui.core.app.demo import install_demo
    from rockskills_gui.core.storage.appdirs import demo_library_dir
    from rockskills_gui.ui.common.layout_audit import audit
    from rockskills_gui.ui.common.theme import apply_theme

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    apply_theme(app, "light")
    library = args.library or install_demo(demo_library_dir())
    args.out.mkdir(parents=True, exist_ok=True)
    studio = Studio(library, scratch)
    count = problems = 0
    try:
        for shot in studio.shots(args.theme or THEMES, args.size or SIZES, args.only):
            widget = shot.widget
            path = args.out / shot.filename
            if not widget.grab().save(str(path), "PNG"):
                print(f"could not write {path}", file=sys.stderr)
                return 1
            count += 1
            if args.audit:
                for finding in audit([widget]):
                    problems += 1
                    print(f"{shot.filename}: {finding}")
    finally:
        studio.close()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{count} screenshots in {args.out}" + (f", {problems} audit findings" if args.audit
                                                  else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
