"""OpenUSD animation splines (``pxr.Ts``) as animcore curves.

:func:`curve_from_spline` turns a ``pxr.Ts.Spline`` (``pip install
animcore[usd]``, which is ``usd-core``) into a :class:`~animcore.curves.Curve`
that evaluates like ``spline.Eval`` (right side) and ``spline.EvalPreValue``
(left side, ``side="left"``). Nothing here imports ``pxr`` itself: the
spline's own methods are read.

The mapping, knot by knot:

- held / linear / curve segments (each knot's ``nextInterpolation``) become
  ``"step"`` / ``"linear"`` / ``"bezier"`` segments (``"cubic"`` for a
  Hermite spline, whose tangent widths are a third of the interval);
- a knot's post-tangent (slope, width) is the leaving handle and its
  pre-tangent the arriving one: slope is the velocity, width divided by the
  segment's duration the weight. Ts uses widths longer than their segment as
  they are when the time still never goes backwards (unlike Blender, which
  shortens them), and so does the curve;
- a dual-valued knot (a pre-value) is a jump: the key ``(t, pre-value)``
  ends the segment before it and ``(t, value)`` starts the next;
- extrapolation: held -> ``"clamp"``, linear -> ``"sloped"`` with Ts's
  slope: the end knot's *inner* tangent (the first knot's post-tangent, the
  last knot's pre-tangent), a linear end segment's slope, 0 after a held
  one or before a pre-value, sloped
  -> ``"sloped"``, loop repeat -> ``"cycle_offset"``, loop reset ->
  ``"cycle"``, loop oscillate -> ``"oscillate"``;
- inner loops are baked into knots first, as Ts does.

Raises ``ValueError`` for what a Curve does not represent: value blocks,
regressive tangents, non-scalar value types.
"""
from __future__ import annotations

import numpy as np

from .curves import Curve

__all__ = ["curve_from_spline"]


def _name(enum_value) -> str:
    """'Held' for Ts.InterpHeld, 'LoopRepeat' for Ts.ExtrapLoopRepeat, ..."""
    text = str(enum_value).rsplit(".", 1)[-1]
    for prefix in ("Interp", "Extrap", "CurveType"):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


_SEGMENTS = {"Held": "step", "Linear": "linear", "Curve": "bezier"}
_EXTRAPOLATION = {"Held": "clamp", "Linear": "linear", "Sloped": "sloped",
                  "LoopRepeat": "cycle_offset", "LoopReset": "cycle",
                  "LoopOscillate": "oscillate"}


def curve_from_spline(spline, *, time_codes_per_second=None) -> Curve:
    """The curve a ``pxr.Ts.Spline`` evaluates.

    Parameters
    ----------
    spline : pxr.Ts.Spline
        A spline of a scalar value type (double, float, half).
    time_codes_per_second : float, optional
        Divides the spline's time codes into seconds (a stage's
        ``timeCodesPerSecond``); velocities follow. Time codes otherwise.

    Raises
    ------
    ValueError
        An empty spline, value blocks, regressive tangents or a non-scalar
        value type.
    """
    func = "curve_from_spline"
    if spline.IsEmpty():
        raise ValueError(f"{func}: the spline has no knots")
    if spline.GetValueTypeName() not in ("double", "float", "half"):
        raise ValueError(f"{func}: the spline holds {spline.GetValueTypeName()!r} values "
                         f"(only scalar splines are curves)")
    if spline.HasValueBlocks():
        raise ValueError(f"{func}: the spline has value blocks (no value at some times), "
                         f"which a curve cannot represent")
    if spline.HasRegressiveTangents():
        raise ValueError(f"{func}: the spline has regressive tangents (time would go "
                         f"backwards); call spline.AdjustRegressiveTangents() first")
    scale = 1.0
    if time_codes_per_second is not None:
        scale = float(time_codes_per_second)
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"{func}: time_codes_per_second is {time_codes_per_second!r} "
                             f"(must be a finite number > 0)")
    knots = list((spline.GetKnotsWithInnerLoopsBaked() if spline.HasInnerLoops()
                  else spline.GetKnots()).values())
    loops = [_name(e.mode).startswith("Loop")
             for e in (spline.GetPreExtrapolation(), spline.GetPostExtrapolation())]
    if any(loops) and (knots[0].IsDualValued() or knots[-1].IsDualValued()):
        raise ValueError(f"{func}: looping extrapolation with a dual-valued first or last "
                         f"knot is not reproduced (Ts's cycle offsets and seams differ there)")
    hermite = _name(spline.GetCurveType()) == "Hermite"
    times, values, vin, vout, w_in, w_out, kinds = [], [], [], [], [], [], []
    for n, knot in enumerate(knots):
        t = knot.GetTime()
        pre_slope, post_slope = knot.GetPreTanSlope(), knot.GetPostTanSlope()
        if knot.IsDualValued():  # a jump: the pre-value ends the segment before
            times.append(t)
            values.append(knot.GetPreValue())
            vin.append(pre_slope), vout.append(0.0)
            w_in.append(knot.GetPreTanWidth()), w_out.append(None)
            kinds.append("step")  # the zero-length segment of the jump
            pre_slope = 0.0
        times.append(t)
        values.append(knot.GetValue())
        vin.append(pre_slope), vout.append(post_slope)
        w_in.append(None if knot.IsDualValued() else knot.GetPreTanWidth())
        w_out.append(knot.GetPostTanWidth())
        interp = _name(knot.GetNextInterpolation())
        if n < len(knots) - 1:
            kinds.append(("cubic" if hermite else "bezier") if interp == "Curve"
                         else _SEGMENTS[interp])
    t = np.array(times, float)
    dt = np.diff(t)
    win = np.full(t.size, 1.0 / 3.0)
    wout = np.full(t.size, 1.0 / 3.0)
    for i in range(t.size):
        if i > 0 and dt[i - 1] > 0 and w_in[i] is not None:
            win[i] = w_in[i] / dt[i - 1]
        if i < t.size - 1 and dt[i] > 0 and w_out[i] is not None:
            wout[i] = w_out[i] / dt[i]
    sides = []
    for end, extrap in enumerate((spline.GetPreExtrapolation(), spline.GetPostExtrapolation())):
        mode = _name(extrap.mode)
        if mode not in _EXTRAPOLATION:
            raise ValueError(f"{func}: extrapolation {mode!r} is not represented by a curve")
        if mode == "Linear":
            # Ts continues with the end knot's inner side: the first knot's
            # post-tangent, the last knot's pre-tangent (a linear end segment's
            # slope, 0 after a held one or from a pre-value)
            # (read from the knots themselves: a pre-value does not count)
            a, b = (knots[0], knots[1]) if end == 0 else (knots[-2], knots[-1])
            interp = _name(a.GetNextInterpolation()) if len(knots) > 1 else "Held"
            if len(knots) == 1 or (end == 0 and knots[0].IsDualValued()):
                slope = 0.0
            elif interp == "Curve":  # (a dual-valued last knot's pre-tangent is not used)
                slope = (a.GetPostTanSlope() if end == 0 else
                         0.0 if b.IsDualValued() else b.GetPreTanSlope())
            elif interp == "Linear":
                slope = (b.GetValue() - a.GetValue()) / (b.GetTime() - a.GetTime())
            else:
                slope = 0.0
            sides.append(("sloped", slope * scale))
            continue
        sides.append((_EXTRAPOLATION[mode], extrap.slope * scale if mode == "Sloped" else None))
    if t.size == 1:
        kinds = "step"
    bezier = "bezier" in kinds
    handles = bezier or "cubic" in kinds  # otherwise the segments set the velocities
    curve = Curve.__new__(Curve)
    curve._build(func, t / scale, np.array(values, float), kinds, None, None,
                 np.array(vin) * scale if handles else None,
                 np.array(vout) * scale if handles else None, sides[0][0], sides[1][0],
                 bool((dt == 0).any()), in_weights=win if bezier else None,
                 out_weights=wout if bezier else None, before_slope=sides[0][1],
                 after_slope=sides[1][1], long_handles=True)
    curve._ease = None
    return curve
