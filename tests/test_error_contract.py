"""The error record between the C core and the binding is data: argument ids and
reasons, never strings the binding compares, and C messages use no Python words."""
import pathlib
import re

import numpy as np
import pytest

import animcore as ac

CSRC = pathlib.Path(__file__).resolve().parent.parent / "csrc"


def _strings(path):
    """The string literals of a C file, comments removed."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    return re.findall(r'"((?:[^"\\\n]|\\.)*)"', text)


def test_the_binding_never_compares_error_strings():
    for path in sorted((CSRC / "python").glob("*.c")):
        text = path.read_text()
        for call in re.findall(r"\b(?:strcmp|strncmp|strstr)\s*\(([^;]*)", text):
            assert "err" not in call, f"{path.name}: {call}"
        assert not re.search(r"\berr(?:\.|->)arg\s*=\s*[a-z\"]", text), path.name


def test_the_error_record_names_its_argument_by_id():
    header = (CSRC / "animcore.h").read_text()
    record = re.search(r"typedef struct ac_error \{(.*?)\} ac_error;", header, re.S).group(1)
    assert re.search(r"\bac_arg arg;", record)
    assert "char *arg" not in record
    # every id the core reports is declared once, with its C spelling in ac_status.c
    ids = re.findall(r"^\s+(AC_ARG_[A-Z0-9_]+)", re.search(
        r"typedef enum ac_arg \{(.*?)\} ac_arg;", header, re.S).group(1), re.M)
    names = dict(re.findall(r"\[(AC_ARG_[A-Z0-9_]+)\] = \"(.*?)\"",
                            (CSRC / "ac_status.c").read_text()))
    assert len(ids) == len(set(ids)) > 100
    assert set(ids) - {"AC_ARG_ID_COUNT"} == set(names)
    used = set()
    for path in CSRC.glob("ac_*.c"):
        used |= set(re.findall(r"\bAC_ARG_[A-Z0-9_]+", path.read_text()))
    assert used <= set(ids)


@pytest.mark.parametrize("path", sorted(CSRC.glob("ac_*.c")), ids=lambda p: p.name)
def test_c_messages_use_no_python_spelling(path):
    for s in _strings(path):
        assert not re.search(r"=\s*'|=True|=False|\bNone\b|\bTrue\b|\bFalse\b|'error'", s), s


# The binding adds the Python spelling of the settings the core reports as reasons.
@pytest.mark.parametrize("call, message", [
    (lambda: ac.Curve([0, 1, 1], [0, 1, 2]),
     r"^Curve: times at index \(2,\) is 1.0 \(equals the previous time \(a jump needs "
     r"jumps=True\)\)$"),
    (lambda: ac.Curve([1, 3], [0, 1], after="error").evaluate([2, 3.5]),
     r"^Curve.evaluate: t at index \(1,\) is 3.5 \(must lie in \[1, 3\] \(after='error'\)\)$"),
    (lambda: ac.Curve([1, 3], [0, 1], before="error").evaluate(0.5),
     r"^Curve.evaluate: t is 0.5 \(must lie in \[1, 3\] \(before='error'\)\)$"),
    (lambda: ac.RotationCurve([0, 2], [[0, 0, 0, 1], [0, 0, 1, 0]], after="error").evaluate(
        [1, 2.5]),
     r"^RotationCurve.evaluate: t at index \(1,\) is 2.5 \(must lie in \[0, 2\] "
     r"\(after='error'\)\)$"),  # the words of every key track
])
def test_reasons_read_in_python_words(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# Errors of the entry points on the declared binding name the function, the
# argument, the index in the broadcast shape (items' own axes included: a
# skeleton's joint) and the value.
_Q2 = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.6, 0.0, 0.8]])


@pytest.mark.parametrize("call, message", [
    (lambda: ac.quat_to_matrix(np.stack([_Q2, _Q2 * [[1], [0]]])),
     r"^quat_to_matrix: \|q\| at index \(1, 1\) is 0.0 \(must be > 0"),
    (lambda: ac.quat_from_matrix(-ac.quat_to_matrix(_Q2)[None]),
     r"^quat_from_matrix: det\(matrix\) at index \(0, 0\) is -1.0 \(must be > 0"),
    (lambda: ac.quat_to_euler(np.broadcast_to(_Q2 * [[1], [np.nan]], (3, 2, 4)), "xyz"),
     r"^quat_to_euler: q at index \(0, 1\) is nan \(must be finite\)$"),
    (lambda: ac.quat_from_rotvec([[0, 0, 1.0], [np.inf, 0, 0]]),
     r"^quat_from_rotvec: rotvec at index \(1,\) is inf \(must be finite\)$"),
    (lambda: ac.Skeleton([-1, 0]).world(rotation=np.stack([_Q2[[0, 0]], [_Q2[0], 0 * _Q2[0]]])),
     r"^Skeleton.world: \|rotation\| at index \(1, 1\) is 0.0 \(must be > 0"),
    (lambda: ac.Curve.from_handles([0, 1, 2.0], [0, np.nan, 1], [[-0.3, 0], [0.7, 2], [1.7, 1]],
                                   [[0.3, 0], [1.3, 2], [2.3, 1]]),  # (an OverflowError on left)
     r"^Curve.from_handles: values at index \(1,\) is nan \(must be finite\)$"),
    (lambda: ac.SnapshotTimeline(1).push_many([0, 1], [0, None], [0.0, 1.0]),  # (not "0 is big")
     r"^SnapshotTimeline.push_many: segment at index \(1,\) is None \(must be an integer\)$"),
    (lambda: ac.SnapshotTimeline(1).push_many([0, 2**70], [0, 0], [0.0, 1.0]),
     r"^SnapshotTimeline.push_many: tick at index \(1,\) is 1180591620717411303424 \(must fit in "
     r"int64\)$"),
    (lambda: ac.quat_to_euler([0, 0, 0, 1.0], "xyz", degrees=np.array([1, 0])),  # (NumPy's
     r"^quat_to_euler: degrees is array\(\[1, 0\]\) \(must be True or False\)$"),           # truth error)
    (lambda: ac.Curve([0, 1], [0, 1.0], before=np.array(["cycle", "clamp"])),
     r"^Curve: before is array\("),
    (lambda: ac.blend_many(None, [1.0]),  # (TypeErrors before)
     r"^blend_many: poses must be a sequence of poses, got NoneType$"),
    (lambda: ac.BlendSpace([0.0, 1.0], None),
     r"^BlendSpace: clips must be a sequence of clips, got NoneType$"),
    (lambda: ac.collide({"velocity": [0, 1.0], "mass": 2}, ac.Body([0.0, 0.0], 1.0), [0, 1.0],
                        [0.0, 0.0], 0.5),
     r"^collide: a: .*unexpected keyword argument 'mass'$"),
    (lambda: ac.ik_chain([[0, 0, 0], [0, 1]], [0, 2, 0]),  # (NumPy's own message)
     r"^ik_chain: positions is a ragged nested sequence"),
    (lambda: ac.HermiteSegment(0.0, 1.0, 0.5, 0.2, np.complex128(2 + 3j)),  # (not 2.0)
     r"^HermiteSegment: duration must be a real number, got .*2\+3j\)?$"),
    (lambda: ac.reduce_keys(ac.Curve([0, 1, 2], [0, 1, 0]), np.complex64(1e-3)),
     r"^reduce_keys: tolerance must be a real number, got "),
    (lambda: ac.decompose(np.stack([np.eye(4), np.zeros((4, 4))])),
     r"^decompose: matrix at index \(1,\) is 0.0 \(must be affine"),
    (lambda: ac.decompose(np.stack([np.eye(4), np.array(np.eye(4)[[0, 1, 2, 0]])])),
     r"^decompose: matrix at index \(1,\) is 1.0 \(must be affine: the last row must be "
     r"0 0 0 1; this is its element \[3, 0\]\)$"),
    (lambda: ac.RootMotionCursor(ac.LoopTrack([0, 1], [0, 2]), [[0.0, 0.5]]).advance(
        [0.1, np.inf]), r"^RootMotionCursor.advance: dt at index \(0, 1\) is inf \(must be finite\)$"),
    (lambda: ac.collide(ac.Body([[1.0, 0], [1, 0]], 1.0), ac.Body([0.0, 0], 1.0),
                        [[1.0, 0], [2, 0]], [0.0, 0], 0.5),
     r"^collide: normal \. normal at index \(1,\) is 4.0 \(must lie within 1e-12 of 1"),
    (lambda: ac.SnapshotTimeline(1).sample_many([[1.0], [np.nan]]),
     r"^SnapshotTimeline.sample_many: render_tick at index \(1, 0\) is nan \(must be finite\)$"),
])
def test_declared_entry_points_name_function_argument_index_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()
