"""The Library pane's edits: create, rename (inline or by dialog), move and delete, each one
undoable core operation through ``ctx.apply``; a rename or move first previews the see-also
references it rewrites. A move or delete of more than ``LONG_CHANGE`` skills runs off the UI thread
(``ctx.run``: busy bar, Cancel until the write starts). A part of ``TreePane``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QDialog, QDockWidget, QLabel, QLineEdit, QWidget

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.library.tree import Node, is_inside, problems_by_name
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.operation_runner import LONG_CHANGE, OperationResult
from rockskills_gui.ui.library.tree_model import SkillTreeModel
from rockskills_gui.ui.library.tree_roles import Index
from rockskills_gui.ui.library.tree_selection import TreeSelection
from rockskills_gui.ui.library.tree_view import SkillTreeView

if TYPE_CHECKING:  # (the dialogs load when first shown: not before the first paint, issue 19)
    from rockskills_gui.ui.library.tree_dialogs import MoveDialog, NewSkillDialog, RenamePreviewDialog

class TreeEdits(QObject):
    """Create, rename, move and delete for ``TreePane`` (``host``: its dialogs' parent) on the
    rows of ``model`` shown in ``view`` that ``selection`` holds; ``message`` says at the inline
    editor why a name would be refused.

    Signals:
        openRequested(str): a skill was created: open it.
    """

    openRequested = Signal(str)

    def __init__(self, ctx: AppContext, host: QWidget, model: SkillTreeModel, view: SkillTreeView,
                 message: QLabel, selection: TreeSelection) -> None:
        super().__init__(host)
        self.ctx = ctx
        self.host = host
        self.model = model
        self.view = view
        self.message = message
        self.selection = selection
        self.dialog: QDialog | None = None  # the dialog currently asking (tests drive it)

    # ---------------------------------------------------------------- create

    def creation_error(self, name: str) -> str | None:
        """Why ``name`` cannot be created (the format's rules, a skill or a broken file that
        has it), or None."""
        library = self.ctx.library
        if library is None:
            return "No library is open."
        existing = library.get(name)
        if existing is not None:
            return library.name_taken(existing.name)
        claims = problems_by_name(library.problems).get(fold(name))
        if claims:
            return f"'{name}' is claimed by a file that could not be loaded: {claims[0]}"
        return library.name_error(name)  # the agent's own rules (no '/' in a SKILL.md folder, ...)

    def new_skill(self, prefix: str | None = None) -> NewSkillDialog | None:
        """Ask for a name (checked live) and create the skill; the prefix is the chosen folder."""
        if self.ctx.library is None:
            return None
        if prefix is None:
            node = self.selection.current_node()
            folder = node if node is not None and node.children else (
                node.parent if node is not None else None)
            prefix = f"{folder.path}/" if folder is not None and folder.path else ""
        from rockskills_gui.ui.library.tree_dialogs import NewSkillDialog

        dialog = NewSkillDialog(prefix, self.creation_error, self.host)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.create_skill(dialog.name.text(),
                                                          dialog.summary.text().strip()))
        self._show(dialog)
        dialog.name.setFocus()
        dialog.name.end(False)
        return dialog

    def create_skill(self, name: str, summary: str = "") -> bool:
        change = self.ctx.apply(lambda lib: lib.create(name, summary=summary))
        if change is None or change.empty:
            return False
        self.ctx.select_skill(name)
        self.selection.reveal(name)
        self.openRequested.emit(name)
        return True

    # ---------------------------------------------------------------- rename and move

    def rename_current(self) -> None:
        """Rename inline (the full name is edited, so a new prefix moves the skill). From outside
        the tree (F2 in the editor) it is the current skill's name that is edited."""
        index = self.view.currentIndex()
        focus = QApplication.focusWidget()
        outside = focus is None or not self.host.isAncestorOf(focus)
        if (outside or not index.isValid()) and self.ctx.current_skill:
            self.selection.reveal(self.ctx.current_skill)
            index = self.view.currentIndex()
        if index.isValid():
            dock = self.host.parentWidget()
            if isinstance(dock, QDockWidget) and not dock.isVisible():
                dock.show()  # (the Library panel was hidden: the name is edited in it)
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)
            self.view.scrollTo(index)
            self.view.edit(index)

    def on_inline_text(self, text: str) -> None:
        """The inline editor's text changed: say now why it would be refused (the open
        library's agent's own name rules)."""
        library = self.ctx.library
        error = ("Type a name." if not text.strip()
                 else library.name_rule_error(text) if library is not None else None)
        self.show_message(error)

    def show_message(self, text: str | None) -> None:
        """Say why the name in the inline editor would be refused, at that editor."""
        self.message.setText(text or "")
        editors = [e for e in self.view.findChildren(QLineEdit, "inlineRename") if e.isVisible()]
        if not text or not editors:
            self.message.hide()
            return
        editor = editors[0].geometry()  # (in the viewport, the message's parent)
        room = self.view.viewport().rect()
        self.message.setFixedWidth(max(120, min(room.width() - 4, editor.width())))
        self.message.adjustSize()
        below = editor.bottom() + 2
        top = below if below + self.message.height() <= room.bottom() \
            else max(0, editor.top() - 2 - self.message.height())
        self.message.move(max(2, min(editor.left(), room.right() - self.message.width())), top)
        self.message.raise_()
        self.message.show()

    def inline_rename_error(self, index: Index, text: str) -> str | None:
        """Why Enter in the inline editor cannot rename (RockBot's message), or None."""
        node = self.model.node(index)
        new = text.strip()
        if node is None or new == node.path:
            return None  # nothing to rename: Enter just closes the editor
        if not new:
            return "Type a name."
        return self._rename_error(self.model.move_mapping(node, new))

    def on_inline_rename(self, old: str, new: str) -> None:
        """An inline edit asks for a rename (``model.renameRequested``)."""
        self.show_message(None)
        node = self.model.tree.find(old)
        if node is not None:
            # Queued: the editor is still closing when setData asks.
            mapping = self.model.move_mapping(node, new)
            QTimer.singleShot(0, self, lambda: self.request_rename(mapping, reveal=new))

    def move_selected(self) -> MoveDialog | None:
        """Ask for a folder and move the selected skills and folders into it."""
        nodes = self.selection.selected_nodes()
        if not nodes or self.ctx.library is None:
            return None
        what = f"'{nodes[0].path}'" if len(nodes) == 1 else f"{len(nodes)} items"
        folders = [n.path for n in self.model.tree if n.children]
        from rockskills_gui.ui.library.tree_dialogs import MoveDialog

        dialog = MoveDialog(what, folders, self.host)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        start = nodes[0].parent
        if start is not None and start.path:
            dialog.folder.setText(start.path)
        dialog.accepted.connect(lambda: self.move_into(nodes, dialog.target()))
        self._show(dialog)
        return dialog

    def move_into(self, nodes: list[Node], folder: str) -> None:
        target = self.model.tree.find(folder) if folder else self.model.tree.root
        if target is not None and any(is_inside(n, target) for n in nodes):
            self.ctx.operationFailed.emit("A folder cannot be moved into itself.")
            return
        mapping: dict[str, str] = {}
        chosen = {n.uid for n in nodes}
        for node in nodes:
            if any(a.uid in chosen for a in node.ancestors()):
                continue
            destination = f"{folder}/{node.label}" if folder else node.label
            if fold(destination) != node.key:
                mapping.update(self.model.move_mapping(node, destination))
        if mapping:
            reveal = f"{folder}/{nodes[0].label}" if folder else nodes[0].label
            self.request_rename(mapping, reveal=reveal)

    def request_rename(self, mapping: Mapping[str, str], reveal: str = "") -> RenamePreviewDialog | None:
        """Check the new names, show the see-also references to rewrite, then rename as one step.

        A single rename that no see-also names is applied at once (there is nothing to preview).
        """
        library = self.ctx.library
        mapping = {old: new for old, new in mapping.items() if old != new}
        if library is None or not mapping:
            return None
        error = self._rename_error(mapping)
        if error is not None:
            self.ctx.operationFailed.emit(error)
            return None
        references = library.references_to(mapping)
        if len(mapping) == 1 and not references:
            self.rename_now(mapping, reveal)
            return None
        from rockskills_gui.ui.library.tree_dialogs import RenamePreviewDialog

        dialog = RenamePreviewDialog(mapping, references, self.host)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.rename_now(mapping, reveal))
        self._show(dialog)
        return dialog

    def _rename_error(self, mapping: Mapping[str, str]) -> str | None:
        """The library's refusal of the new names, in its agent's words (invalid under its name
        rule, or taken by a skill that stays)."""
        library = self.ctx.library
        if library is None:
            return "No library is open."
        mapping = {old: new for old, new in mapping.items() if old != new}
        for new in mapping.values():
            error = library.name_rule_error(new)
            if error is not None:
                return error
        moving = {fold(old) for old in mapping}
        for new in mapping.values():
            existing = library.get(new)
            if existing is not None and fold(existing.name) not in moving:
                return library.name_taken(existing.name)
        return None

    def rename_now(self, mapping: Mapping[str, str], reveal: str) -> None:
        """Rename as one step now (checked and previewed before: :meth:`request_rename`)."""
        def done(change: ChangeSet | None) -> None:
            if change is not None and not change.empty:
                current = self.ctx.current_skill
                self.selection.reveal(current if fold(current) in {fold(n) for n in mapping.values()}
                                      else reveal or next(iter(mapping.values())))

        what = f"Moving {len(mapping):,} skills"
        self._operate(len(mapping), lambda lib: lib.rename_many(dict(mapping)), what, done)

    def _operate(self, count: int, operation: Callable[[Library], ChangeSet], label: str,
                 done: Callable[[ChangeSet | None], None]) -> None:
        """Run ``operation`` at once, or off the UI thread when it concerns more than
        ``LONG_CHANGE`` skills; ``done`` gets the change written (None when refused)."""
        if count <= LONG_CHANGE:
            done(self.ctx.apply(operation))
            return
        ticket = self.ctx.run(operation, label)
        if ticket is not None:
            ticket.finished.connect(
                lambda result: done(result.change if isinstance(result, OperationResult)
                                    and result.ok else None))

    # ---------------------------------------------------------------- delete

    def delete_selected(self) -> None:
        """Confirm, then delete every skill at or below the selection (one undo step)."""
        library = self.ctx.library
        nodes = self.selection.selected_nodes()
        if library is None or not nodes:
            return
        names: list[str] = []
        seen: set[str] = set()
        for node in nodes:
            for skill_node in self.model.tree.walk_skills(node):
                if skill_node.key not in seen:
                    seen.add(skill_node.key)
                    names.append(skill_node.name)
        if not names:
            return
        dangling = [r for r in library.references_to(names) if fold(r.referrer) not in seen]
        from rockskills_gui.core.library.archive import archives_on_delete  # (not at start-up)
        from rockskills_gui.ui.library.tree_dialogs import delete_box

        box = delete_box(names, len(dangling), self.host, archives=archives_on_delete(library))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(
            lambda button: self.delete_now(names)
            if box.buttonRole(button) == box.ButtonRole.DestructiveRole else None)
        self._show(box)

    def delete_now(self, names: list[str]) -> None:
        """Delete ``names`` as one step now (confirmed before: :meth:`delete_selected`): into the
        skill archive where the library's agent profile archives (every profile does)."""
        index = self.view.currentIndex()
        below = self.view.indexBelow(index) if index.isValid() else QModelIndex()
        keep = QPersistentModelIndex(below)

        def done(change: ChangeSet | None) -> None:
            if change is not None and not change.empty and keep.isValid():
                self.view.setCurrentIndex(keep)

        from rockskills_gui.core.library.archive import remove_skills  # (not at start-up)

        self._operate(len(names), lambda lib: remove_skills(lib, names, "deleted in the Library tree"),
                      f"Deleting {len(names):,} skills", done)

    # ---------------------------------------------------------------- dialogs

    def _show(self, dialog: QDialog) -> None:
        self.dialog = dialog
        dialog.destroyed.connect(lambda: self._forget(dialog))
        dialog.open()

    def _forget(self, dialog: QDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
