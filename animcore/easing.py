"""Easing: remapping normalized time u in [0, 1] to eased time s = ease(u).

An easing changes *when* each pose of a segment is reached, never *which*
poses are reached: a curve sampled at ``s`` instead of ``u`` passes through the
same set of values, and its clip-time rate is ``ds/du`` (the chain rule gives
velocities). smoothstep's rate ``6u(1-u)`` is 1.125 / 1.5 / 1.125 at
u = 0.25 / 0.5 / 0.75, and 0 at both ends: applied per segment it brakes at
every key.

An easing is given either by a name or by an :class:`Easing` object
(:class:`Ease`, :class:`CubicBezier`, :class:`Steps`); the two are
interchangeable wherever an easing is accepted, and :func:`as_easing` turns
either into an object. Names are the kind names (see :func:`easing_kinds`),
Penner's spellings of them (``"easeInOutCubic"``), and the CSS keywords
``"ease"``, ``"ease-in"``, ``"ease-out"``, ``"ease-in-out"`` (the
``cubic-bezier()`` curves of CSS Easing Level 1, exactly), ``"linear"``,
``"step-start"`` and ``"step-end"``. Every easing object is callable as
``easing(u, derivative=0, out=None)`` and has ``inverse(s)`` when it is
monotone. ``derivative`` is an integer order: 0 (the value) or 1 (the rate);
easings give no higher order.

The named kinds follow Robert Penner's original equations (b = 0, c = 1,
d = 1): quad, cubic, quart, quint, sine, expo, circ, back (s = 1.70158, in_out
s * 1.525), elastic (amplitude 1, period 0.3, in_out 0.45) and bounce, each as
``<family>_in``, ``<family>_out`` and ``<family>_in_out``, plus linear,
smoothstep ``u^2 (3 - 2u)`` and smootherstep ``u^3 (6u^2 - 15u + 10)``.
Every kind is exactly 0 at u = 0 and 1 at u = 1. Endpoint adjustments: as in
Penner's code, expo and elastic are set to those values at the ends (expo_in's
formula gives 2^-10 at 0, so it jumps there); sine_in, back and bounce are
pinned to them too, since their formulas can round off there by an ulp or two.
Rates are analytic. At u = 0 and u = 1 every rate (of every kind and of
every CubicBezier) is the one-sided limit of the rate from inside [0, 1]:
at a jump, the rate of the formula beside it; where both of a CubicBezier's
speeds vanish, the ratio of its second derivatives. circ's vertical tangents
(circ_in at 1, circ_out at 0, circ_in_out at 0.5) give a rate of +inf.
"""
from __future__ import annotations

import html

import numpy as np

from . import _core
from ._arrays import as_float64, real_number
from ._objects import ByValue
from ._options import check_fields, derivative_order, did_you_mean, fold, option, suggest

__all__ = [
    "EASING_KINDS",
    "CubicBezier",
    "Ease",
    "Easing",
    "Steps",
    "as_easing",
    "ease",
    "ease_inverse",
    "easing_kinds",
]

_KINDS = _core._ease_kinds()
_INDEX = {name: i for i, (name, _) in enumerate(_KINDS)}
_MONOTONE = dict(_KINDS)

#: Every easing kind name, in a fixed order.
EASING_KINDS: tuple[str, ...] = tuple(name for name, _ in _KINDS)


def easing_kinds(monotone: bool | None = None) -> tuple[str, ...]:
    """The easing kind names accepted by :func:`ease`.

    Parameters
    ----------
    monotone : bool, optional
        True: only the kinds that never decrease (those :func:`ease_inverse`
        accepts); False: only the others (back, elastic, bounce).

    >>> easing_kinds()[:4]
    ('linear', 'smoothstep', 'smootherstep', 'quad_in')
    >>> 'bounce_out' in easing_kinds(monotone=True)
    False
    """
    if monotone is None:
        return EASING_KINDS
    return tuple(name for name in EASING_KINDS if _MONOTONE[name] == bool(monotone))


class Easing:
    """Base of the easing objects: a map of normalized time u in [0, 1] to s.

    Subclasses implement ``_evaluate(func, u, derivative, out)`` and, when
    monotone, ``_inverse(func, s, out)``; ``func`` is the public name used in
    error messages. Everything that accepts an easing accepts an instance of
    a subclass or a kind name.
    """

    __slots__ = ()

    #: True when the easing never decreases, so :meth:`inverse` exists.
    monotone: bool = False

    def _repr_html_(self) -> str:
        """The repr above a small graph of the easing on [0, 1]."""
        from ._display import svg_graph
        u = np.linspace(0.0, 1.0, 49)
        return f"<pre>{html.escape(repr(self))}</pre>" + svg_graph(u, self(u))

    def __call__(self, u, *, derivative: int = 0, out=None) -> np.ndarray:
        """s = ease(u) (``derivative=0``), or ds/du (``derivative=1``); u in
        [0, 1], any shape."""
        func = type(self).__name__
        return self._evaluate(func, u, _order(func, derivative), out)

    def ease(self, u, *, derivative: int = 0, out=None) -> np.ndarray:
        """Same as calling the easing."""
        func = f"{type(self).__name__}.ease"
        return self._evaluate(func, u, _order(func, derivative), out)

    def inverse(self, s, *, out=None) -> np.ndarray:
        """The normalized time u in [0, 1] at which the easing reaches s in [0, 1]."""
        return self._inverse(f"{type(self).__name__}.inverse", s, out)

    def _evaluate(self, func, u, derivative: int, out):  # pragma: no cover - abstract
        raise NotImplementedError

    def _inverse(self, func, s, out):
        raise ValueError(f"{func}: {self!r} is not monotone, so it has no inverse")


_PENNER_OVERSHOOT = 1.70158
_VARIANTS = {"penner": 0, "blender": 1}


_curve_class: list = []  # [animcore.curves.Curve], set when curves is imported

class Ease(ByValue, Easing):
    """A named easing kind as an object, e.g. ``Ease("cubic_in_out")``.

    Parameters
    ----------
    kind : str
        One of :func:`easing_kinds`.
    overshoot : float, optional
        back only: Penner's s (default 1.70158, about 10% overshoot; the
        in_out kind uses 1.525 s as Penner does).
    amplitude, period : float, optional
        elastic only, with Penner's meaning on the normalized easing:
        amplitude in units of the change (default 1; below 1 it is raised to
        1 and the phase set to a quarter period, as Penner does) and period
        in units of the duration (default 0.3, 0.45 for in_out).
    variant : {"penner", "blender"}
        Blender's variants: expo rescaled by ``1 / (1 - 2^-10)`` so that it
        starts at exactly 0 (``(2^(10 (u - 1)) - 2^-10) / (1 - 2^-10)``), and
        elastic with an amplitude below 1 damped to that amplitude and blended
        back to full strength within a quarter period of the key, and with an
        amplitude above 1 its decaying oscillation (out, second half of in_out)
        running as ``sin(-w u - phase)`` where Penner has ``sin(w u - phase)``.
        Other kinds are the same in both.

    An easing with non-default parameters is evaluated by the keyframe
    curve core (the same code as an eased segment ``v0 + ease(u) (v1 -
    v0)``); the defaults use the easing kernels.

    >>> Ease("smoothstep")([0.25, 0.5], derivative=1)
    array([1.125, 1.5  ])
    >>> float(Ease("quad_in").inverse(0.25))
    0.5
    >>> round(float(Ease("back_in", overshoot=3.0)(0.5)), 6)
    -0.25
    """

    __slots__ = ("_kind", "_params", "_curve")

    def __init__(self, kind: str, *, overshoot=None, amplitude=None, period=None,
                 variant: str = "penner"):
        self._kind = _kind_index("Ease", kind)
        name = EASING_KINDS[self._kind]
        if not isinstance(variant, str) or variant not in _VARIANTS:
            raise ValueError(f"Ease: variant is {variant!r} (must be one of "
                             f"{', '.join(repr(v) for v in _VARIANTS)})")
        for arg, value, family in (("overshoot", overshoot, "back"),
                                   ("amplitude", amplitude, "elastic"),
                                   ("period", period, "elastic")):
            if value is not None and not name.startswith(family):
                raise ValueError(f"Ease: {arg} applies to the {family} kinds, not {name!r}")
        o = _PENNER_OVERSHOOT if overshoot is None else real_number("Ease", "overshoot",
                                                                     overshoot)
        a = 0.0 if amplitude is None else real_number("Ease", "amplitude", amplitude)
        p = 0.0 if period is None else real_number("Ease", "period", period)
        if not (np.isfinite(a) and a >= 0):
            raise ValueError(f"Ease: amplitude is {a!r} (must be finite and >= 0)")
        if period is not None and not (np.isfinite(p) and p > 0):
            raise ValueError(f"Ease: period is {p!r} (must be a finite number > 0)")
        if not np.isfinite(o):
            raise ValueError(f"Ease: overshoot is {o!r} (must be finite)")
        # (overshoot, amplitude, period, flags); 2 = amplitude and period relative
        self._params = (o, a, p, _VARIANTS[variant] | 2)
        self._curve = None
        if self._params != (_PENNER_OVERSHOOT, 0.0, 0.0, 2) and not (
                variant == "blender" and not name.startswith(("expo", "elastic"))
                and overshoot is None):
            # the curve core evaluates parameterized easings (Curve, which
            # animcore.curves registers here: curves builds on this module)
            self._curve = _curve_class[0]([0.0, 1.0], [0.0, 1.0], interpolation=self)

    @property
    def name(self) -> str:
        """The kind name."""
        return EASING_KINDS[self._kind]

    @property
    def monotone(self) -> bool:  # type: ignore[override]
        """True when the kind never decreases over [0, 1] (the back and
        elastic kinds overshoot; see :func:`easing_kinds`)."""
        return _MONOTONE[self.name]

    def _evaluate(self, func, u, derivative, out):
        kind, rate = self._kind, int(derivative)
        if self._curve is not None:
            return self._eval_curve(func, u, rate, out)
        return (_core._ease_rate if rate else _core._ease_value)(func, kind, u, out, None)

    def _inverse(self, func, s, out):
        if not self.monotone:
            raise ValueError(f"{func}: kind {self.name!r} is not monotone (it overshoots or "
                             f"bounces), so it has no inverse; monotone kinds: "
                             f"{', '.join(easing_kinds(monotone=True))}")
        kind = self._kind
        return _core._ease_inverse(func, kind, s, out, None)

    def _eval_curve(self, func, u, rate, out):
        u = as_float64(func, "u", u)
        bad = ~((u >= 0) & (u <= 1))
        if bad.any():
            i = np.unravel_index(int(np.flatnonzero(bad)[0]), u.shape)
            where = f" at index {tuple(int(x) for x in i)}" if u.ndim else ""
            raise ValueError(f"{func}: u{where} is {float(u[i])!r} (must lie in [0, 1])")
        return self._curve._evaluate(func, u, (int(rate),), out)[0]  # (errors name func)

    _fields = (("kind", "overshoot", "amplitude", "period", "variant"), ())

    def _state(self) -> dict:
        o, a, p, flags = self._params
        return {"kind": self.name, "overshoot": o if o != _PENNER_OVERSHOOT else None,
                "amplitude": a or None, "period": p or None,
                "variant": "blender" if flags & 1 else "penner"}

    @classmethod
    def _from_state(cls, state: dict) -> "Ease":
        return cls(state["kind"], overshoot=state["overshoot"], amplitude=state["amplitude"],
                   period=state["period"], variant=state["variant"])

    def __eq__(self, other):
        return (isinstance(other, Ease) and other._kind == self._kind
                and other._params == self._params)

    def __hash__(self):
        return hash(("Ease", self._kind, self._params))

    def __repr__(self):
        o, a, p, flags = self._params
        extra = "".join([f", overshoot={o!r}" if o != _PENNER_OVERSHOOT else "",
                         f", amplitude={a!r}" if a else "", f", period={p!r}" if p else "",
                         ", variant='blender'" if flags & 1 else ""])
        return f"Ease({self.name!r}{extra})"


def _order(func: str, derivative) -> int:
    return derivative_order(func, derivative, (0, 1), "an easing gives its value and rate only")


_FAMILIES = ("quad", "cubic", "quart", "quint", "sine", "expo", "circ", "back", "elastic",
             "bounce")
_FOLDED = {fold(name): name for name in EASING_KINDS}


def _penner_name(kind: str):
    """The kind a Penner / easings.net spelling stands for ("easeInOutCubic",
    "InQuad", "ease_out_sine"), else None."""
    words = "".join("_" + ch.lower() if ch.isupper() else ch for ch in kind)
    tokens = [w for w in words.replace("-", "_").replace(" ", "_").split("_")
              if w and w != "ease"]
    family = [w for w in tokens if w in _FAMILIES]
    direction = "_".join(w for w in tokens if w in ("in", "out", "inout"))
    direction = {"in_out": "in_out", "inout": "in_out", "in": "in", "out": "out"}.get(direction)
    if len(family) == 1 and direction and len(tokens) == 1 + direction.count("_") + 1:
        return f"{family[0]}_{direction}"
    return None


def _kind_name(func: str, kind, css: bool = False):
    """The kind name ``kind`` spells (case, hyphens and underscores aside, or
    in Penner's spelling), else a ValueError with the closest names. With
    ``css``, the CSS keywords are accepted too and returned as easing objects."""
    if isinstance(kind, str):
        if fold(kind) in _FOLDED:
            return _FOLDED[fold(kind)]
        if css and fold(kind) in _CSS:
            return _CSS[fold(kind)]()
        penner = _penner_name(kind)
        if penner is not None:
            return penner
    css_names = [n for n in CubicBezier.KEYWORDS if n != "linear"] + ["step-start", "step-end"]
    close = suggest(kind, list(EASING_KINDS) + (css_names if css else []))
    if not css and isinstance(kind, str) and fold(kind) in _CSS:
        close = []
    where = ("are accepted too" if css else
             "are easings too, through as_easing(name) or CubicBezier.keyword(name)")
    raise ValueError(f"{func}: unknown easing kind {kind!r}{did_you_mean(close)} "
                     f"(easing_kinds() lists the {len(EASING_KINDS)} kinds; the CSS keywords "
                     f"{', '.join(map(repr, css_names))} {where})")


def _kind_index(func: str, kind) -> int:
    return _INDEX[_kind_name(func, kind)]


class CubicBezier(ByValue, Easing):
    """The CSS ``cubic-bezier(x1, y1, x2, y2)`` timing function.

    The Bezier curve from (0, 0) to (1, 1) with control points (x1, y1) and
    (x2, y2), read as s = y at x = u. ``x1`` and ``x2`` must lie in [0, 1] so
    that time runs forward; ``y1`` and ``y2`` are free (outside [0, 1] the
    easing overshoots). For each u the curve parameter is solved to
    ``|x(t) - u| <= 1e-12`` (Newton's method with a bisection fallback), in
    C. The rate ds/du is dy/dt / dx/dt (+-inf where x stalls and y does not).

    The CSS keywords are available as ``CubicBezier.keyword("ease")``
    (also "ease-in", "ease-out", "ease-in-out", "linear").

    >>> ease_css = CubicBezier(0.25, 0.1, 0.25, 1.0)
    >>> round(float(ease_css(0.5)), 9)
    0.802403388
    >>> CubicBezier.keyword("ease-in-out")
    CubicBezier(0.42, 0.0, 0.58, 1.0)
    """

    __slots__ = ("_points",)

    KEYWORDS = {
        "linear": (0.0, 0.0, 1.0, 1.0),
        "ease": (0.25, 0.1, 0.25, 1.0),
        "ease-in": (0.42, 0.0, 1.0, 1.0),
        "ease-out": (0.0, 0.0, 0.58, 1.0),
        "ease-in-out": (0.42, 0.0, 0.58, 1.0),
    }

    def __init__(self, x1: float, y1: float, x2: float, y2: float):
        points = tuple(real_number("CubicBezier", name, v)
                       for name, v in zip(("x1", "y1", "x2", "y2"), (x1, y1, x2, y2)))
        _core._bezier_eval("CubicBezier", *points, None)  # validates, raises on bad input
        self._points = points

    @classmethod
    def keyword(cls, name: str) -> "CubicBezier":
        """The CSS keyword easing ``name``: linear, ease, ease-in, ease-out, ease-in-out."""
        return cls(*cls.KEYWORDS[option("CubicBezier.keyword", "name", name, cls.KEYWORDS)])

    x1 = property(lambda self: self._points[0], doc="First control point, x (time).")
    y1 = property(lambda self: self._points[1], doc="First control point, y (value).")
    x2 = property(lambda self: self._points[2], doc="Second control point, x (time).")
    y2 = property(lambda self: self._points[3], doc="Second control point, y (value).")

    @property
    def monotone(self) -> bool:  # type: ignore[override]
        """True when y1 and y2 lie in [0, 1]: then s never decreases."""
        return 0.0 <= self._points[1] <= 1.0 and 0.0 <= self._points[3] <= 1.0

    def _evaluate(self, func, u, derivative, out):
        points = self._points
        if derivative == 1:  # the kernel solves once and writes s (discarded) and ds/du
            return _core._bezier_rate(func, points, u, out, None)
        return _core._bezier_value(func, points, u, out, None)

    def _inverse(self, func, s, out):
        if not self.monotone:
            return Easing._inverse(self, func, s, out)
        x1, y1, x2, y2 = self._points
        # The inverse of the curve (x(t), y(t)) is (y(t), x(t)): swap the axes.
        return _core._bezier_value(func, (y1, x1, y2, x2), s, out, None)

    _fields = (("x1", "y1", "x2", "y2"), ())

    def _state(self) -> dict:
        return dict(zip(("x1", "y1", "x2", "y2"), self._points))

    @classmethod
    def _from_state(cls, state: dict) -> "CubicBezier":
        return cls(**state)

    def __eq__(self, other):
        return isinstance(other, CubicBezier) and other._points == self._points

    def __hash__(self):
        return hash(("CubicBezier", self._points))

    def __repr__(self):
        return "CubicBezier({!r}, {!r}, {!r}, {!r})".format(*self._points)


_JUMPS = {"jump-start": 0, "start": 0, "jump-end": 1, "end": 1, "jump-none": 2, "jump-both": 3}


class Steps(ByValue, Easing):
    """The CSS ``steps(n, position)`` timing function: n equal jumps.

    ``position`` is where the jumps happen: "jump-end" / "end" (the default:
    0 until u = 1/n), "jump-start" / "start" (jumps at u = 0), "jump-none"
    (n - 1 jumps, holding 0 and 1 for 1/n each; needs n >= 2) or "jump-both"
    (n + 1 jumps). The value at u is floor(u * n) (+ 1 with a jump at the
    start) over the number of jumps, capped at 1, as in CSS Easing Level 1.
    The rate is 0 between the jumps (and reported as 0 at them).

    >>> Steps(4)([0.0, 0.3, 0.99, 1.0])
    array([0.  , 0.25, 0.75, 1.  ])
    >>> Steps(2, "jump-both")([0.0, 0.5])
    array([0.33333333, 0.66666667])
    """

    __slots__ = ("_count", "_position")

    def __init__(self, n: int, position: str = "end"):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise ValueError(f"Steps: n must be an integer, got {n!r}")
        position = option("Steps", "position", position, _JUMPS)
        self._count, self._position = int(n), position
        if self._count > 2**31:
            raise ValueError(f"Steps: n is {self._count} (must be <= 2**31)")
        if self._count < 1 or (_JUMPS[position] == 2 and self._count < 2):
            raise ValueError(f"Steps: n is {self._count} (must be >= "
                             f"{2 if _JUMPS[position] == 2 else 1}"
                             f"{' for jump-none' if _JUMPS[position] == 2 else ''})")

    n = property(lambda self: self._count, doc="Number of steps.")
    position = property(lambda self: self._position, doc="Where the jumps are.")

    def _evaluate(self, func, u, derivative, out):
        parameters = (self._count, _JUMPS[self._position])
        s = _core._steps_value(func, parameters, u, out, None)  # validates u
        if not derivative:
            return s
        if isinstance(s, np.ndarray):  # the rate is 0 between the jumps
            s[...] = 0.0
            return s
        return np.float64(0.0)

    def _inverse(self, func, s, out):
        raise ValueError(f"{func}: {self!r} is piecewise constant, so it has no inverse")

    _fields = (("n", "position"), ())

    def _state(self) -> dict:
        return {"n": self._count, "position": self._position}

    @classmethod
    def _from_state(cls, state: dict) -> "Steps":
        return cls(**state)

    def __eq__(self, other):
        return (isinstance(other, Steps) and other._count == self._count
                and _JUMPS[other._position] == _JUMPS[self._position])

    def __hash__(self):
        return hash(("Steps", self._count, _JUMPS[self._position]))

    def __repr__(self):
        return f"Steps({self._count}, position={self._position!r})"


_CSS = {
    **{fold(name): (lambda name=name: CubicBezier.keyword(name))
       for name in CubicBezier.KEYWORDS if name != "linear"},
    "stepstart": lambda: Steps(1, "jump-start"),
    "stepend": lambda: Steps(1, "jump-end"),
}


def as_easing(easing) -> Easing:
    """An :class:`Easing` object for a name or an easing object.

    This is how every function that accepts an easing treats its argument:
    kind names (in any case, with hyphens or underscores, or Penner's
    ``"easeOutSine"``) give an :class:`Ease`; the CSS keywords give the CSS
    curves (``"ease-in"`` is ``CubicBezier(0.42, 0, 1, 1)``, ``"step-end"``
    is ``Steps(1, "jump-end")``).

    >>> as_easing("sine_out")
    Ease('sine_out')
    >>> as_easing("ease-in-out")
    CubicBezier(0.42, 0.0, 0.58, 1.0)
    """
    return _as_easing("as_easing", easing)


def _as_easing(func: str, easing) -> Easing:
    if isinstance(easing, Easing):
        return easing
    if isinstance(easing, str):
        found = _kind_name(func, easing, css=True)
        return Ease(found) if isinstance(found, str) else found
    raise ValueError(f"{func}: easing must be a name or an Easing object (Ease, CubicBezier, "
                     f"Steps), got {easing!r}")


def ease(kind, u, *, derivative: int = 0, out=None) -> np.ndarray:
    """Eased time s = ease(u), or its rate ds/du, for normalized time u.

    Parameters
    ----------
    kind : str or Easing
        A kind name from :func:`easing_kinds` ("linear", "smoothstep",
        "smootherstep", "quad_in", ..., "bounce_in_out"), a CSS keyword
        ("ease", "ease-in", "ease-out", "ease-in-out"), or an easing object
        such as ``CubicBezier(0.25, 0.1, 0.25, 1.0)`` or ``Steps(4)``.
    u : array_like
        Normalized time, each value in [0, 1] (dimensionless). Any shape.
    derivative : {0, 1}
        The integer derivative order: 0 returns s, 1 returns ds/du
        (dimensionless; multiply by the segment's du/dt = 1/duration for a
        per-second rate). Booleans and other orders are a ValueError.
    out : ndarray, optional
        Float array of u's shape that receives the result; it is left
        untouched if the call raises, and returned.

    Returns
    -------
    ndarray
        Same shape as ``u`` (a NumPy scalar for scalar ``u``).

    Raises
    ------
    ValueError
        An unknown kind (with the closest names), a derivative order other
        than 0 or 1, or u outside [0, 1] or not finite; the message names
        the index, e.g. ``ease: u at index (2,) is 1.5 (must lie in [0, 1])``.

    Examples
    --------
    >>> ease("smoothstep", [0.25, 0.5, 0.75], derivative=1)
    array([1.125, 1.5  , 1.125])
    >>> float(ease("expo_in", 0.0)), float(ease("back_in_out", 0.5))
    (0.0, 0.5)
    """
    rate = _order("ease", derivative)
    if isinstance(kind, str) and kind in _INDEX:  # the scalar fast path
        index = _INDEX[kind]
        return (_core._ease_rate if rate else _core._ease_value)("ease", index, u, out, None)
    return as_easing_for("ease", kind)._evaluate("ease", u, rate, out)


def as_easing_for(func: str, easing) -> Easing:
    """:func:`as_easing` with errors naming the public function ``func``."""
    return _as_easing(func, easing)


def ease_inverse(kind, s, *, out=None) -> np.ndarray:
    """The normalized time u at which a monotone easing reaches the value s.

    ``ease(kind, ease_inverse(kind, s)) == s`` (to rounding) for s in [0, 1].
    Closed forms where they exist (smoothstep: 0.5 - sin(asin(1 - 2s) / 3),
    the power, sine, expo and circ families), else a safeguarded Newton /
    bisection in C to 1e-12. Where an easing is flat, the earliest u is
    returned; values that expo jumps over at its ends map to that end.

    Parameters
    ----------
    kind : str or Easing
        A monotone kind (``easing_kinds(monotone=True)``) or a monotone easing
        object (a CubicBezier with y1, y2 in [0, 1]).
    s : array_like
        Eased values in [0, 1]. Any shape.
    out : ndarray, optional
        Receives the result (untouched on error) and is returned.

    Raises
    ------
    ValueError
        A non-monotone kind (back, elastic, bounce, Steps), naming it, or s
        outside [0, 1], naming the index.

    >>> float(ease_inverse("smoothstep", 0.5)), float(ease_inverse("quad_in_out", 0.125))
    (0.5, 0.25)
    """
    return as_easing_for("ease_inverse", kind)._inverse("ease_inverse", s, out)


def easing_to_data(easing: Easing) -> dict:
    """A JSON-ready dict describing an easing object (see :func:`easing_from_data`)."""
    if isinstance(easing, Ease):  # parameters only where they differ from the defaults
        state = easing._state()
        return {"type": "Ease", **{k: v for k, v in state.items()
                                   if v is not None and (k, v) != ("variant", "penner")}}
    if isinstance(easing, CubicBezier):
        return {"type": "CubicBezier", "points": list(easing._points)}
    if isinstance(easing, Steps):
        return {"type": "Steps", "n": easing.n, "position": easing.position}
    raise ValueError(f"to_dict: cannot describe the easing {easing!r}")


def easing_from_data(data, func: str = "from_dict", name: str = "easing") -> Easing:
    """The easing object that :func:`easing_to_data` described; a bad one is
    a ValueError naming ``func`` and the field ``name``."""
    kind = data.get("type") if isinstance(data, dict) else None
    if kind not in ("Ease", "CubicBezier", "Steps"):
        raise ValueError(f"{func}: {name} is {data!r} (must be an easing's to_dict(): a dict "
                         f"with type 'Ease', 'CubicBezier' or 'Steps')")
    where = f"{func}: {name}"
    try:
        if kind == "Ease":
            check_fields(where, data, "Ease", ["kind"],
                         ["overshoot", "amplitude", "period", "variant"])
            return Ease(data["kind"], overshoot=data.get("overshoot"),
                        amplitude=data.get("amplitude"), period=data.get("period"),
                        variant=data.get("variant", "penner"))
        if kind == "CubicBezier":
            check_fields(where, data, "CubicBezier", ["points"])
            points = data["points"]
            if not isinstance(points, list) or len(points) != 4:
                raise ValueError(f"points is {points!r} (must be [x1, y1, x2, y2])")
            return CubicBezier(*points)
        check_fields(where, data, "Steps", ["n", "position"])
        return Steps(data["n"], data["position"])
    except ValueError as error:
        text = str(error)
        raise ValueError(text if text.startswith(where) else f"{where}: {text}") from None
