"""Pickling, copying and comparison by value, one pattern for every public class.

A class takes part by inheriting :class:`ByValue` and defining two methods:

``_state(self) -> dict``
    The values that define the object: Python scalars and strings, NumPy
    arrays, other animcore objects, tuples of them. For a stateful object
    this includes its exact current state (a cursor's cycles and phases, the
    bytes a C object exports).
``_from_state(cls, state)`` (a classmethod)
    A new object from such a dict, through the validating constructor where
    there is one, so a tampered or truncated pickle is a ValueError rather
    than a broken object.
``_fields`` (a class attribute, optional)
    The keys of the state: ``(required, optional)`` tuples of names. Before
    ``_from_state`` runs, the state must be a dict with every required key
    and no other than these (a dataclass's are its fields, those with a
    default optional); anything else is a ValueError naming the class and
    the key. ``_from_state`` then validates each value it does not hand to a
    validating constructor.

From these two, :class:`ByValue` gives:

- ``pickle``: the object is stored as its state. NumPy arrays in it are
  written out of band with protocol 5 and a ``buffer_callback`` (no copy
  into the pickle stream), in band otherwise;
- ``copy.copy`` and ``copy.deepcopy``: a new object rebuilt from the state
  (deep-copied first for ``deepcopy``), so a copy of a stateful object
  continues on its own;
- ``==``: the same type and equal states (arrays by shape, dtype and value,
  nested objects by their own ``==``). Objects holding arrays are not
  hashable.

Exceptions take part by inheriting :class:`PicklableError` before their
builtin base: they unpickle with the same message (``args``) and attributes
even when their ``__init__`` takes other arguments than the message.
"""
from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["ByValue", "PicklableError", "same_value", "state_fields"]


def _restore(*args):
    """Unpickling and copying entry point: ``cls._from_state(state)`` for the
    arguments ``(cls, state)``, after checking that ``cls`` is a value class
    and ``state`` has its keys (so a tampered pickle is a ValueError, never a
    KeyError or TypeError)."""
    if len(args) != 2:
        raise ValueError(f"unpickling: an animcore value is restored from (class, state), "
                         f"got {len(args)} argument(s)")
    cls, state = args
    if not (isinstance(cls, type) and issubclass(cls, ByValue)):
        raise ValueError(f"unpickling: {cls!r} is not an animcore value class")
    check_state(cls, state)
    return cls._from_state(state)


def state_fields(cls) -> tuple:
    """(required, optional) state keys of a value class, or None when it does
    not declare them (see the module documentation)."""
    declared = cls.__dict__.get("_fields")  # each class its own (a subclass adds keys)
    if declared is None and dataclasses.is_dataclass(cls):
        missing = dataclasses.MISSING
        every = dataclasses.fields(cls)
        return (tuple(f.name for f in every if f.default is missing
                      and f.default_factory is missing),
                tuple(f.name for f in every if f.default is not missing
                      or f.default_factory is not missing))
    return declared


def check_state(cls, state) -> None:
    """A ValueError unless ``state`` is a dict with the keys of ``cls``'s state."""
    name = cls.__name__
    if not isinstance(state, dict):
        raise ValueError(f"{name}: a pickled state must be a dict, got "
                         f"{type(state).__name__}")
    fields = state_fields(cls)
    if fields is None:
        bad = next((k for k in state if not isinstance(k, str)), None)
        if bad is not None:
            raise ValueError(f"{name}: a pickled state has the key {bad!r} (keys are names)")
        return
    required, optional = fields
    missing = [k for k in required if k not in state]
    if missing:
        raise ValueError(f"{name}: a pickled state lacks {', '.join(map(repr, missing))}")
    known = set(required) | set(optional)
    unknown = [k for k in state if k not in known]
    if unknown:
        raise ValueError(f"{name}: a pickled state has the unknown key {unknown[0]!r}")


def same_value(a, b) -> bool:
    """True when a and b are equal values: arrays by shape, dtype and
    elements (NaN equal to NaN in the same place: a state derived with a NaN,
    such as the key velocity of a flat circ_in segment, equals its copy),
    dicts, tuples and lists item by item, anything else by ``==``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                and a.shape == b.shape and a.dtype == b.dtype
                and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")))
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(same_value(a[k], b[k]) for k in a))
    if isinstance(a, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same_value(x, y) for x, y in zip(a, b)))
    return bool(a == b)


class ByValue:
    """Mixin: pickle, copy and ``==`` from ``_state`` and ``_from_state``
    (see the module documentation)."""

    __slots__ = ()

    def _state(self) -> dict:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @classmethod
    def _from_state(cls, state: dict):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __reduce_ex__(self, protocol):
        return (_restore, (type(self), self._state()))

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return other is self or same_value(self._state(), other._state())

    __hash__ = None  # equal objects must hash alike: classes that can, define it


def _rebuild_error(*arguments):
    if len(arguments) != 3:
        raise ValueError(f"unpickling: an animcore error is restored from (class, args, "
                         f"attributes), got {len(arguments)} argument(s)")
    cls, args, attributes = arguments
    if not (isinstance(cls, type) and issubclass(cls, PicklableError)
            and issubclass(cls, BaseException)):
        raise ValueError(f"unpickling: {cls!r} is not an animcore exception class")
    if not isinstance(args, tuple) or not isinstance(attributes, dict) or not all(
            isinstance(k, str) for k in attributes):
        raise ValueError(f"{cls.__name__}: a pickled error needs a tuple of arguments and a "
                         f"dict of attributes, got {type(args).__name__} and "
                         f"{type(attributes).__name__}")
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(attributes)
    return error


class PicklableError:
    """Mixin for exceptions: pickles ``args`` (the message) and the instance
    attributes, and unpickles without calling ``__init__``.

    >>> class BadFile(PicklableError, ValueError):
    ...     def __init__(self, path, why):
    ...         super().__init__(f"{path}: {why}")
    ...         self.path = path
    """

    __slots__ = ()

    def __reduce__(self):
        return (_rebuild_error, (type(self), self.args, dict(self.__dict__)))
