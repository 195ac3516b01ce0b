"""Dense multi-label data: a label-set mixture model calibrated to the Mulan dense sets.

:func:`make_dense_like` generates what makes real dense multi-label data (gene
profiles, image and audio descriptors) what it is for a learner, and what
independent per-label draws lack: a limited number of distinct label sets with
Zipf-distributed frequencies (labels co-occur, label-powerset methods see few
classes), features that depend on the labels *and* on the label set as a whole,
strongly correlated features (a low-rank covariance: the top eigenvalue of
scene's correlation matrix is 49 of 294), and skewed, bounded marginals.

Generative process
------------------
1. Label popularity ``pi_l`` is Zipf(``label_zipf``) over a random order of the L labels.
2. ``n_prototypes`` distinct prototype label sets ``S_1, ..., S_K``: sizes
   ``1 + Poisson(cardinality - 1)`` (at most L; a size whose sets are used up moves to the
   next free size), labels drawn without replacement with probabilities ``pi``.
3. Prototype weights ``w_k ~ k^(-labelset_zipf) q^|S_k|``, with ``q`` found by bisection so
   that the expected label-set size of a row (after step 4) equals ``cardinality``.
4. Row i draws ``k_i ~ w``; with probability ``labelset_noise`` one label (uniform) is
   flipped (added, or removed if the set keeps a label): the rare sets of the tail.
5. Latent factors (rank r = ``n_factors``): ``z_i = label_signal sum_{l in Y_i} a_l /
   sqrt(|Y_i|) + cluster_signal b_{k_i, m_i} + e_i``, with ``a_l, b_{k,m}, e_i ~ N(0, I_r)``
   and the mode ``m_i`` uniform over the ``n_modes`` modes of prototype k_i (sub-clusters:
   neighbours share labels more than a linear model can tell, as in scene).
6. Features ``x_i = z_i W + diag(sigma) eps_i``: loadings ``W`` (r x d) whose factor scales
   decay as ``f^(-factor_decay)`` (the correlation spectrum), per-feature noise ``sigma_j``
   log-uniform on ``[noise_min, noise_max]`` (small ones make near-collinear features, as
   in yeast, whose correlation matrix has eigenvalues down to 1e-5).
7. Marginals: each standardised feature goes through ``(exp(s_j x) - 1) / s_j`` with
   ``s_j ~ N(skew_loc, skew_scale)`` (right-skewed for s_j > 0, as variance and histogram
   descriptors are), then ``bounded=True`` maps each column's ``clip`` and ``1 - clip``
   quantiles to 0 and 1 and clips (as Mulan's scene and mediamill files are), else scales
   to mean ``feature_loc`` and standard deviation ``feature_scale``.
8. ``row_norm``: every row is scaled to this euclidean norm (every row of the yeast file has
   norm 1).

The presets :data:`DENSE_LIKE_PRESETS` reproduce the sizes and the label statistics of
yeast and scene (checked against the bundled files: ``describe`` statistics in
``tests/test_dense_like.py``, fit-time ratios in ``benchmarks/RESULTS.md``) and the
published ones of mediamill (cardinality 4.38, density 0.043, 6,555 distinct label sets;
the file is not bundled).

References
----------
G. Tsoumakas, I. Katakis, I. Vlahavas, "Mining multi-label data", Data Mining and
Knowledge Discovery Handbook, 2010 (the Mulan statistics: cardinality, density,
distinct label sets). A. Elisseeff, J. Weston, "A kernel method for multi-labelled
classification", NIPS 2001 (yeast); M. R. Boutell, J. Luo, X. Shen, C. M. Brown,
"Learning multi-label scene classification", Pattern Recognition 37(9), 2004 (scene);
C. G. M. Snoek et al., "The challenge problem for automated detection of 101 semantic
concepts in multimedia", ACM Multimedia 2006 (mediamill).
"""

import math

import numpy as np

from .dataset import MultiLabelDataset

__all__ = ["make_dense_like", "DENSE_LIKE_PRESETS"]

#: name -> keyword arguments of :func:`make_dense_like`. yeast and scene: the whole bundled
#: files' sizes, cardinality and distinct label sets (``describe``), feature marginals
#: (yeast: mean 0, rows of norm 1, so sd 0.1, mild skew; scene: [0, 1], right-skewed) and correlation spectra;
#: mediamill: the published sizes and label statistics (cardinality 4.38, 6,555 label sets,
#: MeanIR 256; this preset: 4.39, 6,192, 246).
DENSE_LIKE_PRESETS = {
    "yeast": dict(n_samples=2417, n_features=103, n_labels=14, cardinality=4.24, n_prototypes=120,
                  labelset_zipf=1.0, labelset_noise=0.05, label_zipf=1.6, n_factors=40,
                  factor_decay=0.4, label_signal=0.25, cluster_signal=0.3, noise_min=0.2,
                  noise_max=0.6, skew_loc=0.05, skew_scale=0.2, row_norm=1.0),
    "scene": dict(n_samples=2407, n_features=294, n_labels=6, cardinality=1.07, n_prototypes=15,
                  labelset_zipf=0.3, labelset_noise=0.0, label_zipf=0.0, n_factors=60,
                  factor_decay=0.6, label_signal=0.2, cluster_signal=0.5, n_modes=8, noise_min=0.14,
                  noise_max=2.0, skew_loc=0.45, skew_scale=0.45, bounded=True),
    "mediamill": dict(n_samples=43907, n_features=120, n_labels=101, cardinality=4.38,
                      n_prototypes=3500, labelset_zipf=1.0, labelset_noise=0.1, label_zipf=2.2,
                      n_factors=30, factor_decay=0.5, label_signal=0.3, cluster_signal=0.3,
                      noise_min=0.05, noise_max=1.0, skew_loc=0.2, skew_scale=0.3, bounded=True),
}


def _zipf(k, exponent):
    p = 1.0 / np.arange(1, k + 1) ** float(exponent)
    return p / p.sum()


def _prototypes(L, K, cardinality, popularity, rng):
    """K distinct label sets (sorted index arrays), sizes 1 + Poisson(cardinality - 1)."""
    sets, seen = [], set()
    free = {m: math.comb(L, m) for m in range(1, L + 1)}  # sets of each size not yet taken
    for _ in range(K):
        m = min(L, 1 + int(rng.poisson(cardinality - 1.0)))
        # a size whose sets are all taken moves to the nearest free size (prefer larger)
        if not free[m]:
            order = sorted(range(1, L + 1), key=lambda s: (abs(s - m), -s))
            m = next((s for s in order if free[s] > 0), None)
            if m is None:  # every subset of the labels is a prototype already
                break
        while True:
            labels = tuple(sorted(rng.choice(L, size=m, replace=False, p=popularity).tolist()))
            if labels not in seen:
                break
        seen.add(labels)
        free[m] -= 1
        sets.append(np.array(labels, dtype=int))
    return sets


def _expected_size(sizes, weights, L, noise):
    """Expected label-set size after one uniform flip with probability ``noise``."""
    add = (L - sizes) / L
    remove = np.where(sizes > 1, sizes / L, 0.0)
    return float(weights @ (sizes + noise * (add - remove)))


def make_dense_like(n_samples=2000, n_features=100, n_labels=10, *, cardinality=2.0, n_prototypes=None,
                    labelset_zipf=1.0, labelset_noise=0.05, label_zipf=1.0, n_factors=20, factor_decay=0.7,
                    label_signal=1.0, cluster_signal=1.0, n_modes=1, noise_min=0.1, noise_max=1.0, skew_loc=0.0,
                    skew_scale=0.2, bounded=False, clip=0.005, feature_loc=0.0, feature_scale=1.0,
                    row_norm=None, name=None,
                    random_state=None):
    """A dense multi-label data set from a label-set mixture with low-rank correlated features.

    The generative process is in the module docstring (steps 1-7).

    Parameters
    ----------
    n_samples, n_features, n_labels : int
        N, d and L.
    cardinality : float in [1, L]
        Expected label-set size of a row (step 3 calibrates the prototype weights to it).
    n_prototypes : int or None
        K, distinct prototype label sets (step 2); None = min(2^L - 1, 10 L).
    labelset_zipf : float >= 0
        Zipf exponent of the prototype frequencies (0: equally frequent).
    labelset_noise : float in [0, 1]
        Probability that a row's set is its prototype with one label flipped.
    label_zipf : float >= 0
        Zipf exponent of label popularity (0: balanced labels, as in scene).
    n_factors : int >= 1
        r, rank of the shared feature covariance.
    factor_decay : float >= 0
        Factor f's loadings scale as f^(-factor_decay) (larger: a steeper correlation spectrum).
    label_signal, cluster_signal : float >= 0
        Scales of the per-label and per-prototype-mode latent means (step 5).
    n_modes : int >= 1
        Modes (sub-clusters) of each prototype's latent mean (step 5).
    noise_min, noise_max : float, 0 < noise_min <= noise_max
        Range of the per-feature independent noise (log-uniform, step 6).
    skew_loc, skew_scale : float
        Mean and spread of the per-feature skew exponents s_j (step 7).
    bounded : bool
        Scale each feature to [0, 1] (else to ``feature_loc``, ``feature_scale``).
    clip : float in [0, 0.5)
        With ``bounded``, the column's ``clip`` and ``1 - clip`` quantiles map to 0 and 1 and
        the values beyond are clipped (scene: a median 15 zeros and 21 ones per column).
    feature_loc, feature_scale : float
        Column mean and standard deviation when not ``bounded``.
    row_norm : float > 0 or None
        Scale every row to this L2 norm last (step 8; yeast: 1).
    name : str or None
    random_state : int, numpy Generator or None

    Returns
    -------
    MultiLabelDataset
        ``X`` dense float64 (n_samples, n_features), ``Y`` uint8 (n_samples, n_labels).

    Examples
    --------
    >>> from mlviz.data import describe
    >>> ds = make_dense_like(600, 30, 8, cardinality=2.0, random_state=0)
    >>> ds.X.shape, ds.Y.shape
    ((600, 30), (600, 8))
    >>> 1.8 < describe(ds)["cardinality"] < 2.2
    True
    """
    for pname, value in (("n_samples", n_samples), ("n_features", n_features), ("n_labels", n_labels),
                         ("n_factors", n_factors), ("n_modes", n_modes)):
        if int(value) != value or value < 1:
            raise ValueError(f"The '{pname}' parameter of make_dense_like must be an int >= 1, got {value!r}.")
    n, d, L, r = int(n_samples), int(n_features), int(n_labels), int(n_factors)
    if not 1 <= cardinality <= L:
        raise ValueError(f"The 'cardinality' parameter of make_dense_like must be in [1, n_labels], "
                         f"got {cardinality!r}.")
    if not 0 <= labelset_noise <= 1:
        raise ValueError(f"The 'labelset_noise' parameter of make_dense_like must be in [0, 1], "
                         f"got {labelset_noise!r}.")
    if not 0 <= clip < 0.5:
        raise ValueError(f"The 'clip' parameter of make_dense_like must be in [0, 0.5), got {clip!r}.")
    if row_norm is not None and not row_norm > 0:
        raise ValueError(f"The 'row_norm' parameter of make_dense_like must be > 0 or None, got {row_norm!r}.")
    if not 0 < noise_min <= noise_max:
        raise ValueError("make_dense_like needs 0 < noise_min <= noise_max.")
    rng = np.random.default_rng(random_state)
    K = int(n_prototypes) if n_prototypes is not None else min(2 ** min(L, 30) - 1, 10 * L)
    if K < 1:
        raise ValueError(f"The 'n_prototypes' parameter of make_dense_like must be >= 1, got {n_prototypes!r}.")
    popularity = _zipf(L, label_zipf)[rng.permutation(L)]
    sets = _prototypes(L, K, cardinality, popularity, rng)
    K = len(sets)
    sizes = np.array([s.size for s in sets], dtype=float)
    base = _zipf(K, labelset_zipf)

    def weights(log_q):
        w = np.log(base) + log_q * sizes
        w = np.exp(w - w.max())
        return w / w.sum()

    lo, hi = -30.0, 30.0  # expected size increases with log q: bisection
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _expected_size(sizes, weights(mid), L, labelset_noise) < cardinality:
            lo = mid
        else:
            hi = mid
    w = weights(0.5 * (lo + hi))
    proto = rng.choice(K, size=n, p=w)
    members = np.zeros((K, L), dtype=np.uint8)
    for k, labels in enumerate(sets):
        members[k, labels] = 1
    Y = members[proto]
    flip = np.flatnonzero(rng.random(n) < labelset_noise)
    which = rng.integers(0, L, size=flip.size)
    for i, j in zip(flip, which):
        if Y[i, j] == 0 or Y[i].sum() > 1:
            Y[i, j] ^= 1

    A = rng.normal(size=(L, r))
    M = int(n_modes)
    B = rng.normal(size=(K * M, r))
    mode = proto * M + rng.integers(0, M, size=n)
    size = np.maximum(Y.sum(axis=1, keepdims=True), 1)
    Z = (label_signal * (Y @ A) / np.sqrt(size) + cluster_signal * B[mode] + rng.normal(size=(n, r)))
    W = rng.normal(size=(r, d)) * (np.arange(1, r + 1) ** -float(factor_decay))[:, None]
    X = Z @ W / np.sqrt(np.sum(W ** 2, axis=0))  # each feature's shared part of unit-ish scale
    sigma = np.exp(rng.uniform(np.log(noise_min), np.log(noise_max), size=d))
    X += rng.normal(size=(n, d)) * sigma
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    s = rng.normal(skew_loc, skew_scale, size=d)
    s = np.where(np.abs(s) < 1e-6, 1e-6, s)
    X = np.expm1(np.clip(s * X, -50, 50)) / s
    if bounded:
        lo, hi = np.quantile(X, [clip, 1.0 - clip], axis=0)
        X = np.clip((X - lo) / np.maximum(hi - lo, 1e-300), 0.0, 1.0)
    else:
        X = feature_loc + feature_scale * (X - X.mean(axis=0)) / X.std(axis=0)
    if row_norm is not None:
        X *= row_norm / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-300)
    return MultiLabelDataset(X, Y, name=name or f"dense-like {n}x{d}x{L}")
