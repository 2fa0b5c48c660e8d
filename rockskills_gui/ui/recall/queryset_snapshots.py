"""The query sets' snapshots (keep a set's results, compare them with now or with the
editor's unsaved edits) and renamed skills (offer to rewrite the sets that name an old
name). A mixin of ``QuerySetPanel``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from rockskills_gui.core.model.names import fold
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.recall import snapshots
from rockskills_gui.core.recall.queryset import (
    QUERY_SET_DIR,
    AnyLayout,
    QuerySet,
    QuerySetError,
    compose_renames,
    load_query_set,
    query_naming,
    rename_in_query_set,
    save_query_set,
)
from rockskills_gui.core.recall.skill_recall import SkillRecall

EDITS_LABEL = "unsaved edits"  # what the last column compares with after "With unsaved edits"


def list_query_sets(layout: AnyLayout) -> list[Path]:
    folder = layout.agent_dir / QUERY_SET_DIR
    try:
        return sorted(p for p in folder.glob("*.json") if p.is_file())
    except OSError:
        return []


if TYPE_CHECKING:  # the panel is a QWidget; at run time this is a plain mixin
    _PanelBase = QWidget
else:
    _PanelBase = object


class QuerySetSnapshots(_PanelBase):
    """Snapshots and renamed skills of ``QuerySetPanel``; declares the state it uses."""

    failed: SignalInstance
    layout_: AnyLayout | None
    recall: SkillRecall | None
    query_set: QuerySet | None
    path: Path | None
    snapshot_box: QComboBox
    edits_provider: Callable[[], list[Skill]]
    diffs: dict[str, snapshots.QueryDiff]
    compared_with: str
    renames: dict[str, str]
    rename_banner: QWidget
    rename_label: QLabel

    if TYPE_CHECKING:  # behaviour from QuerySetPanel
        def evaluate(self) -> None: ...
        def _update_enabled(self) -> None: ...
        def _show(self) -> None: ...

    # ---------------------------------------------------------------- renamed skills

    def note_renames(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Skills were renamed or moved (a change set's ``renamed``): offer to rewrite the sets
        that still name them."""
        if pairs:
            self.renames = compose_renames(self.renames, pairs)
            self._update_rename_banner()

    def _sets_naming_renamed(self) -> dict[Path, QuerySet]:
        """The saved sets with a query that names an old name of :attr:`renames`."""
        if self.layout_ is None or not self.renames:
            return {}
        found: dict[Path, QuerySet] = {}
        for path in list_query_sets(self.layout_):
            try:
                query_set = load_query_set(path)
            except QuerySetError:
                continue
            if any(query_naming(c, self.renames) for c in query_set.queries):
                found[path] = query_set
        return found

    def _update_rename_banner(self) -> None:
        cases = [c for qs in self._sets_naming_renamed().values() for c in qs.queries
                 if query_naming(c, self.renames)]
        if not cases:
            self.rename_banner.hide()
            return
        named = {fold(n) for c in cases for n in (*c.expected, *c.avoid)}
        pairs = [(old, new) for old, new in self.renames.items() if fold(old) in named]
        count = f"{len(cases)} {'query names' if len(cases) == 1 else 'queries name'}"
        if len(pairs) == 1:
            text = f"{count} '{pairs[0][0]}' (renamed to '{pairs[0][1]}')"
        else:
            text = f"{count} renamed skills ({', '.join(f'{o} → {n}' for o, n in pairs)})"
        self.rename_label.setText(text + " —")
        self.rename_banner.show()

    def update_renamed(self) -> int:
        """Rewrite every saved set's queries to the new names; the number of queries rewritten."""
        if self.layout_ is None:
            return 0
        rewritten = 0
        for path, query_set in self._sets_naming_renamed().items():
            updated = rename_in_query_set(query_set, self.renames)
            try:
                save_query_set(self.layout_, path, updated)
            except (QuerySetError, OSError) as exc:
                self.failed.emit(str(exc) if isinstance(exc, QuerySetError)
                                 else f"could not save the set: {exc.strerror or exc}")
                self._update_rename_banner()
                return rewritten
            rewritten += sum(a != b for a, b in zip(query_set.queries, updated.queries, strict=True))
            if path == self.path:
                self.query_set = updated
                self.evaluate()
        self.renames = {}
        self.rename_banner.hide()
        return rewritten

    # ---------------------------------------------------------------- snapshots

    def _reload_snapshots(self, select: str | None = None) -> None:
        names = (snapshots.names_for(self.layout_, self.query_set.name)
                 if self.layout_ is not None and self.query_set is not None else [])
        self.snapshot_box.clear()
        self.snapshot_box.addItems(names)
        if select in names:
            self.snapshot_box.setCurrentText(select)
        if not names:
            self.snapshot_box.setPlaceholderText("no snapshot of this set yet")

    def save_snapshot(self, name: str | None = None) -> str | None:
        """Keep the current set's results as snapshot ``name`` (default: set name and UTC time)."""
        if self.layout_ is None or self.query_set is None or self.recall is None:
            return None
        name = name or snapshots.default_name(self.query_set.name)
        try:
            snapshots.save(self.layout_, snapshots.take(self.recall, self.query_set, name))
        except (QuerySetError, OSError) as exc:
            self.failed.emit(str(exc) if isinstance(exc, QuerySetError)
                             else f"could not save the snapshot: {exc.strerror or exc}")
            return None
        self._reload_snapshots(select=name)
        self._update_enabled()
        return name

    def compare_snapshot(self, name: str | None = None) -> list[snapshots.QueryDiff]:
        """Per query: the chosen snapshot against the library now (shown in the last column)."""
        name = name or self.snapshot_box.currentText()
        if self.layout_ is None or self.query_set is None or self.recall is None or not name:
            return []
        try:
            before = snapshots.load(self.layout_, name)
        except QuerySetError as exc:
            self.failed.emit(str(exc))
            return []
        now = snapshots.take(self.recall, self.query_set, "now")
        diffs = snapshots.compare(before, now)
        self.diffs = {d.query: d for d in diffs}
        self.compared_with = name
        self._show()
        return diffs

    def compare_edits(self) -> list[snapshots.QueryDiff]:
        """Per query: the library now against the library with the unsaved edits laid over it."""
        if self.query_set is None or self.recall is None:
            return []
        edits = {fold(s.name): s for s in self.edits_provider()}
        skills = [edits.pop(fold(s.name), s) for s in self.recall.skills()]
        now = snapshots.take(self.recall, self.query_set, "now")
        edited = snapshots.take(SkillRecall(skills), self.query_set, EDITS_LABEL)
        diffs = snapshots.compare(now, edited)
        self.diffs = {d.query: d for d in diffs}
        self.compared_with = EDITS_LABEL
        self._show()
        return diffs

    def follow_edits(self, recompute: bool = True) -> None:
        """The library or the editor's edits changed: redo the comparison with unsaved edits if
        one is shown (``recompute=False``: drop it instead, saying so -- a large library)."""
        if self.compared_with != EDITS_LABEL:
            return
        if recompute:
            self.compare_edits()
            return
        self.diffs = {}
        self.compared_with = ""
        self._show()
        self.failed.emit("The comparison with unsaved edits was cleared: the library or the edits "
                         "changed. Press With unsaved edits again.")
