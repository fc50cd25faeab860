"""Writes the UsdSkel fixtures of tests/test_usd.py with OpenUSD itself.

Run with usd-core installed (kept out of the test environment):

    python -m venv /tmp/usd-venv --system-site-packages
    /tmp/usd-venv/bin/pip install usd-core
    /tmp/usd-venv/bin/python tests/data/usd/make_fixtures.py

It writes walker.usda (a SkelRoot with a Skeleton, its SkelAnimation listing
the joints in another order than the skeleton, translations, rotations,
scales and blend-shape weights on time samples at 24 time codes per second)
and walker_expected.json: what UsdSkel.SkeletonQuery computes for it (joint
order, parents, local transforms and skeleton-space transforms at a few
times, including between samples), with the USD version that computed it.

It also writes xforms.usda (Xformable prims with animated xformOps: translate,
orient and scale; rotateXYZ, translateY and rotateZ around a static pivot;
rotateZYX and scaleX; a transform matrix; a translateX driven by a Ts spline
with AutoEase knots;
30 time codes per second, start time code 6) and xforms_expected.json: what
Usd.Attribute.Get gives for every op attribute at many time codes, with the
stage's linear and held interpolation, and each prim's
GetLocalTransformation.
"""
import json
import math
import pathlib

from pxr import Gf, Ts, Usd, UsdGeom, UsdSkel, Vt

HERE = pathlib.Path(__file__).resolve().parent
JOINTS = ["hips", "hips/spine", "hips/spine/head", "hips/leg_l", "hips/leg_l/shin_l",
          "hips/leg_r"]
ANIMATED = ["hips/leg_l", "hips", "hips/spine/head", "hips/leg_l/shin_l"]  # another order
FRAMES = range(0, 25, 4)


def quat(axis, degrees):
    rotation = Gf.Rotation(Gf.Vec3d(*axis), degrees)
    q = rotation.GetQuat()
    return Gf.Quatf(q.GetReal(), Gf.Vec3f(q.GetImaginary()))


def matrix(translation, axis=(0, 0, 1), degrees=0.0):
    m = Gf.Matrix4d(1.0)
    m.SetRotateOnly(Gf.Rotation(Gf.Vec3d(*axis), degrees))
    m.SetTranslateOnly(Gf.Vec3d(*translation))
    return m


def build(path):
    stage = Usd.Stage.CreateNew(str(path))
    stage.SetTimeCodesPerSecond(24)
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(24)
    root = UsdSkel.Root.Define(stage, "/Walker")
    skel = UsdSkel.Skeleton.Define(stage, "/Walker/Skel")
    skel.CreateJointsAttr(Vt.TokenArray(JOINTS))
    rest = [matrix((0, 1, 0)), matrix((0, 0.3, 0), (1, 0, 0), 10), matrix((0, 0.4, 0)),
            matrix((0.1, -0.1, 0), (0, 0, 1), 180), matrix((0, 0.45, 0)),
            matrix((-0.1, -0.1, 0), (0, 0, 1), 180)]
    skel.CreateRestTransformsAttr(Vt.Matrix4dArray(rest))
    topology = UsdSkel.Topology(Vt.TokenArray(JOINTS))
    bind, parents = [], topology.GetParentIndices()
    for j, local in enumerate(rest):  # the bind pose is the rest pose, in skeleton space
        bind.append(local if parents[j] < 0 else local * bind[parents[j]])
    skel.CreateBindTransformsAttr(Vt.Matrix4dArray(bind))
    anim = UsdSkel.Animation.Define(stage, "/Walker/Skel/Walk")
    anim.CreateJointsAttr(Vt.TokenArray(ANIMATED))
    translations = anim.CreateTranslationsAttr()
    rotations = anim.CreateRotationsAttr()
    scales = anim.CreateScalesAttr()
    anim.CreateBlendShapesAttr(Vt.TokenArray(["smile", "blink"]))
    weights = anim.CreateBlendShapeWeightsAttr()
    for frame in FRAMES:
        u = frame / 24.0
        translations.Set(Vt.Vec3fArray([
            Gf.Vec3f(0.1, -0.1, 0), Gf.Vec3f(0, 1 + 0.05 * math.sin(2 * math.pi * u), u),
            Gf.Vec3f(0, 0.4, 0), Gf.Vec3f(0, 0.45, 0)]), frame)
        rotations.Set(Vt.QuatfArray([
            quat((1, 0, 0), 180 + 30 * math.sin(2 * math.pi * u)), quat((0, 1, 0), 40 * u),
            quat((0, 1, 1), 15 * math.cos(2 * math.pi * u)), quat((1, 0, 0), -45 * u)]), frame)
        # multiples of 1/16: exact in half precision, and so are the values USD
        # interpolates between them (it interpolates half3 in half precision)
        grow = 1 + frame / 16
        scales.Set(Vt.Vec3hArray([Gf.Vec3h(1, 1, 1), Gf.Vec3h(1, 1, 1),
                                  Gf.Vec3h(grow, 1, grow), Gf.Vec3h(1, 1, 1)]), frame)
        weights.Set(Vt.FloatArray([u, 1 - u]), frame)
    binding = UsdSkel.BindingAPI.Apply(skel.GetPrim())
    binding.CreateAnimationSourceRel().SetTargets([anim.GetPrim().GetPath()])
    UsdSkel.BindingAPI.Apply(root.GetPrim()).CreateSkeletonRel().SetTargets([skel.GetPrim().GetPath()])
    stage.GetRootLayer().Save()
    return stage


def rows(m):
    """A Gf.Matrix4d (row vectors, translation in the last row) as nested lists."""
    return [[m[i][j] for j in range(4)] for i in range(4)]


def build_xforms(path):
    stage = Usd.Stage.CreateNew(str(path))
    stage.SetTimeCodesPerSecond(30)
    stage.SetStartTimeCode(6)
    stage.SetEndTimeCode(36)
    UsdGeom.Xform.Define(stage, "/World")
    double = UsdGeom.XformOp.PrecisionDouble
    cube = UsdGeom.Xform.Define(stage, "/World/Cube")
    translate = cube.AddTranslateOp(double)
    orient = cube.AddOrientOp(double)
    scale = cube.AddScaleOp()  # float3
    for code, (x, y, z), axis, degrees, s in (
            (6, (0, 0, 0), (0, 0, 1), 0, 1.0), (12, (1, 2, 0.5), (0, 0, 1), 90, 1.5),
            (24, (1.5, -1, 2), (1, 1, 0), 200, 0.75), (36, (0, 0.25, 4), (0, 1, 0), -30, 2.0)):
        translate.Set(Gf.Vec3d(x, y, z), code)
        orient.Set(Gf.Rotation(Gf.Vec3d(*axis), degrees).GetQuat(), code)
        scale.Set(Gf.Vec3f(s, 1.0, 2.0 - s / 2), code)
    arm = UsdGeom.Xform.Define(stage, "/World/Cube/Arm")
    pivot = arm.AddTranslateOp(double, "pivot")
    pivot.Set(Gf.Vec3d(0.5, 0, 0))  # not animated: no channel
    rotate = arm.AddRotateXYZOp(double)
    lift = arm.AddTranslateYOp(double)
    turn = arm.AddRotateZOp()  # float
    arm.AddTranslateOp(double, "pivot", isInverseOp=True)
    for code, angles, y, z in ((0, (0, 0, 0), 0.0, 0.0), (10, (30, -45, 10), 0.5, 90.0),
                               (20, (90, 10, -60), -0.25, 180.0), (40, (0, 80, 0), 1.0, 45.0)):
        rotate.Set(Gf.Vec3d(*angles), code)
        lift.Set(y, code)
        turn.Set(z, code)
    spin = UsdGeom.Xform.Define(stage, "/World/Spin")
    zyx = spin.AddRotateZYXOp(double)
    sx = spin.AddScaleXOp(double)
    for code, angles, value in ((6, (10, 20, 30), 1.0), (18, (-40, 60, 120), 3.0),
                                (30, (170, -20, 5), 0.5)):
        zyx.Set(Gf.Vec3d(*angles), code)
        sx.Set(value, code)
    matrix_prim = UsdGeom.Xform.Define(stage, "/World/Matrix")
    transform = matrix_prim.AddTransformOp()
    for code, translation, axis, degrees in ((6, (0, 0, 0), (0, 0, 1), 0),
                                             (20, (1, 2, 3), (0, 0, 1), 90),
                                             (30, (-1, 0, 2), (1, 0, 0), 45)):
        transform.Set(matrix(translation, axis, degrees), code)
    splined = UsdGeom.Xform.Define(stage, "/World/Splined")
    tx = splined.AddTranslateXOp(double)
    spline = Ts.Spline()
    for t, v in ((6, 0.0), (12, 1.0), (20, 4.0), (26, 4.5), (36, 1.0)):
        knot = Ts.Knot(time=t, value=v)
        knot.SetNextInterpolation(Ts.InterpCurve)
        knot.SetPreTanAlgorithm(Ts.TangentAlgorithmAutoEase)
        knot.SetPostTanAlgorithm(Ts.TangentAlgorithmAutoEase)
        spline.SetKnot(knot)
    tx.GetAttr().SetSpline(spline)
    stage.GetRootLayer().Save()
    return stage


def value_list(value):
    """An attribute value (scalar, vector, quaternion or matrix) as a list of
    floats; quaternions as (x, y, z, w), matrices row by row as USD stores them."""
    if isinstance(value, Gf.Matrix4d):
        return [float(x) for row in rows(value) for x in row]
    if hasattr(value, "GetReal"):
        return [*map(float, value.GetImaginary()), float(value.GetReal())]
    if hasattr(value, "__len__"):
        return [float(x) for x in value]
    return [float(value)]


def xforms_expected(stage):
    codes = [c / 2 for c in range(-4, 90)]  # every half time code, and outside the samples
    expected = {"usd_version": ".".join(map(str, Usd.GetVersion())),
                "time_codes_per_second": stage.GetTimeCodesPerSecond(),
                "start_time_code": stage.GetStartTimeCode(), "time_codes": codes,
                "attributes": {}, "local": {}}
    for mode, name in ((Usd.InterpolationTypeLinear, "linear"),
                       (Usd.InterpolationTypeHeld, "held")):
        stage.SetInterpolationType(mode)
        for prim in stage.Traverse():
            xformable = UsdGeom.Xformable(prim)
            for op in xformable.GetOrderedXformOps():
                attr = op.GetAttr()
                entry = expected["attributes"].setdefault(str(attr.GetPath()), {
                    "op_type": str(op.GetOpType()).rsplit(".", 1)[-1],
                    "time_samples": list(attr.GetTimeSamples()),
                    "spline": attr.HasSpline()})
                entry[name] = [value_list(attr.Get(c)) for c in codes]
            if name == "linear":
                expected["local"][str(prim.GetPath())] = [
                    rows(xformable.GetLocalTransformation(c)) for c in codes]
    stage.SetInterpolationType(Usd.InterpolationTypeLinear)
    return expected


def main():
    stage = build_xforms(HERE / "xforms.usda")
    (HERE / "xforms_expected.json").write_text(json.dumps(xforms_expected(stage)) + "\n")
    path = HERE / "walker.usda"
    stage = build(path)
    cache = UsdSkel.Cache()
    skel = UsdSkel.Skeleton(stage.GetPrimAtPath("/Walker/Skel"))
    query = cache.GetSkelQuery(skel)
    expected = {"usd_version": ".".join(map(str, Usd.GetVersion())),
                "joints": list(query.GetJointOrder()),
                "parents": list(query.GetTopology().GetParentIndices()),
                "time_codes_per_second": stage.GetTimeCodesPerSecond(), "samples": []}
    for code in (0, 2, 4, 10, 24, 30):
        local = query.ComputeJointLocalTransforms(Usd.TimeCode(code))
        world = query.ComputeJointSkelTransforms(Usd.TimeCode(code))
        weights = UsdSkel.Animation(stage.GetPrimAtPath("/Walker/Skel/Walk")) \
            .GetBlendShapeWeightsAttr().Get(code)
        expected["samples"].append({"time_code": code, "local": [rows(m) for m in local],
                                    "skel": [rows(m) for m in world],
                                    "blend_shape_weights": list(weights)})
    (HERE / "walker_expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
