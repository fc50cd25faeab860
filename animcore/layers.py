"""Layer stacks: clips and channel sources blended in order, Blender's NLA rules.

A :class:`LayerStack` holds :class:`Track` objects, bottom first, each a row
of non-overlapping :class:`Layer` objects (Blender's strips), and optionally an
``action`` layer evaluated on top at the scene time. :meth:`LayerStack.evaluate`
gives one property channel at many frames; :meth:`LayerStack.pose` blends
rig poses of :class:`~animcore.gltf.Clip` layers. :func:`animcore.blender.layers_from_nla`
reads an object with bpy ``AnimData``'s attributes into the stack Blender
evaluates.

The rules (Blender 5.0's NLA, pinned by ``tests/data/nla_blender.json``,
recorded from ``bpy`` by ``tests/fixtures/record_nla.py``)
---------------------------------------------------------------------------
Which layer of a track: the one whose ``[frame_start, frame_end]`` holds the
frame; before the first layer, the first one if its extrapolation is
``"HOLD"``; in a gap or after the last, the previous one unless it is
``"NOTHING"``. A held layer is evaluated at its clamped frame ``c``. A muted
layer still occupies its range (it hides the previous one). With a solo
track only that track is evaluated (and the action is ignored); mute applies
only when no track is solo. When no track is left, the action alone gives
the value, its influence and blend mode ignored.

Influence: a keyed influence (a callable, Blender's
``use_animated_influence``) evaluated at ``c`` and clipped to [0, 1];
otherwise the blend-in/out ramp at ``c``, blend-in first::

    if blend_in != 0 and c <= frame_start + blend_in: (c - frame_start) / blend_in
    elif blend_out != 0 and c >= frame_end - blend_out: (frame_end - c) / blend_out
    else: 1

An influence of 0 or less skips the layer.

Layer time: ``action_frame_start + fmod(c - frame_start, L * scale) / scale``
with ``L = action_frame_end - action_frame_start`` (reversed:
``action_frame_end - ...``); at ``c = frame_end`` after a whole number of
repeats, ``action_frame_end`` (reversed: ``action_frame_start``). Frames and
this arithmetic are float32, as Blender computes them. The action layer has
no time mapping: its source is read at the frame itself.

Blend modes, with ``p`` the value below, ``v`` the layer's and ``w`` its
influence: REPLACE ``p (1 - w) + v w``; ADD ``p + v w``; SUBTRACT
``p - v w``; MULTIPLY ``w p v + (1 - w) p``; COMBINE by the channel's kind
with its default ``d``: ``p + (v - d) w`` (location, Euler, axis-angle,
custom properties), ``p (v / d)^w`` (scale; ``d`` of 0 counts as 1), and
for quaternions ``normalize(p) * normalize(v)^w`` with Blender's quaternion
power (:func:`animcore.apply_additive`'s ``"blender_combine"``). The value below the lowest layer is the
channel's default (0, scale 1, quaternion ``(1, 0, 0, 0)``, axis-angle
``(0, 0, 1, 0)``; ``defaults=`` for others).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Optional, Sequence

import numpy as np

from ._arrays import as_float64, check_finite, index_text, real_number
from ._objects import ByValue
from ._options import option
from .blend import apply_additive, blend_poses, make_additive
from .model import Clip, Scene, _query_times, _scene_argument
from .skeleton import Transforms

__all__ = ["BLEND_MODES", "EXTRAPOLATIONS", "Layer", "LayerStack", "Track"]

BLEND_MODES = ("REPLACE", "ADD", "SUBTRACT", "MULTIPLY", "COMBINE")
EXTRAPOLATIONS = ("HOLD", "HOLD_FORWARD", "NOTHING")
_MODE_ALIASES = {"MIX": "REPLACE", "OVERRIDE": "REPLACE", "ADDITIVE": "ADD"}
_EXTRAPOLATION_ALIASES = {"HOLD_BACKWARD": "HOLD", "NONE": "NOTHING", "CLAMP": "HOLD"}

# Blender's channel kinds (nlaevalchan_detect_mix_mode) and RNA defaults
_WIDTHS = {"location": 3, "rotation_euler": 3, "scale": 3, "rotation_quaternion": 4,
           "rotation_axis_angle": 4, "delta_location": 3, "delta_rotation_euler": 3,
           "delta_scale": 3, "delta_rotation_quaternion": 4}
_DEFAULTS = {"scale": (1.0, 1.0, 1.0), "delta_scale": (1.0, 1.0, 1.0),
             "rotation_quaternion": (1.0, 0.0, 0.0, 0.0),
             "delta_rotation_quaternion": (1.0, 0.0, 0.0, 0.0),
             "rotation_axis_angle": (0.0, 0.0, 1.0, 0.0)}
_F32_EPS = np.float32(np.finfo(np.float32).eps)


def _kind(data_path: str) -> str:
    if data_path in ("rotation_quaternion", "delta_rotation_quaternion"):
        return "quaternion"
    if data_path in ("scale", "delta_scale"):
        return "multiply"
    return "add"


# Frames, ramps and layer times in Blender's float32 (and pose's float64): a
# value beyond the range becomes inf or nan, which Track._active refuses.
def _unchecked(method):
    """``method`` with overflow and invalid warnings off, a fresh errstate per
    call (one shared errstate keeps its saved state: threads would mix them)."""
    @functools.wraps(method)
    def unchecked(*args, **kwargs):
        with np.errstate(over="ignore", invalid="ignore"):
            return method(*args, **kwargs)
    return unchecked


@dataclass(eq=False)
class Layer(ByValue):
    """One layer (an NLA strip): a source placed on the timeline.

    Parameters
    ----------
    source : mapping or Clip
        ``{(data_path, index): curve}`` with callables of the source time
        (:class:`~animcore.Curve`) for :meth:`LayerStack.evaluate`, or a
        :class:`~animcore.gltf.Clip` for :meth:`LayerStack.pose`.
    mode : {"REPLACE", "ADD", "SUBTRACT", "MULTIPLY", "COMBINE"}
    influence : float or callable
        A constant, or a callable of the frame (a keyed influence, clipped to
        [0, 1]); used only with ``use_influence``.
    use_influence : bool
        True: ``influence`` is the layer's weight (Blender's
        ``use_animated_influence``; the action layer's ``action_influence``).
        False: the blend-in/out ramp is.
    blend_in, blend_out : float
        Ramp lengths in frames (or the clip's time unit).
    extrapolation : {"HOLD", "HOLD_FORWARD", "NOTHING"}
    frame_start, frame_end : float
        Where the layer sits on the timeline.
    action_frame_start, action_frame_end : float
        The source range played (default: the layer's own range).
    repeat, scale : float
        Blender's repeat count and time scale (``frame_end`` is not derived:
        give it, as bpy does).
    reverse, mute : bool
    time_map : bool
        False for an action layer: the source is read at the frame itself.
    """

    source: Any
    mode: str = "REPLACE"
    influence: Any = 1.0
    use_influence: bool = True
    blend_in: float = 0.0
    blend_out: float = 0.0
    extrapolation: str = "HOLD"
    frame_start: float = 0.0
    frame_end: float = 1.0
    action_frame_start: Optional[float] = None
    action_frame_end: Optional[float] = None
    repeat: float = 1.0
    scale: float = 1.0
    reverse: bool = False
    mute: bool = False
    time_map: bool = True
    name: str = ""

    def __post_init__(self):
        func = "Layer"
        self.mode = option(func, "mode", self.mode, BLEND_MODES, _MODE_ALIASES)
        self.extrapolation = option(func, "extrapolation", self.extrapolation, EXTRAPOLATIONS,
                                    _EXTRAPOLATION_ALIASES)
        if not isinstance(self.source, (Mapping, Clip)):
            raise ValueError(f"{func}: source is a {type(self.source).__name__} (must be a "
                             f"mapping {{(data_path, index): curve}} or a Clip)")
        if isinstance(self.source, Mapping):
            for key, curve in self.source.items():
                if not callable(curve):
                    raise ValueError(f"{func}: source[{key!r}] is a {type(curve).__name__} "
                                     f"(must be a curve: a callable of the source time)")
        numbers = ("blend_in", "blend_out", "frame_start", "frame_end", "action_frame_start",
                   "action_frame_end", "repeat", "scale") + (() if callable(self.influence)
                                                              else ("influence",))
        for name in numbers:
            value = getattr(self, name)
            if value is None and name.startswith("action_"):
                continue  # the layer's own range, below
            value = real_number(func, name, value)
            if not math.isfinite(value):
                raise ValueError(f"{func}: {name} is {value!r} (must be finite"
                                 f"{' or a curve' if name == 'influence' else ''})")
            setattr(self, name, value)
        if self.frame_end < self.frame_start:
            raise ValueError(f"{func}: frame_end is {self.frame_end!r} (must not be before "
                             f"frame_start={self.frame_start!r})")
        if self.action_frame_start is None:
            self.action_frame_start = self.frame_start
        if self.action_frame_end is None:
            self.action_frame_end = self.frame_end

    def _state(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def _from_state(cls, state: dict) -> "Layer":
        return cls(**state)

    def __repr__(self) -> str:
        source = (f"Clip {self.source.name!r}" if hasattr(self.source, "channels")
                  else f"{len(self.source)} channels")
        return (f"Layer({self.name or source!r}, {self.mode}, frames [{self.frame_start:g}, "
                f"{self.frame_end:g}], {self.extrapolation}{', muted' if self.mute else ''})")

    # -- the rules, vectorized over frames --------------------------------------

    def _weight(self, func: str, c: np.ndarray) -> np.ndarray:
        """Influence at clamped frames c (float32 where Blender computes so)."""
        if self.use_influence and callable(self.influence):
            value = _call(func, self, "influence", self.influence, c.astype(np.float64), "frame")
            return np.clip(value, 0.0, 1.0)
        if self.use_influence:
            return np.full(c.shape, float(self.influence))
        return self._ramp(c)

    @_unchecked
    def _ramp(self, c: np.ndarray) -> np.ndarray:
        """The blend-in/out ramp at clamped frames c."""
        dt = c.dtype.type
        start, end = dt(self.frame_start), dt(self.frame_end)
        bin_, bout = dt(abs(self.blend_in)), dt(abs(self.blend_out))
        w = np.ones(c.shape, dtype=c.dtype)
        ramp_in = np.zeros(c.shape, bool) if abs(bin_) < _F32_EPS else c <= dt(start + bin_)
        if ramp_in.any():
            w[ramp_in] = np.abs(c[ramp_in] - start) / bin_
        if not abs(bout) < _F32_EPS:
            ramp_out = ~ramp_in & (c >= dt(end - bout))
            w[ramp_out] = np.abs(end - c[ramp_out]) / bout
        return w.astype(np.float64)

    @_unchecked
    def _time(self, c: np.ndarray) -> np.ndarray:
        """Source time at clamped frames c (nlastrip_get_frame_actionclip)."""
        if not self.time_map:
            return c.astype(np.float64)
        dt = c.dtype.type
        repeat = dt(self.repeat) if abs(self.repeat) >= _F32_EPS else dt(1)
        scale = dt(abs(self.scale)) if abs(self.scale) >= _F32_EPS else dt(1)
        a0, a1 = dt(self.action_frame_start), dt(self.action_frame_end)
        length = dt(a1 - a0)
        if abs(length) < _F32_EPS:
            length = dt(1)
        start, end = dt(self.frame_start), dt(self.frame_end)
        span = dt(length * scale)
        offset = (np.fmod(dt(1) * (c - start), span) / scale).astype(c.dtype)
        t = (a1 - offset) if self.reverse else (a0 + offset)
        at_end = (np.abs(c - end) < _F32_EPS) & (abs(repeat - np.floor(repeat)) < _F32_EPS)
        t = np.where(at_end, a0 if self.reverse else a1, t)
        return t.astype(np.float64)


@dataclass(eq=False)
class Track(ByValue):
    """A row of layers in time order (Blender's NLA track)."""

    layers: Sequence[Layer] = field(default_factory=list)
    mute: bool = False
    solo: bool = False
    name: str = ""

    def __post_init__(self):
        self.layers = _items("Track", "layers", self.layers, Layer)
        for i in range(1, len(self.layers)):
            if self.layers[i].frame_start < self.layers[i - 1].frame_end:
                raise ValueError(f"Track: layers[{i}] starts at {self.layers[i].frame_start!r}"
                                 f", before layers[{i - 1}] ends "
                                 f"({self.layers[i - 1].frame_end!r}); layers of a track "
                                 f"must not overlap")

    def _state(self) -> dict:
        return {"layers": tuple(self.layers), "mute": self.mute, "solo": self.solo,
                "name": self.name}

    @classmethod
    def _from_state(cls, state: dict) -> "Track":
        return cls(**state)

    def __repr__(self) -> str:
        flags = "".join([", muted" if self.mute else "", ", solo" if self.solo else ""])
        return f"Track({self.name!r}, {len(self.layers)} layers{flags})"

    @_unchecked
    def _select(self, f: np.ndarray):
        """(layer index or -1, clamped frame) per frame (nlastrips_ctime_get_strip)."""
        chosen = np.full(f.shape, -1)
        c = f.copy()
        done = np.zeros(f.shape, bool)
        last = len(self.layers) - 1
        dt = f.dtype.type
        for i, layer in enumerate(self.layers):
            start, end = dt(layer.frame_start), dt(layer.frame_end)
            within = ~done & (((f >= start) & (f <= end)) | (not layer.time_map))
            chosen[within] = i
            done |= within
            before = ~done & (f < start)
            if i == 0:
                chosen[before] = 0 if layer.extrapolation == "HOLD" else -1
                c[before] = start
            else:
                prev = self.layers[i - 1]
                chosen[before] = i - 1 if prev.extrapolation != "NOTHING" else -1
                c[before] = dt(prev.frame_end)
            done |= before
            if i == last:
                after = ~done & (f > end)
                chosen[after] = i if layer.extrapolation != "NOTHING" else -1
                c[after] = end
                done |= after
        return chosen, c

    def _active(self, func: str, f: np.ndarray):
        """Yields (layer, frame indices, weights, source times) of the layers
        that apply, skipping muted layers and influence <= 0; an OverflowError
        naming ``func`` and the layer where a weight or time is not finite."""
        chosen, c = self._select(f)
        for i, layer in enumerate(self.layers):
            idx = np.flatnonzero(chosen == i)
            if layer.mute or idx.size == 0:
                continue
            frames = c[idx]
            w = layer._weight(func, frames)
            keep = w > 0.0
            t = layer._time(frames[keep])
            if not (np.isfinite(w).all() and np.isfinite(t).all()):
                raise OverflowError(
                    f"{func}: layer {layer.name!r}: its frames [{layer.frame_start!r}, "
                    f"{layer.frame_end!r}] (action frames [{layer.action_frame_start!r}, "
                    f"{layer.action_frame_end!r}]) give a source time or weight that is not "
                    f"representable")
            if keep.any():
                yield layer, idx[keep], w[keep], t


class LayerStack(ByValue):
    """Tracks of layers blended bottom to top, then an optional action layer.

    Parameters
    ----------
    tracks : sequence of Track
        Bottom first.
    action : Layer, optional
        Evaluated on top at the frame itself (``time_map=False``), with its
        constant ``influence`` and ``mode``.
    defaults : mapping, optional
        ``{data_path: value or sequence}``: the value below the lowest layer
        for channels other than Blender's transform properties (0 otherwise);
        a sequence gives one value per index.

    See the module documentation for the rules.
    """

    def __init__(self, tracks: Sequence[Track] = (), *, action: Optional[Layer] = None,
                 defaults: Optional[Mapping[str, Any]] = None):
        func = "LayerStack"
        self.tracks = _items(func, "tracks", tracks, Track)
        if action is not None and not isinstance(action, Layer):
            raise ValueError(f"{func}: action is a {type(action).__name__} (must be a Layer or "
                             f"None)")
        if defaults is not None and not isinstance(defaults, Mapping):
            raise ValueError(f"{func}: defaults is a {type(defaults).__name__} (must be a "
                             f"mapping {{data_path: value or sequence}})")
        for path, value in (defaults or {}).items():
            name = f"defaults[{path!r}]"
            value = as_float64(func, name, value)
            check_finite(func, name, value)
            width = _WIDTHS.get(path)
            if value.ndim > 1 or (width is not None and value.size not in (1, width)):
                raise ValueError(f"{func}: {name} has shape {value.shape} (must be one value "
                                 f"or {width or 'one per index'})")
        self.action = action
        self.defaults = dict(defaults or {})

    _fields = (("tracks", "action", "defaults"), ())

    def _state(self) -> dict:
        return {"tracks": tuple(self.tracks), "action": self.action,
                "defaults": dict(self.defaults)}

    @classmethod
    def _from_state(cls, state: dict) -> "LayerStack":
        return cls(state["tracks"], action=state["action"], defaults=state["defaults"])

    def __repr__(self) -> str:
        solo = any(t.solo for t in self.tracks)
        return (f"LayerStack({len(self.tracks)} tracks, "
                f"{sum(len(t.layers) for t in self.tracks)} layers"
                f"{', an action' if self.action is not None else ''}"
                f"{', solo' if solo else ''})")

    def _plan(self):
        """(tracks evaluated, action layer or None, action alone?)."""
        solo = any(t.solo for t in self.tracks)
        tracks = [t for t in self.tracks if (t.solo if solo else not t.mute)]
        if not any(t.layers for t in tracks):
            return [], None, (self.action is not None and not solo)
        return tracks, (None if solo else self.action), False

    def animates(self, data_path: str, index: int) -> bool:
        """Whether Blender writes this channel. With layers to evaluate, the
        NLA writes every channel of the evaluated tracks' layers (muted
        layers too) and of the action (even when a track is solo), the
        default where nothing applies; without, the action alone writes its
        own channels. Blender leaves other channels as they are;
        :meth:`evaluate` gives their default."""
        tracks, _, alone = self._plan()
        layers = [self.action] if alone else [layer for t in tracks for layer in t.layers]
        if tracks and self.action is not None:
            layers.append(self.action)
        return any(not hasattr(layer.source, "channels") and (data_path, index) in layer.source
                   for layer in layers)

    def _default(self, data_path: str, components) -> np.ndarray:
        """The value below the lowest layer of each of the channel's ``components``."""
        value = np.asarray(self.defaults.get(data_path, _DEFAULTS.get(data_path, 0.0)),
                           dtype=np.float64)
        if data_path in _WIDTHS or value.size == 1:
            return np.broadcast_to(value.reshape(-1), (len(components),)).copy()
        k = components[0]  # a custom property: one value per index
        if k >= value.size:
            raise ValueError(f"LayerStack.evaluate: defaults[{data_path!r}] has {value.size} "
                             f"values (no index {k})")
        return value[[k]]

    def evaluate(self, data_path: str, index: int, frames) -> np.ndarray:
        """The value Blender's NLA gives channel ``data_path[index]`` at ``frames``.

        Parameters
        ----------
        data_path : str
            ``"location"``, ``"rotation_euler"``, ``"rotation_quaternion"``,
            ``"rotation_axis_angle"``, ``"scale"`` or any other path (a
            custom property ``'["name"]'``).
        index : int
        frames : array_like
            Scene frames (subframes allowed).
        """
        func = "LayerStack.evaluate"
        f = as_float64(func, "frames", frames)
        check_finite(func, "frames", f)
        width = _WIDTHS.get(data_path)
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) \
                or index < 0 or (width is not None and index >= width):
            raise ValueError(f"{func}: index is {index!r} (must be "
                             f"{f'in [0, {width})' if width else '>= 0'} for {data_path!r})")
        # a transform property's components blend together (quaternions); any other
        # channel alone: only the one asked for is evaluated
        components = range(width) if width else (int(index),)
        column = int(index) if width else 0
        shape = f.shape
        with np.errstate(over="ignore"):  # frames are float32, as Blender's: checked here
            f32 = f.reshape(-1).astype(np.float32)
        if not np.isfinite(f32).all():
            first = int(np.flatnonzero(~np.isfinite(f32))[0])
            raise OverflowError(f"{func}: frames{index_text(shape, first)} is "
                                f"{float(f.reshape(-1)[first])!r} (must be representable as "
                                f"float32, as Blender's frames, |value| <= "
                                f"{float(np.finfo(np.float32).max):.6g})")
        default = self._default(data_path, components)
        values = np.tile(default, (f32.size, 1))
        kind = _kind(data_path)
        tracks, action, alone = self._plan()
        if alone:
            out = self._read(self.action, data_path, components, f32.astype(np.float64))
            for k, v in out.items():
                values[:, k] = v
            return values[:, column].reshape(shape)
        for track in tracks + ([Track([action])] if action is not None else []):
            for layer, idx, w, t in track._active(func, f32):
                source = self._read(layer, data_path, components, t)
                if not source:
                    continue
                blended, overflow = _blend(layer.mode, kind, values[idx], source, w, default)
                if overflow.any():
                    row, k = (int(i[0]) for i in np.nonzero(overflow))
                    raise OverflowError(f"{func}: layer {layer.name!r} ({layer.mode}) gives "
                                        f"{data_path}[{k}] beyond the float64 range at frame "
                                        f"{float(f.reshape(-1)[idx[row]])!r}")
                values[idx] = blended
        return values[:, column].reshape(shape)

    @staticmethod
    def _read(layer: Layer, data_path: str, components, t: np.ndarray) -> dict:
        """{column: values at t} of the layer's curves of ``components``."""
        if hasattr(layer.source, "channels"):
            raise ValueError(f"LayerStack.evaluate: layer {layer.name!r} holds a Clip; "
                             f"evaluate reads channel layers (use pose for clips)")
        return {j: _call("LayerStack.evaluate", layer, f"curve {(data_path, k)!r}",
                         layer.source[(data_path, k)], t, "source time")
                for j, k in enumerate(components) if (data_path, k) in layer.source}

    def pose(self, scene: Scene, t: Any) -> Transforms:
        """The blended local pose of ``scene``'s nodes at times ``t``.

        Every layer's source is a :class:`~animcore.gltf.Clip` of the scene
        and its frame fields are in the clip's time unit (seconds). The pose
        below the lowest layer is the rest pose. REPLACE is
        :func:`animcore.blend_poses`; ADD, SUBTRACT and COMBINE apply the
        layer's pose as an additive delta against the rest pose
        (:func:`animcore.make_additive`, then :func:`animcore.apply_additive`
        at ``w``, ``-w`` and, for COMBINE, ``w`` with the ``"blender_combine"``
        convention). MULTIPLY is a channel mode: a ValueError here.
        Timing follows the rules of :meth:`evaluate` in float64. A REPLACE
        layer whose constant influence exceeds 1 is a ValueError naming the
        layer; frames whose clip time is not representable (a strip over
        frames near the double range) an OverflowError.

        Returns
        -------
        Transforms
            Shapes ``t.shape + (N, 3)``, ``(N, 4)``, ``(N, 3)``.
        """
        func = "LayerStack.pose"
        _scene_argument(func, "scene", scene)
        tt = _query_times(func, t)
        shape = tt.shape
        flat = tt.reshape(-1)
        rest = scene.pose(None, 0.0)
        pose = [np.broadcast_to(a, flat.shape + a.shape) for a in rest]  # copied when written
        tracks, action, alone = self._plan()
        stack = tracks + ([Track([action])] if action is not None else [])
        if alone:  # the action as if there were no NLA: its pose as is
            stack = [Track([Layer(self.action.source, time_map=False, name="action")])]
        for track in stack:
            for layer, idx, w, lt in list(track._active(func, flat)):
                if not isinstance(layer.source, Clip):
                    raise ValueError(f"{func}: layer {layer.name!r} holds channel curves; pose "
                                     f"reads Clip layers (use evaluate for channels)")
                if layer.mode == "MULTIPLY":
                    raise ValueError(f"{func}: layer {layer.name!r} mode is 'MULTIPLY' (a "
                                     f"channel mode; poses take REPLACE, ADD, SUBTRACT or "
                                     f"COMBINE)")
                if layer.mode == "REPLACE" and (w > 1.0).any():
                    raise ValueError(f"{func}: layer {layer.name!r} influence is "
                                     f"{float(w[w > 1.0][0])!r} (a REPLACE layer's weight "
                                     f"must lie in [0, 1])")
                sampled = scene._pose(func, layer.source, lt)
                whole = idx.size == flat.size  # every frame: no gather, no scatter
                lower = Transforms(*pose) if whole else Transforms(*(a[idx] for a in pose))
                ww = w[:, None]
                try:  # (a delta or pose beyond the double range, a scale delta of 0)
                    if layer.mode == "REPLACE" and whole and (w == 1.0).all():
                        out = sampled  # full influence replaces (blend_poses would return it)
                    elif layer.mode == "REPLACE":
                        out = blend_poses(lower, sampled, ww)
                    else:
                        delta = make_additive(sampled, rest)
                        out = apply_additive(lower, delta,
                                             -ww if layer.mode == "SUBTRACT" else ww,
                                             convention="blender_combine"
                                             if layer.mode == "COMBINE" else "local")
                except (ValueError, OverflowError) as error:
                    raise _within(f"{func}: layer {layer.name!r} ({layer.mode})", error) from None
                if whole:
                    pose = list(out)
                    continue
                pose = [a if a.flags.writeable else a.copy() for a in pose]
                for a, b in zip(pose, out):
                    a[idx] = b
        return Transforms(*(np.array(a).reshape(shape + a.shape[1:]) if not a.flags.writeable
                            else a.reshape(shape + a.shape[1:]) for a in pose))


def _within(place: str, error: Exception) -> Exception:
    """An inner error (a curve's, a blend's) as raised at ``place`` (the method
    and the layer): its kind kept, its message after the place."""
    return (OverflowError if isinstance(error, OverflowError) else ValueError)(
        f"{place}: {error}")


def _call(func: str, layer: Layer, what: str, curve, x: np.ndarray, at: str) -> np.ndarray:
    """``curve(x)``, a callable of ``layer`` (its keyed influence, a channel's
    curve), as finite float64 values of x's shape, or an error naming
    ``func``, the layer and ``what`` (``at`` says what x holds)."""
    name = f"layer {layer.name!r} {what}"
    try:
        value = curve(x)
    except (ValueError, OverflowError) as error:
        raise _within(f"{func}: {name}", error) from None
    value = as_float64(func, name, value)
    try:
        value = np.broadcast_to(value, x.shape)
    except ValueError:
        raise ValueError(f"{func}: {name} gives shape {value.shape} for {x.size} {at}s (must "
                         f"give one value per {at})") from None
    bad = np.flatnonzero(~np.isfinite(value))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{func}: {name} is {float(value.reshape(-1)[i])!r} at {at} "
                         f"{float(x.reshape(-1)[i])!r} (must be finite)")
    return value


def _normalize_qt(q: np.ndarray) -> np.ndarray:
    """Rows of (w, x, y, z) over their length, as Blender's normalize_qt: a
    zero quaternion becomes (0, 1, 0, 0). Lengths whose square would leave the
    double range are taken in units of the largest component."""
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        n = np.linalg.norm(q, axis=-1, keepdims=True)
        out = q / n
    odd = ~((n[:, 0] >= 1e-150) & (n[:, 0] <= 1e150))
    if odd.any():
        top = np.abs(q[odd]).max(axis=-1, keepdims=True)
        zero = top[:, 0] == 0.0
        units = q[odd] / np.where(zero[:, None], 1.0, top)  # largest |component| 1
        units[zero] = (0.0, 1.0, 0.0, 0.0)
        out[odd] = units / np.linalg.norm(units, axis=-1, keepdims=True)
    return out


def _items(func: str, name: str, items, kind) -> list:
    """``items`` as a list whose every element is a ``kind``, or a ValueError."""
    try:
        items = list(items)
    except TypeError:
        raise ValueError(f"{func}: {name} is a {type(items).__name__} (must be a sequence of "
                         f"{kind.__name__})") from None
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            raise ValueError(f"{func}: {name}[{i}] is a {type(item).__name__} (must be a "
                             f"{kind.__name__})")
    return items


def _blend(mode: str, kind: str, lower: np.ndarray, source: dict, w: np.ndarray,
           default: np.ndarray):
    """Blender's nla_blend_value / nla_combine_value on the keyed components:
    the values, and where they left the double range (a finite value below
    that became inf or nan, other than Blender's nan of a negative scale
    ratio to a fractional power)."""
    out = lower.copy()
    overflow = np.zeros(lower.shape, bool)
    if mode == "COMBINE" and kind == "quaternion":
        if len(source) < 4:
            return out, overflow  # Blender combines a quaternion only when all 4 are keyed
        lo = _normalize_qt(lower[:, :4])
        v = _normalize_qt(np.stack([source[k] for k in range(4)], axis=-1))
        # Blender stores (w, x, y, z); the package's poses take (x, y, z, w).
        # One joint per frame: lo * v^w is apply_additive's Combine rotation.
        xyzw = [1, 2, 3, 0]
        zero, one = np.zeros((len(w), 1, 3)), np.ones((len(w), 1, 3))
        product = apply_additive(Transforms(zero, lo[:, None, xyzw], one),
                                 Transforms(zero, v[:, None, xyzw], one), w[:, None],
                                 convention="blender_combine").rotation[:, 0]
        out[:, :4] = product[:, [3, 0, 1, 2]]
        return out, overflow
    for k, v in source.items():
        p = lower[:, k]
        powered = False
        with np.errstate(over="ignore", invalid="ignore"):  # (checked below)
            if mode == "REPLACE":
                r = p * (1.0 - w) + v * w
            elif mode == "ADD":
                r = p + v * w
            elif mode == "SUBTRACT":
                r = p - v * w
            elif mode == "MULTIPLY":
                r = w * (p * v) + (1.0 - w) * p
            elif kind == "multiply":
                d = default[k] if default[k] != 0.0 else 1.0
                ratio = v / d
                r = p * np.power(ratio, w)
                powered = True
            else:
                r = p + (v - default[k]) * w
        out[:, k] = r
        overflow[:, k] = ~np.isfinite(r) & np.isfinite(p)
        if powered:  # a negative ratio's NaN is powf's, as in Blender: no overflow
            overflow[:, k] &= ~((ratio < 0.0) & np.isnan(r))
    return out, overflow


# ------------------------------------------------------------------ bpy reading
