"""animcore: game-animation math done correctly and fast.

A C core vectorized over NumPy arrays. Units are in the names: ``velocity`` is
per second, ``tangent`` per normalized segment parameter, ``duration`` and
``elapsed`` are seconds. Quaternions are ``(x, y, z, w)``.

Every domain module's public names are available here, and so are
:func:`load` (any supported file, by suffix, as a :class:`Scene`) and
:func:`save` (glTF). The file formats (``animcore.gltf``, ``animcore.bvh``,
``animcore.usd``, ``animcore.fbx``), the data model (``animcore.model``) and the operations on
files (``animcore.bake``, ``animcore.dask``, ``animcore.blender``) are
attributes too, imported on first use so that ``import animcore`` stays fast.
"""
import importlib
from typing import TYPE_CHECKING

try:
    from . import _core  # noqa: F401  (the C extension every domain uses)
except ImportError:
    from ._source_tree import shadowing_message

    _message = shadowing_message(__path__[0])
    if _message is None:
        raise
    raise ImportError(_message) from None  # the chained message would mislead

from . import blend as _blend
from . import contact as _contact
from . import curves as _curves
from . import easing as _easing
from . import hermite as _hermite
from . import layers as _layers
from . import ik as _ik
from . import retarget as _retarget
from . import rootmotion as _rootmotion
from . import rotations as _rotations
from . import skeleton as _skeleton
from . import snapshot as _snapshot
from . import cleanup as _cleanup
from .blend import *  # noqa: F401,F403
from .cleanup import *  # noqa: F401,F403
from .contact import *  # noqa: F401,F403
from . import reduce as _reduce
from .reduce import *  # noqa: F401,F403
from .curves import *  # noqa: F401,F403
from .easing import *  # noqa: F401,F403
from .hermite import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .ik import *  # noqa: F401,F403
from .retarget import *  # noqa: F401,F403
from .rootmotion import *  # noqa: F401,F403
from .rotations import *  # noqa: F401,F403
from .skeleton import *  # noqa: F401,F403
from .snapshot import *  # noqa: F401,F403

if TYPE_CHECKING:  # what __getattr__ gives, for type checkers
    # `x as x`: re-exported names, as mypy --strict wants them spelled
    from . import bake as bake, blender as blender, bvh as bvh, dask as dask  # noqa: F401
    from . import fbx as fbx, files as files, gltf as gltf, model as model  # noqa: F401
    from . import plotting as plotting, usd as usd  # noqa: F401
    from .files import load as load, save as save  # noqa: F401
    from .model import Channel as Channel, Clip as Clip, Node as Node  # noqa: F401
    from .model import Scene as Scene, Skin as Skin  # noqa: F401
    from .model import extract_root_motion as extract_root_motion  # noqa: F401

# Imported on first use, so that `import animcore` stays fast: the file formats, the
# data model, the operations on files and the command line.
_LAZY_MODULES = ("bake", "bench", "blender", "bvh", "cli", "dask", "demo", "fbx", "files",
                 "gltf", "model", "plotting", "usd")
_LAZY_NAMES = {"load": "files", "save": "files", "Channel": "model", "Clip": "model",
               "Node": "model", "Scene": "model", "Skin": "model",
               "extract_root_motion": "model"}


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))


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
    *_LAZY_NAMES,
    *_blend.__all__,
    *_layers.__all__,
    *_ik.__all__,
    *_retarget.__all__,
    *_cleanup.__all__,
    *_reduce.__all__,
    "bvh",
    "fbx",
    "gltf",
    "usd",
]
