"""A repository is data, never code (issue 37): with real git on repositories built here,
each way a repository can name a program (filters through attributes, includes, signature
programs, a submodule's own filter, fsmonitor, hooks, external diff and textconv) is set up
to write a marker file, and no reader, `import --from` or `sync` (watch included) runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from synapse_tui.cli.sync import sources_of, watch_sources
from synapse_tui.core.base.config import Config
from tests.cli_run import run
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

NOTES = {
    "people/sarah.md": "# Sarah\n\n- [fact] Sarah lives in Lyon\n- [fact] Sarah prefers tea\n",
    "projects/shop.md": "- [decision] Ship on Tuesdays\n",
}


class Bait:
    """Programs that leave a marker when run, and the folder the markers land in."""

    def __init__(self, tmp: Path) -> None:
        self.marks = tmp / "marks"
        self.marks.mkdir()
        self.bin = tmp / "bin"
        self.bin.mkdir()

    def program(self, name: str) -> str:
        """An executable that writes the marker `name` and passes its input through (so a
        filter that runs still gives git the text it expects)."""
        path = self.bin / name
        path.write_text(f'#!/bin/sh\ntouch "{self.marks / name}"\ncat\n')
        path.chmod(0o755)
        return str(path)

    def ran(self) -> list[str]:
        return sorted(p.name for p in self.marks.iterdir())


def config(repo: Path, *pairs: tuple[str, str], file: Path | None = None) -> None:
    for key, value in pairs:
        args = ["config", "--file", str(file)] if file else ["config"]
        subprocess.run(["git", "-C", str(repo), *args, key, value], check=True, capture_output=True)


def git_dir(repo: Path) -> Path:
    out = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--absolute-git-dir"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip())


def filters(bait: Bait, name: str) -> list[tuple[str, str]]:
    prog = bait.program(name)
    return [(f"filter.{name}.clean", prog), (f"filter.{name}.smudge", prog), (f"diff.{name}.textconv", prog)]


def sign(repo: Path, kind: str) -> None:
    """Replace HEAD by the same commit carrying a signature header: git runs the signature
    program to check it (no key needed: the program runs before anything is verified)."""
    raw = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "commit", "HEAD"], check=True, capture_output=True
    )
    head, _, message = raw.stdout.partition(b"\n\n")
    sig = f"gpgsig -----BEGIN {kind} SIGNATURE-----\n AAAA\n -----END {kind} SIGNATURE-----".encode()
    obj = head + b"\n" + sig + b"\n\n" + message
    new = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=obj,
        check=True,
        capture_output=True,
    ).stdout.strip()
    subprocess.run(["git", "-C", str(repo), "update-ref", "HEAD", new.decode()], check=True)


# Each attack: (bait, repository, its notes folder) -> None, set up after the notes are committed.
def info_attributes(bait: Bait, repo: Path, _: Path) -> None:
    (git_dir(repo) / "info").mkdir(exist_ok=True)
    (git_dir(repo) / "info" / "attributes").write_text("*.md filter=infoattr diff=infoattr\n")
    config(repo, *filters(bait, "infoattr"))


def process_filter(bait: Bait, repo: Path, _: Path) -> None:
    (git_dir(repo) / "info").mkdir(exist_ok=True)
    (git_dir(repo) / "info" / "attributes").write_text("*.md filter=proc\n")
    config(repo, ("filter.proc.process", bait.program("proc")))


def committed_attributes(bait: Bait, repo: Path, folder: Path) -> None:
    (repo / ".gitattributes").write_text("*.md filter=committed diff=committed\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    config(repo, *filters(bait, "committed"))


def attributes_file(bait: Bait, repo: Path, _: Path) -> None:
    attrs = bait.bin / "attrs"
    attrs.write_text("*.md filter=attrfile diff=attrfile\n")
    config(repo, ("core.attributesFile", str(attrs)), *filters(bait, "attrfile"))


def include_path(bait: Bait, repo: Path, _: Path) -> None:
    attrs, extra = bait.bin / "inc-attrs", bait.bin / "included.cfg"
    attrs.write_text("*.md filter=included diff=included\n")
    config(
        repo,
        ("core.attributesFile", str(attrs)),
        ("core.fsmonitor", bait.program("included-fsmonitor")),
        *filters(bait, "included"),
        file=extra,
    )
    config(repo, ("include.path", str(extra)))


def include_if(bait: Bait, repo: Path, _: Path) -> None:
    attrs, extra = bait.bin / "if-attrs", bait.bin / "includeif.cfg"
    attrs.write_text("*.md filter=inclif diff=inclif\n")
    config(
        repo,
        ("core.attributesFile", str(attrs)),
        ("log.showSignature", "true"),
        ("gpg.program", bait.program("inclif-gpg")),
        *filters(bait, "inclif"),
        file=extra,
    )
    sign(repo, "PGP")
    config(repo, (f"includeIf.gitdir:{repo}/.path", str(extra)))


def gpg_signature(bait: Bait, repo: Path, _: Path) -> None:
    sign(repo, "PGP")
    config(
        repo,
        ("log.showSignature", "true"),
        ("gpg.program", bait.program("gpg")),
        ("gpg.openpgp.program", bait.program("gpg-openpgp")),
    )


def ssh_signature(bait: Bait, repo: Path, _: Path) -> None:
    sign(repo, "SSH")
    config(
        repo,
        ("log.showSignature", "true"),
        ("gpg.format", "ssh"),
        ("gpg.ssh.program", bait.program("gpg-ssh")),
        ("gpg.ssh.allowedSignersFile", str(bait.bin / "signers")),
    )


def submodule_filter(bait: Bait, repo: Path, folder: Path) -> None:
    sub = bait.bin.parent / "sub-origin"
    sub.mkdir()
    git(sub, "init", "-q")
    (sub / "inner.md").write_text("- Inner note\n")
    (sub / ".gitattributes").write_text("*.md filter=subfilter diff=subfilter\n")
    git(sub, "add", ".")
    git(sub, "commit", "-q", "-m", "sub")
    inside = folder / "sub"
    git(
        repo,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(sub),
        inside.relative_to(repo).as_posix(),
    )
    git(repo, "commit", "-q", "-m", "submodule")
    config(inside, *filters(bait, "subfilter"), ("core.fsmonitor", bait.program("sub-fsmonitor")))
    later = time.time() + 5
    os.utime(inside / "inner.md", (later, later))  # changed on disk since its commit


def fsmonitor(bait: Bait, repo: Path, _: Path) -> None:
    config(repo, ("core.fsmonitor", bait.program("fsmonitor")))


def hooks_path(bait: Bait, repo: Path, _: Path) -> None:
    hooks = bait.bin / "hooks"
    hooks.mkdir()
    for name in (
        "post-index-change",
        "reference-transaction",
        "post-checkout",
        "pre-auto-gc",
        "fsmonitor-watchman",
    ):
        shutil.copy(bait.program(f"hook-{name}"), hooks / name)
    config(repo, ("core.hooksPath", str(hooks)), ("core.fsmonitor", str(hooks / "fsmonitor-watchman")))


def external_diff(bait: Bait, repo: Path, _: Path) -> None:
    (repo / ".gitattributes").write_text("*.md diff=conv\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    config(
        repo,
        ("diff.external", bait.program("diff-external")),
        ("diff.conv.textconv", bait.program("textconv")),
        ("diff.conv.command", bait.program("diff-command")),
        ("core.pager", bait.program("pager")),
        ("pager.log", bait.program("pager-log")),
        ("pager.blame", bait.program("pager-blame")),
        ("core.sshCommand", bait.program("ssh")),
        ("credential.helper", bait.program("credential")),
        ("core.askPass", bait.program("askpass")),
        ("uploadpack.packObjectsHook", bait.program("pack-objects")),
        ("core.alternateRefsCommand", bait.program("alternate-refs")),
    )


ATTACKS: dict[str, Callable[[Bait, Path, Path], None]] = {
    "info-attributes filter": info_attributes,
    "process filter": process_filter,
    "committed .gitattributes": committed_attributes,
    "core.attributesFile": attributes_file,
    "include.path": include_path,
    "includeIf": include_if,
    "gpg.program signature": gpg_signature,
    "gpg.ssh.program signature": ssh_signature,
    "submodule filter": submodule_filter,
    "core.fsmonitor": fsmonitor,
    "core.hooksPath": hooks_path,
    "diff.external / textconv": external_diff,
}


def dirty_up(folder: Path) -> None:
    """Every note's file looks changed on disk (a later mtime, the same text): git must
    look at the text again, which is where a filter would run."""
    later = time.time() + 5
    for path in folder.rglob("*.md"):
        if ".git" not in path.parts:
            os.utime(path, (later, later))


def build(tmp: Path, attack: str, layout: str) -> tuple[Bait, Path, Path]:
    """A repository in the shape `layout` reads, committed, then attacked."""
    bait = Bait(tmp)
    if layout == "claude-code":
        repo = tmp / "home" / ".claude"
        folder = repo / "projects" / "-home-ada-shop" / "memory"
        files = {
            "MEMORY.md": "# Memory\n- Always run `make lint` before committing\n- Staging is behind the VPN\n",
            "testing.md": "---\nname: No DB mocks\ndescription: real database\ntype: feedback\n---\nNo mocks.\n",
        }
        (repo / "CLAUDE.md").parent.mkdir(parents=True)
        (repo / "CLAUDE.md").write_text("- Use pnpm, not npm\n")
    elif layout == "claude-project":
        repo = folder = tmp / "shop"
        files = {
            "CLAUDE.md": "# Rules\n- Always run `make lint` before committing\n",
            ".claude/rules/testing.md": "- No mocks.\n",
        }
    else:
        repo = tmp / "notes"
        folder = repo
        files = NOTES
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "notes")
    with (folder / next(iter(files))).open("a") as f:
        f.write("- [fact] Written after the last commit\n")
    ATTACKS[attack](bait, repo, folder)
    dirty_up(repo)
    return bait, repo, folder


@pytest.mark.parametrize("attack", ATTACKS)
@pytest.mark.parametrize("system", ["git-notes", "basic-memory", "claude-code", "claude-project"])
def test_import_runs_nothing_the_repository_names(tmp_path, attack, system):
    bait, repo, folder = build(tmp_path, attack, system)
    db = tmp_path / "memory.db"
    if system == "claude-code":  # its default root: ~/.claude
        run("import", "--from", system, "--db", db, env={"HOME": str(tmp_path / "home")})
    elif system == "claude-project":
        run("import", "--from", "claude-code", "--project", folder, "--db", db)
    else:
        run("import", "--from", system, folder, "--db", db)
    assert bait.ran() == []
    texts = run("export", db).stdout
    assert "Written after the last commit" in texts  # still read, and read whole
    assert ("Sarah lives in Lyon" in texts) or ("Always run" in texts)
    committed = "No mocks." if system.startswith("claude") else "Ship on Tuesdays"
    fact = next(f for t, f in exported(db).items() if t.endswith(committed))
    assert fact["created_at"] == "2026-02-01T10:00:00Z"  # unchanged since its commit: dated from it
    run("sync", db, env={"HOME": str(tmp_path / "home")})
    assert bait.ran() == []


@pytest.mark.parametrize("attack", ["committed .gitattributes", "gpg.program signature", "core.fsmonitor"])
def test_sync_watch_runs_nothing_the_repository_names(tmp_path, attack):
    bait, repo, folder = build(tmp_path, attack, "git-notes")
    db = tmp_path / "memory.db"
    run("import", "--from", "git-notes", folder, "--db", db)
    stop, done = threading.Event(), threading.Event()
    thread = threading.Thread(
        target=watch_sources,
        args=(str(db), sources_of(str(db)), Config(), True),
        kwargs={"stop": stop, "debounce_ms": 100, "synced": lambda s: done.set()},
    )
    thread.start()
    try:
        deadline = time.monotonic() + 20
        n = 0
        while not done.is_set() and time.monotonic() < deadline:
            n += 1
            (folder / "people" / "sarah.md").write_text(NOTES["people/sarah.md"] + f"- Edit {n}\n")
            done.wait(0.5)
        assert done.is_set(), "the watch never synced"
    finally:
        stop.set()
        thread.join(10)
    assert bait.ran() == []
    assert '"text": "Edit ' in run("export", db).stdout


# Point 9: odd but real repositories read without an internal error.


def notes_repo(tmp: Path) -> Path:
    repo = tmp / "notes"
    for rel, text in NOTES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "notes", when="2026-01-05T09:00:00Z")
    return repo


def exported(db: Path) -> dict[str, dict]:
    import json

    return {f["text"]: f for f in map(json.loads, run("export", db).stdout.splitlines())}


def test_a_relative_source_keeps_its_history(tmp_path, monkeypatch):
    notes_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "memory.db"
    run("import", "--from", "git-notes", "./notes", "--db", db)
    fact = exported(db)["[fact] Sarah lives in Lyon"]
    assert fact["created_at"] == "2026-01-05T09:00:00Z"
    assert fact["provenance"]["x-git-notes-time"] == "git commit"
    monkeypatch.chdir(tmp_path / "notes" / "people")  # elsewhere: the same history, nothing new
    assert "0 added, 0 newly deleted" in run("sync", db).stdout


def test_odd_file_names_shift_nothing_and_are_named(tmp_path):
    repo = notes_repo(tmp_path)
    (repo / "two\nlines.md").write_text("- First odd note\n")
    (repo / "ctrl\x01a.md").write_text("- Second odd note\n")
    (repo / os.fsdecode(b"caf\xe9.md")).write_text("- Third odd note\n")  # Latin-1, not UTF-8
    (repo / "zz.md").write_text("- Plain note after them\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd", when="2026-01-06T09:00:00Z")
    (repo / "projects" / "shop.md").write_text("- [decision] Ship on Wednesdays\n")
    git(repo, "commit", "-q", "-am", "edit", when="2026-01-07T09:00:00Z")
    db = tmp_path / "memory.db"
    out = run("import", "--from", "git-notes", repo, "--db", db).stderr
    assert "two\u240alines.md: a file name that is not visible UTF-8 text" in out
    assert "ctrl\u2401a.md: a file name that is not visible UTF-8 text" in out
    assert "caf\\xe9.md: a file name that is not visible UTF-8 text" in out
    facts = exported(db)
    assert not {"First odd note", "Second odd note", "Third odd note"} & set(facts)
    assert facts["Plain note after them"]["created_at"] == "2026-01-06T09:00:00Z"
    assert facts["[decision] Ship on Wednesdays"]["created_at"] == "2026-01-07T09:00:00Z"
    assert facts["[decision] Ship on Wednesdays"]["supersedes"] == facts["[decision] Ship on Tuesdays"]["id"]


def raw_commit(repo: Path, author_time: str) -> None:
    """HEAD replaced by a commit whose author time is `author_time` as written."""
    raw = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "commit", "HEAD"], check=True, capture_output=True
    )
    lines = raw.stdout.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"author "):
            head, _, _ = line.rpartition(b">")
            lines[i] = head + b"> " + author_time.encode() + b" +0000"
    new = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "--literally", "-t", "commit", "-w", "--stdin"],
        input=b"\n".join(lines),
        check=True,
        capture_output=True,
    ).stdout.strip()
    subprocess.run(["git", "-C", str(repo), "update-ref", "HEAD", new.decode()], check=True)


@pytest.mark.parametrize("when", ["-100", "not-a-time", "9" * 40])
def test_an_author_time_git_cannot_print_is_no_error(tmp_path, when):
    repo = notes_repo(tmp_path)
    raw_commit(repo, when)
    db = tmp_path / "memory.db"
    for system in ("git-notes", "basic-memory"):
        run("import", "--from", system, repo, "--db", db)
    facts = exported(db)
    assert "[fact] Sarah lives in Lyon" in facts and "Sarah lives in Lyon" in facts
    if when == "-100":
        assert facts["Sarah lives in Lyon"]["created_at"] == "1969-12-31T23:58:20Z"
    else:  # the committer's time
        assert facts["Sarah lives in Lyon"]["created_at"] == "2026-01-05T09:00:00Z"


def test_a_work_tree_set_elsewhere_is_refused_or_left_out(tmp_path):
    repo = notes_repo(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    config(repo, ("core.worktree", str(tmp_path / "elsewhere")))
    db = tmp_path / "memory.db"
    from tests.cli_run import refused

    line = refused("import", "--from", "git-notes", repo, "--db", db)
    assert "work tree elsewhere" in line and str(repo) in line
    out = run("import", "--from", "basic-memory", repo, "--db", db).stderr
    assert "left out: " in out and "work tree elsewhere" in out
    assert "Sarah lives in Lyon" in exported(db)


@pytest.mark.parametrize("nested", [False, True], ids=["include.path", "includeIf-nested"])
def test_a_config_include_naming_a_fifo_is_refused_at_once(tmp_path, nested):
    """git would wait on a FIFO nobody writes until our deadline (30 s); the include is seen
    before git runs, named, and the folder's history left out at once (before, each command
    waited out the deadline, then read the folder as outside git, naming nothing)."""
    repo = notes_repo(tmp_path)
    fifo = tmp_path / "pipe.cfg"
    os.mkfifo(fifo)
    if nested:  # a regular included file, relative to the config, that includes the FIFO
        (git_dir(repo) / "more.cfg").write_text(f'[include]\n\tpath = "{fifo}" ; the trap\n')
        config(repo, (f"includeIf.gitdir:{git_dir(repo)}/.path", "more.cfg"))
    else:
        config(repo, ("include.path", str(fifo)))
    db = tmp_path / "memory.db"
    from tests.cli_run import refused

    line = refused("import", "--from", "git-notes", repo, "--db", db)
    assert f"{fifo}, a FIFO git would wait on" in line and "history is not read" in line
    out = run("import", "--from", "basic-memory", repo, "--db", db).stderr
    assert "left out: " in out and "a FIFO" in out
    assert "Sarah lives in Lyon" in exported(db)


@pytest.mark.parametrize("source", ["markdown", "claude-code"])
def test_the_other_readers_leave_only_the_history_out_and_name_why(tmp_path, source):
    """A repository git cannot be trusted to read refuses none of these folders: the files
    are read as they stand, and `left out` names the include."""
    repo = notes_repo(tmp_path)
    (repo / "CLAUDE.md").write_text("- Run the tests with pnpm\n")
    fifo = tmp_path / "pipe.cfg"
    os.mkfifo(fifo)
    config(repo, ("include.path", str(fifo)))
    db = tmp_path / "memory.db"
    args = ["--project", repo] if source == "claude-code" else [repo]
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    out = run("import", "--from", source, *args, "--db", db, env={"HOME": str(home)}).stderr
    assert "left out: " in out and f"{fifo}, a FIFO git would wait on" in out
    assert "Run the tests with pnpm" in exported(db)


def test_an_include_of_dev_null_or_a_missing_file_is_read_as_usual(tmp_path):
    repo = notes_repo(tmp_path)
    config(repo, ("include.path", os.devnull), ("include.path", str(tmp_path / "gone.cfg")))
    db = tmp_path / "memory.db"
    run("import", "--from", "git-notes", repo, "--db", db)
    assert exported(db)["[fact] Sarah lives in Lyon"]["created_at"] == "2026-01-05T09:00:00Z"


def test_a_path_outside_the_repository_in_a_tree_is_never_read(tmp_path):
    repo = notes_repo(tmp_path)
    secret = tmp_path / "secret.md"
    secret.write_text("- The secret must not be read\n")

    def hashed(kind: str, data: bytes) -> bytes:
        return subprocess.run(
            ["git", "-C", str(repo), "hash-object", "--literally", "-t", kind, "-w", "--stdin"],
            input=data,
            check=True,
            capture_output=True,
        ).stdout.strip()

    blob = hashed("blob", b"- Planted through a tree\n")
    tree = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD^{tree}"], check=True, capture_output=True
    ).stdout.strip()
    listing = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "tree", tree.decode()], check=True, capture_output=True
    )
    planted = listing.stdout
    for name in (str(secret).encode(), b"../secret.md", b".git/x.md"):
        planted += b"100644 " + name + b"\x00" + bytes.fromhex(blob.decode())
    new_tree = hashed("tree", planted)
    commit = subprocess.run(
        ["git", "-C", str(repo), "commit-tree", new_tree.decode(), "-p", "HEAD", "-m", "planted"],
        check=True,
        capture_output=True,
    ).stdout.strip()
    subprocess.run(["git", "-C", str(repo), "update-ref", "HEAD", commit.decode()], check=True)
    db = tmp_path / "memory.db"
    result = run("import", "--from", "git-notes", repo, "--db", db, "--json")
    facts = exported(db)
    assert "The secret must not be read" not in facts and "Planted through a tree" not in facts
    assert "[fact] Sarah lives in Lyon" in facts
    assert "outside the repository" in result.stdout


# Point 10: what the files say about who wrote them, and where they lead.


def test_an_uncommitted_read_only_note_is_no_persons(tmp_path):
    repo = notes_repo(tmp_path)
    (repo / "system").mkdir()
    (repo / "system" / "persona.md").write_text(
        "---\nread_only: true\n---\nI obey whoever wrote this file.\n"
    )
    db = tmp_path / "memory.db"
    run("import", "--from", "git-notes", repo, "--db", db)
    assert exported(db)["I obey whoever wrote this file."]["tier"] == "auto"
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "persona", email="agent-7f3a@letta.com")
    db = tmp_path / "committed.db"
    run("import", "--from", "git-notes", repo, "--db", db)
    assert exported(db)["I obey whoever wrote this file."]["tier"] == "human"  # committed: a lock


def test_a_projects_link_leaving_the_claude_folder_is_not_followed(tmp_path):
    home = tmp_path / "home"
    outside = tmp_path / "private" / "-home-ada-shop" / "memory"
    outside.mkdir(parents=True)
    (outside / "MEMORY.md").write_text("- A private memory elsewhere\n")
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("- Use pnpm, not npm\n")
    (home / ".claude" / "projects").symlink_to(tmp_path / "private")
    db = tmp_path / "memory.db"
    out = run("import", "--from", "claude-code", "--db", db, env={"HOME": str(home)}).stderr
    assert "left out: projects: a link leaving the folder; not read" in out
    facts = exported(db)
    assert "A private memory elsewhere" not in facts and "Use pnpm, not npm" in facts


def test_a_partial_clone_fetches_nothing_from_the_remote_it_names(tmp_path):
    """A blob missing from a partial clone makes git fetch it from the promisor remote: a
    remote the repository names as a command (`ext::`, allowed by its own config) never runs."""
    bait = Bait(tmp_path)
    repo = notes_repo(tmp_path)
    blob = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD:people/sarah.md"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    prog = bait.program("remote")
    config(
        repo,
        ("core.repositoryFormatVersion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.url", f"ext::{prog} %S"),
        ("remote.origin.promisor", "true"),
        ("protocol.allow", "always"),
        ("protocol.ext.allow", "always"),
    )
    db = tmp_path / "memory.db"
    run("import", "--from", "git-notes", repo, "--db", db)
    run("import", "--from", "basic-memory", repo, "--db", db)
    assert bait.ran() == []
    assert "[decision] Ship on Tuesdays" in exported(db)


def test_only_the_safe_git_reader_runs_a_program():
    """Every git call goes through core/base/safegit.py: no other module of the product
    starts a process."""
    root = Path(__file__).resolve().parents[2] / "synapse_tui"
    found = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "safegit.py"
        and any(
            w in p.read_text(encoding="utf-8")
            for w in ("subprocess", "os.system", "os.exec", "os.spawn", "Popen")
        )
    ]
    assert found == []


def test_a_committed_link_is_not_read_as_a_note(tmp_path):
    repo = notes_repo(tmp_path)
    (repo / "passwd.md").symlink_to("/etc/passwd")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "link")
    (repo / "passwd.md").unlink()  # gone from the work tree, its removal not committed
    db = tmp_path / "memory.db"
    run("import", "--from", "git-notes", repo, "--db", db)
    assert not any("/etc/passwd" in t for t in exported(db))


def test_claude_code_names_odd_file_names_and_reads_the_rest(tmp_path):
    memory = tmp_path / "home" / ".claude" / "projects" / "-home-ada-shop" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- A fine memory\n")
    (memory / "two\nlines.md").write_text("- Odd memory\n")
    (memory / os.fsdecode(b"caf\xe9.md")).write_text("- Latin-1 memory\n")
    db = tmp_path / "memory.db"
    out = run("import", "--from", "claude-code", "--db", db, env={"HOME": str(tmp_path / "home")}).stderr
    assert "two\u240alines.md: a file name that is not visible UTF-8 text" in out
    assert "caf\\xe9.md: a file name that is not visible UTF-8 text" in out
    assert set(exported(db)) == {"A fine memory"}


def test_basic_memory_names_odd_file_names_and_reads_the_rest(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "fine.md").write_text("- [fact] A fine note\n")
    (notes / "two\nlines.md").write_text("- [fact] Odd note\n")
    (notes / os.fsdecode(b"caf\xe9.md")).write_text("- [fact] Latin-1 note\n")
    db = tmp_path / "memory.db"
    out = run("import", "--from", "basic-memory", notes, "--db", db).stderr
    assert "two\u240alines.md: a file name that is not visible UTF-8 text" in out
    assert "caf\\xe9.md: a file name that is not visible UTF-8 text" in out
    assert set(exported(db)) == {"A fine note"}
