"""Writes decimate_blender.json: Blender's Decimate (Graph Editor > Key >
Decimate, mode "Error Margin") run on curves keyed on every frame, and the
keys it keeps, exactly as Blender stores them.

Run with a Python that has bpy (Blender 5.0.1 was used, with numpy<2):
    python -m venv /tmp/bpy-venv && /tmp/bpy-venv/bin/pip install bpy "numpy<2"
    /tmp/bpy-venv/bin/python tests/data/make_decimate_fixtures.py

The curves ("source" of each): channels of the BVH files in tests/data/bvh
(motion capture, the file's units: centimetres and degrees), smooth
synthetic curves, and synthetic curves with holds and steps. Each is keyed
on frames 0, 1, ..., N-1 as Blender inserts keys (BEZIER, AUTO_CLAMPED
handles), values rounded to float32 as Blender stores them ("samples"), then
decimated by ``bpy.ops.graph.decimate(mode='ERROR', remove_error_margin=m)``
for two margins per curve, each a fraction of the curve's range. bpy has no
F-curve method for it in 5.0, so the operator runs headless in a Graph
Editor (the default screen's timeline area switched to it) through
``context.temp_override``.

Per decimation the record holds the margin and the kept keys: "co",
"handle_left", "handle_right" (float32 values, printed with 9 significant
digits, which round back to the same float32), per key "interpolation" and
handle types ("handle_types": two letters per key, left then right, F FREE,
A ALIGNED, V VECTOR, U AUTO, C AUTO_CLAMPED). Blender's own measure of what it kept is recorded too, from
``fcurve.evaluate`` at 20 points per frame (frame + k/20, rounded to float32
as Blender takes them): "dense_error_linear", the largest difference to the
linear interpolation of the samples, "dense_error_input", the largest
difference to the F-curve before decimation (the AUTO_CLAMPED curve through
the samples, evaluated on the same points before decimating), and
"frame_error", the largest difference at the sampled frames themselves.
"""
import json
import math
import os
import random
import struct

import bpy

from make_blender_fixtures import new_fcurve

HERE = os.path.dirname(os.path.abspath(__file__))
FRACTIONS = (0.005, 0.02)  # margins, as fractions of each curve's range
DENSE = 20


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def short(x):
    """A float32 value as the shortest decimal that rounds back to it."""
    return float(f"{f32(x):.9g}")


def read_bvh(path):
    """Channel names and the motion table of a BVH file (plain text parse)."""
    names, joint, rows, motion = [], None, [], False
    with open(path) as fh:
        for line in fh:
            words = line.split()
            if not words:
                continue
            if motion:
                if words[0].startswith("Frame"):
                    continue
                rows.append([float(w) for w in words])
            elif words[0] in ("ROOT", "JOINT"):
                joint = words[1]
            elif words[0] == "CHANNELS":
                names += [f"{joint}.{c}" for c in words[2:]]
            elif words[0] == "MOTION":
                motion = True
    return names, rows


def bvh_curves():
    picks = [("cmu_12_01_walk.bvh", 24, (0, 150, 300), 120),
             ("bvh_test1.bvh", 8, (0,), 75), ("bvh_test2.bvh", 6, (0,), 61)]
    out = []
    rng = random.Random(32)
    for name, count, starts, length in picks:
        names, rows = read_bvh(os.path.join(HERE, "bvh", name))
        usable = []
        for c, channel in enumerate(names):
            column = [r[c] for r in rows]
            if max(column) - min(column) < 1.0:  # nearly constant (degrees, cm)
                continue
            if max(abs(b - a) for a, b in zip(column, column[1:])) > 90:  # wraps
                continue
            usable.append((channel, column))
        for n, (channel, column) in enumerate(rng.sample(usable, min(count, len(usable)))):
            start = starts[n % len(starts)]
            out.append((f"{name}:{channel}@{start}", column[start:start + length]))
    return out


def synthetic_curves():
    rng = random.Random(3232)
    out = []
    for n in range(12):  # smooth: sums of a few sines, a polynomial, an ease
        length = rng.choice([80, 100, 120])
        waves = [(rng.uniform(0.2, 2.0), rng.uniform(0.01, 0.25), rng.uniform(0, 6.3))
                 for _ in range(rng.randint(1, 3))]
        poly = [rng.uniform(-1, 1) for _ in range(3)]
        values = []
        for i in range(length):
            u = i / (length - 1)
            v = sum(a * math.sin(w * i + p) for a, w, p in waves)
            v += poly[0] * u + poly[1] * u * u + poly[2] * u ** 3
            if n % 4 == 3:
                v += 2.0 * (3 * u * u - 2 * u ** 3)
            values.append(v)
        out.append((f"smooth{n:02d}", values))
    for n in range(12):  # holds and steps, joined by jumps or short ramps
        length = rng.choice([80, 100, 120])
        values, level = [], rng.uniform(-2, 2)
        while len(values) < length:
            hold = rng.randint(4, 25)
            values += [level] * hold
            new = level + rng.choice([-1, 1]) * rng.uniform(0.3, 3.0)
            ramp = 0 if n % 3 == 0 else rng.randint(1, 8)
            values += [level + (new - level) * (k + 1) / (ramp + 1) for k in range(ramp)]
            level = new
        values = values[:length]
        if n % 3 == 2:  # a little smooth wobble on the holds
            values = [v + 0.03 * math.sin(0.45 * i) for i, v in enumerate(values)]
        out.append((f"steps{n:02d}", values))
    return out


def graph_editor():
    win = bpy.context.window
    area = next(a for a in win.screen.areas if a.type == "DOPESHEET_EDITOR")
    area.ui_type = "FCURVES"
    region = next(r for r in area.regions if r.type == "WINDOW")
    return dict(window=win, screen=win.screen, area=area, region=region)


def compact(names):
    """One name when every key has it, else the list."""
    return names[0] if len(set(names)) == 1 else names


TYPE_CODES = {"FREE": "F", "ALIGNED": "A", "VECTOR": "V", "AUTO": "U", "AUTO_CLAMPED": "C"}


def keyed(name, samples):
    fc = new_fcurve(name)
    kp = fc.keyframe_points
    kp.add(len(samples))
    for i, v in enumerate(samples):
        p = kp[i]
        p.co = (i, v)
        p.interpolation = "BEZIER"
        p.handle_left_type = p.handle_right_type = "AUTO_CLAMPED"
        p.select_control_point = p.select_left_handle = p.select_right_handle = True
    fc.update()
    return fc


def only_selected(name):
    obj = bpy.data.objects[name]
    for o in bpy.context.scene.objects:
        o.select_set(o is obj)
    bpy.context.view_layer.objects.active = obj
    return obj


def decimate(name, samples, margin, override):
    fc = keyed(name, samples)
    obj = only_selected(name)
    n = len(samples)
    grid = [f32(i + k / DENSE) for i in range(n - 1) for k in range(DENSE)] + [n - 1.0]
    before = [fc.evaluate(t) for t in grid]
    with bpy.context.temp_override(**override):
        assert bpy.ops.graph.decimate(mode="ERROR", remove_error_margin=margin) == {"FINISHED"}
    points = list(fc.keyframe_points)
    after = [fc.evaluate(t) for t in grid]
    linear = []
    for t in grid:
        i = min(int(math.floor(t)), n - 2)
        u = t - i
        linear.append(samples[i] + u * (samples[i + 1] - samples[i]))
    record = dict(
        margin=margin, keys=len(points),
        co=[[short(x) for x in p.co] for p in points],
        handle_left=[[short(x) for x in p.handle_left] for p in points],
        handle_right=[[short(x) for x in p.handle_right] for p in points],
        interpolation=compact([p.interpolation for p in points]),
        handle_types="".join(TYPE_CODES[p.handle_left_type] + TYPE_CODES[p.handle_right_type]
                             for p in points),
        extrapolation=fc.extrapolation, auto_smoothing=fc.auto_smoothing,
        dense_error_linear=max(abs(a - b) for a, b in zip(after, linear)),
        dense_error_input=max(abs(a - b) for a, b in zip(after, before)),
        frame_error=max(abs(fc.evaluate(float(i)) - samples[i]) for i in range(n)))
    act = obj.animation_data.action
    bpy.data.objects.remove(obj)
    bpy.data.actions.remove(act)
    return record


def margin_for(values, fraction):
    span = max(values) - min(values)
    return float(f"{fraction * span:.2g}")


def main():
    override = graph_editor()
    curves = []
    for n, (source, values) in enumerate(bvh_curves() + synthetic_curves()):
        samples = [short(v) for v in values]
        record = dict(source=source, samples=samples, decimated=[])
        for k, fraction in enumerate(FRACTIONS):
            record["decimated"].append(
                decimate(f"c{n:03d}m{k}", samples, margin_for(samples, fraction), override))
        curves.append(record)
    path = os.path.join(HERE, "decimate_blender.json")
    with open(path, "w") as f:
        json.dump({"tool": "Blender (bpy from PyPI)", "version": bpy.app.version_string,
                   "operator": "bpy.ops.graph.decimate(mode='ERROR')",
                   "margin_fractions_of_range": FRACTIONS,
                   "handle_codes": TYPE_CODES, "dense_per_frame": DENSE,
                   "curves": curves}, f, separators=(",", ":"))
    runs = [d for c in curves for d in c["decimated"]]
    print(f"wrote {len(curves)} curves, {len(runs)} decimations to {path} "
          f"({os.path.getsize(path)} bytes); keys {sum(d['keys'] for d in runs)} of "
          f"{sum(len(c['samples']) for c in curves for _ in c['decimated'])}; dense error "
          f"above margin in {sum(d['dense_error_linear'] > d['margin'] for d in runs)}")


if __name__ == "__main__":
    main()
