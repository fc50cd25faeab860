"""Error-bounded keyframe reduction, measured in ACL's object-space metric.

:func:`clip_error` is the error ACL (the Animation Compression Library)
reports: per joint, the largest distance between two poses' world positions
of virtual points ``shell`` along each local axis (+-x, +-y, +-z).
:func:`reduce_keys` keeps as few keys of a curve as it can while the result
stays within a tolerance of the original on a dense check (20 points per
original key interval, every original key included): for linear and step
originals, whose difference to a linear or step result is piecewise linear
between the original keys, that check is a proof; for cubic ones it is a
check. :func:`reduce_clip` does it for every channel of a clip with a budget
per joint down the hierarchy, then verifies :func:`clip_error` densely.

Units: ``tolerance`` and ``shell`` are in the scene's length units (glTF:
metres; BVH as loaded: the file's units, often centimetres, so pass
``shell=3.0`` and a centimetre tolerance there).
"""

from __future__ import annotations

import numpy as np

from ._arrays import as_float64, check_finite, choice, positive_number
from .curves import Curve
from .hermite import hermite
from .model import Channel, Clip, Scene
from .rotations import RotationCurve, quat_slerp

__all__ = ["clip_error", "reduce_keys", "reduce_clip"]

DENSE = 20  # check points per original key interval
CHECK = 5  # points per frame of the whole-clip safety check (channels are checked at DENSE)


def clip_error(scene: Scene, clip_a, clip_b, t, *, shell=0.03) -> np.ndarray:
    """ACL's object-space error between two clips of one scene.

    Parameters
    ----------
    scene : Scene
    clip_a, clip_b : Clip, clip name or index (None: the rest pose)
    t : array_like
        Times in seconds.
    shell : float
        Distance of the virtual points from each node along its local axes
        (scene units, > 0; ACL's default is 3 cm).

    Returns
    -------
    ndarray, shape ``t.shape + (J,)``
        Per scene node, the largest distance between the two poses' world
        positions of the six points ``+-shell`` along the node's local x, y
        and z axes.
    """
    func = "clip_error"
    if not isinstance(scene, Scene):
        raise ValueError(f"{func}: scene must be a Scene, got {type(scene).__name__}")
    shell = positive_number(func, "shell", shell)
    t = as_float64(func, "t", t)
    check_finite(func, "t", t)
    for name, clip in (("clip_a", clip_a), ("clip_b", clip_b)):
        if isinstance(clip, Clip):
            for c in clip.channels:
                if c.node >= len(scene.nodes):
                    raise ValueError(f"{func}: {name} animates node {c.node}, but the scene "
                                     f"has {len(scene.nodes)} nodes")
    flat = t.reshape(-1)
    out = np.empty((flat.size, len(scene.nodes)))
    for start in range(0, flat.size, 4096):  # bounded memory for dense checks
        chunk = flat[start:start + 4096]
        wa = scene.world(clip_a, chunk)
        wb = scene.world(clip_b, chunk)
        d = wa[..., :3, :] - wb[..., :3, :]
        origin = d[..., 3]
        axes = shell * d[..., :3]  # columns: the local axes' images
        plus = np.linalg.norm(origin[..., :, None] + axes, axis=-2)
        minus = np.linalg.norm(origin[..., :, None] - axes, axis=-2)
        out[start:start + chunk.size] = np.maximum(plus, minus).max(axis=-1)
    return out.reshape(t.shape + (len(scene.nodes),))


# ---------------------------------------------------------------- key picks

def _subdivided(times: np.ndarray, count: int = DENSE) -> np.ndarray:
    """``count`` points per interval of ``times`` and the last time: time k at
    index count * k."""
    u = np.arange(count) / count
    return np.append((times[:-1, None] + u * np.diff(times)[:, None]).reshape(-1), times[-1:])


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
    one_d = np.asarray(curve.values).ndim == 1
    grid = _subdivided(times)
    dense = np.asarray(curve(grid), dtype=np.float64).reshape(len(grid), -1)
    values = dense[::DENSE]  # the curve at its keys (right side)
    vin = np.asarray(curve.in_velocities, dtype=np.float64).reshape(len(times), -1)
    vout = np.asarray(curve.out_velocities, dtype=np.float64).reshape(len(times), -1)
    kinds = ("step", "linear", "cubic") if interpolation == "auto" else (interpolation,)
    limit = tolerance * (1 - 1e-9)

    def error(kind, i, j):
        a, b = DENSE * i, DENSE * j
        if kind == "step":  # holds values[i] up to, not at, key j
            return np.abs(values[i] - dense[a:b]).max(initial=0.0)
        h = times[j] - times[i]
        elapsed = (grid[a:b + 1] - times[i])[:, None]
        if kind == "linear":
            pred = values[i] + (elapsed / h) * (values[j] - values[i])
        else:  # the one Hermite segment, per-second velocities
            pred = hermite(values[i], values[j], vout[i], vin[j], h, np.minimum(elapsed, h))[0]
        return np.abs(pred - dense[a:b + 1]).max(initial=0.0)

    chosen = {}

    def fits(i, j):
        for kind in kinds:
            if error(kind, i, j) <= limit:
                chosen[(i, j)] = kind
                return True
        return False

    kept = _greedy(len(times), fits)
    segments = [chosen.get((i, j)) or _original_kind(curve, i) for i, j in zip(kept, kept[1:])]
    keep = np.array(kept)
    new_values = values[keep]
    if one_d:
        new_values = new_values[:, 0]
    velocities = {}
    if "cubic" in segments:
        velocities = dict(in_velocities=vin[keep].reshape(new_values.shape),
                          out_velocities=vout[keep].reshape(new_values.shape))
    if len(set(segments)) == 1:
        segments = segments[0]
    return Curve(times[keep], new_values, interpolation=segments, before=curve.before,
                 after=curve.after, **velocities)


def _original_kind(curve, i: int) -> str:
    kind = curve.interpolation
    if not isinstance(kind, str):
        kind = kind[i]
    return kind if kind in ("step", "linear") else "cubic"


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
        curve's velocities at the kept keys. (A RotationCurve result is linear.)

    Returns
    -------
    Curve or RotationCurve
        A normal curve (edits, evaluates, saves and pickles as any) whose keys
        are a subset of the original key times, equal to the original there,
        and within ``tolerance`` on 20 points per original key interval.
    """
    func = "reduce_keys"
    tolerance = positive_number(func, "tolerance", tolerance)
    choice(func, "interpolation", interpolation, ("auto", "linear", "step", "cubic"))
    if isinstance(curve, RotationCurve):
        return _reduce_rotation(curve, tolerance)
    if not isinstance(curve, Curve):
        raise ValueError(f"{func}: curve must be a Curve or RotationCurve, got "
                         f"{type(curve).__name__}")
    return _reduce_curve(curve, tolerance, interpolation, func)


def _reduce_rotation(curve: RotationCurve, tolerance: float) -> RotationCurve:
    times = np.asarray(curve.times, dtype=np.float64)
    if len(times) < 3:
        return curve
    grid = _subdivided(times)
    dense = np.asarray(curve(grid), dtype=np.float64)
    keys = dense[::DENSE]
    cos_limit = np.cos(tolerance * (1 - 1e-9) / 2)

    def fits(i, j):
        a, b = DENSE * i, DENSE * j
        u = (grid[a:b + 1] - times[i]) / (times[j] - times[i])
        pred = quat_slerp(keys[i], keys[j], u)
        return bool((np.abs(np.sum(pred * dense[a:b + 1], -1)) >= cos_limit).all())

    keep = np.array(_greedy(len(times), fits))
    return RotationCurve(times[keep], keys[keep], interpolation="linear", before=curve.before,
                         after=curve.after)


# --------------------------------------------------------------- whole rigs

def reduce_clip(scene: Scene, clip, tolerance=1e-4, *, shell=0.03) -> Clip:
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
    """
    func = "reduce_clip"
    if not isinstance(scene, Scene):
        raise ValueError(f"{func}: scene must be a Scene, got {type(scene).__name__}")
    tolerance = positive_number(func, "tolerance", tolerance)
    shell = positive_number(func, "shell", shell)
    clip = scene._own_clip(func, clip)  # a clip of this scene's nodes, as posing checks it
    count = len(scene.nodes)
    parents = np.array([n.parent for n in scene.nodes], dtype=int)  # -1: a root
    animated = np.bincount([c.node for c in clip.channels if c.path != "weights"],
                           minlength=count)
    # the most animated channels from the root to any node
    depth = np.zeros(count, dtype=int)
    order = scene.skeleton.order
    for j in order:
        depth[j] = animated[j] + (depth[parents[j]] if parents[j] >= 0 else 0)
    chain = max(int(depth.max(initial=0)), 1)
    # each node's reach: the farthest descendant from it over the clip's frames
    # (every key time of its transform channels)
    frames = clip.key_times()
    world = scene.world(clip, frames)[..., :3, 3]
    bone = np.linalg.norm(world - world[:, np.maximum(parents, 0)], axis=-1).max(axis=0)
    reach = np.zeros(count)
    for j in reversed(order):
        if parents[j] >= 0:
            reach[parents[j]] = max(reach[parents[j]], reach[j] + bone[j])
    # morph weights do not move a point: reduced once, to tolerance, whatever the budgets
    weights = {k: _reduce_curve(c.curve, tolerance, "auto", func)
               for k, c in enumerate(clip.channels) if c.path == "weights"}
    check = _subdivided(frames, CHECK)
    factor = 1.0
    for _ in range(6):
        share = factor * tolerance / chain
        channels = []
        for k, c in enumerate(clip.channels):
            if c.path == "rotation":
                curve = _reduce_rotation(c.curve, share / (reach[c.node] + shell)) \
                    if isinstance(c.curve, RotationCurve) else c.curve
            elif c.path == "weights":
                curve = weights[k]
            elif c.path == "scale":
                curve = _reduce_curve(c.curve, share / (reach[c.node] + shell) / np.sqrt(3),
                                      "auto", func)
            else:
                curve = _reduce_curve(c.curve, share / np.sqrt(3), "auto", func)
            channels.append(_channel_like(c, curve))
        reduced = Clip(clip.name, clip.duration, tuple(channels), clip.unsupported)
        if clip_error(scene, clip, reduced, check, shell=shell).max(initial=0.0) <= tolerance:
            return reduced
        factor *= 0.5
    return clip  # no reduction met the bound: the original, which does


def _channel_like(channel: Channel, curve) -> Channel:
    if curve is channel.curve:
        return channel
    made = Channel.from_curve(channel.node, channel.path, curve, node_name=channel.node_name)
    return Channel(made.node, made.node_name, made.path, made.interpolation, made.width,
                   made.times, made.output, made.curve, channel.target)
