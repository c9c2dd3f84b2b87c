"""The browser's search box as a person types in it: a Japanese word lists every fact
holding it, and a note whose name has spaces is named quoted (`note:"My Notes.md"`)."""

from __future__ import annotations

from synapse_tui.ui.widgets.fact_list import FactList
from tests.helpers import run, write_jsonl
from tests.ui.helpers import SIZE, make_app, searched, settle

FACTS = [
    ("j0", "チャートの色はブランドガイドに合わせる", "My Notes.md"),
    ("j1", "売上チャートは週次で更新する", "My Notes.md"),
    ("j2", "ダッシュボードに円グラフと棒チャートを並べる", "progress.md"),
    ("j3", "Chart.jsでチャートを描画している", "progress.md"),
    ("j4", "テストはVitestで実行する", "My Notes.md"),
]


async def test_typing_a_cjk_word_or_a_quoted_note_lists_its_facts(tmp_path):
    facts = [{"id": i, "text": t, "note": n, "created_at": "2026-11-20T09:00:00Z"} for i, t, n in FACTS]
    db = tmp_path / "ja.db"
    run("import", write_jsonl(tmp_path / "ja.jsonl", facts), "--db", db)
    app = make_app(db)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("slash")
            box = app.main.query_one("#search")
            box.insert_text_at_cursor("チャート")
            await searched(pilot)
            shown = {app.browser.memory.ids[p] for p in app.main.query_one(FactList).order}
            assert shown == {"j0", "j1", "j2", "j3"}  # before: j0 alone (the run beginning with it)
            box.value = 'note:"My Notes.md"'
            await searched(pilot)
            shown = {app.browser.memory.ids[p] for p in app.main.query_one(FactList).order}
            assert shown == {"j0", "j1", "j4"}
            assert not str(app.main.query_one("#search-error").render()).strip()
    finally:
        app.store.close()
