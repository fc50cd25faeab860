"""plot() and Jupyter display of curves and tracks, checked on the drawn data."""
import base64
import math
import sys

import numpy as np
import pytest

import animcore

mpl = pytest.importorskip("matplotlib")
from matplotlib.figure import Figure  # noqa: E402


def axes():
    return Figure().add_subplot()


def lines_by_label(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_curve_velocity_shares_one_axis_honours_colour_and_is_in_the_legend():
    ax = axes()
    a = animcore.Curve([0, 1, 2, 3], [0, 60, 60, 0])
    b = animcore.Curve([0, 1, 2, 3], [0, 60, 60, 0], interpolation="linear")
    got_a = a.plot(ax, velocity=True, color="tab:red", label="a")
    got_b = b.plot(ax, velocity=True, color="tab:green", label="b")
    assert got_a[0] is ax and got_b[0] is ax and got_a[1] is got_b[1]
    twin = got_a[1]
    assert len(ax.figure.axes) == 2  # one right-hand axis, not one per curve
    assert [line.get_color() for line in twin.get_lines()] == ["tab:red", "tab:green"]
    legend = [text.get_text() for text in ax.legend().get_texts()]
    assert legend == ["a", "a velocity", "b", "b velocity"]
    # the velocity line is the slope of the value line (a finite difference of what is
    # drawn), away from the keys: the default (Blender's) handles bend sharply into the
    # flat keys of the hold, where a central difference across a key is not the slope
    value, rate = lines_by_label(ax)["a"], twin.get_lines()[0]
    t, x = value.get_data()
    np.testing.assert_array_equal(rate.get_xdata(), t)
    inner = slice(5, -5)
    clear = (np.abs(t[:, None] - np.array([1.0, 2.0])) > 0.02).all(axis=1)[inner]
    np.testing.assert_allclose(rate.get_ydata()[inner][clear], np.gradient(x, t)[inner][clear],
                               atol=0.2)


def test_curve_plot_without_velocity_returns_its_axes_and_marks_the_keys():
    ax = axes()
    assert animcore.Curve([0, 1, 2], [[0, 1], [2, 3], [4, 5]]).plot(ax) is ax
    markers = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert len(markers) == 2 and list(markers[1].get_ydata()) == [1, 3, 5]
    assert ax.get_xlabel() == "time (s)"


def test_rotation_curve_plot_draws_components_and_angular_speed():
    ax = axes()
    half = math.sqrt(0.5)
    curve = animcore.RotationCurve([0, 1], [[0, 0, 0, 1], [0, half, 0, half]])  # 90 deg about y
    got, twin = curve.plot(ax, angular_velocity=True)
    lines = lines_by_label(got)
    t = lines["y"].get_xdata()
    np.testing.assert_allclose(lines["y"].get_ydata(), np.sin(np.radians(45) * t), atol=1e-12)
    np.testing.assert_allclose(lines["w"].get_ydata(), np.cos(np.radians(45) * t), atol=1e-12)
    np.testing.assert_allclose(twin.get_lines()[0].get_ydata(), 90.0, atol=1e-9)  # deg/s
    assert "angular speed" in [text.get_text() for text in ax.legend().get_texts()]


def test_loop_track_plot_unrolls_the_path_and_breaks_the_local_track_at_seams():
    ax = axes()
    times, keys = [0.0, 0.25, 0.75, 1.0], [0.0, 0.2, 1.7, 2.0]
    assert animcore.LoopTrack(times, keys).plot(ax, cycles=3, samples=301) is ax
    lines = lines_by_label(ax)
    t, unrolled = lines["unrolled path"].get_data()
    k, u = np.floor(t), t - np.floor(t)
    np.testing.assert_allclose(unrolled, 2.0 * k + np.interp(u, times, keys), atol=1e-12)
    local = lines["local track p(u)"].get_ydata()
    finite = np.isfinite(local)
    np.testing.assert_allclose(local[finite], np.interp(u, times, keys)[finite], atol=1e-12)
    assert np.all(np.abs(np.diff(local)[np.isfinite(np.diff(local))]) < 0.1)  # no seam jump drawn


def test_loop_track_plot_of_a_turning_walk_closes_the_square():
    ax = axes()
    square = animcore.LoopTrack([0.0, 1.0], [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
                                rotations=[0.0, math.pi / 2])
    square.plot(ax, cycles=4, samples=401)
    lines = lines_by_label(ax)
    t, x = lines["unrolled path[0]"].get_data()
    z = lines["unrolled path[2]"].get_ydata()
    corners = [np.searchsorted(t, c) for c in (1, 2, 3, 4)]
    np.testing.assert_allclose(np.c_[x[corners], z[corners]], [[0, 1], [1, 1], [1, 0], [0, 0]],
                               atol=1e-9)


def test_snapshot_timeline_plot_never_draws_across_a_teleport():
    timeline = animcore.SnapshotTimeline()
    for tick, segment, position in [(100, 0, 0.0), (102, 0, 2.0), (104, 1, 102.0), (106, 1, 104.0)]:
        timeline.push(tick, segment, position)
    ax = axes()
    assert timeline.plot(ax) is ax
    lines = lines_by_label(ax)
    assert {"interpolate", "segment_cut", "snapshots, segment 0", "snapshots, segment 1"} <= set(lines)
    np.testing.assert_array_equal(lines["snapshots, segment 1"].get_xdata(), [104, 106])
    for name in ("interpolate", "segment_cut", "hold_oldest", "hold_latest"):
        y = lines[name].get_ydata()
        steps = np.diff(y)
        assert np.all(np.abs(steps[np.isfinite(steps)]) < 10), name
    cut = lines["segment_cut"].get_ydata()
    assert np.nanmin(cut) == np.nanmax(cut) == 102.0  # the right-hand snapshot, held


def test_snapshot_timeline_plot_rejects_a_missing_channel():
    timeline = animcore.SnapshotTimeline(2)
    timeline.push(1, 0, [0.0, 1.0])
    with pytest.raises(ValueError, match=r"SnapshotTimeline.plot: channel is 2 \(must lie in \[0, 1\]\)"):
        timeline.plot(axes(), channel=2)


def _objects():
    timeline = animcore.SnapshotTimeline()
    timeline.push(1, 0, 0.0)
    timeline.push(3, 0, 1.0)
    return [animcore.Curve([0, 1, 2], [0, 1, 0]),
            animcore.RotationCurve([0, 1], [[0, 0, 0, 1], [0, 0, 1, 0]]),
            animcore.LoopTrack([0, 1], [0, 2]), timeline]


@pytest.mark.parametrize("obj", _objects(), ids=lambda o: type(o).__name__)
def test_jupyter_shows_the_repr_above_a_figure(obj, monkeypatch):
    import html
    import io

    from matplotlib.image import imread

    shown = obj._repr_html_()
    assert shown.startswith(f"<pre>{html.escape(repr(obj))}</pre>")
    png = base64.b64decode(shown.split("base64,")[1].split('"')[0])
    assert png.startswith(b"\x89PNG") and imread(io.BytesIO(png)).shape[:2] == (270, 495)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # matplotlib not installed
    assert obj._repr_html_() is None  # Jupyter falls back to the text repr


@pytest.mark.parametrize("obj", _objects(), ids=lambda o: type(o).__name__)
def test_plot_without_matplotlib_says_how_to_install_it(obj, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=rf"{type(obj).__name__}.plot needs matplotlib, which "
                                          r"is not installed: pip install matplotlib"):
        obj.plot()


# -- the last velocity sample, rigs and the short displays of #28's newcomer items

def test_curve_velocity_plot_ends_on_the_velocity_the_curve_arrives_with():
    curve = animcore.Curve([0, 1, 2, 3], [0, 60, 60, 0], tangents="catmull_rom")
    ax = axes()
    _, twin = curve.plot(ax, velocity=True)
    t, v = twin.lines[0].get_data()
    assert t[-1] == 3.0
    # Catmull-Rom: the last key's in-velocity is the slope of the last segment, -60
    assert v[-1] == pytest.approx(-60.0) and v[-2] == pytest.approx(-60.0, rel=1e-2)


def _node(i, name, parent, children, offset=(0.0, 0.0, 0.0)):
    from animcore.model import Node
    return Node(i, name, parent, children, np.array(offset, float), np.array([0, 0, 0, 1.0]),
                np.ones(3))


def _fork_scene():
    from animcore.model import Scene
    names = ["Hips", "LeftUpLeg", "RightUpLeg", "Spine"]
    offsets = [[0, 1, 0], [0.2, -0.1, 0], [-0.2, -0.1, 0], [0, 0.3, 0]]
    parents = [-1, 0, 0, 0]
    nodes = tuple(_node(i, n, p, tuple(j for j, q in enumerate(parents) if q == i), o)
                  for i, (n, o, p) in enumerate(zip(names, offsets, parents)))
    return Scene(nodes=nodes, scenes=((0,),), scene=0, skins=(), clips=())


def test_scene_plot_draws_each_bone_coloured_by_side_with_time_labels_and_units():
    scene = _fork_scene()
    ax = axes()
    scene.plot(None, [0.0, 0.5], ax=ax, units="cm")
    bones = [line for line in ax.lines if len(line.get_xdata()) == 2]
    assert len(bones) == 2 * 3  # three bones per pose, two poses
    by_end = {tuple(np.round(line.get_xydata()[1], 6)): line.get_color() for line in bones}
    assert by_end[(0.2, 0.9)] == "tab:red" and by_end[(-0.2, 0.9)] == "tab:blue"
    assert by_end[(0.0, 1.3)] == "0.35"
    # the hip joint at (0, 1) is each bone's start: world positions of the rest pose
    assert all(tuple(np.round(line.get_xydata()[0], 6)) == (0.0, 1.0) for line in bones)
    assert sorted(text.get_text() for text in ax.texts) == ["t = 0 s", "t = 0.5 s"]
    assert ax.get_xlabel() == "x (cm)" and ax.get_ylabel() == "y (cm)"
    with pytest.raises(ValueError, match="Scene.plot: up is 'w'"):
        scene.plot(up="w")


@pytest.mark.parametrize("name, side", [("LeftArm", "left"), ("mixamorig:RightHand", "right"),
                                        ("L_foot", "left"), ("hand.R", "right"),
                                        ("LHipJoint", "left"), ("thigh_r", "right"),
                                        ("Hips", None), ("Lower", None), ("Spine1", None)])
def test_joint_side_reads_the_names_mirror_pairs(name, side):
    from animcore.plotting import joint_side
    assert joint_side(name) == side


def test_rich_displays_stay_short_for_a_large_rig():
    from animcore.model import Clip, Scene
    count = 400
    nodes = tuple(_node(i, f"joint{i}", i - 1, (i + 1,) if i + 1 < count else ())
                  for i in range(count))
    scene = Scene(nodes=nodes, scenes=((0,),), scene=0, skins=(),
                  clips=tuple(Clip(f"take{i}", 1.0, ()) for i in range(50)))
    shown = [scene, scene.skeleton, scene.clips[0], animcore.Ease("back_out"),
             animcore.CubicBezier(0.3, -0.5, 0.7, 1.5), animcore.Steps(4),
             animcore.SnapshotBuffer(1000, 3, capacity=8),
             animcore.RootMotionCursor(animcore.LoopTrack([0, 1], [0, 1]), np.zeros(1000))]
    for obj in shown:
        text = obj._repr_html_()
        assert text.startswith("<") and len(text) < 2000, (type(obj).__name__, len(text))
    assert "and 392 more" in scene.skeleton._repr_html_()
    assert len(repr(scene)) < 300
    pose = scene.pose(None, np.linspace(0, 1, 23))
    assert repr(pose) == ("Transforms(translation=<float64 array 23x400x3>, "
                          "rotation=<float64 array 23x400x4>, scale=<float64 array 23x400x3>)")


def test_easing_display_graphs_the_easing_it_names():
    import re

    from reference import penner

    text = animcore.Ease("back_out")._repr_html_()
    points = np.array([p.split(",") for p in re.search(r"points='([^']*)'", text)[1].split()],
                      float)
    u = np.linspace(0, 1, 49)
    s = penner("back_out", u)  # Penner's equation, overshooting past 1
    # the drawing maps u and s linearly to pixels (y downwards): recover s from it
    ys = points[:, 1]
    recovered = (ys[0] - ys) / (ys[0] - ys[-1])
    np.testing.assert_allclose(recovered, s, atol=0.01)
