"""Scale benchmarks (issues 15, 31): real bundled sets beside synthetic twins and shapes.

Data sets (``--sets``):

- real, bundled: ``enron`` (1,702 x 1,001 sparse binary, 53 labels), ``medical``
  (1,954 x 1,909 sparse binary, 45 labels), ``yeast`` (2,417 x 103 dense, 14 labels),
  ``scene`` (2,407 x 294 dense, 6 labels); the seeded 2/3 training split of
  :func:`mlviz.data.load_sample_split`.
- their synthetic twins (:data:`TWINS`), the first rows for training, as many as the real
  set's split has (2/3; scene's official split 1,211 of 2,407), and the other shapes' first 2/3:
  ``enron-like``, ``medical-like`` and the shapes ``bibtex`` (7,395 x 1,836 x 159) and
  ``delicious`` (16,105 x 500 x 983), from :func:`mlviz.data.synthetic.make_text_like` with
  :data:`TEXT_LIKE_PRESETS` (a latent topic model: label co-occurrence, Zipf words,
  near-duplicate threads, digest rows); ``yeast-like`` and ``scene-like`` from
  :func:`mlviz.data.synthetic.make_dense_like` with :data:`DENSE_LIKE_PRESETS` (Zipf-frequent
  prototype label sets, features from a low-rank latent model of the labels and the set,
  skewed and, for scene, clipped to [0, 1]). (The session-15 generator -- independent Zipf
  labels plus topic words -- said 0.4x for the sparse CDN where real bibtex-shaped text takes
  11x; it is kept only for ``describe``.)

``twins [--sets enron,medical,yeast,scene]``
    :func:`mlviz.data.describe` of each bundled file beside its twin's (whole sets,
    ``random_state=0``), with the quotient synthetic / real; for the dense twins also the
    median column sd and skewness, the top eigenvalue of the feature correlation matrix and
    the mean iterations of the per-label LR reference (standardised first 2/3 of the rows).
``describe [--old-rows N]``
    :func:`mlviz.data.describe` on the delicious-shaped label matrix (16,105 x 983),
    new (O(nnz)) vs the session-4 implementation (int64 ``Y^T Y``, ``np.unique(axis=0)``,
    dense float copies) side by side. The old one is O(n L^2) in integer arithmetic
    without BLAS (234 s on the real delicious); it runs on the first ``--old-rows``
    rows (default 2,000; 0 = all) with the new one on the same rows, and the full-size
    old time is extrapolated linearly in n (its cost is linear in n), marked as such.
``fit [--quick] [--timeout S] [--sets enron,enron-like,...] [--methods br,...] [--scaling auto|none] [--repeats R]
[--clock cpu|user|wall] [--compare-tree DIR]``
    Every estimator with its CLI defaults (``mlviz.cli.build_estimator``: default
    hyperparameters, ``random_state=0``) on features scaled once beforehand
    (``--scaling auto``: :func:`mlviz.preprocessing.default_scaling`, as the app does,
    L2 rows for sparse text; ``none``: raw 0/1 words), each fit in its own subprocess
    with a timeout. The reference, per-label scikit-learn ``LogisticRegression()`` on
    the same rows, is timed *interleaved*: LR, estimator, LR, estimator, ... (``R``
    pairs, default 2), and the ratio is mean(estimator) / mean(LR) of that estimator's
    own pairs, so a busy machine slows both sides alike; rows give wall and CPU seconds
    (``time.process_time`` of the one-threaded child; ``--clock`` picks which the
    quotients use, default CPU, which the load changes least; ``user`` leaves out the
    kernel's share, e.g. a first GEMM that sometimes costs 0.3 s of system time on a loaded
    machine, which decides sub-second fits such as ML-kNN's on yeast). ``--compare-tree DIR``
    also fits each estimator from another source tree (e.g. a ``git archive`` of an
    older commit) right after the same LR run, one more row. Peak resident memory of the
    child (``ru_maxrss``; ``data MB`` is the data alone). An estimator that raises
    ``mlviz.models.TooLargeError`` is reported as such. For every real set run with its
    twin, the table ends with the real/synthetic quotient of each estimator's ratio
    (the synthetic benchmark stands for the real one when it is within 2x).
    ``--quick`` uses 1/6 of the rows of the synthetic shapes and a 120 s timeout.

``cdn [--quick] [--compare-tree DIR] [--no-dashboard]``
    The sparse CDN alone (issue 15 solver work): per-label LR, ``SparseCDN()`` with its
    defaults and the CLI scaling, optionally ``SparseCDN`` from another source tree (e.g. a
    ``git archive`` of an older commit), per-label LR again -- each in a child process, one
    after the other; wall and cpu seconds, iterations, the solver's KKT measure and an
    independent step-free one. Then the Label graph page's path on the sparse-159 page data
    (``bench_pages_scale.py``) with the page's data context and path functions: start fit
    (gamma = 1e12) and the warm steps 1.0, 0.5, 0.3 x gamma_max at lam1 = lam2 = 1, mu = 0.

Targets (issue 15): bibtex shape <= 10x per-label LR and <= 2 GB; delicious shape
<= 20x and <= 4 GB; describe on 16k x 983 <= 2 s.

Usage: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_scale.py describe``
       ``PYTHONPATH=. .venv/bin/python benchmarks/bench_scale.py twins --sets yeast,scene``
       ``OMP_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/bench_scale.py fit --sets yeast,yeast-like``
       ``PYTHONPATH=. .venv/bin/python benchmarks/bench_scale.py fit --sets enron,enron-like --methods cdn,mlrh``
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

SHAPES = {
    # name: (n_samples, n_features, n_labels, cardinality, words per row, top label frequency)
    "bibtex": (7395, 1836, 159, 2.40, 68, 0.12),
    "delicious": (16105, 500, 983, 19.02, 18, 0.45),
}


# ------------------------------------------------------------------ data
def zipf_frequencies(L, cardinality, top, exponent=1.0):
    """Per-label positive rates, Zipf-ranked, summing to ``cardinality``, capped at ``top``."""
    p = 1.0 / np.arange(1, L + 1) ** exponent
    for _ in range(50):  # rescale, cap, repeat: sum -> cardinality with no rate above ``top``
        p = np.minimum(p * cardinality / p.sum(), top)
        if abs(p.sum() - cardinality) < 1e-9 * cardinality:
            break
    return p


def make_labels(n, L, cardinality, top, rng):
    """CSR 0/1 label matrix, column l with ~Binomial(n, p_l) positives (O(nnz) memory)."""
    p = zipf_frequencies(L, cardinality, top)
    rows, cols = [], []
    for label, rate in enumerate(p):
        k = max(1, rng.binomial(n, rate))
        rows.append(rng.choice(n, size=k, replace=False))
        cols.append(np.full(k, label))
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    return sp.csr_matrix((np.ones(rows.size, np.uint8), (rows, cols)), shape=(n, L))


def make_features(Y, d, words_per_row, rng, topic_words=8, per_label=2):
    """Binary CSR bag of words: Zipf background words plus each present label's topic words."""
    n, L = Y.shape
    word_p = 1.0 / np.arange(1, d + 1) ** 1.1
    word_p /= word_p.sum()
    topics = rng.choice(d, size=(L, topic_words), p=word_p)
    n_back = rng.poisson(max(words_per_row - per_label * Y.sum() / n, 1.0), size=n)
    back_rows = np.repeat(np.arange(n), n_back)
    back_cols = rng.choice(d, size=back_rows.size, p=word_p)
    Yc = Y.tocoo()
    topic_rows = np.repeat(Yc.row, per_label)
    topic_cols = topics[np.repeat(Yc.col, per_label), rng.integers(0, topic_words, Yc.nnz * per_label)]
    rows = np.concatenate([back_rows, topic_rows])
    cols = np.concatenate([back_cols, topic_cols])
    X = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, d))
    X.data[:] = 1.0  # binary, as the Mulan files
    return X


def make_dataset(shape, *, fraction=1.0, seed=0):
    """(X, Y) of the named shape (rows scaled by ``fraction``), deterministic in ``seed``."""
    n, d, L, card, words, top = SHAPES[shape]
    n = max(int(round(n * fraction)), 50)
    rng = np.random.default_rng(seed)
    Y = make_labels(n, L, card, top, rng)
    X = make_features(Y, d, words, rng)
    return X, Y


def sparse_159(n=7000, L=159, d=1836, words=40, seed=0):
    import scipy.sparse as sp

    from mlviz.data import MultiLabelDataset

    rng = np.random.default_rng(seed)
    k = 12
    Z = rng.dirichlet(np.full(k, 0.3), size=n)           # topic mixture per document
    topics = rng.dirichlet(np.full(d, 0.05), size=k)     # word distribution per topic
    rows, cols = [], []
    for i in range(n):
        w = np.unique(rng.choice(d, size=words, p=Z[i] @ topics))
        rows.append(np.full(w.size, i))
        cols.append(w)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    X = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, d))
    scores = Z @ rng.normal(size=(k, L)) * 2 + rng.normal(size=(n, L))
    freq = np.clip(0.15 * np.arange(1, L + 1) ** -0.5, 51 / n, 0.5)
    thr = np.array([np.quantile(scores[:, j], 1 - freq[j]) for j in range(L)])
    Y = (scores > thr).astype(np.uint8)
    return MultiLabelDataset(X, Y, label_names=[f"label_{j:03d}" for j in range(L)], name="sparse-159")


#: real bundled set -> its synthetic twin (a preset of make_text_like or make_dense_like)
TWINS = {"enron": "enron-like", "medical": "medical-like", "yeast": "yeast-like", "scene": "scene-like"}
REAL_SETS = ("enron", "medical", "yeast", "scene")
SYNTHETIC_SETS = ("enron-like", "medical-like", "bibtex", "delicious", "yeast-like", "scene-like")
#: synthetic sets generated by make_dense_like (the others by make_text_like)
DENSE_SETS = ("yeast-like", "scene-like")


def generator_name(name):
    """Which generator makes the synthetic set ``name``."""
    return "make_dense_like" if name in DENSE_SETS else "make_text_like"


def _train_share(name):
    """Training share of a synthetic set: its real twin's (scene: the official split, 1,211 of
    2,407 rows), else 2/3."""
    real = {twin: real for real, twin in TWINS.items()}.get(name)
    if real is None:
        return 2 / 3
    from mlviz.data import load_sample_split

    train, test = load_sample_split(real)
    return train.X.shape[0] / (train.X.shape[0] + test.X.shape[0])


def load_set(name, *, fraction=1.0):
    """Training split (X, Y) of a bundled real set or of a text-like synthetic shape."""
    if name in REAL_SETS:
        from mlviz.data import load_sample_split

        train, _ = load_sample_split(name)
        return train.X, np.asarray(train.Y, dtype=np.uint8)
    from mlviz.data.synthetic import DENSE_LIKE_PRESETS, TEXT_LIKE_PRESETS, make_dense_like, make_text_like

    dense = name in DENSE_SETS
    params = dict((DENSE_LIKE_PRESETS if dense else TEXT_LIKE_PRESETS)[name.replace("-like", "")])
    params["n_samples"] = max(int(round(params["n_samples"] * fraction)), 60)
    ds = (make_dense_like if dense else make_text_like)(**params, random_state=0)
    n_train = int(round(ds.X.shape[0] * _train_share(name)))
    if dense:
        return np.asarray(ds.X[:n_train]), np.asarray(ds.Y[:n_train], dtype=np.uint8)
    return ds.X[:n_train].tocsr(), np.asarray(ds.Y[:n_train], dtype=np.uint8)


# ------------------------------------------------------------------ describe
def old_describe_core(Y):
    """The session-4 ``describe`` computations (verbatim maths), for the side-by-side timing."""
    Y = np.asarray(Y)
    counts = Y.sum(axis=0).astype(np.int64)
    Yf = np.asarray(Y, dtype=np.float64)
    c = Yf.sum(axis=0)
    present = c > 0
    irlbl = c.max() / np.maximum(c, 1.0)
    sizes = Yf.sum(axis=1)
    lab = sizes > 0
    log_geo = (Yf[lab] @ np.log(irlbl)) / sizes[lab]
    arith = (Yf[lab] @ irlbl) / sizes[lab]
    scumble = float(np.mean(np.r_[1.0 - np.exp(log_geo) / arith, np.zeros((~lab).sum())]))
    n_sets = len(np.unique(Y, axis=0))
    cooc = Y.T.astype(np.int64) @ Y.astype(np.int64)
    return counts, float(irlbl[present].mean()), scumble, n_sets, cooc


def bench_describe(old_rows):
    from mlviz.data import MultiLabelDataset, describe

    n, d, L, card, _, top = SHAPES["delicious"]
    rng = np.random.default_rng(0)
    Ys = make_labels(n, L, card, top, rng)
    Y = Ys.toarray()
    X = sp.csr_matrix((n, d))
    print(f"label matrix {n} x {L}, nnz {Ys.nnz} (cardinality {Ys.nnz / n:.2f}, "
          f"top label rate {Ys.sum(0).max() / n:.3f}, positives per label min {Ys.sum(0).min()} "
          f"median {int(np.median(np.asarray(Ys.sum(0)).ravel()))}, labels with < 10 positives "
          f"{int((np.asarray(Ys.sum(0)).ravel() < 10).sum())})")
    ds = MultiLabelDataset(X, Y, name="synthetic-delicious")
    t0 = time.perf_counter()
    stats = describe(ds)
    t_new = time.perf_counter() - t0
    print(f"new describe, all {n} rows: {t_new:.3f} s (co-occurrence block "
          f"{len(stats['cooccurrence_labels'])} x {len(stats['cooccurrence_labels'])})")
    m = n if old_rows <= 0 else min(old_rows, n)
    sub = MultiLabelDataset(X[:m], Y[:m], name="sub")
    t0 = time.perf_counter()
    s_new = describe(sub, max_cooccurrence_labels=L)  # full L x L, as the old one computes
    t_new_sub = time.perf_counter() - t0
    t0 = time.perf_counter()
    counts, mean_ir, scumble, n_sets, cooc = old_describe_core(Y[:m])
    t_old_sub = time.perf_counter() - t0
    assert np.array_equal(cooc, s_new["cooccurrence"].to_numpy()) and n_sets == s_new["n_labelsets"]
    assert abs(scumble - s_new["scumble"]) < 1e-12 and abs(mean_ir - s_new["mean_ir"]) < 1e-12
    print(f"first {m} rows, full {L} x {L} co-occurrence: old {t_old_sub:.2f} s, new {t_new_sub:.3f} s, "
          f"ratio old/new {t_old_sub / t_new_sub:.0f}x (identical statistics)")
    if m < n:
        print(f"old on all {n} rows, extrapolated linearly in n: ~{t_old_sub * n / m:.0f} s "
              f"(~{t_old_sub * n / m / t_new:.0f}x the new describe)")


# ------------------------------------------------------------------ twins
def _feature_stats(X, Y):
    """Median column sd and skewness, top eigenvalue of the column correlation matrix, and the
    mean L-BFGS iterations of per-label ``LogisticRegression()`` on the first 2/3 of the rows,
    standardised (the reference of ``fit``; dense X)."""
    import warnings

    from scipy.stats import skew
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    X = np.asarray(X.toarray() if sp.issparse(X) else X)
    keep = X.std(axis=0) > 0
    n = int(round(2 * X.shape[0] / 3))
    Xs, Ys = StandardScaler().fit_transform(X[:n]), np.asarray(Y)[:n]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iters = [LogisticRegression().fit(Xs, Ys[:, j]).n_iter_[0] for j in range(Ys.shape[1])
                 if 0 < Ys[:, j].sum() < n]
    return {"median sd": float(np.median(X.std(axis=0))), "median skew": float(np.median(skew(X[:, keep], axis=0))),
            "top corr eig": float(np.linalg.eigvalsh(np.corrcoef(X[:, keep].T))[-1]),
            "LR iterations": float(np.mean(iters))}


def bench_twins(reals):
    """describe() of each bundled real set (whole file) beside its twin's (whole generated set)."""
    from mlviz.data import describe, load_sample
    from mlviz.data.synthetic import DENSE_LIKE_PRESETS, TEXT_LIKE_PRESETS, make_dense_like, make_text_like

    keys = ("n_samples", "n_features", "n_labels", "feature_density", "cardinality", "density", "n_labelsets",
            "n_empty", "n_absent_labels", "mean_ir", "max_ir", "scumble")
    for real in reals:
        twin = TWINS[real]
        make, presets = (make_dense_like, DENSE_LIKE_PRESETS) if twin in DENSE_SETS else (make_text_like,
                                                                                          TEXT_LIKE_PRESETS)
        a, b = load_sample(real), make(**presets[real], random_state=0)
        ra, rb = describe(a), describe(b)
        if twin in DENSE_SETS:
            ra.update(_feature_stats(a.X, a.Y))
            rb.update(_feature_stats(b.X, b.Y))
        print(f"\n== {real} (bundled file) vs {twin} ({generator_name(twin)}, random_state=0)")
        for key in keys + (("median sd", "median skew", "top corr eig", "LR iterations") if twin in DENSE_SETS else ()):
            x, y = ra[key], rb[key]
            q = f"{y / x:6.2f}" if isinstance(x, (int, float)) and x else "     -"
            print(f"  {key:<16} {x:>12.4g} {y:>12.4g}   synthetic/real {q}")


# ------------------------------------------------------------------ fit
def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _save(path, X, Y):
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        np.savez(path, data=X.data, indices=X.indices, indptr=X.indptr, shape=np.array(X.shape), Y=Y)
    else:
        np.savez(path, dense=np.asarray(X, dtype=float), Y=Y)


def _load(path):
    z = np.load(path, allow_pickle=False)
    if "dense" in z:
        return z["dense"], z["Y"]
    return sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"])), z["Y"]


def _user_seconds():
    """User-mode CPU seconds of this process (``process_time`` minus the kernel's share)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def run_one(data_path, method):
    """Child process: fit one estimator on the saved (already scaled) training split; print
    one JSON line."""
    import warnings

    warnings.simplefilter("ignore")
    X, Y = _load(data_path)
    data_mb = _peak_mb()
    out = {"method": method, "data_mb": data_mb}
    try:
        if method == "lr-per-label":
            from sklearn.linear_model import LogisticRegression

            t0, c0, u0 = time.perf_counter(), time.process_time(), _user_seconds()
            for j in range(Y.shape[1]):
                if 0 < Y[:, j].sum() < Y.shape[0]:
                    LogisticRegression().fit(X, Y[:, j])
            out["fit_seconds"] = time.perf_counter() - t0
            out["cpu_seconds"] = time.process_time() - c0
            out["user_seconds"] = _user_seconds() - u0
        else:
            from mlviz.cli import build_estimator
            from mlviz.models import TooLargeError

            est = build_estimator(method, scaling="none", X=X, random_state=0)
            t0, c0, u0 = time.perf_counter(), time.process_time(), _user_seconds()
            try:
                est.fit(X, Y)
                out["fit_seconds"] = time.perf_counter() - t0
                out["cpu_seconds"] = time.process_time() - c0
                out["user_seconds"] = _user_seconds() - u0
            except TooLargeError as exc:
                out["status"] = f"TooLargeError after {time.perf_counter() - t0:.2f} s: {exc}"
    except Exception as exc:  # noqa: BLE001 -- reported in the table
        out["status"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    out["peak_mb"] = _peak_mb()
    print(json.dumps(out))


def _run_child(path, method, timeout, tree=""):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    if tree:  # the estimator from another source tree (e.g. a git archive of an older commit)
        env["PYTHONPATH"] = str(Path(tree).resolve())
    try:
        proc = subprocess.run([sys.executable, __file__, "_one", str(path), method],
                              capture_output=True, text=True, timeout=timeout, env=env)
        line = (proc.stdout.strip().splitlines() or [""])[-1]
        return json.loads(line) if line.startswith("{") else {
            "method": method, "status": f"crashed: {proc.stderr.strip()[-200:]}"}
    except subprocess.TimeoutExpired:
        return {"method": method, "status": f"timeout after {timeout:.0f} s"}


def bench_fit(quick, timeout, sets, methods, scaling, repeats, clock="cpu", compare_tree=""):
    """Every estimator against per-label LR, interleaved (LR, estimator[, estimator from
    ``compare_tree``], LR, ...); real/synthetic quotients of the ``clock`` ratios."""
    from mlviz.models.registry import METHODS
    from mlviz.preprocessing import default_scaling, make_scaler

    methods = methods or [m for m in METHODS if not m.startswith("cdn-")]
    fraction = 1 / 6 if quick else 1.0
    ratios = {}
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as tmp:
        for name in sets:
            X, Y = load_set(name, fraction=fraction)
            how = default_scaling(X) if scaling == "auto" else "none"
            scaler = make_scaler(how, sparse=sp.issparse(X))
            if scaler is not None:
                X = scaler.fit_transform(X)
            path = Path(tmp) / f"{name}.npz"
            _save(path, X, Y)
            nnz = X.nnz if sp.issparse(X) else np.count_nonzero(X)
            kind = "real, bundled" if name in REAL_SETS else f"synthetic, {generator_name(name)}"
            print(f"\n== {name} ({kind}): training split {X.shape[0]} x {X.shape[1]} "
                  f"{'sparse' if sp.issparse(X) else 'dense'} (nnz/row {nnz / X.shape[0]:.1f}, scaling {how}) "
                  f"x {Y.shape[1]} labels (cardinality {Y.sum(1).mean():.2f})"
                  f"{' [quick: 1/6 of the rows]' if quick and name not in REAL_SETS else ''}; "
                  f"{repeats} interleaved pairs, timeout {timeout:.0f} s per fit", flush=True)
            for method in methods:
                lr, fits, other = [], [], []
                for _ in range(int(repeats)):
                    lr.append(_run_child(path, "lr-per-label", timeout))
                    fits.append(_run_child(path, method, timeout))
                    if compare_tree:
                        other.append(_run_child(path, method, timeout, compare_tree))
                    if "fit_seconds" not in fits[-1]:
                        break
                if other and all("fit_seconds" in r for r in other):
                    old = dict(other[-1], method=f"{method} [compare-tree]")
                    old.update(_summary(other, lr))
                    print("  " + _row_text(old), flush=True)
                res = fits[-1]
                if "fit_seconds" in res and any("fit_seconds" in r for r in lr):
                    res.update(_summary(fits, lr))
                    key = {"cpu": "cpu_seconds", "user": "user_seconds", "wall": "fit_seconds"}[clock]
                    ratios[(name, method)] = res[key] / res["lr_" + key]
                print("  " + _row_text(res), flush=True)
    pairs = [(real, twin) for real, twin in TWINS.items() if real in sets and twin in sets]
    for real, twin in pairs:
        print(f"\n== real {real} vs synthetic {twin}: ratio to per-label LR ({clock} seconds), and real / synthetic")
        for method in methods:
            a, b = ratios.get((real, method)), ratios.get((twin, method))
            if a is None or b is None:
                print(f"  {method:<13} (missing)")
                continue
            q = a / b
            print(f"  {method:<13} real x{a:6.2f}   synthetic x{b:6.2f}   real/synthetic {q:5.2f}"
                  f"{'' if 0.5 <= q <= 2 else '   DIFFERS > 2x'}")


def _summary(fits, lr):
    """Means over the interleaved runs (wall and CPU seconds), peak memory."""
    lr = [r for r in lr if "fit_seconds" in r]
    return dict(fit_seconds=float(np.mean([r["fit_seconds"] for r in fits])),
                cpu_seconds=float(np.mean([r["cpu_seconds"] for r in fits])),
                user_seconds=float(np.mean([r["user_seconds"] for r in fits])),
                peak_mb=max(r["peak_mb"] for r in fits),
                lr_fit_seconds=float(np.mean([r["fit_seconds"] for r in lr])),
                lr_seconds=float(np.mean([r["fit_seconds"] for r in lr])),
                lr_cpu_seconds=float(np.mean([r["cpu_seconds"] for r in lr])),
                lr_user_seconds=float(np.mean([r["user_seconds"] for r in lr])))


def _row_text(res):
    name = f"{res['method']:<13}"
    if "fit_seconds" not in res or "lr_seconds" not in res:
        return f"{name} {res.get('status', '?')}"
    ratio = res["fit_seconds"] / res["lr_seconds"]
    cpu = res["cpu_seconds"] / res["lr_cpu_seconds"]
    return (f"{name} fit {res['fit_seconds']:8.2f} s   LR {res['lr_seconds']:7.2f} s   x{ratio:6.2f} per-label LR   "
            f"cpu {res['cpu_seconds']:7.2f} s / {res['lr_cpu_seconds']:6.2f} s  x{cpu:6.2f}   "
            f"user x{res['user_seconds'] / res['lr_user_seconds']:6.2f}   "
            f"peak {res['peak_mb']:7.0f} MB (data {res['data_mb']:.0f} MB)")


# ------------------------------------------------------------------ cdn (issue 15 solver)
def _relative_kkt(X, Y, m):
    """Step-free KKT residual of a fitted SparseCDN, written independently of the solver:
    the minimum-norm subgradient of objective (4) / n at (W, V, b), each entry over its
    documented data scale (std(x_j) rms(r_k) for W, std(y_t) rms(r_k) for V, rms(r_k) for b),
    in the documented coordinates (the intercept of the centred features and labels,
    c = b + mean(x) W + mean(s) V, so the W gradient is the raw one minus mean(x_j) grad(b_k)).
    The solver stops when its own form of this measure is <= tol."""
    from scipy.special import expit

    n, L = Y.shape
    S = 2.0 * Y - 1.0
    W, V, b = m.coef_, m.label_coef_, m.intercept_
    mu = m.mu / n if m.variant in ("sparse", "l21-lr") else 0.0
    gam = m.gamma_ / n
    P = expit(np.asarray(X @ W) + S @ V + b)
    R = (P - Y) / n  # d mean loss / d logits
    gb = R.sum(axis=0)
    x_mean = np.asarray(X.mean(axis=0)).ravel()
    gW = np.asarray(X.T @ R) - np.outer(x_mean, gb) + m.lam1 / n * W
    gV = S.T @ R - np.outer(S.mean(axis=0), gb) + m.lam2 / n * V
    nrm = np.linalg.norm(W, axis=1, keepdims=True)
    gnrm = np.linalg.norm(gW, axis=1, keepdims=True)
    GW = np.where(nrm > 0, gW + mu * W / np.maximum(nrm, 1e-300),
                  gW * np.maximum(0.0, 1.0 - mu / np.maximum(gnrm, 1e-300)))
    GV = np.where(V != 0, gV + gam * np.sign(V), np.sign(gV) * np.maximum(np.abs(gV) - gam, 0.0))
    np.fill_diagonal(GV, 0.0)
    active = Y.min(axis=0) != Y.max(axis=0)
    GV[:, ~active] = 0.0
    GV[~active, :] = 0.0
    rms = np.maximum(np.sqrt(np.mean((Y - P) ** 2, axis=0)), 1e-12)
    x_std = np.sqrt(np.maximum(np.asarray(X.multiply(X).mean(axis=0)).ravel() - x_mean ** 2, 0.0))

    def ratio(G, scale):
        G = G[..., active] if G.ndim == 2 else G[active]
        scale = scale[..., active] if scale.ndim == 2 else scale[active]
        return float(np.abs(G / np.maximum(scale, 1e-300)).max(initial=0.0))

    return max(ratio(GW, np.outer(x_std, rms)), ratio(GV, np.outer(S.std(axis=0), rms)), ratio(gb, rms))


def _cdn_job(data_path, what):
    """Child process: time one fit on the saved split, print one JSON line."""
    import warnings

    warnings.simplefilter("ignore")
    z = np.load(data_path, allow_pickle=False)
    X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
    Y = z["Y"]
    out = {"what": what}
    t0, c0 = time.perf_counter(), time.process_time()
    if what == "lr-per-label":
        from sklearn.linear_model import LogisticRegression

        for j in range(Y.shape[1]):
            if 0 < Y[:, j].sum() < Y.shape[0]:
                LogisticRegression().fit(X, Y[:, j])
    elif what == "cdn":
        from mlviz.models import SparseCDN

        its = {}

        def cb(stage, it, F):
            its[stage] = it

        m = SparseCDN(random_state=0).fit(X, Y, callback=cb)
        out.update(iters=its, converged=bool(m.converged_), kkt=float(m.kkt_violation_),
                   edges=int(m.label_graph_.number_of_edges()), gamma_max=float(m.gamma_max_),
                   objective=float(m.objective_history_[-1]))
    out["seconds"], out["cpu"] = time.perf_counter() - t0, time.process_time() - c0
    if what == "cdn":
        out["kkt_independent"] = _relative_kkt(X, Y.astype(float), m)
    print(json.dumps(out))


def _child(args, pythonpath, timeout):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONPATH": pythonpath}
    try:
        proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": f"timeout after {timeout:.0f} s"}
    line = (proc.stdout.strip().splitlines() or [""])[-1]
    return json.loads(line) if line.startswith("{") else {"status": f"crashed: {proc.stderr.strip()[-300:]}"}


def bench_cdn(quick, compare_tree, timeout, dashboard):
    """SparseCDN() (estimator defaults, CLI scaling) vs per-label LR at the bibtex shape, side by
    side (children run one after the other: LR, CDN, [CDN of ``compare_tree``], LR again); then
    the dashboard's sparse-CDN path start on the sparse-159 page data."""
    from mlviz.models import SparseCDN
    from mlviz.preprocessing import with_scaling

    here = str(Path(__file__).resolve().parents[1])
    fraction = 1 / 6 if quick else 1.0
    Xt, Yt = load_set("bibtex", fraction=fraction)  # make_text_like, training rows
    scaler = with_scaling(SparseCDN(), "auto", Xt).steps[0][1]  # the CLI default scaling
    Xs = sp.csr_matrix(scaler.fit_transform(Xt))
    with tempfile.TemporaryDirectory(prefix="bench_cdn_") as tmp:
        path = Path(tmp) / "bibtex.npz"
        np.savez(path, data=Xs.data, indices=Xs.indices, indptr=Xs.indptr, shape=np.array(Xs.shape), Y=Yt)
        print(f"== bibtex-shaped (make_text_like) training split {Xs.shape[0]} x {Xs.shape[1]} (nnz/row "
              f"{Xs.nnz / Xs.shape[0]:.1f}, scaling {type(scaler).__name__}) x {Yt.shape[1]} labels; "
              "SparseCDN() defaults (lam1 = lam2 = 1, mu = 0, gamma = 0.5 gamma_max, tol = 1e-3)")
        runs = [("lr-per-label", here, "lr-per-label"), ("cdn", here, "cdn (this tree)")]
        if compare_tree:
            runs.append(("cdn", compare_tree, f"cdn ({compare_tree})"))
        runs.append(("lr-per-label", here, "lr-per-label (again)"))
        results = []
        for what, tree, label in runs:
            res = _child(["_cdnjob", str(path), what], tree, timeout)
            results.append((label, res))
        lr = [r["seconds"] for lab, r in results if lab.startswith("lr") and "seconds" in r]
        lr_cpu = [r["cpu"] for lab, r in results if lab.startswith("lr") and "cpu" in r]
        for label, res in results:
            if "seconds" not in res:
                print(f"  {label:<28s} {res.get('status')}")
                continue
            line = (f"  {label:<28s} fit {res['seconds']:7.2f} s (cpu {res['cpu']:7.2f} s)   "
                    f"x {res['seconds'] / np.mean(lr):5.2f} per-label LR (cpu x {res['cpu'] / np.mean(lr_cpu):5.2f})")
            if "iters" in res:
                line += (f"   iterations start {res['iters'].get('start', 0)} main {res['iters'].get('main', 0)}, "
                         f"converged {res['converged']}, KKT {res['kkt']:.2g} "
                         f"(independent {res['kkt_independent']:.2g}), "
                         f"edges {res['edges']}, objective {res['objective']:.6g}")
            print(line, flush=True)
        print(f"  ratio base: mean of the two per-label LR runs, {np.mean(lr):.2f} s (cpu {np.mean(lr_cpu):.2f} s)")
    if dashboard:
        _bench_dashboard_path()


def _bench_dashboard_path():
    """The Label graph page's sparse-CDN path on the sparse-159 page data (7,000 x 1,836 sparse,
    159 labels; :func:`sparse_159`, as ``benchmarks/bench_pages_scale.py`` uses it), with the page's own
    data context (seeded split, default scaling) and path functions: start (gamma = 1e12, V = 0), then the
    steps 1.0, 0.5, 0.3 x gamma_max, each warm-started from the previous, as the page does."""
    import warnings

    from mlviz.dashboard.state import context_from_dataset
    from mlviz.models import SparseCDN
    from mlviz.models.registry import _cdn_start, _cdn_step

    warnings.simplefilter("ignore")
    ctx = context_from_dataset("sparse-159", sparse_159())
    X, Y = ctx.X_train, ctx.Y_train
    print(f"\n== dashboard path, sparse-159: training split {X.shape[0]} x {X.shape[1]} (scaling "
          f"{ctx.scaling}) x {Y.shape[1]} labels; lam1 = lam2 = 1, mu = 0 (the new page defaults)")
    total = 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    model = _cdn_start(SparseCDN(lam1=1.0, lam2=1.0, mu=0.0, random_state=0), X, Y, None)
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    total += dt
    print(f"  start (gamma = 1e12, V = 0)   {dt:6.2f} s (cpu {dc:6.2f} s)  converged {model.converged_}, "
          f"KKT {model.kkt_violation_:.2g} (independent {_relative_kkt(X, Y.astype(float), model):.2g}), "
          f"gamma_max {model.gamma_max_:.4g}")
    for ratio in (1.0, 0.5, 0.3):
        t0, c0 = time.perf_counter(), time.process_time()
        model = _cdn_step(model, ratio, None, keep=(X, Y))
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        total += dt
        print(f"  step {ratio:3.1f} x gamma_max          {dt:6.2f} s (cpu {dc:6.2f} s)  iterations {model.n_iter_}, "
              f"converged {model.converged_}, KKT {model.kkt_violation_:.2g} (independent "
              f"{_relative_kkt(X, Y.astype(float), model):.2g}), edges {model.label_graph_.number_of_edges()}; "
              f"cumulative {total:6.2f} s", flush=True)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_one":
        return run_one(argv[1], argv[2])
    if argv and argv[0] == "_cdnjob":
        return _cdn_job(argv[1], argv[2])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("describe")
    p.add_argument("--old-rows", type=int, default=2000)
    p = sub.add_parser("twins")
    p.add_argument("--sets", default="enron,medical,yeast,scene", help="real sets (each beside its twin)")
    p = sub.add_parser("fit")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--timeout", type=float, default=None)
    p.add_argument("--sets", default="enron,enron-like,medical,medical-like,bibtex")
    p.add_argument("--methods", default="")
    p.add_argument("--scaling", choices=("auto", "none"), default="auto")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--clock", choices=("cpu", "user", "wall"), default="cpu",
                   help="seconds behind the real/synthetic quotients (rows show both)")
    p.add_argument("--compare-tree", default="", help="also time each estimator from this source tree")
    p = sub.add_parser("cdn")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--compare-tree", default="", help="also time SparseCDN from this source tree")
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--no-dashboard", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "cdn":
        return bench_cdn(args.quick, args.compare_tree, args.timeout, not args.no_dashboard)
    if args.command == "describe":
        return bench_describe(args.old_rows)
    if args.command == "twins":
        return bench_twins([s for s in args.sets.split(",") if s])
    timeout = args.timeout or (120.0 if args.quick else 600.0)
    sets = [s for s in args.sets.split(",") if s]
    methods = [m for m in args.methods.split(",") if m]
    return bench_fit(args.quick, timeout, sets, methods, args.scaling, args.repeats, args.clock,
                     args.compare_tree)


if __name__ == "__main__":
    main()
