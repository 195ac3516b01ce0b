"""Objective (4) of the sparse CDN on a flat parameter vector and its solve (per-label L-BFGS,
FISTA; Guo & Xue, IJCAI 2013). Private helpers of :mod:`mlviz.models.cdn`; the inference (Gibbs
sampling, exact marginals) is in :mod:`mlviz.models._cdn_inference`.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ..solvers.column_lbfgs import column_lbfgs
from ..solvers.fista import FistaResult, fista
from ..solvers.prox import group_l21_norm, prox_group_l21, prox_l1

__all__ = ["_CDNProblem", "_solve"]


#: above this largest eigenvalue of the Jacobi-scaled Gram matrix the preconditioner is damped
_JACOBI_MAX_EIG = 100.0
#: bytes of one block of the margins in the loss (see ``_CDNProblem._loss``)
_BLOCK_BYTES = 1 << 20


def _jacobi_eig(X, x_mean, x_var, q, lam, n_iter=30):
    """Largest eigenvalue of ``D (q Xc^T Xc / n + lam I) D``, ``D = (q var(x) + lam)^-1/2``
    (the feature block of the label-independent Hessian at p(1-p) = q, centred features,
    Jacobi-scaled: unit diagonal), by power iteration from a fixed start (deterministic);
    O(nnz(X)) per step."""
    n, d = X.shape
    if d == 0 or n == 0:
        return 1.0
    D = 1.0 / np.sqrt(np.maximum(q * x_var + lam, 1e-300))
    v = 1.0 + 0.5 * np.cos(np.arange(d))
    v /= np.linalg.norm(v)
    eig = 1.0
    for _ in range(int(n_iter)):
        u = D * v
        w = np.asarray(X @ u).ravel() - x_mean @ u
        g = (np.asarray(X.T @ w).ravel() - x_mean * w.sum()) * (q / n) + lam * u
        g *= D
        eig = float(np.linalg.norm(g))
        if not eig > 0:
            return 1.0
        v = g / eig
    return eig


class _CDNProblem:
    """Smooth part f, non-smooth part g and prox of objective (4), on a flat theta.

    ``theta = [(W / w_scale).ravel() (d*L), (V / v_scale).ravel() (L*L), c / b_scale (L)]``
    (diagonal preconditioning, see ``__init__``) where
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
            # X^T R through the CSC view of X^T (no copy): ~1.8x faster than a CSR copy of
            # X^T on bag-of-words shapes (measured, 4.9k x 1,836, 159 labels)
            self.XT = X.T
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
        #: no non-smooth term: the l1 weight only acts on V entries that are free, l2,1 on W
        self.smooth = mu == 0 and (gamma == 0 or not self.use_V)
        # The intercept is stored as b / b_scale: a fixed linear change of variables of
        # an unpenalised block (FISTA's guarantees are unchanged) that gives rare labels'
        # intercepts a curvature comparable to the other coordinates (p(1-p) * scale^2 ~ 1).
        freq = (S > 0).mean(axis=0)  # label frequencies (exact counts / n)
        p = np.clip(freq, 1.0 / self.n, 1.0 - 1.0 / self.n)
        self.b_scale = 1.0 / np.sqrt(p * (1.0 - p))
        self.x_mean = np.asarray(X.mean(axis=0)).ravel()
        self.s_mean = S.mean(axis=0)
        # standard deviations of the centred features / labels: the data scale of the
        # stopping rule (see kkt_scale)
        x_sq = np.asarray((X.multiply(X) if sp.issparse(X) else X * X).mean(axis=0)).ravel()
        self.x_std = np.sqrt(np.maximum(x_sq - self.x_mean ** 2, 0.0))
        self.s_std = 2.0 * np.sqrt(freq * (1.0 - freq))  # = S.std(axis=0) for +-1 labels, without a pass over S
        self._scale = None
        self.lam1, self.lam2, self.gamma, self.mu = lam1, lam2, gamma, mu
        # Diagonal preconditioning (a fixed linear change of variables, like b_scale):
        # W = theta_W * w_scale, V = theta_V * v_scale with the scales the inverse square roots
        # of the Hessian diagonal at p = label frequency, p(1-p) var(x_j) + lam. Sparse text
        # features have variances spread over orders of magnitude, so one step size for all
        # coordinates (plain FISTA) is set by the frequent words and the rare ones move
        # ~1000x too slowly. With mu > 0 the scale is one per feature row (the largest over
        # labels), which keeps the l2,1 prox in closed form (a weighted group norm).
        # Jacobi scaling fails where many rare features occur together (raw word counts of
        # e-mails: every rare word of a document gets curvature ~1, and the document's
        # direction sums them): the largest eigenvalue of the Jacobi-scaled Gram matrix is
        # then in the hundreds and the one step size is that much too small elsewhere.
        # Measured (enron raw: 404, enron L2 rows: 10-47, bibtex-shaped: <= 4), above
        # _JACOBI_MAX_EIG the scaling is damped to the 1/4 power of the Hessian diagonal.
        q = p * (1.0 - p)
        self.precond_eig = _jacobi_eig(X, self.x_mean, self.x_std ** 2, float(q.max(initial=0.25)), lam1)
        expo = 0.5 if self.precond_eig <= _JACOBI_MAX_EIG else 0.25
        hW = np.outer(self.x_std ** 2, q) + lam1
        if mu > 0:
            hW = hW.max(axis=1, keepdims=True)
        hV = np.outer(self.s_std ** 2, q) + lam2
        self.w_scale = 1.0 / np.maximum(hW, 1e-12) ** expo
        self.v_scale = 1.0 / np.maximum(hV, 1e-12) ** expo
        # +-1 labels as 0/1 sparse products when the label matrix is sparse: S V = 2 Y V - 1 sum(V)
        self.Ysp = sp.csr_matrix(S > 0, dtype=float) if (S > 0).mean() < 0.25 else None
        if self.Ysp is not None:
            self.YspT = self.Ysp.T.tocsr()
        self._cache = []
        work = X.nnz if sp.issparse(X) else X.size
        self.work = work * self.L  # multiply-adds of one product X W
        self._use_cache = self.work > 2_000_000

    def unpack(self, theta):
        d, L = self.d, self.L
        W = theta[: d * L].reshape(d, L) * self.w_scale
        V = theta[d * L: d * L + L * L].reshape(L, L) * self.v_scale
        return W, V, theta[d * L + L * L:] * self.b_scale

    def pack(self, W, V, b, grad=False):
        if grad:  # chain rule
            W, V, b = W * self.w_scale, V * self.v_scale, np.ravel(b) * self.b_scale
        else:
            W, V, b = W / self.w_scale, V / self.v_scale, np.ravel(b) / self.b_scale
        return np.concatenate([np.ravel(W), np.ravel(V), b])

    def _add_SV(self, Z, V):
        """``Z += S @ V`` in place (S = 2Y - 1), over the columns of V with a non-zero entry only:
        the l1 penalty keeps V sparse (a few dozen edges near γ_max; none in the start model),
        so the product costs nnz(Y) per used column instead of nnz(Y) · L."""
        cols = np.flatnonzero(np.any(V != 0.0, axis=0))
        if cols.size == 0:
            return Z
        used = slice(None) if cols.size == V.shape[1] else cols  # (a slice: no copy of Z's columns)
        Vc = V[:, used]
        Z[:, used] += self.S @ Vc if self.Ysp is None else 2.0 * (self.Ysp @ Vc) - Vc.sum(axis=0)
        return Z

    def _StR(self, R):
        """``S.T @ R``."""
        if self.Ysp is None:
            return self.S.T @ R
        return 2.0 * (self.YspT @ R) - R.sum(axis=0)

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
        W = wv[: d * L].reshape(d, L) * self.w_scale
        Z = (W.T @ self.XT).T if self.dense else np.asarray(self.X @ W)
        if self.use_V:
            Z = self._add_SV(Z, wv[d * L:].reshape(L, L) * self.v_scale)  # (Z is a fresh product)
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

    def _offset(self, theta):
        """The intercept of the raw features and labels, ``c - x_mean W - s_mean V``, shape (L,)."""
        W, V, c = self.unpack(theta)
        offset = c - self.x_mean @ W
        if self.use_V:
            offset = offset - self.s_mean @ V
        return offset

    @staticmethod
    def _softplus_neg(M, with_sigmoid):
        """``log(1 + exp(-M))`` and optionally ``sigmoid(-M)``, stably, from one exp."""
        A = np.abs(M)
        E = np.exp(-A)
        loss = np.log1p(E)
        A -= M  # max(-M, 0) = (|M| - M) / 2
        A *= 0.5
        loss += A
        if not with_sigmoid:
            return loss, None
        sig = np.where(M > 0, E, 1.0)
        sig /= 1.0 + E
        return loss, sig

    def _blocks(self, Z):
        """Slices of ``Z`` (n, L) of about :data:`_BLOCK_BYTES` each, along its contiguous axis."""
        n, L = Z.shape
        if Z.flags.f_contiguous and not Z.flags.c_contiguous:
            step = max(1, _BLOCK_BYTES // (8 * max(n, 1)))
            return [(slice(None), slice(j, j + step)) for j in range(0, L, step)]
        step = max(1, _BLOCK_BYTES // (8 * max(L, 1)))
        return [(slice(i, i + step), slice(None)) for i in range(0, n, step)]

    def _loss(self, theta, with_grad):
        """Loss column sums (L,), and with ``with_grad`` the residual ``R = dloss/dz`` (n, L)
        and the per-label sum of ``sigmoid(-M)^2`` (L,).

        Computed by blocks of the margins (:meth:`_blocks`): the dozen elementwise passes of
        :meth:`_softplus_neg` then run on cache-sized arrays instead of a 10k x 1k matrix each
        (about 2x faster at 983 labels, RESULTS.md); entry by entry the same operations.
        """
        Z = self._linear(theta)
        offset = self._offset(theta)
        L = Z.shape[1]
        sums = np.zeros(L)
        R = np.empty_like(Z) if with_grad else None
        sig_sq = np.zeros(L) if with_grad else None
        for rows, cols in self._blocks(Z):
            Sb = self.S[rows, cols]
            M = Z[rows, cols] + offset[cols]
            M *= Sb
            loss, sig = self._softplus_neg(M, with_grad)
            sums[cols] += loss.sum(axis=0)
            if with_grad:
                sig_sq[cols] += np.einsum("ij,ij->j", sig, sig)
                sig *= Sb  # d loss / d z = -s * sigmoid(-m) * weight
                np.multiply(sig, -self.col_weight[cols], out=R[rows, cols])
        return sums, R, sig_sq

    def _ridge(self, theta):
        W, V, _ = self.unpack(theta)
        return 0.5 * self.lam1 * np.vdot(W, W) + 0.5 * self.lam2 * np.vdot(V, V)

    def f(self, theta):
        sums, _, _ = self._loss(theta, False)
        return float(sums @ self.col_weight + self._ridge(theta))

    def f_and_grad(self, theta):
        W, V, _ = self.unpack(theta)
        sums, R, sig_sq = self._loss(theta, True)
        value = float(sums @ self.col_weight + self._ridge(theta))
        rr = np.sqrt(sig_sq / self.n)  # rms residual per label
        self._scale = self._make_scale(rr)
        r = R.sum(axis=0)
        XtR = (R.T @ self.X).T if self.dense else np.asarray(self.XT @ R)
        gW = XtR - np.outer(self.x_mean, r) + self.lam1 * W
        if self.use_V:
            gV = np.where(self.V_mask, self._StR(R) - np.outer(self.s_mean, r) + self.lam2 * V, 0.0)
        else:
            gV = np.zeros_like(V)
        return value, self.pack(gW, gV, r, grad=True)

    # ---- the column (per-label) view used by :func:`mlviz.solvers.column_lbfgs`
    @property
    def n_col_V(self):
        """Rows of V in the column view: L, or 0 without label features (V is then fixed at 0, and
        its rows would only carry zeros through the per-label solver's memory and products)."""
        return self.L if self.use_V else 0

    def to_columns(self, theta):
        """Flat theta -> (d + n_col_V + 1, L): column k holds label k's W, V (if used) and intercept
        entries."""
        d, L = self.d, self.L
        parts = [theta[: d * L].reshape(d, L)]
        if self.n_col_V:
            parts.append(theta[d * L: d * L + L * L].reshape(L, L))
        return np.vstack(parts + [theta[d * L + L * L:][None, :]])

    def from_columns(self, M):
        """Inverse of :meth:`to_columns` (V = 0 when the view has no V rows)."""
        d, L, nV = self.d, self.L, self.n_col_V
        V = M[d: d + L].ravel() if nV else np.zeros(L * L)
        return np.concatenate([M[:d].ravel(), V, M[d + nV]])

    def f_and_grad_columns(self, M, cols):
        """Values, gradient and stopping-rule scale of the labels ``cols`` alone.

        Objective (4) separates over labels except for the l2,1 term: label k's smooth part
        (its loss + ridge; they sum to ``f``) depends on column k of :meth:`to_columns` only.
        ``M`` holds those columns, shape (d + n_col_V + 1, len(cols)); returns the values
        (len(cols),), the gradient and the :meth:`kkt_scale` entries, both in the column
        view (without V rows when V is unused: their gradient is 0 and they never move).
        Labels are processed in chunks of ~128k margins (cache-sized elementwise passes,
        as in :meth:`_loss`; memory stays bounded).
        """
        d, L, n, nV = self.d, self.L, self.n, self.n_col_V
        cols = np.asarray(cols)
        values = np.empty(cols.size)
        G = np.empty_like(M)
        SC = np.empty_like(M)
        w_scale = np.broadcast_to(self.w_scale, (d, L))
        tiny = 1e-12 * max(float(self.x_std.max(initial=0.0)), 1.0)
        x_std, s_std = np.maximum(self.x_std, tiny), np.maximum(self.s_std, 1e-12)
        chunk = max(1, (1 << 17) // max(n, 1))
        for lo in range(0, cols.size, chunk):
            sl = slice(lo, lo + chunk)
            c = cols[sl]
            wsc, bsc = w_scale[:, c], self.b_scale[c]
            W = M[:d, sl] * wsc
            Z = np.asarray(self.X @ W)
            offset = M[d + nV, sl] * bsc - self.x_mean @ W
            if nV:
                vsc = self.v_scale[:, c]
                V = M[d: d + L, sl] * vsc
                used = np.flatnonzero(np.any(V != 0.0, axis=0))
                if used.size:
                    Vu = V[:, used]
                    Z[:, used] += self.S @ Vu if self.Ysp is None else 2.0 * (self.Ysp @ Vu) - Vu.sum(axis=0)
                offset = offset - self.s_mean @ V
            Sb = self.S[:, c]
            Z += offset
            Z *= Sb
            loss, sig = self._softplus_neg(Z, True)
            rr = np.maximum(np.sqrt(np.einsum("ij,ij->j", sig, sig) / n), 1e-12)
            sig *= Sb
            sig *= -self.col_weight[c]  # R = d loss / d z
            r = sig.sum(axis=0)
            XtR = (sig.T @ self.X).T if self.dense else np.asarray(self.XT @ sig)
            G[:d, sl] = (XtR - np.outer(self.x_mean, r) + self.lam1 * W) * wsc
            values[sl] = loss.sum(axis=0) * self.col_weight[c] + 0.5 * self.lam1 * np.einsum("jk,jk->k", W, W)
            if nV:
                gV = self._StR(sig) - np.outer(self.s_mean, r) + self.lam2 * V
                G[d: d + L, sl] = np.where(self.V_mask[:, c], gV, 0.0) * vsc
                values[sl] += 0.5 * self.lam2 * np.einsum("tk,tk->k", V, V)
                SC[d: d + L, sl] = np.outer(s_std, rr) * vsc
            G[d + nV, sl] = r * bsc
            SC[:d, sl] = np.outer(x_std, rr) * wsc
            SC[d + nV, sl] = rr * bsc
        return values, G, SC

    def column_l1(self):
        """The l1 weights of the V entries in the preconditioned coordinates, column view."""
        d, L, nV = self.d, self.L, self.n_col_V
        out = np.zeros((d + nV + 1, L))
        if nV:
            out[d: d + L] = np.where(self.V_mask, self.gamma * self.v_scale, 0.0)
        return out

    def _make_scale(self, rr):
        """Cauchy-Schwarz bound of every gradient entry of the mean loss, as a flat vector.

        ``|d loss / d W_jk| = |mean_i (x_ij - xbar_j) r_ik| <= std(x_j) rms(r_k)`` (likewise
        for V with the labels and for the scaled intercept with ``b_scale``): dividing the
        gradient mapping by it gives a scale-free KKT residual (a correlation between
        features and residuals), which neither the feature units nor a nearly separable fit
        (tiny residuals, hence tiny gradients) can make small by themselves.
        """
        rr = np.maximum(rr, 1e-12)
        tiny = 1e-12 * max(float(self.x_std.max(initial=0.0)), 1.0)
        sW = np.outer(np.maximum(self.x_std, tiny), rr)
        sV = np.outer(np.maximum(self.s_std, 1e-12), rr)
        # in the preconditioned coordinates the gradient mapping is the original one times
        # the scales (chain rule), hence the same scaled KKT measure
        return np.concatenate([(sW * self.w_scale).ravel(), (sV * self.v_scale).ravel(), rr * self.b_scale])

    def kkt_scale(self, y):
        """Scale for :func:`fista`'s stopping rule at the last gradient point (``y``)."""
        return self._scale

    def g(self, theta):
        W, V, _ = self.unpack(theta)
        return self.gamma * float(np.abs(V).sum()) + self.mu * group_l21_norm(W)

    def prox(self, theta, step):
        d, L = self.d, self.L
        out = theta.copy()
        if self.mu > 0:  # mu ||W_j|| = mu w_scale_j ||theta_j||: a weighted group norm
            out[: d * L] = prox_group_l21(theta[: d * L].reshape(d, L),
                                          self.mu * step * self.w_scale[:, 0]).ravel()
        V = theta[d * L: d * L + L * L].reshape(L, L)
        out[d * L: d * L + L * L] = np.where(self.V_mask, prox_l1(V, self.gamma * step * self.v_scale),
                                             0.0).ravel()
        return out


def _use_column(problem):
    """Whether step 2 of :func:`_solve` is the per-label L-BFGS (else FISTA does it all).

    The per-label L-BFGS needs 2-4x fewer iterations than FISTA but each costs ~3 ms more of
    bookkeeping, which small problems do not repay; FISTA is slow only where the Jacobi
    preconditioner had to be damped (co-occurring rare raw features) or on large problems.
    """
    if _SOLVER != "auto":
        return _SOLVER == "column"
    return not (problem.precond_eig <= _JACOBI_MAX_EIG and problem.work <= _FISTA_MAX_WORK)


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

    # the callback is progress only: the fit stops by the tolerance (or an exception)
    parts, done = [], 0

    def run_fista(theta, maxiter, offset, quiet=False, start=None):
        with warnings.catch_warnings():
            if quiet:
                warnings.simplefilter("ignore", ConvergenceWarning)
            return fista(problem.f_and_grad, problem.prox, theta, f=problem.f, g=problem.g,
                         step0=step0, eta=2.0, rtol=0.0, atol=tol, maxiter=max(1, maxiter),
                         restart="adaptive", shrink=0.9, norm="max", scale=problem.kkt_scale,
                         callback=None if callback is None else lambda it, x, F: callback(it + offset, F),
                         start=start)

    res, start = None, None
    W0 = theta0[: d * L]
    if mu > 0 and not np.any(W0):
        # 1. a cold start with the l2,1 term: W = 0 is a kink of every row; two proximal
        #    steps open the rows whose KKT test at 0 fails (the prox decides that exactly)
        res = run_fista(theta0, min(_OPEN_ITERS, max_iter), 0, quiet=True)
        parts.append(res)
        theta0, done = res.x, res.n_iter
    if (res is None or not res.converged) and done < max_iter and _use_column(problem):
        # 2. per-label L-BFGS (OWL-QN on the l1 entries, the l2,1 term majorised), each
        #    label with its own curvature model and step: objective (4) separates over labels
        #    except for the l2,1 term (solvers.column_lbfgs)
        nV = problem.n_col_V  # (the column view has no V rows when V is unused)
        fixed = np.zeros((d + nV + 1, L), dtype=bool)
        fixed[d: d + nV] = ~problem.V_mask[:nV]
        group = (np.concatenate([mu * problem.w_scale[:, 0], np.zeros(nV + 1)]) if mu > 0 else None)
        l1 = problem.column_l1() if (gamma > 0 and problem.use_V) else None
        cb = None if callback is None else (lambda it, F, o=done: callback(it + o, F))
        col = column_lbfgs(problem.f_and_grad_columns, problem.to_columns(theta0), l1=l1, group=group,
                           fixed=fixed,
                           tol=tol if problem.smooth else _COLUMN_TOL * tol,
                           maxiter=max(1, max_iter - done - (0 if problem.smooth else 1)),
                           memory=_LBFGS_MEMORY, patience=_COLUMN_PATIENCE, callback=cb)
        theta0 = problem.from_columns(col.x)
        res = FistaResult(x=theta0, n_iter=col.n_iter, converged=problem.smooth and col.converged,
                          objective_history=col.objective_history, grad_mapping_norm=col.kkt, step=step0,
                          n_f_evals=col.n_f_evals, message=col.message)
        parts.append(res)
        done += col.n_iter
        start = _column_start(problem, col)
    if res is None or (not res.converged and done < max_iter):
        # 3. proximal gradient to finish: certifies the zero rows of W and entries of V
        #    (and any remaining residual) by the gradient-mapping rule of ``tol``; the three
        #    steps share the budget of ``max_iter`` iterations. It starts where step 2 stopped,
        #    with step 2's last evaluation there (the same value, gradient and scale).
        res = run_fista(theta0, max_iter - done, done, start=start)
        parts.append(res)
    if len(parts) > 1:
        res = FistaResult(x=res.x, n_iter=sum(p.n_iter for p in parts), converged=res.converged,
                          objective_history=np.concatenate([parts[0].objective_history]
                                                           + [p.objective_history[1:] for p in parts[1:]]),
                          grad_mapping_norm=res.grad_mapping_norm, step=res.step,
                          n_f_evals=sum(p.n_f_evals for p in parts), message=res.message)
    W, V, b = problem.from_internal(res.x)
    return W.copy(), V.copy(), b.copy(), res


def _column_start(problem, col):
    """``(f, grad f)`` at the per-label solver's result ``col.x`` in the flat coordinates, from its
    last evaluation there, and ``problem``'s stopping-rule scale set to that point's (what
    :meth:`_CDNProblem.f_and_grad` would compute there, up to rounding: FISTA then needs no
    evaluation at its start)."""
    scale = problem.from_columns(col.scale)
    if not problem.n_col_V:  # (V entries that never move: any positive scale gives them 0)
        d, L = problem.d, problem.L
        scale[d * L: d * L + L * L] = 1.0
    problem._scale = scale
    return float(col.values.sum()), problem.from_columns(col.grad)


#: L-BFGS memory (pairs of parameter-size vectors per label) of the per-label solver
_LBFGS_MEMORY = 10
#: which solver runs step 2: "auto" (:func:`_use_column`), "column" or "fista" (tests use both)
_SOLVER = "auto"
#: "auto" runs FISTA alone on problems up to this many multiply-adds per product X W (nnz(X) x
#: labels) when the Jacobi preconditioner is undamped; CPU seconds, FISTA / per-label L-BFGS
#: (benchmarks/RESULTS.md, "SparseCDN: the solver by problem size"): medical 0.67-0.94 at
#: 2.5e4-7.6e5 (raw and L2), enron (damped, eigenvalue ~350) 0.95 at 1.5e5 but 3.1-9.2 above
_FISTA_MAX_WORK = 1_000_000
#: the per-label L-BFGS hands over to FISTA when its largest violation has not halved in this
#: many iterations (rows that the l2,1 term zeroes only shrink geometrically under its
#: majoriser; FISTA's prox zeroes them in a step): 30 instead of the solver's 100 cut the
#: paper's strong-penalty grid on enron (200 rows) from 678 to 483 iterations
_COLUMN_PATIENCE = 30
#: proximal steps that open the rows of W on a cold start with the l2,1 term
_OPEN_ITERS = 2
#: the per-label L-BFGS stops at this fraction of ``tol`` when FISTA certifies after it
_COLUMN_TOL = 0.5
