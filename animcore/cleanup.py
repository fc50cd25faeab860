"""Motion-capture cleanup: Euler angle and quaternion continuity, zero-phase
smoothing (Butterworth and Savitzky-Golay, rotations on the sphere) and foot
contact detection.

The filters reproduce ``scipy.signal`` (``filtfilt`` of ``butter`` with its
default odd padding, and ``savgol_filter`` with ``mode="interp"``) using NumPy
only; scipy is not needed at run time.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _core
from ._arrays import (as_float64, check_finite, choice, flag, index_text, integer,
                      positive_number, real_number)
from .rotations import (_sequence, quat_conjugate, quat_from_rotvec, quat_multiply,
                        quaternion_input)

__all__ = ["euler_filter", "quat_continuous", "smooth", "foot_contacts"]


def _series(func: str, name: str, value, width: int) -> np.ndarray:
    array = as_float64(func, name, value)
    if array.ndim < 2 or array.shape[-1] != width:
        raise ValueError(f"{func}: {name} must have shape (..., N, {width}), got "
                         f"{array.shape}")
    return array


def euler_filter(angles, order: str = "XYZ") -> np.ndarray:
    """Euler angles made continuous along time, rotation by rotation unchanged.

    Parameters
    ----------
    angles : array_like, shape (..., N, 3)
        Radians, frames along the second-to-last axis.
    order : str
        The sequence, as :func:`animcore.quat_from_euler` takes it (scipy's
        convention: upper case intrinsic, lower case extrinsic; all 12 orders).
        Blender's ``XYZ`` mode is intrinsic ``"ZYX"`` on reversed angles.

    Returns
    -------
    ndarray, shape (..., N, 3)
        Each frame is, of the given triplet and the sequence's other triplet
        of the same rotation (``(a + pi, pi - b, c + pi)``, or ``(a + pi, -b,
        c + pi)`` for proper sequences such as ``"ZXZ"``), each moved by whole
        turns to lie nearest the previous result, the one nearest it (least
        summed distance). So no angle steps by more than pi between frames
        and ``quat_from_euler(order, result)`` equals the input's rotation at
        every frame. The first frame is kept; an angle beyond 2^20 radians
        (a million) is first taken as the angle of the same rotation in
        [-pi, pi], where whole turns can still be added exactly.

    Examples
    --------
    >>> euler_filter([[0, 0, 3.1], [0, 0, -3.1]]).round(4)
    array([[0.    , 0.    , 3.1   ],
           [0.    , 0.    , 3.1832]])
    """
    func = "euler_filter"
    first, _, last, _ = _sequence(func, order, "order")
    array = _series(func, "angles", angles, 3)
    return _core._euler_filter(func, (int(first == last), array.shape[-2]), array, None, None)


def quat_continuous(q) -> np.ndarray:
    """Unit quaternions ``(..., N, 4)`` (x, y, z, w) with signs flipped so that
    neighbouring frames never have a negative dot product (the same rotations).
    ``q`` is array_like or a scipy Rotation (of N rotations); each is made
    unit first, and a zero quaternion is a ValueError naming its index.

    >>> quat_continuous([[0, 0, 0, 1], [0, 0, 0, -1]])
    array([[0., 0., 0., 1.],
           [0., 0., 0., 1.]])
    """
    func = "quat_continuous"
    array = _series(func, "q", quaternion_input(q), 4)
    # unit first, a zero quaternion named by its index (the rule of every quat_ function)
    unit = _core._quat_normalize(func, array, None, None)
    return _core._quat_continuous(func, (0, array.shape[-2]), unit, None, None)


# ------------------------------------------------------------------ filters

def _butter(order: int, cutoff: float, fps: float) -> tuple[np.ndarray, np.ndarray]:
    """Digital Butterworth low-pass (b, a), as scipy.signal.butter: the analog
    prototype's poles, prewarped and mapped by the bilinear transform."""
    poles = -np.exp(1j * np.pi * np.arange(-order + 1, order, 2) / (2 * order))
    warped = 4.0 * np.tan(np.pi * (cutoff / (fps / 2.0)) / 2.0)
    poles = poles * warped
    gain = warped ** order
    digital = (4.0 + poles) / (4.0 - poles)
    gain = gain / np.real(np.prod(4.0 - poles))
    b = gain * np.real(np.poly(-np.ones(order)))
    a = np.real(np.poly(digital))
    return b, a


def _lfilter(b: np.ndarray, a: np.ndarray, x: np.ndarray, state: np.ndarray) -> np.ndarray:
    """Direct form II transposed along axis 0, from initial state (n-1, ...)."""
    n = len(a)
    y = np.empty_like(x)
    z = state.copy()
    for i in range(len(x)):
        yi = b[0] * x[i] + z[0]
        for k in range(n - 2):
            z[k] = b[k + 1] * x[i] + z[k + 1] - a[k + 1] * yi
        z[n - 2] = b[n - 1] * x[i] - a[n - 1] * yi
        y[i] = yi
    return y


def _filtfilt(b: np.ndarray, a: np.ndarray, x: np.ndarray, func: str, cutoff: float,
              fps: float) -> np.ndarray:
    """scipy.signal.filtfilt(b, a, x, axis=0) with its default odd padding (the
    Butterworth filter of ``cutoff`` Hz at ``fps``, for the error message)."""
    pad = 3 * max(len(a), len(b))
    if len(x) <= pad:
        raise ValueError(f"{func}: values has {len(x)} frames; the Butterworth filter of "
                         f"this order needs more than {pad}")
    left = 2 * x[0] - x[pad:0:-1]
    right = 2 * x[-1] - x[-2:-pad - 2:-1]
    ext = np.concatenate([left, x, right])
    # the steady state of a step input (scipy's lfilter_zi)
    n = len(a)
    companion = np.zeros((n - 1, n - 1))
    companion[0] = -a[1:]
    companion[1:, :-1] += np.eye(n - 2)
    try:
        zi = np.linalg.solve(np.eye(n - 1) - companion.T, b[1:] - a[1:] * b[0])
    except np.linalg.LinAlgError:  # poles at 1 in double precision: no steady state
        zi = np.full(n - 1, np.nan)
    if not np.all(np.isfinite(zi)):
        raise ValueError(f"{func}: cutoff is {cutoff!r} Hz at fps={fps:g}: a Butterworth filter "
                         f"that low has no steady state in double precision (raise cutoff)")
    shape = (n - 1,) + (1,) * (x.ndim - 1)
    y = _lfilter(b, a, ext, zi.reshape(shape) * ext[0])
    y = _lfilter(b, a, y[::-1], zi.reshape(shape) * y[-1])[::-1]
    return y[pad:-pad]


def _savgol(x: np.ndarray, window: int, order: int) -> np.ndarray:
    """scipy.signal.savgol_filter(x, window, order, axis=0) (mode "interp"):
    least-squares polynomial in each window, evaluated at its centre; the
    first and last half windows evaluate the fit of the first and last window."""
    half = window // 2
    offsets = np.arange(-half, half + 1, dtype=np.float64)
    design = offsets[:, None] ** np.arange(order + 1)
    fit = design @ np.linalg.pinv(design)  # row k: the window's fit evaluated at point k
    n, y = len(x), np.empty_like(x)
    y[half:n - half] = _in_order(fit[half], [x[k:n - window + 1 + k] for k in range(window)])
    for r in range(half):  # the first and last half windows
        y[r] = _in_order(fit[r], x[:window])
        y[n - half + r] = _in_order(fit[half + 1 + r], x[n - window:])
    return y


def _in_order(weights: np.ndarray, terms) -> np.ndarray:
    """The sum of weights[k] * terms[k] in the order k = 0, 1, ...: the same
    bits for any memory layout and machine (a BLAS product sums in an order
    of its own, which a strided input changed)."""
    total = weights[0] * terms[0]
    for weight, term in zip(weights[1:], terms[1:]):
        total = total + weight * term
    return total


def _rotation_log(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Continuous rotation vectors of the rotations relative to the first
    frame. Unlike quat_to_rotvec (the shorter turn, angle in [0, pi]) the
    angle runs up to 2 pi, so a turn through pi stays continuous: the signs
    are made continuous first, and a fixed rotation multiplied on the left
    keeps them so (it keeps every dot product)."""
    q = np.moveaxis(quat_continuous(np.moveaxis(q, 0, -2)), -2, 0)
    base = q[:1]
    rel = quat_multiply(quat_conjugate(base), q)
    sin_half = np.linalg.norm(rel[..., :3], axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(sin_half, rel[..., 3:])
    scale = np.where(sin_half > 1e-300, angle / np.where(sin_half > 1e-300, sin_half, 1.0), 2.0)
    return base, rel[..., :3] * scale


def smooth(values, fps, *, method: str = "butterworth", cutoff=None, order: int = 2,
           window: Optional[int] = None, rotation: bool = False) -> np.ndarray:
    """Zero-phase smoothing of a time series along axis 0.

    Parameters
    ----------
    values : array_like, shape (N, ...)
        Frames along the first axis. With ``rotation=True`` the last axis holds
        quaternions (x, y, z, w; made unit first), smoothed on the sphere: the rotations'
        continuous rotation vectors relative to the first frame are filtered
        and mapped back, so the result stays unit length and a turn about one
        axis smooths as its angle does.
    fps : float
        Frames per second (> 0).
    method : {"butterworth", "savgol"}
        ``"butterworth"`` equals ``scipy.signal.filtfilt(*butter(order,
        cutoff, fs=fps), values, axis=0)`` (needs more than ``3 * (order + 1)``
        frames); ``"savgol"`` equals ``scipy.signal.savgol_filter(values,
        window, order, axis=0)``.
    cutoff : float
        Butterworth cutoff frequency in Hz, in (0, fps / 2).
    order : int
        Butterworth order (1..8) or the Savitzky-Golay polynomial order
        (< window).
    window : int
        Savitzky-Golay window length in frames (odd, <= N).

    Returns
    -------
    ndarray of the shape of ``values``.
    """
    func = "smooth"
    choice(func, "method", method, ("butterworth", "savgol"))
    rate = positive_number(func, "fps", fps)
    rotation = flag(func, "rotation", rotation)
    x = as_float64(func, "values", quaternion_input(values) if rotation else values)
    if x.ndim == 0:
        raise ValueError(f"{func}: values must have a frame axis, got a scalar")
    check_finite(func, "values", x)
    if rotation and (x.ndim < 2 or x.shape[-1] != 4):
        raise ValueError(f"{func}: rotation=True needs quaternions (N, ..., 4), got shape "
                         f"{x.shape}")
    if method == "butterworth":
        order = integer(func, "order", order, 1, 8)
        if cutoff is None:
            raise ValueError(f"{func}: method 'butterworth' needs cutoff (Hz)")
        hz = real_number(func, "cutoff", cutoff)
        if not (0 < hz < rate / 2):
            raise ValueError(f"{func}: cutoff is {hz!r} (must lie in (0, fps/2={rate / 2:g}))")
        b, a = _butter(order, hz, rate)

        def run(data):
            return _filtfilt(b, a, data, func, hz, rate)
    else:
        if window is None:
            raise ValueError(f"{func}: method 'savgol' needs window (an odd frame count)")
        window = integer(func, "window", window, 1)
        if window % 2 == 0 or window > len(x):
            raise ValueError(f"{func}: window is {window} (must be odd and <= the "
                             f"{len(x)} frames)")
        order = integer(func, "order", order, 0, window - 1)

        def run(data):
            return _savgol(data, window, order)
    if len(x) == 0:
        return x.copy()
    if not rotation:
        # values near the double range: filtered in units of a power of two
        # (exact), so that the padding's 2 x0 - x does not overflow
        big = np.abs(x).max()
        if big <= 2.0 ** 500:
            return run(x)
        scale = np.ldexp(1.0, int(np.frexp(big)[1]) - 1)  # (2^1024 is not a double)
        with np.errstate(over="ignore"):
            out = run(x / scale) * scale
        bad = ~np.isfinite(out)
        if bad.any():
            where = index_text(out.shape, int(np.argmax(bad)))
            raise OverflowError(f"{func}: the smoothed value{where} is beyond the double range "
                                f"(values up to {big:.6g})")
        return out
    # unit first (any finite non-zero length: as every quat_* function takes them)
    base, rotvec = _rotation_log(_core._quat_normalize(func, x, None, None))
    return quat_multiply(base, quat_from_rotvec(run(rotvec)))


def foot_contacts(positions, fps, *, velocity=0.15, height=None, min_frames: int = 1,
                  up: int = 1) -> np.ndarray:
    """Frames where each foot is planted.

    Parameters
    ----------
    positions : array_like, shape (N, F, 3)
        World positions of F feet over N frames (scene units).
    fps : float
        Frames per second (> 0).
    velocity : float
        Speed threshold (units per second): a foot is in contact when its
        speed, estimated by central differences (one-sided at the ends), is
        below it.
    height : float, optional
        When given, a contact also needs the foot's coordinate along the up
        axis below it.
    min_frames : int
        Contacts shorter than this many consecutive frames are dropped.
    up : int
        The up axis (0, 1 or 2; 1 for glTF and BVH's Y up).

    Returns
    -------
    ndarray of bool, shape (N, F)
    """
    func = "foot_contacts"
    p = as_float64(func, "positions", positions)
    if p.ndim != 3 or p.shape[-1] != 3:
        raise ValueError(f"{func}: positions must have shape (N, F, 3), got {p.shape}")
    check_finite(func, "positions", p)
    rate = positive_number(func, "fps", fps)
    limit = real_number(func, "velocity", velocity)
    if not limit >= 0:
        raise ValueError(f"{func}: velocity is {limit!r} (must be >= 0)")
    min_frames = integer(func, "min_frames", min_frames, 1)
    up = integer(func, "up", up, 0, 2)
    n = len(p)
    if n < 2:
        speed = np.zeros(p.shape[:2])
    else:
        speed = np.linalg.norm(np.gradient(p, 1.0 / rate, axis=0), axis=-1)
    contact = speed < limit
    if height is not None:
        top = real_number(func, "height", height)
        if np.isnan(top):
            raise ValueError(f"{func}: height is nan")
        contact &= p[..., up] < top
    if min_frames > 1:
        if n < min_frames:
            return np.zeros_like(contact)
        # a frame stays when one of the min_frames-long windows holding it is all contact
        windows = np.lib.stride_tricks.sliding_window_view
        full = windows(contact, min_frames, axis=0).all(-1)
        padded = np.pad(full, ((min_frames - 1, min_frames - 1), (0, 0)))
        contact = windows(padded, min_frames, axis=0).any(-1)
    return contact
