"""Nothing lost between features (issue 16) in a SKILL.md (Agent Skills) library: the same machine
and invariants as the RockBot test (``nothing_lost_machine.py``) over a writable copy of a real
public corpus (``../shared/corpora/anthropics-skills``, copied with its SOURCE.txt and licence).

Here the frontmatter is part of what is typed and kept: the summary the user types is the
``description``, and the agent also writes keys the editor does not show (under ``metadata``),
which every save must keep. The agent deletes a skill by removing its folder. SKILL.md libraries
have no dream runs and no usage log, so those rules are RockBot's only.

Default run: up to 150 examples of up to 8 steps, at least 15, while its time budget lasts
(``WHOLE_APP``: ``ROCKSKILLS_PROPERTY_SECONDS`` × 4, 40 s by default; tests/property_budget.py);
``pytest -m slow`` runs 1,000 of up to 25, however long they take.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rockskills_gui.core.library.skillmd.library import SkillMdLibrary
from rockskills_gui.core.library.skillmd.store import SkillMdEntry, edited_bytes, read_skill_md
from rockskills_gui.core.model import frontmatter as fm
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.ui.common.buffers import Buffer
from tests.conftest import SHARED
from tests.property_budget import Budget
from tests.ui.conftest import make_writable
from tests.ui.nothing_lost_machine import WHOLE_APP, NothingLost, run, scripted

CORPUS = SHARED / "corpora" / "anthropics-skills"  # SKILL.md files, SOURCE.txt, licence
FOCUS = ("brand-guidelines", "internal-comms")  # short skills, typed into first


class NothingLostSkillMd(NothingLost):
    """A folder of SKILL.md skill folders (Agent Skills)."""

    focus = FOCUS

    @property
    def md(self) -> SkillMdLibrary:
        library = self.ctx.library
        assert isinstance(library, SkillMdLibrary), type(library)
        return library

    def make_library(self, root: Path) -> Path:
        dest = root / "anthropics-skills"  # (a folder named skills/ opens as RockBot's)
        shutil.copytree(CORPUS, dest)
        return make_writable(dest)

    def new_name(self, kind: str, old: str = "") -> str:
        return {"create": f"new-c{self.counter}", "agent": f"agent-s{self.counter}",
                "rename": f"{old}-r{self.counter}", "move": f"moved-r{self.counter}"}[kind]

    def entry(self, path: Path) -> SkillMdEntry:
        lib = self.md
        entry = read_skill_md(lib.roots[0], path, lib.profile, path.name)
        assert isinstance(entry, SkillMdEntry), entry
        return entry

    def read_skill(self, path: Path) -> Skill:
        return self.entry(path).skill

    def is_skill_file(self, path: Path) -> bool:
        return path.name in ("SKILL.md", "skill.md")

    def agent_edit(self, path: Path, how: str, marker: str) -> None:
        raw = path.read_bytes()
        if how == "rewrite":  # the body, appended as text
            data = raw + f"\n{marker}\n".encode()
        elif how == "summary":  # the frontmatter's description
            entry = self.entry(path)
            summary = f"{entry.skill.summary or ''} {marker}"
            data = edited_bytes(entry, entry.skill.model_copy(update={"summary": summary}),
                                self.md.profile)
        elif how == "extra":  # a frontmatter key the editor does not show
            entry = self.entry(path)
            metadata = entry.values.get("metadata")
            metadata = dict(metadata) if isinstance(metadata, dict) else {}
            metadata[f"agent-note-{self.counter}"] = marker
            head = fm.edit_frontmatter(entry.doc.frontmatter, {"metadata": metadata},
                                       entry.doc.newline, self.md.profile.storage.frontmatter.plain)
            data = entry.doc.with_parts(frontmatter=head).to_bytes()
        else:  # "dates": the same bytes written again
            data = raw
        path.write_bytes(data)
        if how == "dates":
            stamp = path.stat().st_mtime_ns + 1_000_000_000
            os.utime(path, ns=(stamp, stamp))

    def agent_delete(self, path: Path) -> None:
        shutil.rmtree(path.parent)  # a skill is its folder

    def agent_skill_bytes(self, name: str, marker: str) -> bytes:
        return (f"---\nname: {name}\ndescription: Made by the agent.\n"
                f"metadata:\n  agent-note: {marker}\n---\n\n# {name}\n\n{marker} steps.\n").encode()


def test_nothing_lost_in_a_skill_md_library(qtbot) -> None:
    run(NothingLostSkillMd, qtbot, Budget(minimum=15, maximum=150, share=WHOLE_APP), steps=8)


@pytest.mark.slow
@pytest.mark.timeout(0)
def test_nothing_lost_in_a_skill_md_library_many_runs(qtbot) -> None:
    run(NothingLostSkillMd, qtbot, Budget(minimum=1000, maximum=1000), steps=25)


def test_the_skill_md_machine_fails_when_the_conflict_check_is_disabled(qtbot, monkeypatch) -> None:
    """The invariants are not vacuous here either: with ``Buffer.clashes`` switched off, Edit ▸ Undo
    of a save moves a buffer holding newer unsaved edits onto the older text without a question,
    and the machine says so."""
    monkeypatch.setattr(Buffer, "clashes", lambda self, new_base: set())
    with scripted(NothingLostSkillMd, qtbot) as machine:
        machine.start_with_unsaved_edits(index=0, in_summary=False)
        assert machine.pane.current is not None and machine.pane.current.name == FOCUS[0]
        machine.save(all_of_them=False)
        machine.no_silent_rebase()  # (the invariants run after every step)
        machine.type_into_the_current_buffer(in_summary=False)
        machine.no_silent_rebase()  # holds so far
        machine.undo_or_redo(redo=False)  # undoes the save under the newer edits
        with pytest.raises(AssertionError, match="changed under unsaved edits and nobody asked"):
            machine.no_silent_rebase()


def test_the_agent_s_frontmatter_survives_a_save(qtbot) -> None:
    """A frontmatter key the agent adds while the user edits the same skill is still in the file
    after the user saves (the save rewrites only what the user changed)."""
    with scripted(NothingLostSkillMd, qtbot) as machine:
        machine.start_with_unsaved_edits(index=0, in_summary=True)
        path = machine.lib.skill_path(FOCUS[0])
        machine.agent_writes(index=0, how="extra")
        machine.save(all_of_them=False)
        text = path.read_text(encoding="utf-8")
        typed = [m for m, owner in machine.protected.items() if owner is not None]
        written = [m for m, owner in machine.protected.items() if owner is None]
        assert typed and written and all(m in text for m in typed + written), text[:600]
        machine.nothing_typed_is_lost()
        machine.disk_is_what_the_library_believes()


def test_a_saved_skill_deleted_then_recreated_on_disk_keeps_the_users_text(qtbot) -> None:
    """Found by the budgeted machine: the user saves, the agent deletes that skill's folder, then
    writes a new skill of the same name; the user's version (only in the marked buffer now) must
    not be replaced silently by the new one (the disk-conflict choice is offered instead)."""
    with scripted(NothingLostSkillMd, qtbot) as machine:
        machine.start_with_unsaved_edits(index=0, in_summary=False)
        machine.save(all_of_them=False)
        machine.nothing_typed_is_lost()
        machine.agent_writes(how="delete", index=0)
        machine.nothing_typed_is_lost()
        machine.agent_creates(index=3)  # an odd index: the deleted skill's name
        machine.nothing_typed_is_lost()


def test_an_archived_skill_with_saved_text_comes_back_and_a_taken_name_is_refused(qtbot) -> None:
    """Issue 32: the user saves text into a skill, archives it (the text is in the archive, not
    lost), creates a skill of that name (the restore is refused, nothing written), restores it
    under another name, and the text is back in a skill."""
    with scripted(NothingLostSkillMd, qtbot) as machine:
        machine.start_with_unsaved_edits(index=0, in_summary=False)
        machine.save(all_of_them=False)
        name = FOCUS[0]
        typed = [m for m, owner in machine.protected.items() if owner is not None]
        machine.archive(index=1)  # the focus skill just saved (index 0 is the open buffer's)
        assert name not in machine.lib and (machine.lib.skills_dir / ".archive" / name).is_dir()
        machine.discard_a_deleted_skill()
        machine.nothing_typed_is_lost()
        machine.disk_is_what_the_library_believes()
        machine.ctx.apply(lambda lib: lib.create(name, "Someone else's", "Other."))
        machine.restore(index=0, rename=False)  # refused: the name is taken now
        assert name in machine.lib and any(machine.lib.skills_dir.glob(".archive/*/SKILL.md"))
        machine.restore(index=0, rename=True)
        restored = [n for n in machine.lib.names() if n.startswith(f"{name}-r")]
        assert restored and all(m in machine.lib.get(restored[0]).content for m in typed)
        machine.nothing_typed_is_lost()
        machine.disk_is_what_the_library_believes()
