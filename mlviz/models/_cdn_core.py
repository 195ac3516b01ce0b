"""Objective (4) of the sparse CDN on a flat parameter vector, its FISTA solve, and the
Gibbs sampler (Guo & Xue, IJCAI 2013). Private helpers of :mod:`mlviz.models.cdn`.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from ..solvers.fista import fista
from ..solvers.prox import group_l21_norm, prox_group_l21, prox_l1

__all__ = ["_CDNProblem", "_solve", "gibbs_marginals"]


class _CDNProblem:
    """Smooth part f, non-smooth part g and prox of objective (4), on a flat theta.

    ``theta = [W.ravel() (d*L), V.ravel() (L*L), c / b_scale (L)]`` where
    ``c = b + x_mean @ W + s_mean @ V`` is the intercept of the *centred* features
    and labels: ``X W + S V + b = (X - x_mean) W + (S - s_mean) V + c``. Because
    b is unpenalised this is an exact reparameterisation (same objective, same
    minimiser), but it removes the near-collinearity of the +-1 label features
    (and of non-negative features) with the intercept, which otherwise dominates
    the Lipschitz constant and slows FISTA. X itself is never densified.
    """

    def __init__(self, X, S, active, lam1, lam2, gamma, mu, use_V):
        self.X = X
        self.dense = not sp.issparse(X)
        if self.dense:
            # products as (W^T X^T)^T and (R^T X)^T: BLAS is ~1.7x faster on these skinny
            # shapes with the long dimension contiguous; S in Fortran order matches X W's layout
            self.X = np.ascontiguousarray(X, dtype=float)
            self.XT = np.ascontiguousarray(self.X.T)
            S = np.asfortranarray(S)
        else:
            self.XT = X.T.tocsr()
        self.S = S
        self.n, self.d = X.shape
        self.L = S.shape[1]
        self.col_weight = active.astype(float) / self.n
        mask = np.zeros((self.L, self.L), dtype=bool)
        if use_V:
            mask = active[:, None] & active[None, :]
            np.fill_diagonal(mask, False)
        self.V_mask = mask
        self.use_V = bool(mask.any())
        # The intercept is stored as b / b_scale: a fixed linear change of variables of
        # an unpenalised block (FISTA's guarantees are unchanged) that gives rare labels'
        # intercepts a curvature comparable to the other coordinates (p(1-p) * scale^2 ~ 1).
        p = np.clip((S > 0).mean(axis=0), 1.0 / self.n, 1.0 - 1.0 / self.n)
        self.b_scale = 1.0 / np.sqrt(p * (1.0 - p))
        self.x_mean = np.asarray(X.mean(axis=0)).ravel()
        self.s_mean = S.mean(axis=0)
        self.lam1, self.lam2, self.gamma, self.mu = lam1, lam2, gamma, mu
        self._cache = []
        work = X.nnz if sp.issparse(X) else X.size
        self._use_cache = work * self.L > 2_000_000

    def unpack(self, theta):
        d, L = self.d, self.L
        W = theta[: d * L].reshape(d, L)
        V = theta[d * L: d * L + L * L].reshape(L, L)
        return W, V, theta[d * L + L * L:] * self.b_scale

    def pack(self, W, V, b, grad=False):
        b = np.ravel(b) * self.b_scale if grad else np.ravel(b) / self.b_scale  # chain rule
        return np.concatenate([np.ravel(W), np.ravel(V), b])

    def _linear(self, theta):
        """``X W + S V`` (raw features and labels). On large problems the last
        exact products are reused when ``(W, V)`` lies on the line through two of
        them (FISTA's extrapolated points), which saves one product per iteration."""
        d, L = self.d, self.L
        wv = theta[: d * L + L * L]
        if self._use_cache and len(self._cache) >= 2:
            w2, Z2 = self._cache[-1]
            scale = np.abs(wv).max() + 1e-300
            for w1, Z1 in self._cache[:-1]:
                D = w2 - w1
                dd = np.vdot(D, D)
                if dd > 0:
                    beta = np.vdot(wv - w2, D) / dd
                    if np.abs(wv - w2 - beta * D).max() <= 1e-13 * scale:
                        return Z2 + beta * (Z2 - Z1)
        W = wv[: d * L].reshape(d, L)
        Z = (W.T @ self.XT).T if self.dense else np.asarray(self.X @ W)
        if self.use_V:
            Z = Z + self.S @ wv[d * L:].reshape(L, L)
        if self._use_cache:
            self._cache = (self._cache + [(wv.copy(), Z)])[-3:]
        return Z

    def to_internal(self, W, V, b):
        """Pack (W, V, b) with the centred intercept c = b + x_mean W + s_mean V."""
        return self.pack(W, V, b + self.x_mean @ W + self.s_mean @ V)

    def from_internal(self, theta):
        """Unpack to (W, V, b) with the intercept of the raw features and labels."""
        W, V, c = self.unpack(theta)
        return W, V, c - self.x_mean @ W - self.s_mean @ V

    def _margins(self, theta):
        """``M = S * Z`` (labels times logits), shape (n, L)."""
        W, V, c = self.unpack(theta)
        offset = c - self.x_mean @ W
        if self.use_V:
            offset = offset - self.s_mean @ V
        return self.S * (self._linear(theta) + offset)

    @staticmethod
    def _softplus_neg(M, with_sigmoid):
        """``log(1 + exp(-M))`` and optionally ``sigmoid(-M)``, stably, from one exp."""
        E = np.exp(-np.abs(M))
        loss = np.log1p(E)
        loss += np.maximum(-M, 0.0)
        if not with_sigmoid:
            return loss, None
        sig = np.where(M > 0, E, 1.0)
        sig /= 1.0 + E
        return loss, sig

    def _ridge(self, theta):
        d, L = self.d, self.L
        W, V = theta[: d * L], theta[d * L: d * L + L * L]
        return 0.5 * self.lam1 * np.vdot(W, W) + 0.5 * self.lam2 * np.vdot(V, V)

    def f(self, theta):
        loss, _ = self._softplus_neg(self._margins(theta), False)
        return float((loss @ self.col_weight).sum() + self._ridge(theta))

    def f_and_grad(self, theta):
        W, V, _ = self.unpack(theta)
        loss, sig = self._softplus_neg(self._margins(theta), True)
        value = float((loss @ self.col_weight).sum() + self._ridge(theta))
        R = sig  # d loss / d z = -s * sigmoid(-m) * weight, (n, L), computed in place
        R *= -self.S
        R *= self.col_weight
        r = R.sum(axis=0)
        XtR = (R.T @ self.X).T if self.dense else np.asarray(self.XT @ R)
        gW = XtR - np.outer(self.x_mean, r) + self.lam1 * W
        if self.use_V:
            gV = np.where(self.V_mask, self.S.T @ R - np.outer(self.s_mean, r) + self.lam2 * V, 0.0)
        else:
            gV = np.zeros_like(V)
        return value, self.pack(gW, gV, r, grad=True)

    def g(self, theta):
        W, V, _ = self.unpack(theta)
        return self.gamma * float(np.abs(V).sum()) + self.mu * group_l21_norm(W)

    def prox(self, theta, step):
        d, L = self.d, self.L
        out = theta.copy()
        if self.mu > 0:
            out[: d * L] = prox_group_l21(theta[: d * L].reshape(d, L), self.mu * step).ravel()
        V = theta[d * L: d * L + L * L].reshape(L, L)
        out[d * L: d * L + L * L] = np.where(self.V_mask, prox_l1(V, self.gamma * step), 0.0).ravel()
        return out


def _solve(X, S, active, b0, *, lam1, lam2, gamma, mu, use_V, tol, max_iter, warm=None, callback=None):
    """Run FISTA on objective (4); ``warm = (W, V, b, step)`` or None.

    ``callback(n_iter, objective)`` (objective (4) / N) is called after every
    iteration; it may raise to abort the solve.
    """
    problem = _CDNProblem(X, S, active, lam1, lam2, gamma, mu, use_V)
    d, L = problem.d, problem.L
    if warm is None:
        theta0, step0 = problem.to_internal(np.zeros((d, L)), np.zeros((L, L)), b0), 1.0
    else:
        W, V, b, step0 = warm
        theta0 = problem.to_internal(W, np.where(problem.V_mask, V, 0.0), np.where(active, b, b0))

    def report(it, x, F):  # progress only: the fit stops by the tolerance (or an exception)
        callback(it, F)

    res = fista(problem.f_and_grad, problem.prox, theta0, f=problem.f, g=problem.g,
                step0=step0, eta=2.0, rtol=0.0, atol=tol, maxiter=max_iter, restart="adaptive",
                shrink=0.9, norm="max", callback=None if callback is None else report)
    W, V, b = problem.from_internal(res.x)
    return W.copy(), V.copy(), b.copy(), res


def gibbs_marginals(linear, V, p_init, n_burn, n_samples, rng):
    """Label marginals of a conditional dependency network by Gibbs sampling.

    Systematic-scan Gibbs sampler, vectorised over instances: one sweep
    updates labels 0, ..., L-1 in turn from
    ``p(y_k = +1 | x, y_-k) = sigma(linear[:, k] + y @ V[:, k])`` (eq. (1)).
    Chains start from a draw of the label-independent probabilities
    ``p_init``. After ``n_burn`` sweeps, the next ``n_samples`` sweeps are
    averaged with the Rao-Blackwellised estimate (the mean of the
    conditional probabilities instead of the 0/1 draws; same expectation
    under the stationary distribution, lower variance).

    Parameters
    ----------
    linear : ndarray, shape (n, L)
        ``X W + b`` (the label-independent part of every logit).
    V : ndarray, shape (L, L)
        Label weights, zero diagonal; ``V[t, k]`` weighs label t (+-1) in label k.
    p_init : ndarray, shape (n, L)
        Probabilities used to draw the initial state.
    n_burn, n_samples : int
        Burn-in sweeps and collected sweeps (``n_samples >= 1``).
    rng : numpy.random.Generator

    Returns
    -------
    marginals : ndarray, shape (n, L)
        Estimates of P(y_k = 1 | x) under the sampler's stationary distribution.
    """
    n, L = linear.shape
    state = np.where(rng.random((n, L)) < p_init, 1.0, -1.0)
    children = [np.flatnonzero(V[k]) for k in range(L)]
    acc = np.zeros((n, L))
    for sweep in range(n_burn + n_samples):
        U = rng.random((n, L))
        # all logits, recomputed exactly once per sweep and then kept up to date:
        # when label k flips on some rows, only those rows' logits of k's children move.
        Z = linear + state @ V
        for k in range(L):
            p = expit(Z[:, k])
            new = np.where(U[:, k] < p, 1.0, -1.0)
            if children[k].size:
                flipped = np.flatnonzero(new != state[:, k])
                if flipped.size:
                    ch = children[k]
                    Z[np.ix_(flipped, ch)] += np.outer(new[flipped], 2.0 * V[k, ch])
            state[:, k] = new
            if sweep >= n_burn:
                acc[:, k] += p
    return acc / n_samples
