"""Word search at a million facts (issue 26, point 3): an agent's `search` under 50 ms.

    python benchmarks/bench_words.py [--n 1000000] [--db PATH] [--calls 15] [--write-results]

Builds (once, then reuses) a store of facts and their full-text index, no embeddings: each
text six of 22 words (benchmarks/synth.py WORDS), so a word is in about a quarter of the
facts. Then, in one run, alternating so a busy machine weighs on both alike:

- `Store.search_any` for one to six broad words, with the term rows kept between
  searches (store/words.py) and with nothing kept (the cache emptied before each call: what
  every search cost before), the latter the baseline;
- the MCP tool's body (`Recall.search`, limit 10) on the same words: ranking only the
  matches that can reach the page (relevance.py `_head`) against ranking every match as
  before, both with the rows kept; and kept against not; a filters-only search
  (`tier:auto`, no FTS) as a floor;
- a 1 MB query, refused.

Each figure is a median with the load average beside it.

    python benchmarks/bench_words.py --against DIR [--cjk 1000000] [--write-results]

The CJK word index (store/cjk.py) against the code before it, in one run: DIR holds that
code (`git archive COMMIT | tar -x -C DIR`); its store/words.py is loaded beside this one
and both search the same store, alternating, with nothing kept and with the rows kept (the
same words as above: what the CJK index must not slow). With `--cjk N`, a store of N facts
of Japanese text without spaces: a CJK word searched through the index, against the scan
of the text a store made before the index falls back to when opened read-only.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import synthetic_arrays  # noqa: E402
from results import Results  # noqa: E402
from synth import WORDS  # noqa: E402

from synapse_tui.core.agent import Recall  # noqa: E402
from synapse_tui.core.base.clock import Clock, format_time, parse_time  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.base.errors import SynapseError  # noqa: E402
from synapse_tui.core.review import query as fq  # noqa: E402
from synapse_tui.core.review.relevance import fts_terms  # noqa: E402
from synapse_tui.core.store import cjk  # noqa: E402
from synapse_tui.core.store.arrays import event_blob  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.store.schema import migrate  # noqa: E402

NOW = "2026-12-01T00:00:00Z"
FIGURES = Results("bench_words.py")
AGAINST = Results("bench_words.py --against")
QUERIES = (
    "payments",
    "payments api",
    "When did the payments api deploy?",
    "payments api deploy cache",
    "payments api deploy cache queue worker",
)


def build(db: Path, n: int) -> None:
    t = time.perf_counter()
    rng = np.random.default_rng(42)
    a = synthetic_arrays(n, rng)
    ends = np.append(a.offsets[1:], len(a.events))
    drawn = np.array(WORDS)[rng.integers(0, len(WORDS), (n, 6))]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    migrate(conn)
    conn.execute("BEGIN")
    for c0 in range(0, n, 50_000):
        rows = [
            (
                i + 1,
                f"f{i + 1:07d}",
                f"fact {i + 1}: " + " ".join(drawn[i]),
                format_time(float(a.created[i])),
                float(a.created[i]),
                ("auto", "human", "signed")[a.declared[i]],
                int(a.r[i]),
                int(a.s[i]),
                event_blob(float(a.created[i]), a.events[a.offsets[i] + 1 : ends[i]].tolist()),
            )
            for i in range(c0, min(c0 + 50_000, n))
        ]
        conn.executemany(
            "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, sig_state)"
            " VALUES (?,?,?,?,?,?,?,?,?,0)",
            rows,
        )
    conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('rebuild')")
    conn.execute("COMMIT")
    conn.close()
    print(f"(built {db} with {n:,} facts in {time.perf_counter() - t:.0f} s)", flush=True)


def forget(store: Store) -> None:
    store.words.terms.clear()


def every_match(recall: Recall, q: str) -> float:
    """The MCP search as it was before `_head`: every match ranked, the page cut after."""
    was = fq.rank
    fq.rank = lambda memory, query, mask=None, limit=None: was(memory, query, mask)
    try:
        return ms(lambda: recall.search(q, 10))
    finally:
        fq.rank = was


def ms(fn) -> float:
    t = time.perf_counter()
    fn()
    return 1000 * (time.perf_counter() - t)


def paired(kept, cold, calls: int) -> tuple[float, float, tuple[float, ...]]:
    """Medians of `kept` and `cold`, called alternately, and the highest load average seen."""
    kept()
    a, b, load = [], [], os.getloadavg()
    for _ in range(calls):
        b.append(cold())
        a.append(kept())
        load = tuple(max(x, y) for x, y in zip(load, os.getloadavg(), strict=True))
    return statistics.median(a), statistics.median(b), load


# a Japanese memory's words, joined without spaces as Japanese is written
CJK_WORDS = (
    "チャート データ ユーザー 画面 設定 更新 週次 売上 報告 デプロイ 検索 機能 "
    "キャッシュ 読み込み 表示 管理 追加 削除 変更 確認 テスト 実行 サーバー 保存"
).split()
CJK_JOINS = "を は が の で に と も".split()


def build_cjk(db: Path, n: int) -> None:
    """A store of `n` facts of six CJK words each (joined by particles, no space), its
    word indexes filled as an import fills them."""
    t = time.perf_counter()
    rng = np.random.default_rng(7)
    words = np.array(CJK_WORDS)[rng.integers(0, len(CJK_WORDS), (n, 6))]
    joins = np.array(CJK_JOINS)[rng.integers(0, len(CJK_JOINS), (n, 5))]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    migrate(conn)
    conn.execute("BEGIN")
    for c0 in range(0, n, 50_000):
        facts = [
            (i + 1, f"j{i + 1:07d}", "".join(w + j for w, j in zip(words[i], [*joins[i], "。"], strict=True)))
            for i in range(c0, min(c0 + 50_000, n))
        ]
        conn.executemany(
            "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, sig_state)"
            f" VALUES (?, ?, ?, '{NOW}', 0, 'auto', 0, 0, ?, 0)",
            [(*f, event_blob(0.0, [])) for f in facts],
        )
        conn.executemany(f"INSERT INTO {cjk.TABLE} (rowid, grams) VALUES (?, ?)", cjk.rows(facts))
    conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('rebuild')")
    conn.execute("COMMIT")
    conn.close()
    print(f"(built {db} with {n:,} CJK facts in {time.perf_counter() - t:.0f} s)", flush=True)


def old_words(folder: Path):
    """store/words.py of the code in `folder`, loaded beside this one's."""
    spec = importlib.util.spec_from_file_location("old_words", folder / "synapse_tui/core/store/words.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def against(db: Path, folder: Path, calls: int, cjk_n: int) -> None:
    """This code's word search against the code in `folder`, on the same store, alternating."""
    old = old_words(folder)
    store = Store.open(db, readonly=True)  # opened for writing before: at this schema
    before = old.WordIndex(store._conn, str(db), store.snapshot)
    n = store.count()

    def note(figure: str, new: float, was: float, load: tuple[float, ...], base: str) -> None:
        AGAINST.add(f"{figure} (load {load[0]:.1f})", new / 1000, baseline=base, against=was / 1000)
        print(
            f"{figure}: {new:.1f} ms; {base}: {was:.1f} ms ({new / was:.2f}x); load {load[0]:.2f}", flush=True
        )

    for q in QUERIES:
        terms = fts_terms(q.split())
        what = f"'{q}' ({len(terms)} terms, {len(store.search_any(terms).pos):,} of {n:,} facts)"
        new, was, load = paired(
            lambda t=terms: (forget(store), ms(lambda: store.search_any(t)))[1],
            lambda t=terms: (before.terms.clear(), ms(lambda: before.search_any(t)))[1],
            calls,
        )
        note(f"Store.search_any {what}, nothing kept", new, was, load, "before the CJK index")
        before.search_any(terms)
        new, was, load = paired(
            lambda t=terms: ms(lambda: store.search_any(t)),
            lambda t=terms: ms(lambda: before.search_any(t)),
            calls,
        )
        note(f"Store.search_any {what}, term rows kept", new, was, load, "before the CJK index")
    store.close()
    if cjk_n:
        cjk_figures(cjk_n, calls)


def cjk_figures(n: int, calls: int) -> None:
    """A CJK word through the CJK index, against the scan of the text it replaces in a store
    made before it (read-only); and against a Latin word's search in the big store above."""
    db = Path(f"/tmp/bench_words_cjk_{n}.db")
    if not db.exists():
        build_cjk(db, n)
    plain = Path(f"/tmp/bench_words_cjk_{n}_before.db")  # the same, as made before the index
    if not plain.exists():
        conn = sqlite3.connect(db)
        conn.execute(f"VACUUM INTO '{plain}'")
        conn.close()
        conn = sqlite3.connect(plain)
        conn.execute(f"DROP TABLE {cjk.TABLE}")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm007_cjk_words'")
        conn.execute("PRAGMA user_version = 6")
        conn.commit()
        conn.close()
    with Store.open(db, readonly=True) as store, Store.open(plain, readonly=True) as old:
        for word in ("チャート", "画面", "ャー", "テストを実行"):
            terms = fts_terms([word])
            hits = len(store.search_any(terms).pos)
            assert hits == len(old.search_any(terms).pos), word
            new, was, load = paired(
                lambda t=terms: (forget(store), ms(lambda: store.search_any(t)))[1],
                lambda t=terms: (forget(old), ms(lambda: old.search_any(t)))[1],
                calls,
            )
            figure = f"Store.search_any '{word}' ({hits:,} of {n:,} CJK facts), nothing kept"
            AGAINST.add(
                f"{figure} (load {load[0]:.1f})",
                new / 1000,
                baseline="a scan of the text",
                against=was / 1000,
            )
            print(
                f"{figure}: {new:.1f} ms; the scan: {was:.1f} ms ({new / was:.2f}x); load {load[0]:.2f}",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--write-results", action="store_true")
    ap.add_argument("--against", type=Path, default=None, help="a checkout of the code before")
    ap.add_argument("--cjk", type=int, default=0, help="with --against: CJK figures at this many facts")
    args = ap.parse_args()
    db = args.db or Path(f"/tmp/bench_words_{args.n}.db")
    if not db.exists():
        build(db, args.n)
    if args.against is not None:
        Store.open(db).close()  # migrated first (schema 7): the figures are of searches only
        against(db, args.against, args.calls, args.cjk)
        if args.write_results:
            AGAINST.save()
        return
    store = Store.open(db)
    recall = Recall(store, Config(), Clock(parse_time(NOW)))
    n = store.count()

    def note(figure: str, kept: float, cold: float, load: tuple[float, ...], base: str) -> None:
        FIGURES.add(f"{figure} (load {load[0]:.1f})", kept / 1000, baseline=base, against=cold / 1000)
        print(
            f"{figure}: {kept:.1f} ms; {base}: {cold:.1f} ms ({kept / cold:.2f}x); load {load[0]:.2f}",
            flush=True,
        )

    for q in QUERIES:
        terms = fts_terms(q.split())
        hits = len(store.search_any(terms).pos)
        what = f"'{q}' ({len(terms)} terms, {hits:,} of {n:,} facts)"
        kept, cold, load = paired(
            lambda t=terms: ms(lambda: store.search_any(t)),
            lambda t=terms: (forget(store), ms(lambda: store.search_any(t)))[1],
            args.calls,
        )
        note(f"Store.search_any {what}, term rows kept", kept, cold, load, "nothing kept")
        page, full, load = paired(
            lambda q=q: ms(lambda: recall.search(q, 10)), lambda q=q: every_match(recall, q), args.calls
        )
        note(f"MCP search {what}, rows kept, the page ranked", page, full, load, "every match ranked")
        kept, cold, load = paired(
            lambda q=q: ms(lambda: recall.search(q, 10)),
            lambda q=q: (forget(store), ms(lambda: recall.search(q, 10)))[1],
            args.calls,
        )
        note(f"MCP search {what}, rows kept", kept, cold, load, "nothing kept")
    floor, _, load = paired(lambda: ms(lambda: recall.search("tier:auto", 10)), lambda: 1.0, args.calls)
    print(f"MCP search, filters only: {floor:.1f} ms; load {load[0]:.2f}", flush=True)
    FIGURES.add(f"MCP search, filters only, no words (load {load[0]:.1f})", floor / 1000)

    def refused() -> None:
        try:
            recall.search("payments " * 110_000, 10)
        except SynapseError as exc:
            assert "at most" in str(exc)
        else:
            raise AssertionError("a 1 MB query was served")

    big = statistics.median(ms(refused) for _ in range(5))
    print(f"a 1 MB query, refused: {big:.1f} ms", flush=True)
    FIGURES.add("a 1 MB query (110,000 words), refused", big / 1000)
    store.close()
    if args.write_results:
        FIGURES.save()


if __name__ == "__main__":
    main()
