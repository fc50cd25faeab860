"""Writes usd_splines.json: OpenUSD splines (pxr.Ts from usd-core) and Ts's
own evaluation of each, both sides, at many times.

    python -m venv /tmp/usd-venv && /tmp/usd-venv/bin/pip install usd-core
    /tmp/usd-venv/bin/python tests/data/make_usd_fixtures.py
Each case records the knots as the spline reports them (inner loops baked),
their tangent algorithms, its curve type and extrapolation, Ts.Spline.Eval
(right side) and EvalPreValue (left side). The AutoEase cases ("autoease*")
have knots whose tangents Ts computes (TsTangentAlgorithmAutoEase): random
runs of rising and falling keys, held and linear neighbours, dual-valued
knots, every extrapolation (loops included), one side only. (Not inner
loops: deprecated in Ts, they bake AutoEase knots into regressive ones.)
"""
import json
import os
import random

from pxr import Ts, Usd

INTERP = {"held": Ts.InterpHeld, "linear": Ts.InterpLinear, "curve": Ts.InterpCurve}
EXTRAP = {"held": Ts.ExtrapHeld, "linear": Ts.ExtrapLinear, "sloped": Ts.ExtrapSloped,
          "repeat": Ts.ExtrapLoopRepeat, "reset": Ts.ExtrapLoopReset,
          "oscillate": Ts.ExtrapLoopOscillate}


def set_extrapolations(s, pre, post, rng):
    """Both ends' extrapolation modes; a sloped end gets a random slope."""
    for setter, mode in ((s.SetPreExtrapolation, pre), (s.SetPostExtrapolation, post)):
        e = Ts.Extrapolation(EXTRAP[mode])
        if mode == "sloped":
            e.slope = rng.uniform(-1, 1)
        setter(e)


def build(rng, curve_type, interps, pre, post, dual, long_tangents):
    s = Ts.Spline()
    s.SetCurveType(curve_type)
    t = 0.0
    times = []
    for i, interp in enumerate(interps):
        times.append(t)
        t += rng.uniform(1.0, 6.0)
    for i, (t, interp) in enumerate(zip(times, interps)):
        k = Ts.Knot()
        k.SetTime(t)
        k.SetValue(rng.uniform(-3, 3))
        k.SetNextInterpolation(INTERP[interp])
        prev = t - times[i - 1] if i else 1.0
        nxt = times[i + 1] - t if i + 1 < len(times) else 1.0
        reach = 1.15 if long_tangents else 0.45
        k.SetPreTanSlope(rng.uniform(-2, 2))
        k.SetPreTanWidth(rng.uniform(0.05, reach) * prev)
        k.SetPostTanSlope(rng.uniform(-2, 2))
        k.SetPostTanWidth(rng.uniform(0.05, reach) * nxt)
        if i in dual:
            k.SetPreValue(rng.uniform(-3, 3))
        s.SetKnot(k)
    set_extrapolations(s, pre, post, rng)
    return s


def record(name, s):
    if s.HasRegressiveTangents():
        return None
    knots = []
    baked = s.GetKnotsWithInnerLoopsBaked() if s.HasInnerLoops() else s.GetKnots()
    for k in baked.values():
        knots.append(dict(time=k.GetTime(), value=k.GetValue(),
                          pre_value=k.GetPreValue() if k.IsDualValued() else None,
                          next_interpolation=str(k.GetNextInterpolation()).rsplit(".", 1)[-1],
                          pre_slope=k.GetPreTanSlope(), pre_width=k.GetPreTanWidth(),
                          post_slope=k.GetPostTanSlope(), post_width=k.GetPostTanWidth(),
                          pre_algorithm=str(k.GetPreTanAlgorithm()).rsplit(".", 1)[-1],
                          post_algorithm=str(k.GetPostTanAlgorithm()).rsplit(".", 1)[-1]))
    lo, hi = knots[0]["time"], knots[-1]["time"]
    # inner loops: the reference is Ts's own bake (Ts's evaluation of the
    # unbaked spline contradicts it in places; recorded beside it)
    reference = s
    if s.HasInnerLoops():
        reference = Ts.Spline(s)
        reference.BakeInnerLoops()
    span = hi - lo
    ts = [lo - 1.7 * span + i * span / 11.3 for i in range(int(4.4 * 11.3))]
    ts += [k["time"] for k in knots] + [hi + span, lo - span, hi + 2 * span]
    ts = sorted(set(float(f"{t:.13g}") for t in ts))
    extra = {}
    if s.HasInnerLoops():
        extra = dict(ts_right=[number(s.Eval(t)) for t in ts],
                     ts_left=[number(s.EvalPreValue(t)) for t in ts])
    return dict(name=name, value_type=s.GetValueTypeName(),
                curve_type=str(s.GetCurveType()).rsplit(".", 1)[-1],
                pre=extrapolation(s.GetPreExtrapolation(), s.IsPreExtrapolationValid()),
                post=extrapolation(s.GetPostExtrapolation(), s.IsPostExtrapolationValid()),
                knots=knots, times=ts,
                right=[number(reference.Eval(t)) for t in ts],
                left=[number(reference.EvalPreValue(t)) for t in ts], **extra)


def number(x):
    """A value to 13 significant digits (None where Ts gives no value)."""
    return None if x is None else float(f"{x:.13g}")


def extrapolation(e, valid):
    """An end's mode, slope, loop boundary (None when not set) and whether Ts
    gives values there."""
    return dict(mode=str(e.mode).rsplit(".", 1)[-1], slope=e.slope,
                boundary=e.loopBoundaryTime, valid=valid)


def build_auto_ease(rng, curve_type, interps, pre, post, dual, sides=("pre", "post"),
                    value_type="double", scale=1.0):
    """Knots whose tangents Ts computes with AutoEase: values in runs that
    rise or fall (so that the blend is not always flat), with some extrema."""
    s = Ts.Spline(value_type)
    s.SetCurveType(curve_type)
    t, v, direction = 0.0, 0.0, 1.0
    for i, interp in enumerate(interps):
        k = Ts.Knot(value_type)
        k.SetTime(t)
        k.SetValue(v)
        k.SetNextInterpolation(INTERP[interp])
        # authored tangents that AutoEase replaces (or keeps, on a side without it)
        k.SetPreTanSlope(rng.uniform(-2, 2)), k.SetPreTanWidth(rng.uniform(0.1, 0.4))
        k.SetPostTanSlope(rng.uniform(-2, 2)), k.SetPostTanWidth(rng.uniform(0.1, 0.4))
        if "pre" in sides:
            k.SetPreTanAlgorithm(Ts.TangentAlgorithmAutoEase)
        if "post" in sides:
            k.SetPostTanAlgorithm(Ts.TangentAlgorithmAutoEase)
        if i in dual:
            k.SetPreValue(v + rng.uniform(-1, 1))
        s.SetKnot(k)
        if rng.random() < 0.25:
            direction = -direction
        t += scale * rng.choice([rng.uniform(0.05, 0.5), rng.uniform(0.5, 3.0),
                                 rng.uniform(3.0, 9.0)])
        v += direction * rng.uniform(0.0, 3.0)
    set_extrapolations(s, pre, post, rng)
    return s


def auto_ease_cases(rng):
    cases, n = [], 0
    for curve_type in (Ts.CurveTypeBezier, Ts.CurveTypeHermite):
        for pre, post in (("held", "held"), ("linear", "linear"), ("sloped", "linear"),
                          ("repeat", "repeat"), ("reset", "oscillate")):
            for interps in (["curve"] * 8, ["curve", "held", "curve", "linear", "curve",
                                            "curve", "linear", "curve"]):
                for dual in ((), (3,)):
                    loops = pre in ("repeat", "reset")
                    s = build_auto_ease(rng, curve_type, interps, pre, post,
                                        () if loops and not dual else dual)
                    r = record(f"autoease{n:03d}", s)
                    n += 1
                    if r:
                        cases.append(r)
    # float and half splines: Ts stores the tangents in the value type (a half
    # slope beyond its range is capped, its width grown to keep the handle's height)
    for value_type, scale in (("float", 1.0), ("half", 1.0), ("half", 1e-4)):
        s = build_auto_ease(rng, Ts.CurveTypeBezier, ["curve"] * 8, "linear", "linear", (3,),
                            value_type=value_type, scale=scale)
        cases.append(record(f"autoease{n:03d}", s))
        n += 1
    for sides in (("pre",), ("post",)):  # one side computed, the other authored
        s = build_auto_ease(rng, Ts.CurveTypeBezier, ["curve"] * 7, "linear", "linear", (),
                            sides)
        cases.append(record(f"autoease{n:03d}", s))
        n += 1
    return cases


def simple(knots, pre, post, curve_type=Ts.CurveTypeBezier, boundaries=(None, None)):
    """A spline from (time, value, pre-value or None, interpolation, slope,
    width) rows; boundaries are the ends' loopBoundaryTime."""
    s = Ts.Spline()
    s.SetCurveType(curve_type)
    for t, v, pre_value, interp, slope, width in knots:
        k = Ts.Knot()
        k.SetTime(t), k.SetValue(v), k.SetNextInterpolation(INTERP[interp])
        k.SetPreTanSlope(slope), k.SetPostTanSlope(-slope)
        k.SetPreTanWidth(width), k.SetPostTanWidth(width)
        if pre_value is not None:
            k.SetPreValue(pre_value)
        s.SetKnot(k)
    for setter, mode, boundary in ((s.SetPreExtrapolation, pre, boundaries[0]),
                                   (s.SetPostExtrapolation, post, boundaries[1])):
        e = Ts.Extrapolation(EXTRAP[mode])
        e.slope = 0.5 if mode == "sloped" else 0.0
        if boundary is not None:
            e.loopBoundaryTime = boundary
        setter(e)
    return s


def fidelity_cases(rng):
    """One-knot splines, linear extrapolation beside dual-valued end knots,
    loops beside dual-valued end knots and held end segments, loop boundaries
    (loopBoundaryTime), inner loops. Knot times are multiples of 1/8, so that
    Ts's loops land exactly on the knots (see seam_cases)."""
    cases, n = [], 0

    def add(s, **marks):
        nonlocal n
        r = record(f"fidelity{n:03d}", s)
        n += 1
        if r:
            cases.append(dict(r, **marks))

    modes = ("held", "linear", "sloped", "repeat", "reset", "oscillate")
    for pre_value in (None, 5.0):  # one knot, every extrapolation
        for mode in modes:
            add(simple([(1.0, 2.0, pre_value, "curve", 1.5, 0.5)], mode, mode))
    for curve_type in (Ts.CurveTypeBezier, Ts.CurveTypeHermite):
        for interp in ("held", "linear", "curve"):  # linear extrapolation, dual end knots
            for dual in ((0,), (2,), (0, 2)):
                rows = [(8 * i / 8 + i * 0.5, rng.uniform(-3, 3),
                         rng.uniform(-3, 3) if i in dual else None, interp,
                         rng.uniform(-2, 2), 0.4) for i in range(3)]
                add(simple(rows, "linear", "linear", curve_type))
    loops = ("repeat", "reset", "oscillate")
    for k in range(36):  # loops beside dual-valued end knots and held segments
        count = rng.choice([2, 3, 4])
        times = [0.0]
        for _ in range(count - 1):
            times.append(times[-1] + rng.randint(1, 24) / 8)
        rows = [(t, rng.uniform(-3, 3), rng.uniform(-3, 3) if rng.random() < 0.5 else None,
                 rng.choice(["held", "linear", "curve"]), rng.uniform(-2, 2), 0.1)
                for t in times]
        pre, post = rng.choice(loops + ("held", "linear")), rng.choice(loops + ("held",))
        add(simple(rows, pre, post, rng.choice([Ts.CurveTypeBezier, Ts.CurveTypeHermite])))
    rows = [(0.0, 0.0, None, "linear", 0.0, 0.3), (2.0, 1.0, None, "curve", 0.5, 0.3),
            (3.0, -1.0, None, "held", 0.0, 0.3), (4.5, 2.0, None, "linear", 0.0, 0.3)]
    for mode in loops:  # loop boundaries: every knot time and one between knots
        for boundary in (0.0, 2.0, 3.0, 4.5, 1.0):
            add(simple(rows, mode, "held", boundaries=(boundary, None)))
            add(simple(rows, "held", mode, boundaries=(None, boundary)))
    for k in range(6):  # inner loops (the reference is Ts's bake)
        count = 5
        times = [0.0]
        for _ in range(count - 1):
            times.append(times[-1] + rng.randint(4, 24) / 8)
        rows = [(t, rng.uniform(-3, 3), None, rng.choice(["linear", "curve", "held"]),
                 rng.uniform(-2, 2), 0.1) for t in times]
        s = simple(rows, rng.choice(("held", "linear", "reset")),
                   rng.choice(("held", "linear", "oscillate")))
        lp = Ts.LoopParams()
        lp.protoStart, lp.protoEnd = times[1], times[rng.choice([2, 3])]
        lp.numPreLoops, lp.numPostLoops, lp.valueOffset = 1, rng.choice([1, 2]), rng.uniform(-1, 1)
        s.SetInnerLoopParams(lp)
        add(s, inner_loops=True)
    return cases


def seam_cases():
    """Where Ts is not exact: a loop seam after a held segment whose period
    does not add back exactly (Ts's previous cycle ends a rounding error
    before the first knot, so its pre-value there is the last knot's value,
    not the held one), and Bezier handles both wider than their interval
    (Ts's time solve is off by up to 1e-6 there)."""
    times = [-2.588714110408186, 0.5545103553330168, 3.69773482107422, 6.840959286815423]
    rows = [(t, v, None, "held", 0.0, 0.1) for t, v in zip(times, (-1.5, -0.8, -0.1, 0.6))]
    spline = simple(rows, "reset", "held")
    seam = dict(record("seam_held", spline), first_left=spline.EvalPreValue(times[0]))
    s = Ts.Spline()
    for t, v, slope, width in ((0.0, 0.0, 0.4, 1.15), (4.0, 1.0, -0.6, 0.03)):
        k = Ts.Knot()
        k.SetTime(t), k.SetValue(v), k.SetNextInterpolation(Ts.InterpCurve)
        k.SetPostTanSlope(slope), k.SetPostTanWidth(width * 4.0)
        k.SetPreTanSlope(slope), k.SetPreTanWidth(width * 4.0)
        s.SetKnot(k)
    wide = record("wide_handles", s)
    return [seam, wide]


def main():
    rng = random.Random(7)
    cases = []
    n = 0
    for curve_type in (Ts.CurveTypeBezier, Ts.CurveTypeHermite):
        for pre, post in (("held", "held"), ("linear", "linear"), ("sloped", "sloped"),
                          ("repeat", "repeat"), ("reset", "oscillate"), ("oscillate", "linear")):
            for interps in (["curve"] * 6, ["curve", "linear", "held", "curve", "curve"],
                            ["linear", "curve", "curve", "held"]):
                for dual, long_tangents in (((), False), ((2,), False), ((0, 3), True)):
                    s = build(rng, curve_type, interps, pre, post,
                              [d for d in dual if d < len(interps)], long_tangents)
                    r = record(f"spline{n:03d}", s)
                    n += 1
                    if r:
                        cases.append(r)
    # inner loops: a prototype interval repeated before and after itself, with
    # a value offset per repeat (Ts bakes them into knots)
    for curve_type in (Ts.CurveTypeBezier, Ts.CurveTypeHermite):
        for pre, post in (("held", "linear"), ("sloped", "held")):
            s = build(rng, curve_type, ["curve", "curve", "linear", "curve", "curve", "curve"],
                      pre, post, [], False)
            times = list(s.GetKnots().keys())
            lp = Ts.LoopParams()
            lp.protoStart, lp.protoEnd = times[1], times[3]
            lp.numPreLoops, lp.numPostLoops, lp.valueOffset = 1, 2, rng.uniform(-1, 1)
            s.SetInnerLoopParams(lp)
            r = record(f"spline{n:03d}", s)
            n += 1
            if r:
                r["inner_loops"] = True
                cases.append(r)
    cases += auto_ease_cases(random.Random(11))
    cases += fidelity_cases(random.Random(13))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "usd_splines.json")
    with open(path, "w") as f:
        json.dump({"tool": "OpenUSD pxr.Ts (usd-core from PyPI)",
                   "version": ".".join(map(str, Usd.GetVersion())), "cases": cases,
                   "ts_inexact": seam_cases()}, f,
                  separators=(",", ":"))
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
