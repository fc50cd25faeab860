"""Keyframe curves: multi-key, multi-channel tracks evaluated in C.

A :class:`Curve` holds key times (seconds), key values (one or more channels)
and, for cubic interpolation, a per-second velocity on each side of every key.
Velocities come from a tangent policy or are given explicitly; each segment
turns them into Hermite tangents with its *own* duration (``tangent =
duration * velocity``), which is what keeps a curve smooth on uneven key
spacing. The curve is validated and built once in C; every query then finds
its segment and normalized parameter ``u`` once and reuses them for all
channels.

Tangent policies (``tangents=``), all velocities per second. By default a
curve has clamped automatic tangents, the keys Blender, Maya and Unity make by
default, by Blender's rule: ``"auto_clamped"`` handles on ``"bezier"``
segments (the default interpolation), smooth, and never beyond the values of
a segment's two keys (a hold holds). ``tangents="catmull_rom"`` is the
default of earlier versions (cubic segments, exactly as before; it
overshoots holds). Without tangents, Hermite ``"cubic"`` segments
(``interpolation="cubic"``, or a per-segment sequence with cubic and no
bezier segments), and bezier segments whose ``in_weights`` /
``out_weights`` are given, take ``"clamped"``; given velocities make the
tangents ``"explicit"``.

``"catmull_rom"``
    interior key ``i``: ``(v[i+1] - v[i-1]) / (t[i+1] - t[i-1])``, the same on
    both sides, so the curve is C1 on any key spacing. End rule: an end key
    takes the slope of its segment, ``(v[1] - v[0]) / (t[1] - t[0])`` (a
    two-key curve is a straight line).
``"catmull_rom_uniform"``
    the legacy variant: the normalized tangent ``(v[i+1] - v[i-1]) / 2`` is used
    as is in both neighbouring segments, so the velocity differs on the two
    sides of a key unless the spacing is even (ends: ``v[1] - v[0]``).
``"pchip"``
    monotone piecewise cubic, the interior and end formulas of
    ``scipy.interpolate.PchipInterpolator`` (weighted harmonic mean of the
    neighbouring slopes, zero at a local extremum; shape-preserving
    three-point ends).
``"clamped"``
    a Hermite rule (not Blender's, whose handles are longer) that never
    overshoots the values of a segment's two keys: zero velocity at a local
    extremum or next to a hold (a neighbouring key of equal value);
    elsewhere the catmull_rom velocity, its magnitude limited to three times
    the smaller neighbouring segment slope (the Fritsch-Carlson bound, under
    which each segment is monotone). End keys take their segment's slope.
``"flat"``
    zero velocity at every key.

``"natural"``
    the C2 cubic spline with zero second derivative at both ends (equal to
    ``scipy.interpolate.CubicSpline(bc_type="natural")``).
``"auto_clamped"`` (the default), ``"auto"``, ``"vector"``
    Blender's automatic handles (``BKE_fcurve_handles_recalc``, in the C
    core; see :mod:`animcore.blender`), for ``"bezier"`` segments: they set
    each handle's slope and time length, and the default interpolation is
    then "bezier". An auto handle points along the mean of the slopes of
    its key's two segments and is 0.3904 of the neighbouring interval long
    (Blender's ``2 / 5.1228``, with neighbouring intervals limited to 5 times
    each other), so the curve is C1 but not a Hermite cubic (whose handles
    are a third of the segment). ``"auto_clamped"`` also flattens the
    handles at a local extremum or next to a hold, and cuts a handle that
    would pass its neighbour's value to that value (the other one turns to
    stay in line), so no segment leaves its keys' range; ``"vector"`` points
    a third of the way to the neighbour. End keys of auto handles are flat
    under ``"clamp"`` extrapolation and keep their segment's slope under the
    others; with cycling extrapolation on both sides the end keys see each
    other across the seam. ``auto_smoothing="cont_accel"`` is Blender's
    "continuous acceleration" smoothing (``"none"`` by default). A sequence
    of K entries mixes them per key, with ``"free"`` for a key that keeps
    its given ``in_velocities`` / ``out_velocities`` and weights.
    ``"auto_clamped"`` on the default bezier segments is the curve Blender
    evaluates for an F-curve of AUTO_CLAMPED keys with Blender's default
    settings (auto smoothing None, constant extrapolation), with times in
    seconds for frames, to Blender's float32 rounding: Blender computes
    handles in float32 and animcore in float64 (a difference of about 1e-7
    of the value range on Blender's recorded curves; up to 1e-4 far along a
    linear extrapolation from keys a few thousandths of a frame apart;
    :func:`animcore.blender.curve_from_keyframes` repeats Blender's float32
    steps and reads frames), and Blender 5's shortest handle of 0.001 frame
    does not apply. Blender's keys have no jumps: with ``jumps=True`` the
    rules run on each piece, whose keys at a jump keep their segment's
    slope. A curve of one key is constant. Each query on a
    Bezier segment solves its time polynomial: such curves cost more to
    build and three to four times as much to evaluate as "cubic" ones, and
    glTF, whose samplers are Hermite, stores them only as samples (see
    :func:`animcore.gltf.save`); ``interpolation="cubic"`` (tangents
    "clamped") is the fast Hermite curve that never overshoots either.
``"auto_ease"``
    OpenUSD's AutoEase (Ts's ``TsTangentAlgorithmAutoEase``, Maya's "auto
    ease"), for cubic and bezier segments: at an interior key with slopes
    ``s0`` (from the previous key) and ``s1`` (to the next) of the same sign,
    ``(1 - g) s0 + g s1`` with ``g = 1/2 + u (1/2 + 2 u^2)``, ``u = f - 1/2``
    and ``f`` the key's time fraction between its neighbours (the nearer
    neighbour weighs more), limited to ``3 min(|s0|, |s1|)``; zero at a local
    extremum or next to a hold, at both keys of a jump and at the end keys
    (whatever the extrapolation, as Ts does); handles of 1/3 of the interval.
    Also an entry of a per-key sequence beside Blender's names.

Jumps (``jumps=True``) split the keys into pieces at each pair of equal times;
the policies are applied to each piece on its own. A jump may sit at the first
or the last key too (a key with two values): the value just before the first
key time is then ``values[0]`` and the one from it on ``values[1]``.

Per-segment interpolation, as the tools store it (on each segment's left key):
``interpolation=`` is one entry for every segment or a sequence of K-1
entries, each ``"step"`` (alias ``"constant"``), ``"linear"``, ``"cubic"``
(Hermite: handles of time length 1/3 of the segment), ``"bezier"`` (handles
of any time length, see below) or an easing (a kind name such as
``"back_out"``, an :class:`~animcore.easing.Ease` or a
:class:`~animcore.easing.CubicBezier`), whose segment is ``v0 + ease(u) (v1 -
v0)``: the easing shapes the path itself, as Blender's easing interpolations
do (``ease=`` instead keeps its meaning of a time remap). Key velocities from
a tangent policy apply to the cubic and Bezier segments; the other kinds set
the velocity on their own sides (a linear segment's slope, 0 for a step, an
easing's rate at its ends), and ``in_velocities`` / ``out_velocities`` report
them.

Weighted tangents: on a ``"bezier"`` segment each handle is a point in (time,
value): the handle leaving key i lies ``out_weights[i] * T`` seconds after it
along its velocity ``out_velocities[i]`` (T the segment's duration), the one
arriving at key i+1 ``in_weights[i+1] * T`` seconds before it. 1/3 (the
default) is the Hermite case. The segment is the 2-D cubic Bezier through
those points, evaluated by solving its time polynomial for the curve
parameter (Newton steps from a per-segment table, then a bracketed solve
wherever they have not reached 1e-13 of the segment's duration). A handle
reaching past the other key in time (weight > 1) is scaled back along itself
to the segment's length, keeping its slope (Blender's
``BKE_fcurve_correct_bezpart`` rule); with both handles inside the segment
time never goes backwards, so every time has one value.

Sides: ``evaluate(t, side="right")`` (the default) gives at a key time, a
jump, a cycle seam or a mirrored key of ``"oscillate"`` the value and
derivatives just after ``t``; ``side="left"`` those just before. At the last
key the right side is the extrapolation (under ``"clamp"`` velocity 0, under
``"cycle"`` the start of the next cycle); at the first key the left side is.
Outside ``"error"`` extrapolation the side that does not exist is replaced by
the other.

Extrapolation ``"linear"`` continues along the outer side of the end key:
``in_velocities[0]`` before the first key and ``out_velocities[-1]`` after
the last (the outer handles); ``"sloped"`` continues with a slope given by
``before_slope`` / ``after_slope``.

Easing remaps time, never the path. ``ease=``
remaps time inside every segment: at clip time ``t`` in segment ``i`` with
``u = (t - t[i]) / (t[i+1] - t[i])`` the curve is sampled at
``t[i] + ease(u) * (t[i+1] - t[i])``, and velocities follow the chain rule
(multiplied by ``ease'(u)``). It brakes at every key where ``ease'`` is 0
(smoothstep). :meth:`Curve.remap_time` applies one remap over the whole clip
instead, and brakes only at its ends. Either way the curve passes through the
same poses, only at other times; an easing that leaves [0, 1] (back, elastic)
samples the curve's own neighbouring segment or extrapolation there, so the
path is still the curve's (under ``"error"`` extrapolation a time whose
remapped time leaves the keys is refused, naming both). Cycling
extrapolation repeats the eased keys.
Easing and cubic-bezier remaps run in the C core in the same pass as the
curve, with second derivatives by the chain rule; a time ``Curve`` or a
``Steps`` easing is applied in NumPy first.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Iterator, NamedTuple, Optional

import numpy as np

from . import _core
from ._arrays import (as_float64, check_out, choice, contiguous, flag, frozen_copy, results,
                      stretch_factor)
from ._options import (EXTRAPOLATIONS, INTERPOLATION_ALIASES, INTERPOLATIONS, SIDES,
                       TANGENT_ALIASES, TANGENT_HINTS, aliases_for, check_fields, check_sorted,
                       derivative_order, extrapolation_option, interpolation_option, option)
from ._objects import ByValue
from .easing import (EASING_KINDS, CubicBezier, Ease, Easing, Steps, as_easing_for,
                     easing_from_data, easing_to_data)
from .easing import _curve_class as _easing_curve_class

__all__ = ["Curve", "CurveDerivative", "CurveKey", "CurveSample", "KeySlopes", "Overshoot"]

# The key-track vocabulary shared with RotationCurve and LoopTrack (_options).
_INTERPOLATION = INTERPOLATIONS
_SEGMENT_KINDS = {"step": 0, "constant": 0, "linear": 1, "cubic": 2, "bezier": 3}
_EASED = 4
_TANGENTS = {"catmull_rom": 0, "catmull_rom_uniform": 1, "pchip": 2, "clamped": 3,
             "flat": 4, "natural": 6}
_EXPLICIT = 5
_EXTRAPOLATION = EXTRAPOLATIONS
_SIDES = SIDES
_EASE_RELATIVE = 2  # amplitude and period relative to the segment (Penner's meaning)
_GLTF = {"STEP": "step", "LINEAR": "linear", "CUBICSPLINE": "cubic"}
_GLTF_ALIASES = {"cubic": "CUBICSPLINE", "constant": "STEP"}


def _interpolation(func, value, options=_INTERPOLATION):
    return interpolation_option(func, value, options, "a Curve")


def _extrapolation(func, name, value, options=_EXTRAPOLATION):
    return extrapolation_option(func, name, value, options, "a Curve")


class CurveKey(NamedTuple):
    """One key of a curve: time (s), value (a float, or a (C,) array) and the
    per-second velocities arriving at and leaving the key, as evaluated."""

    time: float
    value: Any
    in_velocity: Any
    out_velocity: Any


class CurveSample(NamedTuple):
    """Value and per-second velocity of a curve at query times."""

    value: np.ndarray
    velocity: np.ndarray


class KeySlopes(NamedTuple):
    """One-sided velocities (per second) at every interior key time.

    ``left`` is the velocity arriving at the key, ``right`` the one leaving it
    and ``jump = right - left`` (0 for a C1 curve). Arrays have shape ``(M,)``,
    or ``(M, C)`` for a multi-channel curve, where M is the number of interior
    key times.

    A side whose segment reaches the key with a vertical tangent (an easing
    whose rate is infinite there: the circ kinds, a cubic-bezier with a
    vertical end) has an infinite slope, ``+inf`` or ``-inf`` by the
    direction the value moves; ``jump`` is then infinite too. Never NaN:
    :meth:`Curve.key_slopes` raises OverflowError where the jump does not
    exist as a double (two finite slopes whose difference overflows, or two
    infinite slopes of the same sign).
    """

    time: np.ndarray
    left: np.ndarray
    right: np.ndarray
    jump: np.ndarray


class Overshoot(NamedTuple):
    """Exact extremes of every segment against its two keys' values.

    ``start``/``end``: segment times (S,); ``key_low``/``key_high``: the
    smaller/larger of the segment's two key values; ``low``/``high``: the
    curve's extreme values on the segment and ``time_low``/``time_high`` where
    they occur (roots of the cubic's derivative, or segment ends);
    ``overshoot``: how far the curve leaves ``[key_low, key_high]`` (>= 0).
    Per-channel arrays are (S,) or (S, C). Zero-length jump segments are left out.
    """

    start: np.ndarray
    end: np.ndarray
    key_low: np.ndarray
    key_high: np.ndarray
    low: np.ndarray
    high: np.ndarray
    time_low: np.ndarray
    time_high: np.ndarray
    overshoot: np.ndarray


# The evaluation kernel of each derivative order.
_ORDER_KERNELS = {0: _core._curve_value, 1: _core._curve_velocity, 2: _core._curve_acceleration}


def _end_factor(easing, end: int) -> float:
    """lim (s(u) - s(end)) * s'(u) as u -> end (0 or 1) for an easing whose
    rate is infinite there, s - s(end) going like sqrt(|u - end|); inf when
    s is steeper still (then no curve at rest keeps a finite velocity)."""
    from .easing import CubicBezier, Ease

    if isinstance(easing, Ease):
        # circ_out: s^2 = 2u - u^2; circ_in: (1 - s)^2 = 1 - u^2
        return {("circ_out", 0): 1.0, ("circ_in", 1): -1.0}.get((easing.name, end), np.inf)
    if isinstance(easing, CubicBezier):
        x1, y1, x2, y2 = easing.x1, easing.y1, easing.x2, easing.y2
        # x ~ 3 x2 t^2 and y ~ 3 y1 t at t = 0 (x1 = 0); mirrored at t = 1 (x2 = 1)
        if end == 0 and x1 == 0 and x2 > 0:
            return 1.5 * y1 * y1 / x2
        if end == 1 and x2 == 1 and x1 < 1:
            return -1.5 * (1 - y2) * (1 - y2) / (1 - x1)
    return np.inf


def _first_bad(func: str, name: str, array: np.ndarray, detail: str = "must be finite"):
    bad = ~np.isfinite(array)
    if bad.any():
        index = np.unravel_index(int(np.flatnonzero(bad)[0]), array.shape)
        value = float(array[index])
        raise ValueError(f"{func}: {name} at index {tuple(int(i) for i in index)} is "
                         f"{value!r} ({detail})")


def _ratio(x, start, end):
    """(x - start) / (end - start) for x in [start, end], also when the keys
    lie more than DBL_MAX apart (then on halves, as the evaluator does)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        plain = (x - start) / (end - start)
        halves = (0.5 * x - 0.5 * start) / (0.5 * end - 0.5 * start)
        return np.where(np.isfinite(end - start), plain, halves)


def _between(start, end, s):
    """start + s * (end - start), on halves where the span overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        plain = start + s * (end - start)
        halves = (0.5 * start + s * (0.5 * end - 0.5 * start)) * 2.0
        return np.where(np.isfinite(end - start), plain, halves)


def _fold(t, lo, hi, mirror):
    """The folded times and odd-cycle flags of cycling extrapolation, exactly
    as the core's ac_cycle_fold computes them (hi - lo or t - lo may overflow)."""
    with np.errstate(over="ignore", invalid="ignore"):
        h = np.where(np.isfinite(hi - lo) & np.isfinite(t - lo), 1.0, 0.5)
        period, x = hi * h - lo * h, t * h - lo * h
        r = np.fmod(x, period)
        r = np.where(r < 0, r + period, r)
        r = np.where(r >= period, 0.0, r)
        double = 2.0 * period
        q = np.fmod(x, double)
        q = np.where(q < 0, q + double, q)
        odd = np.where(np.isfinite(double), (q >= period) & (q < double),
                       np.where(x >= 0, x >= period, x >= -period))
        local = np.where(mirror & odd, (hi * h - r) / h, (lo * h + r) / h)
    return np.clip(local, lo, hi), odd


def _first_overflow(func: str, name: str, array: np.ndarray):
    bad = ~np.isfinite(array)
    if bad.any():
        index = np.unravel_index(int(np.flatnonzero(bad)[0]), array.shape)
        raise OverflowError(f"{func}: {name} at index {tuple(int(i) for i in index)} is not "
                            f"representable although the keys are finite")


def _key_array(func: str, name: str, value, shape, pending=None) -> np.ndarray:
    """A per-key array of the shape of values; its finiteness checked now, or
    deferred into ``pending`` when the C constructor checks it too."""
    array = as_float64(func, name, value)
    if array.shape != shape:
        raise ValueError(f"{func}: {name} has shape {array.shape}, expected {shape} "
                         f"(the shape of values)")
    if pending is None:
        _first_bad(func, name, array)
    else:
        pending.append(lambda: _first_bad(func, name, array))
    return contiguous(array)


def _scan(pending: list) -> None:
    """Runs the deferred scans of whole arrays in the order they were
    deferred, so that the first that fails raises its error.

    A constructor defers the scans (finite values, sorted times) that the C
    constructor repeats: they run only after something failed, before the
    failure is raised, so an input is still reported as it always was (the
    first check in the order of the code names it) and a valid one is read
    once, by the C constructor."""
    for check in pending:
        check()


def _edited_keys(array: np.ndarray, edit, fill: float) -> np.ndarray:
    """A per-key array after one key edit (see ``Curve._rebuild``)."""
    if edit is None or edit[0] == "replace":
        return array
    if edit[0] == "insert":
        return np.insert(array, edit[1], fill, axis=0)
    return np.delete(array, edit[1], axis=0)


def _edited_segments(func: str, entries: list, edit) -> list:
    """Per-segment entries after one key edit: an inserted key splits its
    segment (both halves keep the kind), a removed key merges its two
    segments into the left one."""
    if edit is None or edit[0] == "replace":
        return entries
    k, i = len(entries) + 1, edit[1]
    if edit[0] == "insert":
        if not entries:
            raise ValueError(f"{func}: a one-key curve with per-segment interpolation has no "
                             f"segment kind for a new segment: build it with Curve(...)")
        j = min(max(i - 1, 0), k - 2)
        return entries[:j + 1] + [entries[j]] + entries[j + 1:]
    dropped = 0 if i == 0 else min(i, k - 2)
    return entries[:dropped] + entries[dropped + 1:]


class _PerSegment:
    """A per-segment interpolation as a curve keeps it: its distinct entries
    (in the order of their first appearance) and each segment's place among
    them, which is what the curve is built from, and the segment kinds
    among them (codes of _SEGMENT_KINDS, or _EASED); the tuple of one entry
    per segment (the ``interpolation`` given) is made when asked for."""

    __slots__ = ("distinct", "places", "kinds", "_entries")

    def __init__(self, distinct: list, places: np.ndarray, kinds: frozenset):
        self.distinct, self.places, self.kinds, self._entries = distinct, places, kinds, None

    def __len__(self) -> int:
        return len(self.places)

    def entries(self) -> tuple:
        if self._entries is None:
            places = self.places.tolist()
            pick = operator.itemgetter(*places) if places else (lambda d: ())
            entries = pick(self.distinct)
            self._entries = entries if len(places) != 1 else (entries,)
        return self._entries


def _given(interpolation):
    """The interpolation as given (a per-segment one as its tuple)."""
    return interpolation.entries() if isinstance(interpolation, _PerSegment) else interpolation


def _interpolation_text(interpolation) -> str:
    """The interpolation for a message or repr, summarized when it is given
    per segment (a long curve's sequence would fill the screen)."""
    interpolation = _given(interpolation)
    if isinstance(interpolation, str) or not isinstance(interpolation, (list, tuple)):
        return repr(interpolation)
    names = [e if isinstance(e, str) else repr(e) for e in interpolation]
    counts = {n: names.count(n) for n in dict.fromkeys(names)}
    return "per segment (" + ", ".join(f"{n} x{c}" for n, c in counts.items()) + ")"


def _ease_row(easing) -> tuple:
    """The C description (kind, flags, overshoot, amplitude, period, x1, y1,
    x2, y2) of a segment easing (a tuple: a memo of names may share it)."""
    if isinstance(easing, CubicBezier):
        x1, y1, x2, y2 = easing.x1, easing.y1, easing.x2, easing.y2
        return (-1, 0, 0.0, 0.0, 0.0, x1, y1, x2, y2)
    params = getattr(easing, "_params", None) or (1.70158, 0.0, 0.0, 0)
    overshoot, amplitude, period, flags = params
    return (easing._kind, flags, overshoot, amplitude, period, 0.0, 0.0, 0.0, 0.0)


# (code, row) of the names already parsed: a per-segment list repeats a few
# names, each parsed once per process instead of once per curve
_PARSED_NAMES: dict = {}


def _segment_entry(func: str, entry, where: str):
    """(segment code, easing row or None) of one interpolation entry."""
    if type(entry) is not str:
        return _parse_entry(func, entry, where)
    parsed = _PARSED_NAMES.get(entry)
    if parsed is None:
        parsed = _parse_entry(func, entry, where)
        if len(_PARSED_NAMES) < 1024:  # (names are few: bounded all the same)
            _PARSED_NAMES[entry] = parsed
    return parsed


def _parse_entry(func: str, entry, where: str):
    """_segment_entry without the memo of names."""
    if isinstance(entry, str) and entry not in EASING_KINDS:
        try:  # the kind names and other tools' words for them
            name = option(func, "interpolation", entry, ["step", "linear", "cubic", "bezier"],
                          aliases_for(INTERPOLATION_ALIASES, _SEGMENT_KINDS))
        except ValueError:
            name = None
        if name is not None:
            return _SEGMENT_KINDS[name], None
    if isinstance(entry, str) and entry in EASING_KINDS:
        entry = Ease(entry)
    if isinstance(entry, Steps) or not isinstance(entry, (Ease, CubicBezier)):
        raise ValueError(f"{func}: interpolation{where} is {entry!r} (must be one of "
                         f"step, constant, linear, cubic, bezier, an easing kind name "
                         f"such as 'quad_in', an Ease or a CubicBezier)")
    return _EASED, _ease_row(entry)


def _distinct_entries(entries):
    """(distinct entries in order of first appearance, index of each entry
    among them) of a list or tuple, in one pass in C, as a dict would take
    them as keys (names, exact strs, by address or cached hash and text,
    without a search per entry; other entries hashed once); None when an
    entry cannot be hashed (it is then refused entry by entry)."""
    return _core._distinct(entries)


def _segments(func: str, interpolation, count: int):
    """(segment codes or None, easings or None, the interpolation as stored)
    for one entry or a sequence of ``count`` entries. The easings are a table
    of rows, one per distinct entry, and each segment's row in it (as the
    core takes them): each distinct entry is parsed and stored once, so a
    long per-segment list costs no per-key parsing or per-key rows."""
    single = isinstance(interpolation, (str, Easing))
    if isinstance(interpolation, str) and interpolation not in EASING_KINDS:
        try:  # the kind names and other tools' words for them
            interpolation = option(func, "interpolation", interpolation,
                                   ["step", "linear", "cubic", "bezier"],
                                   aliases_for(INTERPOLATION_ALIASES, _SEGMENT_KINDS))
        except ValueError as error:  # also an easing kind, an Ease or a CubicBezier
            raise ValueError(f"{error}"[:-1] + "; or an easing: a kind name such as "
                             "'quad_in', an Ease or a CubicBezier)") from None
    if single:
        if isinstance(interpolation, str) and interpolation in _INTERPOLATION:
            return None, None, interpolation  # the uniform kinds of every earlier version
        code, row = _segment_entry(func, interpolation, "")
        codes = np.full(count, code, dtype=np.intc)
        eases = None if row is None else (np.array([row], dtype=np.float64),
                                          np.zeros(count, dtype=np.uintp))
        return codes, eases, interpolation
    if isinstance(interpolation, np.ndarray):
        interpolation = interpolation.tolist()
    if isinstance(interpolation, _PerSegment):  # a curve's own (a rebuilt curve)
        entries, found = interpolation, (interpolation.distinct, interpolation.places)
    else:
        try:  # (a list or tuple as it is: read, not kept)
            entries = (interpolation if isinstance(interpolation, (list, tuple))
                       else list(interpolation))
        except TypeError:
            raise ValueError(f"{func}: interpolation is {interpolation!r} (must be a name, "
                             f"an easing, or a sequence with one of these per segment)"
                             ) from None
        found = None
    if len(entries) != count:
        raise ValueError(f"{func}: interpolation has {len(entries)} entries, expected one per "
                         f"segment ({count} for {count + 1} keys)")
    found = found or _distinct_entries(entries)
    if found is None:  # an unhashable entry: the first bad one is reported
        for j, entry in enumerate(entries):
            _segment_entry(func, entry, f" at index ({j},)")
        raise AssertionError("unreachable: an unhashable entry is never valid")
    distinct, inverse = found
    parsed = []
    for entry in distinct:
        try:
            parsed.append(_segment_entry(func, entry, ""))
        except ValueError:  # name the first segment that has it
            j = next(j for j, e in enumerate(_given(entries)) if e is entry or e == entry)
            _segment_entry(func, entry, f" at index ({j},)")
            raise
    kind_codes = np.array([code for code, _ in parsed], dtype=np.intc)
    codes = kind_codes.take(inverse, mode="wrap")  # (places are in range: no check)
    inverse.flags.writeable = False  # (kept: the C curve may read it in place)
    eases = None
    if (kind_codes == _EASED).any():
        table = np.array([row if row is not None else [0.0] * 9 for _, row in parsed],
                         dtype=np.float64)
        eases = (table, inverse.view(np.uintp))  # (places: never negative)
    if not isinstance(entries, _PerSegment):
        entries = _PerSegment(distinct, inverse, frozenset(kind_codes.tolist()))
    return codes, eases, entries


def _slope(func: str, name: str, value, mode: str, side: str, channels: int):
    """The C slopes of one side: None unless ``mode`` is "sloped"."""
    if mode != "sloped":
        if value is not None:
            raise ValueError(f"{func}: {name} is given but {side}={mode!r} does not use it "
                             f"(it needs {side}='sloped')")
        return None
    if value is None:
        raise ValueError(f"{func}: {side}='sloped' needs {name} (the slope per second)")
    array = as_float64(func, name, value)
    try:
        array = np.broadcast_to(array, (channels,))
    except ValueError:
        raise ValueError(f"{func}: {name} has shape {array.shape}, expected () or "
                         f"({channels},) (one slope per channel)") from None
    _first_bad(func, name, array)
    return contiguous(np.array(array))


_BLENDER_POLICIES = {"auto": "AUTO", "auto_clamped": "AUTO_CLAMPED", "vector": "VECTOR",
                     "free": "FREE", "auto_ease": "FREE"}  # (AutoEase keys are set first)
_CYCLING = ("cycle", "cycle_offset")


def _blender_policy(func, times, values, interpolation, tangents, velocities,
                    in_velocities, out_velocities, in_weights, out_weights, before, after,
                    auto_smoothing):
    """Velocities and weights from Blender's handle rules, channel by channel:
    ("explicit", in, out, in_weights, out_weights)."""
    from ._handles import _HANDLE_CODES

    t, v = _key_arrays(func, times, values)
    for name, array in (("times", t), ("values", v)):  # named before the C rules see them
        _first_bad(func, name, array)
    check_sorted(func, "times", t, equal="allowed")
    k = t.size
    entries = [tangents] if isinstance(tangents, str) else list(tangents)  # (one: every key)
    if len(entries) != k and not isinstance(tangents, str):
        raise ValueError(f"{func}: tangents has {len(entries)} entries, expected one per key "
                         f"({k})")
    for i, e in enumerate(entries):
        if e not in _BLENDER_POLICIES:
            raise ValueError(f"{func}: tangents at index ({i},) is {e!r} (a per-key sequence "
                             f"takes 'auto', 'auto_clamped', 'vector', 'auto_ease' or 'free')")
    if all(e == "auto_ease" for e in entries):  # OpenUSD's rule alone: Hermite handles
        if auto_smoothing is not None:
            raise ValueError(f"{func}: auto_smoothing applies to the tangents 'auto', "
                             f"'auto_clamped' and 'vector', not 'auto_ease'")
        if velocities is not None or in_velocities is not None or out_velocities is not None:
            raise ValueError(f"{func}: tangents='auto_ease' computes the key velocities, so "
                             f"the velocities given would have no effect")
        codes = _segments(func, interpolation, k - 1)[0]
        if (interpolation != "cubic" if codes is None else not np.isin(codes, (2, 3)).any()):
            raise ValueError(f"{func}: tangents='auto_ease' sets the velocities of cubic and "
                             f"bezier segments, and interpolation={_interpolation_text(interpolation)} has none")
        slopes = _core._tangents_auto_ease(func, contiguous(t), contiguous(v))
        return "explicit", slopes, slopes, in_weights, out_weights
    smoothing = {None: "NONE", "none": "NONE", "cont_accel": "CONT_ACCEL"}.get(auto_smoothing)
    if smoothing is None:
        raise ValueError(f"{func}: auto_smoothing is {auto_smoothing!r} (must be 'none' or "
                         f"'cont_accel')")
    codes = _segments(func, interpolation, k - 1)[0]
    if k == 1:  # no segment: no handle lengths, no handles (a free key keeps its own)
        if velocities is not None:
            in_velocities = out_velocities = velocities
        if entries[0] != "free" or in_velocities is None or out_velocities is None:
            in_velocities = out_velocities = np.zeros(v.shape)
        return "explicit", in_velocities, out_velocities, None, None
    if codes is None or not (codes == 3).any():
        raise ValueError(f"{func}: tangents={tangents!r} sets Blender's handles, of free "
                         f"time length: it needs 'bezier' segments (interpolation="
                         f"{_interpolation_text(interpolation)})")
    eased = [i for i, e in enumerate(entries) if e == "auto_ease"]  # (a sequence's)
    if ("free" in entries and (in_velocities is None or out_velocities is None)
            and velocities is None):
        raise ValueError(f"{func}: 'free' keys keep given handles: give in_velocities and "
                         f"out_velocities (and weights) for them")
    if velocities is not None:
        in_velocities = out_velocities = velocities
    # Blender's handle type of each key, as the C rules take them
    types = np.array([_HANDLE_CODES[_BLENDER_POLICIES[e]] for e in entries], np.uint8)
    types = np.broadcast_to(types, (k,))
    cols = v.reshape(k, -1)
    shape = cols.shape
    vin = np.zeros(shape) if in_velocities is None else np.array(
        np.broadcast_to(as_float64(func, "in_velocities", in_velocities).reshape(k, -1), shape))
    vout = np.zeros(shape) if out_velocities is None else np.array(
        np.broadcast_to(as_float64(func, "out_velocities", out_velocities).reshape(k, -1), shape))
    w = [np.full(shape, 1 / 3) if x is None else np.array(np.broadcast_to(
        as_float64(func, n, x).reshape(k, -1), shape)) for n, x in
        (("in_weights", in_weights), ("out_weights", out_weights))]
    if eased:  # OpenUSD's AutoEase keys, then kept as given by Blender's rules
        slopes = _core._tangents_auto_ease(func, contiguous(t), contiguous(cols))
        vin[eased] = vout[eased] = slopes[eased]
        w[0][eased] = w[1][eased] = 1 / 3
    # Blender's keys have no jumps: the rules run on each piece between jumps,
    # whose keys at a jump are end keys that keep their segment's slope (the
    # end rule without flattening); a piece of one key is flat
    cuts = [0, *(np.flatnonzero(t[1:] == t[:-1]) + 1).tolist(), k]
    pieces = [(a, b) for a, b in zip(cuts, cuts[1:]) if b - a >= 2]
    before, after = (_named_extrapolation(func, n, x) for n, x in (("before", before),
                                                                     ("after", after)))
    cyclic = before in _CYCLING and after in _CYCLING and len(cuts) == 2
    # handle points may leave the double range only for keys near it (an end
    # key's neighbour mirrored past it, 2 t - t_next, overflows): where they
    # do, the rules run on the times scaled down, as they scale with time
    # exactly in powers of two (velocities per scaled second, scaled back)
    rules = (types, pieces, smoothing, cyclic, (before == "clamp", after == "clamp"))
    near = max(abs(float(t[0])), abs(float(t[-1]))) >= 2.0 ** 1000
    placed = _blender_pieces(func, t, cols, (vin, vout, *w), *rules, check=near)
    if placed is None:
        s = 2.0 ** -8
        placed = _blender_pieces(func, t * s, cols, (vin / s, vout / s, *w), *rules,
                                 check=False)
        placed[0] *= s
        placed[1] *= s
    vin, vout, *w = placed
    for x in (vin, vout):  # (the C rules' message for a velocity beyond the double range)
        if not np.isfinite(x).all():
            i = np.unravel_index(int(np.flatnonzero(~np.isfinite(x))[0]), x.shape)
            where = i[:1] if v.ndim == 1 else i
            raise OverflowError(f"{func}: velocity at index {tuple(int(j) for j in where)} is "
                                f"{float(x[i])!r} (the values and times give a key velocity "
                                f"that is not representable)")
    out = [x.reshape(v.shape) for x in (vin, vout, w[0], w[1])]
    return ("explicit", *out)


def _blender_pieces(func, t, cols, given, types, pieces, smoothing, cyclic, flat, check):
    """Blender's handles of the keys ``t`` and values ``cols`` (K, C), the
    rules run on each piece of keys between jumps: (in velocities, out
    velocities, in weights, out weights) from those four as ``given`` (a
    free key keeps its handle, the others are recomputed; written in place
    unless ``check``); ``flat``: whether the first and last keys are
    flattened. With ``check``, None where a handle point's time is not
    finite."""
    from ._handles import _auto_handles

    placed = [np.array(x) for x in given] if check else list(given)
    vin, vout, win, wout = placed
    for c in range(cols.shape[1]):
        for a, b in pieces:
            tp = t[a:b]
            if check and not math.isfinite(float(tp[-1]) - float(tp[0])):
                return None  # (intervals beyond DBL_MAX)
            seg = np.diff(tp)
            prev_t = np.r_[seg[:1], seg]  # the neighbouring interval of each side
            next_t = np.r_[seg, seg[-1:]]
            co = np.stack([tp, cols[a:b, c]], axis=1)
            w_in, w_out = given[2][a:b, c], given[3][a:b, c]
            # given handles (free keys) as points; auto and vector ones are recomputed
            with np.errstate(over="ignore" if check else None):
                left = co - np.stack([w_in * prev_t, given[0][a:b, c] * w_in * prev_t], axis=1)
                right = co + np.stack([w_out * next_t, given[1][a:b, c] * w_out * next_t],
                                      axis=1)
            if check and not (np.isfinite(left[:, 0]).all() and np.isfinite(right[:, 0]).all()):
                return None
            _auto_handles(co, left, right, types[a:b], types[a:b], smoothing, cyclic,
                          (a == 0 and flat[0], b == t.size and flat[1]), func)
            dt_in, dt_out = tp - left[:, 0], right[:, 0] - tp
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                vin[a:b, c] = np.where(dt_in > 0, (co[:, 1] - left[:, 1]) / dt_in, 0.0)
                vout[a:b, c] = np.where(dt_out > 0, (right[:, 1] - co[:, 1]) / dt_out, 0.0)
            win[a:b, c], wout[a:b, c] = dt_in / prev_t, dt_out / next_t
            if check and not (np.isfinite(win[a:b, c]).all() and
                              np.isfinite(wout[a:b, c]).all()):
                return None
    return placed


def _named_extrapolation(func: str, name: str, value):
    """An extrapolation as its name ("constant" -> "clamp", "loop" -> "cycle"),
    or the value as given when it names none (the curve's checks refuse it)."""
    try:
        return _extrapolation(func, name, value)
    except ValueError:
        if not isinstance(value, str):  # (an array would be compared below)
            raise
        return value


def _key_arrays(func: str, times, values):
    """times (K,) and values (K,) or (K, C) as float64, K >= 1, C >= 1, or a
    ValueError naming the argument and its shape."""
    times = as_float64(func, "times", times)
    if times.ndim != 1:
        raise ValueError(f"{func}: times must be a 1-D array of key times, got shape "
                         f"{times.shape}")
    if times.size < 1:
        raise ValueError(f"{func}: times must hold at least one key")
    values = as_float64(func, "values", values)
    if values.ndim not in (1, 2) or values.shape[0] != times.size:
        raise ValueError(f"{func}: values has shape {values.shape}, expected (K,) or "
                         f"(K, C) with K={times.size} keys")
    if values.ndim == 2 and values.shape[1] == 0:
        raise ValueError(f"{func}: values must have at least one channel")
    return times, values


def _default_tangents(func: str, interpolation, weighted: bool) -> str:
    """The tangents of a curve given neither tangents nor velocities: Blender's
    auto-clamped handles on "bezier" segments (the default interpolation,
    None) whose handle lengths are not given (``weighted``); "clamped" on
    Hermite "cubic" segments (their handles are a third of the segment, so
    they cannot take the lengths of Blender's handles); "catmull_rom", the
    name every earlier version gave them, where no segment uses velocities."""
    if interpolation is None:
        return "clamped" if weighted else "auto_clamped"
    try:
        single = isinstance(interpolation, (str, Easing))
        codes, _, name = _segments(func, interpolation, 1 if single else len(interpolation))
    except (ValueError, TypeError):
        return "clamped"  # (the interpolation's own error is raised when it is built)
    if codes is None:
        return "clamped" if name == "cubic" else "catmull_rom"
    if (codes == 3).any():
        return "clamped" if weighted else "auto_clamped"
    return "clamped" if (codes == 2).any() else "catmull_rom"


def _handle_lengths(tangents) -> bool:
    """Whether ``tangents`` (a name or one per key) set Blender's handles, whose
    time lengths need "bezier" segments (OpenUSD's AutoEase alone does not)."""
    entries = [tangents] if isinstance(tangents, str) else tangents
    return (isinstance(entries, (list, tuple)) and bool(entries)
            and all(isinstance(e, str) and e in _BLENDER_POLICIES for e in entries)
            and any(e != "auto_ease" for e in entries))


def _stored_tangents(func: str, name: str, value, resolved: bool):
    """The tangents a stored curve (pickled state or ``to_dict()``) names:
    None, a rule's name, or -- for velocities resolved by Blender's or
    OpenUSD's rules (``resolved``) -- the policy's name or one per key."""
    if value is None or (isinstance(value, str) and not resolved):
        return value  # (the constructor's rules check the name)
    entries = [value] if isinstance(value, str) else value
    if not isinstance(entries, (list, tuple)) or not entries:
        raise ValueError(f"{func}: {name} is {value!r} (must be a name such as 'catmull_rom', "
                         f"or Blender's policy per key)")
    for i, entry in enumerate(entries):
        if not (isinstance(entry, str) and (entry in _BLENDER_POLICIES or entry == "explicit")):
            where = "" if isinstance(value, str) else f" at index ({i},)"
            what = ("with resolved velocities" if resolved
                    else "without velocities (in_velocities, out_velocities)")
            raise ValueError(f"{func}: {name}{where} is {entry!r} (a stored curve "
                             f"{what} takes 'explicit' or Blender's 'auto', 'auto_clamped', "
                             f"'vector', 'auto_ease' or 'free')")
    if not resolved:
        raise ValueError(f"{func}: {name} is {value!r}, which needs the resolved velocities "
                         f"(in_velocities and out_velocities)")
    return value if isinstance(value, str) else tuple(value)


def _stored_smoothing(func: str, value, tangents):
    """The auto_smoothing of a stored curve: None, or Blender's name with its
    policies."""
    if value is None:
        return None
    policies = tangents is not None and (not isinstance(tangents, str)
                                         or tangents in _BLENDER_POLICIES)
    if value not in ("none", "cont_accel") or not policies:
        raise ValueError(f"{func}: auto_smoothing is {value!r} (must be None, or 'none' or "
                         f"'cont_accel' with Blender's tangents 'auto', 'auto_clamped' or "
                         f"'vector')")
    return value


def _with_remaps(func: str, curve, remaps):
    """``curve`` played through stored time remaps (outermost first), each a
    one-channel Curve or an Easing."""
    if not isinstance(remaps, (list, tuple)):
        raise ValueError(f"{func}: remaps is {remaps!r} (must be a sequence of time curves "
                         f"and easings, outermost first)")
    for i in reversed(range(len(remaps))):
        remap = remaps[i]
        if not isinstance(remap, (Curve, Easing)):
            raise ValueError(f"{func}: remaps at index ({i},) is {remap!r} (must be a Curve "
                             f"or an Easing)")
        try:
            curve = curve.remap_time(remap)
        except ValueError as error:
            raise ValueError(f"{func}: remaps at index ({i},): {error}") from None
    return curve


class Curve(ByValue):
    """A keyframe track with step, linear or cubic (Hermite) interpolation.

    Parameters
    ----------
    times : array_like, shape (K,)
        Key times in seconds, finite and strictly increasing, K >= 1 (one key
        is a constant curve).
    values : array_like, shape (K,) or (K, C)
        Key values, one column per channel.
    interpolation : str, Easing or sequence of K-1 of them, optional
        One interpolation for every segment or one per segment: "step"
        (alias "constant") holds the value of the segment's first key,
        "linear", "cubic", "bezier" (weighted handles), or an easing of the
        value (kind name, Ease or CubicBezier); see the module documentation.
        The default is "bezier" under Blender's tangents (the default ones)
        or with handle weights, else "cubic".
    tangents : {"auto_clamped", "catmull_rom", "catmull_rom_uniform", "pchip", "clamped", "flat", "natural", "explicit"}
        or Blender's "auto", "vector" and OpenUSD's "auto_ease" (per key too)
        How the key velocities (and, for Blender's rules, the handle
        lengths) are chosen (see the module documentation for each rule,
        including the end rules). The default is Blender's "auto_clamped"
        on bezier segments: the curve of Blender's default keys, which never
        overshoots a hold; "clamped" on Hermite cubic segments or bezier
        segments given weights; "explicit" when velocities are given.
        ``tangents="catmull_rom"`` gives the default of earlier versions
        exactly. "explicit" needs velocities, and a policy cannot be
        combined with them.
    velocities : array_like, shape of values, optional
        Per-second key velocities (cubic only).
    in_velocities, out_velocities : array_like, shape of values, optional
        Broken tangents: the per-second velocity arriving at and leaving each
        key. Give both or neither, and not together with ``velocities``. The
        outer ones are the outer tangents: ``in_velocities[0]`` is the slope
        of ``before="linear"`` and ``out_velocities[-1]`` that of
        ``after="linear"`` (other extrapolations do not use them).
    in_weights, out_weights : array_like, shape (K,) or of values, optional
        Handle time lengths of the Bezier segments as fractions of the
        neighbouring segment's duration (default 1/3); need a "bezier" segment.
    before, after : {"clamp", "linear", "sloped", "cycle", "cycle_offset", "oscillate", "error"}
        Extrapolation before the first / after the last key: hold the end key
        (velocity 0); continue along the outer tangent (see above); continue
        with ``before_slope`` / ``after_slope``; repeat; repeat with each
        cycle shifted by ``values[-1] - values[0]``; repeat with every other
        cycle mirrored in time; or raise a ValueError naming the query. Other
        tools' words are accepted too: "constant" and "hold" (clamp), "loop"
        and "repeat" (cycle), "cycle_relative" and "repeat_with_offset"
        (cycle_offset), "pingpong" and "mirror" (oscillate), and "constant" /
        "hold" for step interpolation.
    jumps : bool
        Allow pairs of equal consecutive times, each a discontinuity: the left
        key ends the segment before it, the right key starts the one after
        and wins at that time. At the first or last key too (a key with two
        values: see the module documentation); three equal times are always
        an error.
    before_slope, after_slope : float or array_like (C,), optional
        Slopes (per second) of "sloped" extrapolation.
    ease : str or Easing, optional
        A per-segment time remap (a kind name such as ``"smoothstep"`` or an
        easing object such as ``CubicBezier(...)``): each segment reaches the
        same poses at other times (see the module documentation).

    A curve is an immutable value: ``len(curve)`` is its number of keys,
    iterating gives one :class:`CurveKey` per key, :meth:`with_key`,
    :meth:`without_key` and :meth:`with_values` return edited copies, and
    :meth:`to_dict` / :meth:`from_dict` round-trip it through JSON.

    Raises
    ------
    ValueError
        Bad shapes, non-finite or unsorted times (naming both), non-finite
        values or velocities, unknown options (naming the closest ones); the
        message names the argument and index.
    OverflowError
        A key velocity computed from the values, or a tangent
        ``duration * velocity``, that is not representable.

    Examples
    --------
    >>> c = Curve([0, 1, 2, 3], [0, 60, 60, 0], interpolation="linear")
    >>> float(c(0.5))
    30.0
    >>> float(c(0.5, 1)), float(c.derivative()(0.5))  # velocity, as scipy's nu
    (60.0, 60.0)
    >>> float(Curve([0, 1, 2, 3], [0, 60, 60, 0])(1.5))  # Blender's keys: the hold holds
    60.0
    >>> float(Curve([0, 1, 2, 3], [0, 60, 60, 0], tangents="catmull_rom")(1.5))  # overshoots
    67.5
    """

    __slots__ = ("_times", "_values", "_interpolation", "_tangents", "_before", "_after",
                 "_jumps", "_capsule", "_key_in", "_key_out", "_ease", "_remaps", "_given", "_kinds",
                 "_in_weights", "_out_weights", "_slopes", "_long_handles", "_plans",
                 "_auto_smoothing")

    def __init__(self, times, values, *, interpolation=None, tangents=None,
                 velocities=None, in_velocities=None, out_velocities=None, in_weights=None,
                 out_weights=None, before: str = "clamp", after: str = "clamp",
                 before_slope=None, after_slope=None, jumps: bool = False, ease=None,
                 auto_smoothing: Optional[str] = None):
        self._init("Curve", times, values, interpolation, tangents, velocities,
                   in_velocities, out_velocities, in_weights, out_weights, before, after,
                   before_slope, after_slope, jumps, auto_smoothing)
        self._ease = None if ease is None else as_easing_for("Curve", ease)

    def _init(self, func, times, values, interpolation, tangents, velocities, in_velocities,
              out_velocities, in_weights, out_weights, before, after, before_slope,
              after_slope, jumps, auto_smoothing):
        """The constructor's body (without ``ease``), its errors naming ``func``."""
        given = (velocities is not None or in_velocities is not None
                 or out_velocities is not None)
        if tangents is None and not given:
            tangents = _default_tangents(func, interpolation,
                                         in_weights is not None or out_weights is not None)
        if isinstance(tangents, str) and tangents not in _BLENDER_POLICIES:
            # every rule's name, the tools' spellings ("AUTO_CLAMPED", "CatmullRom")
            tangents = option(func, "tangents", tangents,
                              ["auto_clamped", *_TANGENTS, "explicit", "auto", "vector",
                               "auto_ease", "free"], aliases_for(TANGENT_ALIASES, _TANGENTS),
                              {k: v for k, v in TANGENT_HINTS.items() if k != "auto"})
        if interpolation is None:  # (weights are handle lengths: bezier segments')
            weighted = in_weights is not None or out_weights is not None
            interpolation = "bezier" if weighted or _handle_lengths(tangents) else "cubic"
        policy = tangents
        if tangents is not None and not isinstance(tangents, (str, list, tuple)):
            raise ValueError(f"{func}: tangents is {tangents!r} (must be a name such as "
                             f"'catmull_rom' or 'auto', or one of Blender's per key)")
        if tangents is not None and (not isinstance(tangents, str)
                                     or tangents in _BLENDER_POLICIES):
            (tangents, in_velocities, out_velocities, in_weights,
             out_weights) = _blender_policy(func, times, values, interpolation, tangents,
                                            velocities, in_velocities, out_velocities,
                                            in_weights, out_weights, before, after,
                                            auto_smoothing)
            velocities = None
        elif auto_smoothing is not None:
            raise ValueError(f"{func}: auto_smoothing applies to the tangents 'auto', "
                             f"'auto_clamped' and 'vector', not {tangents!r}")
        self._build(func, times, values, interpolation, tangents, velocities,
                    in_velocities, out_velocities, before, after, jumps,
                    in_weights=in_weights, out_weights=out_weights,
                    before_slope=before_slope, after_slope=after_slope)
        if policy is not tangents:  # Blender's rules: keep their name(s)
            self._tangents = policy if isinstance(policy, str) else tuple(policy)
            self._auto_smoothing = auto_smoothing

    def _build(self, func, times, values, interpolation, tangents, velocities,
               in_velocities, out_velocities, before, after, jumps, *, in_weights=None,
               out_weights=None, before_slope=None, after_slope=None, long_handles=False,
               pending=None, borrow=False):
        """Validates and builds the C curve. ``pending``: scans the caller
        deferred (see _scan), run before those of this method on failure.
        ``borrow``: times and values are the caller's own read-only arrays
        (a reader's), which the C curve may read in place instead of copying."""
        pending = [] if pending is None else pending
        try:
            self._make(func, pending, times, values, interpolation, tangents, velocities,
                       in_velocities, out_velocities, before, after, jumps,
                       in_weights=in_weights, out_weights=out_weights,
                       before_slope=before_slope, after_slope=after_slope,
                       long_handles=long_handles, borrow=borrow)
        except Exception:
            _scan(pending)
            raise

    def _make(self, func, pending, times, values, interpolation, tangents, velocities,
              in_velocities, out_velocities, before, after, jumps, *, in_weights,
              out_weights, before_slope, after_slope, long_handles, borrow):
        times, values = _key_arrays(func, times, values)
        codes, eases, interpolation = _segments(func, interpolation, times.size - 1)
        if codes is None:
            interp = _INTERPOLATION[interpolation]
        else:
            # the kinds the segments have (every distinct entry has a segment)
            present = (interpolation.kinds if isinstance(interpolation, _PerSegment)
                       else {int(codes[0])} if codes.size else set())
            interp = next(iter(present)) if len(present) == 1 else 2
        cubic_like = (interp == 2 if codes is None
                      else bool(present & {2, 3}) or codes.size == 0)
        given = velocities is not None or in_velocities is not None or out_velocities is not None
        if tangents is None:
            tangents = "explicit" if given else "catmull_rom"
        if not (isinstance(tangents, str) and (tangents in _TANGENTS or tangents == "explicit")):
            # (an alias or a mistake: the canonical names, as readers pass them, skip building
            # the alias and hint tables, a fifth of a small curve's construction)
            tangents = option(func, "tangents", tangents, list(_TANGENTS) + ["explicit"],
                              aliases_for(TANGENT_ALIASES, _TANGENTS),
                              {k: v for k, v in TANGENT_HINTS.items() if k != "auto"})
        if tangents == "explicit" and not given:
            raise ValueError(f"{func}: tangents='explicit' needs the key velocities: give "
                             f"velocities= (or in_velocities= and out_velocities=)")
        if tangents != "explicit" and given:
            raise ValueError(f"{func}: tangents={tangents!r} computes the key velocities, so "
                             f"the velocities given would have no effect (leave tangents "
                             f"out, or give tangents='explicit')")
        before = _extrapolation(func, "before", before)
        after = _extrapolation(func, "after", after)
        modes = [_EXTRAPOLATION[before], _EXTRAPOLATION[after]]
        flag(func, "jumps", jumps)
        pending.append(lambda: check_sorted(func, "times", times, equal="allowed"))
        vin = vout = None
        if velocities is not None and (in_velocities is not None
                                       or out_velocities is not None):
            raise ValueError(f"{func}: give either velocities or in_velocities and "
                             f"out_velocities, not both")
        if (in_velocities is None) != (out_velocities is None):
            given_name = "in_velocities" if in_velocities is not None else "out_velocities"
            raise ValueError(f"{func}: {given_name} needs in_velocities and out_velocities "
                             f"together (broken tangents)")
        if given:
            if not cubic_like:
                raise ValueError(f"{func}: velocities apply only to cubic and bezier "
                                 f"segments, and interpolation={_interpolation_text(interpolation)} has none")
            # with cubic segments (two keys or more) the C constructor checks them
            later = pending if times.size > 1 else None
            if velocities is not None:
                vin = vout = _key_array(func, "velocities", velocities, values.shape, later)
            else:
                vin = _key_array(func, "in_velocities", in_velocities, values.shape, later)
                vout = _key_array(func, "out_velocities", out_velocities, values.shape, later)
            policy_code = _EXPLICIT
        else:
            policy_code = _TANGENTS[tangents]
        weights = []
        for name, w in (("in_weights", in_weights), ("out_weights", out_weights)):
            if w is not None:
                if codes is None or 3 not in present:
                    raise ValueError(f"{func}: {name} apply only to 'bezier' segments, and "
                                     f"interpolation={_interpolation_text(interpolation)} has none")
                w = as_float64(func, name, w)
                if w.shape == times.shape and values.ndim == 2:
                    w = np.repeat(w[:, None], values.shape[1], axis=1)
                w = _key_array(func, name, w, values.shape)
                if (w < 0).any():
                    i = np.unravel_index(int(np.flatnonzero(w < 0)[0]), w.shape)
                    raise ValueError(f"{func}: {name} at index {tuple(int(x) for x in i)} is "
                                     f"{float(w[i])!r} (must be >= 0: a handle's time length "
                                     f"as a fraction of its segment)")
                w = frozen_copy(w)
            weights.append(w)
        channels = 1 if values.ndim == 1 else values.shape[1]
        slopes = [_slope(func, "before_slope", before_slope, before, "before", channels),
                  _slope(func, "after_slope", after_slope, after, "after", channels)]
        times, values = contiguous(times), contiguous(values)  # (copied only if strided)
        # every segment cubic: the C curve stores the velocities as given
        # (velocities= once for both sides), kept as read-only views of it
        stored = codes is None and interp == 2 and times.size > 1
        if vin is not None and not stored:
            # else the curve keeps a copy of them, made first: the C curve
            # then reads that copy, just written, instead of the caller's
            given_in = frozen_copy(vin)
            vin, vout = given_in, given_in if vout is vin else frozen_copy(vout)
        if codes is None and all(x is None for x in weights + slopes) and not long_handles:
            # borrowed keys: read in place by the C curve, which the capsule keeps
            borrow = borrow and not (times.flags.writeable or values.flags.writeable)
            capsule = _core._curve_create(func, times, values, interp, policy_code, vin, vout,
                                          modes[0], modes[1], bool(jumps), borrow)
        else:
            # a read-only ease index (a per-segment interpolation's places) is
            # read in place by the C curve, which the capsule keeps
            capsule = _core._curve_create_keyed(
                func, times, values, interp, policy_code, vin, vout, modes[0], modes[1],
                bool(jumps), codes, *(eases or (None, None)), weights[0], weights[1],
                slopes[0], slopes[1], bool(long_handles))
        # times and values as the C curve stores them: read-only views, not a second copy
        self._times, self._values = _core._curve_keys(capsule)
        self._interpolation, self._tangents = interpolation, tangents
        self._before, self._after, self._jumps = before, after, bool(jumps)
        # the key velocities are read from the C curve when first asked for
        self._capsule, self._key_in, self._key_out = capsule, None, None
        self._plans = None  # the C form of the time remaps, made when first needed
        self._ease, self._remaps = None, ()
        self._kinds = codes
        self._in_weights, self._out_weights = weights
        self._slopes = (before_slope, after_slope)
        self._long_handles = bool(long_handles)
        if vin is None:
            self._given = None
        elif stored:  # read-only views, not a copy
            self._given = _core._curve_velocities(capsule)
        else:  # the copy made above (velocities= gives one array for both sides: one copy)
            self._given = (vin, vout)
        self._auto_smoothing = None

    # -- glTF ------------------------------------------------------------------

    @classmethod
    def from_handles(cls, times, values, left, right, *, interpolation="bezier",
                     before: str = "clamp", after: str = "clamp", jumps: bool = False,
                     ease=None) -> "Curve":
        """A Bezier curve from absolute handle points, as Blender stores them.

        Parameters
        ----------
        times, values : array_like, shapes (K,) and (K,) or (K, C)
            The keys.
        left, right : array_like, shape (K, 2) or (K, C, 2)
            Each key's left (arriving) and right (leaving) handle as points
            ``(time, value)``; a left handle may not lie after its key nor a
            right one before it. Key i's right handle and key i+1's left
            handle shape segment i; the outer handles (``left[0]``,
            ``right[-1]``) give the slopes of ``"linear"`` extrapolation.
        interpolation, before, after, jumps, ease
            As for :class:`Curve`; the handles shape the "bezier" and "cubic"
            segments.

        A handle of time length ``w * T`` (T its segment's duration) becomes
        the weight ``w`` and the velocity ``(handle value - key value) / (w *
        T)``. A handle of zero time length must have zero value offset (it
        then has no effect on the path); a vertical handle is an error.

        >>> c = Curve.from_handles([0, 1], [0, 1], [[-0.5, 0], [0.5, 1]], [[0.5, 0], [1.5, 1]])
        >>> float(c(0.5))
        0.5
        """
        func = "Curve.from_handles"
        t = as_float64(func, "times", times)
        v = as_float64(func, "values", values)
        if t.ndim != 1 or v.ndim not in (1, 2) or v.shape[:1] != t.shape or t.size < 1:
            raise ValueError(f"{func}: times must be (K,) and values (K,) or (K, C), got "
                             f"{t.shape} and {v.shape}")
        _first_bad(func, "times", t)
        _first_bad(func, "values", v)
        k = t.size
        h = {}
        for name, handle in (("left", left), ("right", right)):
            array = as_float64(func, name, handle)
            if array.shape != v.shape + (2,):
                raise ValueError(f"{func}: {name} has shape {array.shape}, expected "
                                 f"{v.shape + (2,)} (a (time, value) point per key"
                                 f"{'' if v.ndim == 1 else ' and channel'})")
            _first_bad(func, name, array)
            h[name] = array
        tc = t if v.ndim == 1 else t[:, None]
        dt_in, dt_out = tc - h["left"][..., 0], h["right"][..., 0] - tc
        dv_in, dv_out = v - h["left"][..., 1], h["right"][..., 1] - v
        for name, dt in (("left", dt_in), ("right", dt_out)):
            if (dt < 0).any():
                i = np.unravel_index(int(np.flatnonzero(dt < 0)[0]), dt.shape)
                where = "after" if name == "left" else "before"
                raise ValueError(f"{func}: {name} at index {tuple(int(x) for x in i)} has time "
                                 f"{float(h[name][i + (0,)])!r} (a {name} handle may not lie "
                                 f"{where} its key at {float(t[i[0]])!r})")
        for name, dt, dv in (("left", dt_in, dv_in), ("right", dt_out, dv_out)):
            vertical = (dt == 0) & (dv != 0)
            if vertical.any():
                i = np.unravel_index(int(np.flatnonzero(vertical)[0]), dt.shape)
                raise ValueError(f"{func}: {name} at index {tuple(int(x) for x in i)} is a "
                                 f"vertical handle (zero time length, value offset "
                                 f"{float(dv[i])!r}), which no curve of time can follow")
        seg = np.diff(t)
        seg_c = seg if v.ndim == 1 else seg[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            vin = np.where(dt_in > 0, dv_in / np.where(dt_in > 0, dt_in, 1.0), 0.0)
            vout = np.where(dt_out > 0, dv_out / np.where(dt_out > 0, dt_out, 1.0), 0.0)
            w_in, w_out = np.full(v.shape, 1.0 / 3.0), np.full(v.shape, 1.0 / 3.0)
            if k > 1:
                w_in[1:] = np.where(seg_c > 0, dt_in[1:] / np.where(seg_c > 0, seg_c, 1.0),
                                    1.0 / 3.0)
                w_out[:-1] = np.where(seg_c > 0,
                                      dt_out[:-1] / np.where(seg_c > 0, seg_c, 1.0), 1.0 / 3.0)
        for name, x in (("left", vin), ("right", vout)):
            if not np.isfinite(x).all():
                i = np.unravel_index(int(np.flatnonzero(~np.isfinite(x))[0]), x.shape)
                raise OverflowError(f"{func}: {name} at index {tuple(int(y) for y in i)} "
                                    f"gives a slope that is not representable")
        codes = _segments(func, interpolation, k - 1)[0]
        bezier = codes is not None and (codes == 3).any()
        curve = cls.__new__(cls)
        curve._build(func, t, v, interpolation, None, None, vin, vout, before, after,
                     jumps, in_weights=w_in if bezier else None,
                     out_weights=w_out if bezier else None)
        curve._ease = None if ease is None else as_easing_for(func, ease)
        return curve

    @classmethod
    def from_gltf(cls, input, output, interpolation: str = "LINEAR") -> "Curve":
        """A curve from a glTF 2.0 animation sampler (spec Appendix C).

        Parameters
        ----------
        input : array_like, shape (K,)
            Key times in seconds, finite and strictly increasing.
        output : array_like
            STEP / LINEAR: K values, shape (K,) or (K, C). CUBICSPLINE: K
            triplets (in-tangent, value, out-tangent), shape (3K,) or (3K, C).
            glTF tangents are per second, so they are exactly this class's
            ``in_velocities`` / ``out_velocities``: segment i uses
            ``(t[i+1] - t[i]) * out_tangent[i]`` and
            ``(t[i+1] - t[i]) * in_tangent[i+1]``.
        interpolation : {"LINEAR", "STEP", "CUBICSPLINE"}
            The sampler's interpolation (glTF's default is "LINEAR").

        Components are interpolated independently (a rotation sampler's
        LINEAR mode asks for slerp, which this curve does not do). The curve
        holds its end keys outside the input range (``before = after =
        "clamp"``), as glTF players do.

        Raises
        ------
        ValueError
            Naming ``input``, ``output`` or ``interpolation``: wrong shape or
            row count, non-finite numbers, times not strictly increasing,
            unknown interpolation.
        """
        return cls._gltf(input, output, interpolation, copy=True)

    @classmethod
    def _gltf(cls, input, output, interpolation: str, copy: bool) -> "Curve":
        """from_gltf; ``copy`` False for a reader's own read-only arrays, which
        the curve then reads in place (borrowed keys) where it can."""
        func = "Curve.from_gltf"
        mode = option(func, "interpolation", interpolation, _GLTF, _GLTF_ALIASES)
        times = as_float64(func, "input", input)
        if times.ndim != 1 or times.size < 1:
            raise ValueError(f"{func}: input must be a 1-D array of at least one key time, "
                             f"got shape {times.shape}")
        pending = [lambda: _first_bad(func, "input", times),
                   lambda: check_sorted(func, "input", times, values="output")]
        try:
            return cls._from_gltf(func, mode, times, output, pending, not copy)
        except Exception:
            _scan(pending)
            raise

    @classmethod
    def _from_gltf(cls, func, mode, times, output, pending, borrow):
        """from_gltf after its first checks; the scans it deferred in ``pending``."""
        out = as_float64(func, "output", output)
        k = times.size
        rows = 3 * k if mode == "CUBICSPLINE" else k
        if out.ndim not in (1, 2) or out.shape[0] != rows or (out.ndim == 2
                                                              and out.shape[1] == 0):
            what = (f"3 * {k} = {rows} rows (in-tangent, value, out-tangent per key)"
                    if mode == "CUBICSPLINE" else f"{k} rows (one value per key)")
            raise ValueError(f"{func}: output has shape {out.shape}, expected {what} for "
                             f"{mode}, as (rows,) or (rows, components)")
        if k == 1 and mode == "CUBICSPLINE":  # (the C curve checks no lone key's tangents)
            _first_bad(func, "output", out)
        else:
            pending.append(lambda: _first_bad(func, "output", out))
        curve = cls.__new__(cls)
        if mode == "CUBICSPLINE":
            triplets = out.reshape((k, 3) + out.shape[1:])
            keys = triplets[:, 1]
            if borrow and not keys.flags.c_contiguous:  # a private copy, read in place
                keys = np.ascontiguousarray(keys)
                keys.flags.writeable = False
            curve._build(func, times, keys, "cubic", "explicit", None,
                         triplets[:, 0], triplets[:, 2], "clamp", "clamp", False,
                         pending=pending, borrow=borrow)
        else:
            curve._build(func, times, out, _GLTF[mode], None, None, None, None,
                         "clamp", "clamp", False, pending=pending, borrow=borrow)
        return curve

    # -- properties --------------------------------------------------------------

    times = property(lambda self: self._times, doc="Key times in seconds (K,), read-only.")
    values = property(lambda self: self._values, doc="Key values (K,) or (K, C), read-only.")
    interpolation = property(lambda self: _given(self._interpolation),
                             doc="The interpolation as given: one entry, or a tuple of one "
                                 "per segment.")
    in_weights = property(lambda self: self._in_weights,
                          doc="Handle time lengths arriving at each key (None: 1/3).")
    out_weights = property(lambda self: self._out_weights,
                           doc="Handle time lengths leaving each key (None: 1/3).")
    tangents = property(lambda self: self._tangents,
                        doc="The tangent policy, or 'explicit' when velocities were given.")
    before = property(lambda self: self._before, doc="Extrapolation before the first key.")
    after = property(lambda self: self._after, doc="Extrapolation after the last key.")
    jumps = property(lambda self: self._jumps, doc="Whether equal-time key pairs are jumps.")
    def _key_velocities(self):
        """The C curve's key velocities (in, out), read once, read-only: views
        of those it stores, else (step and linear curves) computed."""
        if self._key_in is None:
            stored = _core._curve_velocities(self._capsule)
            if stored is None:
                key_in, key_out = np.empty(self._values.shape), np.empty(self._values.shape)
                _core._curve_key_velocities(self._capsule, key_in, key_out)
                key_in.flags.writeable = key_out.flags.writeable = False
            else:
                key_in, key_out = stored
            self._key_in, self._key_out = key_in, key_out
        return self._key_in, self._key_out

    _in = property(lambda self: self._key_velocities()[0])
    _out = property(lambda self: self._key_velocities()[1])

    in_velocities = property(lambda self: self._in,
                             doc="Per-second velocity arriving at each key, as evaluated.")
    out_velocities = property(lambda self: self._out,
                              doc="Per-second velocity leaving each key, as evaluated.")

    @property
    def channels(self) -> int:
        """Number of channels C (1 for 1-D values)."""
        return 1 if self._values.ndim == 1 else self._values.shape[1]

    @property
    def duration(self) -> float:
        """Seconds from the first key to the last."""
        return float(self._times[-1] - self._times[0])

    # -- evaluation ----------------------------------------------------------------

    def _evaluate(self, func, t, derivatives, out, side="right", workers=None):
        """The body of evaluate, __call__ and sample: the results for each
        derivative order (already checked: ints in 0..2), copied into ``out``
        (one array per order) if given."""
        # the common spellings first: a scalar call costs about one np.interp
        side = _SIDES[side if side.__class__ is str and side in _SIDES
                      else choice(func, "side", side, _SIDES)]
        plan = self._remap_plan(func, derivatives)
        if plan is not False:  # the kernels do it all
            context = self._capsule if side == 0 and plan is None else (self._capsule, side,
                                                                        plan)
            if derivatives == (0, 1):
                return _core._curve_sample(func, context, t, out, workers)
            return (_ORDER_KERNELS[derivatives[0]](func, context, t, out, workers),)
        t = as_float64(func, "t", t)
        if out is not None:
            out = check_out(func, out, len(derivatives), t.shape + self._values.shape[1:])
        return results(self._eval(func, t, derivatives, side), out)

    def _remap_plan(self, func, derivatives):
        """None for a curve without time remaps, the remaps for the C core
        when every one is an easing it knows, or False for the NumPy path."""
        if not self._remaps and self._ease is None:
            return None
        # made once per curve and kind of call (a copy that changes its remaps
        # makes its own): scalar calls then cost about one np.interp
        rates = derivatives != (0,)
        plans = self._plans
        if plans is None or plans[0] is not self._remaps or plans[1] is not self._ease:
            plans = self._plans = [self._remaps, self._ease, None, None]
        if plans[2 + rates] is None:
            plans[2 + rates] = self._make_remap_plan(func, rates)
        return plans[2 + rates]

    def _make_remap_plan(self, func, rates):
        native = [r for r in self._remaps + (self._ease,) if isinstance(r, (Ease, CubicBezier))]
        # an easing whose rate is infinite somewhere (circ, a vertical cubic-bezier end)
        # needs the limits the NumPy path takes there for velocities
        limits = rates and any(
            (isinstance(r, Ease) and r.name.startswith("circ"))
            or (isinstance(r, CubicBezier) and (r.x1 == 0 or r.x2 == 1)) for r in native)
        # (and a span beyond the double range takes the NumPy path's halved arithmetic)
        limits = limits or not math.isfinite(float(self._times[-1]) - float(self._times[0]))
        if limits or len(native) != len(self._remaps) + (self._ease is not None):
            return False
        rows = np.array([_ease_row(r) for r in self._remaps], float).reshape(-1, 9)
        segment = None if self._ease is None else np.array(_ease_row(self._ease), float)
        return _core._curve_remaps(func, rows, segment)

    def _eval(self, func, t, derivatives, side=0):
        """New arrays holding each derivative order in ``derivatives`` at the
        float64 times ``t``; time remaps are applied once for all of them."""
        derivatives = tuple(derivative_order(func, d, (0, 1, 2)) for d in derivatives)
        rate, rests = None, []
        plan = self._remap_plan(func, derivatives)
        if plan is not False:
            context = self._capsule if side == 0 and plan is None else (self._capsule, side,
                                                                        plan)
            return tuple(np.asarray(_ORDER_KERNELS[d](func, context, t, None, None))
                         for d in derivatives)
        if self._remaps or self._ease is not None:
            if 2 in derivatives:
                raise ValueError(f"{func}: derivative=2 is not available on a curve eased "
                                 f"or remapped by a time Curve, a Steps easing, a circ easing "
                                 f"or a cubic Bezier with a vertical end (only their first "
                                 f"derivative is used)")
            _first_bad(func, "t", t)
            clip, rate = t, np.ones(t.shape)
            # (a 0 x inf product of two stages' rates is NaN here: _chain_rule refuses it)
            with np.errstate(invalid="ignore", over="ignore"):
                for remap in self._remaps:  # whole-clip remaps, outermost first
                    t, r, rest = self._remap_clip(func, remap, t)
                    rate *= r
                    rests.append(rest)
                if self._ease is not None:
                    t, r, rest = self._ease_segments(t)
                    rate *= r
                    rests.append(rest)
            self._remapped_outside(func, clip, t)
            if self._values.ndim == 2:
                rate = rate[..., None]
        computed = []
        for derivative in derivatives:
            context = self._capsule if side == 0 else (self._capsule, side)
            result = np.asarray(_ORDER_KERNELS[derivative](func, context, t, None, None))
            if derivative == 1 and rate is not None:
                result = self._chain_rule(func, result, rate, rests)
            computed.append(result)
        return tuple(computed)

    def _remapped_outside(self, func, clip, t):
        """The remaps applied here may take a clip time inside the keys
        outside them: the first remapped time ``t`` that "error"
        extrapolation refuses is refused naming the clip time given, in the
        C core's words for its remaps (a time refused as it is is left to
        the evaluation's own error)."""
        if self._before != "error" and self._after != "error":
            return  # (nothing is refused)
        lo, hi = self._times[0], self._times[-1]
        outside = ((t < lo) & (self._before == "error")) | ((t > hi) & (self._after == "error"))
        if not outside.any():
            return
        index = np.unravel_index(int(np.flatnonzero(outside)[0]), t.shape)
        x = float(t[index])
        if x == float(clip[index]):
            return
        where = f" at index {tuple(int(i) for i in index)}" if t.ndim else ""
        raise ValueError(f"{func}: t{where} is {float(clip[index])!r} (its remapped time "
                         f"{x:.15g} lies {'before' if x < lo else 'after'} the keys, where "
                         f"extrapolation is an error)")

    def _chain_rule(self, func, velocity, rate, rests):
        """velocity * rate, where an infinite rate (an easing leaving or reaching
        its end like sqrt(u), as circ_out does at 0) meets a curve at rest: there
        the velocity is the limit acceleration * L (see _rest_limit)."""
        undetermined = np.isnan(rate)
        if undetermined.any():  # one stage's rate 0, another's infinite: 0 x inf
            index = np.unravel_index(int(np.flatnonzero(np.broadcast_to(
                undetermined, velocity.shape))[0]), velocity.shape)
            raise OverflowError(f"{func}: velocity at index {tuple(int(i) for i in index)} "
                                f"is not computed: one time remap's rate is 0 there and "
                                f"another's infinite (a 0 x inf limit the chain rule does "
                                f"not resolve); evaluate values there, or chain remaps "
                                f"whose rates are finite at that time")
        infinite = np.broadcast_to(np.isinf(rate), velocity.shape)
        moving = infinite & (velocity != 0)
        with np.errstate(over="ignore", invalid="ignore"):
            result = np.asarray(velocity * rate)  # (an array: a scalar query's product is not)
        if infinite.any() and not moving.any() and len(rests) == 1 and rests[0] is not None:
            mask, inside, limit = rests[0]  # one remapping stage: the limit is exact
            acceleration = np.asarray(_core._curve_acceleration(func, self._capsule, inside, None,
                                                                None))
            if self._values.ndim == 2:
                limit = limit[:, None]
            with np.errstate(invalid="ignore", over="ignore"):
                result[mask] = np.where(acceleration == 0, 0.0, acceleration * limit)
        bad = ~np.isfinite(result)
        if bad.any():
            index = np.unravel_index(int(np.flatnonzero(bad)[0]), result.shape)
            where = tuple(int(i) for i in index)
            if infinite[index]:
                raise OverflowError(f"{func}: velocity at index {where} is not representable: "
                                    f"the time remap's rate is infinite there and the curve "
                                    f"is {'moving' if moving[index] else 'at rest'}")
            raise OverflowError(f"{func}: velocity at index {where} is not representable: "
                                f"the curve's velocity {float(velocity[index])!r} times the "
                                f"time remap's rate "
                                f"{float(np.broadcast_to(rate, result.shape)[index])!r} "
                                f"exceeds the double range")
        return result

    @staticmethod
    def _rest_limit(easing, u, tau_start, tau_end, tau, infinite):
        """Where ``easing``'s rate is infinite on a stretch of curve time
        [tau_start, tau_end] (u its normalized time, tau the eased curve time):
        curve times where to take the curve's acceleration, and L such that a
        curve at rest there moves at acceleration * L. At the ends u = 0 and 1
        the acceleration is taken just inside and L = lim (tau - tau_end)
        dtau/dt; elsewhere (circ_in_out at 1/2) L is infinite, so only a curve
        without acceleration there has a velocity (0). None if nowhere."""
        if not infinite.any():
            return None
        u, start, stop, tau = u[infinite], tau_start[infinite], tau_end[infinite], tau[infinite]
        factor = np.array([_end_factor(easing, int(x)) if x in (0.0, 1.0) else np.inf
                           for x in u], dtype=float)
        inside = np.where(u == 1, np.nextafter(stop, -np.inf),
                          np.where(u == 0, np.nextafter(start, np.inf), tau))
        with np.errstate(over="ignore", invalid="ignore"):
            return infinite, inside, (stop - start) * factor

    def _ease_segments(self, t):
        """Per-segment eased times and their rates d(eased)/dt for clip times t.

        Times in cycling extrapolation are folded into the keys' span (as the
        evaluator folds them), eased there, and moved by the eased shift:
        t + sign * (eased local - local), with sign -1 in the mirrored cycles
        of "oscillate"."""
        times = self._times
        t0, t1 = times[0], times[-1]
        if not t1 > t0:
            return t, np.ones(t.shape), None
        local, sign = t.copy(), np.ones(t.shape)
        inside = (t >= t0) & (t <= t1)
        eased = inside.copy()
        for side, mode in ((t < t0, self._before), (t > t1, self._after)):
            if mode not in ("cycle", "cycle_offset", "oscillate") or not side.any():
                continue
            mirror = mode == "oscillate"
            local[side], odd = _fold(t[side], t0, t1, mirror)
            sign[side] = np.where(odd & mirror, -1.0, 1.0)
            eased |= side
        i = np.clip(np.searchsorted(times, local, side="right") - 1, 0, times.size - 2)
        start, end = times[i], times[i + 1]
        u = np.where(eased, np.clip(_ratio(local, start, end), 0.0, 1.0), 0.0)
        tau = _between(start, end, self._ease(u))
        rate = np.where(eased, self._ease(u, derivative=1), 1.0)
        rest = self._rest_limit(self._ease, u, start, end, tau, np.isinf(rate))
        with np.errstate(over="ignore", invalid="ignore"):  # unused where not eased
            moved = np.where(inside, tau, np.where(eased, t + sign * (tau - local), t))
        if rest is not None:  # back to the unfolded times the evaluator takes
            mask, near, limit = rest
            rest = mask, np.where(inside[mask], near,
                                  t[mask] + sign[mask] * (near - local[mask])), limit
        return moved, rate, rest

    def remap_time(self, remap) -> "Curve":
        """The curve played through one time remap over the whole clip.

        Parameters
        ----------
        remap : str, Easing or Curve
            An easing (kind name or object): clip time ``t`` in
            ``[t0, t1]`` (the first and last key) plays the curve at
            ``t0 + ease(u) * (t1 - t0)`` with ``u = (t - t0) / (t1 - t0)``;
            outside the keys time is unchanged. Or a one-channel ``Curve``
            mapping clip time to curve time, for any remap an animator keys.

        Unlike per-segment ``ease=``, the remap brakes only where its own rate
        is 0 (the clip's ends for smoothstep), not at every key. Velocities
        follow the chain rule. ``key_slopes()`` and ``overshoot()`` keep
        describing the curve's keys and path before the remap.

        >>> c = Curve([0, 1, 2, 3], [0, 60, 60, 0], interpolation="linear")
        >>> float(c.remap_time("smoothstep")(1.5)), float(c.remap_time("smoothstep").evaluate(0.0, 1))
        (60.0, 0.0)
        """
        func = "Curve.remap_time"
        if isinstance(remap, Curve):
            if remap._values.ndim != 1:
                raise ValueError(f"{func}: a time curve must have one channel, got "
                                 f"{remap.channels}")
        else:
            remap = as_easing_for(func, remap)
        curve = self._copy()
        curve._remaps = (remap,) + self._remaps
        return curve

    def _remap_clip(self, func, remap, t):
        """Curve time and its rate d(curve time)/d(clip time) at clip times t
        under one whole-clip remap (a time Curve or an easing)."""
        if isinstance(remap, Curve):
            return remap._eval(func, t, (0, 1)) + (None,)
        t0, t1 = self._times[0], self._times[-1]
        if not t1 > t0:
            return t, np.ones(t.shape), None
        inside = (t >= t0) & (t <= t1)
        u = np.where(inside, np.clip(_ratio(t, t0, t1), 0.0, 1.0), 0.0)
        rate = np.where(inside, remap(u, derivative=1), 1.0)
        tau = _between(t0, t1, remap(u))
        rest = self._rest_limit(remap, u, np.full(t.shape, t0), np.full(t.shape, t1), tau,
                                np.isinf(rate))
        return np.where(inside, tau, t), rate, rest

    _fields = (("times", "values", "interpolation", "tangents", "in_velocities",
                "out_velocities", "given", "in_weights", "out_weights", "before_slope",
                "after_slope", "long_handles", "before", "after", "jumps", "ease", "remaps"),
               ("auto_smoothing",))  # (pickles made before it existed)

    def _state(self) -> dict:
        return {"times": self._times, "values": self._values,
                "interpolation": _given(self._interpolation), "tangents": self._tangents,
                "in_velocities": self._in, "out_velocities": self._out,
                "given": self._given,  # the explicit velocities, as given
                "in_weights": self._in_weights, "out_weights": self._out_weights,
                "before_slope": self._slopes[0], "after_slope": self._slopes[1],
                "long_handles": self._long_handles, "auto_smoothing": self._auto_smoothing,
                "before": self._before, "after": self._after, "jumps": self._jumps,
                "ease": self._ease, "remaps": self._remaps}

    @classmethod
    def _from_state(cls, state: dict) -> "Curve":
        func = "Curve"
        given = state["given"]
        if given is not None and not (isinstance(given, (tuple, list)) and len(given) == 2):
            raise ValueError(f"{func}: a pickled state's given velocities are {given!r} "
                             f"(must be None or an (in, out) pair of arrays)")
        stored = _stored_tangents(func, "tangents", state["tangents"], given is not None)
        tangents = "explicit" if given is not None else stored  # (Blender's: as resolved)
        if given is None and stored is None:
            tangents = None
        given = given or (None, None)
        long_handles = flag(func, "long_handles", state["long_handles"])
        curve = cls.__new__(cls)
        curve._build(func, state["times"], state["values"], state["interpolation"],
                     tangents, None, given[0], given[1], state["before"], state["after"],
                     state["jumps"], in_weights=state["in_weights"],
                     out_weights=state["out_weights"], before_slope=state["before_slope"],
                     after_slope=state["after_slope"], long_handles=long_handles)
        curve._tangents = curve._tangents if stored is None else stored
        curve._auto_smoothing = _stored_smoothing(func, state.get("auto_smoothing"), stored)
        ease = state["ease"]
        if ease is not None and not isinstance(ease, Easing):
            raise ValueError(f"{func}: ease is {ease!r} (must be None or an Easing: Ease, "
                             f"CubicBezier or Steps)")
        curve._ease = ease
        return _with_remaps(func, curve, state["remaps"])

    def _copy(self) -> "Curve":
        """A new Curve sharing this one's immutable keys and C curve."""
        curve = Curve.__new__(Curve)
        for name in Curve.__slots__:
            setattr(curve, name, getattr(self, name))
        return curve

    def evaluate(self, t, derivative: int = 0, *, side: str = "right", out=None,
                 workers=None):
        """Value (0), per-second velocity (1) or acceleration (2) at ``t``.

        Parameters
        ----------
        t : array_like
            Query times in seconds, any shape, any order (sorted arrays take a
            forward-cursor path; unsorted ones a binary search; the results
            are identical).
        derivative : {0, 1, 2}
            Derivative order with respect to time in seconds (0 or 1 on a
            curve remapped by a time Curve or a Steps easing; easings and
            cubic-bezier remaps give all three, by the chain rule).
        side : {"right", "left"}
            At a key, a jump, a cycle seam or a mirrored key: the limit just
            after ``t`` ("right", the default) or just before it ("left"). At
            the last key the right side is the extrapolation, at the first
            key the left side is (see the module documentation).
        out : ndarray, optional
            Receives the result (shape ``t.shape`` or ``t.shape + (C,)``; any
            float dtype and strides); left untouched if the call raises.
        workers : int, optional
            Threads to split a large call across, as in ``scipy.fft``: None
            or 1 for this thread, -1 for every core; identical results.

        Returns
        -------
        ndarray
            Shape ``t.shape`` for 1-D values, ``t.shape + (C,)`` otherwise
            (a NumPy scalar for a scalar ``t`` and 1-D values).

        Raises
        ------
        ValueError
            A non-finite ``t`` or, with ``before``/``after="error"``, one outside
            the keys, or one whose remapped time is (an easing that leaves
            [0, 1], such as elastic or back, in an end segment); the message
            names its index in ``t``.
        OverflowError
            A result that is not representable (huge extrapolation).
        """
        if derivative.__class__ is not int or not 0 <= derivative <= 2:  # bool is not int
            derivative = derivative_order("Curve.evaluate", derivative, (0, 1, 2))
        return self._evaluate("Curve.evaluate", t, (derivative,), out, side, workers)[0]

    def __call__(self, t, derivative: int = 0, *, side: str = "right", out=None):
        """The value (``derivative=0``), velocity (1) or acceleration (2) at
        ``t``; the same as ``evaluate(t, derivative, side=side, out=out)``.

        The derivative order is the second positional argument, as ``nu`` is
        in ``scipy.interpolate``'s splines: ``c(t, 1)`` is the per-second
        velocity. A ``derivative`` other than 0, 1 or 2 is a ValueError.
        """
        if derivative.__class__ is not int or not 0 <= derivative <= 2:  # bool is not int
            derivative = derivative_order("Curve", derivative, (0, 1, 2))
        return self._evaluate("Curve", t, (derivative,), out, side)[0]

    def derivative(self, nu: int = 1) -> "CurveDerivative":
        """The ``nu``-th time derivative of this curve as a callable
        :class:`CurveDerivative`, as scipy's ``CubicHermiteSpline.derivative``
        gives one: ``c.derivative()(t) == c(t, 1)``.

        Parameters
        ----------
        nu : {1, 2}
            1: per-second velocity, 2: acceleration. The curve has no third
            derivative here (a cubic's is piecewise constant and is not
            evaluated by the core).

        Returns
        -------
        CurveDerivative
            Evaluates ``self.evaluate(t, nu)``; it refers to this curve (a
            ``Curve`` is immutable), and pickles, copies and compares by value.

        Raises
        ------
        ValueError
            ``nu`` not 1 or 2 (names the value).
        """
        return CurveDerivative(self, _order_argument("Curve.derivative", "nu", nu, (1, 2)))

    def sample(self, t, *, side: str = "right", out=None, workers=None) -> CurveSample:
        """Value and per-second velocity at ``t`` (see :meth:`evaluate`);
        ``out`` is a tuple of two arrays."""
        return CurveSample(*self._evaluate("Curve.sample", t, (0, 1), out, side, workers))

    # -- diagnostics -----------------------------------------------------------------

    def key_slopes(self) -> KeySlopes:
        """Velocity arriving at and leaving every interior key time, exactly.

        The numbers the evaluator uses, not finite differences: for a linear
        curve the neighbouring segment slopes, for a cubic one the key
        velocities of each side (a jump pair counts as one key time, left from
        its left key, right from its right key). With per-segment ``ease=``
        they include the easing's rate at the segment ends (both 0 for
        smoothstep: the curve stops at every key); a whole-clip
        :meth:`remap_time` is not included.
        """
        t = self._times
        first = np.r_[True, t[1:] != t[:-1]]  # first key of each distinct time
        last = np.r_[t[1:] != t[:-1], True]
        lefts, rights = np.flatnonzero(first)[1:-1], np.flatnonzero(last)[1:-1]
        left, right = self._in[lefts], self._out[rights]  # (index arrays: copies)
        if self._ease is not None:
            left = self._eased_slope(left, t[lefts], t[lefts] - t[lefts - 1], 1)
            right = self._eased_slope(right, t[rights], t[rights + 1] - t[rights], 0)
        with np.errstate(over="ignore", invalid="ignore"):
            jump = right - left
        bad = np.isnan(jump) | (np.isinf(jump) & np.isfinite(left) & np.isfinite(right))
        if bad.any():
            index = np.unravel_index(int(np.flatnonzero(bad)[0]), bad.shape)
            raise OverflowError(
                f"Curve.key_slopes: jump at index {tuple(int(i) for i in index)} (key time "
                f"{float(t[lefts][index[0]])!r}) is not representable: right slope "
                f"{float(right[index])!r} minus left slope {float(left[index])!r}")
        return KeySlopes(t[lefts], left, right, jump)

    def _eased_slope(self, velocity, key_times, durations, end):
        """Key velocities times the easing's rate at segment end ``end`` (0 or 1),
        with the limit of _chain_rule where the rate is infinite."""
        rate = float(self._ease(float(end), derivative=1))
        if np.isfinite(rate):
            # (an infinite velocity times a zero rate has no value: NaN, which
            # key_slopes reports as a jump that is not representable)
            with np.errstate(invalid="ignore", over="ignore"):
                return velocity * rate + 0.0  # no -0.0
        func = "Curve.key_slopes"
        inside = np.nextafter(key_times, -np.inf if end else np.inf)
        acceleration = np.asarray(_core._curve_acceleration(func, self._capsule, inside, None,
                                                            None))
        limit = durations * _end_factor(self._ease, end)
        if self._values.ndim == 2:
            limit = limit[:, None]
        with np.errstate(invalid="ignore", over="ignore"):
            slope = np.where(acceleration == 0, 0.0, acceleration * limit) + 0.0
        bad = (velocity != 0) | ~np.isfinite(slope)
        if bad.any():
            index = np.unravel_index(int(np.flatnonzero(bad)[0]), bad.shape)
            raise OverflowError(f"{func}: {'left' if end else 'right'} slope at index "
                                f"{tuple(int(i) for i in index)} is not representable: the "
                                f"easing's rate is infinite at u={end} and the curve moves")
        return slope

    def _segment_kinds(self) -> np.ndarray:
        """Each segment's kind as the curve evaluates it, a code of
        _SEGMENT_KINDS or _EASED (an easing): the one reading of a
        per-segment interpolation, whatever names it was given in."""
        if self._kinds is None:
            return np.full(max(self._times.size - 1, 0), _SEGMENT_KINDS[self._interpolation])
        kinds = self._kinds.astype(int)
        if isinstance(self._interpolation, _PerSegment):
            # an entry "linear" among others is the linear easing: a line
            per = self._interpolation
            lines = [i for i, entry in enumerate(per.distinct) if entry == "linear"]
            kinds[np.isin(per.places, lines)] = _SEGMENT_KINDS["linear"]
        return kinds

    def overshoot(self) -> Overshoot:
        """Each segment's exact extreme values against its keys' value range.

        Extremes are found from the roots of the derivative of each segment's
        cubic (closed form), not by sampling: for a Bezier segment the cubic
        of its value in the curve parameter, whose roots give the values and,
        through its time polynomial, the times. Step, linear, cubic and
        Bezier segments, mixed per segment too; not eased segments.
        """
        t, v = self._times, self._values
        kinds = self._segment_kinds()
        if (kinds == _EASED).any():
            raise ValueError("Curve.overshoot: exact extremes are computed for step, "
                             "linear, cubic and bezier segments, not "
                             f"interpolation={_interpolation_text(self._interpolation)}")
        seg = np.flatnonzero(t[1:] > t[:-1])
        kinds = kinds[seg]
        t0, t1 = t[seg], t[seg + 1]
        half = 0.5 * t1 - 0.5 * t0  # half the durations: finite even for +-1e308 keys
        p0, p1 = v[seg], v[seg + 1]
        column = (lambda x: x) if v.ndim == 1 else (lambda x: x[:, None])
        Tc = column(half)
        curved, bezier = column(kinds >= 2), column(kinds == 3)
        with np.errstate(over="ignore", invalid="ignore"):
            m0, m1 = (Tc * self._out[seg]) * 2.0, (Tc * self._in[seg + 1]) * 2.0
            m0, m1 = np.where(curved, m0, 0.0), np.where(curved, m1, 0.0)
        # A Bezier segment's value in its parameter s is the Hermite cubic of
        # the tangents 3 w m (w its handles' time lengths, as the evaluator
        # limits them); its time is t0 + T x(s), with x the cubic through
        # 0, wo, 1 - wi, 1.
        wo = wi = np.full(p0.shape, 1.0 / 3.0)
        if bezier.any():
            weights = []
            for w, rows in ((self._out_weights, seg), (self._in_weights, seg + 1)):
                w = np.full(v.shape, 1.0 / 3.0) if w is None else np.broadcast_to(
                    w if w.ndim == v.ndim else w[:, None], v.shape)
                w = w[rows] if self._long_handles else np.minimum(w[rows], 1.0)
                weights.append(np.where(bezier, w, 1.0 / 3.0))
            wo, wi = weights
            with np.errstate(over="ignore", invalid="ignore"):
                m0, m1 = np.where(bezier, 3.0 * wo * m0, m0), np.where(bezier, 3.0 * wi * m1, m1)
        # Each segment is scaled by its largest magnitude first (the roots in u
        # do not change), so that values near 1e300 do not overflow in b * b.
        scale = np.maximum.reduce([np.abs(p0), np.abs(p1), np.abs(m0), np.abs(m1)])
        scale = np.where(scale > 0, scale, 1.0)
        p0, p1, m0, m1 = p0 / scale, p1 / scale, m0 / scale, m1 / scale
        # x(u) = p0 + m0 u + b u^2 + a u^3, x'(u) = 3a u^2 + 2b u + m0
        a = 2.0 * (p0 - p1) + m0 + m1
        b = 3.0 * (p1 - p0) - 2.0 * m0 - m1
        with np.errstate(divide="ignore", invalid="ignore"):
            disc = b * b - 3.0 * a * m0
            q = -(b + np.where(b >= 0, 1.0, -1.0) * np.sqrt(np.maximum(disc, 0.0)))
            r1, r2 = q / (3.0 * a), m0 / q
        candidates = [np.zeros_like(p0), np.ones_like(p0)]
        for r in (r1, r2):
            candidates.append(np.where(curved & (disc >= 0) & (r > 0) & (r < 1), r, 0.0))
        u = np.stack(candidates, axis=-1)
        P0, P1, M0, M1 = (x[..., None] for x in (p0, p1, m0, m1))
        u2, u3 = u * u, u * u * u
        cubic = ((2 * u3 - 3 * u2 + 1) * P0 + (u3 - 2 * u2 + u) * M0
                 + (-2 * u3 + 3 * u2) * P1 + (u3 - u2) * M1)
        step = column(kinds == 0)[..., None]
        x = np.where(column(kinds >= 2)[..., None], cubic,
                     np.where(step, np.broadcast_to(P0, u.shape), P0 + u * (P1 - P0)))
        u = np.where(step, 0.0, u)  # (a step segment holds its first key)
        # the time of each candidate: u itself, or x(s) of a Bezier segment
        X1, X2 = wo[..., None], 1.0 - wi[..., None]
        along = 3.0 * X1 * u * (1 - u) ** 2 + 3.0 * X2 * u2 * (1 - u) + u3
        frac = np.where(bezier[..., None], np.clip(along, 0.0, 1.0), u)
        lo_i, hi_i = x.argmin(axis=-1)[..., None], x.argmax(axis=-1)[..., None]
        with np.errstate(over="ignore"):
            low = np.take_along_axis(x, lo_i, -1)[..., 0] * scale
            high = np.take_along_axis(x, hi_i, -1)[..., 0] * scale
        p0, p1 = v[seg], v[seg + 1]  # the keys as given
        for name, extreme in (("low", low), ("high", high)):
            _first_overflow("Curve.overshoot", name, extreme)
        T0, T1 = column(t0), column(t1)
        time_low = _between(T0, T1, np.take_along_axis(frac, lo_i, -1)[..., 0])
        time_high = _between(T0, T1, np.take_along_axis(frac, hi_i, -1)[..., 0])
        key_low, key_high = np.minimum(p0, p1), np.maximum(p0, p1)
        with np.errstate(over="ignore"):
            over = np.maximum(np.maximum(high - key_high, key_low - low), 0.0)
        _first_overflow("Curve.overshoot", "overshoot", over)
        return Overshoot(t0, t1, key_low, key_high, low, high, time_low, time_high, over)

    # -- editing -----------------------------------------------------------------------

    def stretched(self, factor, keep: str = "velocity") -> "Curve":
        """The curve with its key spacing multiplied by ``factor`` (> 0),
        about the first key (which keeps its time).

        keep="velocity": the per-second key velocities stay and the tangents
            are rebuilt for the new segment durations, so the shape changes
            (moving keys in a dope sheet).
        keep="shape": the same curve played slower or faster; velocities are
            divided by ``factor`` and the tangents stay as they are.

        A cubic result carries the key velocities explicitly
        (``tangents == "explicit"``); step and linear curves just move their keys.
        Per-segment ``ease`` is kept; a :meth:`remap_time` (in absolute
        clip time) is not.
        """
        func = "Curve.stretched"
        factor = stretch_factor(func, factor, keep)
        t0 = self._times[0]
        with np.errstate(over="ignore", invalid="ignore"):
            times = t0 + (self._times - t0) * factor
        bad = ~np.isfinite(times)
        if bad.any():
            k = int(np.argmax(bad))
            raise OverflowError(f"{func}: factor={factor!r} moves key {k} (time "
                                f"{float(self._times[k])!r}) to a time that is not "
                                f"representable")
        curve = Curve.__new__(Curve)
        if self._kinds is not None:  # per-segment kinds: weights are relative and stay
            divisor = factor if keep == "shape" else 1.0
            slopes = [None if x is None else np.asarray(x) / divisor for x in self._slopes]
            explicit = bool(np.isin(self._kinds, (2, 3)).any())
            curve._build(func, times, self._values, self._interpolation, None, None,
                         self._in / divisor if explicit else None,
                         self._out / divisor if explicit else None, self._before,
                         self._after, self._jumps, in_weights=self._in_weights,
                         out_weights=self._out_weights, before_slope=slopes[0],
                         after_slope=slopes[1], long_handles=self._long_handles)
        elif self._interpolation == "cubic":
            divisor = factor if keep == "shape" else 1.0
            curve._build(func, times, self._values, "cubic", "explicit", None,
                         self._in / divisor, self._out / divisor, self._before, self._after,
                         self._jumps)
        else:
            curve._build(func, times, self._values, self._interpolation, None,
                         None, None, None, self._before, self._after, self._jumps)
        curve._ease = self._ease  # per-segment easing is relative: it stretches along
        return curve

    # -- keys as a sequence, edited copies, JSON ---------------------------------------

    def __len__(self) -> int:
        """The number of keys."""
        return int(self._times.size)

    def __iter__(self) -> Iterator[CurveKey]:
        """One :class:`CurveKey` (time, value, in_velocity, out_velocity) per key."""
        for i in range(self._times.size):
            value, vin, vout = self._values[i], self._in[i], self._out[i]
            if self._values.ndim == 1:
                value, vin, vout = float(value), float(vin), float(vout)
            yield CurveKey(float(self._times[i]), value, vin, vout)

    def _rebuild(self, func, times, values, velocities, edit=None) -> "Curve":
        """A curve with this one's options, weights, slopes, easing and remaps on
        new keys. ``edit`` is how the keys changed: None (new values only),
        ("insert", i), ("replace", i) or ("remove", i); it moves the per-key
        weights and policies and the per-segment interpolations along (a new
        key splits its segment, whose kind both halves keep; a removed key's
        segments merge into the left one, as the tools store a segment on its
        left key). ``velocities`` is (velocities, in_velocities,
        out_velocities) for an explicit curve, else None: a tangent policy
        computes them from the new keys."""
        interpolation, policy = _given(self._interpolation), self._tangents
        if isinstance(interpolation, tuple):
            kinds = _edited_segments(func, self._segment_kinds().tolist(), edit)
            interpolation = tuple(_edited_segments(func, list(interpolation), edit))
            if velocities is not None and not any(k in (_SEGMENT_KINDS["cubic"],
                                                        _SEGMENT_KINDS["bezier"])
                                                  for k in kinds):
                velocities, policy = None, None  # no segment left that uses them
        weights = [None if w is None else _edited_keys(w, edit, 1 / 3)
                   for w in (self._in_weights, self._out_weights)]
        options = dict(before=self._before, after=self._after, before_slope=self._slopes[0],
                       after_slope=self._slopes[1], jumps=self._jumps)
        if policy is not None and velocities is None and (
                not isinstance(policy, str) or policy in _BLENDER_POLICIES):
            if isinstance(policy, tuple) or policy == "free":
                if edit is not None and edit[0] == "insert":
                    raise ValueError(f"{func}: this curve's tangents are given per key, so a "
                                     f"new key needs its own: build the edited curve with "
                                     f"Curve(...)")
                if isinstance(policy, tuple) and edit is not None and edit[0] == "remove":
                    policy = policy[:edit[1]] + policy[edit[1] + 1:]
            free = policy == "free" or (isinstance(policy, tuple) and "free" in policy)
            given = [_edited_keys(g, edit, 0.0) for g in self._given] if free else (None, None)
            curve = Curve.__new__(Curve)
            curve._init(func, times, values, interpolation, policy, None, given[0], given[1],
                        weights[0], weights[1], options["before"], options["after"],
                        options["before_slope"], options["after_slope"], options["jumps"],
                        self._auto_smoothing)
        else:
            curve = Curve.__new__(Curve)
            curve._build(func, times, values, interpolation,
                         "explicit" if velocities is not None else policy,
                         *(velocities or (None, None, None)),
                         options["before"], options["after"], options["jumps"],
                         in_weights=weights[0], out_weights=weights[1],
                         before_slope=options["before_slope"],
                         after_slope=options["after_slope"], long_handles=self._long_handles)
        curve._ease, curve._remaps = self._ease, self._remaps
        return curve

    def _key_velocity(self, func, name, value, shape):
        array = as_float64(func, name, value)
        if array.shape != shape:
            raise ValueError(f"{func}: {name} has shape {array.shape}, expected {shape} (one "
                             f"per channel)")
        return array

    def with_key(self, t, value, *, velocity=None, in_velocity=None,
                 out_velocity=None) -> "Curve":
        """A new curve with a key at time ``t`` (a key already at ``t`` is replaced;
        at a jump, its left key).

        ``value`` has one number per channel. On a curve with explicit
        velocities (``tangents == "explicit"``) the key needs its per-second
        ``velocity`` (or ``in_velocity`` and ``out_velocity``); otherwise the
        tangent policy computes it, and giving one is an error. Options,
        handle weights (a new key's are 1/3), ``ease`` and time remaps are
        kept; with per-segment interpolation the new key splits its segment
        and both halves keep its kind. The tools' automatic tangents are
        computed again from the new keys; per-key tangent policies and
        'free' handles need the new key's own, so inserting a key into such a
        curve is an error (build it with ``Curve(...)``).

        >>> float(Curve([0, 2], [0, 2], interpolation="linear").with_key(1, 5)(0.5))
        2.5
        """
        func = "Curve.with_key"
        t = as_float64(func, "t", t)
        if t.shape != () or not np.isfinite(t):
            raise ValueError(f"{func}: t must be one finite time, got {t.tolist()!r}")
        shape = self._values.shape[1:]
        row = self._key_velocity(func, "value", value, shape)
        explicit = self._tangents == "explicit"
        given = [v for v in (velocity, in_velocity, out_velocity) if v is not None]
        if not explicit and given:
            raise ValueError(f"{func}: this curve's tangents are {self._tangents!r}, which "
                             f"compute every key velocity, so a velocity would have no effect")
        if explicit:
            if velocity is not None and (in_velocity is not None or out_velocity is not None):
                raise ValueError(f"{func}: give either velocity or in_velocity and "
                                 f"out_velocity, not both")
            if velocity is not None:
                in_velocity = out_velocity = velocity
            if in_velocity is None or out_velocity is None:
                raise ValueError(f"{func}: this curve's velocities are explicit, so the new "
                                 f"key needs velocity= (or in_velocity= and out_velocity=)")
            vin = self._key_velocity(func, "in_velocity", in_velocity, shape)
            vout = self._key_velocity(func, "out_velocity", out_velocity, shape)
        i = int(np.searchsorted(self._times, float(t)))
        replace = i < self._times.size and self._times[i] == float(t)
        end = i + 1 if replace else i

        def put(array, item):
            return np.concatenate([array[:i], np.asarray(item)[None], array[end:]])

        times, values = put(self._times, float(t)), put(self._values, row)
        velocities = None
        if explicit:
            velocities = (None, put(self._given[0], vin), put(self._given[1], vout))
        return self._rebuild(func, times, values, velocities,
                             ("replace" if replace else "insert", i))

    def without_key(self, index: int) -> "Curve":
        """A new curve without key ``index`` (negative counts from the end);
        at least one key remains. Options, handle weights, ``ease`` and time
        remaps are kept; with per-segment interpolation the two segments
        around the key merge into the left one (the tools store a segment's
        kind on its left key)."""
        func = "Curve.without_key"
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise ValueError(f"{func}: index must be an integer, got {index!r}")
        k = self._times.size
        if not -k <= int(index) < k:
            raise ValueError(f"{func}: index is {int(index)} (must lie in [{-k}, {k - 1}] for "
                             f"{k} keys)")
        if k == 1:
            raise ValueError(f"{func}: a curve keeps at least one key")
        i = int(index) % k
        keep = np.arange(k) != i
        velocities = None if self._given is None or self._tangents != "explicit" else (
            None, self._given[0][keep], self._given[1][keep])
        return self._rebuild(func, self._times[keep], self._values[keep], velocities,
                             ("remove", i))

    def with_values(self, values, *, velocities=None, in_velocities=None,
                    out_velocities=None) -> "Curve":
        """A new curve with the same key times and options and new ``values``
        (K rows, any number of channels).

        A curve with explicit velocities keeps them (when the channels match)
        unless new ones are given; a tangent policy (the tools' automatic
        rules included) computes them again from the new values, exactly as
        a new ``Curve`` with that policy would; giving velocities to such a
        curve makes the new curve's tangents explicit. Handle weights,
        per-segment interpolation, extrapolation slopes, ``ease`` and time
        remaps are kept.
        """
        func = "Curve.with_values"
        values = as_float64(func, "values", values)
        if velocities is None and in_velocities is None and out_velocities is None:
            if self._tangents == "explicit":
                if values.shape != self._values.shape:
                    raise ValueError(f"{func}: values has shape {values.shape}, but the "
                                     f"explicit velocities have shape {self._values.shape}: "
                                     f"give new velocities too")
                return self._rebuild(func, self._times, values, (None, *self._given))
            return self._rebuild(func, self._times, values, None)
        return self._rebuild(func, self._times, values,
                             (velocities, in_velocities, out_velocities))

    def to_dict(self) -> dict:
        """Everything that defines the curve, as JSON-ready lists, numbers and
        strings: ``Curve.from_dict(json.loads(json.dumps(c.to_dict())))``
        evaluates exactly as ``c`` does: per-segment interpolation and
        easings, handle weights, extrapolation slopes, ``ease`` and time
        remaps included. The tools' automatic handles are stored as resolved
        velocities and weights, with the policy's name (and ``with_values``
        or ``with_key`` on the restored curve computes them again by it);
        OpenUSD's AutoEase is computed again from the keys."""

        def listed(x):
            return x.tolist() if isinstance(x, np.ndarray) else x

        interpolation = _given(self._interpolation)
        if isinstance(interpolation, tuple):
            interpolation = [e if isinstance(e, str) else easing_to_data(e)
                             for e in interpolation]
        elif not isinstance(interpolation, str):
            interpolation = easing_to_data(interpolation)
        tangents = self._tangents
        data = {"type": "Curve", "times": self._times.tolist(), "values": self._values.tolist(),
                "interpolation": interpolation,
                "tangents": tangents if isinstance(tangents, str) else list(tangents)}
        if self._given is not None and tangents != "auto_ease":  # (computed from the keys)
            # the tools' automatic handles as resolved, like the explicit ones
            data["in_velocities"] = self._given[0].tolist()
            data["out_velocities"] = self._given[1].tolist()
        for name, value in (("in_weights", self._in_weights), ("out_weights", self._out_weights),
                            ("before_slope", self._slopes[0]), ("after_slope", self._slopes[1]),
                            ("auto_smoothing", self._auto_smoothing)):
            if value is not None:
                data[name] = listed(value)
        if self._long_handles:
            data["long_handles"] = True
        data.update(before=self._before, after=self._after, jumps=self._jumps,
                    ease=None if self._ease is None else easing_to_data(self._ease),
                    remaps=[r.to_dict() if isinstance(r, Curve) else easing_to_data(r)
                            for r in self._remaps])
        return data

    @classmethod
    def from_dict(cls, data) -> "Curve":
        """The curve that :meth:`to_dict` described.

        A field left out takes the value it has always had in these
        documents, not the constructor's default: ``interpolation`` "cubic"
        and, without velocities, ``tangents`` "catmull_rom" (what such a
        document meant before Blender's auto-clamped tangents became
        ``Curve``'s default), ``before`` and ``after`` "clamp". A field of
        the wrong kind or value is a ValueError naming ``Curve.from_dict``,
        the field (and index) and the value."""
        func = "Curve.from_dict"
        check_fields(func, data, "Curve", ["times", "values"],
                     ["interpolation", "tangents", "in_velocities", "out_velocities", "before",
                      "after", "jumps", "ease", "remaps", "in_weights", "out_weights",
                      "before_slope", "after_slope", "auto_smoothing", "long_handles"])
        interpolation = data.get("interpolation", "cubic")
        if isinstance(interpolation, list):
            interpolation = [e if isinstance(e, str) else easing_from_data(
                e, func, f"interpolation at index ({i},)") for i, e in enumerate(interpolation)]
        elif isinstance(interpolation, dict):
            interpolation = easing_from_data(interpolation, func, "interpolation")
        resolved = data.get("in_velocities") is not None or data.get("out_velocities") is not None
        tangents = data.get("tangents")
        if tangents is None and not resolved:
            tangents = "catmull_rom"  # (what a dict without them has always meant)
        if tangents != "auto_ease":  # (computed again from the keys)
            tangents = _stored_tangents(func, "tangents", tangents, resolved)
        options = dict(in_weights=data.get("in_weights"), out_weights=data.get("out_weights"),
                       before_slope=data.get("before_slope"),
                       after_slope=data.get("after_slope"))
        before, after = data.get("before", "clamp"), data.get("after", "clamp")
        jumps = data.get("jumps", False)
        long_handles = flag(func, "long_handles", data.get("long_handles", False))
        smoothing = _stored_smoothing(func, data.get("auto_smoothing"), tangents)
        if tangents == "auto_ease":
            curve = cls.__new__(cls)
            curve._init(func, data["times"], data["values"], interpolation, tangents, None,
                        None, None, options["in_weights"], options["out_weights"], before,
                        after, options["before_slope"], options["after_slope"], jumps, None)
        else:  # the tools' automatic handles come resolved, as explicit ones
            policy = tangents is not None and (not isinstance(tangents, str)
                                               or tangents in _BLENDER_POLICIES)
            curve = cls.__new__(cls)
            curve._build(func, data["times"], data["values"], interpolation,
                         "explicit" if policy else tangents, None,
                         data.get("in_velocities"), data.get("out_velocities"), before, after,
                         jumps, long_handles=long_handles, **options)
            if policy:
                curve._tangents = tangents
                curve._auto_smoothing = smoothing
        ease = data.get("ease")
        curve._ease = None if ease is None else easing_from_data(ease, func, "ease")
        remaps = data.get("remaps") or []
        if not isinstance(remaps, list):
            raise ValueError(f"{func}: remaps is {remaps!r} (must be a list of time curves and "
                             f"easings, outermost first)")
        objects = []
        for i, remap in enumerate(remaps):
            where = f"remaps at index ({i},)"
            if isinstance(remap, dict) and remap.get("type") == "Curve":
                try:
                    remap = Curve.from_dict(remap)
                except ValueError as error:
                    raise ValueError(f"{func}: {where}: {error}") from None
            else:
                remap = easing_from_data(remap, func, where)
            objects.append(remap)
        return _with_remaps(func, curve, objects)  # (stored outermost first)

    # -- display -------------------------------------------------------------------------

    def plot(self, ax=None, *, velocity: bool = False, keys: bool = True,
             samples: int = 400, span=None, **kwargs):
        """Draw the curve (and its keys, and optionally its velocity) with matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; the current axes by default.
        velocity : bool
            Also draw the per-second velocity, dashed, in the curve's colours, on a
            right-hand axis that every curve plotted on ``ax`` shares. With a
            ``label=``, each velocity line is in ``ax.legend()`` as
            ``"<label> velocity"``. The last sample's velocity is taken from the
            left (``side="left"``): the velocity the curve arrives with, not the
            extrapolation's that ``evaluate`` gives at the last key.
        keys : bool
            Mark the keys.
        samples : int
            Number of evaluation points (both sides of every jump are added).
        span : (start, end), optional
            Time range to draw, e.g. to show extrapolation; the keys by default.
        **kwargs
            Passed to ``ax.plot`` for the curve (``color=``, ``label=``, ...).

        Returns
        -------
        ax, or (ax, velocity_ax) with ``velocity=True``
            The axes drawn on, and the right-hand axes of the velocities.
        """
        from .plotting import plot_curve
        return plot_curve(self, ax, velocity=velocity, keys=keys, samples=samples, span=span,
                          **kwargs)

    def _repr_html_(self):
        from .plotting import html_figure
        return html_figure(self)

    def __repr__(self):
        k = self._times.size
        span = f"[{self._times[0]:g}, {self._times[-1]:g}] s"
        channels = "" if self._values.ndim == 1 else f", channels={self.channels}"
        tangents = (f", tangents={self._tangents!r}" if self._interpolation == "cubic"
                    or (self._kinds is not None and np.isin(self._kinds, (2, 3)).any())
                    else "")
        jumps = ", jumps=True" if self._jumps else ""
        ease = "" if self._ease is None else f", ease={self._ease!r}"
        remapped = f", remapped x{len(self._remaps)}" if self._remaps else ""
        return (f"Curve({k} key{'s' if k != 1 else ''} in {span}{channels}, "
                f"interpolation={_interpolation_text(self._interpolation)}{tangents}, "
                f"before={self._before!r}, "
                f"after={self._after!r}{jumps}{ease}{remapped})")


def _order_argument(func: str, name: str, value, orders: tuple[int, ...]) -> int:
    """``value`` as an int derivative order from ``orders`` (consecutive), or a
    ValueError naming ``func``, the argument ``name`` and the value."""
    if not orders:  # an acceleration has no further derivative here
        raise ValueError(f"{func}: {name} is {value!r} (must be none: the acceleration, "
                         f"order 2, is the highest a curve gives)")
    return derivative_order(func, value, orders, "a curve's derivatives go up to the "
                            "acceleration, order 2", name=name)


class CurveDerivative(ByValue):
    """The ``nu``-th time derivative of a :class:`Curve`, as a callable
    (what :meth:`Curve.derivative` returns).

    ``CurveDerivative(curve, nu)(t, ...)`` is ``curve.evaluate(t, nu, ...)``:
    ``nu=1`` the per-second velocity, ``nu=2`` the acceleration, with the
    curve's sides, extrapolation and time remaps. Like scipy's
    ``CubicHermiteSpline.derivative()`` it is itself differentiable
    (``c.derivative().derivative()`` is ``c.derivative(2)``) and takes a
    further order as its second argument, up to a total of 2.

    It holds the curve itself (curves are immutable), and pickles, copies
    and compares (``==``) by value: equal curves and equal orders.

    Parameters
    ----------
    curve : Curve
        The curve to differentiate.
    nu : {1, 2}
        The derivative order.

    Raises
    ------
    ValueError
        ``curve`` not a Curve, or ``nu`` not 1 or 2.
    """

    __slots__ = ("_curve", "_nu")

    def __init__(self, curve: Curve, nu: int = 1):
        if not isinstance(curve, Curve):
            raise ValueError(f"CurveDerivative: curve is a {type(curve).__name__} "
                             f"(must be a Curve)")
        self._nu = _order_argument("CurveDerivative", "nu", nu, (1, 2))
        self._curve = curve

    @property
    def curve(self) -> Curve:
        """The curve differentiated."""
        return self._curve

    @property
    def nu(self) -> int:
        """The derivative order: 1 (velocity) or 2 (acceleration)."""
        return self._nu

    def __call__(self, t, derivative: int = 0, *, side: str = "right", out=None,
                 workers=None):
        """The curve's derivative of order ``nu + derivative`` at ``t``; the
        same as ``curve.evaluate(t, nu + derivative, side=side, out=out,
        workers=workers)`` (see :meth:`Curve.evaluate`).

        ``derivative`` adds to ``nu`` (0, or 1 when ``nu`` is 1); any other
        value is a ValueError naming it.
        """
        more = _order_argument("CurveDerivative", "derivative", derivative,
                               tuple(range(3 - self._nu)))
        return self._curve._evaluate("CurveDerivative", t, (self._nu + more,), out, side,
                                     workers)[0]

    def derivative(self, nu: int = 1) -> "CurveDerivative":
        """The derivative of this derivative: order ``self.nu + nu`` of the
        curve (at most 2)."""
        more = _order_argument("CurveDerivative.derivative", "nu", nu,
                               tuple(range(1, 3 - self._nu)))
        return CurveDerivative(self._curve, self._nu + more)

    _fields = (("curve", "nu"), ())

    def _state(self) -> dict:
        return {"curve": self._curve, "nu": self._nu}

    @classmethod
    def _from_state(cls, state: dict) -> "CurveDerivative":
        return cls(state["curve"], state["nu"])

    def __repr__(self):
        return f"CurveDerivative(nu={self._nu}, curve={self._curve!r})"


# Ease evaluates parameterized easings with a Curve; easing sits below curves, so the class
# is handed down here rather than imported there.
_easing_curve_class.append(Curve)
