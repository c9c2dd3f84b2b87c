"""Helpers the tests share: a small signed store's facts, the CLI run in-process. Fixtures
live in conftest.py; a test module imports only from here, never from another test module."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from synapse_tui.cli import main
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest import signing

KEY = signing.private_key_from_seed(bytes(range(32)))
OTHER = signing.private_key_from_seed(bytes(range(1, 33)))


def base_facts() -> list[dict]:
    facts = [
        {
            "id": "a",
            "text": "Maria owns the Payments API",
            "created_at": "2026-10-01T00:00:00Z",
            "corroborations": 3,
            "reinforced_at": ["2026-11-20T10:00:00Z"],
            "entities": ["Maria", "Payments API"],
            "note": "n1",
            "provenance": {"x-ai-agent": "scout"},
            "x-extra": {"kept": True},
        },
        {
            "id": "b",
            "text": "Maria owns the Billing API",
            "created_at": "2026-11-01T00:00:00+02:00",
            "supersedes": "a",
            "reinforcement_count": 3,
            "tier": "human",
            "entities": ["maria "],
        },
        {"id": "c", "text": "signed fact", "created_at": "2026-06-01T00:00:00", "tier": "signed"},
        {"id": "d", "text": "forged fact", "created_at": "2026-06-01T00:00:00Z", "tier": "signed"},
        {
            "id": "e",
            "text": "[red]not markup[/red]",
            "created_at": "2026-06-01T00:00:00Z",
            "supersedes": "missing-id",
            "contradictions": 4,
        },
    ]
    facts[2]["signature"] = signing.sign(KEY, "c", facts[2]["created_at"], "signed fact")
    facts[3]["signature"] = signing.sign(KEY, "d", facts[3]["created_at"], "a different text")
    return facts


def trusted_config() -> Config:
    return Config().with_values("trust", signers=(signing.public_key_hex(KEY),))


def run(*args: str, ok: bool = True):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output + result.stderr
    return result


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


NOW = "2026-12-01T00:00:00Z"


def write_jsonl(path: Path, objs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    return path
