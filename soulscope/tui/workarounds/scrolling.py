"""Scroll views that leave the screen's layout and their scrollbars alone when nothing changed:
setting a content size without a layout of the whole screen, and a layout that changed none of a
view's sizes without repainting its scrollbars."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Set ``view.virtual_size``; the screen's layout runs only when a scrollbar appears or goes.

    ``virtual_size`` is a layout reactive: setting it lays the whole screen out again. A new size
    changes the view's own width or height only when a scrollbar comes or goes; otherwise updating
    the scrollbars and repainting the view is enough, which keeps switching agents, stepping
    through diffs and filtering 10,000 agents cheap.
    """
    old = view.virtual_size
    if size == old:
        return
    if bars_stay(view, old, size):
        view.set_reactive(Widget.virtual_size, size)
        view._scroll_update(size)
        view.refresh()
    else:
        view.virtual_size = size


def bars_stay(view: Widget, old: Size, new: Size) -> bool:
    """Whether ``view``'s scrollbars are the same at content size ``new`` as at ``old`` (a bar
    its style always shows, or never does, stays whatever the size: the diff view's vertical one
    while steps alternate diffs shorter and longer than the view)."""
    region = view.scrollable_content_region
    styles = view.styles

    def bars(size: Size) -> tuple[bool, bool]:
        return (
            styles.overflow_y == "scroll"
            or (styles.overflow_y == "auto" and size.height > region.height),
            styles.overflow_x == "scroll"
            or (styles.overflow_x == "auto" and size.width > region.width),
        )

    return bool(old.height) and bars(new) == bars(old)


class SteadyBars:
    """For a ``ScrollView`` subclass (listed before it): its scrollbars repaint when its sizes change.

    Textual's ``ScrollView`` compares the container size the layout gives it with its own (its size
    less the scrollbars' gutter), which always differ, so every layout of the screen (each tab
    switch) updated and repainted the scrollbars of every scroll view shown, line by line.
    """

    _bars_sized: tuple[Size, Size, Size, Size] | None = None

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        sized = (size, virtual_size, container_size, self.virtual_size)  # type: ignore[attr-defined]
        if sized == self._bars_sized:
            return self._container_size != container_size  # type: ignore[attr-defined]
        resized = super()._size_updated(size, virtual_size, container_size, layout)  # type: ignore[misc]
        self._bars_sized = (size, virtual_size, container_size, self.virtual_size)  # type: ignore[attr-defined]
        return resized
