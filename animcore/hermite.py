"""Cubic Hermite segments whose key velocities are per second.

A segment runs from ``start`` to ``end`` over ``duration`` seconds. Key
velocities are per second, as animation tools store them; the Hermite basis
works on the normalized parameter ``u = elapsed / duration``, so each velocity
becomes a tangent ``m = duration * velocity`` before evaluation, and the
derivative is divided by the duration on the way out. Forgetting either step is
the classic bug: a 2-second segment then starts at half its intended speed.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np
from numpy.typing import ArrayLike

from . import _core
from ._arrays import real_number, stretch_factor
from ._objects import ByValue

__all__ = [
    "HermiteSample",
    "HermiteSegment",
    "hermite",
    "tangent_to_velocity",
    "velocity_to_tangent",
]


class HermiteSample(NamedTuple):
    """Position and velocity (per track-second) of Hermite samples."""

    position: np.ndarray
    velocity: np.ndarray


def hermite(start: ArrayLike, end: ArrayLike, start_velocity: ArrayLike,
            end_velocity: ArrayLike, duration: ArrayLike, elapsed: ArrayLike, *,
            out: Optional[tuple[np.ndarray, np.ndarray]] = None,
            workers: Optional[int] = None) -> HermiteSample:
    """Evaluate cubic Hermite segments with per-second key velocities.

    Parameters
    ----------
    start, end : array_like
        Key values at the start and end of the segment.
    start_velocity, end_velocity : array_like
        Key velocities in units per second.
    duration : array_like
        Segment length in seconds, > 0.
    elapsed : array_like
        Seconds since the segment start, in ``[0, duration]``.
    out : tuple of two arrays, optional
        Arrays of the broadcast shape that receive position and velocity: any
        float dtype, any strides. They are left untouched if the call raises.
    workers : int, optional
        Threads to split a large call across, as in ``scipy.fft``: None or 1
        for this thread, ``-1`` for every core, ``n`` for n threads. Results
        are identical whatever the count.

    All arguments broadcast against each other like a NumPy ufunc: vector keys
    of shape ``(3,)`` with ``elapsed`` of shape ``(N, 1)`` give ``(N, 3)``,
    without materializing the broadcast inputs. Integer and float32 inputs
    give float64 results.

    Returns
    -------
    HermiteSample
        ``position`` and ``velocity`` (d position / d second of track time;
        multiply by the playback rate for real-time velocity). When ``out`` is
        given its arrays are returned.

    Raises
    ------
    ValueError
        Non-finite input, ``duration <= 0`` or ``elapsed`` outside
        ``[0, duration]``; the message names the argument, its index in the
        broadcast shape and its value.
    OverflowError
        A tangent ``duration * velocity`` or a result that is not representable.

    Examples
    --------
    >>> hermite(0.0, 10.0, 2.0, 0.0, 2.0, [0.0, 1.0])
    HermiteSample(position=array([0. , 5.5]), velocity=array([2., 7.]))
    """
    return HermiteSample(*_core._hermite_eval("hermite", start, end, start_velocity,
                                              end_velocity, duration, elapsed, out, workers))


def velocity_to_tangent(velocity: ArrayLike, duration: ArrayLike, *,
                        out: Optional[np.ndarray] = None,
                        workers: Optional[int] = None) -> np.ndarray:
    """Per-second velocity to a segment tangent: ``duration * velocity``.

    Broadcasts like a ufunc; ``duration`` must be > 0 and everything finite.
    ``out`` and ``workers`` as in :func:`hermite`.
    """
    return _core._velocity_to_tangent("velocity_to_tangent", velocity, duration, out, workers)


def tangent_to_velocity(tangent: ArrayLike, duration: ArrayLike, *,
                        out: Optional[np.ndarray] = None,
                        workers: Optional[int] = None) -> np.ndarray:
    """Segment tangent to a per-second velocity: ``tangent / duration``.

    Broadcasts like a ufunc; ``duration`` must be > 0 and everything finite.
    ``out`` and ``workers`` as in :func:`hermite`.
    """
    return _core._tangent_to_velocity("tangent_to_velocity", tangent, duration, out, workers)


class HermiteSegment(ByValue):
    """One cubic Hermite segment with per-second key velocities.

    The tangents ``duration * velocity`` are formed once, here; evaluation
    takes seconds since the segment start and returns position and velocity
    per track-second. When a track plays at rate ``r``, the real-time velocity
    is ``r`` times the returned one.

    >>> seg = HermiteSegment(0.0, 10.0, 2.0, 0.0, duration=2.0)
    >>> seg.start_tangent, float(seg.evaluate(1.0).position)
    (4.0, 5.5)
    """

    __slots__ = ("_start", "_end", "_start_velocity", "_end_velocity", "_duration",
                 "_start_tangent", "_end_tangent")

    def __init__(self, start: float, end: float, start_velocity: float, end_velocity: float,
                 duration: float) -> None:
        values = [real_number("HermiteSegment", name, v) for name, v in (
            ("start", start), ("end", end), ("start_velocity", start_velocity),
            ("end_velocity", end_velocity), ("duration", duration))]
        tangents = _core._hermite_init(*values)  # validates, raises on bad input
        (self._start, self._end, self._start_velocity, self._end_velocity,
         self._duration) = values
        self._start_tangent, self._end_tangent = tangents

    start = property(lambda self: self._start, doc="Value at elapsed = 0.")
    end = property(lambda self: self._end, doc="Value at elapsed = duration.")
    start_velocity = property(lambda self: self._start_velocity, doc="Per second.")
    end_velocity = property(lambda self: self._end_velocity, doc="Per second.")
    duration = property(lambda self: self._duration, doc="Seconds.")
    start_tangent = property(lambda self: self._start_tangent,
                             doc="duration * start_velocity (per unit u).")
    end_tangent = property(lambda self: self._end_tangent,
                           doc="duration * end_velocity (per unit u).")

    def evaluate(self, elapsed: ArrayLike, *,
                 out: Optional[tuple[np.ndarray, np.ndarray]] = None) -> HermiteSample:
        """Position and per-second velocity at ``elapsed`` seconds (any shape)."""
        return HermiteSample(*_core._hermite_eval(
            "HermiteSegment.evaluate", self._start, self._end, self._start_velocity,
            self._end_velocity, self._duration, elapsed, out, None))

    __call__ = evaluate

    def stretched(self, factor: float, keep: str = "velocity") -> "HermiteSegment":
        """The segment with its duration multiplied by ``factor`` (> 0).

        keep="velocity": the per-second key velocities stay; the tangents are
            rebuilt for the new duration, so the shape may change (moving keys
            in a dope sheet).
        keep="shape": the same curve played slower or faster; the velocities
            are divided by ``factor`` and the tangents stay as they are.
        """
        factor = stretch_factor("HermiteSegment.stretched", factor, keep)
        divisor = factor if keep == "shape" else 1.0
        return HermiteSegment(self._start, self._end, self._start_velocity / divisor,
                              self._end_velocity / divisor, self._duration * factor)

    _fields = (("start", "end", "start_velocity", "end_velocity", "duration"), ())

    def _state(self) -> dict:
        return {"start": self._start, "end": self._end,
                "start_velocity": self._start_velocity, "end_velocity": self._end_velocity,
                "duration": self._duration}

    @classmethod
    def _from_state(cls, state: dict) -> "HermiteSegment":
        return cls(**state)

    def __repr__(self):
        return (f"HermiteSegment(start={self._start!r}, end={self._end!r}, "
                f"start_velocity={self._start_velocity!r}, end_velocity={self._end_velocity!r}, "
                f"duration={self._duration!r})")
