"""Where a user points a reader at the wrong thing, the refusal says what to use instead.

A Codex user's other memory is a project's AGENTS.md, which `--from codex` does not read
(it reads ~/.codex/memories). Tried on openai/openai-agents-python: `--from codex --project .`
and `--from codex .` were refused without saying where AGENTS.md is read."""

from __future__ import annotations

from pathlib import Path

from tests.cli_run import refused, run
from tests.helpers import write_jsonl


def test_a_project_given_to_codex_is_pointed_to_the_markdown_reader(tmp_path):
    project = tmp_path / "agents-sdk"
    project.mkdir()
    (project / "AGENTS.md").write_text("# Contributor guide\n\n- Run `make lint` before pushing.\n")
    db = tmp_path / "m.db"
    line = refused("import", "--from", "codex", "--project", project, "--db", db)
    assert "--project does not apply to --from codex" in line
    assert "AGENTS.md" in line and "--from markdown" in line
    line = refused("import", "--from", "codex", project, "--db", db)
    assert "expected a ~/.codex/memories folder" in line
    assert "AGENTS.md" in line and "--from markdown" in line
    assert not Path(db).exists()


def test_an_auto_memory_folder_given_to_claude_code_is_pointed_to_the_markdown_reader(tmp_path):
    """4444J99/application-pipeline and AnotherSava/bga-assistant commit Claude Code's auto
    memory as `.claude/memory/` (MEMORY.md and topic files): `--from claude-code` on it
    was refused with no word of how to read it."""
    memory = tmp_path / "project" / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("# Memory\n\n- [Testing](feedback_testing.md) — run the suite first\n")
    topic = "---\nname: Testing\ndescription: run the suite\ntype: feedback\n---\n\nRun the suite first.\n"
    (memory / "feedback_testing.md").write_text(topic)
    line = refused("import", "--from", "claude-code", memory, "--db", tmp_path / "m.db")
    assert "expected a ~/.claude folder" in line and "--from markdown" in line


def test_a_repository_given_to_the_replaced_kind_is_refused(tmp_path):
    """`suggest --kind replaced --repo DIR` listed the replaced suggestions as if the
    repository played a part in them."""
    db = tmp_path / "m.db"
    fact = {"id": "a", "text": "The API lives in api/", "created_at": "2026-01-01T00:00:00Z"}
    run("import", write_jsonl(tmp_path / "f.jsonl", [fact]), "--db", db)
    line = refused("suggest", db, "--kind", "replaced", "--repo", tmp_path)
    assert "--repo applies to --kind referent" in line
    line = refused("suggest", db, "--kind", "replaced", "--rev", "HEAD~1")
    assert "--rev applies to --kind referent" in line
