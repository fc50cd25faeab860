"""Shared test settings, and slow work started early.

A test module may name work that mostly waits on subprocesses (compiling the
C core, running notebooks) in a module-level ``BACKGROUND_JOBS = {name:
job}``; ``job(folder)`` gets an empty folder of its own, named after the job
(so no spaces). Each job of a module whose collected tests use the
``background`` fixture starts in a thread as soon as collection ends, so that
it runs on another core while the other tests run; the tests that use it run
last, and ``background.result(name)`` waits for it and returns its result.

With pytest-xdist (the suite's default, ``-n auto``) every worker collects
every test: the workers share one folder, made by the controller, and a job
runs in the first worker that claims it (its folder made there), which leaves
its pickled result beside it for the others and waits for its jobs before it
exits."""
import os
import pathlib
import pickle
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import Future

try:
    import fcntl
except ImportError:  # Windows: a crashed worker's job is then waited on until the timeout
    fcntl = None

import pytest
from hypothesis import settings

# The suite starts about a hundred Python processes (the command line, bake
# workers, notebooks, fuzz runs). With PYTHONDONTWRITEBYTECODE set, each of
# them compiled animcore from source again: writing bytecode (to __pycache__,
# which git ignores) lets them share one compile (118 s against 140-159 s on
# a 2-core host that sets it).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Kernels are fast but the first call of a test may page in large arrays.
settings.register_profile("animcore", deadline=None, max_examples=60)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "animcore"))


class Background:
    def __init__(self):
        self.futures = {}
        self.folder = None
        self.shared = False  # the folder is the xdist run's, not this process's
        self.held = []  # the locks on the jobs this process runs

    def share(self, folder):
        self.folder, self.shared = pathlib.Path(folder), True

    def start(self, name, job):
        if name in self.futures:
            return
        if self.folder is None:
            self.folder = pathlib.Path(tempfile.mkdtemp(prefix="animcore-tests-"))
        folder = self.folder / name
        try:
            folder.mkdir()
        except FileExistsError:  # another worker claimed it
            return
        if self.shared:
            self._hold(name)
        future = self.futures[name] = Future()

        def run():
            _yield_to_the_tests()
            try:
                outcome = ("ok", job(folder))
            except BaseException as error:  # handed to the test that asks
                outcome = ("error", error)
            if self.shared:  # (before the job counts as done: see close)
                self._publish(name, outcome)
            if outcome[0] == "ok":
                future.set_result(outcome[1])
            else:
                future.set_exception(outcome[1])

        threading.Thread(target=run, name=f"background {name}", daemon=True).start()

    def _hold(self, name):
        """A lock this process holds on {name}.owner while it lives (the system
        drops it when the process ends, crashed or not), put in place locked."""
        if fcntl is None:
            return
        path = self.folder / f"{name}.owner"
        held = open(f"{path}.{os.getpid()}", "w")
        fcntl.flock(held, fcntl.LOCK_EX)
        os.replace(held.name, path)
        self.held.append(held)

    def _publish(self, name, outcome):
        """The job's ("ok", result) or ("error", exception) pickled for the other workers."""
        try:
            data = pickle.dumps(outcome)
        except Exception as failure:  # an unpicklable result or error: said as text
            what = outcome[1] if outcome[0] == "error" else failure
            data = pickle.dumps(("error", RuntimeError(f"background job {name}: {what!r}")))
        partial = self.folder / f"{name}.pickle.partial"
        partial.write_bytes(data)
        partial.replace(self.folder / f"{name}.pickle")

    def result(self, name, timeout=900):
        if name in self.futures:
            return self.futures[name].result()
        published, owner = self.folder / f"{name}.pickle", self.folder / f"{name}.owner"
        waited = 0.0
        while not published.exists():  # the worker that claimed it is running it
            if waited > timeout:
                raise TimeoutError(f"background job {name} gave no result in {timeout} s")
            if _abandoned(owner) and not published.exists():
                raise RuntimeError(f"the test process running background job {name} ended "
                                   f"without its result (it crashed: see its report)")
            time.sleep(0.2)
            waited += 0.2
        kind, value = pickle.loads(published.read_bytes())
        if kind == "error":
            raise value
        return value

    def close(self):
        if self.shared:  # an xdist worker waits for the jobs it runs: others may need them
            for future in self.futures.values():
                future.exception()
            for held in self.held:  # (each job's result is published: the locks may go)
                held.close()
        elif self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _abandoned(owner):
    """Whether the process that locked `owner` has ended (its lock is free)."""
    if fcntl is None or not owner.exists():
        return False
    with open(owner) as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
    return True


def _yield_to_the_tests():
    """Lowers the calling thread's priority to the lowest, and so that of the
    processes it starts (compilers, notebook kernels): the tests keep their
    core while the background work takes what is left, instead of all of them
    sharing the cores alike (nice 19 rather than 10: the suite ran 4 s
    faster of 91). Linux only, where a thread has its own nice value."""
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except OSError:
            pass


_BACKGROUND = Background()


def pytest_collection_modifyitems(items):
    # the tests that wait for a job run last, when it has likely finished
    items.sort(key=lambda item: "background" in getattr(item, "fixturenames", ()))


def pytest_collection_finish(session):
    if session.config.option.collectonly:
        return
    modules = {item.module for item in session.items
               if "background" in getattr(item, "fixturenames", ())}
    for module in sorted(modules, key=lambda m: m.__name__):
        for name, job in getattr(module, "BACKGROUND_JOBS", {}).items():
            _BACKGROUND.start(name, job)


def pytest_configure(config):
    if hasattr(config, "workerinput"):  # an xdist worker: the run's shared folder
        _BACKGROUND.share(config.workerinput["animcore_background"])
    elif getattr(config.option, "numprocesses", None):
        config.animcore_background = tempfile.mkdtemp(prefix="animcore-tests-")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """(xdist's controller) hands each worker the folder the jobs share."""
    node.workerinput["animcore_background"] = node.config.animcore_background


def pytest_unconfigure(config):
    _BACKGROUND.close()
    shared = getattr(config, "animcore_background", None)
    if shared:  # the controller, once every worker has ended
        shutil.rmtree(shared, ignore_errors=True)


@pytest.fixture
def numpy2_pickles():
    """For a test that loads pickles recorded with NumPy 2: skips it before
    NumPy 1.26, which cannot read them (no numpy._core)."""
    import numpy as np

    if np.lib.NumpyVersion(np.__version__) < "1.26.0":
        pytest.skip("the recorded pickle holds NumPy 2 arrays, which NumPy before 1.26 "
                    "cannot read (no numpy._core)")


@pytest.fixture(scope="session")
def background():
    """The jobs of BACKGROUND_JOBS, started when collection ended."""
    return _BACKGROUND
