"""The command palette: every action of the browser, found by name (ctrl+p)."""

from __future__ import annotations

from collections.abc import Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider


class SynapseCommands(Provider):
    """Queues, sorts, views, as-of and triage, as palette commands (Quit, Keys and Theme
    come from Textual's own system commands: listed once)."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        from synapse_tui.ui.palette import commands_for

        return commands_for(self.app, self.screen)

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, text=title, help=help_text)
