"""Blender F-curves as animcore curves: the same curve Blender evaluates.

:func:`curve_from_keyframes` builds a :class:`~animcore.curves.Curve` from
plain arrays named and valued as ``bpy`` names them (``co``,
``handle_left``, ``interpolation="BEZIER"``, ``handle_left_type="AUTO_CLAMPED"``,
...); :func:`curve_from_fcurve` reads a live ``bpy.types.FCurve`` (inside
Blender or with the ``bpy`` module from PyPI: ``pip install animcore[blender]``).
Nothing here imports ``bpy`` unless :func:`curve_from_fcurve` is called.

What is reproduced, rule by rule (Blender 5.0's ``fcurve.cc``, ``curve.cc``
and ``easing.cc``):

Segments
    Each segment takes the interpolation of its left key. ``"CONSTANT"`` holds
    the left key and reaches the next key at its time (Blender's value at a
    key is that key's, so a CONSTANT last segment gives the last key's value
    at the last key and at cycle seams, on both sides), ``"LINEAR"`` is a line, ``"BEZIER"`` the 2-D Bezier through
    the right handle of the left key and the left handle of the right key,
    each handle first limited to the segment's length in time (scaled back
    along itself, ``BKE_fcurve_correct_bezpart``). The easing interpolations
    (``"BACK"``, ``"BOUNCE"``, ``"CIRC"``, ``"CUBIC"``, ``"ELASTIC"``,
    ``"EXPO"``, ``"QUAD"``, ``"QUART"``, ``"QUINT"``, ``"SINE"``) move the
    value as ``v0 + ease(u) (v1 - v0)`` with ``easing`` ``"EASE_IN"``,
    ``"EASE_OUT"``, ``"EASE_IN_OUT"`` or ``"AUTO"`` (ease out for back, bounce
    and elastic, ease in for the others). Blender's own variants: ``back`` is
    the overshoot s (in_out uses 1.525 s); expo is rescaled so that it starts
    at exactly 0 and ends at 1 (``(2^(10(u-1)) - 2^-10) / (1 - 2^-10)``);
    elastic takes ``amplitude`` in value units and ``period`` in frames (0:
    0.3 of the segment, 0.45 for in_out), and when the amplitude is below the
    segment's change it damps the oscillation to ``amplitude / |change|`` and
    blends it back to full strength within a quarter period of the key; above
    the change, the decaying oscillation of ease out runs with the opposite
    phase direction to Penner's (``Ease(..., variant="blender")``).
Automatic handles
    With ``recompute_handles=True`` the handles of ``"AUTO"``,
    ``"AUTO_CLAMPED"`` and ``"VECTOR"`` keys are computed from the keys alone,
    as ``BKE_fcurve_handles_recalc`` does (in the C core, ``ac_tangents_blender``
    in ``animcore.h``, so an engine embedding it gets the same handles): auto
    handles point along the sum of the unit-time slopes to both neighbours,
    their time length is 0.3904 of the neighbouring interval (``2 / 5.1228``;
    with neighbour intervals limited to 5 times each other) under
    ``auto_smoothing="NONE"``; auto-clamped handles are flat at a local
    extremum and never pass a neighbour's value;
    vector handles point a third of the way to the neighbour. First and last
    auto keys get flat handles under constant extrapolation. Under
    ``"CONT_ACCEL"`` the auto handles have a third of the interval and their
    heights solve Blender's tridiagonal system for continuous acceleration
    (clamped handles within their limits, iterating as Blender does). With a
    Cycles modifier repeating both ways (``"REPEAT"``/``"REPEAT_OFFSET"``) and
    auto handles on both end keys, the end keys see each other across the
    seam. ``"FREE"`` handles are kept as given; an ``"ALIGNED"`` handle
    turns to stay opposite the other handle of its key, keeping its length
    (unless that one is free; with both aligned, the right one follows the
    left when the key's left handle is selected, ``select_left_handle``,
    else the left one follows the right: Blender's order of calculation).
    As Blender 5 does, a handle less than 0.001 frame from its key in time
    is first moved out to 0.001 frame (its value kept).
Arithmetic
    Blender stores keys and handles in float32 and computes handles in
    float32. By default (``float32=True``) the keys and given handles are
    rounded to float32 and the handle rules run step by step in float32 as
    Blender's code rounds them (the continuous-acceleration solve runs in
    float64 on those float32 inputs, its results rounded to float32): keys a
    few 1/256 frame apart, read far along a linear extrapolation, then give
    Blender's value and not the float64 one (-556,304.6 instead of
    -556,212.1 in one reported case). ``float32=False`` runs the same rules
    in float64 on the values as given. The curve itself is evaluated in
    float64.
Extrapolation
    ``"CONSTANT"`` holds the end keys. ``"LINEAR"`` continues along the outer
    handle of a Bezier or eased end key, along the end segment of a linear
    one, and holds a constant one. ``cycles=(mode_before, mode_after)`` is a
    Cycles modifier with infinite cycles: ``"REPEAT"``, ``"REPEAT_OFFSET"``,
    ``"MIRROR"`` or ``"NONE"`` (that side keeps the extrapolation).
Time
    Frames are the time unit; ``fps=`` divides them into seconds (velocities
    and the elastic period follow).

Where this differs from Blender: Blender evaluates in float32 and returns a
key's value for any time within 1e-4 frames of it; animcore computes in
float64 and solves the Bezier time polynomial to 1e-13 of the segment, so
values agree to float32 rounding (about 1e-6 of the value range) except
within 1e-4 frames of a key; Blender also reads the frame itself as a float32.
At a cycle seam Blender takes the key where a cycle ends: evaluate with
``side="left"`` at and after the last key (and the default ``side="right"``
before it) to get its value there exactly, whatever the last segment's
interpolation. Keys closer than 0.01 frame are merged by Blender's
``fcurve.update()``; here they are kept.
A vertical handle (zero time length, non-zero height) has no curve of time
and is an error.
"""
from __future__ import annotations

import numpy as np

from ._arrays import as_float64, flag
from ._handles import _HANDLE_TYPES, _auto_handles
from .curves import Curve
from .easing import EASING_KINDS, Ease
from .layers import Layer, LayerStack, Track  # noqa: E402  (the stack an NLA reads into)

__all__ = ["curve_from_fcurve", "curve_from_keyframes", "layers_from_nla"]

_INTERPOLATIONS = ("CONSTANT", "LINEAR", "BEZIER", "BACK", "BOUNCE", "CIRC", "CUBIC",
                   "ELASTIC", "EXPO", "QUAD", "QUART", "QUINT", "SINE")
_EASINGS = ("AUTO", "EASE_IN", "EASE_OUT", "EASE_IN_OUT")
_CYCLE_MODES = {"NONE": None, "REPEAT": "cycle", "REPEAT_OFFSET": "cycle_offset",
                "MIRROR": "oscillate"}
_EASE_OUT_BY_DEFAULT = ("BACK", "BOUNCE", "ELASTIC")
_BLENDER_FLAG = 1  # the C core's AC_CURVE_EASE_BLENDER
_HOLD_FLAG = 4  # the C core's AC_CURVE_EASE_HOLD


class _BlenderEase(Ease):
    """A segment easing with Blender's parameters in absolute units (value,
    time), as a key stores them; only meaningful on a curve segment."""

    __slots__ = ()

    def __init__(self, kind, overshoot, amplitude, period):
        super().__init__(kind)
        self._params = (float(overshoot), float(amplitude), float(period), _BLENDER_FLAG)

    def __reduce__(self):
        o, a, p, _ = self._params
        return (_BlenderEase, (self.name, o, a, p))

    def _state(self) -> dict:
        o, a, p, _ = self._params
        return {"kind": self.name, "overshoot": o, "amplitude": a, "period": p}

    @classmethod
    def _from_state(cls, state: dict) -> "_BlenderEase":
        return cls(state["kind"], state["overshoot"], state["amplitude"], state["period"])

    def __repr__(self):
        o, a, p, _ = self._params
        return f"BlenderEase({self.name!r}, back={o:g}, amplitude={a:g}, period={p:g})"


class _BlenderConstant(Ease):
    """Blender's CONSTANT segment: it holds its first key and reaches the next
    key at its end, so that the end key's value holds at its own time from
    both sides (a step whose left side at the end is the end key; the C
    core's AC_CURVE_EASE_HOLD). Blender evaluates a time on a key, the last
    key and every cycle seam to that key's value."""

    __slots__ = ()

    def __init__(self):
        super().__init__("linear")
        self._params = (0.0, 0.0, 0.0, _BLENDER_FLAG | _HOLD_FLAG)

    def __reduce__(self):
        return (_BlenderConstant, ())

    def _state(self) -> dict:
        return {}

    @classmethod
    def _from_state(cls, state: dict) -> "_BlenderConstant":
        return cls()

    def __repr__(self):
        return "BlenderConstant()"


def _per_key(func, name, value, k, options=None, number=False):
    """One value per key from a scalar or a sequence of K."""
    if isinstance(value, str) or np.ndim(value) == 0:
        values = [value] * k
    else:
        values = list(value)
        if len(values) != k:
            raise ValueError(f"{func}: {name} has {len(values)} entries, expected one per key "
                             f"({k})")
    if number:
        array = as_float64(func, name, values)
        bad = ~np.isfinite(array)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{func}: {name} at index ({i},) is {float(array[i])!r} (must be "
                             f"finite)")
        return array
    for i, v in enumerate(values):
        if v not in options:
            raise ValueError(f"{func}: {name} at index ({i},) is {v!r} (must be one of "
                             f"{', '.join(repr(o) for o in options)})")
    return values


# -- building the curve ---------------------------------------------------------------

def _segment_interpolation(kind, easing, back, amplitude, period):
    if kind == "CONSTANT":
        return _BlenderConstant()
    if kind == "LINEAR":
        return "linear"
    if kind == "BEZIER":
        return "bezier"
    if easing == "AUTO":
        easing = "EASE_OUT" if kind in _EASE_OUT_BY_DEFAULT else "EASE_IN"
    suffix = {"EASE_IN": "in", "EASE_OUT": "out", "EASE_IN_OUT": "in_out"}[easing]
    name = f"{kind.lower()}_{suffix}"
    assert name in EASING_KINDS
    return _BlenderEase(name, back, amplitude, period)


def curve_from_keyframes(co, *, interpolation="BEZIER", easing="AUTO", handle_left=None,
                         handle_right=None, handle_left_type="AUTO_CLAMPED",
                         handle_right_type="AUTO_CLAMPED", back=1.70158, amplitude=0.8,
                         period=4.1, extrapolation: str = "CONSTANT",
                         auto_smoothing: str = "NONE", cycles=None,
                         recompute_handles: bool = True, fps=None, select_left_handle=True,
                         float32: bool = True) -> Curve:
    """The curve a Blender F-curve with these keyframes evaluates.

    Parameters
    ----------
    co : array_like, shape (K, 2)
        Key points ``(frame, value)``, frames strictly increasing.
    interpolation, easing, handle_left_type, handle_right_type : str or sequence of K
        Per key, with bpy's values (see the module documentation); a key's
        interpolation shapes the segment after it.
    handle_left, handle_right : array_like (K, 2), optional
        Handle points ``(frame, value)``; needed for ``"FREE"``/``"ALIGNED"``
        keys and for every key with ``recompute_handles=False``.
    back, amplitude, period : float or sequence of K
        Easing parameters of each key's segment (Blender's defaults).
    extrapolation : {"CONSTANT", "LINEAR"}
    auto_smoothing : {"NONE", "CONT_ACCEL"}
    cycles : (mode_before, mode_after), optional
        A Cycles modifier (first in the stack, infinite cycles).
    recompute_handles : bool
        Compute the handles of automatic and vector keys by Blender's rules
        (True) or use the given ones as they are.
    fps : float, optional
        Frames per second: the curve's time is then in seconds.
    select_left_handle : bool or sequence of K
        bpy's ``select_left_handle`` of each key: which handle of an
        ``"ALIGNED"`` pair Blender turns when it recomputes handles (selected:
        the right handle follows the left; unselected: the left follows the
        right).
    float32 : bool
        Blender's arithmetic (the default): keys and handles rounded to
        float32 as Blender stores them, and the handle rules of
        ``recompute_handles=True`` computed in float32 step by step as
        Blender computes them. False: the same rules in float64 on the
        values as given.

    Returns
    -------
    Curve

    Raises
    ------
    ValueError
        Bad shapes, unordered frames, unknown option values, missing handles,
        a handle on the wrong side of its key or a vertical handle.
    """
    func = "curve_from_keyframes"
    co = as_float64(func, "co", co)
    if co.ndim != 2 or co.shape[1] != 2 or co.shape[0] < 1:
        raise ValueError(f"{func}: co has shape {co.shape}, expected (K, 2) (frame, value) "
                         f"points with K >= 1")
    if not np.isfinite(co).all():
        i = np.unravel_index(int(np.flatnonzero(~np.isfinite(co))[0]), co.shape)
        raise ValueError(f"{func}: co at index {tuple(int(x) for x in i)} is "
                         f"{float(co[i])!r} (must be finite)")
    k = co.shape[0]
    steps = np.diff(co[:, 0])
    if (steps <= 0).any():
        i = int(np.flatnonzero(steps <= 0)[0]) + 1
        raise ValueError(f"{func}: co at index ({i}, 0) is {float(co[i, 0])!r} (frames must "
                         f"increase: the previous key is at {float(co[i - 1, 0])!r})")
    interp = _per_key(func, "interpolation", interpolation, k, _INTERPOLATIONS)
    eases = _per_key(func, "easing", easing, k, _EASINGS)
    lt = _per_key(func, "handle_left_type", handle_left_type, k, _HANDLE_TYPES)
    rt = _per_key(func, "handle_right_type", handle_right_type, k, _HANDLE_TYPES)
    backs = _per_key(func, "back", back, k, number=True)
    amps = _per_key(func, "amplitude", amplitude, k, number=True)
    periods = _per_key(func, "period", period, k, number=True)
    if extrapolation not in ("CONSTANT", "LINEAR"):
        raise ValueError(f"{func}: extrapolation is {extrapolation!r} (must be 'CONSTANT' or "
                         f"'LINEAR')")
    if auto_smoothing not in ("NONE", "CONT_ACCEL"):
        raise ValueError(f"{func}: auto_smoothing is {auto_smoothing!r} (must be 'NONE' or "
                         f"'CONT_ACCEL')")
    if cycles is not None:
        if (not isinstance(cycles, (tuple, list)) or len(cycles) != 2
                or any(not isinstance(m, str) or m not in _CYCLE_MODES for m in cycles)):
            raise ValueError(f"{func}: cycles is {cycles!r} (must be None or (mode_before, "
                             f"mode_after) with modes 'NONE', 'REPEAT', 'REPEAT_OFFSET', "
                             f"'MIRROR')")
    if fps is not None:
        fps = _fps(func, fps)
    if isinstance(select_left_handle, (bool, np.bool_)):
        selected = [bool(select_left_handle)] * k
    else:
        try:
            selected = list(select_left_handle)
        except TypeError:
            selected = None
        if (selected is None or len(selected) != k
                or not all(isinstance(v, (bool, np.bool_)) for v in selected)):
            raise ValueError(f"{func}: select_left_handle is {select_left_handle!r} (must be a "
                             f"bool or a sequence of {k} bools, one per key)")
        selected = [bool(v) for v in selected]
    flag(func, "float32", float32)
    if float32:
        given, co = co, _as_float32(func, "co", co)
        same = np.flatnonzero(np.diff(co[:, 0]) <= 0)
        if same.size:
            i = int(same[0]) + 1
            raise ValueError(f"{func}: co at index ({i}, 0) is {float(given[i, 0])!r}"
                             f" (frames must differ in float32, as Blender stores them: the "
                             f"previous key rounds to the same frame; pass float32=False to "
                             f"use float64)")
    handles = {}
    for name, h, types in (("handle_left", handle_left, lt), ("handle_right", handle_right, rt)):
        if h is None:
            needs = [i for i, t in enumerate(types)
                     if t in ("FREE", "ALIGNED") or not recompute_handles]
            if needs:
                why = ("recompute_handles=False" if not recompute_handles
                       else f"{types[needs[0]]!r} keys")
                raise ValueError(f"{func}: {name} is needed for {why} (key {needs[0]} has no "
                                 f"handle)")
            h = co.copy()
        else:
            h = as_float64(func, name, h)
            if h.shape != co.shape:
                raise ValueError(f"{func}: {name} has shape {h.shape}, expected {co.shape}")
            if not np.isfinite(h).all():
                i = np.unravel_index(int(np.flatnonzero(~np.isfinite(h))[0]), h.shape)
                raise ValueError(f"{func}: {name} at index {tuple(int(x) for x in i)} is "
                                 f"{float(h[i])!r} (must be finite)")
            h = _as_float32(func, name, h) if float32 else np.array(h)
        handles[name] = h
    left, right = handles["handle_left"], handles["handle_right"]
    modes = (None, None) if cycles is None else tuple(_CYCLE_MODES[m] for m in cycles)
    cyclic = cycles is not None and all(m in ("REPEAT", "REPEAT_OFFSET") for m in cycles)
    if recompute_handles and k > 1:
        _auto_handles(co, left, right, lt, rt, auto_smoothing, cyclic,
                      extrapolation == "CONSTANT", float32=bool(float32), min_length=True,
                      left_selected=selected)
    scale = 1.0 if fps is None else 1.0 / fps
    with np.errstate(over="ignore", under="ignore"):
        times, values = co[:, 0] * scale, co[:, 1]
        spans = scale * (np.ptp(left[:, 0]) + np.ptp(right[:, 0]))
    if fps is not None and (not np.isfinite(times).all() or (np.diff(times) <= 0).any()
                            or not np.isfinite(spans)):
        raise ValueError(f"{func}: fps is {fps!r} (the key frames {float(co[0, 0])!r} to "
                         f"{float(co[-1, 0])!r} in seconds at this rate are not distinct "
                         f"finite times)")
    with np.errstate(over="ignore"):  # (beyond the double range: refused below)
        seconds = np.asarray(periods, dtype=np.float64) * scale
        # handles as velocities (per time unit) and weights (fractions of the segment)
        dt_in, dt_out = (co[:, 0] - left[:, 0]) * scale, (right[:, 0] - co[:, 0]) * scale
        dv_in, dv_out = co[:, 1] - left[:, 1], right[:, 1] - co[:, 1]
    if not np.isfinite(seconds[:k - 1]).all():
        j = int(np.flatnonzero(~np.isfinite(seconds[:k - 1]))[0])
        raise OverflowError(f"{func}: period at index ({j},) is {float(periods[j])!r} frames, "
                            f"beyond the double range in seconds at fps={fps!r}")
    segments = [_segment_interpolation(interp[j], eases[j], backs[j], amps[j],
                                       float(seconds[j])) for j in range(k - 1)]
    for name, dt, dv in (("handle_left", dt_in, dv_in), ("handle_right", dt_out, dv_out)):
        if (dt < 0).any():
            i = int(np.flatnonzero(dt < 0)[0])
            raise ValueError(f"{func}: {name} at index ({i}, 0) is "
                             f"{float(handles[name][i, 0])!r} (a handle may not lie on the "
                             f"other side of its key at frame {float(co[i, 0])!r})")
        bad = (dt == 0) & (dv != 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{func}: {name} at index ({i},) is a vertical handle (same "
                             f"frame as its key, value offset {float(dv[i])!r})")
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        vin = np.where(dt_in > 0, dv_in / np.where(dt_in > 0, dt_in, 1.0), 0.0)
        vout = np.where(dt_out > 0, dv_out / np.where(dt_out > 0, dt_out, 1.0), 0.0)
        seg = np.diff(times)
        w_in, w_out = np.full(k, 1.0 / 3.0), np.full(k, 1.0 / 3.0)
        w_in[1:], w_out[:-1] = dt_in[1:] / seg, dt_out[:-1] / seg
    for name, numbers in (("handle_left", np.column_stack([dt_in, dv_in, vin, w_in])),
                          ("handle_right", np.column_stack([dt_out, dv_out, vout, w_out]))):
        if not np.isfinite(numbers).all():
            i = int(np.argwhere(~np.isfinite(numbers))[0, 0])
            raise OverflowError(f"{func}: {name} at index ({i},) is "
                                f"{handles[name][i].tolist()!r}: its slope or length is "
                                f"beyond the double range (key {co[i].tolist()!r}"
                                f"{'' if fps is None else f', fps={fps!r}'})")
    # extrapolation slopes (fcurve_eval_keyframes_extrapolate)
    sides = []
    for end, handle_slope, neighbour in ((0, vin[0], 1), (k - 1, vout[-1], k - 2)):
        if extrapolation == "CONSTANT" or interp[end] == "CONSTANT" or k == 1:
            sides.append(("clamp", None))
        elif interp[end] == "LINEAR":
            sides.append(("sloped", (values[neighbour] - values[end])
                          / (times[neighbour] - times[end])))
        else:
            dt = dt_in[0] if end == 0 else dt_out[-1]
            sides.append(("sloped", handle_slope) if dt > 0 else ("clamp", None))
    (before, before_slope), (after, after_slope) = sides
    if modes[0] is not None:
        before, before_slope = modes[0], None
    if modes[1] is not None:
        after, after_slope = modes[1], None
    if k == 1:
        return Curve(times, values, interpolation="step")
    bezier = any(s == "bezier" for s in segments)
    return Curve(times, values, interpolation=segments, in_velocities=vin if bezier else None,
                 out_velocities=vout if bezier else None,
                 in_weights=w_in if bezier else None, out_weights=w_out if bezier else None,
                 before=before, after=after, before_slope=before_slope,
                 after_slope=after_slope)


def _fps(func, fps) -> float:
    """fps as a positive float whose reciprocal is finite, or a ValueError."""
    if isinstance(fps, (bool, np.bool_)) or not isinstance(fps, (int, float, np.integer,
                                                                np.floating)):
        raise ValueError(f"{func}: fps is {fps!r} (must be a finite number > 0)")
    try:
        value = float(fps)
    except OverflowError:
        value = float("inf")
    if not (np.isfinite(value) and value > 0 and np.isfinite(1.0 / value)):
        shown = (repr(fps) if not isinstance(fps, (int, np.integer)) or abs(fps) < 10**20
                 else f"an integer of {len(str(abs(int(fps))))} digits")
        raise ValueError(f"{func}: fps is {shown} (must be a finite number > 0 whose "
                         f"reciprocal is finite)")
    return value


def _as_float32(func, name, array):
    """A float64 copy of array rounded to float32 (Blender's storage), or a
    ValueError naming the first entry beyond float32's range."""
    with np.errstate(over="ignore"):
        rounded = np.asarray(array, np.float64).astype(np.float32)
    bad = ~np.isfinite(rounded)
    if bad.any():
        i = np.unravel_index(int(np.flatnonzero(bad)[0]), rounded.shape)
        raise ValueError(f"{func}: {name} at index {tuple(int(x) for x in i)} is "
                         f"{float(np.asarray(array)[i])!r} (beyond float32, in which Blender "
                         f"stores keys; pass float32=False to use float64)")
    return rounded.astype(np.float64)


def curve_from_fcurve(fcurve, *, fps=None, recompute_handles: bool = False) -> Curve:
    """The curve of a live ``bpy.types.FCurve``.

    The keyframes, their handles as Blender stores them (already computed by
    Blender; ``recompute_handles=True`` recomputes them from the keys), the
    curve's extrapolation and auto smoothing, and a Cycles modifier when it
    is the first modifier, unmuted, unrestricted and repeats forever.

    Raises
    ------
    ValueError
        An F-curve without keyframes, or modifiers other than one such
        Cycles modifier (their effect is not reproduced).
    """
    func = "curve_from_fcurve"
    points = list(fcurve.keyframe_points)
    if not points:
        raise ValueError(f"{func}: the F-curve has no keyframes (sampled curves are not "
                         f"supported)")
    cycles = None
    modifiers = [m for m in fcurve.modifiers if not m.mute]
    for n, m in enumerate(modifiers):
        if (m.type != "CYCLES" or n > 0 or m.use_restricted_range or m.use_influence
                or m.cycles_before or m.cycles_after):
            raise ValueError(f"{func}: modifier {m.name!r} ({m.type}) is not reproduced (only "
                             f"a first, unrestricted Cycles modifier with infinite cycles)")
        cycles = (m.mode_before, m.mode_after)
    return curve_from_keyframes(
        [tuple(p.co) for p in points],
        interpolation=[p.interpolation for p in points],
        easing=[p.easing for p in points],
        handle_left=[tuple(p.handle_left) for p in points],
        handle_right=[tuple(p.handle_right) for p in points],
        handle_left_type=[p.handle_left_type for p in points],
        handle_right_type=[p.handle_right_type for p in points],
        back=[p.back for p in points], amplitude=[p.amplitude for p in points],
        period=[p.period for p in points], extrapolation=fcurve.extrapolation,
        auto_smoothing=fcurve.auto_smoothing, cycles=cycles,
        recompute_handles=recompute_handles, fps=fps,
        select_left_handle=[bool(getattr(p, "select_left_handle", True)) for p in points])


# -- Blender's NLA: AnimData read into a LayerStack (its rules in animcore.layers)

def _fcurves(action) -> list:
    """An action's F-curves: Blender 5's layers and channel bags, or the
    ``fcurves`` of older versions."""
    found = []
    for layer in getattr(action, "layers", None) or ():
        for strip in layer.strips:
            for bag in getattr(strip, "channelbags", None) or ():
                found.extend(bag.fcurves)
    if not found and getattr(action, "fcurves", None) is not None:
        found = list(action.fcurves)
    return found


def _curve(fcurve) -> Curve:
    points = list(fcurve.keyframe_points)
    if len(points) == 1:  # one key: a constant (its stored handles may be stale)
        return Curve([float(points[0].co[0])], [float(points[0].co[1])], interpolation="linear")
    return curve_from_fcurve(fcurve, recompute_handles=False)


def _source(action) -> dict:
    return {(fc.data_path, int(fc.array_index)): _curve(fc) for fc in _fcurves(action)}


def _key_range(action) -> tuple[float, float]:
    frames = [float(k.co[0]) for fc in _fcurves(action) for k in fc.keyframe_points]
    if not frames:
        return 0.0, 1.0
    lo, hi = min(frames), max(frames)
    return (lo, hi) if hi > lo else (lo, lo + 1.0)


def layers_from_nla(anim_data) -> LayerStack:
    """The :class:`LayerStack` Blender evaluates for an ``AnimData``.

    Reads bpy's attribute names (a live ``bpy.types.AnimData`` or any object
    with them): ``action``, ``action_blend_type``, ``action_influence``,
    ``action_extrapolation``, and ``nla_tracks`` with ``mute``, ``is_solo``
    and ``strips``: ``action``, ``blend_type``, ``influence``,
    ``use_animated_influence`` with the strip's ``fcurves`` (its
    ``influence`` curve), ``blend_in``, ``blend_out``, ``extrapolation``,
    ``frame_start``, ``frame_end``, ``action_frame_start``,
    ``action_frame_end``, ``repeat``, ``scale``, ``use_reverse``, ``mute``.
    Actions' F-curves become curves through
    :func:`animcore.blender.curve_from_fcurve` (stored handles).
    ``use_auto_blend`` is read through the blend lengths bpy stores.
    """
    tracks = []
    for track in anim_data.nla_tracks:
        layers = []
        for strip in track.strips:
            influence = float(strip.influence)
            animated = bool(strip.use_animated_influence)
            if animated:
                curves = [fc for fc in getattr(strip, "fcurves", ()) or ()
                          if fc.data_path == "influence"]
                if curves:
                    influence = _curve(curves[0])
            layers.append(Layer(
                _source(strip.action) if strip.action is not None else {},
                mode=strip.blend_type, influence=influence, use_influence=animated,
                blend_in=float(strip.blend_in), blend_out=float(strip.blend_out),
                extrapolation=strip.extrapolation, frame_start=float(strip.frame_start),
                frame_end=float(strip.frame_end),
                action_frame_start=float(strip.action_frame_start),
                action_frame_end=float(strip.action_frame_end), repeat=float(strip.repeat),
                scale=float(strip.scale), reverse=bool(strip.use_reverse),
                mute=bool(strip.mute), name=str(getattr(strip, "name", ""))))
        tracks.append(Track(layers, mute=bool(track.mute), solo=bool(track.is_solo),
                            name=str(getattr(track, "name", ""))))
    action = None
    if getattr(anim_data, "action", None) is not None:
        extrapolation = getattr(anim_data, "action_extrapolation", "HOLD")
        lo, hi = _key_range(anim_data.action)
        action = Layer(_source(anim_data.action), mode=anim_data.action_blend_type,
                       influence=float(anim_data.action_influence), use_influence=True,
                       extrapolation=extrapolation, frame_start=lo, frame_end=hi,
                       time_map=extrapolation == "NOTHING", name="action")
    return LayerStack(tracks, action=action)
