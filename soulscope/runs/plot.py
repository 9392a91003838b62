"""Trends as a chart for a paper: PNG (through Pillow) or SVG (written as text), one layout.

Per term, a solid line of the agents that had used it so far and a thin one of those that used it
in each period; the first majority is a ring on the solid line, the peak a dot on the thin one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from soulscope.atomic import write_atomic
from soulscope.runs.trends import Trend

WIDTH, HEIGHT = 960, 540
LEFT, RIGHT, TOP, BOTTOM = 70, 30, 60, 70
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")
FONT = 15


class PlotError(ValueError):
    """A chart that cannot be written (an unknown suffix)."""


@dataclass(frozen=True, slots=True)
class Series:
    colour: str
    label: str
    so_far: list[tuple[float, float]]
    in_period: list[tuple[float, float]]
    majority: tuple[float, float] | None
    peak: tuple[float, float] | None


@dataclass(frozen=True, slots=True)
class Layout:
    title: str
    series: list[Series]
    x_labels: list[tuple[float, str, str]]  # x, text, alignment: start, middle or end
    y_labels: list[tuple[float, str]]


def layout(trends: Sequence[Trend], by: str, world: str) -> Layout:
    """Where every line, mark and label goes."""
    periods = sorted(
        {p.period for t in trends for p in t.periods}, key=int if by == "frame" else str
    )
    index = {p: i for i, p in enumerate(periods)}
    top = max([p.so_far for t in trends for p in t.periods] + [1])
    span = max(len(periods) - 1, 1)

    def at(period: str, value: int) -> tuple[float, float]:
        x = LEFT + (WIDTH - LEFT - RIGHT) * index[period] / span
        return x, HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * value / top

    series = []
    for k, t in enumerate(trends):
        by_period = {p.period: p for p in t.periods}
        maj, peak = by_period.get(t.first_majority or ""), by_period.get(t.peak or "")
        series.append(
            Series(
                COLOURS[k % len(COLOURS)],
                t.term.text,
                [at(p.period, p.so_far) for p in t.periods],
                [at(p.period, p.in_period) for p in t.periods],
                at(maj.period, maj.so_far) if maj else None,
                at(peak.period, peak.in_period) if peak else None,
            )
        )
    ticks = sorted({0, len(periods) // 2, len(periods) - 1}) if periods else []
    last = len(periods) - 1
    x_labels = [
        (at(periods[i], 0)[0], periods[i], "start" if i == 0 else "end" if i == last else "middle")
        for i in ticks
    ]
    y_labels = (
        [(at(periods[0], v)[1], str(v)) for v in sorted({0, top // 2, top})] if periods else []
    )
    unit = "day (UTC)" if by == "day" else "frame"
    title = f"{world}: agents using each term, by {unit} (solid: so far; thin: in that {by})"
    return Layout(title, series, x_labels, y_labels)


def write_plot(path: Path, chart: Layout) -> None:
    """Write the chart as PNG or SVG, by the file's suffix, atomically."""
    suffix = path.suffix.lower()
    if suffix == ".svg":
        write_atomic(path, svg(chart).encode("utf-8"))
    elif suffix == ".png":
        write_atomic(path, png(chart))
    else:
        raise PlotError(
            f"cannot write a chart as '{suffix or path.name}': name a .png or .svg file"
        )


def svg(chart: Layout) -> str:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'font-family="sans-serif" font-size="{FONT}">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="30">{escape(chart.title)}</text>',
        _axes_svg(),
    ]
    for x, text, align in chart.x_labels:
        out.append(
            f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 22}" text-anchor="{align}">{escape(text)}</text>'
        )
    for y, text in chart.y_labels:
        out.append(f'<text x="{LEFT - 8}" y="{y + 5:.1f}" text-anchor="end">{text}</text>')
    for k, s in enumerate(chart.series):
        out.append(_polyline(s.so_far, s.colour, 3))
        out.append(_polyline(s.in_period, s.colour, 1))
        if s.majority:
            out.append(
                f'<circle cx="{s.majority[0]:.1f}" cy="{s.majority[1]:.1f}" r="7" fill="none" stroke="{s.colour}" stroke-width="2"/>'
            )
        if s.peak:
            out.append(
                f'<circle cx="{s.peak[0]:.1f}" cy="{s.peak[1]:.1f}" r="4" fill="{s.colour}"/>'
            )
        ly = HEIGHT - 22
        lx = LEFT + 200 * k
        out.append(
            f'<line x1="{lx}" y1="{ly - 5}" x2="{lx + 24}" y2="{ly - 5}" stroke="{s.colour}" stroke-width="3"/>'
        )
        out.append(f'<text x="{lx + 30}" y="{ly}">{escape(s.label)}</text>')
    out.append("</svg>\n")
    return "\n".join(out)


def _axes_svg() -> str:
    x0, y0, x1, y1 = LEFT, HEIGHT - BOTTOM, WIDTH - RIGHT, TOP
    return (
        f'<polyline points="{x0},{y1} {x0},{y0} {x1},{y0}" fill="none" stroke="#444" '
        'stroke-width="1"/>'
    )


def _polyline(points: list[tuple[float, float]], colour: str, width: int) -> str:
    pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="{width}"/>'


def png(chart: Layout) -> bytes:
    import io

    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=FONT)
    draw.text((LEFT, 18), chart.title, fill="black", font=font)
    draw.line([(LEFT, TOP), (LEFT, HEIGHT - BOTTOM), (WIDTH - RIGHT, HEIGHT - BOTTOM)], fill="#444")
    for x, text, align in chart.x_labels:
        anchor = {"start": "lt", "end": "rt"}.get(align, "mt")
        draw.text((x, HEIGHT - BOTTOM + 8), text, fill="black", font=font, anchor=anchor)
    for y, text in chart.y_labels:
        draw.text((LEFT - 8, y), text, fill="black", font=font, anchor="rm")
    for k, s in enumerate(chart.series):
        if len(s.so_far) > 1:
            draw.line(s.so_far, fill=s.colour, width=3)
            draw.line(s.in_period, fill=s.colour, width=1)
        if s.majority:
            x, y = s.majority
            draw.ellipse([x - 7, y - 7, x + 7, y + 7], outline=s.colour, width=2)
        if s.peak:
            x, y = s.peak
            draw.ellipse([x - 4, y - 4, x + 4, y + 4], fill=s.colour)
        lx, ly = LEFT + 200 * k, HEIGHT - 27
        draw.line([(lx, ly), (lx + 24, ly)], fill=s.colour, width=3)
        draw.text((lx + 30, ly), s.label, fill="black", font=font, anchor="lm")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
