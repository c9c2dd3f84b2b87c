"""Roo Code reads every file of its rules folders (`.roo/rules-issue-fixer/1_workflow.xml`:
Roo-Code's own repository keeps 40 of its mode rules in XML); `--from markdown` reads the
Markdown and text ones only. The others were passed over in silence, so a user importing
that repository could not tell that most of its mode rules were never read: `left out`
names them."""

from __future__ import annotations

import shutil

import pytest

from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write

TREE = {
    ".roo/rules/monorepo.md": "- Use pnpm workspaces for every package\n",
    ".roo/rules-issue-fixer/1_workflow.xml": "<workflow><step>Read the issue first</step></workflow>\n",
    ".roo/rules-issue-fixer/2_best_practices.xml": "<practices>Small pull requests</practices>\n",
    ".kilocode/rules/style.json": '{"indent": 2}\n',
    ".roo/rules-code/.DS_Store": "junk",  # a file no tool means as a rule
    ".roo/other/flow.xml": "<x/>\n",  # not a rules folder: not Roo Code's either
}


def _named(out: str) -> list[str]:
    return [line for line in out.splitlines() if "not Markdown or text" in line]


def _check(out: str) -> None:
    assert "1 added" in out, out
    lines = _named(out)
    assert len(lines) == 1, out
    assert lines[0].startswith("left out: 3 files of agents' rules folders")
    for rel in (
        ".kilocode/rules/style.json",
        ".roo/rules-issue-fixer/1_workflow.xml",
        ".roo/rules-issue-fixer/2_best_practices.xml",
    ):
        assert rel in lines[0], lines[0]
    assert ".DS_Store" not in lines[0] and ".roo/other" not in lines[0]


def test_a_plain_folder_names_the_rules_files_it_does_not_read(tmp_path, new_store):
    for rel, text in TREE.items():
        write(tmp_path / "p", rel, text)
    _check(run("import", "--from", "markdown", tmp_path / "p", "--db", new_store("m")).output)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_repository_names_them_too(tmp_path, new_store):
    project = tmp_path / "p"
    for rel, text in TREE.items():
        write(project, rel, text)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "rules")
    _check(run("import", "--from", "markdown", project, "--db", new_store("m")).output)
