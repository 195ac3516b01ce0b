"""Sparse CDN timings, side by side in one run (ratios, not absolute claims).

Usage: .venv/bin/python benchmarks/bench_cdn.py [--quick] [--inference] [--sweep]

``--inference``: cost and accuracy of ``predict_proba`` (exact per label-graph component
up to ``max_exact_labels``, multi-chain Gibbs to ``se_target`` above) on the bundled
train/test splits: seconds, largest component, max |P(seed 0) - P(seed 1)|, the largest
stated SE, and (L <= 12) Gibbs against the exact marginals.
``--sweep``: the small default sweep (5-fold CV micro-F1 on emotions, one split elsewhere)
behind the defaults lam1 = lam2 and gamma = ratio * gamma_max_.

For each data set (emotions standardised, enron sparse CSR, all labels):

* SparseCDN(variant="sparse") fit + Gibbs predict_proba on the training set
  vs scikit-learn binary-relevance LogisticRegression (lbfgs, same ridge:
  C = 1 / lam1) fit + predict_proba on the same data;
* one gamma step of a warm-started path (``model.refit(gamma=...)``) vs a cold
  fit at the same gamma; also one mu step (the Gibbs start model is refitted too);
* (emotions) a 6-point gamma path (large to small) vs 6 cold fits.

Penalties are on the paper's summed-loss scale (see ``mlviz.models.cdn``). Both sides stop on
the same rule: largest entry of the (projected) gradient of the mean loss <= 1e-4 (lbfgs
``gtol``; FISTA's gradient mapping, ``fista(norm="max")``).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mlviz.data import load_sample  # noqa: E402
from mlviz.models.cdn import SparseCDN, sparse_cdn_path  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def br_lr(X, Y, lam1):
    P = np.zeros(Y.shape)
    for k in range(Y.shape[1]):
        if Y[:, k].min() == Y[:, k].max():
            P[:, k] = Y[0, k]
            continue
        P[:, k] = LogisticRegression(C=1.0 / lam1, max_iter=2000).fit(X, Y[:, k]).predict_proba(X)[:, 1]
    return P


def _split(name):
    import scipy.sparse as sp

    from mlviz.data import load_sample_split

    tr, te = load_sample_split(name)
    Xtr, Xte = tr.X, te.X
    if not sp.issparse(Xtr):
        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    return Xtr, tr.Y, Xte, te.Y


def micro_f1(Y, P):
    pred = P >= 0.5
    tp = np.sum(pred & (Y == 1))
    return 2.0 * tp / max(1, pred.sum() + Y.sum())


def inference(names):
    print(f"{'data':9s} {'L':>3s} {'n_test':>6s} {'edges':>5s} {'max comp':>8s} {'fit s':>6s} "
          f"{'proba s':>7s} {'exact/gibbs labels':>18s} {'max SE':>7s} {'seed |dP|':>9s} "
          f"{'gibbs s':>7s} {'|gibbs-exact|':>13s} {'gibbs max SE':>12s}")
    for name in names:
        Xtr, Ytr, Xte, Yte = _split(name)
        m, t_fit = timed(lambda: SparseCDN(random_state=0).fit(Xtr, Ytr))
        P0, t_p = timed(lambda: m.predict_proba(Xte))
        info = dict(m.inference_)
        P1 = SparseCDN(random_state=1).fit(Xtr, Ytr).predict_proba(Xte)
        comp = max(len(c) for c in m._components())
        line = (f"{name:9s} {Ytr.shape[1]:3d} {Xte.shape[0]:6d} {m.label_graph_.number_of_edges():5d} "
                f"{comp:8d} {t_fit:6.1f} {t_p:7.1f} {info['exact_labels']:>9d}/{info['gibbs_labels']:<8d} "
                f"{info['max_se']:7.4f} {np.abs(P0 - P1).max():9.4f}")
        if info["gibbs_labels"] == 0 and info["exact_labels"] > 0:
            g = SparseCDN(random_state=0, inference="gibbs").fit(Xtr, Ytr)
            Pg, t_g = timed(lambda: g.predict_proba(Xte))
            line += f" {t_g:7.1f} {np.abs(Pg - P0).max():13.4f} {g.predict_proba_se_.max():12.4f}"
        print(line, flush=True)


def sweep(names):
    from sklearn.model_selection import KFold

    print("micro-F1 (threshold 0.5); emotions: 5-fold CV (KFold shuffle, seed 0), others: the "
          "load_sample_split test set. BR-LR = per-label LogisticRegression(C=1).")
    print(f"{'data':9s} {'model':>34s} {'micro-F1':>8s} {'edges':>5s} {'max comp':>8s}")
    for name in names:
        if name == "emotions":
            ds = load_sample(name)
            X, Y = StandardScaler().fit_transform(ds.X), ds.Y
            folds = [(X[a], Y[a], X[b], Y[b]) for a, b in KFold(5, shuffle=True, random_state=0).split(X)]
        else:
            folds = [_split(name)]
        def score(make):
            out = [micro_f1(Yte, make().fit(Xtr, Ytr).predict_proba(Xte)) for Xtr, Ytr, Xte, Yte in folds]
            return float(np.mean(out))

        class BR:
            def fit(self, X, Y):
                self.P = lambda Xt: br_lr_predict(X, Y, Xt)
                return self

            def predict_proba(self, Xt):
                return self.P(Xt)

        print(f"{name:9s} {'BR-LR C=1':>34s} {score(BR):8.4f}", flush=True)
        for lam in (0.1, 1.0, 10.0):
            for ratio in (1.0, 0.3, 0.1):
                params = dict(lam1=lam, lam2=lam, gamma=None, mu=1e-3, random_state=0)

                class M:
                    def fit(self, X, Y):
                        self.m = SparseCDN(**{**params, "gamma": 1e12}).fit(X, Y).refit(gamma_ratio=ratio)
                        return self

                    def predict_proba(self, Xt):
                        return self.m.predict_proba(Xt)

                s = score(M)
                m = M().fit(folds[0][0], folds[0][1]).m
                comp = max(len(c) for c in m._components())
                print(f"{name:9s} {f'lam1=lam2={lam} gamma={ratio} gamma_max':>34s} {s:8.4f} "
                      f"{m.label_graph_.number_of_edges():5d} {comp:8d}", flush=True)


def br_lr_predict(X, Y, Xt, C=1.0):
    P = np.zeros((Xt.shape[0], Y.shape[1]))
    for k in range(Y.shape[1]):
        if Y[:, k].min() == Y[:, k].max():
            P[:, k] = Y[0, k]
            continue
        P[:, k] = LogisticRegression(C=C, max_iter=2000).fit(X, Y[:, k]).predict_proba(Xt)[:, 1]
    return P


def synthetic_text(n, d, L, density, seed=0):
    """Sparse binary features and labels with a skewed frequency profile (bibtex/delicious-like).

    Label k has frequency ~ 0.1 / (1 + k / 8) (clipped to >= 0.004) and depends on 20 random
    features plus one earlier label (a dependency for the CDN to find).
    """
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="csr", data_rvs=np.ones)
    Y = np.zeros((n, L), dtype=np.uint8)
    for k in range(L):
        w = np.zeros(d)
        w[rng.choice(d, 20, replace=False)] = rng.normal(2.0, 0.5, 20)
        z = X @ w + rng.logistic(size=n)
        if k:
            z += 2.0 * Y[:, rng.integers(k)]
        freq = max(0.004, 0.1 / (1 + k / 8))
        Y[:, k] = z > np.quantile(z, 1 - freq)
    return X, Y


def scale(shapes):
    """SparseCDN (defaults) and PCC fit (+ predict) vs per-label LogisticRegression, one run."""
    import resource

    for n, d, L, density in shapes:
        X, Y = synthetic_text(n, d, L, density)
        n_tr = round(2 * n / 3)
        Xtr, Ytr, Xte = X[:n_tr], Y[:n_tr], X[n_tr:]
        _, t_lr = timed(lambda: br_lr_predict(Xtr, Ytr, Xte))
        m, t_fit = timed(lambda: SparseCDN(random_state=0).fit(Xtr, Ytr))
        _, t_pred = timed(lambda: m.predict_proba(Xte))
        comp = max(len(c) for c in m._components())
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
        print(f"{n}x{d} (density {density}) x {L} labels: BR-LR fit+predict {t_lr:.1f}s; SparseCDN fit "
              f"{t_fit:.1f}s ({t_fit / t_lr:.1f}x, {m.n_iter_} iters, converged {m.converged_}), "
              f"predict_proba {t_pred:.1f}s (edges {m.label_graph_.number_of_edges()}, largest "
              f"component {comp}, {m.inference_}); peak RSS so far {rss:.2f} GB", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", action="store_true",
                        help="synthetic 7.4k x 1.8k x 159 and 16k x 500 x 983 (issue 15)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--inference", action="store_true")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--large-only", action="store_true", help="--scale: only 16k x 500 x 983")
    parser.add_argument("--defaults", action="store_true",
                        help="new defaults vs the paper's values vs BR-LR on each split")
    parser.add_argument("--data", nargs="*", default=["emotions", "scene", "yeast", "medical", "enron"])
    args = parser.parse_args()
    if args.scale:
        warnings.simplefilter("ignore")
        shapes = [(7395, 1836, 159, 0.037), (16105, 500, 983, 0.04)]
        shapes = shapes[:1] if args.quick else shapes[1:] if args.large_only else shapes
        scale(shapes)
        return
    if args.defaults:
        warnings.simplefilter("ignore")
        print(f"{'data':9s} {'BR-LR C=1':>9s} {'default':>8s} {'paper lam=.1 gamma=1e-3':>23s}  (test micro-F1)")
        for name in args.data:
            Xtr, Ytr, Xte, Yte = _split(name)
            br = micro_f1(Yte, br_lr_predict(Xtr, Ytr, Xte))
            new = micro_f1(Yte, SparseCDN(random_state=0).fit(Xtr, Ytr).predict_proba(Xte))
            old = SparseCDN(lam1=0.1, lam2=0.1, gamma=1e-3, random_state=0, se_target=0.02, max_sweeps=800)
            old = micro_f1(Yte, old.fit(Xtr, Ytr).predict_proba(Xte))
            print(f"{name:9s} {br:9.4f} {new:8.4f} {old:23.4f}", flush=True)
        return
    if args.inference or args.sweep:
        warnings.simplefilter("ignore")
        if args.sweep:
            sweep(args.data)
        if args.inference:
            inference(args.data)
        return
    names = ["emotions"] if args.quick else ["emotions", "enron"]
    warnings.simplefilter("ignore")
    params = dict(lam1=0.1, lam2=0.1, gamma=1e-3, mu=1e-3, random_state=0)
    print(f"{'data':9s} {'n x d, L':>16s} {'BR-LR s':>8s} {'Sparse fit s':>12s} {'Gibbs s':>8s} "
          f"{'(fit+Gibbs)/BR':>14s} {'iters':>6s} {'edges':>6s}")
    rows = []
    for name in names:
        ds = load_sample(name)
        X, Y = ds.X, ds.Y
        if name == "emotions":
            X = StandardScaler().fit_transform(X)
        # BR-LR timed before and after (the machine is shared): the faster run counts
        _, t_br1 = timed(lambda: br_lr(X, Y, params["lam1"]))
        model, t_fit = timed(lambda: SparseCDN(**params).fit(X, Y))
        _, t_gibbs = timed(lambda: model.predict_proba(X))
        _, t_br2 = timed(lambda: br_lr(X, Y, params["lam1"]))
        t_br = min(t_br1, t_br2)
        shape = f"{X.shape[0]}x{X.shape[1]}, {Y.shape[1]}"
        print(f"{name:9s} {shape:>16s} {t_br:8.2f} {t_fit:12.2f} {t_gibbs:8.2f} "
              f"{(t_fit + t_gibbs) / t_br:14.1f} {model.n_iter_:6d} "
              f"{model.label_graph_.number_of_edges():6d}")
        rows.append((name, X, Y, model))

    print()
    print("gamma steps are relative to gamma_max_ (the smallest gamma with an empty graph).")
    print(f"{'data':9s} {'step':>26s} {'warm refit s':>12s} {'iters':>6s} {'cold fit s':>10s} "
          f"{'iters':>6s} {'cold/warm':>9s} {'edges':>6s}")
    for name, X, Y, model in rows:
        g_max = model.gamma_max_
        base = model.refit(gamma=0.1 * g_max, mu=1.0)
        for label, change in [("gamma 0.1 -> 0.05 gamma_max", dict(gamma=0.05 * g_max)),
                              ("mu 1 -> 2", dict(mu=2.0))]:
            warm, t_warm = timed(lambda: base.refit(**change))
            cold, t_cold = timed(lambda: SparseCDN(**{**base.get_params(), **change}).fit(X, Y))
            print(f"{name:9s} {label:>26s} {t_warm:12.2f} {warm.n_iter_:6d} {t_cold:10.2f} "
                  f"{cold.n_iter_:6d} {t_cold / t_warm:9.1f} {warm.label_graph_.number_of_edges():6d}")
    print()
    fractions = [1.0, 0.3, 0.1, 0.03, 0.01, 0.003]
    print(f"{'data':9s} {'6-point gamma path s':>20s} {'6 cold fits s':>14s} {'ratio':>6s}  "
          "edges along the path (gamma = gamma_max * [1, .3, .1, .03, .01, .003])")
    for name, X, Y, model in rows[:1]:
        gammas = [f * model.gamma_max_ for f in fractions]
        rest = {k: v for k, v in params.items() if k != "gamma"}
        path, t_path = timed(lambda: sparse_cdn_path(X, Y, gammas, **rest))
        _, t_cold = timed(lambda: [SparseCDN(**{**params, "gamma": g}).fit(X, Y) for g in gammas])
        edges = [m.label_graph_.number_of_edges() for m in path]
        print(f"{name:9s} {t_path:20.2f} {t_cold:14.2f} {t_cold / t_path:6.1f}  {edges}")


if __name__ == "__main__":
    main()
