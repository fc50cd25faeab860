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

from typing import NamedTuple, Optional, Sequence

import numpy as np

from . import _core
from ._arrays import as_float64, check_out, contiguous, results

__all__ = ["Skeleton", "Transforms", "decompose"]


class Transforms(NamedTuple):
    """Per-joint translation (..., J, 3), rotation (..., J, 4) and scale (..., J, 3)."""

    translation: np.ndarray
    rotation: np.ndarray
    scale: np.ndarray


_WIDTHS = {"translation": 3, "rotation": 4, "scale": 3}


def decompose(matrices) -> Transforms:
    """Translation, unit rotation and scale of affine 4x4 matrices ``M = T R S``.

    Shape ``(..., 4, 4)`` -> ``(..., 3)``, ``(..., 4)``, ``(..., 3)``. Scales
    are the lengths of the columns (x negative for a mirror). A matrix whose
    last row is not ``0 0 0 1``, with a zero column, or sheared (columns not
    orthogonal within a cosine of 1e-9, which no TRS expresses) is a
    ValueError naming its index.

    >>> decompose(np.diag([2.0, 2.0, 2.0, 1.0])).scale
    array([2., 2., 2.])
    """
    return _decompose("decompose", matrices)


def _decompose(func: str, matrices) -> Transforms:
    m = as_float64(func, "matrices", matrices)
    if m.ndim < 2 or m.shape[-2:] != (4, 4):
        raise ValueError(f"{func}: matrices must have shape (..., 4, 4), got {m.shape}")
    lead = m.shape[:-2]
    t, r, s = np.empty(lead + (3,)), np.empty(lead + (4,)), np.empty(lead + (3,))
    _core._skeleton_decompose(func, contiguous(m), t, r, s)
    return Transforms(t, r, s)


class Skeleton:
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
        but must not be zero.
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
                a = np.array(as_float64(func, name, value), dtype=np.float64)
                if a.shape != (joints, width):
                    raise ValueError(f"{func}: {name} must have shape ({joints}, {width}), "
                                     f"got {a.shape}")
            a.flags.writeable = False
            rest.append(a)
        if names is not None:
            names = tuple(names)
            if len(names) != joints or not all(isinstance(n, str) for n in names):
                raise ValueError(f"{func}: names must be {joints} strings, got {names!r}")
        self._handle = _core._skeleton_create(func, p)
        order = np.empty(joints, dtype=np.int64)
        _core._skeleton_order(self._handle, order)
        # Check the rest pose now, so that a bad rest is reported here, not in world().
        _core._skeleton_world(func, self._handle, *(contiguous(a) for a in rest),
                              np.empty((joints, 4, 4)))
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

    @property
    def roots(self) -> np.ndarray:
        """Indices of the root joints."""
        return np.flatnonzero(self._parents < 0)

    def children(self, joint: int) -> np.ndarray:
        """Indices of the children of ``joint``."""
        return np.flatnonzero(self._parents == self.index(joint))

    def index(self, joint) -> int:
        """The index of a joint given by index or name (KeyError if unknown)."""
        if isinstance(joint, str):
            if self._names is None or joint not in self._names:
                raise KeyError(f"Skeleton: no joint named {joint!r}")
            return self._names.index(joint)
        j = int(joint)
        if not 0 <= j < len(self):
            raise KeyError(f"Skeleton: joint index {joint!r} is out of range [0, {len(self)})")
        return j

    # -- kinematics ---------------------------------------------------------

    def _poses(self, func, translation, rotation, scale):
        joints = len(self)
        arrays = []
        for name, value, rest in (("translation", translation, self._rest.translation),
                                  ("rotation", rotation, self._rest.rotation),
                                  ("scale", scale, self._rest.scale)):
            a = rest if value is None else as_float64(func, name, value)
            if a.ndim < 2 or a.shape[-2:] != (joints, _WIDTHS[name]):
                raise ValueError(f"{func}: {name} must have shape (..., {joints}, "
                                 f"{_WIDTHS[name]}), got {a.shape}")
            arrays.append((name, a))
        try:
            lead = np.broadcast_shapes(*(a.shape[:-2] for _, a in arrays))
        except ValueError:
            shapes = ", ".join(f"{n} {a.shape}" for n, a in arrays)
            raise ValueError(f"{func}: cannot broadcast {shapes} together") from None
        operands = []
        for _, a in arrays:
            if int(np.prod(a.shape[:-2])) == 1:  # one pose shared by all (step 0)
                operands.append(contiguous(a.reshape(a.shape[-2:])))
            else:
                operands.append(contiguous(np.broadcast_to(a, lead + a.shape[-2:])))
        return lead, operands

    def world(self, translation=None, rotation=None, scale=None, *, out=None) -> np.ndarray:
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
        """
        func = "Skeleton.world"
        lead, operands = self._poses(func, translation, rotation, scale)
        shape = lead + (len(self), 4, 4)
        if out is not None:
            out = check_out(func, out, 1, shape)
        result = np.empty(shape)  # scratch: an error leaves out untouched
        _core._skeleton_world(func, self._handle, *operands, result)
        return results((result,), out)[0]

    def world_transforms(self, translation=None, rotation=None, scale=None) -> Transforms:
        """World translation, rotation and scale of local poses, where they
        exist: a non-uniform scale above a rotated joint shears its world
        transform, which no TRS expresses (a ValueError naming the joint).
        Same arguments as :meth:`world`."""
        return _decompose("Skeleton.world_transforms", self.world(translation, rotation, scale))

    def local(self, world) -> Transforms:
        """Local translation, rotation and scale from world matrices
        ``(..., J, 4, 4)``: the inverse of :meth:`world`, so that
        ``skeleton.world(*skeleton.local(W))`` gives back ``W``. A parent
        with a singular matrix, or a local transform with shear, is a
        ValueError naming the joint."""
        func = "Skeleton.local"
        w = as_float64(func, "world", world)
        if w.ndim < 3 or w.shape[-3:] != (len(self), 4, 4):
            raise ValueError(f"{func}: world must have shape (..., {len(self)}, 4, 4), "
                             f"got {w.shape}")
        local = np.empty(w.shape)
        _core._skeleton_local(func, self._handle, contiguous(w), local)
        return _decompose(func, local)

    # -- value semantics ----------------------------------------------------

    def __reduce__(self):
        return (_rebuild, (self._parents, *self._rest, self._names))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self  # immutable

    def __eq__(self, other):
        if not isinstance(other, Skeleton):
            return NotImplemented
        return (self._names == other._names and np.array_equal(self._parents, other._parents)
                and all(np.array_equal(a, b) for a, b in zip(self._rest, other._rest)))

    def __hash__(self):
        return hash((self._parents.tobytes(), self._names))

    def __repr__(self):
        return f"Skeleton({len(self)} joints, {self.roots.size} root(s))"


def _rebuild(parents, translation, rotation, scale, names):
    return Skeleton(parents, translation, rotation, scale, names=names)
