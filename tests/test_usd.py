"""UsdSkel import, against what OpenUSD's own UsdSkel.SkeletonQuery computes for the
same file (tests/data/usd/walker_expected.json, written with walker.usda by
tests/data/usd/make_fixtures.py, which records the USD version)."""
import json
import pathlib
import sys

import numpy as np
import pytest

from animcore import usd
from reference import trs_matrix

DATA = pathlib.Path(__file__).resolve().parent / "data" / "usd"
EXPECTED = json.loads((DATA / "walker_expected.json").read_text())


def usd_matrices(rows):
    """USD's row-vector matrices as column-vector ones."""
    return np.swapaxes(np.asarray(rows, float), -1, -2)


def test_without_openusd_the_error_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pxr", None)
    with pytest.raises(ImportError, match=r"pip install 'animcore\[usd\]' \(the usd-core package\)"):
        usd.load(DATA / "walker.usda")


def test_poses_match_usdskel():
    pytest.importorskip("pxr", reason="OpenUSD's Python bindings (usd-core) are not installed: "
                                      "pip install 'animcore[usd]'")
    scene = usd.load(DATA / "walker.usda")
    assert [n.name for n in scene.nodes] == EXPECTED["joints"]
    assert [n.parent for n in scene.nodes] == EXPECTED["parents"]
    (clip,) = scene.clips
    assert clip.name == "Walk" and clip.duration == 1.0
    per_second = EXPECTED["time_codes_per_second"]
    for sample in EXPECTED["samples"]:
        t = sample["time_code"] / per_second
        pose = scene.pose(clip, t)
        np.testing.assert_allclose(trs_matrix(*pose), usd_matrices(sample["local"]), atol=2e-6)
        np.testing.assert_allclose(scene.world(clip, t), usd_matrices(sample["skel"]), atol=2e-6)
        np.testing.assert_allclose(scene.weights(clip, t)[0], sample["blend_shape_weights"], atol=1e-6)
    assert scene.nodes[0].target_names == ("smile", "blink")
    # the rest pose is the bind pose: joint matrices are the identity at rest
    matrices = scene.skins[0].joint_matrices(scene)
    np.testing.assert_allclose(matrices, np.broadcast_to(np.eye(4), matrices.shape), atol=1e-12)


def test_usd_errors(tmp_path):
    pytest.importorskip("pxr", reason="OpenUSD's Python bindings (usd-core) are not installed")
    with pytest.raises(FileNotFoundError, match="usd.load: no such file"):
        usd.load(tmp_path / "missing.usda")
    empty = tmp_path / "empty.usda"
    empty.write_text("#usda 1.0\ndef Xform \"World\" {}\n")
    with pytest.raises(ValueError, match=r"usd.load: .*empty.usda has no UsdSkel Skeleton"):
        usd.load(empty)
    text = (DATA / "walker.usda").read_text().replace(
        'uniform token[] joints = ["hips/leg_l", "hips",', 'uniform token[] joints = ["hips/arm", "hips",')
    bad = tmp_path / "bad.usda"
    bad.write_text(text)
    with pytest.raises(ValueError, match=r"/Walker/Skel/Walk animates joint 'hips/arm', which "
                                         r"/Walker/Skel does not have"):
        usd.load(bad)
