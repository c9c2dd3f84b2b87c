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
@pytest.mark.parametrize("system", ["git-notes", "basic-memory", "claude-code"])
def test_import_runs_nothing_the_repository_names(tmp_path, attack, system):
    bait, repo, folder = build(tmp_path, attack, system)
    db = tmp_path / "memory.db"
    if system == "claude-code":  # its default root: ~/.claude
        run("import", "--from", system, "--db", db, env={"HOME": str(tmp_path / "home")})
    else:
        run("import", "--from", system, folder, "--db", db)
    assert bait.ran() == []
    texts = run("export", db).stdout
    assert "Written after the last commit" in texts  # still read, and read whole
    assert ("Sarah lives in Lyon" in texts) or ("Always run" in texts)
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
