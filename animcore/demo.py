"""`python -m animcore demo`: each domain's reference scenario, the decisive
figures animcore computes, and what the naive (wrong) method gives instead."""
from __future__ import annotations

from .curves import Curve
from .easing import CubicBezier, ease
from .hermite import hermite


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


def curves_lines() -> list[str]:
    theta0 = [0.0, 60.0, 60.0, 0.0]
    linear = Curve([0, 1, 2, 3], theta0, interpolation="linear")
    smooth = Curve([0, 1, 2, 3], theta0)
    jump = linear.key_slopes().jump
    peak = smooth.overshoot()
    # Uneven spacing 1/1/2: the legacy uniform Catmull-Rom kinks at t = 2,
    # the time-aware one does not.
    legacy = Curve([0, 1, 2, 4], theta0, tangents="catmull_rom_uniform").key_slopes()
    aware = Curve([0, 1, 2, 4], theta0).key_slopes()
    return [
        f"curve keys 0,60,60,0 at t=0..3: linear x(0.5)={_fmt(linear(0.5))}, slope jumps "
        f"{_fmt(abs(jump[0]))} and {_fmt(abs(jump[1]))} deg/s at t=1, 2 | Catmull-Rom: "
        f"jumps 0, hold peak {_fmt(peak.high[1])} at t={_fmt(peak.time_high[1])} "
        f"(overshoot {_fmt(peak.overshoot[1])} = (b-a)/8)",
        f"curve spacing 1/1/2 at t=2: uniform Catmull-Rom left {_fmt(legacy.left[1])} "
        f"right {_fmt(legacy.right[1])} jump {_fmt(legacy.jump[1])} deg/s | time-aware: "
        f"left {_fmt(aware.left[1])} right {_fmt(aware.right[1])} jump {_fmt(aware.jump[1])}",
    ]


def easing_lines() -> list[str]:
    u = [0.25, 0.5, 0.75]
    rate = ease("smoothstep", u, derivative=True)
    s = ease("smoothstep", u)
    css = CubicBezier.keyword("ease")
    # The naive reading of cubic-bezier samples y at the curve parameter t = u
    # instead of solving x(t) = u first.
    t = 0.5
    naive = 3 * (1 - t) ** 2 * t * css.y1 + 3 * (1 - t) * t * t * css.y2 + t**3
    return [
        f"smoothstep rate 6u(1-u) at u=0.25/0.5/0.75: {'/'.join(_fmt(r) for r in rate)} "
        f"(0 at both keys: per-segment easing brakes at every key); s={'/'.join(_fmt(x) for x in s)}, "
        f"same pose as linear only at u=0.5 | linear rate: 1/1/1",
        f"CSS ease(0.5)={float(css(0.5)):.9f} (x(t)=u solved to 1e-12) | "
        f"y at t=u without the solve: {_fmt(naive)}",
    ]


def gltf_lines() -> list[str]:
    from . import gltf

    blink = {c.name: c for c in gltf.load_sample()}["blink"]
    channel = blink.channels[0]
    t0, t1 = (float(x) for x in channel.times[:2])
    # glTF Appendix C: key 0 value 0 with out-tangent 6/s, key 1 value 1 with in-tangent 0,
    # over td = 0.15 s. Halfway, the tangents enter the Hermite basis times td.
    right = channel.sample((t0 + t1) / 2)[0]
    b0 = float(channel.output[2, 0])
    naive = 0.5 + 0.125 * b0  # h00 = h01 = 1/2, h10 = 1/8, tangent not scaled by td
    return [
        f"glTF CUBICSPLINE td={t1 - t0:g}s v=(0,1) out-tangent {b0:g}/s: w(mid)="
        f"{_fmt(right)} | tangent not scaled by td: w(mid)={_fmt(naive)} "
        f"(past the key value 1)",
    ]


# One entry per domain, in the order the demo prints them.
SECTIONS = [
    ("Hermite segments with per-second velocities", hermite_lines),
    ("Keyframe curves: slope jumps, hold overshoot, uneven spacing", curves_lines),
    ("Easing: time remaps, not path changes", easing_lines),
    ("glTF import: cubic-spline tangents are per second", gltf_lines),
]


def run(write=print) -> None:
    for title, lines in SECTIONS:
        write(f"== {title}")
        for line in lines():
            write(line)
        write("")
