"""Work that outgrows one process, on Dask: clip libraries and large arrays.

Install with ``pip install 'animcore[dask]'`` (``dask[array]`` and
``distributed``); this module imports them only when used.

:func:`bake_many`
    bakes many glTF, BVH, FBX and USD files as one task graph on a ``distributed``
    cluster (:func:`local_cluster` on this machine when no client is
    given). A task is a batch of input paths; its worker loads each file,
    bakes every clip and writes one output per clip into the output folder
    (a temporary name, then a rename, so a killed worker leaves no partial
    output), and returns only the manifest rows. The output folder and the
    inputs must therefore be visible to every worker under the same paths
    (this machine, or a shared file system on a cluster).
:func:`apply`
    applies any animcore function or method (``hermite``, ``quat_slerp``,
    ``curve.evaluate``, ``track.delta``, ...) to dask arrays lazily, chunk by
    chunk, with NumPy broadcasting across chunks; an error names the index
    in the whole array.
"""
from __future__ import annotations

import copy
import functools
import os
import re
import sys
import time
import uuid
from typing import Any, Callable

import numpy as np

from . import bake as _bake
from .bake import BakeRow
from .rootmotion import RootMotionCursor

__all__ = ["QUIET", "BakeRow", "apply", "bake_many", "local_cluster"]

_INSTALL = "pip install 'animcore[dask]' (dask[array] and distributed)"


def _import(name: str):
    try:
        return __import__(name, fromlist=["_"])
    except ImportError as error:
        raise ImportError(f"animcore.dask needs {error.name or name}, which is not "
                          f"installed: {_INSTALL}") from None


# -- baking many files ------------------------------------------------------------

#: The ``distributed`` settings of :func:`local_cluster`. By default every
#: worker, nanny and the scheduler measure their event loop's latency every
#: 20 ms and sample the process's CPU, memory, network and disk every 0.5 s,
#: and each worker samples its own stack every 10 ms (the profiler): on an
#: idle two-worker cluster, 40 ms of CPU per second in this process and 13 ms
#: in each worker; with these settings, 8 and 3-7 ms. The memory monitors,
#: which pause a worker near its memory limit and restart it past 95%, look
#: every 0.5 s instead of 0.1 s.
QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "500ms",
}


def local_cluster(workers: int | None = None, **kwargs):
    """A :class:`distributed.LocalCluster` made for baking on this machine:
    ``workers`` single-threaded worker processes (default: one per core) on
    the loopback interface, no dashboard unless asked (``dashboard_address=
    "127.0.0.1:8787"``, with ``bokeh`` installed). On Linux, workers are
    forked, as :func:`animcore.bake.bake_local`'s are
    (:func:`animcore.bake.start_method`, which says what a script that
    starts them needs), instead of started as fresh interpreters: a worker
    is then ready in a few milliseconds rather than a second or more, which
    a job of a few seconds needs. ``kwargs`` go to LocalCluster.

    The periodic bookkeeping that feeds the dashboard and diagnostics is
    slowed down or off (see :data:`QUIET`): on a machine with as many cores
    as workers, every wakeup of a worker's event loop takes the interpreter
    lock from the thread baking, and those of the scheduler and the nannies
    (which run in this process) take a core from a worker."""
    dask = _import("dask")
    distributed = _import("distributed")
    options = dict(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                   processes=True, host="127.0.0.1")
    if "dashboard_address" not in kwargs:
        # no dashboard; the scheduler's HTTP routes (health, metrics) on a free
        # loopback port rather than on 8787, which another cluster may hold
        options["dashboard_address"] = None
        options["scheduler_kwargs"] = {"dashboard": False, "dashboard_address": "127.0.0.1:0",
                                       **kwargs.pop("scheduler_kwargs", {})}
    options.update(kwargs)
    config = dict(QUIET)
    if sys.platform.startswith("linux"):  # macOS's system libraries do not survive fork
        config["distributed.worker.multiprocessing-method"] = _bake.start_method()
    with dask.config.set(config):
        # a nanny hands its worker, and the one it restarts after a crash, the
        # configuration it was made with; a copy, as set() is undone in place
        options.setdefault("config", copy.deepcopy(dask.config.config))
        return distributed.LocalCluster(**options)


def _stop_heartbeat(dask_worker) -> None:
    dask_worker.periodic_callbacks["heartbeat"].stop()


def _stop_heartbeats(client) -> None:
    """Stops the heartbeats of the cluster's workers before it closes. A
    worker that closes while a heartbeat is connecting to the scheduler logs
    that heartbeat's failure, a traceback on stderr at the end of a bake that
    succeeded; a worker's heartbeat runs every half second."""
    try:
        client.run(_stop_heartbeat)
    except Exception:  # a worker gone already: nothing of it left to quiet
        pass


_GATHER_EVERY = 1.0  # seconds between fetches of the finished tasks' rows


def _gather_rows(client, futures, index, work, done) -> None:
    """The rows of finished tasks, fetched in one request (one per worker
    rather than one per task); a task that failed as a whole (``KilledWorker``:
    its batch killed its workers too often) gives a failed row per file."""
    try:
        results = client.gather(futures)
    except Exception:  # find the failed task(s)
        results = []
        for future in futures:
            try:
                results.append(future.result())
            except Exception as error:
                results.append(_bake.failed_rows([f for f, _, _ in work[index[future.key]]],
                                                 error))
    for future, rows in zip(futures, results):
        done[index[future.key]] = rows


def bake_many(paths, out_dir, *, fps: float = 30.0, client=None, clip=None,
              format: str = "npz", world: bool = False, nodes=None, root_motion=None,
              strict: bool = False, workers: int | None = None, batch: int | None = None,
              progress: _bake.ProgressOption = "auto", stream=None,
              max_frames=None) -> list[BakeRow]:
    """Bake many glTF, BVH, FBX and USD files on a Dask cluster: one output per clip
    and a manifest.

    Parameters
    ----------
    paths : iterable of str or os.PathLike
        Files, glob patterns (``"clips/**/*.glb"``) and folders (their .gltf,
        .glb, .bvh, .usd, .usda, .usdc and .usdz files). Each file is read by
        the reader its extension names (:func:`animcore.bake.load_input`); a
        USD file needs ``usd-core`` on the workers (without it, its row says
        how to install it).
    out_dir : str or os.PathLike
        Folder that receives, for each input, a folder named and placed as
        the input is below the deepest folder holding every input (``x/a.glb``
        and ``y/a.glb`` bake into ``x/a.glb/`` and ``y/a.glb/``, see
        :func:`animcore.bake.plan_outputs`) with one ``<clip>.npz`` (or
        ``.csv``) per clip (see :func:`animcore.bake.output_name`), and
        ``manifest.csv`` and ``keys.csv`` (which input, clip and node went to
        which output and key, see :func:`animcore.bake.write_manifest`);
        created if missing.
    fps : float
        Frames per second of the bake grid (see :func:`animcore.bake.frame_times`).
    client : distributed.Client or str, optional
        The cluster to run on, or a scheduler address (``"tcp://host:8786"``).
        Default: :func:`local_cluster` of ``workers`` processes, closed at
        the end.
    clip : str, optional
        Bake only the clip of this name in each file.
    format : {"npz", "csv"}
        Output format (the layouts of ``python -m animcore bake``).
    world, nodes, root_motion, strict
        The options of ``python -m animcore bake`` for one file (``--world``,
        ``--nodes``, ``--root-motion``, ``--strict``): world-space transforms
        of every node (or of ``nodes``, names or indices) instead of the
        channels; the ground motion of the joint ``root_motion`` extracted
        first; with ``strict``, a file with channels animcore does not bake
        is a failed row instead of being baked without them. Each output
        holds exactly what that command writes for the clip.
    workers : int, optional
        Processes of the LocalCluster (default: one per core).
    batch : int, optional
        Files per task (default: shrinking sizes, see :func:`animcore.bake.batch_sizes`).
    progress : {"auto", "always", "never"} or callable
        A progress bar of the files done, on ``stream`` (stderr; with tqdm
        installed, a tqdm bar, a widget in Jupyter), or a callable
        ``progress(done, total)`` counting files, called at most a few
        hundred times and once at the end with ``done == total`` (see
        :class:`animcore.bake.Progress`).
    max_frames : int, optional
        Frames per clip beyond which a clip is a failed row instead of being
        baked (default :data:`animcore.bake.DEFAULT_MAX_FRAMES`; see
        :func:`animcore.bake.check_frames`).

    Returns
    -------
    list of BakeRow
        ``(file, clip, frames, channels, output, error, keys)`` per clip, in
        input order; a file that could not be baked, whatever it raised
        (a ValueError, a RecursionError, USD's ``Tf.ErrorException``...), is
        one row with its error (the other files, of its task too, complete).
        The same rows are in ``out_dir/manifest.csv`` and ``keys.csv``.

    What travels: each task is a batch of input paths and the options (about
    200 bytes a file); its worker reads the files, bakes every clip, writes the
    outputs into ``out_dir`` itself and returns only their manifest rows. No
    array crosses the network, so on a cluster of several machines the
    inputs and ``out_dir`` must be on storage every worker sees under the
    same paths (a shared file system), and the client only gathers rows:
    those of the tasks finished so far, in one request about once a second.

    A worker that dies mid-task (killed, out of memory) loses only its
    batch, which the scheduler runs again elsewhere; outputs are renamed into
    place only once complete, and temporary files left by dead workers are
    removed at the end.
    """
    distributed = _import("distributed")
    _bake.check_options("bake_many", fps, format, world=world, nodes=nodes,
                        root_motion=root_motion, max_frames=max_frames, progress=progress,
                        workers=workers)
    files = _bake.expand_inputs(paths)
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    token = uuid.uuid4().hex[:12]
    own = None
    if client is None:
        cluster = local_cluster(workers)
        own = (cluster, distributed.Client(cluster))
        client = own[1]
    elif isinstance(client, str):
        own = (None, distributed.Client(client))
        client = own[1]
    try:
        sizes = batch or _bake.batch_sizes(
            len(files), len(client.scheduler_info().get("workers", ())) or 1)
        work = _bake.batches(files, _bake.plan_outputs(files), sizes)
        options = dict(clip=clip, format=format, token=token, world=world,
                       nodes=None if nodes is None else list(nodes),
                       root_motion=root_motion, strict=strict, max_frames=max_frames)
        futures = client.map(_bake.bake_batch, work, out_dir=os.path.abspath(out_dir),
                             fps=fps, pure=False, **options)
        index = {future.key: i for i, future in enumerate(futures)}
        done: dict[int, list[BakeRow]] = {}
        bar = _bake.Progress(len(files), progress, stream, unit="files")
        finished, last = [], time.monotonic()
        # on this client's event loop: by default as_completed follows the
        # process's default client, which may be another one (a client the
        # caller opened earlier), whose loop notices these futures finishing
        # only when something else wakes it, seconds later
        for future in distributed.as_completed(futures, loop=client.loop):
            finished.append(future)
            bar.update(len(work[index[future.key]]))
            if time.monotonic() - last >= _GATHER_EVERY:
                _gather_rows(client, finished, index, work, done)
                finished, last = [], time.monotonic()
        _gather_rows(client, finished, index, work, done)
        bar.close()
    finally:
        if own is not None and own[0] is not None:
            _stop_heartbeats(client)
        if own is not None:
            own[1].close()
            if own[0] is not None:
                own[0].close()
    rows = [row for i in range(len(work)) for row in done[i]]
    _bake.remove_parts(out_dir, token)
    _bake.write_manifest(out_dir, rows, token)
    return rows


# -- lazy application to dask arrays -----------------------------------------------

_INDEX = re.compile(r" at index \(([0-9, ]*)\)")


def _shift_index(message: str, offset: tuple[int, ...]) -> str:
    """The first "at index (i, j)" of a kernel's message, moved by the chunk's
    offset into the whole array."""
    def shifted(match):
        local = [int(i) for i in match.group(1).replace(" ", "").split(",") if i]
        if len(local) != len(offset):
            return match.group(0)
        index = tuple(a + b for a, b in zip(local, offset))
        return f" at index {index}"
    return _INDEX.sub(shifted, message, count=1)


def _run_chunk(func, kwargs, offset, *operands):
    try:
        result = func(*operands, **kwargs)
    except (ValueError, OverflowError) as error:
        if error.args and isinstance(error.args[0], str):
            error.args = (_shift_index(error.args[0], offset),) + error.args[1:]
        raise
    if isinstance(result, tuple):
        return tuple(np.asarray(r) for r in result)
    return np.asarray(result)  # a NumPy scalar for a 0-d chunk


def _cursor_step(track, method, cycle, phase, value, **kwargs):
    """The motion of the cursors (cycle, phase) of one chunk."""
    cursor = RootMotionCursor._from_state({"track": track, "cycle": cycle, "phase": phase})
    return getattr(cursor, method)(value, **kwargs)


def _name(func) -> str:
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", "apply")


def apply(func: Callable[..., Any], *args: Any, trailing: int = 0, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` on dask arrays, lazily and chunk by chunk.

    Parameters
    ----------
    func : callable
        An animcore function or bound method that broadcasts its array
        arguments like a ufunc: ``animcore.hermite``, ``animcore.bounce``,
        ``animcore.quat_slerp``, ``curve.evaluate``, ``rotations.evaluate``,
        ``track.delta``... Objects it is bound to travel to the workers by
        value (they pickle).
    *args : dask arrays, array-likes or scalars
        Arrays (dask or not) are chunked together: their leading axes
        broadcast like NumPy's, across chunks, and follow the chunks of the
        dask arguments; anything else is passed to every chunk as is.
    trailing : int or sequence of int
        For each argument, how many of its last axes form one item (1 for
        quaternions ``(..., 4)`` or vectors ``(..., 3)``, 0 for scalars,
        the default). Those axes are never split and do not broadcast.
    **kwargs
        Passed to every call (``derivative=1``).

    ``cursor.advance`` and ``cursor.advance_to`` of a
    :class:`~animcore.RootMotionCursor` give the motion that each cursor
    would emit, chunked like ``dt`` (or ``t``); the cursors are not moved (a
    lazy result cannot commit state): advance the cursor itself when the
    motion is consumed.

    Returns
    -------
    dask.array.Array, or a tuple (the same named tuple type as ``func``
    returns) of dask arrays, of the broadcast leading shape followed by the
    result's own trailing axes. Nothing is computed until you ask.

    An error in a chunk is raised when computed, with the index of the bad
    element in the whole broadcast array:

    >>> import dask.array as da                                  # doctest: +SKIP
    >>> t = da.linspace(0, 3, 10_000_000, chunks=1_000_000)      # doctest: +SKIP
    >>> value = apply(curve.evaluate, t).sum().compute()         # doctest: +SKIP
    """
    da = _import("dask.array")
    highlevelgraph = _import("dask.highlevelgraph")
    base = _import("dask.base")
    name = _name(func)
    owner = getattr(func, "__self__", None)
    if isinstance(owner, RootMotionCursor) and func.__name__ in ("advance", "advance_to"):
        # the cursors' state becomes two more arrays, chunked with the argument
        if len(args) != 1:
            raise ValueError(f"apply: {name} takes one array argument, got {len(args)}")
        value, state = args[0], owner._state()
        shape = owner.shape
        try:
            fits = np.broadcast_shapes(np.shape(value), shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"apply: {name}: argument of shape {np.shape(value)} does not "
                             f"broadcast to the cursors' shape {shape}")
        step = functools.partial(_cursor_step, state["track"], func.__name__)
        return apply(step, state["cycle"], state["phase"], value, **kwargs)
    trailing = (trailing,) * len(args) if isinstance(trailing, int) else tuple(trailing)
    if len(trailing) != len(args):
        raise ValueError(f"apply: trailing has {len(trailing)} entries for {len(args)} "
                         f"arguments")
    # arguments: ("array", dask array, item axes) or ("value", the value)
    operands = []
    for i, (arg, items) in enumerate(zip(args, trailing)):
        if isinstance(arg, da.Array):
            operands.append(["array", arg, items, True])
        elif isinstance(arg, (np.ndarray, list, tuple)) or np.ndim(arg) > 0:
            operands.append(["array", da.from_array(np.asarray(arg), chunks=-1), items, False])
        else:
            operands.append(["value", arg])
        if operands[-1][0] == "array" and not 0 <= items <= operands[-1][1].ndim:
            raise ValueError(f"apply: trailing[{i}] is {items} for an argument of "
                             f"{operands[-1][1].ndim} axes")
    arrays = [op for op in operands if op[0] == "array"]
    if not arrays:
        raise ValueError("apply: give at least one array argument")
    leads = [a.shape[:a.ndim - items] for _, a, items, _ in arrays]
    try:
        lead = np.broadcast_shapes(*leads)
    except ValueError:
        shapes = ", ".join(str(s) for s in leads)
        raise ValueError(f"apply: cannot broadcast the leading shapes {shapes} of "
                         f"{name}'s array arguments together") from None
    ndim = len(lead)
    # chunks of each leading axis: those of the first dask argument that spans it
    chunks = []
    for axis in range(ndim):
        choice = None
        for _, a, items, given in sorted(arrays, key=lambda op: not op[3]):
            d = axis - (ndim - (a.ndim - items))
            if d >= 0 and a.shape[d] == lead[axis] and (lead[axis] != 1 or choice is None):
                choice = a.chunks[d]
                break
        chunks.append(choice if choice is not None else (lead[axis],))
    for op in arrays:
        _, a, items, _ = op
        lead_a = a.ndim - items
        wanted = tuple(chunks[ndim - lead_a + d] if a.shape[d] == lead[ndim - lead_a + d]
                       else -1 for d in range(lead_a)) + (-1,) * items
        op[1] = a.rechunk(wanted)
    # the result's structure: func on empty chunks (empty in, empty out)
    probe = []
    for op in operands:
        if op[0] == "value":
            probe.append(op[1])
        else:
            a, items = op[1], op[2]
            probe.append(np.empty((0,) + a.shape[a.ndim - items:], dtype=a.dtype))
    sample = func(*probe, **kwargs)
    outputs = tuple(sample) if isinstance(sample, tuple) else (sample,)
    outputs = [np.asarray(o) for o in outputs]
    token = base.tokenize(func, kwargs, *[op[1] if op[0] == "array" else op[1]
                                          for op in operands])
    chunk_name = f"animcore-apply-{token}"
    # the function (and the object it is bound to) is one piece of data in the
    # graph, sent once to each worker that needs it rather than with every chunk
    func_key = f"animcore-apply-func-{token}"
    layer = {func_key: func}
    grid = [range(len(c)) for c in chunks]
    starts = [np.r_[0, np.cumsum(c)[:-1]].astype(int).tolist() for c in chunks]
    for block in (np.ndindex(*[len(g) for g in grid]) if ndim else [()]):
        offset = tuple(starts[axis][b] for axis, b in enumerate(block))
        task_args = []
        for op in operands:
            if op[0] == "value":
                task_args.append(op[1])
                continue
            a, items = op[1], op[2]
            lead_a = a.ndim - items
            key = (a.name,) + tuple(block[ndim - lead_a + d]
                                    if a.shape[d] == lead[ndim - lead_a + d] else 0
                                    for d in range(lead_a)) + (0,) * items
            task_args.append(key)
        layer[(chunk_name,) + block] = (_run_chunk, func_key, kwargs, offset, *task_args)
    chunk_graph = highlevelgraph.HighLevelGraph.from_collections(
        chunk_name, layer, dependencies=[op[1] for op in operands if op[0] == "array"])
    results = []
    many = isinstance(sample, tuple)
    blocks = list(np.ndindex(*[len(g) for g in grid])) if ndim else [()]
    for i, out in enumerate(outputs):
        out_name = f"{chunk_name}-{i}"
        extra = out.shape[1:]  # the probe's leading axis is the 0
        pick = {(out_name,) + block + (0,) * len(extra):
                (_select, (chunk_name,) + block, i) if many else (chunk_name,) + block
                for block in blocks}
        graph = highlevelgraph.HighLevelGraph(
            {**chunk_graph.layers, out_name: pick},
            {**chunk_graph.dependencies, out_name: {chunk_name}})
        results.append(da.Array(graph, out_name,
                                chunks=tuple(chunks) + tuple((n,) for n in extra),
                                dtype=out.dtype,
                                meta=np.empty((0,) * (ndim + len(extra)), dtype=out.dtype)))
    if not many:
        return results[0]
    return type(sample)(*results) if hasattr(sample, "_fields") else tuple(results)


def _select(result, i):
    return result[i]
