"""Warm starts for ECC and RAkEL at a text shape: CPU time and what changes (issue 31).

ECC's links cold (the default) and warm-started (``warm_start=True``):

At a synthetic shape of ``bench_scale.py`` (``make_text_like`` preset, default scaling, its
training rows), in one process with one thread: per-label scikit-learn
``LogisticRegression()`` (the reference of ``bench_scale.py fit``), ECC at its registry
defaults, ECC with ``warm_start=True``, interleaved ``--repeats`` times; CPU seconds
(``time.process_time``) and the ratios to the LR, the links' L-BFGS iterations, and how
far the warm ensemble is from the cold one on the held-out rows (max |ΔP|, decisions that
flip at the threshold). ``--links N``: for N links of the last chain (every k-th), the
distance of the cold and of the warm link's logits from the link's exact optimum
(``LogisticRegression(solver="newton-cholesky", tol=1e-12)``), max over 1,000 rows --
the slack of the solver's stopping rule. ``--splits``: micro-F1 of both on the four
standard Mulan splits (emotions, enron, scene, yeast; ``scale_split``).

``--rakel``: the experiment for RAkEL (not in the library): its label powersets' multinomial
logistic regressions (scikit-learn's ``LogisticRegression(C, max_iter=2000)``, LabelPowerset's
solver until the lpfast merge of 2026-11-27, on the
same labelsets as ``RAkEL(random_state=0)``) cold, and warm-started from per-label binary
fits at the same C (class c's weights: the sum of its labels' binary weights, centred over
the classes -- the logits of independent labels); CPU seconds (the warm side including the
binary fits), iterations by number of classes, and the change of the label-set
probabilities on the training rows.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_warm_starts.py [--set bibtex] [--repeats 2] [--links 40]
        [--splits] [--rakel]
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _data(name):
    from mlviz.data.synthetic import TEXT_LIKE_PRESETS, make_text_like
    from mlviz.preprocessing import scale_split

    ds = make_text_like(**TEXT_LIKE_PRESETS[name], random_state=0)
    n = int(round(ds.X.shape[0] * 2 / 3))  # bench_scale's training share of the shapes
    Xtr, Xte = scale_split(ds.X[:n].tocsr(), ds.X[n:].tocsr())
    return Xtr, np.asarray(ds.Y[:n], dtype=np.uint8), Xte, np.asarray(ds.Y[n:], dtype=np.uint8)


def _iters(ecc):
    return sum(int(e.n_iter_[0]) for cc in ecc.chains_ for e in cc.estimators_ if not isinstance(e, float))


def _optimum_gap(cold, warm, X, Y, n_links):
    """Max |logit - exact optimum's logit| over 1,000 rows, for links of the last chain (cold, warm)."""
    cc, rows = cold.chains_[-1], cold.samples_[-1]
    Xs, Ys, d = X[rows], Y[rows], X.shape[1]
    Xr = X[:1000]
    gaps = {"cold": [], "warm": []}
    for j in np.linspace(0, len(cc.order_) - 1, n_links).astype(int):
        if isinstance(cc.estimators_[j], float):
            continue
        Z = sp.hstack([Xs, sp.csr_matrix(cold.label_scale * Ys[:, cc.order_[:j]].astype(float))], format="csr")
        ref = LogisticRegression(C=cc.C_, solver="newton-cholesky", tol=1e-12, max_iter=500).fit(Z, Ys[:, cc.order_[j]])
        z_ref = np.asarray(Xr @ ref.coef_[0][:d]).ravel() + ref.intercept_[0]
        for key, est in (("cold", cold), ("warm", warm)):
            link = est.chains_[-1].estimators_[j]
            gaps[key].append(np.abs(np.asarray(Xr @ link.coef_[0][:d]).ravel() + link.intercept_[0] - z_ref).max())
    for key, g in gaps.items():
        g = np.array(g)
        print(f"  {key} links vs exact optimum ({len(g)} links): max |Δ logit| median {np.median(g):.3f}, "
              f"90 % {np.quantile(g, 0.9):.3f}, max {g.max():.3f}")


def bench_shape(name, repeats, n_links):
    from mlviz.models.registry import METHODS

    X, Y, Xte, Yte = _data(name)
    print(f"== {name}: {X.shape[0]} x {X.shape[1]} sparse x {Y.shape[1]} labels, test {Xte.shape[0]} rows")
    times = {"lr": [], "cold": [], "warm": []}
    fitted = {}
    for _ in range(int(repeats)):
        c0 = time.process_time()
        for j in range(Y.shape[1]):
            if 0 < Y[:, j].sum() < Y.shape[0]:
                LogisticRegression().fit(X, Y[:, j])
        times["lr"].append(time.process_time() - c0)
        for key in ("cold", "warm"):
            est = METHODS["ecc"].make(warm_start=key == "warm")
            c0 = time.process_time()
            est.fit(X, Y)
            times[key].append(time.process_time() - c0)
            fitted[key] = est
    lr = np.mean(times["lr"])
    print(f"  per-label LR  cpu {lr:7.2f} s")
    for key in ("cold", "warm"):
        t = np.mean(times[key])
        print(f"  ECC {key:4s}      cpu {t:7.2f} s   x {t / lr:5.2f} per-label LR   "
              f"L-BFGS iterations {_iters(fitted[key]):,}")
    Pc, Pw = fitted["cold"].predict_proba(Xte), fitted["warm"].predict_proba(Xte)
    t = fitted["cold"].threshold
    print(f"  warm vs cold on the test rows: max |ΔP| {np.abs(Pc - Pw).max():.3f}, mean {np.abs(Pc - Pw).mean():.1e}, "
          f"{int(((Pc >= t) != (Pw >= t)).sum())} of {Pc.size:,} decisions flip")
    if n_links:
        _optimum_gap(fitted["cold"], fitted["warm"], X, Y, n_links)


def bench_splits():
    from sklearn.metrics import f1_score

    from mlviz.data import load_standard_split
    from mlviz.models.registry import METHODS
    from mlviz.preprocessing import scale_split

    print("== micro-F1 on the standard splits (registry ECC, seed 0): cold (default) / warm_start=True")
    for name in ("emotions", "enron", "scene", "yeast"):
        tr, te = load_standard_split(name)
        Xtr, Xte = scale_split(tr.X, te.X)
        f1 = [f1_score(np.asarray(te.Y), METHODS["ecc"].make(warm_start=w).fit(Xtr, np.asarray(tr.Y)).predict(Xte),
                       average="micro") for w in (False, True)]
        print(f"  {name:9s} {f1[0]:.4f} / {f1[1]:.4f}   (Δ {f1[1] - f1[0]:+.4f})")


def bench_rakel(name):
    from mlviz.models._base_learner import mean_squared_norm
    from mlviz.models.chains import draw_labelsets
    from mlviz.models.label_powerset import LabelPowerset

    X, Y, _, _ = _data(name)
    L = Y.shape[1]
    sets = draw_labelsets(L, 3, 2 * L, np.random.default_rng(0))  # RAkEL(random_state=0)'s labelsets
    C = 10.0 / mean_squared_norm(X)
    enc = [LabelPowerset(max_label_sets=None)._encode(Y[:, list(s)]) for s in sets]
    K = np.array([len(e[0]) for e in enc])
    counts = ", ".join(f"{k}: {c}" for k, c in zip(*np.unique(K, return_counts=True)))
    print(f"== RAkEL's {len(sets)} label powersets at {name}: labelsets by number of classes {counts}")
    c0 = time.process_time()
    cold = [LogisticRegression(C=C, max_iter=2000).fit(X, ids) if len(S) > 1 else None for S, ids, _, _ in enc]
    t_cold = time.process_time() - c0
    c0 = time.process_time()
    bw, bb = np.zeros((L, X.shape[1])), np.zeros(L)
    for l in range(L):
        if 0 < Y[:, l].sum() < Y.shape[0]:
            m = LogisticRegression(C=C, max_iter=1000).fit(X, Y[:, l])
            bw[l], bb[l] = m.coef_[0], m.intercept_[0]
    t_bin = time.process_time() - c0
    warm = []
    for s, (S, ids, _, _) in zip(sets, enc):
        if len(S) == 1:
            warm.append(None)
            continue
        W, b = S.astype(float) @ bw[list(s)], S.astype(float) @ bb[list(s)]
        m = LogisticRegression(C=C, max_iter=2000, warm_start=True)
        m.coef_, m.intercept_ = ((W[1:] - W[:1]), b[1:] - b[:1]) if len(S) == 2 else (W - W.mean(0), b - b.mean())
        warm.append(m.fit(X, ids))
    t_warm = time.process_time() - c0
    for key, fits, t in (("cold", cold, t_cold), ("warm", warm, t_warm)):
        it = np.array([m.n_iter_[0] if m is not None else 0 for m in fits])
        by_k = ", ".join(f"{k}: {it[K == k].mean():.1f}" for k in np.unique(K) if k > 1)
        extra = f" (of which per-label binary fits {t_bin:.2f} s)" if key == "warm" else ""
        print(f"  {key}: cpu {t:6.2f} s{extra}; mean L-BFGS iterations {it[K > 1].mean():.1f} (by classes {by_k})")
    gaps, flips = [], 0
    for c, w in zip(cold, warm):
        if c is not None:
            Pc, Pw = c.predict_proba(X), w.predict_proba(X)
            gaps.append(np.abs(Pc - Pw).max())
            flips += int((Pc.argmax(1) != Pw.argmax(1)).sum())
    print(f"  warm vs cold label-set probabilities on the training rows: max |ΔP| median {np.median(gaps):.3f}, "
          f"max {np.max(gaps):.3f}; {flips} of {X.shape[0] * len(gaps):,} predicted sets change")


def main(argv=None):
    warnings.simplefilter("ignore")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--set", default="bibtex")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--links", type=int, default=0)
    p.add_argument("--splits", action="store_true")
    p.add_argument("--rakel", action="store_true")
    args = p.parse_args(argv)
    bench_shape(args.set, args.repeats, args.links)
    if args.splits:
        bench_splits()
    if args.rakel:
        bench_rakel(args.set)


if __name__ == "__main__":
    main()
