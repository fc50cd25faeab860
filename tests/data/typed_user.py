"""A small user script touching every public function and class."""
import numpy as np
import numpy.typing as npt

import animcore
from animcore import gltf

t = np.linspace(0.0, 2.0, 5)
sample = animcore.hermite(0.0, 10.0, 2.0, 0.0, 2.0, t, workers=1)
position: npt.NDArray[np.float64] = sample.position
segment = animcore.HermiteSegment(0.0, 10.0, 2.0, 0.0, 2.0)
print(segment.evaluate(1.0).velocity, segment.stretched(2.0).duration)
print(animcore.velocity_to_tangent(2.0, t + 1), animcore.tangent_to_velocity(4.0, t + 1))

curve = animcore.Curve([0, 1, 2, 3], [0, 60, 60, 0])
values: npt.NDArray[np.float64] = curve(t)
print(curve.evaluate(t, 1), curve.sample(t).velocity, curve.key_slopes(), curve.overshoot())
print(animcore.CurveSample, animcore.KeySlopes, animcore.Overshoot)

print(animcore.ease("smoothstep", t / 2), animcore.ease_inverse("smoothstep", t / 2))
print(animcore.easing_kinds(), animcore.EASING_KINDS, animcore.as_easing("sine_in"))
bezier = animcore.CubicBezier(0.25, 0.1, 0.25, 1.0)
steps = animcore.Steps(4)
kind: animcore.Easing = animcore.Ease("quad_in")
print(bezier(0.5), steps(0.5), kind(0.5))

q = animcore.quat_from_axis_angle([0.0, 0.0, 1.0], np.pi / 2)
print(animcore.quat_multiply(q, q), animcore.quat_conjugate(q), animcore.quat_normalize(q))
print(animcore.quat_rotate(q, [1.0, 0.0, 0.0]), animcore.quat_slerp(q, q, 0.5),
      animcore.quat_nlerp(q, q, 0.5))
rotation = animcore.RotationCurve([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]])
print(rotation(0.5), rotation.angular_velocity(0.5))

walk = animcore.LoopTrack([0, 0.25, 0.75, 1], [0, 0.2, 1.7, 2])
cursor = animcore.RootMotionCursor(walk, 0.9)
print(walk.delta(0.9, 1.1), walk.sample(0.5), cursor.advance(0.2), animcore.RootDelta,
      animcore.RootPose)

print(animcore.bounce([-3.0, 4.0], [2.0, 0.0], [1.0, 0.0], 0.5),
      animcore.contact_point_velocity([0.0, 0.0], 2.0, [1.0, 0.0]))
step: animcore.ProjectileStep = animcore.advance_projectiles(
    [0.0, 1.0], [1.0, 0.0], 0.1, 0.1, [0.0, 0.0], [0.0, 1.0], [0.0, 0.0], 0.5)
print(step.bounces)

timeline = animcore.SnapshotTimeline(1)
result: animcore.PushResult = timeline.push(0, 0, 1.0)
print(result, timeline.sample(0.5), animcore.SampleMode, animcore.SampleResult,
      animcore.Snapshots)
buffer = animcore.SnapshotBuffer(2, 1)
print(buffer.push([0, 1], 0, 0, [[1.0], [2.0]]), buffer.sample(0.0))
print(gltf.load)
