"""Build the real-memory corpus (issue 38) from fetched public repositories.

    python benchmarks/build_real_corpus.py [--corpus DIR] [--only OWNER/NAME ...]
        [--repos OWNER/NAME=SPLIT ...]

The repositories listed in REPOS below are read from the bare git directories the `fetch`
tool leaves (/work/.mirror/OWNER+NAME/repo); `--only` rebuilds those named (in the corpus's
manifest, or listed) and keeps every other manifest entry. `--repos` builds the repositories it names instead of REPOS (a
split of unseen repositories, built into its own --corpus the same way). The corpus goes
to $SYNAPSE_CORPUS (default /work/corpus); its layout is /work/corpus/FORMAT.md.

Memory files: PATHSPECS below (CLAUDE.md, AGENTS.md and the like at any depth, rules
folders (Cursor, Cline, Roo Code, Kilo Code, Windsurf, Kiro steering), OpenHands' repo.md,
.claude/ docs, and the memory-bank folders memory-bank/, cline_docs/,
memory_bank/ and .memory-bank/ at any depth), less _NOT_MEMORY (prompts, node_modules/,
vendor/).

Snapshots are data, never code: they are read with git plumbing only (`log --raw -p`,
`cat-file --batch`), in an environment without system or global configuration, with
`core.attributesFile=/dev/null`, `--no-textconv --no-ext-diff` and `-a` (a repository's
own attributes cannot pick a diff driver or hide a file as binary); nothing is checked out
from them. The replay repositories are written with `git fast-import` into folders this
script creates, so no configuration of theirs applies either.

History. The first-parent chain of the snapshot's HEAD, oldest first; a merge counts as
its change against its first parent (the way the change landed). Renames are a removal
and an addition (`--no-renames`).

Truth (from git's own diff, `-U0`). A file's blocks are its top-level bullets (with their
nested lines) and paragraphs, under the nearest heading; front matter (at the top, or
pasted mid-file between two `---`), fenced and indented code (as CommonMark reads them in
list items too: _Fences), HTML comments (an inline one cut out of its line), tables, lone tags, marker-only lines and blocks that only import other files
(`@AGENTS.md`) are not blocks (junk_kind, parse_blocks), as the product's Markdown reader
reads them (markdown_memory.blocks). A block's identity is
its text with every run of white space made one space, so a version that only re-wraps a
line is no new version. At each commit, the blocks whose text is new and those whose text
is gone are grouped by the hunk of git's diff they fall in (or nearest); within a hunk, a
gone block and a new one whose words or characters are at least SIMILAR alike are an edit
(best first, one to one); the other gone blocks are deletions and the other new blocks are
new versions. Each edit (old, new, commit) and each deletion (version, commit) is written
and counted once, however many copies of the block the file held.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from difflib import SequenceMatcher
from pathlib import Path

MIRROR = Path("/work/.mirror")
SIMILAR = 0.5  # word Dice or character ratio for "the same bullet, edited"

# (repository, split). Held-out: about a third, chosen before any importer was run on them.
REPOS: list[tuple[str, str]] = [
    ("coleam00/Archon", "dev"),
    ("steveyegge/beads", "dev"),
    ("humanlayer/humanlayer", "dev"),
    ("AnotherSava/bga-assistant", "dev"),
    ("pydantic/pydantic-ai", "dev"),
    ("basicmachines-co/basic-memory", "dev"),
    ("amhuppert/my-ai-resources", "dev"),
    ("openai/openai-agents-python", "dev"),
    ("modelcontextprotocol/python-sdk", "dev"),
    ("wollfoo/claude-code-setup", "dev"),
    ("charmbracelet/crush", "dev"),
    ("ruvnet/claude-flow", "dev"),
    ("yonghyeon-dev/New_Weave", "dev"),
    ("4444J99/application-pipeline", "heldout"),
    ("ADTrauts/Vssyl", "heldout"),
    ("anthropics/claude-code-action", "heldout"),
    ("Charlie85270/Dorothy", "heldout"),
    ("letta-ai/letta-code", "heldout"),
    ("0xsyncroot/moonx-farm", "heldout"),
    ("sguys99/claude-code-mastery", "heldout"),
    ("getzep/graphiti", "heldout"),
    # Widened 2026-12-06 (issue 39): the held-out split above is dominated by two
    # memory-bank repositories (Cline/Cursor memory-bank/ folders) and dev had none. Picked by
    # commits touching memory-bank/**/*.md or .clinerules on HEAD's first parent, one author
    # each, none by ADTrauts or 0xsyncroot; memory files written by hand or by an agent, not
    # generated copies (space-cadet/memory-bank skipped: regenerated from a database).
    # Dev, memory-bank style (zh, en, en, pt/en, en):
    ("7Spade/Twilight-Hub", "dev"),
    ("0xBigBoss/vibe-station", "dev"),
    ("darthinvader/daggerheart-tools", "dev"),
    ("arbgjr/smart-alarm", "dev"),
    ("eurora-labs/eurora", "dev"),
    # Held-out, fresh: chosen 2026-12-06 before any finder, importer or benchmark ran on
    # them (only this builder, to count commits and edits). Two classic memory banks
    # (fr/en and en), one memory bank mixed with CLAUDE.md/AGENTS.md/.claude docs, and one
    # AGENTS.md history of 59 commits.
    ("YanBerdin/rougecardinalcompany", "heldout"),
    ("Active-Apparel-Group/data-orchestration", "heldout"),
    ("matthew-plusprogramming/monorepo", "heldout"),
    ("badlogic/pi-mono", "heldout"),
    # Fresh, 2026-12-06 (evening): repositories fetched for the importers' walkthrough (their
    # folders imported, never their suggestions read), with ten or more edits. No rule was
    # set on them; each rule since is run on them once, to check, beside held out.
    ("0x4007/travel-stipend", "fresh"),
    ("0xmichalis/nftbk", "fresh"),
    ("1amageek/Buffett", "fresh"),
    ("270aldo/ngx.agents", "fresh"),
    ("31103/MedFeeBot", "fresh"),
    ("7Spade/ng-alain-master", "fresh"),
    ("jan3dev/a1echos", "fresh"),
    ("scarecr0w12/ctrl-alt-play-panel", "fresh"),
]

# Memory files, as git pathspecs (glob magic: `**/` matches the root too, and hidden folders).
# Memory-bank folders: memory-bank/ (Cline's custom instructions today), cline_docs/ (the
# same instructions' first folder), memory_bank/ and .memory-bank/ (variants in the same
# layout, hundreds of public repositories each).
PATHSPECS = [
    f":(glob){p}"
    for p in (
        "**/CLAUDE.md",
        "**/CLAUDE.local.md",
        "**/AGENTS.md",
        "**/AGENT.md",
        "**/GEMINI.md",
        "**/CRUSH.md",
        "**/.cursorrules",
        "**/.windsurfrules",
        "**/.clinerules",
        "**/.clinerules/**/*.md",
        "**/.cursor/rules/**/*.mdc",
        "**/.cursor/rules/**/*.md",
        "**/.roo/rules*/**/*.md",  # Roo Code: .roo/rules/ and .roo/rules-{mode}/, Cline's folder
        "**/.roorules",  # its single-file fallback (and .roorules-{mode})
        "**/.roorules-*",
        "**/.windsurf/rules/**/*.md",  # Windsurf's rules folder, after .windsurfrules
        "**/.kiro/steering/**/*.md",  # Kiro's steering files (product.md, tech.md, ...)
        "**/.roo/rules*/**/*.txt",  # Roo Code reads a rules folder's text files too (its docs: .md, .txt)
        "**/.clinerules-*",  # Roo Code's other fallback for a mode, after .roorules-{mode}
        "**/.kilocode/rules*/**/*.md",  # Kilo Code (Roo Code's fork): .kilocode/rules/, rules-{mode}/
        "**/.kilocode/rules*/**/*.txt",
        "**/.kilocoderules",  # and its single files (.kilocoderules-{mode} too)
        "**/.kilocoderules-*",
        "**/.openhands/microagents/repo.md",  # OpenHands' always-loaded repository microagent
        "**/.claude/**/*.md",
        "**/memory-bank/**/*.md",
        "**/memory_bank/**/*.md",  # also .copilot/memory_bank/ (airs-memspec's multi-project bank)
        "**/.memory-bank/**/*.md",
        "**/cline_docs/**/*.md",  # Cline's memory bank before it moved to memory-bank/
        "**/.github/copilot-instructions.md",
        "**/.github/instructions/**/*.md",
        "**/MEMORY.md",
    )
]
# Under .claude/, prompts for commands, agents and skills are not memory; nor are skills
# kept in any hidden folder (.agents/skills/...).
_NOT_MEMORY = re.compile(
    r"(^|/)(node_modules|vendor)/|(^|/)\.claude/(commands|agents|skills|output-styles|hooks)/|(^|/)\.[^/]+/skills/"
)

_ENV_GIT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
    "HOME": "/nonexistent",
    "GIT_ATTR_NOSYSTEM": "1",
}
_SAFE = ["-c", "core.attributesFile=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false",
         "-c", "diff.external=", "--no-pager"]  # fmt: skip


def git(git_dir: Path | None, *args: str, data: bytes | None = None, cwd: Path | None = None) -> bytes:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **_ENV_GIT}
    cmd = ["git", *_SAFE]
    if git_dir is not None:
        cmd += [f"--git-dir={git_dir}"]
    out = subprocess.run([*cmd, *args], input=data, capture_output=True, env=env, cwd=cwd, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])}: {out.stderr.decode('utf-8', 'replace').strip()[:300]}")
    return out.stdout


# ---------------------------------------------------------------- reading the history


@dataclass
class Change:
    path: str
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str
    hunks: list[tuple[int, int, int, int]] = field(
        default_factory=list
    )  # (old start, old n, new start, new n)


@dataclass
class Commit:
    sha: str
    author: str
    email: str
    at: int
    tz: str
    committer: str
    cemail: str
    cat: int
    ctz: str
    changes: list[Change] = field(default_factory=list)


_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def history(git_dir: Path) -> list[Commit]:
    """Commits of HEAD's first-parent chain touching a memory file, oldest first, with their
    raw changes and -U0 hunks, from one `git log`."""
    out = git(
        git_dir, "log", "--first-parent", "--reverse", "--no-renames", "--no-textconv", "--no-ext-diff", "-a",
        "--raw", "-p", "-U0", "--no-abbrev", "--format=%x01%H%x00%an%x00%ae%x00%at%x00%ai%x00%cn%x00%ce%x00%ct%x00%ci",
        "HEAD", "--", *PATHSPECS,
    )  # fmt: skip
    commits: list[Commit] = []
    for chunk in out.split(b"\x01")[1:]:
        head, _, rest = chunk.partition(b"\n")
        f = head.decode("utf-8", "replace").split("\x00")
        c = Commit(
            f[0],
            f[1],
            f[2],
            int(f[3]),
            f[4].rsplit(" ", 1)[-1],
            f[5],
            f[6],
            int(f[7]),
            f[8].rsplit(" ", 1)[-1],
        )
        by_path: dict[str, Change] = {}
        current: Change | None = None
        for line in rest.split(b"\n"):
            if line.startswith(b":"):
                meta, _, path = line.partition(b"\t")
                m = meta[1:].decode().split()
                p = _unquote(path)
                by_path[p] = Change(p, m[0], m[1], m[2], m[3])
            elif line.startswith(b"diff --git "):
                current = None
            elif line.startswith(b"+++ "):
                name = line[4:]
                p = _unquote(name)
                p = p[2:] if p.startswith("b/") else p
                current = by_path.get(p)
            elif line.startswith(b"--- ") and current is None:
                name = _unquote(line[4:])
                if name.startswith("a/"):
                    current = by_path.get(name[2:])
            elif (h := _HUNK.match(line)) and current is not None:
                os_, on, ns, nn = h.groups()
                current.hunks.append(
                    (int(os_), int(on) if on is not None else 1, int(ns), int(nn) if nn is not None else 1)
                )
        c.changes = [ch for p, ch in by_path.items() if not _NOT_MEMORY.search(p)]
        if c.changes:
            commits.append(c)
    return commits


def _unquote(raw: bytes) -> str:
    s = raw.decode("utf-8", "surrogateescape").rstrip("\t")
    if s.startswith('"') and s.endswith('"'):
        s = (
            s[1:-1]
            .encode("latin-1", "backslashreplace")
            .decode("unicode_escape")
            .encode("latin-1")
            .decode("utf-8", "replace")
        )
    return s


def blobs(git_dir: Path, shas: list[str]) -> dict[str, bytes]:
    """The content of each blob, through one `cat-file --batch`."""
    wanted = sorted({s for s in shas if s and set(s) != {"0"}})
    if not wanted:
        return {}
    data = git(git_dir, "cat-file", "--batch", data="".join(f"{s}\n" for s in wanted).encode())
    found, pos = {}, 0
    for sha in wanted:
        end = data.index(b"\n", pos)
        header = data[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        found[sha] = data[pos : pos + size]
        pos += size + 1
    return found


# ---------------------------------------------------------------- blocks and junk

_BULLET = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.*?)[ \t#]*$")
# CommonMark's code fences: an opening one is 3+ backticks (no backtick in the info string
# after them) or 3+ tildes; a closing one is the same character, as many or more, alone
_FENCE_OPEN = re.compile(r"^(?:(`{3,})[^`]*|(~{3,}).*)$")
_FENCE_CLOSE = re.compile(r"^(`{3,}|~{3,})[ \t]*$")
_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)")
_STARTS_BLOCK = re.compile(r"^(?:#{1,6}(?:[ \t]|$)|>|```|~~~|(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$))")
_RULE = re.compile(r"^[ ]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_TAG_LINE = re.compile(r"^\s*(?:</?[A-Za-z][\w:.-]*(?:\s+[^<>]*)?/?>\s*)+$")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_INDENTED_HEADING = re.compile(r"^( +)#{1,6}[ \t]+\S")
# the colon may be CJK's full-width one: "技术栈：", "**主要功能**："
_LABEL = re.compile(r"^(?:\*\*[^*\n]{1,60}\*\*[:：]?|[^\s*`#>|][^\n:：*`]{0,40}[:：])$")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
_CODE_SPAN = re.compile(r"(`+).*?\1")
_INLINE_COMMENT = re.compile(r"<!--.*?-->")
# a pointer to another file: an import (`@AGENTS.md`, `@~/x.md`) or Kiro's `#[[file:x.yaml]]`
_POINTER = re.compile(r"@(?:~/|\.{1,2}/|/)?[\w.\-/]+\.[A-Za-z0-9]+|#\[\[file:[^\]\s]+\]\]")
# front matter's lines: `key: value`, a value's indented lines, a list item under a key
_FRONT_KEY = re.compile(r"^[A-Za-z_][\w.-]*[ \t]*:(?:[ \t].*)?$")
_FRONT_MORE = re.compile(r"^(?:[ \t]+\S|-[ \t])")
_FRONT_END = re.compile(r"^(?:---|\.\.\.)[ \t]*$")


def is_label(text: str) -> bool:
    """A one-line paragraph that only names what follows it: `**Next Steps:**`, `**Params**`,
    or a plain line of at most four words ending in ':' (`Common errors:`, `技术栈：`); each run
    of CJK counts a word per two characters, rounded up (`새 컴포넌트 추가 시:` is five), as the
    product's reader counts (core/base/cjk.py `word_count`)."""
    t = text.strip()
    if not _LABEL.match(t):
        return False
    bare = t.rstrip(":：")
    words = len(_CJK_RUN.sub(" ", bare).split()) + sum(-(-len(run) // 2) for run in _CJK_RUN.findall(bare))
    return t.startswith("**") or words <= 4


def norm(text: str) -> str:
    """A version's identity: white space runs made one space, ends stripped."""
    return " ".join(text.split())


def junk_kind(text: str) -> str | None:
    """Why a block's text is not a fact, or None: the one definition the builder and the
    benchmark share.

    - "html comment": the text is, or is part of, an HTML comment (`<!-- ... -->`, a lone
      `-->`, a line inside an open comment);
    - "table": any line is a table row (`| a | b |`) or a delimiter row;
    - "prompt tag": every line is an XML-like tag alone (`<guidelines>`, `</rules>`);
    - "marker": no letter or digit at all (`---`, `***`, `:`, an emoji bullet alone);
    - "import": only pointers to other files, which the agent reads as themselves
      (`@AGENTS.md`, `@docs/a.md @docs/b.md`, Kiro's `#[[file:api/openapi.yaml]]`), as the
      product's reader skips them (markdown_memory.junk).

    Inside a code span (`` `<!-- marker -->` ``) a comment's marks are text. An arrow
    (`a --> b`) is text too.
    """
    t = text.strip()
    if not t:
        return "marker"
    bare = _CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), t)
    if bare.startswith("<!--") or bare.endswith("-->") or "<!--" in bare:
        return "html comment"
    lines = [ln for ln in t.split("\n") if ln.strip()]
    if any(_TABLE_LINE.match(ln) for ln in lines):
        return "table"
    if all(_TAG_LINE.match(ln) for ln in lines):
        return "prompt tag"
    if not any(ch.isalnum() for ch in t):
        return "marker"
    if all(_POINTER.fullmatch(word) for word in t.split()):
        return "import"
    return None


@dataclass
class Block:
    start: int  # first line, 1-based
    end: int  # last line
    section: str | None
    text: str


_FRONT = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


def _outdented(line: str, indent: int, in_bullet: bool, fences: _Fences) -> tuple[str, int]:
    """A line read one indent out inside a bullet that holds a note (parse_blocks), and the
    indent from here on: 0 once a line is less indented; more at a heading nested in a bullet
    (not one in the bullet's indented code: `      # install`)."""
    if indent:
        if line.startswith(" " * indent):
            line = line[indent:]
        elif line.strip():
            indent = 0
    if in_bullet and (nested := _INDENTED_HEADING.match(line)) and not fences.indented(line):
        indent += len(nested.group(1))
        line = line[len(nested.group(1)) :]
    return line, indent


def _columns(line: str) -> tuple[int, int]:
    """(columns of the line's leading white space, a tab to the next multiple of 4; characters)."""
    col = 0
    for i, ch in enumerate(line):
        if ch not in " \t":
            return col, i
        col = col + 1 if ch == " " else col + 4 - col % 4
    return col, len(line)


class _Fences:
    """Code as CommonMark reads it inside list items (parse_blocks), fenced and indented. The
    list items open are kept as their content columns (the marker, then 1-4 columns; 1 when
    more or when the item's first line is empty; a tab to the next multiple of 4). A
    non-blank line less indented than an item's column ends that item, unless it carries on
    a paragraph (lazy). A fence opens 0-3 columns past the innermost item's column (the
    margin's, 0, when none). It ends at a line of its character, no shorter, 0-3 columns
    past that column and nothing after, or when its item ends, or at the end.
    Indented code (spec 4.4): 4 or more columns past that column, never right after a
    paragraph's line (it cannot interrupt a paragraph: such a line carries the paragraph on);
    blank lines inside it are its own; an item whose marker is followed by 5 or more columns
    starts with it (content column: one past the marker)."""

    def __init__(self) -> None:
        self.items: list[int] = []
        self.open: tuple[str, int, int] | None = None  # character, length, column
        self.paragraph = False  # the last line read carries on a paragraph

    def restart(self) -> None:
        self.items, self.paragraph = [], False

    def indented(self, line: str) -> bool:
        """Whether the line is indented code, the state left as it is (`kind` reads it)."""
        col, at = _columns(line)
        if self.open is not None or at == len(line) or self.paragraph:
            return False
        return col - next((c for c in reversed(self.items) if c <= col), 0) >= 4

    def kind(self, line: str) -> str | None:
        """A fence's lines: "open", "close" or "code"; "indented" for indented code; None
        for the others."""
        col, at = _columns(line)
        body = line[at:]
        if self.open is not None:
            char, length, base = self.open
            if not body or col >= base:
                m = _FENCE_CLOSE.match(body) if col <= base + 3 else None
                if m and m.group(1)[0] == char and len(m.group(1)) >= length:
                    self.open = None
                    return "close"
                return "code"
            self.open = None  # its list item ended
        if not body:
            self.paragraph = False
            return None
        lazy = self.paragraph and not _STARTS_BLOCK.match(body)
        while not lazy and self.items and self.items[-1] > col:
            self.items.pop()
        base = self.items[-1] if self.items else 0
        if col > base + 3:
            return None if self.paragraph else "indented"  # a paragraph's line, or code
        if m := _FENCE_OPEN.match(body):
            run = m.group(1) or m.group(2)
            self.open, self.paragraph = (run[0], len(run), base), False
            return "open"
        self.paragraph = not (_HEADING.match(body) or _RULE.match(body))
        if (marker := _MARKER.match(body)) and not _RULE.match(body):
            rest = body[marker.end() :]
            past = col + marker.end()
            gap = _columns(" " * past + rest)[0] - past if rest.strip() else 1
            self.items.append(past + (1 if gap > 4 else gap))
            self.paragraph = self.paragraph and bool(rest.strip()) and gap <= 4
            if gap > 4:
                return "indented"
        return None


def _masked(span: re.Match[str]) -> str:
    return "x" * len(span.group(0))


def _comments_out(line: str, comment: bool, fence: bool) -> tuple[str | None, bool, bool]:
    """(what of the line is read, None when nothing; whether a comment is left open;
    whether a comment opened or closed on it left nothing of it: a paragraph ends there, and
    any block when a comment stays open). What follows a comment's end is read."""
    if comment:
        if "-->" not in line:
            return None, True, False
        line = line.split("-->", 1)[1]
        if not line.strip():
            return None, False, False
    if fence or "<!--" not in _CODE_SPAN.sub(_masked, line):
        return line, False, False
    line, comment = _uncommented(line)
    return (None, comment, True) if not line.strip() else (line, comment, False)


def _uncommented(line: str) -> tuple[str, bool]:
    """The line with its HTML comments cut out, and whether one is left open (the rest of
    the line from its `<!--` on is cut too). A comment's marks inside a code span
    (`` `<!-- marker -->` ``) are text, not a comment."""
    bare = _CODE_SPAN.sub(_masked, line)
    kept, at = [], 0
    for m in _INLINE_COMMENT.finditer(bare):
        kept.append(line[at : m.start()])
        at = m.end()
    if (opened := bare.find("<!--", at)) != -1:
        return "".join(kept) + line[at:opened], True
    return "".join(kept) + line[at:], False


def _front_matter_end(lines: list[str], n: int) -> int | None:
    """The line number of the closing `---` when the `---` at line `n` (1-based) opens front
    matter: `key: value` lines (a value's indented lines and list items with them), no blank
    line, up to a `---` or `...`. A file made of several files (Task Master's
    `.windsurfrules`: each Cursor rule copied whole; a note pasted into CLAUDE.md) holds one
    in its middle: what it says is the copied file's metadata, not memory, as at the top."""
    if n >= len(lines) or not _FRONT_KEY.match(lines[n]):
        return None
    for i in range(n + 1, len(lines)):
        if _FRONT_END.match(lines[i]):
            return i + 1
        if not (_FRONT_KEY.match(lines[i]) or _FRONT_MORE.match(lines[i])):
            return None
    return None


def parse_blocks(text: str) -> list[Block]:
    """Top-level bullets (nested lines with them) and paragraphs, under their heading; front
    matter (at the top, or between two `---` in a file made of several: _front_matter_end),
    code (fenced or indented: _Fences), HTML comments (an inline one is cut out of its line, the rest of the line
    read) and junk (junk_kind) are not blocks, nor is a label
    (is_label) right before a list, a code fence or a table: it names them. A bullet whose
    nested lines hold a heading holds a note: from that heading on, its lines are read one
    indent out, until a line less indented."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    skip = 0
    if m := _FRONT.match(text):
        skip = m.group(0).count("\n")
    out: list[Block] = []
    cur: list[str] | None = None
    kind, start, last, section, comment, indent = "", 0, 0, None, False, 0
    fences = _Fences()
    label: Block | None = None  # a label paragraph, kept or not by what follows it

    def close() -> None:
        nonlocal cur, label
        if cur is not None:
            body = "\n".join(cur).strip()
            if body and junk_kind(body) is None:
                block = Block(start, last, section, body)
                if kind == "paragraph" and is_label(body):
                    settle(False)
                    label = block
                else:
                    out.append(block)
        cur = None

    def settle(names_what_follows: bool) -> None:
        nonlocal label
        if label is not None and not names_what_follows:
            out.append(label)
        label = None

    for n, line in enumerate(lines, start=1):
        if n <= skip:
            continue
        inside = fences.indented(line[indent:] if indent and line.startswith(" " * indent) else line)
        rest, comment, ends = _comments_out(line, comment, fences.open is not None or inside)
        if rest is None:
            if ends and (comment or kind == "paragraph"):
                close()
            continue
        line = rest
        was = indent
        line, indent = _outdented(line, indent, kind == "bullet" and cur is not None, fences)
        if indent != was:  # a note kept under a bullet starts or ends: read as a page
            fences.restart()
        if (code := fences.kind(line)) in ("open", "indented"):  # code ends the block before it
            close()
            settle(True)
        if code is not None:
            continue
        if heading := _HEADING.match(line):
            close()
            settle(False)
            section = heading.group(1) or None
        elif _TABLE_LINE.match(line):
            close()  # a table row: never part of a block
            settle(True)
        elif _RULE.match(line) or _TAG_LINE.match(line):
            close()  # a rule, a lone tag: never part of a block
            settle(False)
            if line.strip() == "---":
                skip = _front_matter_end(lines, n) or skip
        elif bullet := _BULLET.match(line):
            close()
            settle(True)
            cur, kind, start, last = [bullet.group(1)], "bullet", n, n
        elif not line.strip():
            if kind == "paragraph":
                close()
            elif cur is not None:
                cur.append("")
        elif cur is not None and (kind == "paragraph" or line[:1] in (" ", "\t")):
            cur.append(line.strip())
            last = n
        else:
            close()
            settle(False)
            cur, kind, start, last = [line.strip()], "paragraph", n, n
    close()
    settle(False)
    return out


_WORD = re.compile(r"\w+")


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def similarity(a: str, b: str, wa: frozenset[str] | None = None, wb: frozenset[str] | None = None) -> float:
    """The Dice coefficient of the two texts' words; when that is short of SIMILAR but the
    texts share some words, the ratio of their characters (difflib) if higher."""
    wa = words(a) if wa is None else wa
    wb = words(b) if wb is None else wb
    size = len(wa) + len(wb)
    dice = 2 * len(wa & wb) / size if size else 0.0
    if dice >= SIMILAR or dice < SIMILAR / 2:
        return dice
    sm = SequenceMatcher(None, a.lower(), b.lower(), autojunk=False)
    if sm.real_quick_ratio() < SIMILAR or sm.quick_ratio() < SIMILAR:
        return dice
    return max(dice, sm.ratio())


def pairs(removed: list[str], added: list[str]) -> list[tuple[int, int]]:
    """(removed index, added index) of the edits among one hunk's gone and new texts: the
    most similar first, one to one, at least SIMILAR. Only texts sharing a word are compared
    (an index of the added texts' words), so a rewritten file of thousands of lines is fast."""
    wr, wa = [words(t) for t in removed], [words(t) for t in added]
    index: dict[str, list[int]] = {}
    for j, ws in enumerate(wa):
        for w in ws:
            index.setdefault(w, []).append(j)
    scored = []
    for i, ws in enumerate(wr):
        candidates = set()
        for w in ws:
            candidates.update(index.get(w, ()))
        for j in candidates:
            s = similarity(removed[i], added[j], ws, wa[j])
            if s >= SIMILAR:
                scored.append((-s, i, j))
    out, used_r, used_a = [], set(), set()
    for _, i, j in sorted(scored):
        if i not in used_r and j not in used_a:
            used_r.add(i)
            used_a.add(j)
            out.append((i, j))
    return out


# ---------------------------------------------------------------- truth


@dataclass
class Truth:
    name: str
    lines: list[dict] = field(default_factory=list)
    ids: dict[tuple[str, str], str] = field(default_factory=dict)  # (file, norm text) -> version id
    seen: set[tuple[str, ...]] = field(default_factory=set)  # edit and delete lines written, as values
    versions: int = 0
    edits: int = 0
    deletes: int = 0

    def version(self, file: str, block: Block, when: str, commit: Commit) -> str:
        key = (file, norm(block.text))
        if key not in self.ids:
            self.versions += 1
            vid = f"{self.name}:{self.versions}"
            self.ids[key] = vid
            self.lines.append(
                {"kind": "version", "id": vid, "file": file, "section": block.section, "text": block.text,
                 "created_at": when, "commit": commit.sha, "author": f"{commit.author} <{commit.email}>"}
            )  # fmt: skip
        return self.ids[key]

    def edit(self, old: str, new: str, commit: Commit, when: str) -> None:
        """One line per distinct (old, new, commit): copies of a block edited alike are one edit."""
        self.edits += self._once({"kind": "edit", "old": old, "new": new, "commit": commit.sha, "at": when})

    def delete(self, vid: str, commit: Commit, when: str) -> None:
        """One line per distinct (version, commit): copies of a block deleted are one deletion."""
        self.deletes += self._once({"kind": "delete", "id": vid, "commit": commit.sha, "at": when})

    def _once(self, line: dict) -> bool:
        """Write `line` unless an identical one was written (the instant is the commit's)."""
        key = tuple(line.values())
        if key in self.seen:
            return False
        self.seen.add(key)
        self.lines.append(line)
        return True


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _hunk_of(block: Block, hunks: list[tuple[int, int]]) -> int:
    """Index of the hunk (start, count) a block falls in, else the nearest."""
    best, dist = 0, None
    for i, (s, n) in enumerate(hunks):
        lo, hi = s, s + max(n, 1) - 1
        d = 0 if block.start <= hi and block.end >= lo else min(abs(block.start - hi), abs(block.end - lo))
        if dist is None or d < dist:
            best, dist = i, d
    return best


def diff_file(truth: Truth, file: str, old: str | None, new: str | None, ch: Change, c: Commit) -> None:
    when = _iso(c.at)
    old_b = parse_blocks(old) if old is not None else []
    new_b = parse_blocks(new) if new is not None else []
    old_n = Counter(norm(b.text) for b in old_b)
    new_n = Counter(norm(b.text) for b in new_b)
    gone, came = [], []
    left = Counter(new_n)
    for b in old_b:
        k = norm(b.text)
        if left[k] > 0:
            left[k] -= 1
        else:
            gone.append(b)
    left = Counter(old_n)
    for b in new_b:
        k = norm(b.text)
        if left[k] > 0:
            left[k] -= 1
        else:
            came.append(b)
    for b in new_b:  # every text present is a version (the first one a file has, too)
        truth.version(file, b, when, c)
    hunks = ch.hunks or [(1, 10**9, 1, 10**9)]
    groups: dict[int, tuple[list[Block], list[Block]]] = {}
    for b in gone:
        groups.setdefault(_hunk_of(b, [(h[0], h[1]) for h in hunks]), ([], []))[0].append(b)
    for b in came:
        groups.setdefault(_hunk_of(b, [(h[2], h[3]) for h in hunks]), ([], []))[1].append(b)
    for removed, added in groups.values():
        used_r = set()
        for i, j in pairs([b.text for b in removed], [b.text for b in added]):
            used_r.add(i)
            o, n = truth.ids[(file, norm(removed[i].text))], truth.ids[(file, norm(added[j].text))]
            if o != n:
                truth.edit(o, n, c, when)
        for i, r in enumerate(removed):
            if i not in used_r and new_n[norm(r.text)] == 0:
                vid = truth.ids.get((file, norm(r.text)))
                if vid is not None:
                    truth.delete(vid, c, when)


# ---------------------------------------------------------------- replay


def _ident(name: str, email: str) -> str:
    clean = lambda s: re.sub(r"[<>\n]", "", s).strip()  # noqa: E731
    return f"{clean(name) or 'unknown'} <{clean(email)}>"


def build(git_dir: Path, repo: str, split: str, root: Path) -> dict:
    name = repo.replace("/", "__")
    out = root / name
    if out.exists():
        shutil.rmtree(out)
    (out / "replay").mkdir(parents=True)
    head = git(git_dir, "rev-parse", "HEAD").decode().strip()
    commits = history(git_dir)
    content = blobs(git_dir, [s for c in commits for ch in c.changes for s in (ch.old_blob, ch.new_blob)])
    truth = Truth(name)
    stream = bytearray()
    files: set[str] = set()
    text_of = lambda sha: content[sha].decode("utf-8", "replace") if sha in content else None  # noqa: E731
    for n, c in enumerate(commits, start=1):
        stream += b"commit refs/heads/main\n"
        stream += f"mark :{n}\n".encode()
        stream += f"author {_ident(c.author, c.email)} {c.at} {c.tz}\n".encode()
        stream += f"committer {_ident(c.committer, c.cemail)} {c.cat} {c.ctz}\n".encode()
        msg = f"replay of {c.sha}\n".encode()
        stream += f"data {len(msg)}\n".encode() + msg
        for ch in c.changes:
            new_blob = ch.new_blob if set(ch.new_blob) != {"0"} else None
            if new_blob is None or ch.new_mode == "000000":
                stream += f"D {ch.path}\n".encode()
            elif ch.new_mode in ("100644", "100755", "120000") and new_blob in content:
                data = content[new_blob]
                mode = "100644" if ch.new_mode == "100755" else ch.new_mode
                stream += (
                    f"M {mode} inline {ch.path}\n".encode() + f"data {len(data)}\n".encode() + data + b"\n"
                )
                files.add(ch.path)
            old = text_of(ch.old_blob) if ch.old_mode not in ("000000", "120000") else None
            new = text_of(ch.new_blob) if ch.new_mode not in ("000000", "120000") else None
            if old is not None or new is not None:
                diff_file(truth, ch.path, old, new, ch, c)
    rdir = out / "replay"
    git(None, "init", "-q", "-b", "main", str(rdir))
    if commits:
        git(rdir / ".git", "fast-import", "--quiet", "--done", data=bytes(stream) + b"done\n")
        git(rdir / ".git", "--work-tree", str(rdir), "reset", "-q", "--hard", "main", cwd=rdir)
    with (out / "truth.jsonl").open("w", encoding="utf-8") as fh:
        for line in truth.lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    with (out / "flat.jsonl").open("w", encoding="utf-8") as fh:
        for line in truth.lines:
            if line["kind"] == "version":
                fact = {"id": line["id"], "text": line["text"], "created_at": line["created_at"], "note": line["file"],
                        "provenance": {"x-corpus-commit": line["commit"], "x-corpus-author": line["author"]}}  # fmt: skip
                if line["section"]:
                    fact["entities"] = [line["section"]]
                fh.write(json.dumps(fact, ensure_ascii=False) + "\n")
    return {
        "name": name, "repo": repo, "git_dir": str(git_dir), "head": head,
        "memory_files": sorted(files), "commits": len(commits), "split": split,
        "versions": truth.versions, "edits": truth.edits, "deletes": truth.deletes,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=os.environ.get("SYNAPSE_CORPUS", "/work/corpus"))
    ap.add_argument("--only", nargs="*", default=None, help="OWNER/NAME to rebuild (the rest kept)")
    ap.add_argument(
        "--repos", nargs="+", default=None, metavar="OWNER/NAME=SPLIT", help="build these, not REPOS"
    )
    args = ap.parse_args(argv)
    repos = REPOS
    if args.repos is not None:
        if bad := [spec for spec in args.repos if not re.fullmatch(r"[^/=\s]+/[^/=\s]+=\w+", spec)]:
            ap.error(f"--repos: {bad[0]!r} is not OWNER/NAME=SPLIT")
        repos = [(spec.split("=")[0], spec.split("=")[1]) for spec in args.repos]
    root = Path(args.corpus)
    root.mkdir(parents=True, exist_ok=True)
    manifest_path = root / "manifest.json"
    old = {e["repo"]: e for e in json.loads(manifest_path.read_text())} if manifest_path.exists() else {}
    if args.only is not None:  # the corpus's own repositories (and REPOS or --repos), the rest kept
        splits = {**{r: e["split"] for r, e in old.items()}, **dict(repos)}
        if unknown := [r for r in args.only if r not in splits]:
            ap.error(f"--only: {unknown[0]} is neither in {manifest_path} nor listed (--repos)")
        repos = [(r, splits[r]) for r in [*old, *(r for r, _ in repos if r not in old)]]
    entries = []
    for repo, split in repos:
        if args.only is not None and repo not in args.only:
            if repo in old:
                entries.append(old[repo])
            continue
        git_dir = MIRROR / repo.replace("/", "+") / "repo"
        if not git_dir.is_dir():
            print(f"{repo}: not fetched ({git_dir}); skipped", file=sys.stderr)
            continue
        try:
            e = build(git_dir, repo, split, root)
        except RuntimeError as exc:
            print(f"{repo}: {exc}", file=sys.stderr)
            continue
        entries.append(e)
        print(f"{repo:40} {split:8} commits {e['commits']:4} files {len(e['memory_files']):3} "
              f"versions {e['versions']:5} edits {e['edits']:4} deletes {e['deletes']:4}")  # fmt: skip
    manifest_path.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
