"""Stateful objects shared between threads: a RootMotionCursor serializes its
moves; snapshot timelines and buffers refuse a push during a sample (and a
sample during a push) with RuntimeError and are otherwise unchanged. The
kernels release the GIL on these sizes, so the threads really overlap."""
import pathlib
import threading
import time

import numpy as np
import pytest

import animcore as ac

CURSORS = 4096


def run_threads(target, count=2):
    barrier = threading.Barrier(count)
    failures = []

    def body(k):
        barrier.wait()
        try:
            target(k)
        except BaseException as error:  # reported by the test thread
            failures.append(error)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def test_two_threads_advancing_shared_cursors_move_them_as_one_thread_would():
    track = ac.LoopTrack([0, 0.25, 0.75, 1], [0, 0.2, 1.7, 2])
    start = np.linspace(0, 3, CURSORS)
    cursor = ac.RootMotionCursor(track, start)
    totals = [np.zeros(CURSORS), np.zeros(CURSORS)]
    steps = 1000

    def player(k):
        for _ in range(steps):
            totals[k] += cursor.advance(0.001)

    run_threads(player)
    moved = 2 * steps * 0.001
    np.testing.assert_allclose(cursor.time - start, moved, atol=1e-9)
    expected = track.delta(start, start + moved)  # the motion itself, in one call
    np.testing.assert_allclose(totals[0] + totals[1], expected, atol=1e-9)


def test_two_threads_resetting_and_reading_see_consistent_cursors():
    track = ac.LoopTrack([0, 1], [0, 1])
    cursor = ac.RootMotionCursor(track, np.zeros(CURSORS))
    seen = []

    def worker(k):
        for step in range(300):
            if k == 0:
                cursor.reset(np.full(CURSORS, 2.5 if step % 2 else 7.25))
            else:
                seen.append(np.unique(cursor.time))

    run_threads(worker)
    for times in seen:  # never half of one reset and half of another
        assert times.size == 1 and times[0] in (0.0, 2.5, 7.25)


@pytest.mark.parametrize("kind", ["timeline", "buffer"])
def test_pushes_during_samples_raise_the_documented_error_or_apply(kind):
    n = 20000
    if kind == "buffer":
        target = ac.SnapshotBuffer(n, 1, capacity=64)  # holds all 40 pushes
        entities = np.arange(n)

        def push(tick):
            return target.push(entities, tick, 0, np.full((n, 1), float(tick)))

        def sample():
            return target.sample(3.5).position
    else:
        target = ac.SnapshotTimeline(1, capacity=4096)

        def push(tick):
            return target.push_many(np.arange(10 * tick, 10 * tick + 10), 0,
                                    np.arange(10 * tick, 10 * tick + 10, dtype=float))

        def sample():
            return target.sample_many(np.linspace(0, 5, n)).position
    push(0)
    push(1)
    refused = []
    accepted = []

    def worker(k):
        for tick in range(2, 40):
            if k == 0:
                try:
                    push(tick)
                    accepted.append(tick)
                except RuntimeError as error:
                    refused.append((tick, str(error)))
            else:
                try:
                    assert np.all(np.isfinite(sample()))
                except RuntimeError as error:
                    assert "another thread is pushing to this object" in str(error)

    run_threads(worker)
    for _, message in refused:
        assert "another thread is sampling this object" in message
    # what was refused changed nothing: the object holds exactly the accepted pushes
    if kind == "buffer":
        assert target.snapshots(0).tick.tolist() == [0, 1] + accepted
    else:
        ticks = target.snapshots().tick.tolist()
        assert ticks == [t for k in [0, 1] + accepted for t in range(10 * k, 10 * k + 10)]


def test_advance_projectiles_releases_the_gil_by_the_work_allowed():
    # 100 spheres between two walls, each using its 4096 bounces: few spheres
    # and planes, but tens of milliseconds of work, done without the GIL.
    position = np.zeros((100, 2))
    velocity = np.tile([1e9, 0.0], (100, 1))
    walls = ([[-1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], np.zeros((2, 2)))
    window = []

    def worker(_):
        start = time.perf_counter()
        step = ac.advance_projectiles(position, velocity, 0.1, 1.0, *walls, 1.0,
                                      max_bounces=ac.contact.MAX_BOUNCES)
        window.extend([start, time.perf_counter()])
        assert np.all(step.bounces == ac.contact.MAX_BOUNCES)

    wakeups = []
    thread = threading.Thread(target=worker, args=(0,))
    thread.start()
    while thread.is_alive():
        time.sleep(0.001)
        wakeups.append(time.perf_counter())  # runs only while the worker lets the GIL go
    thread.join()
    start, end = window
    assert any(start < t < end for t in wakeups), f"no wakeup during {end - start:.3f} s"


def test_max_bounces_is_bounded():
    with pytest.raises(ValueError, match=r"advance_projectiles: max_bounces is 1000000000 "
                                         r"\(must lie in \[0, 4096\]\)"):
        ac.advance_projectiles([0, 0], [1, 0], 0.1, 1.0, [[-1, 0]], [[1, 0]], [[0, 0]], 1.0,
                               max_bounces=10**9)


class _PushDuringAllocation:
    """A NumPy data allocator (NumPy's PyDataMem_SetHandler, through ctypes)
    that runs `action` at its first allocation: the only way, with the GIL,
    to make another push land exactly where a free-threaded build lets another
    thread's push land, between the binding's allocation of a result and its
    copy. Every block gets 4 KiB of slack so that a copy longer than the
    arrays (the defect) cannot corrupt the heap of the test run. Only malloc
    runs Python; free must not (it runs while an exception is set)."""

    def __init__(self, action):
        import ctypes
        libc = ctypes.CDLL(None)
        self.libc_malloc = libc.malloc
        self.libc_malloc.restype = ctypes.c_void_p
        self.libc_malloc.argtypes = [ctypes.c_size_t]
        self.action, self.fired = action, False
        malloc_t = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
        self.malloc = malloc_t(self._malloc)

        def c_function(name):
            return ctypes.cast(getattr(libc, name), ctypes.c_void_p).value

        class Handler(ctypes.Structure):
            _fields_ = [("name", ctypes.c_char * 127), ("version", ctypes.c_uint8),
                        ("ctx", ctypes.c_void_p), ("malloc", malloc_t), ("calloc", ctypes.c_void_p),
                        ("realloc", ctypes.c_void_p), ("free", ctypes.c_void_p)]

        # calloc, realloc and free take (ctx, ...): small C shims over the C library
        self.shims = ctypes.CDLL(_build_shims())
        self.handler = Handler(b"push_during_allocation", 1, None, self.malloc,
                               ctypes.cast(self.shims.shim_calloc, ctypes.c_void_p).value,
                               ctypes.cast(self.shims.shim_realloc, ctypes.c_void_p).value,
                               ctypes.cast(self.shims.shim_free, ctypes.c_void_p).value)
        api = ctypes.pythonapi
        api.PyCapsule_New.restype = ctypes.py_object
        api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        table = api.PyCapsule_GetPointer(np._core._multiarray_umath._ARRAY_API, None)
        set_handler_t = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)
        # PyDataMem_SetHandler is entry 304 of NumPy's C API table (numpy/__multiarray_api.h)
        self.set_handler = set_handler_t(ctypes.c_void_p.from_address(table + 304 * 8).value)
        self.capsule = api.PyCapsule_New(ctypes.addressof(self.handler), b"mem_handler", None)

    def _malloc(self, ctx, size):
        if not self.fired:
            self.fired = True
            self.action()
        return self.libc_malloc(size + 4096)

    def __enter__(self):
        self.previous = self.set_handler(self.capsule)
        return self

    def __exit__(self, *exc):
        self.set_handler(self.previous)


def _build_shims():
    """calloc/realloc/free with NumPy's (ctx, ...) signatures, compiled once."""
    import shutil
    import subprocess
    import tempfile
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler for the allocator shims")
    folder = pathlib.Path(tempfile.mkdtemp())
    (folder / "shims.c").write_text(
        "#include <stdlib.h>\n"
        "void *shim_calloc(void *c, size_t n, size_t s) { (void)c; return calloc(1, n * s + 4096); }\n"
        "void *shim_realloc(void *c, void *p, size_t s) { (void)c; return realloc(p, s + 4096); }\n"
        "void shim_free(void *c, void *p, size_t s) { (void)c; (void)s; free(p); }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(folder / "shims.so"),
                    str(folder / "shims.c")], check=True)
    return str(folder / "shims.so")


@pytest.mark.skipif(not hasattr(np, "_core"), reason="NumPy 2's C API table layout")
def test_a_push_while_snapshots_are_copied_is_refused_not_written_past_the_arrays():
    buffer = ac.SnapshotBuffer(1, 2, capacity=8)
    for tick in range(3):
        buffer.push(0, tick, 0, [tick, -tick])
    outcome = []

    def push():
        try:
            buffer.push(0, 10, 0, [10.0, -10.0])
            outcome.append("pushed")
        except RuntimeError as error:
            outcome.append(str(error))

    with _PushDuringAllocation(push) as hook:
        snaps = buffer.snapshots(0)
    assert hook.fired
    # the read guard is held from the count to the copy: the push is refused
    assert outcome and "sampling" in outcome[0], outcome
    assert snaps.tick.tolist() == [0, 1, 2]
    assert snaps.position.tolist() == [[0, 0], [1, -1], [2, -2]]
