"""The architecture holds: no import cycle anywhere, every core module in a concept package, and
ARCHITECTURE.md names every package that exists (the import contracts are in pyproject.toml and
checked by ``lint-imports`` in the test command and in tests/core/test_core_has_no_qt.py)."""

from __future__ import annotations

import re
from pathlib import Path

import grimp

from tests.conftest import REPO


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each a cycle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(root: str) -> None:
        nonlocal counter
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & modules)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)
                                                    & modules))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_cycle_anywhere() -> None:
    """Every import counts, also those inside functions and under TYPE_CHECKING."""
    graph = grimp.build_graph("rockskills_gui")
    modules = {m for m in graph.modules if m.startswith("rockskills_gui")}
    assert _cycles(graph, modules) == []


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "cyclic_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from cyclic_pkg import b\n")
    (package / "b.py").write_text("def f():\n    from cyclic_pkg import a\n")
    (package / "c.py").write_text("from cyclic_pkg import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("cyclic_pkg")
    assert _cycles(graph, set(graph.modules)) == [["cyclic_pkg.a", "cyclic_pkg.b"]]


def test_no_core_module_outside_a_concept_package() -> None:
    core = REPO / "rockskills_gui" / "core"
    loose = sorted(p.name for p in core.glob("*.py") if p.name != "__init__.py")
    assert loose == []
    ui = REPO / "rockskills_gui" / "ui"
    assert sorted(p.name for p in ui.glob("*.py") if p.name != "__init__.py") == []


def test_architecture_md_names_every_package() -> None:
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = sorted(
        p.parent.relative_to(REPO).as_posix()
        for p in (REPO / "rockskills_gui").rglob("__init__.py") if "__pycache__" not in p.parts)
    named = set(re.findall(r"`(rockskills_gui/[\w/]+)/`", text))
    missing = [p for p in packages if p not in named and p != "rockskills_gui"]
    assert missing == [], "ARCHITECTURE.md does not describe: " + ", ".join(missing)
    stale = sorted(n for n in named if not (REPO / n).is_dir())
    assert stale == [], "ARCHITECTURE.md names packages that do not exist: " + ", ".join(stale)
