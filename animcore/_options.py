"""Option names, derivative orders and key-time order, checked the same way in
every domain.

An option is one of a fixed set of names. Users bring the words of the tools
they know (``"constant"``, ``"loop"``, ``"pingpong"``, ``"ease-in-out"``), so
each option may accept aliases, compared without regard to case, hyphens,
spaces or underscores; the canonical name is what the objects store and show.
An unknown name is a ValueError with one ``func:`` prefix that suggests the
closest known names.

Key tracks (:class:`~animcore.Curve`, :class:`~animcore.RotationCurve` and the
keys of :class:`~animcore.LoopTrack`) share one vocabulary, the C core's one
track: :data:`INTERPOLATIONS`, :data:`EXTRAPOLATIONS` and :data:`SIDES` map
the names to the core's values, and each class accepts the subset that makes
sense for its values (documented per class; any other name of the set is a
ValueError saying which names apply). One rule gives the default
interpolation: the one the data a class usually comes from is stored with.
Rotation and root tracks come from glTF and BVH samplers, which store
"linear" (slerp for rotations), so :class:`RotationCurve` and
:class:`LoopTrack` default to "linear"; scalar curves are keyed by hand with
smooth tangents, so :class:`Curve` defaults to Blender's "bezier" with
"auto_clamped" tangents (a hand-keyed curve in Blender). Extrapolation
defaults to "clamp" (what glTF does outside the keys) and the side to
"right" everywhere.
"""
from __future__ import annotations

import difflib
import re
from typing import Iterable, Mapping, Optional

import numpy as np

__all__ = ["EXTRAPOLATIONS", "EXTRAPOLATION_ALIASES", "INTERPOLATIONS",
           "INTERPOLATION_ALIASES", "INTERPOLATION_HINTS", "SIDES", "TANGENT_ALIASES",
           "TANGENT_HINTS", "aliases_for", "check_fields", "check_sorted", "derivative_order",
           "did_you_mean", "extrapolation_option", "fold", "interpolation_option", "joint_side",
           "option", "side_option", "side_swaps", "suggest"]


def fold(text: str) -> str:
    """The comparison form of a name: lower case, without ``-``, ``_`` or spaces."""
    return "".join(ch for ch in text.lower() if ch not in "-_ ")


def suggest(value, names: Iterable[str], aliases: Optional[Mapping[str, str]] = None,
            count: int = 3) -> list[str]:
    """The names closest to ``value`` (difflib), aliases mapped to the names
    they stand for, best first; empty when nothing is close."""
    if not isinstance(value, str):
        return []
    names = list(names)
    words = {fold(n): n for n in names}
    for alias, target in (aliases or {}).items():
        words.setdefault(fold(alias), target)
    found: list[str] = []
    for word in difflib.get_close_matches(fold(value), list(words), n=2 * count, cutoff=0.6):
        if words[word] not in found:
            found.append(words[word])
    return found[:count]


def did_you_mean(names: list[str]) -> str:
    """``"; did you mean 'a' or 'b'?"``, or nothing for no names."""
    if not names:
        return ""
    quoted = [repr(n) for n in names]
    return "; did you mean " + (" or ".join(quoted) if len(quoted) < 3
                                else ", ".join(quoted[:-1]) + " or " + quoted[-1]) + "?"


def option(func: str, name: str, value, options: Iterable[str],
           aliases: Optional[Mapping[str, str]] = None,
           hints: Optional[Mapping[str, str]] = None) -> str:
    """The canonical option name for ``value``, or a ValueError.

    ``value`` matches a name of ``options`` or a key of ``aliases`` (which
    maps to a name) when both fold to the same text (see :func:`fold`).
    ``hints`` maps folded words that are too ambiguous to be aliases to a
    sentence shown in the error.
    """
    options = list(options)
    if isinstance(value, str):
        if value in options:  # the canonical spelling itself: nothing to fold
            return value
        key = fold(value)
        for n in options:
            if fold(n) == key:
                return n
        for alias, target in (aliases or {}).items():
            if fold(alias) == key:
                return target
    hint = (hints or {}).get(fold(value)) if isinstance(value, str) else None
    close = suggest(value, options, aliases)
    detail = f"; {hint}" if hint else did_you_mean(close)
    raise ValueError(f"{func}: {name} is {value!r} (must be one of "
                     f"{', '.join(repr(o) for o in options)}{detail})")


def derivative_order(func: str, value, orders: tuple[int, ...], what: str = "",
                     name: str = "derivative") -> int:
    """``value`` as an int derivative order from ``orders``, or a ValueError.

    Booleans are refused (``True`` is not an order); an integer order the
    function cannot give names the orders it can."""
    allowed = " or ".join([", ".join(map(str, orders[:-1])), str(orders[-1])] if len(orders) > 1
                          else [str(orders[0])])
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{func}: {name} is {value!r} (must be an integer order, "
                         f"{allowed})")
    if int(value) not in orders:
        raise ValueError(f"{func}: {name} is {int(value)} (must be {allowed}"
                         f"{': ' + what if what else ''})")
    return int(value)


def check_sorted(func: str, name: str, times: np.ndarray, equal: str = "",
                 values: str = "values") -> None:
    """A ValueError naming both times where the 1-D ``times`` decrease (or stay
    equal, unless ``equal`` is "allowed"), and saying how to sort the keys
    (``values`` names the argument that holds the key values)."""
    if not np.isfinite(times).all():
        return  # the constructor names the non-finite time
    later, earlier = times[1:], times[:-1]  # compared, not subtracted: no overflow
    bad = later < earlier if equal == "allowed" else ~(later > earlier)
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0]) + 1
    a, b = float(times[i - 1]), float(times[i])
    order = "increasing" if equal == "allowed" else "strictly increasing"
    relation = "equals" if a == b else "is less than"
    raise ValueError(f"{func}: {name} at index ({i},) is {b!r}, which {relation} "
                     f"{name}[{i - 1}] = {a!r}: key times must be sorted in {order} order "
                     f"(reorder every key array with order = np.argsort({name}, "
                     f"kind='stable'), e.g. {name}[order], {values}[order])")


# The words animation tools use for the same options (Maya, Blender, Unity,
# Houdini, glTF), each mapped to animcore's name. Words that could mean two
# things are hints instead.
INTERPOLATION_ALIASES = {
    "constant": "step", "stepped": "step", "hold": "step",
    "lerp": "linear",
    "hermite": "cubic", "spline": "cubic", "cubicspline": "cubic",
}
INTERPOLATION_HINTS = {
    "bezier": "did you mean 'cubic'? (Bezier handles are key velocities: give "
              "in_velocities and out_velocities)",
    "slerp": "did you mean 'linear'? (a RotationCurve slerps between keys)",
}
TANGENT_ALIASES = {
    "monotone": "pchip", "monotonic": "pchip", "zero": "flat",
    "catmull": "catmull_rom", "catmullrom": "catmull_rom", "uniform": "catmull_rom_uniform",
}
TANGENT_HINTS = {
    "auto": "did you mean 'catmull_rom' (smooth) or 'clamped' (smooth, never overshoots)?",
    "spline": "did you mean 'catmull_rom'?",
    "linear": "for straight segments use interpolation='linear'",
}
EXTRAPOLATION_ALIASES = {
    "constant": "clamp", "hold": "clamp", "clampforever": "clamp",
    "extend": "linear", "extrapolate": "linear",
    "loop": "cycle", "repeat": "cycle", "cycles": "cycle", "cyclic": "cycle", "wrap": "cycle",
    "cyclerelative": "cycle_offset", "repeatwithoffset": "cycle_offset",
    "repeatoffset": "cycle_offset", "loopoffset": "cycle_offset", "offset": "cycle_offset",
    "pingpong": "oscillate", "mirror": "oscillate", "reflect": "oscillate",
    "repeatmirrored": "oscillate", "bounce": "oscillate",
    "raise": "error",
}


def aliases_for(aliases: Mapping[str, str], options: Iterable[str]) -> dict[str, str]:
    """The entries of ``aliases`` that map to one of ``options``."""
    options = set(options)
    return {word: name for word, name in aliases.items() if name in options}


# The one vocabulary of key tracks, with the C core's values
# (ac_curve_interpolation, ac_curve_extrapolation, ac_curve_side).
INTERPOLATIONS = {"step": 0, "linear": 1, "cubic": 2}
EXTRAPOLATIONS = {"clamp": 0, "linear": 1, "cycle": 2, "cycle_offset": 3, "oscillate": 4,
                  "error": 5, "sloped": 6}
SIDES = {"right": 0, "left": 1}


def _track_option(func: str, name: str, value, table: Mapping[str, int], applies,
                  aliases: Mapping[str, str], hints: Optional[Mapping[str, str]], what: str):
    applies = list(applies)
    if isinstance(value, str) and value in applies:  # (before building the aliases)
        return value
    try:
        return option(func, name, value, applies, aliases_for(aliases, applies), hints)
    except ValueError:
        try:  # a name of the shared set that this kind of track has no use for
            known = option(func, name, value, table, aliases_for(aliases, table))
        except ValueError:
            known = None
        if known is None:
            raise
        raise ValueError(f"{func}: {name} is {value!r} (must be one of "
                         f"{', '.join(repr(o) for o in applies)}: {known!r} does not apply "
                         f"to {what})") from None


def interpolation_option(func: str, value, applies: Iterable[str] = tuple(INTERPOLATIONS),
                         what: str = "this track",
                         aliases: Optional[Mapping[str, str]] = None,
                         hints: Optional[Mapping[str, str]] = None) -> str:
    """The canonical interpolation name for ``value`` among ``applies`` (a
    subset of :data:`INTERPOLATIONS`), accepting the tools' words
    (:data:`INTERPOLATION_ALIASES` unless ``aliases`` is given)."""
    return _track_option(func, "interpolation", value, INTERPOLATIONS, applies,
                         INTERPOLATION_ALIASES if aliases is None else aliases,
                         INTERPOLATION_HINTS if hints is None else hints, what)


def extrapolation_option(func: str, name: str, value,
                         applies: Iterable[str] = tuple(EXTRAPOLATIONS),
                         what: str = "this track") -> str:
    """The canonical extrapolation name for ``value`` (argument ``name``,
    "before" or "after") among ``applies``, a subset of :data:`EXTRAPOLATIONS`."""
    return _track_option(func, name, value, EXTRAPOLATIONS, applies, EXTRAPOLATION_ALIASES,
                         None, what)


def side_option(func: str, value) -> int:
    """The core's value of a side name, "right" or "left"."""
    return SIDES[option(func, "side", value, SIDES)]


def check_fields(func: str, data, kind: str, required: Iterable[str],
                 optional: Iterable[str] = ()) -> None:
    """Checks a ``to_dict()`` mapping for ``from_dict``: a dict whose "type" is
    ``kind``, with every required field and no unknown one (an unknown field
    would have no effect)."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{func}: data must be a dict (from to_dict() or JSON), got "
                         f"{type(data).__name__}")
    if data.get("type") != kind:
        raise ValueError(f"{func}: data describes {data.get('type')!r}, not {kind!r}")
    required, known = list(required), set(required) | set(optional) | {"type"}
    missing = [f for f in required if f not in data]
    if missing:
        raise ValueError(f"{func}: data lacks {', '.join(map(repr, missing))}")
    unknown = [f for f in data if f not in known]
    if unknown:
        hints = "".join(did_you_mean(suggest(f, known)) for f in unknown[:1])
        raise ValueError(f"{func}: data has unknown field {unknown[0]!r}{hints}")


# -- left and right in joint names: one rule for mirror's pairs and the rig drawings' colours

_SIDE_WORDS = (("Left", "Right"), ("left", "right"), ("LEFT", "RIGHT"))
_SIDE_WORD = re.compile("|".join(w for pair in _SIDE_WORDS for w in pair))
# a side letter (group 1): an L_/R_ prefix, a .L/.R or _l/_r suffix, a leading L/R before a capital
_SIDE_LETTERS = (re.compile(r"^([LlRr])_"), re.compile(r"[._]([LlRr])$"),
                 re.compile(r"^([LR])(?=[A-Z])"),
                 re.compile(r"[._]([LlRr])[._]"))  # leg_joint_L_1, thigh.L.001
_OTHER_LETTER = {"L": "R", "R": "L", "l": "r", "r": "l"}


def joint_side(name: str) -> Optional[str]:
    """"left", "right" or None (the middle line) from a joint's name, by the
    patterns :func:`side_swaps` swaps (the first Left/Right word, else a letter)."""
    word = _SIDE_WORD.search(name)
    if word:
        return "left" if word.group()[0] in "Ll" else "right"
    for pattern in _SIDE_LETTERS:
        found = pattern.search(name)
        if found:
            return "left" if found.group(1) in "Ll" else "right"
    return None


def side_swaps(name: str) -> list:
    """The names of the other side that ``name`` may pair with, most likely
    first: Left/Right words swapped (each casing), then a side letter swapped."""
    out = []
    for a, b in _SIDE_WORDS:
        for x, y in ((a, b), (b, a)):
            if x in name:
                out.append(name.replace(x, y))
    for pattern in _SIDE_LETTERS:
        found = pattern.search(name)
        if found:
            out.append(name[:found.start(1)] + _OTHER_LETTER[found.group(1)] +
                       name[found.end(1):])
    return out
