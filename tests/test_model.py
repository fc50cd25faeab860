"""The format-free data model (animcore.model): old pickles, names, lookups,
load/save dispatch, and the checks that keep clips on the rig they belong to."""
import os
import pickle

import numpy as np
import pytest

import animcore
from animcore import gltf, model

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
RIGGED = os.path.join(DATA, "gltf", "RiggedSimple", "RiggedSimple.gltf")


# -- pickles written before the classes moved out of gltf.py ---------------------

def test_pickles_written_when_the_classes_lived_in_gltf_still_load():
    # Recorded by tests/data/make_model_pickle.py with the code of commit 8c1076c,
    # where these classes were animcore.gltf.Channel and so on.
    with open(os.path.join(DATA, "model_pickle_v0.pkl"), "rb") as stream:
        data = stream.read()
    assert b"animcore.gltf" in data and b"animcore.model" not in data
    old = pickle.loads(data)
    fresh = {"sample": gltf.load_scene(gltf.sample_path()), "rigged": gltf.load_scene(RIGGED)}
    for key, scene in fresh.items():
        assert type(old[key]) is model.Scene
        assert old[key] == scene
        for clip in scene.clips:
            t = np.linspace(0.0, clip.duration, 7)
            np.testing.assert_array_equal(old[key].world(clip.name, t), scene.world(clip, t))
    assert old["unsupported"] == model.Unsupported("/x", 3)


def test_the_old_names_are_the_model_classes():
    for name in ("Channel", "Clip", "Node", "Skin", "Scene", "Unsupported"):
        assert getattr(gltf, name) is getattr(model, name)
    from animcore import bake

    assert bake.frame_times is model.frame_times
    assert animcore.extract_root_motion is model.extract_root_motion
    assert issubclass(gltf.GltfError, model.ReadError)
