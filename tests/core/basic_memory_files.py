"""Basic Memory notes folders, and the sync `import --from` runs on them."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.adapters import basic_memory as bm
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.store.db import Store

SEARCH = """\
    ---
    title: Search Design
    type: note
    permalink: main/specs/search-design
    tags:
    - search
    created: 2026-03-01T10:00:00+02:00
    modified: 2026-04-01T09:30:00+02:00
    ---

    # Search Design

    ## Observations
    - [decision] Use SQLite FTS5 for full text #search #sqlite (fast enough locally)
    - [fact] Ranking is relevance times freshness, see [[Freshness Model]]
    - [ ] a task, not an observation
    - [00:01:02] a timecode, not a category

    > [!info] a callout, not an observation

    ```
    - [fact] inside a code block, not an observation
    ```

    ## Relations
    - implements [[Search Spec]]
    - relates_to [[Ranking]] (context here)
    """
OLD = """\
    ---
    title: Old Search
    permalink: main/old-search
    created: 2025-01-01
    ---
    - [decision] Use Elasticsearch for search
    - [fact] Search runs on a separate cluster
    - [risk] Cluster costs grow with the index
    """
NEW = """\
    ---
    title: Search v2
    permalink: main/search-v2
    created: 2026-05-01T00:00:00Z
    ---
    - [fact] Search runs inside the app process
    - [decision] Use SQLite FTS5 instead of Elasticsearch

    - supersedes [[old-search]]
    """


def sync(store: Store, snapshot):
    """The real sync, as `import --from` runs it."""
    return sync_snapshot(store, snapshot, Config())


def write(folder: Path, rel: str, text: str, mtime: str | None = None) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    if mtime:
        ts = parse_time(mtime)
        os.utime(path, (ts, ts))
    return path


def resync(store: Store, folder: Path):
    snap = bm.read(folder, known=known_facts(store, "basic-memory"))
    sync(store, snap)
    return snap
