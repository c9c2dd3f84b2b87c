"""What the import tests on a server compare, and the facts they write."""

from __future__ import annotations

from tests.helpers import NOW, run

READS = [
    ("score", "--json", "--now", NOW),
    ("export",),
    ("export", "--audit"),
    ("edges",),
    ("edges", "--json", "--lexical"),
    ("neighbours", "f1", "--json"),
]


def same_reads(file, url, neighbours_of: str | None = "f1") -> None:
    for args in READS if neighbours_of else READS[:-1]:
        on_file, on_server = run(args[0], file, *args[1:]), run(args[0], url, *args[1:])
        assert on_server.stdout == on_file.stdout, args


def more_facts(n: int, start: int = 0) -> list[dict]:
    """Facts that link: shared words and entities, an embedding-free lexical space."""
    topics = ["payments", "billing", "deploys", "ledger", "search"]
    return [
        {
            "id": f"f{i}",
            "text": f"Team {topics[i % 5]} owns service {i % 7} and the {topics[(i + 1) % 5]} runbook",
            "created_at": f"2026-{1 + i % 11:02d}-{1 + i % 27:02d}T00:00:00Z",
            "entities": [topics[i % 5], f"service {i % 7}"],
            "provenance": {"x-ai-agent": f"agent-{i % 3}", "x-n": i},
            **({"supersedes": f"f{i - 5}"} if i % 9 == 8 else {}),
            **({"corroborations": i % 4} if i % 2 else {}),
        }
        for i in range(start, start + n)
    ]
