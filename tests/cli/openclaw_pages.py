"""A memory-wiki vault as the OpenClaw plugin renders its pages (extensions/memory-wiki: a
page's YAML front matter, block style, timestamps unquoted; each claim's id, text, status,
confidence, evidence entries of sourceId / lines / weight / updatedAt, updatedAt), and what
`show` says of a claim: shared by the sync tests of tests/cli."""

from __future__ import annotations

from tests.cli_run import run
from tests.helpers import json_lines

PAGE = "entities/staging.md"
REGION = f"openclaw:wiki/main/{PAGE}#staging.region"
REBUILD = f"openclaw:wiki/main/{PAGE}#staging.rebuild"


def claim(cid: str, text: str, status: str, evidence: list[tuple[str, str]]) -> str:
    entries = "".join(
        f"      - sourceId: {source}\n        lines: 1-3\n        weight: 0.8\n        updatedAt: {at}\n"
        for source, at in evidence
    )
    return (
        f"  - id: {cid}\n    text: {text}\n    status: {status}\n    confidence: 0.7\n"
        f"    evidence:\n{entries}    updatedAt: 2026-04-02T18:00:00.000Z\n"
    )


def page(*claims: str, updated: str = "2026-04-03T10:00:00.000Z") -> str:
    return (
        "---\npageType: entity\nid: entity.staging\ntitle: Staging server\nsourceIds:\n"
        f"  - source.daily\nclaims:\n{''.join(claims)}status: active\nupdatedAt: {updated}\n---\n\n"
        "# Staging server\n\nCompiled body, not claims.\n"
    )


ONE = [("source.daily", "2026-04-02T18:00:00.000Z")]
TWO = [*ONE, ("source.ops-chat", "2026-04-05T09:00:00.000Z")]


def region(status: str, evidence: list[tuple[str, str]]) -> str:
    return claim("staging.region", "The staging server runs in eu-west-2.", status, evidence)


def rebuild(status: str, evidence: list[tuple[str, str]]) -> str:
    return claim("staging.rebuild", "Staging is rebuilt every night.", status, evidence)


def shown(db, fid: str) -> dict:
    (info,) = json_lines(run("show", db, fid, "--json").stdout)
    return info


def counts(db, fid: str) -> tuple[int, int, str]:
    info = shown(db, fid)
    return info["corroborations"], info["contradictions"], info["guidance"]


def vault(tmp_path, text: str):
    path = tmp_path / "wiki" / "main" / PAGE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return tmp_path / "wiki" / "main"
