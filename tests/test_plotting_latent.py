"""The latent-space figure of the Embedding page's comparison (issue 30): PCA of a method's instance codes
with its label codes projected the same way, checked against scikit-learn's PCA and numpy's SVD."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from sklearn.decomposition import PCA

from mlviz import plotting as mp
from mlviz.models.label_embedding import CPLST, FaIE
from mlviz.plotting.legibility import drawn_strings

RNG = np.random.default_rng(3)


def _toy(n=80, d=6, L=5):
    X = RNG.normal(size=(n, d))
    Y = (X[:, :L] + 0.3 * RNG.normal(size=(n, L)) > 0.2).astype(np.uint8)
    return X, Y, [f"lab<{j}> & 'x'" for j in range(L)]


def _align(A, B):
    """``A`` with each column's sign flipped to agree with ``B`` (PCA axes are defined up to sign)."""
    s = np.sign(np.sum(A * B, axis=0))
    s[s == 0] = 1
    return A * s


def _label_xy(fig):
    tr = [t for t in fig.data if t.meta == "labels"]
    assert len(tr) == 1  # (all labels focused at this size)
    return np.column_stack([tr[0].x, tr[0].y]).astype(float), np.asarray(tr[0].customdata, dtype=int)


def test_projection_is_sklearn_pca_and_numpy_svd_of_the_training_codes():
    T, Te, H = RNG.normal(size=(50, 4)) * [3, 2, 1, 0.5], RNG.normal(size=(7, 4)), RNG.normal(size=(5, 4))
    Z, (Zt, Zh), ratio = mp.project_codes(T, Te, H)
    ref = PCA(n_components=2).fit(T)  # (default solver: an independent call)
    np.testing.assert_allclose(_align(Z, ref.transform(T)), ref.transform(T), atol=1e-10)
    signs = np.sign(np.sum(Z * ref.transform(T), axis=0))
    np.testing.assert_allclose(Zt * signs, ref.transform(Te), atol=1e-10)
    np.testing.assert_allclose(Zh * signs, ref.transform(H), atol=1e-10)
    np.testing.assert_allclose(ratio, ref.explained_variance_ratio_, rtol=1e-10)
    # by hand: centre by the training mean, project on the top-2 right singular vectors
    Tc = T - T.mean(0)
    _, sv, Vt = np.linalg.svd(Tc, full_matrices=False)
    np.testing.assert_allclose(_align(Zh, (H - T.mean(0)) @ Vt[:2].T), (H - T.mean(0)) @ Vt[:2].T, atol=1e-10)
    np.testing.assert_allclose(ratio, sv[:2] ** 2 / np.sum(sv ** 2), rtol=1e-10)


def test_one_dimensional_codes_get_a_zero_second_axis():
    T = RNG.normal(size=(20, 1))
    Z, (Zh,), ratio = mp.project_codes(T, np.array([[1.0], [-2.0]]))
    np.testing.assert_allclose(np.abs(Z[:, 0]), np.abs(T[:, 0] - T.mean()), atol=1e-12)
    np.testing.assert_array_equal(Z[:, 1], 0)
    np.testing.assert_allclose(np.abs(Zh[:, 0]), np.abs(np.array([1.0, -2.0]) - T.mean()), atol=1e-12)
    assert ratio[1] == 0 and ratio[0] == pytest.approx(1.0)


def test_cplst_labels_drawn_at_their_projected_codes_and_instances_coloured_like_the_map():
    X, Y, names = _toy()
    m = CPLST(n_components=3, random_state=0).fit(X, Y)
    T, Te = m.transform(X), m.transform(X[:9])
    fig = mp.latent_scatter(T, m.label_codes_, names, method="CPLST", test_codes=Te, color=Y[:, 0].astype(bool),
                            color_title="has lab0")
    ref = PCA(n_components=2).fit(T)
    inst = [t for t in fig.data if t.meta == "train"]
    assert [t.name for t in inst] == ["no", "yes"]  # embedding_scatter's categorical colouring
    xy_yes = np.column_stack([inst[1].x, inst[1].y]).astype(float)
    signs = np.sign(np.sum(xy_yes * ref.transform(T[Y[:, 0] == 1]), axis=0))
    np.testing.assert_allclose(xy_yes * signs, ref.transform(T[Y[:, 0] == 1]), atol=1e-5)  # (float32 drawn)
    test = [t for t in fig.data if t.meta == "test"]
    assert sum(len(t.x) for t in test) == 9
    xy, ids = _label_xy(fig)
    assert ids.tolist() == list(range(5))
    np.testing.assert_allclose(xy * signs, ref.transform(m.label_codes_), atol=1e-5)
    assert fig.layout.xaxis.title.text == "PC 1" and fig.layout.yaxis.title.text == "PC 2"
    sub = html.unescape(fig.layout.title.subtitle.text).replace("<br>", " · ")
    assert "PCA of the 80 training codes of the 3-D CPLST space" in sub
    assert f"{100 * ref.explained_variance_ratio_[0]:.0f}% + {100 * ref.explained_variance_ratio_[1]:.0f}%" in sub
    np.testing.assert_allclose(fig.layout.meta["explained_variance_ratio"], ref.explained_variance_ratio_,
                               rtol=1e-10)


def test_match_scale_gives_the_labels_the_instances_root_mean_square_norm():
    X, Y, names = _toy()
    m = FaIE(n_components=3, random_state=0).fit(X, Y)
    T = m.transform(X)
    raw, _ = _label_xy(mp.latent_scatter(T, m.label_codes_, names, method="FaIE"))
    fig = mp.latent_scatter(T, m.label_codes_, names, method="FaIE", label_scale="match")
    xy, _ = _label_xy(fig)
    Z = PCA(n_components=2).fit_transform(T)
    s = fig.layout.meta["label_scale"]
    np.testing.assert_allclose(xy, s * raw, rtol=1e-5, atol=1e-7)
    assert np.sqrt(np.mean(np.sum(xy ** 2, 1))) == pytest.approx(np.sqrt(np.mean(np.sum(Z ** 2, 1))), rel=1e-5)
    assert f"label codes × {s:.3g}" in html.unescape(fig.layout.title.subtitle.text)
    with pytest.raises(ValueError, match="label_scale"):
        mp.latent_scatter(T, m.label_codes_, names, method="FaIE", label_scale=-1.0)


def test_without_label_codes_only_instances_and_no_raw_entities():
    T = RNG.normal(size=(30, 3))
    fig = mp.latent_scatter(T, None, ["a & b"], method="SLEEC <3 clusters>", title="x & y",
                            test_codes=T[:4], hover_text=["a & b's"] * 30)
    assert {t.meta for t in fig.data} == {"train", "test"}
    assert fig.layout.meta["label_scale"] is None
    texts = [html.unescape(s) for _, s in drawn_strings(fig)]
    assert "x & y" in texts
    assert any("SLEEC <3 clusters>" in s and "no label codes" in s for s in texts)
    assert not [s for s in texts if re.search(r"&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);", s)]  # no raw entity
