"""animcore: game-animation math done correctly and fast.

A C core vectorized over NumPy arrays. Units are in the names: ``velocity`` is
per second, ``tangent`` per normalized segment parameter, ``duration`` and
``elapsed`` are seconds. Quaternions are ``(x, y, z, w)``.
"""
from . import gltf  # glTF animation import: animcore.gltf.load
from .contact import ProjectileStep, advance_projectiles, bounce, contact_point_velocity
from .curves import Curve, CurveSample, KeySlopes, Overshoot
from .easing import (EASING_KINDS, CubicBezier, Ease, Easing, Steps, as_easing, ease, ease_inverse,
                     easing_kinds)
from .hermite import (HermiteSample, HermiteSegment, hermite, tangent_to_velocity,
                      velocity_to_tangent)
from .rootmotion import LoopTrack, RootDelta, RootMotionCursor, RootPose
from .rotations import (RotationCurve, quat_conjugate, quat_from_axis_angle, quat_multiply,
                        quat_nlerp, quat_normalize, quat_rotate, quat_slerp)
from .snapshot import (PushResult, SampleMode, SampleResult, SnapshotBuffer, Snapshots,
                       SnapshotTimeline)

__version__ = "0.1.0"

__all__ = [
    "ProjectileStep",
    "advance_projectiles",
    "bounce",
    "contact_point_velocity",
    "HermiteSample",
    "HermiteSegment",
    "hermite",
    "tangent_to_velocity",
    "velocity_to_tangent",
    # curves
    "Curve",
    "CurveSample",
    "KeySlopes",
    "Overshoot",
    # snapshot
    "PushResult",
    "SampleMode",
    "SampleResult",
    "SnapshotBuffer",
    "SnapshotTimeline",
    "Snapshots",
    # root motion
    "LoopTrack",
    "RootDelta",
    "RootMotionCursor",
    "RootPose",
    # easing
    "EASING_KINDS",
    "CubicBezier",
    "Ease",
    "Easing",
    "Steps",
    "as_easing",
    "ease",
    "ease_inverse",
    "easing_kinds",
    # rotations
    "RotationCurve",
    "quat_conjugate",
    "quat_from_axis_angle",
    "quat_multiply",
    "quat_nlerp",
    "quat_normalize",
    "quat_rotate",
    "quat_slerp",
    # glTF
    "gltf",
]
