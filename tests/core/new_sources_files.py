"""Turn 4's sources written in their systems' own shapes (facts about the shapes only; no
text copied from those projects). Each constant names where its shape was read."""

from __future__ import annotations

import json

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.store.db import Store
from tests.core.basic_memory_files import sync, write  # noqa: F401  (re-exported for the tests)

# openai/codex codex-rs/core/templates/memories/consolidation.md ("MEMORY.md FORMAT"): blocks
# of a `---` YAML header (rollout_summary_files: a list of `<file>.md (<annotation with
# cwd=..., updated_at=...>)`, description, keywords) over bullets.
CODEX_MEMORY = """\
    ---
    rollout_summary_files:
      - 2026-03-01T09-00-00-aB3d-flaky_ci.md (success, fixed the flaky CI job, cwd=/home/ada/shop, updated_at=2026-03-01T09:30:00Z)
      - 2026-03-04T14-00-00-Zq9k-ci_cache.md (partial, cwd=/home/ada/shop, updated_at=2026-03-04T15:00:00+02:00)
    description: CI of the shop repository
    keywords: ci, pytest, cache
    ---

    - Run the test suite with `make test`, never bare pytest: the Makefile sets the database URL.
    - The CI cache key includes the lock file hash; bump it after dependency changes.

    ---
    rollout_summary_files:
      - 2026-03-10T08-00-00-Pp01-release.md (success, cwd=/home/ada/shop)
    description: Releases
    keywords: release, tags
    ---

    - Releases are tagged vX.Y.Z on main only.
    """
# openai/codex codex-rs/memories/write/templates/memories/consolidation.md (the current
# "MEMORY.md FORMAT"): `# Task Group:` blocks with `scope:` and `applies_to: cwd=...;
# reuse_rule=...`, `## Task <n>` sections holding `### rollout_summary_files` (annotated
# cwd, rollout_path, updated_at, thread_id) and `### keywords`, then the block's bullets
# under User preferences / Reusable knowledge / Failures and how to do differently, each
# ending in the task references it rests on.
CODEX_MEMORY_TASKS = """\
    # Task Group: shop repository CI

    scope: running and fixing the shop's test suite in CI
    applies_to: cwd=/home/ada/shop; reuse_rule=safe for this checkout only

    ## Task 1: fix the flaky CI job, success

    ### rollout_summary_files

    - rollout_summaries/2026-03-01T09-00-00-aB3d-flaky_ci.md (cwd=/home/ada/shop, rollout_path=/home/ada/.codex/sessions/a.jsonl, updated_at=2026-03-01T09:30:00Z, thread_id=t1, success)

    ### keywords

    - pytest, flaky, retry

    ## Task 2: speed up the CI cache, partial

    ### rollout_summary_files

    - rollout_summaries/2026-03-04T14-00-00-Zq9k-ci_cache.md (cwd=/home/ada/shop, rollout_path=/r/b.jsonl, updated_at=2026-03-04T15:00:00+02:00, thread_id=t2)

    ### keywords

    - cache, lockfile

    ## User preferences

    - when CI fails, the user asked: "show me the failing test first" -> lead with the failing test [Task 1]

    ## Reusable knowledge

    - Run the test suite with `make test`, never bare pytest. [Task 1]
    - CI runs on every push to main. [Task 1][Task 2]

    ## Failures and how to do differently

    - Retrying a flaky test hid a real race -> fix the fixture instead [Task 1]

    # Task Group: releases

    scope: tagging releases of the shop
    applies_to: cwd=/home/ada/shop; reuse_rule=any checkout

    ## Task 1: tag a release, success

    ### rollout_summary_files

    - rollout_summaries/2026-03-10T08-00-00-Pp01-release.md (cwd=/home/ada/shop, thread_id=t3)

    ### keywords

    - release, tags

    ## Reusable knowledge

    - Releases are tagged vX.Y.Z on main only.
    """
# the current memory_summary.md: a first line `v1`, then User Profile, User preferences,
# General Tips, What's in Memory
CODEX_SUMMARY_V1 = """\
    v1

    ## User Profile

    Ada maintains a small web shop and likes short answers.

    ## User preferences

    - Lead with the failing test when CI breaks.

    ## What's in Memory

    - shop CI: ci, pytest, cache
    """
# codex-rs/core/src/memories/storage.rs (write_rollout_summary_for_thread): header lines
# thread_id, updated_at (RFC 3339), rollout_path, cwd, git_branch, a blank line, the recap.
CODEX_ROLLOUT = """\
    thread_id: 0195a3c2-0000-7000-8000-000000000003
    updated_at: 2026-03-10T08:45:00+00:00
    rollout_path: /home/ada/.codex/sessions/2026/03/10/rollout.jsonl
    cwd: /home/ada/shop
    git_branch: main

    Tagged the release after the changelog check.
    """
# consolidation.md ("memory_summary.md FORMAT"): User Profile (prose), General Tips
# (bullets), What's in Memory (an index of topics and keywords).
CODEX_SUMMARY = """\
    ## User Profile

    Ada maintains a small web shop and likes short answers.

    ## General Tips

    - Check MEMORY.md for the repository before searching the code.

    ## What's in Memory

    - shop CI: ci, pytest, cache
      - desc: how the CI of the shop runs
    """

# google-gemini/gemini-cli packages/core/src/tools/memoryTool.ts: save_memory appends
# `- <fact>` under `## Gemini Added Memories` (created at the end when missing).
GEMINI_GLOBAL = """\
    # My preferences

    - Answer in British English.

    ## Gemini Added Memories
    - My preferred programming language is Python.
    - The project I'm working on is called shop.
    """
GEMINI_PROJECT = """\
    # Shop

    Use pnpm for the frontend.

    ## Testing
    - Integration tests need the local database running.
    """

# cursor.com docs (rules) and public .mdc files: front matter description, globs (a
# comma-separated list, not YAML), alwaysApply; legacy .cursorrules is plain Markdown.
CURSOR_RULE = """\
    ---
    description: TypeScript conventions for the frontend
    globs: src/**/*.ts, src/**/*.tsx
    alwaysApply: false
    ---
    # TypeScript

    - Prefer type aliases over interfaces.
    - Never use `any`.
    """
CURSOR_ALWAYS = """\
    ---
    description:
    globs:
    alwaysApply: true
    ---
    Keep diffs small and explain every change.
    """
CURSORRULES = """\
    You are an expert in Python and FastAPI.

    - Use type hints everywhere.
    """

# OpenClaw's memory docs: workspace MEMORY.md and daily memory/YYYY-MM-DD.md.
OPENCLAW_MEMORY = """\
    # Long-term memory

    - Ada's timezone is Europe/London.
    """
OPENCLAW_DAY = """\
    # 2026-04-02

    - Moved the staging server to the new region.
    - Ada asked for weekly summaries on Fridays.
    """
# openclaw/openclaw extensions/memory-wiki/src/markdown.ts (normalizeWikiClaims) and
# src/claim-health.ts: page front matter `claims` with id, text, status, confidence,
# evidence (sourceId, path, lines, weight, note, updatedAt) and updatedAt.
OPENCLAW_PAGE = {
    "id": "entity.staging",
    "pageType": "entity",
    "title": "Staging server",
    "updatedAt": "2026-04-03T10:00:00.000Z",
    "sourceIds": ["source.daily-2026-04-02"],
    "claims": [
        {
            "id": "staging.region",
            "text": "The staging server runs in eu-west-2.",
            "status": "supported",
            "confidence": 0.9,
            "evidence": [
                {
                    "sourceId": "source.daily-2026-04-02",
                    "lines": "3",
                    "updatedAt": "2026-04-02T18:00:00.000Z",
                },
                {"sourceId": "source.ops-chat", "updatedAt": "2026-04-03T09:00:00.000Z"},
            ],
            "updatedAt": "2026-04-02T18:00:00.000Z",
        },
        {
            "id": "staging.region.old",
            "text": "The staging server runs in us-east-1.",
            "status": "superseded",
            "supersededBy": ["staging.region"],
            "confidence": 0.2,
            "evidence": [{"sourceId": "source.setup-notes"}],
        },
        {
            "text": "Staging is rebuilt every night.",
            "status": "contested",
            "evidence": [],
        },
    ],
}


def wiki_page(page: dict) -> str:
    """A page as the plugin renders one: YAML front matter (JSON is YAML), then the body."""
    return f"---\n{json.dumps(page, indent=2)}\n---\n\n# {page['title']}\n\nCompiled body, not claims.\n"


def at(text: str) -> float:
    return parse_time(text)


def resync(store: Store, module, source, **options):
    """Read `source` against the store's facts of the module's system, and sync it."""
    snap = module.read(source, known=known_facts(store, module.SYSTEM), **options)
    return snap, sync(store, snap)
