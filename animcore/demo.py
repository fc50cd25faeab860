"""`python -m animcore demo`: each domain's reference scenario, the decisive
values animcore computes, and what the naive (wrong) method gives instead."""
from __future__ import annotations

import math

from .contact import advance_projectiles, bounce
from .curves import Curve
from .easing import CubicBezier, ease
from .hermite import hermite
from .rootmotion import LoopTrack
from .snapshot import SnapshotTimeline


def _fmt(x) -> str:
    return f"{float(x) + 0.0:.6g}"  # + 0.0: no "-0"


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
    smooth = Curve([0, 1, 2, 3], theta0, tangents="catmull_rom")
    held = Curve([0, 1, 2, 3], theta0)  # the default: Blender's auto-clamped keys
    jump = linear.key_slopes().jump
    peak = smooth.overshoot()
    # Uneven spacing 1/1/2: the legacy uniform Catmull-Rom kinks at t = 2,
    # the time-aware one does not.
    legacy = Curve([0, 1, 2, 4], theta0, tangents="catmull_rom_uniform").key_slopes()
    aware = Curve([0, 1, 2, 4], theta0, tangents="catmull_rom").key_slopes()
    return [
        f"curve keys 0,60,60,0 at t=0..3: linear x(0.5)={_fmt(linear(0.5))}, slope jumps "
        f"{_fmt(abs(jump[0]))} and {_fmt(abs(jump[1]))} deg/s at t=1, 2 | Catmull-Rom: "
        f"jumps 0, hold peak {_fmt(peak.high[1])} at t={_fmt(peak.time_high[1])} "
        f"(overshoot {_fmt(peak.overshoot[1])} = (b-a)/8)",
        f"curve keys 0,60,60,0, default tangents (Blender's auto-clamped): x(1.5)="
        f"{_fmt(held(1.5))}, largest overshoot {_fmt(held.overshoot().overshoot.max())}, slope "
        f"jumps {_fmt(abs(held.key_slopes().jump).max())} (flat at the hold's keys)",
        f"curve spacing 1/1/2 at t=2: uniform Catmull-Rom left {_fmt(legacy.left[1])} "
        f"right {_fmt(legacy.right[1])} jump {_fmt(legacy.jump[1])} deg/s | time-aware: "
        f"left {_fmt(aware.left[1])} right {_fmt(aware.right[1])} jump {_fmt(aware.jump[1])}",
    ]


def snapshot_lines() -> list[str]:
    snapshots = [(100, 0, 0.0), (102, 0, 2.0), (104, 1, 102.0), (106, 1, 104.0)]
    timeline = SnapshotTimeline()
    for tick, segment, position in snapshots:
        timeline.push(tick, segment, position)
    normal, teleport = timeline.sample(101.5), timeline.sample(103.0)
    # The naive interpolator lerps between the neighbours whatever their segment.
    naive = 2.0 + (102.0 - 2.0) * (103.0 - 102.0) / (104.0 - 102.0)
    late = timeline.push(102, 0, 50.0)
    return [
        f"snapshot (100,0,0) (102,0,2) (104,1,102) (106,1,104): tick 101.5 -> "
        f"{normal.position:.2f} {normal.mode.name} span {normal.left_tick}->{normal.right_tick}; "
        f"tick 103 -> {teleport.position:.2f} {teleport.mode.name} span "
        f"{teleport.left_tick}->{teleport.right_tick} | naive lerp: {naive:.2f} (a ghost "
        f"position the server never sent)",
        f"snapshot late tick 102 with position 50 -> {late.name}; tick 103 still gives "
        f"{timeline.sample(103.0).position:.2f}",
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


def easing_lines() -> list[str]:
    u = [0.25, 0.5, 0.75]
    rate = ease("smoothstep", u, derivative=1)
    s = ease("smoothstep", u)
    css = CubicBezier.keyword("ease")
    # The naive reading of cubic-bezier samples y at the curve parameter t = u
    # instead of solving x(t) = u first.
    t = 0.5
    naive = 3 * (1 - t) ** 2 * t * css.y1 + 3 * (1 - t) * t * t * css.y2 + t**3
    keyed = Curve([0, 1, 2, 3], [0.0, 60.0, 60.0, 0.0], interpolation="linear")
    per_segment = Curve([0, 1, 2, 3], [0.0, 60.0, 60.0, 0.0], interpolation="linear",
                        ease="smoothstep")
    whole_clip = keyed.remap_time("smoothstep")
    return [
        f"smoothstep rate 6u(1-u) at u=0.25/0.5/0.75: {'/'.join(_fmt(r) for r in rate)} "
        f"(0 at both keys: per-segment easing brakes at every key); s={'/'.join(_fmt(x) for x in s)}, "
        f"same pose as linear only at u=0.5 | linear rate: 1/1/1",
        f"CSS ease(0.5)={float(css(0.5)):.9f} (x(t)=u solved to 1e-12) | "
        f"y at t=u without the solve: {_fmt(naive)}",
        f"curve keys 0,60,60,0 at t=0..3 eased per segment (smoothstep): velocity at the "
        f"keys t=1, 2: {_fmt(per_segment.evaluate(1.0, 1))}, {_fmt(per_segment.evaluate(2.0, 1))} "
        f"(brakes at every key) | one whole-clip remap_time: "
        f"{_fmt(whole_clip.evaluate(1.0, 1))}, {_fmt(whole_clip.evaluate(2.0, 1))} deg/s",
    ]


def contact_lines() -> list[str]:
    wall, n = (2.0, 0.0), (1.0, 0.0)
    right = bounce([(-3.0, 4.0), (1.0, 4.0)], wall, n, 0.5)
    # The naive response flips and damps the world velocity's normal part.
    naive = (-0.5 * -3.0, 4.0)
    energy = [0.5 * (x * x + y * y) for x, y in ((-3.0, 4.0), right[0])]
    fast = advance_projectiles([(0.0, 0.0)], [(-1e6, 0.0)], 0.1, 1.0, [(-1.0, 0.0), (1.0, 0.0)],
                               [(1.0, 0.0), (-1.0, 0.0)], (0.0, 0.0), 1.0)
    return [
        f"bounce v=(-3,4) off a wall moving (2,0), e=0.5: ({_fmt(right[0][0])},{_fmt(right[0][1])}) "
        f"| naive world reflection: ({_fmt(naive[0])},{_fmt(naive[1])}), still approaching the wall "
        f"at {_fmt(naive[0] - wall[0])} m/s",
        f"bounce v=(1,4) (moving right, yet approaching): ({_fmt(right[1][0])},{_fmt(right[1][1])}); "
        f"world kinetic energy {_fmt(energy[0])} J -> {_fmt(energy[1])} J per kg (the wall does work)",
        f"advance_projectiles at 1e6 m/s between walls 2 m apart, dt=1 s: x={_fmt(fast.position[0][0])} "
        f"after {int(fast.bounces[0])} bounces, waiting at the wall | move-then-test: x=-1e+06 "
        f"(tunnelled)",
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
    ("Root motion of looping clips", rootmotion_lines),
    ("Contact response against moving surfaces", contact_lines),
    ("Snapshot interpolation across teleports", snapshot_lines),
]


def run(write=print) -> None:
    for title, lines in SECTIONS:
        write(f"== {title}")
        for line in lines():
            write(line)
        write("")
