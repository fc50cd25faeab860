"""Blender's automatic handle rules (BKE_fcurve_handles_recalc), run by the C
core: shared by :mod:`animcore.blender` (F-curves) and :mod:`animcore.curves`
(``tangents="auto_clamped"`` and the other Blender policies), below both."""
from __future__ import annotations

import numpy as np

from . import _core

_HANDLE_TYPES = ("FREE", "ALIGNED", "VECTOR", "AUTO", "AUTO_CLAMPED")
_HANDLE_CODES = {name: code for code, name in enumerate(_HANDLE_TYPES)}  # ac_handle_type
_CONT_ACCEL, _CYCLIC, _FLAT_FIRST, _FLAT_LAST = 1, 2, 4, 8  # animcore.h's AC_HANDLES_*
_FLOAT32, _MIN_LENGTH = 16, 32  # AC_HANDLES_FLOAT32, AC_HANDLES_MIN_LENGTH
_UNSELECTED = 16  # AC_HANDLE_UNSELECTED, or'ed into a left handle type


def _auto_handles(co, left, right, lt, rt, smoothing, cyclic, constant_ends,
                  func="curve_from_keyframes", *, float32=False, min_length=False,
                  left_selected=None):
    """Blender's handle recalculation (BKE_fcurve_handles_recalc), in C
    (ac_tangents_blender): left/right (K, 2) float64 are updated in place for
    auto and vector keys; lt, rt: each key's handle type names (or their
    codes, a uint8 array). cyclic: a Cycles modifier repeats both ways;
    constant_ends: flatten auto end keys, a bool or (first, last); float32:
    Blender's float32 arithmetic; min_length: Blender 5's 0.001-frame
    shortest handle; left_selected: K bools (None: all selected), which
    handle of two aligned ones moves."""
    if isinstance(constant_ends, bool):
        constant_ends = (constant_ends, constant_ends)
    flags = ((_CONT_ACCEL if smoothing != "NONE" else 0) | (_CYCLIC if cyclic else 0)
             | (_FLAT_FIRST if constant_ends[0] else 0) | (_FLAT_LAST if constant_ends[1] else 0)
             | (_FLOAT32 if float32 else 0) | (_MIN_LENGTH if min_length else 0))
    types = [np.array(side, np.uint8) if isinstance(side, np.ndarray)  # (codes already)
             else np.array([_HANDLE_CODES[t] for t in side], np.uint8) for side in (lt, rt)]
    if left_selected is not None:
        types[0] |= np.where(np.asarray(left_selected, bool), 0, _UNSELECTED).astype(np.uint8)
    left[:], right[:] = _core._tangents_blender(
        func, np.ascontiguousarray(co, np.float64), types[0], types[1],
        flags, np.ascontiguousarray(left, np.float64), np.ascontiguousarray(right, np.float64))
