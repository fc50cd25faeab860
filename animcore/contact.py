"""Contact response against moving (kinematic) surfaces.

Restitution acts on the velocity *relative to the surface's contact point*,
never on the world velocity. With the body's velocity ``v``, the surface's
velocity at the contact point ``u`` and the unit normal ``n`` pointing from the
surface to the body, the relative velocity is ``w = v - u`` and the approach
speed is ``s = w . n``. A contact with ``s >= 0`` (separating or sliding) keeps
``v``; otherwise the new velocity is ``v - (1 + e) s n``: the relative normal
speed becomes ``-e s`` and the tangential relative velocity is kept (or
reduced by Coulomb friction).

Reflecting the world velocity instead is the classic bug: a ball at
``(-3, 4)`` m/s hitting a wall that moves at ``(2, 0)`` m/s with ``e = 0.5``
must leave at ``(4.5, 4)``; halving and flipping the world x-velocity gives
``(1.5, 4)``, slower than the wall, which then hits the ball again. The world
kinetic energy may rise (12.5 J to 18.125 J per kg here): the wall is driven
from outside and does work on the ball.

The surface velocity is the velocity of the surface *at the contact point*;
for a rotating body use :func:`contact_point_velocity`.
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from . import _core
from ._arrays import as_float64, check_out, kernel_operand, results

__all__ = [
    "ProjectileStep",
    "advance_projectiles",
    "bounce",
    "contact_point_velocity",
]

#: The largest ``max_bounces`` of :func:`advance_projectiles` (the core's
#: AC_CONTACT_MAX_BOUNCES): it bounds the work, and so the time, of one call.
MAX_BOUNCES = 4096


def _vectors(func: str, names: dict, dim: int | None = None) -> tuple[int, dict]:
    """float64 arrays of vectors (last axis 2 or 3, the same for all)."""
    arrays = {}
    for name, value in names.items():
        a = as_float64(func, name, value)
        if a.ndim == 0 or a.shape[-1] not in (2, 3):
            raise ValueError(f"{func}: {name} must have shape (..., 2) or (..., 3), "
                             f"got shape {a.shape}")
        if dim is None:
            dim = a.shape[-1]
        elif a.shape[-1] != dim:
            raise ValueError(f"{func}: {name} has {a.shape[-1]} components, expected {dim} "
                             f"like the other vectors")
        arrays[name] = a
    return dim, arrays


def _leading_shape(func: str, shapes: dict) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(f"{func}: cannot broadcast the leading axes of {listed} together") \
            from None


def _vector_operand(array: np.ndarray, shape: tuple[int, ...], width: int) -> np.ndarray:
    """A vector input for a kernel over `shape`: one vector stays one vector
    (the kernel repeats it), anything else becomes contiguous shape + (width,)."""
    if array.size == width:
        return np.ascontiguousarray(array.reshape(width))
    full = shape + (width,)
    if array.shape != full:
        array = np.broadcast_to(array, full)
    return np.ascontiguousarray(array)


def bounce(velocity, surface_velocity, normal, restitution, *, friction=0.0,
           threshold=0.0, out=None) -> np.ndarray:
    """Velocity after a contact with a moving surface of infinite mass.

    Parameters
    ----------
    velocity : array_like, shape (..., 2) or (..., 3)
        World velocity of the body before the contact, m/s.
    surface_velocity : array_like, shape (..., 2) or (..., 3)
        World velocity of the surface *at the contact point*, m/s (for a
        rotating surface see :func:`contact_point_velocity`).
    normal : array_like, shape (..., 2) or (..., 3)
        Unit contact normal pointing from the surface to the body:
        ``|n . n - 1| <= 1e-12``. It is not normalized for you.
    restitution : array_like
        Coefficient of restitution ``e`` in ``[0, 1]``; broadcasts over the
        leading axes.
    friction : array_like, optional
        Coulomb friction coefficient ``>= 0`` (default 0, frictionless): the
        tangential relative velocity loses at most
        ``friction * (1 + e) * |s|`` of its length and is never reversed.
    threshold : array_like, optional
        Approach speed in m/s, ``>= 0`` (default 0): restitution applies only
        when ``-s > threshold``; slower contacts are perfectly inelastic
        (``e = 0``), which keeps resting contacts from jittering.
    out : ndarray, optional
        Array of the result's shape; untouched if the call raises.

    The leading axes of the vectors and the shapes of ``restitution``,
    ``friction`` and ``threshold`` broadcast together like a NumPy ufunc.

    Returns
    -------
    ndarray, shape (broadcast leading shape) + (2 or 3,)
        ``v`` for separating contacts (``s = (v - u) . n >= 0``), else
        ``v - (1 + e') s n - f w_t``, where ``e'`` is ``e`` above the
        threshold and 0 below it, ``w_t = (v - u) - s n`` and ``f`` in [0, 1]
        the friction fraction. With ``friction = threshold = 0``:
        ``(v' - u) . n = -e s`` and the tangential part of ``v - u`` is kept.

    Raises
    ------
    ValueError
        Non-finite input, a normal that is not unit, ``restitution`` outside
        ``[0, 1]``, negative ``friction`` or ``threshold``; the message names
        the argument, its index in the broadcast shape and its value.
    OverflowError
        ``v - u``, ``s`` or the result is not representable.

    Examples
    --------
    >>> bounce([-3.0, 4.0], [2.0, 0.0], [1.0, 0.0], 0.5)
    array([4.5, 4. ])
    """
    func = "bounce"
    dim, vec = _vectors(func, {"velocity": velocity, "surface_velocity": surface_velocity,
                               "normal": normal})
    scal = {"restitution": as_float64(func, "restitution", restitution),
            "friction": as_float64(func, "friction", friction),
            "threshold": as_float64(func, "threshold", threshold)}
    shapes = {name: a.shape[:-1] for name, a in vec.items()}
    shapes.update({name: a.shape for name, a in scal.items()})
    shape = _leading_shape(func, shapes)
    if out is not None:
        out = check_out(func, out, 1, shape + (dim,))
    operands = [_vector_operand(a, shape, dim) for a in vec.values()]
    operands += [kernel_operand(a, shape) for a in scal.values()]
    result = np.empty(shape + (dim,))
    _core._bounce(func, *operands, result)
    return results((result,), out)[0]


def contact_point_velocity(linear_velocity, angular_velocity, offset, *, out=None) -> np.ndarray:
    """World velocity of a point of a rigid body: ``v + omega x r``.

    Parameters
    ----------
    linear_velocity : array_like, shape (..., 2) or (..., 3)
        Velocity of the body's reference point (usually its center of mass), m/s.
    angular_velocity : array_like, shape (...) in 2-D or (..., 3) in 3-D
        rad/s: a scalar about the axis out of the plane in 2-D (counter-clockwise
        positive), a vector in 3-D.
    offset : array_like, shape (..., 2) or (..., 3)
        The point minus the reference point, m (world axes).
    out : ndarray, optional
        Array of the result's shape; untouched if the call raises.

    Returns
    -------
    ndarray
        In 2-D ``v + omega * (-r_y, r_x)``, in 3-D ``v + omega x r``: the
        ``surface_velocity`` to pass to :func:`bounce` for a rotating surface.

    Raises
    ------
    ValueError
        Non-finite input (named, with its index).
    OverflowError
        A result that is not representable.

    Examples
    --------
    >>> contact_point_velocity([0.0, 0.0], 2.0, [1.0, 0.0])
    array([0., 2.])
    """
    func = "contact_point_velocity"
    dim, vec = _vectors(func, {"linear_velocity": linear_velocity, "offset": offset})
    angular = as_float64(func, "angular_velocity", angular_velocity)
    if dim == 3:
        if angular.ndim == 0 or angular.shape[-1] != 3:
            raise ValueError(f"{func}: angular_velocity must have shape (..., 3) in 3-D, "
                             f"got shape {angular.shape}")
        lead = angular.shape[:-1]
    else:
        lead = angular.shape
    shape = _leading_shape(func, {"linear_velocity": vec["linear_velocity"].shape[:-1],
                                  "angular_velocity": lead,
                                  "offset": vec["offset"].shape[:-1]})
    if out is not None:
        out = check_out(func, out, 1, shape + (dim,))
    w = _vector_operand(angular, shape, 3) if dim == 3 else kernel_operand(angular, shape)
    result = np.empty(shape + (dim,))
    _core._point_velocity(func, _vector_operand(vec["linear_velocity"], shape, dim), w,
                          _vector_operand(vec["offset"], shape, dim), result)
    return results((result,), out)[0]


class ProjectileStep(NamedTuple):
    """Spheres at the end of a step: ``position`` (m), ``velocity`` (m/s) and
    ``bounces``, the number of contacts resolved during the step."""

    position: np.ndarray
    velocity: np.ndarray
    bounces: np.ndarray


def _pair_operand(func: str, name: str, array: np.ndarray, spheres: tuple[int, ...],
                  planes: int) -> np.ndarray:
    """A (sphere, plane) parameter as a (1 or N, 1 or M) array: what does not
    vary along the spheres or the planes is not repeated."""
    full = spheres + (planes,)
    try:
        if np.broadcast_shapes(array.shape, full) != full:
            raise ValueError
    except ValueError:
        raise ValueError(f"{func}: {name} of shape {array.shape} does not broadcast to "
                         f"(spheres..., planes) {full}") from None
    if array.size == 1:
        return np.ascontiguousarray(array.reshape(1, 1))
    padded = array.reshape((1,) * (len(full) - array.ndim) + array.shape)
    per_sphere = any(extent != 1 for extent in padded.shape[:-1])
    cols = planes if padded.shape[-1] != 1 else 1
    rows = int(np.prod(spheres, dtype=np.int64)) if per_sphere else 1
    compact = np.broadcast_to(padded, (spheres if per_sphere else (1,) * len(spheres)) + (cols,))
    return np.ascontiguousarray(compact).reshape(rows, cols)


def advance_projectiles(position, velocity, radius, dt, plane_point, plane_normal,
                        plane_velocity, restitution, *, friction=0.0,
                        max_bounces: int = 8) -> ProjectileStep:
    """Move spheres through one step against moving planes, bouncing on the way.

    Continuous collision: for each sphere the earliest time of impact in
    ``[0, dt]`` with any plane it approaches (its signed distance reaching
    its radius) is found, the sphere moves there, its velocity is resolved
    with :func:`bounce` using that plane's velocity, restitution and
    friction, and the rest of the step is used the same way, up to
    ``max_bounces`` contacts. However fast a sphere is, it does not tunnel:
    it ends the step in front of every plane it started in front of, unless
    planes close in on it after its bounces ran out (see Notes).

    Parameters
    ----------
    position, velocity : array_like, shape (..., 2) or (..., 3)
        Sphere centers (m) and velocities (m/s) at the start of the step;
        their leading axes (the spheres) broadcast with ``radius`` and ``dt``.
    radius : array_like
        Sphere radii, m, ``>= 0`` (0 for points).
    dt : array_like
        Step length, s, ``>= 0``, one for all spheres or one per sphere.
    plane_point, plane_normal, plane_velocity : array_like, shape (M, dim) or (dim,)
        M planes: a point on each at the start of the step (m), its unit normal
        (the side the spheres live on) and its constant velocity during the
        step (m/s). The planes translate; they do not rotate.
    restitution : array_like
        ``e`` in ``[0, 1]``; broadcasts to (spheres..., M): one value, one
        per plane ``(M,)``, one per sphere ``(..., 1)`` or one per pair.
    friction : array_like, optional
        Coulomb coefficient ``>= 0``, broadcast like ``restitution``.
    max_bounces : int, optional
        Contacts resolved per sphere and step, in ``[0, MAX_BOUNCES]``
        (default 8; ``animcore.contact.MAX_BOUNCES`` is 4096). A call does at most spheres x
        planes x (max_bounces + 1) contact tests, and releases the GIL when
        that is more than a few hundred.

    Returns
    -------
    ProjectileStep
        New ``position`` and ``velocity`` (fresh arrays of the spheres' shape)
        and ``bounces`` (intc, one per sphere).

    Notes
    -----
    - Planes are one-sided: a plane acts on a sphere only if the sphere's
      center starts the step on the normal side (signed distance ``>= 0``).
    - A sphere that starts touching or penetrating a plane it approaches
      bounces at once, at time 0 (even with ``dt = 0``); its position is not
      pushed out: that is the caller's penetration correction.
    - When a contact comes after ``max_bounces`` contacts were resolved in
      the step (a sphere wedged between planes that close in), the sphere
      moves to that contact and stays there, carried by that plane, for the
      rest of the step; its velocity is returned unresolved, so the next step
      bounces it at time 0. It is never moved through the plane.
    - Relative normal speeds at the rounding level of ``|v| + |u|`` count as
      sliding, not approaching, so a sphere sliding along a plane (or just
      bounced off it with ``e = 0``) does not collide with it again.
    - Two planes closing on a sphere faster than it can bounce between them
      have no non-penetrating solution: each contact is still resolved in
      time order until the bounces run out.

    Raises
    ------
    ValueError
        Non-finite input, a plane normal that is not unit, ``radius < 0``,
        ``dt < 0``, ``restitution`` outside ``[0, 1]``, ``friction < 0``,
        ``max_bounces`` outside ``[0, MAX_BOUNCES]``; the index is the sphere's, the plane's, or the
        (sphere, plane) pair's.
    OverflowError
        A position, distance or velocity that is not representable.
    """
    func = "advance_projectiles"
    dim, vec = _vectors(func, {"position": position, "velocity": velocity})
    _, planes = _vectors(func, {"plane_point": plane_point, "plane_normal": plane_normal,
                                "plane_velocity": plane_velocity}, dim)
    radius = as_float64(func, "radius", radius)
    dt = as_float64(func, "dt", dt)
    spheres = _leading_shape(func, {"position": vec["position"].shape[:-1],
                                    "velocity": vec["velocity"].shape[:-1],
                                    "radius": radius.shape, "dt": dt.shape})
    plane_lead = _leading_shape(func, {name: a.shape[:-1] for name, a in planes.items()})
    if len(plane_lead) > 1:
        raise ValueError(f"{func}: planes must have shape (M, {dim}) or ({dim},), "
                         f"got leading shape {plane_lead}")
    m = plane_lead[0] if plane_lead else 1
    try:
        bounces_max = operator.index(max_bounces)
    except TypeError:
        raise ValueError(f"{func}: max_bounces must be an integer, got {max_bounces!r}") \
            from None
    if bounces_max > MAX_BOUNCES:  # bounds the work of one call (< 0: the core says so)
        raise ValueError(f"{func}: max_bounces is {bounces_max} (must lie in "
                         f"[0, {MAX_BOUNCES}])")
    pos = np.array(np.broadcast_to(vec["position"], spheres + (dim,)), dtype=np.float64,
                   order="C")
    vel = np.array(np.broadcast_to(vec["velocity"], spheres + (dim,)), dtype=np.float64,
                   order="C")
    plane_arrays = [np.ascontiguousarray(np.broadcast_to(a, (m, dim))) for a in planes.values()]
    pairs = [_pair_operand(func, name, as_float64(func, name, value), spheres, m)
             for name, value in (("restitution", restitution), ("friction", friction))]
    bounces = np.zeros(spheres, dtype=np.intc)
    _core._advance(func, pos, vel, kernel_operand(radius, spheres), kernel_operand(dt, spheres),
                   *plane_arrays, *pairs, bounces_max, bounces)
    return ProjectileStep(pos, vel, bounces)
