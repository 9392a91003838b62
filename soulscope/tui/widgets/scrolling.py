"""Setting a scroll view's content size without a layout of the whole screen."""

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
    """Whether ``view``'s scrollbars are the same at content size ``new`` as at ``old``."""
    region = view.scrollable_content_region
    return bool(old.height) and (new.height > region.height, new.width > region.width) == (
        old.height > region.height,
        old.width > region.width,
    )
