"""The walk that finds agents' memory in a folder (markdown_memory.memory_files), on a tree
shaped like the real ones it reads (Roo-Code's `.roo/rules-*/` with XML beside Markdown,
Cursor's rules in a subfolder, Claude Code's prompts folders, a checkout below, installed
packages, a trash folder) and holding every odd entry a folder can: links inside and
leaving it, a link to nothing, a FIFO. Which files are read, and each line said of what was
left out, are the readers' contract: these were taken from the walk before it worked out
each folder's place once for all its entries (session of 2026-12-07), and must not move."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from synapse_tui.core.ingest.adapters import cursor
from synapse_tui.core.ingest.adapters.markdown_memory import cursor_rule, memory_files

FILES = [
    "AGENTS.md",
    "README.md",
    "setup.py",
    "docs/guide.md",
    "docs/notes.txt",
    "docs/deep/er/still.md",
    "memory-bank/activeContext.md",
    "src/pkg/.memory-bank/progress.md",
    ".roo/rules/1_general.md",
    ".roo/rules-code/style.md",
    ".roo/rules-code/sub/deeper.txt",
    ".roo/rules-issue-fixer/1_workflow.xml",
    ".roo/rules-issue-fixer/sub/2_steps.xml",
    ".roo/rules-issue-fixer/.DS_Store",
    ".roo/rules-issue-fixer/.private/x.xml",
    ".roo/other/ignored.md",
    ".roo/skills/s.md",
    ".kilocode/rules/k.md",
    ".windsurf/rules/w.md",
    ".kiro/steering/product.md",
    ".clinerules",
    ".roorules-code",
    ".github/copilot-instructions.md",
    ".github/instructions/py.instructions.md",
    ".github/workflows/ci.yml",
    ".github/ISSUE_TEMPLATE/bug.md",
    ".claude/CLAUDE.md",
    ".claude/rules/testing.md",
    ".claude/commands/review.md",
    ".claude/agents/planner.md",
    "web/.claude/output-styles/terse.md",
    ".agents/skills/deploy/SKILL.md",
    ".tool/AGENTS.md",
    ".tool/notes.md",
    ".cursor/rules/a.mdc",
    ".cursor/rules/nested/b.md",
    ".cursor/rules/.hidden/c.mdc",
    "apps/web/.cursor/rules/web.mdc",
    "apps/web/CLAUDE.md",
    "apps/web/node_modules/lib/README.md",
    "node_modules/x/AGENTS.md",
    "lib/site-packages/p/README.md",
    ".venv/lib/AGENTS.md",
    ".git/HEAD",
    ".trash/old.md",
    "notes/.Trash-1000/gone.md",
    "vendor/checkout/.git",
    "vendor/checkout/CLAUDE.md",
]


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("- A rule\n")
    outside = tmp_path / "elsewhere"
    (outside / "rules").mkdir(parents=True)
    (outside / "AGENTS.md").write_text("- Not this project's\n")
    (outside / "rules" / "x.mdc").write_text("- Not this project's\n")
    (outside / "data.json").write_text("{}")
    (root / "linked.md").symlink_to(root / "docs" / "guide.md")  # a link inside: read
    (root / "linked-docs").symlink_to(root / "docs")  # a linked folder inside: read where it is
    (root / "CLAUDE.md").symlink_to(outside / "AGENTS.md")  # leaves: named
    (root / "shared").symlink_to(outside)  # a folder leaving that could hold rules: named
    (root / ".cursor" / "rules" / "team").symlink_to(outside / "rules")
    (root / "data.json").symlink_to(outside / "data.json")  # leaves, no memory: not named
    (root / "docs" / "gone.md").symlink_to(root / "docs" / "nothing-here.md")  # a link to nothing
    os.mkfifo(root / "docs" / "pipe.md")  # not a regular file: named, never opened
    return root


def _rel(root: Path, found: list[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in found]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a FIFO needs os.mkfifo")
def test_the_walk_reads_every_memory_file_and_names_what_it_leaves_out(tmp_path):
    root = _tree(tmp_path)
    found, left_out = memory_files(root)
    assert _rel(root, found) == [
        ".claude/CLAUDE.md",
        ".claude/rules/testing.md",
        ".clinerules",
        ".cursor/rules/a.mdc",
        ".cursor/rules/nested/b.md",
        ".github/copilot-instructions.md",
        ".github/instructions/py.instructions.md",
        ".kilocode/rules/k.md",
        ".kiro/steering/product.md",
        ".roo/rules/1_general.md",
        ".roo/rules-code/style.md",
        ".roo/rules-code/sub/deeper.txt",
        ".roorules-code",
        ".tool/AGENTS.md",
        ".windsurf/rules/w.md",
        "AGENTS.md",
        "README.md",
        "apps/web/.cursor/rules/web.mdc",
        "apps/web/CLAUDE.md",
        "docs/deep/er/still.md",
        "docs/guide.md",
        "linked.md",
        "memory-bank/activeContext.md",
        "src/pkg/.memory-bank/progress.md",
    ]
    assert left_out == [
        ".cursor/rules/team: a link leaving the folder; not read",
        ".trash: a trash folder (notes someone deleted); not read",
        "2 files of agents' rules folders not Markdown or text (.md, .txt), not read:"
        " .roo/rules-issue-fixer/1_workflow.xml, .roo/rules-issue-fixer/sub/2_steps.xml",
        "CLAUDE.md: a link leaving the folder; not read",
        "apps/web/node_modules: a dependency folder, not this project's memory; not read",
        "docs/gone.md: a link to nothing; not read",
        "docs/pipe.md: not a regular file; not read",
        "lib/site-packages: a dependency folder, not this project's memory; not read",
        "node_modules: a dependency folder, not this project's memory; not read",
        "notes/.Trash-1000: a trash folder (notes someone deleted); not read",
        "shared: a link leaving the folder; not read",
        "vendor/checkout: another git checkout (a worktree, a clone or a submodule); not read",
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a FIFO needs os.mkfifo")
def test_a_reader_of_some_places_walks_only_where_they_can_be(tmp_path):
    root = _tree(tmp_path)
    found, left_out = memory_files(root, cursor_rule, enter=cursor._may_hold_rules)
    assert _rel(root, found) == [
        ".cursor/rules/a.mdc",
        ".cursor/rules/nested/b.md",
        "apps/web/.cursor/rules/web.mdc",
    ]
    assert left_out == [
        ".cursor/rules/team: a link leaving the folder; not read",
        "apps/web/node_modules: a dependency folder, not this project's memory; not read",
        "lib/site-packages: a dependency folder, not this project's memory; not read",
        "node_modules: a dependency folder, not this project's memory; not read",
        "vendor/checkout: another git checkout (a worktree, a clone or a submodule); not read",
    ]


def test_the_folder_read_given_as_a_relative_path_gives_the_same_files(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("- A\n")
    (root / "AGENTS.md").write_text("- B\n")
    monkeypatch.chdir(root)
    found, left_out = memory_files(Path("."))
    assert [p.as_posix() for p in found] == ["AGENTS.md", "docs/a.md"]
    assert left_out == []
