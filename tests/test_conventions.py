"""Conventions every public function shares: any float64 layout is accepted,
including views that are neither contiguous nor aligned (a view into a byte
buffer at an odd offset), with the same result as a plain array."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import animcore


def unaligned(values):
    """A copy of `values` as a float64 view at an odd byte offset (not aligned)."""
    values = np.asarray(values, dtype=np.float64)
    raw = bytearray(values.nbytes + 1)
    view = np.frombuffer(raw, dtype=np.float64, count=values.size, offset=1)
    view = view.reshape(values.shape)
    assert not view.flags.aligned
    view[...] = values
    return view


U = np.array([0.0, 0.25, 0.5, 1.0])
CASES = {
    "hermite": (lambda x: animcore.hermite(0.0, 10.0, 2.0, 0.0, 2.0, x).position, U),
    "Curve": (lambda x: animcore.Curve([0, 1, 2], [0, 1, 0])(x), U),
    "Curve keys": (lambda x: animcore.Curve(x, [0, 1, 0, 2])(0.3), U),
    "ease": (lambda x: animcore.ease("smoothstep", x), U),
    "CubicBezier": (lambda x: animcore.CubicBezier(0.25, 0.1, 0.25, 1.0)(x), U),
    "quat_slerp": (lambda x: animcore.quat_slerp([0, 0, 0, 1], [0, 0, 1, 0], x), U),
    "quat_normalize": (lambda x: animcore.quat_normalize(x), np.array([[0, 0, 1.0, 1.0]])),
    "bounce": (lambda x: animcore.bounce(x, (0.0, 0.0), (0.0, 1.0), 0.5),
               np.array([[1.0, -2.0], [0.5, 3.0]])),
    "LoopTrack.delta": (lambda x: animcore.LoopTrack([0, 1], [0, 2]).delta(0.0, x), U),
    "quat_to_euler": (lambda x: animcore.quat_to_euler(x, "ZYX"), np.array([[0, 0.3, 1.0, 1.0]])),
    "quat_from_matrix": (lambda x: animcore.quat_from_matrix(x), np.eye(3)[None]),
    "Skeleton.world": (lambda x: animcore.Skeleton([-1, 0]).world(x),
                       np.array([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]])),
    "SnapshotTimeline.sample_many": (lambda x: _two_snapshots().sample_many(x).position, U),
}


def _two_snapshots():
    """A timeline to interpolate in (an empty one samples zeros whatever the ticks)."""
    timeline = animcore.SnapshotTimeline(1)
    timeline.push(0, 0, 0.0)
    timeline.push(1, 0, 2.0)
    return timeline


@pytest.mark.parametrize("name", CASES)
def test_unaligned_input_gives_the_same_result(name):
    call, values = CASES[name]
    np.testing.assert_array_equal(call(unaligned(values)), call(values.copy()))


# -- the error contract: the function, the argument, the value, what was expected

def _projectiles(**options):
    return animcore.advance_projectiles([0.0, 1.0], [1.0, 0.0], 0.1, 0.1, [0.0, 0.0],
                                        [0.0, 1.0], [0.0, 0.0], 0.5, **options)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: animcore.hermite(0, 1, 0, 0, 1, [1, [2, 3]]), ValueError,
     r"^hermite: elapsed is a ragged nested sequence \(its rows have different lengths\)"),
    (lambda: animcore.quat_slerp([[0, 0, 0, 1], [0, 1]], [0, 0, 0, 1], 0.5), ValueError,
     r"^quat_slerp: q0 is a ragged nested sequence"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, 10**400), OverflowError,
     r"^hermite: elapsed is an integer of 401 digits \(must be representable as float64"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, [0, 10**400]), OverflowError,
     r"^hermite: elapsed at index \(1,\) is an integer of 401 digits"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, [0.5, None]), ValueError,
     r"^hermite: elapsed must be real numbers, got None at index \(1,\)"),
    (lambda: animcore.HermiteSegment(10**400, 1, 0, 0, 1), OverflowError,
     r"^HermiteSegment: start is an integer of 401 digits"),
    (lambda: _projectiles(max_bounces=-10**10), ValueError,
     r"^advance_projectiles: max_bounces is -10000000000 \(must be >= 0\)"),
    (lambda: animcore.SnapshotBuffer(2**63), ValueError,
     r"^SnapshotBuffer: entities is 9223372036854775808 \(must be <= 9223372036854775807\)"),
    # far beyond any machine's memory, so the allocation fails at once (10**9 entities
    # may partly succeed here and fail only after seconds of page faults)
    (lambda: animcore.SnapshotBuffer(10**11), MemoryError,
     r"^SnapshotBuffer: entities is 100000000000 \(out of memory\)"),
    (lambda: animcore.SnapshotTimeline(capacity=0), ValueError,
     r"^SnapshotTimeline: capacity is 0 \(must lie in \[1, 16777216\]\)"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, 2.5), ValueError,
     r"^hermite: elapsed is 2.5 \(must lie in \[0, duration=1\]\)"),
    (lambda: animcore.hermite(0, 1, 0, 0, 1, [0, 1, 2.5], workers=0), ValueError,
     r"^hermite: workers is 0 \(must be None, a positive count"),
])
def test_error_contract(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_integers_beyond_int64_are_real_numbers():
    """2**70 is a real number float64 represents; it is taken, not rejected."""
    position = animcore.hermite(2**70, 0.0, 0.0, 0.0, 1.0, 0.0).position
    assert position == float(2**70)


# -- one of each numeric: every domain shares the slerp and the cycle fold

@pytest.mark.parametrize("scale", [1.0, 1e-150, 1e150])
def test_quat_slerp_is_the_snapshot_slerp(scale):
    """Snapshot playback interpolates rotations with quat_slerp itself: the
    same result to the last bit, for any (non-unit, extreme) pushed value."""
    rng = np.random.default_rng(7)
    q0, q1 = rng.normal(size=(2, 4)) * scale
    timeline = animcore.SnapshotTimeline(1, rotations=True)
    timeline.push(0, 0, 0.0, q0)
    timeline.push(8, 0, 0.0, q1)
    ticks = np.linspace(0.0, 8.0, 97)
    alpha = (ticks - 0.0) / (8.0 - 0.0)
    np.testing.assert_array_equal(timeline.sample_many(ticks).rotation,
                                  animcore.quat_slerp(q0, q1, alpha))
    n = 500
    many0, many1 = rng.normal(size=(2, n, 4)) * scale
    buffer = animcore.SnapshotBuffer(n, 1, rotations=True)
    buffer.push(np.arange(n), 0, 0, np.zeros((n, 1)), many0)
    buffer.push(np.arange(n), 8, 0, np.zeros((n, 1)), many1)
    np.testing.assert_array_equal(buffer.sample(3.0).rotation,
                                  animcore.quat_slerp(many0, many1, 3.0 / 8.0))


@pytest.mark.parametrize("mode", ["cycle", "oscillate"])
def test_curve_and_rotation_curve_fold_alike_far_away(mode):
    """A yaw track keyed as angles (Curve) and as rotations about z
    (RotationCurve) plays the same angle, also 3.3e13 s (a million years)
    away, where different folds of t into the keys disagree by 4e-3 s."""
    times, angles = np.array([0.0, 1.0, 2.5]), np.array([0.1, 0.7, 0.4])
    curve = animcore.Curve(times, angles, interpolation="linear", before=mode, after=mode)
    rotations = np.stack([np.zeros(3), np.zeros(3), np.sin(angles / 2), np.cos(angles / 2)], -1)
    rotation = animcore.RotationCurve(times, rotations, before=mode, after=mode)
    t = np.concatenate([3.3e13 + np.linspace(0.0, 5.0, 41), -3.3e13 - np.linspace(0.0, 5.0, 41)])
    q = rotation(t)
    np.testing.assert_allclose(2.0 * np.arctan2(q[:, 2], q[:, 3]), curve(t), rtol=0, atol=1e-12)


# -- the C API an engine adopts: one header, its symbols only, one naming rule

CSRC = pathlib.Path(__file__).resolve().parent.parent / "csrc"
DOMAINS = ("status", "arg", "hermite", "curve", "ease", "quat", "rootmotion", "contact", "snapshot",
           "collide", "skeleton", "tangents", "fbx", "blend", "ik", "cleanup", "reduce", "pose")


def _declarations():
    """(return type, name, parameters) of every function animcore.h declares."""
    text = (CSRC / "animcore.h").read_text()
    found = re.findall(r"^(AC_API )?([A-Za-z][^;(]*?)\b(ac_\w+)\(([^;]*)\);", text, re.M)
    return [(marked, " ".join(ret.split()), name, " ".join(params.split()))
            for marked, ret, name, params in found]


def test_every_public_function_is_exported_named_and_ends_with_its_error():
    declarations = _declarations()
    assert len(declarations) > 50
    for marked, ret, name, params in declarations:
        assert marked, f"{name} lacks AC_API"
        assert name == "ac_version" or re.fullmatch(rf"ac_({'|'.join(DOMAINS)})_[a-z0-9_]+",
                                                     name), name
        if ret == "ac_status":  # inputs, outputs, count, then the error record
            assert params.endswith("ac_error *err"), name
        assert not re.search(r"\bint (jumps|rotations|absolute)\b", params), name


def test_the_check_proofs_are_the_headers_last_section_and_nothing_else_is_in_it():
    # an engine reads the API above the "Binding support" section and can stop there
    text = (CSRC / "animcore.h").read_text()
    above, binding = text.split("Binding support: read-only success proofs", 1)
    names = lambda part: re.findall(r"\b(ac_\w+)\(", part)  # noqa: E731
    assert not [n for n in names(above) if n.endswith("_check")]
    declared = re.findall(r"^AC_API [^;(]*?\b(ac_\w+)\(", binding, re.M)
    assert declared and all(n.endswith("_check") for n in declared), declared


def test_flags_are_bool():
    text = (CSRC / "animcore.h").read_text()
    assert "#include <stdbool.h>" in text
    assert re.search(r"^\s*bool jumps;", text, re.M)
    assert "AC_API bool ac_ease_monotone" in text and "AC_API bool ac_snapshot_buffer_rotations" in text


def test_version_macros_match_the_library_and_the_package():
    text = (CSRC / "animcore.h").read_text()
    parts = [re.search(rf"#define AC_VERSION_{p} (\d+)", text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    string = re.search(r'#define AC_VERSION_STRING "([^"]+)"', text).group(1)
    assert string == ".".join(parts)
    pyproject = (CSRC.parent / "pyproject.toml").read_text()
    assert re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1) == string


def _build_core_library(folder):
    """libanimcore.a alone, as an engine builds it: the Makefile's default flags
    (-O2, where the optimizer's warnings come from), warnings as errors; one
    compiler at a time, beside the tests (see conftest.py). In csrc/build, as
    `make` builds it: a later run compiles only what changed."""
    built = subprocess.run(["make", "-C", str(CSRC), "-j1"], capture_output=True, text=True,
                           timeout=600)
    return built, CSRC / "build" / "libanimcore.a"


def _mypy_user_scripts(folder):
    """mypy --strict on both user scripts (one run: mypy's start, reading
    animcore and NumPy, is most of its time), or None without mypy. Its cache
    is the checkout's .mypy_cache: a later run reads only what changed (4 s
    to 0.3 s)."""
    import importlib.util

    if importlib.util.find_spec("mypy") is None:
        return None
    scripts = ["typed_user.py", "typed_pipeline.py"]
    for script in scripts:
        shutil.copy(USER_SCRIPT.parent / script, folder / script)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", f"--cache-dir={CSRC.parent / '.mypy_cache'}",
         *scripts],
        capture_output=True, text=True, cwd=folder, env=env, timeout=600)


BACKGROUND_JOBS = {"core-library": _build_core_library, "mypy": _mypy_user_scripts}


def test_core_library_builds_alone_and_exports_only_the_header(background):
    if not all(shutil.which(tool) for tool in ("make", "nm")) or not (
            shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("needs make, nm and a C compiler")
    build, library = background.result("core-library")
    assert build.returncode == 0, build.stdout + build.stderr
    listing = subprocess.run(["nm", "-g", "--defined-only", str(library)],
                             capture_output=True, text=True, check=True).stdout
    exported = {line.split()[-1].lstrip("_") if line.split()[-1].startswith("_ac_")
                else line.split()[-1] for line in listing.splitlines()
                if len(line.split()) == 3}
    declared = {name for _, _, name, _ in _declarations()}
    assert exported == declared


# -- the typed surface

USER_SCRIPT = pathlib.Path(__file__).resolve().parent / "data" / "typed_user.py"


# where the animcore under test is imported from: this checkout, or an installed wheel
PACKAGE_ROOT = pathlib.Path(animcore.__file__).resolve().parent.parent


def test_typed_user_script_runs(tmp_path):
    """The script mypy checks below is a working program."""
    result = subprocess.run([sys.executable, str(USER_SCRIPT)], capture_output=True, text=True,
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)})
    assert result.returncode == 0, result.stderr


def test_mypy_strict_accepts_the_user_scripts(background):
    """Checked from outside the source tree, so mypy finds animcore as a user's
    mypy would: through the installed package (editable or not), its py.typed
    and the stub of the compiled module."""
    pytest.importorskip("mypy", reason="mypy is not installed (it is in the test extra)")
    assert (CSRC.parent / "animcore" / "py.typed").exists()
    result = background.result("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_public_callable_is_annotated():
    """mypy --strict refuses a call to a function without any annotation: every
    public function and method of animcore and its format modules has one."""
    import importlib
    import inspect

    unannotated, seen = [], set()

    def check(name, function):
        if id(function) in seen:
            return
        seen.add(id(function))
        signature = inspect.signature(function)
        if signature.return_annotation is inspect.Signature.empty and all(
                p.annotation is inspect.Parameter.empty for p in signature.parameters.values()
                if p.name not in ("self", "cls")):
            unannotated.append(name)

    for module_name in ("animcore", "animcore.gltf", "animcore.bvh", "animcore.usd",
                        "animcore.fbx", "animcore.dask", "animcore.bake"):
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", [n for n in dir(module) if n[0] != "_"]):
            obj = getattr(module, name)
            if getattr(obj, "__module__", "").startswith("animcore") and inspect.isfunction(obj):
                check(f"{module_name}.{name}", obj)
            elif inspect.isclass(obj) and obj.__module__.startswith("animcore"):
                for attribute, value in vars(obj).items():
                    value = getattr(value, "__func__", value)  # class and static methods
                    if inspect.isfunction(value) and (attribute[0] != "_"
                                                      or attribute == "__init__"):
                        check(f"{module_name}.{name}.{attribute}", value)
    assert not unannotated, unannotated


def test_typed_pipeline_script_runs(tmp_path):
    result = subprocess.run([sys.executable, str(USER_SCRIPT.parent / "typed_pipeline.py"),
                             str(tmp_path)], capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("walk")


def test_core_stub_lists_every_entry_point():
    from animcore import _core
    stub = (CSRC.parent / "animcore" / "_core.pyi").read_text()
    # each declared as a function, or as the kernel whose arguments it shares
    stubbed = set(re.findall(r"^def (\w+)\(", stub, re.M))
    stubbed |= set(re.findall(r"^(_[a-z]\w*) = _[a-z]\w*$", stub, re.M))
    assert stubbed == {name for name in dir(_core) if not name.startswith("__")}


# -- conventions every public array function shares, tested once for all
#
# Each case: the call (array arguments positional, out= keyword when the
# function takes one), valid float64 arguments, and arguments that raise.

_U = np.array([0.0, 0.25, 0.5, 1.0])
_Q = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.6, 0.0, 0.8], [0.36, 0.48, 0.0, 0.8],
               [0.0, 0.0, 1.0, 0.0]])
_V = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0], [1.0, 1.0, 1.0]])
_M = animcore.quat_to_matrix(_Q)
_N2 = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
_WALLS = ([[-1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [0.0, 0.5])  # (point, normal, velocity)
_curve = animcore.Curve([0, 1, 2, 3], [0, 60, 60, 0])
_curve3 = animcore.Curve([0, 1, 2], [[0, 1, 2], [3, 4, 5], [1, 1, 1]])
_rotation = animcore.RotationCurve([0.0, 1.0], [[0, 0, 0, 1], [0, 0, 1, 0]], after="error")
_walk = animcore.LoopTrack([0, 0.25, 0.75, 1], [0, 0.2, 1.7, 2])
_segment = animcore.HermiteSegment(0.0, 10.0, 2.0, 0.0, 2.0)
_arm = animcore.Skeleton([-1, 0])

FUNCTIONS = {
    "hermite": (lambda e, d, out=None: animcore.hermite(0.0, 10.0, 2.0, 0.0, d, e, out=out),
                (_U, np.array([1.0, 2.0, 2.0, 1.5])), (_U, np.array([1.0, 2.0, 0.0, 1.0]))),
    "velocity_to_tangent": (lambda v, d, out=None: animcore.velocity_to_tangent(v, d, out=out),
                            (_U, _U + 1.0), (_U, _U - 0.5)),
    "tangent_to_velocity": (lambda v, d, out=None: animcore.tangent_to_velocity(v, d, out=out),
                            (_U, _U + 1.0), (_U, _U - 0.5)),
    "HermiteSegment.evaluate": (lambda e, out=None: _segment.evaluate(e, out=out),
                                (_U,), (_U + 1.5,)),
    "Curve": (lambda t, out=None: _curve(t, out=out), (_U * 3,), (_U * np.nan,)),
    "Curve.evaluate (C)": (lambda t, out=None: _curve3.evaluate(t, 1, out=out), (_U * 2,),
                           (_U - np.inf,)),
    "Curve.sample": (lambda t, out=None: _curve.sample(t, out=out), (_U * 3,), (_U * np.nan,)),
    "RotationCurve": (lambda t, out=None: _rotation(t, out=out), (_U,), (_U + 2.0,)),
    "RotationCurve.angular_velocity": (
        lambda t, out=None: _rotation.angular_velocity(t, out=out), (_U,), (_U + 2.0,)),
    "quat_multiply": (lambda a, b, out=None: animcore.quat_multiply(a, b, out=out),
                      (_Q, _Q[::-1]), (_Q, _Q + np.inf)),
    "quat_conjugate": (lambda q, out=None: animcore.quat_conjugate(q, out=out), (_Q,),
                       (_Q * np.nan,)),
    "quat_normalize": (lambda q, out=None: animcore.quat_normalize(q, out=out), (_Q * 3,),
                       (_Q * 0.0,)),
    "quat_from_axis_angle": (
        lambda a, t, out=None: animcore.quat_from_axis_angle(a, t, out=out), (_V, _U),
        (_V * 0.0, _U)),
    "quat_rotate": (lambda q, v, out=None: animcore.quat_rotate(q, v, out=out), (_Q, _V),
                    (_Q, _V * np.nan)),
    "quat_slerp": (lambda a, b, t, out=None: animcore.quat_slerp(a, b, t, out=out),
                   (_Q, _Q[::-1], _U), (_Q, _Q[::-1], _U + 2.0)),
    "quat_nlerp": (lambda a, b, t, out=None: animcore.quat_nlerp(a, b, t, out=out),
                   (_Q, _Q[::-1], _U), (_Q, _Q[::-1], _U - 2.0)),
    "ease": (lambda u, out=None: animcore.ease("smoothstep", u, out=out), (_U,), (_U * 2,)),
    "ease_inverse": (lambda s, out=None: animcore.ease_inverse("smoothstep", s, out=out),
                     (_U,), (_U + np.inf,)),
    "CubicBezier": (lambda u, out=None: animcore.CubicBezier(0.25, 0.1, 0.25, 1.0)(u, out=out),
                    (_U,), (_U + 1.5,)),
    "Steps": (lambda u, out=None: animcore.Steps(4)(u, out=out), (_U,), (_U - 1.5,)),
    "LoopTrack.delta": (lambda a, b, out=None: _walk.delta(a, b, out=out), (_U, _U * 7),
                        (_U, _U + np.inf)),
    "RootMotionCursor.advance": (
        lambda d, out=None: animcore.RootMotionCursor(_walk, np.full(np.shape(d), 0.9)).advance(
            d, out=out), (_U * 3,), (_U + np.inf,)),
    "LoopTrack.sample": (lambda p, out=None: _walk.sample(p, out=out), (_U,), (_U * 2,)),
    "bounce": (lambda v, n, out=None: animcore.bounce(v, [0.0, 0.0], n, 0.5, out=out),
               (_V[:, :2] - 1.0, np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])),
               (_V[:, :2], _V[:, :2])),
    "quat_to_matrix": (lambda q, out=None: animcore.quat_to_matrix(q, out=out), (_Q * 2,),
                       (_Q * 0.0,)),
    "quat_from_matrix": (lambda m, out=None: animcore.quat_from_matrix(m, out=out), (_M,),
                         (-_M,)),
    "quat_to_rotvec": (lambda q, out=None: animcore.quat_to_rotvec(q, out=out), (_Q,),
                       (_Q * np.nan,)),
    "quat_to_rotvec (degrees)": (
        lambda q, out=None: animcore.quat_to_rotvec(q, degrees=True, out=out), (_Q,),
        (_Q * 0.0,)),
    "quat_from_rotvec": (lambda v, out=None: animcore.quat_from_rotvec(v, out=out), (_V,),
                         (_V + np.inf,)),
    "quat_to_euler": (lambda q, out=None: animcore.quat_to_euler(q, "ZYX", out=out), (_Q,),
                      (_Q * 0.0,)),
    "quat_from_euler": (lambda a, out=None: animcore.quat_from_euler("xyz", a, out=out), (_V,),
                        (_V * np.nan,)),
    "Skeleton.world": (lambda t, r, s, out=None: _arm.world(t, r, s, out=out),
                       (_V[:, None, :] * [[1.0], [0.5]], _Q[:, None, :] * [[1], [2]],
                        np.ones((4, 2, 3)) + _U[:, None, None]),
                       (_V[:, None, :] * [[1.0], [0.5]], _Q[:, None, :] * [[1], [0]],
                        np.ones((4, 2, 3)))),
    "collide": (lambda va, vb, n, out=None: animcore.collide(
        animcore.Body(va, 1.0, center=[0.5, 0.0]), animcore.Body(vb, 0.5, 2.0), n, [0.0, 0.0],
        0.5, friction=0.3, out=out),
        (_V[:, :2] - 1.0, _V[::-1, :2], _N2), (_V[:, :2], _V[:, :2], _N2 * 2.0)),
    "contact_point_velocity": (
        lambda v, w, r, out=None: animcore.contact_point_velocity(v, w, r, out=out),
        (_V, _V[::-1], _V), (_V, _V + np.inf, _V)),
    "advance_projectiles": (
        lambda p, v, out=None: animcore.advance_projectiles(
            p, v, 0.25, 0.5, *_WALLS, [0.5, 0.9], friction=0.2, out=out),
        (_V[:, :2] * 0.2, _V[::-1, :2] * 4.0 - 3.0), (_V[:, :2] * 0.2, _V[:, :2] * np.nan)),
    "advance_projectiles (spin, events)": (
        lambda p, v, out=None: animcore.advance_projectiles(
            p, v, 0.25, 0.5, *_WALLS, [0.5, 0.9], friction=0.2, angular_velocity=1.0,
            events=True, out=out),
        (_V[:, :2] * 0.2, _V[::-1, :2] * 4.0 - 3.0), (_V[:, :2] * 0.2, _V[:, :2] + np.inf)),
    "SnapshotBuffer.sample": (lambda p, t, out=None: _buffer(p).sample(
        t[0] if len(t) else 0.0, out=out), (_V, _U + 1.5), (_V, _U * np.nan)),
    "ik_two_bone": (lambda t, p, out=None: animcore.ik_two_bone(
        [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], t, p, out=out),
        (_V, _V[::-1] + [0.0, 0.0, 1.0]), (_V * np.nan, _V)),
    "ik_aim": (lambda t, p, out=None: animcore.ik_aim(np.eye(4), [1.0, 0.0, 0.0],
                                                      [0.0, 1.0, 0.0], t, p, out=out),
               (_V, _V[::-1] * 2.0 + [0.0, 0.0, 5.0]), (_V, _V * np.nan)),
    "ik_chain": (lambda t, out=None: animcore.ik_chain(
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]], t, out=out), (_V,),
        (_V + np.inf,)),
}
_NO_SCALAR = {"SnapshotBuffer.sample"}  # its array argument sizes the object, not the call


def _buffer(positions):
    """A buffer of one entity per row of positions, with two snapshots each
    (rotations included), for sampling."""
    n = len(positions)
    buffer = animcore.SnapshotBuffer(n, 3, rotations=True)
    buffer.push(np.arange(n), 0, 0, positions, [0.0, 0.0, 0.0, 1.0])
    buffer.push(np.arange(n), 4, 0, np.asarray(positions) * 2.0 - 1.0, [0.0, 0.0, 1.0, 0.0])
    return buffer


def _flat(result) -> list:
    return list(result) if isinstance(result, tuple) else [result]


def _same(a, b):
    for x, y in zip(_flat(a), _flat(b)):
        np.testing.assert_array_equal(x, y)
        assert np.shape(x) == np.shape(y)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_input_not_modified_and_read_only_input_taken(name):
    call, args, _ = FUNCTIONS[name]
    kept = [a.copy() for a in args]
    frozen = [a.copy() for a in args]
    for a in frozen:
        a.flags.writeable = False
    _same(call(*args), call(*frozen))
    for a, b in zip(args, kept):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_non_contiguous_and_broadcast_inputs(name):
    call, args, _ = FUNCTIONS[name]
    expected = call(*args)
    strided = [np.repeat(a, 2, axis=0)[::2] for a in args]
    assert not all(a.flags.c_contiguous for a in strided)
    _same(call(*strided), expected)
    # rows repeated through a zero stride: the result repeats the first row
    first = call(*[a[:1] for a in args])
    repeated = call(*[np.broadcast_to(a[:1], a.shape) for a in args])
    for x, y in zip(_flat(repeated), _flat(first)):
        np.testing.assert_array_equal(x, np.broadcast_to(y, x.shape))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float32_input_gives_float64(name):
    call, args, _ = FUNCTIONS[name]
    narrow = [a.astype(np.float32) for a in args]
    wide = [a.astype(np.float64) for a in narrow]
    for got, want in zip(_flat(call(*narrow)), _flat(call(*wide))):
        assert got.dtype == (np.float64 if want.dtype.kind == "f" else want.dtype)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_scalar_and_empty_input(name):
    call, args, _ = FUNCTIONS[name]
    full = _flat(call(*args))
    if name not in _NO_SCALAR:
        one = _flat(call(*[a[0] if a.ndim == 1 else a[0] for a in args]))
        for x, y in zip(one, full):
            np.testing.assert_array_equal(x, y[0])
    empty = _flat(call(*[a[:0] for a in args]))
    for x, y in zip(empty, full):
        assert x.shape == (0,) + y.shape[1:]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_result_is_out_in_any_float_layout(name):
    call, args, _ = FUNCTIONS[name]
    expected = _flat(call(*args))
    wide = [np.zeros(e.shape[:-1] + (2 * e.shape[-1],) if e.ndim > 1 else (2 * e.size,),
                     e.dtype if e.dtype.kind in "iu" else np.float64) for e in expected]
    outs = [w[..., ::2] for w in wide]  # strided
    outs[0] = np.zeros(expected[0].shape, np.float32)  # and float32
    result = call(*args, out=outs[0] if len(outs) == 1 else tuple(outs))
    for r, o, e in zip(_flat(result), outs, expected):
        assert r is o
        np.testing.assert_array_equal(o, e.astype(o.dtype))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_out_untouched_on_error(name):
    call, args, bad = FUNCTIONS[name]
    expected = _flat(call(*args))
    outs = [np.full(e.shape, 7, e.dtype if e.dtype.kind in "iu" else np.float64)
            for e in expected]
    with pytest.raises(ValueError, match=name.split(" ")[0].split(".")[0]):
        call(*bad, out=outs[0] if len(outs) == 1 else tuple(outs))
    for o in outs:
        assert (o == 7.0).all()


def test_advance_projectiles_out():
    """out= of the stepping function: result is out, any float layout, in
    place on the inputs, untouched on error."""
    start = np.array([[0.0, 1.0], [0.0, 2.0]]), np.array([[1.0, -20.0], [0.0, 0.0]])
    planes = ([0.0, 0.0], [0.0, 1.0], [0.0, 0.0])
    expected = animcore.advance_projectiles(*start, 0.1, 0.1, *planes, 0.5)
    out = (np.zeros((2, 2), np.float32), np.zeros((2, 4))[:, ::2], np.zeros(2, np.int64))
    result = animcore.advance_projectiles(*start, 0.1, 0.1, *planes, 0.5, out=out)
    for r, o, e in zip(result, out, expected):
        assert r is o
        np.testing.assert_array_equal(o, e.astype(o.dtype))
    kept = [o.copy() for o in out]
    with pytest.raises(ValueError, match=r"advance_projectiles: restitution at index \(0, 0\)"):
        animcore.advance_projectiles(*start, 0.1, 0.1, *planes, 1.5, out=out)
    for o, k in zip(out, kept):
        np.testing.assert_array_equal(o, k)
    position, velocity = (a.copy() for a in start)
    animcore.advance_projectiles(position, velocity, 0.1, 0.1, *planes, 0.5,
                                 out=(position, velocity, np.zeros(2, np.intc)))
    np.testing.assert_array_equal(position, expected.position)
    np.testing.assert_array_equal(velocity, expected.velocity)


def test_snapshot_timeline_sample_many_out():
    timeline = animcore.SnapshotTimeline(2, rotations=True)
    timeline.push(0, 0, [0.0, 1.0], [0, 0, 0, 1])
    timeline.push(8, 0, [8.0, 3.0], [0, 0, 1, 0])
    ticks = np.array([1.0, 4.0, 6.0])
    expected = timeline.sample_many(ticks)
    out = (np.zeros((3, 4))[:, ::2], np.zeros((3, 4), np.float32), np.zeros(3, np.int32),
           np.zeros(3, np.int64), np.zeros(6, np.int64)[::2])
    result = timeline.sample_many(ticks, out=out)
    for r, o, e in zip(result, out, expected):
        assert r is o
        np.testing.assert_array_equal(o, e.astype(o.dtype))
    kept = [o.copy() for o in out]
    with pytest.raises(ValueError, match=r"SnapshotTimeline.sample_many: render_tick at index "
                                         r"\(1,\) is nan"):
        timeline.sample_many([1.0, np.nan, 2.0], out=out)
    for o, k in zip(out, kept):
        np.testing.assert_array_equal(o, k)
    with pytest.raises(ValueError, match=r"^SnapshotTimeline.sample_many: out\[2\] has dtype "
                                         r"float64, expected an integer dtype that holds every uint8 "
                                         r"value$"):
        timeline.sample_many(ticks, out=out[:2] + (np.zeros(3),) + out[3:])


def test_partial_broadcast_allocates_only_the_result():
    """Keys of shape (3,) against elapsed of shape (N, 1): the inputs are read
    through zero strides, never materialized at (N, 3)."""
    import tracemalloc
    keys, elapsed = np.array([0.0, 1.0, 2.0]), np.linspace(0.0, 2.0, 100_000)[:, None]
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = animcore.hermite(keys, keys + 10.0, 1.0, 0.0, 2.0, elapsed)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    output = result.position.nbytes + result.velocity.nbytes
    assert peak <= 1.2 * output


@pytest.mark.parametrize("workers", [2, 3, -1])
def test_workers_give_identical_results_and_errors(workers):
    rng = np.random.default_rng(3)
    elapsed = rng.uniform(0.0, 2.0, (300_001,))
    one = animcore.hermite(0.0, 10.0, 2.0, 0.0, 2.0, elapsed, workers=1)
    many = animcore.hermite(0.0, 10.0, 2.0, 0.0, 2.0, elapsed, workers=workers)
    _same(many, one)
    q0, q1 = rng.normal(size=(2, 100_000, 4))
    t = rng.uniform(0.0, 1.0, 100_000)
    np.testing.assert_array_equal(animcore.quat_slerp(q0, q1, t, workers=workers),
                                  animcore.quat_slerp(q0, q1, t))
    curve = animcore.Curve(np.sort(rng.uniform(0, 10, 50)), rng.normal(size=(50, 3)))
    _same(curve.sample(elapsed * 5, workers=workers), curve.sample(elapsed * 5))
    elapsed[[140_000, 160_000, 260_000]] = 3.0  # the first bad one, whatever the split
    with pytest.raises(ValueError, match=r"hermite: elapsed at index \(140000,\) is 3.0"):
        animcore.hermite(0.0, 10.0, 2.0, 0.0, 2.0, elapsed, workers=workers)


def test_matrix_items_read_and_written_in_any_layout():
    """(3, 3) items are walked by both of their strides: transposed (column-major)
    matrices in, matrices written into a transposed float32 view out."""
    matrices = animcore.quat_to_matrix(_Q)
    columns = matrices.transpose(0, 2, 1)  # each item column-major: stride 8 between rows
    np.testing.assert_array_equal(animcore.quat_from_matrix(columns),
                                  animcore.quat_from_matrix(np.ascontiguousarray(columns)))
    out = np.zeros((4, 3, 3), np.float32).transpose(0, 2, 1)
    assert animcore.quat_to_matrix(_Q, out=out) is out
    np.testing.assert_array_equal(out, matrices.astype(np.float32))
    with pytest.raises(ValueError, match=r"^quat_from_matrix: matrix must have shape "
                                         r"\(\.\.\., 3, 3\), got shape \(4, 3\)$"):
        animcore.quat_from_matrix(np.eye(4)[:, :3])
    with pytest.raises(ValueError, match=r"^quat_to_matrix: out\[0\] has shape \(4, 9\), "
                                         r"expected \(4, 3, 3\)$"):
        animcore.quat_to_matrix(_Q, out=np.zeros((4, 9)))


# -- the same conventions for the calls that change an object: an error
# leaves the object exactly as it was (what out= is to the functions above)

_T = np.array([10, 12, 14, 16])
PUSHES = {
    "SnapshotBuffer.push": (
        lambda: animcore.SnapshotBuffer(4, 3), lambda b, e, t, p: b.push(e, t, 0, p),
        (np.arange(4), _T, _V), (np.arange(4), _T * [1, 1, -1, 1], _V)),
    "SnapshotBuffer.push (rotations)": (
        lambda: animcore.SnapshotBuffer(4, 3, rotations=True),
        lambda b, e, t, p, q: b.push(e, t, 0, p, q, generation=t),
        (np.arange(4), _T, _V, _Q), (np.arange(4) + 1, _T, _V, _Q)),
    "SnapshotTimeline.push_many": (
        lambda: animcore.SnapshotTimeline(3), lambda tl, t, p: tl.push_many(t, t // 4, p),
        (_T, _V), (_T * [1, 1, 1, 2**30], _V)),
    "SnapshotTimeline.push_many (rotations)": (
        lambda: animcore.SnapshotTimeline(3, rotations=True),
        lambda tl, t, p, q: tl.push_many(t, 0, p, q), (_T, _V, _Q), (_T + [0, 0, 0.5, 0], _V, _Q)),
}


def _pushed(name, args):
    make, push, _, _ = PUSHES[name]
    target = make()
    return push(target, *args), target


@pytest.mark.parametrize("name", PUSHES)
def test_push_input_not_modified_and_read_only_input_taken(name):
    args = PUSHES[name][2]
    kept = [a.copy() for a in args]
    frozen = [a.copy() for a in args]
    for a in frozen:
        a.flags.writeable = False
    codes, target = _pushed(name, args)
    frozen_codes, frozen_target = _pushed(name, frozen)
    np.testing.assert_array_equal(codes, frozen_codes)
    assert target == frozen_target and len(target.snapshots(0).tick if isinstance(
        target, animcore.SnapshotBuffer) else target.snapshots().tick) > 0
    for a, b in zip(args, kept):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", PUSHES)
def test_push_non_contiguous_float32_and_int_inputs(name):
    args = PUSHES[name][2]
    codes, expected = _pushed(name, args)
    strided = [np.repeat(a, 2, axis=0)[::2] for a in args]
    assert not any(a.flags.c_contiguous for a in strided)
    narrow = [a.astype(np.float32) for a in args]
    wide_codes, wide = _pushed(name, [a.astype(np.float64) for a in narrow])
    for variant, want_codes, want in ((strided, codes, expected), (narrow, wide_codes, wide),
                                      ([a.astype(np.int16) if a is _T else a for a in args],
                                       codes, expected)):
        got_codes, got = _pushed(name, variant)
        assert got_codes.dtype == np.uint8
        np.testing.assert_array_equal(got_codes, want_codes)
        assert got == want


@pytest.mark.parametrize("name", PUSHES)
def test_push_scalar_and_empty_input(name):
    make, _, args, _ = PUSHES[name]
    code, one = _pushed(name, [a[0] for a in args])
    first_codes, first = _pushed(name, [a[:1] for a in args])
    assert isinstance(code, animcore.PushResult) and code == first_codes[0]
    assert one == first
    codes, empty = _pushed(name, [a[:0] for a in args])
    assert codes.shape == (0,) and codes.dtype == np.uint8 and empty == make()


@pytest.mark.parametrize("name", PUSHES)
def test_push_state_untouched_on_error(name):
    import pickle
    make, push, args, bad = PUSHES[name]
    _, target = _pushed(name, [a[:2] for a in args])  # some state to keep
    before = pickle.loads(pickle.dumps(target))
    with pytest.raises(ValueError, match=name.split(" ")[0]):
        push(target, *bad)
    assert target == before
