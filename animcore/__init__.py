"""animcore: game-animation math done correctly and fast.

A C core vectorized over NumPy arrays. Units are in the names: ``velocity`` is
per second, ``tangent`` per normalized segment parameter, ``duration`` and
``elapsed`` are seconds. Quaternions are ``(x, y, z, w)``.

Every domain module's public names are available here; glTF import stays in
its namespace (``animcore.gltf.load``), and so do BVH and
USD import (``animcore.bvh.load``, ``animcore.usd.load``).
"""
try:
    from . import _core  # noqa: F401  (the C extension every domain uses)
except ImportError:
    from ._source_tree import shadowing_message

    _message = shadowing_message(__path__[0])
    if _message is None:
        raise
    raise ImportError(_message) from None  # the chained message would mislead

from . import bvh
from . import contact as _contact
from . import curves as _curves
from . import easing as _easing
from . import gltf
from . import hermite as _hermite
from . import rootmotion as _rootmotion
from . import rotations as _rotations
from . import skeleton as _skeleton
from . import snapshot as _snapshot
from . import usd
from . import cleanup as _cleanup
from .cleanup import *  # noqa: F401,F403
from .contact import *  # noqa: F401,F403
from . import reduce as _reduce
from .reduce import *  # noqa: F401,F403
from .curves import *  # noqa: F401,F403
from .easing import *  # noqa: F401,F403
from .hermite import *  # noqa: F401,F403
from .rootmotion import *  # noqa: F401,F403
from .rotations import *  # noqa: F401,F403
from .skeleton import *  # noqa: F401,F403
from .snapshot import *  # noqa: F401,F403

__version__ = "0.1.0"

__all__ = [
    *_hermite.__all__,
    *_curves.__all__,
    *_easing.__all__,
    *_rotations.__all__,
    *_rootmotion.__all__,
    *_contact.__all__,
    *_snapshot.__all__,
    *_skeleton.__all__,
    *_cleanup.__all__,
    *_reduce.__all__,
    "bvh",
    "gltf",
    "usd",
]
