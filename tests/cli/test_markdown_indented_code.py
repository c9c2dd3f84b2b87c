"""`import --from markdown` leaves indented code out of the facts, as it leaves out fenced
code, and reads it where CommonMark does (spec 4.4, "Indented code blocks", with 5.2 "List
items"): four or more columns past the content column of the list item holding the line (at
the margin, four columns in), never right after a paragraph's line (indented code cannot
interrupt a paragraph), blank lines between its chunks its own, a tab counted to the next
multiple of four. Memory files indent a bullet's wrapped lines and a list item's second
paragraph by four spaces: those stay text. Each file is read both in a plain folder and in a
git work tree (as `git-notes`), and the corpus builder (benchmarks/build_real_corpus.py)
reads the same blocks."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from synapse_tui.core.ingest.adapters import markdown_memory as mm
from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import build_real_corpus as builder  # noqa: E402

# a setup section in the shape of real CLAUDE.md files: shell commands indented four spaces
# after a label and a blank line, a blank line between two chunks of them, prose after
SHELL = """# Development

## Setup

Install the tools first:

    brew install uv
    uv sync --all-extras

    # then the hooks
    pre-commit install
Run the checks before every commit.

## Notes

Keep the lock file committed.
"""

# bullets whose wrapped lines are indented four spaces (a paragraph's lines, in the item or
# lazily), a second paragraph four spaces in after a blank line (two past the item's content
# column: the item's paragraph), and a wide numbered marker
BULLETS = """# Conventions

- Use the repository's own logger, never print; the logger
    writes to stderr and keeps stdout for JSON output.
- Prefer small pull requests.

    Split a change over 400 lines unless it is a rename.
1.  Tag releases from main only.

    Write the changelog entry before the tag.
10. Keep the numbered steps
    in order.
"""

# indented code inside a list item: at the item's content column plus four (six columns under
# `- `, eight under `1.  `), with a comment line that is no heading, and the item's prose
# after it
IN_ITEMS = """# Deploy

- Build the image:

      # the tag is the short commit
      docker build -t app:$(git rev-parse --short HEAD) .

  Push it only from CI.
- Roll back with the previous tag.

1.  Migrate the database:

        alembic upgrade head

2.  Restart the workers.
"""

# tabs count to the next multiple of four: a tab at the margin is code; a tab under `- ` is
# two columns past the item's content column (the item's paragraph); two tabs are code
TABS = "# Tabs\n\nRun the tests after any change to the parser:\n\n\tmake test\n\n- An item\n\n\tits second paragraph\n\n- Another item\n\n\t\tgo vet ./...\n\nLast line.\n"


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


def _builder_agrees(text: str) -> None:
    fm = mm.front(mm.text_of(text))
    assert [b.text for b in builder.parse_blocks(text)] == [b.text for b in mm.blocks(fm.body, fm.offset)]


WHERE = [
    pytest.param(False, id="plain folder"),
    pytest.param(
        True, id="git work tree", marks=pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
    ),
]


@pytest.mark.parametrize("in_git", WHERE)
def test_indented_shell_commands_after_a_blank_line_are_not_facts(tmp_path, in_git):
    texts, _ = _import(tmp_path, {"CLAUDE.md": SHELL}, in_git)
    assert texts == ["Keep the lock file committed.", "Run the checks before every commit."]
    # the label only named the code; no command, no `# then the hooks` heading
    _builder_agrees(SHELL)


@pytest.mark.parametrize("in_git", WHERE)
def test_four_space_continuations_and_second_paragraphs_of_bullets_stay_text(tmp_path, in_git):
    texts, _ = _import(tmp_path, {"AGENTS.md": BULLETS}, in_git)
    assert texts == [
        "Keep the numbered steps\nin order.",
        "Prefer small pull requests.\n\nSplit a change over 400 lines unless it is a rename.",
        "Tag releases from main only.\n\nWrite the changelog entry before the tag.",
        "Use the repository's own logger, never print; the logger\nwrites to stderr and keeps stdout for JSON output.",
    ]
    _builder_agrees(BULLETS)


@pytest.mark.parametrize("in_git", WHERE)
def test_indented_code_in_a_list_item_is_counted_from_its_content_column(tmp_path, in_git):
    texts, _ = _import(tmp_path, {"CLAUDE.md": IN_ITEMS}, in_git)
    assert texts == [
        "Build the image:",
        "Migrate the database:",
        "Push it only from CI.",
        "Restart the workers.",
        "Roll back with the previous tag.",
    ]  # the code ends the bullet's text, as a fence does; the prose after it is kept
    _builder_agrees(IN_ITEMS)


@pytest.mark.parametrize("in_git", WHERE)
def test_tabs_count_to_the_next_multiple_of_four(tmp_path, in_git):
    texts, _ = _import(tmp_path, {"CLAUDE.md": TABS}, in_git)
    assert texts == [
        "An item\n\nits second paragraph",
        "Another item",
        "Last line.",
        "Run the tests after any change to the parser:",
    ]
    _builder_agrees(TABS)


def test_what_indented_code_holds_is_no_comment_import_or_heading():
    """Inside indented code `<!--` opens no comment (the prose after it stays), `@path` is no
    import, and `# x` under a bullet opens no note held in the bullet."""
    text = (
        "Example:\n\n    <!-- a marker the bot writes\n\nStill read.\n\n    @docs/example.md\n\n@AGENTS.md\n"
    )
    fm = mm.front(text)
    assert [b.text for b in mm.blocks(fm.body, fm.offset)] == ["Still read."]
    assert mm.imports(text) == ["AGENTS.md"]
    _builder_agrees(text)
    # a paragraph's line four columns in carries the paragraph on: never code
    assert [b.text for b in mm.blocks("Use uv.\n    Never pip.\n")] == ["Use uv.\nNever pip."]
    # a comment in an item's indented code opens no note held in the bullet
    held = "- Setup:\n\n      # install deps\n      npm i\n\n  Then restart.\n- Done.\n"
    assert [(b.section, b.text) for b in mm.blocks(held)] == [
        (None, "Setup:"),
        (None, "Then restart."),
        (None, "Done."),
    ]  # before: "npm i", "Then restart." and "Done." under a heading "install deps"
    _builder_agrees(held)
    # an item whose marker is followed by five columns begins with indented code
    assert [b.text for b in mm.blocks("-     npm test\n- Run it twice.\n")] == ["Run it twice."]
