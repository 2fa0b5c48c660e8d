"""A skill's own trigger-eval file (found, written as an undoable change in a SKILL.md library,
beside the query sets for RockBot) and the description what-if (which rows an unsaved description
affects), against real libraries in tmp_path and the scripted chat-completions server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rockskills_gui.core.budget.limits import Limits
from rockskills_gui.core.evals.cache import OutcomeCache
from rockskills_gui.core.evals.presentation import Showing, showing_of
from rockskills_gui.core.evals.run import EvalOptions, run_trigger_evals
from rockskills_gui.core.evals.skill_files import (
    all_own,
    home_file,
    load_own,
    own_file,
    save_rows,
    write_rows,
)
from rockskills_gui.core.evals.trigger_file import TriggerEvalSet, TriggerFileError, TriggerRow
from rockskills_gui.core.evals.what_if import what_if
from rockskills_gui.core.library.open import open_library
from rockskills_gui.core.llm.endpoint import Endpoint
from rockskills_gui.core.storage.changes import LibraryError
from tests.core.llm_server import activate, by_query, scripted_server
from tests.core.test_trigger_evals import field_library

ROWS = (TriggerRow("merge these pdfs", True), TriggerRow("write a memo", False))


@pytest.fixture
def skill_lib(tmp_path: Path) -> Path:
    return field_library(tmp_path / "lib", {"pdf": "Read, fill and merge PDF forms.",
                                            "docx": "Write Word documents."})


def test_a_skills_own_file_is_found_where_the_field_keeps_it(skill_lib: Path, agent_copy: Path) -> None:
    library = open_library(skill_lib)
    field = skill_lib / "skills" / "math-olympiad" / "evals" / "trigger_eval.json"
    assert own_file(library, "math-olympiad") == field == home_file(library, "math-olympiad")
    assert own_file(library, "pdf") is None and load_own(library, "pdf") is None
    assert home_file(library, "pdf") == skill_lib / "skills" / "pdf" / "evals" / "trigger-evals.json"
    found = load_own(library, "math-olympiad")
    assert found is not None and len(found.rows) == 20 and found.source == field
    rockbot = open_library(agent_copy)
    assert home_file(rockbot, "mcp/calendar") == (
        agent_copy / "recall-tests" / "trigger-evals" / "mcp" / "calendar.json")


def test_saving_in_a_skill_folder_is_one_undoable_change(skill_lib: Path) -> None:
    library = open_library(skill_lib)
    target = skill_lib / "skills" / "pdf" / "evals" / "trigger-evals.json"
    change = save_rows(library, "pdf", ROWS)
    assert change is not None and change.label == "Save trigger evals of 'pdf'"
    assert library.history.undo_stack[-1] is change
    assert [fc.path for fc in change.files] == [target]
    assert json.loads(target.read_text()) == [{"query": "merge these pdfs", "should_trigger": True},
                                              {"query": "write a memo", "should_trigger": False}]
    assert load_own(library, "pdf") is not None
    library.undo()
    assert not target.exists() and not target.parent.exists()
    library.redo()
    assert target.exists()


def test_saving_over_the_fields_file_keeps_its_name_and_undo_gives_its_bytes_back(skill_lib: Path) -> None:
    library = open_library(skill_lib)
    field = skill_lib / "skills" / "math-olympiad" / "evals" / "trigger_eval.json"
    before = field.read_bytes()
    change = save_rows(library, "math-olympiad", ROWS)
    assert change is not None and [fc.path for fc in change.files] == [field]
    assert not (field.parent / "trigger-evals.json").exists()
    library.undo()
    assert field.read_bytes() == before


def test_rockbot_keeps_its_rows_beside_the_query_sets_never_in_skills(agent_copy: Path) -> None:
    library = open_library(agent_copy)
    before = sorted(p.relative_to(agent_copy) for p in (agent_copy / "skills").rglob("*"))
    assert save_rows(library, "plan-meeting", ROWS) is None  # not part of the library's history
    stored = agent_copy / "recall-tests" / "trigger-evals" / "plan-meeting.json"
    assert json.loads(stored.read_text())[0]["query"] == "merge these pdfs"
    assert sorted(p.relative_to(agent_copy) for p in (agent_copy / "skills").rglob("*")) == before
    assert load_own(library, "plan-meeting") is not None and not library.history.undo_stack


def test_a_link_leading_out_of_the_library_is_refused(skill_lib: Path, tmp_path: Path) -> None:
    library = open_library(skill_lib)
    outside = tmp_path / "outside"
    outside.mkdir()
    (skill_lib / "skills" / "docx" / "evals").symlink_to(outside)
    with pytest.raises(TriggerFileError, match="leads outside the library"):
        save_rows(library, "docx", ROWS)
    assert list(outside.iterdir()) == [] and not library.history.undo_stack
    with pytest.raises(LibraryError):  # the window reports it as an operation's refusal
        save_rows(library, "pdf", ())


def test_export_into_the_library_is_undoable_and_elsewhere_a_plain_write(skill_lib: Path,
                                                                          tmp_path: Path) -> None:
    library = open_library(skill_lib)
    inside = skill_lib / "skills" / "docx" / "evals" / "more.json"
    change = write_rows(library, ROWS, inside)
    assert change is not None and change.label == "Export trigger evals to skills/docx/evals/more.json"
    library.undo()
    assert not inside.exists()
    outside = tmp_path / "shared" / "pdf-evals.json"
    assert write_rows(library, ROWS, outside) is None and outside.exists()


def test_every_own_file_and_each_unreadable_one_named(skill_lib: Path) -> None:
    broken = skill_lib / "skills" / "docx" / "evals" / "trigger-evals.json"
    broken.parent.mkdir()
    broken.write_bytes(b"[{")
    found = all_own(open_library(skill_lib))
    assert [s.skill for s in found.sets] == ["math-olympiad"]
    assert len(found.problems) == 1 and "trigger-evals.json: not JSON" in found.problems[0]
    assert broken.read_bytes() == b"[{"


# ---------------------------------------------------------------- the description what-if


def skill(library, name: str, **changes):
    return library.get(name).model_copy(update=changes)


def test_a_description_edit_affects_every_row_a_body_edit_none(skill_lib: Path) -> None:
    library = open_library(skill_lib)
    showing = showing_of(library)
    sets = [TriggerEvalSet("pdf", ROWS)]
    body = what_if(showing, [skill(library, "pdf", content="Another body.")])
    assert not body.descriptions and not body.changes_listing and body.affected(sets) == []
    assert "The unsaved edits of pdf change no description" in body.why()
    assert "no row is affected" in body.why()
    described = what_if(showing, [skill(library, "pdf", summary="Only PDF forms.")])
    assert described.descriptions == {"pdf": "Only PDF forms."} and described.changes_listing
    assert described.affected(sets) == [("pdf", ROWS[0]), ("pdf", ROWS[1])]
    assert "Only PDF forms." in described.edited.listing and "Only PDF forms." not in described.saved.listing
    assert "changes the listing" in described.why()


def test_an_edit_the_listing_does_not_show_affects_no_row(skill_lib: Path) -> None:
    library = open_library(skill_lib)
    full = showing_of(library)
    one = Showing(full.entries, full.lister, Limits(max_skills=1), full.tool)
    hidden = next(e.name for e in full.entries if e.name not in one.present().listed)
    edit = what_if(one, [skill(library, hidden, summary="Something else entirely.")])
    assert edit.descriptions and not edit.changes_listing
    assert edit.affected([TriggerEvalSet("pdf", ROWS)]) == []
    assert f"{hidden} is not in the listing" in edit.why()


def test_the_what_if_asks_only_what_the_edited_listing_changes(skill_lib: Path) -> None:
    library = open_library(skill_lib)
    showing = showing_of(library)
    sets = [TriggerEvalSet("pdf", ROWS)]
    cache_file = Path(os.environ["ROCKSKILLS_CACHE_DIR"]) / "what-if.sqlite3"
    with scripted_server() as server:
        server.responder = by_query({"merge these pdfs": [activate("pdf")]})
        url = Endpoint(server.base_url, "m", timeout=10, retries=0)
        saved = run_trigger_evals(sets, showing.present(), url, None, EvalOptions(runs=2),
                                  OutcomeCache(cache_file))
        assert saved.sent == 4
        body = what_if(showing, [skill(library, "pdf", content="x")])
        again = run_trigger_evals(sets, body.edited, url, None, EvalOptions(runs=2), OutcomeCache(cache_file))
        assert again.sent == 0  # nothing affected: every row from the cache
        edited = what_if(showing, [skill(library, "pdf", summary="Only PDF forms.")])
        changed = run_trigger_evals(sets, edited.edited, url, None, EvalOptions(runs=2),
                                    OutcomeCache(cache_file))
        assert changed.sent == 4 and len(server.requests) == 8
        assert "Only PDF forms." in server.requests[-1].body["messages"][0]["content"]
