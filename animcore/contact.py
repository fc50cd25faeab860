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

When both sides have finite mass, :func:`collide` takes the two bodies'
masses, inertia and contact arms and returns both bodies' new velocities and
the impulse. Two caveats come with the laws themselves:

- A driven kinematic body (inverse mass 0: a platform, a paddle moved by
  animation) keeps its velocity whatever hits it, so it can add energy to
  what it hits, as in the wall example above.
- Between two dynamic bodies the kinetic energy never rises in frictionless
  contacts or in contacts whose arms are along the normal (discs, spheres).
  Off-centre with friction, the restitution law on the normal speed after
  friction (Newton's, as Bullet's solver applies it) can return more energy
  than came in. The gain grows with the restitution: a perfectly inelastic
  contact (``restitution = 0``) that sticks never gains, and contacts
  without friction never do.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _core
from ._arrays import as_float64, broadcast_named, flag, integer
from ._arrays import shapes as _shapes

__all__ = [
    "Body",
    "Collision",
    "ProjectileEvents",
    "ProjectileStep",
    "advance_projectiles",
    "bounce",
    "collide",
    "contact_point_velocity",
]

#: The largest ``max_bounces`` of :func:`advance_projectiles` (the core's
#: AC_CONTACT_MAX_BOUNCES): it bounds the work, and so the time, of one call.
MAX_BOUNCES = 4096


def _vector_dim(func: str, shapes: dict, vectors, dim: int | None = None,
                first: str | None = None) -> tuple:
    """The vector length (2 or 3) the named vector inputs share (`dim` when
    given: that of the vector named `first`), and the broadcast of the
    leading axes of the vectors with the other inputs' shapes."""
    for name in vectors:
        shape = shapes[name]
        if not shape or shape[-1] not in (2, 3):
            raise ValueError(f"{func}: {name} must have shape (..., 2) or (..., 3), "
                             f"got shape {shape}")
        if dim is None:
            dim, first = shape[-1], name
        elif shape[-1] != dim:
            # (which of the two is wrong, only the caller knows: both are named)
            raise ValueError(f"{func}: {name} has {shape[-1]} components, and {first} has "
                             f"{dim} (the vectors must all be 2-D or all 3-D)")
    leading = _leading_shape(func, {name: shape[:-1] if name in vectors else shape
                                    for name, shape in shapes.items()})
    return dim, leading


def _leading_shape(func: str, shapes: dict) -> tuple[int, ...]:
    return broadcast_named(func, shapes, "the leading axes of ")


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
    shapes = _shapes(func, velocity=velocity, surface_velocity=surface_velocity, normal=normal,
                     restitution=restitution, friction=friction, threshold=threshold)
    dim, _ = _vector_dim(func, shapes, ("velocity", "surface_velocity", "normal"))
    kernel = _core._bounce3 if dim == 3 else _core._bounce2
    return kernel(func, velocity, surface_velocity, normal, restitution, friction, threshold,
                  out, None)


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
    shapes = _shapes(func, linear_velocity=linear_velocity, angular_velocity=angular_velocity,
                     offset=offset)
    angular = shapes.pop("angular_velocity")
    dim, _ = _vector_dim(func, shapes, ("linear_velocity", "offset"))
    if dim == 3:
        if angular[-1:] != (3,):
            raise ValueError(f"{func}: angular_velocity must have shape (..., 3) in 3-D, "
                             f"got shape {angular}")
        angular = angular[:-1]
    _leading_shape(func, {"linear_velocity": shapes["linear_velocity"][:-1],
                          "angular_velocity": angular, "offset": shapes["offset"][:-1]})
    kernel = _core._point_velocity3 if dim == 3 else _core._point_velocity2
    return kernel(func, linear_velocity, angular_velocity, offset, out, None)


class Body(NamedTuple):
    """A rigid body at a contact, for :func:`collide`.

    Every field broadcasts over the contacts like a NumPy ufunc argument.

    velocity : array_like, shape (..., 2) or (..., 3)
        Linear velocity of the center, m/s.
    inverse_mass : array_like, optional
        1 / mass, 1/kg, ``>= 0``; 0 (the default) for a kinematic or static
        body, which no contact moves.
    inverse_inertia : array_like, optional
        Inverse moment of inertia about the center, ``>= 0``: one value for a
        disc (``2 / (m r**2)``) or a sphere (``5 / (2 m r**2)``), or in 3-D a
        world-space inverse inertia tensor of shape (..., 3, 3), symmetric
        positive semi-definite (a trailing (3, 3) is always read as a tensor).
        0 (the default) for a body that does not turn.
    angular_velocity : array_like, optional
        rad/s: shape (...) in 2-D (counter-clockwise), (..., 3) in 3-D.
        None (the default) for no spin.
    center : array_like, shape (..., 2) or (..., 3), optional
        Center of mass, m; the arm of a contact is ``point - center``. None
        (the default) puts it at the contact point (a zero arm).
    """

    velocity: object
    inverse_mass: object = 0.0
    inverse_inertia: object = 0.0
    angular_velocity: object = None
    center: object = None


class Collision(NamedTuple):
    """Both bodies after a contact, and the impulse on ``a`` (``b`` receives
    its opposite): ``normal_impulse`` (N s, along the normal, ``>= 0``) and
    ``tangent_impulse`` (N s, the friction part, perpendicular to it)."""

    velocity_a: np.ndarray
    angular_velocity_a: np.ndarray
    velocity_b: np.ndarray
    angular_velocity_b: np.ndarray
    normal_impulse: np.ndarray
    tangent_impulse: np.ndarray


def _body(func: str, name: str, body) -> Body:
    if isinstance(body, Body):
        return body
    try:
        if isinstance(body, dict):
            return Body(**body)
        if isinstance(body, tuple):
            return Body(*body)
    except TypeError as error:  # a field missing or unknown: Body's own words
        raise ValueError(f"{func}: {name}: {error}") from None
    raise ValueError(f"{func}: {name} must be a Body (or a tuple or dict of its fields), "
                     f"got {type(body).__name__}")


def collide(a, b, normal, point, restitution, *, friction=0.0, threshold=0.0,
            out=None) -> Collision:
    """Contact between two rigid bodies that may both move.

    The impulse comes from both bodies' masses, moments of inertia and
    contact arms, and updates both together. With ``w`` the velocity of
    ``a``'s material point at the contact minus ``b``'s (spin included:
    ``v + omega x (point - center)``) and ``s = w . n``, a contact with
    ``s >= 0`` is left alone. Otherwise the impulse ``j`` on ``a``
    (``-j`` on ``b``) is the one that makes the relative normal speed at the
    contact point ``-e' s`` (``e' = e`` when ``-s > threshold``, else 0) and
    stops the slip, when Coulomb's bound ``|j_t| <= friction * j_n`` allows
    it (the bodies stick). Otherwise the contact slips: the friction impulse
    is ``friction * j_n``, opposing the slip that remains after the impulse
    (never reversing it), and ``j_n`` still gives the restitution law.

    Parameters
    ----------
    a, b : Body
        The two bodies (see :class:`Body`); a kinematic body has
        ``inverse_mass = inverse_inertia = 0``. Tuples and dicts of the
        fields are accepted.
    normal : array_like, shape (..., 2) or (..., 3)
        Unit contact normal pointing from ``b`` to ``a``
        (``|n . n - 1| <= 1e-12``).
    point : array_like, shape (..., 2) or (..., 3)
        The contact point, m (world axes).
    restitution : array_like
        ``e`` in ``[0, 1]``, on the relative normal velocity at the point.
    friction : array_like, optional
        Coulomb coefficient ``>= 0`` (default 0): the friction impulse is at
        most ``friction`` times the normal impulse.
    threshold : array_like, optional
        Approach speed (m/s) ``>= 0`` at or below which the contact is
        perfectly inelastic (default 0).
    out : tuple of 6 ndarrays, optional
        Arrays of the results' shapes; untouched if the call raises.

    Returns
    -------
    Collision
        ``velocity_a``, ``angular_velocity_a``, ``velocity_b``,
        ``angular_velocity_b`` after the contact, ``normal_impulse``
        (``j . n``, shape (...)) and ``tangent_impulse`` (``j - (j . n) n``,
        shape (..., dim)). All fields broadcast to the shape of the inputs'
        leading axes.

    Notes
    -----
    - A point mass (``inverse_inertia = 0``) against a kinematic ``b`` gets
      exactly :func:`bounce` for ``b``'s contact-point velocity, bit for bit.
    - Energy: between two dynamic bodies the kinetic energy never rises in a
      frictionless contact, nor in one whose arms are along the normal (two
      discs or spheres). An off-centre contact with friction can gain energy
      under this restitution law, which acts on the normal speed after the
      friction impulse (Newton's law, as Bullet's solver uses it); the gain
      grows with the restitution and is zero for ``restitution = 0`` when
      the bodies stick.
    - A kinematic ``b`` is driven from outside: it keeps its velocity, and
      the world kinetic energy of ``a`` may rise (see :func:`bounce`).
    - A slipping contact's friction impulse is exactly opposite the slip
      that remains after the impulse, in 2-D and 3-D, whatever the arms and
      the inertia tensors (for an anisotropic body hit off-centre the
      direction is found by a bisection).
    - When neither body can translate (both inverse masses 0) the contact is
      frictionless.
    - Inverse masses and inertias may span the whole double range: a body that
      turns far more easily than it translates (an inverse inertia 1e17 or
      1e308 times its inverse mass) hit off its arm makes the effective mass
      too ill-conditioned to form in world axes, and such a contact is solved
      in the frame of that body's arm, term by term, with exponents of their
      own; its results are those of exact arithmetic to a few ulps (a result
      beyond the double range is still an OverflowError). Ordinary contacts
      never take that route and keep their results bit for bit.

    Raises
    ------
    ValueError
        Non-finite input, a normal that is not unit, ``restitution`` outside
        ``[0, 1]``, negative ``friction``, ``threshold``, inverse mass or
        inverse inertia, an inverse inertia tensor that is not symmetric
        positive semi-definite; the message names the argument (``a.center``,
        ``b.inverse_mass``...) and the contact's index.
    OverflowError
        A result that is not representable.

    Examples
    --------
    Equal discs, head-on, perfectly elastic: the velocities are exchanged.

    >>> r = collide(Body([-1.0, 0.0], 1.0, center=[0.5, 0.0]),
    ...             Body([1.0, 0.0], 1.0, center=[-0.5, 0.0]), [1.0, 0.0], [0.0, 0.0], 1.0)
    >>> r.velocity_a, r.velocity_b, float(r.normal_impulse)
    (array([1., 0.]), array([-1.,  0.]), 2.0)
    """
    func = "collide"
    a, b = _body(func, "a", a), _body(func, "b", b)
    point = as_float64(func, "point", point)
    named = {"a.velocity": a.velocity, "b.velocity": b.velocity, "normal": normal,
             "point": point}
    named.update({f"{name}.center": body.center for name, body in (("a", a), ("b", b))
                  if body.center is not None})
    shapes = _shapes(func, **named)
    dim, _ = _vector_dim(func, shapes, named)
    shapes = {name: s[:-1] for name, s in shapes.items()}
    operands, tensors = [], []
    for name, body in (("a", a), ("b", b)):
        if body.angular_velocity is None:
            spin = np.zeros(() if dim == 2 else (3,))
        else:
            spin = as_float64(func, f"{name}.angular_velocity", body.angular_velocity)
        if dim == 3:
            if spin.ndim == 0 or spin.shape[-1] != 3:
                raise ValueError(f"{func}: {name}.angular_velocity must have shape (..., 3) "
                                 f"in 3-D, got shape {spin.shape}")
            shapes[f"{name}.angular_velocity"] = spin.shape[:-1]
        else:
            shapes[f"{name}.angular_velocity"] = spin.shape
        mass = as_float64(func, f"{name}.inverse_mass", body.inverse_mass)
        inertia = as_float64(func, f"{name}.inverse_inertia", body.inverse_inertia)
        tensor = dim == 3 and inertia.ndim >= 2 and inertia.shape[-2:] == (3, 3)
        shapes[f"{name}.inverse_mass"] = mass.shape
        shapes[f"{name}.inverse_inertia"] = inertia.shape[:-2] if tensor else inertia.shape
        center = point if body.center is None else body.center
        operands += [body.velocity, spin, mass, inertia, center]
        tensors.append(tensor)
    scalars = {"restitution": restitution, "friction": friction, "threshold": threshold}
    shapes.update(_shapes(func, **scalars))
    _leading_shape(func, shapes)  # named broadcast errors before the kernel's
    kernel = _COLLIDE[tuple(tensors)]
    return Collision(*kernel(func, (dim, *tensors), *operands, normal, point,
                             *scalars.values(), out, None))


_COLLIDE = {(False, False): _core._collide, (True, False): _core._collide_tensor_a,
            (False, True): _core._collide_tensor_b, (True, True): _core._collide_tensors}


class _Step(NamedTuple):
    position: np.ndarray
    velocity: np.ndarray
    bounces: np.ndarray


class ProjectileStep(_Step):
    """Spheres at the end of a step: ``position`` (m), ``velocity`` (m/s) and
    ``bounces``, the number of contacts resolved during the step (it unpacks
    as these three). With spin, ``angular_velocity`` holds the spheres' new
    angular velocities (else None); with ``events=True``, ``events`` holds
    their contacts (a :class:`ProjectileEvents`, else None)."""

    angular_velocity = None
    events = None


class ProjectileEvents(NamedTuple):
    """Each sphere's contacts during a step, in time order: slot ``k`` of a
    sphere (its last axis before any vector axis) is its ``k``-th resolved
    contact, for ``k < bounces``; later slots hold ``plane = -1`` and zeros.

    ``plane`` (intc) is the plane's index, ``time`` the time into the step
    (s), ``normal_impulse`` and ``tangent_impulse`` (one more axis of the
    vector's size) the impulse the plane gave, per unit mass of the sphere
    (m/s: multiply by the mass for N s)."""

    plane: np.ndarray
    time: np.ndarray
    normal_impulse: np.ndarray
    tangent_impulse: np.ndarray


def _check_broadcasts(func: str, name: str, shape: tuple[int, ...], target: tuple[int, ...],
                      what: str = "") -> None:
    """A ValueError naming func and name unless shape broadcasts to target unchanged."""
    try:
        if np.broadcast_shapes(shape, target) == target:
            return
    except ValueError:
        pass
    raise ValueError(f"{func}: {name} of shape {shape} does not broadcast to {what}{target}")


def advance_projectiles(position, velocity, radius, dt, plane_point, plane_normal,
                        plane_velocity, restitution, *, friction=0.0,
                        max_bounces: int = 8, angular_velocity=None, inverse_inertia=None,
                        events: bool = False, out=None,
                        workers: int | None = None) -> ProjectileStep:
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
    angular_velocity : array_like, optional
        The spheres' spin, rad/s: shape (...) in 2-D, (..., 3) in 3-D. Given
        (or with ``inverse_inertia``), each contact is resolved with
        :func:`collide`'s law for a sphere hit at ``-radius * normal``
        against the plane as a kinematic body, so friction sets the sphere
        spinning (a ball lands and rolls) and spin drives it along the plane.
    inverse_inertia : array_like, optional
        ``m / I`` per sphere, 1/m^2, ``>= 0``: the moment of inertia in units
        of the mass. Default with spin: a solid sphere, ``2.5 / radius**2``
        in 3-D, a disc, ``2 / radius**2``, in 2-D (0 for radius 0).
    events : bool, optional
        Also return each sphere's contacts (planes, times, impulses) in
        ``.events``.
    out : tuple of three arrays, optional
        ``(position, velocity, bounces)`` arrays of the result's shapes that
        receive the step (floats of any float dtype, bounces of any integer
        dtype, any strides); untouched if the call raises. ``position`` and
        ``velocity`` may be the input arrays themselves, to step in place
        (without a copy).
    workers : int, optional
        Threads sharing the spheres: None or 1 (this thread), -1 (every
        core) or n; the results are the same whatever the count.

    Returns
    -------
    ProjectileStep
        New ``position`` and ``velocity`` (fresh arrays of the spheres' shape)
        and ``bounces`` (intc, one per sphere); with spin also
        ``angular_velocity``, with ``events=True`` also ``events``, a
        :class:`ProjectileEvents` with ``max_bounces`` slots per sphere;
        the arrays of ``out`` in place of the first three when given.

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
        ``max_bounces`` outside ``[0, MAX_BOUNCES]``, a non-finite
        ``angular_velocity``, an ``inverse_inertia`` that is not finite and
        ``>= 0``; the index is the sphere's, the plane's, or the (sphere,
        plane) pair's.
    OverflowError
        A position, distance, velocity or angular velocity that is not
        representable.

    Examples
    --------
    A ball dropped sliding onto a rough floor leaves it rolling:

    >>> step = advance_projectiles([0.0, 1.0, 0.0], [3.0, -2.0, 0.0], 0.5, 1.0, [0.0, 0.0, 0.0],
    ...                            [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], 0.0, friction=1.0,
    ...                            angular_velocity=[0.0, 0.0, 0.0], events=True)
    >>> step.velocity.round(4), step.angular_velocity.round(4), float(step.events.time[0])
    (array([2.1429, 0.    , 0.    ]), array([ 0.    ,  0.    , -4.2857]), 0.25)
    """
    func = "advance_projectiles"
    found = _shapes(func, position=position, velocity=velocity, radius=radius, dt=dt)
    dim, spheres = _vector_dim(func, found, ("position", "velocity"))
    planes = _shapes(func, plane_point=plane_point, plane_normal=plane_normal,
                     plane_velocity=plane_velocity)
    _, plane_lead = _vector_dim(func, planes, tuple(planes), dim, "position")
    if len(plane_lead) > 1:
        raise ValueError(f"{func}: planes must have shape (M, {dim}) or ({dim},), "
                         f"got leading shape {plane_lead}")
    m = plane_lead[0] if plane_lead else 1
    bounces_max = integer(func, "max_bounces", max_bounces, 0)
    if bounces_max > MAX_BOUNCES:  # bounds the work of one call
        raise ValueError(f"{func}: max_bounces is {bounces_max} (must lie in "
                         f"[0, {MAX_BOUNCES}])")
    # (sphere, plane) parameters and spin may not add sphere axes
    for name, shape in _shapes(func, restitution=restitution, friction=friction).items():
        _check_broadcasts(func, name, shape, spheres + (m,), "(spheres..., planes) ")
    if out is not None and (not isinstance(out, tuple) or len(out) != 3):
        raise ValueError(f"{func}: out must be a tuple of 3 arrays (position, velocity, "
                         f"bounces)")
    arrays = [position, velocity, radius, dt, plane_point, plane_normal, plane_velocity,
              restitution, friction]
    spinning = angular_velocity is not None or inverse_inertia is not None
    if spinning:
        if angular_velocity is None:
            angular_velocity = 0.0 if dim == 2 else np.zeros(3)
        _check_broadcasts(func, "angular_velocity",
                          _shapes(func, angular_velocity=angular_velocity)["angular_velocity"],
                          spheres if dim == 2 else spheres + (3,))
        if inverse_inertia is None:
            r = np.broadcast_to(as_float64(func, "radius", radius), spheres)
            usable = np.isfinite(r) & (r > 0)   # others are reported as radius errors
            with np.errstate(all="ignore"):
                inverse_inertia = np.where(usable, (2.5 if dim == 3 else 2.0) / np.square(r),
                                           0.0)
            tiny = ~np.isfinite(inverse_inertia)
            if tiny.any():
                first = np.flatnonzero(tiny)[0]
                index = tuple(int(k) for k in np.unravel_index(first, spheres))
                raise OverflowError(f"{func}: inverse_inertia at index {index} is inf (the "
                                    f"default {2.5 if dim == 3 else 2.0} / radius**2 of "
                                    f"radius {float(r[index])!r} is not representable; pass "
                                    f"inverse_inertia)")
        else:
            _check_broadcasts(func, "inverse_inertia",
                              _shapes(func, inverse_inertia=inverse_inertia)["inverse_inertia"],
                              spheres)
        arrays += [angular_velocity, inverse_inertia]
    # out: the first three results; the binding gives the others fresh arrays
    events = flag(func, "events", events)
    fill = spinning + (4 if events else 0)
    computed = _ADVANCE[spinning, bool(events)](
        func, (dim, m, bounces_max), *arrays, None if out is None else out + (None,) * fill,
        workers)
    step = ProjectileStep(*computed[:3])
    step.angular_velocity = computed[3] if spinning else None
    step.events = ProjectileEvents(*computed[3 + spinning:]) if events else None
    return step


_ADVANCE = {(False, False): _core._advance, (True, False): _core._advance_spin,
            (False, True): _core._advance_events, (True, True): _core._advance_spin_events}
