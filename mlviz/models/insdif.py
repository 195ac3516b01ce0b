"""InsDif: multi-label learning by instance differentiation (a baseline of Nam et al.).

M.-L. Zhang and Z.-H. Zhou, "Multi-label learning by instance
differentiation", AAAI 2007. The ML-LSPC paper (Nam, Hachiya & Sugiyama §6)
compares against it and reports it ~85× slower than ML-LSPC on Enron
(470.7 s vs 5.5 s) "because it includes clustering of a bag of samples".

The method (paper §3, "The InsDif algorithm"):

1. **Prototypes.** v_l = mean of the training instances carrying label l
   (a label without positives gets the overall mean — our convention).
2. **Instance differentiation.** Each example x becomes a bag of L instances
   B(x) = {x − v_1, …, x − v_L}.
3. **First level.** The training bags are clustered by k-medoids under the
   (maximal) Hausdorff distance
   d_H(A, B) = max{max_{a∈A} min_{b∈B} ‖a − b‖, max_{b∈B} min_{a∈A} ‖b − a‖},
   with M = ``medoid_fraction`` × N medoids (paper: 20 %).
4. **Second level.** A bag is represented by its distances to the M medoid
   bags, φ_j(B) = d_H(B, C_j), and label l's output is
   f_l(B) = w_0l + Σ_j w_jl φ_j(B); W minimises the sum-of-squares error to
   targets t_il ∈ {−1, +1}, solved by SVD (least squares with ``lstsq``).
   The paper predicts label l when f_l > 0.

Computing the Hausdorff distances
---------------------------------
With P = X Vᵀ (N × L) and Q_lm = ‖v_l − v_m‖², the squared distance between
instance l of B(x) and instance m of B(x') is
‖x − x'‖² − 2 a_l + 2 a_m + Q_lm with a = P[x] − P[x'], so a pair of bags
costs O(L²) after O(N L F) preprocessing (never F per instance pair), and X
may be CSR. All N² pairs of training bags are still needed (k-medoids on the
full distance matrix): O(N² L²) time and N² memory. ``fit`` estimates both
and raises :class:`mlviz.models.TooLargeError` beyond ``MAX_SECONDS`` /
``MAX_BYTES``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ._base import (
    MAX_FIT_SECONDS,
    BaseEstimator,
    MultiLabelClassifierMixin,
    TooLargeError,
    check_param,
    check_X_Y,
    empty_set_param,
)
from ._embedding_base import ScoreCalibrationMixin

__all__ = ["InsDif", "bag_hausdorff", "kmedoids", "label_prototypes"]

PAIR_RATE = 9e7
"""Measured (L² entries of a bag pair) per second of :func:`bag_hausdorff` on one core (enron)."""
MAX_SECONDS = MAX_FIT_SECONDS
"""A fit estimated (by :meth:`InsDif.estimate_cost`) beyond this many seconds is refused."""
MAX_BYTES = 2.0 * 2 ** 30


def label_prototypes(X, Y):
    """v_l = mean of the rows of X with y_l = 1 (overall mean when label l has no positives).

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (N, F)
    Y : ndarray of {0, 1}, shape (N, L)

    Returns
    -------
    V : ndarray, shape (L, F)
    """
    Yf = np.asarray(Y, dtype=np.float64)
    counts = Yf.sum(axis=0)
    S = np.asarray(X.T @ Yf).T                       # Yᵀ X, dense (L, F), CSR X allowed
    overall = np.asarray(X.mean(axis=0)).ravel()
    V = np.where(counts[:, None] > 0, S / np.maximum(counts, 1.0)[:, None], overall[None, :])
    return V


def _row_sq_norms(X):
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def bag_hausdorff(XA, XB, prototypes, *, symmetric=False, chunk_entries=4_000_000):
    """Hausdorff distances between the bags {x − v_l} of the rows of XA and of XB.

    Parameters
    ----------
    XA : ndarray or csr_matrix, shape (nA, F)
    XB : ndarray or csr_matrix, shape (nB, F)
    prototypes : ndarray, shape (L, F)
        v_1 … v_L.
    symmetric : bool
        XA is XB: compute the upper triangle only and mirror it.
    chunk_entries : int
        Memory bound on the (pairs, L, L) temporaries.

    Returns
    -------
    D : ndarray, shape (nA, nB)
        d_H(B(XA_i), B(XB_j)) (Euclidean, not squared).
    """
    Vp = np.asarray(prototypes, dtype=np.float64)
    PA = np.asarray(XA @ Vp.T)
    PB = np.asarray(XB @ Vp.T)
    nrm = (Vp * Vp).sum(axis=1)
    Q = nrm[:, None] + nrm[None, :] - 2.0 * Vp @ Vp.T
    cross = XA @ XB.T
    cross = cross.toarray() if sp.issparse(cross) else np.asarray(cross)
    C = _row_sq_norms(XA)[:, None] + _row_sq_norms(XB)[None, :] - 2.0 * cross
    nA, nB, L = PA.shape[0], PB.shape[0], Vp.shape[0]
    D = np.zeros((nA, nB))
    step = max(1, int(chunk_entries // max(1, L * L)))
    for i in range(nA):
        start = i + 1 if symmetric else 0
        for s in range(start, nB, step):
            js = np.arange(s, min(nB, s + step))
            a = PA[i][None, :] - PB[js]                          # (nj, L)
            # instance l of bag i vs instance m of bag j: c − 2 a_l + 2 a_m + Q_lm
            forward = (-2.0 * a + (2.0 * a[:, None, :] + Q[None]).min(axis=2)).max(axis=1)
            backward = (2.0 * a + (Q[None] - 2.0 * a[:, :, None]).min(axis=1)).max(axis=1)
            D[i, js] = np.sqrt(np.maximum(C[i, js] + np.maximum(forward, backward), 0.0))
    if symmetric:
        D = D + D.T
    return D


def kmedoids(D, n_medoids, *, max_iter=100, random_state=None):
    """k-medoids (Voronoi iteration) on a precomputed distance matrix, k-medoids++ start.

    Parameters
    ----------
    D : ndarray, shape (n, n), symmetric, zero diagonal
    n_medoids : int
    max_iter : int
    random_state : int, RandomState or None

    Returns
    -------
    medoids : ndarray of int, shape (n_medoids,)
        Row indices, sorted.
    """
    n = D.shape[0]
    k = min(int(n_medoids), n)
    rng = check_random_state(random_state)
    medoids = [int(rng.randint(n))]
    closest = D[medoids[0]].copy()
    for _ in range(1, k):
        w = closest ** 2
        total = w.sum()
        j = int(rng.choice(n, p=w / total)) if total > 0 else int(rng.choice(np.setdiff1d(np.arange(n), medoids)))
        medoids.append(j)
        closest = np.minimum(closest, D[j])
    medoids = np.array(medoids)
    for _ in range(int(max_iter)):
        assign = np.argmin(D[:, medoids], axis=1)
        new = medoids.copy()
        for c in range(k):
            members = np.flatnonzero(assign == c)
            if members.size:
                new[c] = members[np.argmin(D[np.ix_(members, members)].sum(axis=1))]
        if np.array_equal(np.sort(new), np.sort(medoids)):
            break
        medoids = new
    return np.sort(medoids)


@empty_set_param
class InsDif(ScoreCalibrationMixin, MultiLabelClassifierMixin, BaseEstimator):
    """Instance differentiation + two-level (k-medoids, least squares) classifier (Zhang & Zhou, 2007).

    Parameters
    ----------
    medoid_fraction : float in (0, 1], default 0.2
        M = max(1, round(fraction × N)) medoid bags (paper: 20 %).
    max_iter : int, default 100
        k-medoids iterations.
    calibration : {"platt", "clip"}, default "platt"
        ``"clip"``: P = clip((f_l + 1)/2, 0, 1), so ``threshold=0.5`` is the
        paper's rule f_l > 0 (up to ties at 0); ``"platt"``: per-label Platt
        scaling of f_l on cross-fitted training outputs.
    calibration_folds : int, default 3
    threshold : float in [0, 1], default 0.5
    random_state : int, RandomState or None
        Seeds k-medoids++ and the calibration folds.
    {empty_set_parameter}

    Attributes
    ----------
    prototypes_ : ndarray, shape (L, F)
        v_l.
    medoid_rows_ : ndarray of int, shape (M,)
        Training rows whose bags are the medoids.
    embedding_ : ndarray, shape (N, M)
        φ of the training bags (their Hausdorff distances to the medoid bags).
    coef_ : ndarray, shape (M + 1, L)
        [w_0; W] of the second level.
    label_codes_ : ndarray, shape (L, M)
        Each label's weights on the medoid distances (``coef_[1:].T``).
    calibration_, decision_rule_

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 4)); Y = (X[:, :3] > 0).astype(int)
    >>> m = InsDif(calibration="clip", random_state=0).fit(X, Y)
    >>> m.embedding_.shape, m.label_codes_.shape          # M = 20 % of 40 medoid bags
    ((40, 8), (3, 8))
    >>> bool(np.array_equal(m.predict(X), (m.decision_function(X) >= 0).astype(np.uint8)))
    True
    """

    def __init__(self, *, medoid_fraction=0.2, max_iter=100, calibration="platt", calibration_folds=3,
                 threshold=0.5, random_state=None, empty_set=True):
        self.medoid_fraction = medoid_fraction
        self.max_iter = max_iter
        self.calibration = calibration
        self.calibration_folds = calibration_folds
        self.threshold = threshold
        self.random_state = random_state
        self.empty_set = empty_set

    def _validate_params(self):
        check_param(self, "medoid_fraction", self.medoid_fraction, low=0.0, high=1.0, low_inclusive=False)
        check_param(self, "max_iter", self.max_iter, low=1)
        self._validate_calibration(check_param)

    def estimate_cost(self, n_samples, n_labels):
        """(seconds, bytes) estimate of ``fit`` on n_samples × n_labels (including calibration folds)."""
        pairs = n_samples * (n_samples - 1) / 2.0
        seconds = pairs * n_labels ** 2 / PAIR_RATE
        if self.calibration == "platt":
            f = float(self.calibration_folds)
            seconds *= 1.0 + f * ((f - 1.0) / f) ** 2
        nbytes = 3 * 8.0 * n_samples ** 2
        return seconds, nbytes

    def fit(self, X, Y):
        """Build the bags, cluster them, solve the second level, calibrate.

        Parameters
        ----------
        X : ndarray or csr_matrix, shape (N, F)
        Y : ndarray of {0, 1}, shape (N, L)

        Returns
        -------
        self

        Raises
        ------
        TooLargeError
            When the O(N² L²) distance computation is estimated beyond
            ``MAX_SECONDS`` or its N² matrices beyond ``MAX_BYTES``.
        """
        self._validate_params()
        X, Y = check_X_Y(X, Y, min_samples=2)
        seconds, nbytes = self.estimate_cost(*Y.shape)
        if seconds > MAX_SECONDS or nbytes > MAX_BYTES:
            raise TooLargeError(
                f"InsDif on {Y.shape[0]} rows × {Y.shape[1]} labels needs all pairwise bag Hausdorff "
                f"distances: about {seconds:.0f} s and {nbytes / 2 ** 20:,.0f} MB. Use fewer training rows "
                f"(e.g. a 1000-row sample) or ML-LSPC / MLkNN.",
                estimate_seconds=seconds, estimate_bytes=nbytes, alternative="subsample or MLLSPC")
        self.n_features_in_ = X.shape[1]
        self.n_labels_ = Y.shape[1]
        self.prototypes_ = label_prototypes(X, Y)
        D = bag_hausdorff(X, X, self.prototypes_, symmetric=True)
        M = max(1, round(float(self.medoid_fraction) * X.shape[0]))
        self.medoid_rows_ = kmedoids(D, M, max_iter=self.max_iter, random_state=self.random_state)
        self.medoids_X_ = X[self.medoid_rows_]
        self.embedding_ = D[:, self.medoid_rows_]
        Phi = np.hstack([np.ones((X.shape[0], 1)), self.embedding_])
        T = 2.0 * Y - 1.0
        self.coef_ = np.linalg.lstsq(Phi, T, rcond=None)[0]
        self.label_codes_ = self.coef_[1:].T
        self.decision_rule_ = self._describe_rule("second-level outputs f_l" if self.calibration == "platt"
                                                  else "(f_l + 1)/2")
        self._fit_empty_set(Y)
        self._fit_calibration(X, Y)
        return self

    def transform(self, X):
        """φ(x): Hausdorff distances of the bags of X to the M medoid bags, shape (n, M)."""
        self._check_fitted("coef_")
        X = self._check_predict_X(X)
        return bag_hausdorff(X, self.medoids_X_, self.prototypes_)

    def decision_function(self, X):
        """Second-level outputs f_l(x) = w_0l + Σ_j w_jl φ_j(x), shape (n, L) (paper: label on if > 0)."""
        Phi = self.transform(X)
        return self.coef_[0] + Phi @ self.coef_[1:]

    def _clip_probability(self, S):
        return (S + 1.0) / 2.0
