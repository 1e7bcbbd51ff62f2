"""Results compared side by side, drawn: a grouped bar chart as SVG (no plotting library needed), a group per
category, a bar per agent, and optional marks (a published figure per category) drawn across each group."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

COLOURS = ("#2f6fb0", "#e0822d", "#4c9a4c", "#b04a4a", "#7a5fb0", "#8c8c8c")
WIDTH, HEIGHT, LEFT, TOP, BOTTOM = 760, 360, 48, 40, 70


def bar_chart(
    title: str,
    groups: Mapping[str, Mapping[str, float]],
    marks: Mapping[str, float] | None = None,
    mark_label: str = "",
    width: int = WIDTH,
) -> str:
    """``groups``: category -> agent -> share right (0..1); ``marks``: category -> a share drawn as a dashed line."""
    agents = list(dict.fromkeys(a for shares in groups.values() for a in shares))
    plot_w, plot_h = width - LEFT - 16, HEIGHT - TOP - BOTTOM
    group_w = plot_w / max(len(groups), 1)
    bar_w = group_w * 0.8 / max(len(agents), 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{HEIGHT}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
    ]
    for tick in range(0, 101, 20):
        y = TOP + plot_h * (1 - tick / 100)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}%</text>')
    for g, (category, shares) in enumerate(groups.items()):
        x0 = LEFT + g * group_w + group_w * 0.1
        for a, agent in enumerate(agents):
            if agent not in shares:
                continue
            h = plot_h * max(0.0, min(1.0, shares[agent]))
            x, y = x0 + a * bar_w, TOP + plot_h - h
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w * 0.92:.1f}" height="{h:.1f}" fill="{COLOURS[a % len(COLOURS)]}"/>')
            parts.append(f'<text x="{x + bar_w * 0.46:.1f}" y="{y - 3:.1f}" text-anchor="middle" font-size="9">{shares[agent]:.0%}</text>')
        if marks and category in marks:
            y = TOP + plot_h * (1 - marks[category])
            parts.append(
                f'<line x1="{x0 - 4:.1f}" y1="{y:.1f}" x2="{x0 + group_w * 0.8 + 4:.1f}" y2="{y:.1f}" stroke="black" stroke-dasharray="4 3"/>'
            )
        parts.append(f'<text x="{x0 + group_w * 0.4:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{escape(category)}</text>')
    legend = [(agent, COLOURS[a % len(COLOURS)]) for a, agent in enumerate(agents)]
    x = LEFT
    for agent, colour in legend:
        parts.append(f'<rect x="{x}" y="{HEIGHT - 30}" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text x="{x + 16}" y="{HEIGHT - 20}">{escape(agent)}</text>')
        x += 24 + 7 * len(agent)
    if marks:
        parts.append(f'<line x1="{x}" y1="{HEIGHT - 24}" x2="{x + 20}" y2="{HEIGHT - 24}" stroke="black" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{x + 24}" y="{HEIGHT - 20}">{escape(mark_label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
