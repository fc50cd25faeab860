"""Argument checks and error messages shared by the public functions.

Declared kernels take any array-like and broadcast in the binding; this module
names the function and argument when a value cannot be read as real numbers or
integers (ragged lists, huge integers, non-numbers), checks options and counts,
and prepares the operands of the few entry points that still take C-contiguous
float64 arrays.
"""
from __future__ import annotations

import math
import numbers
import operator
import warnings

import numpy as np

# NumPy before 1.24 makes an object array of a ragged nested list, with this
# warning, where later versions raise a ValueError
_RAGGED_WARNING = (np.VisibleDeprecationWarning
                   if np.lib.NumpyVersion(np.__version__) < "1.24.0" else None)


def index_text(shape: tuple[int, ...], flat: int) -> str:
    """" at index (i, j)" for element `flat` of an array of `shape`, or "" for
    a scalar: the form every error message uses."""
    if not shape:
        return ""
    return f" at index {tuple(int(i) for i in np.unravel_index(flat, shape))}"


def check_finite(func: str, name: str, array: np.ndarray) -> None:
    """The one finiteness check of the Python layer: a ValueError naming the
    first non-finite element of ``array`` by its index ("func: t at index (3,)
    is nan (must be finite)")."""
    if np.isfinite(array).all():
        return
    flat = np.ravel(array)
    first = int(np.flatnonzero(~np.isfinite(flat))[0])
    raise ValueError(f"{func}: {name}{index_text(np.shape(array), first)} is "
                     f"{float(flat[first])!r} (must be finite)")


def _huge_integer(func: str, name: str, array: np.ndarray):
    """The OverflowError for an object array holding an integer beyond float64."""
    for flat, item in enumerate(array.reshape(-1)):
        if isinstance(item, int):
            try:
                float(item)
            except OverflowError:
                digits = len(str(abs(item)))
                return OverflowError(
                    f"{func}: {name}{index_text(array.shape, flat)} is an integer of "
                    f"{digits} digits (must be representable as float64, "
                    f"|value| <= {np.finfo(np.float64).max:.6g})")
    return None


def as_float64(func: str, name: str, value) -> np.ndarray:
    """`value` as an aligned, native float64 array, or an error naming the
    function and argument: ValueError for a ragged nested list or a value that
    is not a real number, OverflowError for an integer beyond float64. Python
    integers beyond int64 (``2**70``) are converted to the nearest float64.
    (Aligned here, so that any later contiguous copy or view is aligned too: a
    view into a byte buffer may not be.)"""
    try:
        if _RAGGED_WARNING is not None and isinstance(value, (list, tuple)):
            with warnings.catch_warnings():
                warnings.simplefilter("error", _RAGGED_WARNING)
                array = np.asarray(value)
        else:
            array = np.asarray(value)
    except (ValueError, _RAGGED_WARNING or ValueError):
        raise ValueError(f"{func}: {name} is a ragged nested sequence (its rows have "
                         f"different lengths); expected a rectangular array of real "
                         f"numbers") from None
    if array.dtype.kind == "O":
        for flat, item in enumerate(array.reshape(-1)):
            if not isinstance(item, numbers.Real):
                raise ValueError(f"{func}: {name} must be real numbers, got {item!r}"
                                 f"{index_text(array.shape, flat)} (an array of dtype "
                                 f"object)")
        try:
            array = array.astype(np.float64)
        except OverflowError:
            raise _huge_integer(func, name, array) or OverflowError(
                f"{func}: {name} holds a value too large for float64") from None
        except (TypeError, ValueError):
            raise ValueError(f"{func}: {name} must be real numbers, got an array of dtype "
                             f"object") from None
    if array.dtype.kind not in "biuf":
        raise ValueError(
            f"{func}: {name} must be real numbers, got an array of dtype {array.dtype}"
        )
    array = array.astype(np.float64, copy=False)
    return array if array.flags.aligned and array.dtype.isnative else array.astype(
        np.float64, order="C")


def _integral_text(value) -> str:
    """A float shown as an integer when it holds one (2**63, not 9.2e18)."""
    value = float(value)
    return str(int(value)) if math.isfinite(value) and value == math.floor(value) \
        else repr(value)


def as_int64(func: str, name: str, value) -> np.ndarray:
    """`value` as an int64 array, or a ValueError naming the function and
    argument: floats must hold integral values, every value must fit in int64.
    The binding reads integer arrays in place and sends anything else here."""
    array = np.asarray(value)
    kind = array.dtype.kind
    if kind in "bi":
        return array.astype(np.int64, copy=False)
    if kind == "u":
        big = array > np.iinfo(np.int64).max
        if big.any():
            flat = int(np.argmax(big.reshape(-1)))
            raise ValueError(f"{func}: {name}{index_text(array.shape, flat)} is "
                             f"{array.reshape(-1)[flat]} (must fit in int64)")
        return array.astype(np.int64)
    if kind == "O":  # Python ints beyond int64, or numbers mixed with other objects
        items, integers = array.reshape(-1), True
        for flat, item in enumerate(items):
            if isinstance(item, (int, np.integer)):
                if not -2**63 <= int(item) < 2**63:
                    raise ValueError(f"{func}: {name}{index_text(array.shape, flat)} is {item} "
                                     f"(must fit in int64)")
            elif isinstance(item, (float, np.floating)):
                integers = False
            else:
                raise ValueError(f"{func}: {name}{index_text(array.shape, flat)} is {item!r} "
                                 f"(must be an integer)")
        if integers:
            return np.array(items.tolist(), dtype=np.int64).reshape(array.shape)
        array, kind = array.astype(np.float64), "f"
    if kind == "f":
        array = array.astype(np.float64, copy=False)  # float16 cannot hold 2**63
        with np.errstate(invalid="ignore"):
            bad = ~(np.isfinite(array) & (array == np.floor(array)))
            big = np.abs(array) >= 2.0**63
        for flags, detail in ((bad, "must be an integer"), (big, "must fit in int64")):
            if flags.any():
                flat = int(np.argmax(flags.reshape(-1)))
                raise ValueError(f"{func}: {name}{index_text(array.shape, flat)} is "
                                 f"{_integral_text(array.reshape(-1)[flat])} ({detail})")
        return array.astype(np.int64)
    raise ValueError(f"{func}: {name} must be integers, got an array of dtype {array.dtype}")


def broadcast_named(func: str, shapes: dict, what: str = "") -> tuple:
    """The broadcast of the named shapes, or a ValueError that lists them
    (``what`` says what they are the shapes of, e.g. "the leading axes of ")."""
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(f"{func}: cannot broadcast {what}{listed} together") from None


def shapes(func: str, **values) -> dict:
    """The shapes of the named inputs, without converting them (a ragged
    input gets its named error here; the binding names any other bad input)."""
    found = {}
    for name, value in values.items():
        try:
            found[name] = np.shape(value)
        except ValueError:
            as_float64(func, name, value)  # raises the named error
            raise
    return found


def real_number(func: str, name: str, value) -> float:
    """`value` as a Python float, or an error naming the function and argument
    (OverflowError for an integer beyond float64, ValueError otherwise)."""
    if (isinstance(value, np.ndarray) and value.ndim) or isinstance(value, np.complexfloating):
        # (NumPy < 2 converts size-1 arrays; float() of a NumPy complex drops
        # its imaginary part with a mere warning)
        raise ValueError(f"{func}: {name} must be a real number, got {value!r}")
    try:
        return float(value)
    except OverflowError:
        digits = len(str(abs(int(value)))) if isinstance(value, int) else None
        what = f"an integer of {digits} digits" if digits else repr(value)
        raise OverflowError(f"{func}: {name} is {what} (must be representable as float64, "
                            f"|value| <= {np.finfo(np.float64).max:.6g})") from None
    except (TypeError, ValueError):
        raise ValueError(f"{func}: {name} must be a real number, got {value!r}") from None


def flag(func: str, name: str, value) -> bool:
    """`value` as a bool (True, False or NumPy's bools), or a ValueError naming
    the function and argument (an array or a number is no flag)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{func}: {name} is {value!r} (must be True or False)")
    return bool(value)


def positive_number(func: str, name: str, value) -> float:
    """`value` as a finite Python float > 0, or an error naming the function and
    argument ("func: tolerance is 0.0 (must be a finite number > 0)")."""
    number = real_number(func, name, value)
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"{func}: {name} is {number!r} (must be a finite number > 0)")
    return number


def integer(func: str, name: str, value, low: int, high: int | None = None) -> int:
    """`value` as a Python int in [low, high], or a ValueError naming the
    function and argument (any size of integer is reported, not overflowed)."""
    try:
        number = operator.index(value)
    except TypeError:
        raise ValueError(f"{func}: {name} must be an integer, got {value!r}") from None
    if number < low:
        raise ValueError(f"{func}: {name} is {number} (must be >= {low})")
    if high is not None and number > high:
        raise ValueError(f"{func}: {name} is {number} (must be <= {high})")
    return number


def choice(func: str, name: str, value, options):
    """`value` when it is one of the string `options`, else a ValueError listing them."""
    if isinstance(value, str) and value in options:
        return value
    raise ValueError(f"{func}: {name} is {value!r} (must be one of "
                     f"{', '.join(repr(o) for o in options)})")


def contiguous(array: np.ndarray) -> np.ndarray:
    """An array as the compiled layer takes it, C-contiguous and aligned (a view
    into a byte buffer may be neither), of the same shape (np.ascontiguousarray
    would turn 0-d into 1-d); copied only if needed."""
    flags = array.flags
    if flags.c_contiguous and flags.aligned:
        return array
    return array.copy(order="C")


def frozen_copy(array, dtype=np.float64, *, sealed: bool = False) -> np.ndarray:
    """A read-only C-contiguous copy of ``array`` as ``dtype``. ``sealed``: one
    that cannot be made writeable again, its memory an immutable bytes
    object's (an array that owns its memory can have its flag set back), for
    arrays a C object reads in place."""
    copy = np.array(array, dtype=dtype, order="C")
    if sealed:
        return np.frombuffer(copy.tobytes(), dtype=dtype).reshape(copy.shape)
    copy.flags.writeable = False
    return copy


def check_out(func: str, out, count: int, shape) -> tuple:
    """Validates `out`: `count` arrays (one array when count is 1) of the
    result shape (or of one shape each, given a list of shapes) that float64
    can be written into."""
    arrays = (out,) if count == 1 and isinstance(out, np.ndarray) else out
    if not isinstance(arrays, tuple) or len(arrays) != count:
        raise ValueError(f"{func}: out must be a tuple of {count} arrays")
    shapes = shape if isinstance(shape, list) else [shape] * count
    for i, (a, shape) in enumerate(zip(arrays, shapes)):
        if not isinstance(a, np.ndarray):
            raise ValueError(f"{func}: out[{i}] must be a numpy array, got {type(a).__name__}")
        if a.shape != shape:
            raise ValueError(f"{func}: out[{i}] has shape {a.shape}, expected {shape}")
        if not np.can_cast(np.float64, a.dtype, casting="same_kind"):
            raise ValueError(f"{func}: out[{i}] has dtype {a.dtype}, expected a float dtype")
        if not a.flags.writeable:
            raise ValueError(f"{func}: out[{i}] is read-only")
    return arrays


def results(computed: tuple[np.ndarray, ...], out) -> tuple:
    """Final results of a kernel that computed into fresh arrays.

    Kernels write into scratch so that an error leaves a user's `out` exactly
    as it was; on success the values are copied into `out`, which is returned.
    Without `out`, 0-d results become NumPy scalars, as NumPy ufuncs do."""
    if out is None:
        return tuple(r[()] if r.ndim == 0 else r for r in computed)
    for target, r in zip(out, computed):
        np.copyto(target, r, casting="same_kind")
    return tuple(out)


def stretch_factor(func: str, factor, keep: str) -> float:
    """The checked arguments of a ``stretched`` method: ``factor`` as a finite
    float > 0, and ``keep`` one of "velocity" and "shape"."""
    factor = positive_number(func, "factor", factor)
    choice(func, "keep", keep, ("velocity", "shape"))
    return factor
