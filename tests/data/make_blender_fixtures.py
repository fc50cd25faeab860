"""Writes blender_fcurves.json: F-curves built with Blender's own Python module
(bpy, from PyPI) and Blender's evaluation of each at many frames.

Run with a Python that has bpy (Blender 5.0.1 was used):
    python -m venv /tmp/bpy-venv && /tmp/bpy-venv/bin/pip install bpy
    /tmp/bpy-venv/bin/python tests/data/make_blender_fixtures.py
Each case records the keyframe settings as curve_from_keyframes takes them
(handles only for FREE/ALIGNED keys, so automatic handles are recomputed from
the keys), the handles Blender computed, and fcurve.evaluate(frame).
"""
import json
import math
import os

import bpy

KEYS = {
    "wave": [(1, 0.0), (6, 2.0), (9, -1.0), (15, 1.5), (18, 1.4), (30, -0.5)],
    "uneven": [(0, 0.0), (1, 3.0), (11, 2.0), (12, 8.0), (40, -4.0)],
    "hold": [(0, 1.0), (10, 1.0), (20, 3.0), (30, 3.0), (35, 0.0)],
    "two": [(2, -1.0), (14, 3.0)],
    "loop": [(0, 0.0), (8, 2.0), (16, -1.0), (24, 1.0), (32, 0.0)],
}


def new_fcurve(name):
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    act = bpy.data.actions.new(name)
    obj.animation_data_create()
    obj.animation_data.action = act
    return act.fcurve_ensure_for_datablock(obj, "location", index=0)


def build(case):
    fc = new_fcurve(case["name"])
    kp = fc.keyframe_points
    k = len(case["co"])
    kp.add(k)

    def per_key(name, i):
        v = case.get(name)
        return v[i] if isinstance(v, list) else v

    for i, co in enumerate(case["co"]):
        p = kp[i]
        p.co = co
        p.interpolation = per_key("interpolation", i)
        p.easing = per_key("easing", i)
        p.handle_left_type = per_key("handle_left_type", i)
        p.handle_right_type = per_key("handle_right_type", i)
        for name in ("back", "amplitude", "period"):
            if case.get(name) is not None:
                setattr(p, name, per_key(name, i))
        if case.get("handle_left") is not None:
            p.handle_left = case["handle_left"][i]
            p.handle_right = case["handle_right"][i]
        p.select_control_point = p.select_left_handle = p.select_right_handle = True
    fc.extrapolation = case["extrapolation"]
    fc.auto_smoothing = case["auto_smoothing"]
    if case.get("cycles"):
        m = fc.modifiers.new("CYCLES")
        m.mode_before, m.mode_after = case["cycles"]
    fc.update()
    return fc


def frames(co, cycles):
    lo, hi = co[0][0], co[-1][0]
    span = hi - lo
    step = round(span / 53.0, 3) + 0.013  # off the frame grid, so between keys too
    out = [lo - 0.6 * span + step * i for i in range(int(2.8 * span / step))]
    out += [f for f, _ in co]
    out += [lo - span, lo - 2 * span, hi + span, hi + 2 * span]  # seams
    return sorted(set(round(x, 6) for x in out))


def cases():
    out = []
    for keys in ("wave", "uneven", "hold", "two"):
        for smoothing in ("NONE", "CONT_ACCEL"):
            for htype in ("AUTO", "AUTO_CLAMPED", "VECTOR"):
                for extrap in ("CONSTANT", "LINEAR"):
                    out.append(dict(co=KEYS[keys], interpolation="BEZIER", easing="AUTO",
                                    handle_left_type=htype, handle_right_type=htype,
                                    extrapolation=extrap, auto_smoothing=smoothing))
    # mixed per-key handle types, FREE and ALIGNED keys with given handles
    co = KEYS["wave"]
    lt = ["AUTO", "FREE", "AUTO_CLAMPED", "ALIGNED", "VECTOR", "AUTO"]
    rt = ["AUTO", "FREE", "AUTO_CLAMPED", "ALIGNED", "AUTO", "AUTO"]
    hl = [(f - 1.5, v) for f, v in co]
    hr = [(f + 1.5, v) for f, v in co]
    hl[1], hr[1] = (4.0, 3.0), (8.5, 1.0)  # free: broken, long right handle
    hl[3], hr[3] = (13.0, 0.5), (16.0, 2.0)  # aligned: slope 0.5, lengths differ
    for smoothing in ("NONE", "CONT_ACCEL"):
        for extrap in ("CONSTANT", "LINEAR"):
            out.append(dict(co=co, interpolation="BEZIER", easing="AUTO", handle_left_type=lt,
                            handle_right_type=rt, handle_left=hl, handle_right=hr,
                            extrapolation=extrap, auto_smoothing=smoothing))
    # free handles reaching past the neighbouring key (scaled back by Blender)
    out.append(dict(co=[(0, 0.0), (10, 1.0), (20, 0.0)], interpolation="BEZIER",
                    easing="AUTO", handle_left_type="FREE", handle_right_type="FREE",
                    handle_left=[(-3, -1.0), (-5, 3.0), (12, 2.0)],
                    handle_right=[(18, 2.0), (14, 0.0), (26, -2.0)],
                    extrapolation="LINEAR", auto_smoothing="NONE"))
    # cycles
    for smoothing in ("NONE", "CONT_ACCEL"):
        for htype in ("AUTO", "AUTO_CLAMPED"):
            for modes in (("REPEAT", "REPEAT"), ("REPEAT_OFFSET", "REPEAT_OFFSET"),
                          ("MIRROR", "REPEAT_OFFSET"), ("NONE", "MIRROR")):
                for keys in ("loop", "wave"):
                    out.append(dict(co=KEYS[keys], interpolation="BEZIER", easing="AUTO",
                                    handle_left_type=htype, handle_right_type=htype,
                                    extrapolation="LINEAR", auto_smoothing=smoothing,
                                    cycles=list(modes)))
    # interpolations and easings, one per segment
    kinds = ["BACK", "BOUNCE", "CIRC", "CUBIC", "ELASTIC", "EXPO", "QUAD", "QUART", "QUINT",
             "SINE"]
    for easing in ("AUTO", "EASE_IN", "EASE_OUT", "EASE_IN_OUT"):
        co = [(0, 0.0), (10, 2.0), (20, -1.0), (30, 3.0), (40, 2.5), (50, 0.0)]
        for start in (0, 5):
            interp = [kinds[(start + i) % len(kinds)] for i in range(6)]
            out.append(dict(co=co, interpolation=interp, easing=easing,
                            handle_left_type="AUTO_CLAMPED", handle_right_type="AUTO_CLAMPED",
                            extrapolation="LINEAR", auto_smoothing="NONE"))
    # easing parameters: overshoot, elastic amplitude above and below the change, period
    for amp, per in ((0.8, 4.1), (5.0, 2.0), (0.0, 0.0), (1.0, 7.5)):
        for easing in ("EASE_IN", "EASE_OUT", "EASE_IN_OUT"):
            out.append(dict(co=[(0, 0.0), (20, 2.0), (35, -3.0), (50, -2.5)],
                            interpolation=["ELASTIC", "BACK", "ELASTIC", "CONSTANT"],
                            easing=easing, back=[2.5, 0.5, 1.0, 1.70158],
                            amplitude=amp, period=per, handle_left_type="AUTO_CLAMPED",
                            handle_right_type="AUTO_CLAMPED", extrapolation="LINEAR",
                            auto_smoothing="NONE"))
    out.append(dict(co=KEYS["wave"],
                    interpolation=["CONSTANT", "LINEAR", "BEZIER", "CONSTANT", "SINE", "LINEAR"],
                    easing="AUTO", handle_left_type="AUTO_CLAMPED",
                    handle_right_type="AUTO_CLAMPED", extrapolation="LINEAR",
                    auto_smoothing="CONT_ACCEL"))
    out.append(dict(co=KEYS["wave"], interpolation=["LINEAR"] * 5 + ["BEZIER"], easing="AUTO",
                    handle_left_type="AUTO", handle_right_type="AUTO",
                    extrapolation="LINEAR", auto_smoothing="NONE"))
    # aligned handles given out of line: Blender turns them to stay opposite the
    # other handle of their key (the left one wins when both are aligned and the
    # left handle is selected, as here)
    co = [(1, 0.0), (7, 3.0), (12, 1.0), (20, 4.0)]
    for lt1, rt1 in (("ALIGNED", "AUTO"), ("AUTO", "ALIGNED"), ("ALIGNED", "VECTOR"),
                     ("ALIGNED", "ALIGNED"), ("AUTO_CLAMPED", "ALIGNED"), ("VECTOR", "ALIGNED")):
        for smoothing in ("NONE", "CONT_ACCEL"):
            hl = [(f - 1.0, v) for f, v in co]
            hr = [(f + 1.0, v) for f, v in co]
            hl[1], hr[1] = (5.0, 3.5), (10.0, 1.0)
            out.append(dict(co=co, interpolation="BEZIER", easing="AUTO",
                            handle_left_type=["AUTO_CLAMPED", lt1, "AUTO", "AUTO_CLAMPED"],
                            handle_right_type=["AUTO_CLAMPED", rt1, "AUTO", "AUTO_CLAMPED"],
                            handle_left=hl, handle_right=hr, extrapolation="CONSTANT",
                            auto_smoothing=smoothing))
    for i, c in enumerate(out):
        c["name"] = f"case{i:03d}"
    return out


def nine(x):
    """x to 9 significant digits: a float32 exactly, short in JSON."""
    return float(f"{x:.9g}")


def record_handles(case, fc):
    """Blender's handles of each key, as it stored them, into case."""
    case["blender_handle_left"] = [[nine(x) for x in p.handle_left] for p in fc.keyframe_points]
    case["blender_handle_right"] = [[nine(x) for x in p.handle_right]
                                    for p in fc.keyframe_points]


def record_values(case, fc):
    """Blender's values at case["frames"] into case."""
    case["values"] = [nine(fc.evaluate(f)) for f in case["frames"]]
    assert all(math.isfinite(v) for v in case["values"])


def write(name, records):
    """records as tests/data/<name> with the tool's version."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(path, "w") as f:
        json.dump({"tool": "Blender (bpy from PyPI)", "version": bpy.app.version_string,
                   "cases": records}, f, separators=(",", ":"))
    print(f"wrote {len(records)} cases to {path}")


def main():
    records = []
    for case in cases():
        fc = build(case)
        record_handles(case, fc)
        for name in ("back", "amplitude", "period"):  # as stored (float32)
            case[name] = [nine(getattr(p, name)) for p in fc.keyframe_points]
        case["frames"] = frames(case["co"], case.get("cycles"))
        record_values(case, fc)
        records.append(case)
    write("blender_fcurves.json", records)


if __name__ == "__main__":
    main()
