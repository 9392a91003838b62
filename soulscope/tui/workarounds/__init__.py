"""Where the dashboard works around Textual: each workaround in one place, with why, the Textual
version it was measured on, and when to remove it. ``tests/tui/test_workarounds.py`` fails when
a private name one of them relies on disappears from Textual, so an upgrade says what to look at.

Measured on Textual 8.2.8 (December 2026); pyproject pins Textual to that minor range.

- ``key_order.KeyOrder`` (through ``SoulscopeApp.on_event``): keys typed in one burst are handled
  in the order typed, each by whatever has the focus once the keys before it are done. Textual
  hands a key to the widget focused when it arrives, so ``/deb`` lost letters to the agent list
  and ``j/`` lost its ``j``. Remove when Textual queues keys behind focus changes itself.
- ``heap.Heap``: the cyclic collector's full passes are kept off the keys (``gc.freeze`` after
  each full pass, a rebase when the heap doubles): they walked every object of the dashboard,
  15-75 ms inside a keypress. Not Textual's doing but the process's; remove if Python's
  collector becomes incremental (3.14's was reverted) or Textual manages the collector.
- ``scrolling.set_virtual_size`` / ``SteadyBars``: a scroll view's content size is set without a
  layout of the whole screen (private ``ScrollView._scroll_update``), and scrollbars are not
  repainted when a layout changed none of a view's sizes. Every agent switch, diff step and filter
  keystroke laid out the screen (12-55 ms). Remove when setting ``virtual_size`` stops laying
  out the screen where no scrollbar comes or goes.
- ``soulscope.tui.widgets.agent_list`` overrides the private ``Input._watch_value`` for the same
  reason (the filter box's first keystroke laid out the screen, 40-55 ms at 10,000 agents).
"""
