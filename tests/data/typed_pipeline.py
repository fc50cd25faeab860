"""A newcomer's script on the built-in sample: load a rig, pose it, blend,
reduce, inspect samples and save. mypy --strict checks it from outside the
source tree, against the installed package."""
import dataclasses
import importlib.resources
import pathlib
import sys

import numpy as np

import animcore

sample = importlib.resources.files("animcore.data") / "sample.gltf"
scene = animcore.load(str(sample))
clip = scene.clips[0]
times = np.linspace(0.0, 1.0, 5)
pose: animcore.Transforms = scene.pose(clip, times)
world = scene.world(clip, 0.5)
print(world.shape, scene.joint_names, scene.skeleton.names, scene.node_index("hips"))
print(clip.channel("hips", "rotation").sample(0.5), clip.key_times())
blended = animcore.blend_poses(pose, pose, 0.25)
print(blended.translation.shape)

buffer = animcore.SnapshotBuffer(2, 1)
buffer.push([0, 1], 0, 0, [[1.0], [2.0]])
result = buffer.sample(0.0)
mode = result.mode
print(mode)

reduced = animcore.reduce_clip(scene, clip, 1e-3)
error = animcore.clip_error(scene, clip, reduced, times)
curve = animcore.Curve([0, 1, 2], [0, 1, 0])
print(curve(0.5, 1), curve.derivative()(0.5), float(error.max()))
folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
animcore.save(str(folder / "out.gltf"), dataclasses.replace(scene, clips=(reduced,)))
print(animcore.load(str(folder / "out.gltf")).clips[0].name)
