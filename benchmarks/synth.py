"""Synthetic interchange data for the benchmarks: realistic shapes, fixed seed."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import numpy as np

WORDS = (
    "payments api auth billing deploy schema owner team roadmap incident latency cache "
    "migration release contract customer invoice gateway token session queue worker"
).split()
END = 1_796_000_000.0  # 2026-12-01


def world_texts(n: int) -> list[str]:
    """n distinct fact texts phrased as the bundled sample's are (people, projects, dates,
    action items), from as many runs of its world simulation (sample_db/world.py) as it
    takes: text with the repetition an agent's memory has, unlike WORDS drawn at random."""
    import random
    import sys

    sys.path[:0] = [str(Path(__file__).resolve().parent.parent / "sample_db")]
    from world import World

    texts: dict[str, None] = {}
    seed = 0
    while len(texts) < n:
        world = World(random.Random(seed))
        world.run()
        texts.update(dict.fromkeys(d.text for d in world.drafts))
        seed += 1
    return list(texts)[:n]


def vocabulary(size: int = 200, seed: int = 5) -> list[str]:
    """`size` distinct made-up words of two to four syllables: a vocabulary with the
    shared stems and endings of real words, and no phrasing."""
    rng = np.random.default_rng(seed)
    onsets, vowels = "b c d f g h k l m n p r s t v w st tr pl gr".split(), "a e i o u ai ou".split()
    words: dict[str, None] = {}
    while len(words) < size:
        words[
            "".join(str(rng.choice(onsets)) + str(rng.choice(vowels)) for _ in range(rng.integers(2, 5)))
        ] = None
    return list(words)


def vocabulary_texts(n: int, zipf: float = 0.0, size: int = 200, seed: int = 11) -> list[str]:
    """n texts of 6-14 words drawn from a `size`-word vocabulary, uniformly or, with
    `zipf` > 0, the r-th most frequent word with weight r**-zipf: text with no structure
    beyond its words (issue 26)."""
    rng = np.random.default_rng(seed)
    words = np.array(vocabulary(size))
    p = None
    if zipf > 0:
        p = np.arange(1, size + 1, dtype=np.float64) ** -zipf
        p /= p.sum()
    lengths = rng.integers(6, 15, n)
    drawn = rng.choice(size, size=int(lengths.sum()), p=p)
    ends = np.cumsum(lengths)
    return [" ".join(words[drawn[e - m : e]]) for e, m in zip(ends, lengths, strict=True)]


def write_synthetic_jsonl(
    path: Path, n: int, seed: int = 7, id_prefix: str = "s", texts: list[str] | None = None
) -> Path:
    """n facts; their texts are `fact i:` and six of WORDS, or `texts` when given."""
    rng = np.random.default_rng(seed)
    created = END - rng.uniform(0, 730, n) * 86400
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            words = " ".join(rng.choice(WORDS, 6))
            obj = {
                "id": f"{id_prefix}{i:07d}",
                "text": texts[i] if texts else f"fact {i}: {words}",
                "created_at": _iso(created[i]),
                "tier": ("auto", "human", "signed")[i % 3 if i % 10 == 0 else 0],
                "corroborations": int(rng.poisson(2)),
                "contradictions": int(rng.poisson(0.3)),
                "entities": [str(e) for e in rng.choice(WORDS, 2, replace=False)],
                "note": f"n{i // 8}",
            }
            if i % 12 == 0:
                obj["reinforcement_count"] = int(rng.integers(1, 20))
            else:
                span = END - created[i]
                obj["reinforced_at"] = sorted(_iso(created[i] + rng.uniform(0, span)) for _ in range(4))
            if i % 50 == 49:
                obj["supersedes"] = f"{id_prefix}{i - 1:07d}"
            fh.write(json.dumps(obj) + "\n")
    return path


def _iso(ts: float) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(round(ts), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def main(argv: list[str] | None = None) -> int:
    """`python benchmarks/synth.py N OUT`: a store (OUT.db) or interchange file (OUT.jsonl)
    of N synthetic facts, the shapes the benchmarks measure."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="synth.py",
        description="Write N synthetic facts: a store (with its neighbour graph) when OUT ends"
        " in .db, else interchange JSON Lines (synapse-tui import reads it).",
    )
    parser.add_argument("n", type=int, help="how many facts")
    parser.add_argument("out", type=Path, help="OUT.db (a store) or OUT.jsonl")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7: the benchmarks')")
    parser.add_argument(
        "--texts",
        choices=("words", "world", "vocabulary"),
        default="words",
        help="words: 'fact i:' and six random WORDS; world: phrased as the bundled sample's;"
        " vocabulary: 6-14 made-up words (default words)",
    )
    parser.add_argument("--no-graph", action="store_true", help="a store without its neighbour graph")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("n must be at least 1")
    texts = {"words": None, "world": world_texts, "vocabulary": vocabulary_texts}[args.texts]
    texts = texts(args.n) if texts else None
    if args.out.suffix != ".db":
        write_synthetic_jsonl(args.out, args.n, seed=args.seed, texts=texts)
        print(args.out)
        return 0
    if args.out.exists():
        parser.error(f"{args.out} exists: choose another name")
    import tempfile

    from synapse_tui.core.base.config import Config
    from synapse_tui.core.graph.build import update_graph
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.store.db import Store

    with tempfile.TemporaryDirectory() as tmp:
        src = write_synthetic_jsonl(Path(tmp) / "facts.jsonl", args.n, seed=args.seed, texts=texts)
        facts = parse_file(src)
        config = Config()
        after = None if args.no_graph else (lambda conn, new: update_graph(conn, new, config))
        with Store.open(args.out, create=True) as store:
            import_facts(store, facts, str(src), after_insert=after)
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
