"""Network snapshot interpolation that never interpolates across a teleport.

A server (or a deterministic simulation) sends snapshots ``(tick, segment,
position[, rotation])``. The *segment* number is the producer's declaration of
continuity: it advances whenever the state jumps (teleport, respawn, level
change, forced correction). The renderer samples the timeline at a render tick
a little behind the newest snapshot and follows these rules:

- both neighbours of the render tick in the same segment: interpolate
  (positions linearly, rotations along the shortest arc) -> ``INTERPOLATE``;
- neighbours in different segments: take the right snapshot -> ``SEGMENT_CUT``
  (never a ghost position halfway between the two sides of a teleport);
- before the oldest snapshot -> ``HOLD_OLDEST``; after the newest ->
  ``HOLD_LATEST``, or ``EXTRAPOLATE`` for at most ``max_extrapolation`` ticks
  along the newest two snapshots when they share a segment;
- nothing received yet -> ``EMPTY`` (position 0, identity rotation, ticks 0).

Pushes are checked in this order: non-finite position, negative segment or a
zero/non-finite rotation is ``INVALID``; a tick not after the newest one is
``OUT_OF_ORDER``; a segment lower than the newest one is ``INVALID``. A rejected
push changes nothing. Ticks are integers in ``[0, 2**32 - 1]``; render ticks are
real numbers (finite).

The rules are implemented once in the C core, for one entity
(:class:`SnapshotTimeline`) and for many entities in one structure-of-arrays
buffer (:class:`SnapshotBuffer`), so both agree to the last bit.
"""
from __future__ import annotations

import enum
from typing import Any, NamedTuple, Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from . import _core
from ._arrays import broadcast_named, flag, integer, real_number, shapes
from ._objects import ByValue
from .rotations import quaternion_input

__all__ = [
    "PushResult",
    "SampleMode",
    "SampleResult",
    "SnapshotBuffer",
    "SnapshotTimeline",
    "Snapshots",
]

TICK_MAX = 2**32 - 1
_REALS = (int, float, np.integer, np.floating)


class _NamedIntEnum(enum.IntEnum):
    """An IntEnum that prints as its name (``print(mode)`` says
    ``INTERPOLATE``, not ``2``), in ``str()`` and f-strings; numeric format
    specifications (``f"{mode:d}"``) still give the number."""

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        try:
            return format(self.name, spec)
        except ValueError:  # a numeric specification
            return format(int(self), spec)


class PushResult(_NamedIntEnum):
    """Outcome of one push. Arrays of results hold these values as uint8."""

    ACCEPTED = 0
    OUT_OF_ORDER = 1
    INVALID = 2


_RESULTS = tuple(PushResult)
_TIMELINE_INTEGERS = ("tick", "segment")
_BUFFER_INTEGERS = ("entity", "tick", "segment", "generation")


class SampleMode(_NamedIntEnum):
    """How a sample was produced. Arrays of modes hold these values as uint8."""

    EMPTY = 0
    HOLD_OLDEST = 1
    INTERPOLATE = 2
    HOLD_LATEST = 3
    SEGMENT_CUT = 4
    EXTRAPOLATE = 5


_MODES = tuple(SampleMode)


class SampleResult(NamedTuple):
    """A sampled state and how it was obtained.

    position : float, or array
        The position (same units as pushed).
    rotation : array of shape (..., 4) or None
        Unit quaternion ``(x, y, z, w)``; None without rotations.
    mode : SampleMode, or uint8 array of SampleMode values
    left_tick, right_tick : int, or int64 arrays
        The snapshots the sample came from: equal for a hold of one
        snapshot; the two snapshots used for an interpolation, a cut or an
        extrapolation, also when an extrapolation is held at its limit
        (``HOLD_LATEST`` with two different ticks).
    """

    position: Any
    rotation: Any
    mode: Union[SampleMode, np.ndarray]
    left_tick: Any
    right_tick: Any


class Snapshots(NamedTuple):
    """The snapshots an entity retains, oldest first."""

    tick: np.ndarray
    segment: np.ndarray
    position: np.ndarray
    rotation: Optional[np.ndarray]


# -- the calls into the binding ----------------------------------------------------
#
# The binding converts, broadcasts and checks the values and the out= arrays;
# these say, from the shapes alone and before anything is applied, what it
# cannot know: that a single push is one snapshot, whether a rotation belongs,
# how a sample's five outputs map to its object.

def _count(func: str, name: str, value) -> int:
    return integer(func, name, value, 0, 2**63 - 1)


def _push_shape(func, dim, names, integers, position, rotation, channel_axis) -> tuple:
    """The shape of the snapshots a push offers, the broadcast of the
    integers' shapes and the positions' and rotations' leading shapes, from
    the shapes alone; a ValueError when position's last axis is not dim,
    rotation's not 4, or they do not broadcast."""
    found = shapes(func, **dict(zip(names, integers)), position=position,
                   **({} if rotation is None else {"rotation": rotation}))
    for name, width, has_axis in (("position", dim, channel_axis), ("rotation", 4, True)):
        if name in found and has_axis:
            if found[name][-1:] != (width,):
                raise ValueError(f"{func}: {name} must have a last axis of length {width}, "
                                 f"got shape {found[name]}")
            found[name] = found[name][:-1]
    return broadcast_named(func, found)


def _check_single(func: str, name: str, value, advice: str = "") -> None:
    """A ValueError unless ``value`` is one number (a Python or NumPy scalar
    or a 0-d array); ``advice`` ends the message, else the shape does."""
    if isinstance(value, _REALS):
        return
    shape = shapes(func, **{name: value})[name]
    if shape != ():
        raise ValueError(f"{func}: {name} must be a single value"
                         + (f"; {advice}" if advice else f", got shape {shape}"))


def _ndim(value) -> int:
    """np.ndim, or -1 for a ragged sequence (whose error the binding names)."""
    if type(value) is np.ndarray:
        return value.ndim
    try:
        return np.ndim(value)
    except ValueError:
        return -1


def _offer(func, target, names: tuple, integers: tuple, position, rotation, single=False):
    """Runs a push of the integer arguments ``names`` (values ``integers``),
    position and rotation on the declared binding, which checks every snapshot
    before applying any, and with ``single`` refuses arrays of more than one.
    What its messages would phrase in terms of whole arrays comes from the
    shapes, once it refused."""
    if rotation is None:
        if target._rotations:
            raise ValueError(f"{func}: rotation is required (created with rotations=True)")
        arrays = (*integers, position)
    elif not target._rotations:
        raise ValueError(f"{func}: rotation given, but created with rotations=False")
    else:
        if type(rotation) is not np.ndarray:
            rotation = quaternion_input(rotation)
        arrays = (*integers, position, rotation)
    # dim 1 positions may leave their channel axis out
    channel_axis = target._dim != 1 or (not isinstance(position, _REALS)
                                        and _ndim(position) > 0 and np.shape(position)[-1] == 1)
    try:
        codes = target._push_kernel(func, target._contexts[single][channel_axis], *arrays,
                                    None, None)
    except ValueError:
        if single:
            for name, value in zip(names, integers):
                _check_single(func, name, value, "use push_many")
        shape = _push_shape(func, target._dim, names, integers, position, rotation,
                            channel_axis)
        if single and shape != ():
            raise ValueError(f"{func}: one snapshot expected, got arrays of shape {shape}; "
                             "use push_many") from None
        raise
    return codes if type(codes) is np.ndarray else _RESULTS[codes]


def _sample(func: str, target, args: tuple, out, workers=None) -> tuple:
    """(position, rotation or None, mode, left_tick, right_tick) from the
    declared sample of ``target`` on ``args``, written into ``out`` when
    given: five arrays that the binding checks (shape, dtype, writeable),
    out[1] None without rotations (the binding's rotation output is then
    empty, so the indices of its messages are the caller's)."""
    if out is not None:
        if not isinstance(out, tuple) or len(out) != 5:
            raise ValueError(f"{func}: out must be a tuple of 5 arrays "
                             "(position, rotation or None, mode, left_tick, right_tick)")
        if not target._rotations and out[1] is not None:
            raise ValueError(f"{func}: out[1] must be None without rotations")
    position, rotation, mode, left, right = target._sample_kernel(func, target._handle, *args,
                                                                  out, workers)
    return position, rotation if target._rotations else None, mode, left, right


def _kernels(target, handle, push, sample) -> None:
    """Sets the declared kernels of a timeline or buffer (those with rotations
    when it has them) and its push contexts, ``[single][channel_axis]``: many
    snapshots or one, dim 1 positions without or with their channel axis."""
    target._handle = handle
    target._push_kernel = push[target._rotations]
    target._sample_kernel = sample[target._rotations]
    target._contexts = tuple(((handle, False, one), (handle, True, one)) for one in (False, True))
    # a single push's: with the channel axis, but none for a float of dim 1
    target._usual_context = target._contexts[True][target._dim != 1]


# -- one entity ----------------------------------------------------------------

def _from_core_state(cls, state: dict):
    """A timeline or buffer from its ``_state``: built from its options, then
    given the exact content the C core exported (validated there)."""
    state = dict(state)
    core = state.pop("core")
    if not isinstance(core, (np.ndarray, bytes)):  # (its content is checked by the core)
        raise ValueError(f"{cls.__name__}: a pickled state's core is a {type(core).__name__} "
                         f"(must be the array the C core exported)")
    obj = cls(**state)
    _core._snapshot_state_set(cls.__name__, obj._handle, core)
    return obj


class SnapshotTimeline(ByValue):
    """The snapshot timeline of one networked entity.

    Parameters
    ----------
    dim : int
        Position channels per snapshot (1 for a scalar position).
    capacity : int
        Snapshots retained, in [1, 2**24]. The timeline is a bounded ring: a push
        into a full ring evicts the oldest snapshot, so render ticks older than
        the oldest retained snapshot give ``HOLD_OLDEST`` at that snapshot.
        Order checks still compare against the newest snapshot.
    rotations : bool
        Whether snapshots carry a rotation quaternion ``(x, y, z, w)``,
        interpolated along the shortest arc (q and -q are the same rotation).
        Rotations are stored normalized; a zero or non-finite one is INVALID.
    max_extrapolation : float
        Ticks past the newest snapshot for which the motion of the newest two
        snapshots is continued (``EXTRAPOLATE``), provided both lie in the
        same segment; never across a segment change. Later render ticks hold
        the value reached at the limit (``HOLD_LATEST``, left/right ticks those
        two snapshots). 0 (the default) always holds the newest snapshot. An
        extrapolation that is not representable holds the newest snapshot.
    reorder_window : int
        W ticks, in [0, 65536]. With W > 0 pushes wait in a receive buffer and
        are released into the timeline in tick order once the newest received
        tick is W ahead of them (or on :meth:`flush`). A push at or before the
        newest released tick, or repeating a waiting tick, is OUT_OF_ORDER; a
        push whose segment is lower than that of a snapshot before it in tick
        order (or higher than one after it) is INVALID. Sampling sees released
        snapshots only. With W = 0 every push is released at once.

    Notes
    -----
    Threads: samples from several threads run together (they do not change
    the timeline, and large ones release the GIL). :meth:`push`,
    :meth:`push_many` and :meth:`flush` while another thread samples the
    same timeline raise RuntimeError (``another thread is sampling this
    object``) and change nothing, and a sample during a push raises
    RuntimeError likewise; retry, or give each thread its own timeline. This
    holds on free-threaded CPython builds too.

    Examples
    --------
    >>> tl = SnapshotTimeline()
    >>> for tick, segment, x in [(100, 0, 0.0), (102, 0, 2.0), (104, 1, 102.0), (106, 1, 104.0)]:
    ...     _ = tl.push(tick, segment, x)
    >>> tl.sample(101.5).position, tl.sample(103).mode.name
    (1.5, 'SEGMENT_CUT')
    """

    def __init__(self, dim: int = 1, *, capacity: int = 64, rotations: bool = False,
                 max_extrapolation: float = 0, reorder_window: int = 0):
        func = "SnapshotTimeline"
        self._dim = _count(func, "dim", dim)
        self._capacity = _count(func, "capacity", capacity)
        self._window = _count(func, "reorder_window", reorder_window)
        self._rotations = flag(func, "rotations", rotations)
        self._extrapolation = real_number(func, "max_extrapolation", max_extrapolation)
        _kernels(self, _core._snapshot_timeline_new(self._dim, self._capacity, self._rotations,
                                                    self._extrapolation, self._window),
                 (_core._snapshot_timeline_push, _core._snapshot_timeline_push_rotations),
                 (_core._snapshot_timeline_sample, _core._snapshot_timeline_sample_rotations))

    dim = property(lambda self: self._dim, doc="Position channels.")
    capacity = property(lambda self: self._capacity, doc="Snapshots retained.")
    rotations = property(lambda self: self._rotations, doc="Whether snapshots carry rotations.")
    max_extrapolation = property(lambda self: self._extrapolation, doc="Ticks.")
    reorder_window = property(lambda self: self._window, doc="Ticks.")

    def push(self, tick: int, segment: int, position, rotation=None) -> PushResult:
        """Offer one snapshot; returns its :class:`PushResult`.

        Parameters
        ----------
        tick : int
            Simulation tick, in ``[0, 2**32 - 1]``.
        segment : int
            Continuity segment (>= 0, never decreasing).
        position : float or array of shape (dim,)
        rotation : array of shape (4,), optional
            Required with ``rotations=True``, refused otherwise. Normalized
            when stored; a ``scipy.spatial.transform.Rotation`` is taken
            through its ``as_quat()``.

        Raises
        ------
        ValueError
            A tick outside the unsigned 32-bit range, a non-integral tick or
            segment, or a position/rotation of the wrong shape. Nothing changes.
        RuntimeError
            Another thread is sampling this timeline (see Notes). Nothing changes.
        """
        func = "SnapshotTimeline.push"
        if self._dim != 1 or type(position) is float:  # its channel axis known
            # nothing to normalize: straight to the binding, which takes one snapshot only
            try:
                if rotation is None and not self._rotations:
                    return _RESULTS[self._push_kernel(func, self._usual_context, tick, segment,
                                                      position, None, None)]
                if type(rotation) is np.ndarray and self._rotations:
                    return _RESULTS[self._push_kernel(func, self._usual_context, tick, segment,
                                                      position, rotation, None, None)]
            except ValueError:
                pass  # nothing was applied: raised again below, worded from the shapes
        return _offer(func, self, _TIMELINE_INTEGERS, (tick, segment), position, rotation,
                      single=True)

    def push_many(self, ticks, segments, positions, rotations=None) -> np.ndarray:
        """Offer snapshots in order; returns their results as a uint8 array.

        ``ticks`` and ``segments`` have shape (n,) (or broadcast to it),
        ``positions`` (n, dim) (or (n,) when dim is 1), ``rotations`` (n, 4)
        or a scipy Rotation of n rotations.
        Each push sees the ones before it, exactly as n calls of :meth:`push`.
        An argument error (ValueError) is raised before anything is applied,
        and so is the RuntimeError of a push while another thread samples.
        """
        return _offer("SnapshotTimeline.push_many", self, _TIMELINE_INTEGERS, (ticks, segments),
                      positions, rotations)

    def flush(self) -> int:
        """Releases every snapshot waiting in the reorder buffer; returns how many.
        RuntimeError (nothing released) while another thread samples."""
        return _core._snapshot_flush(self._handle)

    @property
    def pending(self) -> int:
        """Snapshots waiting in the reorder buffer (always 0 without a window)."""
        return _core._snapshot_read(self._handle, 0)[5]

    def __len__(self) -> int:
        return len(_core._snapshot_read(self._handle, 0)[0])

    def snapshots(self) -> Snapshots:
        """Copies of the retained (released) snapshots, oldest first."""
        ticks, segments, positions, rotations, _, _ = _core._snapshot_read(self._handle, 0)
        return Snapshots(ticks, segments, positions[:, 0] if self._dim == 1 else positions,
                         rotations)

    def sample(self, render_tick: float) -> SampleResult:
        """The state at one render tick (a finite real number).

        Returns a :class:`SampleResult` whose position is a float when dim is
        1 and an array of shape (dim,) otherwise, rotation an array (4,) or
        None, mode a :class:`SampleMode`, and the ticks Python ints.

        Raises
        ------
        ValueError
            A non-finite render tick. The timeline is never changed by sampling.
        """
        func = "SnapshotTimeline.sample"
        _check_single(func, "render_tick", render_tick, "use sample_many")
        # no out= to check: the kernel's results as they come
        position, rotation, mode, left, right = self._sample_kernel(func, self._handle,
                                                                    render_tick, None, None)
        return SampleResult(float(position) if self._dim == 1 else position,
                            rotation if self._rotations else None, _MODES[mode], int(left),
                            int(right))

    def sample_many(self, render_ticks: ArrayLike, *, out: Optional[tuple] = None
                    ) -> SampleResult:
        """The state at many render ticks (any shape S, finite).

        Returns arrays: position S (dim 1) or S + (dim,), rotation S + (4,) or
        None, mode S (uint8 :class:`SampleMode` values), left_tick and
        right_tick S (int64). A non-finite render tick raises ValueError
        naming its index. ``out``, a tuple of five arrays of those shapes
        (None for the rotation without rotations; a float dtype for the
        floats, an integer dtype that holds every value of the integers',
        any strides; any other None gets a fresh array), receives the result
        and is returned; it is untouched if the call raises.
        """
        computed = _sample("SnapshotTimeline.sample_many", self, (render_ticks,), out)
        if type(computed[2]) is not np.ndarray:  # 0-d arrays, not scalars, as for any shape
            computed = tuple(None if a is None else np.asarray(a) for a in computed)
        return SampleResult(*computed)

    _fields = (("dim", "capacity", "rotations", "max_extrapolation", "reorder_window", "core"),
               ())

    def _state(self) -> dict:
        # the retained and waiting snapshots as the C core exports them
        return {"dim": self._dim, "capacity": self._capacity, "rotations": self._rotations,
                "max_extrapolation": self._extrapolation, "reorder_window": self._window,
                "core": _core._snapshot_state_get("SnapshotTimeline", self._handle)}

    _from_state = classmethod(_from_core_state)

    def plot(self, ax=None, *, span=None, channel: int = 0, samples: int = 400):
        """Draw the retained snapshots and what sampling gives between them with
        matplotlib.

        Snapshots are dots coloured by segment; the sampled position over render
        ticks ``span=(start, end)`` (one tick around the snapshots by default) is
        a line styled by :class:`SampleMode`, broken wherever the mode changes, so
        a segment cut shows as a jump, never as a line across the teleport.
        ``channel`` picks the position channel when ``dim > 1``. Returns ``ax``.
        """
        from .plotting import plot_snapshot_timeline
        return plot_snapshot_timeline(self, ax, span=span, channel=channel, samples=samples,
                                      sample_modes=SampleMode)

    def _repr_html_(self):
        from .plotting import html_figure
        return html_figure(self)

    def __repr__(self):
        return (f"SnapshotTimeline(dim={self._dim}, capacity={self._capacity}, "
                f"rotations={self._rotations}, max_extrapolation={self._extrapolation:g}, "
                f"reorder_window={self._window}) with {len(self)} snapshots, "
                f"{self.pending} pending")


# -- many entities ---------------------------------------------------------------

class SnapshotBuffer(ByValue):
    """Snapshot timelines of many entities in one structure-of-arrays buffer.

    Every entity slot follows exactly the rules of :class:`SnapshotTimeline`
    (without a reorder window); the C core runs one shared implementation
    for both. Each slot also carries a *generation* (initially 0): a push
    with a higher generation empties the slot first (a re-used network id
    must not continue the previous owner's timeline), a push with a lower one
    is INVALID.

    Parameters
    ----------
    entities : int
        Number of entity slots.
    dim : int
        Position channels (3 by default).
    capacity : int
        Snapshots retained per entity (ring buffer; the oldest is evicted).
    rotations : bool
        Whether snapshots carry quaternions ``(x, y, z, w)``.
    max_extrapolation : float
        As for :class:`SnapshotTimeline`.

    Notes
    -----
    Memory is ``entities * capacity * (16 + 8 * dim)`` bytes (plus 32 per
    slot with rotations). Slot k of every entity is stored side by side, so
    :meth:`sample` streams through memory when the entities' snapshots arrive
    together (a server's world snapshot), and costs two scattered reads per
    entity otherwise. Render ticks within three snapshots of the newest are
    placed from a small per-entity block of the newest ticks; older ones take
    a binary search. :meth:`sample` releases the GIL for large buffers; a
    :meth:`push` while another thread samples the same buffer raises
    RuntimeError instead of racing (``another thread is sampling this
    object``; nothing changes), as does a sample during a push. Samples from
    several threads run together. This holds on free-threaded CPython too.

    Examples
    --------
    >>> buf = SnapshotBuffer(2, dim=1)
    >>> buf.push([0, 1, 0, 1], [100, 100, 102, 102], [0, 0, 0, 1], [0.0, 5.0, 2.0, 50.0])
    array([0, 0, 0, 0], dtype=uint8)
    >>> buf.sample(101).position[:, 0], buf.sample(101).mode
    (array([ 1., 50.]), array([2, 4], dtype=uint8))
    """

    def __init__(self, entities: int, dim: int = 3, *, capacity: int = 32,
                 rotations: bool = False, max_extrapolation: float = 0):
        func = "SnapshotBuffer"
        self._entities = _count(func, "entities", entities)
        self._dim = _count(func, "dim", dim)
        self._capacity = _count(func, "capacity", capacity)
        self._rotations = flag(func, "rotations", rotations)
        self._extrapolation = real_number(func, "max_extrapolation", max_extrapolation)
        _kernels(self, _core._snapshot_buffer_new(self._entities, self._dim, self._capacity,
                                                  self._rotations, self._extrapolation),
                 (_core._snapshot_buffer_push, _core._snapshot_buffer_push_rotations),
                 (_core._snapshot_buffer_sample, _core._snapshot_buffer_sample_rotations))
        self._ids = None

    entities = property(lambda self: self._entities, doc="Entity slots.")
    dim = property(lambda self: self._dim, doc="Position channels.")
    capacity = property(lambda self: self._capacity, doc="Snapshots retained per entity.")
    rotations = property(lambda self: self._rotations, doc="Whether snapshots carry rotations.")
    max_extrapolation = property(lambda self: self._extrapolation, doc="Ticks.")

    def __len__(self) -> int:
        return self._entities

    def push(self, entity: ArrayLike, tick: ArrayLike, segment: ArrayLike, position: ArrayLike,
             rotation: Optional[ArrayLike] = None, generation: ArrayLike = 0) -> np.ndarray:
        """Offer snapshots for many entities in one call.

        Parameters
        ----------
        entity : int or array of ints, shape S
            Entity slots in ``[0, entities)``. The same entity may appear
            several times: pushes are applied in order, so each sees the ones
            before it (exactly like successive calls).
        tick, segment, generation : int or arrays broadcasting to S
        position : array of shape S + (dim,)
        rotation : array of shape S + (4,), required with rotations=True
            (or a scipy Rotation of shape S; normalized when stored)

        Returns
        -------
        PushResult for a single push, else a uint8 array of shape S holding
        :class:`PushResult` values.

        Raises
        ------
        ValueError
            An entity out of range, a tick outside ``[0, 2**32 - 1]``,
            non-integral integers or mis-shaped arrays; checked before any
            push is applied, so nothing changes.
        """
        return _offer("SnapshotBuffer.push", self, _BUFFER_INTEGERS,
                      (entity, tick, segment, generation), position, rotation)

    def sample(self, render_tick: float, *, out=None, workers: Optional[int] = None
               ) -> SampleResult:
        """Every entity at one render tick.

        Parameters
        ----------
        render_tick : float
            Finite real number of ticks.
        out : tuple, optional
            ``(position, rotation, mode, left_tick, right_tick)`` arrays to
            write into: float64 (entities, dim), float64 (entities, 4) or None
            without rotations, uint8 (entities,), int64 (entities,) twice;
            any float (integer) dtype the values cast to, any strides; any
            other None gets a fresh array. They are untouched if the call
            raises.
        workers : int, optional
            Threads sharing the entities: None or 1 (this thread), -1 (every
            core) or n; the results are the same whatever the count.

        Returns
        -------
        SampleResult
            position (entities, dim), rotation (entities, 4) or None, mode
            (entities,) uint8 :class:`SampleMode` values, left_tick and
            right_tick (entities,) int64. The arrays of ``out`` when given.

        Raises
        ------
        ValueError
            A non-finite render tick.
        """
        func = "SnapshotBuffer.sample"
        _check_single(func, "render_tick", render_tick)
        if self._ids is None:  # the entities' row numbers: the loop axis of the sample
            self._ids = np.arange(self._entities, dtype=np.int64)
            self._ids.flags.writeable = False
        return SampleResult(*_sample(func, self, (self._ids, render_tick), out, workers))

    @property
    def counts(self) -> np.ndarray:
        """Snapshots retained by each entity, shape (entities,)."""
        return _core._snapshot_counts(self._handle)

    def _read(self, func, entity):
        e = _count(func, "entity", entity)
        if e >= self._entities:
            raise ValueError(f"{func}: entity is {e} (must lie in [0, entities={self._entities}))")
        return _core._snapshot_read(self._handle, e)

    def snapshots(self, entity: int) -> Snapshots:
        """Copies of one entity's retained snapshots, oldest first."""
        ticks, segments, positions, rotations, _, _ = self._read("SnapshotBuffer.snapshots", entity)
        return Snapshots(ticks, segments, positions, rotations)

    def generation(self, entity: int) -> int:
        """The generation of one entity slot."""
        return self._read("SnapshotBuffer.generation", entity)[4]

    _fields = (("entities", "dim", "capacity", "rotations", "max_extrapolation", "core"), ())

    def _state(self) -> dict:
        # every entity's snapshots and generation as the C core exports them
        return {"entities": self._entities, "dim": self._dim, "capacity": self._capacity,
                "rotations": self._rotations, "max_extrapolation": self._extrapolation,
                "core": _core._snapshot_state_get("SnapshotBuffer", self._handle)}

    _from_state = classmethod(_from_core_state)

    def _repr_html_(self) -> str:
        from ._display import html_table
        counts = self.counts
        return html_table("SnapshotBuffer", [
            ("entities", self._entities), ("dim", self._dim), ("capacity", self._capacity),
            ("rotations", self._rotations), ("max_extrapolation", f"{self._extrapolation:g}"),
            ("snapshots held", f"{int(counts.sum())} ({int((counts > 0).sum())} entities "
                               f"with any)")])

    def __repr__(self):
        return (f"SnapshotBuffer(entities={self._entities}, dim={self._dim}, "
                f"capacity={self._capacity}, rotations={self._rotations}, "
                f"max_extrapolation={self._extrapolation:g})")
