"""Record tests/data/model_pickle_v0.pkl: data-model objects pickled by animcore
0.1.0 as it was when Channel, Clip, Node, Skin, Scene and Unsupported were defined in
animcore/gltf.py (commit 8c1076c). tests/test_model.py checks that such pickles
still load after the classes moved to animcore/model.py.

Run from a checkout of that commit:  python tests/data/make_model_pickle.py
"""
import os
import pickle

from animcore import gltf

HERE = os.path.dirname(os.path.abspath(__file__))

sample = gltf.load_scene(gltf.sample_path())
rigged = gltf.load_scene(os.path.join(HERE, "gltf", "RiggedSimple", "RiggedSimple.gltf"))
objects = {"sample": sample, "rigged": rigged, "unsupported": gltf.Unsupported("/x", 3)}
assert type(sample).__module__ == "animcore.gltf"  # the pre-move layout
with open(os.path.join(HERE, "model_pickle_v0.pkl"), "wb") as stream:
    pickle.dump(objects, stream, protocol=4)
