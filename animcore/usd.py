"""OpenUSD animation as animcore objects: UsdSkel rigs, animated xformOps and
``pxr.Ts`` splines.

:func:`load` reads a USD stage (``.usda``, ``.usdc``, ``.usdz``, or an open
``Usd.Stage``). A stage with a UsdSkel ``Skeleton`` gives its rig: the first
``Skeleton`` and the ``SkelAnimation`` bound to it as a
:class:`animcore.model.Scene`, so that USD rigs are posed, baked and turned
into root motion like glTF and BVH ones:

- one node per joint, in the skeleton's joint order, named by its joint path
  (``"hips/spine"``); parents from the joint paths; rest transforms from
  ``restTransforms`` (or, without them, from the skeleton-space
  ``bindTransforms``);
- one skin: every joint, inverse bind matrices ``inverse(bindTransforms)``;
- one clip from the animation's time samples, its joints remapped to the
  skeleton's order: translation, rotation and scale channels, LINEAR between
  samples (slerp for rotations, as UsdSkel interpolates); blend-shape
  weights as a weights channel on the skeleton's first root joint, whose
  ``target_names`` are the animation's ``blendShapes``. Clip time 0 is the
  stage's start time code and times are seconds (``timeCodesPerSecond``).
  ``interpolation="held"`` makes them STEP, as a stage whose
  ``interpolationType`` is held.

Any other stage gives its animated ``xformOp`` attributes, one curve per op,
keyed by the attribute's path (``"/World/Cube.xformOp:orient"``):
``translate``/``scale`` and the scalar ``translateX``/``scaleY``/... ops as
:class:`~animcore.curves.Curve`, ``orient`` as a
:class:`~animcore.rotations.RotationCurve` (slerp, as USD interpolates
quaternions), ``rotateXYZ`` and the other Euler orders as a 3-channel curve
of their angles in degrees, ``transform`` as a 16-channel curve of its
column-vector matrix, a spline-valued op through :func:`curve_from_spline`. Their times are seconds from time code 0
(``time code / timeCodesPerSecond``), so ``curve(code / tps)`` is
``attribute.Get(code)``.

Matrices are converted from USD's row-vector convention (translation in the
last row) to animcore's column-vector one. Reading USD needs OpenUSD's
Python bindings, ``pip install 'animcore[usd]'`` (the ``usd-core``
package), imported only when :func:`load` is called.

:func:`curve_from_spline` turns a ``pxr.Ts.Spline`` (``pip install
animcore[usd]``, which is ``usd-core``) into a :class:`~animcore.curves.Curve`
that evaluates like ``spline.Eval`` (right side) and ``spline.EvalPreValue``
(left side, ``side="left"``). Nothing here imports ``pxr`` itself: the
spline's own methods are read.

The mapping, knot by knot:

- held / linear / curve segments (each knot's ``nextInterpolation``) become
  ``"step"`` / ``"linear"`` / ``"bezier"`` segments (``"cubic"`` for a
  Hermite spline, whose tangent widths are a third of the interval);
- a knot's post-tangent (slope, width) is the leaving handle and its
  pre-tangent the arriving one: slope is the velocity, width divided by the
  segment's duration the weight. Ts uses widths longer than their segment as
  they are when the time still never goes backwards (unlike Blender, which
  shortens them), and so does the curve;
- a side whose tangent algorithm is AutoEase (``Ts.TangentAlgorithmAutoEase``)
  gets its tangent computed from the knots, as Ts computes it (in C,
  ``ac_tangents_auto_ease``; the curve policy ``tangents="auto_ease"``): a
  blend of the slopes to both neighbours weighted towards the nearer one,
  limited to 3 times the smaller, flat at an extremum, at a dual-valued knot
  and at the end knots (whose outer sides keep their authored tangents),
  width a third of the interval; in a float or half spline the slope is
  then rounded to that type as Ts stores it (a half slope beyond its range
  is capped, its width grown to keep the handle's height). Inner loops are
  baked by Ts first, with the tangents it bakes;
- a dual-valued knot (a pre-value) is a jump: the key ``(t, pre-value)``
  ends the segment before it and ``(t, value)`` starts the next;
- extrapolation: held -> ``"clamp"``, linear -> ``"sloped"`` with Ts's
  slope: the end knot's *inner* tangent (the first knot's post-tangent, the
  last knot's pre-tangent), a linear end segment's slope (a first segment
  ends at the second knot's pre-value), 0 after a held one, at a
  dual-valued end knot (either end) and for a single knot; sloped
  -> ``"sloped"``, loop repeat -> ``"cycle_offset"``, loop reset ->
  ``"cycle"``, loop oscillate -> ``"oscillate"`` (beside a dual-valued end
  knot too: reset and oscillate repeat the knots' inside, as Ts does). A
  loop's ``loopBoundaryTime`` (OpenUSD 26) at the far end knot is the
  ordinary loop; at the near end knot the loop has no span and holds, as Ts
  does;
- inner loops are baked into knots first, and the curve evaluates like
  Ts's bake (``Ts.Spline.BakeInnerLoops``).

Where Ts is not exact, the curve keeps the exact answer:

- Ts's evaluation of a spline with inner loops contradicts its own bake in
  places (a dual-valued end knot the bake creates makes linear
  extrapolation flat in the bake, sloped in Ts; the pre-value at the first
  baked knot under looping extrapolation);
- at a loop seam after a held segment Ts shifts the knots by the period,
  and where ``last - (last - first)`` rounds below ``first`` (knots at
  -2.588714110408186 and 6.840959286815423) its pre-value at the first knot
  is the last knot's value instead of the held one (and ``EvalPreValue`` at
  a later seam may raise Ts's own ``_GetExtrapolationSlope`` error);
- Bezier handles both wider than their interval (5.79 and 4.50 over 5.18,
  still a function of time): Ts's time solve is off by up to 1.1e-6, the
  curve solves to 1e-13 of the interval.

curve_from_spline raises ``ValueError`` for what a Curve does not represent:
value blocks, regressive tangents (also those Ts's bake of inner loops
creates: bake and ``AdjustRegressiveTangents`` first), non-scalar value
types, LoopRepeat extrapolation beyond a dual-valued end knot (Ts shifts the
repeats after the knots by the last knot's value minus the first's, those
before them by the pre-values', where a curve shifts both ways by the keys'
inner rise), a ``loopBoundaryTime`` between the end knots (a loop over part
of the knots; a curve repeats all of its keys) or off the knots (Ts gives
no value there), inner loops Ts cannot bake.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import os
import re
import warnings
from typing import Dict, Union

import numpy as np

from . import _core, model
from ._objects import PicklableError
from .model import ReadError, _quote
from .curves import Curve
from .rotations import RotationCurve
from .skeleton import _decompose

__all__ = ["UsdError", "UsdWarning", "XformChannels", "curve_from_spline", "load"]


def _pxr():
    try:
        from pxr import Usd, UsdSkel
    except ImportError:
        raise ImportError("animcore.usd needs OpenUSD's Python bindings: "
                          "pip install 'animcore[usd]' (the usd-core package)") from None
    return Usd, UsdSkel


def _buffer(values, width: int):
    """A Vt array's numbers through its buffer (no Python object per element),
    as float64 rows of ``width``; None for anything else."""
    if not type(values).__name__.endswith("Array"):
        return None
    try:
        array = np.asarray(values)
    except (TypeError, ValueError, BufferError):
        return None
    if array.dtype.kind != "f" or array.size != len(values) * width:
        return None
    return array.astype(np.float64).reshape(len(values), width)


def _matrices(values) -> np.ndarray:
    """Gf.Matrix4d values (row vectors) as (N, 4, 4) column-vector matrices."""
    rows = _buffer(values, 16)
    if rows is None:
        rows = np.array([[[m[i][j] for j in range(4)] for i in range(4)] for m in values],
                        dtype=np.float64)
    return rows.reshape(-1, 4, 4).transpose(0, 2, 1)


def _quats(values) -> np.ndarray:
    """Gf.Quat values (real, imaginary) as (N, 4) (x, y, z, w): a Vt array's
    buffer holds each quaternion as imaginary, then real."""
    rows = _buffer(values, 4)
    if rows is None:
        rows = np.array([[*q.GetImaginary(), q.GetReal()] for q in values],
                        dtype=np.float64)
    return rows.reshape(-1, 4)


def _samples(attribute, convert, start, per_second, location):
    """(times in seconds, stacked values) of an attribute's time samples, or None."""
    if not attribute or not attribute.HasAuthoredValue():
        return None
    codes = attribute.GetTimeSamples()
    if not codes:
        value = _typed(attribute, attribute.Get(), location)
        return None if value is None else (np.zeros(1), convert(value)[None])
    times = (np.array(codes, dtype=np.float64) - start) / per_second
    value_type = _value_type(attribute)  # (once: asking USD for it costs more than a sample)
    samples = [_typed(attribute, attribute.Get(code), location, code, value_type)
               for code in codes]
    return times, _stacked(samples, convert)


def _stacked(samples, convert) -> np.ndarray:
    """Samples of an array attribute stacked as float64: each Vt array's
    buffer viewed and all cast at once when every sample is a float array of
    one shape, the shape ``convert`` gives (a 200-joint SkelAnimation's 500
    samples: 2.4 times faster than converting each), else ``convert`` of
    each."""
    if all(type(value).__name__.endswith("Array") for value in samples):
        try:
            views = [np.asarray(value) for value in samples]
        except (TypeError, ValueError, BufferError):
            views = []
        shape = views[0].shape if views else None
        if views and all(v.dtype.kind == "f" and v.shape == shape for v in views) \
                and convert(samples[0]).shape == shape:
            return np.stack(views).astype(np.float64)
    return np.stack([convert(value) for value in samples])


_VECTOR_OPS = ("Translate", "Scale", "RotateXYZ", "RotateXZY", "RotateYXZ", "RotateYZX",
               "RotateZXY", "RotateZYX")
_SCALAR_OPS = ("TranslateX", "TranslateY", "TranslateZ", "ScaleX", "ScaleY", "ScaleZ",
               "RotateX", "RotateY", "RotateZ")
_SAMPLED_OPS = _VECTOR_OPS + _SCALAR_OPS + ("Orient", "Transform")
# the value types of each kind of op (UsdGeomXformOp's precisions)
_OP_TYPES = {**{op: ("double3", "float3", "half3") for op in _VECTOR_OPS},
             **{op: ("double", "float", "half") for op in _SCALAR_OPS},
             "Orient": ("quatd", "quatf", "quath"), "Transform": ("matrix4d",)}
_INTERPOLATIONS = {"linear": "linear", "held": "step", "step": "step"}


class UsdError(ReadError):
    """A malformed USD stage. ``source`` is the file, ``location`` the prim or
    attribute path at fault (``"/World/Cube.xformOp:translate"``), a layer
    setting (``"timeCodesPerSecond"``) or, for a ``.usda`` file USD cannot
    parse, ``"line N"``; ``detail`` says why."""


class UsdWarning(PicklableError, UserWarning):
    """Part of a USD stage left out (``errors="skip"``) and why."""


class XformChannels(dict):
    """What :func:`load` returns for a stage without a Skeleton: a dict of
    curves keyed by xformOp attribute path, and ``skipped``, the
    :class:`UsdError` of each op left out with ``errors="skip"`` (empty
    otherwise). Compares as a dict."""

    skipped: tuple = ()


class _Fault(Exception):
    """Raised inside the reader; load() turns it into a UsdError with the file name."""

    def __init__(self, location: str, detail: str):
        super().__init__(location, detail)
        self.location, self.detail = location, detail


# what OpenUSD's bindings and NumPy raise on malformed data (Tf.ErrorException
# is a RuntimeError; LinAlgError a ValueError)
_MALFORMED = (ValueError, TypeError, IndexError, KeyError, AttributeError, ArithmeticError,
              RuntimeError)


@contextlib.contextmanager
def _at(location: str):
    """Turns what malformed data makes pxr or NumPy raise into a _Fault at
    ``location``; NumPy warnings are errors there."""
    try:
        with np.errstate(all="raise"):
            yield
    except _Fault:
        raise
    except np.linalg.LinAlgError as error:
        raise _Fault(location, f"is not invertible ({error})") from None
    except _MALFORMED as error:
        detail = (_tf_message(error) if isinstance(error, RuntimeError)
                  else _quote(str(error) or type(error).__name__))
        raise _Fault(location, f"cannot be read: {type(error).__name__}: {detail}") from None


def _per_second(stage) -> float:
    """The stage's timeCodesPerSecond, checked."""
    with _at("timeCodesPerSecond"):
        value = float(stage.GetTimeCodesPerSecond())
    if not (math.isfinite(value) and value > 0):
        raise _Fault("timeCodesPerSecond", f"is {value!r} (must be a finite number > 0)")
    return value


def _finite(location: str, name: str, array: np.ndarray) -> None:
    """A _Fault naming the first non-finite value of ``array``."""
    bad = np.flatnonzero(~np.isfinite(array.reshape(len(array), -1)).all(axis=1))
    if bad.size:
        raise _Fault(location, f"has non-finite values ({name} {int(bad[0])})")


def _spec_kinds(prop) -> set:
    """The kinds of spec ("AttributeSpec", "RelationshipSpec") a property is
    authored with in the layer stack."""
    return {type(spec).__name__ for spec in prop.GetPropertyStack()} if prop else set()


def _checked(attribute, location: str) -> None:
    """Refuses what USD reads as "no value" although something is authored: a
    relationship where the schema has an attribute, or a connection without a
    value (usd.load reads values, not connections)."""
    with _at(location):
        kinds = _spec_kinds(attribute)
        if "RelationshipSpec" in kinds:
            raise _Fault(location, f"is a relationship where a {attribute.GetTypeName()} "
                                   f"attribute is expected")
        if attribute and not attribute.HasAuthoredValue() and attribute.HasAuthoredConnections():
            targets = ", ".join(f"<{path}>" for path in attribute.GetConnections())
            raise _Fault(location, f"is connected to {targets} but has no value (usd.load reads "
                                   f"values, not connections)")


def _uniform(attribute, location: str):
    """The value of an attribute read without a time (None when none is
    authored), checked (_checked, _typed); time samples alone are refused
    (joints, blendShapes, rest and bind transforms and xformOpOrder are
    uniform: USD reads no value from them)."""
    _checked(attribute, location)
    with _at(location):
        value = attribute.Get() if attribute else None
        if value is None and attribute and attribute.GetTimeSamples():
            raise _Fault(location, "has time samples but no value (it is read as a uniform "
                                   "attribute)")
    return _typed(attribute, value, location)


def _value_type(attribute) -> tuple:
    """(type name, the Python class of its values or None) of an attribute."""
    type_name = attribute.GetTypeName()
    return type_name, type_name.type.pythonClass


def _typed(attribute, value, location: str, code=None, value_type=None):
    """``value`` as read from ``attribute``, or a _Fault when USD holds it as
    another type than the attribute's (a path, an asset path, a string where
    numbers are expected): USD hands such values back as they are.
    ``value_type``: the attribute's _value_type, when the caller has it."""
    if value is None:
        return None
    type_name, expected = _value_type(attribute) if value_type is None else value_type
    if (isinstance(value, expected) if expected is not None
            else isinstance(value, (int, float, np.number)) and not isinstance(value, bool)):
        return value
    from pxr import Sdf

    what = (f"the path <{value}>" if isinstance(value, Sdf.Path)
            else f"a value of type {type(value).__name__}")
    sample = "" if code is None else f" at time code {code!r}"
    raise _Fault(location, f"holds {what}{sample} where {type_name} values are expected")


def _xform_op(attribute, kind, interpolation, per_second, name):
    """The curve of one animated xformOp attribute, or None (no time samples,
    or an op type read by none of the curves); an unknown type's samples are
    not read."""
    if attribute.HasSpline():
        try:
            return curve_from_spline(attribute.GetSpline(), time_codes_per_second=per_second)
        except ValueError as error:
            raise _Fault(name, str(error)) from None
    if kind not in _SAMPLED_OPS:
        return None
    codes = attribute.GetTimeSamples()
    if not codes:
        return None
    type_name = str(attribute.GetTypeName())
    if type_name not in _OP_TYPES[kind]:
        raise _Fault(name, f"is an attribute of type {type_name}; a {kind} op takes "
                           f"{', '.join(_OP_TYPES[kind])}")
    times = np.array(codes, dtype=np.float64) / per_second
    _finite(name, "time sample", times)
    value_type = _value_type(attribute)
    samples = [_typed(attribute, attribute.Get(code), name, code, value_type) for code in codes]
    if kind == "Orient":
        values = _quats(samples)
    elif kind == "Transform":  # column-vector matrices, row by row
        values = _matrices(samples).reshape(-1, 16)
    else:
        values = np.array(samples, dtype=np.float64)
        if (values.shape[1:] != (() if kind in _SCALAR_OPS else (3,))
                or len(values) != len(codes)):
            raise _Fault(name, f"holds values of shape {values.shape[1:]} for a {kind} op")
    _finite(name, "sample", values)
    if kind == "Orient":
        return RotationCurve(times, values, interpolation=interpolation)
    return Curve(times, values, interpolation=interpolation)


def _xform_channels(stage, interpolation, skipped):
    """{"<prim path>.<op attribute>": curve} for every animated xformOp; a
    failing op raises a _Fault, or with a list ``skipped`` is appended to it."""
    from pxr import UsdGeom

    per_second = None
    channels = XformChannels()
    with _at("/"):
        prims = list(stage.Traverse())
    for prim in prims:
        with _at(str(prim.GetPath()) if hasattr(prim, "GetPath") else "xformOpOrder"):
            xformable = UsdGeom.Xformable(prim)
            ops = xformable.GetOrderedXformOps() if xformable else ()
            order = xformable.GetXformOpOrderAttr() if xformable else None
        try:
            named = [str(t) for t in (_uniform(order, str(order.GetPath())) or ())] if order else []
        except _Fault as fault:  # (the prim's ops are left out with it)
            if skipped is None:
                raise
            skipped.append(fault)
            continue
        missing = set(named) - {op.GetOpName() for op in ops} - {"!resetXformStack!"}
        for token in sorted(missing):  # (USD leaves them out of the ordered ops, and warns)
            name = f"{prim.GetPath()}.{token.replace('!invert!', '')}"
            relationship = prim.GetRelationship(token.replace("!invert!", ""))
            fault = _Fault(name, "is named by xformOpOrder but is a relationship, not an "
                                 "xformOp attribute" if relationship else
                                 f"is named by xformOpOrder but {prim.GetPath()} has no such "
                                 f"attribute")
            if skipped is None:
                raise fault
            skipped.append(fault)
        for op in ops:
            attribute = op.GetAttr()
            name = str(attribute.GetPath())
            if name in channels:  # (an inverse op reads the same attribute)
                continue
            try:
                with _at(name):
                    kind = str(op.GetOpType()).rsplit(".", 1)[-1][len("Type"):]
                    if per_second is None and (attribute.HasSpline()
                                               or attribute.GetTimeSamples()):
                        per_second = _per_second(stage)
                    curve = _xform_op(attribute, kind, interpolation, per_second, name)
            except _Fault as fault:
                if skipped is None or fault.location == "timeCodesPerSecond":
                    raise
                skipped.append(fault)
                continue
            if curve is not None:
                channels[name] = curve
    return channels


def load(path_or_stage, *, interpolation: str = "linear", errors: str = "raise"
         ) -> Union["model.Scene", Dict[str, Union[Curve, "RotationCurve"]]]:
    """Read the animation of a USD stage: its UsdSkel rig, or its animated xformOps.

    Parameters
    ----------
    path_or_stage : str, os.PathLike or pxr.Usd.Stage
        A USD file (``.usda``, ``.usdc``, ``.usdz``) or an open stage.
    interpolation : {"linear", "held"}
        How values between time samples are read, as a stage's
        ``interpolationType``: linear (slerp for quaternions) or held
        (alias ``"step"``). Splines evaluate as splines either way.
    errors : {"raise", "skip"}
        ``"skip"`` leaves out an xformOp (or a rig's animation) that fails to
        read, with a :class:`UsdWarning` naming the file, the attribute and
        the reason, and keeps the rest; the result's ``skipped`` lists them
        (as :class:`UsdError`). ``"raise"`` (the default) fails on the first.

    Returns
    -------
    animcore.model.Scene
        For a stage with a UsdSkel ``Skeleton``: joints as nodes, one skin,
        and one clip named after the animation prim (no clip when no
        animation is bound), as the module documentation describes.
    XformChannels
        Otherwise (a dict), one entry per animated ``xformOp`` of every Xformable
        prim, keyed by the op attribute's path (``"/World/Cube.xformOp:translate"``):
        ``translate``, ``scale`` and the ``rotateXYZ``-style ops (their three
        angles in degrees, in the op's own order) as a :class:`Curve` with 3
        channels, the scalar ops (``translateX``, ``scaleY``, ``rotateZ``,
        ...) as a one-channel :class:`Curve`, ``orient`` as a
        :class:`~animcore.rotations.RotationCurve`, ``transform`` as a
        16-channel :class:`Curve` of the 4x4 matrix in animcore's
        column-vector convention, row by row (``reshape(-1, 4, 4)``; USD
        interpolates matrices component by component too), an op driven by
        a ``pxr.Ts`` spline through :func:`curve_from_spline`. Times are
        seconds, ``time code / timeCodesPerSecond``; values outside the
        samples are held, as USD holds them. Ops without time samples give
        no entry; compose them in
        ``xformOpOrder`` (``UsdGeom.Xformable.GetOrderedXformOps``) to get
        a prim's local transform. (A stage with a Skeleton gives its rig
        only.)

    Raises
    ------
    ImportError
        Without OpenUSD's Python bindings (``pip install 'animcore[usd]'``).
    UsdError
        (a ValueError) for every malformed stage, naming the file and the
        prim or attribute path (the line, for a ``.usda`` file USD cannot
        parse): a stage with neither a Skeleton nor an animated xformOp, an
        animation joint the skeleton does not have, arrays whose lengths do
        not match the joints, non-finite values, singular bind transforms,
        a ``timeCodesPerSecond`` that is not a finite number > 0, a spline
        :func:`curve_from_spline` refuses, values of the wrong type or shape
        (a path or an asset where numbers or tokens are expected), a property
        that holds no value where one is read (authored as a relationship
        where the schema has an attribute, connected without a value, time
        samples alone on a uniform attribute), ``skel:animationSource``
        authored as an attribute or targeting a property, an ``xformOpOrder``
        naming an op the prim does not have as an attribute.
    ValueError
        An unknown interpolation or ``errors``.
    OSError
        If the file cannot be read (FileNotFoundError if it does not exist).

    Warns
    -----
    UsdWarning
        A SkelAnimation that authors only some of translations, rotations and
        scales: OpenUSD poses it at the rest pose (UsdSkel reads the three
        together), and so does its clip. Rotation samples that are not unit
        quaternions (off by more than 1e-3): normalized here, where OpenUSD
        turns and scales the joint by the quaternion as it is.
    """
    Usd, UsdSkel = _pxr()
    if not (isinstance(interpolation, str) and interpolation in _INTERPOLATIONS):
        raise ValueError(f"usd.load: interpolation is {interpolation!r} (must be 'linear' or "
                         f"'held')")
    if not (isinstance(errors, str) and errors in ("raise", "skip")):
        raise ValueError(f"usd.load: errors is {errors!r} (must be 'raise' or 'skip')")
    interpolation = _INTERPOLATIONS[interpolation]
    if isinstance(path_or_stage, Usd.Stage):
        stage = path_or_stage
        path = stage.GetRootLayer().identifier
    else:
        path = os.fspath(path_or_stage)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"usd.load: no such file {path!r}")
        try:
            stage = Usd.Stage.Open(path)
        except RuntimeError as error:  # (pxr.Tf.ErrorException: a file USD cannot parse)
            raise _open_error(path, error) from None
        except UnicodeDecodeError:  # (pxr's message quotes bytes that are not UTF-8)
            raise _open_error(path, None) from None
        if stage is None:
            raise UsdError(path, "", "USD cannot open the file")
    skipped = [] if errors == "skip" else None
    try:
        result = _read_stage(stage, UsdSkel, interpolation, skipped)
    except _Fault as fault:
        raise UsdError(path, fault.location, fault.detail) from None
    found = tuple(UsdError(path, f.location, f.detail) for f in skipped or ())
    for error in found:
        warnings.warn(f"{error} (skipped)", UsdWarning, stacklevel=2)
    if isinstance(result, XformChannels):
        result.skipped = found
        return result
    return dataclasses.replace(result, skipped=found) if found else result


def _open_error(path: str, error) -> UsdError:
    """The UsdError of a file USD cannot open: its line for a text syntax error
    (``error`` None: the first bytes that are not UTF-8)."""
    text = _tf_text(error) if error is not None else None
    if text is None:
        try:
            with open(path, "rb") as stream:
                data = stream.read()
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            line = data.count(b"\n", 0, bad.start) + 1
            return UsdError(path, f"line {line}", f"is not UTF-8 text (byte "
                                                  f"0x{data[bad.start]:02x})")
        except OSError:
            pass
        return UsdError(path, "", "USD cannot open the file (its error message is not "
                                  "UTF-8 text)")
    match = re.search(r":(\d+):\d+: (.*?)'?\s*$", text, re.MULTILINE)
    if match:
        return UsdError(path, f"line {match.group(1)}", _quote(match.group(2)))
    return UsdError(path, "", f"USD cannot open the file: {_tf_message(error)}")


def _read_stage(stage, UsdSkel, interpolation, skipped):
    """The Scene or XformChannels of an open stage (faults raised as _Fault)."""
    with _at("/"):
        skel = next((UsdSkel.Skeleton(p) for p in stage.Traverse()
                     if p.IsA(UsdSkel.Skeleton)), None)
    if skel is None:
        channels = _xform_channels(stage, interpolation, skipped)
        if not channels and not skipped:
            raise _Fault("", "has no UsdSkel Skeleton and no animated xformOp")
        return channels
    return _skeleton_scene(stage, UsdSkel, skel, interpolation, skipped)


def _skeleton_scene(stage, UsdSkel, skel, interpolation, skipped):
    """The Scene of the first Skeleton and its bound animation."""
    skel_path = str(skel.GetPath())
    joints_attr = skel.GetJointsAttr()
    where = str(joints_attr.GetPath())
    tokens = _uniform(joints_attr, where) or []
    with _at(where):
        joints = [str(j) for j in tokens]
        parents = [int(p) for p in UsdSkel.Topology(tokens).GetParentIndices()]
    count = len(joints)
    _unique_joints(where, joints)
    bind = local = None
    for name, attribute in (("restTransforms", skel.GetRestTransformsAttr()),
                            ("bindTransforms", skel.GetBindTransformsAttr())):
        location = str(attribute.GetPath())
        value = _uniform(attribute, location)
        with _at(location):
            array = _matrices(value) if value else None
        if array is None:
            continue
        if len(array) != count:
            raise _Fault(location, f"has {len(array)} matrices for {count} joints")
        _finite(location, "matrix", array)
        if name == "restTransforms":
            local = array
        else:
            bind = array
    if bind is not None:
        location = str(skel.GetBindTransformsAttr().GetPath())
        with _at(location):
            singular = [j for j in range(count) if not abs(np.linalg.det(bind[j])) > 0]
            if singular:
                raise _Fault(location, f"matrix {singular[0]} is singular")
            inverse = np.linalg.inv(bind)
        _finite(location, "inverse of matrix", inverse)
    if local is None and bind is not None:
        local = np.array([b if p < 0 else inverse[p] @ b
                          for b, p in zip(bind, parents)]).reshape(-1, 4, 4)
    elif local is None:
        local = np.broadcast_to(np.eye(4), (count, 4, 4)).copy()
    rest_location = str(skel.GetRestTransformsAttr().GetPath())
    with _at(rest_location):
        try:
            trs = _decompose("usd.load", local)
        except ValueError as error:
            raise _Fault(rest_location, str(error)) from None
    kids = [[] for _ in range(count)]
    for k, p in enumerate(parents):
        if p >= 0:
            kids[p].append(k)
    children = [tuple(c) for c in kids]
    roots = [j for j in range(count) if parents[j] < 0]
    anim = None
    with _at(skel_path):
        binding = UsdSkel.BindingAPI(skel.GetPrim())
        source = binding.GetAnimationSourceRel() if binding else None
        if "AttributeSpec" in _spec_kinds(source):
            raise _Fault(f"{skel_path}.skel:animationSource",
                         "is an attribute where a relationship is expected")
        targets = source.GetTargets() if source else []
        if targets and not targets[0].IsPrimPath():
            raise _Fault(f"{skel_path}.skel:animationSource",
                         f"targets <{targets[0]}>, which is not a prim")
        if targets:
            prim = stage.GetPrimAtPath(targets[0])
            anim = UsdSkel.Animation(prim) if prim and prim.IsA(UsdSkel.Animation) else None
    channels, target_names = [], None
    if anim is not None:
        try:
            channels, target_names = _animation(stage, anim, joints, skel_path, roots,
                                                interpolation)
        except _Fault as fault:
            if skipped is None:
                raise
            skipped.append(fault)
            anim, channels = None, []
    nodes = []
    for j in range(count):
        names = target_names if target_names is not None and j == roots[0] else None
        weights = np.zeros(len(names)) if names else None
        nodes.append(model.Node(j, joints[j], parents[j], children[j], trs.translation[j],
                               trs.rotation[j], trs.scale[j], None, None, None, weights, names))
    skins = ()
    if bind is not None:
        inverse.flags.writeable = False
        joint_array = np.arange(count, dtype=np.int64)
        joint_array.flags.writeable = False
        skins = (model.Skin(0, skel_path, joint_array, inverse, roots[0] if roots else None),)
    clips = ()
    if anim is not None and channels:
        duration = max(float(c.times[-1]) for c in channels)
        clips = (model.Clip(anim.GetPrim().GetName(), duration, tuple(channels)),)
    return model.Scene(tuple(nodes), (tuple(roots),), 0, skins, clips)


def _animation(stage, anim, joints, skel_path, roots, interpolation):
    """(channels, blend-shape names) of a SkelAnimation bound to the skeleton."""
    anim_path = str(anim.GetPath())
    per_second = _per_second(stage)
    with _at("startTimeCode"):
        start = float(stage.GetStartTimeCode())
    if not math.isfinite(start):
        raise _Fault("startTimeCode", f"is {start!r} (must be finite)")
    kind = "LINEAR" if interpolation == "linear" else "STEP"
    joints_location = str(anim.GetJointsAttr().GetPath())
    anim_joints = [str(j) for j in (_uniform(anim.GetJointsAttr(), joints_location) or [])]
    _unique_joints(joints_location, anim_joints)
    unknown = [j for j in anim_joints if j not in joints]
    if unknown:
        raise _Fault(anim_path, f"animates joint {unknown[0]!r}, which {skel_path} does "
                                f"not have")
    index = [joints.index(j) for j in anim_joints]
    vectors = lambda v: np.array(v, float).reshape(-1, 3)  # noqa: E731
    channels, target_names, shared_times = [], None, []
    parts = (("translation", anim.GetTranslationsAttr(), vectors),
             ("rotation", anim.GetRotationsAttr(), _quats),
             ("scale", anim.GetScalesAttr(), vectors))
    for _, attribute, _ in parts:
        _checked(attribute, str(attribute.GetPath()))
    authored = [name for name, attribute, _ in parts
                if attribute and attribute.HasAuthoredValue()]
    if 0 < len(authored) < 3:  # UsdSkel reads the three together, or not at all
        missing = [name for name, _, _ in parts if name not in authored]
        warnings.warn(UsdWarning(
            f"usd.load: {anim_path} authors {' and '.join(authored)} but no "
            f"{' or '.join(missing)}: OpenUSD poses such an animation at the skeleton's rest "
            f"pose (UsdSkel reads translations, rotations and scales together), and so does "
            f"this clip"), stacklevel=2)
        parts = ()
    for path_name, attribute, convert in parts:
        location = str(attribute.GetPath())
        with _at(location):
            sampled = _samples(attribute, convert, start, per_second, location)
        if sampled is None:
            continue
        times, values = sampled
        if values.shape[1] != len(anim_joints):
            raise _Fault(location, f"has {values.shape[1]} values per sample for "
                                   f"{len(anim_joints)} animated joints")
        _finite(location, "sample", values)
        _finite(location, "time sample", times)
        if path_name == "rotation":
            length = np.sqrt(np.einsum("fjk,fjk->fj", values, values))  # (norm's is 3x slower)
            off = np.abs(length - 1.0) > 1e-3
            if off.any():
                k, j = (int(i) for i in np.argwhere(off)[0])
                warnings.warn(UsdWarning(
                    f"usd.load: {location} sample {k} of joint {j} has length "
                    f"{float(length[k, j]):.6g}, not a unit quaternion as the schema asks: "
                    f"it is normalized here, where OpenUSD scales the joint by it"), stacklevel=2)
        # one read-only array of key times for every channel that has them
        times = next((seen for seen in shared_times if seen.shape == times.shape
                      and seen.tobytes() == times.tobytes()), times)
        if times.flags.writeable:
            times = np.ascontiguousarray(times, dtype=np.float64)
            times.flags.writeable = False
            shared_times.append(times)
        # joint k's (F, width) values: the (F, joints) grid of width-value items transposed
        # as items (2.4x faster than np.moveaxis's copy, which moves one float at a time)
        frames, count, width = values.shape
        items = np.ascontiguousarray(values).view(np.dtype((np.void, values.itemsize * width)))
        per_joint = np.ascontiguousarray(items[..., 0].T).view(values.dtype).reshape(
            count, frames, width)
        for k, j in enumerate(index):
            channels.append(_channel(location, j, joints[j], path_name, times,
                                     per_joint[k], kind))
    location = str(anim.GetBlendShapeWeightsAttr().GetPath())
    shapes_attr = anim.GetBlendShapesAttr()
    shapes = [str(s) for s in (_uniform(shapes_attr, str(shapes_attr.GetPath())) or [])]
    _checked(anim.GetBlendShapeWeightsAttr(), location)
    with _at(location):
        sampled = _samples(anim.GetBlendShapeWeightsAttr(),
                           lambda v: np.array(v, float).reshape(-1), start, per_second, location)
    if shapes and sampled is not None and roots:
        times, values = sampled
        if values.shape[1] != len(shapes):
            raise _Fault(location, f"has {values.shape[1]} values per sample for "
                                   f"{len(shapes)} blendShapes")
        _finite(location, "sample", values)
        channels.append(_channel(location, roots[0], joints[roots[0]], "weights", times,
                                 values, kind))
        target_names = tuple(shapes)
    channels.sort(key=lambda c: (c.node, c.path))
    return channels, target_names


def _unique_joints(location: str, joints: list) -> None:
    """A _Fault naming the first joint of ``joints`` that is listed twice."""
    counts = collections.Counter(joints)
    duplicate = next((j for j in joints if counts[j] > 1), None)
    if duplicate is not None:
        raise _Fault(location, f"names joint {duplicate!r} twice")


def _channel(location, *args):
    """model._keyed_channel, its refusal (times that collapse to equal
    seconds, a velocity beyond the double range) a _Fault at ``location``."""
    try:
        return model._keyed_channel(*args)
    except (ValueError, OverflowError) as error:
        raise _Fault(location, f"cannot be read: {type(error).__name__}: "
                               f"{_quote(str(error), 160)}") from None


def _tf_message(error) -> str:
    """The first meaningful line of a pxr.Tf.ErrorException, shortened."""
    text = _tf_text(error)
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return _quote(lines[-1] if lines else type(error).__name__)


def _tf_text(error):
    """``str(error)``, or None where pxr's message is not UTF-8 (Tf's
    ErrorException decodes it on the way)."""
    try:
        return str(error)
    except UnicodeDecodeError:
        return None


def _name(enum_value) -> str:
    """'Held' for Ts.InterpHeld, 'LoopRepeat' for Ts.ExtrapLoopRepeat, ..."""
    text = str(enum_value).rsplit(".", 1)[-1]
    for prefix in ("Interp", "Extrap", "CurveType", "TangentAlgorithm"):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def _algorithm(knot, side) -> str:
    """A knot's tangent algorithm on one side ("None" where Ts has none)."""
    getter = getattr(knot, f"Get{side}TanAlgorithm", None)
    return _name(getter()) if getter is not None else "None"


def _typed_tangent(slope, width, value_type):
    """A computed tangent as Ts stores it in a float or half spline: the slope
    rounded to the value type; beyond its range, the largest slope with the
    width grown so that the handle keeps its height."""
    if value_type == "double":
        return slope, width
    with np.errstate(all="ignore"):  # (an overflow to inf is caught below)
        typed = np.float32(slope)
        if value_type == "half":
            typed = np.float16(typed)
    if np.isfinite(typed):
        return float(typed), width
    capped = math.copysign(float(np.finfo(typed.dtype).max), slope)
    return capped, slope * width / capped


_SEGMENTS = {"Held": "step", "Linear": "linear", "Curve": "bezier"}
_EXTRAPOLATION = {"Held": "clamp", "Linear": "linear", "Sloped": "sloped",
                  "LoopRepeat": "cycle_offset", "LoopReset": "cycle",
                  "LoopOscillate": "oscillate"}


def _loop_boundary(func: str, side: str, extrap):
    """A looping extrapolation's ``loopBoundaryTime`` (OpenUSD 26 and later;
    None before), or a ValueError where the bindings cannot convert it (some
    builds register no converter for its std::optional<double>)."""
    try:
        return getattr(extrap, "loopBoundaryTime", None)
    except TypeError as error:
        raise ValueError(f"{func}: the {side}-extrapolation's loopBoundaryTime cannot be read "
                         f"by these OpenUSD bindings ({error})") from None


def _extrapolation_modes(func, spline, knots) -> list:
    """The two ends' extrapolation modes ("Held", "Linear", "LoopRepeat", ...)
    as the curve reproduces them, after Ts's loop parameters: a loop whose
    ``loopBoundaryTime`` leaves it no span holds; what a curve cannot
    represent is a ValueError (see curve_from_spline)."""
    times = [k.GetTime() for k in knots]
    modes = []
    for end, extrap in enumerate((spline.GetPreExtrapolation(), spline.GetPostExtrapolation())):
        side = ("pre", "post")[end]
        mode = _name(extrap.mode)
        if mode not in _EXTRAPOLATION:
            raise ValueError(f"{func}: {side}-extrapolation {mode!r} is not represented by a "
                             f"curve")
        boundary = _loop_boundary(func, side, extrap) if mode.startswith("Loop") else None
        valid = getattr(spline, f"Is{side.capitalize()}ExtrapolationValid", None)
        if boundary is not None and len(knots) > 1:
            full, near = (times[-1], times[0]) if end == 0 else (times[0], times[-1])
            if boundary == near:  # a loop without span: Ts holds the end knot
                mode = "Held"
            elif boundary != full:
                what = ("is not a knot time (Ts gives no value there)"
                        if boundary not in times else
                        f"loops over the knots from {min(boundary, full)!r} to "
                        f"{max(boundary, full)!r} only (a curve repeats all of its keys)")
                raise ValueError(f"{func}: the {side}-extrapolation's loopBoundaryTime "
                                 f"{boundary!r} {what}")
        if valid is not None and not valid():
            raise ValueError(f"{func}: Ts gives no value in the spline's {side}-extrapolation "
                             f"(Ts.Spline.Is{side.capitalize()}ExtrapolationValid() is False)")
        edge = knots[-1] if end else knots[0]
        if mode == "LoopRepeat" and len(knots) > 1 and edge.IsDualValued():
            raise ValueError(
                f"{func}: LoopRepeat {side}-extrapolation with a dual-valued "
                f"{'last' if end else 'first'} knot is not represented: Ts shifts each repeat "
                f"{'after' if end else 'before'} the knots by that knot's outer "
                f"{'value' if end else 'pre-value'} (so the repeats before and after the "
                f"knots shift by different amounts), a curve by the keys' inner rise")
        modes.append(mode)
    return modes


def _per_second_slopes(func, slopes, scale) -> np.ndarray:
    """Slopes per time code times ``scale`` (time codes per second); a product
    beyond the double range is an OverflowError naming ``func``."""
    slopes = np.asarray(slopes, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        result = slopes * scale
    bad = np.flatnonzero(~np.isfinite(result))
    if bad.size:
        raise OverflowError(f"{func}: slope {float(slopes[bad[0]])!r} times "
                            f"time_codes_per_second={scale!r} is not representable (a "
                            f"velocity per second beyond the double range)")
    return result


def curve_from_spline(spline, *, time_codes_per_second=None) -> Curve:
    """The curve a ``pxr.Ts.Spline`` evaluates.

    Parameters
    ----------
    spline : pxr.Ts.Spline
        A spline of a scalar value type (double, float, half).
    time_codes_per_second : float, optional
        Divides the spline's time codes into seconds (a stage's
        ``timeCodesPerSecond``); velocities follow. Time codes otherwise.

    Raises
    ------
    ValueError
        An empty spline, value blocks, regressive tangents (given, or made by
        Ts's bake of inner loops), a non-scalar value type, LoopRepeat
        extrapolation beyond a dual-valued end knot, a ``loopBoundaryTime``
        that is not an end knot, an extrapolation Ts gives no value for, and
        inner loops Ts cannot bake (see the module documentation for why
        each is not a curve).
    OverflowError
        A velocity or polynomial beyond the double range (a slope times
        ``time_codes_per_second``, huge values over close knots).
    """
    func = "curve_from_spline"
    if spline.IsEmpty():
        raise ValueError(f"{func}: the spline has no knots")
    if spline.GetValueTypeName() not in ("double", "float", "half"):
        raise ValueError(f"{func}: the spline holds {spline.GetValueTypeName()!r} values "
                         f"(only scalar splines are curves)")
    if spline.HasValueBlocks():
        raise ValueError(f"{func}: the spline has value blocks (no value at some times), "
                         f"which a curve cannot represent")
    if spline.HasRegressiveTangents():
        raise ValueError(f"{func}: the spline has regressive tangents (time would go "
                         f"backwards); call spline.AdjustRegressiveTangents() first")
    scale = 1.0
    if time_codes_per_second is not None:
        scale = float(time_codes_per_second)
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"{func}: time_codes_per_second is {time_codes_per_second!r} "
                             f"(must be a finite number > 0)")
    # (HasLoops first: Ts prints a deprecation warning at every HasInnerLoops call)
    inner_loops = spline.HasLoops() and spline.HasInnerLoops()
    try:
        knots = list((spline.GetKnotsWithInnerLoopsBaked() if inner_loops
                      else spline.GetKnots()).values())
    except RuntimeError as error:  # (pxr.Tf.ErrorException: Ts fails on its own spline)
        raise ValueError(f"{func}: Ts cannot bake the spline's inner loops: "
                         f"{_tf_message(error)}") from None
    modes = _extrapolation_modes(func, spline, knots)
    hermite = _name(spline.GetCurveType()) == "Hermite"
    # each knot's tangents; AutoEase sides are recomputed from the keys below
    pre_slopes = [k.GetPreTanSlope() for k in knots]
    post_slopes = [k.GetPostTanSlope() for k in knots]
    pre_widths = [k.GetPreTanWidth() for k in knots]
    post_widths = [k.GetPostTanWidth() for k in knots]
    times, values, pre_key, post_key = [], [], [], []
    for knot in knots:
        if knot.IsDualValued():  # a jump: the pre-value ends the segment before
            times.append(knot.GetTime())
            values.append(knot.GetPreValue())
        pre_key.append(len(times) - 1 if knot.IsDualValued() else len(times))
        post_key.append(len(times))
        times.append(knot.GetTime())
        values.append(knot.GetValue())
    auto = [[_algorithm(k, side) == "AutoEase" for k in knots] for side in ("Pre", "Post")]
    if (any(auto[0]) or any(auto[1])) and not inner_loops:
        # (baked inner loops keep their prototype's tangents, as Ts copies them)
        slopes = _core._tangents_auto_ease(func, np.array(times, float),
                                           np.array(values, float))
        value_type = spline.GetValueTypeName()
        for n in range(len(knots)):  # (the outer sides of the end knots stay as given)
            if auto[0][n] and n > 0:
                pre_slopes[n], pre_widths[n] = _typed_tangent(
                    float(slopes[pre_key[n]]),
                    (knots[n].GetTime() - knots[n - 1].GetTime()) / 3.0, value_type)
            if auto[1][n] and n + 1 < len(knots):
                post_slopes[n], post_widths[n] = _typed_tangent(
                    float(slopes[post_key[n]]),
                    (knots[n + 1].GetTime() - knots[n].GetTime()) / 3.0, value_type)
    vin, vout, w_in, w_out, kinds = [], [], [], [], []
    for n, knot in enumerate(knots):
        pre_slope, post_slope = pre_slopes[n], post_slopes[n]
        if knot.IsDualValued():
            vin.append(pre_slope), vout.append(0.0)
            w_in.append(pre_widths[n]), w_out.append(None)
            kinds.append("step")  # the zero-length segment of the jump
            pre_slope = 0.0
        vin.append(pre_slope), vout.append(post_slope)
        w_in.append(None if knot.IsDualValued() else pre_widths[n])
        w_out.append(post_widths[n])
        interp = _name(knot.GetNextInterpolation())
        if n < len(knots) - 1:
            kinds.append(("cubic" if hermite else "bezier") if interp == "Curve"
                         else _SEGMENTS[interp])
    t = np.array(times, float)
    dt = np.diff(t)
    win = np.full(t.size, 1.0 / 3.0)
    wout = np.full(t.size, 1.0 / 3.0)
    for i in range(t.size):
        if i > 0 and dt[i - 1] > 0 and w_in[i] is not None:
            win[i] = w_in[i] / dt[i - 1]
        if i < t.size - 1 and dt[i] > 0 and w_out[i] is not None:
            wout[i] = w_out[i] / dt[i]
    if not hermite and inner_loops:
        # Ts's bake copies the prototype's tangents into the loop's knots, whose
        # intervals may be shorter: regressive Bezier segments (a + b -
        # sqrt(a b) > 1 for the handles' fractions a, b of the interval)
        for i in np.flatnonzero(dt > 0):
            if not isinstance(kinds, str) and kinds[i] == "bezier":
                a, b = wout[i], win[i + 1]
                if a + b - math.sqrt(a * b) > 1.0:
                    raise ValueError(
                        f"{func}: the spline's inner loops bake into regressive tangents "
                        f"(the knots at {times[i]!r} and {times[i + 1]!r}: handles of "
                        f"{a:.6g} and {b:.6g} of their interval, time would go backwards); "
                        f"call spline.BakeInnerLoops() and "
                        f"spline.AdjustRegressiveTangents() first")
    sides = []
    for end, (mode, extrap) in enumerate(zip(modes, (spline.GetPreExtrapolation(),
                                                      spline.GetPostExtrapolation()))):
        if mode == "Linear":
            # Ts continues with the end knot's inner side: the first knot's
            # post-tangent, the last knot's pre-tangent, a linear end segment's
            # slope; flat after a held end segment, at a dual-valued end knot
            # (either end) and for a single knot
            edge = knots[0] if end == 0 else knots[-1]
            if len(knots) == 1 or edge.IsDualValued():
                sides.append(("sloped", 0.0))
                continue
            a, b = (knots[0], knots[1]) if end == 0 else (knots[-2], knots[-1])
            interp = _name(a.GetNextInterpolation())
            if interp == "Curve":
                slope = post_slopes[0] if end == 0 else pre_slopes[-1]
            elif interp == "Linear":
                # (the segment ends at the second knot's pre-value)
                end_value = b.GetPreValue() if b.IsDualValued() else b.GetValue()
                slope = (end_value - a.GetValue()) / (b.GetTime() - a.GetTime())
            else:
                slope = 0.0
            sides.append(("sloped", float(_per_second_slopes(func, [slope], scale)[0])))
            continue
        sides.append((_EXTRAPOLATION[mode],
                      float(_per_second_slopes(func, [extrap.slope], scale)[0])
                      if mode == "Sloped" else None))
    if t.size == 1:
        kinds = "step"
    bezier = "bezier" in kinds
    handles = bezier or "cubic" in kinds  # otherwise the segments set the velocities
    curve = Curve.__new__(Curve)
    curve._build(func, t / scale, np.array(values, float), kinds, None, None,
                 _per_second_slopes(func, vin, scale) if handles else None,
                 _per_second_slopes(func, vout, scale) if handles else None, sides[0][0],
                 sides[1][0],
                 bool((dt == 0).any()), in_weights=win if bezier else None,
                 out_weights=wout if bezier else None, before_slope=sides[0][1],
                 after_slope=sides[1][1], long_handles=True)
    curve._ease = None
    return curve
