"""The architecture holds: no import cycle anywhere, every core module in a concept package, and
ARCHITECTURE.md names every package that exists (the import contracts are in pyproject.toml and
checked by ``lint-imports`` in the test command and in tests/core/test_core_has_no_qt.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grimp
import pytest

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


# ---------------------------------------------------------------- the one door (issue 29)

LIBRARY_DIR = REPO / "rockskills_gui" / "core" / "library"
# Attributes whose presence or value tells one library format from another: asked of the
# profile (``library.profile``) or the contract, never probed with getattr.
DUCK_ATTRIBUTES = frozenset({"format", "rules", "profile", "has_usage_log", "has_timestamps",
                             "scan_cache", "detection_note", "resources", "entries", "stats"})


def library_classes(folder: Path = LIBRARY_DIR) -> set[str]:
    """Every class in core/library that is a library: ``Library`` and its subclasses (by name,
    to a fixed point, as the AST spells the bases)."""
    bases: dict[str, set[str]] = {}
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = set()
                for base in node.bases:
                    base = base.value if isinstance(base, ast.Subscript) else base
                    if isinstance(base, ast.Name | ast.Attribute):
                        names.add(base.id if isinstance(base, ast.Name) else base.attr)
                bases[node.name] = names
    found = {"Library", "BaseLibrary"}  # (BaseLibrary: the contract's name before issue 29)
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return found
        found |= more


def _names_in(node: ast.AST) -> list[str]:
    """The class names a type expression spells (``A``, ``(A, B)``, ``A | B``, ``Union[A, B]``)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Tuple):
        return [n for elt in node.elts for n in _names_in(elt)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _names_in(node.left) + _names_in(node.right)
    if isinstance(node, ast.Subscript) and _names_in(node.value)[-1:] == ["Union"]:
        return _names_in(node.slice)
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
        try:  # a string annotation
            return _names_in(ast.parse(node.value, mode="eval").body)
        except (SyntaxError, ValueError):
            return []
    return []


def door_violations(source: str, classes: set[str], where: str = "<source>") -> list[str]:
    """Where ``source`` branches on a library's class instead of asking it: an ``isinstance`` or
    ``issubclass`` of a library class, a union of two library classes, or ``getattr`` of a
    format-telling attribute on a library."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
                hit = sorted(set(_names_in(node.args[1])) & classes)
                if hit:
                    found.append(f"{line}: {node.func.id}(..., {', '.join(hit)})")
            elif node.func.id in ("getattr", "hasattr") and len(node.args) >= 2:
                attr = node.args[1]
                owner = ast.unparse(node.args[0]).lower()
                if isinstance(attr, ast.Constant) and attr.value in DUCK_ATTRIBUTES and "lib" in owner:
                    found.append(f"{line}: {node.func.id}({ast.unparse(node.args[0])}, {attr.value!r})")
        if isinstance(node, ast.BinOp | ast.Subscript | ast.Constant):
            names = set(_names_in(node))
            if len(names & classes) >= 2:
                found.append(f"{line}: a union of {', '.join(sorted(names & classes))}")
    return sorted(set(found))


def test_nothing_outside_core_library_branches_on_a_library_class() -> None:
    """Outside core/library a library is the contract: callers ask it or its profile (issue 29)."""
    classes = library_classes()
    assert {"Library", "RockBotLibrary", "SkillMdLibrary"} <= classes
    found: list[str] = []
    for path in sorted((REPO / "rockskills_gui").rglob("*.py")):
        if LIBRARY_DIR in path.parents:
            continue
        found += door_violations(path.read_text(encoding="utf-8"), classes,
                                 path.relative_to(REPO).as_posix())
    assert found == []


@pytest.mark.parametrize("source", [
    "if isinstance(lib, RockBotLibrary): pass",
    "ok = isinstance(library, (Library, Other))",
    "ok = issubclass(type(lib), SkillMdLibrary | Other)",
    "def f(lib: RockBotLibrary | SkillMdLibrary) -> None: ...",
    "def f(lib: 'RockBotLibrary | SkillMdLibrary') -> None: ...",
    "x: Union[RockBotLibrary, SkillMdLibrary]",
    "rules = getattr(library, 'rules', None)",
    "fmt = getattr(self.ctx.library, 'format', 'rockbot')",
])
def test_the_door_check_finds_a_branch_on_a_library_class(source: str) -> None:
    assert door_violations(source, {"Library", "RockBotLibrary", "SkillMdLibrary"}) != []


def test_the_door_check_leaves_questions_alone() -> None:
    ok = ("if library.profile.holds.resources: pass\n"
          "fmt = getattr(args, 'format', None)\n"
          "def f(lib: Library | None) -> Library: ...\n"
          "isinstance(entry, dict)\n")
    assert door_violations(ok, {"Library", "RockBotLibrary", "SkillMdLibrary"}) == []
