"""The Usage tab's Signals list: curation signals grouped (link these, review this link, never
used, unused, pruned soon, gone), each group bounded, and the actions on a chosen row (open,
link, unlink: one undoable see-also change each). A part of ``UsagePane``."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtWidgets import QMenu, QTreeWidgetItem

from rockskills_gui.core.model.dream_schedule import next_dream_hint
from rockskills_gui.core.model.names import fold
from rockskills_gui.core.usage.report import UsageReport
from rockskills_gui.core.usage.signals import SUGGEST_MIN_SESSIONS
from rockskills_gui.ui.common.context import AppContext
from rockskills_gui.ui.common.tree_items import top_level_items
from rockskills_gui.ui.usage.usage_layout import UsageLayout
from rockskills_gui.ui.usage.usage_widgets import when

SIGNALS_SHOWN = 200  # rows listed per signal group (the group's title has the full count)
ITEM_ROLE = Qt.ItemDataRole.UserRole + 20  # signal items: (kind, a, b)


class UsageSignalsTab(QObject):
    """Fills the Signals tab of ``UsagePane`` (its ``widgets``) and acts on its rows;
    ``open_skill(name)`` opens a skill."""

    def __init__(self, ctx: AppContext, widgets: UsageLayout,
                 open_skill: Callable[[str | None], None]) -> None:
        super().__init__(widgets)
        self.ctx = ctx
        self.w = widgets
        self.open_skill = open_skill
        widgets.signals_tree.itemSelectionChanged.connect(self._update_signal_buttons)
        widgets.signals_tree.itemDoubleClicked.connect(lambda _item, _col: self._open_signal())
        widgets.signals_tree.customContextMenuRequested.connect(self._signal_menu)
        widgets.open_button.clicked.connect(self._open_signal)
        widgets.link_button.clicked.connect(self._link_signal)
        widgets.unlink_button.clicked.connect(self._unlink_signal)

    # ---------------------------------------------------------------- signals

    def fill(self, report: UsageReport) -> None:
        """List ``report``'s curation signals, by group (the groups open stay open)."""
        signals = report.signals
        tree = self.w.signals_tree
        expanded = {item.text(0).split(" (")[0] for item in top_level_items(tree) if item.isExpanded()}
        tree.clear()
        minimum = max(SUGGEST_MIN_SESSIONS, self.w.min_spin.value())

        def group(title: str, count: int, tip: str, more: bool = False) -> QTreeWidgetItem:
            item = QTreeWidgetItem(tree, [f"{title} ({count:,}{'+' if more else ''})", ""])
            item.setToolTip(0, tip)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            item.setExpanded(title in expanded or (not expanded and count > 0 and count <= 12))
            item.setFirstColumnSpanned(True)  # a group's title has the whole row
            return item

        def child(parent: QTreeWidgetItem, text: str, detail: str, kind: str, a: str,
                  b: str = "") -> None:
            item = QTreeWidgetItem(parent, [text, detail])
            item.setData(0, ITEM_ROLE, (kind, a, b))
            item.setToolTip(0, text)
            item.setToolTip(1, detail)

        def rest(parent: QTreeWidgetItem, count: int, more: bool = False) -> None:
            """A last row for what a group does not list (a big library: tens of thousands)."""
            if count > SIGNALS_SHOWN or more:
                item = QTreeWidgetItem(parent, [f"… and {count - SIGNALS_SHOWN:,}{'+' if more else ''} "
                                                "more", "filter the library tree to see them"])
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)

        g = group("Link these two", len(signals.link),
                  f"Used together in at least {minimum} sessions but neither names the other in "
                  "see-also", more=signals.link_truncated)
        for s in signals.link[:SIGNALS_SHOWN]:
            child(g, f"{s.a} + {s.b}", f"{s.sessions} session(s) together", "link", s.a, s.b)
        rest(g, len(signals.link), signals.link_truncated)
        g = group("Review this link", len(signals.review),
                  "A see-also link whose skills were not used together in this window")
        for r in signals.review[:SIGNALS_SHOWN]:
            child(g, f"{r.referrer} → {r.target}", r.reason, "review", r.referrer, r.target)
        rest(g, len(signals.review))
        g = group("Never used", len(signals.never_used),
                  "No usage event in the whole log and no lastUsedAt")
        for name in signals.never_used[:SIGNALS_SHOWN]:
            child(g, name, "never used", "open", name)
        rest(g, len(signals.never_used))
        g = group(f"Unused for {self.w.unused_spin.value()}+ days", len(signals.unused),
                  "Last use (lastUsedAt or the log) at least this many days ago")
        for a in signals.unused[:SIGNALS_SHOWN]:
            child(g, a.name, f"{a.idle_days} days (last use {when(a.last_used)})", "open", a.name)
        rest(g, len(signals.unused))
        threshold = when(signals.prune_threshold)
        library = self.ctx.library
        cadence = (f"; {next_dream_hint(library.profile.curation.schedule, report.request.now)}"
                   if library is not None else "")
        g = group("Pruned by the next dream", len(signals.prune),
                  f"Last activity (lastUsedAt ?? updatedAt ?? createdAt) before {threshold}: "
                  f"RockBot's 18-month rule deletes these{cadence}")
        for a in signals.prune[:SIGNALS_SHOWN]:
            child(g, a.name, f"last activity {when(a.last_activity)}", "open", a.name)
        rest(g, len(signals.prune))
        g = group("Pruned within 30 days", len(signals.prune_soon),
                  "Will cross the 18-month threshold within 30 days unless used or edited")
        for a in signals.prune_soon[:SIGNALS_SHOWN]:
            child(g, a.name, f"last activity {when(a.last_activity)}", "open", a.name)
        rest(g, len(signals.prune_soon))
        gone = report.gone
        g = group("Used, but no longer in the library", len(gone),
                  "Events in the window for skills that do not exist (kept in the counts, "
                  "as RockBot keeps them)")
        for u in gone[:SIGNALS_SHOWN]:
            child(g, u.name, f"{u.events} use(s) in {u.sessions} session(s)", "gone", u.name)
        rest(g, len(gone))
        self._update_signal_buttons()

    def _signal_item(self) -> tuple[str, str, str] | None:
        items = self.w.signals_tree.selectedItems()
        value = items[0].data(0, ITEM_ROLE) if items else None
        return tuple(value) if value else None

    def _update_signal_buttons(self) -> None:
        item = self._signal_item()
        kind = item[0] if item else ""
        self.w.open_button.setEnabled(kind in ("link", "review", "open"))
        self.w.link_button.setEnabled(kind == "link")
        self.w.unlink_button.setEnabled(kind == "review")

    def _open_signal(self) -> None:
        item = self._signal_item()
        if item is not None and item[0] != "gone":
            self.open_skill(item[1])

    def _link_signal(self, reverse: bool = False) -> None:
        item = self._signal_item()
        if item is not None and item[0] == "link":
            a, b = (item[2], item[1]) if reverse else (item[1], item[2])
            self.add_link(a, b)

    def _unlink_signal(self) -> None:
        item = self._signal_item()
        if item is not None and item[0] == "review":
            self.remove_link(item[1], item[2])

    def _signal_menu(self, pos: QPoint) -> None:
        item = self._signal_item()
        if item is None:
            return
        menu = QMenu(self.w)
        kind, a, b = item
        if kind != "gone":
            menu.addAction(f"Open '{a}'", lambda: self.open_skill(a))
        if kind in ("link", "review") and b:
            menu.addAction(f"Open '{b}'", lambda: self.open_skill(b))
        if kind == "link":
            menu.addAction(f"Add '{b}' to see-also of '{a}'", lambda: self.add_link(a, b))
            menu.addAction(f"Add '{a}' to see-also of '{b}'", lambda: self.add_link(b, a))
        if kind == "review":
            menu.addAction(f"Remove '{b}' from see-also of '{a}'", lambda: self.remove_link(a, b))
        menu.exec(self.w.signals_tree.viewport().mapToGlobal(pos))

    def add_link(self, referrer: str, target: str) -> None:
        """Append ``target`` to ``referrer``'s seeAlso (one undoable change)."""
        library = self.ctx.library
        skill = library.get(referrer) if library is not None else None
        if skill is None:
            return
        links = [*(skill.see_also or ()), target]
        self.ctx.apply(lambda lib: lib.update(skill.name, see_also=links))

    def remove_link(self, referrer: str, target: str) -> None:
        """Remove every ``target`` entry (case-insensitive) from ``referrer``'s seeAlso."""
        library = self.ctx.library
        skill = library.get(referrer) if library is not None else None
        if skill is None or not skill.see_also:
            return
        links = [t for t in skill.see_also if fold(t) != fold(target)]
        self.ctx.apply(lambda lib: lib.update(skill.name, see_also=links or None))
