"""Figures of curves and tracks with matplotlib, imported only when a figure is
drawn: the ``plot()`` methods of :class:`~animcore.Curve`,
:class:`~animcore.RotationCurve`, :class:`~animcore.LoopTrack` and
:class:`~animcore.SnapshotTimeline`, and the picture Jupyter shows for them
(``_repr_html_``: the text repr above a small figure)."""
from __future__ import annotations

import base64
import html
import io

import numpy as np

from ._options import joint_side

__all__ = ["plot_curve", "plot_rotation_curve", "plot_loop_track", "plot_snapshot_timeline",
           "plot_rig", "joint_side"]


def _axes(func: str, ax):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(f"{func} needs matplotlib, which is not installed: "
                          f"pip install matplotlib (or animcore[notebooks])") from None
    if ax is None:
        import matplotlib.pyplot as plt
        ax = plt.gca()
    return ax


def _velocity_axes(ax, label: str):
    """The one right-hand axes of ``ax`` for rates, made on first use and shared
    by every later plot on ``ax`` (so ticks never overlap)."""
    twin = getattr(ax, "_animcore_rate_axes", None)
    if twin is None:
        twin = ax.twinx()
        twin.set_ylabel(label)
        ax._animcore_rate_axes = twin
    return twin


def _rate_lines(ax, twin, t, rates, colors, label, suffix):
    """Dashed rate lines on ``twin`` in the value lines' colours, each also given
    an empty twin on ``ax`` so that ``ax.legend()`` lists it."""
    rates = rates.reshape(len(t), -1)
    for c in range(rates.shape[1]):
        style = dict(ls="--", lw=1.2, alpha=0.8, color=colors[c % len(colors)])
        twin.plot(t, rates[:, c], **style)
        name = ("_nolegend_" if label is None or label.startswith("_")
                else f"{label} {suffix}".strip())
        ax.plot([], [], label=name, **style)


def _grid(lo: float, hi: float, samples: int, sides=()) -> np.ndarray:
    if hi <= lo:
        lo, hi = lo - 1.0, hi + 1.0
    t = np.linspace(lo, hi, int(samples))
    if len(sides):  # sample both sides of every jump
        sides = np.asarray(sides, dtype=np.float64)
        t = np.sort(np.r_[t, sides, np.nextafter(sides, -np.inf)])
        t = t[(t >= lo) & (t <= hi)]
    return t


def plot_curve(curve, ax=None, *, velocity: bool = False, keys: bool = True,
               samples: int = 400, span=None, **kwargs):
    """Draw a :class:`~animcore.Curve`; see :meth:`Curve.plot`."""
    ax = _axes("Curve.plot", ax)
    times = curve.times
    lo, hi = (times[0], times[-1]) if span is None else span
    t = _grid(lo, hi, samples, times if curve.jumps else ())
    lines = ax.plot(t, curve.evaluate(t), **kwargs)
    colors = [line.get_color() for line in lines]
    if keys:
        values = curve.values.reshape(len(times), -1)
        for c in range(values.shape[1]):
            ax.plot(times, values[:, c], "o", color=colors[c % len(colors)], markersize=4)
    ax.set_xlabel("time (s)")
    if not velocity:
        return ax
    twin = _velocity_axes(ax, "velocity (per s, dashed)")
    # the last sample from the left: at the end of the span the curve arrives there
    # (from the right, the last key's velocity is its extrapolation's)
    rates = curve.evaluate(t, 1)
    rates[-1:] = curve.evaluate(t[-1:], 1, side="left")
    _rate_lines(ax, twin, t, rates, colors, kwargs.get("label"), "velocity")
    return ax, twin


def plot_rotation_curve(curve, ax=None, *, angular_velocity: bool = False, keys: bool = True,
                        samples: int = 400, span=None, **kwargs):
    """Draw a :class:`~animcore.RotationCurve`; see :meth:`RotationCurve.plot`."""
    ax = _axes("RotationCurve.plot", ax)
    times = curve.times
    lo, hi = (times[0], times[-1]) if span is None else span
    t = _grid(lo, hi, samples)
    q = curve.evaluate(t)
    prefix = kwargs.pop("label", None)
    colors = []
    for c, name in enumerate("xyzw"):
        label = name if prefix is None else f"{prefix} {name}"
        (line,) = ax.plot(t, q[:, c], label=label, **kwargs)
        colors.append(line.get_color())
        if keys:
            ax.plot(times, curve.quaternions[:, c], "o", color=line.get_color(), markersize=4)
    ax.set(xlabel="time (s)", ylabel="quaternion component")
    if not angular_velocity:
        return ax
    twin = _velocity_axes(ax, "angular speed (deg/s, dashed)")
    # the last sample from the left: at the end of the span the curve arrives there
    omega = curve.angular_velocity(t)
    omega[-1:] = curve.angular_velocity(t[-1:], side="left")
    speed = np.degrees(np.linalg.norm(omega, axis=-1))
    _rate_lines(ax, twin, t, speed, ["k"], prefix or "", "angular speed")
    return ax, twin


def _turn(track, rotation, vector: np.ndarray, quat_rotate) -> np.ndarray:
    """``vector``, given in the root frame of a pose whose rotation is ``rotation``,
    in the track's own frame (the rotation convention of :class:`LoopTrack`)."""
    if track.rotation_kind == "quaternion":
        return quat_rotate(rotation, vector)
    c, s = np.cos(rotation), np.sin(rotation)  # yaw: axis a turns toward axis b
    up = track.up_axis
    a, b = (0, 1) if track.channels == 2 else ((up + 1) % 3, (up + 2) % 3)
    out = np.array(vector, dtype=np.float64)
    out[..., a] = c * vector[..., a] - s * vector[..., b]
    out[..., b] = s * vector[..., a] + c * vector[..., b]
    return out


def plot_loop_track(track, ax=None, *, cycles: float = 3, start: float = 0.0,
                    samples: int = 600, quat_rotate=None, **kwargs):
    """Draw a :class:`~animcore.LoopTrack`; see :meth:`LoopTrack.plot`.
    ``quat_rotate`` turns vectors by quaternion rotations (the caller's
    :func:`animcore.quat_rotate`: this module imports no domain module)."""
    ax = _axes("LoopTrack.plot", ax)
    T = track.duration
    t = np.linspace(start, start + cycles * T, int(samples))
    local = track.sample(track.split(t)[1])
    pose = track.sample(track.split(start)[1])  # where the character starts
    motion = track.delta(start, t)
    if track.rotation_kind == "none":
        unrolled = pose + motion
    else:
        local = local.position
        unrolled = pose.position + _turn(track, pose.rotation, motion.translation, quat_rotate)
    unrolled = unrolled.reshape(len(t), -1)
    local = local.reshape(len(t), -1).copy()
    wraps = np.flatnonzero(np.diff(track.split(t)[1]) < 0) + 1
    local[wraps] = np.nan  # no line drawn across the phase reset at a seam
    names = [""] if unrolled.shape[1] == 1 else [f"[{c}]" for c in range(unrolled.shape[1])]
    label = kwargs.pop("label", None)
    text = f"{label} " if label else ""
    for c, name in enumerate(names):
        (line,) = ax.plot(t, unrolled[:, c], label=f"{text}unrolled path{name}", **kwargs)
        ax.plot(t, local[:, c], ls="--", color=line.get_color(), lw=1,
                label=f"{text}local track{name} p(u)")
    for k in range(int(np.ceil(start / T)), int(np.floor((start + cycles * T) / T)) + 1):
        ax.axvline(k * T, color="0.6", lw=0.6, ls=":", zorder=0)
    ax.set(xlabel="player time t (s); dotted: loop seams", ylabel="root position")
    return ax


_MODE_STYLE = {  # SampleMode name -> line style
    "INTERPOLATE": dict(color="tab:blue", ls="-"),
    "HOLD_OLDEST": dict(color="tab:gray", ls=":"),
    "HOLD_LATEST": dict(color="tab:gray", ls="--"),
    "SEGMENT_CUT": dict(color="tab:red", ls="-"),
    "EXTRAPOLATE": dict(color="tab:orange", ls="-."),
}


def plot_snapshot_timeline(timeline, ax=None, *, span=None, channel: int = 0,
                           samples: int = 400, sample_modes=()):
    """Draw a :class:`~animcore.SnapshotTimeline`; see :meth:`SnapshotTimeline.plot`.
    ``sample_modes`` is the :class:`~animcore.SampleMode` enumeration (passed in:
    this module imports no domain module)."""

    ax = _axes("SnapshotTimeline.plot", ax)
    snaps = timeline.snapshots()
    if len(snaps.tick) == 0:
        ax.set(xlabel="render tick", ylabel="position", title="no snapshots")
        return ax
    if not 0 <= channel < timeline.dim:
        raise ValueError(f"SnapshotTimeline.plot: channel is {channel} "
                         f"(must lie in [0, {timeline.dim - 1}])")
    positions = snaps.position.reshape(len(snaps.tick), -1)[:, channel]
    lo, hi = (snaps.tick[0] - 1.0, snaps.tick[-1] + 1.0) if span is None else span
    ticks = np.linspace(lo, hi, int(samples))
    result = timeline.sample_many(ticks)
    path = result.position.reshape(len(ticks), -1)[:, channel]
    modes = np.asarray(result.mode)
    for mode in sample_modes:
        style = _MODE_STYLE.get(mode.name)
        if style is None or not np.any(modes == mode):
            continue
        # masked by mode, so the line breaks wherever the mode changes (a teleport)
        ax.plot(ticks, np.where(modes == mode, path, np.nan), lw=2, label=mode.name.lower(),
                **style)
    for k, segment in enumerate(np.unique(snaps.segment)):
        mine = snaps.segment == segment
        ax.plot(snaps.tick[mine], positions[mine], "o", color="k", markersize=5,
                markerfacecolor=f"C{k % 10}", label=f"snapshots, segment {segment}", zorder=3)
    name = "position" if timeline.dim == 1 else f"position[{channel}]"
    ax.set(xlabel="render tick", ylabel=name)
    return ax


def html_figure(obj, **options) -> str | None:
    """The text repr of ``obj`` above a small PNG of ``obj.plot()``, for Jupyter;
    None (Jupyter then shows the text) when matplotlib is missing or the plot fails."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    figure = Figure(figsize=(5.5, 3.0), dpi=90)
    try:
        obj.plot(figure.add_subplot(), **options)
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
    except Exception:  # a display hook must never raise: fall back to the text
        return None
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f"<pre>{html.escape(repr(obj))}</pre>"
            f'<img src="data:image/png;base64,{data}" alt="{html.escape(type(obj).__name__)}"/>')


_SIDE_COLORS = {"left": "tab:red", "right": "tab:blue", None: "0.35"}


def plot_rig(positions, parents, names, times, ax=None, *, up: int = 1, units: str = "m",
             title=None):
    """Draw world joint positions (T, N, 3) as bones to their parents, seen from
    the front (x across, axis ``up`` vertical); see :meth:`animcore.Scene.plot`."""
    ax = _axes("Scene.plot", ax)
    sides = [joint_side(str(n)) for n in names]
    count = len(times)
    for k, (time, pose) in enumerate(zip(times, positions)):
        alpha = 1.0 if count == 1 else 0.35 + 0.65 * k / (count - 1)
        for joint, parent in enumerate(parents):
            if parent < 0:
                continue
            ax.plot(pose[[parent, joint], 0], pose[[parent, joint], up], "-o", lw=2,
                    markersize=2.5, color=_SIDE_COLORS[sides[joint]], alpha=alpha)
        top = int(np.argmax(pose[:, up]))
        ax.annotate(f"t = {time:.3g} s", (pose[top, 0], pose[top, up]),
                    textcoords="offset points", xytext=(0, 6 + 11 * k), ha="center",
                    fontsize=8, alpha=alpha)  # stacked: poses often share their top
    ax.plot([], [], color=_SIDE_COLORS["left"], label="left")
    ax.plot([], [], color=_SIDE_COLORS["right"], label="right")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set(xlabel=f"x ({units})", ylabel=f"{'xyz'[up]} ({units})")
    if title:
        ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    return ax
