"""The links of ECC's chains, fitted together by scikit-learn's solver (optionally warm-started).

Every chain of :class:`~mlviz.models.EnsembleClassifierChains` fits, for each
label l, a link: an ℓ2-penalised logistic regression of y_l on the features
beside the earlier labels of that chain. :class:`WarmLinks` fits them with
scikit-learn's ``LogisticRegression(solver="lbfgs")`` -- the same objective

.. math:: f(w, b) = \\frac{1}{n} \\sum_i \\big[\\log(1 + e^{z_i}) - y_i z_i\\big]
          + \\frac{1}{2 C n} \\lVert w \\rVert^2,\\quad z_i = a_i \\cdot w + b,

(the intercept b unpenalised) and the same L-BFGS-B calls and stopping rule
(projected gradient ≤ ``tol``, ``ftol`` = 64 ε, ``maxls`` = 50), hence the same
iterates -- without the per-link overhead of a scikit-learn fit (input
validation, a new ``[X, earlier labels]`` matrix per link): one matrix
A = [X, label_scale · Y in chain order] is built per chain, link j uses its first
n_features + j columns by giving the later columns weight 0 (A w is then exactly
the product with the link's own matrix), and the links of a chain advance in
lockstep (:func:`mlviz.solvers.lbfgs_many.lbfgs_many`), one sparse product per round for all of them.

With ``warm=True`` (ECC's ``warm_start``) a link starts from the last solution
for its label instead of 0 -- ten chains solve ten problems for each label, on
overlapping rows and earlier labels. Same objective and stopping rule, other
iterates: the link stops at a different point within the rule's tolerance
(benchmarks/RESULTS.md, "ECC and RAkEL at the bibtex shape").
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

__all__ = ["WarmLinks"]

from ..solvers.lbfgs_many import MAX_ITER, TOL, lbfgs_many


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
    warm : bool, default True
        Start from the stored solutions (as above); ``False``: every link starts at 0,
        as ``LogisticRegression.fit`` (ECC's default).
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
        links = [float(Yo[0, j]) if Yo[:, j].min() == Yo[:, j].max() else None for j in range(len(order))]
        todo = [j for j, link in enumerate(links) if link is None]
        cols = {j: np.concatenate([np.arange(d), d + np.asarray(order[:j], dtype=int)]) for j in todo}
        x0 = []
        for j in todo:
            label, p = order[j], d + j
            x0.append(np.append(np.where(present[:p], self.coef[label, cols[j]], 0.0), self.intercept[label])
                      if self.warm else np.zeros(p + 1))

        last = {}

        def columns(k):
            """A's first k columns and their transpose (the last ones asked for are kept)."""
            if last.get("k") != k:
                last.update(k=k, A=A if k == A.shape[1] else A[:, :k], AT=AT[:k])
            return last["A"], last["AT"]

        def fg(which, thetas):
            """Loss and gradient of the links ``todo[which]`` at ``thetas`` (one sparse product for all)."""
            js = [todo[i] for i in which]
            Ak, ATk = columns(d + max(js))  # no link of these sees the later labels
            W = np.zeros((Ak.shape[1], len(js)))  # link j's weights, 0 on the columns after its own d + j
            for c, (j, th) in enumerate(zip(js, thetas)):
                W[:d + j, c] = th[:-1]
            Z = np.asarray(Ak @ W) + np.array([th[-1] for th in thetas])
            Yb = Yo[:, js]
            # log(1 + e^z) - y z and the sigmoid, stable for either sign of z, from one exponential
            E = np.exp(-np.abs(Z))
            loss = (np.log1p(E) + np.maximum(Z, 0.0) - Yb * Z).sum(axis=0) / n
            inv = 1.0 / (1.0 + E)
            R = (np.where(Z >= 0.0, inv, E * inv) - Yb) / n
            G = np.asarray(ATk @ R)
            out = []
            for c, (j, th) in enumerate(zip(js, thetas)):
                w = th[:-1]
                out.append((loss[c] + 0.5 * lam * (w @ w), np.append(G[:d + j, c] + lam * w, R[:, c].sum())))
            return out

        results = lbfgs_many(fg, x0, tol=self.tol, max_iter=self.max_iter)
        for j, (x, nit, ok, msg) in zip(todo, results):
            label, p = order[j], d + j
            if not ok:
                warnings.warn(f"WarmLinks: L-BFGS-B did not converge for label {label} ({msg}).",
                              ConvergenceWarning, stacklevel=2)
            self.coef[label, cols[j]] = x[:p]
            self.intercept[label] = x[p]
            self.n_iter.append(nit)
            links[j] = _fitted_lr(C, self.max_iter, self.tol, x[:p], x[p], nit)
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
