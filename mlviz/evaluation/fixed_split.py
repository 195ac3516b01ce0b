"""Evaluation on a fixed train/test pair: the standard protocol of multi-label benchmarks.

Multi-label papers and the large comparative studies (e.g. Bogatinovski et al.
2022) fit each method on a published training file and score it once on the
matching test file. :func:`evaluate_split` does exactly that and returns the
same tidy long table as :func:`mlviz.evaluation.cross_validate`
(:data:`RESULT_COLUMNS`; ``fold`` is 0): a fixed split *is* one fold, so the
two halves are stacked and handed to :func:`cross_validate` with the single
fold (training rows, test rows). Scaling fitted on the training half only,
each method's own decision rule, the notes (``decision_rule``, ``scaling``),
the timings, the optional nested tuning (inner folds of the training half
only) and the trivial reference rows are therefore the cross-validation's own
code, not a copy.

References
----------
J. Bogatinovski, L. Todorovski, S. Džeroski, D. Kocev. Comprehensive comparative
study of multi-label classification methods. Expert Systems with Applications
203:117215, 2022 (the standard train/test splits and their protocol).
"""

import numpy as np
import scipy.sparse as sp

from ..models import check_X, check_Y
from .cross_validation import cross_validate

__all__ = ["evaluate_split", "stack_split"]


def stack_split(X_train, Y_train, X_test, Y_test):
    """Stack a train/test pair into one (X, Y) and the single fold that separates them.

    Parameters
    ----------
    X_train : array-like or sparse, shape (n_train, n_features)
    Y_train : array-like, shape (n_train, n_labels), entries in {0, 1}
    X_test : array-like or sparse, shape (n_test, n_features)
    Y_test : array-like, shape (n_test, n_labels), entries in {0, 1}

    Returns
    -------
    X : ndarray or CSR matrix, shape (n_train + n_test, n_features)
        CSR when either half is sparse, else dense.
    Y : ndarray, shape (n_train + n_test, n_labels)
    folds : list of one (train_index, test_index) pair
        ``arange(n_train)`` and ``arange(n_train, n_train + n_test)``.

    Raises
    ------
    ValueError
        The halves disagree in the number of features or labels, or a half
        has no rows.
    """
    X_train, X_test = check_X(X_train), check_X(X_test)
    Y_train = check_Y(Y_train, n_samples=X_train.shape[0])
    Y_test = check_Y(Y_test, n_samples=X_test.shape[0])
    if X_train.shape[1] != X_test.shape[1]:
        raise ValueError(f"X_train has {X_train.shape[1]} features but X_test has {X_test.shape[1]}.")
    if Y_train.shape[1] != Y_test.shape[1]:
        raise ValueError(f"Y_train has {Y_train.shape[1]} labels but Y_test has {Y_test.shape[1]}.")
    n_train, n_test = X_train.shape[0], X_test.shape[0]
    if n_train == 0 or n_test == 0:
        raise ValueError("evaluate_split needs a non-empty training and test set.")
    if sp.issparse(X_train) or sp.issparse(X_test):
        X = sp.vstack([sp.csr_matrix(X_train), sp.csr_matrix(X_test)], format="csr")
    else:
        X = np.vstack([X_train, X_test])
    Y = np.vstack([Y_train, Y_test])
    folds = [(np.arange(n_train), np.arange(n_train, n_train + n_test))]
    return X, Y, folds


def evaluate_split(estimators, X_train, Y_train, X_test, Y_test, *, measures=None, threshold="predict",
                   scaling=None, tune=False, inner_cv=3, n_jobs=1, random_state=None, progress=None,
                   references=False):
    """Fit every estimator on the training set and score it on the test set.

    Parameters
    ----------
    estimators : dict[str, estimator]
        Name -> unfitted estimator (cloned before fitting).
    X_train : array-like or CSR matrix, shape (n_train, n_features)
    Y_train : array-like, shape (n_train, n_labels), entries in {0, 1}
    X_test : array-like or CSR matrix, shape (n_test, n_features)
    Y_test : array-like, shape (n_test, n_labels), entries in {0, 1}
    measures, threshold, scaling, n_jobs, progress, references
        As in :func:`mlviz.evaluation.cross_validate`: the scaling is fitted
        on the training set only; ``threshold="predict"`` uses each method's
        own decision rule; ``references`` adds the trivial references (label
        ranking by training frequency, predicting nothing).
    tune : bool or dict[str, dict]
        Choose each method's key hyperparameters by ``inner_cv``-fold
        cross-validation of the *training set* (the test set never takes
        part), then refit the best on the whole training set.
    inner_cv : int
    random_state : int, RandomState or None
        Passed to every estimator whose ``random_state`` is None and seeds the
        inner folds of ``tune``; the split itself is fixed.

    Returns
    -------
    results : pandas.DataFrame
        Columns exactly :data:`mlviz.evaluation.RESULT_COLUMNS`, one row per
        method x measure, ``fold`` = 0 (the error-row convention of
        :func:`cross_validate` applies).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.models import BinaryRelevance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(90, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> res = evaluate_split({"br": BinaryRelevance()}, X[:60], Y[:60], X[60:], Y[60:],
    ...                      measures=["hamming_loss"], scaling="standard")
    >>> res[["method", "fold", "measure", "scaling"]].values.tolist()
    [['br', 0, 'hamming_loss', 'standard']]
    """
    X, Y, folds = stack_split(X_train, Y_train, X_test, Y_test)
    if isinstance(scaling, str) and scaling == "auto":
        from ..preprocessing import default_scaling

        scaling = default_scaling(X[folds[0][0]])  # "auto" decided by the training half alone
    elif isinstance(scaling, dict):
        from ..preprocessing import default_scaling

        scaling = {k: (default_scaling(X[folds[0][0]]) if v == "auto" else v) for k, v in scaling.items()}
    return cross_validate(estimators, X, Y, cv=folds, measures=measures, threshold=threshold, scaling=scaling,
                          tune=tune, inner_cv=inner_cv, n_jobs=n_jobs, random_state=random_state,
                          progress=progress, references=references)
