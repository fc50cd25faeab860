"""Option names, derivative orders and key-time order, checked the same way in
every domain.

An option is one of a fixed set of names. Users bring the words of the tools
they know (``"constant"``, ``"loop"``, ``"pingpong"``, ``"ease-in-out"``), so
each option may accept aliases, compared without regard to case, hyphens,
spaces or underscores; the canonical name is what the objects store and show.
An unknown name is a ValueError with one ``func:`` prefix that suggests the
closest known names.
"""
from __future__ import annotations

import difflib
from typing import Iterable, Mapping, Optional

import numpy as np

__all__ = ["check_sorted", "derivative_order", "fold", "option", "suggest"]


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


def derivative_order(func: str, value, orders: tuple[int, ...], what: str = "") -> int:
    """``value`` as an int derivative order from ``orders``, or a ValueError.

    Booleans are refused (``True`` is not an order); an integer order the
    function cannot give names the orders it can."""
    allowed = " or ".join(str(o) for o in orders)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{func}: derivative is {value!r} (must be an integer order, "
                         f"{allowed})")
    if int(value) not in orders:
        raise ValueError(f"{func}: derivative is {int(value)} (must be {allowed}"
                         f"{': ' + what if what else ''})")
    return int(value)


def check_sorted(func: str, name: str, times: np.ndarray, equal: str = "") -> None:
    """A ValueError naming both times where the 1-D ``times`` decrease (or stay
    equal, unless ``equal`` is "allowed"), and saying how to sort the keys."""
    if not np.isfinite(times).all():
        return  # the constructor names the non-finite time
    steps = np.diff(times)
    bad = steps < 0 if equal == "allowed" else ~(steps > 0)
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0]) + 1
    a, b = float(times[i - 1]), float(times[i])
    order = "increasing" if equal == "allowed" else "strictly increasing"
    relation = "equals" if a == b else "is less than"
    raise ValueError(f"{func}: {name} at index ({i},) is {b!r}, which {relation} "
                     f"{name}[{i - 1}] = {a!r}: key times must be sorted in {order} order "
                     f"(reorder every key array with order = np.argsort({name}, "
                     f"kind='stable'), e.g. {name}[order], values[order])")
