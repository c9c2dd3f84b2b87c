"""`--from markdown` reads the rules Roo Code, Kilo Code, Windsurf and Kiro keep in a
project, and OpenHands' repository microagent, as rules (instructions for `repo.md`), with
their front matter not a fact; what those tools keep beside them (Windsurf's workflows,
Kiro's specs, a keyword microagent, another folder of `.roo/`) is not memory. A line that
only imports another file (`@AGENTS.md`) is a pointer, not a fact.

Shapes (facts only), as each tool's loader reads them: Roo Code
src/core/prompts/sections/custom-instructions.ts (`.roo/rules/` and `.roo/rules-{mode}/`
read recursively, else `.roorules` / `.clinerules`, and `.roorules-{mode}` /
`.clinerules-{mode}`); Kilo Code's copy of it (`.kilocode/rules/`, `.kilocode/rules-{mode}/`,
`.kilocoderules`, `.kilocoderules-{mode}`); docs.windsurf.com Memories & Rules
(`.windsurf/rules/` in the workspace or any subfolder, a `trigger:` field); kiro.dev
Steering (`.kiro/steering/*.md`, an `inclusion:` field); OpenHands
openhands/microagent/microagent.py (`.openhands/microagents/repo.md` always loaded, a
microagent with `triggers:` loaded on a keyword)."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.ingest.adapters import git_notes, known_facts, markdown
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.kinds import kind_of
from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write

TREE = {
    ".roo/rules/01-general.md": "- Answer in British English\n",
    ".roo/rules/backend/db.txt": "Every query goes through the repository layer.\n",
    ".roo/rules-code/style.md": "# Style\n\n- Prefer early returns\n",
    ".roo/rules-architect/notes.md": "- Draw the data flow before any schema\n",
    ".roorules": "- Keep pull requests under 400 lines\n",
    ".roorules-debug": "- Reproduce before fixing\n",
    ".clinerules-ask": "- Quote the file you read\n",
    ".kilocode/rules/naming.md": "- Name files in kebab-case\n",
    ".kilocode/rules-code/tests.md": "- Every fix gets a test\n",
    ".kilocoderules": "- Never commit secrets\n",
    ".windsurf/rules/x.md": "---\ntrigger: always_on\n---\n\n- Use pnpm, never npm\n",
    "web/.windsurf/rules/ui.md": (
        "---\ntrigger: glob\nglobs: *.tsx\n---\n\n- Components are function components\n"  # not strict YAML
    ),
    ".kiro/steering/tech.md": (
        "---\ninclusion: fileMatch\nfileMatchPattern: 'api/**/*.py'\n---\n\n"
        "# Tech\n\n- The API is FastAPI on Python 3.12\n\n#[[file:api/openapi.yaml]]\n"
    ),
    ".kiro/steering/product.md": "---\ninclusion: always\n---\n\nThe shop sells second-hand books.\n",
    ".openhands/microagents/repo.md": "---\nname: repo\ntype: repo\n---\n\n- Run make test before a PR\n",
    # not memory: another folder of a tool, its workflows, its specs, a keyword prompt
    ".roo/other/x.md": "- A note in another folder of .roo\n",
    ".roo/rules/flow.xml": "<rule>Not Markdown nor text</rule>\n",
    ".windsurf/workflows/deploy.md": "- Deploy with make ship\n",
    ".kiro/specs/search/tasks.md": "- [ ] Build the search page\n",
    ".openhands/microagents/github.md": "---\ntriggers:\n- github\n---\n\n- Use the gh CLI\n",
    # an import line only: a pointer to AGENTS.md, which is read as itself
    "CLAUDE.md": "@AGENTS.md\n\n- See @docs/style.md before any UI change\n",
    "AGENTS.md": "- Run the linter before committing\n",
}
RULES = {
    "Answer in British English",
    "Every query goes through the repository layer.",
    "Prefer early returns",
    "Draw the data flow before any schema",
    "Keep pull requests under 400 lines",
    "Reproduce before fixing",
    "Quote the file you read",
    "Name files in kebab-case",
    "Every fix gets a test",
    "Never commit secrets",
    "Use pnpm, never npm",
    "Components are function components",
    "The API is FastAPI on Python 3.12",
    "The shop sells second-hand books.",
}
INSTRUCTIONS = {
    "Run make test before a PR",
    "See @docs/style.md before any UI change",
    "Run the linter before committing",
}


def _tree(root):
    for rel, text in TREE.items():
        write(root, rel, text)


def _kinds(facts):
    return {f.text: kind_of(f.provenance) for f in facts}


def _expected():
    return {t: "rule" for t in RULES} | {t: "instruction" for t in INSTRUCTIONS}


def test_a_plain_folder_gives_each_tools_rules_as_rules_and_nothing_else(tmp_path):
    _tree(tmp_path)
    snap = markdown.read(tmp_path)
    assert _kinds(snap.facts) == _expected()
    # a front matter field is not a fact; the import line and Kiro's file reference are
    # pointers, counted in `left out`
    assert not any(w in f.text for f in snap.facts for w in ("trigger", "inclusion", "@AGENTS", "#[[file"))
    assert "2 import lines not read as facts" in snap.left_out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_git_the_same_rules_are_read_with_their_history(tmp_path):
    _tree(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "rules")
    tech = tmp_path / ".kiro/steering/tech.md"
    tech.write_text(tech.read_text().replace("Python 3.12", "Python 3.13"))
    git(tmp_path, "commit", "-q", "-am", "3.13", when="2026-03-01T12:00:00Z")
    snap = git_notes.read(tmp_path)
    facts = {f.text: f for f in snap.facts}
    new = facts["The API is FastAPI on Python 3.13"]
    assert new.supersedes == facts["The API is FastAPI on Python 3.12"].id
    assert new.created_at == "2026-03-01T12:00:00Z"
    assert _kinds(snap.facts) == _expected() | {"The API is FastAPI on Python 3.13": "rule"}
    assert "2 import lines not read as facts" in snap.left_out


def test_a_user_importing_the_project_sees_the_rules_in_the_store(tmp_path, new_store):
    project = tmp_path / "project"
    _tree(project)
    db = new_store("m")
    out = run("import", "--from", "markdown", project, "--db", db).output
    assert f"{len(RULES) + len(INSTRUCTIONS)} added" in out
    with Store.open(db) as store:
        facts = known_facts(store, markdown.SYSTEM)
    assert _kinds(facts) == _expected()
    assert {f.note for f in facts if f.text == "Prefer early returns"} == {".roo/rules-code/style.md"}
