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

from typing import Optional, Sequence, Union

import numpy as np

from . import _core
from ._options import option
from .rotations import quat_multiply, quaternion_input
from .skeleton import Transforms

__all__ = ["ADDITIVE_CONVENTIONS", "apply_additive", "blend_many", "blend_poses",
           "make_additive"]

ADDITIVE_CONVENTIONS = ("local", "threejs", "blender_combine")
_ALIASES = {"three": "threejs", "three.js": "threejs", "ozz": "local", "unreal": "local",
            "combine": "blender_combine", "blender": "blender_combine"}
_SCALE_MODE = {"local": 0, "threejs": 1, "blender_combine": 0}


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
        a = np.asarray(value, dtype=np.float64)
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
    m = np.asarray(mask, dtype=np.float64)
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
        frames = pose.translation.shape[0] if pose.translation.ndim > 2 else 0
        if not -frames <= k < frames:
            raise ValueError(f"{func}: reference is frame {k} (pose has {frames} frames "
                             f"on its first axis)")
        reference = Transforms(*(a[k] for a in pose))
    reference = _pose(func, "reference", reference)
    _joints(func, [("pose", pose), ("reference", reference)])
    return Transforms(*_core._blend_make_additive(func, _SCALE_MODE[conv], *pose, *reference,
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
    result = _core._blend_apply_additive(func, _SCALE_MODE[conv], *base, *delta, weight, m,
                                         None if conv == "blender_combine" else _out(out),
                                         workers)
    if conv != "blender_combine":
        return Transforms(*result)
    # the rotation again with Blender's quaternion power (checked by the call above)
    w = np.broadcast_to(np.asarray(weight, dtype=np.float64) * m, result[1].shape[:-1])
    power = quat_power(delta.rotation, w)
    rotation = np.where((w == 0.0)[..., None], np.broadcast_to(base.rotation, power.shape),
                        quat_multiply(base.rotation, power))
    if out is None:
        return Transforms(result[0], rotation, result[2])
    for target, value in zip(out, (result[0], rotation, result[2])):
        target[...] = value
    return out


def quat_power(q, w) -> np.ndarray:
    """``q ** w`` for unit quaternions: the rotation about q's axis by ``w``
    times its angle ``2 acos(q_w)`` (in [0, 2 pi]; no hemisphere flip, as
    Blender's ``pow_qt_fl_normalized``)."""
    q = np.asarray(q, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    v = q[..., :3]
    sin_half = np.linalg.norm(v, axis=-1)
    half = np.arctan2(sin_half, q[..., 3])
    axis = np.divide(v, sin_half[..., None], out=np.zeros(np.broadcast_shapes(v.shape, w.shape
                                                                              + (3,))),
                     where=sin_half[..., None] > 0.0)
    angle = half * w
    return np.concatenate([axis * np.sin(angle)[..., None], np.cos(angle)[..., None]], axis=-1)


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
        non-positive or non-finite threshold, mismatched joints, or, without
        a rest pose, a joint whose accumulated weight is 0.
    """
    func = "blend_many"
    poses = [_pose(func, f"poses[{i}]", p) for i, p in enumerate(poses)]
    if not poses:
        raise ValueError(f"{func}: poses is empty (must hold at least one pose)")
    named = [(f"poses[{i}]", p) for i, p in enumerate(poses)]
    if rest is not None:
        named.append(("rest", _pose(func, "rest", rest)))
    _joints(func, named)
    if not (np.isfinite(threshold) and threshold > 0):
        raise ValueError(f"{func}: threshold is {threshold!r} (must be positive and finite)")
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 0 or w.shape[0] != len(poses):
        raise ValueError(f"{func}: weights has shape {w.shape} (must start with the pose "
                         f"count {len(poses)})")
    bad = np.argwhere(~np.isfinite(w))
    if bad.size:
        index = tuple(int(i) for i in bad[0])
        raise ValueError(f"{func}: weights at index {index} is {w[index]} (must be finite)")
    if w.ndim == 1:
        w = w[:, None]  # one weight per pose, for every joint
    shape = np.broadcast_shapes(*(a.shape[:-1] for p in poses for a in p), w.shape[1:])
    acc_t = np.zeros(shape + (3,))
    acc_s = np.zeros(shape + (3,))
    acc_q = np.zeros(shape + (4,))
    total = np.zeros(shape)
    for wi, p in zip(w, poses):
        wi = np.where(wi > 0.0, wi, 0.0)
        q = np.broadcast_to(p.rotation, shape + (4,))
        sign = np.where(np.einsum("...i,...i->...", acc_q, q) < 0.0, -1.0, 1.0)
        acc_q = acc_q + (wi * sign)[..., None] * q
        acc_t = acc_t + wi[..., None] * p.translation
        acc_s = acc_s + wi[..., None] * p.scale
        total = total + wi
    if rest is not None:
        rest = named[-1][1]
        fill = np.where(total < threshold, threshold - total, 0.0)
        none = total == 0.0  # ozz copies the rest pose where no layer contributed
        q = np.broadcast_to(rest.rotation, shape + (4,))
        sign = np.where(np.einsum("...i,...i->...", acc_q, q) < 0.0, -1.0, 1.0)
        acc_q = acc_q + (fill * sign)[..., None] * q
        acc_t = acc_t + fill[..., None] * rest.translation
        acc_s = acc_s + fill[..., None] * rest.scale
        total = np.where(none | (fill > 0.0), threshold, total)
    zero = np.argwhere(total == 0.0)
    if zero.size:
        index = tuple(int(i) for i in zero[0])
        raise ValueError(f"{func}: weights at index {index} sum to 0 with no rest pose "
                         f"(give rest= or a positive weight)")
    norm = np.linalg.norm(acc_q, axis=-1, keepdims=True)
    return Transforms(acc_t / total[..., None], acc_q / norm, acc_s / total[..., None])
