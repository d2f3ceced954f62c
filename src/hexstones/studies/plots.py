"""A small SVG line plot with error bars: enough for win rate against komi, and no
plotting library to depend on."""

from __future__ import annotations

from html import escape


def line_plot(xs, ys, lows, highs, *, title: str, x_label: str, y_label: str,
              reference_y: float | None = 0.5, width: int = 560, height: int = 360,
              marks=None, legend: tuple[str, str] | None = None) -> str:
    """An SVG document: points (xs, ys) joined by a line, vertical bars lows..highs,
    and a dashed horizontal line at ``reference_y``. y runs from 0 to 1.
    ``marks``: a second series ``(xs, ys, lows, highs)`` drawn as unjoined squares with
    their bars; ``legend``: the two series' names."""
    if not xs or not (len(xs) == len(ys) == len(lows) == len(highs)):
        raise ValueError("a plot needs at least one point and equal-length series")
    if marks is not None and not (len(marks) == 4 and len({len(a) for a in marks}) == 1):
        raise ValueError("marks are four equal-length series: xs, ys, lows, highs")
    left, right, top, bottom = 60, 20, 40, 50
    pw, ph = width - left - right, height - top - bottom
    all_xs = list(xs) + (list(marks[0]) if marks is not None else [])
    x0, x1 = min(all_xs), max(all_xs)
    if x0 == x1:
        x0, x1 = x0 - 1, x1 + 1

    def px(x):
        return left + (x - x0) / (x1 - x0) * pw

    def py(y):
        return top + (1 - y) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>',
           f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>']
    for tick in (0, 0.25, 0.5, 0.75, 1):
        y = py(tick)
        out.append(f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left}" y2="{y:.1f}" stroke="#444"/>')
        out.append(f'<text x="{left - 7}" y="{y + 4:.1f}" text-anchor="end">{int(tick * 100)}%</text>')
    step = max(1, round((x1 - x0) / 10))
    tick = x0
    while tick <= x1:
        x = px(tick)
        out.append(f'<line x1="{x:.1f}" y1="{top + ph}" x2="{x:.1f}" y2="{top + ph + 4}" stroke="#444"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 17}" text-anchor="middle">{tick:g}</text>')
        tick += step
    out.append(f'<text x="{left + pw / 2}" y="{height - 10}" text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text transform="translate(16 {top + ph / 2}) rotate(-90)" '
               f'text-anchor="middle">{escape(y_label)}</text>')
    if reference_y is not None:
        y = py(reference_y)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" '
                   'stroke="#999" stroke-dasharray="5 4"/>')
    for x, lo, hi in zip(xs, lows, highs):
        out.append(f'<line x1="{px(x):.1f}" y1="{py(lo):.1f}" x2="{px(x):.1f}" y2="{py(hi):.1f}" '
                   'stroke="#c44" stroke-width="1.5"/>')
    points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
    out.append(f'<polyline points="{points}" fill="none" stroke="#236" stroke-width="2"/>')
    for x, y in zip(xs, ys):
        out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="#236"/>')
    if marks is not None:
        for x, y, lo, hi in zip(*marks):
            out.append(f'<line x1="{px(x):.1f}" y1="{py(lo):.1f}" x2="{px(x):.1f}" '
                       f'y2="{py(hi):.1f}" stroke="#c60" stroke-width="1.5"/>')
            out.append(f'<rect x="{px(x) - 4:.1f}" y="{py(y) - 4:.1f}" width="8" height="8" '
                       'fill="#c60"/>')
    if legend is not None:
        for i, (name, colour) in enumerate(zip(legend, ("#236", "#c60"))):
            y = top + 16 + 16 * i
            out.append(f'<rect x="{left + pw - 190}" y="{y - 8}" width="8" height="8" fill="{colour}"/>')
            out.append(f'<text x="{left + pw - 176}" y="{y}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
