"""`import --from claude-code`: the report names the files it left out, and a folder with no
`projects/` (a project folder given as the source) is said to be read only for its CLAUDE.md."""

from __future__ import annotations

from tests.cli_run import run


def _home(root):
    memory = root / "projects" / "-work-app" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- [Deploys](deploys.md) — how we ship\n")
    (memory / "deploys.md").write_text("---\nname: Deploys\ndescription: ship\n---\nShip on Fridays.\n")
    (memory / "musings.md").write_text("Just some prose, no bullets here.\n")
    (root / "CLAUDE.md").write_text("- Use tabs.\n")
    return root


def test_left_out_prose_files_are_named(tmp_path):
    home = _home(tmp_path / "claude")
    result = run("import", "--from", "claude-code", home, "--db", tmp_path / "s.db")
    lines = [line for line in result.stderr.splitlines() if "hold no front matter" in line]
    assert len(lines) == 1, result.stderr
    assert "projects/-work-app/memory/musings.md" in lines[0]
    assert "MEMORY.md" not in lines[0]  # an index of pointers is no prose: said on its own line
    assert "1 index lines point to topic files" in result.stderr


def test_a_folder_without_projects_gets_a_note(tmp_path):
    project = tmp_path / "app"
    project.mkdir()
    (project / "CLAUDE.md").write_text("- Run make test before pushing.\n")
    result = run("import", "--from", "claude-code", project, "--db", tmp_path / "s.db")
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert notes == [
        f"note: {project} has no projects/ folder, so only its CLAUDE.md is read as your user"
        f" instructions; for a project's instructions use --project {project}"
    ], result.stderr
    assert "1 added" in result.output  # what is read is unchanged


def test_a_claude_home_gets_no_note(tmp_path):
    result = run("import", "--from", "claude-code", _home(tmp_path / "claude"), "--db", tmp_path / "s.db")
    assert "note: " not in result.stderr


def test_a_folder_without_projects_given_with_project_is_not_told_to_use_it(tmp_path):
    home, project = tmp_path / "home", tmp_path / "app"
    home.mkdir()
    project.mkdir()
    (home / "CLAUDE.md").write_text("- Use tabs.\n")
    (project / "CLAUDE.md").write_text("- Run make test before pushing.\n")
    result = run("import", "--from", "claude-code", home, "--project", project, "--db", tmp_path / "s.db")
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert notes == [
        f"note: {home} has no projects/ folder, so only its CLAUDE.md is read as your user"
        " instructions (no auto memory of the project is read from it)"
    ], result.stderr
    assert "2 added" in result.output
