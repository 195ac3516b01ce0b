"""Linear label-space embeddings: CPLST, FaIE and LEML (the baselines of Kimura et al.).

All three encode the centred label matrix Yc = Y − 1 ȳᵀ (N × L) into K
dimensions, learn a ridge-type linear map from the centred features
Xc = X − 1 μᵀ to the codes, and decode by a linear map back to L label
scores. The MLLEM paper (Kimura, Kudo & Sun, §4.1) compares against LEML and
FaIE and sets the label-space dimension of CPLST and FaIE to 80 % of L
(``n_components=0.8``, the default here).

==========  ======================================  =======================  ========================
method      codes of the training rows (N × K)      map X → codes            decoding (label_codes_)
==========  ======================================  =======================  ========================
CPLST       T = Yc V, V = top-K eigvecs of          ridge W = W_full V        ŷ = ȳ + t Vᵀ
            Ycᵀ H Yc, H the ridge hat matrix
FaIE        C = top-K eigvecs of                     ridge W on C             ŷ = ȳ + c D, D = Cᵀ Yc
            Ω = Yc Ycᵀ + α H  (Cᵀ C = I)
LEML        Xc W (rank-K factor)                     W (learned jointly)      ŷ = ȳ + t Hᵀ
==========  ======================================  =======================  ========================

H = Xc (Xcᵀ Xc + λ I)⁻¹ Xcᵀ is the ridge hat matrix. Every fit needs one
O(min(N, F)³) factorisation of the centred Gram matrix and never forms
Xc = X − 1 μᵀ, so CSR X is supported. When F <= N (the primal Gram Xcᵀ Xc)
it is the cheapest factorisation that gives the exact answer: one Cholesky
factor for CPLST (all L ridge right-hand sides at once) and FaIE (whose
eigenproblem is then reduced by LAPACK ``dsygst`` and only its top K
eigenpairs computed), the Householder tridiagonalisation for LEML
(:class:`mlviz.models._embedding_base.CenteredTridiagonal`); when F > N the
dual eigendecomposition (:class:`mlviz.models._embedding_base.CenteredGram`).
The iterations of LEML cost O(min(N, F)·L·K), independent of N. The
decoded scores are real numbers (a regression onto 0/1 labels);
``predict_proba`` calibrates them per label by Platt scaling on cross-fitted
training scores (MLLEM's mechanism, :func:`mlviz.models.mllem.platt_fit`) or,
with ``calibration="clip"``, clips them to [0, 1] so that ``threshold=0.5``
is the papers' rounding decoder.

The centring (an unpenalised intercept for the codes and ȳ for the labels)
follows PLST/CPLST; for FaIE and LEML it is our addition, so that all three
have the same intercept handling (at full rank all three are then ridge
regression with an intercept).

References
----------
.. [CPLST] Y.-N. Chen, H.-T. Lin, "Feature-aware label space dimension
   reduction for multi-label classification", NIPS 2012: §3 (the CPLST
   objective: min over V with V Vᵀ = I of the prediction error
   ‖X W − Yc Vᵀ‖² plus the encoding error ‖Yc − Yc Vᵀ V‖²; with the ridge
   regressor it becomes max tr(V Ycᵀ H Yc Vᵀ), solved by the top
   eigenvectors) — the paper's Algorithm 1.
.. [FaIE] Z. Lin, G. Ding, M. Hu, J. Wang, "Multi-label classification via
   feature-aware implicit label space encoding", ICML 2014 (cited as AAAI
   2014 in the task): the recoverability term ‖Yc − C D‖² with D = Cᵀ Yc and
   the predictability term tr(Cᵀ (I − H) C) combine into
   max tr(Cᵀ (Yc Ycᵀ + α H) C) s.t. Cᵀ C = I, solved by the top-K
   eigenvectors of Ω = Yc Ycᵀ + α H (their H uses (XᵀX)⁻¹; λ > 0 here).
.. [LEML] H.-F. Yu, P. Jain, P. Kar, I. S. Dhillon, "Large-scale multi-label
   learning with missing labels", ICML 2014: the low-rank ERM problem
   min ½ Σ ℓ(Y_il, x_iᵀ W h_l) + λ/2 (‖W‖² + ‖H‖²) (squared loss, all labels
   observed here), solved by alternating minimisation (§3: each step a
   ridge-type problem; W's step uses the Kronecker structure).
.. Kimura, Kudo, Sun, MLLEM, PAKDD 2016, §4.1 (the comparison protocol).
"""

import numpy as np
import scipy.linalg as la
import scipy.linalg.lapack as lapack

from ._base import BaseEstimator, MultiLabelClassifierMixin, check_param, check_X_Y, empty_set_param
from ._embedding_base import (
    CenteredGram,
    CenteredRidge,
    CenteredTridiagonal,
    ScoreCalibrationMixin,
    check_gram_size,
    code_subspace,
    resolve_n_components,
    shifted_tridiagonal_solve,
)

__all__ = ["CPLST", "LEML", "FaIE"]


class _LinearEmbedding(ScoreCalibrationMixin, MultiLabelClassifierMixin, BaseEstimator):
    """Shared fit/transform/decode of the three linear embeddings (not public)."""

    _native = "decoded label scores"

    def _validate_common(self):
        check_param(self, "lam", self.lam, low=0.0, low_inclusive=False)
        self._validate_calibration(check_param)

    def fit(self, X, Y):
        """Encode Y, learn the linear map and calibrate the decoded scores.

        Parameters
        ----------
        X : ndarray or csr_matrix, shape (N, F)
        Y : ndarray of {0, 1}, shape (N, L)

        Returns
        -------
        self
        """
        self._validate_params()
        X, Y = check_X_Y(X, Y, min_samples=2)
        self.n_features_in_ = X.shape[1]
        self.n_labels_ = Y.shape[1]
        self.n_components_ = resolve_n_components(type(self).__name__, self.n_components, Y.shape[1])
        self.label_mean_ = Y.mean(axis=0)
        Yc = Y - self.label_mean_
        if X.shape[1] <= X.shape[0]:
            self._fit_primal(X, Yc)
        else:
            gram = CenteredGram(X, owner=type(self).__name__)
            self.feature_mean_ = gram.mean
            self._fit_dual(gram, Yc)
        self.decision_rule_ = self._describe_rule(self._native)
        self._fit_empty_set(Y)
        self._fit_calibration(X, Y)
        return self

    def transform(self, X):
        """Instance codes of new rows, shape (n, K): (x − μ) W + b.

        For the training rows these are the predicted codes, not ``embedding_``.
        """
        self._check_fitted("coef_")
        X = self._check_predict_X(X)
        return np.asarray(X @ self.coef_) - self.feature_mean_ @ self.coef_ + self.code_intercept_

    def decision_function(self, X):
        """Decoded label scores ȳ + transform(X) @ label_codes_ᵀ, shape (n, L).

        A label without training positives scores ≈ 0 (its centred column is 0).
        """
        T = self.transform(X)  # checks fitted first
        return self.label_mean_ + T @ self.label_codes_.T

    def _clip_probability(self, S):
        return S


@empty_set_param
class CPLST(_LinearEmbedding):
    """Conditional principal label space transformation (Chen & Lin, NIPS 2012).

    Parameters
    ----------
    n_components : int or float in (0, 1], default 0.8
        K, or a fraction of L (0.8: the setting of the MLLEM paper §4.1).
    lam : float > 0, default 1.0
        λ of the ridge regressor (in H and in the map X → codes).
    calibration : {"platt", "clip"}, default "platt"
    calibration_folds : int >= 2, default 3
    threshold : float in [0, 1], default 0.5
    random_state : int, RandomState or None
        Seeds the calibration folds (the fit itself is deterministic).
    {empty_set_parameter}

    Attributes
    ----------
    label_codes_ : ndarray, shape (L, K)
        V: orthonormal label projection (columns = top eigenvectors of Ycᵀ H Yc).
    embedding_ : ndarray, shape (N, K)
        Training codes Yc V.
    eigenvalues_ : ndarray, shape (K,)
    coef_ : ndarray, shape (F, K); code_intercept_ : ndarray, shape (K,)
    label_mean_ : ndarray, shape (L,); feature_mean_ : ndarray, shape (F,)
    calibration_ : dict or None
    decision_rule_ : str

    Notes
    -----
    CPLST minimises an upper bound of the Hamming loss: the encoding error
    ‖Yc − Yc Vᵀ V‖² plus the ridge prediction error of the codes. For the
    ridge regressor this is max_V tr(V Ycᵀ H Yc Vᵀ) with V Vᵀ = I, so V holds
    the top-K eigenvectors of Ycᵀ H Yc = Gᵀ diag(1/(ev + λ)) G (G = rotated
    Xcᵀ Yc, L × L). Because ridge is linear in its targets the code map is
    W = W_full V with W_full the ridge coefficients of Yc. At K = L
    (V orthogonal) the decoded scores are exactly ridge regression of Y on X
    with an intercept.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4)); Y = (X[:, :3] > 0).astype(int)
    >>> m = CPLST(n_components=2, random_state=0).fit(X, Y)
    >>> m.embedding_.shape, m.label_codes_.shape, m.transform(X[:5]).shape
    ((60, 2), (3, 2), (5, 2))
    >>> bool(np.array_equal(m.predict(X), (m.predict_proba(X) >= 0.5).astype(np.uint8)))
    True
    """

    def __init__(self, *, n_components=0.8, lam=1.0, calibration="platt", calibration_folds=3,
                 threshold=0.5, random_state=None, empty_set=True):
        self.n_components = n_components
        self.lam = lam
        self.calibration = calibration
        self.calibration_folds = calibration_folds
        self.threshold = threshold
        self.random_state = random_state
        self.empty_set = empty_set

    def _validate_params(self):
        self._validate_common()

    def _fit_primal(self, X, Yc):
        """F <= N: one Cholesky factor Uᵀ U = Xcᵀ Xc + λI serves all L columns of Yc."""
        F = X.shape[1]
        check_gram_size(type(self).__name__, F, F ** 3 / 3.0, "a Cholesky factorisation")
        ridge = CenteredRidge(X, float(self.lam), owner=type(self).__name__)
        self.feature_mean_ = ridge.mean
        B = ridge.whiten(ridge.xct_dot(Yc))                  # (F, L), Bᵀ B = Ycᵀ H Yc
        V = self._fit_subspace(B.T @ B, Yc)
        self.coef_ = ridge.unwhiten(B @ V)                   # (Xcᵀ Xc + λI)⁻¹ Xcᵀ Yc V

    def _fit_dual(self, gram, Yc):
        """F > N: the dual eigendecomposition of Xc Xcᵀ."""
        lam = float(self.lam)
        G = gram.rotate(Yc)                                   # (r, L)
        V = self._fit_subspace(G.T @ (G / (gram.evals + lam)[:, None]), Yc)   # Ycᵀ H Yc
        self.coef_ = gram.unrotate((G / (gram.evals + lam)[:, None]) @ V)

    def _fit_subspace(self, M, Yc):
        """V = top-K eigenvectors of M = Ycᵀ H Yc (L × L); sets the label-side attributes."""
        ev, V = np.linalg.eigh((M + M.T) / 2.0)
        order = np.argsort(-ev, kind="stable")[:self.n_components_]
        V = _fix_signs(V[:, order])
        self.eigenvalues_ = ev[order]
        self.label_codes_ = V
        self.embedding_ = Yc @ V
        self.code_intercept_ = np.zeros(V.shape[1])
        return V


@empty_set_param
class FaIE(_LinearEmbedding):
    """Feature-aware implicit label space encoding (Lin, Ding, Hu & Wang, 2014).

    Parameters
    ----------
    n_components : int or float in (0, 1], default 0.8
        K, or a fraction of L (0.8: MLLEM paper §4.1).
    alpha : float >= 0, default 1.0
        α, weight of predictability against recoverability in Ω.
    lam : float > 0, default 1.0
        λ of the ridge hat matrix in Ω and of the map X → codes.
    calibration, calibration_folds, threshold, random_state
        As for :class:`CPLST`.
    {empty_set_parameter}

    Attributes
    ----------
    embedding_ : ndarray, shape (N, K)
        C, the implicit codes of the training rows (Cᵀ C = I).
    label_codes_ : ndarray, shape (L, K)
        Dᵀ = Ycᵀ C (the decoder; ŷ = ȳ + c D).
    eigenvalues_ : ndarray, shape (K,)
        Top eigenvalues of Ω.
    coef_, code_intercept_, label_mean_, feature_mean_, calibration_, decision_rule_
        As for :class:`CPLST`.

    Notes
    -----
    Ω = Yc Ycᵀ + α H is N × N but has rank at most L + min(N, F): with
    M = [Yc, √α B] (B Bᵀ = H, :meth:`CenteredGram.hat_apply`) Ω = M Mᵀ, so the
    top-K eigenvectors are C = M u_k / √s_k from the small eigenproblem
    Mᵀ M u = s u of size L + min(N, F). Nothing N × N is formed.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4)); Y = (X[:, :3] > 0).astype(int)
    >>> m = FaIE(n_components=2, random_state=0).fit(X, Y)
    >>> bool(np.allclose(m.embedding_.T @ m.embedding_, np.eye(2)))
    True
    """

    def __init__(self, *, n_components=0.8, alpha=1.0, lam=1.0, calibration="platt",
                 calibration_folds=3, threshold=0.5, random_state=None, empty_set=True):
        self.n_components = n_components
        self.alpha = alpha
        self.lam = lam
        self.calibration = calibration
        self.calibration_folds = calibration_folds
        self.threshold = threshold
        self.random_state = random_state
        self.empty_set = empty_set

    def _validate_params(self):
        check_param(self, "alpha", self.alpha, low=0.0)
        self._validate_common()

    def _fit_primal(self, X, Yc):
        """F <= N: B = Xc U⁻¹ with Uᵀ U = Xcᵀ Xc + λI, so Bᵀ B = U⁻ᵀ Xcᵀ Xc U⁻¹ (LAPACK ``dsygst``)
        and only the top K eigenpairs of Mᵀ M are computed (``subset_by_index``)."""
        lam, alpha = float(self.lam), float(self.alpha)
        L, F = Yc.shape[1], X.shape[1]
        n = L + F
        check_gram_size(type(self).__name__, n, 4.0 * n ** 3 / 3.0 + F ** 3, "an eigendecomposition")
        ridge = CenteredRidge(X, lam, owner=type(self).__name__, keep_gram=True)
        self.feature_mean_ = ridge.mean
        c, lower = ridge.factor
        core, info = lapack.dsygst(ridge.gram, c, itype=1, lower=int(lower))  # U⁻ᵀ (Xcᵀ Xc) U⁻¹
        if info != 0:
            raise la.LinAlgError(f"dsygst failed (info={info})")
        cross = np.sqrt(alpha) * ridge.whiten(ridge.xct_dot(Yc)).T          # √α Ycᵀ B, (L, F)
        MtM = np.block([[Yc.T @ Yc, cross], [cross.T, alpha * core]])       # valid in core's triangle
        K = min(self.n_components_, n)
        ev, U = la.eigh(MtM, lower=bool(lower), subset_by_index=[n - K, n - 1], overwrite_a=True)
        order = np.argsort(-ev, kind="stable")
        ev, U = np.clip(ev[order], 1e-300, None), U[:, order]
        C = (Yc @ U[:L] + np.sqrt(alpha) * ridge.xc_dot(ridge.unwhiten(U[L:]))) / np.sqrt(ev)
        self._set_codes(ev, C, Yc)
        self.coef_ = ridge.solve(self.embedding_)

    def _fit_dual(self, gram, Yc):
        """F > N: B from the dual eigendecomposition (:meth:`CenteredGram.hat_apply`)."""
        lam, alpha, K = float(self.lam), float(self.alpha), self.n_components_
        L = Yc.shape[1]
        G = gram.rotate(Yc)                                    # (r, L)
        s = np.sqrt(gram.evals + lam)
        cross = np.sqrt(alpha) * (G / s[:, None]).T            # √α Ycᵀ B, (L, r)
        MtM = np.block([[Yc.T @ Yc, cross], [cross.T, np.diag(alpha * gram.evals / (gram.evals + lam))]])
        n = MtM.shape[0]
        K = min(K, n)
        ev, U = np.linalg.eigh((MtM + MtM.T) / 2.0)
        order = np.argsort(-ev, kind="stable")[:K]
        ev, U = np.clip(ev[order], 1e-300, None), U[:, order]
        C = (Yc @ U[:L] + np.sqrt(alpha) * gram.hat_apply(U[L:], lam)) / np.sqrt(ev)
        self._set_codes(ev, C, Yc)
        self.coef_ = gram.ridge(self.embedding_, lam)

    def _set_codes(self, ev, C, Yc):
        C = _fix_signs(C)
        self.eigenvalues_ = ev
        self.embedding_ = C
        self.label_codes_ = Yc.T @ C
        self.code_intercept_ = C.mean(axis=0)


@empty_set_param
class LEML(_LinearEmbedding):
    """Low-rank empirical risk minimisation for multi-label learning (Yu et al., ICML 2014).

    Squared loss, all labels observed, alternating minimisation of

        J(W, H) = ½ ‖Yc − Xc W Hᵀ‖² + λ/2 (‖W‖² + ‖H‖²),  W (F × K), H (L × K).

    Parameters
    ----------
    n_components : int or float in (0, 1], default 0.8
        K, the rank of Z = W Hᵀ (or a fraction of L).
    lam : float > 0, default 1.0
        λ.
    max_iter : int, default 50
        Alternating rounds (each: W step, H step).
    tol : float, default 1e-6
        Stop when J decreases by less than tol·J in a round.
    calibration, calibration_folds, threshold
        As for :class:`CPLST`.
    random_state : int, RandomState or None
        Seeds the initial H (standard normal / √K) and the calibration folds.
    {empty_set_parameter}

    Attributes
    ----------
    coef_ : ndarray, shape (F, K)
        W.
    label_codes_ : ndarray, shape (L, K)
        H.
    embedding_ : ndarray, shape (N, K)
        Xc W, the training codes.
    objective_ : list of float
        J after each round; ``n_iter_`` rounds were run.
    code_intercept_, label_mean_, feature_mean_, calibration_, decision_rule_
        As for :class:`CPLST`.

    Notes
    -----
    Both steps are solved exactly in coordinates where the centred Gram is
    diagonal (its eigenbasis, F > N: Xc Xcᵀ → diag(ev), ‖W‖ preserved;
    :meth:`CenteredGram.rotate`) or tridiagonal (F <= N: Xcᵀ Xc = Z T Zᵀ,
    :class:`~mlviz.models._embedding_base.CenteredTridiagonal`, a third of
    the cost of the eigendecomposition). With G the rotated Xcᵀ Yc (r × L)
    and P S Pᵀ = Hᵀ H,

    * W step (LEML's Kronecker system (Hᵀ H ⊗ Xcᵀ Xc + λ I) vec W = vec(Xcᵀ Yc H)):
      W̃ = (G H P) ⊘ (ev sᵀ + λ), W = W̃ Pᵀ; in the tridiagonal coordinates
      column k of W̃ solves (s_k T + λ I) w̃_k = (G H P)_k (all K columns by
      one banded LAPACK call);
    * H step (ridge for every label): H = Ycᵀ T (Tᵀ T + λ I)⁻¹, T = Xc W.

    Each round costs O(r·L·K), independent of N. When K exceeds r (the
    rank bound of W: F, or N in the dual case), the rounds run in the r-dimensional
    row space of the first W step (:func:`~mlviz.models._embedding_base.code_subspace`:
    W and H never leave it, so the iterates and objective values are those of
    the K-dimensional rounds) at O(r·L·r) + O(r³) per round instead of
    O(K³). At the optimum
    (‖W‖² + ‖H‖²)/2 = ‖W Hᵀ‖_* (trace norm), so LEML is trace-norm
    regularised least squares; with K = L and λ → 0 it tends to ordinary least
    squares, i.e. to ridge regression with a vanishing penalty.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4)); Y = (X[:, :3] > 0).astype(int)
    >>> m = LEML(n_components=2, random_state=0).fit(X, Y)
    >>> m.coef_.shape, m.label_codes_.shape, bool(np.all(np.diff(m.objective_) <= 1e-9))
    ((4, 2), (3, 2), True)
    """

    def __init__(self, *, n_components=0.8, lam=1.0, max_iter=50, tol=1e-6, calibration="platt",
                 calibration_folds=3, threshold=0.5, random_state=None, empty_set=True):
        self.n_components = n_components
        self.lam = lam
        self.max_iter = max_iter
        self.tol = tol
        self.calibration = calibration
        self.calibration_folds = calibration_folds
        self.threshold = threshold
        self.random_state = random_state
        self.empty_set = empty_set

    def _validate_params(self):
        check_param(self, "max_iter", self.max_iter, low=1)
        check_param(self, "tol", self.tol, low=0.0)
        self._validate_common()

    def _fit_primal(self, X, Yc):
        """F <= N: the same rounds in the tridiagonal coordinates of Xcᵀ Xc = Z T Zᵀ.

        With G = Zᵀ Xcᵀ Yc and Ŵ the W step in the eigenbasis P of Hᵀ H
        (W = Z Ŵ Pᵀ), column k of Ŵ solves (s_k T + λI) ŵ_k = (G H P)_k — one
        tridiagonal solve each — and Tᵀ T = P Ŵᵀ T Ŵ Pᵀ, Wᵀ Xcᵀ Yc = P Ŵᵀ G,
        ‖W‖ = ‖Ŵ‖: the eigenvectors of Xcᵀ Xc are never needed.
        """
        lam, K = float(self.lam), self.n_components_
        tri = CenteredTridiagonal(X, owner=type(self).__name__)
        self.feature_mean_ = tri.mean
        G = tri.rotate(Yc)                                     # (F, L)
        yy = float((Yc * Yc).sum())
        H = self._initial_codes(Yc.shape[1], K)
        basis = None                                           # (K, r) once the rounds run in r < K dimensions
        self.objective_ = []
        for it in range(int(self.max_iter)):
            S, P = np.linalg.eigh(H.T @ H)
            What = shifted_tridiagonal_solve(tri.d, tri.e, np.clip(S, 0.0, None), lam, G @ (H @ P))
            if basis is None and What.shape[0] < K:            # F < K: W = Ŵ Pᵀ has rank <= F
                basis = code_subspace(What @ P.T)
                P = basis.T @ P                                # W basis = Ŵ (basisᵀ P)ᵀ
            k = P.shape[0]
            TtT = P @ (What.T @ tri.t_dot(What)) @ P.T
            WG = P @ (What.T @ G)                              # Wᵀ Xcᵀ Yc, (k, L)
            H = np.linalg.solve(TtT + lam * np.eye(k), WG).T
            J = 0.5 * (yy - 2.0 * np.sum(WG.T * H) + np.sum((H @ TtT) * H)) \
                + 0.5 * lam * (np.sum(What * What) + np.sum(H * H))
            self.objective_.append(float(J))
            if it and self.objective_[-2] - J <= float(self.tol) * abs(J):
                break
        self.n_iter_ = len(self.objective_)
        W = What @ P.T
        if basis is not None:
            W, H = W @ basis.T, H @ basis.T
        self.coef_ = tri.unrotate(W)
        self.label_codes_ = H
        self.embedding_ = tri.xc_dot(self.coef_)
        self.code_intercept_ = np.zeros(K)

    def _initial_codes(self, L, K):
        from sklearn.utils import check_random_state

        return check_random_state(self.random_state).standard_normal((L, K)) / np.sqrt(K)

    def _fit_dual(self, gram, Yc):
        """F > N: the rounds in the eigenbasis of the dual Gram (:meth:`CenteredGram.rotate`)."""
        lam, K = float(self.lam), self.n_components_
        ev = gram.evals
        G = gram.rotate(Yc)                                    # (r, L)
        yy = float((Yc * Yc).sum())
        H = self._initial_codes(Yc.shape[1], K)
        basis = None                                           # (K, r) once the rounds run in r < K dimensions
        self.objective_ = []
        for it in range(int(self.max_iter)):
            S, P = np.linalg.eigh(H.T @ H)
            Wr = ((G @ H @ P) / (ev[:, None] * np.clip(S, 0.0, None)[None, :] + lam)) @ P.T
            if basis is None and Wr.shape[0] < K:              # r < K: Wr has rank <= r
                basis = code_subspace(Wr)
                Wr = Wr @ basis
            TtT = Wr.T @ (ev[:, None] * Wr)
            H = np.linalg.solve(TtT + lam * np.eye(Wr.shape[1]), Wr.T @ G).T
            J = 0.5 * (yy - 2.0 * np.sum((G.T @ Wr) * H) + np.sum((H @ TtT) * H)) \
                + 0.5 * lam * (np.sum(Wr * Wr) + np.sum(H * H))
            self.objective_.append(float(J))
            if it and self.objective_[-2] - J <= float(self.tol) * abs(J):
                break
        self.n_iter_ = len(self.objective_)
        if basis is not None:
            Wr, H = Wr @ basis.T, H @ basis.T
        self.coef_ = gram.unrotate(Wr)
        self.label_codes_ = H
        self.embedding_ = gram.xc_dot(self.coef_)
        self.code_intercept_ = np.zeros(K)


def _fix_signs(V):
    """Flip each column so its largest-magnitude entry is positive (deterministic output)."""
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs
