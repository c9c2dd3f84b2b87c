"""Recall as an agent asks (issue 27): recall@1/5/10 and latency of MCP `search`'s ranking.

    python benchmarks/bench_recall.py [--n 100000] [--db PATH] [--no-scale]

Questions with evidence come from the bundled sample's own world (sample_db/world.py): the
generator is rerun with its seed, and every "slot" it kept (a person's role on a project,
an API's version, a deadline, a contract's renewal, ...) becomes one question phrased as
an agent would ask it, in words that differ from the facts' (`Who is responsible for ...`
where the fact says `X owns the task to ...`). Its evidence is every fact written for that
slot, each version; the current one is the slot's head. On the sample store (3,461 facts)
each ranking is scored by recall@k (some evidence in the first k) and current@1 (the head
first), with the median and largest time of one search, for:

- all-words: every word required, as before issue 27 (Store.search);
- bm25-any: BM25 over any of the exact words, no stemming (what the issue measured);
- hybrid: stemmed prefixes, function words weighed down, keywords-all first, RRF with the
  lexical vectors (plus sentence embeddings where the store and `[embed]` have them), a
  reply just after the question it answers;
- hybrid+trust: the same, the trusted and current first among equals (what MCP serves).

mem0's own search is reported only where `mem0ai` is installed (it is not here: it needs
an embedder). With --n, the time of `Recall.search` (the MCP tool's body) at that many
sample-phrased facts: the questions, 64 distinct common words, and the 200,000-word query
of issue 22, which must be refused at once.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "sample_db")]

import numpy as np  # noqa: E402

from synapse_tui.core.agent import Recall  # noqa: E402
from synapse_tui.core.base.clock import Clock, parse_time  # noqa: E402
from synapse_tui.core.base.config import load_config  # noqa: E402
from synapse_tui.core.base.errors import QueryError  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review import query as fq  # noqa: E402
from synapse_tui.core.review import relevance  # noqa: E402
from synapse_tui.core.review.memory import Memory  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402

SAMPLE = ROOT / "sample_db"
NOW = "2026-11-30T18:00:00Z"
MODES = {"all-words": "all", "bm25-any": "bm25", "hybrid": "hybrid", "hybrid+trust": "trust"}


def ask(kind: str, key: tuple) -> str:
    """The question an agent would ask about one slot of the world."""
    if kind == "role":
        return f"What does {key[1]} do on the {key[2]} project?"
    if kind == "focal":
        return f"Who is our main point of contact at {key[1]}?"
    if kind == "apiver":
        return f"Which version of the {key[1]} are we calling?"
    if kind == "deadline":
        return f"When is the {key[2]} for {key[1]} due?"
    if kind == "status":
        return f"What's the current status of {key[1]}?"
    if kind == "ratelimit":
        return f"How many requests per minute does the {key[1]} allow?"
    if kind == "owner":
        return f"Who is responsible for the task to {key[1]} on {key[2]}?"
    if kind == "renewal":
        return f"When does our contract with {key[1]} come up for renewal?"
    if kind == "env":
        return f"Where is the staging environment for {key[1]} hosted?"
    if kind == "channel":
        return f"How should we escalate problems with {key[1]}?"
    raise ValueError(kind)


def paraphrase(kind: str, key: tuple) -> str:
    """The same question in words further from the facts' (first names, synonyms)."""
    first = key[1].split()[0] if kind == "role" else ""
    return {
        "role": lambda: f"What position does {first} hold in {key[2]}?",
        "focal": lambda: f"Who's the go-to person at {key[1]}?",
        "apiver": lambda: f"What release of the {key[1]} are we on?",
        "deadline": lambda: f"By what date must {key[1]} reach {key[2]}?",
        "status": lambda: f"How far along is {key[1]}?",
        "ratelimit": lambda: f"What's the throttling on the {key[1]}?",
        "owner": lambda: f"Who's taking care of {key[1]} for {key[2]}?",
        "renewal": lambda: f"When is the {key[1]} deal up for renewal?",
        "env": lambda: f"Which infrastructure hosts {key[1]} staging?",
        "channel": lambda: f"What's the preferred way to reach {key[1]} when something breaks?",
    }[kind]()


def questions(phrase=ask) -> list[tuple[str, set[str], str]]:
    """(question, evidence ids, current id) per slot of the sample's world."""
    import generate

    worlds = []

    class Capture(generate.World):
        def __init__(self, rng):
            super().__init__(rng)
            worlds.append(self)

    generate.World = Capture
    facts = generate.build(random.Random(generate.SEED))
    generate.World = Capture.__mro__[1]
    sample = [json.loads(line) for line in (SAMPLE / "facts.jsonl").open(encoding="utf-8")]
    if [(f["id"], f["text"]) for f in facts] != [(f["id"], f["text"]) for f in sample]:
        raise SystemExit("the rerun world differs from sample_db/facts.jsonl: regenerate the sample")
    slots: dict[tuple, list] = {}
    for d in worlds[0].drafts:
        if d.slot is not None:
            slots.setdefault(d.slot, []).append(d)
    out = []
    for key, drafts in sorted(slots.items(), key=lambda kv: kv[1][0].id):
        head = max(drafts, key=lambda d: d.created)
        out.append((phrase(key[0], (key[0], *key[1:])), {d.id for d in drafts}, head.id))
    return out


def kinds() -> list[str]:
    """The slot kind (role, deadline, renewal, ...) of each of `questions()`, in order."""
    return [kind for kind, _, _ in questions(lambda kind, key: kind)]


def sample_store(tmp: Path) -> Path:
    db = tmp / "sample.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(SAMPLE / "facts.jsonl"), "sample")
    return db


def score_modes(db: Path, qs: list[tuple[str, set[str], str]], title: str) -> None:
    config = load_config(SAMPLE / "sample.synapse.toml")
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, config, parse_time(NOW))
        store.prepare_search()
        semantic = relevance._semantic(memory, "warm", np.arange(1)) is not None
        print(
            f"{len(qs)} {title} over {len(memory):,} sample facts; sentence embeddings: "
            f"{'used' if semantic else 'not used (no [embed] extra)'}"
        )
        print(
            f"{'ranking':<14} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'cur@1':>6} {'median ms':>10} {'max ms':>8}"
        )
        for label, mode in MODES.items():
            hits = {1: 0, 5: 0, 10: 0}
            current, times = 0, []
            for text, evidence, head in qs:
                q = fq.parse(text)
                t0 = time.perf_counter()
                found = relevance.rank(memory, q, mode=mode)
                top = found.pos[fq.order(found.score)][:10]
                times.append(time.perf_counter() - t0)
                ids = store.ids_at(top.tolist())
                for k in hits:
                    hits[k] += bool(evidence & set(ids[:k]))
                current += bool(ids[:1] == [head])
            n = len(qs)
            print(
                f"{label:<14} {hits[1] / n:6.3f} {hits[5] / n:6.3f} {hits[10] / n:6.3f} {current / n:6.3f}"
                f" {statistics.median(times) * 1e3:10.1f} {max(times) * 1e3:8.1f}"
            )


def score_conversations(tmp: Path) -> None:
    """benchmarks/conversations.py's LoCoMo-style chats, a turn a fact (`Name: words`, the
    conversation in provenance as mem0 keeps its user), each question asked within its
    conversation (a scope), recall@10 per category for each ranking."""
    import conversations as C

    turns, asked = C.build()
    src = tmp / "conversations.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {
                    "id": t.id,
                    "text": t.text,
                    "created_at": t.at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "provenance": {"x-mem0-user-id": t.conversation},
                }
            )
            + "\n"
            for t in turns
        )
    )
    db = tmp / "conversations.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, load_config(None), parse_time(NOW))
        store.prepare_search()
        scopes = {
            c: fq.parse(f"prov:x-mem0-user-id={c}").mask(memory) for c in {q.conversation for q in asked}
        }
        print(
            f"{len(asked)} questions over {len(turns):,} turns of {len(scopes)} conversations, each in its own"
        )
        print(
            f"{'ranking':<14} "
            + " ".join(f"{c:>12}" for c in C.CATEGORIES)
            + "    R@1    R@5   R@10  median ms"
        )
        for label, mode in MODES.items():
            got, times = [], []
            for q in asked:
                t0 = time.perf_counter()
                found = relevance.rank(
                    memory, fq.parse(q.text, lenient=True), scopes[q.conversation], mode=mode
                )
                top = found.pos[fq.order(found.score)][:10]
                times.append(time.perf_counter() - t0)
                got.append((q, store.ids_at(top.tolist())))

            def rate(k: int, cat: str | None = None, got: list = got) -> float:
                pairs = [(q, ids) for q, ids in got if cat in (None, q.category)]
                return sum(bool(set(q.evidence) & set(ids[:k])) for q, ids in pairs) / len(pairs)

            cats = " ".join(f"{rate(10, c):12.3f}" for c in C.CATEGORIES)
            print(
                f"{label:<14} {cats} {rate(1):6.3f} {rate(5):6.3f} {rate(10):6.3f}"
                f" {statistics.median(times) * 1e3:10.1f}"
            )
        print(
            "questions      " + " ".join(f"{sum(q.category == c for q in asked):12d}" for c in C.CATEGORIES)
        )


def scale(db: Path, n: int, qs: list[tuple[str, set[str], str]]) -> None:
    from synth import world_texts, write_synthetic_jsonl

    if not db.exists():
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            src = write_synthetic_jsonl(Path(tmp) / "f.jsonl", n, texts=world_texts(n))
            with Store.open(db, create=True) as store:
                import_facts(store, parse_file(src), str(src))
        print(f"built {db} ({n:,} facts) in {time.perf_counter() - t0:.0f} s")
    from collections import Counter

    texts = [json.loads(line)["text"] for line in (SAMPLE / "facts.jsonl").open(encoding="utf-8")]
    counts = Counter(t for text in texts for t in relevance.tokens(text.split()))
    content = [t for t, _ in counts.most_common() if not relevance.is_stop(t)][: fq.MAX_WORDS]
    stops = [t for t, _ in counts.most_common() if relevance.is_stop(t)][: fq.MAX_WORDS]
    with Store.open(db) as store:
        recall = Recall(store, load_config(None), Clock(parse_time(NOW)))
        recall.search("warm")
        base = statistics.median(_time(lambda: recall.search("is:head", limit=10)) for _ in range(5))
        rows = [("filters only 'is:head' (baseline)", [base])]
        rows.append(("questions", [_time(lambda t=t: recall.search(t)) for t, _, _ in qs]))
        for label, words in (("commonest content words", content), ("commonest function words", stops)):
            text = " ".join(words)
            rows.append((f"{len(words)} {label}", [_time(lambda t=text: recall.search(t)) for _ in range(3)]))
        huge = " ".join(f"w{i}" for i in range(200_000))
        rows.append(("200,000 words (refused)", [_time(lambda: _refused(recall, huge)) for _ in range(3)]))
        repeated = " ".join(["payments"] * 1_000)
        rows.append(
            ("'payments' x 1,000 (one word)", [_time(lambda: recall.search(repeated)) for _ in range(3)])
        )
        recall.settle()
    print(f"Recall.search at {n:,} facts: median / max ms, and median against the baseline")
    for label, times in rows:
        print(
            f"  {label:<38} {statistics.median(times) * 1e3:8.1f} {max(times) * 1e3:8.1f}"
            f"  {statistics.median(times) / base:6.1f}x"
        )


def _refused(recall: Recall, text: str) -> None:
    try:
        recall.search(text)
    except QueryError:
        return
    raise AssertionError("a 200,000-word query was not refused")


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "synapse-bench-recall-100k.db")
    ap.add_argument("--no-scale", action="store_true")
    ap.add_argument("--scale-only", action="store_true")
    args = ap.parse_args()
    qs = questions()
    if not args.scale_only:
        with tempfile.TemporaryDirectory() as tmp:
            db = sample_store(Path(tmp))
            score_modes(db, qs, "questions")
            score_modes(db, questions(paraphrase), "paraphrased questions (first names, synonyms)")
            score_conversations(Path(tmp))
        if importlib.util.find_spec("mem0") is None:
            print("mem0's own search: see real_mem0_recall.py run (mem0ai is not installed here)")
    if not args.no_scale:
        scale(args.db, args.n, qs)


if __name__ == "__main__":
    main()
