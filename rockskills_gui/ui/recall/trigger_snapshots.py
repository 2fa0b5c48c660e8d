"""Named snapshots of trigger-eval results (``recall-tests/trigger-snapshots/``, beside the
library, never in ``skills/``), and a snapshot compared with the last run, row by row, as the
query sets' snapshots are. A part of the trigger-eval panel.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QComboBox

from rockskills_gui.core.evals import snapshots
from rockskills_gui.core.evals.report import TriggerReport
from rockskills_gui.core.recall.queryset import AnyLayout


class TriggerSnapshots:
    """The library's trigger-eval snapshots listed in ``box``; ``failed(message)`` when one
    cannot be read or written."""

    def __init__(self, box: QComboBox, failed: Callable[[str], None]) -> None:
        self.box = box
        self.failed = failed
        self.layout: AnyLayout | None = None

    def set_library(self, layout: AnyLayout | None) -> None:
        self.layout = layout
        self.reload()

    def reload(self, select: str | None = None) -> None:
        names = snapshots.names(self.layout) if self.layout is not None else []
        self.box.clear()
        self.box.addItems(names)
        if select in names:
            self.box.setCurrentText(select)
        self.box.setPlaceholderText("no snapshot yet")
        self.box.setEnabled(bool(names))

    def save(self, report: TriggerReport, name: str | None = None) -> str | None:
        """Keep ``report``'s results as ``name`` (default: ``trigger-`` and the UTC time)."""
        if self.layout is None:
            return None
        name = name or snapshots.default_name()
        try:
            snapshots.save(self.layout, snapshots.take(report, name))
        except (snapshots.SnapshotError, OSError) as exc:
            self.failed(str(exc) if isinstance(exc, snapshots.SnapshotError)
                        else f"could not save the snapshot: {exc.strerror or exc}")
            return None
        self.reload(select=name)
        return name

    def compare(self, report: TriggerReport, name: str | None = None) -> list[snapshots.RowDiff] | None:
        """Per row (skill and query): snapshot ``name`` (default: the chosen one) against
        ``report``; None when it cannot be read."""
        name = name or self.box.currentText()
        if self.layout is None or not name:
            return None
        try:
            before = snapshots.load(self.layout, name)
        except snapshots.SnapshotError as exc:
            self.failed(str(exc))
            return None
        return snapshots.compare(before, snapshots.take(report, "now"))
