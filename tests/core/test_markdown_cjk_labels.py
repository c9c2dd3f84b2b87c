"""Labels written in Chinese and Japanese (markdown_memory.py `label`): a lead-in ending in the
full-width colon `：` before a list, code or a table (`技术栈：`, `**主要功能**：`) names what
follows and is not a fact, as `**Next Steps:**` is; a longer line ending in one says
something and stays a fact. And a bullet's label before `：` is its key when suggesting
what replaced it (suggest_text.py), as before `:`."""

from __future__ import annotations

from synapse_tui.core.ingest.adapters import markdown
from synapse_tui.core.review.suggest import Item, ReplacedFinder
from tests.core.new_sources_files import write

# a memory bank's activeContext.md as Chinese-speaking users keep one (Cline's layout)
ACTIVE_CONTEXT = """# 当前上下文

## 当前工作重点
- 完成图表组件的暗色模式
- 修复登录页跳转到首页的问题

## 最近变更
- 2026-01-15：迁移到 Vite 构建
- 建立项目基础文档：
  - projectbrief.md
  - techContext.md

技术栈：
- React 18
- TypeScript 5

**主要功能**：
- 实时图表
- 数据导出为CSV

**构建命令**：

```bash
pnpm build
```

下一步计划：

| 任务 | 负责人 |
| --- | --- |
| 暗色模式 | 张三 |

计算器需要读取两个CSV文件并合并结果：
- conferences.csv

**当前状态**：

所有测试都已通过。
"""

# and a Japanese techContext.md
TECH_CONTEXT = """# 技術コンテキスト

主な技術：
- Next.js 14
- Prisma

よくあるエラー：

```sh
npm ERR! peer dep
```

**開発環境**：
- Node.js 20 以上
"""


def test_cjk_labels_before_a_list_code_or_a_table_are_not_facts(tmp_path):
    write(tmp_path / "bank", "activeContext.md", ACTIVE_CONTEXT)
    write(tmp_path / "bank", "techContext.md", TECH_CONTEXT)
    snap = markdown.read(tmp_path / "bank")
    texts = [f.text for f in snap.facts]
    for lead_in in (
        "技术栈：",
        "**主要功能**：",
        "**构建命令**：",
        "下一步计划：",
        "主な技術：",
        "よくあるエラー：",
        "**開発環境**：",
    ):
        assert lead_in not in texts
    assert "7 label lines not read as facts" in snap.left_out
    # what the labels name, and what says something, are facts
    assert {"React 18", "实时图表", "Next.js 14", "Node.js 20 以上"} <= set(texts)
    assert "计算器需要读取两个CSV文件并合并结果：" in texts  # a long line ending in `：` says something
    assert "**当前状态**：" in texts  # followed by a paragraph: a fact, as `**Status:**` is
    assert "所有测试都已通过。" in texts
    assert any(t.startswith("2026-01-15：迁移到 Vite 构建") for t in texts)  # a bullet is never a label


def test_a_bullets_label_before_a_full_width_colon_is_its_key():
    old = Item("a", "**构建命令**：`npm run build`", 1.0, "AGENTS.md", ("开发流程",))
    new = Item("b", "**构建命令**：`pnpm build`（或 `./scripts/build.sh`）", 2.0, "AGENTS.md", ("开发流程",))
    (s,) = ReplacedFinder.build([old, new]).suggestions()
    assert (s.fact, s.other) == ("a", "b") and "the same label '构建命令'" in s.why
    other = Item("c", "**测试命令**：`pnpm test`（或 `./scripts/test.sh`）", 2.0, "AGENTS.md", ("开发流程",))
    assert [(x.fact, x.other) for x in ReplacedFinder.build([old, other]).suggestions()] == []
