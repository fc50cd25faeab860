"""Writes blender_rules.json: random F-curves built with Blender's own Python
module (bpy, from PyPI) for four rules of Blender's handles and evaluation,
and Blender's fcurve.evaluate of each at many frames.

Run with a Python that has bpy (Blender 5.0.1 was used, with numpy<2):
    python -m venv /tmp/bpy-venv && /tmp/bpy-venv/bin/pip install bpy "numpy<2"
    /tmp/bpy-venv/bin/python tests/data/make_blender_rules_fixtures.py
The rules (each case's "rule"):
  constant_seam  a CONSTANT last segment, read at the last key and at the
                 seams of a Cycles modifier (and without one)
  aligned        ALIGNED keys with the left handle selected or not (which
                 handle Blender turns)
  short          handles closer than 0.001 frame to their key in time
                 (Blender 5 moves them out), near-coincident keys
  float32        keys a few 1/256 frame apart with automatic handles, read far
                 along their linear extrapolation (Blender's float32 handles)
Each case records the keyframe settings as curve_from_keyframes takes them
(handles only where the key has FREE/ALIGNED sides), the handles Blender
computed, and fcurve.evaluate(frame). Keys are never closer than 0.012 frame:
fcurve.update() merges keys within 0.01 frame (BKE_fcurve_deduplicate_keys).
"""
import random
import struct

from make_blender_fixtures import new_fcurve, nine, record_handles, record_values, write

INTERPOLATIONS = ["CONSTANT", "LINEAR", "BEZIER", "SINE", "QUAD"]
TYPES = ["FREE", "ALIGNED", "VECTOR", "AUTO", "AUTO_CLAMPED"]
CYCLES = [None, ["REPEAT", "REPEAT"], ["REPEAT_OFFSET", "REPEAT_OFFSET"],
          ["MIRROR", "MIRROR"], ["NONE", "REPEAT"], ["REPEAT", "MIRROR"]]


def build(case):
    fc = new_fcurve(case["name"])
    kp = fc.keyframe_points
    kp.add(len(case["co"]))
    for i, co in enumerate(case["co"]):
        p = kp[i]
        p.co = co
        p.interpolation = case["interpolation"][i]
        p.handle_left_type = case["handle_left_type"][i]
        p.handle_right_type = case["handle_right_type"][i]
        if case.get("handle_left") is not None:
            p.handle_left = case["handle_left"][i]
            p.handle_right = case["handle_right"][i]
        p.select_control_point = True
        p.select_left_handle = case["select_left_handle"][i]
        p.select_right_handle = True
    fc.extrapolation = case["extrapolation"]
    fc.auto_smoothing = case["auto_smoothing"]
    if case.get("cycles"):
        m = fc.modifiers.new("CYCLES")
        m.mode_before, m.mode_after = case["cycles"]
    fc.update()
    assert len(fc.keyframe_points) == len(case["co"]), "keys were merged"
    return fc


def keys(rng, k, gap=(0.5, 12.0)):
    t = rng.uniform(-20, 20)
    out = []
    for _ in range(k):
        # frames on a 1/64 grid: the cycle seams lo - m (hi - lo) are then exact
        # in float32 and float64 alike
        out.append([round(t * 64) / 64, round(rng.uniform(-5, 5), 4)])
        t += rng.uniform(*gap)
    return out


def free_handles(rng, co, reach):
    left = [[f - rng.uniform(*reach), v + rng.uniform(-2, 2)] for f, v in co]
    right = [[f + rng.uniform(*reach), v + rng.uniform(-2, 2)] for f, v in co]
    return left, right


def base(rng, co, rule, **kw):
    k = len(co)
    case = dict(rule=rule, co=co, interpolation=["BEZIER"] * k,
                handle_left_type=["AUTO_CLAMPED"] * k, handle_right_type=["AUTO_CLAMPED"] * k,
                select_left_handle=[True] * k, extrapolation=rng.choice(["CONSTANT", "LINEAR"]),
                auto_smoothing=rng.choice(["NONE", "CONT_ACCEL"]), cycles=None)
    case.update(kw)
    return case


def cases():
    rng = random.Random(20251)
    out = []
    for n in range(36):  # CONSTANT last segment, with and without cycles
        co = keys(rng, rng.randint(2, 5))
        interp = [rng.choice(INTERPOLATIONS) for _ in co]
        interp[-2] = "CONSTANT"
        case = base(rng, co, "constant_seam", interpolation=interp,
                    cycles=CYCLES[n % len(CYCLES)])
        case["handle_left_type"] = [rng.choice(TYPES[2:]) for _ in co]
        case["handle_right_type"] = list(case["handle_left_type"])
        out.append(case)
    for n in range(36):  # aligned handles, left handle selected or not
        co = keys(rng, rng.randint(3, 6))
        lt = [rng.choice(TYPES) for _ in co]
        rt = [rng.choice(TYPES) for _ in co]
        for i in rng.sample(range(len(co)), 2):
            lt[i] = rt[i] = "ALIGNED"
        left, right = free_handles(rng, co, (0.2, 4.0))
        out.append(base(rng, co, "aligned", handle_left_type=lt, handle_right_type=rt,
                        handle_left=left, handle_right=right,
                        select_left_handle=[rng.random() < 0.5 for _ in co],
                        cycles=rng.choice(CYCLES)))
    for n in range(36):  # handles shorter than 0.001 frame, near-coincident keys
        co = keys(rng, rng.randint(2, 5), gap=(0.012, 0.05) if n % 3 == 0 else (0.5, 8.0))
        lt = [rng.choice(["FREE", "ALIGNED", "FREE", "AUTO", "VECTOR"]) for _ in co]
        rt = [rng.choice(["FREE", "ALIGNED", "FREE", "AUTO_CLAMPED"]) for _ in co]
        left, right = free_handles(rng, co, (0.0, 0.0015))
        for i in rng.sample(range(len(co)), len(co) // 2):  # some long ones too
            (left if rng.random() < 0.5 else right)[i][0] += rng.choice([-1, 1]) * 0.8
        left = [[min(h[0], f), h[1]] for h, (f, _) in zip(left, co)]
        right = [[max(h[0], f), h[1]] for h, (f, _) in zip(right, co)]
        out.append(base(rng, co, "short", handle_left_type=lt, handle_right_type=rt,
                        handle_left=left, handle_right=right,
                        select_left_handle=[rng.random() < 0.5 for _ in co],
                        interpolation=[rng.choice(["BEZIER", "BEZIER", "LINEAR"]) for _ in co]))
    for n in range(36):  # float32 handle arithmetic: keys a few 1/256 frame apart
        k = rng.randint(3, 6)
        start = rng.randint(-40, 40)
        steps = [rng.randint(4, 12) for _ in range(k - 1)]
        frames = [start + sum(steps[:i]) / 256 for i in range(k)]
        co = [[f, round(rng.uniform(-3, 3), 3)] for f in frames]
        htype = rng.choice(["AUTO", "AUTO_CLAMPED", "VECTOR"])
        out.append(base(rng, co, "float32", handle_left_type=[htype] * k,
                        handle_right_type=[htype] * k, extrapolation="LINEAR",
                        auto_smoothing="NONE" if n % 4 else "CONT_ACCEL",
                        cycles=None if n % 6 else ["REPEAT_OFFSET", "REPEAT_OFFSET"]))
    for i, c in enumerate(out):
        c["name"] = f"{c['rule']}{i:03d}"
        if c.get("handle_left") is None:
            c.pop("handle_left", None)
            c.pop("handle_right", None)
    return out


def frames(case):
    co = case["co"]
    lo, hi = co[0][0], co[-1][0]
    span = hi - lo
    out = [lo + span * (i / 61.0) for i in range(62)] + [f for f, _ in co]
    out += [lo - span * m for m in (1, 2, 3)] + [hi + span * m for m in (1, 2, 3)]
    out += [lo - 0.37 * span, hi + 0.61 * span, lo - 1.5 * span, hi + 2.5 * span]
    if case["rule"] == "float32":
        out += [lo - 5000.0, lo - 731.25, hi + 1200.5, hi + 5000.0]
    # float32 frames (Blender's evaluate takes a float32 time), none within
    # 2e-4 frame of a key but the keys themselves: Blender returns a key's
    # value for any time within 1e-4 frame of it
    out = [struct.unpack("f", struct.pack("f", x))[0] for x in out]
    keys = [f for f, _ in co]
    return sorted(set(x for x in out if x in keys or min(abs(x - f) for f in keys) > 2e-4))


def main():
    records = []
    for case in cases():
        fc = build(case)
        case["frames"] = frames(case)
        case["blender_co"] = [[nine(x) for x in p.co] for p in fc.keyframe_points]
        record_handles(case, fc)
        record_values(case, fc)
        records.append(case)
    write("blender_rules.json", records)


if __name__ == "__main__":
    main()
