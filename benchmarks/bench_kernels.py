"""Kernel methods at scale (issue 15): landmark centres vs exact kernel, and fit cost vs per-label LR.

Usage::

    .venv/bin/python benchmarks/bench_kernels.py accuracy [--sets emotions,yeast,...]
    .venv/bin/python benchmarks/bench_kernels.py accuracy --synthetic bibtex
    .venv/bin/python benchmarks/bench_kernels.py klr
    .venv/bin/python benchmarks/bench_kernels.py klr-tol [--sets ...] [--tols 1e-6,1e-5,1e-4]
    .venv/bin/python benchmarks/bench_kernels.py mtlspc-warning --shape bibtex [--exact]
    .venv/bin/python benchmarks/bench_kernels.py scale --shape bibtex|delicious [--threads 1]

``accuracy``: ML-LSPC (defaults λ = 0.1, γ = 1) with the exact kernel (every training
point a centre) against B landmark centres (uniform random and k-means++, seed 0) on
the bundled train/test splits (``mlviz.data.load_sample_split``); test micro-F1.
Features: dense sets standardised, sparse (text) sets L2-normalised per row, the same
for both models.

``scale``: a synthetic set with the shape, sparsity and label-frequency profile of a
Mulan text set (generated in code; see :func:`make_text_like`), a 2/3 train split, and
each kernel estimator with its defaults against per-label scikit-learn
``LogisticRegression`` (defaults, lbfgs) in the same run. Every fit runs in a forked
child process so its peak RSS (``ru_maxrss``, includes the data) is its own; BLAS is
limited to ``--threads`` for all of them.
"""

import argparse
import multiprocessing as mp
import resource
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import f1_score
from sklearn.preprocessing import StandardScaler, normalize
from threadpoolctl import threadpool_limits

SHAPES = {
    # name: n, d, L, mean nnz per row, label cardinality, most / least frequent label share
    "bibtex": dict(n=7395, d=1836, L=159, nnz=68.7, card=2.40, top=0.141, bottom=0.0069),
    "delicious": dict(n=16105, d=500, L=983, nnz=18.2, card=19.0, top=0.42, bottom=0.0013),
}


def make_text_like(n, d, L, nnz, card, top, bottom, n_topics=40, random_state=0):
    """Binary bag-of-words features and topic-driven labels with a Zipf label profile.

    Each row mixes 1–3 of ``n_topics`` topics; its Poisson(nnz) distinct words are
    drawn without replacement from the topics' Zipf word distributions (each topic over its own random
    word order). Label l has a home topic and a base rate p_l log-linear in its rank
    from ``top`` to ``bottom``, rescaled so the mean label count is ``card``;
    P(y_l = 1) = p_l · 4^{(topic weight − 1/3)·3}, clipped to [0, 0.95].

    Returns
    -------
    X : csr_matrix, shape (n, d), 0/1 float64
    Y : ndarray of uint8, shape (n, L)
    """
    rng = np.random.default_rng(random_state)
    word_rank = np.argsort(rng.random((n_topics, d)), axis=1)
    zipf = 1.0 / np.arange(1, d + 1) ** 1.1
    topic_word = np.empty((n_topics, d))
    for k in range(n_topics):
        topic_word[k, word_rank[k]] = zipf
    topic_word /= topic_word.sum(1, keepdims=True)
    theta = np.zeros((n, n_topics))
    n_top = rng.integers(1, 4, size=n)
    for i in range(n):
        ks = rng.choice(n_topics, n_top[i], replace=False)
        theta[i, ks] = rng.dirichlet(np.ones(n_top[i]))
    lengths = np.clip(rng.poisson(nnz, size=n), 1, d)
    logp = np.log(theta @ topic_word + 1e-300)
    rows, cols = [], []
    for start in range(0, n, 2000):  # Gumbel top-k: `lengths[i]` distinct words ~ p_i
        keys = logp[start:start + 2000] - np.log(-np.log(rng.random((min(2000, n - start), d))))
        order = np.argsort(-keys, axis=1)
        for j, i in enumerate(range(start, min(start + 2000, n))):
            cols.append(order[j, :lengths[i]])
            rows.append(np.full(lengths[i], i))
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    X = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, d))
    # Zipf label profile p_r = top · r^(−a), a chosen so that Σ p_r = card
    ranks = np.arange(1, L + 1)
    lo, hi = 0.0, 5.0
    for _ in range(60):
        a = (lo + hi) / 2
        lo, hi = (lo, a) if top * np.sum(ranks ** -a) < card else (a, hi)
    base = np.maximum(top * ranks ** -a, bottom)
    home = rng.integers(0, n_topics, size=L)
    boost = 4.0 ** ((theta[:, home] - 1.0 / 3.0) * 3.0)
    P = np.clip(base[None, :] * boost / boost.mean(0, keepdims=True), 0.0, 0.95)
    Y = (rng.random((n, L)) < P).astype(np.uint8)
    return X, Y


def _per_label_lr(X, Y):
    from sklearn.linear_model import LogisticRegression

    models = []
    for t in range(Y.shape[1]):
        y = Y[:, t]
        if y.min() == y.max():
            models.append(float(y[0]))
            continue
        models.append(LogisticRegression().fit(X, y))
    return models


def _child(conn, name, threads, Xtr, Ytr, Xte, Yte):
    warnings.simplefilter("ignore")
    from mlviz.models import LSPC, MLLSPC, MTLSPC, KernelLogisticRegression

    factories = {"BR LogisticRegression": None, "LSPC": LSPC, "MTLSPC": MTLSPC,
                 "MLLSPC": MLLSPC, "KernelLogisticRegression": KernelLogisticRegression}
    try:
        with threadpool_limits(limits=threads):
            t0 = time.perf_counter()
            if factories[name] is None:
                models = _per_label_lr(Xtr, Ytr)
                fit_s = time.perf_counter() - t0
                P = np.column_stack([m.predict_proba(Xte)[:, 1] if not isinstance(m, float)
                                     else np.full(Xte.shape[0], m) for m in models])
                note = ""
            else:
                m = factories[name](random_state=0).fit(Xtr, Ytr)
                fit_s = time.perf_counter() - t0
                P = m.predict_proba(Xte)
                note = m.centers_note_
                if hasattr(m, "converged_"):
                    note += f"; converged_={m.converged_}, {m.n_iter_} Newton its, {m.n_cg_} CG"
        f1 = f1_score(Yte, P >= 0.5, average="micro", zero_division=0)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        conn.send((fit_s, rss, f1, note))
    except Exception as exc:  # report, do not hang the parent
        conn.send((np.nan, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, np.nan,
                   f"{type(exc).__name__}: {exc}"[:300]))


def _run(name, threads, data):
    ctx = mp.get_context("fork")
    a, b = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(b, name, threads, *data))
    p.start()
    out = a.recv()
    p.join()
    return out


def bench_scale(shape, threads, methods):
    spec = SHAPES[shape]
    t0 = time.perf_counter()
    X, Y = make_text_like(**spec)
    gen_s = time.perf_counter() - t0
    n_tr = round(2 * X.shape[0] / 3)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    tr, te = perm[:n_tr], perm[n_tr:]
    data = (X[tr], Y[tr], X[te], Y[te])
    freq = Y.mean(0)
    print(f"\n### {shape}-like synthetic: {X.shape[0]} x {X.shape[1]} sparse "
          f"(density {X.nnz / np.prod(X.shape):.4f}, {X.nnz / X.shape[0]:.1f} nnz/row) x "
          f"{Y.shape[1]} labels (cardinality {Y.sum(1).mean():.2f}, label frequency "
          f"{freq.max():.3f}..{freq.min():.4f}); train {n_tr}, test {len(te)}; generated in "
          f"{gen_s:.1f} s; {threads} BLAS thread(s)\n")
    rows = []
    base = None
    for name in methods:
        fit_s, rss, f1, note = _run(name, threads, data)
        if base is None:
            base = fit_s
        rows.append((name, fit_s, fit_s / base, rss / 1e9, f1, note))
        print(f"  {name}: {fit_s:.1f} s, {rss / 1e9:.2f} GB, micro-F1 {f1:.3f} {note}", flush=True)
    print("\n| estimator | fit s | / per-label LR | peak RSS GB | test micro-F1 | centres / solver |")
    print("|---|---|---|---|---|---|")
    for name, s, r, g, f1, note in rows:
        print(f"| {name} | {s:.1f} | {r:.2f}x | {g:.2f} | {f1:.3f} | {note} |")


def _prep(train, test):
    if sp.issparse(train.X):
        return normalize(train.X), normalize(test.X)
    sc = StandardScaler().fit(train.X)
    return sc.transform(train.X), sc.transform(test.X)


def bench_accuracy(sets, centres):
    from mlviz.data import load_sample_split
    from mlviz.models import MLLSPC

    print("\n### ML-LSPC: landmark centres vs exact kernel, test micro-F1 "
          "(λ = 0.1, γ = 1, σ = median, seed 0)\n")
    head = ["data set", "n train", "exact"] + [f"B={b} {m}" for b in centres
                                               for m in ("random", "k-means++")]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in sets:
        train, test = load_sample_split(name)
        Xtr, Xte = _prep(train, test)
        t0 = time.perf_counter()
        exact = MLLSPC(n_centers=None).fit(Xtr, train.Y)
        f_exact = f1_score(test.Y, exact.predict(Xte), average="micro", zero_division=0)
        t_exact = time.perf_counter() - t0
        cells = [name, str(Xtr.shape[0]), f"{f_exact:.4f} ({t_exact:.1f} s)"]
        for b in centres:
            for sel in ("random", "kmeans++"):
                t0 = time.perf_counter()
                m = MLLSPC(n_centers=b, center_selection=sel, random_state=0).fit(Xtr, train.Y)
                f = f1_score(test.Y, m.predict(Xte), average="micro", zero_division=0)
                cells.append(f"{f:.4f} ({f - f_exact:+.4f}, {time.perf_counter() - t0:.1f} s)")
        print("| " + " | ".join(cells) + " |", flush=True)


def bench_accuracy_synthetic(shape):
    """Exact kernel vs the ``n_centers='auto'`` default where both fit (N ≈ 4.9k)."""
    from mlviz.models import MLLSPC

    X, Y = make_text_like(**SHAPES[shape])
    n_tr = round(2 * X.shape[0] / 3)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    tr, te = perm[:n_tr], perm[n_tr:]
    print(f"\n### ML-LSPC on the {shape}-like synthetic set (train {n_tr}): exact kernel vs "
          "default landmark centres, test micro-F1\n")
    print("| model | centres | micro-F1 | difference | fit s |")
    print("|---|---|---|---|---|")
    ref = None
    for label, kw in [("exact (n_centers=None)", dict(n_centers=None)),
                      ("default (auto, random)", dict()),
                      ("auto, k-means++", dict(center_selection="kmeans++"))]:
        t0 = time.perf_counter()
        m = MLLSPC(random_state=0, **kw).fit(X[tr], Y[tr])
        f = f1_score(Y[te], m.predict(X[te]), average="micro", zero_division=0)
        ref = f if ref is None else ref
        print(f"| {label} | {m.n_centers_} | {f:.4f} | {f - ref:+.4f} | "
              f"{time.perf_counter() - t0:.1f} |", flush=True)


def bench_klr(sets):
    """Kernel LR: Newton–CG (ours) vs the previous plain L-BFGS-B on (α, b), same objective."""
    from scipy.optimize import minimize

    from mlviz.data import load_sample_split
    from mlviz.models import KernelLogisticRegression
    from mlviz.models.klr import klr_objective

    print("\n### Kernel logistic regression (λ = 0.1, tol 1e-6 on the mean-loss gradient): "
          "Newton-CG vs plain L-BFGS-B (maxiter 500)\n")
    print("| data set | n × L | Newton-CG: converged, its, CG, s | max grad/n | "
          "L-BFGS-B: success, its, s | max grad/n |")
    print("|---|---|---|---|---|---|")
    for name in sets:
        train, test = load_sample_split(name)
        Xtr, _ = _prep(train, test)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = KernelLogisticRegression(lam=0.1, tol=1e-6).fit(Xtr, train.Y)
        t_new = time.perf_counter() - t0
        Phi = m._setup_kernel(Xtr, train.Y.shape[1])
        Yf = train.Y.astype(float)
        n, L = Yf.shape
        t0 = time.perf_counter()
        res = minimize(klr_objective, np.zeros((Phi.shape[1] + 1) * L), args=(Phi, Yf, 0.1, True),
                       jac=True, method="L-BFGS-B",
                       options={"maxiter": 500, "gtol": 1e-6 * n, "ftol": 0.0, "maxcor": 20})
        t_old = time.perf_counter() - t0
        g_old = np.abs(klr_objective(res.x, Phi, Yf, 0.1, True)[1]).max() / n
        print(f"| {name} | {n} × {L} | {m.converged_}, {m.n_iter_}, {m.n_cg_}, {t_new:.1f} | "
              f"{m.grad_max_.max():.1e} | {res.success}, {res.nit}, {t_old:.1f} | {g_old:.1e} |",
              flush=True)


def bench_klr_tol(sets, tols):
    """The registry's kernel LR at each stopping tolerance: test micro-F1, Hamming loss, CPU time.

    The benchmark splits (``mlviz.data.load_protocol_split``: standard Mulan files; medical: the seeded split of
    ``load_sample_split``), ``scale_split`` features, ``get_method("klr").make(tol=t)``. The test
    halves are scored for the record: the default follows the reference's stopping rule
    (scikit-learn's ``LogisticRegression``, tol 1e-4 on the mean-loss gradient), not this table.
    """
    from sklearn.metrics import hamming_loss

    from mlviz.data import load_protocol_split
    from mlviz.models.registry import get_method
    from mlviz.preprocessing import scale_split

    print("| data set | tol | micro-F1 | Hamming loss | Newton its | CG products | CPU s | converged |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sets:
        train, test = load_protocol_split(name)
        Xtr, Xte = scale_split(train.X, test.X)
        for tol in tols:
            t0 = time.process_time()
            m = get_method("klr").make(tol=tol).fit(Xtr, train.Y)
            dt = time.process_time() - t0
            Yp = m.predict(Xte)
            print(f"| {name} | {tol:g} | {f1_score(test.Y, Yp, average='micro'):.4f} | "
                  f"{hamming_loss(test.Y, Yp):.4f} | {m.n_iter_} | {m.n_cg_} | {dt:.2f} | {m.converged_} |",
                  flush=True)


def bench_mtlspc_warning(shape, exact):
    """MT-LSPC defaults on the synthetic split: factorisation, min eig C, error bound, warnings."""
    from mlviz.models import MTLSPC

    X, Y = make_text_like(**SHAPES[shape])
    tr = np.random.default_rng(0).permutation(X.shape[0])[:round(2 * X.shape[0] / 3)]
    for kw in ([dict(), dict(n_centers=None)] if exact else [dict()]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0 = time.perf_counter()
            m = MTLSPC(random_state=0, **kw).fit(X[tr], Y[tr])
        g = m._coupling_eig(m.lam, m.gamma).values
        print(f"{shape} {kw or 'defaults'}: {m.factorisation_}, B = {m.n_centers_}, "
              f"min eig C = {g.min():.3g}, max eigenvalue error bound "
              f"{m._eig.error_bound().max():.3g}, {time.perf_counter() - t0:.1f} s, "
              f"warnings: {[str(w.message)[:160] for w in caught]}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("accuracy")
    a.add_argument("--sets", default="emotions,yeast,scene,enron,medical")
    a.add_argument("--centres", default="250,500,1000")
    a.add_argument("--threads", type=int, default=1)
    a.add_argument("--synthetic", choices=sorted(SHAPES), default=None,
                   help="instead: exact vs default centres on a synthetic set of this shape")
    k = sub.add_parser("klr")
    k.add_argument("--sets", default="emotions,yeast,scene,enron,medical")
    kt = sub.add_parser("klr-tol")
    kt.add_argument("--sets", default="emotions,enron,scene,yeast,medical")
    kt.add_argument("--tols", default="1e-6,1e-5,1e-4")
    w = sub.add_parser("mtlspc-warning")
    w.add_argument("--shape", choices=sorted(SHAPES), default="bibtex")
    w.add_argument("--exact", action="store_true", help="also n_centers=None (slow)")
    s = sub.add_parser("scale")
    s.add_argument("--shape", choices=sorted(SHAPES), default="bibtex")
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--methods", default="BR LogisticRegression,LSPC,MTLSPC,MLLSPC,"
                                        "KernelLogisticRegression")
    args = ap.parse_args()
    if args.cmd == "mtlspc-warning":
        with threadpool_limits(limits=1):
            bench_mtlspc_warning(args.shape, args.exact)
    elif args.cmd == "klr":
        with threadpool_limits(limits=1):
            bench_klr(args.sets.split(","))
    elif args.cmd == "klr-tol":
        with threadpool_limits(limits=1):
            bench_klr_tol(args.sets.split(","), [float(t) for t in args.tols.split(",")])
    elif args.cmd == "accuracy":
        with threadpool_limits(limits=args.threads):
            if args.synthetic:
                bench_accuracy_synthetic(args.synthetic)
            else:
                bench_accuracy(args.sets.split(","), [int(b) for b in args.centres.split(",")])
    else:
        bench_scale(args.shape, args.threads, args.methods.split(","))


if __name__ == "__main__":
    main()
