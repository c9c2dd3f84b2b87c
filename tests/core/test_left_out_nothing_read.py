"""The `left out` line naming files that gave no fact says why truly: a page of tables only
(a repository's `docs/models.md`, 290 table rows) gave no fact too, and the line said
"(empty, or headings only)" of it, which a person opening the file finds false."""

from __future__ import annotations

from synapse_tui.core.ingest.adapters import markdown
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write

TABLES = "# Models\n\n| provider | model |\n| --- | --- |\n| a | b |\n"


def _line(left_out: list[str]) -> str:
    return next(line for line in left_out if "hold nothing read as a fact" in line)


def test_a_page_of_tables_only_is_named_for_what_it_holds(tmp_path):
    notes = tmp_path / "notes"
    write(notes, "team.md", "- Deploys happen on Tuesdays\n")
    write(notes, "models.md", TABLES)
    line = _line(markdown.read(notes).left_out)
    assert "1 of 2 files hold nothing read as a fact" in line and line.endswith(": models.md")
    assert "tables" in line  # what the file does hold, not only "empty, or headings only"


def test_in_git_too(tmp_path):
    repo = tmp_path / "repo"
    write(repo, "team.md", "- Deploys happen on Tuesdays\n")
    write(repo, "models.md", TABLES)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "notes")
    line = _line(markdown.read(repo).left_out)
    assert line.endswith(": models.md") and "tables" in line
