"""The query sets' snapshots (keep a set's results, compare them with now or with the
editor's unsaved edits) and renamed skills (offer to rewrite the sets that name an old
name). Two parts of ``QuerySetPanel``, each owning its state: :class:`QuerySetRenames` and
:class:`QuerySetSnapshots`; they read the panel through :class:`SetsSource`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

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


class SetsSource(Protocol):
    """What the parts of ``QuerySetPanel`` read of it (the open library's sets, the set shown,
    its recall) and ask of it (evaluate the set, show the report, update the buttons)."""

    @property
    def layout_(self) -> AnyLayout | None: ...
    @property
    def recall(self) -> SkillRecall | None: ...
    @property
    def path(self) -> Path | None: ...
    @property
    def edits_provider(self) -> Callable[[], list[Skill]]: ...
    query_set: QuerySet | None
    def evaluate(self) -> None: ...
    def show_report(self) -> None: ...
    def update_enabled(self) -> None: ...


class QuerySetRenames:
    """Skills renamed since the sets were last rewritten (old -> new name), offered as an update
    in ``banner`` (``label`` says what); ``failed(message)`` when a set cannot be written."""

    def __init__(self, panel: SetsSource, banner: QWidget, label: QLabel,
                 failed: Callable[[str], None]) -> None:
        self.panel = panel
        self.banner = banner
        self.label = label
        self.failed = failed
        self.renames: dict[str, str] = {}

    # ---------------------------------------------------------------- renamed skills

    def note_renames(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Skills were renamed or moved (a change set's ``renamed``): offer to rewrite the sets
        that still name them."""
        if pairs:
            self.renames = compose_renames(self.renames, pairs)
            self._update_banner()

    def _sets_naming_renamed(self) -> dict[Path, QuerySet]:
        """The saved sets with a query that names an old name of :attr:`renames`."""
        layout = self.panel.layout_
        if layout is None or not self.renames:
            return {}
        found: dict[Path, QuerySet] = {}
        for path in list_query_sets(layout):
            try:
                query_set = load_query_set(path)
            except QuerySetError:
                continue
            if any(query_naming(c, self.renames) for c in query_set.queries):
                found[path] = query_set
        return found

    def _update_banner(self) -> None:
        cases = [c for qs in self._sets_naming_renamed().values() for c in qs.queries
                 if query_naming(c, self.renames)]
        if not cases:
            self.banner.hide()
            return
        named = {fold(n) for c in cases for n in (*c.expected, *c.avoid)}
        pairs = [(old, new) for old, new in self.renames.items() if fold(old) in named]
        count = f"{len(cases)} {'query names' if len(cases) == 1 else 'queries name'}"
        if len(pairs) == 1:
            text = f"{count} '{pairs[0][0]}' (renamed to '{pairs[0][1]}')"
        else:
            text = f"{count} renamed skills ({', '.join(f'{o} → {n}' for o, n in pairs)})"
        self.label.setText(text + " —")
        self.banner.show()

    def update_renamed(self) -> int:
        """Rewrite every saved set's queries to the new names; the number of queries rewritten."""
        panel = self.panel
        layout = panel.layout_
        if layout is None:
            return 0
        rewritten = 0
        for path, query_set in self._sets_naming_renamed().items():
            updated = rename_in_query_set(query_set, self.renames)
            try:
                save_query_set(layout, path, updated)
            except (QuerySetError, OSError) as exc:
                self.failed(str(exc) if isinstance(exc, QuerySetError)
                            else f"could not save the set: {exc.strerror or exc}")
                self._update_banner()
                return rewritten
            rewritten += sum(a != b for a, b in zip(query_set.queries, updated.queries, strict=True))
            if path == panel.path:
                panel.query_set = updated
                panel.evaluate()
        self.renames = {}
        self.banner.hide()
        return rewritten



class QuerySetSnapshots:
    """A set's snapshots (listed in ``box``): keep its results, compare them with now or with
    the editor's unsaved edits (the comparison shown: :attr:`diffs` against
    :attr:`compared_with`); ``failed(message)`` when one cannot be read or written."""

    def __init__(self, panel: SetsSource, box: QComboBox, failed: Callable[[str], None]) -> None:
        self.panel = panel
        self.box = box
        self.failed = failed
        self.diffs: dict[str, snapshots.QueryDiff] = {}
        self.compared_with = ""

    def forget(self) -> None:
        """Another set: no comparison is shown."""
        self.diffs = {}
        self.compared_with = ""

    # ---------------------------------------------------------------- snapshots

    def reload(self, select: str | None = None) -> None:
        """List the shown set's snapshots (``select`` the one named)."""
        layout, query_set = self.panel.layout_, self.panel.query_set
        names = (snapshots.names_for(layout, query_set.name)
                 if layout is not None and query_set is not None else [])
        self.box.clear()
        self.box.addItems(names)
        if select in names:
            self.box.setCurrentText(select)
        if not names:
            self.box.setPlaceholderText("no snapshot of this set yet")

    def save_snapshot(self, name: str | None = None) -> str | None:
        """Keep the current set's results as snapshot ``name`` (default: set name and UTC time)."""
        panel = self.panel
        layout, query_set, recall = panel.layout_, panel.query_set, panel.recall
        if layout is None or query_set is None or recall is None:
            return None
        name = name or snapshots.default_name(query_set.name)
        try:
            snapshots.save(layout, snapshots.take(recall, query_set, name))
        except (QuerySetError, OSError) as exc:
            self.failed(str(exc) if isinstance(exc, QuerySetError)
                        else f"could not save the snapshot: {exc.strerror or exc}")
            return None
        self.reload(select=name)
        panel.update_enabled()
        return name

    def compare_snapshot(self, name: str | None = None) -> list[snapshots.QueryDiff]:
        """Per query: the chosen snapshot against the library now (shown in the last column)."""
        panel = self.panel
        layout, query_set, recall = panel.layout_, panel.query_set, panel.recall
        name = name or self.box.currentText()
        if layout is None or query_set is None or recall is None or not name:
            return []
        try:
            before = snapshots.load(layout, name)
        except QuerySetError as exc:
            self.failed(str(exc))
            return []
        now = snapshots.take(recall, query_set, "now")
        diffs = snapshots.compare(before, now)
        self.diffs = {d.query: d for d in diffs}
        self.compared_with = name
        panel.show_report()
        return diffs

    def compare_edits(self) -> list[snapshots.QueryDiff]:
        """Per query: the library now against the library with the unsaved edits laid over it."""
        panel = self.panel
        query_set, recall = panel.query_set, panel.recall
        if query_set is None or recall is None:
            return []
        edits = {fold(s.name): s for s in panel.edits_provider()}
        skills = [edits.pop(fold(s.name), s) for s in recall.skills()]
        now = snapshots.take(recall, query_set, "now")
        edited = snapshots.take(SkillRecall(skills), query_set, EDITS_LABEL)
        diffs = snapshots.compare(now, edited)
        self.diffs = {d.query: d for d in diffs}
        self.compared_with = EDITS_LABEL
        panel.show_report()
        return diffs

    def follow_edits(self, recompute: bool = True) -> None:
        """The library or the editor's edits changed: redo the comparison with unsaved edits if
        one is shown (``recompute=False``: drop it instead, saying so -- a large library)."""
        if self.compared_with != EDITS_LABEL:
            return
        if recompute:
            self.compare_edits()
            return
        self.forget()
        self.panel.show_report()
        self.failed("The comparison with unsaved edits was cleared: the library or the edits "
                         "changed. Press With unsaved edits again.")
