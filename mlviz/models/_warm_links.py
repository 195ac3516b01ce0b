"""Warm-started logistic-regression links for ensembles of classifier chains (ECC).

Every chain of :class:`~mlviz.models.EnsembleClassifierChains` fits, for each
label l, a link: an ℓ2-penalised logistic regression of y_l on the features
beside the earlier labels of that chain. Ten chains solve ten such problems for
the same label, on overlapping samples of the rows and with overlapping sets of
earlier labels, so the solution of one is a good start for the next.
:class:`WarmLinks` fits the links of a chain by the solver of scikit-learn's
``LogisticRegression(solver="lbfgs")`` -- the same objective

.. math:: f(w, b) = \\frac{1}{n} \\sum_i \\big[\\log(1 + e^{z_i}) - y_i z_i\\big]
          + \\frac{1}{2 C n} \\lVert w \\rVert^2,\\quad z_i = a_i \\cdot w + b,

(the intercept b unpenalised), the same L-BFGS-B call and stopping rule
(projected gradient ≤ ``tol``, ``ftol`` = 64 ε, ``maxls`` = 50) -- started from
the last solution for the same label instead of from 0. The optimum of each link
is unchanged; the solution differs from a cold start's only within the solver's
tolerance.

It also removes the per-link overhead of a scikit-learn fit (input validation,
a new ``[X, earlier labels]`` matrix per link): one matrix
A = [X, label_scale · Y in chain order] is built per chain, and link j uses its
first n_features + j columns by giving the later columns weight 0 (A w is then
exactly the product with the link's own matrix).
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

__all__ = ["WarmLinks"]

#: scikit-learn's LogisticRegression defaults, whose solver this module repeats
TOL = 1e-4
MAX_ITER = 1000


class WarmLinks:
    """Fit the default links of successive chains, each started from the last solution for its label.

    For every label l it keeps the coefficients of the last link fitted for l:
    weights on the n_features input columns, on each earlier label of that link's
    chain, and the intercept. A new link for l whose earlier labels are
    ``prefix`` starts from the stored input weights and intercept and from the
    stored weights of the labels in ``prefix`` (0 for a label no earlier link of
    l has had before it).

    Parameters
    ----------
    n_features, n_labels : int
    tol : float, default 1e-4
        Stopping rule of L-BFGS-B on the projected gradient (``LogisticRegression``'s ``tol``).
    max_iter : int, default 1000
        As ``LogisticRegression(max_iter=1000)``, the links of :class:`~mlviz.models.PCC`.

    Attributes
    ----------
    n_iter : list of int
        L-BFGS iterations of every link fitted so far (chain by chain, in chain order).
    """

    def __init__(self, n_features, n_labels, *, warm=True, tol=TOL, max_iter=MAX_ITER):
        self.n_features = int(n_features)
        self.warm = bool(warm)
        self.tol = float(tol)
        self.max_iter = int(max_iter)
        self.coef = np.zeros((int(n_labels), self.n_features + int(n_labels)))
        self.intercept = np.zeros(int(n_labels))
        self.n_iter = []

    def fit_chain(self, X, Y, order, C, label_scale):
        """Fit the links of one chain.

        Parameters
        ----------
        X : ndarray or CSR matrix, shape (n_samples, n_features)
        Y : ndarray of 0/1, shape (n_samples, n_labels)
        order : ndarray of int, shape (n_labels,)
            Chain order; link j predicts ``order[j]`` from X and ``order[:j]``.
        C : float
            Inverse penalty of every link (as ``LogisticRegression(C=C)``).
        label_scale : float
            Factor on the earlier labels.

        Returns
        -------
        links : list, length n_labels
            Link j: a fitted ``LogisticRegression(C=C, max_iter=max_iter)`` on the
            ``n_features + j`` columns [X, label_scale · Y[:, order[:j]]], or a
            float 0.0 / 1.0 for a label constant in these rows.
        """
        n, d = X.shape[0], self.n_features
        Yo = np.asarray(Y[:, order], dtype=float)
        if sp.issparse(X):
            A = sp.hstack([X, sp.csr_matrix(label_scale * Yo)], format="csr")
        else:
            A = np.hstack([np.asarray(X, dtype=float), label_scale * Yo])
        AT = A.T.tocsr() if sp.issparse(A) else np.ascontiguousarray(A.T)
        # columns without a non-zero in these rows: their optimal weight is exactly 0 (their gradient is
        # λ w alone), so they start at 0, not at another sample's weight that the loose stopping rule would keep
        present = np.asarray((A != 0).sum(axis=0)).ravel() > 0
        lam = 1.0 / (float(C) * n)
        wfull = np.zeros(A.shape[1])
        links = []
        for j, label in enumerate(order):
            y = Yo[:, j]
            if y.min() == y.max():
                links.append(float(y[0]))
                continue
            p = d + j
            cols = np.concatenate([np.arange(d), d + np.asarray(order[:j], dtype=int)])

            def fun(theta, p=p, y=y):
                wfull[:p] = theta[:p]
                wfull[p:] = 0.0
                z = A @ wfull + theta[p]
                # log(1 + e^z) - y z, stable for either sign of z
                loss = (np.logaddexp(0.0, z) - y * z).sum() / n + 0.5 * lam * theta[:p] @ theta[:p]
                r = (expit(z) - y) / n
                grad = np.empty(p + 1)
                grad[:p] = (AT @ r)[:p] + lam * theta[:p]
                grad[p] = r.sum()
                return loss, grad

            if self.warm:
                theta0 = np.append(np.where(present[:p], self.coef[label, cols], 0.0), self.intercept[label])
            else:
                theta0 = np.zeros(p + 1)
            res = minimize(fun, theta0, method="L-BFGS-B", jac=True,
                           options={"maxiter": self.max_iter, "maxls": 50, "gtol": self.tol,
                                    "ftol": 64 * np.finfo(float).eps})
            if not res.success:
                warnings.warn(f"WarmLinks: L-BFGS-B did not converge for label {label} ({res.message}).",
                              ConvergenceWarning, stacklevel=2)
            self.coef[label, cols] = res.x[:p]
            self.intercept[label] = res.x[p]
            self.n_iter.append(int(res.nit))
            links.append(_fitted_lr(C, self.max_iter, self.tol, res.x[:p], res.x[p], int(res.nit)))
        return links


def _fitted_lr(C, max_iter, tol, coef, intercept, n_iter):
    """A ``LogisticRegression`` in the state its own ``fit`` would leave for these coefficients."""
    lr = LogisticRegression(C=C, max_iter=max_iter, tol=tol)
    lr.classes_ = np.array([0, 1])
    lr.coef_ = np.asarray(coef, dtype=float)[None, :].copy()
    lr.intercept_ = np.array([float(intercept)])
    lr.n_features_in_ = lr.coef_.shape[1]
    lr.n_iter_ = np.array([n_iter], dtype=np.int32)
    return lr
