"""Joint hierarchies and forward kinematics.

A :class:`Skeleton` is a list of joints, each with a parent (``-1`` for a
root) and a rest pose (translation, rotation ``(x, y, z, w)``, scale). Local
poses turn into world transforms ``world[j] = world[parent[j]] @ local[j]``
with ``local = T @ R @ S`` (the glTF node transform). Matrices are 4x4,
row-major, acting on column vectors (``p' = M @ [x, y, z, 1]``).

The hierarchy is validated once (parents in any order, no cycles) and the
world transforms of every pose are computed in C, vectorized over every
leading axis of the poses (frames, characters, ...).
"""
from __future__ import annotations

import operator
from typing import NamedTuple, Optional, Sequence

import numpy as np

from . import _core
from ._arrays import as_float64
from ._objects import ByValue, PicklableError
from ._options import did_you_mean, suggest
from .rotations import quaternion_input

__all__ = ["Skeleton", "Transforms", "decompose"]


class NodeLookupError(PicklableError, KeyError, ValueError):
    """A node (joint) or clip, by name or index, that a scene or skeleton
    does not have (:meth:`animcore.Scene.node_index`, :meth:`Skeleton.index`).
    Both a KeyError (as in earlier versions) and a ValueError (bad input);
    ``str()`` is the plain message. Also ``animcore.model.NodeLookupError``."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class Transforms(NamedTuple):
    """Per-joint translation (..., J, 3), rotation (..., J, 4) and scale (..., J, 3)."""

    translation: np.ndarray
    rotation: np.ndarray
    scale: np.ndarray

    def __repr__(self) -> str:
        """Shapes, not values: a pose of many frames would print thousands of
        numbers (index a field to see them)."""
        shapes = ", ".join(f"{name}={_shape_text(getattr(self, name))}" for name in self._fields)
        return f"Transforms({shapes})"

    def __eq__(self, other) -> bool:
        """By value, as every animcore object (``same_value``'s rule: NaN
        equals NaN in the same place): the three arrays' shapes and values
        equal (a tuple's comparison of arrays would raise)."""
        if not isinstance(other, tuple):
            return NotImplemented
        return len(other) == 3 and all(np.array_equal(a, b, equal_nan=True)
                                       for a, b in zip(self, other))

    def __ne__(self, other) -> bool:
        """The negation of ``==``."""
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # (arrays are not hashable)


def _shape_text(array) -> str:
    shape = np.shape(array)
    return f"<{np.asarray(array).dtype} array {'x'.join(map(str, shape)) or 'scalar'}>"


_WIDTHS = {"translation": 3, "rotation": 4, "scale": 3}


def decompose(matrices) -> Transforms:
    """Translation, unit rotation and scale of affine 4x4 matrices ``M = T R S``.

    Shape ``(..., 4, 4)`` -> ``(..., 3)``, ``(..., 4)``, ``(..., 3)``. Scales
    are the lengths of the columns (x negative for a mirror). A matrix whose
    last row is not ``0 0 0 1``, with a zero column, or sheared (columns not
    orthogonal within a cosine of ``2**-16``, which no TRS expresses) is a
    ValueError naming its index. The tolerance is 128 units of float32's
    epsilon: matrices and rest poses rounded to float32 (as glTF stores them,
    every Blender export's bone scales of 0.99999994, MotionBuilder's scales
    a dozen units off 1) and the world transforms composed from them along a
    chain decompose; a real shear (a 1% non-uniform scale above a turned
    bone: a cosine of about 0.005) is refused.

    >>> decompose(np.diag([2.0, 2.0, 2.0, 1.0])).scale
    array([2., 2., 2.])
    """
    return _decompose("decompose", matrices)


def _decompose(func: str, matrices) -> Transforms:
    return Transforms(*_core._skeleton_decompose(func, matrices, None, None))


class Skeleton(ByValue):
    """A joint hierarchy with a rest pose.

    Parameters
    ----------
    parents : array_like of int, shape (J,)
        The parent of every joint, ``-1`` for a root, in any order (a parent
        may come after its child). Several roots make several trees. An
        index outside ``[-1, J)`` or a cycle (a joint its own ancestor) is a
        ValueError naming the joint.
    translation, rotation, scale : array_like, shape (J, 3), (J, 4), (J, 3), optional
        The rest pose, local to each parent: used by :meth:`world` wherever
        a pose leaves a property out. Defaults: zero, identity ``(0, 0, 0,
        1)``, one. Rotations need not be unit (they are normalized when used)
        but must not be zero; a scipy Rotation is taken through ``as_quat()``.
    names : sequence of str, optional
        Joint names (for :meth:`index`).

    Examples
    --------
    >>> arm = Skeleton([-1, 0, 1], translation=[[0, 0, 0], [1, 0, 0], [1, 0, 0]])
    >>> from animcore import quat_from_axis_angle
    >>> bend = quat_from_axis_angle([0, 0, 1], np.pi / 2)
    >>> arm.world(rotation=[bend, [0, 0, 0, 1], [0, 0, 0, 1]])[2, :3, 3].round(12)
    array([0., 2., 0.])
    """

    __slots__ = ("_handle", "_parents", "_rest", "_names", "_order")

    def __init__(self, parents, translation=None, rotation=None, scale=None, *,
                 names: Optional[Sequence[str]] = None):
        func = "Skeleton"
        p = np.asarray(parents)
        if p.ndim != 1:
            raise ValueError(f"{func}: parents must have shape (J,), got {p.shape}")
        if p.size and p.dtype.kind not in "iu":
            if p.dtype.kind != "f" or not np.all(np.isfinite(p)) or np.any(p != np.round(p)):
                raise ValueError(f"{func}: parents must be integers (-1 for a root), got "
                                 f"an array of dtype {p.dtype}")
        # in range before the cast: a uint64 2**64 - 1 must not wrap to -1 (a root), nor a
        # float 1e300 become an arbitrary int64 (with a warning)
        outside = p >= p.size
        if p.dtype.kind != "u":  # (an unsigned array compared with -1 is an error in NumPy 2)
            outside |= p < -1
        if outside.any():
            k = int(np.argmax(outside))
            value = p[k].item()
            raise ValueError(f"{func}: parents at index ({k},) is {value!r} (must be -1 (a "
                             f"root) or a joint index in [0, {p.size}))")
        p = np.array(p, dtype=np.int64)
        joints = p.size
        rest = []
        for name, value, default in (("translation", translation, (0.0, 0.0, 0.0)),
                                     ("rotation", rotation, (0.0, 0.0, 0.0, 1.0)),
                                     ("scale", scale, (1.0, 1.0, 1.0))):
            width = _WIDTHS[name]
            if value is None:
                a = np.tile(np.asarray(default), (joints, 1))
            else:
                value = quaternion_input(value) if name == "rotation" else value
                a = np.array(as_float64(func, name, value), dtype=np.float64)
                if a.shape != (joints, width):
                    raise ValueError(f"{func}: {name} must have shape ({joints}, {width}), "
                                     f"got {a.shape}")
            a.flags.writeable = False
            rest.append(a)
        if names is not None:
            if not isinstance(names, (list, tuple)) or len(names) != joints or not all(
                    isinstance(n, str) for n in names):
                raise ValueError(f"{func}: names must be {joints} strings, got {names!r}")
            names = tuple(names)
        self._handle = _core._skeleton_create(func, p)
        order = np.empty(joints, dtype=np.int64)
        _core._skeleton_order(self._handle, order)
        # Check the rest pose now, so that a bad rest is reported here, not in world().
        _core._skeleton_world(func, self._handle, *rest, None, None)
        p.flags.writeable = order.flags.writeable = False
        self._parents, self._rest, self._names, self._order = p, Transforms(*rest), names, order

    # -- properties ---------------------------------------------------------

    parents = property(lambda self: self._parents, doc="Parent of each joint, -1 for roots.")
    rest = property(lambda self: self._rest, doc="The rest pose as :class:`Transforms`.")
    names = property(lambda self: self._names, doc="Joint names, or None.")
    order = property(lambda self: self._order,
                     doc="An evaluation order: every joint after its parent.")

    def __len__(self) -> int:
        return self._parents.size

    def _subtrees(self) -> np.ndarray:
        """(J, J) bool: row j marks joint j and its descendants."""
        inside = np.eye(len(self), dtype=bool)
        for j in self._order[::-1]:  # children before their parents
            if self._parents[j] >= 0:
                inside[self._parents[j]] |= inside[j]
        return inside

    @property
    def roots(self) -> np.ndarray:
        """Indices of the root joints."""
        return np.flatnonzero(self._parents < 0)

    def children(self, joint: int) -> np.ndarray:
        """Indices of the children of ``joint`` (as :meth:`index` takes it)."""
        return np.flatnonzero(self._parents == self._index("Skeleton.children", joint))

    def index(self, joint) -> int:
        """The index of a joint given by index or name. An unknown name or an
        index out of range is a :class:`NodeLookupError` (a KeyError and a
        ValueError); anything else than a name or an integer (a float, a
        bool) is a ValueError."""
        return self._index("Skeleton.index", joint)

    def _index(self, func: str, joint) -> int:
        """:meth:`index`, with errors naming ``func`` (the public caller)."""
        if isinstance(joint, str):
            if self._names is None:
                raise NodeLookupError(f"{func}: no joint named {joint!r} (the skeleton has "
                                      f"no names)")
            if joint not in self._names:
                raise NodeLookupError(f"{func}: no joint named {joint!r}"
                                      f"{did_you_mean(suggest(joint, self._names))}")
            return self._names.index(joint)
        try:
            if isinstance(joint, (bool, np.bool_)):
                raise TypeError
            j = operator.index(joint)
        except TypeError:
            raise ValueError(f"{func}: joint must be a joint name or an integer index, got "
                             f"{joint!r}") from None
        if not 0 <= j < len(self):
            raise NodeLookupError(f"{func}: joint index {j} is out of range [0, {len(self)})")
        return j

    # -- kinematics ---------------------------------------------------------

    def world(self, translation=None, rotation=None, scale=None, *, out=None,
              workers=None) -> np.ndarray:
        """World matrices of local poses: ``(..., J, 4, 4)``.

        Parameters
        ----------
        translation, rotation, scale : array_like, shapes (..., J, 3), (..., J, 4), (..., J, 3)
            Local poses; leading axes (frames, characters...) broadcast
            together. A property left out is the rest pose. Rotations are
            normalized; a zero rotation or a non-finite value is a ValueError
            naming its index ``(..., joint)``.
        out : ndarray, optional
            Receives the result (untouched on error) and is returned.
        workers : int, optional
            Threads that share the poses, with scipy.fft's meaning: None or 1
            for one, -1 for every core, n for n. The result is the same bit
            for bit, and so is the error a bad input raises.
        """
        func = "Skeleton.world"
        return self._world(func, translation, rotation, scale, out, workers)

    def _world(self, func: str, translation=None, rotation=None, scale=None, out=None,
               workers=None) -> np.ndarray:
        """:meth:`world`, with errors naming ``func`` (the public caller)."""
        return _core._skeleton_world(func, self._handle,
                                     *self._pose_or_rest(translation, rotation, scale), out,
                                     workers)

    def skinning(self, translation=None, rotation=None, scale=None, *, bind, out=None,
                 workers=None) -> np.ndarray:
        """Skinning matrices of local poses: ``(..., J, 4, 4)``, each joint's
        world matrix (as :meth:`world` makes it) times its matrix of ``bind``
        (``(..., J, 4, 4)``, broadcast with the poses: the inverse bind
        matrices). Each product is that of ``animcore.Skin.joint_matrices``
        (its four terms summed in order, no fused multiply-add), made as its
        world matrix is, so the result is ``world(...)`` times ``bind`` to the
        bit without a pass over the world matrices of its own. Arguments and
        errors as :meth:`world`'s; a non-finite ``bind`` is a ValueError and a
        product beyond the double range an OverflowError, each naming the
        pose and joint."""
        func = "Skeleton.skinning"
        return _core._skeleton_skin(func, self._handle,
                                    *self._pose_or_rest(translation, rotation, scale), bind, out,
                                    workers)

    def _pose_or_rest(self, translation, rotation, scale) -> tuple:
        """The local pose as given, the rest pose's property where one is None."""
        rest = self._rest
        return (rest.translation if translation is None else translation,
                rest.rotation if rotation is None else quaternion_input(rotation),
                rest.scale if scale is None else scale)

    def world_transforms(self, translation=None, rotation=None, scale=None) -> Transforms:
        """World translation, rotation and scale of local poses, where they
        exist: a non-uniform scale above a rotated joint shears its world
        transform, which no TRS expresses (a ValueError naming the joint).
        Same arguments as :meth:`world`."""
        func = "Skeleton.world_transforms"
        return _decompose(func, self._world(func, translation, rotation, scale))

    def local(self, world) -> Transforms:
        """Local translation, rotation and scale from world matrices
        ``(..., J, 4, 4)``: the inverse of :meth:`world`, so that
        ``skeleton.world(*skeleton.local(W))`` gives back ``W``. A parent
        with a singular matrix, or a local transform with shear, is a
        ValueError naming the joint."""
        func = "Skeleton.local"
        return _decompose(func, _core._skeleton_local(func, self._handle, world, None, None))

    # -- value semantics ----------------------------------------------------

    _fields = (("parents", "translation", "rotation", "scale", "names"), ())

    def _state(self) -> dict:
        translation, rotation, scale = self._rest
        return {"parents": self._parents, "translation": translation, "rotation": rotation,
                "scale": scale, "names": self._names}

    @classmethod
    def _from_state(cls, state: dict) -> "Skeleton":
        parents = state["parents"]
        # (an integer array's range is the constructor's check)
        if not (isinstance(parents, np.ndarray) and parents.dtype.kind in "iu"):
            raise ValueError(f"Skeleton: a pickled state's parents are {parents!r} (must be "
                             f"an integer array)")
        return cls(state["parents"], state["translation"], state["rotation"], state["scale"],
                   names=state["names"])

    def __repr__(self):
        return f"Skeleton({len(self)} joints, {self.roots.size} root(s))"

    def _repr_html_(self) -> str:
        from ._display import html_table, names_preview
        depth = np.zeros(len(self), dtype=np.int64)
        for j in self._order:  # parents before their children
            parent = self._parents[j]
            depth[j] = depth[parent] + 1 if parent >= 0 else 0
        names = self._names if self._names is not None else range(len(self))
        return html_table("Skeleton", [
            ("joints", len(self)), ("roots", names_preview(np.asarray(names, dtype=object)[self.roots])),
            ("depth", int(depth.max()) + 1 if len(self) else 0), ("names", names_preview(names))])


# ---------------------------------------------------------------- rigid transforms

def _axis_matrices(translation, yaw, up_axis):
    """4x4 rigid transforms: a turn of `yaw` radians about `up_axis`
    (right-handed), then `translation`."""
    a, b = (up_axis + 1) % 3, (up_axis + 2) % 3
    c, s = np.cos(yaw), np.sin(yaw)
    m = np.zeros(yaw.shape + (4, 4))
    m[..., up_axis, up_axis] = 1.0
    m[..., a, a], m[..., a, b], m[..., b, a], m[..., b, b] = c, -s, s, c
    m[..., :3, 3] = translation
    m[..., 3, 3] = 1.0
    return m


def _rigid_matrices(translation, rotation):
    from .rotations import quat_to_matrix

    m = np.zeros(translation.shape[:-1] + (4, 4))
    m[..., :3, :3] = quat_to_matrix(rotation)
    m[..., :3, 3] = translation
    m[..., 3, 3] = 1.0
    return m


def _rigid_inverse(m):
    inv = np.zeros_like(m)
    r = np.swapaxes(m[..., :3, :3], -1, -2)
    inv[..., :3, :3] = r
    inv[..., :3, 3] = -np.einsum("...ij,...j->...i", r, m[..., :3, 3])
    inv[..., 3, 3] = 1.0
    return inv
