"""`--from gemini-cli --project P` reads the GEMINI.md files Gemini CLI itself loads from a
project (memoryDiscovery.ts: a search down the project that enters hidden folders and
leaves out what `.geminiignore` lists), with and without the project's `.git`."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.ingest.adapters import gemini_cli
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write
from tests.helpers import run


def _project(root):
    write(root, "GEMINI.md", "- The shop runs on Postgres 16.\n")
    write(root, ".gemini/GEMINI.md", "- Answer in British English.\n")  # Gemini's search enters it
    write(root, "docs/GEMINI.md", "- Drafts, listed in .geminiignore\n")
    write(root, "tmp/scratch/GEMINI.md", "- Scratch, listed in .geminiignore\n")
    write(root, ".geminiignore", "# not for the agent\ndocs/\n/tmp\n")
    write(root, "node_modules/pkg/GEMINI.md", "- a package's own context\n")
    write(root, ".venv/lib/GEMINI.md", "- an environment's file\n")
    write(root, "api/CLAUDE.md", "- Claude's file, not Gemini's\n")


def _texts(snap):
    return sorted(f.text for f in snap.facts)


EXPECTED = ["Answer in British English.", "The shop runs on Postgres 16."]


def test_a_project_gives_what_gemini_cli_loads(tmp_path):
    root = tmp_path / "shop"
    _project(root)
    snap = gemini_cli.read(None, project=root)
    assert _texts(snap) == EXPECTED
    assert "node_modules: a dependency folder, not this project's memory; not read" in snap.left_out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_same_project_in_git_gives_the_same_facts(tmp_path):
    plain, repo = tmp_path / "plain", tmp_path / "repo"
    _project(plain)
    shutil.copytree(plain, repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", "first")
    assert _texts(gemini_cli.read(None, project=repo)) == _texts(gemini_cli.read(None, project=plain))
    assert _texts(gemini_cli.read(None, project=repo)) == EXPECTED


def test_an_unreadable_geminiignore_is_named_and_ignores_nothing(tmp_path):
    root = tmp_path / "shop"
    _project(root)
    (root / ".geminiignore").write_bytes(b"docs/\n\xff\n")
    snap = gemini_cli.read(None, project=root)
    assert ".geminiignore: not valid UTF-8; nothing ignored" in snap.left_out
    assert "Drafts, listed in .geminiignore" in _texts(snap)


def test_the_project_s_own_gemini_md_is_read_whatever_geminiignore_says(tmp_path):
    """Gemini CLI finds the folder's own GEMINI.md by its search upwards, which lists
    nothing out; `.geminiignore` leaves out only the files below."""
    root = tmp_path / "shop"
    _project(root)
    write(root, ".geminiignore", "GEMINI.md\n")
    assert _texts(gemini_cli.read(None, project=root)) == ["The shop runs on Postgres 16."]


def _wide(root, folders: int = 200):
    """A project whose GEMINI.md files lie on both sides of Gemini CLI's 200 folders: the
    project (1) and `.hidden`, `Zebra`, `a000`..`a196` (199, in Node's byte order: `.`
    and capitals before small letters) are searched; `a197`, `b` and every folder one
    level further down are not (breadth first)."""
    write(root, "GEMINI.md", "- The shop runs on Postgres 16.\n")
    write(root, ".hidden/GEMINI.md", "- Hidden folders are searched too.\n")
    write(root, "Zebra/GEMINI.md", "- Capitals sort before small letters.\n")
    for n in range(folders - 2):
        (root / f"a{n:03}").mkdir()
    write(root, "a000/GEMINI.md", "- The first folder is searched.\n")
    write(root, "a196/GEMINI.md", "- The 200th folder is searched.\n")
    write(root, "a197/GEMINI.md", "- The 201st folder is not.\n")
    write(root, "b/GEMINI.md", "- Past the bound, one level down.\n")
    write(root, "a000/deep/GEMINI.md", "- Past the bound, two levels down.\n")


SEARCHED = [
    "Capitals sort before small letters.",
    "Hidden folders are searched too.",
    "The 200th folder is searched.",
    "The first folder is searched.",
    "The shop runs on Postgres 16.",
]
PAST = "past the 200 folders Gemini CLI searches for GEMINI.md (context.discoveryMaxDirs); not read"


def test_a_gemini_md_past_the_200_folders_gemini_searches_is_named_not_read(tmp_path):
    """Gemini CLI reads at most 200 folders of a project, breadth first in Node's order:
    a GEMINI.md below them is one it never loads. Those past it are left out and named;
    the import goes on."""
    root = tmp_path / "shop"
    _wide(root)
    snap = gemini_cli.read(None, project=root)
    assert _texts(snap) == SEARCHED
    for past in ("a197", "b", "a000/deep"):
        assert f"{past}/GEMINI.md: {PAST}" in snap.left_out, snap.left_out


def test_the_bound_is_the_project_s_settings_and_the_cli_says_what_it_left_out(tmp_path, new_store):
    """`context.discoveryMaxDirs` in the project's `.gemini/settings.json` (comments
    allowed, as Gemini reads it) sets the bound: 4 reads the project, `.gemini`,
    `.hidden` and `Zebra`; the import names the rest on stderr."""
    root = tmp_path / "shop"
    _wide(root, folders=20)
    write(root, ".gemini/settings.json", '{\n  // fewer folders\n  "context": {"discoveryMaxDirs": 4}\n}\n')
    db = new_store("memory")
    result = run("import", "--from", "gemini-cli", "--project", root, "--db", db)
    assert ": 3 added," in result.output, result.output
    bound = PAST.replace("200", "4")
    assert f"left out: a000/GEMINI.md: {bound}" in result.stderr, result.stderr
    assert f"left out: b/GEMINI.md: {bound}" in result.stderr, result.stderr


def test_a_settings_file_gemini_cannot_read_is_named_and_the_default_holds(tmp_path):
    root = tmp_path / "shop"
    _wide(root)
    write(root, ".gemini/settings.json", '{"context": {"discoveryMaxDirs": "all"}}')
    snap = gemini_cli.read(None, project=root)
    assert (
        ".gemini/settings.json: context.discoveryMaxDirs is not a whole number >= 0; not used"
        in snap.left_out
    )
    assert "The 200th folder is searched." not in _texts(snap)  # .gemini is one of the 200 now
    write(root, ".gemini/settings.json", "{not json")
    snap = gemini_cli.read(None, project=root)
    assert (
        ".gemini/settings.json: not JSON that can be read; its context.discoveryMaxDirs not used"
        in snap.left_out
    )
    assert f"b/GEMINI.md: {PAST}" in snap.left_out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_git_the_folders_of_git_itself_count_and_history_keeps_to_the_bound(tmp_path):
    """Gemini's search enters `.git` (only `.geminiignore` leaves folders out of it), so
    git's own folders use up the bound as they do in Gemini: with 3, the project, `.gemini`
    and `.git` are all it reads. A committed GEMINI.md past it is not replayed from git."""
    root = tmp_path / "shop"
    write(root, "GEMINI.md", "- The shop runs on Postgres 16.\n")
    write(root, "alpha/GEMINI.md", "- Deploys run on Tuesdays.\n")
    write(root, ".gemini/settings.json", '{"context": {"discoveryMaxDirs": 3}}\n')
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    write(root, "alpha/GEMINI.md", "- Deploys run on Wednesdays.\n")
    git(root, "commit", "-q", "-am", "second")
    snap = gemini_cli.read(None, project=root)
    assert _texts(snap) == ["The shop runs on Postgres 16."]
    assert f"alpha/GEMINI.md: {PAST.replace('200', '3')}" in snap.left_out


def test_a_folder_geminiignore_lists_with_a_slash_still_counts_as_gemini_counts_it(tmp_path):
    """Gemini asks `.geminiignore` about a folder as about a file, so `docs/` leaves out
    what is in `docs` but not the folder itself: its search reads `docs` and counts it.
    With 4: the project, `.gemini`, `api` and `docs`; `web` is past the bound. Many past
    it: ten named, the rest counted."""
    root = tmp_path / "shop"
    write(root, "GEMINI.md", "- The shop runs on Postgres 16.\n")
    write(root, ".geminiignore", "docs/\n")
    write(root, ".gemini/settings.json", '{"context": {"discoveryMaxDirs": 4}}')
    write(root, "api/GEMINI.md", "- The API is versioned in the path.\n")
    write(root, "docs/GEMINI.md", "- Drafts, listed in .geminiignore\n")
    for n in range(12):
        write(root, f"web{n:02}/GEMINI.md", "- Past the bound.\n")
    snap = gemini_cli.read(None, project=root)
    assert _texts(snap) == ["The API is versioned in the path.", "The shop runs on Postgres 16."]
    bound = PAST.replace("200", "4")
    assert f"web00/GEMINI.md: {bound}" in snap.left_out and f"web09/GEMINI.md: {bound}" in snap.left_out
    assert not any(line.startswith("web10/") for line in snap.left_out), snap.left_out
    assert f"2 more GEMINI.md files {bound}" in snap.left_out, snap.left_out


def test_the_user_s_settings_set_the_bound_unless_the_project_s_do(tmp_path):
    """Gemini CLI merges its settings, the project's over the user's: DIR's
    `settings.json` bounds the search of P unless P's `.gemini/settings.json` says
    otherwise (300.0 read as JavaScript reads it, 300)."""
    home, root = tmp_path / ".gemini", tmp_path / "shop"
    write(home, "GEMINI.md", "# Preferences\n\n- Answer briefly.\n")
    write(home, "settings.json", '{"context": {"discoveryMaxDirs": 3}}')
    _wide(root, folders=20)
    texts = _texts(gemini_cli.read(home, project=root))
    assert "Capitals sort before small letters." in texts  # the project, .hidden, Zebra
    assert "The first folder is searched." not in texts
    write(root, ".gemini/settings.json", '{"context": {"discoveryMaxDirs": 300.0}}')
    assert "The 200th folder is searched." in _texts(gemini_cli.read(home, project=root))
    write(home, "settings.json", "[")
    snap = gemini_cli.read(home, project=root)
    assert (
        f"{home}/settings.json: not JSON that can be read; its context.discoveryMaxDirs not used"
        in snap.left_out
    )
