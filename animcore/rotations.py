"""Quaternions and rotation tracks.

Quaternions are ``(x, y, z, w)`` on the last axis (glTF's and scipy's order);
every function broadcasts the leading axes like a NumPy ufunc. ``q`` and
``-q`` are the same rotation: interpolation takes the shortest arc.

One rule for quaternion input across animcore: wherever a quaternion stands
for a rotation (normalize, rotate, slerp, nlerp, RotationCurve keys, LoopTrack
rotations, snapshot rotations) it is normalized first, whatever its length,
so a key typed as ``(0, 0.7071, 0, 0.7071)`` is the quarter turn it means; a
zero quaternion is a ValueError naming its index. (Only a cubic
RotationCurve splines its keys as given and normalizes the result, as glTF
specifies.) Wherever quaternions are taken, a ``scipy.spatial.transform.Rotation``
is accepted too, through its ``as_quat()`` (scalar-last, the same order).

:class:`RotationCurve` is a rotation track with glTF 2.0 semantics (Appendix
C), on the key track core that :class:`~animcore.Curve` uses (one
vocabulary of interpolation, extrapolation and sides): "linear" is shortest-arc slerp between neighbouring keys, "cubic" is a
per-component Hermite spline whose per-second tangents are multiplied by the
key interval and whose result is normalized, and "step" holds the key at or
before t.
"""
from __future__ import annotations

from typing import Iterator, NamedTuple, Optional

import numpy as np
from numpy.typing import ArrayLike

from . import _core
from ._arrays import as_float64, check_out, contiguous, flag, frozen_copy, results
from ._objects import ByValue
from ._options import (EXTRAPOLATIONS, INTERPOLATION_ALIASES, INTERPOLATION_HINTS,
                       INTERPOLATIONS, check_fields, check_sorted, derivative_order,
                       extrapolation_option, interpolation_option, option, side_option)

__all__ = [
    "RotationCurve",
    "RotationKey",
    "RotationSample",
    "quat_conjugate",
    "quat_from_axis_angle",
    "quat_from_euler",
    "quat_from_matrix",
    "quat_from_rotvec",
    "quat_multiply",
    "quat_nlerp",
    "quat_normalize",
    "quat_rotate",
    "quat_slerp",
    "quat_to_euler",
    "quat_to_matrix",
    "quat_to_rotvec",
]

_WHAT = {4: "quaternions (x, y, z, w)", 3: "vectors (x, y, z)"}


def quaternion_input(value):
    """Quaternions as given, or ``value.as_quat()`` for a rotation object that
    has it (``scipy.spatial.transform.Rotation``: (x, y, z, w), the same order)."""
    as_quat = getattr(value, "as_quat", None)
    if callable(as_quat) and not isinstance(value, np.ndarray):
        return as_quat()
    return value


def quat_multiply(a: ArrayLike, b: ArrayLike, *, out: Optional[np.ndarray] = None,
                  workers: Optional[int] = None) -> np.ndarray:
    """Hamilton product ``a * b``: the rotation ``b`` followed by ``a``.

    Parameters
    ----------
    a, b : array_like, shape (..., 4), or scipy Rotation
        Quaternions (x, y, z, w); leading axes broadcast. Need not be unit.
    out : ndarray, optional
        Receives the result (untouched on error) and is returned.

    Like every ``quat_*`` function it takes ``workers`` (None, -1 for every
    core, or a thread count; results identical to one thread).

    >>> quat_multiply([0, 0, 1, 0], [0, 0, 1, 0])  # two half turns about z
    array([ 0.,  0.,  0., -1.])
    """
    return _core._quat_multiply("quat_multiply", quaternion_input(a), quaternion_input(b), out,
                                workers)


def quat_conjugate(q: ArrayLike, *, out: Optional[np.ndarray] = None,
                   workers: Optional[int] = None) -> np.ndarray:
    """``(-x, -y, -z, w)``: the inverse rotation of a unit quaternion.

    ``q`` is array_like (..., 4) or a scipy Rotation.

    >>> quat_conjugate([1.0, 2.0, 3.0, 4.0])
    array([-1., -2., -3.,  4.])
    """
    return _core._quat_conjugate("quat_conjugate", quaternion_input(q), out, workers)


def quat_normalize(q: ArrayLike, *, out: Optional[np.ndarray] = None,
                   workers: Optional[int] = None) -> np.ndarray:
    """``q / |q|`` without overflow or underflow for any finite q.

    ``q`` is array_like (..., 4) or a scipy Rotation. Raises ValueError for
    a zero quaternion (``|q| at index ...``).

    >>> quat_normalize([0.0, 0.0, 0.0, 2.0])
    array([0., 0., 0., 1.])
    """
    return _core._quat_normalize("quat_normalize", quaternion_input(q), out, workers)


def quat_from_axis_angle(axis: ArrayLike, angle: ArrayLike, *,
                         out: Optional[np.ndarray] = None,
                         workers: Optional[int] = None) -> np.ndarray:
    """The rotation by ``angle`` radians about ``axis`` (normalized here).

    Parameters
    ----------
    axis : array_like, shape (..., 3)
        Rotation axes, non-zero.
    angle : array_like, shape (...)
        Angles in radians (right-handed).

    >>> quat_from_axis_angle([0, 0, 2], np.pi).round(12)
    array([0., 0., 1., 0.])
    """
    return _core._quat_from_axis_angle("quat_from_axis_angle", axis, angle, out, workers)


def quat_rotate(q: ArrayLike, v: ArrayLike, *, out: Optional[np.ndarray] = None,
                workers: Optional[int] = None) -> np.ndarray:
    """Vectors ``v`` rotated by the rotations ``q`` (normalized first).

    Parameters
    ----------
    q : array_like, shape (..., 4), or scipy Rotation
    v : array_like, shape (..., 3)

    >>> quat_rotate(quat_from_axis_angle([0, 0, 1], np.pi / 2), [1.0, 0.0, 0.0]).round(12)
    array([0., 1., 0.])
    """
    return _core._quat_rotate("quat_rotate", quaternion_input(q), v, out, workers)


def quat_slerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike, *,
               out: Optional[np.ndarray] = None,
               workers: Optional[int] = None) -> np.ndarray:
    """Shortest-arc spherical linear interpolation, at constant angular speed.

    ``q1`` is negated when ``q0 . q1 < 0`` (the same rotation, the shorter
    way). The angle comes from ``atan2(|q0 - q1|, |q0 + q1|)``, accurate for
    nearly equal and nearly opposite inputs.

    Parameters
    ----------
    q0, q1 : array_like, shape (..., 4), or scipy Rotation
        End rotations (normalized here; non-zero).
    t : array_like, shape (...)
        Interpolation parameter in [0, 1].

    Returns
    -------
    ndarray, shape (..., 4)
        Unit quaternions.

    >>> quat_slerp([0, 0, 0, 1], quat_from_axis_angle([0, 0, 1], np.pi / 2), 0.5).round(6)
    array([0.      , 0.      , 0.382683, 0.92388 ])
    """
    return _core._quat_slerp("quat_slerp", quaternion_input(q0), quaternion_input(q1),
                             t, out, workers)


def quat_nlerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike, *,
               out: Optional[np.ndarray] = None,
               workers: Optional[int] = None) -> np.ndarray:
    """Normalized linear interpolation along the shortest arc.

    Cheaper than :func:`quat_slerp` and on the same arc, but not at constant
    angular speed. Same arguments and errors.

    >>> quat_nlerp([0, 0, 0, 1], [0, 0, 1, 0], 0.5).round(6)
    array([0.      , 0.      , 0.707107, 0.707107])
    """
    return _core._quat_nlerp("quat_nlerp", quaternion_input(q0), quaternion_input(q1),
                             t, out, workers)


# -------------------------------------------------------------- conversions

def _sequence(func: str, seq, name: str = "seq") -> tuple[int, int, int, bool]:
    """scipy's Euler sequence: three of x, y, z, all lower case (extrinsic)
    or all upper case (intrinsic), consecutive axes different (the argument
    ``name`` of ``func``)."""
    ok = (isinstance(seq, str) and len(seq) == 3 and (set(seq) <= set("xyz")
                                                      or set(seq) <= set("XYZ"))
          and seq[0] != seq[1] and seq[1] != seq[2])
    if not ok:
        raise ValueError(f"{func}: {name} is {seq!r} (must be 3 axes from 'xyz' for rotations "
                         "about the fixed frame or 'XYZ' about the rotating frame, "
                         "consecutive axes different, e.g. 'xyz', 'ZXY', 'zxz')")
    axes = tuple("xyz".index(c) for c in seq.lower())
    return axes[0], axes[1], axes[2], seq.islower()


def quat_to_matrix(q, *, out=None, workers: Optional[int] = None) -> np.ndarray:
    """The 3x3 rotation matrices of quaternions ``q`` (normalized first).

    Matrices act on column vectors (``v' = M @ v``), as scipy's
    ``Rotation.as_matrix``. Shape ``(..., 4) -> (..., 3, 3)``; a zero
    quaternion is a ValueError. ``q`` may be a scipy Rotation, as for every
    conversion from quaternions.

    >>> quat_to_matrix(quat_from_axis_angle([0, 0, 1], np.pi / 2)).round(12)
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]])
    """
    return _core._quat_to_matrix("quat_to_matrix", quaternion_input(q), out, workers)


def quat_from_matrix(matrix, *, out=None, workers: Optional[int] = None) -> np.ndarray:
    """Unit quaternions of 3x3 rotation matrices, ``(..., 3, 3) -> (..., 4)``.

    Shepperd's method (scipy's for orthogonal matrices): accurate at every
    angle, half turns included. A matrix with ``det <= 0`` (a mirror, or
    singular) is a ValueError, and so is one with a column whose length is
    not 1 within 5e-4 (a scale: :func:`animcore.decompose` takes scaled
    matrices); a slightly non-orthogonal one (float32 data) gives the
    quaternion of a nearby rotation. The sign of the result is either one
    (``q`` and ``-q`` are the same rotation).

    >>> quat_from_matrix([[0, -1, 0], [1, 0, 0], [0, 0, 1]]).round(6)
    array([0.      , 0.      , 0.707107, 0.707107])
    """
    return _core._quat_from_matrix("quat_from_matrix", matrix, out, workers)


def quat_to_rotvec(q, *, degrees: bool = False, out=None,
                   workers: Optional[int] = None) -> np.ndarray:
    """Rotation vectors (axis times angle) of quaternions, ``(..., 4) -> (..., 3)``.

    The shorter turn, angle in ``[0, pi]`` radians (degrees with
    ``degrees=True``), as scipy's ``Rotation.as_rotvec``.

    >>> quat_to_rotvec(quat_from_axis_angle([0, 0, 1], np.pi / 2)).round(6)
    array([0.      , 0.      , 1.570796])
    """
    func = "quat_to_rotvec"
    if not flag(func, "degrees", degrees):
        return _core._quat_to_rotvec(func, quaternion_input(q), out, workers)
    v = _core._quat_to_rotvec(func, quaternion_input(q), None, workers)
    return _finish_degrees(func, v, degrees, out)


def quat_from_rotvec(rotvec, *, degrees: bool = False, out=None,
                     workers: Optional[int] = None) -> np.ndarray:
    """Unit quaternions of rotation vectors (axis times angle in radians, or
    degrees with ``degrees=True``), ``(..., 3) -> (..., 4)``, as scipy's
    ``Rotation.from_rotvec``.

    >>> quat_from_rotvec([0.0, 0.0, np.pi]).round(12)
    array([0., 0., 1., 0.])
    """
    if flag("quat_from_rotvec", "degrees", degrees):
        rotvec = np.deg2rad(as_float64("quat_from_rotvec", "rotvec", rotvec))
    return _core._quat_from_rotvec("quat_from_rotvec", rotvec, out, workers)


def _finish_degrees(func, values, degrees, out):
    if degrees:
        values = np.rad2deg(values)
    if out is None:
        return values
    out = check_out(func, out, 1, np.shape(values))
    return results((np.asarray(values),), out)[0]


def quat_to_euler(q, seq: str, *, degrees: bool = False, out=None,
                  workers: Optional[int] = None) -> np.ndarray:
    """Euler angles of quaternions in the sequence ``seq``, ``(..., 4) -> (..., 3)``.

    Same convention as scipy's ``Rotation.as_euler`` and the same angles up
    to rounding (its method, with atan2 computed in vector lanes): ``seq`` is
    three axes, lower case (``"xyz"``) for rotations about the fixed frame's
    axes (extrinsic), upper case (``"XYZ"``) about the rotating frame's
    (intrinsic); all 12 orders (6 Tait-Bryan such as ``"zyx"``, 6 proper
    Euler such as ``"zxz"``). Angles lie in ``[-pi, pi]``; the middle one in
    ``[-pi/2, pi/2]`` (Tait-Bryan) or ``[0, pi]`` (proper). At the gimbal lock
    (middle angle within 1e-7 of those limits) the third angle is 0 and the
    first carries the whole turn, silently (scipy also warns).

    >>> quat_to_euler(quat_from_euler("ZYX", [0.3, -0.2, 0.1]), "ZYX").round(12)
    array([ 0.3, -0.2,  0.1])
    """
    func = "quat_to_euler"
    sequence = _sequence(func, seq)
    if not flag(func, "degrees", degrees):
        return _core._quat_to_euler(func, sequence, quaternion_input(q), out, workers)
    angles = _core._quat_to_euler(func, sequence, quaternion_input(q), None, workers)
    return _finish_degrees(func, angles, degrees, out)


def quat_from_euler(seq: str, angles, *, degrees: bool = False, out=None,
                    workers: Optional[int] = None) -> np.ndarray:
    """Unit quaternions of Euler angles ``(..., 3)`` in the sequence ``seq``.

    As scipy's ``Rotation.from_euler(seq, angles)``: lower case ``"xyz"``
    turns about the fixed axes x, then y, then z (``q = qz qy qx``); upper
    case ``"XYZ"`` about the rotating frame's axes (``q = qX qY qZ``).
    Radians, or degrees with ``degrees=True``.

    >>> quat_from_euler("xyz", [0, 0, 90], degrees=True).round(6)
    array([0.      , 0.      , 0.707107, 0.707107])
    """
    func = "quat_from_euler"
    sequence = _sequence(func, seq)
    if flag(func, "degrees", degrees):
        angles = np.deg2rad(as_float64(func, "angles", angles))
    return _core._quat_from_euler(func, sequence, angles, out, workers)


# ------------------------------------------------------------------- tracks

# The key-track vocabulary (_options), and the part of it that applies to rotations.
_INTERP = INTERPOLATIONS
_EXTRAP = EXTRAPOLATIONS
_ROTATION_EXTRAPOLATIONS = ("clamp", "linear", "cycle", "oscillate", "error")
_GLTF = {"STEP": "step", "LINEAR": "linear", "CUBICSPLINE": "cubic"}
_GLTF_ALIASES = {"cubic": "CUBICSPLINE", "constant": "STEP", "slerp": "LINEAR"}


class RotationSample(NamedTuple):
    """Rotations (unit quaternions) and angular velocities (rad/s) of a
    rotation curve at query times."""

    rotation: np.ndarray
    angular_velocity: np.ndarray


class RotationKey(NamedTuple):
    """One key of a rotation curve: time (s), unit quaternion (as stored, see
    :attr:`RotationCurve.quaternions`) and, for cubic, the per-second tangents
    (else None)."""

    time: float
    quaternion: np.ndarray
    in_tangent: Optional[np.ndarray]
    out_tangent: Optional[np.ndarray]


class RotationCurve(ByValue):
    """A rotation track with glTF animation semantics.

    Parameters
    ----------
    times : array_like, shape (K,)
        Key times in seconds, finite and strictly increasing, K >= 1.
    quaternions : array_like, shape (K, 4), or a scipy Rotation of K rotations
        Key rotations (x, y, z, w), non-zero; normalized here, except for
        "cubic", which splines them as given and normalizes the result (glTF).
    interpolation : {"linear", "step", "cubic"}
        "linear" (the default): shortest-arc slerp between neighbouring keys.
        "step": the key at or before t. "cubic": per-component cubic Hermite
        between keys with the tangents below multiplied by the key interval,
        then normalized (glTF 2.0 Appendix C; no sign flipping between keys).
    in_tangents, out_tangents : array_like, shape (K, 4), optional
        Per-second tangents (d quaternion / d second) arriving at and leaving
        each key; required for "cubic" and only allowed there. As in glTF,
        ``in_tangents[0]`` and ``out_tangents[-1]`` shape no segment (no
        extrapolation of a rotation curve follows a tangent); they are kept
        so that a glTF sampler round-trips.
    before, after : {"clamp", "linear", "cycle", "oscillate", "error"}
        Outside the keys: hold the end key (angular velocity 0; the default,
        as glTF); keep turning at the end key's angular velocity on its inner
        side (``exp(omega dt / 2) q_end``, the rotation's "linear": for a
        linear curve the slerp of the end segment continued, for step a
        hold); repeat; repeat with every other cycle mirrored in time; or
        raise a ValueError naming the index. Other tools' words are accepted
        too ("constant", "extend", "loop", "repeat", "pingpong", "mirror").

    One vocabulary for every key track: ``Curve``, ``RotationCurve`` and the
    keys of ``LoopTrack`` take the same names for interpolation,
    extrapolation and side, and evaluate the same way (``evaluate(t,
    derivative, side=)``, ``sample``, ``__call__``), on one track core. Of
    the shared extrapolation names, "linear", "sloped" and "cycle_offset"
    do not apply to rotations (a ValueError says so). The default
    interpolation follows one rule for every class: the one its usual source
    stores; rotations come from glTF and BVH samplers, which store "linear"
    (a scalar ``Curve``, keyed by hand, defaults to Blender's "bezier" with
    "auto_clamped" tangents).

    Sides: ``evaluate(t, side="right")`` (the default) gives, at a key time
    or a cycle seam, the rotation and angular velocity just after ``t``;
    ``side="left"`` those just before. At the last key the right side is the
    extrapolation (held under "clamp": angular velocity 0; the next cycle's
    start under "cycle"), at the first key the left side is; in a mirrored
    cycle the side is taken in the query's time, so the rule is the same in
    every cycle. Under "error" the side outside the keys does not exist and
    the one inside is used.

    Results are sign-continuous along the curve (q and -q being the same
    rotation, a jump between them is a glitch for anything that blends or
    differentiates the output): for "linear" and "step" each key after the
    first is stored negated when it lies in the opposite hemisphere of the
    key before (``dot < 0``), so no result jumps from q to -q, at a key
    included; :attr:`quaternions` shows the keys so stored. With "cycle",
    when the last key and the first lie in opposite hemispheres every other
    cycle is negated, so each seam is sign-continuous too. "cubic" splines
    its keys as given (glTF), which is continuous.

    Evaluation runs in C: sorted times cost O(N + K) in total (a linear
    curve evaluates each segment's run of sorted times in one vectorized
    loop), unsorted ones a binary search each. ``len(curve)`` is the number of keys, iteration
    gives one :class:`RotationKey` per key and :meth:`to_dict` /
    :meth:`from_dict` round-trip the curve through JSON.

    Examples
    --------
    >>> quarter = quat_from_axis_angle([0, 0, 1], np.pi / 2)
    >>> curve = RotationCurve([0.0, 2.0], [[0, 0, 0, 1], quarter])
    >>> curve.evaluate(1.0).round(6)
    array([0.      , 0.      , 0.382683, 0.92388 ])
    >>> curve.evaluate(1.0, derivative=1).round(6)  # pi/2 rad over 2 s, about z
    array([0.      , 0.      , 0.785398])
    >>> curve.angular_velocity(2.0, side="left").round(6)  # held after: 0 on the right
    array([0.      , 0.      , 0.785398])
    """

    __slots__ = ("_times", "_quats", "_in", "_out", "_interpolation", "_before", "_after",
                 "_capsule", "_given")

    def __init__(self, times, quaternions, *, interpolation: str = "linear",
                 in_tangents=None, out_tangents=None, before: str = "clamp",
                 after: str = "clamp"):
        self._build(times, quaternions, interpolation, in_tangents, out_tangents, before,
                    after, copy=True)

    def _build(self, times, quaternions, interpolation, in_tangents, out_tangents, before,
               after, copy: bool) -> None:
        """The constructor; ``copy`` False for arrays no one else holds (a
        reader's), which the curve then keeps as they are."""
        func = "RotationCurve"
        interpolation = interpolation_option(
            func, interpolation, _INTERP, "a RotationCurve",
            aliases=dict(INTERPOLATION_ALIASES, slerp="linear"),
            hints={k: v for k, v in INTERPOLATION_HINTS.items() if k != "slerp"})
        before = extrapolation_option(func, "before", before, _ROTATION_EXTRAPOLATIONS,
                                      "a RotationCurve")
        after = extrapolation_option(func, "after", after, _ROTATION_EXTRAPOLATIONS,
                                     "a RotationCurve")
        t = as_float64(func, "times", times)
        if t.ndim != 1 or t.size < 1:
            raise ValueError(f"{func}: times must be a 1-D array of at least one key time, "
                             f"got shape {t.shape}")
        try:
            self._make(func, t, quaternions, interpolation, in_tangents, out_tangents, before,
                       after, copy)
        except Exception:
            # the C constructor checks the times too: the scan that names unsorted
            # ones as before runs only when something failed (see curves._scan)
            check_sorted(func, "times", t, values="quaternions")
            raise

    def _make(self, func, t, quaternions, interpolation, in_tangents, out_tangents, before,
              after, copy):
        k = t.size
        # the keys as given: a private copy, or (a reader's own) kept as they are
        q = _keys(func, "quaternions", quaternion_input(quaternions), k, copy)
        tangents = []
        for name, value in (("in_tangents", in_tangents), ("out_tangents", out_tangents)):
            if value is None:
                if interpolation == "cubic":
                    raise ValueError(f"{func}: {name} are required for interpolation='cubic'")
                tangents.append(None)
            elif interpolation != "cubic":
                raise ValueError(f"{func}: {name} are only used with interpolation='cubic', "
                                 f"not {interpolation!r}")
            else:
                tangents.append(_keys(func, name, value, k, copy))
        t = frozen_copy(t, sealed=True) if copy else contiguous(t)
        codes = _INTERP[interpolation], _EXTRAP[before], _EXTRAP[after]
        # every check the C curve makes, now; the curve itself (for linear keys,
        # an arc per segment) is built on first use: see _curve
        _core._quat_curve_validate(func, t, q, tangents[0], tangents[1], *codes)
        for a in (t, q, *tangents):
            if a is not None:
                a.flags.writeable = False
        self._times, self._given, (self._in, self._out) = t, q, tangents
        self._capsule = self._quats = None  # made when first asked for
        self._interpolation, self._before, self._after = interpolation, before, after

    @property
    def _curve(self):
        """The C curve, which reads the keys in place: built on first use, so
        that a reader's curves cost their checks until they are sampled (a
        linear curve's slerp form, each key as the slerp takes it and each
        segment's arc: 49 bytes a key beyond the keys)."""
        capsule = self._capsule
        if capsule is None:  # (two threads may both build one: either serves)
            capsule = self._capsule = _core._quat_curve_create(
                "RotationCurve", self._times, self._given, self._in, self._out,
                _INTERP[self._interpolation], _EXTRAP[self._before], _EXTRAP[self._after],
                True)
        return capsule

    def _stored_keys(self) -> np.ndarray:
        """The keys as the core stores them, read-only: normalized, and for
        linear and step also sign-continuous (a step curve of the same keys
        returns them at the key times). Made on first use, so that building a
        curve builds one C curve."""
        if self._quats is None:
            t = self._times
            if self._interpolation == "cubic":
                quats = quat_normalize(self._given)
            else:
                step = _core._quat_curve_create("RotationCurve", t, self._given, None, None,
                                                _INTERP["step"], _EXTRAP["clamp"],
                                                _EXTRAP["clamp"])
                quats = _core._quat_curve_rotation("RotationCurve", step, t, None, None)
            quats = np.array(quats)
            quats.flags.writeable = False
            self._quats = quats
        return self._quats

    @classmethod
    def from_gltf(cls, input, output, interpolation: str = "LINEAR", *, before: str = "clamp",
                  after: str = "clamp") -> "RotationCurve":
        """A rotation channel from a glTF animation sampler's raw arrays.

        Parameters
        ----------
        input : array_like, shape (K,)
            The sampler's key times in seconds.
        output : array_like
            The sampler's rotations as floats: K quaternions (shape (K, 4) or
            4K flat) for "STEP" and "LINEAR"; K triplets of in-tangent, value,
            out-tangent (shape (3K, 4) or 12K flat) for "CUBICSPLINE", the
            tangents per second.
        interpolation : {"LINEAR", "STEP", "CUBICSPLINE"}
            The sampler's interpolation, as spelled in glTF.

        >>> RotationCurve.from_gltf([0.0, 1.0], [0, 0, 0, 1, 0, 0, 1, 0], "STEP")
        RotationCurve(2 keys in [0, 1] s, interpolation='step', before='clamp', after='clamp')
        """
        return cls._gltf(input, output, interpolation, before, after, copy=True)

    @classmethod
    def _gltf(cls, input, output, interpolation, before, after, copy: bool):
        """from_gltf; ``copy`` False for a reader's own arrays (kept as they are)."""
        func = "RotationCurve.from_gltf"
        interpolation = option(func, "interpolation", interpolation, _GLTF, _GLTF_ALIASES)
        kind = _GLTF[interpolation]
        times = as_float64(func, "input", input).reshape(-1)
        values = as_float64(func, "output", output)
        k = times.size
        per_key = 3 if kind == "cubic" else 1
        if values.size != per_key * 4 * k:
            expected = f"{k} keys x {'3 x ' if per_key == 3 else ''}4"
            raise ValueError(f"{func}: output has {values.size} values, expected {expected} "
                             f"= {per_key * 4 * k} for {interpolation}")
        values = values.reshape(k * per_key, 4)
        curve = cls.__new__(cls)
        if kind != "cubic":
            curve._build(times, values, kind, None, None, before, after, copy)
        else:
            curve._build(times, values[1::3], "cubic", values[0::3], values[2::3], before,
                         after, copy)
        return curve

    times = property(lambda self: self._times, doc="Key times in seconds (read-only).")
    quaternions = property(lambda self: self._stored_keys(),
                           doc="Key rotations, normalized, shape (K, 4) (read-only); for "
                               "linear and step also sign-continuous (each key in the "
                               "hemisphere of the one before).")
    in_tangents = property(lambda self: self._in, doc="Per-second in-tangents or None.")
    out_tangents = property(lambda self: self._out, doc="Per-second out-tangents or None.")
    interpolation = property(lambda self: self._interpolation, doc='"linear", "step" or "cubic".')
    before = property(lambda self: self._before, doc="Extrapolation before the first key.")
    after = property(lambda self: self._after, doc="Extrapolation after the last key.")

    @property
    def duration(self) -> float:
        """Seconds from the first key to the last."""
        return float(self._times[-1] - self._times[0])

    def _eval(self, func, t, out, which, side: str = "right", workers=None):
        kernel = _core._quat_curve_rotation if which == 0 else _core._quat_curve_omega
        if side == "right":  # the default, without parsing the name
            return kernel(func, self._curve, t, out, workers)
        side = side_option(func, side)
        context = self._curve if side == 0 else (self._curve, side)
        return kernel(func, context, t, out, workers)

    def evaluate(self, t, derivative: int = 0, *, side: str = "right", out=None,
                 workers=None) -> np.ndarray:
        """Rotations (``derivative=0``) or angular velocities (``derivative=1``)
        at times ``t``, as :meth:`Curve.evaluate <animcore.Curve.evaluate>`.

        Parameters
        ----------
        t : array_like
            Times in seconds, any shape.
        derivative : {0, 1}
            0: unit quaternions, ``t.shape + (4,)``. 1: angular velocity in
            rad/s, ``t.shape + (3,)`` (see :meth:`angular_velocity`). A
            rotation has no second derivative here.
        side : {"right", "left"}
            At a key time or a cycle seam, the limit just after ``t``
            ("right", the default) or just before it ("left"), as for a
            ``Curve``: at the last key the right side is the extrapolation
            (held under "clamp": angular velocity 0; the next cycle's start
            under "cycle"), at the first key the left side is, and in a
            mirrored cycle of "oscillate" the side is taken in the query's
            time. Under "error" the side outside the keys does not exist, so
            the one inside is used.
        out : ndarray, optional
            Receives the result (untouched on error) and is returned.
        workers : int, optional
            Threads, with scipy.fft's meaning (None or 1, -1 for every core).

        Raises ValueError for a non-finite t, for t outside the keys where
        the extrapolation is "error", and where a cubic spline's tangents
        carry it through the zero quaternion.
        """
        func = "RotationCurve.evaluate"
        derivative = derivative_order(func, derivative, (0, 1),
                                      "rotations (0) and angular velocities (1)")
        return self._eval(func, t, out, derivative, side, workers)

    def __call__(self, t, derivative: int = 0, *, side: str = "right",
                 out=None) -> np.ndarray:
        """The rotations (``derivative=0``) or angular velocities (1) at ``t``;
        the same as ``evaluate(t, derivative, side=side, out=out)``. The
        order is the second positional argument, as ``nu`` is in scipy's
        splines; any other value is a ValueError."""
        if derivative.__class__ is not int or not 0 <= derivative <= 1:  # bool is not int
            derivative = derivative_order("RotationCurve", derivative, (0, 1),
                                          "rotations (0) and angular velocities (1)")
        return self._eval("RotationCurve", t, out, derivative, side)

    def angular_velocity(self, t, *, side: str = "right", out=None) -> np.ndarray:
        """Angular velocity in rad/s at times ``t``: ``t.shape + (3,)``; the same
        as ``evaluate(t, 1, side=side, out=out)``.

        ``omega = 2 (dq/dt) q*``, the rotation rate expressed in the frame the
        quaternions rotate into (a glTF node's parent frame); ``quat_rotate(
        quat_conjugate(q), omega)`` gives it in the node's own frame. Exact,
        not a finite difference: constant ``axis * angle / interval`` on a
        linear segment, the derivative of the normalized Hermite spline for
        cubic, 0 for step and where clamped; negated in mirrored cycles.
        """
        return self._eval("RotationCurve.angular_velocity", t, out, 1, side)

    def sample(self, t, *, side: str = "right", out=None, workers=None) -> "RotationSample":
        """Rotations and angular velocities at ``t`` in one call, as
        ``Curve.sample`` gives values and velocities: a :class:`RotationSample`.
        ``out`` is a pair of arrays (rotations, angular velocities)."""
        func = "RotationCurve.sample"
        side = side_option(func, side)
        t = as_float64(func, "t", t)
        if out is not None:
            out = check_out(func, out, 2, [t.shape + (4,), t.shape + (3,)])
        context = self._curve if side == 0 else (self._curve, side)
        computed = (np.asarray(_core._quat_curve_rotation(func, context, t, None, workers)),
                    np.asarray(_core._quat_curve_omega(func, context, t, None, workers)))
        return RotationSample(*results(computed, out))

    _fields = (("times", "quaternions", "interpolation", "in_tangents", "out_tangents",
                "before", "after"), ())

    def _state(self) -> dict:
        return {"times": self._times, "quaternions": self._given,
                "interpolation": self._interpolation, "in_tangents": self._in,
                "out_tangents": self._out, "before": self._before, "after": self._after}

    @classmethod
    def _from_state(cls, state: dict) -> "RotationCurve":
        return cls(**state)

    def __len__(self) -> int:
        """The number of keys."""
        return int(self._times.size)

    def __iter__(self) -> Iterator[RotationKey]:
        """One :class:`RotationKey` (time, quaternion, in_tangent, out_tangent) per key."""
        for i in range(self._times.size):
            yield RotationKey(float(self._times[i]), self._stored_keys()[i],
                              None if self._in is None else self._in[i],
                              None if self._out is None else self._out[i])

    def to_dict(self) -> dict:
        """Everything that defines the curve as JSON-ready lists and strings;
        ``RotationCurve.from_dict(json.loads(json.dumps(c.to_dict())))``
        evaluates exactly as ``c`` does (the keys are kept as given)."""
        data = {"type": "RotationCurve", "times": self._times.tolist(),
                "quaternions": self._given.tolist(), "interpolation": self._interpolation}
        if self._in is not None:
            data["in_tangents"], data["out_tangents"] = self._in.tolist(), self._out.tolist()
        data.update(before=self._before, after=self._after)
        return data

    @classmethod
    def from_dict(cls, data) -> "RotationCurve":
        """The rotation curve that :meth:`to_dict` described."""
        check_fields("RotationCurve.from_dict", data, "RotationCurve", ["times", "quaternions"],
                     ["interpolation", "in_tangents", "out_tangents", "before", "after"])
        return cls(data["times"], data["quaternions"],
                   interpolation=data.get("interpolation", "linear"),
                   in_tangents=data.get("in_tangents"), out_tangents=data.get("out_tangents"),
                   before=data.get("before", "clamp"), after=data.get("after", "clamp"))

    def plot(self, ax=None, *, angular_velocity: bool = False, keys: bool = True,
             samples: int = 400, span=None, **kwargs):
        """Draw the quaternion components x, y, z, w over time (keys marked) with
        matplotlib, and optionally the angular speed in deg/s, dashed, on a
        right-hand axis.

        ``ax`` defaults to the current axes; ``span=(start, end)`` sets the time
        range (the keys by default); ``**kwargs`` go to ``ax.plot`` (a ``label=``
        prefixes the component names). Returns ``ax``, or ``(ax, rate_ax)`` with
        ``angular_velocity=True``.
        """
        from .plotting import plot_rotation_curve
        return plot_rotation_curve(self, ax, angular_velocity=angular_velocity, keys=keys,
                                   samples=samples, span=span, **kwargs)

    def _repr_html_(self):
        from .plotting import html_figure
        return html_figure(self)

    def __repr__(self):
        return (f"RotationCurve({self._times.size} keys in [{self._times[0]:g}, "
                f"{self._times[-1]:g}] s, interpolation={self._interpolation!r}, "
                f"before={self._before!r}, after={self._after!r})")


def _keys(func: str, name: str, value, k: int, copy: bool = True) -> np.ndarray:
    a = as_float64(func, name, value)
    if a.shape != (k, 4):
        raise ValueError(f"{func}: {name} must have shape ({k}, 4), one (x, y, z, w) per key "
                         f"time, got {a.shape}")
    # a private, contiguous copy; a reader's own array as it is (copied if strided)
    return frozen_copy(a, sealed=True) if copy else contiguous(a)
