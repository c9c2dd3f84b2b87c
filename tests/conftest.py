"""Shared fixtures: a pinned clock and small real stores on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synapse_tui.core.base.clock import parse_time

NOW = "2026-12-01T00:00:00Z"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No test reads the wall clock, the user's config or the user's data directory."""
    monkeypatch.setenv("SYNAPSE_NOW", NOW)
    monkeypatch.setenv("SYNAPSE_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    monkeypatch.delenv("SYNAPSE_CONFIG", raising=False)
    monkeypatch.setenv("TZ", "UTC")


@pytest.fixture
def now() -> float:
    return parse_time(NOW)


def write_jsonl(path: Path, objs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    return path
