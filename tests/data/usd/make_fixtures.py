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
"""
import json
import math
import pathlib

from pxr import Gf, Sdf, Usd, UsdSkel, Vt

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


def main():
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
