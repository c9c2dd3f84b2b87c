"""The Footer, with the keys help lists but the Footer leaves out (`show=False`, so 80
columns keep the essentials) added back as the width allows, most useful first.

After each layout the footer measures the cells its keys leave free and, when that lets
more (or fewer) of `extras` in, composes itself again with them: at 80 columns none fit,
at 120 most, at 200 all.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

GAP = 1  # cells between two keys


class KeysFooter(Footer):
    """`extras`: the ids of hidden bindings to show when they fit, in order."""

    def __init__(self, extras: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._wanted = extras
        self.shown_extras: tuple[str, ...] = ()
        self._waits = 0  # layouts waited for in a row (`_fit`)

    def _hidden(self) -> dict[str, tuple]:
        """The enabled hidden bindings of `extras` active on this screen, by id."""
        found: dict[str, tuple] = {}
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.id in self._wanted and not binding.show and enabled:
                found.setdefault(binding.id, (binding, tooltip))
        return found

    def compose(self) -> ComposeResult:
        palette = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.has_class("-command-palette"):
                palette.append(widget)  # stays last, after the extras
                continue
            yield widget
        hidden = self._hidden() if self.shown_extras else {}
        extra = [hidden[a] for a in self.shown_extras if a in hidden]
        if extra:
            self.styles.grid_size_columns = (self.styles.grid_size_columns or 0) + len(extra)
        for binding, tooltip in extra:
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                tooltip=tooltip or binding.description,
                classes="-extra",
            ).data_bind(compact=Footer.compact)
        yield from palette
        self.call_after_refresh(self._fit)  # the keys shown may have changed: fit again

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Choose the extras that fit the cells the other keys leave; recompose if that
        changes what is shown."""
        if not self.is_mounted or not self.size.width or self.screen is not self.app.screen:
            return  # under a dialog the keys are measured as they were when last in front
        if any(not child.region.width for child in self.children) and self._waits < 5:
            self._waits += 1  # composed anew and not laid out yet: measure after the layout
            self.call_after_refresh(self._fit)
            return
        self._waits = 0
        ours, palette = 0, 0
        for child in self.children:
            if child.has_class("-command-palette"):
                palette = child.outer_size.width + GAP
            elif not child.has_class("-extra"):  # the extras sit after the rest
                ours = max(ours, child.region.right - self.region.x + GAP)
        if not ours:
            return  # not laid out yet
        room = self.size.width - ours - palette
        hidden = self._hidden()
        chosen = []
        for action in self._wanted:
            if action not in hidden:
                continue
            binding, _ = hidden[action]
            need = len(self.app.get_key_display(binding)) + 1 + len(binding.description) + GAP
            if need <= room:
                chosen.append(action)
                room -= need
        if tuple(chosen) != self.shown_extras:
            self.shown_extras = tuple(chosen)
            self.refresh(recompose=True)
