"""Error-bounded keyframe reduction, measured in ACL's object-space metric.

:func:`clip_error` is the error ACL (the Animation Compression Library)
reports: per joint, the largest distance between two poses' world positions
of virtual points ``shell`` along each local axis (+-x, +-y, +-z).
:func:`reduce_keys` keeps as few keys of a curve as it can while the result
stays within a tolerance of the original on a dense check (20 points per
original key interval, every original key included, and the value a step
holds just before the key it ends at): where the difference
is piecewise linear between those points (a linear or step result of a
linear or step original) that check is a proof; elsewhere each local maximum
of the difference on the check is refined by zooming in on it, so that the
bound holds between the check's points too. :func:`reduce_clip` does it for every channel of a clip with a budget
per joint down the hierarchy, then verifies :func:`clip_error` densely.
The numbers are the C core's (``csrc/ac_reduce.c``): the metric's distance
between two sets of world matrices, and a candidate segment's error at the
check's points (step, linear and Hermite segments; slerps for rotations);
Python picks the keys.

Units: ``tolerance`` and ``shell`` are in the scene's length units (glTF:
metres; BVH as loaded: the file's units, often centimetres, so pass
``shell=3.0`` and a centimetre tolerance there).
"""

from __future__ import annotations

import struct

import numpy as np

from . import _core
from ._arrays import as_float64, check_finite, choice, index_text, positive_number
from .curves import _SEGMENT_KINDS, Curve, _between, _ratio
from .hermite import hermite
from ._objects import ByValue
from .model import Channel, Clip, Scene, _scene_argument
from .rotations import RotationCurve
from .skeleton import Transforms

__all__ = ["clip_error", "reduce_keys", "reduce_clip", "compress", "CompressedClip"]

DENSE = 20  # check points per original key interval
CHECK = 5  # points per frame of the whole-clip safety check (channels are checked at DENSE)
_KINDS = {"step": 0, "linear": 1, "cubic": 2}  # AC_CURVE_* of a candidate segment


def clip_error(scene: Scene, clip_a, clip_b, t, *, shell=0.03) -> np.ndarray:
    """ACL's object-space error between two clips of one scene.

    Parameters
    ----------
    scene : Scene
    clip_a, clip_b : Clip, clip name or index (None: the rest pose)
    t : array_like
        Times in seconds.
    shell : float
        Distance of the virtual points from each node along its local axes,
        in the scene's units at rest (> 0; ACL's default is 3 cm): a node
        whose rest world matrix carries a scale (an FBX file's unit
        conversion, an armature scaled by 0.01) has its points at ``shell``
        over that scale along its axes, so that they lie ``shell`` from it in
        the scene's units; an unscaled rig's are ACL's.

    Returns
    -------
    ndarray, shape ``t.shape + (J,)``
        Per scene node, the largest distance between the two poses' world
        positions of the six points ``+-shell`` along the node's local x, y
        and z axes (an OverflowError where that distance exceeds the double
        range).
    """
    return _clip_error("clip_error", scene, clip_a, clip_b, t, shell)


def _clip_error(func: str, scene: Scene, clip_a, clip_b, t, shell, shells=None) -> np.ndarray:
    """:func:`clip_error`, its errors named by ``func`` (``shells``: the
    scene's :func:`_node_shells`, when the caller has them)."""
    _scene_argument(func, "scene", scene)
    shell = positive_number(func, "shell", shell)
    t = as_float64(func, "t", t)
    check_finite(func, "t", t)
    clip_a = None if clip_a is None else scene.clip(clip_a, func=func)
    clip_b = None if clip_b is None else scene.clip(clip_b, func=func)
    for name, clip in (("clip_a", clip_a), ("clip_b", clip_b)):
        if isinstance(clip, Clip):
            for c in clip.channels:
                if c.node >= len(scene.nodes):
                    raise ValueError(f"{func}: {name} animates node {c.node}, but the scene "
                                     f"has {len(scene.nodes)} nodes")
    out = _chunked_error(t.reshape(-1), len(scene.nodes), lambda c: scene.world(clip_a, c),
                         lambda c: scene.world(clip_b, c),
                         _node_shells(scene, shell) if shells is None else shells, func)
    bad = np.flatnonzero(~np.isfinite(out))
    if bad.size:
        where = index_text(t.shape + (len(scene.nodes),), int(bad[0]))
        raise OverflowError(f"{func}: the error{where} is not representable "
                            f"(world positions further apart than the double range)")
    return out.reshape(t.shape + (len(scene.nodes),))


# ---------------------------------------------------------------- key picks

def _subdivided(times: np.ndarray, count: int = DENSE) -> np.ndarray:
    """``count`` points per interval of ``times`` and the last time: time k at
    index count * k."""
    u = np.arange(count) / count
    with np.errstate(over="ignore", invalid="ignore"):
        step = np.diff(times)[:, None]
        grid = times[:-1, None] + u * step
    wide = ~np.isfinite(step[:, 0])  # keys ~1e308 apart: weights of both ends instead
    if wide.any():
        grid[wide] = times[:-1][wide, None] * (1 - u) + times[1:][wide, None] * u
    return np.append(grid.reshape(-1), times[-1:])


def _greedy(count: int, fits) -> list:
    """Keys to keep: from each kept key, the farthest next key for which
    fits(i, j) holds (found by doubling then bisection); key i + 1 always
    fits, as the original segment does."""
    kept = [0]
    i = 0
    while i < count - 1:
        step, good = 1, i + 1
        while True:
            j = min(i + 2 * step, count - 1)
            if j == good or not fits(i, j):
                bad = j if j != good else None
                break
            good, step = j, step * 2
        if bad is not None:
            lo, hi = good, bad
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if fits(i, mid):
                    lo = mid
                else:
                    hi = mid
            good = lo
        kept.append(good)
        i = good
    return kept


def _reduce_curve(curve: Curve, tolerance: float, interpolation: str,
                  func: str) -> Curve:
    times = np.asarray(curve.times, dtype=np.float64)
    if len(times) < 3:
        return curve
    if curve.jumps:
        raise ValueError(f"{func}: curve has jumps (equal key times); not supported")
    if curve._remaps:
        raise ValueError(f"{func}: curve is played through a time remap (Curve.remap_time); "
                         f"reduce the curve before remapping it")
    one_d = np.asarray(curve.values).ndim == 1
    grid, dense = _on_grid(curve, times, func)
    values = dense[::DENSE]  # the curve at its keys (right side)
    vin = np.asarray(curve.in_velocities, dtype=np.float64).reshape(len(times), -1)
    vout = np.asarray(curve.out_velocities, dtype=np.float64).reshape(len(times), -1)
    kinds = ("step", "linear", "cubic") if interpolation == "auto" else (interpolation,)
    limit = tolerance * (1 - 1e-9)

    # the curve's easing (a time remap within each segment) stays the result's:
    # a candidate segment (i, j) is judged at the times it plays, eased over (i, j)
    ease = curve._ease

    def played(i, j, t):
        if ease is None:
            return t
        return _between(times[i], times[j],
                        ease(np.minimum(np.maximum(_ratio(t, times[i], times[j]), 0.0), 1.0)))

    # for linear and step originals the difference is piecewise linear between
    # the grid's key times, so its maximum is on the grid; for other originals
    # the grid's local maxima are refined (_refined_error)
    original = _original_kinds(curve)
    piecewise_linear = ease is None and "cubic" not in original

    context = {kind: (code, values.shape[1]) for kind, code in _KINDS.items()}

    def error_at(kind, i, j, v0=None, v1=None):
        """The candidate segment (i, j) of ``kind``'s difference from ``target``
        at times t, per point the largest over the channels (the C core; the
        velocities are the cubic's)."""
        v0 = values[i] if v0 is None else v0
        v1 = values[j] if v1 is None else v1
        if not (np.isfinite(v0).all() and np.isfinite(v1).all()):
            return lambda t, target: np.full(len(t), np.inf)  # (a fitted velocity overflowed)
        return lambda t, target: _core._reduce_segment_error(
            func, context[kind], played(i, j, t), target, times[i], times[j], values[i],
            values[j], v0, v1, None, None)

    # the keys a step segment of the original ends at, where the original
    # jumps: its value just before them is the key before's
    jumps_at = np.array([k for k in range(1, len(times)) if original[k - 1] == "step"],
                        dtype=np.intp)

    def measured(kind, at, a, b):
        """The error of ``at`` (an error_at) on the grid's points a to b - 1
        and at the left limits of the original's steps there, its local
        maxima refined unless it is piecewise linear between grid points (a
        linear or step result of a linear or step original)."""
        err = at(grid[a:b], dense[a:b])
        worst = err.max(initial=0.0)
        ends = jumps_at[(DENSE * jumps_at > a) & (DENSE * jumps_at < b)]
        if ends.size:  # (a candidate is continuous there, or holds its own value)
            worst = max(worst, at(times[ends], values[ends - 1]).max())
        if (piecewise_linear and kind != "cubic") or worst > limit:
            return worst
        return _refined_error(curve, at, grid[a:b], err, 0.5 * limit, func)

    starts = {0: vout[0]}  # velocity leaving each kept key (continuous after a cubic)
    ends = {}  # (i, j) -> velocity arriving at j of an accepted cubic segment

    def start_of(i):
        if i not in starts:  # the accepted segment into i is the last one tried;
            # none: the original segment (the greedy's fallback), velocities kept
            into = [p for (p, q) in chosen if q == i]
            cubic = into and chosen[(max(into), i)] == "cubic"
            starts[i] = ends[(max(into), i)] if cubic else vout[i]
        return starts[i]

    def error(kind, i, j):
        # (a prediction beyond the double range does not fit: NaN and inf fail <= limit)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if not np.isfinite(times[j] - times[i]):  # (a span beyond the range)
                return np.inf
            try:
                return _error(kind, i, j)
            except OverflowError:  # (hermite: a tangent or result not representable)
                return np.inf

    def _error(kind, i, j):
        a, b = DENSE * i, DENSE * j
        if kind == "step":  # holds values[i] up to, not at, key j; where the
            # original is continuous at key j, its value there is the step's limit
            end = b if original[j - 1] == "step" else b + 1
            return measured(kind, error_at(kind, i, j), a, end)
        if kind == "linear":
            return measured(kind, error_at(kind, i, j), a, b + 1)
        t = played(i, j, grid[a:b + 1])
        h = times[j] - times[i]
        v0 = start_of(i)
        for v1 in (vin[j], None):  # the original's velocity at j, else a fitted one
            if v1 is None:
                # the one Hermite segment with v1 = 0, per-second velocities
                base = hermite(values[i], values[j], v0, np.zeros_like(v0), h,
                               np.minimum(t - times[i], h)[:, None])[0]
                v1 = _feasible_velocity(base, dense[a:b + 1], t - times[i], h, limit)
                if v1 is None:
                    break
            worst = measured(kind, error_at(kind, i, j, v0, v1), a, b + 1)
            if worst <= limit:
                ends[(i, j)] = v1
                return worst
        return worst

    chosen = {}

    def fits(i, j):
        for kind in kinds:
            if error(kind, i, j) <= limit:
                chosen[(i, j)] = kind
                return True
        return False

    kept = _greedy(len(times), fits)
    # a segment no candidate fits is the original's own (i, i + 1), as it is
    segments = [chosen.get((i, j)) or _original_entry(curve, i) for i, j in zip(kept, kept[1:])]
    keep = np.array(kept)
    new_values = values[keep]
    if one_d:
        new_values = new_values[:, 0]
    options = {}
    if "cubic" in segments or "bezier" in segments:
        # a fitted velocity is the in and out velocity of its key, except
        # before an original segment kept as it is (its own velocities)
        fitted = [chosen.get((i, j)) == "cubic" for i, j in zip(kept, kept[1:])]
        v_in = [vin[kept[0]]] + [ends[(i, j)] if f else vin[j]
                                 for i, j, f in zip(kept, kept[1:], fitted)]
        v_out = [start_of(i) if f else vout[i] for i, f in zip(kept, fitted)] + [vout[kept[-1]]]
        options = dict(in_velocities=np.array(v_in).reshape(new_values.shape),
                       out_velocities=np.array(v_out).reshape(new_values.shape))
    if "bezier" in segments:  # (only original segments: their handles' own weights)
        options.update(in_weights=None if curve.in_weights is None else curve.in_weights[keep],
                       out_weights=None if curve.out_weights is None else curve.out_weights[keep])
    if len(set(segments)) == 1:
        segments = segments[0]
    before_slope, after_slope = curve._slopes
    return Curve(times[keep], new_values, interpolation=segments, before=curve.before,
                 after=curve.after, before_slope=before_slope, after_slope=after_slope,
                 ease=ease, **options)


def _feasible_velocity(base: np.ndarray, target: np.ndarray, elapsed: np.ndarray,
                       h: float, limit: float):
    """Per channel, an end velocity v of a Hermite segment with
    ``|target - base - v * h11(u) * h| <= limit`` at every point (``base`` is
    the segment with v = 0): the middle of the interval where every point's
    condition holds, or None when that interval is empty."""
    u = np.minimum(elapsed / h, 1.0)
    basis = ((u ** 3 - u ** 2) * h)[:, None]  # h11(u) * h, negative inside
    resid = target - base
    free = basis[:, 0] != 0.0
    if (np.abs(resid[~free]) > limit).any():
        return None
    bound_a = (resid[free] - limit) / basis[free]
    bound_b = (resid[free] + limit) / basis[free]
    lo = np.minimum(bound_a, bound_b).max(axis=0, initial=-np.inf)
    hi = np.maximum(bound_a, bound_b).min(axis=0, initial=np.inf)
    if not (lo <= hi).all():
        return None
    return np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi),
                    np.where(np.isfinite(lo), lo, np.where(np.isfinite(hi), hi, 0.0)))


def _refined_error(curve: Curve, error_at, grid: np.ndarray, err: np.ndarray,
                   floor: float, func: str) -> float:
    """The largest error ``error_at(t, curve(t))`` on the closed range of
    ``grid``, given its values ``err`` on the grid: each local
    maximum of ``err`` above ``floor`` is refined by zooming in, three times,
    on the best of 33 points of the bracket around it (to 1/16**3 of the two
    grid steps), all brackets at once. (Each round is two calls into the
    core, whose cost is mostly the call: the same zoom in 6 rounds of 9
    points took twice as long.)"""
    worst = float(err.max(initial=0.0))
    inner = np.flatnonzero((err[1:-1] >= err[:-2]) & (err[1:-1] >= err[2:])
                           & (err[1:-1] > floor)) + 1
    if inner.size == 0:
        return worst
    lo, hi = grid[inner - 1], grid[inner + 1]
    points = 33
    u = np.linspace(0.0, 1.0, points)
    for _ in range(3):
        t = (lo[:, None] + u * (hi - lo)[:, None]).reshape(-1)
        values = _evaluated(curve, t, func).reshape(len(t), -1)
        e = error_at(t, values).reshape(len(lo), points)
        worst = max(worst, float(e.max()))
        k = np.minimum(np.maximum(e.argmax(axis=1), 1), points - 2)
        width = hi - lo
        lo, hi = lo + u[k - 1] * width, lo + u[k + 1] * width
    return worst


def _evaluated(curve, t: np.ndarray, func: str) -> np.ndarray:
    """The curve's values at times ``t``, its errors named by ``func`` (the
    curves' own evaluation entry)."""
    if isinstance(curve, RotationCurve):
        return np.asarray(curve._eval(func, t, None, 0, "right"), dtype=np.float64)
    return np.asarray(curve._evaluate(func, t, (0,), None)[0], dtype=np.float64)


def _on_grid(curve, times: np.ndarray, func: str) -> tuple:
    """The check grid of the key times (_subdivided) and the curve's values
    there, (points, width): the last point is the last key as the last
    segment reaches it, not the extrapolation after it (a cycle starts over
    there)."""
    grid = _subdivided(times)
    dense = _evaluated(curve, grid, func).reshape(len(grid), -1)
    keys = curve._stored_keys() if isinstance(curve, RotationCurve) else curve.values
    dense[-1] = np.asarray(keys, dtype=np.float64).reshape(len(times), -1)[-1]
    return grid, dense


def _original_entry(curve, i: int):
    """The interpolation of segment i as the curve was given it: a name or an
    easing."""
    kind = curve.interpolation
    return kind[i] if isinstance(kind, tuple) else kind


def _original_kinds(curve) -> list:
    """Each segment's kind as the curve evaluates it: "step", "linear" or
    "cubic" (any other: cubic, Bezier and eased segments)."""
    if isinstance(curve, Curve):
        names = {_SEGMENT_KINDS["step"]: "step", _SEGMENT_KINDS["linear"]: "linear"}
        return [names.get(code, "cubic") for code in curve._segment_kinds().tolist()]
    kind = curve.interpolation if curve.interpolation in ("step", "linear") else "cubic"
    return [kind] * (len(curve.times) - 1)


def _jumps(curve) -> bool:
    """Whether the curve's value jumps: at its jumps, or a step segment (by
    any name)."""
    return bool(getattr(curve, "jumps", False)) or "step" in _original_kinds(curve)


def reduce_keys(curve, tolerance, *, interpolation: str = "auto"):
    """The curve with fewer keys, within ``tolerance`` of it everywhere checked.

    Parameters
    ----------
    curve : Curve or RotationCurve
    tolerance : float
        Largest difference allowed, per channel in the curve's units (> 0);
        for a RotationCurve, the rotation angle in radians.
    interpolation : {"auto", "linear", "step", "cubic"}
        The segments the result may use. "auto" picks per segment, preferring
        step, then linear, then cubic keys whose tangents are the original
        curve's velocities at the kept keys, then cubic keys with a fitted
        tangent at the segment's end (the next segment leaves with it, so the
        result is smooth there). Where none fits, the original segment is kept
        as it is (its interpolation, velocities and Bezier handle weights). (A
        RotationCurve result is linear, or step for a step curve.)

    Returns
    -------
    Curve or RotationCurve
        A normal curve (edits, evaluates, saves and pickles as any) whose keys
        are a subset of the original key times, equal to the original there,
        and within ``tolerance`` on 20 points per original key interval. It
        keeps the original's extrapolation (with its slopes) and easing
        (``ease=``, which each of its segments plays through); a curve played
        through a whole-clip remap (:meth:`Curve.remap_time`) is refused.
    """
    func = "reduce_keys"
    tolerance = positive_number(func, "tolerance", tolerance)
    choice(func, "interpolation", interpolation, ("auto", "linear", "step", "cubic"))
    if isinstance(curve, RotationCurve):
        return _reduce_rotation(curve, tolerance, func)
    if not isinstance(curve, Curve):
        raise ValueError(f"{func}: curve must be a Curve or RotationCurve, got "
                         f"{type(curve).__name__}")
    return _reduce_curve(curve, tolerance, interpolation, func)


def _reduce_rotation(curve: RotationCurve, tolerance: float, func: str) -> RotationCurve:
    times = np.asarray(curve.times, dtype=np.float64)
    if len(times) < 3:
        return curve
    grid, dense = _on_grid(curve, times, func)
    keys = dense[::DENSE]
    limit = tolerance * (1 - 1e-9)
    step = curve.interpolation == "step"  # held between kept keys, as between its own

    def fits(i, j):  # the angle from the slerp of keys i and j on the grid (C core)
        a, b = DENSE * i, DENSE * j
        # a step: key i held (slerped to itself) up to, not at, key j, where the
        # original has changed too
        end, stop = (keys[i], b) if step else (keys[j], b + 1)
        angle = _core._reduce_rotation_error(func, grid[a:stop], dense[a:stop], times[i],
                                             times[j], keys[i], end, None, None)
        return bool(angle.max() <= limit)

    keep = np.array(_greedy(len(times), fits))
    return RotationCurve(times[keep], keys[keep], interpolation="step" if step else "linear",
                         before=curve.before, after=curve.after)


# --------------------------------------------------------------- whole rigs

def reduce_clip(scene: Scene, clip, tolerance=1e-4, *, shell=0.03,
                interpolation: str = "auto") -> Clip:
    """Every channel of ``clip`` reduced so that ``clip_error(scene, clip,
    result, t, shell=shell).max() <= tolerance``.

    Each node's channels get a share of ``tolerance``: the error a channel
    adds reaches every point below it, so the budget is split evenly over the
    most animated channels on any root-to-leaf path, and a rotation's share
    is turned into an angle by the farthest virtual point it moves (the
    node's subtree reach in the clip, plus the shell). The result is then
    checked with :func:`clip_error` on 5 points per frame (each channel
    having been checked on 20 per key interval); if that check
    fails (large scales) the budgets are halved and the reduction redone.
    Morph weights channels are reduced to ``tolerance`` in weight units.
    ``interpolation`` is :func:`reduce_keys`'s, for translation, scale and
    weights ("linear" keeps a linear curve writable as glTF LINEAR, and a
    step or cubic one keeps its own segments where no line fits; "auto"
    mixes segment kinds, which glTF cannot hold).

    An FBX clip's channels are per-component curves: reduce the clips of
    ``scene.for_gltf()`` (:meth:`animcore.fbx.FbxScene.for_gltf`), which
    holds them as glTF keys, in that plain scene.
    """
    func = "reduce_clip"
    choice(func, "interpolation", interpolation, ("auto", "linear", "step", "cubic"))
    return _reduce_clip(func, scene, clip, tolerance, shell, interpolation)


def _reduce_clip(func: str, scene: Scene, clip, tolerance, shell, interpolation) -> Clip:
    """:func:`reduce_clip`; ``interpolation`` None reduces each curve to its
    own segment kind (:func:`_own_kind`)."""
    _scene_argument(func, "scene", scene)
    tolerance = positive_number(func, "tolerance", tolerance)
    shell = positive_number(func, "shell", shell)
    clip = scene._own_clip(func, clip)  # a clip of this scene's nodes, as posing checks it
    for k, c in enumerate(clip.channels):
        expected = RotationCurve if c.path == "rotation" else Curve
        if not isinstance(c.curve, expected):
            raise ValueError(f"{func}: channel {k} ({c.path} of {c.node_name!r}) " + (
                "keeps FBX's per-component curves; reduce the clips of scene.for_gltf(), "
                "which holds them as glTF keys" if _is_fbx(scene) else
                f"is a {type(c.curve).__name__} (must be a {expected.__name__})"))

    def kind(curve):
        return interpolation or _own_kind(curve)
    animated = np.bincount([c.node for c in clip.channels if c.path != "weights"],
                           minlength=len(scene.nodes))
    # the most animated channels from the root to any node
    chain = max(int(_depths(scene.skeleton, animated).max(initial=0)), 1)
    # each node's reach over the clip's frames (every key time of its transform channels)
    frames = clip.key_times()
    reach = _reach(scene, scene.world(clip, frames)[..., :3, 3], func)
    # morph weights do not move a point: reduced once, to tolerance, whatever the budgets
    weights = {k: _reduce_curve(c.curve, tolerance, kind(c.curve), func)
               for k, c in enumerate(clip.channels) if c.path == "weights"}
    check = _subdivided(frames, CHECK)
    shells = _node_shells(scene, shell)  # (once for the passes below)
    factor = 1.0
    for _ in range(6):
        share = factor * tolerance / chain
        # per node, the share as a rotation angle or scale factor: over the
        # farthest point it moves (beyond the double range: anything fits)
        with np.errstate(over="ignore"):
            angle = share / (reach + shell)
        channels = []
        for k, c in enumerate(clip.channels):
            if c.path == "rotation":
                curve = _reduce_rotation(c.curve, angle[c.node], func)
            elif c.path == "weights":
                curve = weights[k]
            elif c.path == "scale":
                curve = _reduce_curve(c.curve, angle[c.node] / np.sqrt(3), kind(c.curve), func)
            else:
                curve = _reduce_curve(c.curve, share / np.sqrt(3), kind(c.curve), func)
            channels.append(_channel_like(c, curve))
        reduced = Clip(clip.name, clip.duration, tuple(channels), clip.unsupported)
        if _clip_error(func, scene, clip, reduced, check, shell,
                       shells).max(initial=0.0) <= tolerance:
            return reduced
        factor *= 0.5
    return clip  # no reduction met the bound: the original, which does


def _own_kind(curve) -> str:
    """The one segment kind of a step, linear or cubic curve, which its
    reduction keeps (glTF's STEP, LINEAR or CUBICSPLINE); "linear" for other
    curves."""
    kind = curve.interpolation
    return kind if kind in ("step", "linear", "cubic") else "linear"


def _is_fbx(scene) -> bool:
    """A scene read from FBX: its clips are FBX curves and its world FBX's
    transform formula; ``scene.for_gltf()`` gives its glTF form."""
    return getattr(scene, "for_gltf", None) is not None


def _depths(skeleton, counts: np.ndarray) -> np.ndarray:
    """Per node, the sum of ``counts`` over the path from its root to it."""
    parents = skeleton.parents
    depth = np.zeros(len(parents), dtype=int)
    for j in skeleton.order:
        depth[j] = counts[j] + (depth[parents[j]] if parents[j] >= 0 else 0)
    return depth


def _reach(scene: Scene, positions: np.ndarray, func: str) -> np.ndarray:
    """Per node, the farthest any descendant gets from it along the bones,
    given world positions (frames, J, 3): the longest chain of each bone's
    largest length over the frames (an OverflowError where that is beyond
    the double range)."""
    skeleton = scene.skeleton
    parents = skeleton.parents
    with np.errstate(over="ignore", invalid="ignore"):
        step = positions - positions[:, np.maximum(parents, 0)]
        bone = np.linalg.norm(step, axis=-1)
        wide = np.isinf(bone) & np.isfinite(step).all(axis=-1)
        if wide.any():  # squares beyond the range: in units of the largest component
            m = np.abs(step[wide]).max(axis=-1)
            bone[wide] = m * np.linalg.norm(step[wide] / m[:, None], axis=-1)
        bone = bone.max(axis=0)
        reach = np.zeros(len(parents))
        for j in reversed(skeleton.order):
            if parents[j] >= 0:
                reach[parents[j]] = max(reach[parents[j]], reach[j] + bone[j])
    far = np.flatnonzero(~np.isfinite(reach))
    if far.size:
        j = int(far[0])
        raise OverflowError(f"{func}: the nodes below node {j} ({scene.nodes[j].name!r}) get "
                            f"farther from it than the double range along the bones (their "
                            f"world positions in the clip)")
    return reach


def _channel_like(channel: Channel, curve) -> Channel:
    if curve is channel.curve:
        return channel
    made = Channel.from_curve(channel.node, channel.path, curve, node_name=channel.node_name)
    return Channel(made.node, made.node_name, made.path, made.interpolation, made.width,
                   made.times, made.output, made.curve, channel.target)


# ------------------------------------------------------------- compression

_HEADER = struct.Struct("<4sHHIIdd")
_PATHS = ("translation", "rotation", "scale")
_IDENTITY = (np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0]), np.ones(3))
_MAX_BITS = 24
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_SEGMENT = 16  # samples per segment (layout version 2)
RAW_BYTES_PER_NODE = 40  # ACL's raw size: 10 float32 (3 + 4 + 3) per node per sample


def _node_shells(scene: Scene, shell: float) -> np.ndarray:
    """Per node, ``shell`` in the node's own units: over the scale its rest
    world matrix has (the cube root of its determinant's size), so that the
    virtual points lie ``shell`` from it in the scene's units whatever scale
    sits above it: an FBX file's unit conversion, a glTF armature scaled by
    0.01 (once 0.3 mm for a 3 cm shell, which let a rotation 4.8 degrees
    off pass at 0.1 mm). A scale within 1e-9 of 1 counts as 1: ACL's points
    of an unscaled rig, to the bit."""
    rest = scene.world(None, 0.0)[..., :3, :3]
    # in units of a power of two near the largest entry: no overflow of the
    # determinant, however large or small the scales are
    exponent = np.frexp(np.abs(rest).max(axis=(-2, -1), initial=0.0))[1]
    scaled = np.ldexp(rest, -exponent[:, None, None])
    size = np.cbrt(np.abs(np.linalg.det(scaled))) * np.exp2(exponent.astype(np.float64))
    size = np.where((np.abs(size - 1.0) <= 1e-9) | ~(size > 0.0) | ~np.isfinite(size), 1.0,
                    size)
    return shell / size


def _shell_error(wa: np.ndarray, wb: np.ndarray, shell, func: str = "compress"):
    """ACL's error between world matrices (..., J, 4, 4): per node the largest
    distance between the images of the six points +-shell on the local axes
    (``shell``: one for every node, or one per node, :func:`_node_shells`;
    inf where it is beyond the double range), by the C core."""
    return _core._reduce_shell_error(func, wa, wb, shell, None, None)


def _chunked_error(t: np.ndarray, nodes: int, world_a, world_b, shell: float, func: str,
                   worst: bool = False) -> np.ndarray:
    """:func:`_shell_error` between ``world_a(chunk)`` and ``world_b(chunk)``
    over chunks of 4096 times of ``t`` (bounded memory for dense checks):
    (len(t), nodes), or with ``worst`` (len(t),), the largest over the nodes."""
    out = np.empty((t.size,) if worst else (t.size, nodes))
    for start in range(0, t.size, 4096):
        chunk = t[start:start + 4096]
        error = _shell_error(world_a(chunk), world_b(chunk), shell, func)
        out[start:start + chunk.size] = error.max(axis=1) if worst else error
    return out


def _f32_toward(x: np.ndarray, side: float) -> np.ndarray:
    """The float32 values nearest x on one side of it (as float64): <= x for
    ``side`` -1, >= x for +1."""
    y = x.astype(np.float32)
    past = (y.astype(np.float64) - x) * side < 0
    return np.where(past, np.nextafter(y, np.float32(side * np.inf)), y).astype(np.float64)


def _rebuild(stored: np.ndarray, rebuilt: int) -> np.ndarray:
    """Unit quaternions from three stored components, the ``rebuilt`` one
    (>= 0) from the others, as the decoder does."""
    rest = np.sum(stored * stored, axis=-1)
    q = np.insert(stored, rebuilt, np.where(rest < 1.0, np.sqrt(np.maximum(1.0 - rest, 0.0)),
                                            0.0), axis=-1)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rotation angle between unit quaternions."""
    return 2.0 * np.arccos(np.minimum(np.abs(np.sum(a * b, axis=-1)), 1.0))


_DEFAULT, _CONSTANT, _ANIMATED = 0, 1, 2  # track kinds (AC_TRACK_*)


class _Track:
    """One node property at every sample and its encodings: default (the
    identity), constant (one float32 value) or animated (a float32 range per
    component for the clip, then per segment a range in 255ths of it and a
    bit count per component, as layout version 2 stores them). Errors are
    per segment, in scene units of displacement (the property's error times
    ``lever``)."""

    def __init__(self, path: int, values: np.ndarray, lever: float, starts: np.ndarray):
        self.path = path
        self.rebuilt = 3  # index of a rotation's rebuilt component (w)
        if path == 1:
            # rebuild the component farthest from 0 at every sample (well
            # conditioned), with each sample's sign making it >= 0
            self.rebuilt = int(np.argmax(np.abs(values).min(axis=0)))
            values = values * np.where(values[:, self.rebuilt:self.rebuilt + 1] < 0, -1.0, 1.0)
        self.values = values
        self.stored = [c for c in range(4) if c != self.rebuilt]  # 3 components
        self.lever = lever  # displacement per unit of error (1 for translation)
        self.starts = starts  # each segment's first sample
        self.counts = np.diff(np.append(starts, len(values)))
        self.fixed = {_DEFAULT: np.broadcast_to(_IDENTITY[path], values.shape)}
        c = self.constant()
        self.fixed[_CONSTANT] = np.broadcast_to(c / np.linalg.norm(c) if path == 1 else c,
                                               values.shape)
        self.errors = {k: self._errors(v) for k, v in self.fixed.items()}
        self.uniform = None  # (25, segments): errors at b bits in every component

    def _errors(self, decoded: np.ndarray) -> np.ndarray:
        """Per segment, the largest error of ``decoded`` at its samples."""
        if self.path == 1:
            e = 2.0 * np.sin(_angle(self.values, decoded) / 2.0)
        elif self.path == 0:
            e = np.linalg.norm(self.values - decoded, axis=-1)
        else:
            e = np.abs(self.values - decoded).max(axis=-1)
        return np.maximum.reduceat(e, self.starts) * self.lever

    def constant(self) -> np.ndarray:
        v = self.values
        if self.path == 1:
            mean = v.mean(axis=0)
            norm = np.linalg.norm(mean)
            mean = mean / norm if norm > 0 else _IDENTITY[1]
            return mean.astype(np.float32).astype(np.float64)
        return ((v.min(axis=0) + v.max(axis=0)) / 2).astype(np.float32).astype(np.float64)

    def prepare(self) -> None:
        """The animated encoding's ranges: the clip's (float32, rounded
        outward) and each segment's (in 255ths of the clip's, rounded
        outward), and the errors at every uniform bit count."""
        if self.uniform is not None:
            return
        v = self.values[:, self.stored]
        self.lo = _f32_toward(v.min(axis=0), -1.0)
        self.extent = _f32_toward(v.max(axis=0) - self.lo, 1.0)
        x = np.divide(v - self.lo, self.extent, out=np.zeros_like(v), where=self.extent > 0)
        x255 = x * 255.0
        low = np.clip(np.floor(np.minimum.reduceat(x255, self.starts)), 0, 255)
        high = np.clip(np.ceil(np.maximum.reduceat(x255, self.starts)), low, 255)
        self.m, self.e = low, high - low  # (segments, 3)
        self._m = np.repeat(self.m, self.counts, axis=0)
        self._e = np.repeat(self.e, self.counts, axis=0)
        self._r = np.divide(x255 - self._m, self._e, out=np.zeros_like(v), where=self._e > 0)
        shape = (len(self.starts), 3)
        self.uniform = np.array([self._errors(self.decoded(np.full(shape, b)))
                                 for b in range(_MAX_BITS + 1)])

    def quantized(self, bits: np.ndarray):
        """(q, stored components decoded as ac_reduce_compressed_decode does)
        at ``bits`` (segments, 3)."""
        scale = np.repeat(np.exp2(bits.astype(np.float64)), self.counts, axis=0)
        q = np.clip(np.floor(self._r * scale), 0.0, scale - 1.0)
        x = (self._m + self._e * ((q + 0.5) / scale)) / 255.0
        return q, self.lo + self.extent * x

    def decoded(self, bits: np.ndarray) -> np.ndarray:
        """The values the decoder gives at the samples at ``bits`` (segments, 3)."""
        out = self.quantized(bits)[1]
        return _rebuild(out, self.rebuilt) if self.path == 1 else out

    def uniform_bits(self, allowance: np.ndarray) -> np.ndarray:
        """Per segment, the fewest bits (the same in each component) whose
        error is within ``allowance`` (per segment), 24 if none is."""
        fits = self.uniform <= allowance
        return np.where(fits.any(axis=0), fits.argmax(axis=0), _MAX_BITS)


class _Rig:
    """The whole rig's error per segment of an encoding (a kind, and bits per
    segment, for every track) against the original world matrices at the
    samples. ``apply`` sets a track's encoding (decoded again only when it
    changes) and ``errors`` measures everything; ``trial`` measures one
    track's other encoding on some segments only (the samples there, the
    nodes below the track's), and ``commit`` keeps it where it fits."""

    def __init__(self, skeleton, world: np.ndarray, shell: float, tracks: list,
                 starts: np.ndarray):
        samples, nodes = world.shape[:2]
        self.skeleton, self.world, self.shell, self.tracks = skeleton, world, shell, tracks
        self.starts = starts
        self.segment = np.repeat(np.arange(len(starts)), tracks[0].counts)  # of each sample
        self.local = [np.empty((samples, nodes, w)) for w in (3, 4, 3)]
        self.state = [None] * len(tracks)
        self.node_error = None  # (samples, nodes) of the encoding applied
        self.below = [np.flatnonzero(row) for row in skeleton._subtrees()]  # node and descendants

    def _values(self, k: int, kind: int, bits) -> np.ndarray:
        track = self.tracks[k]
        if kind != _ANIMATED:
            return track.fixed[kind]
        track.prepare()  # (the ranges, made once: the finest encoding may come first)
        return track.decoded(bits)

    def apply(self, k: int, kind: int, bits: np.ndarray = None) -> None:
        state = (kind, None if kind != _ANIMATED else bits.tobytes())
        if self.state[k] != state:
            self.local[self.tracks[k].path][:, k // 3] = self._values(k, kind, bits)
            self.state[k] = state
            self.node_error = None

    def errors(self) -> np.ndarray:
        if self.node_error is None:
            self.node_error = _shell_error(self.world, self.skeleton.world(*self.local),
                                           self.shell)
        return np.maximum.reduceat(self.node_error.max(axis=1), self.starts)

    def trial(self, k: int, kind: int, bits, segments: np.ndarray) -> np.ndarray:
        """Per segment, the error with track k encoded so on ``segments``
        (a mask; the others keep their error)."""
        self.errors()
        track, j = self.tracks[k], k // 3
        rows = np.flatnonzero(segments[self.segment])
        values = np.asarray(self._values(k, kind, bits))[rows]
        local = [a[rows] for a in self.local]
        local[track.path][:, j] = values
        below = self.below[j]
        node = self.node_error[rows]
        node[:, below] = _shell_error(self.world[rows][:, below],
                                      self.skeleton.world(*local)[:, below],
                                      self.shell[below])
        self._pending = (k, kind, bits, rows, values, node)
        sample = self.node_error.max(axis=1)
        sample[rows] = node.max(axis=1)
        return np.maximum.reduceat(sample, self.starts)

    def commit(self, segments: np.ndarray, kind: int, bits=None) -> None:
        """Keeps the last trial on ``segments``; the track's encoding is then
        ``kind`` with ``bits`` (the trial's where kept)."""
        k, _, _, rows, values, node = self._pending
        keep = segments[self.segment[rows]]
        self.local[self.tracks[k].path][rows[keep], k // 3] = values[keep]
        self.node_error[rows[keep]] = node[keep]
        self.state[k] = (kind, None if kind != _ANIMATED else bits.tobytes())


def _search(rig: _Rig, shares: np.ndarray, limit: np.ndarray):
    """(kinds, bits (tracks, segments, 3)) whose rig error at the samples is
    within ``limit`` (per segment), or None when even 24 bits everywhere
    miss it. First the largest common factor of the budget shares (within
    2%) that fits every segment, which fixes each track's kind; then the
    fewest constant and default tracks can become; then per segment the
    largest factor that fits it; then one bit less component by component
    (the largest tracks first) in every segment where the rig still fits."""
    tracks = rig.tracks
    segments = len(limit)

    def at(factor):
        kinds = np.empty(len(tracks), dtype=int)
        bits = np.zeros((len(tracks), segments, 3), dtype=int)
        for k, (track, share) in enumerate(zip(tracks, shares)):
            with np.errstate(over="ignore"):  # (beyond the double range: anything fits)
                allowance = factor * share
            if track.errors[_DEFAULT].max() <= allowance:
                kinds[k] = _DEFAULT
            elif track.errors[_CONSTANT].max() <= allowance:
                kinds[k] = _CONSTANT
            else:
                kinds[k] = _ANIMATED
                track.prepare()
                bits[k] = track.uniform_bits(np.full(segments, allowance))[:, None]
        return kinds, bits

    def errors(kinds, bits):
        for k, kind in enumerate(kinds):
            rig.apply(k, kind, bits[k])
        return rig.errors()

    def fits(picks):
        return bool((errors(*picks) <= limit).all())

    def same(a, b):
        return np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])

    finest = (np.full(len(tracks), _ANIMATED), np.full((len(tracks), segments, 3), _MAX_BITS))
    factor, picks = 1.0, at(1.0)
    while not fits(picks):
        if same(picks, finest) or factor < 1e-12:
            if not fits(finest):
                return None
            picks = finest
            break
        factor *= 0.5
        picks = at(factor)
    low, high = factor, None
    while high is None or high / low > 1.02:
        trial = low * 2 if high is None else np.sqrt(low * high)
        trial_picks = at(trial)
        if same(trial_picks, picks) and high is None and trial > 1e6 * factor:
            break  # every track at its cheapest
        if same(trial_picks, picks) or fits(trial_picks):
            low, picks = trial, trial_picks
        else:
            high = trial
    kinds, bits = picks
    errors(kinds, bits)

    # animated tracks that can be constant, constant ones that can be default
    everywhere = np.ones(segments, dtype=bool)
    for k in sorted(np.flatnonzero(kinds == _ANIMATED), key=lambda k: -bits[k].sum()):
        if tracks[k].errors[_CONSTANT].max() <= limit.max():
            if (rig.trial(k, _CONSTANT, None, everywhere) <= limit).all():
                kinds[k] = _CONSTANT
                rig.commit(everywhere, _CONSTANT)
    for k in np.flatnonzero(kinds == _CONSTANT):
        if tracks[k].errors[_DEFAULT].max() <= limit.max():
            if (rig.trial(k, _DEFAULT, None, everywhere) <= limit).all():
                kinds[k] = _DEFAULT
                rig.commit(everywhere, _DEFAULT)
    animated = np.flatnonzero(kinds == _ANIMATED)

    # per segment: the largest factor (within 2%) that fits it (from the
    # factor that fits; the finest encoding, when that alone fits, is where
    # the bits are lowered from)
    def bits_at(factors):
        out = bits.copy()
        for k in animated:
            with np.errstate(over="ignore"):  # (as in at)
                out[k] = tracks[k].uniform_bits(factors * shares[k])[:, None]
        return out

    if picks is not finest:  # picks are at(low): the shares scaled by one factor
        low, high = np.full(segments, low), np.full(segments, np.inf)
        for _ in range(64):
            open_ = ~(high / low <= 1.02) & (low <= 1e6 * factor)
            if not open_.any():
                break
            trial = np.where(open_, np.where(np.isinf(high), 2 * low, np.sqrt(low * high)), low)
            good = errors(kinds, bits_at(trial)) <= limit
            low = np.where(open_ & good, trial, low)
            high = np.where(open_ & ~good, trial, high)
        bits = bits_at(low)
        errors(kinds, bits)

    # one bit less per component and segment while the rig fits there
    for _ in range(3):
        changed = False
        for k in sorted(animated, key=lambda k: -bits[k].sum()):
            for c in range(3):
                active = bits[k, :, c] > 0
                while active.any():
                    trial = bits[k].copy()
                    trial[active, c] -= 1
                    good = active & (rig.trial(k, _ANIMATED, trial, active) <= limit)
                    bits[k, good, c] -= 1
                    rig.commit(good, _ANIMATED, bits[k])
                    changed |= bool(good.any())
                    active = good & (bits[k, :, c] > 0)
        if not changed:
            break
    return kinds, bits


def _pack(values: np.ndarray, widths: np.ndarray) -> bytes:
    """Unsigned integers ``values`` of ``widths`` bits each, packed least
    significant bit first and padded to a byte."""
    values = values.astype(np.uint32)
    widths = widths.astype(np.int64)
    ends = np.cumsum(widths)
    index = np.repeat(np.arange(len(values)), widths)
    shift = np.arange(ends[-1] if len(ends) else 0) - np.repeat(ends - widths, widths)
    stream = ((values[index] >> shift.astype(np.uint32)) & 1).astype(np.uint8)
    return np.packbits(stream, bitorder="little").tobytes()


def _layout(start, rate, samples, tracks, kinds, bits) -> bytes:
    """Layout version 2 (csrc/animcore.h) of an encoding."""
    starts = tracks[0].starts
    table, clip = [], []
    animated = np.flatnonzero(kinds == _ANIMATED)
    for k, (track, kind) in enumerate(zip(tracks, kinds)):
        rebuilt = (track.rebuilt + 1) % 4 if kind == _ANIMATED and track.path == 1 else 0
        table.append(kind | rebuilt << 2)
        if kind == _CONSTANT:
            clip.append(track.constant().astype("<f4").tobytes())
        elif kind == _ANIMATED:
            clip.append(np.stack([track.lo, track.extent], -1).astype("<f4").tobytes())
    quantized = {k: tracks[k].quantized(bits[k])[0] for k in animated}
    segments = []
    for g, (first, count) in enumerate(zip(starts, tracks[0].counts)):
        heads, values, widths = [], [], []
        for k in animated:
            track = tracks[k]
            b = bits[k, g]
            ranges = np.stack([track.m[g], track.e[g]], -1).reshape(-1).astype(np.uint8)
            heads.append(struct.pack("<H", b[0] | b[1] << 5 | b[2] << 10) + ranges.tobytes())
            values.append(quantized[k][first:first + count].reshape(-1))
            widths.append(np.tile(bits[k, g], count))
        packed = _pack(np.concatenate(values), np.concatenate(widths)) if heads else b""
        segments.append(b"".join(heads) + packed)
    offsets = np.cumsum([0] + [len(s) for s in segments[:-1]])
    if offsets[-1] >= 2**32:
        raise ValueError("compress: the clip is too large for the layout's 32-bit offsets")
    header = _HEADER.pack(b"ACCC", 2, _SEGMENT, len(tracks) // 3, samples, start, rate)
    return b"".join([header, bytes(table)] + clip + [offsets.astype("<u4").tobytes()]
                    + segments)


_SMALL_GRID = 1025  # samples a grid may be doubled to beyond 8 times the key intervals


def _grid(clip: Clip, oversample: int):
    """(start, rate, samples) of the uniform grid a clip is stored on: its key
    times when they are evenly spaced (a BVH's frames); else the coarsest
    grid, at most 16 steps per shortest key interval, that holds every key
    time, or failing that as many samples as key times; times ``oversample``."""
    times = clip.key_times()
    if len(times) < 2:
        return float(times[0]), 1.0, 1
    span = float(times[-1] - times[0])
    steps = np.diff(times)
    intervals = len(times) - 1
    if np.ptp(steps) > 1e-6 * steps.mean():
        for m in range(1, 17):
            x = (times - times[0]) / (steps.min() / m)
            if np.abs(x - np.rint(x)).max() < 1e-3 and x[-1] < 2**27:
                intervals = int(np.rint(x[-1]))
                break
    samples = intervals * oversample + 1
    return float(times[0]), (samples - 1) / span, samples


def _budget_shares(scene: Scene, tracks, tolerance: float) -> np.ndarray:
    """Per node, its share of the tolerance: tolerance over the most animated
    tracks on a root-to-leaf path through the node (ACL's hierarchical budget,
    as reduce_clip splits it)."""
    count = len(scene.nodes)
    moving = np.zeros(count, dtype=int)
    for j in range(count):
        moving[j] = sum(tracks[3 * j + p].errors[_CONSTANT].max() > 0 for p in range(3))
    skeleton = scene.skeleton
    parents = skeleton.parents
    deepest = _depths(skeleton, moving)
    for j in reversed(skeleton.order):
        if parents[j] >= 0:
            deepest[parents[j]] = max(deepest[parents[j]], deepest[j])
    return tolerance / np.maximum(deepest, 1)


def compress(scene: Scene, clip, tolerance=1e-4, *, shell=0.03) -> "CompressedClip":
    """The clip's transform tracks quantized to as few bits as keep ACL's
    object-space error (:func:`clip_error`) within ``tolerance``.

    Every node of the scene gets a translation, rotation and scale track on a
    uniform grid of samples (a BVH's frames; for a clip whose key times are
    not evenly spaced, as many samples as key times), doubled while that
    misses the bound (up to 8 times, and further while the grid has at most
    1025 samples: a clip of a few cubic keys), split into segments of 16
    samples (layout version 2, documented in ``csrc/animcore.h``). A track that never leaves the
    identity is stored as nothing, one that does not move as one float32
    value, an animated one as its range per component for the clip, then in
    each segment a range per component in 255ths of the clip's (range
    reduction at two levels) and every sample's components at their own bit
    count (0 to 24) per segment. The bit counts start from each track's
    share of the error budget (the tolerance over the most animated tracks
    on any root-to-leaf path through its node, scaled by how far its node's
    error carries: the farthest point below it plus the shell, for rotation
    and scale), all shares scaled by the largest factor for which the whole
    rig's error at the samples stays within ``tolerance`` (per segment:
    segments are independent), then lowered one bit at a time, component by
    component and segment by segment, while the whole rig's error at the
    samples there still fits. Samples are decoded linearly between them, so
    a jump (step keys, a curve's jumps) is spread over a sample interval: a
    clip whose jumps move a point by more than the tolerance cannot be
    stored, and the error names its jumping channels. The result is checked
    with :func:`clip_error`'s metric through the C decoder on 20 points per
    sample interval and at the clip's key times (a segment's budget is
    lowered when that check fails there). Morph weights are not stored.
    A scene read from FBX is refused (its world is FBX's transform formula,
    which the stored local transforms do not give through ``scene.skeleton``):
    compress the clips of ``scene.for_gltf()``, in that plain scene.

    Parameters
    ----------
    scene : Scene
    clip : Clip, clip name or index
    tolerance : float
        Largest object-space error, in scene units (> 0): 1e-4 is 0.1 mm for
        glTF (metres); a BVH as loaded is in its file's units (the CMU
        files' unit is 0.056444 m, many others centimetres), so scale both
        ``tolerance`` and ``shell`` (``shell=3.0`` for a centimetre rig).
    shell : float
        Distance of ACL's virtual points from each node, in the scene's units
        at rest as :func:`clip_error` places them (> 0, ACL's default 3 cm).

    Returns
    -------
    CompressedClip

    Notes
    -----
    On the CMU walk (12_01, 120 fps) at 0.1 mm and a 3 cm shell the ratio is
    19.8:1 against ACL's 21.77:1 on the CMU database at its default settings
    (about 90% of ACL's); 18.2:1 on a 120 fps centimetre clip and 11.0:1 on
    a 30 fps one, where each sample carries four times the motion (8.3 bits
    per stored component against 5.7 on the walk). The samples are 79% of
    the walk's bytes, the segments' bit counts and ranges 18% (8 bytes per
    animated track and segment), the clip ranges, constants, table and
    header the rest; the comparison with ACL is of figures, not of the same
    clips (ACL's is over the whole database).
    """
    func = "compress"
    _scene_argument(func, "scene", scene)
    if _is_fbx(scene):
        raise ValueError(f"{func}: scene is an {type(scene).__name__}, whose world (FBX's "
                         "pivots, inherit types and axes and units conversion) is not the "
                         "skeleton's composition of the local transforms a CompressedClip "
                         "stores; compress the clips of scene.for_gltf(), which holds them "
                         "as glTF keys")
    tolerance = positive_number(func, "tolerance", tolerance)
    shell = positive_number(func, "shell", shell)
    clip = scene._own_clip(func, clip)
    raw_samples = len(clip.key_times())
    shells = _node_shells(scene, shell)
    oversample = 1
    while True:
        start, rate, samples = _grid(clip, oversample)
        result = _compress_on_grid(func, scene, clip, tolerance, shell, shells, start, rate,
                                   samples)
        if result is not None:
            data, error = result
            return CompressedClip._made(data, RAW_BYTES_PER_NODE * len(scene.nodes) * raw_samples,
                                        error)
        # 8 times the key intervals, and beyond while the grid stays small
        # (a few cubic keys: 3 keys of a turn need 65 samples for 1 cm)
        if oversample >= 8 and 2 * samples - 1 > _SMALL_GRID:
            break
        oversample *= 2
    # a rotation near zero in each of its components at some sample (a turn of
    # about a full circle) is rebuilt from the other three near a zero, where
    # the square root loses half the digits: no bit count helps it
    rotation = scene.pose(clip, start + np.arange(samples) / rate).rotation
    turning = [scene.joint_names[j] for j in range(rotation.shape[1])
               if np.abs(rotation[:, j]).min(axis=0).max() < 0.01]
    why = (f"; the rotation of {', '.join(map(repr, turning[:3]))} comes near 0 in every "
           f"component (a turn of about a full circle), and the layout rebuilds one component "
           f"of each rotation track from the other three" if turning else "")
    # a jump (step keys, a curve's jumps) is decoded as a ramp over a sample interval
    jumping = [f"{scene.joint_names[c.node]}/{c.path}" for c in clip.channels
               if c.path != "weights" and _jumps(c.curve)]
    why += (f"; channels {', '.join(map(repr, jumping[:3]))} jump (step keys or jumps), "
            f"which the samples, decoded linearly between them, spread over a sample "
            f"interval: reduce_clip keeps such keys" if jumping else "")
    raise ValueError(f"{func}: clip {clip.name!r} cannot be stored within tolerance="
                     f"{tolerance!r} (24 bits per component at {samples} samples miss it{why})")


def _compress_on_grid(func, scene, clip, tolerance, shell, shells, start, rate, samples):
    """(bytes, dense error) of the clip on one grid, or None when even the
    finest encoding misses the bound there (``shells``: :func:`_node_shells`)."""
    times = start + np.arange(samples) / rate
    pose = scene.pose(clip, times)
    for path, values in zip(_PATHS, pose):
        bad = ~np.isfinite(values)
        if bad.any():
            s, j = np.argwhere(bad)[0][:2]
            raise ValueError(f"{func}: clip {clip.name!r} samples a non-finite {path} for node "
                             f"{j} at index ({s},) (t={times[s]!r}): {values[s, j].tolist()}")
        # the layout stores each component's range, hence its ends, as float32
        lo, hi = values.min(axis=0), values.max(axis=0)
        with np.errstate(over="ignore"):
            wide = (np.maximum(-lo, hi) > _FLOAT32_MAX) | (hi - lo > _FLOAT32_MAX)
        if wide.any():
            j, c = np.argwhere(wide)[0]
            raise ValueError(f"{func}: clip {clip.name!r} moves the {path} of node {j} "
                             f"({scene.nodes[j].name!r}) beyond float32's range, which the "
                             f"layout stores: its component {c} spans {float(lo[j, c])!r} to "
                             f"{float(hi[j, c])!r}")
    skeleton = scene.skeleton
    world = skeleton.world(*pose)
    reach = _reach(scene, world[..., :3, 3], func)
    starts = np.arange(0, samples, _SEGMENT)
    tracks = []
    for j in range(len(reach)):
        lever = reach[j] + shell
        tracks += [_Track(0, pose.translation[:, j], 1.0, starts),
                   _Track(1, pose.rotation[:, j], lever, starts),
                   _Track(2, pose.scale[:, j], lever, starts)]
    shares = np.repeat(_budget_shares(scene, tracks, tolerance), 3)
    rig = _Rig(skeleton, world, shells, tracks, starts)
    # 20 points per sample interval, and the clip's key times (where the
    # original's kinks are, if they are not samples)
    dense = np.union1d(_subdivided(times) if samples > 1 else times, clip.key_times())
    # the segments each dense point depends on: those of the samples around it
    position = np.clip((dense - start) * rate, 0, samples - 1)
    around = (np.floor(position).astype(int) // _SEGMENT, np.ceil(position).astype(int) // _SEGMENT)
    limit = np.full(len(starts), tolerance)
    for _ in range(12):
        picks = _search(rig, shares, limit)
        if picks is None:
            return None
        data = _layout(start, rate, samples, tracks, *picks)
        # the dense check through the C decoder; between samples the error can
        # exceed the samples' error a little: aim lower at the samples there
        error = _dense_error(scene, clip, data, dense, shells)
        if error.max(initial=0.0) <= tolerance:
            return data, float(error.max(initial=0.0))
        worst = np.zeros(len(starts))
        for g in around:
            np.maximum.at(worst, g, error)
        if (picks[0] == _ANIMATED).all() and (picks[1] == _MAX_BITS).all():
            return None
        limit = np.where(worst > tolerance, 0.9 * limit, limit)
    return None


def _dense_error(scene, clip, data: bytes, t: np.ndarray, shells: np.ndarray) -> np.ndarray:
    """Per time, the largest error over the nodes of the decoded clip."""
    opened = _core._compressed_open("compress", data)[0]

    def decoded(chunk):
        return scene.skeleton.world(*_core._compressed_sample("compress", opened, chunk, None,
                                                              None))

    return _chunked_error(t, len(scene.nodes), lambda c: scene.world(clip, c), decoded, shells,
                          "compress", worst=True)


class CompressedClip(ByValue):
    """A clip stored by :func:`compress`: bytes in animcore's compressed-clip
    layout (version 2, documented in ``csrc/animcore.h``; bytes of version 1
    load too), which the C core validates and samples, so an engine can
    decompress without Python.

    Attributes
    ----------
    nbytes : int
        Size of the layout, ``len(to_bytes())``.
    raw_nbytes : int
        ACL's uncompressed size: 40 bytes (10 float32) per scene node per
        sample at the clip's own rate (a BVH's frames, a glTF clip's distinct
        key times); for bytes read by :meth:`from_bytes`, per stored sample.
    ratio : float
        ``raw_nbytes / nbytes``.
    nodes, samples, start, rate
        The scene's node count, the stored samples, the first sample's time
        (s) and the samples per second.
    error : float or None
        The largest error :func:`compress` measured (20 points per sample
        interval), None for bytes read by :meth:`from_bytes`.
    """

    __slots__ = ("_data", "_opened", "raw_nbytes", "error", "nodes", "samples", "start", "rate")
    _fields = (("data", "raw_nbytes", "error"), ())

    def __init__(self, data: bytes, *, raw_nbytes: int | None = None,
                 _func: str = "CompressedClip") -> None:
        self._data = _checked(_func, data)
        # the layout checked and opened once: sampling reads only its samples
        self._opened, self.nodes, self.samples, self.start, self.rate = _core._compressed_open(
            _func, self._data)
        self.raw_nbytes = (RAW_BYTES_PER_NODE * self.nodes * self.samples
                           if raw_nbytes is None else int(raw_nbytes))
        self.error = None

    @classmethod
    def _made(cls, data: bytes, raw_nbytes: int, error: float) -> "CompressedClip":
        made = cls(data, raw_nbytes=raw_nbytes)
        made.error = error
        return made

    @classmethod
    def from_bytes(cls, data) -> "CompressedClip":
        """The clip stored in ``data`` (bytes-like), validated by the C core:
        a ValueError names the byte offset, the value found there and why
        it is refused."""
        return cls(data, _func="CompressedClip.from_bytes")

    def to_bytes(self) -> bytes:
        """The layout's bytes (``CompressedClip.from_bytes`` reads them back)."""
        return self._data

    @property
    def nbytes(self) -> int:
        """Bytes of the compressed layout (``len(to_bytes())``)."""
        return len(self._data)

    @property
    def ratio(self) -> float:
        """The compression ratio: ``raw_nbytes / nbytes``."""
        return self.raw_nbytes / self.nbytes

    @property
    def duration(self) -> float:
        """Seconds from the first sample to the last."""
        return (self.samples - 1) / self.rate

    def sample(self, t) -> Transforms:
        """Local translation, rotation and scale of every node at times ``t``
        (seconds, any shape): :class:`~animcore.Transforms` of shapes
        ``t.shape + (nodes, 3)``, ``(nodes, 4)``, ``(nodes, 3)``, decoded by
        the C core (linear between samples, slerp on the shorter arc for
        rotations, clamped outside them). ``scene.skeleton.world(*clip.sample(t))``
        gives world matrices."""
        pose = _core._compressed_pose(self._opened, t, Transforms)  # one float time: fast
        if pose is None:
            pose = Transforms(*_core._compressed_sample("CompressedClip.sample", self._opened, t,
                                                        None, None))
        return pose

    def _state(self) -> dict:
        # an array: pickle protocol 5 sends the bytes out of band
        return {"data": np.frombuffer(self._data, np.uint8), "raw_nbytes": self.raw_nbytes,
                "error": self.error}

    @classmethod
    def _from_state(cls, state: dict) -> "CompressedClip":
        return cls._made(np.asarray(state["data"], np.uint8).tobytes(), state["raw_nbytes"],
                         state["error"])

    def __repr__(self) -> str:
        return (f"CompressedClip({self.nodes} nodes, {self.samples} samples at "
                f"{self.rate:.6g}/s, {self.nbytes:,d} bytes, ratio {self.ratio:.2f}:1)")


def _checked(func: str, data) -> bytes:
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise ValueError(f"{func}: data must be bytes, got {type(data).__name__}")
    return data


def reduce_report(scene: Scene, tolerance: float, shell: float, *,
                  fps: float = 30.0) -> tuple[list, Scene, list]:
    """(report lines, scene, reduced clips) of every clip of ``scene``: keys
    before and after and the largest :func:`clip_error` on 20 points per frame
    (the ``reduce`` command's output). Each curve keeps its one segment kind
    (step, linear or cubic: glTF's STEP, LINEAR or CUBICSPLINE), other curves
    become linear. A scene read from FBX is reduced in its glTF form
    (:meth:`animcore.fbx.FbxScene.for_gltf` at ``fps``), the scene returned;
    its lines also give that form's largest world position deviation from the
    FBX scene (the error the glTF form adds)."""
    deviations = {}
    if _is_fbx(scene):
        scene, _, rows = scene.for_gltf(None, fps=fps)
        for row in rows:  # each clip's "world" row (the rest pose's has no grid)
            if row.path == "world" and row.fps is not None:
                deviations[row.clip] = max(deviations.get(row.clip, 0.0), row.deviation)
    lines, clips = [], []
    for clip in scene.clips:
        reduced = _reduce_clip("reduce_clip", scene, clip, tolerance, shell, None)
        frames = clip.key_times()
        error = _clip_error("reduce_clip", scene, clip, reduced, _subdivided(frames),
                            shell).max(initial=0.0)
        before = sum(len(c.times) for c in clip.channels)
        after = sum(len(c.times) for c in reduced.channels)
        line = (f"{clip.name}: keys {before} -> {after} ({after / max(before, 1):.1%}), "
                f"max clip_error {error:.3g} (tolerance {tolerance:g}, shell {shell:g})")
        if clip.name in deviations:
            line += (f"; its glTF form's world positions deviate up to "
                     f"{deviations[clip.name]:.3g} from the FBX scene's")
        lines.append(line)
        clips.append(reduced)
    return lines, scene, clips
