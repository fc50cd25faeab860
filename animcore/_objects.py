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

import numpy as np

__all__ = ["ByValue", "PicklableError", "same_value"]


def _restore(cls, state):
    """Unpickling and copying entry point: ``cls._from_state(state)``."""
    return cls._from_state(state)


def same_value(a, b) -> bool:
    """True when a and b are equal values: arrays by shape, dtype and
    elements, dicts, tuples and lists item by item, anything else by ``==``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                and a.shape == b.shape and a.dtype == b.dtype
                and bool(np.array_equal(a, b)))
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


def _rebuild_error(cls, args, attributes):
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
