"""Read a git repository as data: no program the repository names ever runs (issue 37).

A repository's configuration (its own, and any file an `include.path` / `includeIf` in it
names), its attributes (`.gitattributes`, `.git/info/attributes`, `core.attributesFile`)
and its submodules can each name a program: a clean, smudge or process filter, a textconv or
external diff, a signature program (`log.showSignature`), an fsmonitor hook, hooks, an ssh
command, a credential helper. This module runs git so that none of them can:

- Only plumbing that reads objects: `rev-parse` (to find the repository), `rev-list`,
  `diff-tree` (`--no-textconv --no-ext-diff`: raw output, or a `-U0` patch of which only
  the `index` and hunk header lines are read), `ls-tree`,
  `cat-file --batch` (no `--filters`, no `--textconv`) and `blame` of a committed blob
  (`--no-textconv`). Nothing reads or refreshes the index, nothing runs `status`, `log`,
  `diff` against the work tree or anything that converts a file (where filters run); the
  work tree is compared with committed blobs in Python (`Repo.blob_id`).
- Every command runs with `--git-dir` the repository found and `--work-tree` an empty
  private folder (also its working directory): a committed `.gitattributes` or `.mailmap`
  in the real work tree is never consulted, and `core.worktree` decides nothing.
- The environment is cleaned: every `GIT_*` variable of the caller is dropped (but the two
  that only narrow discovery), the system and global config are not read
  (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), nor system attributes, no
  terminal prompt, no pager, no optional locks, no replace refs, no lazy fetch, no
  transport at all (`GIT_ALLOW_PROTOCOL` lists none), pathspecs are literal.
- `-c` overrides, which git reads after every config file (includes too), blank or turn off
  each key git documents as naming a program or a file to run or read (`OVERRIDES`).

Text from git is parsed NUL-separated (`-z`): a newline or `\\x01` in a file name is a
name. A path git records that is not a plain relative path inside the repository (absolute,
with `..` or `.git`, empty parts) is never returned, and `Repo.left_out` says so. Commit
headers are parsed here from the raw objects, so a date git cannot print (negative, not a
number) is read or replaced by a named fallback, never an error.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.safefile import read_small

# Keys git documents as naming a program (or a file read as config or attributes): each set
# to nothing, or turned off. Filter and diff drivers have names of the repository's choosing
# and cannot be listed: no command run here converts a file or diffs text, so none is used.
OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.attributesFile", os.devnull),
    ("core.sshCommand", ""),
    ("core.gitProxy", ""),
    ("core.pager", "cat"),
    ("core.editor", ""),
    ("core.askPass", ""),
    ("core.alternateRefsCommand", ""),
    ("core.untrackedCache", "false"),
    ("core.quotePath", "false"),
    ("credential.helper", ""),
    ("diff.external", ""),
    ("diff.noprefix", "false"),
    ("log.showSignature", "false"),
    ("gpg.program", ""),
    ("gpg.openpgp.program", ""),
    ("gpg.x509.program", ""),
    ("gpg.ssh.program", ""),
    ("gpg.ssh.defaultKeyCommand", ""),
    ("gpg.ssh.allowedSignersFile", ""),
    ("sequence.editor", ""),
    ("interactive.diffFilter", ""),
    ("uploadpack.packObjectsHook", ""),
    ("protocol.allow", "never"),
    ("submodule.recurse", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("blame.ignoreRevsFile", ""),
    ("mailmap.file", ""),
    ("mailmap.blob", ""),
    ("safe.bareRepository", "explicit"),
)
_KEEP = ("GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM")  # only narrow discovery
_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_ALLOW_PROTOCOL": "none-allowed",  # a list naming no protocol: no transport at all
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_LITERAL_PATHSPECS": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
}
_TIMEOUT = 300
_FIND_TIMEOUT = 30
_HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_NO_DATE = 0.0
_EARLIEST, _LATEST = -62135596800, 221845392000  # 0001-01-01, 9000-01-01: the times a store holds


@dataclass(frozen=True)
class Commit:
    """A commit as its raw object records it."""

    sha: str
    author: str  # `Name <email>`
    email: str
    at: float  # epoch seconds: the author's time, the instant the text was written
    parents: tuple[str, ...] = ()
    committed: float = _NO_DATE  # epoch seconds: the committer's time, when it landed where it is


@dataclass(frozen=True)
class Change:
    """One path a commit changed (`diff-tree --raw`): its blob after the commit, None when
    the commit removed it; `source` is the old path of a rename git detected."""

    path: str
    blob: str | None
    status: str  # A, M, D, T, R
    source: str | None = None
    mode: str = "100644"  # after the commit: 100644, 100755, 120000 (a link), 160000 (a submodule)

    @property
    def file(self) -> str | None:
        """The blob when the path is a file after the commit (not a link, not a submodule)."""
        return self.blob if self.mode in ("100644", "100755") else None


@dataclass(frozen=True)
class Entry:
    """One entry of a tree (`ls-tree`)."""

    mode: str
    kind: str  # blob, tree, commit (a submodule)
    sha: str
    path: str


Hunk = tuple[int, int, int, int]  # (old start, old end, new start, new end), 0-based, end excluded
_HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _hunk(old: int, old_n: int, new: int, new_n: int) -> Hunk:
    """A `-U0` hunk header's numbers as a region: a side of n lines starts at line s
    (1-based); a side of none sits after line s."""
    i = old - 1 if old_n else old
    j = new - 1 if new_n else new
    return (i, i + old_n, j, j + new_n)


def git_path(name: str) -> bool:
    """Whether a path git recorded is a plain relative path inside the repository, safe
    to join onto its work tree: no absolute path, no `..`, `.` or empty part, no `.git`."""
    if not name or name.startswith("/") or "\x00" in name:
        return False
    return all(part not in ("", ".", "..") and part.lower() != ".git" for part in name.split("/"))


@cache
def _git() -> str | None:
    """The `git` on PATH as an absolute path: run from the repository's folder, a relative
    one (PATH holding `.`) would name a `git` the folder holds."""
    found = shutil.which("git")
    return os.path.abspath(found) if found else None


@cache
def _empty() -> str:
    """A private empty folder: the work tree and working directory of every command, so
    nothing of the real work tree (attributes, mailmap) is consulted."""
    path = tempfile.mkdtemp(prefix="synapse-git-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


_INCLUDE_DEPTH = 10  # git's own limit on nested includes
_CONFIG_LIMIT = 1 << 20  # a config file larger than this is not scanned for includes
_SECTION = re.compile(r"^\s*\[([^\]]*)\](.*)$")
_PATH_KEY = re.compile(r"^\s*path\s*=\s*(.*?)\s*$", re.IGNORECASE)


def _blocking_config(folder: Path) -> str | None:
    """Why git would hang reading the configuration of the repository holding `folder`
    (None when it would not): a config file, or a file an `include.path` / `includeIf`
    names, that exists and is not a regular file (a FIFO nobody writes, a device).

    Scanned before git runs, by `stat` only, which never blocks; every include is followed
    whatever its condition, so the scan errs on the side of refusing. Where git would find
    the repository is mimicked from the nearest `.git` upwards."""
    git_dir = _nearest_git_dir(folder.resolve())
    if git_dir is None:
        return None
    files = [git_dir / "config", git_dir / "config.worktree"]
    common = _first_line(git_dir / "commondir")
    if common:
        files.insert(0, (git_dir / common) / "config")
    for file in files:
        why = _odd_file(file, "is") or _odd_include(file, 0)
        if why:
            return why
    return None


def _nearest_git_dir(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():  # a linked work tree or submodule: `gitdir: PATH`
            line = _first_line(dot)
            if line and line.startswith("gitdir:"):
                return folder / line.removeprefix("gitdir:").strip()
            return None
    return None


def _first_line(path: Path) -> str | None:
    try:
        data = read_small(path, 4096)
    except OSError:
        return None
    lines = os.fsdecode(data).splitlines()
    return lines[0].strip() if lines else None


def _odd_file(path: Path, how: str) -> str | None:
    """Why git would wait on reading `path`, None when it would not: a FIFO or a device
    (`/dev/null` aside); a missing file git skips, a folder it refuses at once."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if stat.S_ISFIFO(st.st_mode):
        kind = "a FIFO"
    elif (stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)) and str(path) != os.devnull:
        kind = "a device"
    else:
        return None
    return f"{how} {path}, {kind} git would wait on"


def _odd_include(config: Path, depth: int) -> str | None:
    """The first include under `config` (recursively) naming a file git would block on."""
    if depth >= _INCLUDE_DEPTH:
        return None
    try:
        text = os.fsdecode(read_small(config, _CONFIG_LIMIT))
    except OSError:
        return None
    section = ""
    for line in text.splitlines():
        head = _SECTION.match(line)
        if head:
            section, line = head.group(1).strip().lower(), head.group(2)
        key = _PATH_KEY.match(line)
        if not key or not section.startswith("include"):
            continue
        value = key.group(1).split(" #")[0].split(" ;")[0].strip().strip('"')
        if not value:
            continue
        target = Path(value).expanduser() if value.startswith("~") else config.parent / value
        why = _odd_file(target, "includes") or _odd_include(target, depth + 1)
        if why:
            return why
    return None


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEEP}
    return {**env, **_ENV}


def _overrides() -> list[str]:
    return [arg for key, value in OVERRIDES for arg in ("-c", f"{key}={value}")]


def _run(
    prefix: Sequence[str],
    args: Sequence[str],
    cwd: str,
    stdin: bytes | None = None,
    timeout: float = _TIMEOUT,
) -> bytes | None:
    git = _git()
    if git is None:
        return None
    try:
        out = subprocess.run(
            [git, "--no-pager", *_overrides(), *prefix, *args],
            input=stdin,
            capture_output=True,
            cwd=cwd,
            env=_environment(),
            check=False,
            timeout=timeout,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def _text(raw: bytes) -> str:
    return os.fsdecode(raw)  # a name as the file system has it, odd bytes included


def _person(line: str) -> tuple[str, str, float | None]:
    """(name, email, epoch seconds or None) of a raw `author`/`committer` value:
    `Name <email> 1700000000 +0100`."""
    lt, gt = line.find("<"), line.rfind(">")
    if lt < 0 or gt < lt:
        return line.strip(), "", None
    name, email, rest = line[:lt].strip(), line[lt + 1 : gt], line[gt + 1 :].split()
    try:
        seconds = int(rest[0]) if rest else None
    except ValueError:
        seconds = None
    at = float(seconds) if seconds is not None and _EARLIEST <= seconds < _LATEST else None
    return name, email, at


@dataclass
class Repo:
    """A git repository found from a folder in its work tree; every read through git here
    runs no program the repository names (see the module docstring)."""

    git_dir: Path
    top: Path  # the top of its work tree, resolved
    object_format: str = "sha1"
    left_out: list[str] = field(default_factory=list)  # what git records and is not read, and why
    _parsed: dict[str, Commit] = field(default_factory=dict, repr=False)  # commits already read

    @classmethod
    def find(cls, folder: Path) -> Repo | None:
        """The repository whose work tree holds `folder`; None without git, outside a
        repository, or in one git refuses (another user's, a bare one found by chance).
        InputError when the repository's `core.worktree` puts its work tree elsewhere."""
        folder = Path(folder).expanduser()
        if _git() is None or not folder.is_dir():
            return None
        blocking = _blocking_config(folder)
        if blocking is not None:
            raise InputError(f"its git configuration {blocking}; its history is not read", file=str(folder))
        out = _run(
            [],
            ["rev-parse", "--absolute-git-dir", "--show-toplevel", "--show-object-format"],
            cwd=str(folder),
            timeout=_FIND_TIMEOUT,  # a deadline still, should a config file turn odd meanwhile
        )
        lines = _text(out).removesuffix("\n").split("\n") if out else []
        if len(lines) != 3:
            return None
        git_dir, top, fmt = Path(lines[0]), Path(lines[1]).resolve(), lines[2]
        if not folder.resolve().is_relative_to(top):
            raise InputError(
                f"its git repository ({git_dir}) sets its work tree elsewhere ({top}); its history is not read",
                file=str(folder),
            )
        return cls(git_dir, top, fmt if fmt in ("sha1", "sha256") else "sha1")

    def run(self, *args: str, stdin: bytes | None = None) -> bytes | None:
        """Git's output for `args` on this repository (None when it fails), run as the
        module docstring says. For plumbing only: a porcelain command may still consult
        what no override here reaches."""
        cwd = _empty()
        return _run(["--git-dir", str(self.git_dir), "--work-tree", cwd], args, cwd=cwd, stdin=stdin)

    def rel(self, path: Path) -> str:
        """`path` (in the work tree) relative to its top, POSIX; '.' for the top itself."""
        return Path(path).expanduser().resolve().relative_to(self.top).as_posix()

    def resolve(self, rev: str) -> str | None:
        """The commit `rev` names (a branch, tag, sha, `HEAD~3`), or None."""
        out = self.run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
        return out.decode().strip() if out else None

    def head(self) -> str | None:
        return self.resolve("HEAD")

    def rev_list(self, rev: str = "HEAD", paths: Iterable[str] = (), *, reverse: bool = False) -> list[str]:
        """Commits reachable from `rev` that changed `paths` (all, without), newest first
        (oldest first with `reverse`), as `git log` lists them."""
        order = ["--reverse"] if reverse else []
        out = self.run("rev-list", *order, "--end-of-options", rev, "--", *paths)
        return out.decode().split() if out else []

    def commits(self, shas: Sequence[str]) -> dict[str, Commit]:
        """Each commit's author and time from its raw object. An author time git records
        that is not a number is replaced by the committer's, else 1970-01-01, and
        `left_out` says so."""
        found = {s: self._parsed[s] for s in shas if s in self._parsed}
        todo = [s for s in shas if s not in found]
        for sha, data in zip(todo, self.objects(todo), strict=True):
            if data is None:
                continue
            head = data.split(b"\n\n", 1)[0].decode("utf-8", "replace")
            fields: dict[str, str] = {}
            parents: list[str] = []
            for line in head.split("\n"):
                key, _, value = line.partition(" ")
                if key == "parent":
                    parents.append(value.strip())
                elif key in ("author", "committer") and key not in fields:
                    fields[key] = value
            name, email, at = _person(fields.get("author", ""))
            landed = _person(fields.get("committer", ""))[2]
            if at is None:
                at = landed
                self.left_out.append(
                    f"commit {sha[:12]}: its author time is not a date; "
                    + ("its committer's is used" if at is not None else "dated 1970-01-01")
                )
            found[sha] = self._parsed[sha] = Commit(
                sha,
                f"{name} <{email}>",
                email,
                _NO_DATE if at is None else at,
                tuple(parents),
                (_NO_DATE if at is None else at) if landed is None else landed,
            )
        return found

    def log(self, rev: str = "HEAD", paths: Iterable[str] = (), *, reverse: bool = False) -> list[Commit]:
        shas = self.rev_list(rev, paths, reverse=reverse)
        known = self.commits(shas)
        return [known[s] for s in shas if s in known]

    def changes(
        self, shas: Sequence[str], paths: Iterable[str] = (), *, renames: bool = False
    ) -> dict[str, list[Change]]:
        """What each commit changed (against its first parent; a root commit adds its
        whole tree), limited to `paths`; a merge lists nothing, as `git log` shows it.
        With `renames`, git's rename detection pairs a removed path with an added one."""
        if not shas:
            return {}
        return self._diff_tree("".join(f"{s}\n" for s in shas), shas, paths, renames)

    def first_parent_changes(self, shas: Sequence[str], *, renames: bool = True) -> dict[str, list[Change]]:
        """What each commit changed against its first parent, a merge included (what the
        merge brought onto the line it landed on); a root commit adds its whole tree."""
        if not shas:
            return {}
        known = self.commits(shas)
        lines = {
            s: f"{s} {known[s].parents[0]}\n" if s in known and known[s].parents else f"{s}\n" for s in shas
        }
        return self._split_diff(lines, renames)

    def _diff_tree(
        self, lines: str, shas: Sequence[str], paths: Iterable[str], renames: bool
    ) -> dict[str, list[Change]]:
        return self._parse_raw(self._diff_raw(lines, paths, renames), shas)

    def _diff_raw(self, lines: str, paths: Iterable[str], renames: bool) -> bytes | None:
        detect = ["-M"] if renames else ["--no-renames"]
        return self.run(
            "diff-tree", "--stdin", "-r", "-z", "--root", "--raw", "--no-abbrev", "--no-textconv", "--no-ext-diff",
            *detect, "--", *paths,
            stdin=lines.encode(),
        )  # fmt: skip

    def _split_diff(self, lines: dict[str, str], renames: bool) -> dict[str, list[Change]]:
        """`_diff_tree` of many commits where one may not be readable (a snapshot missing an
        object): git stops at the first such commit, so the batch is halved until it is
        alone; it is then read without rename detection (which reads blobs), else left out."""
        out = self._diff_raw("".join(lines.values()), (), renames)
        if out is not None:
            return self._parse_raw(out, list(lines))
        shas = list(lines)
        if len(shas) > 1:
            half = len(shas) // 2
            return {
                **self._split_diff({s: lines[s] for s in shas[:half]}, renames),
                **self._split_diff({s: lines[s] for s in shas[half:]}, renames),
            }
        if renames:
            self.left_out.append(
                f"commit {shas[0][:12]}: an object is missing; read without rename detection"
            )
            return self._split_diff(lines, False)
        self.left_out.append(f"commit {shas[0][:12]}: an object is missing; its changes are not read")
        return {shas[0]: []}

    def _parse_raw(self, out: bytes | None, shas: Sequence[str]) -> dict[str, list[Change]]:
        found: dict[str, list[Change]] = {s: [] for s in shas}
        tokens = (out or b"").split(b"\x00")
        current: list[Change] | None = None
        i = 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if token.startswith(b":"):
                meta = token[1:].decode().split()
                status = meta[4][:1] if len(meta) > 4 else "M"
                names = 2 if status in ("R", "C") else 1
                names_raw, i = tokens[i : i + names], i + names
                new = _text(names_raw[-1]) if names_raw else ""
                old = _text(names_raw[0]) if names == 2 and names_raw else None
                if current is None:
                    continue
                if not git_path(new) or (old is not None and not git_path(old)):
                    self.left_out.append(f"{new!r}: a path git records outside the repository; not read")
                    continue
                blob = None if status == "D" or set(meta[3]) == {"0"} else meta[3]
                current.append(Change(new, blob, status, old, meta[1]))
            elif token:
                current = found.setdefault(token.decode().strip(), [])
        return found

    def hunks(self, shas: Sequence[str], paths: Iterable[str] = ()) -> dict[tuple[str, str], list[Hunk]]:
        """Where each commit's diff against its first parent (a merge: none, as `changes`)
        put its hunks, per pair of blobs (before, after) of a file it changed: git's own
        `-U0` hunks, 0-based (old start, old end, new start, new end), end excluded; an
        empty side sits where the lines were added or removed. One `diff-tree -p`, no
        textconv, no external diff, Myers' algorithm whatever the config says; only the
        `index` and `@@` header lines are read."""
        if not shas:
            return {}
        out = self.run(
            "diff-tree", "--stdin", "-r", "-p", "-U0", "--full-index", "--no-renames", "--no-color",
            "--no-textconv", "--no-ext-diff", "--diff-algorithm=myers", "--", *paths,
            stdin="".join(f"{s}\n" for s in shas).encode(),
        )  # fmt: skip
        found: dict[tuple[str, str], list[Hunk]] = {}
        current: list[Hunk] | None = None
        for line in (out or b"").split(b"\n"):
            if line.startswith(b"index "):
                ids = line[6:].split(b" ")[0].split(b"..")
                current = found.setdefault((ids[0].decode(), ids[-1].decode()), []) if len(ids) == 2 else None
            elif line.startswith(b"diff --git "):
                current = None
            elif line.startswith(b"@@ -") and current is not None:
                head = _HUNK.match(line)
                if head is not None:
                    current.append(_hunk(*(int(g) if g is not None else 1 for g in head.groups())))
        return found

    def first_parents(self, rev: str = "HEAD") -> list[str]:
        """The first-parent line of `rev`, newest first: the commits as they landed on it."""
        out = self.run("rev-list", "--first-parent", "--end-of-options", rev, "--")
        return out.decode().split() if out else []

    def kinds(self, pairs: Sequence[tuple[str, str]]) -> list[str | None]:
        """What each (commit, path) names in that commit's tree: "blob" (a file or a link),
        "tree" (a folder), "commit" (a submodule), or None where the path is absent; one
        `cat-file --batch-check`, which reads no content and converts nothing. A path that
        is not a plain relative path inside the repository (`git_path`) is absent."""
        if not pairs:
            return []
        if not all(_HEX.fullmatch(c) for c, _ in pairs):
            raise ValueError("commits are named by their hexadecimal ids")
        asked = [i for i, (_, p) in enumerate(pairs) if git_path(p) and "\n" not in p and "\r" not in p]
        found: list[str | None] = [None] * len(pairs)
        if not asked:
            return found
        stdin = "".join(f"{pairs[i][0]}:{pairs[i][1]}\n" for i in asked)
        out = self.run("cat-file", "--batch-check=%(objecttype)", stdin=os.fsencode(stdin))
        if out is None:
            return found
        answers = out.decode("utf-8", "replace").split("\n")
        for i, answer in zip(asked, answers, strict=False):
            answer = answer.strip()
            found[i] = answer if answer in ("blob", "tree", "commit") else None
        return found

    def ls_tree(self, rev: str, paths: Iterable[str] = ()) -> list[Entry]:
        """Every blob and submodule of `rev`'s tree (recursively) under `paths`."""
        # no "--": after --end-of-options ls-tree would read it as a path
        out = self.run("ls-tree", "-r", "-z", "--full-tree", "--end-of-options", rev, *paths)
        entries = []
        for record in (out or b"").split(b"\x00"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            mode, kind, sha = meta.decode().split()
            path = _text(name)
            if not git_path(path):
                self.left_out.append(f"{path!r}: a path git records outside the repository; not read")
                continue
            entries.append(Entry(mode, kind, sha, path))
        return entries

    def objects(self, shas: Sequence[str]) -> list[bytes | None]:
        """The raw content of each object (None where it is missing), through one
        `cat-file --batch`, which converts nothing."""
        if not shas:
            return []
        if not all(_HEX.fullmatch(s) for s in shas):
            raise ValueError("objects are named by their hexadecimal ids")
        out = self.run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in shas).encode())
        if out is None:
            return [None] * len(shas)
        found: list[bytes | None] = []
        pos = 0
        for _ in shas:
            end = out.find(b"\n", pos)
            if end < 0:
                found.append(None)
                continue
            header = out[pos:end].split()
            pos = end + 1
            if len(header) != 3:  # `<sha> missing`
                found.append(None)
                continue
            size = int(header[2])
            found.append(out[pos : pos + size])
            pos += size + 1
        return found

    def blame(self, commit: str, path: str) -> list[str]:
        """The commit that last changed each line of `path` as it is at `commit` (a
        committed blob: nothing of the work tree is read), by line."""
        sha = commit if _HEX.fullmatch(commit) else self.resolve(commit)  # never read as an option
        if sha is None:
            return []
        out = self.run("blame", "--porcelain", "--no-textconv", sha, "--", path)
        shas: list[str] = []
        expect = True  # a header line comes next
        for row in (out or b"").split(b"\n"):
            if row.startswith(b"\t"):
                expect = True
            elif expect and row:
                shas.append(row.split(b" ", 1)[0].decode())
                expect = False
        return shas

    def blob(self, rev: str, path: str) -> bytes | None:
        """The bytes of `path` as committed at `rev` (None where it is not a file there)."""
        found = [e for e in self.ls_tree(rev, [path]) if e.path == path and e.kind == "blob"]
        return self.objects([found[0].sha])[0] if found else None

    def blob_id(self, data: bytes) -> str:
        """The id git gives `data` as a blob, as committed without any filter."""
        algo = hashlib.sha256 if self.object_format == "sha256" else hashlib.sha1
        return algo(b"blob %d\x00" % len(data) + data).hexdigest()
