"""The shared base learner of the problem-transformation methods: linear or RBF-kernel logistic regression.

BR, LP, CC, ECC, RAkEL and CLR fit logistic regressions (one per label, label
set, link or pair). Their ``base`` parameter chooses the features those
regressions see:

- ``"lr"``: the input features (linear logistic regression, BR-LR);
- ``"rbf"``: a Nyström approximation φ(x) of the Gaussian kernel
  k(x, x') = exp(-γ ||x - x'||²) (Williams & Seeger 2001), computed once per
  fit and shared by all the regressions; a logistic regression on φ(x) is a
  kernel logistic regression with the RKHS-norm penalty, so it keeps real
  probabilities (no thresholding of SVM scores as if they were ones). With at
  most ``n_components`` training rows the landmarks are all the rows and φ
  reproduces the kernel matrix on them exactly;
- ``"auto"`` (the default): ``"rbf"`` on dense features (at least
  :data:`AUTO_MIN_DENSITY` of the entries non-zero, whatever the storage) of at most
  :data:`AUTO_MAX_ROWS` rows and :data:`AUTO_MAX_WORK` rows × labels, ``"lr"``
  otherwise (sparse text, or larger data). The rule is decided before any work.

Why this rule: on 3-fold inner cross-validation of the training halves of the
standard splits of emotions, scene and yeast (dense) the RBF base at γ = 1 beat
the linear one for BR, CC and LP on every set, while on the sparse text sets
(enron, medical) the linear base won 5 of the 6 method × set cases (BR on enron
is the exception) at a fraction of the cost (benchmarks/RESULTS.md, "a kernel
base learner"; ``benchmarks/sweep_protocol.py``, methods ``*-kernel``).

γ is given in units of 1 / (n_features · var(X)) (``gamma=1`` is
scikit-learn's ``gamma="scale"``), so one value means the same on every data
set; C keeps the units of the estimators' ``scale_C`` (1 / mean ||φ(x)||²,
≈ 1 for the RBF map since k(x, x) = 1).

References
----------
.. [1] C. K. I. Williams, M. Seeger, "Using the Nyström method to speed up
   kernel machines", NIPS 13, 2001.
.. [2] J. Zhu, T. Hastie, "Kernel logistic regression and the import vector
   machine", J. Comput. Graph. Stat. 14(1):185-205, 2005.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.kernel_approximation import Nystroem

from ._base import check_param

__all__ = ["BASES", "AUTO_MIN_DENSITY", "AUTO_MAX_ROWS", "AUTO_MAX_WORK", "N_COMPONENTS", "RBF_GAMMA", "resolve_base",
           "gamma_unit", "fit_base_features", "base_learner_doc"]

BASES = ("auto", "lr", "rbf")
"""Values of the ``base`` parameter."""

AUTO_MIN_DENSITY = 0.5
"""``base="auto"`` uses the RBF map only when at least this fraction of X's entries is non-zero.

Decided on the values, not on the storage (dense and CSR copies of one X get
the same base): bag-of-words text (enron 8.4 %, medical 0.7 % non-zero) stays
linear, standardised dense features (100 %) get the kernel."""

AUTO_MAX_ROWS = 10_000
"""``base="auto"`` uses the RBF map only up to this many training rows (and dense X)."""

AUTO_MAX_WORK = 500_000
"""``base="auto"`` uses the RBF map only while n_samples × n_labels is at most this.

Each logistic regression then runs on ``n_components`` (≤ 1000) kernel features
instead of the input features; above this size the linear base is kept so a
dashboard fit stays within seconds (the 44k × 120 × 101-label upload of
``benchmarks/bench_pages_scale.py`` is 4.4 M)."""

N_COMPONENTS = 1000
"""Default number of Nyström landmarks (memory n_samples × N_COMPONENTS doubles)."""

RBF_GAMMA = 1.0
"""Default γ of the RBF map, in units of 1 / (n_features · var(X)) (scikit-learn's ``gamma="scale"``)."""


def resolve_base(base, X, n_labels):
    """The base learner ``base`` stands for on this X, and why.

    Parameters
    ----------
    base : {"auto", "lr", "rbf"}
    X : ndarray or sparse matrix, shape (n_samples, n_features)
    n_labels : int
        Labels (or, for CLR, binary problems per row) the regressions are fitted for.

    Returns
    -------
    kind : {"lr", "rbf"}
    reason : str
    """
    if base != "auto":
        return base, f"base={base!r}"
    n = X.shape[0]
    density = (X.nnz if sp.issparse(X) else np.count_nonzero(X)) / max(1, n * X.shape[1])
    if density < AUTO_MIN_DENSITY:
        return "lr", f"auto: fewer than {AUTO_MIN_DENSITY:.0%} non-zero features → linear"
    if n > AUTO_MAX_ROWS:
        return "lr", f"auto: more than {AUTO_MAX_ROWS:,} rows → linear"
    if n * int(n_labels) > AUTO_MAX_WORK:
        return "lr", f"auto: rows × labels above {AUTO_MAX_WORK:,} → linear"
    return "rbf", "auto: small dense X"


def gamma_unit(X):
    """1 / (n_features · var(X)), the unit of ``gamma`` (scikit-learn's ``gamma="scale"``; 1 for constant X).

    Parameters
    ----------
    X : ndarray or sparse matrix, shape (n_samples, n_features)

    Returns
    -------
    unit : float > 0
    """
    if sp.issparse(X):
        mean = float(X.sum()) / (X.shape[0] * X.shape[1])
        var = float(X.multiply(X).sum()) / (X.shape[0] * X.shape[1]) - mean ** 2
    else:
        var = float(np.var(X))
    return 1.0 / (X.shape[1] * var) if np.isfinite(var) and var > 0 else 1.0


def fit_base_features(est, X, n_labels):
    """Fit the feature map of ``est.base`` on X; return it with the mapped X and a description.

    Reads ``est.base``, ``est.gamma``, ``est.n_components`` and ``est.random_state``
    (validated here, with the estimator's name in the messages).

    Parameters
    ----------
    est : estimator with the parameters above
    X : ndarray or csr_matrix, float64, shape (n_samples, n_features)
    n_labels : int

    Returns
    -------
    feature_map : sklearn.kernel_approximation.Nystroem or None
        ``None`` for the linear base.
    Xf : ndarray or csr_matrix
        ``feature_map.transform(X)``, or X itself.
    note : str
        For ``decision_rule_``, e.g. ``"RBF base (auto: small dense X), γ = 1 × 1/(d·var X), ≤ 1000
        landmarks"``; it names no number that depends on the training rows, so folds of one
        data set state the same rule.
    """
    check_param(est, "base", est.base, options=BASES)
    check_param(est, "gamma", est.gamma, low=0.0, low_inclusive=False)
    check_param(est, "n_components", est.n_components, low=1)
    kind, reason = resolve_base(est.base, X, n_labels)
    if kind == "lr":
        return None, X, f"linear base ({reason})"
    m = min(int(est.n_components), X.shape[0])
    seed = est.random_state
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(2 ** 31 - 1))
    fmap = Nystroem(kernel="rbf", gamma=float(est.gamma) * gamma_unit(X), n_components=m,
                    random_state=seed).fit(X)
    return fmap, fmap.transform(X), (f"RBF base ({reason}), γ = {float(est.gamma):g} × 1/(d·var X), "
                                     f"≤ {int(est.n_components)} landmarks")


_BASE_PARAMETERS = """\
    base : {{"auto", "lr", "rbf"}}, default "auto"
        Features of the default logistic regressions (ignored with an ``estimator``):
        ``"lr"`` the input features (linear); ``"rbf"`` Nyström features of the
        Gaussian kernel, one map per fit shared by {shared_by} (kernel logistic
        regression, real probabilities); ``"auto"``: ``"rbf"`` on dense X (at least
        half the entries non-zero) with at most 10,000 rows and 500,000 rows × labels,
        ``"lr"`` otherwise -- the rule chosen on the standard training halves
        (:mod:`mlviz.models._base_learner`; benchmarks/RESULTS.md, "a kernel base
        learner"). The resolved base is named in ``decision_rule_``.
    gamma : float > 0, default 1.0
        Kernel width of ``"rbf"`` in units of 1 / (n_features · var(X)) (1 is
        scikit-learn's ``gamma="scale"``).
    n_components : int >= 1, default 1000
        Nyström landmarks of ``"rbf"`` (all training rows when there are fewer).
"""


def base_learner_doc(shared_by):
    """Class decorator filling the docstring's ``{base_parameters}`` line.

    The line becomes the entries of ``base``, ``gamma`` and ``n_components``: one text for the
    six classes that share the base learner.

    Parameters
    ----------
    shared_by : str
        What one feature map is shared by in this method (e.g. ``"all labels"``).
    """
    def decorate(cls):
        marker = "    {base_parameters}\n"
        if cls.__doc__ is not None:  # (python -OO strips docstrings)
            assert marker in cls.__doc__, f"{cls.__name__}'s docstring has no {{base_parameters}} line"
            cls.__doc__ = cls.__doc__.replace(marker, _BASE_PARAMETERS.format(shared_by=shared_by))
        return cls

    return decorate


def mean_squared_norm(X):
    """Mean squared Euclidean row norm, (1/n) Σ_i ||x_i||² (1.0 for an empty or all-zero X).

    Parameters
    ----------
    X : ndarray or sparse matrix, shape (n_samples, n_features)

    Returns
    -------
    r2 : float > 0
    """
    if sp.issparse(X):
        sq = X.multiply(X).sum()
    else:
        sq = float(np.einsum("ij,ij->", np.asarray(X, dtype=np.float64), np.asarray(X, dtype=np.float64)))
    r2 = float(sq) / max(1, X.shape[0])
    return r2 if np.isfinite(r2) and r2 > 0 else 1.0


def _positive_scores(estimator, X):
    """P(class 1 | x) from a fitted binary scikit-learn classifier.

    Uses ``predict_proba`` when the estimator offers it (for calibrated SVM
    probabilities wrap it: ``CalibratedClassifierCV(SVC(), ensemble=False)``);
    otherwise ``decision_function`` mapped through
    the logistic sigmoid, which is monotone but *not* calibrated.

    Returns
    -------
    p : ndarray, shape (n_samples,)
    """
    if hasattr(estimator, "predict_proba"):
        proba = estimator.predict_proba(X)
        col = int(np.flatnonzero(np.asarray(estimator.classes_) == 1)[0])
        return proba[:, col]
    if hasattr(estimator, "decision_function"):
        return expit(np.asarray(estimator.decision_function(X), dtype=np.float64).ravel())
    raise TypeError(f"{type(estimator).__name__} has neither predict_proba nor decision_function.")


def _mapped(est, X):
    """X through the fitted base feature map (``feature_map_``; identity for the linear base)."""
    fmap = getattr(est, "feature_map_", None)
    return X if fmap is None else fmap.transform(X)


class ConstantProbability:
    """Stand-in classifier for a label that is constant in the training data.

    Parameters
    ----------
    probability : float
        The smoothed constant P(y = 1), see :class:`BinaryRelevance`.
    """

    def __init__(self, probability):
        self.probability = float(probability)
        self.classes_ = np.array([0, 1])

    def predict_proba(self, X):
        """Return ``[[1 - p, p]] * n``; shape (n_samples, 2)."""
        n = X.shape[0]
        return np.tile([1.0 - self.probability, self.probability], (n, 1))

    def __repr__(self):
        return f"ConstantProbability({self.probability:.4g})"
