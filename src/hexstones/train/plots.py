"""Line plots of training as SVG (several series on one set of axes, no plotting library)."""

from __future__ import annotations

from html import escape

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2")


def _nice(x: float) -> str:
    return f"{x:.3g}"


def series_plot(series: dict[str, tuple[list[float], list[float]]], *, title: str,
                x_label: str, y_label: str, width: int = 640, height: int = 380) -> str:
    """An SVG document: each named series ``(xs, ys)`` as a coloured line, with a legend."""
    points = [(x, y) for xs, ys in series.values() for x, y in zip(xs, ys)]
    if not points:
        raise ValueError("a plot needs at least one point")
    left, right, top, bottom = 64, 150, 40, 50
    pw, ph = width - left - right, height - top - bottom
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points), max(p[1] for p in points)
    if x0 == x1:
        x0, x1 = x0 - 1, x1 + 1
    if y0 == y1:
        y0, y1 = y0 - 1, y1 + 1
    pad = (y1 - y0) * 0.05
    y0, y1 = y0 - pad, y1 + pad

    def px(x):
        return left + (x - x0) / (x1 - x0) * pw

    def py(y):
        return top + (y1 - y) / (y1 - y0) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left + pw / 2}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>',
           f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>']
    for k in range(5):
        y = y0 + (y1 - y0) * k / 4
        out.append(f'<line x1="{left - 4}" y1="{py(y):.1f}" x2="{left}" y2="{py(y):.1f}" stroke="#444"/>')
        out.append(f'<text x="{left - 7}" y="{py(y) + 4:.1f}" text-anchor="end">{_nice(y)}</text>')
        x = x0 + (x1 - x0) * k / 4
        out.append(f'<line x1="{px(x):.1f}" y1="{top + ph}" x2="{px(x):.1f}" y2="{top + ph + 4}" stroke="#444"/>')
        out.append(f'<text x="{px(x):.1f}" y="{top + ph + 18}" text-anchor="middle">{_nice(x)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 10}" text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text x="16" y="{top + ph / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {top + ph / 2})">{escape(y_label)}</text>')
    for k, (name, (xs, ys)) in enumerate(series.items()):
        colour = COLOURS[k % len(COLOURS)]
        if xs:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
            if len(xs) == 1:
                out.append(f'<circle cx="{px(xs[0]):.1f}" cy="{py(ys[0]):.1f}" r="3" fill="{colour}"/>')
        ly = top + 14 + 18 * k
        out.append(f'<line x1="{left + pw + 10}" y1="{ly - 4}" x2="{left + pw + 30}" y2="{ly - 4}" '
                   f'stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{left + pw + 35}" y="{ly}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
