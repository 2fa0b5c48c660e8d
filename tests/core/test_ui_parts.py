"""Issue 29: windows made of parts, and one way to read in the background (AST checks over
``rockskills_gui/ui``, in the style of test_architecture.py).

- No UI class inherits from two or more of the project's own classes (a mixin split), and no
  UI class declares state it does not own: no ``if TYPE_CHECKING:`` inside a class body (stubs
  for what other mixins provide), no class-level annotation without a value outside Protocols,
  dataclasses and NamedTuples, no base class chosen under ``TYPE_CHECKING`` (``_PaneBase =
  QWidget`` for the type checker, ``object`` at run time).
- One pool: only ``ui/common/queries.py`` starts work on a thread of its own (``QThreadPool``,
  ``QRunnable``, ``QThread``, ``threading.Thread``, ``concurrent.futures``); everything else
  asks ``AppContext.query`` (or ``queries.submit``)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from tests.conftest import REPO

UI = REPO / "rockskills_gui" / "ui"
PACKAGE = REPO / "rockskills_gui"
THE_POOL = UI / "common" / "queries.py"
THREAD_NAMES = {"QThreadPool", "QRunnable", "QThread", "ThreadPoolExecutor", "ProcessPoolExecutor"}
DECLARING_BASES = ("Protocol", "NamedTuple", "TypedDict")


def _is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test).split(".")[-1] == "TYPE_CHECKING"


def _our_classes(files: Iterable[Path]) -> set[str]:
    names: set[str] = set()
    for path in files:
        names.update(n.name for n in ast.walk(ast.parse(path.read_text("utf-8")))
                     if isinstance(n, ast.ClassDef))
    return names


def _base_name(base: ast.expr) -> str:
    if isinstance(base, ast.Subscript):  # Generic[P], LazyTab[EditorPane]
        base = base.value
    return ast.unparse(base).split(".")[-1]


def split_classes(source: str, ours: set[str], where: str) -> list[str]:
    """What in ``source`` splits a class into mixins that share declared state."""
    tree = ast.parse(source)
    found: list[str] = []
    checked_only = set()  # names bound under `if TYPE_CHECKING:` at module level
    for node in tree.body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign):
                    checked_only.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [_base_name(b) for b in node.bases]
        own = [b for b in bases if b in ours]
        if len(own) >= 2:
            found.append(f"{where}: {node.name} inherits from {', '.join(own)}")
        if any(b in checked_only for b in bases):
            found.append(f"{where}: {node.name}'s base is chosen under TYPE_CHECKING")
        declaring = any(b in DECLARING_BASES for b in bases) or any(
            "dataclass" in ast.unparse(d) for d in node.decorator_list)
        for stmt in node.body:
            if isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
                found.append(f"{where}: {node.name} declares stubs under TYPE_CHECKING "
                             f"(line {stmt.lineno})")
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is None and not declaring:
                found.append(f"{where}: {node.name} declares {ast.unparse(stmt.target)} without "
                             f"owning it (line {stmt.lineno})")
    return found


def private_threads(source: str, where: str) -> list[str]:
    """Work started on a thread outside the one pool."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names = {a.name for a in node.names}
            if node.module == "concurrent.futures" or (names & THREAD_NAMES):
                found.append(f"{where}: imports {', '.join(sorted(names))} from {node.module}")
        elif isinstance(node, ast.Import):
            if any(a.name.startswith("concurrent") for a in node.names):
                found.append(f"{where}: imports concurrent.futures")
        elif isinstance(node, ast.Attribute) and node.attr in {"Thread", *THREAD_NAMES}:
            found.append(f"{where}: uses {ast.unparse(node)} (line {node.lineno})")
    return found


def _ui_files() -> list[Path]:
    return sorted(UI.rglob("*.py"))


def test_no_ui_class_is_split_into_mixins_sharing_declared_state() -> None:
    ours = _our_classes(sorted(PACKAGE.rglob("*.py")))
    found = [line for path in _ui_files()
             for line in split_classes(path.read_text("utf-8"), ours,
                                       str(path.relative_to(REPO)))]
    assert found == []


def test_only_the_query_module_starts_threads() -> None:
    found = [line for path in _ui_files() if path != THE_POOL
             for line in private_threads(path.read_text("utf-8"), str(path.relative_to(REPO)))]
    assert found == []


MIXIN_SPLIT = '''
from typing import TYPE_CHECKING
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    _PaneBase = QWidget
else:
    _PaneBase = object


class PaneSaving(_PaneBase):
    current: object

    if TYPE_CHECKING:
        def show(self) -> None: ...


class PaneNavigation:
    pass


class Pane(PaneSaving, PaneNavigation, QWidget):
    pass
'''


def test_the_checks_find_a_mixin_split_and_a_private_thread() -> None:
    found = split_classes(MIXIN_SPLIT, {"PaneSaving", "PaneNavigation", "Pane"}, "pane.py")
    assert any("Pane inherits from PaneSaving, PaneNavigation" in f for f in found)
    assert any("PaneSaving's base is chosen under TYPE_CHECKING" in f for f in found)
    assert any("declares stubs under TYPE_CHECKING" in f for f in found)
    assert any("declares current without owning it" in f for f in found)
    threads = private_threads("import threading\nfrom PySide6.QtCore import QThreadPool\n"
                              "threading.Thread(target=print).start()\n", "job.py")
    assert len(threads) == 2


def _timer_lambdas_without_context(source: str) -> list[int]:
    """Lines of ``QTimer.singleShot(ms, lambda: ...)``: a lambda with no context object runs even
    after what it touches was deleted ("Internal C++ object already deleted")."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("singleShot") \
                and len(node.args) == 2 and isinstance(node.args[1], ast.Lambda):
            lines.append(node.lineno)
    return lines


def test_delayed_lambdas_name_the_object_they_belong_to() -> None:
    """A delayed lambda is given its context (``QTimer.singleShot(0, self, lambda: ...)``): Qt drops
    it with that object. Found by a full run: a Problems-dock resize queued by a window that a
    test closed at once raised from the event loop."""
    assert _timer_lambdas_without_context("QTimer.singleShot(0, lambda: w.resize(1, 1))") == [1]
    assert _timer_lambdas_without_context("QTimer.singleShot(0, w, lambda: w.resize(1, 1))") == []
    found = [f"{path.relative_to(REPO)}:{line}" for path in sorted(UI.rglob("*.py"))
             for line in _timer_lambdas_without_context(path.read_text("utf-8"))]
    assert found == []
