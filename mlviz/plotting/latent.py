"""Another method's latent space in 2-D, beside the MLLEM map.

CPLST, FaIE and LEML (:mod:`mlviz.models.label_embedding`) and SLEEC
(:mod:`mlviz.models.sleec`) map an instance to a K-dimensional code
(``transform(X)``); the first three decode label l's score linearly,
ŷ_l = ȳ_l + ⟨t, h_l⟩ with h_l the row l of ``label_codes_``, and SLEEC's
label code is the mean code of the label's positive training rows. Unlike
MLLEM, where instances and labels are nodes of one graph embedded together,
these label codes are not placed by a joint objective.

The projection: PCA (:class:`sklearn.decomposition.PCA`, exact SVD) fitted on
the *training* instance codes only; training codes, test codes and label codes
all go through the same fitted ``transform`` (centred by the training codes'
mean, then onto the first two principal directions). A latent space with
K = 1 gets a zero second axis.

Label codes of an inner-product decoder have no scale of their own relative to
the instances (h_l → c h_l, t → t / c gives the same scores; FaIE's orthonormal
instance codes are ~100 times smaller than its label codes), so
``label_scale="match"`` multiplies the projected label points by one factor s
that gives them the root-mean-square norm of the projected training points (a
biplot's scaling; directions and score rankings are unchanged). The factor is
written in the subtitle and stored in ``fig.layout.meta``.
"""

from __future__ import annotations

import numpy as np

from .embedding import embedding_scatter

__all__ = ["project_codes", "latent_scatter"]


def project_codes(instance_codes, *others, random_state=0):
    """Project codes onto the first two principal components of ``instance_codes``.

    Parameters
    ----------
    instance_codes : array-like, shape (n, K)
        The codes the PCA is fitted on (the training instances' codes).
    *others : array-like, shape (m_i, K)
        Further codes projected by the same fitted PCA (test codes, label codes).
    random_state : int, default 0
        Passed to :class:`~sklearn.decomposition.PCA` (the exact ``"full"`` solver does not use it).

    Returns
    -------
    Z : ndarray, shape (n, 2)
        ``PCA(n_components=min(2, n, K)).fit_transform(instance_codes)``, padded with a zero column
        when only one component exists.
    projected : list of ndarray, shape (m_i, 2)
        ``pca.transform(other)`` for each of ``others`` (padded likewise).
    ratio : ndarray, shape (2,)
        Explained-variance ratio of each axis (0 for a padded axis).
    """
    from sklearn.decomposition import PCA

    T = np.asarray(instance_codes, dtype=np.float64)
    if T.ndim != 2 or T.shape[0] < 1 or T.shape[1] < 1:
        raise ValueError(f"instance_codes must have shape (n, K) with n, K >= 1, got {T.shape}.")
    k = min(2, T.shape[0], T.shape[1])
    pca = PCA(n_components=k, svd_solver="full", random_state=random_state).fit(T)

    def pad(A):
        return A if A.shape[1] == 2 else np.hstack([A, np.zeros((A.shape[0], 2 - A.shape[1]))])

    out = []
    for A in others:
        A = np.asarray(A, dtype=np.float64)
        if A.ndim != 2 or A.shape[1] != T.shape[1]:
            raise ValueError(f"codes of shape {A.shape} do not match the {T.shape[1]}-D instance codes.")
        out.append(pad(pca.transform(A)))
    ratio = np.zeros(2)
    ratio[:k] = np.nan_to_num(pca.explained_variance_ratio_)
    return pad(pca.transform(T)), out, ratio


def _match_scale(Z, Lp):
    """Factor giving the label points ``Lp`` the root-mean-square norm of the instance points ``Z``."""
    rz = float(np.sqrt(np.mean(np.sum(Z ** 2, axis=1)))) if len(Z) else 0.0
    rl = float(np.sqrt(np.mean(np.sum(Lp ** 2, axis=1)))) if len(Lp) else 0.0
    return rz / rl if rz > 0 and rl > 0 else 1.0


def latent_scatter(instance_codes, label_codes, label_names, *, method, test_codes=None, color=None,
                   color_title=None, hover_text=None, test_hover_text=None, test_color=None, focus_labels=None,
                   label_weights=None, max_label_names=30, label_scale=None, title=None, width_hint=800,
                   text_scale=1.0):
    """A method's instance codes in 2-D by PCA, with its label codes as labelled points.

    Parameters
    ----------
    instance_codes : array-like, shape (n, K)
        ``model.transform(X_train)``; the PCA is fitted on these (module docstring).
    label_codes : array-like, shape (L, K) or None
        ``model.label_codes_``; None (SLEEC with several clusters): instances only.
    label_names : sequence of str, length L
    method : str
        Display name (e.g. ``"CPLST"``), used in the subtitle.
    test_codes : array-like, shape (m, K), optional
        ``model.transform(X_test)``, drawn as crosses by the same projection.
    color, color_title, hover_text, test_hover_text, test_color, focus_labels, label_weights, max_label_names
        As in :func:`~mlviz.plotting.embedding.embedding_scatter` (the same colouring rule as the MLLEM map).
    label_scale : None, "match" or float
        Factor on the projected label points: None = 1 (drawn at ``pca.transform(label_codes)``),
        ``"match"`` = the biplot factor of the module docstring, a number = that factor.
    title : str, optional
    width_hint : int, default 800
    text_scale : float, default 1.0
        As in :func:`~mlviz.plotting.embedding.embedding_scatter`.

    Returns
    -------
    plotly.graph_objects.Figure
        The traces of :func:`~mlviz.plotting.embedding.embedding_scatter` in 2-D (labels ``meta="labels"``,
        ``customdata`` = label index), axes "PC 1" / "PC 2", a subtitle saying what the axes are; without
        label codes the label traces are left out. ``layout.meta``: ``{"explained_variance_ratio": [r1, r2],
        "label_scale": s or None, "n_dims": K}``.
    """
    names = [str(s) for s in label_names]
    T = np.asarray(instance_codes, dtype=np.float64)
    others = [] if test_codes is None else [test_codes]
    has_labels = label_codes is not None
    if has_labels:
        others.append(label_codes)
    Z, projected, ratio = project_codes(T, *others)
    Tz = projected[0] if test_codes is not None else None
    if has_labels:
        Lp = projected[-1]
        if len(names) != len(Lp):
            raise ValueError(f"label_names has {len(names)} entries for {len(Lp)} label codes.")
        if label_scale == "match":
            s = _match_scale(Z, Lp)
        elif label_scale is None:
            s = 1.0
        else:
            s = float(label_scale)
            if not np.isfinite(s) or s <= 0:
                raise ValueError(f"label_scale must be None, 'match' or a positive number, got {label_scale!r}.")
        Lp = s * Lp
    else:
        s, Lp = None, np.zeros((1, 2))  # (a placeholder label, removed below)
    K = T.shape[1]
    axes = (f"axes: PCA of the {len(T)} training codes of the {K}-D {method} space"
            f" · PC 1 + PC 2 hold {100 * ratio[0]:.0f}% + {100 * ratio[1]:.0f}% of their variance")
    if has_labels and s != 1.0:
        axes += f" · label codes × {s:.3g} to the instances' spread"
    elif not has_labels:
        axes += " · no label codes in this space"
    fig = embedding_scatter(
        Z, Lp, names if has_labels else ["(none)"], color=color, color_title=color_title, hover_text=hover_text,
        test_coords=Tz, test_hover_text=test_hover_text if Tz is not None else None,
        test_color=test_color if Tz is not None else None, dims=2, title=title,
        focus_labels=focus_labels if has_labels else None, label_weights=label_weights if has_labels else None,
        max_label_names=max_label_names, width_hint=width_hint, text_scale=text_scale, axis_title="PC",
        subtitle=axes)
    if not has_labels:
        fig.data = [t for t in fig.data if t.meta != "labels"]
    fig.layout.meta = {"explained_variance_ratio": [float(r) for r in ratio],
                       "label_scale": None if s is None else float(s), "n_dims": int(K)}
    return fig
