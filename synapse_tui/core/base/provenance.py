"""Where a fact came from, read back from the provenance an adapter wrote (SPEC 9).

`show` and the browser's detail both say which system a fact came from, which record and
version, who wrote it there, and which inputs of the trust score that system never
records: a fact from mem0 has r = 0 because mem0 keeps no corroborations, not because
nobody corroborated it. Triage done here still counts; `unrecorded` names what the
source could not tell us.
"""

from __future__ import annotations

from typing import Any

# Per system: the trust inputs it never records, and the provenance keys its reader
# writes that name who wrote a record, most specific first (tests/core/
# test_adapters_provenance.py holds these to what the readers write).
SYSTEMS: dict[str, dict[str, tuple[str, ...]]] = {
    # mem0 keeps texts and who wrote them, nothing a reviewer did.
    "mem0": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements", "acceptance"),
        "author": ("x-mem0-actor-id", "x-mem0-agent-id", "x-mem0-user-id"),
        "role": ("x-mem0-role",),
    },
    # Graphiti counts the episodes that re-asserted an edge (corroborations, and
    # reinforcements at the episodes' times) but records no contradiction count and no
    # acceptance. Who said it: the description of the edge's first episode's source; the
    # group id is a partition of the graph (the fact's note), not an author.
    "graphiti": {
        "unrecorded": ("contradictions", "acceptance"),
        "author": ("x-graphiti-source-description",),
        "role": (),
    },
    # A Basic Memory note records no author, no count and no review of its observations.
    "basic-memory": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements", "acceptance"),
        "author": (),
        "role": (),
    },
    # Claude Code's files keep text only; a person's CLAUDE.md is tier human (acceptance).
    # In a git work tree, the commit's author wrote the line.
    "claude-code": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements"),
        "author": ("x-claude-code-author",),
        "role": (),
    },
    # LangGraph's store keeps a value and its times; the namespace is a partition, not an author.
    "langgraph": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements", "acceptance"),
        "author": (),
        "role": (),
    },
    # The MCP memory server's file holds observations only: no author, count or review.
    "mcp-memory": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements", "acceptance"),
        "author": (),
        "role": (),
    },
    # Markdown in git: each line's commit names its author; a person's line is tier human.
    "git-notes": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements"),
        "author": ("x-git-notes-author",),
        "role": (),
    },
    # Codex's handbook cites the sessions each block came from: their times are its
    # reinforcements; nothing counts corroborations, contradictions or a person's review.
    "codex": {
        "unrecorded": ("corroborations", "contradictions", "acceptance"),
        "author": (),
        "role": (),
    },
    # GEMINI.md: the agent's `save_memory` section is tier auto, the rest a person's (human).
    "gemini-cli": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements"),
        "author": ("x-gemini-cli-added-by",),
        "role": (),
    },
    # OpenClaw's wiki claims carry evidence (corroborations, reinforcements) and a status
    # (contradictions); its workspace notes record none, and nothing records a review.
    "openclaw": {
        "unrecorded": ("acceptance",),
        "author": (),
        "role": (),
    },
    # Cursor's rules are a person's (tier human), text only.
    "cursor": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements"),
        "author": (),
        "role": (),
    },
    # Markdown outside git: text only, no author.
    "markdown": {
        "unrecorded": ("corroborations", "contradictions", "reinforcements", "acceptance"),
        "author": (),
        "role": (),
    },
}
_UNKNOWN = {"unrecorded": ("corroborations", "contradictions", "reinforcements", "acceptance")}


def source_info(provenance: dict[str, Any] | None) -> dict[str, Any] | None:
    """`{"system", "record", "version", "author", "unrecorded"}`, or None when no adapter
    made the fact (it came from an interchange file or an agent)."""
    if not provenance or not isinstance(provenance.get("x-source"), str):
        return None
    system = provenance["x-source"]
    known = SYSTEMS.get(system, _UNKNOWN)
    author = next((provenance[k] for k in known.get("author", ()) if provenance.get(k) is not None), None)
    role = next((provenance[k] for k in known.get("role", ()) if provenance.get(k) is not None), None)
    if author is not None and role is not None:
        author = f"{author} ({role})"
    elif role is not None:
        author = f"role {role}"
    version = provenance.get("x-source-version")
    return {
        "system": system,
        "record": provenance.get("x-source-id"),
        "version": version if isinstance(version, int) and not isinstance(version, bool) else None,
        "author": None if author is None else str(author),
        "unrecorded": list(known["unrecorded"]),
    }
