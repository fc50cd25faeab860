"""Fuzzing of unpickling: tampered pickled states of every value class.

Every animcore object pickles as ``_restore(cls, state)`` (animcore/_objects.py)
with ``state`` a dict of plain values, NumPy arrays and nested objects. The
contract under test: a pickle whose states were tampered with (a value
replaced, a field deleted or added, an array of another shape, dtype or with
NaN, a nested state replaced) either restores an object that works -- it
evaluates (or raises ValueError/OverflowError as any object would), compares
equal to its own copy and pickles again -- or raises ValueError from the
restoring call; never KeyError, TypeError, IndexError, a warning or a broken
object.

Pickles are read by an unpickler that only resolves animcore's classes, its
two restoring functions and NumPy's array reconstruction, so a mutated
stream cannot call anything else; errors of the pickle machinery itself
(corrupt opcodes, NumPy's reconstruction of a corrupt array) are not the
contract's business and are ignored.

Plain, deterministic run (what the test suite does, shortly)::

    python fuzz/fuzz_pickle.py --mutate 5000 --seed 1

Coverage-guided, with atheris, seeded from fuzz/corpus/pickle (a folder of
pickles; --write-seeds DIR writes them again)::

    python fuzz/fuzz_pickle.py -max_total_time=60 fuzz/work/pickle

A failing input is saved (fuzz/failures/pickle/failure-*.pkl, or
$ANIMCORE_FUZZ_FAILURES) and replays with ``python fuzz/fuzz_pickle.py FILE``.
"""
from __future__ import annotations

import copy
import io
import pickle
import pickletools
import random
import sys
import warnings

import harness

NAME = "pickle"


# ---------------------------------------------------------------- the objects

def objects() -> dict[str, object]:
    """One small object of each value class, in the states that matter
    (explicit and automatic tangents, easings, remaps, rotations, a cursor
    mid-cycle, buffers holding snapshots)."""
    import numpy as np

    import animcore as ac
    from animcore import model

    out = {}
    out["curve_cubic"] = ac.Curve([0, 1, 2.5], [[0, 1], [2, 0], [1, 1]], tangents="catmull_rom")
    out["curve_explicit"] = ac.Curve([0, 1, 1, 2], [0, 1, 3, 2], velocities=[1, 0, 0, 2],
                                     jumps=True, after="cycle_offset")
    out["curve_bezier"] = ac.Curve([0, 1, 2], [0, 1, 0], interpolation="bezier",
                                   tangents="auto_clamped", before="sloped", before_slope=2.0)
    out["curve_eased"] = ac.Curve([0, 1, 2], [0, 1, 0], interpolation=["quad_in",
                                  ac.CubicBezier(0.2, 0, 0.8, 1)], ease="smoothstep",
                                  ).remap_time("sine_in_out")
    out["curve_weights"] = ac.Curve([0, 1, 2], [0, 1, 0], interpolation="bezier",
                                    velocities=[0, 1, 0], in_weights=[0.3, 0.5, 0.2],
                                    out_weights=[0.2, 0.4, 0.3])
    out["derivative"] = ac.Curve([0, 1], [0, 2], interpolation="linear").derivative(1)
    out["rotation_curve"] = ac.RotationCurve([0, 1, 2], [[0, 0, 0, 1], [0, 0, 0.6, 0.8],
                                                         [0.6, 0, 0, 0.8]], after="cycle")
    out["rotation_cubic"] = ac.RotationCurve([0, 1], [[0, 0, 0, 1], [0, 0, 0.6, 0.8]],
                                             interpolation="cubic",
                                             in_tangents=np.zeros((2, 4)),
                                             out_tangents=np.zeros((2, 4)))
    track = ac.LoopTrack([0, 0.5, 1], [[0, 0, 0], [0.5, 0, 0.1], [1, 0, 0]],
                         rotations=[0, 0.3, 0.5])
    out["loop_track"] = track
    out["loop_quat"] = ac.LoopTrack([0, 1], [[0, 0, 0], [1, 0, 0]],
                                    rotations=[[0, 0, 0, 1], [0, 0.6, 0, 0.8]],
                                    interpolation="cubic")
    cursor = ac.RootMotionCursor(track, [0.25, 1.75])
    cursor.advance(0.6)
    out["cursor"] = cursor
    buffer = ac.SnapshotBuffer(2, 3, capacity=4, rotations=True, max_extrapolation=2)
    buffer.push(0, 0, 0, [[0, 0, 0]], [[0, 0, 0, 1]])
    buffer.push(0, 3, 0, [[1, 2, 3]], [[0, 0.6, 0, 0.8]])
    buffer.push(1, 1, 0, [[5, 5, 5]], [[0, 0, 0, 1]])
    out["snapshot_buffer"] = buffer
    timeline = ac.SnapshotTimeline(2, capacity=8, reorder_window=2)
    timeline.push(0, 0, [0, 0])
    timeline.push(4, 0, [1, 2])
    timeline.push(2, 0, [3, 4])
    out["snapshot_timeline"] = timeline
    out["hermite"] = ac.HermiteSegment(0, 1, 0.5, -0.5, 2.0)
    out["ease"] = ac.Ease("elastic_out", amplitude=1.2, period=0.4)
    out["steps"] = ac.Steps(3, "jump-both")
    out["skeleton"] = ac.Skeleton([-1, 0, 1], names=["hips", "spine", "head"])
    out["scene"] = _scene(np, ac, model)
    return out


def _scene(np, ac, model):
    """A two-joint Scene with one clip: a rotation and a translation channel."""
    from animcore._arrays import frozen_copy as frozen

    nodes = (model.Node(0, "root", -1, (1,), frozen([0, 0, 0]), frozen([0, 0, 0, 1]),
                        frozen([1, 1, 1])),
             model.Node(1, "arm", 0, (), frozen([0, 1, 0]), frozen([0, 0, 0, 1]),
                        frozen([1, 1, 1])))
    channels = (model._keyed_channel(0, "root", "translation", np.array([0.0, 1.0]),
                                     np.array([[0.0, 0, 0], [1, 0, 0]])),
                model._keyed_channel(1, "arm", "rotation", np.array([0.0, 1.0]),
                                     np.array([[0.0, 0, 0, 1], [0, 0, 0.6, 0.8]])))
    clip = model.Clip("walk", 1.0, channels)
    return model.Scene(nodes, ((0,),), 0, (), (clip,))


def seeds() -> dict[str, bytes]:
    """The objects, pickled with protocol 5 (arrays in band)."""
    return {f"{name}.pkl": pickle.dumps(obj, protocol=5) for name, obj in objects().items()}


# ---------------------------------------------------------------- reading safely

class _Refused(BaseException):
    """A restoring call refused the state with the documented error."""


class _Broken(BaseException):
    """A restoring call raised something the contract does not allow."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


_NUMPY = {("numpy", "ndarray"), ("numpy", "dtype"),
          ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
          ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
          ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer")}
_BUILTINS = {"set", "frozenset", "tuple", "list", "dict", "complex", "bytearray", "slice"}


def _guarded(function):
    def restore(*args):
        try:
            return function(*args)
        except (ValueError, OverflowError) as error:  # (OverflowError: a curve's documented)
            raise _Refused() from error
        except Exception as error:
            raise _Broken(error) from error
    return restore


class _NotNumpysDtypeState(pickle.UnpicklingError):
    """A dtype's pickled state that NumPy did not write: NumPy's own
    ``dtype.__setstate__`` crashes the process on some (numpy 2.4: a copied
    float64 dtype given ``(3, '<', None, -1, -1, 0)``), so it never sees one;
    nor does ``ndarray.__setstate__`` see an object array's state (it crashes
    on a list of fewer items than the shape holds), which animcore never
    pickles."""


def _build(self):
    """The BUILD opcode, with a dtype's state checked first: the state NumPy
    writes for that dtype, but for its byte order."""
    import numpy as np

    state, target = self.stack[-1], self.stack[-2]
    if isinstance(target, np.dtype):
        own = target.__reduce__()[2]
        if not (isinstance(state, tuple) and len(state) == len(own) and state[0] == own[0]
                and state[1] in ("<", ">", "|", "=") and state[2:] == own[2:]):
            raise _NotNumpysDtypeState(f"dtype state {state!r:.80}")
    if isinstance(target, np.ndarray) and isinstance(state, tuple) and any(
            isinstance(part, np.dtype) and part.hasobject for part in state):
        raise _NotNumpysDtypeState(f"an object array's state {state!r:.80}")
    pickle._Unpickler.load_build(self)


class _SafeUnpickler(pickle._Unpickler):
    """Resolves only animcore's classes and restoring functions, NumPy's array
    reconstruction and a few builtin containers; the restoring calls are
    watched (see :func:`_guarded`). The pure-Python unpickler, so that BUILD
    can check a dtype's state before NumPy reads it (see :func:`_build`)."""

    dispatch = {**pickle._Unpickler.dispatch, pickle.BUILD[0]: _build}

    def __init__(self, data: bytes, restore=None):
        super().__init__(io.BytesIO(data))
        self._restore_hook = restore

    def find_class(self, module, name):
        if module == "animcore._objects" and name in ("_restore", "_rebuild_error"):
            from animcore import _objects
            function = getattr(_objects, name)
            if self._restore_hook is not None:
                return self._restore_hook(function)
            return function
        if module.split(".")[0] == "animcore":
            value = super().find_class(module, name)
            if isinstance(value, type):
                return value
        if (module, name) in _NUMPY or (module == "builtins" and name in _BUILTINS):
            return super().find_class(module, name)
        if module == "copyreg" and name == "_reconstructor":
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed here")


def load(data: bytes):
    """``pickle.loads`` restricted as above (no guard on restoring calls)."""
    return _SafeUnpickler(data).load()


def _readable(data: bytes) -> bool:
    """Whether the unpickler may read ``data`` without allocating far more than it
    holds. A malformed opcode stream is the pickle module's business (and CPython's
    reader leaks a buffer on some truncations); a memo index makes CPython's memo
    grow to it, and a BYTEARRAY8 length is allocated before it is read: gigabytes
    for a few bytes."""
    try:
        for op, arg, _ in pickletools.genops(data):  # (which checks every length)
            if op.name in ("PUT", "BINPUT", "LONG_BINPUT") and int(arg) > len(data):
                return False
    except Exception:
        return False
    return True


# ---------------------------------------------------------------- the contract

_USE_ERRORS = (ValueError, OverflowError)


def check(data: bytes) -> None:
    """One pickle: restores an object that works, or its restoring call raises
    ValueError; anything else (from animcore) raises."""
    if not _readable(data):
        return
    try:
        obj = _SafeUnpickler(data, _guarded).load()
    except _Refused:
        return
    except _Broken as broken:
        raise broken.error
    except (Exception, RecursionError):  # the pickle machinery's or NumPy's own refusal
        return
    exercise(obj)


def exercise(obj) -> None:
    """Uses a restored object as a program would: repr, ==, copy, pickle, and
    its evaluation methods (which may raise ValueError/OverflowError only)."""
    import numpy as np

    import animcore as ac
    from animcore import model

    if isinstance(obj, (list, tuple)):
        for item in obj:
            exercise(item)
        return
    if not isinstance(obj, ac._objects.ByValue):
        return
    repr(obj)
    again = pickle.loads(pickle.dumps(obj, protocol=5))
    duplicate = copy.deepcopy(obj)
    assert type(again) is type(obj) and type(duplicate) is type(obj)
    _ = obj == again, obj == duplicate
    try:
        if isinstance(obj, ac.Curve):
            t0, t1 = float(obj.times[0]), float(obj.times[-1])
            t = np.array([t0, (t0 + t1) / 2, t1, t1 + 1.0, t0 - 1.0])
            for order in (0, 1, 2):
                _finite_or_error(obj.evaluate(t, order))
            obj.key_slopes()
            ac.Curve.from_dict(obj.to_dict())
        elif isinstance(obj, ac.CurveDerivative):
            obj(float(obj.curve.times[0]))
        elif isinstance(obj, ac.RotationCurve):
            t = np.array([float(obj.times[0]), float(obj.times[-1]) + 0.5])
            _finite_or_error(obj.evaluate(t))
            _finite_or_error(obj.angular_velocity(t))
            ac.RotationCurve.from_dict(obj.to_dict())
        elif isinstance(obj, ac.LoopTrack):
            obj.delta(0.0, 0.7 * obj.duration)
            obj.sample(0.3)
            ac.LoopTrack.from_dict(obj.to_dict())
        elif isinstance(obj, ac.RootMotionCursor):
            exercise(obj.track)
            obj.time
            obj.advance(0.1)
        elif isinstance(obj, ac.SnapshotBuffer):
            obj.counts
            obj.sample(2.0)
            obj.snapshots(0)
            obj.push(0, 50, 0, np.zeros((1, obj._dim)),
                     np.array([[0, 0, 0, 1.0]]) if obj._rotations else None)
        elif isinstance(obj, ac.SnapshotTimeline):
            obj.snapshots()
            obj.sample(2.0)
            obj.flush()
        elif isinstance(obj, ac.HermiteSegment):
            obj.evaluate(0.5)
        elif isinstance(obj, ac.Easing):
            obj(np.array([0.0, 0.5, 1.0]))
        elif isinstance(obj, ac.Skeleton):
            obj.local(obj.world())
        elif isinstance(obj, model.Scene):
            obj.world(None, 0.0)
            for clip in obj.clips:
                obj.pose(clip, clip.duration / 2)
                obj.world(clip, 0.0)
    except _USE_ERRORS:
        pass


def _finite_or_error(values) -> None:
    import numpy as np

    values = np.asarray(values)
    assert not np.isnan(values).any(), f"a restored object evaluates to NaN: {values}"


# ---------------------------------------------------------------- mutation

class _State:
    """A restoring call read without running it: the function and its
    arguments (``cls, state`` for ``_restore``)."""

    def __init__(self, function, args):
        self.function, self.args = function, list(args)

    def __reduce__(self):
        return (self.function, tuple(self.args))

    def __deepcopy__(self, memo):
        return _State(self.function, copy.deepcopy(self.args, memo))


class _Reader(_SafeUnpickler):
    def __init__(self, data: bytes):
        super().__init__(data, lambda function: (lambda *args: _State(function, args)))


def _array_edits(array, rng: random.Random):
    import numpy as np

    roll = rng.random()
    if roll < 0.25 and array.size:
        array = np.array(array, dtype=np.float64 if array.dtype.kind in "fiub" else array.dtype)
        flat = array.reshape(-1)
        flat[rng.randrange(flat.size)] = rng.choice([np.nan, np.inf, -np.inf, 1e308, -1e308,
                                                     5e-324, 0.0, -1.0, 2.0**63])
        return array
    if roll < 0.4:
        return array.reshape(-1) if array.ndim != 1 else array.reshape(-1, 1)
    if roll < 0.55:
        return array[: rng.randrange(array.shape[0] + 1)] if array.ndim else array[None]
    if roll < 0.65:
        return np.concatenate([array, array]) if array.ndim else array
    if roll < 0.75:  # (strings, which earlier edits put in, cast to object only)
        kinds = [np.int64, np.float32, np.bool_, np.complex128, np.uint8, object]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            # (meant; np.exceptions from NumPy 1.25)
            warnings.simplefilter("ignore", getattr(np, "exceptions", np).ComplexWarning)
            return array.astype(rng.choice(kinds) if array.dtype.kind in "fiubc" else object)
    if roll < 0.85 and array.ndim and array.shape[0] > 1:
        return array[::-1].copy()
    return rng.choice([np.zeros(0), np.zeros((0, 3)), np.array(np.nan), np.zeros((2, 2, 2)),
                       np.array(["a", "b"])])


def _mutate_tree(tree, rng: random.Random, depth: int = 0):
    import numpy as np

    if isinstance(tree, _State):
        roll = rng.random()
        if roll < 0.03 or len(tree.args) < 2:  # the argument list itself
            tree.args = tree.args[:rng.randrange(len(tree.args) + 1)] + rng.choice([[], [0]])
            return tree
        if roll < 0.06:  # another class for this state
            import animcore as ac
            tree.args[0] = rng.choice([ac.Curve, ac.LoopTrack, ac.RootMotionCursor, ac.Ease,
                                       ac.SnapshotBuffer, ac.Skeleton, int, ValueError])
            return tree
        i = rng.randrange(1, len(tree.args))
        state = tree.args[i]
        if not isinstance(state, dict) or roll < 0.08:
            tree.args[i] = _mutate_tree(state, rng, depth + 1) if roll >= 0.08 else rng.choice(
                [None, [], (), "x", {}, 3])
            return tree
        key = rng.choice(list(state) or ["x"])
        roll = rng.random()
        if roll < 0.1 and state:
            del state[key]
        elif roll < 0.15:
            state[str(key) + "_extra"] = 0
        else:
            state[key] = _mutate_tree(state.get(key), rng, depth + 1)
        return tree
    if isinstance(tree, np.ndarray):
        return _array_edits(tree, rng) if rng.random() < 0.85 else rng.choice(harness.HOSTILE)
    if isinstance(tree, (tuple, list)) and tree and rng.random() < 0.8:
        items = list(tree)
        i = rng.randrange(len(items))
        roll = rng.random()
        if roll < 0.15:
            del items[i]
        elif roll < 0.25:
            items.insert(i, copy.deepcopy(items[i]))
        else:
            items[i] = _mutate_tree(items[i], rng, depth + 1)
        return type(tree)(items)
    if isinstance(tree, dict) and tree and rng.random() < 0.8:
        key = rng.choice(list(tree))
        tree[key] = _mutate_tree(tree[key], rng, depth + 1)
        return tree
    return copy.deepcopy(rng.choice(harness.HOSTILE + [np.zeros(3), np.array([np.nan]),
                                                       np.arange(4.0)]))


def _states(tree) -> list:
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _State):
            found.append(node)
            stack.extend(node.args[1:])
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return found


def mutate(data: bytes, pool: list[bytes], rng: random.Random) -> bytes:
    """Edits the states inside a pickle (mostly), or its bytes."""
    if rng.random() < 0.1 or not _readable(data):
        return harness.mutate_bytes(data, pool, rng)
    try:
        tree = _Reader(data).load()
    except Exception:
        return harness.mutate_bytes(data, pool, rng)
    states = _states(tree)
    if not states:
        return harness.mutate_bytes(data, pool, rng)
    for _ in range(rng.randint(1, 2)):
        node = rng.choice(states)
        if rng.random() < 0.1:  # a state of another class
            donor_data = rng.choice(pool)
            donors = _states(_Reader(donor_data).load()) if _readable(donor_data) else []
            donor = rng.choice(donors or [node])
            node.args[1:] = copy.deepcopy(donor.args[1:])
        else:
            _mutate_tree(node, rng)
    try:
        return pickle.dumps(tree, protocol=5)
    except Exception:
        return harness.mutate_bytes(data, pool, rng)


def mutation_run(count: int, seed: int = 0) -> tuple[int, float]:
    return harness.mutation_run(NAME, check, seeds(), mutate, count, seed, ".pkl")


if __name__ == "__main__":
    harness.main(NAME, sys.argv, check, seeds, mutate, ".pkl")
