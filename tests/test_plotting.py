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
    # the velocity line is the slope of the value line (a finite difference of what is drawn)
    value, rate = lines_by_label(ax)["a"], twin.get_lines()[0]
    t, x = value.get_data()
    np.testing.assert_array_equal(rate.get_xdata(), t)
    inner = slice(5, -5)
    np.testing.assert_allclose(rate.get_ydata()[inner], np.gradient(x, t)[inner], atol=0.2)


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
