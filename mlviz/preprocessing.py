"""Feature scalings that suit the data, by name, fitted on training folds only.

Named scalings (:data:`SCALINGS`)
---------------------------------
``"standard"``
    :class:`sklearn.preprocessing.StandardScaler` -- zero mean, unit variance per
    feature (without centring for sparse input, which would densify it). For
    dense, continuous features (audio, image descriptors: emotions, scene, yeast).
``"l2"``
    :class:`sklearn.preprocessing.Normalizer` -- every *row* scaled to unit
    Euclidean norm. For sparse / count features (bag of words, tags): cosine
    geometry, so Euclidean kNN, RBF kernels and embeddings compare documents by
    direction rather than length, and no rare feature is blown up.
``"tfidf"``
    :class:`sklearn.feature_extraction.text.TfidfTransformer` (smooth idf,
    sublinear tf off, then rows L2-normalised). For raw term counts; needs
    non-negative features.
``"maxabs"``
    :class:`sklearn.preprocessing.MaxAbsScaler` -- each feature divided by its
    largest absolute value; keeps sparsity and signs.
``"none"``
    The features as given.

The default (:func:`default_scaling`)
-------------------------------------
``"l2"`` when X is stored sparse, or is non-negative with at most
:data:`SPARSE_DENSITY` of its entries non-zero (count-like data stored dense);
``"standard"`` otherwise.  Why: per-feature standardisation of sparse count
features (``StandardScaler(with_mean=False)``) divides each word by its standard deviation, so rare words
dominate Euclidean distances; measured on two Mulan text sets,
ML-kNN micro-F1 was 0.117 / 0.082 standardised, 0.240 / 0.217 unscaled and
0.543 / 0.355 with L2-normalised rows.  On the bundled sparse sets (ML-kNN,
3-fold CV, seed 0; ``benchmarks/RESULTS.md``, "describe in O(nnz), estimators at scale
(quick), scaling evidence") micro-F1 was
enron 0.395 / 0.461 / 0.486 / 0.479 and medical 0.623 / 0.719 / 0.717 / 0.691
for standard / none / l2 / tfidf, and P@1 was highest with l2 on both
(0.719, 0.789).  Dense continuous features have
incomparable units, where standardisation is the usual choice and what the
papers' experiments used.

Every scaler is placed in a :class:`sklearn.pipeline.Pipeline` in front of the
estimator (:func:`with_scaling`), so cross-validation fits it on the training
fold only.

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> default_scaling(np.random.default_rng(0).normal(size=(5, 3)))
'standard'
>>> default_scaling(sp.random(50, 200, density=0.02, format="csr", random_state=0))
'l2'
>>> X = np.array([[3.0, 4.0], [0.0, 2.0]])
>>> make_scaler("l2").fit_transform(X)
array([[0.6, 0.8],
       [0. , 1. ]])
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["SCALINGS", "SPARSE_DENSITY", "default_scaling", "make_scaler", "resolve_scaling", "scale_split",
           "with_scaling", "scaling_of"]

SCALINGS = {
    "standard": "standardise each feature (StandardScaler; no centring for sparse X)",
    "l2": "unit L2 norm per row (Normalizer)",
    "tfidf": "TF-IDF weighting, then unit L2 norm per row (TfidfTransformer)",
    "maxabs": "divide each feature by its max |value| (MaxAbsScaler)",
    "none": "features as given",
}
"""Scaling name -> one-line description (the names accepted everywhere)."""

SPARSE_DENSITY = 0.1
"""Dense non-negative X with at most this fraction of non-zeros counts as count-like (-> ``"l2"``)."""


def _density_and_min(X):
    if sp.issparse(X):
        data = X.data
        n = X.shape[0] * X.shape[1]
        return (np.count_nonzero(data) / n if n else 0.0), (min(0.0, data.min()) if data.size else 0.0)
    X = np.asarray(X)
    return (np.count_nonzero(X) / X.size if X.size else 0.0), (X.min() if X.size else 0.0)


def default_scaling(X):
    """The documented default scaling for ``X`` (module docstring): ``"l2"`` or ``"standard"``.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)

    Returns
    -------
    name : str
    """
    if sp.issparse(X):
        return "l2"
    density, low = _density_and_min(X)
    return "l2" if low >= 0 and density <= SPARSE_DENSITY else "standard"


def resolve_scaling(scaling, X):
    """Turn ``"auto"``/None/a name into a name of :data:`SCALINGS`, checked against ``X``.

    Parameters
    ----------
    scaling : str or None
        A key of :data:`SCALINGS`, ``"auto"`` (:func:`default_scaling`), or
        None (same as ``"none"``).
    X : array-like or sparse matrix, shape (n_samples, n_features)

    Returns
    -------
    name : str

    Raises
    ------
    ValueError
        Unknown name, or ``"tfidf"`` on features with negative values.
    """
    if scaling is None:
        return "none"
    if not isinstance(scaling, str) or (scaling != "auto" and scaling not in SCALINGS):
        raise ValueError(f"scaling must be 'auto' or one of {', '.join(SCALINGS)}, got {str(scaling)[:40]!r}.")
    name = default_scaling(X) if scaling == "auto" else scaling
    if name == "tfidf" and _density_and_min(X)[1] < 0:
        raise ValueError("scaling 'tfidf' needs non-negative (count) features; X has negative values "
                         "(use 'l2' or 'standard').")
    return name


def make_scaler(name, *, sparse=False):
    """A fresh, unfitted scikit-learn transformer for scaling ``name`` (None for ``"none"``).

    Parameters
    ----------
    name : str
        Key of :data:`SCALINGS`.
    sparse : bool
        Whether the input is sparse (``"standard"`` then does not centre).

    Returns
    -------
    transformer or None
    """
    if name == "standard":
        from sklearn.preprocessing import StandardScaler

        return StandardScaler(with_mean=not sparse)
    if name == "l2":
        from sklearn.preprocessing import Normalizer

        return Normalizer(norm="l2")
    if name == "tfidf":
        from sklearn.feature_extraction.text import TfidfTransformer

        return TfidfTransformer()
    if name == "maxabs":
        from sklearn.preprocessing import MaxAbsScaler

        return MaxAbsScaler()
    if name == "none":
        return None
    raise ValueError(f"unknown scaling {str(name)[:40]!r}; choose from {', '.join(SCALINGS)}.")


def scale_split(X_train, X_test, scaling="auto"):
    """Scale a train/test split with a scaler fitted on the training rows only.

    The one scaling rule of the dashboard, the report pack and the tests.

    Parameters
    ----------
    X_train, X_test : ndarray or sparse matrix, shape (n_train, d), (n_test, d)
    scaling : str or None
        As for :func:`resolve_scaling` (``"auto"``: :func:`default_scaling` of ``X_train``).

    Returns
    -------
    X_train, X_test : float64 ndarray, or CSR float64 for sparse input

    Raises
    ------
    ValueError
        Unknown scaling, or ``"tfidf"`` on negative features.

    Examples
    --------
    >>> import numpy as np
    >>> Xtr, Xte = scale_split(np.array([[0.0], [2.0]]), np.array([[1.0]]), "standard")
    >>> Xtr.ravel().tolist(), Xte.ravel().tolist()
    ([-1.0, 1.0], [0.0])
    """
    name = resolve_scaling(scaling, X_train)
    sparse = sp.issparse(X_train)
    scaler = make_scaler(name, sparse=sparse)
    if scaler is not None:
        X_train, X_test = scaler.fit_transform(X_train), scaler.transform(X_test)
    if sparse:
        return sp.csr_matrix(X_train, dtype=np.float64), sp.csr_matrix(X_test, dtype=np.float64)
    return np.asarray(X_train, dtype=np.float64), np.asarray(X_test, dtype=np.float64)


def with_scaling(estimator, scaling, X):
    """``estimator`` preceded by the scaling for ``X`` (a two-step Pipeline), or unchanged for "none".

    Parameters
    ----------
    estimator : estimator
    scaling : str or None
        As for :func:`resolve_scaling`.
    X : array-like or sparse matrix, shape (n_samples, n_features)
        Used only to choose (``"auto"``) and to check the scaling, not fitted.

    Returns
    -------
    estimator : estimator or sklearn.pipeline.Pipeline
        The pipeline's first step is named ``"scale_<name>"`` so
        :func:`scaling_of` can report it.
    """
    from sklearn.pipeline import Pipeline

    name = resolve_scaling(scaling, X)
    scaler = make_scaler(name, sparse=sp.issparse(X))
    if scaler is None:
        return estimator
    return Pipeline([(f"scale_{name}", scaler), ("model", estimator)])


def scaling_of(estimator):
    """The scaling an estimator applies before its model, as a short string.

    A :func:`with_scaling` pipeline gives its name (``"l2"``); any other
    pipeline gives its transformer class names joined by ``" + "``
    (``"StandardScaler"``); a bare estimator gives ``"none"``.
    """
    steps = getattr(estimator, "steps", None)
    if not steps:
        return "none"
    names = []
    for step_name, step in steps[:-1]:
        if step is None or step == "passthrough":
            continue
        if step_name.startswith("scale_") and step_name[6:] in SCALINGS:
            names.append(step_name[6:])
        else:
            names.append(type(step).__name__)
    return " + ".join(names) if names else "none"
