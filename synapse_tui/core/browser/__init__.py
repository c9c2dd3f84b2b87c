"""The browser's session, headless: what the Textual browser drives and paints.

`session` (the `Browser`: its installed state, its workers' turns, the list, the marks),
`state` (the frozen values a worker hands the main thread), `turns` (the order workers
take), `loading` (what a load, reload, as-of or rescore computes), `triage` (what a
triage move computes) and `reads` (what the views ask and nothing changes: explanations,
neighbours, searches).
"""

from synapse_tui.core.browser.session import CLOCK_STEP, Browser
from synapse_tui.core.browser.state import Loaded, Rows, Search, State, TriageResult, View
from synapse_tui.core.browser.turns import Turns

__all__ = ["CLOCK_STEP", "Browser", "Loaded", "Rows", "Search", "State", "TriageResult", "Turns", "View"]
