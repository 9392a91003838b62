"""The footer: the keys of the focused context, in one line that a click on a key runs.

It shows what Textual's ``Footer`` shows (the shown bindings of the focused widget and the ones
above it, which come from ``soulscope/tui/actions.py``; the command palette's key on the right) but
as one widget painting one line. Textual's footer mounts a widget per key and mounts them all again
whenever focus moves, which made every tab switch pay for a layout of the screen; this one repaints
its line, and only when the keys shown change (the line of each set of keys is kept).

Each screen has its own: a dialog's shows the dialog's keys over the dashboard's. While another
screen covers its own (the command palette, a dialog), a footer shows no keys: none of them acts.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

# The palette item's left edge, as Textual's footer draws it.
BORDER = "▏"


@dataclass(frozen=True)
class FooterItem:
    """One key of the footer: the key to simulate, how it is displayed, its label and tooltip."""

    key: str
    display: str
    description: str
    tooltip: str
    enabled: bool


class KeyFooter(Widget, can_focus=False):
    """The focused context's keys; a click on one runs it, as if it were pressed."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "key-footer--key",
        "key-footer--description",
        "key-footer--hover",
        "key-footer--border",
    }
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        width: 1fr;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
    }
    KeyFooter > .key-footer--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyFooter > .key-footer--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    KeyFooter > .key-footer--hover {
        background: $block-hover-background;
    }
    KeyFooter > .key-footer--border {
        color: $foreground 20%;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[FooterItem, ...] = ()
        self.palette: FooterItem | None = None
        self._hover: FooterItem | None = None
        self._spans: list[tuple[int, int, FooterItem]] = []  # (start, end, item) as painted
        self._line: tuple[object, Strip] | None = None  # (what it was painted from, the line)
        self._covered = False  # another screen is over this one's: its keys do not act

    @property
    def covered(self) -> bool:
        """Whether a screen is over this footer's (its keys then show, and act, no more)."""
        return self._covered

    @covered.setter
    def covered(self, covered: bool) -> None:
        if covered != self._covered:
            self._covered = covered
            self.refresh()

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is not self.screen:
            return
        items: dict[str, FooterItem] = {}  # by action: several keys of one action show the first
        palette = None
        app = self.app
        for key, (_, binding, enabled, tooltip) in screen.active_bindings.items():
            if key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = FooterItem(
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    binding.tooltip or binding.description,
                    enabled,
                )
            elif binding.show and binding.action not in items:
                items[binding.action] = FooterItem(
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    tooltip or binding.description,
                    enabled,
                )
        shown = tuple(items.values())
        if shown != self.items or palette != self.palette:
            self.items, self.palette = shown, palette
            self.refresh()

    # -- painting ----------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._line = None  # a new theme: its colours

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        painted_from = (self.items, self.palette, self._hover, width, self._covered)
        if self._line is not None and self._line[0] == painted_from:
            return self._line[1]
        strip = self._paint(width)
        self._line = (painted_from, strip)
        return strip

    def _paint(self, width: int) -> Strip:
        base = self.rich_style
        key = base + self.get_component_rich_style("key-footer--key")
        description = base + self.get_component_rich_style("key-footer--description")
        hover = self.get_component_rich_style("key-footer--hover")
        border = base + self.get_component_rich_style("key-footer--border")
        blank = Style(bgcolor=base.bgcolor)  # the gaps carry the background alone

        def item_segments(item: FooterItem, key_text: str, description_text: str) -> list[Segment]:
            lit = Style(bgcolor=hover.bgcolor) if item == self._hover else Style()
            dim = Style(dim=True) if not item.enabled else Style()
            return [
                Segment(key_text, key + lit + dim),
                Segment(description_text, description + lit + dim),
            ]

        if self._covered:
            self._spans = []
            return Strip([]).crop_extend(0, width, blank)
        right: list[Segment] = []
        right_width = 0
        if self.palette is not None:
            # As Textual's footer: a thin edge, the key, its label, one space to the border.
            p = self.palette
            right = [
                Segment(BORDER, border),
                *item_segments(p, p.display, f" {p.description}"),
                Segment(" ", blank),
            ]
            right_width = sum(s.cell_length for s in right)
        room = max(width - right_width, 0)
        spans: list[tuple[int, int, FooterItem]] = []
        left: list[Segment] = []
        x = 0
        for item in self.items:
            segments = item_segments(
                item, f" {item.display} ", f"{item.description} " if item.description else ""
            )
            end = x + sum(s.cell_length for s in segments)
            spans.append((x, min(end, room), item))
            left.extend(segments)
            x = end
            if x >= room:
                break
        line = Strip(left).crop_extend(0, room, blank)
        if right:
            spans.append((room, width, self.palette))
            line = Strip.join([line, Strip(right)]).crop(0, width)
        self._spans = spans
        return line

    # -- the mouse ---------------------------------------------------------------------------
    def _item_at(self, x: int) -> FooterItem | None:
        return next((item for start, end, item in self._spans if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        item = self._item_at(event.x)
        if item != self._hover:
            self._hover = item
            self.tooltip = item.tooltip if item is not None else None
            self.refresh()

    def on_leave(self) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        item = self._item_at(event.x)
        if item is None:
            return
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()


def cover_footers(screen: Screen, covered: bool) -> None:
    """Another screen went over ``screen`` (True) or left it (False): its footers say so."""
    for footer in screen.query(KeyFooter):
        footer.covered = covered
