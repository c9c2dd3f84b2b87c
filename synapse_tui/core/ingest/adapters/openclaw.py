"""OpenClaw (SPEC 9, turn 4): `--from openclaw [DIR]`, DIR default `~/.openclaw/workspace`.

What OpenClaw keeps (openclaw/openclaw: its memory documentation, and the memory-wiki
plugin, extensions/memory-wiki: README.md, src/markdown.ts, src/claim-health.ts):

- In the agent's workspace (docs/concepts/memory.md), `MEMORY.md` (curated long-term
  memory; a `memory.md` beside it is loaded too) and daily logs `memory/YYYY-MM-DD.md`,
  Markdown the agent writes; hooks add `memory/context-digest.md` and
  `memory/important/<date>-<slug>.md`.
- The memory-wiki plugin's vault (`<state dir>/wiki/<agent>`, `~/.openclaw/wiki/main` by
  default, beside the workspace; DIR may also name the state folder or a vault itself): pages under `entities/`, `concepts/`, `syntheses/`,
  `sources/`, `reports/`, `canon/`, whose YAML front matter holds `claims`: each with
  `id`, `text`, `status` (none means supported; contested, contradicted, refuted,
  superseded), `confidence` (0 to 1), `evidence` (each `sourceId`, `path`, `lines`,
  `weight`, `note`, `updatedAt`) and `updatedAt`; the page its `id`, `title`, `updatedAt`.

Mapping. Each top-level bullet and paragraph of MEMORY.md and of a daily log is a fact, tier
`auto` (the agent wrote it); a daily log's facts are dated by its name, MEMORY.md's by its
modification time. Each wiki claim is a fact (record `wiki/<vault>/<page>#<claim id>`,
`claim-N` without one), dated by its `updatedAt`, else its page's, else the file's, and
only what the claim says is carried over: its evidence entries after the first are its
corroborations (as Graphiti's episodes after the first; each entry's `updatedAt` after the
claim's a reinforcement), a status of contested, contradicted or refuted
one contradiction, a claim naming the claim it `supersedes` (or named by one's
`supersededBy`) a supersession, on its page or another page of its vault where the id
is one claim's alone; status, confidence and evidence sources go to
provenance (`x-openclaw-status`, `x-openclaw-confidence`, `x-openclaw-evidence`). A claim
superseded without a successor named is flagged `invalidated` (as a Graphiti edge invalidated
alone), dated by its own time: no successor is invented, and the `replaced` finder never
offers it as the newer fact replacing another.
Page bodies are the plugin's compiled output, not claims: they are not read.

At a sync, a claim already in the store whose text is unchanged but whose status or
evidence entries changed gives `Evidence`: the change in r and s its own evidence counts
(`x-openclaw-evidence-entries` records how many entries were counted), which the sync adds
on top of triage or takes back, audited (core/ingest/adapters/sync.py), with every entry
time it lists (an entry removed: its reinforcement goes in the `retract`); a confidence
changed alone only refreshes `x-openclaw-confidence`. In a vault kept in
git, a claim is read as its page stands in the work tree, not as the commit that first
wrote its text. A claim the plugin would read otherwise (see `_readable_claims`) is named
in `left out`, never refusing the folder.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import (
    Evidence,
    KnownFact,
    Snapshot,
    files_inside,
    own_key,
    require_folder,
)
from synapse_tui.core.ingest.adapters.markdown_memory import norm
from synapse_tui.core.ingest.adapters.mdfolder import merged, read_docs
from synapse_tui.core.ingest.adapters.mditems import FROM_NAME, Doc, Item, markdown_items, utf8_text
from synapse_tui.core.ingest.adapters.mdtext import dated_name, plain, when
from synapse_tui.core.ingest.interchange import ParsedFact, Progress
from synapse_tui.core.review.triage import one_for_one
from synapse_tui.core.store.db import INVALIDATED_AT

SYSTEM = "openclaw"
EXPECTED = "an OpenClaw workspace (MEMORY.md, memory/*.md) or a memory-wiki vault"
PAGE_FOLDERS = ("entities", "concepts", "syntheses", "sources", "reports", "canon")
CONTESTED = ("contested", "contradicted", "refuted")
LONG_TERM = ("MEMORY.md", "memory.md")
CLAIM_ID, SUPERSEDES, SUPERSEDED_BY = (
    own_key(SYSTEM, k) for k in ("claim_id", "supersedes", "superseded_by")
)
STATUS, EVIDENCE, ENTRIES, TIMES = (
    own_key(SYSTEM, k) for k in ("status", "evidence", "evidence_entries", "evidence_times")
)
# what a claim's own evidence amounts to, as the store records it: a sync compares these
COUNTED = (STATUS, EVIDENCE, ENTRIES, TIMES, INVALIDATED_AT)
# the provenance the wiki owns, refreshed by a sync when it changes (a confidence alone
# changes no count: its new value is recorded, nothing of the fact's triage moves)
OWNED = (*COUNTED, own_key(SYSTEM, "confidence"))

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def default_source() -> Path:
    return Path.home() / ".openclaw" / "workspace"


def read(
    source: Path | None,
    *,
    known: list[KnownFact] | None = None,
    read_before: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> Snapshot:
    """The workspace's memory files and the wiki vaults beside it (or DIR as a vault)."""
    root = require_folder(source if source is not None else default_source(), EXPECTED)
    if (root / "workspace").is_dir() and not (root / "workspace").is_symlink() and not _is_vault(root):
        root = root / "workspace"  # the state folder (~/.openclaw) named: its workspace, its wiki
    snaps: list[Snapshot] = []
    docs, left_out = _workspace(root)
    vaults = [root] if _is_vault(root) else _vaults_beside(root)
    refusal = InputError(
        f"holds no MEMORY.md, memory/*.md or wiki pages; expected {EXPECTED}", file=str(root)
    )
    if docs or vaults != [root]:  # none today: what git or the store held of them, else refused
        snaps.append(
            read_docs(
                SYSTEM,
                root,
                docs,
                known,
                left_out,
                progress,
                locate=_workspace_doc(root),
                refusal=None if vaults else refusal,
                read_before=read_before,
            )
        )
    for vault in vaults:
        pages, skipped = _pages(vault)
        snaps.append(
            read_docs(
                SYSTEM,
                vault,
                pages,
                known,
                skipped,
                progress,
                prefix=f"wiki/{vault.name}/",
                locate=_page_doc(vault),
                read_before=read_before,
            )
        )
        _as_it_stands(snaps[-1], vault, pages)
    snap = merged(SYSTEM, snaps)
    _link_across_pages(snap, known or [])
    _superseded_alone(snap, known or [])
    # a text committed since a sync read it: its commit's keys (mdfolder); what the claim's
    # own evidence says (OWNED) follows the page as it stands, through _changed_claims
    snap.evidence = [
        replace(
            e,
            provenance={k: v for k, v in e.provenance.items() if k not in OWNED},
            seen={k: v for k, v in e.seen.items() if k not in OWNED},
        )
        for e in snap.evidence
    ] + _changed_claims(snap, known or [])
    return snap


def _as_it_stands(snap: Snapshot, vault: Path, pages: list[Doc]) -> None:
    """In a vault kept in git, a claim whose text no commit changed is the fact of the commit
    that first wrote it; what the wiki says of it now (its status, confidence and evidence
    entries) is the page in the work tree: read from there."""
    last_commit = own_key(SYSTEM, "last_commit")
    latest: dict[str, ParsedFact] = {}  # record -> its last version replayed (facts come in order)
    for f in snap.facts:
        prov = f.provenance or {}
        if last_commit in prov:
            latest[str(prov.get("x-source-id"))] = f
    replayed: dict[str, list[ParsedFact]] = {}
    for record, f in latest.items():
        replayed.setdefault(record.split("#", 1)[0], []).append(f)
    for doc in pages:
        facts = replayed.get(f"wiki/{vault.name}/{doc.rel}")
        text = utf8_text(doc.path)[0] if facts else None
        if text is None:
            continue
        items = {i.key: i for i in _claims(text, Doc(doc.path, doc.rel, doc.note, _claims))}
        for f in facts or []:
            item = items.get(str((f.provenance or {}).get("x-source-id")).split("#", 1)[1])
            if item is not None and norm(item.text) == norm(f.text):
                _restate(f, item)


def _restate(f: ParsedFact, item: Item) -> None:
    """The fact of a claim's text as the claim stands now: its evidence, status, confidence."""
    prov = dict(f.provenance or {})
    for name in ("status", "confidence", "evidence", "evidence_entries", "evidence_times"):
        value = item.own.get(name)
        if value is None:
            prov.pop(own_key(SYSTEM, name), None)
        else:
            prov[own_key(SYSTEM, name)] = value
    f.provenance = prov
    f.r, f.s = item.corroborations, item.contradictions
    later = sorted(t for t in item.reinforced_at if t > f.created_ts)
    f.reinforced_ts = later
    f.reinforced_at = [format_time(t) for t in later] or None


def _changed_claims(snap: Snapshot, known: list[KnownFact]) -> list[Evidence]:
    """The claims already in the store whose status or evidence entries changed at the
    source, text unchanged (an edited text is a new version): the change in what the
    claim's own evidence counts (r: its entries after the first; s: 1 while contested,
    contradicted or refuted), for the sync to add on top of triage or take back, and the
    record of it (`x-openclaw-status`, `-evidence`, `-evidence-entries`; `x-invalidated-at`
    while superseded with no successor named)."""
    held = {k.id: k for k in known if not k.deleted}
    latest = {f.id: f for f in snap.facts}  # a record git replays: as it stands last
    out: list[Evidence] = []
    for f in latest.values():
        k = held.get(f.id)
        now = f.provenance or {}
        if k is None or not str(now.get("x-source-id", "")).startswith("wiki/"):
            continue
        if all(k.provenance.get(key) == now.get(key) for key in OWNED):
            continue
        (r0, s0), (r1, s1) = _counted(k.provenance), _counted(now)
        provenance = {key: now.get(key) for key in OWNED}
        seen = {key: k.provenance.get(key) for key in OWNED}
        listed = list(f.reinforced_at or [])
        if TIMES not in k.provenance:
            # none recorded (a store of an earlier release, or no entry said when): every
            # time listed, those the fact holds already left as they are
            out.append(
                Evidence(
                    f.id,
                    r1 - r0,
                    listed,
                    provenance,
                    seen,
                    contradictions=s1 - s0,
                    every_time=True,
                )
            )
            continue
        # the entries' times as the store recorded them and as the wiki lists them now: an
        # entry replaced by another moves the reinforcement, r unchanged
        before = _later(k.provenance, f.created_ts)
        out.append(
            Evidence(
                f.id,
                r1 - r0,
                one_for_one(listed, before),
                provenance,
                seen,
                contradictions=s1 - s0,
                withdrawn_at=one_for_one(before, listed),
            )
        )
    return out


def _later(prov: dict[str, Any], created: float) -> list[str]:
    """The evidence entries' times a claim's provenance records, those after the claim's
    own time (its reinforcements, as a first import counts them), oldest first."""
    times = [t for t in map(when, _listed(prov, TIMES)) if t is not None]
    return [format_time(t) for t in sorted(t for t in times if t > created)]


def _counted(prov: dict[str, Any]) -> tuple[int, int]:
    """(r, s) a claim's own evidence gave, from what its provenance records (a store of an
    earlier release recorded no entry count: its evidence sources are counted)."""
    entries = prov.get(ENTRIES)
    n = entries if isinstance(entries, int) else len(_listed(prov, EVIDENCE))
    return max(n - 1, 0), int(prov.get(STATUS) in CONTESTED)


def _superseded_alone(snap: Snapshot, known: list[KnownFact]) -> None:
    """A claim whose status is `superseded` and that no claim names as its successor: no
    longer valid at its source, none named in its place (the flag `invalidated`, as a
    Graphiti edge invalidated alone), dated by the claim's own time. Nothing is linked: a
    successor is never guessed, and such a claim is never offered as another's replacement."""
    replaced = {f.supersedes for f in snap.facts if f.supersedes} | {k.id for k in known if not k.head}
    for f in snap.facts:
        prov = f.provenance or {}
        if prov.get(own_key(SYSTEM, "status")) == "superseded" and f.id not in replaced:
            f.provenance = {**prov, INVALIDATED_AT: f.created_at}


def _link_across_pages(snap: Snapshot, known: list[KnownFact]) -> None:
    """A new claim naming (`supersedes`) a claim on another page of its vault, or named by
    one (`supersededBy`), supersedes that claim's latest version: the plugin's own words,
    followed where the claim id is one claim's alone in the vault (on one page, the page
    reader links them already)."""
    claims = _Claims(snap, known)
    for f in claims.new:
        named = [claims.elsewhere(f, c) for c in _listed(f.provenance, SUPERSEDES)]
        f.supersedes = next((n for n in named if n is not None), None)
    for record, (_, fid, prov) in claims.heads.items():  # an old claim naming its successor
        for cid in _listed(prov, SUPERSEDED_BY):
            successor = claims.new_elsewhere(record, cid)
            if successor is not None and successor.supersedes is None:
                successor.supersedes = fid


class _Claims:
    """The wiki claims of a read and of the store: each record's latest version, and the
    records of each claim id in a vault."""

    def __init__(self, snap: Snapshot, known: list[KnownFact]) -> None:
        self.heads: dict[str, tuple[int, str, dict[str, Any]]] = {}  # record -> (version, id, provenance)
        for k in known:
            if not k.deleted:
                self._see(k.record, k.version, k.id, k.provenance)
        for f in snap.facts:
            prov = f.provenance or {}
            self._see(str(prov.get("x-source-id")), int(prov.get("x-source-version", 1)), f.id, prov)
        self.ids: dict[tuple[str, str], list[str]] = {}  # (vault, claim id) -> records
        for record, (_, _, prov) in self.heads.items():
            if record.startswith("wiki/") and isinstance(prov.get(CLAIM_ID), str):
                self.ids.setdefault((_vault(record), prov[CLAIM_ID]), []).append(record)
        # first versions of claims read now, not yet linked: those a link may be added to
        self.new = [f for f in snap.facts if f.supersedes is None and _first_claim(f.provenance or {})]
        self.by_record = {str((f.provenance or {}).get("x-source-id")): f for f in self.new}

    def _see(self, record: str, version: int, fid: str, prov: dict[str, Any]) -> None:
        if version >= self.heads.get(record, (0, "", {}))[0]:
            self.heads[record] = (version, fid, prov)

    def _other(self, record: str, cid: str) -> str | None:
        """The one record of claim id `cid` in `record`'s vault, on another page."""
        found = self.ids.get((_vault(record), cid), [])
        page = record.split("#", 1)[0]
        return found[0] if len(found) == 1 and found[0].split("#", 1)[0] != page else None

    def elsewhere(self, f: ParsedFact, cid: str) -> str | None:
        other = self._other(str((f.provenance or {}).get("x-source-id")), cid)
        return None if other is None else self.heads[other][1]

    def new_elsewhere(self, record: str, cid: str) -> ParsedFact | None:
        other = self._other(record, cid) if record.startswith("wiki/") else None
        return None if other is None else self.by_record.get(other)


def _first_claim(prov: dict[str, Any]) -> bool:
    return str(prov.get("x-source-id", "")).startswith("wiki/") and prov.get("x-source-version", 1) == 1


def _listed(prov: dict[str, Any] | None, key: str) -> list[str]:
    return [c.strip() for c in str((prov or {}).get(key) or "").split(",") if c.strip()]


def _vault(record: str) -> str:
    return "/".join(record.split("/", 2)[:2])  # wiki/<vault>


def _workspace(root: Path) -> tuple[list[Doc], list[str]]:
    docs: list[Doc] = []
    left_out: list[str] = []
    for name in LONG_TERM:  # OpenClaw loads both, once where one is the other
        memory = root / name
        if not memory.is_file() or any(os.path.samefile(memory, d.path) for d in docs):
            continue
        if memory.resolve().is_relative_to(root.resolve()):
            docs.append(Doc(memory, name, name.removesuffix(".md"), _memory))
        else:
            left_out.append(f"{name}: a link leaving the folder; not read")
    folder = root / "memory"
    if folder.is_dir() and folder.resolve().is_relative_to(root.resolve()):
        paths, skipped = files_inside(folder, ".md")
        left_out += [f"memory/{line}" for line in skipped]
        for path in paths:
            rel = path.relative_to(root).as_posix()
            docs.append(Doc(path, rel, rel.removesuffix(".md"), _memory))
    return docs, left_out


def _workspace_doc(root: Path):
    """The Doc of a path under the workspace, for a file gone from it."""

    def locate(rel: str) -> Doc | None:
        if rel in LONG_TERM:
            return Doc(root / rel, rel, rel.removesuffix(".md"), _memory)
        parts = rel.split("/")
        if parts[0] == "memory" and rel.endswith(".md") and not any(p.startswith(".") for p in parts):
            return Doc(root / rel, rel, rel.removesuffix(".md"), _memory)
        return None

    return locate


def _page_doc(vault: Path):
    """The Doc of a path under a wiki vault, for a page gone from it."""

    def locate(rel: str) -> Doc | None:
        parts = rel.split("/")
        if parts[0] in PAGE_FOLDERS and rel.endswith(".md") and not any(p.startswith(".") for p in parts):
            return Doc(vault / rel, rel, f"wiki/{vault.name}/{rel.removesuffix('.md')}", _claims)
        return None

    return locate


def _memory(text: str, doc: Doc) -> list[Item]:
    at = dated_name(doc.path.name)
    return markdown_items(text, 0, skipped=doc.skipped, at=at, how=FROM_NAME if at is not None else None)


def _is_vault(folder: Path) -> bool:
    return any((folder / name).is_dir() for name in PAGE_FOLDERS) and not (folder / "MEMORY.md").is_file()


def _vaults_beside(root: Path) -> list[Path]:
    """`<state dir>/wiki/<agent>` beside a workspace `<state dir>/workspace`."""
    wiki = root.parent / "wiki"
    if root.name != "workspace" or not wiki.is_dir() or wiki.is_symlink():
        return []
    return sorted(p for p in wiki.iterdir() if p.is_dir() and not p.is_symlink() and _is_vault(p))


def _pages(vault: Path) -> tuple[list[Doc], list[str]]:
    docs: list[Doc] = []
    left_out: list[str] = []
    for name in PAGE_FOLDERS:
        folder = vault / name
        if not folder.is_dir() or folder.is_symlink():
            continue
        paths, skipped = files_inside(folder, ".md")
        left_out += [f"wiki/{vault.name}/{name}/{line}" for line in skipped]
        for path in paths:
            rel = path.relative_to(vault).as_posix()
            docs.append(Doc(path, rel, f"wiki/{vault.name}/{rel.removesuffix('.md')}", _claims))
    return docs, left_out


def _claims(text: str, doc: Doc) -> list[Item]:
    """A wiki page's claims, from its YAML front matter."""
    meta = _front_matter(text, doc)
    if meta is None or not isinstance(meta.get("claims"), list):
        return []
    page_at = when(meta.get("updatedAt"))
    page = {"page_id": plain(meta.get("id")), "page_title": plain(meta.get("title"))}
    claims = _readable_claims(meta["claims"], doc)
    replaced_by = _replacements(claims)
    items: list[Item] = []
    for index, c in enumerate(claims):
        key = _key(c, claims, index)
        items.append(_claim_item(c, key, page, page_at, replaced_by.get(key)))
    return items


def _readable_claims(listed: list[Any], doc: Doc) -> list[dict[str, Any]]:
    """The page's claims as the plugin reads them (`statement` for `text`, `claim_id` or
    `claimId` for `id`, `updated_at` for `updatedAt`; an evidence entry naming nothing is
    none), each part it cannot read named in `left out` (the rest of the page still read)."""
    out = []
    for n, c in enumerate(listed, start=1):
        where = f"{doc.note}.md: claim {n}"
        if not isinstance(c, dict):
            doc.left_out.append(f"{where}: not a mapping; not read")
            continue
        c = dict(c)
        for name, aliases in (
            ("text", ("statement",)),
            ("id", ("claim_id", "claimId")),
            ("updatedAt", ("updated_at",)),
        ):
            if not c.get(name):
                c[name] = next((c[a] for a in aliases if c.get(a)), None)
        if isinstance(c.get("id"), str) and c["id"].strip():
            where += f" ({plain(c['id'])})"
        if not isinstance(c.get("text"), str) or not c["text"].strip():
            doc.left_out.append(f"{where}: no text; not read")
            continue
        if c.get("status") is not None and not isinstance(c["status"], str):
            doc.left_out.append(f"{where}: status is not text; read as supported")
            c["status"] = None
        evidence = c.get("evidence")
        if evidence is not None and not isinstance(evidence, list):
            doc.left_out.append(f"{where}: evidence is not a list; none counted")
            evidence = []
        odd = [i for i, e in enumerate(evidence or [], start=1) if not isinstance(e, dict)]
        if odd:
            doc.left_out.append(
                f"{where}: evidence entry {', '.join(map(str, odd))} not a mapping; not counted"
            )
        c["evidence"] = [
            e for e in evidence or [] if isinstance(e, dict) and any(v not in (None, "") for v in e.values())
        ]
        out.append(c)
    return out


def _front_matter(text: str, doc: Doc) -> dict[str, Any] | None:
    """A page's YAML front matter as a mapping; None when it has none (a page whose front
    matter is not YAML is named in `left out`)."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 3)
    if end == -1:
        return None
    try:
        meta = yaml.load(text[4:end], Loader=_LOADER)  # noqa: S506  (a safe loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 2}" if mark is not None else ""
        doc.left_out.append(f"{doc.note}.md{where}: front matter is not YAML; its claims not read")
        return None
    return meta if isinstance(meta, dict) else None


def _replacements(claims: list[dict[str, Any]]) -> dict[str, str]:
    """Claim key -> the key of the claim it replaces, as the page's claims name them
    (`supersedes` on the new one, or `supersededBy` on the old one; the first naming wins)."""
    named: dict[str, str] = {}  # superseded claim id -> the claim id that names it superseded
    for c in claims:
        for old in _ids(c.get("supersedes")):
            named.setdefault(old, _key(c, claims))
    for c in claims:
        for new in _ids(c.get("supersededBy") or c.get("superseded_by")):
            named.setdefault(_key(c, claims), new)
    return {new: old for old, new in named.items()}


def _claim_item(
    c: dict[str, Any], key: str, page: dict[str, Any], page_at: float | None, replaces: str | None
) -> Item:
    """One claim as an Item: only what the claim says (see the module docstring)."""
    evidence = c["evidence"]
    status = str(c.get("status") or "").strip().lower() or None
    at, how = _claim_time(c, page_at)
    own = {
        **page,
        "claim_id": plain(c.get("id")),
        "status": status,
        "confidence": _confidence(c.get("confidence")),
        "evidence": ", ".join(_sources(evidence)) or None,
        "evidence_entries": len(evidence),
        # every entry's time, as the wiki lists them: a sync compares the next read's with it
        "evidence_times": ", ".join(format_time(t) for t in _entry_times(evidence)) or None,
        # what the claim names, kept even where the named claim is on another page
        "supersedes": ", ".join(_ids(c.get("supersedes"))) or None,
        "superseded_by": ", ".join(_ids(c.get("supersededBy") or c.get("superseded_by"))) or None,
    }
    return Item(
        c["text"].strip(),
        2,
        section=str(page["page_title"]) if page["page_title"] else None,
        key=key,
        at=at,
        how=how,
        revised=at,  # an edited claim: its updatedAt is when the edit was made
        revised_how=how,
        own={k: v for k, v in own.items() if v is not None},
        corroborations=max(len(evidence) - 1, 0),  # the first is what asserted it
        contradictions=1 if status in CONTESTED else 0,
        reinforced_at=_entry_times(evidence),
        replaces=replaces,
    )


def _entry_times(evidence: list[dict[str, Any]]) -> list[float]:
    """The times of a claim's evidence entries that say when (`updatedAt`), as listed."""
    return [t for t in (when(e.get("updatedAt")) for e in evidence) if t is not None]


def _claim_time(c: dict[str, Any], page_at: float | None) -> tuple[float | None, str | None]:
    """When a claim was written, and what says so: its `updatedAt`, else its page's."""
    at = when(c.get("updatedAt"))
    if at is not None:
        return at, "claim updatedAt"
    if page_at is not None:
        return page_at, "page updatedAt"
    return None, None


def _confidence(value: Any) -> float | int | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _sources(evidence: list[dict[str, Any]]) -> list[str]:
    """The evidence entries' sources (`sourceId`, else `path`), those that name one."""
    return [
        str(plain(e.get("sourceId") or e.get("path")))
        for e in evidence
        if plain(e.get("sourceId") or e.get("path"))
    ]


def _key(claim: dict[str, Any], claims: list[dict[str, Any]], index: int | None = None) -> str:
    """A claim's record key: its id, else `claim-N` (its place on the page), as the plugin's
    claim health names one."""
    cid = claim.get("id")
    if isinstance(cid, str) and cid.strip():
        return cid.strip()
    n = index if index is not None else next(i for i, c in enumerate(claims) if c is claim)
    return f"claim-{n + 1}"


def _ids(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return []
