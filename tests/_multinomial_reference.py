"""Independent reference for the multinomial logistic regression of LabelPowerset / RAkEL.

scikit-learn's ``LogisticRegression`` fitted at a very tight tolerance stands for the optimum of
the objective F (scikit-learn's, divided by C · n:
F = (1/n) Σ_i [log Σ_k exp(z_ik) - z_{i,y_i}] + ‖W‖² / (2 C n), z_i = W x_i + b). A solver that
stops at max |∇F| ≤ tol is not at that optimum, so its probabilities are compared with a
tolerance derived from the stopping point itself: with the gradients g (solver) and g* (the
tight reference) at the two points, both computed here by hand, and μ the smallest curvature of
F (the least eigenvalue of the exact Hessian, written out below, halved as a margin for its change
between the two points; the direction that shifts every intercept alike changes nothing and is
left out), strong convexity gives ‖θ - θ*‖ ≤ (‖g‖ + ‖g*‖) / μ; a score z_ik = x̃_iᵀθ_k moves by
at most ‖x̃_i‖ ‖θ - θ*‖, and a softmax or logistic probability by at most half the largest score
change.
"""

import numpy as np
from scipy.special import softmax
from sklearn.linear_model import LogisticRegression


def tight_reference(X, ids, C):
    """scikit-learn's LogisticRegression at tol 1e-12 (the optimum, up to its own small gradient)."""
    return LogisticRegression(C=C, tol=1e-12, max_iter=100_000).fit(X, ids)


def gradient_by_hand(X, ids, C, coef, intercept):
    """∇F at (coef, intercept) in scikit-learn's layout (coef (K, d) or (1, d) for two classes).

    Returns
    -------
    F : float
    grad : ndarray, shape (K', d + 1)
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    n = X.shape[0]
    Xt = np.column_stack([X, np.ones(n)])
    Th = np.column_stack([np.atleast_2d(coef), np.atleast_1d(intercept)])
    lam = 1.0 / (C * n)
    pen = np.ones(Th.shape[1])
    pen[-1] = 0.0
    if Th.shape[0] == 1:  # binomial: class 1 against class 0 (scores 0)
        z = Xt @ Th[0]
        p = 1.0 / (1.0 + np.exp(-z))
        y = (np.asarray(ids) == np.max(ids)).astype(float)
        F = np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * lam * np.sum(Th[0, :-1] ** 2)
        return F, ((Xt.T @ (p - y)) / n + lam * pen * Th[0])[None, :]
    Z = Xt @ Th.T
    P = softmax(Z, axis=1)
    Yh = np.zeros_like(P)
    Yh[np.arange(n), ids] = 1.0
    F = np.mean(np.log(np.exp(Z - Z.max(1, keepdims=True)).sum(1)) + Z.max(1) - Z[np.arange(n), ids])
    F += 0.5 * lam * np.sum(Th[:, :-1] ** 2)
    return F, (P - Yh).T @ Xt / n + lam * pen * Th


def least_curvature(X, C, coef, intercept):
    """Least eigenvalue of the Hessian of F at a point, the intercepts' common shift left out."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    n, d = X.shape
    Xt = np.column_stack([X, np.ones(n)])
    Th = np.column_stack([np.atleast_2d(coef), np.atleast_1d(intercept)])
    K = Th.shape[0]
    pen = np.ones(d + 1)
    pen[-1] = 0.0
    if K == 1:
        p = 1.0 / (1.0 + np.exp(-(Xt @ Th[0])))
        H = (Xt * (p * (1 - p))[:, None]).T @ Xt / n + np.diag(pen) / (C * n)
        return float(np.linalg.eigvalsh(H)[0])
    P = softmax(Xt @ Th.T, axis=1)
    A = P[:, :, None] * (np.eye(K)[None] - P[:, None, :])  # diag(p_i) - p_i p_iᵀ
    H = np.einsum("ikl,ij,im->kjlm", A, Xt, Xt).reshape(K * (d + 1), K * (d + 1))
    H = H / n + np.kron(np.eye(K), np.diag(pen)) / (C * n)
    shift = np.kron(np.ones(K), np.eye(d + 1)[-1]) / np.sqrt(K)  # every intercept + 1: H shift = 0
    Q = np.linalg.qr(np.column_stack([shift, np.eye(K * (d + 1))]))[0][:, 1:]
    return float(np.linalg.eigvalsh(Q.T @ H @ Q)[0])


def probability_tolerance(X, ids, C, coef, intercept, ref, X_eval=None):
    """Bound on |P(coef, intercept) - P(ref)| on the rows of ``X_eval`` (default X) from the two
    points' gradients on the training rows (X, ids) (module docstring)."""
    _, g = gradient_by_hand(X, ids, C, coef, intercept)
    _, g_ref = gradient_by_hand(X, ids, C, ref.coef_, ref.intercept_)
    mu = 0.5 * least_curvature(X, C, ref.coef_, ref.intercept_)
    Xe = X if X_eval is None else X_eval
    Xd = np.asarray(Xe.toarray() if hasattr(Xe, "toarray") else Xe, dtype=float)
    radius = np.sqrt(np.max(np.sum(Xd ** 2, axis=1)) + 1.0)
    return 0.5 * radius * (np.linalg.norm(g) + np.linalg.norm(g_ref)) / mu


def fitted_tolerance(est, X, ids, C, X_eval=None):
    """:func:`probability_tolerance` of a fitted model (``coef_``, ``intercept_``) on class ids ``ids``
    against :func:`tight_reference` on the same ids; also bounds a sum of class probabilities (a
    label-powerset marginal): its change is q(1 - q)(mean score change inside - outside)."""
    ref = tight_reference(X, ids, C)
    return probability_tolerance(X, ids, C, est.coef_, est.intercept_, ref, X_eval=X_eval)
