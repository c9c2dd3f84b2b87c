"""Code fences read as CommonMark reads them (markdown_memory.py `Code`), by the product's
Markdown reader and by the corpus builder alike (benchmarks/build_real_corpus.py
`parse_blocks`): a fence indented under a nested bullet is that item's code (firebase/genkit's
`py/GEMINI.md` kept a `    ```python` under `  * **Example**:`; both readers took its
`# comment` for a heading and paired every later fence off by one, dropping the prose after
it as code and storing the code as facts). Code is never a fact, in a bullet or at the
margin; a fence ends where CommonMark ends it (its own character, at least as long, nothing
after; or its list item's end), and a line indented four columns at the margin is no fence."""

from __future__ import annotations

import sys
from pathlib import Path

from synapse_tui.core.ingest.adapters import markdown
from synapse_tui.core.ingest.adapters import markdown_memory as mm
from tests.core.new_sources_files import write

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import build_real_corpus as builder  # noqa: E402

# the case as RESULTS.md gives it (fresh4, genkit)
MINIMAL = """# Title

* Top item
  * **Example**:
    ```python
    # a comment in code
    x = 1
    ```
* Next bullet

## Later

A paragraph.

```bash
echo code
```

Last paragraph.
"""

# a style guide in the shape of genkit's GEMINI.md (written here): nested policy bullets, an
# example fenced four columns in under a nested bullet, then sections with fences two
# columns in under bullets and at the margin
STYLE_GUIDE = """# Python guidelines

## Checks

* **Run the checks**: Run `./bin/check` from the repository root before a commit.
* **Warnings**: Do not silence a type checker's warning without a reason.
  * **Fix it first**: Rework the code so the warning goes away.
  * **Say why**: Leave a comment naming the error code.
  * **Example**:
    ```python
    # checker: ignore[bad-argument] - the field is renamed on load
    value = settings.get('name')
    ```
* Keep imports at the top of each module.

## Samples

* Every sample has a `run.sh` that starts the server once:

  ```bash
  # start the server, then watch the sources
  exec serve --watch src/
  ```

* **Inputs**: Give each flow's input a default value.

  **Wrong** (no default shown):

  ```python
  # the default is lost
  def flow(prompt: str) -> str: ...
  ```

## Licensing

Put the license header at the top of every file.

```python
# Copyright the authors
```

## Commits

Write the commit message in plain text.
"""


def product(text: str) -> list[tuple[str | None, str]]:
    fm = mm.front(mm.text_of(text))
    return [(b.section, b.text) for b in mm.blocks(fm.body, fm.offset)]


def built(text: str) -> list[tuple[str | None, str]]:
    return [(b.section, b.text) for b in builder.parse_blocks(text)]


def test_a_fence_under_a_nested_bullet_is_code_and_later_fences_pair(tmp_path):
    write(tmp_path / "notes", "GEMINI.md", MINIMAL)
    facts = [(f.provenance["x-markdown-section"], f.text) for f in markdown.read(tmp_path / "notes").facts]
    assert facts == [
        ("Title", "Top item\n* **Example**:"),
        ("Title", "Next bullet"),
        ("Later", "A paragraph."),
        ("Later", "Last paragraph."),
    ]  # no heading made of the code's comment, no code as a fact, no prose lost
    assert product(MINIMAL) == built(MINIMAL)


def test_a_style_guide_with_fences_in_bullets_keeps_its_prose_and_leaves_out_its_code():
    got = product(STYLE_GUIDE)
    assert got == built(STYLE_GUIDE)
    texts = [text for _, text in got]
    assert not any(
        word in text
        for text in texts
        for word in ("checker:", "settings.get", "exec serve", "def flow", "Copyright")
    )
    assert {section for section, _ in got} == {"Checks", "Samples", "Licensing", "Commits"}
    assert ("Checks", "Keep imports at the top of each module.") in got
    assert any(t.startswith("**Inputs**: Give each flow's input a default value.") for t in texts)
    assert ("Licensing", "Put the license header at the top of every file.") in got
    assert ("Commits", "Write the commit message in plain text.") in got
    # the fence ends the bullet's text, as a fence two columns in always did
    assert ("Checks", texts[1]) in got and texts[1].endswith("* **Example**:")


CASES = {
    # a fence indented one to three columns at the margin is a fence
    "indented fence": ("Intro.\n\n   ```\n   # not a heading\n   ```\n\nAfter.\n", ["Intro.", "After."]),
    # four columns at the margin: indented code, not a fence; the fence after it pairs
    "four columns": (
        "Intro.\n\n    ```\n\nAfter.\n\n```\n# a comment\n```\n\nLast.\n",
        ["Intro.", "After.", "Last."],
    ),
    # a tilde fence holds backticks; only tildes close it
    "tilde fence": ("~~~markdown\n```\n# inside\n~~~\n\nAfter.\n", ["After."]),
    # a closing fence shorter than the opening one does not close it
    "shorter close": ("````\n```\n# inside\n```\n````\n\nAfter.\n", ["After."]),
    # nor does one with an info string after it
    "close with info": ("```\n```python\n# inside\n```\n\nAfter.\n", ["After."]),
    # a backtick in a backtick fence's info string: a code span, not a fence
    "code span": (
        "``` run `make` ```\n\nAfter.\n\n```\n# code\n```\n\nLast.\n",
        ["``` run `make` ```", "After.", "Last."],
    ),
    # an ordered item's content starts past `10.` and two spaces: five columns
    "ordered item": (
        "10.  Build it:\n     ```sh\n     # the command\n     make\n     ```\n11.  Ship it.\n\nAfter.\n",
        ["Build it:", "Ship it.", "After."],
    ),
    # a fence left open ends with its list item
    "item ends": ("- One\n  ```\n  # code\n- Two\n\nAfter.\n", ["One", "Two", "After."]),
    # a line carrying on a paragraph lazily keeps its list item open for the fence after it
    "lazy line": (
        "- a\n  - b said\nthis lazily\n    ```\n    # code\n    ```\n- c\n",
        ["a\n- b said", "this lazily", "c"],  # the lazy line a paragraph of its own, as before
    ),
}


def test_fences_close_as_commonmark_closes_them_in_both_readers():
    for name, (text, want) in CASES.items():
        got = [t for _, t in product(text)]
        assert got == want, name
        assert built(text) == product(text), name


def test_an_import_in_code_under_a_bullet_is_not_followed():
    for text in (
        "- Example:\n    ```\n    @docs/example.md\n    ```\n\n@AGENTS.md\n",
        "- Example:\n  - nested\n    ```\n    @docs/example.md\n    ```\n\n@AGENTS.md\n",
    ):
        assert mm.imports(text) == ["AGENTS.md"]
