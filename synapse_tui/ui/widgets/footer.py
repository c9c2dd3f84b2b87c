"""The Footer, with the keys help lists but the Footer leaves out (`show=False`, so 80
columns keep the essentials) added back as the width allows, most useful first.

After each layout the footer measures the cells its keys leave free and, when that lets
more (or fewer) of `extras` in, composes itself again with them: at 80 columns none fit,
at 120 most, at 200 all. Extras of one binding group (`⇧↑⇧↓ scroll`) come and go as one
and read as the Footer reads a group: the keys, then the group's name.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup

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

    def _units(self, hidden: dict[str, tuple], ids: tuple[str, ...]) -> list[list[tuple]]:
        """`ids` of `hidden` in order, those of one binding group (next to each other in
        `extras`) as one unit: [(binding, tooltip), ...] each."""
        units: list[list[tuple]] = []
        for action in ids:
            if action not in hidden:
                continue
            binding, tooltip = hidden[action]
            group = binding.group
            if units and group is not None and units[-1][0][0].group is group:
                units[-1].append((binding, tooltip))
            else:
                units.append([(binding, tooltip)])
        return units

    def _need(self, unit: list[tuple]) -> int:
        """The cells a unit takes, its gap after it included."""
        keys = sum(len(self.app.get_key_display(b)) for b, _ in unit)
        if len(unit) > 1:
            return keys + 1 + len(unit[0][0].group.description) + GAP
        return keys + 1 + len(unit[0][0].description) + GAP

    def compose(self) -> ComposeResult:
        palette = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.has_class("-command-palette"):
                palette.append(widget)  # stays last, after the extras
                continue
            yield widget
        hidden = self._hidden() if self.shown_extras else {}
        units = self._units(hidden, self.shown_extras)
        if units:
            cells = sum(1 if len(unit) == 1 else 2 for unit in units)  # a group: keys, then its name
            self.styles.grid_size_columns = (self.styles.grid_size_columns or 0) + cells
        for unit in units:
            if len(unit) == 1:
                binding, tooltip = unit[0]
                yield self._key(binding, tooltip, binding.description, "-extra")
                continue
            with KeyGroup(classes="-extra -compact" if unit[0][0].group.compact else "-extra"):
                for binding, tooltip in unit:
                    yield self._key(binding, tooltip, "", "-grouped")
            yield FooterLabel(unit[0][0].group.description, classes="-extra")
        yield from palette
        self.call_after_refresh(self._fit)  # the keys shown may have changed: fit again

    def _key(self, binding: Any, tooltip: str, description: str, classes: str) -> FooterKey:
        return FooterKey(
            binding.key,
            self.app.get_key_display(binding),
            description,
            binding.action,
            tooltip=tooltip or binding.description,
            classes=classes,
        ).data_bind(compact=Footer.compact)

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
        chosen: list[str] = []
        for unit in self._units(self._hidden(), self._wanted):
            need = self._need(unit)
            if need <= room:
                chosen += [binding.id for binding, _ in unit]
                room -= need
        if tuple(chosen) != self.shown_extras:
            self.shown_extras = tuple(chosen)
            self.refresh(recompose=True)
