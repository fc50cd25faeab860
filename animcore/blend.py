"""Blending joint poses: two-pose blends, N-way blends, additive poses.

A pose is a :class:`~animcore.Transforms` of per-joint translation
``(..., J, 3)``, unit rotation ``(..., J, 4)`` (x, y, z, w) and scale
``(..., J, 3)``; leading axes (frames, characters) broadcast like NumPy.
Rotations interpolate along the shortest arc with the package's one slerp
(:func:`animcore.quat_slerp`).

Weights outside [0, 1]
----------------------
:func:`blend_poses` interpolates, so its ``weight`` and ``mask`` must lie in
[0, 1] (a ValueError names the index otherwise). :func:`apply_additive`
continues its formulas for any finite ``weight``: above 1 exaggerates the
delta, below 0 applies its inverse (the rotation continues along the same
great circle, the scale is ``delta ** weight``); its ``mask`` must lie in
[0, 1].

Additive conventions
--------------------
``"local"`` (default; ozz-animation's and Unreal's local-space additive):
    ``delta = (t - t_ref, q_ref^-1 q, s / s_ref)``;
    ``apply = (t + w d_t, q * slerp(1, d_q, w), s * d_s^w)``.
``"threejs"`` (three.js ``AnimationUtils.makeClipAdditive`` and its
additive mixer): the same translation and rotation, additive scale:
    ``d_s = s - s_ref``; ``s + w d_s``. The reference is a frame of a clip:
    pass ``reference=k`` (an int) to take frame ``k`` of ``pose``.
``"blender_combine"`` (Blender's NLA Combine on a pose bone):
    ``t + w d_t``, ``q * d_q^w`` with the quaternion power taken about
    ``d_q``'s own angle, ``acos(d_w)`` in [0, pi] (no hemisphere flip, as
    Blender does: it differs from the slerp only when ``d_w < 0``), and
    ``s * d_s^w``.
``reference=None`` takes the first frame of ``pose`` as the reference, as
ozz-animation's additive builder does.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from . import _core
from ._arrays import (as_float64, broadcast_named, check_finite, frozen_copy, index_text,
                      positive_number)
from ._objects import ByValue
from ._options import option
from .model import _query_times, _scene_argument
from .rotations import quaternion_input
from .skeleton import Transforms

__all__ = ["ADDITIVE_CONVENTIONS", "BLEND_SPACE_METHODS", "BlendSpace", "apply_additive",
           "blend_many", "blend_poses", "make_additive"]

ADDITIVE_CONVENTIONS = ("local", "threejs", "blender_combine")
_ALIASES = {"three": "threejs", "three.js": "threejs", "ozz": "local", "unreal": "local",
            "combine": "blender_combine", "blender": "blender_combine"}
_MODE = {"local": 0, "threejs": 1, "blender_combine": 2}  # ac_blend_scale_mode


def _pose(func: str, name: str, pose) -> Transforms:
    """A pose as three float64 arrays with matching joint counts."""
    try:
        t, r, s = pose
    except (TypeError, ValueError):
        raise ValueError(f"{func}: {name} must be a Transforms (translation, rotation, "
                         f"scale), got {type(pose).__name__}") from None
    arrays = []
    for part, value, width in (("translation", t, 3), ("rotation", r, 4), ("scale", s, 3)):
        if part == "rotation":
            value = quaternion_input(value)
        a = as_float64(func, f"{name}.{part}", value)
        if a.ndim < 2 or a.shape[-1] != width:
            raise ValueError(f"{func}: {name}.{part} has shape {a.shape} (must be "
                             f"(..., J, {width}))")
        arrays.append(a)
    joints = {a.shape[-2] for a in arrays}
    if len(joints) > 1:
        raise ValueError(f"{func}: {name}'s translation, rotation and scale have "
                         f"{arrays[0].shape[-2]}, {arrays[1].shape[-2]} and "
                         f"{arrays[2].shape[-2]} joints (must be equal)")
    return Transforms(*arrays)


def _joints(func: str, named: Sequence[tuple[str, Transforms]]) -> int:
    first_name, first = named[0]
    j = first.translation.shape[-2]
    for name, pose in named[1:]:
        if pose.translation.shape[-2] != j:
            raise ValueError(f"{func}: {name} has {pose.translation.shape[-2]} joints and "
                             f"{first_name} has {j} (must be equal)")
    return j


def _mask(func: str, mask, joints: int):
    if mask is None:
        return 1.0
    m = as_float64(func, "mask", mask)
    if m.shape != (joints,):
        raise ValueError(f"{func}: mask has shape {m.shape} (must be ({joints},), one "
                         f"weight per joint)")
    return m


def _out(out):
    return None if out is None else tuple(out)


def blend_poses(a, b, weight, *, mask=None, out: Optional[Transforms] = None,
                workers: Optional[int] = None) -> Transforms:
    """Blend from pose ``a`` (weight 0) to pose ``b`` (weight 1), per joint.

    Translation and scale ``(1 - w) a + w b``, rotation the shortest-arc
    slerp, with ``w = weight * mask[j]``. Where ``w`` is 0 the result is
    ``a`` bit for bit.

    Parameters
    ----------
    a, b : Transforms
        Poses with J joints each; leading axes broadcast.
    weight : array_like, broadcastable to (..., J)
        In [0, 1]. A per-frame weight of shape (F,) is given as (F, 1).
    mask : array_like, shape (J,), optional
        Per-joint weights in [0, 1] that multiply ``weight`` (0 keeps ``a``).
    out : Transforms, optional
        Three arrays that receive the result (untouched on error).

    Returns
    -------
    Transforms

    Raises
    ------
    ValueError
        Joint counts that differ, a rotation that is not unit (``|q|^2``
        within 1e-6 of 1), a non-finite value, a weight or mask outside
        [0, 1]; the message names the argument and its index.

    >>> a = Transforms(np.zeros((1, 3)), np.array([[0, 0, 0, 1.0]]), np.ones((1, 3)))
    >>> b = Transforms(np.ones((1, 3)), np.array([[0, 0, 1.0, 0]]), np.ones((1, 3)))
    >>> blend_poses(a, b, 0.5).rotation.round(6)
    array([[0.      , 0.      , 0.707107, 0.707107]])
    """
    func = "blend_poses"
    a, b = _pose(func, "a", a), _pose(func, "b", b)
    j = _joints(func, [("a", a), ("b", b)])
    m = _mask(func, mask, j)
    return Transforms(*_core._blend_poses(func, 0, *a, *b, weight, m, _out(out), workers))


def make_additive(pose, reference=None, *, convention: str = "local",
                  out: Optional[Transforms] = None,
                  workers: Optional[int] = None) -> Transforms:
    """The additive delta of ``pose`` against ``reference``.

    ``delta = (t - t_ref, q_ref^-1 q, s / s_ref)`` (``s - s_ref`` for the
    ``"threejs"`` convention; see the module's notes), so that
    ``apply_additive(reference, delta, 1)`` is ``pose`` again (to rounding).

    Parameters
    ----------
    pose : Transforms
        Poses (..., J).
    reference : Transforms, int or None
        The reference pose (broadcast against ``pose``), an int ``k`` for
        frame ``k`` of ``pose`` (three.js's ``referenceFrame``), or None for
        its first frame (ozz-animation's additive builder).
    convention : {"local", "threejs", "blender_combine"}
    """
    func = "make_additive"
    conv = option(func, "convention", convention, ADDITIVE_CONVENTIONS, _ALIASES)
    pose = _pose(func, "pose", pose)
    if reference is None or isinstance(reference, (int, np.integer)):
        k = 0 if reference is None else int(reference)
        # (the properties' leading axes broadcast: one rotation for every frame)
        lead = broadcast_named(func, {f"pose.{part}": a.shape[:-2] for part, a in zip(
            ("translation", "rotation", "scale"), pose)}, "the leading axes of ")
        frames = lead[0] if lead else 0
        if not -frames <= k < frames:
            raise ValueError(f"{func}: reference is frame {k} (pose has {frames} frames "
                             f"on its first axis)")
        reference = Transforms(*(np.broadcast_to(a, lead + a.shape[-2:])[k] for a in pose))
    reference = _pose(func, "reference", reference)
    _joints(func, [("pose", pose), ("reference", reference)])
    return Transforms(*_core._blend_make_additive(func, _MODE[conv], *pose, *reference,
                                                  _out(out), workers))


def apply_additive(base, delta, weight=1.0, *, mask=None, convention: str = "local",
                   out: Optional[Transforms] = None,
                   workers: Optional[int] = None) -> Transforms:
    """``base`` with the additive ``delta`` applied at ``weight``.

    ``(t + w d_t, q * slerp(1, d_q, w), s * d_s^w)`` with ``w = weight *
    mask[j]`` (``s + w d_s`` for ``"threejs"``, ``q * d_q^w`` without the
    hemisphere flip for ``"blender_combine"``). Where ``w`` is 0 the result
    is ``base`` bit for bit; at ``w = 1`` the delta is applied as is.

    Parameters
    ----------
    base, delta : Transforms
        Poses with J joints each; leading axes broadcast.
    weight : array_like, broadcastable to (..., J)
        Any finite value: above 1 exaggerates, below 0 inverts. A negative
        or zero scale delta needs a weight of 0 or 1.
    mask : array_like, shape (J,), optional
        Per-joint weights in [0, 1].
    convention : {"local", "threejs", "blender_combine"}
    """
    func = "apply_additive"
    conv = option(func, "convention", convention, ADDITIVE_CONVENTIONS, _ALIASES)
    base, delta = _pose(func, "base", base), _pose(func, "delta", delta)
    j = _joints(func, [("base", base), ("delta", delta)])
    m = _mask(func, mask, j)
    return Transforms(*_core._blend_apply_additive(func, _MODE[conv], *base, *delta, weight, m,
                                                   _out(out), workers))


def blend_many(poses: Sequence, weights, *, rest=None, threshold: float = 0.1) -> Transforms:
    """N-way blend with ozz-animation's ``BlendingJob`` semantics.

    Each pose ``i`` adds ``w_i`` times its translation, scale and rotation
    (negated into the accumulated rotation's hemisphere) to a running sum;
    poses with ``w_i <= 0`` are skipped. When the accumulated weight ``W``
    is below ``threshold`` and a ``rest`` pose is given, the rest pose is
    added with weight ``threshold - W`` (so it fills in as the others fade).
    The sums are then divided by the accumulated weight and the rotation
    normalized. Weights are per pose, shape (L,), or per pose and joint,
    broadcastable to (L, ..., J) (ozz's joint weights).

    Parameters
    ----------
    poses : sequence of Transforms
        L poses with J joints each (leading axes broadcast).
    weights : array_like, shape (L,) or (L, ..., J)
        Finite, any sign (non-positive weights skip the pose).
    rest : Transforms, optional
        The rest pose (J joints) that fills in below ``threshold``.
    threshold : float
        Positive.

    Raises
    ------
    ValueError
        No poses, a weight count that differs from the pose count, a
        non-positive or non-finite threshold, mismatched joints, shapes that
        do not broadcast, a value that is not finite or a zero rotation in a
        pose (named by its index), or, without a rest pose, a joint whose
        accumulated weight is 0.
    """
    func = "blend_many"
    if not isinstance(poses, Sequence) or isinstance(poses, str):
        raise ValueError(f"{func}: poses must be a sequence of poses, got {type(poses).__name__}")
    poses = [_pose(func, f"poses[{i}]", p) for i, p in enumerate(poses)]
    if not poses:
        raise ValueError(f"{func}: poses is empty (must hold at least one pose)")
    named = [(f"poses[{i}]", p) for i, p in enumerate(poses)]
    if rest is not None:
        named.append(("rest", _pose(func, "rest", rest)))
    _joints(func, named)
    for name, pose in named:  # (the sums below are NumPy's: no kernel checks them)
        for part, value in zip(("translation", "rotation", "scale"), pose):
            check_finite(func, f"{name}.{part}", value)
        zero = ~pose.rotation.any(axis=-1)
        if zero.any():
            where = index_text(zero.shape, int(np.argmax(zero)))
            raise ValueError(f"{func}: {name}.rotation{where} is (0, 0, 0, 0) (a rotation must "
                             f"be a non-zero quaternion)")
    threshold = positive_number(func, "threshold", threshold)
    w = as_float64(func, "weights", weights)
    if w.ndim == 0 or w.shape[0] != len(poses):
        raise ValueError(f"{func}: weights has shape {w.shape} (must start with the pose "
                         f"count {len(poses)})")
    check_finite(func, "weights", w)
    if w.ndim == 1:
        w = w[:, None]  # one weight per pose, for every joint
    shapes = {f"poses[{i}].{part}": a.shape[:-1] for i, p in enumerate(poses)
              for part, a in zip(("translation", "rotation", "scale"), p)}
    shape = broadcast_named(func, {**shapes, "weights[0]": w.shape[1:]},
                            "the per-joint axes of (weights: (L,) or (L, ..., J)) ")
    acc_t = np.zeros(shape + (3,))
    acc_s = np.zeros(shape + (3,))
    acc_q = np.zeros(shape + (4,))
    total = np.zeros(shape)

    def add(wi, p):
        """wi times pose p onto the sums, its rotation in acc_q's hemisphere."""
        nonlocal acc_t, acc_s, acc_q
        q = np.broadcast_to(p.rotation, shape + (4,))
        sign = np.where(np.einsum("...i,...i->...", acc_q, q) < 0.0, -1.0, 1.0)
        acc_q = acc_q + (wi * sign)[..., None] * q
        acc_t = acc_t + wi[..., None] * p.translation
        acc_s = acc_s + wi[..., None] * p.scale

    used = []  # (weight, pose) as added, for the scaled form below
    with np.errstate(over="ignore", invalid="ignore"):  # (sums beyond the range: below)
        for wi, p in zip(w, poses):
            wi = np.where(wi > 0.0, wi, 0.0)
            add(wi, p)
            used.append((np.broadcast_to(wi, shape), p))  # (one shape, with the rest's fill)
            total = total + wi
        if rest is not None:
            fill = np.where(total < threshold, threshold - total, 0.0)
            none = total == 0.0  # ozz copies the rest pose where no layer contributed
            add(fill, named[-1][1])
            used.append((fill, named[-1][1]))
            total = np.where(none | (fill > 0.0), threshold, total)
    zero = np.argwhere(total == 0.0)
    if zero.size:
        index = tuple(int(i) for i in zero[0])
        raise ValueError(f"{func}: weights at index {index} sum to 0 with no rest pose "
                         f"(give rest= or a positive weight)")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        norm = np.linalg.norm(acc_q, axis=-1, keepdims=True)
        t, q, s = acc_t / total[..., None], acc_q / norm, acc_s / total[..., None]
    bad = ~(np.isfinite(t).all(-1) & np.isfinite(q).all(-1) & np.isfinite(s).all(-1))
    if bad.any():  # extreme weights, values or quaternions: the scaled form there
        t2, q2, s2 = _blend_scaled(used, shape)
        t, q, s = (np.where(bad[..., None], b, a) for a, b in ((t, t2), (q, q2), (s, s2)))
    return Transforms(t, q, s)


def _blend_scaled(used, shape):
    """blend_many's weighted means with no intermediate beyond the double range:
    convex coefficients (weights over their largest, then over their sum) times
    the translations and scales; rotations in units of their largest component."""
    with np.errstate(under="ignore", invalid="ignore", divide="ignore"):
        top = np.max([wi for wi, _ in used], axis=0)
        u = [np.where(top > 0, wi / np.where(top > 0, top, 1.0), 0.0) for wi, _ in used]
        total = np.sum(u, axis=0)
        c = [ui / total for ui in u]
        t = sum(ci[..., None] * np.broadcast_to(p.translation, shape + (3,))
                for ci, (_, p) in zip(c, used))
        s = sum(ci[..., None] * np.broadcast_to(p.scale, shape + (3,))
                for ci, (_, p) in zip(c, used))
        # w_i q_i = (w_i |q_i|_max) (q_i / |q_i|_max), the first factor through logs
        rotations = [np.broadcast_to(p.rotation, shape + (4,)) for _, p in used]
        size = [np.abs(r).max(axis=-1) for r in rotations]
        logs = [np.log(wi) + np.log(a) for (wi, _), a in zip(used, size)]
        top = np.max(logs, axis=0)
        acc = np.zeros(shape + (4,))
        for lg, a, r in zip(logs, size, rotations):
            ci = np.exp(lg - top)
            r = r / a[..., None]
            sign = np.where(np.einsum("...i,...i->...", acc, r) < 0.0, -1.0, 1.0)
            acc = acc + (ci * sign)[..., None] * r
        acc = acc / np.abs(acc).max(axis=-1, keepdims=True)
        q = acc / np.linalg.norm(acc, axis=-1, keepdims=True)
    return t, q, s


# ------------------------------------------------------------------ blend spaces

BLEND_SPACE_METHODS = ("barycentric", "gradient_band")


def _exponent(points) -> int:
    """k with the points' largest |coordinate| in [2**(k-1), 2**k): divided
    by 2**k (exact) they lie in (-1, 1) at any scale."""
    return int(np.frexp(np.abs(points).max())[1])


def _parameters(x, k):
    """Parameters ``(Q, 2)`` divided by 2**k, the points' power of two (exact).

    A row further out than 2**500 moves in to 2**500 along its direction, so
    that products stay far inside the double range; its nearest point of the
    hull and its weights stay the same to double precision. The points lie in
    (-1, 1): a coordinate there stays as it is (it places a row beyond a side
    along that side, as [1e200, 0.5] beyond a unit square), one beyond stays
    beyond (at least 1)."""
    e = np.frexp(np.abs(x).max(axis=1))[1] - k
    shift = np.where(e > 500, 500 - e, 0) - k
    with np.errstate(over="ignore"):  # (x / 2**k beyond the range: 1)
        inside = np.minimum(np.abs(np.ldexp(x, -k)), 1.0)
    return np.copysign(np.maximum(np.abs(np.ldexp(x, shift[:, None])), inside), x)


def _blocks(rows, width):
    """``rows`` in blocks of about 2**16 / width (arrays of rows x width)."""
    return np.array_split(rows, max(1, len(rows) * width // 65536))


def delaunay(points) -> np.ndarray:
    """Delaunay triangles ``(T, 3)`` (indices, counter-clockwise) of 2-D points.

    The lower convex hull of the points lifted onto the paraboloid
    ``z = x^2 + y^2``. Heights get a tiny fixed perturbation (up to 1e-9 of
    the squared extent, the same pseudo-random numbers on every call) so
    that four or more points on one circle (a grid's cells) still give one
    triangulation (the regular triangulation of the perturbed heights)
    rather than overlapping triangles: a perturbation linear in the index
    cancels on a grid cell, whose diagonals' indices have equal sums.
    O(N^4): meant for blend spaces of a few dozen clips.
    """
    p = np.asarray(points, dtype=np.float64)
    n = len(p)
    p = np.ldexp(p, -_exponent(p))  # in (-1, 1): subnormal points, and no overflow in the mean
    centre = p.mean(axis=0)
    extent = max(float(np.abs(p - centre).max()), 1e-300)
    q = (p - centre) / extent
    z = (q ** 2).sum(axis=1) + 1e-9 * np.random.default_rng(0).random(n)
    lifted = np.column_stack([q, z])
    triangles = []
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                a, b, c = q[i], q[j], q[k]
                area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
                if abs(area) < 1e-12:
                    continue
                normal = np.cross(lifted[j] - lifted[i], lifted[k] - lifted[i])
                if normal[2] < 0:
                    normal = -normal
                heights = (lifted - lifted[i]) @ normal
                heights[[i, j, k]] = 0.0
                if (heights >= -1e-15).all():
                    triangles.append((i, j, k) if area > 0 else (i, k, j))
    return np.array(triangles, dtype=np.int64).reshape(-1, 3)


class BlendSpace(ByValue):
    """Clips placed at parameter points, blended by weights that sum to 1.

    Parameters
    ----------
    points : array_like, shape (N,) or (N, 2)
        Distinct parameter points (speed; speed and direction ...).
    clips : sequence of N clips
        :class:`~animcore.gltf.Clip` objects (or anything ``sample`` takes).
    method : {"barycentric", "gradient_band"}
        2-D weights: barycentric coordinates in the triangle of a Delaunay
        triangulation of the points (outside their convex hull, the nearest
        point of the hull's boundary is used), or gradient band
        interpolation (Johansen 2009, the scheme behind Unity's freeform
        Cartesian blend trees): ``h_i(p) = max(0, min_{j != i} 1 - (p - p_i) .
        (p_j - p_i) / |p_j - p_i|^2)`` and ``w_i = h_i / sum h``. 1-D
        weights interpolate linearly between neighbouring points and
        clamp outside. All are continuous in the parameters.
    """

    def __init__(self, points, clips: Sequence, *, method: str = "barycentric"):
        func = "BlendSpace"
        p = as_float64(func, "points", points)
        if p.ndim == 2 and p.shape[1] == 1:
            p = p[:, 0]
        if p.ndim not in (1, 2) or (p.ndim == 2 and p.shape[1] != 2) or len(p) < 2:
            raise ValueError(f"{func}: points has shape {p.shape} (must be (N,) or (N, 2) "
                             f"with N >= 2)")
        check_finite(func, "points", p)
        if not isinstance(clips, Sequence) or isinstance(clips, str):
            raise ValueError(f"{func}: clips must be a sequence of clips, got "
                             f"{type(clips).__name__}")
        if len(clips) != len(p):
            raise ValueError(f"{func}: {len(clips)} clips for {len(p)} points (must be equal)")
        self.method = option(func, "method", method, BLEND_SPACE_METHODS,
                             {"barycentric_delaunay": "barycentric", "freeform": "gradient_band",
                              "cartesian": "gradient_band"})
        keys = [tuple(np.atleast_1d(x)) for x in p]
        for i in range(len(keys)):
            for j in range(i):
                if keys[i] == keys[j]:
                    raise ValueError(f"{func}: points at index ({i},) repeats points at "
                                     f"index ({j},) (points must be distinct)")
        # (the caller's array may change; a triangulation is built from it)
        self.points = p = frozen_copy(p)
        self.clips = list(clips)
        self.triangles = None
        if p.ndim == 2 and self.method == "barycentric":
            self.triangles = delaunay(p)
            if len(self.triangles) == 0:
                raise ValueError(f"{func}: the points are collinear (a 2-D blend space needs "
                                 f"three points not on one line; give them as 1-D)")

    _fields = (("points", "clips", "method"), ())

    def _state(self) -> dict:
        return {"points": self.points, "clips": tuple(self.clips), "method": self.method}

    @classmethod
    def _from_state(cls, state: dict) -> "BlendSpace":
        return cls(state["points"], list(state["clips"]), method=state["method"])

    def __repr__(self) -> str:
        dims = 1 if self.points.ndim == 1 else 2
        return f"BlendSpace({len(self.clips)} clips, {dims}-D, {self.method})"

    def weights(self, parameters) -> np.ndarray:
        """Weights ``(..., N)`` at parameters ``(...)`` (1-D) or ``(..., 2)``."""
        return self._weights("BlendSpace.weights", parameters)

    def _weights(self, func: str, parameters) -> np.ndarray:
        """:meth:`weights`, with errors naming ``func`` (the public caller)."""
        x = as_float64(func, "parameters", parameters)
        if self.points.ndim == 2 and (x.ndim == 0 or x.shape[-1] != 2):
            raise ValueError(f"{func}: parameters has shape {x.shape} (must end with 2)")
        check_finite(func, "parameters", x)
        if self.points.ndim == 1:
            return self._weights_1d(x)
        k = _exponent(self.points)
        p, y = np.ldexp(self.points, -k), _parameters(x.reshape(-1, 2), k)
        w = self._gradient_band(p, y) if self.method == "gradient_band" else self._barycentric(p, y)
        return w.reshape(x.shape[:-1] + (len(self.points),))

    def _weights_1d(self, x):
        order = np.argsort(self.points)
        s = self.points[order]
        xc = np.clip(x, s[0], s[-1])
        k = np.clip(np.searchsorted(s, xc, side="right") - 1, 0, len(s) - 2)
        with np.errstate(over="ignore", invalid="ignore"):
            span = s[k + 1] - s[k]
            u = (xc - s[k]) / span
        wide = ~np.isfinite(span)  # points ~1e308 apart: the same ratio of halves
        if wide.any():
            u = np.where(wide, (xc * 0.5 - s[k] * 0.5) / (s[k + 1] * 0.5 - s[k] * 0.5), u)
        w = np.zeros(x.shape + (len(s),))
        np.put_along_axis(w, order[k][..., None], (1.0 - u)[..., None], axis=-1)
        lo = np.take_along_axis(w, order[k + 1][..., None], axis=-1)
        np.put_along_axis(w, order[k + 1][..., None], lo + u[..., None], axis=-1)
        return w

    def _gradient_band(self, p, x):
        """Points ``p`` and parameters ``x`` in the points' units (``_parameters``)."""
        d = p[None, :, :] - p[:, None, :]  # d[i, j] = p_j - p_i
        n2 = (d ** 2).sum(-1)
        np.fill_diagonal(n2, 1.0)
        idx = np.arange(len(p))
        w = np.empty((len(x), len(p)))
        for rows in _blocks(np.arange(len(x)), len(p) ** 2):
            rel = x[rows, None, :] - p[None, :, :]  # (Q, N, 2): x - p_i
            h = 1.0 - np.einsum("qic,ijc->qij", rel, d) / n2[None]
            h[:, idx, idx] = np.inf
            h = np.maximum(h.min(axis=2), 0.0)
            w[rows] = h / h.sum(axis=1, keepdims=True)
        return w

    def _barycentric(self, p, x):
        """Points ``p`` and parameters ``x`` in the points' units (``_parameters``)."""
        tri = self.triangles
        w = np.zeros((len(x), len(p)))
        a = p[tri[:, 0]]
        ab, ac = p[tri[:, 1]] - a, p[tri[:, 2]] - a
        det = ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0]
        # beyond twice the points' largest coordinate x is far outside every triangle
        near = (np.abs(x) * 0.5 <= np.abs(p).max()).all(axis=1)
        outside = ~near
        for rows in _blocks(np.flatnonzero(near), len(tri)):
            r = x[rows, None, :] - a
            l1 = (r[..., 0] * ac[:, 1] - r[..., 1] * ac[:, 0]) / det
            l2 = (ab[:, 0] * r[..., 1] - ab[:, 1] * r[..., 0]) / det
            l0 = 1.0 - l1 - l2
            lam = np.stack([l0, l1, l2], axis=-1)
            worst = lam.min(axis=-1)
            t = np.argmax(worst, axis=1)
            lam_t = lam[np.arange(len(rows)), t]
            found = worst[np.arange(len(rows)), t] >= -1e-12
            lam_t = np.clip(lam_t[found], 0.0, None)
            w[rows[found, None], tri[t[found]]] = lam_t / lam_t.sum(axis=1, keepdims=True)
            outside[rows[~found]] = True
        # outside the hull: the nearest point of its boundary, the triangles' edges
        # (counter-clockwise) that no other triangle shares
        i0, i1 = tri.ravel(), tri[:, [1, 2, 0]].ravel()
        hull = ~np.isin(i0 * len(p) + i1, i1 * len(p) + i0)
        i0, i1 = i0[hull], i1[hull]
        before = np.empty(len(p), dtype=np.intp)
        before[i1] = np.arange(len(i1))
        before = before[i0]  # the edge that ends where each edge starts
        seg = p[i1] - p[i0]
        for rows in _blocks(np.flatnonzero(outside), len(i0)):
            r = x[rows, None, :] - p[i0]
            u = (r * seg).sum(-1) / (seg ** 2).sum(-1)
            facing = r[..., 0] * seg[:, 1] - r[..., 1] * seg[:, 0] > 0.0  # outside its line
            # The nearest point is on the edge x faces, or the corner where an
            # edge starts (x beyond the edge before it and behind this one,
            # outside either): decided by projections, which far out keep what
            # squared distances round away.
            corner = (u[:, before] >= 1.0) & (u <= 0.0) & (facing[:, before] | facing)
            k = np.argmax(((u >= 0.0) & (u <= 1.0) & facing) | corner, axis=1)
            along = np.clip(u[np.arange(len(rows)), k], 0.0, 1.0)
            w[rows, i0[k]] += 1.0 - along
            w[rows, i1[k]] += along
        return w

    def sample(self, parameters, t, *, scene=None, sync: bool = False):
        """The clips blended at ``parameters`` (one point), at times ``t``.

        Without ``scene``: a dict like :meth:`Clip.sample` (``{(target,
        path): t.shape + (width,)}``; every clip must animate the same
        channels), translations, scales and weights summed with the blend
        weights, rotations accumulated into the heaviest clip's hemisphere
        and normalized (ozz's blending). With ``scene``: the scene's pose
        blended by :func:`blend_many` (a :class:`Transforms`). ``sync=True``
        plays every clip at the same phase: clip ``i`` at ``t * d_i / D``
        with ``D = sum w_i d_i`` over the clips' durations ``d_i`` (Unity's
        and Unreal's synchronized blend spaces).
        """
        func = "BlendSpace.sample"
        w = self._weights(func, parameters)
        if w.ndim != 1:
            raise ValueError(f"{func}: parameters must be one point (got weights of shape "
                             f"{w.shape})")
        tt = _query_times(func, t)
        used = [i for i in range(len(w)) if w[i] > 0.0]
        if scene is not None:
            _scene_argument(func, "scene", scene)
        for i in used if scene is None else ():
            if not callable(getattr(self.clips[i], "sample", None)):
                raise ValueError(f"{func}: clips[{i}] is a {type(self.clips[i]).__name__} "
                                 f"(without scene=, every clip needs a sample method: a Clip)")
        durations = np.array([float(getattr(self.clips[i], "duration", 1.0)) for i in used])
        times = [tt] * len(used)
        total = float((w[used] * durations).sum()) if sync else 0.0
        if total > 0:
            times = []
            for i, d in zip(used, durations):
                with np.errstate(over="ignore"):
                    ti = tt * d / total
                    if not np.isfinite(ti).all():  # t d beyond the range: the ratio first
                        ti = tt * (d / total)
                if not np.isfinite(ti).all():
                    k = int(np.flatnonzero(~np.isfinite(ti))[0])
                    raise OverflowError(f"{func}: t{index_text(tt.shape, k)} is "
                                        f"{float(tt.reshape(-1)[k])!r}: with sync=True "
                                        f"clips[{i}] plays at {d / total:.6g} times that, "
                                        f"beyond the float64 range")
                times.append(ti)
        if scene is not None:
            poses = [scene._pose(func, self.clips[i], ti) for i, ti in zip(used, times)]
            return blend_many(poses, w[used])
        samples = [self.clips[i].sample(ti) for i, ti in zip(used, times)]
        keys = list(samples[0])
        for i, s in zip(used, samples):
            if set(s) != set(keys):
                missing = sorted(set(keys) ^ set(s), key=str)[:3]
                raise ValueError(f"{func}: clips[{i}] animates other channels than "
                                 f"clips[{used[0]}] (differ in {missing})")
        heaviest = int(np.argmax(w[used]))
        out = {}
        for key in keys:
            values = [s[key] for s in samples]
            if key[1] == "rotation":
                ref = values[heaviest]
                acc = np.zeros_like(ref)
                for wi, v in zip(w[used], values):
                    sign = np.where(np.einsum("...i,...i->...", ref, v) < 0.0, -1.0, 1.0)
                    acc = acc + (wi * sign)[..., None] * v
                out[key] = acc / np.linalg.norm(acc, axis=-1, keepdims=True)
            else:
                out[key] = sum(wi * v for wi, v in zip(w[used], values))
        return out
