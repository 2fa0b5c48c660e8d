"""Tools ▸ Skill Archive…: the skills a dream deleted, pruned or merged away (or archived by hand),
listed with when and why, previewed, and restored byte for byte.

The view only reads; Restore is the core's ``restore_skill`` run through the context (one
journaled change, one step of Edit ▸ Undo), so every pane follows. A restore onto a name that is
taken now is refused with the reason in the view, nothing written; Restore As… puts it back under
another name.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rockskills_gui.core.library.archive import restore_refusal, restore_skill
from rockskills_gui.core.library.archive_records import (
    ArchivedSkill,
    ArchiveError,
    archive_places,
    archived,
    damage_of,
    entry_files,
)
from rockskills_gui.core.model.size_limits import LINT_TEXT_MAX_BYTES
from rockskills_gui.core.storage import fileio
from rockskills_gui.core.storage.changes import ChangeSet
from rockskills_gui.ui.common.context import AppContext

PREVIEW_MAX = LINT_TEXT_MAX_BYTES  # bytes of the skill file shown


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class ArchiveView(QDialog):
    """The open library's skill archive (see the module doc)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("archiveView")
        self.setWindowTitle("Skill Archive")
        self.resize(980, 620)
        self.ctx = ctx
        self.skills: list[ArchivedSkill] = []
        self.intro = QLabel(self)
        self.intro.setObjectName("archiveIntro")
        self.intro.setWordWrap(True)
        self.table = QTreeWidget(self)
        self.table.setObjectName("archiveTable")
        self.table.setAccessibleName("Archived skills")
        self.table.setHeaderLabels(["Skill", "Archived", "Why", "From"])
        self.table.setRootIsDecorated(False)
        self.table.currentItemChanged.connect(lambda *_a: self.show_current())
        self.table.itemDoubleClicked.connect(lambda *_a: self.restore())
        self.details = QLabel(self)
        self.details.setObjectName("archiveDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preview = QPlainTextEdit(self)
        self.preview.setObjectName("archivePreview")
        self.preview.setAccessibleName("The archived skill file")
        self.preview.setReadOnly(True)
        right = QWidget(self)
        side = QVBoxLayout(right)
        side.setContentsMargins(0, 0, 0, 0)
        side.addWidget(self.details)
        side.addWidget(self.preview, 1)
        split = QSplitter(self)
        split.addWidget(self.table)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.message = QLabel(self)
        self.message.setObjectName("archiveMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.restore_button = QPushButton("&Restore", self)
        self.restore_button.setObjectName("archiveRestore")
        self.restore_button.clicked.connect(lambda: self.restore())
        self.restore_as_button = QPushButton("Restore &As…", self)
        self.restore_as_button.setObjectName("archiveRestoreAs")
        self.restore_as_button.clicked.connect(self.restore_as)
        refresh = QPushButton("Re&fresh", self)
        refresh.setObjectName("archiveRefresh")
        refresh.clicked.connect(self.refresh)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        for widget in (self.restore_button, self.restore_as_button, refresh):
            row.addWidget(widget)
        row.addStretch(1)
        row.addWidget(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(split, 1)
        layout.addWidget(self.message)
        layout.addLayout(row)
        ctx.libraryChanged.connect(lambda _library: self.refresh())
        ctx.changeApplied.connect(self._changed)
        self.refresh()

    # ---------------------------------------------------------------- listing

    def refresh(self) -> None:
        """List the open library's archive again (keeping the selected entry)."""
        library = self.ctx.library
        keep = self.current()
        self.table.clear()
        self.skills = []
        if library is None:
            self.intro.setText("Open a library first.")
            self._buttons()
            return
        self.skills, problems = archived(library)
        places = archive_places(library)  # where the agent's profile keeps it (storage.archive_dir)
        where = (", ".join(f"{library.layout.display_path(p)}/" for p in places) or "no archive folder")
        where += f" ({library.profile.label} never loads a skill from there)"
        self.intro.setText(
            f"<b>{len(self.skills)} archived skill{'s' if len(self.skills) != 1 else ''}</b> in "
            f"{_escape(where)}. Deleting in the Library tree and a dream's deletions, prunes and merges "
            "move skills here, byte for byte; restore one to put it back exactly." + "".join(
                f"<br>Not read: {_escape(p)}" for p in problems[:5]))
        for skill in self.skills:
            record = skill.record
            when = record.archived_at[:16].replace("T", " ") if record else ""
            origin = record.origin if record else library.layout.display_path(skill.folder)
            item = QTreeWidgetItem([skill.name, when, skill.why(), origin])
            item.setData(0, Qt.ItemDataRole.UserRole, skill.entry)
            self.table.addTopLevelItem(item)
        for column in range(3):
            self.table.resizeColumnToContents(column)
        index = next((i for i, s in enumerate(self.skills) if keep is not None and s.entry == keep.entry), 0)
        first = self.table.topLevelItem(index) if self.skills else None
        if first is not None:
            self.table.setCurrentItem(first)
        self.show_current()

    def current(self) -> ArchivedSkill | None:
        item = self.table.currentItem()
        if item is None:
            return None
        entry = item.data(0, Qt.ItemDataRole.UserRole)
        return next((s for s in self.skills if s.entry == entry), None)

    def select(self, name: str) -> bool:
        """Make the newest archived skill named ``name`` (or the entry ``name``) current."""
        for index, skill in enumerate(self.skills):
            item = self.table.topLevelItem(index)
            if item is not None and (skill.entry == name or skill.name == name):
                self.table.setCurrentItem(item)
                return True
        return False

    def show_current(self) -> None:
        """The selected entry's record, its files and its skill file's text."""
        skill = self.current()
        self._buttons()
        if skill is None:
            self.details.setText("")
            self.preview.setPlainText("")
            return
        record = skill.record
        lines = [f"<b>{_escape(skill.name)}</b> — {_escape(skill.why())}"]
        if record is not None:
            lines.append(f"Archived {_escape(record.archived_at)} from {_escape(record.origin)}")
            if record.reason:
                lines.append(_escape(record.reason))
        damage = damage_of(skill)
        if damage:
            lines.append(f"<b>Changed since it was archived</b>: {_escape(damage)} (a restore puts "
                         "back what the archive holds now)")
        try:
            files = entry_files(skill.folder)
        except ArchiveError as exc:
            lines.append(f"<b>Cannot be restored</b>: {_escape(str(exc))}")
            files = []
        lines.append("Files: " + ", ".join(_escape(rel) for rel, _path in files))
        self.details.setText("<br>".join(lines))
        main = next((path for rel, path in files if rel.rsplit("/", 1)[-1] in ("SKILL.md", "skill.md")
                     or (rel.endswith(".json") and ".resources/" not in rel)), None)
        text = ""
        if main is not None:
            try:
                text = fileio.read_regular(main, PREVIEW_MAX).decode("utf-8", "replace")
            except OSError as exc:
                text = f"(cannot be read: {exc.strerror or exc})"
        self.preview.setPlainText(text)

    def _buttons(self) -> None:
        has = self.current() is not None and self.ctx.library is not None
        self.restore_button.setEnabled(has)
        self.restore_as_button.setEnabled(has)

    def _changed(self, change: object) -> None:
        if isinstance(change, ChangeSet) and not change.empty:
            self.refresh()

    # ---------------------------------------------------------------- restoring

    def restore(self, as_name: str | None = None) -> ChangeSet | None:
        """Restore the selected skill (under ``as_name`` when given); a refusal is said here and
        nothing is written."""
        skill = self.current()
        library = self.ctx.library
        if skill is None or library is None:
            return None
        refusal = restore_refusal(library, skill, as_name)
        if refusal is not None:
            self.message.setText(f"<b>Not restored</b>: {_escape(refusal)}")
            return None
        change = self.ctx.apply(lambda lib: restore_skill(lib, skill, as_name))
        if change is None or change.empty:
            self.message.setText("<b>Not restored</b>: the library refused the change (see the "
                                 "message shown).")
            return None
        name = change.created[0] if change.created else skill.name
        self.message.setText(f"Restored '{_escape(name)}' (Edit ▸ Undo puts it back in the archive).")
        self.ctx.select_skill(name)
        return change

    def restore_as(self) -> ChangeSet | None:
        skill = self.current()
        if skill is None:
            return None
        name, ok = QInputDialog.getText(self, "Restore As", f"Restore '{skill.name}' under the name:",
                                        text=f"{skill.name}-restored")
        if not ok or not name.strip():
            return None
        return self.restore(name.strip())
