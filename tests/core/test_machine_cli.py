"""``rockskills agents``: every root and every copy of a generated home (never the real one), with
digests, lock states and switched-off skills, as text and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from rockskills_gui.cli import main
from tests.machine_home import build_home, tree_bytes


def test_json_lists_every_root_and_copy_with_path_and_digest(tmp_path: Path, capsys) -> None:
    fake = build_home(tmp_path)
    (fake.home / ".gemini" / "settings.json").write_text('{"skills": {"disabled": ["gem-only"]}}')
    assert main(["agents", "--home", str(fake.home), "--project", str(fake.project), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    roots = {r["path"]: r for r in data["roots"]}
    for root in (fake.claude, fake.agents, fake.codex, fake.gemini, fake.project / ".claude" / "skills",
                 fake.project / ".gemini" / "skills"):
        assert str(root) in roots
    assert roots[str(fake.claude)]["skills"] == 4 and roots[str(fake.claude)]["scope"] == "user"
    assert roots[str(fake.project / ".gemini" / "skills")]["scope"] == "project"
    skills = {s["name"]: s for s in data["skills"]}
    assert skills["pdf-tools"]["sameness"] == "different" and skills["mcp-builder"]["sameness"] == "identical"
    copies = [c for s in data["skills"] for c in s["copies"]]
    on_disk = {str(p.parent) for p in fake.home.rglob("SKILL.md") if ".rockskills" not in p.parts}
    assert {c["path"] for c in copies} == on_disk
    assert all(c["digest"].startswith("sha256:") and len(c["digest"]) == 71 for c in copies)
    digests = {c["root"]: c["digest"] for c in skills["pdf-tools"]["copies"]}
    assert digests[str(fake.claude)] == digests[str(fake.gemini)] != digests[str(fake.agents)]
    assert "gemini-cli" in skills["gem-only"]["copies"][0]["disabled"]
    assert skills["edited-after"]["copies"][0]["lock"]["state"].startswith("changed since install")
    assert skills["find-skills"]["copies"][0]["lock"]["source"] == "vercel-labs/skills"
    assert skills["shell-name"]["copies"][0]["folder"] == "$(id)"


def test_text_marks_copies_and_states(tmp_path: Path, capsys) -> None:
    fake = build_home(tmp_path)
    assert main(["agents", "--home", str(fake.home), "--project", str(fake.project)]) == 0
    out = capsys.readouterr().out
    assert "pdf-tools  3 copies, different" in out and "mcp-builder  2 copies, identical" in out
    assert "acme/skills (github): changed since install" in out
    assert f"{fake.claude / '$(id)'}" in out
    assert "1 lint finding(s)" in out


def test_a_missing_folder_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["agents", "--home", str(tmp_path), "--project", str(tmp_path / "nope")]) == 2
    assert "nope: not a folder" in capsys.readouterr().err


def test_the_home_defaults_to_rockskills_home(tmp_path: Path, capsys, monkeypatch) -> None:
    fake = build_home(tmp_path)
    monkeypatch.setenv("ROCKSKILLS_HOME", str(fake.home))
    assert main(["agents", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["home"] == str(fake.home) and str(fake.claude) in {r["path"] for r in data["roots"]}


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["agents", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_copy_disable_and_archive_from_the_command_line(tmp_path: Path, capsys) -> None:
    fake = build_home(tmp_path)
    base = ["--home", str(fake.home), "--project", str(fake.project)]
    before = tree_bytes(fake.home)
    code, out, _ = _run(capsys, *base, "--copy", str(fake.gemini / "gem-only"), "--to", str(fake.claude),
                        "--dry-run")
    assert code == 0 and f"create {fake.claude / 'gem-only' / 'SKILL.md'}" in out and "dry run" in out
    assert tree_bytes(fake.home) == before
    code, out, err = _run(capsys, *base, "--copy", str(fake.gemini / "gem-only"), "--to", str(fake.claude),
                          "--disable", str(fake.gemini / "pdf-tools"), "--agent", "gemini-cli")
    assert code == 2 and "not an agent reading" in err and tree_bytes(fake.home) == before
    code, out, _ = _run(capsys, *base, "--copy", str(fake.gemini / "gem-only"), "--to", str(fake.claude))
    assert code == 0 and (fake.claude / "gem-only" / "SKILL.md").is_file()
    code, out, _ = _run(capsys, *base, "--disable", str(fake.gemini / "pdf-tools"), "--agent", "gemini-cli")
    assert code == 0 and "pdf-tools" in (fake.home / ".gemini" / "settings.json").read_text()
    code, out, _ = _run(capsys, *base, "--archive", str(fake.project / ".claude" / "skills" / "team-review"),
                        "--archive", str(fake.project / ".gemini" / "skills" / "team-review"))
    assert code == 0 and "written: " in out
    assert main(["agents", *base, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    skills = {s["name"]: s for s in data["skills"]}
    assert "team-review" not in skills and skills["gem-only"]["sameness"] == "identical"
    assert any("gemini-cli" in c["disabled"] for c in skills["pdf-tools"]["copies"])


def test_a_refused_copy_writes_nothing(tmp_path: Path, capsys) -> None:
    fake = build_home(tmp_path)
    before = tree_bytes(fake.home)
    code, out, _ = _run(capsys, "--home", str(fake.home), "--copy", str(fake.agents / "fetcher"),
                        "--copy", str(fake.gemini / "gem-only"), "--to", str(fake.claude))
    assert code == 1 and "lint finding(s) not accepted" in out and "nothing was written" in out
    assert tree_bytes(fake.home) == before
    code, _, err = _run(capsys, "--home", str(fake.home), "--archive", str(tmp_path / "nowhere"))
    assert code == 2 and "not a skill folder" in err
