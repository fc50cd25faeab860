"""The animation data model that every reader produces and every operation uses.

A :class:`Scene` holds a file's nodes (:class:`Node`: name, parent, rest
transform), its skins (:class:`Skin`) and its clips (:class:`Clip`); a clip
holds one :class:`Channel` per animated node property, whose ``curve`` (an
:class:`animcore.Curve` or :class:`animcore.RotationCurve`) evaluates it.
The readers (:mod:`animcore.gltf`, :mod:`animcore.bvh`, :mod:`animcore.usd`)
build these objects; :func:`animcore.load` picks the reader by suffix. This
module imports no file format: formats import it, never each other.

Times are seconds, translations in the file's units, rotations unit
quaternions ``(x, y, z, w)``. Also here: :func:`frame_times` (the frame grid
every bake uses) and :func:`extract_root_motion`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields, replace
import typing
import weakref
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from . import _core
from ._arrays import (as_float64, check_finite, choice, frozen_copy, index_text, positive_number,
                      real_number)
from ._objects import ByValue, PicklableError
from ._options import did_you_mean, suggest
from .cleanup import quat_continuous
from .curves import _SEGMENT_KINDS, Curve
from .rootmotion import LoopTrack, _up_axis
from .rotations import RotationCurve, quat_from_matrix, quat_to_matrix
from .skeleton import (NodeLookupError, Skeleton, Transforms, _axis_matrices, _decompose,
                       _rigid_inverse, _rigid_matrices)

if TYPE_CHECKING:
    import pandas

__all__ = ["Channel", "Clip", "MAX_FRAMES", "Node", "PATHS", "ReadError", "Scene", "Skin",
           "Unsupported", "extract_root_motion", "frame_times"]


#: Animated node properties and their number of components (weights: one per morph target).
PATHS = {"translation": 3, "rotation": 4, "scale": 3, "weights": None}
_COMPONENT_NAMES = {"translation": "xyz", "scale": "xyz", "rotation": "xyzw"}
_GLTF_NAMES = {"step": "STEP", "linear": "LINEAR", "cubic": "CUBICSPLINE"}


class ReadError(PicklableError, ValueError):
    """A malformed file: ``source`` names the file, ``location`` the place at
    fault (a JSON path, a line) and ``detail`` says why. Each reader raises
    its own subclass (:class:`animcore.gltf.GltfError`, ...)."""

    def __init__(self, source: str, location: str, detail: str):
        self.source, self.location, self.detail = source, location, detail
        where = ": ".join(part for part in (source, location) if part)
        super().__init__(f"{where}: {detail}" if where else detail)


def _quote(text: str, limit: int = 80) -> str:
    """repr of at most ``limit`` characters of ``text`` (an ellipsis marks a
    cut): what a reader's error quotes from a file stays short."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _prefixed(long: str, short: str) -> bool:
    """``long`` is ``short`` behind a prefix that ends in a separator
    (``mixamorig:hips``, ``armature|hips``, ``b_hips``)."""
    return (bool(short) and len(long) > len(short) and long.endswith(short)
            and not long[-len(short) - 1].isalnum())


def _closest_names(name: str, names) -> list:
    """The likeliest of ``names`` meant by the node name ``name``, best
    first: the same name in another case or with a namespace prefix such as
    ``mixamorig:``, then similar spellings."""
    lower = name.lower()
    close = [n for n in names if n.lower() == lower]
    close += [n for n in names if n not in close and (
        _prefixed(n.lower(), lower) or _prefixed(lower, n.lower()))]
    close += [n for n in suggest(name, names) if n not in close]  # similar spellings
    return close


def _closest_text(name: str, names) -> str:
    """"closest: 'a', 'b'" (see :func:`_closest_names`), or a short list of
    the names there are."""
    unique = list(dict.fromkeys(names))
    close = _closest_names(name, unique)
    if close:
        return "closest: " + ", ".join(map(repr, close[:3]))
    shown = ", ".join(map(repr, unique[:8]))
    more = f", ... ({len(unique)} in all)" if len(unique) > 8 else ""
    return f"its nodes are {shown}{more}" if unique else "it has no nodes"


def _scene_argument(func: str, name: str, value) -> "Scene":
    """``value`` when it is a Scene, else a ValueError naming ``func`` and the
    argument (an operation's first use of it would raise an AttributeError)."""
    if not isinstance(value, Scene):
        raise ValueError(f"{func}: {name} must be a Scene, got {type(value).__name__}")
    return value


def _query_times(func: str, t) -> np.ndarray:
    t = as_float64(func, "t", t)
    check_finite(func, "t", t)
    return t


def _inverse(func: str, what: str, matrices: np.ndarray) -> np.ndarray:
    """``np.linalg.inv`` of 4x4 ``matrices`` (..., 4, 4), or an error naming
    ``what`` (the matrices) and the index of the first without one: a
    ValueError for a singular matrix, an OverflowError for an inverse beyond
    the double range."""
    try:
        inverse = np.linalg.inv(matrices)
    except np.linalg.LinAlgError:  # some matrix is singular: found below
        inverse = None
    else:
        if np.isfinite(inverse).all():
            return inverse
    shape = matrices.shape[:-2]
    for flat, matrix in enumerate(matrices.reshape(-1, 4, 4)):
        try:
            if np.isfinite(np.linalg.inv(matrix)).all():
                continue
        except np.linalg.LinAlgError:
            raise ValueError(f"{func}: {what}{index_text(shape, flat)} is singular (it has "
                             f"no inverse)") from None
        raise OverflowError(f"{func}: {what}{index_text(shape, flat)} has an inverse beyond "
                            f"the double range")
    return inverse  # (not reached: the batch failed on one of its matrices)


def _representable(func: str, what: str, values: np.ndarray, item_ndim: int = 1) -> np.ndarray:
    """``values``, computed with overflow warnings off, or an OverflowError
    naming ``what`` and the index of the first item (of the last
    ``item_ndim`` axes) that is beyond the double range."""
    bad = ~np.isfinite(values).all(axis=tuple(range(-item_ndim, 0)))
    if bad.any():
        raise OverflowError(f"{func}: {what}{index_text(bad.shape, int(np.argmax(bad)))} is "
                            f"beyond the double range")
    return values


def _field_state(self) -> dict:
    """The state of a dataclass value (see animcore._objects): its fields."""
    return {f.name: getattr(self, f.name) for f in fields(self)}


def _short_repr(value, limit: int = 80) -> str:
    """repr of ``value``, cut to about ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _hint_options(hint) -> tuple:
    """The types an annotation allows: a Union's members, else the type itself."""
    return hint.__args__ if getattr(hint, "__origin__", None) is Union else (hint,)


def _field_check(owner: str, name: str, value, hint, where: str = "a pickled state's ") -> None:
    """A ValueError unless a field ``value`` (a restored one's: ``where``) has
    the annotated type ``hint`` (int, float, str, tuple, ndarray, object or a
    Union of them)."""
    options = _hint_options(hint)
    for option in options:
        if option is object or (option is type(None) and value is None):
            return
        if option is int and isinstance(value, (int, np.integer)) \
                and not isinstance(value, (bool, np.bool_)):
            return
        if option is float and isinstance(value, (int, float, np.integer, np.floating)) \
                and not isinstance(value, (bool, np.bool_)) and math.isfinite(value):
            return
        if option in (str, tuple) and isinstance(value, option):
            return
        if option is np.ndarray and isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
            return
    names = " or ".join("None" if o is type(None) else "finite number" if o is float
                        else "real array" if o is np.ndarray else o.__name__ for o in options)
    raise ValueError(f"{owner}: {where}{name} is {_short_repr(value)} (must be a {names})")


def _check_fields(self) -> None:
    """Each field of a model value of its annotated type, as the value is made
    (a restored value's fields were checked first, naming the pickled state).
    A reader makes one per node and channel: the common values pass on their
    exact type, the rest go through _field_check."""
    for name, hint, plain, arrays in _field_plain_types(type(self)):
        value = getattr(self, name)
        kind = type(value)
        if kind in plain or (arrays and kind is np.ndarray and value.dtype.kind in "iuf"):
            continue
        _field_check(type(self).__name__, name, value, hint, "")


@functools.lru_cache(maxsize=None)
def _field_plain_types(cls) -> tuple:
    """(name, annotation, the exact types that always pass, whether a real
    array does) of each field that is not annotated ``object``."""
    hints, found = _field_types(cls), []
    for f in fields(cls):
        hint = hints[f.name]
        options = _hint_options(hint)
        if object not in options:
            plain = frozenset(o for o in options if o in (int, str, tuple, type(None)))
            found.append((f.name, hint, plain, np.ndarray in options))
    return tuple(found)


@functools.lru_cache(maxsize=None)
def _field_types(cls) -> dict:
    """The resolved annotations of a model class (resolved once: a scene's
    pickle restores one object per node, channel and clip)."""
    return typing.get_type_hints(cls)


def _from_fields(cls, state: dict):
    """A dataclass value from its pickled fields, each of its annotated type
    (see animcore._objects), then checked by the class's ``_check_state``."""
    hints = _field_types(cls)
    for name, value in state.items():
        _field_check(cls.__name__, name, value, hints[name])
    restored = cls(**state)
    restored._check_state()
    return restored


@dataclass(frozen=True, eq=False)
class Channel(ByValue):
    """One animated node property of a clip.

    Attributes
    ----------
    node : int
        Index of the node in the file's ``nodes``.
    node_name : str or None
        The node's name, if it has one.
    path : str
        ``"translation"``, ``"rotation"``, ``"scale"`` or ``"weights"``.
    interpolation : str
        ``"STEP"``, ``"LINEAR"`` or ``"CUBICSPLINE"``, as stored in the file.
    width : int
        Components per sample: 3 (translation, scale), 4 (rotation x, y, z, w)
        or the number of morph targets (weights).
    times : ndarray, shape (K,)
        Key times in seconds (read-only).
    output : ndarray, shape (K, width) or (3K, width)
        The sampler's key values as decoded from the file (normalized integers
        already converted); for CUBICSPLINE the rows are in-tangent, value,
        out-tangent for each key, tangents per second. Read-only.
    curve : Curve or RotationCurve
        The evaluator, with glTF semantics (clamped outside the keys).
        ``curve(t)`` has shape ``t.shape + (width,)``.
    target : str or int
        The key of this channel in :meth:`Clip.sample`: the node's name when
        it has one that no other node of the file shares (and that is not the
        digits of another node's index), else its index.
    """

    node: int
    node_name: Union[str, None]
    path: str
    interpolation: Union[str, None]
    width: int
    times: np.ndarray = field(repr=False)
    output: Union[np.ndarray, None] = field(repr=False)
    curve: object = field(repr=False)
    target: Union[str, int, None] = None

    __post_init__ = _check_fields
    _state, _from_state = _field_state, classmethod(_from_fields)

    def _check_state(self) -> None:
        """A restored channel: a node index, a known path and an evaluator
        whose width is the channel's."""
        func = "Channel"
        if self.node < 0:
            raise ValueError(f"{func}: a pickled state's node is {self.node} (must be >= 0)")
        if not (isinstance(self.curve, ByValue) and callable(self.curve)):
            raise ValueError(f"{func}: a pickled state's curve is a {type(self.curve).__name__} "
                             f"(must be an animcore curve)")
        width = (4 if isinstance(self.curve, RotationCurve) else self.curve.channels
                 if isinstance(self.curve, Curve) else self.width)
        expected = PATHS.get(self.path, self.width) or self.width
        if not (self.width == width == expected and self.width >= 1):
            raise ValueError(f"{func}: a pickled state's width is {self.width} (its curve has "
                             f"{width} channels, a {self.path!r} channel {expected})")

    def sample(self, t) -> np.ndarray:
        """The channel's value at times ``t`` (seconds, any shape):
        shape ``t.shape + (width,)``. Non-finite times are a ValueError."""
        t = _query_times("Channel.sample", t)
        return self._sample(t)

    @classmethod
    def from_curve(cls, node: int, path: str, curve, *, node_name=None) -> "Channel":
        """A channel animating ``path`` of node ``node`` with any animcore curve.

        ``curve`` is a :class:`animcore.Curve` (translation, scale, weights)
        or :class:`animcore.RotationCurve` (rotation). When glTF can express
        it (step, linear or cubic keys, no easing, time remap, jumps or
        Bezier handles, which a ``Curve`` has by default), the
        channel's ``interpolation``, ``times`` and ``output`` are its glTF
        sampler (CUBICSPLINE tangents per second); otherwise ``interpolation``
        and ``output`` are None and :func:`save` samples it at ``fps=``.
        """
        func = "Channel.from_curve"
        choice(func, "path", path, tuple(PATHS))
        expected = RotationCurve if path == "rotation" else Curve
        if not isinstance(curve, expected):
            raise ValueError(f"{func}: a {path} channel needs a {expected.__name__}, got "
                             f"{type(curve).__name__}")
        width = 4 if path == "rotation" else curve.channels
        if PATHS[path] is not None and width != PATHS[path]:
            raise ValueError(f"{func}: a {path} curve needs {PATHS[path]} channels, got {width}")
        return cls._of_curve(node, node_name, path, curve)

    @classmethod
    def _of_curve(cls, node: int, node_name, path: str, curve) -> "Channel":
        """:meth:`from_curve` without its checks (any ``path``), for readers
        that name their own properties; the target is the node's name, else
        its index."""
        interpolation, output = _sampler_of(curve)
        times = frozen_copy(curve.times)
        width = 4 if isinstance(curve, RotationCurve) else curve.channels
        return cls(int(node), node_name, path, interpolation, width, times, output, curve,
                   node_name if node_name is not None else int(node))

    def _sample(self, t: np.ndarray) -> np.ndarray:
        values = np.asarray(self.curve(t), dtype=np.float64)
        return values.reshape(t.shape + (self.width,))

    def _sample_into(self, t: np.ndarray, target: np.ndarray) -> None:
        """:meth:`_sample` written into ``target`` (``t.shape + (width,)``, a
        strided view of a pose): the curve kernels write there directly."""
        curve = self.curve
        if self.width > 1 and (type(curve) is Curve or type(curve) is RotationCurve):
            curve(t, out=target)
        else:
            target[...] = self._sample(t)

    def __repr__(self) -> str:
        name = f"{self.node_name!r}" if self.node_name is not None else "None"
        return (f"Channel(node={self.node}, node_name={name}, path={self.path!r}, "
                f"interpolation={self.interpolation!r}, keys={len(self.times)}, "
                f"width={self.width})")


@dataclass(frozen=True, eq=False)
class Unsupported(ByValue):
    """A channel of a clip that animcore does not evaluate: a
    ``KHR_animation_pointer`` to something other than a node's translation,
    rotation, scale or weights (a material colour, a light, a camera), or a
    channel whose target is defined by another extension (``pointer`` None).
    ``keys`` is the number of key times of its sampler."""

    pointer: Union[str, None]
    keys: int

    __post_init__ = _check_fields
    _state, _from_state = _field_state, classmethod(_from_fields)

    def __str__(self) -> str:
        """The pointer, or what the channel is when it has none."""
        return self.pointer if self.pointer is not None else "a target another extension defines"

    def _check_state(self) -> None:
        if self.keys < 0:
            raise ValueError(f"Unsupported: a pickled state's keys is {self.keys} (must be >= 0)")


@dataclass(frozen=True, eq=False)
class Clip(ByValue):
    """One animation (a glTF animation, a BVH motion, a USD SkelAnimation): a
    name, a duration and its channels.

    ``duration`` is the last key time over all channels, in seconds; the clip
    starts at time 0 (channels whose first key is later hold that key's value).
    ``unsupported`` lists the channels that were read but are not evaluated
    (:class:`Unsupported`), so that nothing is dropped silently.
    """

    name: str
    duration: float
    channels: tuple
    unsupported: tuple = ()

    __post_init__ = _check_fields
    _state, _from_state = _field_state, classmethod(_from_fields)

    def _check_state(self) -> None:
        """A restored clip: a duration >= 0, channels and unsupported entries."""
        if not self.duration >= 0:
            raise ValueError(f"Clip: a pickled state's duration is {self.duration!r} (must be "
                             f">= 0)")
        for name, kind, items in (("channels", Channel, self.channels),
                                  ("unsupported", Unsupported, self.unsupported)):
            for i, item in enumerate(items):
                if not isinstance(item, kind):
                    raise ValueError(f"Clip: a pickled state's {name} at index ({i},) is a "
                                     f"{type(item).__name__} (must be a {kind.__name__})")

    def sample(self, t) -> dict:
        """Every channel at times ``t`` (seconds, any shape).

        Returns
        -------
        dict
            ``{(channel.target, channel.path): ndarray}``, in channel order.
            ``target`` is the node name (or the node index for unnamed or
            ambiguously named nodes); each array has shape
            ``t.shape + (width,)``: 3 for translation and scale, 4 for
            rotation (unit quaternions x, y, z, w), the number of morph targets
            for weights. Times outside ``[first key, last key]`` hold the end
            values, as glTF specifies.
        """
        t = _query_times("Clip.sample", t)
        return {(c.target, c.path): c._sample(t) for c in self.channels}

    def frames(self, fps: float, *, func: str = "Clip.frames") -> np.ndarray:
        """The clip's frames at ``fps`` (seconds), the grid :func:`animcore.bake.bake`
        samples: :func:`frame_times` over its duration, from its start (0 here;
        an FBX clip starts at its stack's start, in the file's own time)."""
        return frame_times(self.duration, fps, func=func)

    def key_times(self) -> np.ndarray:
        """Every key time of the clip's transform channels (translation,
        rotation, scale), sorted and unique: the frames an operation that
        rewrites poses (IK, retargeting, reduction) keys. ``[0.0]`` when the
        clip has none."""
        times = {}  # channels often share their key times: sort each set of times once
        for c in self.channels:
            if c.path in ("translation", "rotation", "scale"):
                key = np.asarray(c.times, dtype=np.float64)
                times.setdefault(key.tobytes(), key)
        if not times:
            return np.zeros(1)
        return np.unique(np.concatenate(list(times.values())))

    def channel(self, target, path: str) -> Channel:
        """The channel animating ``path`` of node ``target`` (name or index).

        A :class:`NodeLookupError` (a KeyError and a ValueError) lists the
        nodes and paths the clip animates, and the closest node names."""
        for c in self.channels:
            if c.path == path and target in (c.target, c.node, c.node_name):
                return c
        animated: dict = {}
        for c in self.channels:
            animated.setdefault(c.target, []).append(c.path)
        hint = did_you_mean(_closest_names(str(target), [str(n) for n in animated])[:2])
        listing = "; ".join(f"{node!r}: {', '.join(paths)}" for node, paths in animated.items())
        raise NodeLookupError(f"Clip.channel: clip {self.name!r} has no {path} channel for "
                              f"node {target!r}{hint} (it animates {listing or 'nothing'})")

    def to_dataframe(self, t: Any) -> "pandas.DataFrame":
        """Every channel at times ``t`` (seconds, 1-D) as a pandas DataFrame.

        One row per time (the index, named "time"), one column per channel
        component named ``<target>/<path>/<component>`` as in ``bake``'s CSV
        (``x, y, z`` for translation and scale, ``x, y, z, w`` for rotation,
        ``0 .. W-1`` for morph weights). Needs pandas (``pip install pandas``).
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Clip.to_dataframe needs pandas, which is not installed: "
                              "pip install pandas") from None
        t = _query_times("Clip.to_dataframe", t)
        if t.ndim != 1:
            raise ValueError(f"Clip.to_dataframe: t must be a 1-D array of times, got shape "
                             f"{t.shape}")
        columns = {}
        for c in self.channels:
            values = c._sample(t)
            parts = _COMPONENT_NAMES.get(c.path) or [str(i) for i in range(c.width)]
            for i, part in enumerate(parts):
                columns[f"{c.target}/{c.path}/{part}"] = values[:, i]
        return pd.DataFrame(columns, index=pd.Index(t, name="time"))

    def __repr__(self) -> str:
        return (f"Clip(name={self.name!r}, duration={self.duration:.6g}, "
                f"channels={len(self.channels)})")

    def _repr_html_(self) -> str:
        from ._display import html_table, names_preview
        paths: dict = {}
        for c in self.channels:
            paths[c.path] = paths.get(c.path, 0) + 1
        nodes = dict.fromkeys(str(c.target) for c in self.channels)
        rows = [("duration", f"{self.duration:.6g} s"),
                ("channels", ", ".join(f"{n} {p}" for p, n in paths.items()) or "none"),
                ("nodes", names_preview(nodes))]
        if self.unsupported:
            rows.append(("unsupported", f"{len(self.unsupported)} channel(s) read, not evaluated"))
        return html_table(f"Clip {self.name!r}", rows)


def _make_curve(times: np.ndarray, output: np.ndarray, interpolation: str, path: str,
                copy: bool = True):
    """The evaluator of one sampler: ``output`` is (K, width), or (3K, width)
    for CUBICSPLINE with in-tangent / value / out-tangent rows per key.
    ``copy`` False: the arrays are the caller's own (a reader's, read-only),
    which the curve then keeps or reads in place instead of copying them."""
    if path == "rotation":
        return RotationCurve._gltf(times, output, interpolation, "clamp", "clamp", copy)
    return Curve._gltf(times, output, interpolation, copy)


def _read_keys(curve):
    """(times, values) that a curve made by _make_curve reads: read-only views
    that keep it alive (a rotation curve's values are its keys as given)."""
    if isinstance(curve, RotationCurve):
        return curve.times, curve._given
    return curve.times, curve.values


def _keyed_channel(node: int, name, path: str, times, values, interpolation: str = "LINEAR",
                   target=None) -> Channel:
    """The channel of one sampler read from a file or computed: read-only
    ``times`` (a copy) and ``values`` (K, width) float64, evaluated as glTF's
    ``interpolation``. ``target`` defaults to the node's ``name``."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    # read-only float64 times (a reader's, shared by the channels of one
    # attribute) are kept and read in place by the curve: channels that share
    # their key times then share one array, which sampling locates once
    shared = (isinstance(times, np.ndarray) and times.dtype == np.float64 and times.ndim == 1
              and times.flags.c_contiguous and not times.flags.writeable)
    times = times if shared else np.array(times, dtype=np.float64)
    values.flags.writeable = times.flags.writeable = False
    curve = _make_curve(times, values, interpolation, path, copy=not shared)
    return Channel(node, name, path, interpolation, values.shape[1], times, values, curve,
                   name if target is None else target)


@dataclass(frozen=True, eq=False)
class Node(ByValue):
    """One node (joint) of a scene, with its rest transform (glTF's conventions).

    ``translation``, ``rotation`` (unit ``(x, y, z, w)``) and ``scale`` are
    the node's local rest transform: as stored, or decomposed from
    ``matrix`` (4x4, row-major, acting on column vectors) when the file gives
    a matrix. ``parent`` is -1 for a root. ``weights`` are the default morph
    weights (the node's, else its mesh's), ``target_names`` the mesh's morph
    target names (``extras.targetNames``) where the file has them.
    """

    index: int
    name: Union[str, None]
    parent: int
    children: tuple
    translation: np.ndarray = field(repr=False)
    rotation: np.ndarray = field(repr=False)
    scale: np.ndarray = field(repr=False)
    matrix: Union[np.ndarray, None] = field(default=None, repr=False)
    mesh: Union[int, None] = None
    skin: Union[int, None] = None
    weights: Union[np.ndarray, None] = field(default=None, repr=False)
    target_names: Union[tuple, None] = None

    def __post_init__(self):  # read-only float64 arrays, also after unpickling; checked
        for key in ("translation", "rotation", "scale", "matrix", "weights"):
            value = getattr(self, key)
            if value is not None and (not isinstance(value, np.ndarray) or value.flags.writeable):
                object.__setattr__(self, key, frozen_copy(value))
        _check_fields(self)

    _state, _from_state = _field_state, classmethod(_from_fields)

    def _check_state(self) -> None:
        """A restored node: indices in range of their kind, finite arrays of
        the transform's shapes."""
        func = "Node"
        for name, value, low in (("index", self.index, 0), ("parent", self.parent, -1),
                                 ("mesh", self.mesh, 0), ("skin", self.skin, 0)):
            if value is not None and value < low:
                raise ValueError(f"{func}: a pickled state's {name} is {value} (must be >= {low})")
        for i, child in enumerate(self.children):
            _field_check(func, f"children at index ({i},)", child, int)
        for name, shape in (("translation", (3,)), ("rotation", (4,)), ("scale", (3,)),
                            ("matrix", (4, 4)), ("weights", None)):
            value = getattr(self, name)
            if value is None:
                continue
            if (shape is not None and value.shape != shape) or (shape is None and value.ndim != 1):
                raise ValueError(f"{func}: a pickled state's {name} has shape {value.shape} "
                                 f"(must be {shape or '(W,)'})")
            if not np.isfinite(value).all():
                raise ValueError(f"{func}: a pickled state's {name} is not finite: {value}")
        if self.target_names is not None and not all(isinstance(n, str)
                                                     for n in self.target_names):
            raise ValueError(f"{func}: a pickled state's target_names must be strings")


@dataclass(frozen=True, eq=False)
class Skin(ByValue):
    """A skin (glTF's definition): ``joints`` (node indices, shape (J,)), their
    ``inverse_bind_matrices`` (J, 4, 4), row-major, identity where the file
    gives none) and the ``skeleton`` root node (or None)."""

    index: int
    name: Union[str, None]
    joints: np.ndarray
    inverse_bind_matrices: np.ndarray = field(repr=False)
    skeleton: Union[int, None] = None

    def __post_init__(self):  # read-only arrays, also after unpickling; checked
        joints = frozen_copy(self.joints, np.int64).reshape(-1)
        object.__setattr__(self, "joints", joints)
        object.__setattr__(self, "inverse_bind_matrices",
                           frozen_copy(self.inverse_bind_matrices).reshape(len(joints), 4, 4))
        _check_fields(self)

    _state, _from_state = _field_state, classmethod(_from_fields)

    def _check_state(self) -> None:
        if (self.joints < 0).any() or not np.isfinite(self.inverse_bind_matrices).all():
            raise ValueError("Skin: a pickled state has a negative joint index or a "
                             "non-finite inverse bind matrix")

    def _repr_html_(self) -> str:
        from ._display import html_table
        return html_table(f"Skin {self.name!r}" if self.name else f"Skin {self.index}", [
            ("joints", len(self.joints)),
            ("skeleton root", "none" if self.skeleton is None else self.skeleton)])

    def joint_matrices(self, scene: "Scene", clip=None, t=0.0, *, node=None,
                       workers: Optional[int] = None) -> np.ndarray:
        """Skinning matrices at times ``t``: ``t.shape + (J, 4, 4)``.

        As the glTF specification defines the joint matrix:
        ``inverse(world[node]) @ world[joint] @ inverse_bind_matrix``, where
        ``node`` is the mesh node the skin is applied to (by default the
        first node that uses this skin; when none does, as in USD and BVH
        rigs, the skeleton's own space: ``world[joint] @ inverse_bind_matrix``).
        ``clip`` None poses the rest pose.

        Each product is the C core's 4x4 product (``ac_skeleton_multiply``):
        every element's four products summed in order, without fused
        multiply-adds, so that a product's bits are the same on every machine
        (NumPy's ``@`` calls the BLAS, whose kernels differ by CPU; the mesh
        node's inverse is ``np.linalg.inv``'s). A mesh node whose world matrix
        has no inverse (a zero scale) is a ValueError naming it and the time's
        index. ``workers``: threads that share the times, as
        :meth:`Scene.pose`'s.
        """
        func = "Skin.joint_matrices"
        if node is None:
            users = [n.index for n in scene.nodes if n.skin == self.index]
            node = users[0] if users else None
        count = len(self.joints)
        first = int(self.joints[0]) if count else 0
        run = np.array_equal(self.joints, np.arange(first, first + count))  # joints in order
        if run and count == len(scene.nodes) and node is None and \
                type(scene)._world is Scene._world:  # (not FBX's formula, with pivots)
            # the products made with the world matrices, which are never stored
            # (the same bits as the products below)
            return _core._skeleton_skin(func, scene.skeleton._handle,
                                        *scene._pose(func, clip, t, workers),
                                        self.inverse_bind_matrices, None, workers)
        world = scene._world(func, clip, t, workers)
        if node is not None:  # (before world is overwritten below)
            node = scene.node_index(node, func=func)
            mesh_inverse = _inverse(func, f"the world matrix of mesh node {node} "
                                          f"({scene.joint_names[node]!r})", world[..., node, :, :])
        # a run of joints a view, others a copy; multiplied in place: no second
        # array of this size to allocate
        chosen = world[..., first:first + count, :, :] if run else world[..., self.joints, :, :]
        joints = _core._skeleton_multiply(func, chosen, self.inverse_bind_matrices, chosen,
                                          workers)
        if node is None:
            return joints
        return _core._skeleton_multiply(func, mesh_inverse[..., None, :, :], joints, joints,
                                        workers)


@dataclass(frozen=True, eq=False)
class Scene(ByValue):
    """The nodes, scenes, skins and clips of a file, whatever its format
    (:func:`animcore.load`, :func:`animcore.gltf.load_scene`, :func:`animcore.bvh.load`,
    :func:`animcore.usd.load`).

    Attributes
    ----------
    nodes : tuple of Node
        Every node of the file, in file order.
    scenes : tuple of tuple of int
        The root nodes of each of the file's scenes.
    scene : int or None
        The default scene.
    skins : tuple of Skin
    clips : tuple of Clip
        The animations, in file order (for glTF as :func:`animcore.gltf.load`
        returns them).
    skipped : tuple of ReadError
        Animations left out with ``errors="skip"`` (the reader's own error
        class, such as :class:`animcore.gltf.GltfError`; :class:`ReadError`
        after unpickling).
    """

    nodes: tuple
    scenes: tuple
    scene: Union[int, None]
    skins: tuple
    clips: tuple
    skipped: tuple = ()

    def __post_init__(self):  # its parts are of their kinds, made as after unpickling
        func = type(self).__name__
        for name, kind in (("nodes", Node), ("skins", Skin), ("clips", Clip),
                           ("skipped", ReadError)):
            items = getattr(self, name)
            if not isinstance(items, (tuple, list)):
                raise ValueError(f"{func}: {name} is {_short_repr(items)} (must be a tuple "
                                 f"of {kind.__name__})")
            for i, item in enumerate(items):
                if not isinstance(item, kind):
                    raise ValueError(f"{func}: {name} at index ({i},) is a "
                                     f"{type(item).__name__} (must be a {kind.__name__})")
            object.__setattr__(self, name, tuple(items))

    # -- lookup ---------------------------------------------------------------

    @property
    def skeleton(self) -> Skeleton:
        """Every node as one :class:`animcore.Skeleton` (node order, rest pose,
        ``names`` the :attr:`joint_names`)."""
        cached = self.__dict__.get("_skeleton")
        if cached is None:
            cached = Skeleton([n.parent for n in self.nodes],
                              [n.translation for n in self.nodes] or np.zeros((0, 3)),
                              [n.rotation for n in self.nodes] or np.zeros((0, 4)),
                              [n.scale for n in self.nodes] or np.zeros((0, 3)),
                              names=self.joint_names)
            object.__setattr__(self, "_skeleton", cached)
        return cached

    @property
    def joint_names(self) -> tuple:
        """One name per node, in node order, never None: the node's name, or
        ``"node<i>"`` (``i`` its index) for a node without one. Names can repeat
        where the file repeats them; :meth:`node_index` refuses those."""
        cached = self.__dict__.get("_joint_names")
        if cached is None:
            cached = tuple(n.name if isinstance(n.name, str) else f"node{i}"
                           for i, n in enumerate(self.nodes))
            object.__setattr__(self, "_joint_names", cached)
        return cached

    def node_index(self, node: Union[int, str], *, func: str = "Scene.node_index",
                   argument: str = "node") -> int:
        """The index of a node given by index or by name (one of
        :attr:`joint_names`, so ``"node3"`` names an unnamed node 3).

        An unknown or repeated name, or an index out of range, raises
        :class:`NodeLookupError` (both a ValueError and a KeyError) naming
        ``func`` and ``argument`` (the calling function and its parameter) and
        the closest names::

            extract_root_motion: joint 'Hips' not in the scene; closest: 'mixamorig:Hips'
        """
        names = self.joint_names
        if isinstance(node, str):
            found = [i for i, name in enumerate(names) if name == node]
            if len(found) == 1:
                return found[0]
            if found:
                raise NodeLookupError(f"{func}: {argument} {node!r} names {len(found)} nodes "
                                      f"of the scene ({', '.join(map(str, found))}); pass "
                                      "an index")
            raise NodeLookupError(f"{func}: {argument} {node!r} not in the scene; "
                                  f"{_closest_text(node, names)}")
        if isinstance(node, (bool, np.bool_)) or not isinstance(node, (int, np.integer)) \
                or not 0 <= node < len(self.nodes):
            raise NodeLookupError(f"{func}: {argument} {node!r} is not a node index in "
                                  f"[0, {len(self.nodes)}) nor a node name")
        return int(node)

    def clip(self, clip, *, func: str = "Scene.clip") -> Clip:
        """A clip given by name, index or as a :class:`Clip` (returned as is).
        An unknown one is a :class:`NodeLookupError` (both a KeyError and a
        ValueError) naming ``func`` (the calling function) and listing the
        scene's clips."""
        if isinstance(clip, Clip):
            return clip
        if isinstance(clip, str):
            for c in self.clips:
                if c.name == clip:
                    return c
            names = ", ".join(repr(c.name) for c in self.clips) or "none"
            raise NodeLookupError(f"{func}: no clip named {clip!r} (available: {names})")
        if isinstance(clip, (int, np.integer)) and not isinstance(clip, (bool, np.bool_)) \
                and 0 <= clip < len(self.clips):
            return self.clips[int(clip)]
        raise NodeLookupError(f"{func}: clip {clip!r} is neither a clip name nor an index in "
                              f"[0, {len(self.clips)})")

    def _own_clip(self, func: str, clip) -> Clip:
        """The clip (name, index or Clip), checked to animate this scene's nodes:
        every channel's node index exists, and where both the channel and the
        node have a name, the names agree (a clip of another file's rig would
        otherwise pose the wrong nodes)."""
        clip = self.clip(clip, func=func)
        checked = self.__dict__.get("_own_clips")  # id -> weakref of the clips that passed
        if checked is None:
            checked = {}
            object.__setattr__(self, "_own_clips", checked)
        known = checked.get(id(clip))
        if known is not None and known() is clip:
            return clip
        count = len(self.nodes)
        for channel in clip.channels:
            if channel.node >= count:
                raise ValueError(f"{func}: clip {clip.name!r} animates node "
                                 f"{channel.node}, but the scene has {count} nodes")
            name = self.nodes[channel.node].name
            if isinstance(channel.node_name, str) and isinstance(name, str) \
                    and channel.node_name != name:
                elsewhere = [i for i, n in enumerate(self.joint_names) if n == channel.node_name]
                hint = (f"; the scene has {channel.node_name!r} at index {elsewhere[0]}: the "
                        "clip belongs to another rig" if elsewhere else "")
                raise ValueError(f"{func}: clip {clip.name!r} animates node "
                                 f"{channel.node_name!r} (index {channel.node}), which the "
                                 f"scene does not have there (its node {channel.node} is "
                                 f"{name!r}){hint}")
        checked[id(clip)] = weakref.ref(clip)
        return clip

    # -- posing ---------------------------------------------------------------

    def pose(self, clip: Optional[Clip] = None, t: Any = 0.0, *,
             workers: Optional[int] = None) -> Transforms:
        """Local translation, rotation and scale of every node at times ``t``.

        Returns :class:`animcore.Transforms` of shapes ``t.shape + (N, 3)``,
        ``(N, 4)`` and ``(N, 3)``. A property the clip does not animate keeps
        the node's rest value (glTF: untouched properties keep the node's
        values); ``clip`` None gives the rest pose at every time.

        ``workers``: threads that share the times, with scipy.fft's meaning
        (None or 1 for one, -1 for every core, -k for all but k - 1); the
        result is the same bit for bit, and so is any error.

        A clip whose channels name nodes this scene does not have at their
        indices (a clip read from another file, for another rig) is a
        ValueError naming the clip and the node; channels without a node
        name are matched by index.
        """
        return self._pose("Scene.pose", clip, t, workers)

    def _pose(self, func: str, clip, t, workers=None) -> Transforms:
        """:meth:`pose`, with errors naming ``func`` (the public caller)."""
        t = _query_times(func, t)
        workers = _core._workers(func, workers)  # (checked whatever samples the clip)
        plan = _PosePlan.EMPTY if clip is None else _PosePlan.of(self._own_clip(func, clip))
        pose, rest = {}, self.skeleton.rest
        # one block of memory for the three arrays (each a contiguous part of it):
        # one large allocation, which the allocator reuses from call to call,
        # where three would each be mapped and faulted in afresh
        block = np.empty(t.size * sum(value.size for value in rest))
        start = 0
        for path, value in zip(("translation", "rotation", "scale"), rest):
            part = block[start:start + t.size * value.size].reshape(t.shape + value.shape)
            start += t.size * value.size
            if plan.animated[path] != len(value):
                part[...] = value  # the rest pose where no channel writes, whole rows
            pose[path] = part
        for channel in plan.sample(func, t, pose, workers):
            channel._sample_into(t, pose[channel.path][..., channel.node, :])
        return Transforms(pose["translation"], pose["rotation"], pose["scale"])

    def world(self, clip=None, t=0.0, *, nodes=None, workers: Optional[int] = None) -> np.ndarray:
        """World matrices of every node (or of ``nodes``, names or indices) at
        times ``t``: ``t.shape + (N, 4, 4)``, row-major, acting on column
        vectors. Forward kinematics over the node hierarchy in C.
        ``workers``: threads that share the times, as :meth:`pose`'s."""
        func = "Scene.world"
        if nodes is not None:
            if isinstance(nodes, (str, bytes)) or not isinstance(nodes, typing.Iterable) \
                    or (isinstance(nodes, np.ndarray) and nodes.ndim == 0):
                raise ValueError(f"{func}: nodes must be a sequence of node names or indices, "
                                 f"got {_short_repr(nodes)}")
            nodes = [self.node_index(n, func=func, argument="nodes") for n in nodes]
        world = self._world(func, clip, t, workers)
        return world if nodes is None else world[..., nodes, :, :]

    def _world(self, func: str, clip, t, workers=None) -> np.ndarray:
        """:meth:`world` of every node, with errors naming ``func`` (the public
        caller); a subclass with another transform formula (FbxScene) overrides it."""
        return self.skeleton._world(func, *self._pose(func, clip, t, workers), workers=workers)

    # What sits above the roots' local matrices in the world (a subclass that
    # converts units or axes there, FbxScene, overrides it).
    _root_frame = np.eye(4)

    def _above(self, world: np.ndarray, node: int) -> np.ndarray:
        """``world.shape[:-3] + (4, 4)``: the matrix that takes node ``node``'s
        local matrix to its world matrix, given the scene's ``world``
        matrices: its parent's world matrix, or what sits above the roots."""
        parent = self.nodes[node].parent
        if parent >= 0:
            return world[..., parent, :, :]
        return np.broadcast_to(self._root_frame, world.shape[:-3] + (4, 4))

    def _as_posed(self, func: str, nodes, local: np.ndarray, rest=None) -> np.ndarray:
        """Local rotations ``local`` (F, len(nodes), 4) of ``nodes``, found from
        world rotations as _decompose gives them, as this scene poses them.
        A mirrored world matrix (a negative scale, the node's own or above it)
        is decomposed with its x scale negated, while the scene poses each
        node with its own scale's signs: the pose's rotation is then S_above R
        S_world S_own, S_ the sign matrices (3ds Max's "Nub" end joints have
        scale (-1, -1, -1)). ``rest``: the rest world, when the caller has it."""
        rest = self._world(func, None, 0.0) if rest is None else rest
        mirrored = np.linalg.det(rest[:, :3, :3]) < 0
        mirrored_above_roots = np.linalg.det(self._root_frame[:3, :3]) < 0
        own = self.skeleton.rest.scale < 0
        x_negated = np.array([-1.0, 1.0, 1.0])
        out = local
        for k, j in enumerate(nodes):
            parent = self.nodes[j].parent
            above = mirrored[parent] if parent >= 0 else mirrored_above_roots
            if above or mirrored[j] or own[j].any():
                out = np.array(local) if out is local else out  # (the caller's stays)
                left = x_negated if above else np.ones(3)
                right = (x_negated if mirrored[j] else np.ones(3)) * np.where(own[j], -1.0, 1.0)
                out[:, k] = quat_from_matrix(left[:, None] * quat_to_matrix(local[:, k]) * right)
        return out

    def _local_transforms(self, func: str, node: int, local: np.ndarray) -> Transforms:
        """The translation, rotation and scale channel values that give node
        ``node`` the local matrices ``local`` (..., 4, 4): their TRS (a
        subclass whose local matrix has other parts, FbxScene, overrides it)."""
        return _decompose(func, local)

    def weights(self, clip=None, t=0.0) -> dict:
        """Morph weights ``{node index: t.shape + (W,)}`` of the nodes that have
        morph targets, animated where the clip has a weights channel; ``clip``
        None gives the rest weights at every time, as in :meth:`pose`."""
        t = _query_times("Scene.weights", t)
        channels = () if clip is None else self._own_clip("Scene.weights", clip).channels
        result = {n.index: np.array(np.broadcast_to(n.weights, t.shape + n.weights.shape))
                  for n in self.nodes if n.weights is not None}
        for channel in channels:
            if channel.path == "weights":
                result[channel.node] = channel._sample(t)
        return result

    # -- value semantics --------------------------------------------------------

    def _state(self) -> dict:
        return {"nodes": self.nodes, "scenes": self.scenes, "scene": self.scene,
                "skins": self.skins, "clips": self.clips,
                "skipped": tuple(str(e) for e in self.skipped)}

    @classmethod
    def _from_state(cls, state: dict) -> "Scene":
        skipped = state.get("skipped", ())
        if not (isinstance(skipped, tuple) and all(isinstance(e, str) for e in skipped)):
            raise ValueError(f"Scene: a pickled state's skipped is {_short_repr(skipped)} "
                             f"(must be a tuple of messages)")
        errors = tuple(ReadError("", "", text) for text in skipped)
        scene = _from_fields(cls, {**state, "skipped": errors})
        return scene

    def _check_state(self) -> None:
        """A restored scene (its parts' kinds checked on construction): its
        nodes, scenes, skins and clips refer to each other by indices in range
        (so that posing and drawing cannot fail on them), and the hierarchy is
        a forest."""
        func = type(self).__name__
        count = len(self.nodes)
        for i, node in enumerate(self.nodes):
            if node.index != i or node.parent >= count or any(c >= count for c in node.children):
                raise ValueError(f"{func}: a pickled state's node {i} ({node.name!r}) has index "
                                 f"{node.index}, parent {node.parent} and children "
                                 f"{node.children} (must be node indices, its own index {i})")
        for i, roots in enumerate(self.scenes):
            if not (isinstance(roots, tuple) and all(
                    isinstance(r, (int, np.integer)) and not isinstance(r, bool)
                    and 0 <= r < count for r in roots)):
                raise ValueError(f"{func}: a pickled state's scenes at index ({i},) is "
                                 f"{_short_repr(roots)} (must be a tuple of node indices)")
        if self.scene is not None and not 0 <= self.scene < max(len(self.scenes), 1):
            raise ValueError(f"{func}: a pickled state's scene is {self.scene} (must index "
                             f"scenes, {len(self.scenes)} of them)")
        for skin in self.skins:
            if (skin.joints >= count).any():
                raise ValueError(f"{func}: a pickled state's skin {skin.index} has joints "
                                 f"beyond the {count} nodes")
        for clip in self.clips:
            for channel in clip.channels:
                if channel.path not in PATHS:
                    raise ValueError(f"{func}: a pickled state's clip {clip.name!r} animates "
                                     f"{_short_repr(channel.path)} (a scene's clips animate "
                                     f"{', '.join(PATHS)})")
            try:
                self._own_clip(func, clip)
            except ValueError as error:
                raise ValueError(f"{func}: a pickled state's {error}") from None
        try:
            self.skeleton  # parents form a forest
        except ValueError as error:
            raise ValueError(f"{func}: a pickled state's nodes: {error}") from None

    def __repr__(self) -> str:
        clips = [c.name for c in self.clips]
        listed = (repr(clips) if len(clips) <= 8 else
                  "[" + ", ".join(map(repr, clips[:8])) + f", ... {len(clips)} in all]")
        return (f"Scene({len(self.nodes)} nodes, {len(self.scenes)} scene(s), "
                f"{len(self.skins)} skin(s), clips={listed})")

    def _repr_html_(self) -> str:
        from ._display import html_table, names_preview
        roots = [self.joint_names[n.index] for n in self.nodes if n.parent < 0]
        clips = [f"{c.name} ({c.duration:.3g} s)" for c in self.clips]
        rows = [("nodes", len(self.nodes)), ("roots", names_preview(roots)),
                ("skins", len(self.skins)), ("clips", names_preview(clips) or "none")]
        if self.skipped:
            rows.append(("skipped", f"{len(self.skipped)} animation(s) left out"))
        return html_table("Scene", rows)

    def plot(self, clip: Optional[Clip] = None, t: Any = 0.0, ax: Any = None, *,
             up: str = "y", units: str = "m") -> Any:
        """Draw the rig posed by ``clip`` at time(s) ``t`` (seconds; the rest
        pose when ``clip`` is None) seen from the front: bones as lines from
        each node to its parent, left joints red, right joints blue, the rest
        grey, one pose per time labelled with its time.

        ``up`` names the scene's up axis ("y": glTF, FBX and BVH as loaded;
        "z": Blender's and many USD stages' convention); the horizontal axis is
        x. ``units`` labels the axes: glTF and FBX (as loaded) are metres, a BVH
        or USD file is in its own units (pass e.g. ``units="cm"``). Left and
        right are read from the names by the patterns :func:`animcore.mirror`
        pairs. Returns the matplotlib axes; needs matplotlib.
        """
        from .plotting import plot_rig
        func = "Scene.plot"
        axis = choice(func, "up", up, ("y", "z"))
        times = np.atleast_1d(_query_times(func, t))
        if times.ndim != 1:
            raise ValueError(f"{func}: t must be a time or a 1-D array of times, got shape "
                             f"{times.shape}")
        positions = self.world(clip, times)[..., :3, 3]
        parents = np.array([n.parent for n in self.nodes], dtype=np.int64)
        return plot_rig(positions, parents, self.joint_names, times, ax,
                        up=1 if axis == "y" else 2, units=units,
                        title=None if clip is None else clip.name)


_POSE_OUTPUTS = {"translation": 0, "rotation": 1, "scale": 2}


class _PosePlan:
    """How a clip's transform channels are sampled into poses, made once per
    clip (:meth:`of`): the curves the C core samples in one call as they are
    (Curve without easing or time remaps, RotationCurve) with each one's
    output and node, the channels left to sample one by one, and the number
    of nodes each property's channels write."""

    __slots__ = ("channels", "curves", "slots", "rest", "animated")

    def __init__(self, channels):
        self.channels = [c for c in channels if c.path != "weights"]
        self.animated = {path: len({c.node for c in self.channels if c.path == path})
                         for path in _POSE_OUTPUTS}
        curves, slots, rest = [], [], []
        for channel in self.channels:
            curve, output = channel.curve, _POSE_OUTPUTS.get(channel.path)
            if output is None:
                rest.append(channel)
            elif curve.__class__ is RotationCurve and output == 1:
                curves.append(curve._curve)
                slots.append((output, channel.node))
            elif (curve.__class__ is Curve and output != 1 and not curve._remaps
                  and curve._ease is None and curve._values.ndim == 2
                  and curve._values.shape[1] == 3):
                curves.append(curve._capsule)
                slots.append((output, channel.node))
            else:
                rest.append(channel)
        taken = set(slots)
        if len(taken) < len(slots) or any((_POSE_OUTPUTS.get(c.path), c.node) in taken
                                          for c in rest):
            # a node property with several channels: the last one wins, in order
            curves, slots, rest = [], [], self.channels
        self.curves, self.rest = tuple(curves), rest
        self.slots = np.array(slots, dtype=np.int64).reshape(-1, 2)

    @classmethod
    def of(cls, clip: "Clip") -> "_PosePlan":
        plan = clip.__dict__.get("_pose_plan")
        if plan is None:
            plan = cls(clip.channels)
            object.__setattr__(clip, "_pose_plan", plan)
        return plan

    def sample(self, func: str, t: np.ndarray, pose: dict, workers=None) -> list:
        """Samples the curves the core takes into ``pose`` in one call (ozz's
        sampling job: all tracks per block of times, the GIL released), with
        the values each curve's own evaluation gives, to the bit. Returns the
        channels left to sample one by one: the others, or all of them when
        an evaluation fails (each curve then raises its own error)."""
        if not self.curves:
            return self.rest
        done = _core._pose_sample(func, self.curves, self.slots,
                                  np.ascontiguousarray(t).reshape(-1),
                                  (pose["translation"], pose["rotation"], pose["scale"]),
                                  workers)
        return self.rest if done else self.channels


_PosePlan.EMPTY = _PosePlan(())


def _sampler_of(curve):
    """(interpolation, output) of the glTF sampler that evaluates like
    ``curve``, or (None, None) when glTF cannot express it."""
    kind = curve.interpolation
    # linear and cubic segments mixed (reduce_clip's results), by any names:
    # glTF's CUBICSPLINE, a linear segment a Hermite one whose velocities at
    # both ends are its slope (glTF keeps a key's in and out tangents apart)
    segments = curve._segment_kinds() if isinstance(kind, tuple) else None  # (Curves only)
    mixed = segments is not None and set(segments.tolist()) <= {_SEGMENT_KINDS["linear"],
                                                                _SEGMENT_KINDS["cubic"]}
    if not mixed and (not isinstance(kind, str) or kind not in _GLTF_NAMES):
        return None, None
    if isinstance(curve, Curve):
        # easing, time remaps, jumps and weighted (free-length) handles have no glTF form
        if (getattr(curve, "_ease", None) is not None or getattr(curve, "_remaps", ())
                or curve.jumps or getattr(curve, "in_weights", None) is not None
                or getattr(curve, "out_weights", None) is not None):
            return None, None
        values = curve.values.reshape(len(curve.times), -1)
        if mixed or curve.interpolation == "cubic":
            v_in = np.array(curve.in_velocities, dtype=np.float64).reshape(values.shape)
            v_out = np.array(curve.out_velocities, dtype=np.float64).reshape(values.shape)
            if mixed:
                times = np.asarray(curve.times, dtype=np.float64)
                linear = segments == _SEGMENT_KINDS["linear"]
                slope = np.diff(values, axis=0) / np.diff(times)[:, None]
                v_out[:-1][linear] = slope[linear]
                v_in[1:][linear] = slope[linear]
            rows = np.stack([v_in, values, v_out], axis=1)
            output = rows.reshape(-1, values.shape[1])
        else:
            output = values
    else:  # RotationCurve
        if curve.interpolation == "cubic":  # (keys as given: glTF splines them so)
            rows = np.stack([curve.in_tangents, curve._given, curve.out_tangents], axis=1)
            output = rows.reshape(-1, 4)
        else:
            output = curve.quaternions
    output = frozen_copy(output)  # (one read-only copy, whatever the branch)
    return _GLTF_NAMES["cubic" if mixed else curve.interpolation], output


# ---------------------------------------------------------------- frames

MAX_FRAMES = 100_000_000  # per clip: more is a mistyped --fps, not an animation


def _check_fps(fps: float) -> None:
    positive_number("bake", "fps", fps)


def frame_times(duration: float, fps: float, *, func: str = "frame_times") -> np.ndarray:
    """Frame times in seconds: ``k / fps`` for ``k = 0 .. n - 1``, then ``duration``
    itself as frame ``n``, where ``n = ceil(duration * fps)``.

    glTF stores key times as float32, so a 0.4 s clip lasts 0.4000000060 s; a
    product within a relative 1e-6 of an integer counts as that integer
    (0.4 s at 30 fps is 13 frames, not 14 with a last one 2e-7 frames later).
    The last frame is always the clip's end, so the final pose is baked exactly;
    a clip shorter than one frame gives its start and end, ``[0, duration]``,
    and a clip of duration 0 the one frame ``[0]``.

    Errors name ``func`` (the calling function): ``duration`` and ``fps``
    must be finite real numbers, ``duration >= 0`` and ``fps > 0``, and the
    grid at most :data:`MAX_FRAMES` frames.
    """
    fps = positive_number(func, "fps", fps)
    duration = real_number(func, "duration", duration)
    if not (math.isfinite(duration) and duration >= 0):
        raise ValueError(f"{func}: duration is {duration!r} (must be a finite number >= 0)")
    frames = duration * fps
    if not frames <= MAX_FRAMES:  # before allocating: also catches an infinite product
        raise ValueError(f"{func}: {duration:g} s at fps={fps:g} would be {frames:.4g} frames "
                         f"(at most {MAX_FRAMES:,} per clip; lower the fps)")
    nearest = round(frames)
    last = nearest if abs(frames - nearest) <= 1e-6 * max(1.0, frames) else math.ceil(frames)
    if duration > 0:  # the start and the end, also for less than a frame
        last = max(last, 1)
    grid = np.empty(last + 1)
    grid[:last] = np.arange(last, dtype=np.float64) / fps  # (before the end: no overflow)
    grid[last] = duration
    return grid

# ---------------------------------------------------------------- root motion

def extract_root_motion(scene, clip, joint, *, mode: str = "ground", up_axis: int = 1,
                        fps=None):
    """The motion of a joint as a looping root track, and the clip without it.

    Parameters
    ----------
    scene : animcore.gltf.Scene
        The rig (:func:`animcore.gltf.load_scene`, :func:`animcore.bvh.load`).
    clip : Clip, str or int
        One of the scene's clips.
    joint : str or int
        The joint that carries the character's motion (hips or root).
    mode : {"ground", "full"}
        ``"ground"``: the joint's world translation in the ground plane and
        its turn about the up axis (the twist of its world rotation) are the
        root motion; height and the other rotations stay in the clip.
        ``"full"``: its whole world translation and rotation.
    up_axis : {0, 1, 2}
        The world's up axis (glTF: 1, y up).
    fps : float, optional
        Sample the motion on the frame grid of ``fps`` (as ``bake``); by
        default at the key times of every channel that moves the joint (its
        own and its ancestors'), plus 0 and the clip's end.

    Returns
    -------
    track : LoopTrack
        Key times from 0 to the clip's duration (0 is the clip's start: an
        FBX clip's stack start, see :meth:`Clip.frames`); positions ``(K, 3)`` with
        yaw angles about ``up_axis`` (``"ground"``, unwrapped, the up
        component 0) or quaternions (``"full"``), linear between keys. Its
        ``delta`` gives the exact motion across any number of cycles.
    clip : Clip
        A copy of the clip whose joint translation and rotation channels
        (LINEAR at the same key times) keep the joint in place: at every key
        time, the track's pose composed with the new clip's world transform of
        the joint, ``M(t) @ world'(t)``, is the original world transform (to
        rounding, 1e-9 relative). Between keys both interpolate linearly.
    """
    func = "extract_root_motion"
    scene = _scene_argument(func, "scene", scene)
    mode = choice(func, "mode", mode, ("ground", "full"))
    up_axis = _up_axis(func, up_axis)
    clip = scene.clip(clip, func=func)
    j = scene.node_index(joint, func=func, argument="joint")
    if not clip.duration > 0:
        raise ValueError(f"{func}: clip {clip.name!r} lasts {clip.duration} s (a looping "
                         "track needs a duration > 0)")
    chain, node = set(), j
    while node >= 0:
        chain.add(node)
        node = scene.nodes[node].parent
    frames = clip.frames(1.0, func=func)  # (its first and last frames: its start and end)
    if fps is None:
        keys = [c.times for c in clip.channels if c.node in chain and c.path != "weights"]
        times = np.unique(np.concatenate(keys + [frames[[0, -1]]]))
        times = times[(times >= frames[0]) & (times <= frames[-1])]
    else:
        times = clip.frames(fps, func=func)
    world = scene._world(func, clip, times)
    joint_world = world[:, j]
    trs = _decompose(func, joint_world)
    named = f"{func}: the root track of joint {scene.joint_names[j]!r}"
    keys = times - frames[0]  # (the track's time 0 is the clip's start)
    if mode == "ground":
        position = trs.translation.copy()
        position[:, up_axis] = 0.0
        q = trs.rotation
        yaw = np.unwrap(2.0 * np.arctan2(q[:, up_axis], q[:, 3]))
        track = LoopTrack._named(named, keys, position, rotations=yaw, up_axis=up_axis)
        motion = _axis_matrices(position, yaw, up_axis)
    else:
        q = quat_continuous(trs.rotation)  # one hemisphere key to key: shortest-arc slerp
        track = LoopTrack._named(named, keys, trs.translation, rotations=q)
        motion = _rigid_matrices(trs.translation, q)
    parent = scene.nodes[j].parent
    inverse = _inverse(func, f"the world matrix of the joint's parent {parent} "
                             f"({scene.joint_names[parent]!r})" if parent >= 0 else
                       "the transform above the roots", scene._above(world, j))
    with np.errstate(over="ignore", invalid="ignore"):  # (beyond the double range: below)
        local = inverse @ (_rigid_inverse(motion) @ joint_world)
    _representable(func, f"joint {scene.joint_names[j]!r} without the root motion", local, 2)
    new = scene._local_transforms(func, j, local)
    rotation = quat_continuous(new.rotation)
    node = scene.nodes[j]
    old = {c.path: c for c in clip.channels if c.node == j}
    target = old["translation"].target if "translation" in old else (
        old["rotation"].target if "rotation" in old else (node.name or j))
    replaced = {path: _keyed_channel(j, node.name, path, times, values, target=target)
                for path, values in (("translation", new.translation), ("rotation", rotation))}
    channels = [replaced.pop(c.path) if c.node == j and c.path in replaced else c
                for c in clip.channels]
    channels += list(replaced.values())
    return track, replace(clip, channels=tuple(channels))  # (an FBX clip keeps its span)

