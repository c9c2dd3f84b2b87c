"""`import --from markdown` reads agents' Markdown memory as CommonMark shows it (issue 39's
comparison of the product with the corpus builder): an arrow is text, a comment's marks
inside a code span are text, an unclosed `<!--` swallows nothing beyond what CommonMark's
HTML block or paragraph holds, and front matter pasted mid-file is not a fact. Each file
is read both in a plain folder and in a git work tree (as `git-notes`)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write

ARROWS = """# Career research

- network structure --> social resources --> career success
- Flow: request --> queue --> worker
<!-- a comment of its own -->
- Kept after the comment
"""

CODE_SPANS = """# Bot

- Appends `<!-- archon-bot -->` marker to every comment it posts
- Comments start with `<!--` in HTML
- Close them with `-->` always
- Never nest them
- A ``span with ` and <!-- inside`` stays whole <!-- but this is cut --> and this is read
"""

UNCLOSED = """# Notes

A paragraph whose <!-- never closes in it
goes on here.

- This bullet is read

<!-- an HTML block opened at the start of a line
- hidden while the block is open

- still hidden
-->
- Read once the block ended
"""

# Task Master's `.windsurfrules`: each Cursor rule copied whole after a `---` separator
PASTED = """---
description: The rules file itself
globs: .windsurfrules
---

- Keep rules short

---
description: Guidelines for creating and maintaining Windsurf rules
globs: .windsurfrules
alwaysApply: true
---

- Use bold for key points

---
This sentence after a thematic break is a fact.

---

- And this bullet after another break
"""


def _import(tmp_path, files: dict[str, str], in_git: bool):
    folder, db = tmp_path / "notes", tmp_path / "memory.db"
    for rel, text in files.items():
        write(folder, rel, text)
    if in_git:
        git(folder, "init", "-q")
        git(folder, "add", "-A")
        git(folder, "commit", "-qm", "memory")
    out = run("import", "--db", db, "--from", "markdown", folder)
    rows = [json.loads(line) for line in run("export", db).stdout.splitlines()]
    return sorted(r["text"] for r in rows), out.stderr


WHERE = [
    pytest.param(False, id="plain folder"),
    pytest.param(
        True, id="git work tree", marks=pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
    ),
]


@pytest.mark.parametrize("in_git", WHERE)
def test_a_fact_with_arrows_is_kept(tmp_path, in_git):
    texts, err = _import(tmp_path, {"CLAUDE.md": ARROWS}, in_git)
    assert texts == [
        "Flow: request --> queue --> worker",
        "Kept after the comment",
        "network structure --> social resources --> career success",
    ]
    assert "HTML comment" not in err  # a closed comment on its own line is just cut


@pytest.mark.parametrize("in_git", WHERE)
def test_a_comments_marks_in_a_code_span_are_text_and_swallow_nothing(tmp_path, in_git):
    texts, _ = _import(tmp_path, {"AGENTS.md": CODE_SPANS}, in_git)
    assert texts == [
        "A ``span with ` and <!-- inside`` stays whole  and this is read",
        "Appends `<!-- archon-bot -->` marker to every comment it posts",
        "Close them with `-->` always",
        "Comments start with `<!--` in HTML",
        "Never nest them",
    ]


@pytest.mark.parametrize("in_git", WHERE)
def test_an_unclosed_comment_ends_with_its_paragraph_or_its_html_block(tmp_path, in_git):
    texts, err = _import(tmp_path, {"CLAUDE.md": UNCLOSED}, in_git)
    assert texts == [
        # never closed in its paragraph: CommonMark shows `<!--` as text
        "A paragraph whose <!-- never closes in it\ngoes on here.",
        "Read once the block ended",
        "This bullet is read",
    ]
    assert "left out: 1 HTML comment not read as facts" in err


@pytest.mark.parametrize("in_git", WHERE)
def test_front_matter_pasted_mid_file_is_not_a_fact_a_paragraph_after_a_break_is(tmp_path, in_git):
    texts, err = _import(tmp_path, {".windsurfrules": PASTED}, in_git)
    assert texts == [
        "And this bullet after another break",
        "Keep rules short",
        "This sentence after a thematic break is a fact.",
        "Use bold for key points",
    ]
    assert not any("description" in t or "globs" in t for t in texts)
    assert "left out: 1 mid-file front matter block not read as facts" in err


@pytest.mark.parametrize("in_git", WHERE)
def test_front_matter_at_the_top_is_read_alike_in_a_folder_and_in_git(tmp_path, in_git):
    """Fences as YAML allows them (`--- ` with a trailing space, `...` closing) open a file's
    front matter outside git as in it: not a fact, not counted as pasted mid-file."""
    files = {
        ".windsurfrules": "--- \ndescription: Windsurf rules\n...\n\n- Keep rules short\n",
        "CLAUDE.md": "---\ntitle: Memory\n--- \n- Run the tests first\n",
    }
    texts, err = _import(tmp_path, files, in_git)
    assert texts == ["Keep rules short", "Run the tests first"]
    assert "front matter" not in err
