"""The planted-graph sandbox: which methods recover a label graph set by the teacher.

Experiments on :func:`mlviz.data.synthetic.make_planted` data (they fit models,
so they live above :mod:`mlviz.data` and :mod:`mlviz.models`):

* :func:`compare_on_planted` -- BR, PCC (marginal and joint mode) and the sparse
  CDN on one planted data set: measures and the CDN graph against the planted one;
* :func:`recovery_path` -- edge precision/recall along the CDN's γ path;
* :func:`lspc_gamma_gain` -- ML-LSPC's gain over γ = 0 as labels share structure
  (Nam et al.'s rotated toy).
"""

from __future__ import annotations

import numpy as np

from .data.synthetic import edge_recovery, edge_status, expected_dependency_graph, make_rotated_toy

__all__ = ["compare_on_planted", "recovery_path", "lspc_gamma_gain", "SANDBOX_GAMMA_RATIO"]

#: gamma rule of the sandbox: gamma = SANDBOX_GAMMA_RATIO * gamma_max_ (see compare_on_planted)
SANDBOX_GAMMA_RATIO = 0.1


def compare_on_planted(planted, *, test_fraction=0.5, gamma_ratio=SANDBOX_GAMMA_RATIO,
                       random_state=0):
    """What the sandbox page shows: who recovers the planted structure.

    Splits the planted data (first ``1 - test_fraction`` of the rows train,
    the rest test; the rows are i.i.d., so no shuffle is needed), fits

    * ``BR``  -- :class:`~mlviz.models.BinaryRelevance` (linear logistic regression per label,
      ``base="lr"``: the textbook BR whose marginals the exclusive group defeats);
    * ``PCC`` -- :class:`~mlviz.models.PCC`, marginals >= 0.5, and
      ``PCC joint mode`` -- the most probable label vector of the same chain
      (:meth:`PCC.joint_proba`, only when L <= 10);
    * ``SparseCDN`` -- :class:`~mlviz.models.SparseCDN` (variant "sparse",
      ``gamma = gamma_ratio * gamma_max_``; with the default 0.1 the
      5-label chain (+ 1 independent label, default settings) is recovered
      exactly from 1000 training rows and with one false edge from 500;
      0.02 adds several false edges -- see :func:`recovery_path`),

    and measures them on the test rows.

    Parameters
    ----------
    planted : PlantedData
    test_fraction : float in (0, 1), default 0.5
    gamma_ratio : float > 0, default :data:`SANDBOX_GAMMA_RATIO`
    random_state : int
        Seeds PCC's sampler and the CDN's Gibbs sampler.

    Returns
    -------
    dict
        ``measures``: pandas.DataFrame indexed by method with Hamming loss,
        subset accuracy, micro/macro/example F1, ``empty_rate`` (fraction of
        test rows with no predicted label) and ``xor_f1`` (macro F1 over the
        exclusive-group labels) and ``xor_exact`` (fraction of test rows whose
        exclusive-group labels are all right), both NaN without such labels;
        ``recovery``: :func:`edge_recovery` of the CDN graph against
        :func:`expected_dependency_graph`; ``edges``: :func:`edge_status`
        rows; ``cdn``: the fitted SparseCDN; ``gamma``: the gamma used.
    """
    import pandas as pd

    from .metrics import evaluate
    from .models import PCC, BinaryRelevance, SparseCDN

    ds = planted.dataset
    n_train = int(round((1.0 - test_fraction) * ds.n_samples))
    if not 2 <= n_train <= ds.n_samples - 1:
        raise ValueError(f"test_fraction={test_fraction!r} leaves {n_train} training rows of "
                         f"{ds.n_samples}; need at least 2 and one test row.")
    Xtr, Ytr, Xte, Yte = ds.X[:n_train], ds.Y[:n_train], ds.X[n_train:], ds.Y[n_train:]
    names = ds.label_names
    xor_cols = [j for j, k in enumerate(names) if planted.graph.nodes[k]["kind"] == "xor"]
    preds = {}
    preds["BR"] = BinaryRelevance(base="lr").fit(Xtr, Ytr).predict_proba(Xte)
    pcc = PCC(random_state=random_state).fit(Xtr, Ytr)
    preds["PCC"] = pcc.predict_proba(Xte)
    modes = {}
    if ds.n_labels <= 10:
        configs, joint = pcc.joint_proba(Xte)
        modes["PCC joint mode"] = configs[np.argmax(joint, axis=1)]
        preds["PCC joint mode"] = preds["PCC"]
    # gamma above gamma_max_ returns the empty-graph start model at once (no FISTA run);
    # the refit then solves at gamma_ratio * gamma_max_, warm-started
    cdn = SparseCDN(gamma=1e12, random_state=random_state).fit(Xtr, Ytr)
    cdn = cdn.refit(gamma_ratio=gamma_ratio)
    preds["SparseCDN"] = cdn.predict_proba(Xte)
    keys = ["hamming_loss", "subset_accuracy", "micro_f1", "macro_f1", "example_f1"]
    rows = {}
    for method, P in preds.items():
        Yhat = modes.get(method, (P >= 0.5).astype(np.uint8))
        row = evaluate(Yte, P, measures=keys, y_pred=Yhat)
        row["empty_rate"] = float(np.mean(Yhat.sum(axis=1) == 0))
        row["xor_f1"] = (evaluate(Yte[:, xor_cols], P[:, xor_cols], measures=["macro_f1"],
                                  y_pred=Yhat[:, xor_cols])["macro_f1"] if xor_cols else np.nan)
        row["xor_exact"] = (float(np.mean(np.all(Yhat[:, xor_cols] == Yte[:, xor_cols], axis=1)))
                            if xor_cols else np.nan)
        rows[method] = row
    expected = expected_dependency_graph(planted.graph)
    return dict(measures=pd.DataFrame.from_dict(rows, orient="index"),
                recovery=edge_recovery(cdn.label_graph_, expected, names),
                edges=edge_status(cdn.label_graph_, expected, names), cdn=cdn,
                gamma=float(cdn.gamma))


def recovery_path(planted, gamma_ratios=(1.0, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01), *,
                  test_fraction=0.5, random_state=0):
    """Edge precision / recall of the sparse CDN along a γ path (the sandbox's γ slider).

    Fits :class:`~mlviz.models.SparseCDN` (variant "sparse") on the training
    rows once above ``gamma_max_`` and refits, warm-started, at each
    ``gamma = ratio * gamma_max_`` in the given order.

    Parameters
    ----------
    planted : PlantedData
    gamma_ratios : sequence of float > 0
    test_fraction : float
        As in :func:`compare_on_planted` (the same training rows).
    random_state : int

    Returns
    -------
    pandas.DataFrame
        ``gamma_ratio, gamma, n_edges`` (undirected pairs in the CDN graph),
        ``precision, recall, f1, n_true, n_false, n_missed`` against
        :func:`expected_dependency_graph`.
    """
    import pandas as pd

    from .models import SparseCDN

    ds = planted.dataset
    n_train = int(round((1.0 - test_fraction) * ds.n_samples))
    if not 2 <= n_train <= ds.n_samples:
        raise ValueError(f"test_fraction={test_fraction!r} leaves {n_train} training rows.")
    expected = expected_dependency_graph(planted.graph)
    model = SparseCDN(gamma=1e12, random_state=random_state).fit(ds.X[:n_train], ds.Y[:n_train])
    rows = []
    for ratio in gamma_ratios:
        model = model.refit(gamma_ratio=float(ratio))
        rec = edge_recovery(model.label_graph_, expected, ds.label_names)
        rows.append(dict(gamma_ratio=float(ratio), gamma=float(model.gamma),
                         n_edges=rec["n_true"] + rec["n_false"], **rec))
    return pd.DataFrame(rows)


def lspc_gamma_gain(label_counts=(4, 16), *, n_train=200, n_features=20, n_valid=500,
                    n_test=1000, lam=0.1, gammas=(0.0, 0.3, 1.0, 3.0, 10.0), runs=3,
                    random_state=0):
    """ML-LSPC's gain over plain LSPC on the rotated toy as labels share more structure.

    Nam et al., §6.1 / Fig. 1(a): with T rotated boundaries, neighbouring
    labels are more alike as T grows, and coupling them (γ > 0) helps more.
    For each T and run: fit :class:`~mlviz.models.MLLSPC` once (σ = median
    distance, ``lam`` fixed), pick γ on a validation draw by misclassification
    (Hamming loss), report the test Hamming loss of γ = 0 (plain LSPC) and of
    the chosen γ.  A reduced version of :mod:`mlviz.reproductions.lspc_toy`
    (D = ``n_features`` instead of 300; no λ/σ search) that runs in seconds.

    Returns
    -------
    pandas.DataFrame
        One row per T: ``T``, ``hamming_lspc``, ``hamming_mllspc``, ``gain``
        (their difference, mean over runs), ``gain_std``, ``gamma`` (most
        often chosen).
    """
    import pandas as pd

    from .models import MLLSPC

    gammas = [float(g) for g in gammas]
    if 0.0 not in gammas:
        raise ValueError("The γ grid must contain 0 (plain LSPC).")
    j0 = gammas.index(0.0)
    rows = []
    for T in label_counts:
        per = []
        for r in range(runs):
            seed = random_state + 3 * r
            tr = make_rotated_toy(n_train, n_features, T, random_state=seed)
            va = make_rotated_toy(n_valid, n_features, T, random_state=seed + 1)
            te = make_rotated_toy(n_test, n_features, T, random_state=seed + 2)
            model = MLLSPC(lam=lam, gamma=0.0).fit(tr.X, tr.Y)
            hv = [np.mean((P >= 0.5) != va.Y) for P in model.path_predict_proba(va.X, [lam], gammas)[0]]
            ht = [np.mean((P >= 0.5) != te.Y) for P in model.path_predict_proba(te.X, [lam], gammas)[0]]
            j = int(np.argmin(hv))
            per.append((ht[j0], ht[j], gammas[j]))
        arr = np.array([p[:2] for p in per])
        chosen = [p[2] for p in per]
        rows.append(dict(T=T, hamming_lspc=arr[:, 0].mean(), hamming_mllspc=arr[:, 1].mean(),
                         gain=float(np.mean(arr[:, 0] - arr[:, 1])),
                         gain_std=float(np.std(arr[:, 0] - arr[:, 1])),
                         gamma=max(set(chosen), key=chosen.count)))
    return pd.DataFrame(rows)
