"""`python -m animcore demo`: each domain's reference scenario, the decisive
figures animcore computes, and what the naive (wrong) method gives instead."""
from __future__ import annotations

import math

from .hermite import hermite
from .rootmotion import LoopTrack


def _fmt(x) -> str:
    return f"{float(x):.6g}"


def hermite_lines() -> list[str]:
    right = hermite(0.0, 10.0, 2.0, 0.0, 2.0, [0.0, 1.0])
    # The naive evaluator feeds the per-second velocity in as the tangent,
    # which is the same as a velocity divided by the duration.
    wrong = hermite(0.0, 10.0, 2.0 / 2.0, 0.0, 2.0, [0.0, 1.0])
    over = hermite(0.0, 1.0, 6.0, -6.0, 1.0, 0.5)
    return [
        f"hermite T=2 p=(0,10) v=(2,0): x(1)={_fmt(right.position[1])} "
        f"v(0)={_fmt(right.velocity[0])} v(1)={_fmt(right.velocity[1])} | "
        f"without xT: x(1)={_fmt(wrong.position[1])} v(0)={_fmt(wrong.velocity[0])}",
        f"hermite T=1 p=(0,1) v=(6,-6): x(0.5)={_fmt(over.position)} "
        f"(overshoots the end key by {_fmt(over.position - 1.0)}; the units are right, "
        f"the tangents are too large for a monotone move)",
    ]


def rootmotion_lines() -> list[str]:
    walk = LoopTrack([0.0, 0.25, 0.75, 1.0], [0.0, 0.2, 1.7, 2.0])
    cycle, phase = walk.split(-0.1)
    naive = walk.sample(0.1) - walk.sample(0.9)  # the two phases' samples subtracted
    square = LoopTrack([0.0, 1.0], [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
                       rotations=[0.0, math.pi / 2])
    home, half = square.delta(0.0, 4.0), square.delta(0.5, 2.5)
    return [
        f"rootmotion keys (0,0) (0.25,0.2) (0.75,1.7) (1,2), T=1: "
        f"Delta(0.9,1.1)={_fmt(walk.delta(0.9, 1.1))} Delta(0.9,3.1)={_fmt(walk.delta(0.9, 3.1))} "
        f"Delta(1.1,0.9)={_fmt(walk.delta(1.1, 0.9))} t=-0.1 -> k={int(cycle)} u={_fmt(phase)} | "
        f"naive phase difference: {_fmt(naive)}",
        f"rootmotion square walk (+90 deg and 1 m per cycle): delta(0,4T) moves "
        f"{_fmt(float(sum(home.translation ** 2)) ** 0.5)} m and turns "
        f"{_fmt(math.degrees(home.rotation))} deg, delta(0.5T,2.5T) turns "
        f"{_fmt(math.degrees(half.rotation))} deg | straight-line stride x4: 4 m away",
    ]


# One entry per domain, in the order the demo prints them.
SECTIONS = [
    ("Hermite segments with per-second velocities", hermite_lines),
    ("Root motion of looping clips", rootmotion_lines),
]


def run(write=print) -> None:
    for title, lines in SECTIONS:
        write(f"== {title}")
        for line in lines():
            write(line)
        write("")
