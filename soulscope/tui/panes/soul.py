"""The Soul tab: the agent's file, lightly styled, with frame stepping and a current-frame header."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult

from soulscope.soul.lookup import FrameLookup
from soulscope.soul.model import Frame, Soul
from soulscope.tui.actions import bindings
from soulscope.tui.panes.base import Pane
from soulscope.tui.widgets.soul_text import LongLines, SoulText
from soulscope.tui.widgets.status_line import StatusLine


def plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


class SoulPane(Pane):
    """Shows ``soul``; the app's ``[``/``]``, ``:`` and ``p`` keys act on it."""

    TAB_ID = "soul"
    MAIN = "#soul-text"
    BINDINGS = bindings("soul", only=["soul.context"])

    def __init__(self) -> None:
        super().__init__(id="soul-pane")
        self._frame_lines: Sequence[int] = []
        self._early: Sequence[str] | None = None  # lines shown before the soul was parsed
        self._failed = False  # this agent's file could not be read

    def compose(self) -> ComposeResult:
        yield StatusLine(id="soul-header")
        yield SoulText(id="soul-text")
        yield StatusLine(id="soul-footer")

    @property
    def view(self) -> SoulText:
        return self.query_one(SoulText)

    def watch_agent_id(self, agent_id: str | None) -> None:
        self._early = None
        self._failed = False
        self._update_header()
        self._update_footer()

    def show_failed(self) -> None:
        """This agent's file could not be read (the app said why)."""
        self._failed = True
        self._update_header()

    def show_text(self, lines: Sequence[str], long: LongLines | None = None) -> None:
        """Show a big file's lines (a list cut by ``display_lines``, or ``FileLines``; ``long``:
        its long lines) while it is parsed (the frame keys wait for the parsed soul); its
        beginning may come first, then the whole file keeps the reader's place."""
        keep_place = self._early is not None
        self._early = lines
        self.view.set_lines(lines, long, keep_place=keep_place)

    def watch_soul(self, old: Soul | None, soul: Soul | None) -> None:
        self._frame_lines = soul.frame_lines if soul else []
        top = self.view.top_line
        early, self._early = self._early, None
        # A big soul: the lines of its file, decoded as they are shown (the cache keeps them).
        shown = self.dashboard.cache.shown(self.agent_id, soul) if soul and self.agent_id else None
        if shown is None:
            self.view.set_text(soul.display_text if soul else "")
        elif shown[0] is not early:  # the lines shown while parsing stay, where the reader is
            self.view.set_lines(*shown)
        if old is not None and soul is not None and old.agent_id == soul.agent_id:
            # The same agent read again (its file grew): stay where the reader was.
            self.view.scroll_to_line(top)
        self._update_footer()
        self._update_header()

    def on_soul_text_top_line_changed(self, event: SoulText.TopLineChanged) -> None:
        event.stop()
        self._update_header()

    # -- frames ------------------------------------------------------------------------------
    def current_frame(self) -> Frame | None:
        """The frame the top line of the view belongs to (None in the header sections)."""
        soul = self.soul
        if soul is None:
            return None
        top = self.view.top_line
        i = bisect_right(self._frame_lines, top) - 1
        if i < 0:
            return None
        frame = soul.frames[i]
        return frame if top <= frame.end_line else None

    def show_line(self, line: int) -> None:
        self.view.scroll_to_line(line)
        # At once, not when the view's message comes: the text and its header in one paint.
        self._update_header()

    def show_frame(self, frame_index: int) -> None:
        """Scroll so that frame ``frame_index`` (0-based, file order) starts at the top."""
        if 0 <= frame_index < len(self._frame_lines):
            self.show_line(self._frame_lines[frame_index])

    def step_frame(self, forward: bool) -> bool:
        """Go to the next (or previous) frame; False at either end."""
        top = self.view.top_line
        if forward:
            i = bisect_right(self._frame_lines, top)
        else:
            i = bisect_left(self._frame_lines, top) - 1
        if not 0 <= i < len(self._frame_lines):
            return False
        self.show_line(self._frame_lines[i])
        return True

    def goto_frame(self, found: FrameLookup) -> Frame | None:
        """Go to the frame a lookup found (its nearest when nothing matched exactly).

        Asked again for a label that several frames share, it goes on to the next of them.
        """
        matches = found.matches
        if not matches:
            if found.nearest is not None:
                self.show_frame(found.nearest.index)
            return found.nearest
        current = self.current_frame()
        after = [f for f in matches if current is not None and f.index > current.index]
        frame = after[0] if current in matches and after else matches[0]
        self.show_frame(frame.index)
        return frame

    def action_context(self) -> None:
        """What the brain saw in the frame at the top of the view (the context view)."""
        from soulscope.tui.dialogs.context import ContextScreen

        frame = self.current_frame()
        if frame is None or self.agent_id is None:
            self.dashboard.notify("Go to a frame first: the header was given to no brain.")
            return
        self.dashboard.push_screen(ContextScreen(self.agent_id, frame.number, frame.heading))

    # -- header and footer -------------------------------------------------------------------
    def _update_header(self) -> None:
        soul = self.soul
        header = self.query_one("#soul-header", StatusLine)
        if soul is None:
            parsing = self.agent_id is not None and not self._failed
            header.show(Text(f"{self.agent_id} · parsing…" if parsing else ""))
            return
        frame = self.current_frame()
        total = len(soul.frames)
        if frame is None:
            where = f"header · {plural(total, 'frame')}" if total else "no frames"
            header.show(Text.assemble((soul.name or soul.agent_id or "", "bold"), f"  {where}"))
            return
        marks = []
        if frame.duplicate_of is not None:
            marks.append("duplicate")
        if frame.time_reversed:
            marks.append("earlier than the frame before")
        header.show(
            Text.assemble(
                (frame.heading, "bold"),
                (f"  ({frame.index + 1} of {total})", "dim"),
                (f"  {', '.join(marks)}" if marks else "", "bold"),
            )
        )

    def _update_footer(self) -> None:
        soul = self.soul
        footer = self.query_one("#soul-footer", StatusLine)
        if soul is None:
            footer.show(Text(""))
            return
        problems = len(soul.problems)
        footer.show(
            Text.assemble(
                f"{plural(self.view.line_count, 'line')} · {plural(len(soul.frames), 'frame')} · ",
                (
                    f"{plural(problems, 'problem')} (p lists them)" if problems else "no problems",
                    "bold" if problems else "",
                ),
            )
        )
