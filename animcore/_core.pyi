"""Type stubs of animcore._core, the private binding of the C core.

Declared kernels take ``(func, [context,] inputs..., out, workers)``: ``func``
names the public caller in error messages, inputs are any array-likes, ``out``
is None or the output array(s), ``workers`` None or an int. They return the
output array (NumPy scalar for scalar input) or a tuple of them. The other
entry points take prepared float64 arrays and capsules; the public modules of
animcore are their only callers. A variant of a kernel with the same
arguments (2-D and 3-D, with events, per rotation mode) is declared as it.
"""
from typing import Any, Optional, Union

import numpy as np
from numpy.typing import ArrayLike

_Out = Union[np.ndarray, tuple[np.ndarray, ...], None]
_Capsule = Any

def _advance(
    func: str,
    context: tuple[int, int, int],
    position: ArrayLike,
    velocity: ArrayLike,
    radius: ArrayLike,
    dt: ArrayLike,
    plane_point: ArrayLike,
    plane_normal: ArrayLike,
    plane_velocity: ArrayLike,
    restitution: ArrayLike,
    friction: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
_advance_events = _advance
def _advance_spin(
    func: str,
    context: tuple[int, int, int],
    position: ArrayLike,
    velocity: ArrayLike,
    radius: ArrayLike,
    dt: ArrayLike,
    plane_point: ArrayLike,
    plane_normal: ArrayLike,
    plane_velocity: ArrayLike,
    restitution: ArrayLike,
    friction: ArrayLike,
    angular_velocity: ArrayLike,
    inverse_inertia: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
_advance_spin_events = _advance_spin
def _bezier_rate(
    func: str,
    parameters: Any,
    u: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _bezier_eval(
    func: str,
    x1: Any,
    y1: Any,
    x2: Any,
    y2: Any,
    u: Any,
    s: Any = ...,
    dsdu: Any = ...,
) -> None: ...
def _bezier_value(
    func: str,
    parameters: Any,
    u: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _bounce2(
    func: str,
    velocity: ArrayLike,
    surface_velocity: ArrayLike,
    normal: ArrayLike,
    restitution: ArrayLike,
    friction: ArrayLike,
    threshold: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
_bounce3 = _bounce2
def _collide(
    func: str, context: tuple[int, bool, bool], a_velocity: ArrayLike,
    a_angular_velocity: ArrayLike, a_inverse_mass: ArrayLike, a_inverse_inertia: ArrayLike,
    a_center: ArrayLike, b_velocity: ArrayLike, b_angular_velocity: ArrayLike,
    b_inverse_mass: ArrayLike, b_inverse_inertia: ArrayLike, b_center: ArrayLike,
    normal: ArrayLike, point: ArrayLike, restitution: ArrayLike, friction: ArrayLike,
    threshold: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
_collide_tensor_a = _collide
_collide_tensor_b = _collide
_collide_tensors = _collide
def _curve_acceleration(
    func: str,
    curve: _Capsule,
    t: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _curve_create(
    func: str,
    times: Any,
    values: Any,
    interpolation: Any,
    tangents: Any,
    in_velocities: Any,
    out_velocities: Any,
    before: Any,
    after: Any,
    jumps: Any,
) -> _Capsule: ...
def _curve_create_keyed(
    func: str,
    times: Any,
    values: Any,
    interpolation: Any,
    tangents: Any,
    in_velocities: Any,
    out_velocities: Any,
    before: Any,
    after: Any,
    jumps: Any,
    segments: Any,
    eases: Any,
    ease_index: Any,
    in_weights: Any,
    out_weights: Any,
    before_slopes: Any,
    after_slopes: Any,
    long_handles: Any = ...,
) -> _Capsule: ...
def _distinct(items: Union[list, tuple]) -> Optional[tuple[list, Any]]: ...
def _curve_keys(curve: _Capsule) -> tuple[Any, Any]: ...
def _curve_velocities(curve: _Capsule) -> Optional[tuple[Any, Any]]: ...
def _curve_key_velocities(curve: _Capsule, in_velocities: Any, out_velocities: Any) -> None: ...
def _curve_remaps(func: str, remaps: Any, segment: Any) -> _Capsule: ...
def _curve_sample(
    func: str,
    curve: _Capsule,
    t: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _curve_value(
    func: str,
    curve: _Capsule,
    t: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _curve_velocity(
    func: str,
    curve: _Capsule,
    t: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _ease_kinds() -> tuple[Any, ...]: ...
def _ease_inverse(
    func: str,
    parameters: Any,
    s: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _ease_rate(
    func: str,
    parameters: Any,
    u: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _ease_value(
    func: str,
    parameters: Any,
    u: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _hermite_eval(
    func: str,
    start: ArrayLike,
    end: ArrayLike,
    start_velocity: ArrayLike,
    end_velocity: ArrayLike,
    duration: ArrayLike,
    elapsed: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _hermite_init(
    start: Any,
    end: Any,
    start_velocity: Any,
    end_velocity: Any,
    duration: Any,
) -> Any: ...
def _point_velocity2(
    func: str,
    linear_velocity: ArrayLike,
    angular_velocity: ArrayLike,
    offset: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
_point_velocity3 = _point_velocity2
def _quat_conjugate(func: str, q: ArrayLike, out: _Out, workers: Optional[int]) -> Any: ...
def _quat_curve_create(
    func: str,
    times: Any,
    quats: Any,
    in_tangents: Any,
    out_tangents: Any,
    interp: Any,
    before: Any,
    after: Any,
    borrow: bool = ...,
) -> _Capsule: ...
def _quat_curve_validate(
    func: str,
    times: Any,
    quats: Any,
    in_tangents: Any,
    out_tangents: Any,
    interp: Any,
    before: Any,
    after: Any,
) -> None: ...
def _quat_curve_omega(
    func: str,
    curve: Union[_Capsule, tuple[_Capsule, int]],
    t: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _quat_curve_rotation(
    func: str,
    curve: Union[_Capsule, tuple[_Capsule, int]],
    t: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _quat_from_axis_angle(
    func: str,
    axis: ArrayLike,
    angle: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _quat_multiply(
    func: str,
    a: ArrayLike,
    b: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _quat_nlerp(
    func: str,
    q0: ArrayLike,
    q1: ArrayLike,
    t: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _quat_normalize(func: str, q: ArrayLike, out: _Out, workers: Optional[int]) -> Any: ...
def _quat_rotate(
    func: str,
    q: ArrayLike,
    v: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _quat_slerp(
    func: str,
    q0: ArrayLike,
    q1: ArrayLike,
    t: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _rootmotion_advance(
    func: str,
    context: tuple[_Capsule, bool],
    cycle: ArrayLike,
    phase: ArrayLike,
    time: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
_rootmotion_advance_yaw = _rootmotion_advance
_rootmotion_advance_quat = _rootmotion_advance
def _rootmotion_create(
    func: str,
    times: Any,
    positions: Any,
    interpolation: Any,
    kind: Any,
    rotations: Any,
    up_axis: Any,
    max_cycles: Any,
) -> _Capsule: ...
def _rootmotion_delta(
    func: str,
    track: _Capsule,
    t0: ArrayLike,
    t1: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
_rootmotion_delta_quat = _rootmotion_delta
_rootmotion_delta_yaw = _rootmotion_delta
def _rootmotion_sample(
    func: str,
    track: _Capsule,
    phase: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
_rootmotion_sample_quat = _rootmotion_sample
_rootmotion_sample_yaw = _rootmotion_sample
def _rootmotion_split(
    func: str, context: tuple[_Capsule, str], t: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _snapshot_buffer_push(
    func: str,
    context: tuple[_Capsule, bool, bool],
    entity: ArrayLike,
    tick: ArrayLike,
    segment: ArrayLike,
    generation: ArrayLike,
    position: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _snapshot_buffer_push_rotations(
    func: str,
    context: tuple[_Capsule, bool, bool],
    entity: ArrayLike,
    tick: ArrayLike,
    segment: ArrayLike,
    generation: ArrayLike,
    position: ArrayLike,
    rotation: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _snapshot_buffer_sample(
    func: str, buffer: _Capsule, entity: ArrayLike, render_tick: ArrayLike, out: _Out,
    workers: Optional[int],
) -> Any: ...
_snapshot_buffer_sample_rotations = _snapshot_buffer_sample
def _snapshot_buffer_new(
    entities: Any,
    dim: Any,
    capacity: Any,
    rotations: Any,
    max_extrapolation: Any,
) -> _Capsule: ...
def _snapshot_counts(handle: _Capsule) -> Any: ...
def _snapshot_flush(timeline: _Capsule) -> Any: ...
def _snapshot_read(handle: _Capsule, entity: Any) -> tuple[Any, ...]: ...
def _snapshot_timeline_push(
    func: str,
    context: tuple[_Capsule, bool, bool],
    tick: ArrayLike,
    segment: ArrayLike,
    position: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _snapshot_timeline_push_rotations(
    func: str,
    context: tuple[_Capsule, bool, bool],
    tick: ArrayLike,
    segment: ArrayLike,
    position: ArrayLike,
    rotation: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _snapshot_timeline_sample(
    func: str, timeline: _Capsule, render_tick: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
_snapshot_timeline_sample_rotations = _snapshot_timeline_sample
def _snapshot_timeline_new(
    dim: Any,
    capacity: Any,
    rotations: Any,
    max_extrapolation: Any,
    reorder_window: Any,
) -> _Capsule: ...
def _steps_value(
    func: str,
    parameters: Any,
    u: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _tangent_to_velocity(
    func: str,
    tangent: ArrayLike,
    duration: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...
def _velocity_to_tangent(
    func: str,
    velocity: ArrayLike,
    duration: ArrayLike,
    out: _Out,
    workers: Optional[int],
) -> Any: ...

# quaternion conversions (declared kernels): the converted items
def _quat_to_matrix(func: str, q: ArrayLike, out: _Out, workers: Optional[int]) -> Any: ...
def _quat_from_matrix(func: str, matrix: ArrayLike, out: _Out, workers: Optional[int]) -> Any: ...
def _quat_to_rotvec(func: str, q: ArrayLike, out: _Out, workers: Optional[int]) -> Any: ...
def _quat_from_rotvec(func: str, rotvec: ArrayLike, out: _Out, workers: Optional[int]) -> Any: ...
def _quat_to_euler(
    func: str, sequence: tuple[int, int, int, bool], q: ArrayLike, out: _Out,
    workers: Optional[int],
) -> Any: ...
def _quat_from_euler(
    func: str, sequence: tuple[int, int, int, bool], angles: ArrayLike, out: _Out,
    workers: Optional[int],
) -> Any: ...

# joint hierarchies
def _skeleton_create(func: str, parents: ArrayLike) -> Any: ...
def _skeleton_order(skeleton: Any, out: Any) -> None: ...
def _skeleton_world(
    func: str, skeleton: Any, translation: ArrayLike, rotation: ArrayLike, scale: ArrayLike,
    out: _Out, workers: Optional[int],
) -> Any: ...
def _skeleton_skin(
    func: str, skeleton: Any, translation: ArrayLike, rotation: ArrayLike, scale: ArrayLike,
    bind: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _skeleton_local(
    func: str, skeleton: Any, world: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _skeleton_decompose(
    func: str, matrices: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _skeleton_multiply(
    func: str, a: ArrayLike, b: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...

# the thread count of workers=, as every kernel reads it
def _workers(func: str, workers: Optional[int]) -> int: ...

# a clip's curves sampled into pose arrays in one call
def _pose_sample(
    func: str, curves: tuple[_Capsule, ...], slots: np.ndarray, t: np.ndarray,
    outputs: tuple[np.ndarray, ...], workers: Optional[int],
) -> bool: ...

# exact state of snapshot buffers and timelines (pickling)
def _snapshot_state_get(func: str, handle: Any) -> np.ndarray: ...
def _snapshot_state_set(func: str, handle: Any, state: Any) -> None: ...

# the tools' automatic tangents (Blender's handles, OpenUSD's AutoEase)
def _tangents_blender(
    func: str, keys: np.ndarray, left_types: np.ndarray, right_types: np.ndarray, flags: int,
    left: np.ndarray, right: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]: ...
def _tangents_auto_ease(func: str, times: np.ndarray, values: np.ndarray) -> np.ndarray: ...
def _tangents_fbx(times: np.ndarray, values: np.ndarray, flags: np.ndarray, data: np.ndarray,
                  right_weights: np.ndarray, next_left_weights: np.ndarray,
                  first: np.ndarray, /) -> tuple[np.ndarray, np.ndarray]: ...

# fbx
def _fbx_parse(data: bytes, /) -> tuple[Any, ...]: ...
def _fbx_texts(data: bytes, records: Any, properties: Any, /) -> tuple[list, list, Any, list]: ...
def _fbx_gather(data: bytes, properties: Any, indices: Any, /) -> bytes: ...
def _fbx_block(records: Any, name_ids: Any, values: list, block: int, entry: int, skip: int,
               props: dict, wanted: Any = None, /) -> list: ...
def _fbx_blocks(records: Any, name_ids: Any, values: list, blocks: list, entry: int, skip: int,
                props: list, wanted: Any = None, /) -> list: ...
def _fbx_block_numbers(records: Any, name_ids: Any, values: list, blocks: tuple, entries: tuple,
                       skips: tuple, names: tuple, /) -> tuple[Any, list]: ...
def _fbx_connections(records: Any, name_ids: Any, values: list, block: int, names: set,
                     /) -> tuple[list, list, list, dict, list, dict, list] | list: ...
def _fbx_objects(records: Any, values: list, block: int, /) -> tuple[list, dict] | list: ...
def _fbx_curves(cls: type, columns: tuple, times: Any, starts: list, ends: list,
                group_ends: list, blob: bytes, kinds_of: Any, parts: list, /) -> list: ...
def _fbx_key_attributes(flags: Any, data: Any, counts: Any, keys: int,
                        /) -> tuple[Any, Any, Any, Any, Any, Any]: ...
def _fbx_layout() -> tuple[Any, ...]: ...
# blending (py_blend.c): poses as translation, rotation, scale arrays (..., J, 3|4|3)
def _blend_poses(
    func: str, mode: int, a_translation: ArrayLike, a_rotation: ArrayLike, a_scale: ArrayLike,
    b_translation: ArrayLike, b_rotation: ArrayLike, b_scale: ArrayLike, weight: ArrayLike,
    mask: ArrayLike, out: _Out, workers: Optional[int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def _blend_make_additive(
    func: str, mode: int, pose_translation: ArrayLike, pose_rotation: ArrayLike,
    pose_scale: ArrayLike, reference_translation: ArrayLike, reference_rotation: ArrayLike,
    reference_scale: ArrayLike, out: _Out, workers: Optional[int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def _blend_apply_additive(
    func: str, mode: int, base_translation: ArrayLike, base_rotation: ArrayLike,
    base_scale: ArrayLike, delta_translation: ArrayLike, delta_rotation: ArrayLike,
    delta_scale: ArrayLike, weight: ArrayLike, mask: ArrayLike, out: _Out,
    workers: Optional[int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
# inverse kinematics
def _ik_two_bone(
    func: str, start: ArrayLike, mid: ArrayLike, end: ArrayLike, target: ArrayLike,
    pole: ArrayLike, weight: ArrayLike, soften: ArrayLike, twist: ArrayLike, out: _Out,
    workers: Optional[int],
) -> Any: ...
def _ik_aim(
    func: str, has_pole: bool, joint_world: ArrayLike, forward: ArrayLike, up: ArrayLike,
    target: ArrayLike, weight: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _ik_aim_pole(
    func: str, has_pole: bool, joint_world: ArrayLike, forward: ArrayLike, up: ArrayLike,
    target: ArrayLike, weight: ArrayLike, pole: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _ik_chain(
    func: str, context: tuple[int, int, int, float, bool], positions: ArrayLike,
    target: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _ik_chain_limited(
    func: str, context: tuple[int, int, int, float, bool], positions: ArrayLike,
    target: ArrayLike, limits: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...

# cleanup of time series (declared kernels): the context is (option, frames)
def _euler_filter(
    func: str, context: tuple[int, int], angles: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _quat_continuous(
    func: str, context: tuple[int, int], q: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...

# keyframe reduction (declared kernels): ACL's metric and a candidate segment's error
def _reduce_shell_error(
    func: str, a: ArrayLike, b: ArrayLike, shell: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _reduce_segment_error(
    func: str, context: tuple[int, int], t: ArrayLike, target: ArrayLike, t0: ArrayLike,
    t1: ArrayLike, start: ArrayLike, end: ArrayLike, start_velocity: ArrayLike,
    end_velocity: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _reduce_rotation_error(
    func: str, t: ArrayLike, target: ArrayLike, t0: ArrayLike, t1: ArrayLike,
    start: ArrayLike, end: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...

# compressed clips: the layout of animcore.h, validated by the core
def _compressed_open(func: str, data: bytes) -> tuple[Any, int, int, float, float]: ...
def _compressed_sample(
    func: str, clip: Any, t: ArrayLike, out: _Out, workers: Optional[int],
) -> Any: ...
def _compressed_pose(clip: Any, t: Any, cls: type) -> Any: ...
