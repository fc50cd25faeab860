"""Inverse kinematics on batches of world-space poses: two-bone, aim and chains.

Every solver is one C kernel over NumPy-broadcast inputs (``workers`` as in
the ``quat_*`` functions). Rotations are world-space corrections
``(x, y, z, w)`` that pre-multiply a joint's world rotation.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, Optional

import numpy as np
from numpy.typing import ArrayLike

from . import _core
from ._arrays import choice, integer, positive_number, shapes
from .model import Channel, _representable, _scene_argument
from .rotations import RotationCurve, quat_conjugate, quat_multiply
from .skeleton import _decompose

__all__ = ["ik_two_bone", "ik_aim", "ik_chain", "ik_two_bone_clip", "ik_clip_times",
           "IKTwoBoneResult", "IKChainResult"]


class IKTwoBoneResult(NamedTuple):
    """What :func:`ik_two_bone` returns."""

    rotation_start: np.ndarray
    rotation_mid: np.ndarray
    reached: np.ndarray


class IKChainResult(NamedTuple):
    """What :func:`ik_chain` returns: the solved positions and whether the end
    came within ``tolerance`` of the target."""

    positions: np.ndarray
    converged: np.ndarray


def _as_bool(value):
    if isinstance(value, np.ndarray):
        return value.view(np.bool_)
    return np.bool_(value)


def _out_arrays(func: str, out, count: int) -> tuple:
    """The binding's outputs for `out`: the `count` float arrays given, the
    flag array left to the kernel (None); and the caller's flag array, if
    the tuple has one more, which receives the flags after success."""
    if out is None:
        return None, None
    if isinstance(out, np.ndarray) and count == 1:
        out = (out,)
    if not isinstance(out, tuple) or len(out) not in (count, count + 1):
        raise ValueError(f"{func}: out must be a tuple of {count} arrays (and optionally one "
                         f"for the flags)")
    flags = out[count] if len(out) > count else None
    if flags is not None and (not isinstance(flags, np.ndarray) or not flags.flags.writeable):
        raise ValueError(f"{func}: out[{count}] must be a writeable numpy array")
    for i, array in enumerate(out[:count]):  # (their shape is the flags')
        if flags is not None and not isinstance(array, np.ndarray):
            raise ValueError(f"{func}: out[{i}] must be a numpy array when out[{count}] "
                             f"receives the flags, got {type(array).__name__}")
    return out[:count] + (None,), flags


def _finish(flags, into):
    flags = _as_bool(flags)
    if into is None:
        return flags
    np.copyto(into, flags, casting="unsafe")
    return into


def ik_two_bone(start: ArrayLike, mid: ArrayLike, end: ArrayLike, target: ArrayLike,
                pole: ArrayLike, *, weight: ArrayLike = 1.0, soften: ArrayLike = 1.0,
                twist: ArrayLike = 0.0, out: Optional[tuple] = None,
                workers: Optional[int] = None) -> IKTwoBoneResult:
    """Two-bone IK (hip-knee-ankle, shoulder-elbow-wrist) on a batch of chains.

    Parameters
    ----------
    start, mid, end : array_like, shape (..., 3)
        World positions of the three joints.
    target : array_like, shape (..., 3)
        World position the end should reach.
    pole : array_like, shape (..., 3)
        A world point: the mid joint bends toward it (it ends in the half of
        the start-target-pole plane on the pole's side of the start-target line).
    weight : array_like, shape (...), in [0, 1]
        0 gives identity corrections, 1 the full ones; between, each
        correction is slerped from the identity.
    soften : array_like, shape (...), in [0, 1]
        ozz-animation's meaning: targets nearer than ``soften * (L1 + L2)``
        are reached exactly; beyond, the end stops short on the start-target
        line at ``da + ds * (1 - exp(-(D - da) / ds))`` (``da = soften * L``,
        ``ds = L - da``, ``D`` the target's distance), which never decreases
        as the target moves away. 1 turns softening off.
    twist : array_like, shape (...)
        Radians about the start-to-target axis, positive by the right-hand rule.
    out : tuple of arrays, optional
        ``(rotation_start, rotation_mid)`` arrays (..., 4), and optionally a
        third (...) that receives ``reached``; untouched on error.

    Returns
    -------
    IKTwoBoneResult
        ``rotation_start`` and ``rotation_mid`` (..., 4) and ``reached``
        (..., bool). The start's new world rotation is
        ``rotation_start * start_world``; the mid's is
        ``rotation_mid * rotation_start * mid_world``: **the mid correction
        applies after the start's**. ``reached`` is true when the corrected
        end lies within ``1e-9 * (L1 + L2)`` of the target. Bone lengths are
        preserved; an unreachable target gets the chain straight toward it.

    Notes
    -----
    The mid correction is a hinge about the current bend axis
    ``(mid - start) x (end - mid)``; the start's correction turns the end
    onto the start-target line and rolls about it to put the mid on the
    pole's side. Degenerate input has a defined, finite result: a zero-length
    bone gives identity corrections; a target at the start aims along the
    current start-end direction; a pole on the start-target line keeps the
    chain's current bend plane (a straight chain then bends in the plane of
    the first bone and the pole, else about the world axis least aligned
    with it).

    >>> rs, rm, ok = ik_two_bone([0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 1, 0], [0, 1, 1])
    >>> bool(ok)
    True
    """
    return _two_bone("ik_two_bone", start, mid, end, target, pole, weight, soften, twist, out,
                     workers)


def _two_bone(func, start, mid, end, target, pole, weight, soften, twist, out, workers):
    outs, flags = _out_arrays(func, out, 2)
    if flags is not None and flags.shape != outs[0].shape[:-1]:
        raise ValueError(f"{func}: out[2] has shape {flags.shape}, expected "
                         f"{outs[0].shape[:-1]}")
    rs, rm, reached = _core._ik_two_bone(func, start, mid, end, target, pole, weight, soften,
                                         twist, outs, workers)
    return IKTwoBoneResult(rs, rm, _finish(reached, flags))


def ik_aim(joint_world: ArrayLike, forward: ArrayLike, up: ArrayLike, target: ArrayLike,
           pole: Optional[ArrayLike] = None, *, weight: ArrayLike = 1.0,
           out: Optional[np.ndarray] = None, workers: Optional[int] = None) -> np.ndarray:
    """The world correction that points a joint's local ``forward`` at a target.

    Parameters
    ----------
    joint_world : array_like, shape (..., 4, 4)
        The joint's world matrix (column vectors, translation in ``[:3, 3]``).
    forward, up : array_like, shape (..., 3)
        Directions in the joint's own frame; ``forward`` must be non-zero.
    target : array_like, shape (..., 3)
        World point to aim at.
    pole : array_like, shape (..., 3), optional
        World point: after aiming, the joint rolls about the aim line so that
        its ``up`` points toward the pole's side. Without it the shortest-arc
        correction is returned.
    weight : array_like, in [0, 1]
        Slerps the correction from the identity.

    Returns
    -------
    ndarray, shape (..., 4)
        ``q`` such that the joint's new world rotation is ``q * rotation``.
        A target at the joint gives the identity; a pole on the aim line or
        an ``up`` parallel to ``forward`` adds no roll.
    """
    func = "ik_aim"
    if pole is None:
        return _core._ik_aim(func, False, joint_world, forward, up, target, weight, out,
                             workers)
    return _core._ik_aim_pole(func, True, joint_world, forward, up, target, weight, pole, out,
                              workers)


_METHODS = {"fabrik": 0, "ccd": 1}


def ik_chain(positions: ArrayLike, target: ArrayLike, *, tolerance: float = 1e-6,
             max_iterations: int = 32, method: str = "fabrik",
             limits: Optional[ArrayLike] = None, out: Optional[tuple] = None,
             workers: Optional[int] = None) -> IKChainResult:
    """Chain IK (FABRIK or cyclic coordinate descent) for chains of K joints.

    Parameters
    ----------
    positions : array_like, shape (..., K, 3)
        World joint positions, root first. The root stays where it is.
    target : array_like, shape (..., 3)
        Where the last joint should go.
    tolerance : float
        Absolute distance below which the end counts as on the target.
    max_iterations : int
        Bound on the solver's passes. FABRIK can need more than 32 near
        folded chains: check ``converged``.
    method : {"fabrik", "ccd"}
    limits : array_like, shape (..., K), optional
        Cone angles in radians, [0, pi]: the bend at joint i (between segment
        i - 1 and segment i) stays within ``limits[..., i]``; entries 0 and
        K - 1 are unused.
    out : array or tuple, optional
        Receives ``positions`` (..., K, 3); a tuple's optional second array
        (...) receives ``converged``. Untouched on error.

    Returns
    -------
    IKChainResult
        ``positions`` (..., K, 3), segment lengths kept (each joint placed at
        its length along a unit direction), and ``converged`` (..., bool).
        A target beyond reach (without limits) gets the chain straight toward
        it and ``converged`` False; so does one within ``tolerance`` of full
        reach, which is then converged (FABRIK would near it only as one
        over its passes).
    """
    func = "ik_chain"
    kind = _METHODS[choice(func, "method", method, tuple(_METHODS))]
    iterations = integer(func, "max_iterations", max_iterations, 0, 2**31 - 1)
    tol = positive_number(func, "tolerance", tolerance)
    shape = shapes(func, positions=positions)["positions"]  # (a ragged list: named)
    if len(shape) < 2 or shape[-1] != 3 or shape[-2] < 1:
        raise ValueError(f"{func}: positions has shape {shape} (must be (..., K, 3), K >= 1)")
    k = shape[-2]
    context = (k, kind, iterations, tol, limits is not None)
    outs, flags = _out_arrays(func, out, 1)
    if flags is not None and flags.shape != outs[0].shape[:-2]:
        raise ValueError(f"{func}: out[1] has shape {flags.shape}, expected "
                         f"{outs[0].shape[:-2]}")
    if limits is None:
        p, converged = _core._ik_chain(func, context, positions, target, outs, workers)
    else:
        p, converged = _core._ik_chain_limited(func, context, positions, target, limits,
                                               outs, workers)
    return IKChainResult(p, _finish(converged, flags))


def ik_two_bone_clip(scene, clip, start, mid, end, target: ArrayLike, *,
                     pole: Optional[ArrayLike] = None, weight: ArrayLike = 1.0,
                     soften: ArrayLike = 1.0, twist: ArrayLike = 0.0):
    """A clip with two-bone IK applied at every key time (foot locking, hand
    placement).

    Parameters
    ----------
    scene : Scene
        The rig (:class:`animcore.gltf.Scene`).
    clip : Clip, name or index
        A clip of ``scene``.
    start, mid, end : str or int
        The chain's joints (``mid`` below ``start``, ``end`` below ``mid``).
    target : array_like, shape (3,) or (F, 3)
        World targets for ``end``, one per frame of the clip (its sorted,
        unique key times: ``ik_clip_times(clip)``) or one for all.
    pole : array_like, shape (3,) or (F, 3), optional
        World pole points; by default the current bend: the mid joint pushed
        away from the start-end midpoint.
    weight, soften, twist : array_like, shape () or (F,)
        As in :func:`ik_two_bone`.

    Returns
    -------
    Clip
        The clip with the ``start`` and ``mid`` rotation channels replaced by
        keys at every frame (linear slerp between them); every other channel
        as it was.
    """

    func = "ik_two_bone_clip"
    clip = _scene_argument(func, "scene", scene).clip(clip, func=func)
    joints = []
    for which, name in (("start", start), ("mid", mid), ("end", end)):
        joints.append(scene.node_index(name, func=func, argument=which))
    j_start, j_mid, j_end = joints
    parents = [n.parent for n in scene.nodes]

    def ancestors(j):
        out = []
        while parents[j] >= 0:
            j = parents[j]
            out.append(j)
        return out

    if j_start not in ancestors(j_mid) or j_mid not in ancestors(j_end):
        raise ValueError(f"{func}: {start!r}, {mid!r}, {end!r} is not a chain (each joint "
                         f"must be below the one before)")
    times = ik_clip_times(clip)
    world = scene._world(func, clip, times)
    rotation = _decompose(func, world).rotation
    s, m, e = (world[:, j, :3, 3] for j in joints)
    if pole is None:  # the midpoint by halves: (s + e) would overflow near the double range
        with np.errstate(over="ignore", invalid="ignore"):
            pole = _representable(func, "the default pole (the mid joint pushed away from the "
                                        "start-end midpoint; give pole=)",
                                  m + (m - (s / 2 + e / 2)))
    rs, rm, _ = _two_bone(func, s, m, e, target, pole, weight, soften, twist, None, None)
    if rs.shape != (len(times), 4):
        raise ValueError(f"{func}: target, pole, weight, soften and twist must broadcast to "
                         f"one value per frame ({len(times)}), got {rs.shape[:-1]}")
    new_start = quat_multiply(rs, rotation[:, j_start])
    new_mid = quat_multiply(rm, quat_multiply(rs, rotation[:, j_mid]))
    mid_parent = parents[j_mid]
    # under the start's parent, or under what sits above the roots (an FBX file's axes)
    above = _decompose(func, scene._above(world, j_start)).rotation
    local_start = quat_multiply(quat_conjugate(above), new_start)
    # the mid's parent (the start, or a joint between) turned rigidly with rs
    mid_parent_world = new_start if mid_parent == j_start else quat_multiply(
        rs, rotation[:, mid_parent])
    local_mid = quat_multiply(quat_conjugate(mid_parent_world), new_mid)
    local_start, local_mid = np.moveaxis(scene._as_posed(
        func, (j_start, j_mid), np.stack([local_start, local_mid], axis=1)), 1, 0)
    replaced = {j_start: local_start, j_mid: local_mid}
    channels = [c for c in clip.channels
                if not (c.path == "rotation" and c.node in replaced)]
    for j, local in replaced.items():
        channels.append(Channel.from_curve(
            j, "rotation", RotationCurve(times, local, interpolation="linear"),
            node_name=scene.nodes[j].name))
    return replace(clip, channels=tuple(channels))  # (an FBX clip keeps its span)


def ik_clip_times(clip) -> np.ndarray:
    """The frames :func:`ik_two_bone_clip` and :func:`animcore.retarget` key:
    every key time of the clip's transform channels, sorted and unique
    (:meth:`animcore.Clip.key_times`)."""
    return clip.key_times()
