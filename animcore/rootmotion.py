"""Root motion of looping clips: exact deltas across cycles, turning loops and a
playback cursor.

A looping clip of duration ``T`` seconds plays at unrolled time ``t``. The time
splits into a cycle ``k = floor(t / T)`` (also for negative ``t``) and a phase
``u = t / T - k`` in ``[0, 1)``. One cycle moves the root by the stride
``D = p(1) - p(0)``, so the motion from ``t0`` to ``t1`` is::

    delta(t0, t1) = (k1 - k0) * D + p(u1) - p(u0)

a cycle difference (one multiplication) plus a local difference. Subtracting
two phases alone is the classic bug: from 0.9 s to 1.1 s a character whose
2 m stride has keys (0, 0) (0.25, 0.2) (0.75, 1.7) (1, 2) steps *back* 1.8 m
instead of forward 0.2 m.

With rotations the root pose is a rigid transform ``P(u)`` and one cycle moves
the character by ``C = P(0)^-1 P(1)``; the motion from ``t0`` to ``t1``,
expressed in the root frame at ``t0``, is ``F(t0)^-1 F(t1)`` with
``F(t) = C^k P(0)^-1 P(u)``. ``C^k`` is a closed form for yaw and a power by
repeated squaring for quaternions: never a loop over cycles.
"""
from __future__ import annotations

import math
import threading
from typing import NamedTuple, Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from . import _core
from ._arrays import (as_float64, broadcast_named, check_out, index_text, real_number, results,
                      shapes)
from ._objects import ByValue
from ._options import INTERPOLATIONS, check_fields, check_sorted, interpolation_option
from .rotations import quaternion_input

__all__ = ["LoopTrack", "RootDelta", "RootMotionCursor", "RootPose"]

_KINDS = {"none": 0, "yaw": 1, "quaternion": 2}
# The key-track vocabulary (_options), and the part of it that applies to root tracks.
_INTERPOLATIONS = {name: INTERPOLATIONS[name] for name in ("linear", "cubic")}


class RootDelta(NamedTuple):
    """Rigid motion of a turning root, in the root frame at the start time.

    ``translation`` has the positions' channels; ``rotation`` is a yaw angle in
    radians wrapped to ``(-pi, pi]`` (yaw tracks) or a unit quaternion
    ``(x, y, z, w)`` with ``w >= 0`` (quaternion tracks). Applying it to the
    character's world pose ``W`` gives ``W * delta``."""

    translation: np.ndarray
    rotation: np.ndarray


# out= of the motion methods: the translation, or (translation, rotation).
_Out = Union[np.ndarray, tuple[np.ndarray, np.ndarray], None]


class RootPose(NamedTuple):
    """Root pose of a turning track at a phase: world position and rotation
    (yaw angle in radians as keyed, not wrapped, or a unit quaternion)."""

    position: np.ndarray
    rotation: np.ndarray


def _scalar_int(func, name, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{func}: {name} must be an integer, got {value!r}")
    return int(value)


def _up_axis(func: str, value) -> int:
    """An ``up_axis`` argument as 0, 1 or 2 (an int or NumPy integer, not a
    bool), or a ValueError naming ``func``."""
    axis = _scalar_int(func, "up_axis", value)
    if axis not in (0, 1, 2):
        raise ValueError(f"{func}: up_axis is {axis} (must be 0, 1 or 2)")
    return axis


class LoopTrack(ByValue):
    """A looping root track: key times, root positions and optional rotations.

    Parameters
    ----------
    times : array_like, shape (K,)
        Key times in seconds, strictly increasing from exactly 0 to the clip
        duration ``T = times[-1] > 0``; K >= 2.
    positions : array_like, shape (K,) or (K, C)
        Root positions (e.g. metres) at the keys. ``(K,)`` gives scalar
        results; ``(K, C)`` gives results with a trailing axis of C channels.
    interpolation : {"linear", "cubic"}
        How positions vary between keys, in the vocabulary of every key
        track (``Curve``, ``RotationCurve``): "linear" by default, as for
        rotation tracks, because that is what glTF and BVH samplers store;
        "step" does not apply to a root track. Beyond its keys the track
        cycles with its stride, what a ``Curve`` calls "cycle_offset" (with
        the rigid cycle ``C`` for turning tracks). ``"cubic"`` is a Hermite cubic with
        time-aware Catmull-Rom velocities ``(p[i+1] - p[i-1]) / (t[i+1] - t[i-1])``
        per second. The loop defines the end keys' neighbours: key 0's left
        neighbour is key K-2 one cycle earlier (time ``t[K-2] - T``, position
        moved back by one cycle) and key K-1's right neighbour is key 1 one
        cycle later, so the unrolled motion is C1 across the seam.
    rotations : array_like or scipy Rotation, optional
        ``(K,)`` yaw angles in radians, or ``(K, 4)`` quaternions
        ``(x, y, z, w)`` (normalized here, as everywhere in animcore; a
        ``scipy.spatial.transform.Rotation`` of K rotations is taken through
        its ``as_quat()``). Rotations interpolate
        linearly in angle (yaw, taken as keyed: unwrap angles that cross
        +-pi) or by shortest-arc slerp (quaternions), whatever
        ``interpolation`` says for positions. With rotations, ``delta``
        returns a :class:`RootDelta`.
    up_axis : {0, 1, 2}
        For yaw with ``(K, 3)`` positions: the axis the yaw turns about
        (right-handed, so axis ``up+1`` turns toward axis ``up+2``; with the
        default y up, +90 deg turns z into x). For ``(K, 2)`` positions the two
        channels are the ground plane and the yaw turns channel 0 toward
        channel 1; ``up_axis`` is not used. Yaw needs 2 or 3 channels and
        quaternions need 3; other shapes are a ValueError.
    max_cycles : float
        Bound on ``|t / T|`` for every time given later (default 10^6, at
        most 2^50): times beyond it are a ValueError rather than a silent loss of phase
        precision. Use :class:`RootMotionCursor` for long play sessions.

    ``len(track)`` is the number of keys and :meth:`to_dict` /
    :meth:`from_dict` round-trip the track through JSON.

    Examples
    --------
    >>> track = LoopTrack([0, 0.25, 0.75, 1], [0, 0.2, 1.7, 2])
    >>> track.delta([0.9, 0.9, 1.1], [1.1, 3.1, 0.9]).round(12)
    array([ 0.2,  4.2, -0.2])
    >>> cycle, phase = track.split(-0.1)
    >>> int(cycle), float(phase)
    (-1, 0.9)
    """

    __slots__ = ("_handle", "_times", "_positions", "_rotations", "_kind", "_interpolation",
                 "_up_axis", "_max_cycles", "_vector", "_stride", "__weakref__")

    def __init__(self, times, positions, *, interpolation: str = "linear", rotations=None,
                 up_axis: int = 1, max_cycles: float = 1_000_000):
        self._build("LoopTrack", times, positions, interpolation, rotations, up_axis, max_cycles)

    @classmethod
    def _named(cls, func: str, times, positions, *, interpolation: str = "linear",
               rotations=None, up_axis: int = 1, max_cycles: float = 1_000_000) -> "LoopTrack":
        """A track made as the constructor makes it, with errors naming ``func``
        (the public caller) instead of ``LoopTrack``."""
        track = cls.__new__(cls)
        track._build(func, times, positions, interpolation, rotations, up_axis, max_cycles)
        return track

    def _build(self, func: str, times, positions, interpolation, rotations, up_axis,
               max_cycles) -> None:
        times = np.array(as_float64(func, "times", times), dtype=np.float64)
        positions = np.array(as_float64(func, "positions", positions), dtype=np.float64)
        if times.ndim != 1:
            raise ValueError(f"{func}: times must have shape (K,), got {times.shape}")
        if times.shape[0] < 2:
            raise ValueError(f"{func}: times must hold at least 2 keys, got {times.shape[0]}")
        k = times.shape[0]
        if positions.ndim not in (1, 2) or positions.shape[0] != k:
            raise ValueError(f"{func}: positions must have shape ({k},) or ({k}, C), "
                             f"got {positions.shape}")
        if positions.ndim == 2 and positions.shape[1] < 1:
            raise ValueError(f"{func}: positions must have at least 1 channel")
        interpolation = interpolation_option(func, interpolation, _INTERPOLATIONS, "a LoopTrack")
        check_sorted(func, "times", times, values="positions")
        up_axis = _up_axis(func, up_axis)
        max_cycles = real_number(func, "max_cycles", max_cycles)
        if not (math.isfinite(max_cycles) and 0 < max_cycles <= 2.0**50):
            raise ValueError(f"{func}: max_cycles is {max_cycles!r} (must lie in (0, 2^50])")
        vector = positions.ndim == 2
        table = positions if vector else positions[:, None]
        kind = "none"
        if rotations is not None:
            rotations = np.array(as_float64(func, "rotations", quaternion_input(rotations)),
                                 dtype=np.float64)
            channels = table.shape[1]
            if rotations.shape == (k,):
                kind = "yaw"
                if not vector or channels not in (2, 3):
                    raise ValueError(
                        f"{func}: yaw rotations need positions of shape ({k}, 2) (ground "
                        f"plane) or ({k}, 3) (turning about up_axis), got {positions.shape}")
            elif rotations.shape == (k, 4):
                kind = "quaternion"
                if not vector or channels != 3:
                    raise ValueError(f"{func}: quaternion rotations need positions of shape "
                                     f"({k}, 3), got {positions.shape}")
            else:
                raise ValueError(f"{func}: rotations must have shape ({k},) (yaw angles) or "
                                 f"({k}, 4) (quaternions x, y, z, w), got {rotations.shape}")
        self._handle = _core._rootmotion_create(
            func, np.ascontiguousarray(times), np.ascontiguousarray(table if vector else positions),
            _INTERPOLATIONS[interpolation], _KINDS[kind],
            None if rotations is None else np.ascontiguousarray(rotations), up_axis, max_cycles)
        for a in (times, positions) + (() if rotations is None else (rotations,)):
            a.flags.writeable = False
        self._times, self._positions, self._rotations = times, positions, rotations
        self._kind, self._interpolation = kind, interpolation
        self._up_axis, self._max_cycles, self._vector = up_axis, max_cycles, vector
        stride = positions[-1] - positions[0]
        if vector:
            stride.flags.writeable = False
        self._stride = stride

    # -- properties ---------------------------------------------------------

    duration = property(lambda self: float(self._times[-1]),
                        doc="Clip duration T in seconds (the last key time).")
    stride = property(lambda self: self._stride,
                      doc="D = p(T) - p(0): the positions' change over one cycle, in the "
                          "clip's frame (for a turning track, before any turn of later cycles).")
    times = property(lambda self: self._times, doc="Key times in seconds (read-only).")
    positions = property(lambda self: self._positions, doc="Key positions (read-only).")
    rotations = property(lambda self: self._rotations,
                         doc="Key yaw angles or quaternions (read-only), or None.")
    rotation_kind = property(lambda self: self._kind,
                             doc="'none', 'yaw' or 'quaternion'.")
    interpolation = property(lambda self: self._interpolation, doc="'linear' or 'cubic'.")
    up_axis = property(lambda self: self._up_axis, doc="Yaw axis of 3-channel positions.")
    max_cycles = property(lambda self: self._max_cycles, doc="Bound on |t / T|.")

    @property
    def channels(self) -> int:
        """Number of position channels (1 for positions of shape (K,))."""
        return self._positions.shape[1] if self._vector else 1

    def _channel_shape(self) -> tuple[int, ...]:
        return (self._positions.shape[1],) if self._vector else ()

    def _rotation_shape(self) -> Optional[tuple[int, ...]]:
        return {"none": None, "yaw": (), "quaternion": (4,)}[self._kind]

    # -- evaluation ---------------------------------------------------------

    def split(self, t: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Split unrolled times into ``(cycle, phase)``.

        ``cycle = floor(t / T)`` (int64; -0.1 s of a 1 s clip is cycle -1) and
        ``phase = t / T - cycle`` in ``[0, 1)``. Non-finite ``t`` or
        ``|t / T| > max_cycles`` is a ValueError naming the index.
        """
        func = "LoopTrack.split"
        cycle, phase = _core._rootmotion_split(func, (self._handle, "t"), t, None, None)
        return results((np.asarray(cycle).astype(np.int64), np.asarray(phase)), None)

    def sample(self, phase: ArrayLike, *, out: _Out = None) -> Union[np.ndarray, RootPose]:
        """Root position at phases in ``[0, 1]`` (``sample(1) - sample(0)`` is the stride).

        Returns positions of shape ``phase.shape + (C,)`` (``phase.shape`` for
        positions of shape (K,)), or a :class:`RootPose` for a turning track.
        A phase outside ``[0, 1]`` is a ValueError. ``out`` receives the
        positions (a tuple of positions and rotations for a turning track);
        it is left untouched if the call raises, and returned.
        """
        func = "LoopTrack.sample"
        if out is not None:
            self._check_out(func, out, shapes(func, phase=phase)["phase"])
        kernel = _SAMPLE[self._kind]
        if self._kind == "none":
            return kernel(func, self._handle, phase, out, None)
        return RootPose(*kernel(func, self._handle, phase, out, None))

    def _check_out(self, func, out, shape):
        if out is None:
            return None
        if self._kind == "none":
            return check_out(func, out, 1, shape + self._channel_shape())
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError(f"{func}: out must be a tuple of 2 arrays (translation, rotation)")
        return (check_out(func, out[:1], 1, shape + self._channel_shape())
                + check_out(f"{func}: rotation", out[1:], 1, shape + self._rotation_shape()))

    def delta(self, t0: ArrayLike, t1: ArrayLike, *,
              out: _Out = None) -> Union[np.ndarray, RootDelta]:
        """Root motion from unrolled time ``t0`` to ``t1`` (seconds, broadcast).

        Without rotations: ``(k1 - k0) * D + p(u1) - p(u0)``, of shape
        ``broadcast(t0, t1) + (C,)`` (no channel axis for positions of shape
        (K,)). Reversed intervals give the negated motion, and
        ``delta(a, b) + delta(b, c) == delta(a, c)``.

        With rotations: a :class:`RootDelta`, the rigid motion
        ``F(t0)^-1 F(t1)`` expressed in the root frame at ``t0``.

        Parameters
        ----------
        t0, t1 : array_like
            Unrolled times in seconds; ``|t / T| <= max_cycles``.
        out : ndarray or tuple of two ndarrays, optional
            Receives the translation (and the rotation for turning tracks);
            left untouched if the call raises. The result *is* ``out``.

        Raises
        ------
        ValueError
            A non-finite time or one beyond ``max_cycles`` cycles, naming the
            argument and its index in the broadcast shape.
        """
        func = "LoopTrack.delta"
        if out is not None:
            self._check_out(func, out, broadcast_named(func, shapes(func, t0=t0, t1=t1)))
        kernel = _DELTA[self._kind]
        if self._kind == "none":
            return kernel(func, self._handle, t0, t1, out, None)
        return RootDelta(*kernel(func, self._handle, t0, t1, out, None))

    __call__ = delta

    _fields = (("times", "positions", "rotations", "interpolation", "up_axis", "max_cycles"), ())

    def _state(self) -> dict:
        return {"times": self._times, "positions": self._positions,
                "rotations": self._rotations, "interpolation": self._interpolation,
                "up_axis": self._up_axis, "max_cycles": self._max_cycles}

    @classmethod
    def _from_state(cls, state: dict) -> "LoopTrack":
        state = dict(state)
        return cls(state.pop("times"), state.pop("positions"), **state)

    def __len__(self) -> int:
        """The number of keys."""
        return int(self._times.size)

    def to_dict(self) -> dict:
        """Everything that defines the track as JSON-ready lists, numbers and
        strings; ``LoopTrack.from_dict(json.loads(json.dumps(t.to_dict())))``
        gives the same results as ``t``."""
        data = {"type": "LoopTrack", "times": self._times.tolist(),
                "positions": self._positions.tolist(), "interpolation": self._interpolation}
        if self._rotations is not None:
            data["rotations"] = self._rotations.tolist()
        data.update(up_axis=self._up_axis, max_cycles=self._max_cycles)
        return data

    @classmethod
    def from_dict(cls, data) -> "LoopTrack":
        """The track that :meth:`to_dict` described."""
        func = "LoopTrack.from_dict"
        check_fields(func, data, "LoopTrack", ["times", "positions"],
                     ["interpolation", "rotations", "up_axis", "max_cycles"])
        return cls._named(func, data["times"], data["positions"],
                          interpolation=data.get("interpolation", "linear"),
                          rotations=data.get("rotations"), up_axis=data.get("up_axis", 1),
                          max_cycles=data.get("max_cycles", 1_000_000))

    def plot(self, ax=None, *, cycles: float = 3, start: float = 0.0, samples: int = 600,
             **kwargs):
        """Draw the unrolled root path against the looping local track with matplotlib.

        Over ``cycles`` loops from player time ``start``, each position channel
        is drawn twice: solid, where the character is (its pose at ``start``
        moved by :meth:`delta`, turned by the track's rotations); dashed, the
        clip's own local track ``p(u)`` at the phase ``u``, which jumps back at
        every loop seam (dotted lines). ``**kwargs`` go to ``ax.plot`` for the
        unrolled path. Returns ``ax``.
        """
        from .plotting import plot_loop_track
        from .rotations import quat_rotate
        return plot_loop_track(self, ax, cycles=cycles, start=start, samples=samples,
                               quat_rotate=quat_rotate, **kwargs)

    def _repr_html_(self):
        from .plotting import html_figure
        return html_figure(self)

    def __repr__(self):
        extra = "" if self._kind == "none" else f", rotations={self._kind}"
        shape = "x".join(map(str, self._positions.shape))
        return (f"LoopTrack({len(self._times)} keys, duration={self.duration!r}, "
                f"positions {shape}, stride={_rounded(self._stride)!r}, "
                f"interpolation={self._interpolation!r}{extra})")


# The sampling and delta kernels of each rotation kind.
_SAMPLE = {"none": _core._rootmotion_sample, "yaw": _core._rootmotion_sample_yaw,
           "quaternion": _core._rootmotion_sample_quat}
_DELTA = {"none": _core._rootmotion_delta, "yaw": _core._rootmotion_delta_yaw,
          "quaternion": _core._rootmotion_delta_quat}
_ADVANCE = {"none": _core._rootmotion_advance, "yaw": _core._rootmotion_advance_yaw,
            "quaternion": _core._rootmotion_advance_quat}


def _rounded(values):
    """Values rounded to 12 decimals for display, as a float or a list (without
    NumPy's overflow warning for magnitudes near DBL_MAX, shown as they are)."""
    array = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = np.round(array, 12)
    return np.where(np.isfinite(rounded), rounded, array).tolist()


def _state_array(func: str, name: str, value) -> np.ndarray:
    """A restored cursor's ``cycle`` or ``phase``: an array of real numbers
    (integer or float dtype), or a ValueError naming it."""
    array = np.asarray(value) if isinstance(value, (np.ndarray, int, float, list, tuple)) \
        else None
    if array is None or array.dtype.kind not in "iuf" or (array.dtype.kind == "u"
                                                          and array.dtype.itemsize == 8):
        raise ValueError(f"{func}: a pickled state's {name} is {value!r} (must be an array "
                         f"of real numbers)")
    return array


class RootMotionCursor(ByValue):
    """Playback cursors on a :class:`LoopTrack`: the consumer side of root motion.

    Each cursor keeps an integer cycle count and a bounded phase in ``[0, 1)``,
    never an accumulated float time, so precision does not decay with play
    time. ``advance``/``advance_to`` return the motion since the last consumed
    time and consume it; ``reset`` (seek, clip switch, teleport) moves cursors
    without emitting any motion.

    Parameters
    ----------
    track : LoopTrack
    time : array_like
        Start times in seconds; one cursor per element (any shape, e.g. one
        per character).

    Threads: a cursor may be shared. Its moves (``advance``, ``advance_to``,
    ``reset``) are serialized by a lock, so moves from several threads apply
    one after the other, each from the state the previous one left: the total
    motion returned equals the motion of the same moves made by one thread.

    Examples
    --------
    >>> track = LoopTrack([0, 0.25, 0.75, 1], [0, 0.2, 1.7, 2])
    >>> cursor = RootMotionCursor(track, 0.9)
    >>> round(float(cursor.advance(0.2)), 12)
    0.2
    """

    __slots__ = ("_track", "_cycle", "_phase", "_lock")

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._lock = threading.Lock()  # however the object is made (copies, unpickling)
        return self

    def __init__(self, track: LoopTrack, time=0.0):
        if not isinstance(track, LoopTrack):
            raise ValueError(f"RootMotionCursor: track must be a LoopTrack, got {type(track).__name__}")
        self._track = track
        self._cycle, self._phase = self._split("RootMotionCursor", time)

    def _split(self, func, time):
        t = as_float64(func, "time", time)  # named as the caller names it
        cycle, phase = _core._rootmotion_split(func, (self._track._handle, "time"), t, None,
                                               None)
        return np.asarray(cycle).astype(np.int64), np.asarray(phase)

    track = property(lambda self: self._track, doc="The LoopTrack played.")
    shape = property(lambda self: self._phase.shape, doc="Shape of the cursor array.")

    @property
    def cycle(self) -> np.ndarray:
        """Integer cycle counts (int64 copy)."""
        return self._cycle.astype(np.int64)

    @property
    def phase(self) -> np.ndarray:
        """Phases in [0, 1) (copy)."""
        return self._phase.copy()

    @property
    def time(self) -> np.ndarray:
        """Unrolled times ``(cycle + phase) * T`` in seconds (for display: the
        state itself is the cycle and phase)."""
        with self._lock:  # a consistent pair while another thread moves the cursors
            cycle, phase = self._cycle, self._phase
        with np.errstate(over="ignore"):
            time = (cycle.astype(np.float64) + phase) * self._track.duration
        if not np.isfinite(time).all():  # (cycles far past what a double of seconds holds)
            first = int(np.flatnonzero(~np.isfinite(time))[0])
            raise OverflowError(f"RootMotionCursor.time: the cursor{index_text(time.shape, first)}"
                                f" is at cycle {int(cycle.reshape(-1)[first])} of a "
                                f"{self._track.duration!r} s track: its time is beyond the "
                                f"double range")
        return time

    def _per_cursor(self, func, name, value) -> np.ndarray:
        """float64 `value` that broadcasts to the cursors' shape (not broadcast yet)."""
        shape = self._phase.shape
        value = as_float64(func, name, value)
        try:
            ok = np.broadcast_shapes(value.shape, shape) == shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"{func}: {name} of shape {value.shape} does not broadcast to "
                             f"the cursors' shape {shape}")
        return value

    def _move(self, func, name, value, absolute, out):
        track = self._track
        shape = self._phase.shape
        value = self._per_cursor(func, name, value)
        out = track._check_out(func, out, shape)
        if out is not None:  # the new state goes to fresh arrays, the motion to out
            out = (np.empty(shape), np.empty(shape)) + tuple(out)
        kernel = _ADVANCE[track._kind]
        with self._lock:  # read, move and commit as one step (the kernel drops the GIL)
            result = kernel(func, (track._handle, absolute), self._cycle, self._phase, value,
                            out, None)
            # committed only on success; cycles come back as exact float64 counts
            self._cycle = np.asarray(result[0]).astype(np.int64)
            self._phase = np.asarray(result[1])
        return result[2] if track._kind == "none" else RootDelta(*result[2:])

    def advance(self, dt: ArrayLike, *,
                out: _Out = None) -> Union[np.ndarray, RootDelta]:
        """Move every cursor by ``dt`` seconds (broadcast to the cursors'
        shape; negative plays backwards) and return the motion, as
        :meth:`LoopTrack.delta` does. On error nothing moves."""
        return self._move("RootMotionCursor.advance", "dt", dt, False, out)

    def advance_to(self, t: ArrayLike, *,
                   out: _Out = None) -> Union[np.ndarray, RootDelta]:
        """Move every cursor to the unrolled time ``t`` and return the motion
        since the last consumed time. On error nothing moves."""
        return self._move("RootMotionCursor.advance_to", "t", t, True, out)

    def reset(self, time: ArrayLike = 0.0) -> None:
        """Place the cursors at ``time`` without emitting motion (seek, clip
        switch, teleport). ``time`` broadcasts to the cursors' shape."""
        func = "RootMotionCursor.reset"
        value = self._per_cursor(func, "time", time)
        cycle, phase = self._split(func, np.broadcast_to(value, self._phase.shape))
        with self._lock:
            self._cycle, self._phase = cycle, phase

    _fields = (("track", "cycle", "phase"), ())

    def _state(self) -> dict:
        # the exact state: integer cycles and bounded phases, not a float time, read as
        # one pair under the lock (copy, pickle and == never see half of a move); a move
        # replaces the arrays rather than writing into them, so the pair stays as read
        with self._lock:
            cycle, phase = self._cycle, self._phase
        return {"track": self._track, "cycle": cycle, "phase": phase}

    @classmethod
    def _from_state(cls, state: dict) -> "RootMotionCursor":
        func = "RootMotionCursor"
        track, cycle, phase = state["track"], state["cycle"], state["phase"]
        if not isinstance(track, LoopTrack):
            raise ValueError(f"{func}: track must be a LoopTrack, got {type(track).__name__}")
        cycle = _state_array(func, "cycle", cycle)
        phase = _state_array(func, "phase", phase)
        if cycle.dtype.kind == "f":  # counts stored as floats: whole numbers in int64's range
            bad = ~(np.isfinite(cycle) & (cycle == np.round(cycle)) & (np.abs(cycle) < 2.0**62))
            if bad.any():
                index = np.unravel_index(int(np.flatnonzero(bad)[0]), cycle.shape)
                raise ValueError(f"{func}: cycle at index {tuple(int(i) for i in index)} is "
                                 f"{float(cycle[index])!r} (must be a whole number of cycles)")
        cycle = cycle.astype(np.int64)
        phase = phase.astype(np.float64)
        if cycle.shape != phase.shape:
            raise ValueError(f"{func}: cycle of shape {cycle.shape} and phase of shape "
                             f"{phase.shape} differ")
        bad = ~((phase >= 0.0) & (phase < 1.0))
        if bad.any():
            index = np.unravel_index(int(np.flatnonzero(bad)[0]), phase.shape)
            raise ValueError(f"{func}: phase at index {tuple(int(i) for i in index)} is "
                             f"{float(phase[index])!r} (must lie in [0, 1))")
        cursor = cls(track, np.zeros(phase.shape))  # whatever else __init__ sets up
        cursor._cycle, cursor._phase = cycle, phase
        return cursor

    def _repr_html_(self) -> str:
        from ._display import html_table
        with self._lock:
            cycle, phase = self._cycle.copy(), self._phase.copy()
        if phase.size == 1:
            where = [("cycle", int(cycle.reshape(-1)[0])),
                     ("phase", f"{float(phase.reshape(-1)[0]):.6g}")]
        else:  # (no range of cycles for no cursors)
            where = [("cursors", f"shape {phase.shape}")] + (
                [("cycles", f"{int(cycle.min())} to {int(cycle.max())}")] if phase.size else [])
        return html_table("RootMotionCursor",
                          where + [("track duration", f"{self._track.duration:g} s")])

    def __repr__(self):
        with self._lock:
            cycle, phase = self._cycle, self._phase
        if phase.size == 1:
            where = f"cycle={int(cycle.reshape(-1)[0])}, phase={float(phase.reshape(-1)[0])!r}"
        else:
            where = f"shape={phase.shape}"
        return f"RootMotionCursor({where}, duration={self._track.duration!r})"

