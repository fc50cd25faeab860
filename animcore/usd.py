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
  last knot's pre-tangent), a linear end segment's slope, 0 after a held
  one or before a pre-value, sloped
  -> ``"sloped"``, loop repeat -> ``"cycle_offset"``, loop reset ->
  ``"cycle"``, loop oscillate -> ``"oscillate"``;
- inner loops are baked into knots first, as Ts does.

curve_from_spline raises ``ValueError`` for what a Curve does not represent: value blocks,
regressive tangents, non-scalar value types.
"""
from __future__ import annotations

import math
import os
from typing import Dict, Union

import numpy as np

from . import _core, model
from .curves import Curve
from .rotations import RotationCurve
from .skeleton import _decompose

__all__ = ["curve_from_spline", "load"]


def _pxr():
    try:
        from pxr import Usd, UsdSkel
    except ImportError:
        raise ImportError("animcore.usd needs OpenUSD's Python bindings: "
                          "pip install 'animcore[usd]' (the usd-core package)") from None
    return Usd, UsdSkel


def _matrices(values) -> np.ndarray:
    """Gf.Matrix4d values (row vectors) as (N, 4, 4) column-vector matrices."""
    return np.array([[[m[i][j] for j in range(4)] for i in range(4)] for m in values],
                    dtype=np.float64).reshape(-1, 4, 4).transpose(0, 2, 1)


def _quats(values) -> np.ndarray:
    """Gf.Quat values (real, imaginary) as (N, 4) (x, y, z, w)."""
    return np.array([[*q.GetImaginary(), q.GetReal()] for q in values],
                    dtype=np.float64).reshape(-1, 4)


def _samples(attribute, convert, start, per_second):
    """(times in seconds, stacked values) of an attribute's time samples, or None."""
    if not attribute or not attribute.HasAuthoredValue():
        return None
    codes = attribute.GetTimeSamples()
    if not codes:
        value = attribute.Get()
        return None if value is None else (np.zeros(1), convert(value)[None])
    times = (np.array(codes, dtype=np.float64) - start) / per_second
    return times, np.stack([convert(attribute.Get(code)) for code in codes])


_VECTOR_OPS = ("Translate", "Scale", "RotateXYZ", "RotateXZY", "RotateYXZ", "RotateYZX",
               "RotateZXY", "RotateZYX")
_SCALAR_OPS = ("TranslateX", "TranslateY", "TranslateZ", "ScaleX", "ScaleY", "ScaleZ",
               "RotateX", "RotateY", "RotateZ")
_INTERPOLATIONS = {"linear": "linear", "held": "step", "step": "step"}


def _xform_channels(stage, interpolation, where):
    """{"<prim path>.<op attribute>": curve} for every animated xformOp."""
    from pxr import UsdGeom

    per_second = stage.GetTimeCodesPerSecond()
    channels = {}
    for prim in stage.Traverse():
        xformable = UsdGeom.Xformable(prim)
        if not xformable:
            continue
        for op in xformable.GetOrderedXformOps():
            attribute = op.GetAttr()
            name = str(attribute.GetPath())
            kind = str(op.GetOpType()).rsplit(".", 1)[-1][len("Type"):]
            if name in channels:  # (an inverse op reads the same attribute)
                continue
            if attribute.HasSpline():
                channels[name] = curve_from_spline(attribute.GetSpline(),
                                                   time_codes_per_second=per_second)
                continue
            codes = attribute.GetTimeSamples()
            if not codes:
                continue
            times = np.array(codes, dtype=np.float64) / per_second
            if kind == "Orient":
                values = _quats([attribute.Get(code) for code in codes])
            elif kind == "Transform":  # column-vector matrices, row by row
                values = _matrices([attribute.Get(code) for code in codes]).reshape(-1, 16)
            else:
                values = np.array([attribute.Get(code) for code in codes], dtype=np.float64)
            if not np.all(np.isfinite(values)):
                raise ValueError(f"{where}: {name} has non-finite values")
            if kind == "Orient":
                channels[name] = RotationCurve(times, values, interpolation=interpolation)
            elif kind in _VECTOR_OPS or kind in _SCALAR_OPS or kind == "Transform":
                channels[name] = Curve(times, values, interpolation=interpolation)
    return channels


def load(path_or_stage, *, interpolation: str = "linear"
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

    Returns
    -------
    animcore.model.Scene
        For a stage with a UsdSkel ``Skeleton``: joints as nodes, one skin,
        and one clip named after the animation prim (no clip when no
        animation is bound), as the module documentation describes.
    dict
        Otherwise, one entry per animated ``xformOp`` of every Xformable
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
    ValueError
        A stage with neither a Skeleton nor an animated xformOp, an
        animation joint the skeleton does not have, arrays whose lengths do
        not match the joints, non-finite values, an unknown interpolation.
    OSError
        If the file cannot be opened.
    """
    Usd, UsdSkel = _pxr()
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"usd.load: interpolation is {interpolation!r} (must be 'linear' or "
                         f"'held')")
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
            raise OSError(f"usd.load: USD cannot open {path!r}: "
                          f"{str(error).strip().splitlines()[0]}") from None
        if stage is None:
            raise OSError(f"usd.load: USD cannot open {path!r}")
    skel = next((UsdSkel.Skeleton(p) for p in stage.Traverse() if p.IsA(UsdSkel.Skeleton)),
                None)
    if skel is None:
        channels = _xform_channels(stage, interpolation, f"usd.load: {path}")
        if not channels:
            raise ValueError(f"usd.load: {path} has no UsdSkel Skeleton and no animated "
                             f"xformOp")
        return channels
    where = f"usd.load: {path}: {skel.GetPath()}"
    joints = [str(j) for j in (skel.GetJointsAttr().Get() or [])]
    parents = list(UsdSkel.Topology(skel.GetJointsAttr().Get() or []).GetParentIndices())
    count = len(joints)
    rest = skel.GetRestTransformsAttr().Get()
    bind = skel.GetBindTransformsAttr().Get()
    bind = _matrices(bind) if bind else None
    if rest:
        local = _matrices(rest)
    elif bind is not None:
        local = np.array([b if p < 0 else np.linalg.inv(bind[p]) @ b
                          for b, p in zip(bind, parents)]).reshape(-1, 4, 4)
    else:
        local = np.broadcast_to(np.eye(4), (count, 4, 4)).copy()
    for name, array in (("restTransforms", local), ("bindTransforms", bind)):
        if array is not None and len(array) != count:
            raise ValueError(f"{where}: {name} has {len(array)} matrices for {count} joints")
        if array is not None and not np.all(np.isfinite(array)):
            raise ValueError(f"{where}: {name} has non-finite values")
    trs = _decompose("usd.load", local)
    children = [tuple(k for k, p in enumerate(parents) if p == j) for j in range(count)]
    anim = None
    binding = UsdSkel.BindingAPI(skel.GetPrim())
    targets = binding.GetAnimationSourceRel().GetTargets() if binding else []
    if targets:
        prim = stage.GetPrimAtPath(targets[0])
        anim = UsdSkel.Animation(prim) if prim and prim.IsA(UsdSkel.Animation) else None
    channels, target_names, roots = [], None, [j for j in range(count) if parents[j] < 0]
    if anim is not None:
        start, per_second = stage.GetStartTimeCode(), stage.GetTimeCodesPerSecond()
        kind = "LINEAR" if interpolation == "linear" else "STEP"
        anim_joints = [str(j) for j in (anim.GetJointsAttr().Get() or [])]
        unknown = [j for j in anim_joints if j not in joints]
        if unknown:
            raise ValueError(f"usd.load: {path}: {anim.GetPath()} animates joint "
                             f"{unknown[0]!r}, which {skel.GetPath()} does not have")
        index = [joints.index(j) for j in anim_joints]
        vectors = lambda v: np.array(v, float).reshape(-1, 3)  # noqa: E731
        for path_name, attribute, convert in (
                ("translation", anim.GetTranslationsAttr(), vectors),
                ("rotation", anim.GetRotationsAttr(), _quats),
                ("scale", anim.GetScalesAttr(), vectors)):
            sampled = _samples(attribute, convert, start, per_second)
            if sampled is None:
                continue
            times, values = sampled
            if values.shape[1] != len(anim_joints):
                raise ValueError(f"usd.load: {path}: {attribute.GetPath()} has "
                                 f"{values.shape[1]} values per sample for "
                                 f"{len(anim_joints)} animated joints")
            if not np.all(np.isfinite(values)):
                raise ValueError(f"usd.load: {path}: {attribute.GetPath()} has non-finite values")
            for k, j in enumerate(index):
                channels.append(model._keyed_channel(j, joints[j], path_name, times,
                                                     values[:, k], kind))
        shapes = [str(s) for s in (anim.GetBlendShapesAttr().Get() or [])]
        sampled = _samples(anim.GetBlendShapeWeightsAttr(),
                           lambda v: np.array(v, float).reshape(-1), start, per_second)
        if shapes and sampled is not None and roots:
            times, values = sampled
            if values.shape[1] != len(shapes):
                raise ValueError(f"usd.load: {path}: blendShapeWeights has {values.shape[1]} "
                                 f"values per sample for {len(shapes)} blendShapes")
            channels.append(model._keyed_channel(roots[0], joints[roots[0]], "weights", times,
                                                 values, kind))
            target_names = tuple(shapes)
        channels.sort(key=lambda c: (c.node, c.path))
    nodes = []
    for j in range(count):
        names = target_names if target_names is not None and j == roots[0] else None
        weights = model._frozen(np.zeros(len(names))) if names else None
        nodes.append(model.Node(j, joints[j], parents[j], children[j],
                               model._frozen(trs.translation[j]), model._frozen(trs.rotation[j]),
                               model._frozen(trs.scale[j]), None, None, None, weights, names))
    skins = ()
    if bind is not None:
        inverse = np.linalg.inv(bind)
        inverse.flags.writeable = False
        joint_array = np.arange(count, dtype=np.int64)
        joint_array.flags.writeable = False
        skins = (model.Skin(0, str(skel.GetPath()), joint_array, inverse,
                           roots[0] if roots else None),)
    clips = ()
    if anim is not None and channels:
        duration = max(float(c.times[-1]) for c in channels)
        clips = (model.Clip(anim.GetPrim().GetName(), duration, tuple(channels)),)
    return model.Scene(tuple(nodes), (tuple(roots),), 0, skins, clips)


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
        An empty spline, value blocks, regressive tangents or a non-scalar
        value type.
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
    knots = list((spline.GetKnotsWithInnerLoopsBaked() if spline.HasInnerLoops()
                  else spline.GetKnots()).values())
    loops = [_name(e.mode).startswith("Loop")
             for e in (spline.GetPreExtrapolation(), spline.GetPostExtrapolation())]
    if any(loops) and (knots[0].IsDualValued() or knots[-1].IsDualValued()):
        raise ValueError(f"{func}: looping extrapolation with a dual-valued first or last "
                         f"knot is not reproduced (Ts's cycle offsets and seams differ there)")
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
    if (any(auto[0]) or any(auto[1])) and not spline.HasInnerLoops():
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
    sides = []
    for end, extrap in enumerate((spline.GetPreExtrapolation(), spline.GetPostExtrapolation())):
        mode = _name(extrap.mode)
        if mode not in _EXTRAPOLATION:
            raise ValueError(f"{func}: extrapolation {mode!r} is not represented by a curve")
        if mode == "Linear":
            # Ts continues with the end knot's inner side: the first knot's
            # post-tangent, the last knot's pre-tangent (a linear end segment's
            # slope, 0 after a held one or from a pre-value)
            # (read from the knots themselves: a pre-value does not count)
            a, b = (knots[0], knots[1]) if end == 0 else (knots[-2], knots[-1])
            interp = _name(a.GetNextInterpolation()) if len(knots) > 1 else "Held"
            if len(knots) == 1 or (end == 0 and knots[0].IsDualValued()):
                slope = 0.0
            elif interp == "Curve":  # (a dual-valued last knot's pre-tangent is not used)
                slope = (post_slopes[0] if end == 0 else
                         0.0 if b.IsDualValued() else pre_slopes[-1])
            elif interp == "Linear":
                slope = (b.GetValue() - a.GetValue()) / (b.GetTime() - a.GetTime())
            else:
                slope = 0.0
            sides.append(("sloped", slope * scale))
            continue
        sides.append((_EXTRAPOLATION[mode], extrap.slope * scale if mode == "Sloped" else None))
    if t.size == 1:
        kinds = "step"
    bezier = "bezier" in kinds
    handles = bezier or "cubic" in kinds  # otherwise the segments set the velocities
    curve = Curve.__new__(Curve)
    curve._build(func, t / scale, np.array(values, float), kinds, None, None,
                 np.array(vin) * scale if handles else None,
                 np.array(vout) * scale if handles else None, sides[0][0], sides[1][0],
                 bool((dt == 0).any()), in_weights=win if bezier else None,
                 out_weights=wout if bezier else None, before_slope=sides[0][1],
                 after_slope=sides[1][1], long_handles=True)
    curve._ease = None
    return curve
