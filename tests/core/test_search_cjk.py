"""Searching Chinese, Japanese and Korean (store/cjk.py): a CJK substring finds every fact
holding it, wherever it sits in a run written without spaces, through the browser's search,
`score --where` and MCP `search`, on a file and on a server; and a store made before the
CJK index still finds them, read-only (a scan of the text) or migrated (its index filled)."""

from __future__ import annotations

import sqlite3

import pytest

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.browser import Browser
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.schema import SCHEMA_VERSION
from tests.helpers import run, write_jsonl

NOW = "2026-12-01T00:00:00Z"
# a Japanese project memory as an agent keeps one: チャート begins a run, ends one, sits in
# the middle of one, beside Latin letters, and is absent from the rest
JAPANESE = [
    "チャートの色はブランドガイドに合わせる",
    "売上チャートは週次で更新する",
    "ダッシュボードに円グラフと棒チャートを並べる",
    "Chart.jsでチャートを描画している",
    "折れ線チャート",
    "ユーザーはチャート画面の読み込みが遅いと報告した",
    "チャートライブラリをRechartsに移行済み",
    "APIのレスポンスはキャッシュに一時間保持する",
    "テストはVitestで実行する",
    "デプロイはmainブランチへのマージで自動実行",
    "ガントチャート表示は次のリリースで対応",
    "フローチャートをMermaidで書く方針",
    "管理画面のチャート凡例は右側に表示",
    "ログインはOAuthのみ対応",
]
CHINESE = [
    "技术栈：React和TypeScript",
    "使用React组件构建图表页面",
    "图表组件需要支持暗色模式",
    "数据库迁移脚本放在scripts目录",
    "用户反馈图表加载太慢",
    "下一步计划：优化组件渲染性能",
]
KOREAN = [
    "검색 기능은 전문 검색으로 구현했다",
    "사용자검색기록은 30일 동안 보관한다",
    "차트 색상은 브랜드 가이드를 따른다",
]
ENGLISH = ["payments api deploys on Fridays", "the chart legend sits on the right"]
TEXTS = JAPANESE + CHINESE + KOREAN + ENGLISH
# a term, and the facts holding it (found by Python's `in`, case folded: what a user expects)
CJK_TERMS = ["チャート", "ャー", "画面", "凡例", "组件", "图表", "图", "검색", "색", "React组件"]
# a Latin word inside a CJK run (one unicode61 token with it) is found too, once indexed
TERMS = [*CJK_TERMS, "react"]


def holding(term: str) -> set[str]:
    return {f"c{i:02d}" for i, t in enumerate(TEXTS) if term.casefold() in t.casefold()}


def fact_list() -> list[dict]:
    return [{"id": f"c{i:02d}", "text": t, "created_at": "2026-11-01T00:00:00Z"} for i, t in enumerate(TEXTS)]


def filled(location, tmp_path):
    with Store.open(location, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "c.jsonl", fact_list())), "c")
    return location


@pytest.fixture
def db(new_store, tmp_path):
    return filled(new_store("cjk"), tmp_path)


def found(store: Store, query: str) -> set[str]:
    memory = Memory(store, Config(), parse_time(NOW))
    return {memory.ids[p] for p in fq.run(memory, query)}


def test_a_cjk_substring_finds_every_fact_holding_it(db):
    assert len(holding("チャート")) == 10  # before, 2 of them: the runs beginning with it
    with Store.open(db, readonly=True) as store:
        for term in TERMS:
            assert found(store, term) == holding(term), term


def test_every_word_of_a_cjk_query_ranks_first_and_latin_words_are_unchanged(db):
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, Config(), parse_time(NOW))
        first = [memory.ids[p] for p in fq.run(memory, "チャート 週次")]
        assert first[0] == "c01"  # the one fact holding both
        assert set(first) == holding("チャート") | holding("週次")
        assert found(store, "payments") == {"c23"}
        # words still match from their start: `Chart.jsで...` and the English one, not `Recharts`
        assert found(store, "chart") == {"c03", "c24"}


def test_mcp_search_and_score_where_find_them(db):
    with Store.open(db, readonly=True) as store:
        recall = Recall(store, Config(), Clock(parse_time(NOW)))
        got = {r["id"] for r in recall.search("チャート", 50)["results"]}
    assert got == holding("チャート")
    out = run("score", db, "--where", "组件", "--json", "--now", NOW).output
    assert {line.split('"id": "')[1][:3] for line in out.splitlines() if '"id": "' in line} == holding("组件")


def test_the_browsers_search_finds_them(tmp_path):
    db = filled(tmp_path / "b.db", tmp_path)
    browser = Browser(Store.open(db), Config(), Clock(parse_time(NOW)))
    browser.install(browser.load())
    try:
        result = browser.search("검색")
        assert {browser.memory.ids[p] for p in result.positions} == holding("검색")
    finally:
        browser.store.close()


def test_facts_appended_later_are_found_and_kept_rows_follow(db, tmp_path):
    with Store.open(db) as store:
        assert found(store, "チャート") == holding("チャート")  # the term's rows kept now
        more = [{"id": "n00", "text": "新しいチャート設定を追加", "created_at": "2026-11-02T00:00:00Z"}]
        import_facts(store, parse_file(write_jsonl(tmp_path / "n.jsonl", more)), "n")
        assert found(store, "チャート") == holding("チャート") | {"n00"}
        assert found(store, "設定") == {"n00"}


def as_made_before(path) -> None:
    """The store as the build before the CJK index left it: schema 6, no such table."""
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE facts_fts_cjk")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm007_cjk_words'")
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()


def test_a_store_made_before_the_cjk_index_finds_them_read_only_and_once_migrated(tmp_path):
    db = filled(tmp_path / "old.db", tmp_path)
    as_made_before(db)
    with Store.open(db, readonly=True) as store:  # read as it is: the text scanned
        for term in CJK_TERMS:
            assert found(store, term) == holding(term), term
    with Store.open(db) as store:  # opened for writing: migrated, its index filled
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store._conn.execute("SELECT count(*) FROM facts_fts_cjk_docsize").fetchone()[0] == 23
        for term in TERMS:
            assert found(store, term) == holding(term), term


def test_a_copy_into_a_file_finds_them(db, tmp_path):
    """`copy` writes a file's word indexes itself (postgres/transfer.py), from a server or a file."""
    run("copy", db, tmp_path / "copy.db")
    with Store.open(tmp_path / "copy.db", readonly=True) as store:
        for term in TERMS:
            assert found(store, term) == holding(term), term


def test_the_every_word_search_finds_cjk_words(db):
    """`Store.search` (every word required: the ranking's `all` mode) reads CJK alike."""
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, Config(), parse_time(NOW))
        assert {memory.ids[p] for p in store.search("チャート 週次")[0]} == {"c01"}
        assert {memory.ids[p] for p in store.search("react 组件")[0]} == {"c15"}
        assert {memory.ids[p] for p in store.search("图表")[0]} == holding("图表")
        assert {memory.ids[p] for p in store.search("payments api")[0]} == {"c23"}


def test_a_reader_open_before_the_first_cjk_fact_finds_it(new_store, tmp_path):
    """A browser or an agent's server keeps a store open while another process imports:
    the first CJK facts, appended after its searches, are found by its next one."""
    location = new_store("late")
    english = [
        {"id": "e0", "text": "React components render the chart", "created_at": "2026-11-01T00:00:00Z"}
    ]
    with Store.open(location, create=True) as s:
        import_facts(s, parse_file(write_jsonl(tmp_path / "e.jsonl", english)), "e")
    with Store.open(location, readonly=True) as reader:
        assert found(reader, "react") == {"e0"} and found(reader, "组件") == set()
        with Store.open(location) as writer:
            cjk = [{"id": "z0", "text": "使用React组件构建图表页面", "created_at": "2026-11-02T00:00:00Z"}]
            import_facts(writer, parse_file(write_jsonl(tmp_path / "z.jsonl", cjk)), "z")
        assert found(reader, "组件") == {"z0"}
        assert found(reader, "react") == {"e0", "z0"}


def test_a_question_written_without_spaces_finds_the_facts_sharing_its_words(db):
    """An agent asks in Japanese or Chinese as it is written, without spaces: no fact holds
    the question whole, so its pairs of characters are its words (relevance_words.py)."""
    with Store.open(db, readonly=True) as store:
        recall = Recall(store, Config(), Clock(parse_time(NOW)))
        first = [r["id"] for r in recall.search("チャートの色はどうする？", 3)["results"]]
        assert first[0] == "c00"  # チャートの色はブランドガイドに合わせる
        chinese = [r["id"] for r in recall.search("图表加载为什么很慢？", 3)["results"]]
        assert chinese[0] == "c18"  # 用户反馈图表加载太慢
        memory = Memory(store, Config(), parse_time(NOW))
        # typed in the search box, a phrase: the facts holding it whole come first
        order = [memory.ids[p] for p in fq.run(memory, "ダッシュボードに円グラフ")]
        assert order[0] == "c02" and len(order) > 1


def test_a_long_cjk_query_stays_within_the_terms_a_search_takes():
    from synapse_tui.core.review.relevance_words import MAX_TERMS, fts_terms

    run = "".join(chr(0x4E00 + i) for i in range(200))  # one run of 200 characters, 199 pairs
    terms = fts_terms([run, "payments"])
    assert len(terms) == MAX_TERMS and terms[:3] == [run + "*", "payment*", run[:2]]
