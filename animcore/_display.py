"""What Jupyter shows for animcore's objects: short HTML summaries (a table of
a few rows, never every key or joint) and a small inline SVG of an easing.
Plain strings only: nothing here imports matplotlib or the rest of animcore."""
from __future__ import annotations

import html

import numpy as np

#: the most names a summary lists before it says how many more there are
MAX_NAMES = 8


def names_preview(names, limit: int = MAX_NAMES) -> str:
    """The first ``limit`` names, then "... and N more"."""
    names = [str(n) for n in names]
    shown = ", ".join(names[:limit])
    return shown + (f", ... and {len(names) - limit} more" if len(names) > limit else "")


def html_table(title: str, rows) -> str:
    """A titled two-column table of (label, value) rows, every value escaped."""
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(str(label))}</th>"
                   f"<td style='text-align:left'>{html.escape(str(value))}</td></tr>"
                   for label, value in rows)
    return f"<table><caption><b>{html.escape(title)}</b></caption>{body}</table>"


def svg_graph(u: np.ndarray, s: np.ndarray, *, width: int = 160, height: int = 100) -> str:
    """A line graph of s(u) for u in [0, 1] as inline SVG, with the unit
    square drawn so that overshoot above 1 or below 0 shows."""
    lo, hi = min(0.0, float(np.min(s))), max(1.0, float(np.max(s)))
    pad = 6

    def x(v):
        return pad + v * (width - 2 * pad)

    def y(v):
        return height - pad - (v - lo) / (hi - lo) * (height - 2 * pad)

    points = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in zip(u, s))
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}'>"
            f"<rect x='{x(0):.1f}' y='{y(1):.1f}' width='{x(1) - x(0):.1f}' "
            f"height='{y(0) - y(1):.1f}' fill='none' stroke='#bbb'/>"
            f"<polyline points='{points}' fill='none' stroke='#1f77b4' stroke-width='2'/></svg>")
