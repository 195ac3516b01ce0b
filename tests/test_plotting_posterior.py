"""Posterior figures at scale and with their decision rule drawn (mlviz.plotting.posterior)."""

import numpy as np
import pytest

from mlviz import plotting as mp
from mlviz.metrics import RCut

RNG = np.random.default_rng(5)
N, L = 400, 80
Y = (RNG.random((N, L)) < np.linspace(0.02, 0.5, L)).astype(np.uint8)
P = np.clip(0.6 * Y + 0.5 * RNG.random((N, L)) - 0.05, 0, 1)
NAMES = [f"l{j}" for j in range(L)]


def _trace(fig, name):
    (t,) = [t for t in fig.data if t.name == name]
    return t


def test_threshold_panel_draws_every_decision():
    fig = mp.posterior_heatmap(P[:50, :6], Y[:50, :6], NAMES[:6], threshold=0.4)
    hp, hy, hd = _trace(fig, "P(y=1|x)"), _trace(fig, "true Y"), _trace(fig, "decision")
    z, zp, zy = np.asarray(hd.z), np.asarray(hp.z), np.asarray(hy.z)
    # cell by cell: 0 TN, 1 FP, 2 FN, 3 TP under P >= 0.4
    np.testing.assert_array_equal(z, 2 * zy + (zp >= np.float32(0.4)))
    assert list(hd.colorbar.ticktext) == ["TN", "FP", "FN", "TP"]
    assert any("decision<br>at t = 0.40" in a.text for a in fig.layout.annotations)
    assert hd.y == hp.y and hd.x == hp.x
    per = np.linspace(0.1, 0.9, 6)
    zper = np.asarray(_trace(mp.posterior_heatmap(P[:50, :6], Y[:50, :6], NAMES[:6], threshold=per),
                             "decision").z)
    np.testing.assert_array_equal(zper, 2 * zy + (zp >= per[None, :].astype(np.float32)))
    top1 = np.asarray(_trace(mp.posterior_heatmap(P[:50, :6], Y[:50, :6], NAMES[:6], threshold=RCut(1)),
                             "decision").z)
    assert ((top1 % 2) == 1).sum(axis=1).tolist() == [1] * 50          # one predicted label per row


def test_many_labels_full_width_selection_strip_and_sample():
    fig = mp.posterior_heatmap(P, Y, NAMES, max_labels=20, max_instances=150)
    hp = _trace(fig, "P(y=1|x)")
    freq = Y.sum(axis=0)
    top = sorted(np.argsort(-freq, kind="stable")[:20])
    assert list(hp.x) == [NAMES[j] for j in top]
    assert len(hp.y) == 150 and len(set(hp.y)) == 150
    rows = [int(v) for v in hp.y]
    np.testing.assert_allclose(hp.z, P[np.ix_(rows, top)].astype(np.float32))
    strip = _trace(fig, "per-label AUC / F1")
    assert np.asarray(strip.z).shape == (2, L)
    auc, f1 = mp.per_label_scores(Y, P, 0.5)
    order = np.argsort(-auc, kind="stable")
    np.testing.assert_allclose(np.asarray(strip.z)[0], auc[order].astype(np.float32))
    np.testing.assert_allclose(np.asarray(strip.z)[1], f1[order].astype(np.float32))
    assert [c for c in np.asarray(strip.customdata)[0]] == [NAMES[j] for j in order]
    notes = fig.layout.title.subtitle.text
    assert "showing 150 of 400 test instances" in notes and "20 of 80 labels" in notes


def test_per_label_scores_match_scikit_learn():
    sk = pytest.importorskip("sklearn.metrics")
    auc, f1 = mp.per_label_scores(Y, P, 0.5)
    for j in (3, 40, 79):
        assert auc[j] == pytest.approx(sk.roc_auc_score(Y[:, j], P[:, j]))
        assert f1[j] == pytest.approx(sk.f1_score(Y[:, j], P[:, j] >= 0.5))
    none = np.zeros((5, 1))
    a, f = mp.per_label_scores(none, np.full((5, 1), 0.1))
    assert np.isnan(a[0]) and np.isnan(f[0])


def test_label_and_instance_ordering():
    fig = mp.posterior_heatmap(P[:100, :12], Y[:100, :12], NAMES[:12], label_order="frequency")
    freq = Y[:100, :12].sum(axis=0)
    xs = [int(x[1:]) for x in _trace(fig, "P(y=1|x)").x]
    assert list(freq[xs]) == sorted(freq, reverse=True)
    clu = mp.posterior_heatmap(P[:100, :12], Y[:100, :12], NAMES[:12], label_order="cluster",
                               instance_order="cluster")
    hp = _trace(clu, "P(y=1|x)")
    assert sorted(hp.x) == sorted(NAMES[:12]) and sorted(map(int, hp.y)) == list(range(100))
    with pytest.raises(ValueError, match="label_order"):
        mp.posterior_heatmap(P[:10, :3], Y[:10, :3], NAMES[:3], label_order="alphabet")


def test_reliability_threshold_lines():
    fig = mp.reliability_figure(Y, P, NAMES, labels=[1, 2], threshold=0.3)
    (line,) = fig.layout.shapes
    assert (line.x0, line.x1, line.yref) == (0.3, 0.3, "paper")
    per = np.linspace(0, 1, L)
    f2 = mp.reliability_figure(Y, P, NAMES, labels=[1, 2], threshold=per)
    assert [s.x0 for s in f2.layout.shapes] == pytest.approx([per[1], per[2]])
    assert [s.line.color for s in f2.layout.shapes] == [t.line.color for t in f2.data[1:]]
    f3 = mp.reliability_figure(Y, P, NAMES, labels=[1], threshold=RCut(2))
    assert not f3.layout.shapes and "top-2" in f3.layout.annotations[0].text


def test_posterior_grid_side_by_side_with_measures():
    models = {"ML-LSPC": P[:60, :8], "<b>BR</b>": np.clip(P[:60, :8] + 0.1, 0, 1)}
    scores = {"ML-LSPC": {"micro_f1": 0.61, "hamming_loss": 0.2}, "<b>BR</b>": {"micro_f1": 0.5}}
    fig = mp.posterior_grid(models, Y[:60, :8], NAMES[:8], scores=scores)
    names = [t.name for t in fig.data]
    assert names == ["ML-LSPC", "&lt;b&gt;BR&lt;/b&gt;", "true Y"]
    assert fig.data[1].yaxis == "y2" and fig.layout.yaxis2.matches == "y"
    titles = [a.text for a in fig.layout.annotations]
    assert "ML-LSPC<br>Micro F1 0.610<br>Hamming 0.200" in titles  # (a measure a line: narrow panels)
    assert "&lt;b&gt;BR&lt;/b&gt;<br>Micro F1 0.500" in titles
    np.testing.assert_allclose(fig.data[0].z, P[:60, :8][[int(r) for r in fig.data[0].y]].astype(np.float32))
    dec = mp.posterior_grid(models, Y[:60, :8], NAMES[:8], threshold=0.5)
    assert list(dec.data[0].colorbar.ticktext) == ["TN", "FP", "FN", "TP"]
