"""Facts that name code that is gone (SPEC 13, `referent`; issue 40).

A referent is a token of a fact's text naming a path relative to the repository root
(backticked or bare, with a `/` or a file extension; `./`, line suffixes such as `:12` and
trailing punctuation stripped; globs ignored) that existed in the tree of the last commit
at or before the fact's `created_at`. A token that never existed there is not a referent.
A referent absent at REV (default HEAD) is broken: `why` names the commit that removed it
and its date, and for a rename git detects the new path.

Everything is read through `safegit` (no program the repository names ever runs):

- "the last commit at or before T" is on REV's first-parent line (the commits as they
  landed on it), by committer time (when a commit landed), so a fact is never checked
  against a commit newer than REV;
- existence is one `cat-file --batch-check` of `<commit>:<path>` pairs for all facts at
  once (a folder is a tree entry; no tree is listed);
- the removing commit is found by bisection on the line, one `--batch-check` per round for
  all broken referents; a rename is git's own (`diff-tree -M` of that commit against its
  first parent), followed while the new path is gone too.

Answers are cached per (repository, REV's commit, fact id, text, time, this module's code):
asking again (the browser, MCP, `score`, `sync`) costs nothing until the repository moves,
and answers another version of these rules kept are checked again.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from synapse_tui.core.base.errors import InputError, SynapseError
from synapse_tui.core.base.safegit import Repo, git_path
from synapse_tui.core.review.suggest import REFERENT, Item, Suggestion, ranked

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.review.suggest_state import Dismissed, Options
    from synapse_tui.core.store.db import Store

# -- tokens ---------------------------------------------------------------------------

_TICKED = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_CALL = re.compile(r"\(([^()\s]+)\)")  # `Write(docs/a.md)`: what a call or an aside names
_SEP = "\\s`,|\u3002\uff0c\uff1b\u3001\uff08\uff09"  # CJK text puts no space around these
_SPLIT = re.compile(rf"[{_SEP}]+")
# the tokens `_SPLIT` makes that hold a `.` or `/`, whole (each begins after a separator: no
# start inside a long token is tried again, so the scan stays linear)
_DOTTED = re.compile(rf"(?<![^{_SEP}])[^{_SEP}./]*[./][^{_SEP}]*")
# ASCII and the common typographic marks around a word: quotes, brackets, dashes, an ellipsis
# and CJK punctuation (`src/a.py…`, “src/a.py”, `src/a.py。`)
_LEAD = "\"'`([{<*_~>\u201c\u2018\u00ab\u2039\u300c\u300e\uff08\u3010"
_TRAIL = "\"'`)]}>*_~.,;:!?\u201d\u2019\u00bb\u203a\u300d\u300f\uff09\u3011\u2026\u2014\u2013\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u3001"
_LINE = re.compile(r"(?::L?\d+(?:-L?\d+)?)+$|#L\d+(?:-L?\d+)?$")
_EXT = re.compile(r"(?:^|[^/])\.[A-Za-z0-9][A-Za-z0-9_+-]{0,9}$")
_GLOB = set("*?[]{}<>$%")
_MAX = 4096


class NoRepository(SynapseError):
    """No repository recorded for the store and none named: the check has nothing to ask,
    which is a store's state (the bundled sample's), not a failure."""


@functools.lru_cache(maxsize=1 << 15)  # a path is named again and again across facts
def normalize(token: str) -> str | None:
    """The repository path a token names, or None when it names none: `./`, a line suffix
    (`:12`, `:12-40`, `#L12`) and surrounding punctuation stripped; a URL, a glob, a
    placeholder (`<name>`), `~`, a path leaving the root are not paths."""
    t = token.strip()
    if not t or len(t) > _MAX or "://" in t or t.startswith(("www.", "mailto:", "~", "$")):
        return None
    if "*" in t:  # `**bold**` is emphasis; any other star is a glob (`*.py`, `src/**`)
        bare = re.sub(r"^(\*+)(.*?)\1$", r"\2", t.strip("\"'`()[]{}.,;:!?"))
        if "*" in bare:
            return None
    for _ in range(3):  # `(src/a.py).` and the like: strip until nothing changes
        before = t
        t = t.lstrip(_LEAD).rstrip(_TRAIL)
        if t.endswith("'s"):
            t = t[:-2]
        t = _LINE.sub("", t)
        t = t.rstrip(_TRAIL)
        if t == before:
            break
    if "#" in t:
        t = t.split("#", 1)[0]
    while t.startswith("./"):
        t = t[2:]
    t = t.lstrip("/")
    slashed = "/" in t  # `docs/` names a folder
    t = t.rstrip("/")
    if not t or _GLOB & set(t) or ".." in t.split("/"):
        return None
    if not slashed and not _EXT.search(t):
        return None
    return t if git_path(t) else None


def candidates(text: str) -> list[str]:
    """Every distinct path-like token of `text`, in order of first appearance."""
    raw = [m.group(1) for m in _TICKED.finditer(text)]
    raw += [m.group(1) for m in _LINK.finditer(text)]
    raw += [m.group(1) for m in _CALL.finditer(text)]
    raw += _DOTTED.findall(text)  # a token with neither `.` nor `/` names no path
    out: dict[str, None] = {}
    for token in raw:
        # names no path: `normalize` only takes characters away, and what it keeps ends
        # before the trailing punctuation (`end.`, `e.g.,` are words, not files)
        if "/" not in token and "." not in token.rstrip(_TRAIL):
            continue
        path = normalize(token)
        if path is not None:
            out.setdefault(path)
    return list(out)


# -- the check ------------------------------------------------------------------------


@dataclass(frozen=True)
class Broken:
    """A referent of a fact gone at REV: the commit that removed it, and where git says it
    moved (a rename followed to the path that exists at REV, when there is one)."""

    fact: str
    path: str
    written_at: str  # the commit whose tree held the path at the fact's time
    removed_by: str  # the commit (on REV's first-parent line) after which it is absent
    removed_on: float  # its committer time
    moved: tuple[tuple[str, str, float], ...] = ()  # (new path, commit, time) per rename hop
    exists_now: str | None = None  # the path the last hop names, when it exists at REV

    @property
    def new_path(self) -> str | None:
        return self.exists_now

    @property
    def why(self) -> str:
        if not self.moved:
            return f"{self.path} was removed in {self.removed_by[:12]} on {_day(self.removed_on)}"
        parts = [f"moved to {p} in {c[:12]} on {_day(t)}" for p, c, t in self.moved]
        text = ", then ".join(parts)
        if self.exists_now is None:
            text += f"; {self.moved[-1][0]} is gone too"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "written_at": self.written_at,
            "removed_by": self.removed_by,
            "removed_on": _day(self.removed_on),
            "new_path": self.new_path,
            "why": self.why,
        }


def _day(at: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(at))


@dataclass(frozen=True)
class Fact:
    id: str
    text: str
    created: float  # epoch seconds
    # the paths earlier versions of its record named too (each version back to this one),
    # with when the earliest of them was written: a path carried over by an edit made for
    # another reason is checked at that time as well (`carried`)
    since: tuple[tuple[str, float], ...] = ()


@functools.lru_cache(maxsize=1 << 14)  # a record's versions are compared at every check
def _named(text: str) -> frozenset[str]:
    return frozenset(candidates(text))


def carried(text: str, earlier: Iterable[tuple[str, float]]) -> tuple[tuple[str, float], ...]:
    """`Fact.since` of a version whose text is `text`, given its record's earlier versions
    (text, created), newest first: each path `text` names that every version back to one
    named too, with the created time of the earliest such version."""
    names = set(_named(text))
    out: dict[str, float] = {}
    for older, at in earlier:
        names &= _named(older)
        if not names:
            break
        out.update(dict.fromkeys(names, at))
    return tuple(sorted(out.items()))


_HOPS = 4  # renames followed at most
SOURCES = "import.sources"  # the meta key core/ingest/sources.py records sources under


class Line:
    """REV's first-parent line, oldest first, with when each commit landed."""

    def __init__(self, repo: Repo, rev: str) -> None:
        sha = repo.resolve(rev)
        if sha is None:
            raise InputError(f"--rev {rev!r}: no such commit in {repo.top}")
        self.repo, self.rev = repo, sha
        self.shas = list(reversed(repo.first_parents(sha)))
        known = repo.commits(self.shas)
        self.times = [known[s].committed if s in known else 0.0 for s in self.shas]
        running, self._upto = float("-inf"), []
        for t in self.times:
            running = max(running, t)
            self._upto.append(running)

    def at(self, when: float) -> int:
        """The index of the last commit at or before `when` (-1: none yet)."""
        return bisect.bisect_right(self._upto, when) - 1


def check(repo: Repo, facts: Sequence[Fact], rev: str = "HEAD", line: Line | None = None) -> list[Broken]:
    """Every broken referent of `facts` at `rev`, in the order of `facts` then the text."""
    line = line or Line(repo, rev)
    if not line.shas:
        return []
    # (fact, path, the commits to look for it in: at the fact's time, then at the time an
    # earlier version of its record named it too)
    asked: list[tuple[Fact, str, list[int]]] = []
    named: dict[str, list[str]] = {}  # text -> its candidates: a text said again is read once
    for f in facts:
        names = named.get(f.text)
        if names is None:
            names = named[f.text] = candidates(f.text)
        idx, since = line.at(f.created), dict(f.since)
        for p in names:
            at = [i for i in dict.fromkeys((idx, line.at(since.get(p, f.created)))) if i >= 0]
            if at:
                asked.append((f, p, at))
    pairs = sorted(
        {(line.shas[i], p) for _, p, at in asked for i in at} | {(line.rev, p) for _, p, _ in asked}
    )
    kinds = dict(zip(pairs, repo.kinds(pairs), strict=True))
    gone = []
    for f, p, at in asked:
        there = [i for i in at if kinds[(line.shas[i], p)] is not None]
        if there and kinds[(line.rev, p)] is None:
            gone.append((f, there[0], p))
    removal = _removals(repo, line, [(p, i) for _, i, p in gone])
    hops = _follow(repo, line, {(p, removal[(p, i)]) for _, i, p in gone})
    out = []
    for f, i, p in gone:
        r = removal[(p, i)]
        moved, now = hops.get((p, r), ((), None))
        out.append(Broken(f.id, p, line.shas[i], line.shas[r], line.times[r], moved, now))
    return out


def _removals(repo: Repo, line: Line, asked: Iterable[tuple[str, int]]) -> dict[tuple[str, int], int]:
    """For each (path, index where it exists), the first later index where it is absent
    (it is absent at the line's end): bisection, one `--batch-check` a round for all."""
    last = len(line.shas) - 1
    bounds = {key: (key[1], last) for key in set(asked)}  # exists at lo, absent at hi
    while True:
        probe = {k: (lo + hi) // 2 for k, (lo, hi) in bounds.items() if hi - lo > 1}
        if not probe:
            return {k: hi for k, (_, hi) in bounds.items()}
        pairs = sorted({(line.shas[m], k[0]) for k, m in probe.items()})
        kinds = dict(zip(pairs, repo.kinds(pairs), strict=True))
        for k, m in probe.items():
            lo, hi = bounds[k]
            bounds[k] = (m, hi) if kinds[(line.shas[m], k[0])] is not None else (lo, m)


def _renamed(path: str, changes: Sequence[Any]) -> str | None:
    """Where git's rename detection says `path` went in one commit's changes: the file's new
    path, or for a folder the new folder most of its renamed files went to."""
    for c in changes:
        if c.status == "R" and c.source == path:
            return c.path
    prefix = path + "/"
    votes: Counter[str] = Counter()
    for c in changes:
        if c.status == "R" and c.source and c.source.startswith(prefix):
            rest = c.source[len(prefix) :]
            if c.path.endswith("/" + rest) and len(c.path) > len(rest) + 1:
                votes[c.path[: -len(rest) - 1]] += 1
            elif c.path == rest:
                votes[""] += 1  # moved to the root: not a path to name
    if not votes:
        return None
    best, _ = votes.most_common(1)[0]
    return best or None


def _follow(
    repo: Repo, line: Line, removed: set[tuple[str, int]]
) -> dict[tuple[str, int], tuple[tuple[tuple[str, str, float], ...], str | None]]:
    """For each (path, removing index), the renames git detects from there on, followed
    while the new path is gone at REV too; and the path that exists at REV, if any."""
    out: dict[tuple[str, int], tuple[tuple[tuple[str, str, float], ...], str | None]] = {}
    pending = {k: (k[0], k[1], ()) for k in removed}  # key -> (path, removing index, hops so far)
    for _ in range(_HOPS):
        if not pending:
            break
        shas = sorted({line.shas[r] for _, r, _ in pending.values()})
        changes = repo.first_parent_changes(shas, renames=True)
        moved: dict[tuple[str, int], tuple[str, int, tuple]] = {}
        for key, (path, r, hops) in pending.items():
            new = _renamed(path, changes.get(line.shas[r], []))
            if new is None:
                out[key] = (hops, None)
                continue
            moved[key] = (new, r, (*hops, (new, line.shas[r], line.times[r])))
        pairs = sorted({(line.rev, new) for new, _, _ in moved.values()})
        kinds = dict(zip(pairs, repo.kinds(pairs), strict=True))
        still = {}
        for key, (new, r, hops) in moved.items():
            if kinds[(line.rev, new)] is not None:
                out[key] = (hops, new)
            else:
                still[key] = (new, r, hops)
        if not still:
            break
        again = _removals(repo, line, [(new, r) for new, r, _ in still.values()])
        pending = {key: (new, again[(new, r)], hops) for key, (new, r, hops) in still.items()}
    for key, (_, _, hops) in pending.items():
        out.setdefault(key, (hops, None))
    return out


# -- the finder (core/review/suggestions.py) ------------------------------------------

# (repository, REV's commit) -> fact key -> its broken referents (a tuple: most facts have
# none, and one empty tuple is shared by all of them, where a list each would be tens of
# thousands of objects the cyclic collector walks)
_CACHE: dict[tuple[str, str], dict[str, tuple[Broken, ...]]] = {}
_CACHE_MAX = 8  # repositories x revisions kept in a process


def _rules() -> str:
    """A digest of this module's code (the release where it cannot be read): answers kept by
    another version of the rules are not this version's, and are checked again."""
    digest = hashlib.blake2b(digest_size=8)
    try:
        digest.update(Path(__file__).read_bytes())
    except OSError:
        from importlib import metadata

        try:
            digest.update(metadata.version("synapse-tui").encode())
        except metadata.PackageNotFoundError:
            pass
    return digest.hexdigest()


RULES = _rules()


def _key(f: Fact) -> str:
    return hashlib.blake2b(
        f"{f.id}\0{f.text}\0{f.created!r}\0{f.since!r}".encode(), digest_size=16
    ).hexdigest()


def cache_root() -> Path:
    """Where checked facts are kept between processes: SYNAPSE_DATA_DIR/referents (tests,
    benchmarks), else the platform's user cache folder (a missing file is checked again)."""
    env = os.environ.get("SYNAPSE_DATA_DIR")
    if env:
        return Path(env) / "referents"
    import platformdirs

    return Path(platformdirs.user_cache_dir("synapse-tui", appauthor=False)) / "referents"


def _file(repo: Repo) -> Path:
    name = hashlib.blake2b(str(repo.git_dir).encode(), digest_size=12).hexdigest()
    return cache_root() / f"{name}.json"


def _broken(fact: str, d: Any) -> Broken | None:
    """A cached answer read back, or None when the file holds anything else (JSON only,
    every field checked: a cache is data, and a wrong one is checked again)."""
    try:
        moved = tuple((str(p), str(c), float(t)) for p, c, t in d["moved"])
        now = d["exists_now"]
        return Broken(
            fact,
            str(d["path"]),
            str(d["written_at"]),
            str(d["removed_by"]),
            float(d["removed_on"]),
            moved,
            None if now is None else str(now),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _load(repo: Repo, rev: str) -> dict[str, tuple[Broken, ...]]:
    try:
        data = json.loads(_file(repo).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("git_dir") != str(repo.git_dir) or data.get("rev") != rev:
        return {}
    if data.get("rules") != RULES:  # kept by another version of these rules
        return {}
    out: dict[str, tuple[Broken, ...]] = {}
    facts = data.get("facts")
    for key, value in facts.items() if isinstance(facts, dict) else ():
        if not isinstance(value, dict) or not isinstance(value.get("broken"), list):
            continue
        found = [_broken(str(value.get("id")), b) for b in value["broken"]]
        if all(b is not None for b in found):
            out[key] = tuple(b for b in found if b is not None)
    return out


def _save(repo: Repo, rev: str, known: dict[str, tuple[Broken, ...]], ids: dict[str, str]) -> None:
    """Keep this revision's answers (one revision a repository: the newest asked)."""
    facts = {
        k: {
            "id": ids.get(k, v[0].fact if v else ""),
            "broken": [
                {
                    "path": b.path,
                    "written_at": b.written_at,
                    "removed_by": b.removed_by,
                    "removed_on": b.removed_on,
                    "moved": [list(m) for m in b.moved],
                    "exists_now": b.exists_now,
                }
                for b in v
            ],
        }
        for k, v in known.items()
    }
    path = _file(repo)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(
            json.dumps({"git_dir": str(repo.git_dir), "rev": rev, "rules": RULES, "facts": facts}),
            encoding="utf-8",
        )
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written is checked again next time


def cached_check(
    repo: Repo, facts: Sequence[Fact], rev: str = "HEAD", keys: Sequence[str] | None = None
) -> list[Broken]:
    """`check`, answered from the cache per (repository, REV's commit, fact) where it can,
    in this process and between processes: only facts not seen at this commit are checked,
    so asking again after `sync` costs the facts that are new, or a repository that moved.
    `keys`: each fact's `_key`, when the caller keeps them."""
    line_sha = repo.resolve(rev)
    if line_sha is None:
        raise InputError(f"--rev {rev!r}: no such commit in {repo.top}")
    slot = (str(repo.git_dir), line_sha)
    if slot not in _CACHE:
        _CACHE[slot] = _load(repo, line_sha)
        if len(_CACHE) > _CACHE_MAX:
            _CACHE.pop(next(iter(_CACHE)))
    known = _CACHE[slot]
    keys = [_key(f) for f in facts] if keys is None else keys
    todo = [f for f, k in zip(facts, keys, strict=True) if k not in known]
    if todo:
        found: dict[str, list[Broken]] = {}
        for b in check(repo, todo, line_sha):
            found.setdefault(b.fact, []).append(b)
        for f, k in zip(facts, keys, strict=True):
            if k not in known:
                known[k] = tuple(found.get(f.id, ()))
        _save(repo, line_sha, known, {k: f.id for f, k in zip(facts, keys, strict=True)})
    return [replace(b, fact=f.id) for f, k in zip(facts, keys, strict=True) for b in known[k]]


def recorded_folders(store: Store) -> list[Path]:
    """The folders `import --from` recorded that may be a repository's work tree, in the
    order they were recorded: a source's `--project` (claude-code, gemini-cli, cursor) and a
    Markdown folder (`git-notes`, or `markdown`, which reads a git work tree as git-notes)."""
    value = store.meta(SOURCES)  # what `import --from` recorded (core/ingest/sources.py)
    out = []
    for entry in value if isinstance(value, list) else []:
        if not isinstance(entry, dict):
            continue
        named = [entry.get("project")]
        if entry.get("system") in ("git-notes", "markdown"):
            named.append(entry.get("source"))
        out += [Path(f) for f in named if isinstance(f, str) and Path(f).is_dir()]
    return out


def repository(store: Store, repo: str | None, *, required: bool = False) -> Repo | None:
    """The repository to check against: `--repo DIR`, else the first recorded folder in a
    repository. None when there is none and none was asked for; SynapseError when one was
    asked for and is not one."""
    if repo is None:
        found = next((r for f in recorded_folders(store) if (r := Repo.find(f)) is not None), None)
        if found is None and required:
            raise NoRepository(
                "no repository to check referents against: no source of this store is in git"
                " (import a claude-code, cursor or gemini-cli `--project`, or a Markdown folder"
                " in git)"
            )
        return found
    folder = Path(repo).expanduser()
    if not folder.is_dir():
        raise InputError(f"--repo {repo}: not a folder")
    found = Repo.find(folder)
    if found is None:
        raise InputError(f"--repo {folder}: not a git repository (or git is not installed)")
    return found


def repository_state(store: Store) -> list[str] | None:
    """[git dir, HEAD's commit] of the recorded repository, None without one: what a kept
    answer about the store's referents depends on beyond the store itself."""
    try:
        repo = repository(store, None)
    except SynapseError:
        return None
    if repo is None:
        return None
    return [str(repo.git_dir), repo.head() or "", RULES]


def as_facts(items: Iterable[Item]) -> list[Fact]:
    """The facts worth checking: neither deleted by their source nor replaced already."""
    items = list(items)
    by_id = {i.id: i for i in items}

    def earlier(item: Item) -> Iterator[tuple[str, float]]:
        seen = {item.id}
        while item.replaces is not None and item.replaces in by_id and item.replaces not in seen:
            item = by_id[item.replaces]
            seen.add(item.id)
            yield item.text, item.created

    return [
        Fact(i.id, i.text, i.created, carried(i.text, earlier(i)) if i.replaces else ())
        for i in items
        if not i.successor and i.gone is None
    ]


def find(store: Store, items: Sequence[Item], dismissed: Dismissed, options: Options) -> list[Suggestion]:
    """The `referent` finder: one suggestion per (fact, broken referent)."""
    asked = options.repo is not None or options.rev is not None
    repo = repository(store, options.repo, required=asked)
    if repo is None:
        return []
    pairs = dismissed.pairs(REFERENT) | settled(store)
    by_id = {i.id: i for i in items}

    def before(fid: str) -> tuple[str, str] | None:
        item = by_id.get(by_id[fid].replaces or "") if fid in by_id else None
        return None if item is None else (item.id, item.text)

    refused = dismissed.pairs(REFERENT)
    return [
        Suggestion(REFERENT, b.fact, b.path, 1.0, b.why)
        for b in cached_check(repo, as_facts(items), options.rev or "HEAD")
        if (b.fact, b.path) not in pairs and not dismissed_before(b.fact, b.path, refused, before)
    ]


def dismissed_before(
    fact: str, path: str, refused: frozenset[tuple[str, str]], before: Callable[[str], tuple[str, str] | None]
) -> bool:
    """Whether an earlier version of `fact`'s record that named `path` too (an unbroken run
    back, as `carried` follows it) had this referent dismissed: a dismissal is remembered
    across an edit made for another reason (SPEC 13: it never comes back). `before(id)`:
    the (id, text) of the version a fact replaces, or None."""
    seen = {fact}
    step = before(fact)
    while step is not None and step[0] not in seen and path in _named(step[1]):
        if (step[0], path) in refused:
            return True
        seen.add(step[0])
        step = before(step[0])
    return False


# id(store) -> (the store, every fact by position, its cache key `_key`): a store only
# appends, so each position's fact is made and hashed once, not at every triage action
_HELD: dict[int, tuple[Any, list[Fact], list[str]]] = {}


def of_memory(memory: Memory, dismissed: Dismissed) -> list[Suggestion]:
    """The `referent` suggestions of a memory kept open (the browser, MCP) against the
    recorded repository: none without one, or when it cannot be read."""
    try:
        found, _ = queue(memory, dismissed)
    except SynapseError:
        return []
    return found


def queue(memory: Memory, dismissed: Dismissed) -> tuple[list[Suggestion], dict[tuple[str, str], Broken]]:
    """The standing `referent` suggestions of a memory kept open, best first, and the broken
    referent behind each ((fact, path) -> it: the browser's pane), from one run of the
    finder. Facts are taken from the memory's arrays, and texts are read once per position
    (a store only appends), so a triage action costs the cache look-ups, not a read of
    every fact. SynapseError when no repository is recorded or git cannot read it."""
    store = memory.store
    repo = repository(store, None, required=True)
    if repo is None:  # required: it raised
        return [], {}
    facts, keys = _facts_of(memory)
    found = cached_check(repo, facts, "HEAD", keys)
    refused = dismissed.pairs(REFERENT)
    gone = refused | settled(store)
    every, a, index = _HELD[id(store)][1] if id(store) in _HELD else [], memory.arrays, memory.index

    def before(fid: str) -> tuple[str, str] | None:
        i = index.get(fid)
        j = -1 if i is None or i >= len(every) else int(a.supersedes[i])
        return (every[j].id, every[j].text) if 0 <= j < len(every) else None

    broken = {
        (b.fact, b.path): b
        for b in found
        if (b.fact, b.path) not in gone and not dismissed_before(b.fact, b.path, refused, before)
    }
    return ranked([Suggestion(REFERENT, f, p, 1.0, b.why) for (f, p), b in broken.items()]), broken


def _facts_of(memory: Memory) -> tuple[list[Fact], list[str]]:
    """The facts of `memory` worth checking (`as_facts`) and their cache keys: from its
    arrays and the facts kept per position; a memory of part of the store (as of a time)
    reads the store whole."""
    store = memory.store
    n = len(memory.ids)
    if store.marks().facts != n:
        from synapse_tui.core.review.suggest_state import items as _items

        with store.snapshot():
            facts = as_facts(_items(store))
        return facts, [_key(f) for f in facts]
    held = _HELD.get(id(store))
    if held is None or held[0] is not store:
        held = _HELD[id(store)] = (store, [], [])
    _, every, keys = held
    a = memory.arrays
    if len(every) < n:
        start = len(every)
        texts = store.texts(list(range(start, n)))
        made = [Fact(memory.ids[i], texts[i - start], float(a.created[i])) for i in range(start, n)]
        every += made
        keys += [_key(f) for f in made]
    checked = np.ones(n, dtype=bool)
    named = a.supersedes[a.supersedes >= 0]
    checked[named[named < n]] = False  # replaced already
    if a.deleted is not None:
        checked &= ~a.deleted[:n]
    at = np.flatnonzero(checked).tolist()
    facts, made_keys = [every[i] for i in at], [keys[i] for i in at]
    sup = a.supersedes
    for j in np.flatnonzero(sup[np.asarray(at, dtype=np.int64)] >= 0).tolist():  # later versions only
        i = at[j]
        since = carried(every[i].text, _earlier(every, sup, i, n))
        if since:
            facts[j] = replace(facts[j], since=since)
            made_keys[j] = _key(facts[j])
    return facts, made_keys


def _earlier(every: list[Fact], sup: np.ndarray, i: int, n: int) -> Iterator[tuple[str, float]]:
    """The earlier versions of position i's record (text, created), newest first."""
    seen = {i}
    j = int(sup[i])
    while 0 <= j < n and j not in seen:
        seen.add(j)
        yield every[j].text, every[j].created
        j = int(sup[j])


def details(store: Store, fact_id: str, path: str, options: Options | None = None) -> Broken | None:
    """The broken referent behind a standing suggestion (for the browser's pane)."""
    from synapse_tui.core.review.suggest_state import Options as _Options
    from synapse_tui.core.review.suggest_state import items as _items

    options = options or _Options()
    repo = repository(store, options.repo)
    if repo is None:
        return None
    mine = [f for f in as_facts(_items(store)) if f.id == fact_id]
    for b in cached_check(repo, mine, options.rev or "HEAD"):
        if b.path == path:
            return b
    return None


def accept(store: Store, clock: Any, fact_id: str, path: str, options: Options | None = None) -> int:
    """Record a broken referent as a contradiction from the repository: one `contradict`
    audited with actor `repo:<commit that removed it>`, whose entry also settles the
    suggestion (it leaves the queue). One batch: one `undo` takes it all back. Its number."""
    return accept_all(store, clock, [(fact_id, path)], options)


def accept_all(
    store: Store, clock: Any, pairs: Sequence[tuple[str, str]], options: Options | None = None
) -> int:
    """`accept` of each (fact, path) of `pairs`, as one batch (one undo step): each entry
    with the actor of the commit that removed its path. One pair without a standing
    suggestion (or a fact gone) refuses them all: nothing is written. The batch's number."""
    from synapse_tui.core.review.triage import TriageError

    if not pairs:
        raise TriageError("no suggestions selected")
    if store.readonly:
        raise TriageError(f"{store.read_only_because()}: triage cannot change it")
    by_actor = contradictions(store, pairs, options)
    with store.transaction():
        return land_contradictions(store, clock, by_actor)


def contradictions(
    store: Store, pairs: Sequence[tuple[str, str]], options: Options | None = None
) -> dict[str, list[tuple[str, str]]]:
    """The (fact, path) of `pairs` by the actor `accept` records each with (`repo:` the
    commit that removed the path), the repository read once; SynapseError naming the
    first with no standing suggestion."""
    from synapse_tui.core.review.suggest_state import Options as _Options
    from synapse_tui.core.review.suggest_state import items as _items

    options = options or _Options()
    repo = repository(store, options.repo)
    wanted = {fid for fid, _ in pairs}
    broken: dict[tuple[str, str], Broken] = {}
    if repo is not None:
        mine = [f for f in as_facts(_items(store)) if f.id in wanted]
        if mine:
            broken = {(b.fact, b.path): b for b in cached_check(repo, mine, options.rev or "HEAD")}
    by_actor: dict[str, list[tuple[str, str]]] = {}
    for fid, path in dict.fromkeys(pairs):
        b = broken.get((fid, path))
        if b is None:
            raise SynapseError(f"no standing referent suggestion about {fid!r} naming {path!r}")
        by_actor.setdefault(f"repo:{b.removed_by}", []).append((fid, path))
    return by_actor


def land_contradictions(
    store: Store, clock: Any, by_actor: dict[str, list[tuple[str, str]]], batch: int | None = None
) -> int:
    """Write `contradictions`' answer inside the caller's transaction as one batch (`batch`:
    one this transaction landed already, joined): its number."""
    from synapse_tui.core.review.suggest_state import dismissed_entry
    from synapse_tui.core.review.triage import Change, Triage, no_such_fact

    now = clock.now()
    counted: dict[str, int] = {}  # a fact naming two gone paths: 0 -> 1, then 1 -> 2
    for actor, pairs in by_actor.items():
        changes = []
        for fid, path in pairs:
            if fid in counted:
                s = counted[fid]
            else:
                fields = store.review.fields(fid)
                if fields is None:
                    raise no_such_fact(store, fid)
                s = fields["contradictions"]
            counted[fid] = s + 1
            after = {"contradictions": s + 1, **dismissed_entry(REFERENT, path)}
            changes.append(Change(fid, {"contradictions": s}, after))
        batch, _ = Triage(store, clock, actor)._land("contradict", changes, now, batch=batch)
    if batch is None:
        raise SynapseError("no contradictions to record")
    return batch


def settled(store: Store) -> frozenset[tuple[str, str]]:
    """(fact, path) of every live contradiction from the repository (`accept`)."""
    out = set()
    for fid, after in store.audit.live_afters("contradict"):
        d = after.get("dismissed") if isinstance(after, dict) else None
        if isinstance(d, dict) and d.get("kind") == REFERENT and isinstance(d.get("other"), str):
            out.add((fid, d["other"]))
    return frozenset(out)
