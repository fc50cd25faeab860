"""animcore: game-animation math done correctly and fast.

A C core vectorized over NumPy arrays. Units are in the names: ``velocity`` is
per second, ``tangent`` per normalized segment parameter, ``duration`` and
``elapsed`` are seconds. Quaternions are ``(x, y, z, w)``.
"""
from .contact import (ProjectileStep, advance_projectiles, bounce,
                      contact_point_velocity)
from .hermite import (HermiteSample, HermiteSegment, hermite, tangent_to_velocity,
                      velocity_to_tangent)

__version__ = "0.1.0"

__all__ = [
    "ProjectileStep",
    "advance_projectiles",
    "bounce",
    "contact_point_velocity",
    "HermiteSample",
    "HermiteSegment",
    "hermite",
    "tangent_to_velocity",
    "velocity_to_tangent",
]
