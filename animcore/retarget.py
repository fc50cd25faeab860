"""Retargeting a clip from one rig to another, and mirroring a clip.

Both work on world-space rotation deltas from each rig's rest pose, so that
rigs with other rest poses or other bone orientations (as two exporters
write the same skeleton) come out right: a source joint that turned by D in
the world since its rest pose turns its target joint by the same D.
"""
from __future__ import annotations

import re
import warnings
from dataclasses import replace
from typing import Optional, Union

import numpy as np

from ._arrays import choice
from ._options import side_swaps
from .curves import Curve
from .model import (Channel, Clip, Scene, _closest_text, _inverse, _representable,
                    _scene_argument)
from .rootmotion import _up_axis
from .rotations import RotationCurve, quat_conjugate, quat_multiply
from .skeleton import _decompose

__all__ = ["retarget", "mirror", "match_joints", "mirror_pairs", "PRESETS"]


# ------------------------------------------------------------------ names

# Common skeletons' joint names (normalized: lower case, letters and digits)
# -> one canonical vocabulary (Mixamo's names without the prefix).
_SIDES = ("left", "right")


def _sided(table: dict) -> dict:
    """Expands entries with '{s}' (left/right) and '{c}' (l/r) placeholders."""
    out = {}
    for key, value in table.items():
        if "{s}" in key or "{c}" in key:
            for side in _SIDES:
                out[key.format(s=side, c=side[0])] = value.format(s=side)
        else:
            out[key] = value
    return out


PRESETS = {
    "mixamo": _sided({
        "hips": "hips", "spine": "spine", "spine1": "spine1", "spine2": "spine2",
        "neck": "neck", "head": "head", "{s}shoulder": "{s}shoulder", "{s}arm": "{s}arm",
        "{s}forearm": "{s}forearm", "{s}hand": "{s}hand", "{s}upleg": "{s}upleg",
        "{s}leg": "{s}leg", "{s}foot": "{s}foot", "{s}toebase": "{s}toebase",
    }),
    "cmu": _sided({
        "hips": "hips", "lowerback": "spine", "spine": "spine1", "spine1": "spine2",
        "neck": "neck", "neck1": "neck1", "head": "head", "{s}shoulder": "{s}shoulder",
        "{s}arm": "{s}arm", "{s}forearm": "{s}forearm", "{s}hand": "{s}hand",
        "{s}upleg": "{s}upleg", "{s}leg": "{s}leg", "{s}foot": "{s}foot",
        "{s}toebase": "{s}toebase",
    }),
    "unreal": _sided({
        "pelvis": "hips", "spine01": "spine", "spine02": "spine1", "spine03": "spine2",
        "neck01": "neck", "head": "head", "clavicle{c}": "{s}shoulder",
        "upperarm{c}": "{s}arm", "lowerarm{c}": "{s}forearm", "hand{c}": "{s}hand",
        "thigh{c}": "{s}upleg", "calf{c}": "{s}leg", "foot{c}": "{s}foot",
        "ball{c}": "{s}toebase",
    }),
    "smpl": _sided({
        "pelvis": "hips", "spine1": "spine", "spine2": "spine1", "spine3": "spine2",
        "neck": "neck", "head": "head", "{s}collar": "{s}shoulder", "{s}shoulder": "{s}arm",
        "{s}elbow": "{s}forearm", "{s}wrist": "{s}hand", "{s}hip": "{s}upleg",
        "{s}knee": "{s}leg", "{s}ankle": "{s}foot", "{s}foot": "{s}toebase",
    }),
}


def _normalized(name: str, index: bool = True) -> str:
    """Lower case letters and digits, without a namespace ('mixamorig:') or a
    'b_' or 'def-' prefix; without a trailing node index ('_015') unless
    `index` (Unreal's 'spine_01' keeps its number)."""
    name = name.rsplit(":", 1)[-1]
    name = re.sub(r"^(b_|def[-_]|bip0?1[ _])", "", name, flags=re.IGNORECASE)
    if not index:
        name = re.sub(r"_\d+$", "", name)
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _canonical(names: list) -> tuple[dict, Optional[str]]:
    """Canonical names of a rig's joints through the preset that knows most
    of them (None when none knows two); names no preset knows stay
    normalized, without a trailing node index."""
    full = [_normalized(n) for n in names]
    bare = [_normalized(n, index=False) for n in names]
    best, hits = None, 1
    for preset, table in PRESETS.items():
        count = sum(f in table or b in table for f, b in zip(full, bare))
        if count > hits:
            best, hits = preset, count
    table = PRESETS.get(best, {})
    return {name: table.get(f, table.get(b, b)) for name, f, b in zip(names, full, bare)}, best


def _joint_names(scene: Scene) -> list:
    return [n.name if n.name is not None else str(n.index) for n in scene.nodes]


def _check_name(func: str, where: str, name) -> None:
    """A ValueError unless the joint ``name`` given by ``where`` (such as
    "mapping['Hips']") is a string, as joint names are."""
    if not isinstance(name, str):
        raise ValueError(f"{func}: {where} names joint {name!r}, which is not a name (joint "
                         f"names are strings)")


def match_joints(source: Scene, target: Scene, mapping: Union[None, str, dict] = "auto") -> dict:
    """The joint mapping ``{target joint name: source joint name}``.

    ``None`` pairs equal names; ``"auto"`` also pairs names equal after
    normalization (case, punctuation, namespaces such as ``mixamorig:``, a
    trailing node index) and through the name presets (:data:`PRESETS`:
    Mixamo, the CMU BVH names, Unreal's mannequin, SMPL's 24 joints), each
    rig read with the preset that knows most of its names (an equal name
    pairs unless the two presets give it different meanings: SMPL's
    ``RightShoulder`` is CMU's ``RightArm``). A dict is checked
    (every key a target joint, every value a source joint; a source joint may
    drive several target joints) and returned as a new dict.
    """
    return _match_joints("match_joints", source, target, mapping)


def _match_joints(func: str, source: Scene, target: Scene, mapping) -> dict:
    """:func:`match_joints`, with errors naming ``func`` (the public caller)."""
    source = _scene_argument(func, "source", source)
    target = _scene_argument(func, "target", target)
    src_names, tgt_names = _joint_names(source), _joint_names(target)
    if isinstance(mapping, dict):
        result = {}
        for t, s in mapping.items():
            for name, names, side in ((t, tgt_names, "target"), (s, src_names, "source")):
                _check_name(func, f"mapping[{t!r}]", name)
                if name not in names:
                    hint = "; " + _closest_text(name, names)
                    raise ValueError(f"{func}: mapping[{t!r}] names {side} joint {name!r}, "
                                     f"which the {side} rig does not have{hint}")
            result[t] = s
        return result
    if mapping is None:
        present = set(src_names)
        return {n: n for n in tgt_names if n in present}
    if mapping != "auto":
        raise ValueError(f"{func}: mapping is {mapping!r} (must be None, 'auto' or a dict "
                         f"of target joint -> source joint names)")
    src_canon, _ = _canonical(src_names)
    tgt_canon, _ = _canonical(tgt_names)
    # equal names pair where the two rigs' presets agree on what they mean
    # (SMPL's RightShoulder is the upper arm, CMU's the collar bone)
    result = {n: n for n in tgt_names if n in src_canon and src_canon[n] == tgt_canon[n]}
    by_canon: dict = {}
    for name in src_names:
        by_canon.setdefault(src_canon[name], name)
    for name in tgt_names:
        if name not in result and tgt_canon[name] in by_canon:
            result[name] = by_canon[tgt_canon[name]]
    return result


# ------------------------------------------------------------------ poses

def _rest(func: str, scene: Scene):
    """The rest pose's world matrices (N, 4, 4), translations and rotations."""
    world = scene._world(func, None, 0.0)
    rest = _decompose(func, world)
    return world, rest.translation, rest.rotation


def _depth(parents: np.ndarray, j: int) -> int:
    d = 0
    while parents[j] >= 0:
        j, d = parents[j], d + 1
    return d


def _locals_from_world(func: str, scene: Scene, world: np.ndarray,
                       rest: np.ndarray) -> np.ndarray:
    """Local rotations (F, N, 4) of world rotations (F, N, 4): under the
    parent's, or under what sits above the roots (an FBX file's axes);
    `rest` is the scene's rest world (N, 4, 4)."""
    parents = scene.skeleton.parents
    child = parents >= 0
    above = np.empty_like(world)
    above[:, child] = world[:, parents[child]]
    above[:, ~child] = _decompose(func, scene._root_frame).rotation
    local = quat_multiply(quat_conjugate(above), world)
    return scene._as_posed(func, range(len(parents)), local, rest)


def _world_rotations(scene: Scene, nodes, deltas: np.ndarray,
                     rest_rot: np.ndarray) -> np.ndarray:
    """World rotations (F, N, 4) of every node: node ``nodes[k]`` turned by
    ``deltas[:, k]`` from its rest world rotation, every other node by its
    nearest driven ancestor's delta (none: at rest). That is the other
    nodes keeping their rest local rotation under their parent."""
    parents = scene.skeleton.parents
    which = np.full(len(parents), len(nodes))  # len(nodes): the identity below
    which[list(nodes)] = np.arange(len(nodes))
    for j in scene.skeleton.order:
        if which[j] == len(nodes) and parents[j] >= 0:
            which[j] = which[parents[j]]
    identity = np.broadcast_to([0.0, 0.0, 0.0, 1.0], (len(deltas), 1, 4))
    return quat_multiply(np.concatenate([deltas, identity], axis=1)[:, which], rest_rot)


def _root_position(func: str, rest: np.ndarray, start: np.ndarray, end: np.ndarray,
                   scale) -> np.ndarray:
    """The root's world position ``rest + scale * (end - start)`` (F, 3), by
    halves (the same bits): the offset of positions near the double range can
    overflow where the position does not."""
    with np.errstate(over="ignore", invalid="ignore"):
        position = 2.0 * (rest / 2 + scale * (end / 2 - start / 2))
    return _representable(func, "the root's world position", position)


def _with_translations(func: str, scene: Scene, clip: Clip, times: np.ndarray,
                       positions: dict) -> Clip:
    """`clip` with a translation channel for each node of `positions` ({node:
    world positions (F, 3)}, none of them above another) that puts it there
    in the scene's own world (with FBX's pivots and units too), keyed at
    `times`. A node's world position is A (T + c) + d, affine in its
    translation T (A: the linear part of what is above it): with T = 0 it is
    b = A c + d, so T = A^-1 (position - b); one world at T = 0 serves them all."""
    at_zero = clip
    for j in positions:
        at_zero = _with_root(scene, at_zero, times, j, np.zeros((len(times), 3)))
    world = scene._world(func, at_zero, times)
    result = clip
    for j, position in positions.items():
        linear = np.array(scene._above(world, j))
        linear[:, :3, 3] = 0.0
        parent = scene.nodes[j].parent
        what = (f"the world matrix of the root's parent {parent} ({scene.joint_names[parent]!r})"
                if parent >= 0 else "the transform above the root")
        inverse = _inverse(func, what, linear)[:, :3, :3]
        with np.errstate(over="ignore", invalid="ignore"):
            local = np.einsum("fij,fj->fi", inverse, position - world[:, j, :3, 3])
        result = _with_root(scene, result, times, j,
                            _representable(func, "the root's local translation", local))
    return result


def _default_root(scene: Scene, clip: Clip) -> Optional[int]:
    """The node the clip translates that carries the most of the rig (the
    most descendants; then the highest, then the first), among those whose
    translation moves if any does: a capture's cameras and lights are
    translated too, and a rig's top node may be keyed in place."""
    parents = scene.skeleton.parents
    below = scene.skeleton._subtrees().sum(axis=1)
    times = clip.key_times()
    translated = [c for c in clip.channels if c.path == "translation"]
    moving = [c for c in translated if np.ptp(np.asarray(c.sample(times)), axis=0).any()]
    nodes = {c.node for c in (moving or translated)}
    return min(nodes, key=lambda j: (-below[j], _depth(parents, j), j), default=None)


def _half_hip_height(scene: Scene, positions: np.ndarray, root: int, up: int) -> float:
    """Half the root's height above the lowest joint below it (not above the
    scene's other nodes: a capture's cameras and lights); a height of
    positions near the double range overflows, the ratio of two halves is
    that of the heights."""
    inside = scene.skeleton._subtrees()[root]
    return float(positions[root, up] / 2 - positions[inside, up].min() / 2)


def _rotation_clip(scene: Scene, name: str, times: np.ndarray, local_rot: np.ndarray,
                   nodes) -> Clip:
    """The clip of the local rotations of `nodes`, keyed at `times`, linear."""
    channels = tuple(Channel.from_curve(j, "rotation", RotationCurve(
        times, local_rot[:, j], interpolation="linear"), node_name=scene.nodes[j].name)
        for j in nodes)
    return Clip(name, float(times[-1]), channels)


def _with_root(scene: Scene, clip: Clip, times: np.ndarray, root: int,
               translation: np.ndarray) -> Clip:
    """`clip` with node `root`'s translation channel first, keyed at `times`."""
    channel = Channel.from_curve(root, "translation", Curve(times, translation,
                                                            interpolation="linear"),
                                 node_name=scene.nodes[root].name)
    return replace(clip, channels=(channel,) + clip.channels)


def retarget(source: Scene, clip, target: Scene, *, mapping: Union[None, str, dict] = None,
             root=None, scale_root: bool = True, up_axis: int = 1,
             return_mapping: bool = False):
    """The clip of ``source`` carried onto the rig of ``target``.

    Parameters
    ----------
    source, target : Scene
        The two rigs (their nodes' rest transforms are the rest poses).
    clip : Clip, name or index
        A clip of ``source``.
    mapping : None, "auto" or dict
        Which target joint follows which source joint:
        ``{target joint name: source joint name}`` (a source joint may drive
        several target joints); ``None`` pairs equal names; ``"auto"`` adds
        normalized names and the name presets (see :func:`match_joints`,
        which returns the pairs it finds). Target joints left out keep their
        rest rotation.
    root : str or int, optional
        The source joint whose translation is carried over; by default the
        joint the clip translates that has the most descendants, among those
        whose translation moves (a glTF rig often translates its hips, not its
        scene root; a capture also moves its cameras). Its target is the
        highest target joint it drives.
    scale_root : bool
        Scale the root's world-space offset from its rest position by the
        ratio of the rigs' hip heights (the root's rest height above the
        lowest rest joint below it along ``up_axis``); 1 when the source's is 0.
    up_axis : int
        0, 1 (default, Y up as in glTF and BVH) or 2.
    return_mapping : bool
        Also return the mapping used.

    Returns
    -------
    Clip
        Rotation channels for every mapped target joint and a translation
        channel for the target root, keyed at every key time of the source
        clip, linear (slerp) between them. Each mapped joint's world rotation
        is ``D * rest_world_target`` with ``D = world_source(t) *
        rest_world_source^-1`` of its source joint; scales stay at rest.
        With ``return_mapping``, ``(clip, mapping)``.

    Notes
    -----
    Both rest poses count as standing: a BVH file's rest has its root at its
    OFFSET, often the origin with the feet below the ground, and the root's
    offset from that rest (the whole standing height) then lifts the target.
    Stand such a source's rest on the ground first (move its root node up by
    the lowest joint's depth), as the ``ik_retarget`` notebook does.
    """
    func = "retarget"
    source = _scene_argument(func, "source", source)
    target = _scene_argument(func, "target", target)
    clip = source.clip(clip, func=func)
    up_axis = _up_axis(func, up_axis)
    pairs = _match_joints(func, source, target, mapping)
    if not pairs:  # (an empty clip would play as the rest pose, saying nothing)
        how = "equal names" if mapping is None else "mapping='auto'" if mapping == "auto" \
            else "the mapping"
        raise ValueError(f"{func}: {how} pair no joints of the two rigs; pass mapping as a "
                         f"dict {{target joint: source joint}}")
    src_index = {name: j for j, name in enumerate(_joint_names(source))}
    tgt_index = {name: j for j, name in enumerate(_joint_names(target))}
    driven = {tgt_index[t]: src_index[s] for t, s in pairs.items()}
    times = clip.key_times()
    src_world = _decompose(func, source._world(func, clip, times))
    _, src_rest_pos, src_rest_rot = _rest(func, source)
    tgt_rest, tgt_rest_pos, tgt_rest_rot = _rest(func, target)
    tgt_nodes = sorted(driven)
    src_nodes = [driven[j] for j in tgt_nodes]
    deltas = quat_multiply(src_world.rotation[:, src_nodes], quat_conjugate(src_rest_rot[src_nodes]))
    world = _world_rotations(target, tgt_nodes, deltas, tgt_rest_rot)
    local = _locals_from_world(func, target, world, tgt_rest)
    rotations = _rotation_clip(target, clip.name, times, local, tgt_nodes)
    src_root = _default_root(source, clip) if root is None else source.node_index(
        root, func=func, argument="root")
    result = rotations
    if src_root is not None:
        tgt_parents = target.skeleton.parents
        candidates = [j for j in tgt_nodes if driven[j] == src_root]
        if not candidates:
            if root is not None:
                raise ValueError(f"{func}: root {_joint_names(source)[src_root]!r} drives no "
                                 f"target joint (the mapping leaves it out)")
            warnings.warn(f"{func}: the source root {_joint_names(source)[src_root]!r} drives no "
                          f"target joint, so the target keeps its rest translation (map it, "
                          f"or pass root=)", stacklevel=2)
        else:
            tgt_root = min(candidates, key=lambda j: (_depth(tgt_parents, j), j))
            ratio = 1.0
            if scale_root:
                h_src = _half_hip_height(source, src_rest_pos, src_root, up_axis)
                h_tgt = _half_hip_height(target, tgt_rest_pos, tgt_root, up_axis)
                ratio = h_tgt / h_src if h_src > 0 else 1.0
            position = _root_position(func, tgt_rest_pos[tgt_root], src_rest_pos[src_root],
                                      src_world.translation[:, src_root], ratio)
            result = _with_translations(func, target, rotations, times, {tgt_root: position})
    return (result, pairs) if return_mapping else result


# ------------------------------------------------------------------ mirror

def mirror_pairs(scene: Scene) -> dict:
    """Left/right partners by name: ``{name: partner}`` for every joint (a
    joint without a partner is its own).

    Names pair when they differ by Left/Right (any case), an ``L_``/``R_``
    prefix, a ``.L``/``.R`` or ``_l``/``_r`` suffix, a side letter between
    separators (``leg_joint_L_1``, ``thigh.L.001``), a leading ``L``/``R``
    before a capital letter (``LHipJoint``), or by Left/Right and a trailing
    numeric index (``b_LeftLeg01_015`` and ``b_RightLeg01_019``).
    """
    names = _joint_names(_scene_argument("mirror_pairs", "scene", scene))
    present = set(names)

    def base(n):
        return re.sub(r"_\d+$", "", n)

    by_base: dict = {}
    for n in names:
        by_base.setdefault(base(n), []).append(n)
    pairs = {}
    for n in names:
        partner = n
        for candidate in side_swaps(n):
            if candidate in present:
                partner = candidate
                break
        else:
            for candidate in side_swaps(base(n)):
                if len(by_base.get(candidate, ())) == 1:
                    partner = by_base[candidate][0]
                    break
        pairs[n] = partner
    return pairs


def mirror(scene: Scene, clip, *, axis: str = "x", pairs: Union[str, dict] = "auto") -> Clip:
    """The clip reflected across the plane ``axis = 0`` of the world frame,
    left and right swapped.

    Each joint takes its partner's world rotation delta from rest, reflected
    (for the x plane, quaternion ``(x, y, z, w) -> (x, -y, -z, w)``), applied
    to its own rest world rotation, so a rig whose rest pose is not symmetric
    mirrors too; the root's world-space offset from its rest position is
    reflected, and so is that of every other top node the clip translates.
    Mirroring twice gives the clip's poses back; bone lengths stay
    (translations of other nodes stay at rest). On a symmetric rig the
    mirrored world positions are the partners' positions reflected.

    Parameters
    ----------
    scene : Scene
    clip : Clip, name or index
    axis : {"x", "y", "z"}
    pairs : "auto" or dict
        ``{joint: partner}`` (see :func:`mirror_pairs`); joints not listed
        mirror onto themselves.
    """
    func = "mirror"
    clip = _scene_argument(func, "scene", scene).clip(clip, func=func)
    choice(func, "axis", axis, ("x", "y", "z"))
    names = _joint_names(scene)
    index = {n: j for j, n in enumerate(names)}
    if isinstance(pairs, str) and pairs == "auto":
        partner_of = mirror_pairs(scene)
    elif isinstance(pairs, dict):
        partner_of = {n: n for n in names}
        for a, b in pairs.items():
            for name in (a, b):
                _check_name(func, f"pairs[{a!r}]", name)
                if name not in index:
                    hint = "; " + _closest_text(name, names)
                    raise ValueError(f"{func}: pairs[{a!r}] names joint {name!r}, which the "
                                     f"rig does not have{hint}")
            partner_of[a], partner_of[b] = b, a
    else:
        raise ValueError(f"{func}: pairs is {pairs!r} (must be 'auto' or a dict)")
    k = "xyz".index(axis)
    flip = -np.ones(4)
    flip[k] = 1.0  # a reflection across plane k keeps the k component, negates the others
    flip[3] = 1.0
    times = clip.key_times()
    posed = _decompose(func, scene._world(func, clip, times))
    rest, rest_pos, rest_rot = _rest(func, scene)
    animated = sorted({c.node for c in clip.channels if c.path == "rotation"}
                      | {index[partner_of[names[c.node]]] for c in clip.channels
                         if c.path == "rotation"})
    sources = [index[partner_of[names[j]]] for j in animated]
    deltas = quat_multiply(posed.rotation[:, sources], quat_conjugate(rest_rot[sources])) * flip
    world = _world_rotations(scene, animated, deltas, rest_rot)
    local = _locals_from_world(func, scene, world, rest)
    rotations = _rotation_clip(scene, clip.name, times, local, animated)
    # every top node the clip translates (a capture's aim and target nulls),
    # then the root if it lies below one: each one's world offset from rest
    # reflected
    reflect = -flip[:3]  # the offset from rest reflected across plane k

    def reflected(j):
        src = index[partner_of[names[j]]]
        return _root_position(func, rest_pos[j], rest_pos[src], posed.translation[:, src],
                              reflect)

    root = _default_root(scene, clip)
    parents = scene.skeleton.parents
    tops = sorted({c.node for c in clip.channels if c.path == "translation"
                   and parents[c.node] < 0})
    result = _with_translations(func, scene, rotations, times, {j: reflected(j) for j in tops})
    if root is not None and parents[root] >= 0:
        result = _with_translations(func, scene, result, times, {root: reflected(root)})
    return result
