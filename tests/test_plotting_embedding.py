"""Embedding figures readable on a projector and at 10k+ points (mlviz.plotting.embedding)."""

import numpy as np
import plotly.graph_objects as go
import pytest

from mlviz import plotting as mp

RNG = np.random.default_rng(3)


def _labels(fig):
    return [t for t in fig.data if t.meta == "labels"]


@pytest.mark.parametrize("n", [200, 5000])
def test_label_markers_are_drawn_above_the_instances(n):
    X = RNG.normal(size=(n, 2))
    fig = mp.embedding_scatter(X, RNG.normal(size=(6, 2)), list("abcdef"), color=RNG.random(n),
                               test_coords=X[:50])
    inst = [t for t in fig.data if t.meta in ("train", "test")]
    labels = _labels(fig)
    # same rendering class (WebGL is painted above SVG whatever the order) and drawn last
    assert {type(t) for t in inst} == {type(labels[-1])}
    assert type(labels[-1]) is (go.Scattergl if n > 1000 else go.Scatter)
    assert fig.data[-1] is labels[-1] and labels[-1].mode == "markers+text"
    assert max(i for i, t in enumerate(fig.data) if t.meta in ("train", "test")) < len(fig.data) - 1


def test_point_size_and_opacity_follow_n():
    s100, o100 = mp.point_style(100)
    s20k, o20k = mp.point_style(20_000)
    assert (s100, o100) == pytest.approx((7.5, 0.9))
    assert s20k < s100 and o20k < o100 and s20k >= 2.5 and o20k >= 0.35
    fig = mp.embedding_scatter(RNG.normal(size=(20_000, 2)), RNG.normal(size=(3, 2)), list("abc"))
    (inst,) = [t for t in fig.data if t.meta == "train"]
    assert isinstance(inst, go.Scattergl)
    assert (inst.marker.size, inst.marker.opacity) == pytest.approx(mp.point_style(20_000))
    assert len(inst.customdata) == 20_000 and fig.layout.dragmode == "lasso"


def test_only_focused_labels_get_markers_and_names():
    L = 300
    Lc = RNG.normal(size=(L, 2))
    freq = RNG.integers(1, 1000, L)
    names = [f"tag{j}" for j in range(L)]
    fig = mp.embedding_scatter(RNG.normal(size=(400, 2)), Lc, names, label_weights=freq, max_label_names=25)
    other, shown = _labels(fig)
    top = np.sort(np.argsort(-freq, kind="stable")[:25])
    np.testing.assert_array_equal(shown.customdata, top)
    assert list(shown.hovertext) == [names[j] for j in top]
    assert other.visible == "legendonly" and other.mode == "markers" and len(other.x) == L - 25
    assert other.name == f"other labels ({L - 25})"
    assert "25 of 300 label markers drawn" in fig.layout.title.subtitle.text
    hand = mp.embedding_scatter(RNG.normal(size=(40, 2)), Lc, names, focus_labels=[7, 3, 7, 999])
    np.testing.assert_array_equal(_labels(hand)[-1].customdata, [7, 3])
    # selection still maps curve + customdata back to label indices
    ids = mp.selection_ids(fig, [{"curve_number": len(fig.data) - 1, "customdata": int(top[2])},
                                 {"curve_number": len(fig.data) - 2, "customdata": 1}])
    assert set(ids["labels"]) == {int(top[2]), 1}


def test_3d_colour_bar_legend_and_titles_do_not_collide():
    n = 300
    X = RNG.normal(size=(n, 3))
    fig = mp.embedding_scatter(X, RNG.normal(size=(4, 3)), list("abcd"), color=RNG.random(n),
                               color_title="P(y=1|x)", dims=3, test_coords=X[:20])
    (inst,) = [t for t in fig.data if t.meta == "train"]
    cb = inst.marker.colorbar
    assert cb.title.text == "P(y=1|x)"
    assert fig.layout.legend.title.text is None                     # the colour title once, not twice
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y <= 0   # legend below, bar at right
    assert cb.x >= max(fig.layout.scene.domain.x)                    # bar right of the 3-D scene
    assert fig.layout.scene.xaxis.title.text == "dimension 1"        # short: not clipped
    (test,) = [t for t in fig.data if t.meta == "test"]
    assert test.marker.symbol == "cross" and test.marker.symbol in mp.embedding.SAFE_3D_SYMBOLS
    cat = mp.embedding_scatter(X[:, :2], RNG.normal(size=(4, 2)), list("abcd"), color=X[:, 0] > 0,
                               color_title="label: a")
    assert cat.layout.legend.title.text == "label: a"                # categorical: legend title only


@pytest.mark.parametrize("text_scale", [1.0, 1.5])
def test_written_label_names_do_not_overlap(text_scale):
    """... nor run past the plot's edges, at the size they are drawn (``text_scale``: presentation mode's larger
    text, where a name beside a diamond near the right edge ran past it)."""
    L = 40
    Lc = RNG.normal(size=(L, 2)) * 0.3            # crowded
    names = [f"label_name_{j}" for j in range(L)]
    fig = mp.embedding_scatter(RNG.normal(size=(500, 2)), Lc, names, max_label_names=40, text_scale=text_scale)
    (lab,) = _labels(fig)
    lay = fig.to_plotly_json()["layout"]
    xr, yr = lay["xaxis"]["range"], lay["yaxis"]["range"]
    assert min(lab.x) >= xr[0] and max(lab.x) <= xr[1]
    written = [k for k, t in enumerate(lab.text) if t]
    assert 0 < len(written) < L
    assert "names hidden where they would overlap: hover a diamond" in fig.layout.title.subtitle.text
    m = lay["margin"]
    for width in (800, 1600):
        pw, ph = width - m["l"] - m["r"], lay["height"] - m["t"] - m["b"]   # legend below: full width
        sx, sy = pw / (xr[1] - xr[0]), ph / (yr[1] - yr[0])
        fs = lab.textfont.size * text_scale
        boxes = []
        for k in written:
            cx, cy = (lab.x[k] - xr[0]) * sx, (lab.y[k] - yr[0]) * sy
            w, h, off = 0.6 * fs * len(lab.text[k]), 1.25 * fs, 7 + 3
            side = lab.textposition[k]
            boxes.append({"middle right": (cx + off, cy - h / 2, cx + off + w, cy + h / 2),
                          "middle left": (cx - off - w, cy - h / 2, cx - off, cy + h / 2),
                          "top center": (cx - w / 2, cy + off, cx + w / 2, cy + off + h),
                          "bottom center": (cx - w / 2, cy - off - h, cx + w / 2, cy - off)}[side])
        assert all(b[0] >= -1 and b[2] <= pw + 1 for b in boxes), width
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
    assert list(lab.hovertext) == names                              # every name on hover
