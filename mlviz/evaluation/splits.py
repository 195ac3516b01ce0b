"""Multi-label k-fold splits by iterative stratification.

References
----------
K. Sechidis, G. Tsoumakas, I. Vlahavas. On the stratification of multi-label
data. ECML PKDD 2011 (Algorithm 1, "iterative stratification"), as
implemented by the maintained ``iterative-stratification`` package
(``iterstrat.ml_stratifiers.MultilabelStratifiedKFold``).
"""

from numbers import Integral

import numpy as np
from iterstrat.ml_stratifiers import MultilabelStratifiedKFold
from sklearn.utils import check_random_state

from ..models import check_Y

__all__ = ["multilabel_kfold"]


def multilabel_kfold(Y, n_splits=5, random_state=None):
    """Split instances into ``n_splits`` folds preserving label proportions.

    Parameters
    ----------
    Y : array-like or sparse, shape (n_samples, n_labels), entries in {0, 1}
    n_splits : int >= 2
    random_state : int, RandomState or None
        Seeds the shuffle and the algorithm's random tie-breaks; an int gives
        identical folds on every call.

    Returns
    -------
    folds : list of (train_index, test_index) pairs of int ndarrays
        Every instance is in exactly one test fold.

    Notes
    -----
    The algorithm assigns, label by label from the rarest, the instances
    carrying that label to the fold that most lacks it. Instances with an
    empty label set are spread over the folds afterwards to even out the
    fold sizes (handled by the package). A label with fewer positives than
    folds necessarily leaves some test folds without positives; the metrics
    of :mod:`mlviz.metrics` have documented values for that case. A single
    label column is stratified together with its complement (the package
    requires at least two columns).

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.eye(4, dtype=int)[np.arange(40) % 4]   # 10 positives per label
    >>> folds = multilabel_kfold(Y, n_splits=5, random_state=0)
    >>> [Y[test].sum(0).tolist() for _, test in folds]
    [[2, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2]]
    """
    Y = check_Y(Y)
    if not isinstance(n_splits, Integral) or isinstance(n_splits, bool) or n_splits < 2:
        raise ValueError(f"n_splits must be an integer >= 2, got {n_splits!r}.")
    n = Y.shape[0]
    if n_splits > n:
        raise ValueError(f"Cannot make {n_splits} folds from {n} instances.")
    Y = Y.astype(bool)
    if Y.shape[1] < 2:
        Y = np.hstack([Y, ~Y]) if Y.shape[1] == 1 else np.ones((n, 2), bool)
    rng = check_random_state(random_state)
    splitter = MultilabelStratifiedKFold(n_splits=n_splits, shuffle=True, random_state=rng)
    folds = [(np.asarray(tr, dtype=np.intp), np.asarray(te, dtype=np.intp))
             for tr, te in splitter.split(np.zeros((n, 1)), Y)]
    if any(te.size == 0 for _, te in folds):  # cannot happen for n >= n_splits, but be explicit
        raise ValueError(f"Iterative stratification produced an empty fold ({n} instances, {n_splits} folds).")
    return folds
