"""L-BFGS run column by column, in lockstep: problems that separate over the columns of a matrix.

Minimises

.. math:: F(X) = \\sum_k f_k(X_{:k}) + \\sum_{ik} \\lambda_{ik} |X_{ik}|
          + \\sum_j \\omega_j \\|X_{j:}\\|_2

where the smooth part separates over the columns (``f_k`` depends on column k
only), the l1 term is elementwise and the group term couples the columns of
a row. Each column has its own L-BFGS memory, its own line search and its own
stopping test, but all columns are evaluated together (one call of ``fg`` per
trial step computes every column, so matrix products stay blocked). A joint
L-BFGS or FISTA on the same problem moves every column with one step size and
one curvature model: on a multi-label problem with labels of very different
difficulty the easy labels wait for the hard ones and the hard ones share a
step set by the most curved direction of all (measured on raw enron: joint
FISTA 658 iterations, joint L-BFGS 228, this solver far fewer; see
``benchmarks/RESULTS.md``).

* The l1 term is handled as in OWL-QN (Andrew & Gao 2007): the pseudo-gradient
  replaces the gradient, the direction is kept in the orthant of the
  pseudo-gradient, and trial points are projected onto the orthant of the
  current point (entries that would change sign become 0).
* The group term is majorised at every iteration by the quadratic
  ``omega_j (||x_j||^2 / (2 c_j) + c_j / 2)``, ``c_j = ||X_{j:}||`` at the
  current point (the iteratively-reweighted / MM bound, exact at the current
  point): it is then separable over columns, its gradient equals the group
  term's on every non-zero row, and a decrease of the majoriser is a decrease
  of F. Rows that are zero at the start stay zero (the majoriser is infinite
  there): the caller finishes with a proximal method that can open them.

Every accepted step decreases every moving column's part of the (majorised)
objective by Armijo's rule, so ``F`` is non-increasing along the iterations.
The solver stops when every column's largest scaled pseudo-gradient entry
``|pg_ik| / scale_ik`` is <= ``tol`` (the free rows' KKT residual).

References
----------
J. Nocedal, "Updating quasi-Newton matrices with limited storage", Math. Comp. 35 (1980).
G. Andrew and J. Gao, "Scalable training of L1-regularized log-linear models", ICML 2007
(OWL-QN).
"""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["column_lbfgs", "ColumnLbfgsResult"]


@dataclass
class ColumnLbfgsResult:
    """Outcome of :func:`column_lbfgs`.

    Attributes
    ----------
    x : ndarray, shape (P, K)
    n_iter : int
        Lockstep iterations (the largest number of steps any column took).
    converged : bool
        Every column met the stopping rule.
    objective_history : ndarray
        ``F`` at the start and after every iteration (non-increasing).
    kkt : float
        Largest scaled pseudo-gradient entry at ``x`` (free rows).
    n_f_evals : int
        Calls of ``fg``.
    values, grad, scale : ndarray
        What ``fg`` returned at ``x`` (its smooth values per column, gradient and scale), for a
        solver that continues from ``x``.
    """

    x: np.ndarray
    n_iter: int
    converged: bool
    objective_history: np.ndarray
    kkt: float
    n_f_evals: int = 0
    message: str = field(default="")
    values: np.ndarray = None
    grad: np.ndarray = None
    scale: np.ndarray = None


def _pseudo_gradient(g, x, l1):
    """Minimum-norm subgradient of ``g . x + sum l1 |x|`` (l1 may be None)."""
    if l1 is None:
        return g
    pg = np.where(x > 0, g + l1, np.where(x < 0, g - l1, 0.0))
    zero = x == 0
    pg = np.where(zero & (g + l1 < 0), g + l1, pg)
    pg = np.where(zero & (g - l1 > 0), g - l1, pg)
    return pg


def column_lbfgs(fg, x0, *, l1=None, group=None, fixed=None, tol=1e-3, maxiter=1000, memory=10,
                 patience=100, callback=None):
    """Minimise a column-separable objective with l1 and row-group terms (see module docstring).

    Parameters
    ----------
    fg : callable ``(x_cols, cols) -> (values, grad, scale)``
        For the columns ``cols`` (int array) of the point, given as ``x_cols`` of shape
        (P, len(cols)): their smooth values ``f_k`` (len(cols),), gradient (P, len(cols))
        and the positive scale of every entry's optimality measure (same shape, or None
        for 1). Only the columns still moving are evaluated.
    x0 : ndarray, shape (P, K)
        Start (not modified).
    l1 : ndarray (P, K) of weights >= 0, optional
    group : ndarray (P,) of weights >= 0, optional
        ``omega_j`` of each row.
    fixed : ndarray (P, K) of bool, optional
        Entries held at their start value (e.g. structural zeros).
    tol : float
        Stop when every ``|pg| / scale`` is <= tol on the free entries.
    maxiter : int
    memory : int
        L-BFGS pairs kept per column.
    patience : int
        Stop early ("stalled") when the largest scaled violation has not halved within this
        many iterations: e.g. a row that should be zero only shrinks geometrically under the
        group majoriser, and a proximal method finishes it in a few steps.
    callback : callable ``(it, F)``, optional
        After every iteration; may raise to abort.

    Returns
    -------
    ColumnLbfgsResult
    """
    x = np.array(x0, dtype=float, copy=True)
    P, K = x.shape
    frozen = np.zeros((P, K), dtype=bool) if fixed is None else np.array(fixed, dtype=bool)
    if group is not None:
        group = np.asarray(group, dtype=float)
        frozen |= ((group > 0) & ~np.any(x != 0, axis=1))[:, None]  # zero rows stay zero
    has_l1 = l1 is not None and bool(np.any(l1 > 0))

    def evaluate(z, cols):
        v, gr, scl = fg(z, cols)
        return np.asarray(v, dtype=float), gr, (np.ones_like(gr) if scl is None else scl)

    def penalty(z, cols):
        return (l1[:, cols] * np.abs(z)).sum(axis=0) if has_l1 else np.zeros(z.shape[1])

    def objective(fv, z):
        out = float(fv.sum() + penalty(z, np.arange(K)).sum())
        return out + (float(group @ np.linalg.norm(z, axis=1)) if group is not None else 0.0)

    def measure(x, g, sc):
        """Majoriser weights at x, the majorised gradient, pseudo-gradient, scaled violations."""
        if group is not None:
            c = np.linalg.norm(x, axis=1)
            w = (np.where(c > 0, group / np.where(c > 0, c, 1.0), 0.0))[:, None]
        else:
            w = np.zeros((P, 1))
        gs = g + w * x
        pg = np.where(frozen, 0.0, _pseudo_gradient(gs, x, l1 if has_l1 else None))
        return w, gs, pg, (np.abs(pg) / sc).max(axis=0, initial=0.0)

    fv, g, sc = evaluate(x, np.arange(K))
    n_evals = 1
    history = [objective(fv, x)]
    S = np.zeros((K, memory, P))
    Yd = np.zeros((K, memory, P))
    rho = np.zeros((K, memory))
    slot = 0
    first = np.ones(K, dtype=bool)  # no curvature pair yet: a short steepest-descent step
    stuck = np.zeros(K, dtype=bool)
    gamma0 = np.ones(K)
    converged, kkt, it, stalled = False, np.inf, 0, False
    best = []  # best violation so far, per iteration
    for it in range(1, int(maxiter) + 1):
        w, gs, pg, kkt_cols = measure(x, g, sc)
        kkt = float(kkt_cols.max(initial=0.0))
        best.append(min(kkt, best[-1]) if best else kkt)
        move = (kkt_cols > tol) & ~stuck
        stalled = len(best) > patience and best[-1] > 0.5 * best[-1 - patience]
        if not move.any() or stalled:
            it -= 1
            break
        cols = np.flatnonzero(move)
        everything = cols.size == K
        # two-loop recursion over the moving columns (invalid pairs have rho = 0); the memory
        # is stored per column, (K, memory, P), so a column's pairs are one contiguous block.
        # A slot with no valid pair among these columns (the first iterations: slots not yet
        # filled) adds exactly 0 (a = b = 0) and is skipped; the others are read slot by slot.
        rc = rho[cols]  # (k, memory)
        q = -pg[:, cols].T  # (k, P)
        alphas = []
        order = [i for i in ((slot - 1 - j) % memory for j in range(memory)) if rc[:, i].any()]
        pairs = {i: (S[:, i], Yd[:, i]) if everything else (S[cols, i], Yd[cols, i]) for i in order}
        for i in order:
            Si, Yi = pairs[i]
            a = rc[:, i] * np.einsum("kp,kp->k", Si, q)
            q -= a[:, None] * Yi
            alphas.append(a)
        q *= gamma0[cols, None]
        for i, a in zip(reversed(order), reversed(alphas)):
            Si, Yi = pairs[i]
            b = rc[:, i] * np.einsum("kp,kp->k", Yi, q)
            q += (a - b)[:, None] * Si
        d = np.ascontiguousarray(q.T)
        pgc, xc = pg[:, cols], x[:, cols]
        if has_l1:  # OWL-QN: keep the direction in the pseudo-gradient's orthant
            d = np.where((l1[:, cols] > 0) & (d * pgc >= 0), 0.0, d)
        d[frozen[:, cols]] = 0.0
        slope = np.einsum("pk,pk->k", pgc, d)
        bad = ~(slope < 0)
        if bad.any():  # not a descent direction: forget that column's pairs, steepest descent
            rho[cols[bad]] = 0.0
            first[cols[bad]] = True
            d[:, bad] = -pgc[:, bad]
        orthant = np.sign(np.where(xc != 0, xc, -pgc))
        step = np.where(first[cols], np.minimum(1.0, 1.0 / np.maximum(np.abs(pgc).max(axis=0), 1e-300)), 1.0)
        wc = np.broadcast_to(w, (P, 1))
        sur = fv[cols] + penalty(xc, cols) + 0.5 * np.sum(wc * xc * xc, axis=0)
        xt, fvt, gt, sct = x.copy(), fv.copy(), g.copy(), sc.copy()
        pending = np.ones(cols.size, dtype=bool)
        for _ in range(60):
            idx = np.flatnonzero(pending)
            cc = cols[idx]
            trial = xc[:, idx] + step[idx] * d[:, idx]
            if has_l1:
                trial = np.where((l1[:, cc] > 0) & (np.sign(trial) != orthant[:, idx]), 0.0, trial)
            v, gr, scl = evaluate(trial, cc)
            n_evals += 1
            sur_t = v + penalty(trial, cc) + 0.5 * np.sum(wc * trial * trial, axis=0)
            dec = np.einsum("pk,pk->k", pgc[:, idx], trial - xc[:, idx])
            ok = sur_t <= sur[idx] + 1e-4 * dec + 1e-13 * np.maximum(np.abs(sur[idx]), 1.0)
            acc = cc[ok]
            xt[:, acc], fvt[acc], gt[:, acc], sct[:, acc] = trial[:, ok], v[ok], gr[:, ok], scl[:, ok]
            pending[idx[ok]] = False
            if not pending.any():
                break
            step[idx[~ok]] *= 0.5
        else:  # no decrease found: leave those columns where they were, stop moving them
            stuck[cols[pending]] = True
        s = xt[:, cols] - xc
        yv = (gt[:, cols] + wc * xt[:, cols]) - gs[:, cols]
        sy = np.einsum("pk,pk->k", s, yv)
        yy = np.einsum("pk,pk->k", yv, yv)
        good = (sy > 1e-12 * np.maximum(yy, 1e-300)) & (yy > 0)
        gcols = cols[good]
        S[gcols, slot] = s[:, good].T
        Yd[gcols, slot] = yv[:, good].T
        rho[cols, slot] = np.where(good, 1.0 / np.where(good, sy, 1.0), 0.0)
        gamma0[gcols] = sy[good] / yy[good]
        first[gcols] = False
        slot = (slot + 1) % memory
        x, fv, g, sc = xt, fvt, gt, sct
        history.append(objective(fv, x))
        if callback is not None:
            callback(it, history[-1])
    else:
        kkt = float(measure(x, g, sc)[3].max(initial=0.0))
    converged = kkt <= tol
    return ColumnLbfgsResult(x=x, n_iter=it, converged=bool(converged),
                             objective_history=np.asarray(history), kkt=kkt, n_f_evals=n_evals,
                             message="converged" if converged else ("stalled" if stalled else
                                                                    "maximum number of iterations reached"),
                             values=fv, grad=g, scale=sc)
