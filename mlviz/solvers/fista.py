"""FISTA with backtracking, adaptive restart or monotone steps.

Minimises ``F(x) = f(x) + g(x)`` where ``f`` is convex and smooth (value and
gradient supplied) and ``g`` is convex with a cheap proximal operator (see
:mod:`mlviz.solvers.prox`).

References
----------
A. Beck and M. Teboulle, "A fast iterative shrinkage-thresholding algorithm
for linear inverse problems", SIAM J. Imaging Sci. 2(1), 2009 (FISTA with
backtracking) and "Fast gradient-based algorithms for constrained total
variation image denoising and deblurring", IEEE TIP 18(11), 2009 (MFISTA,
the monotone variant).
B. O'Donoghue and E. Candès, "Adaptive restart for accelerated gradient
schemes", Found. Comput. Math. 15, 2015 (function-value restart).
Y. Guo and W. Xue, IJCAI 2013, Algorithm 1 (the same scheme applied to the
sparse conditional dependency network).
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

__all__ = ["fista", "FistaResult"]

_RESTARTS = ("adaptive", "monotone", None)


@dataclass
class FistaResult:
    """Outcome of :func:`fista`.

    Attributes
    ----------
    x : ndarray
        Solution (same shape as ``x0``).
    n_iter : int
        Number of outer iterations performed.
    converged : bool
        Whether the stopping rule was met before ``maxiter``.
    objective_history : ndarray, shape (n_iter + 1,)
        ``F = f + g`` at the starting point and after every iteration.
    grad_mapping_norm : float
        Norm (``norm`` argument) of the last gradient mapping
        ``(y - prox(y - s grad f(y))) / s``.
    step : float
        Last step size ``s = 1 / L`` (pass it as ``step0`` to warm-start).
    n_restarts : int
        Number of momentum restarts (``restart="adaptive"``).
    n_f_evals : int
        Number of evaluations of ``f`` (with or without gradient).
    """

    x: np.ndarray
    n_iter: int
    converged: bool
    objective_history: np.ndarray
    grad_mapping_norm: float
    step: float
    n_restarts: int = 0
    n_f_evals: int = 0
    message: str = field(default="")

    @property
    def fun(self):
        """Final objective value ``F(x)``."""
        return float(self.objective_history[-1])


def fista(f_and_grad, prox, x0, *, f=None, g=None, step0=1.0, eta=2.0, rtol=1e-6,
          atol=0.0, maxiter=1000, restart="adaptive", shrink=1.0, norm="l2", scale=None,
          callback=None, start=None):
    """Minimise ``f(x) + g(x)`` by FISTA with backtracking (Algorithm 1).

    Each iteration takes a proximal gradient step from the extrapolated point
    ``y``: ``z = prox(y - s * grad f(y), s)`` with ``s = 1 / L``, where ``L``
    is multiplied by ``eta`` until the quadratic upper bound (8) holds,
    ``f(z) <= f(y) + <grad f(y), z - y> + L/2 ||z - y||^2`` (step 2 of
    Algorithm 1; ``L`` never decreases, as in the paper). Momentum follows
    ``alpha_{t+1} = (1 + sqrt(1 + 4 alpha_t^2)) / 2``.

    Parameters
    ----------
    f_and_grad : callable ``x -> (float, ndarray)``
        Smooth part and its gradient (same shape as ``x``).
    prox : callable ``(v, s) -> ndarray``
        Proximal operator of ``s * g`` evaluated at ``v``.
    x0 : ndarray of any shape
        Starting point (warm start); never modified. Flat vectors and
        structured arrays are treated alike (inner products use ``np.vdot``).
    f : callable ``x -> float``, optional
        Value of the smooth part alone (cheaper than ``f_and_grad`` when the
        gradient is expensive; used in the backtracking test).
    g : callable ``x -> float``, optional
        Value of the non-smooth part, for the objective history and the
        restart/monotone tests; ``None`` means ``g = 0``.
    step0 : float > 0
        Initial step ``1 / L_0``.
    eta : float > 1
        Backtracking factor (``L <- eta * L``).
    rtol, atol : float >= 0
        Stop when the gradient-mapping norm ``||(y - z) / s||`` (a first-order
        optimality measure, zero exactly at a minimiser: for ``g = 0`` it is the
        gradient, in general the KKT residual of the composite problem) is at
        most ``atol + rtol * G_1``, ``G_1`` being its value at the first
        iteration. Prefer ``atol`` with a ``scale``: a relative rule (``rtol``)
        accepts any point when the first step is already small.
    norm : {"l2", "max"}, default "l2"
        Norm of the gradient mapping in the stopping rule: Euclidean, or the
        largest absolute entry (the ``gtol`` rule of L-BFGS-B, hence of
        scikit-learn's ``lbfgs`` solvers, which stop when the largest entry of
        the projected gradient is <= tol). ``"max"`` does not grow with the
        number of parameters.
    maxiter : int
        Maximum number of iterations; a ``ConvergenceWarning`` is issued if
        the rule is not met by then.
    restart : {"adaptive", "monotone", None}
        ``"adaptive"``: when ``F`` would increase (by more than round-off,
        ``1e-13 |F|``), the step is rejected and the momentum reset
        (function-value restart), so the history is non-increasing up to
        round-off; when the momentum ``z - x`` points against the gradient
        mapping (``<y - z, z - x> > 0``) the step is kept and the momentum
        reset (gradient restart, O'Donoghue & Candès eq. (12)), which keeps
        working where ``F`` differences are below round-off. ``"monotone"``: MFISTA (keeps the better of the new
        and old points, momentum continues). ``None``: plain FISTA (the
        objective may oscillate).
    shrink : float in (0, 1], default 1.0
        ``L`` is multiplied by ``shrink`` before each backtracking search, so
        the step can grow again where the local curvature is lower. ``1.0``
        is the paper's non-decreasing ``L``; values < 1 usually need fewer
        iterations (the decrease test and adaptive restart keep it stable).
        A shrink is undone when the decrease test was decided by its
        round-off slack (quadratic term below ``1e-12 |f|``), which says
        nothing about the curvature.
    scale : None, ndarray or callable ``y -> ndarray``, optional
        Divide the gradient mapping elementwise by ``scale`` (positive,
        broadcastable to ``x``) before taking its norm, i.e. stop on a
        *relative* KKT residual. A callable is called after each gradient
        evaluation with the point ``y`` where the gradient was taken (e.g. to
        scale by the current residual size, as the sparse CDN does).
    callback : callable ``(it, x, F) -> bool or None``, optional
        Called after every iteration; returning ``True`` stops the solver.
    start : tuple ``(f(x0), grad f(x0))``, optional
        The smooth part and its gradient at ``x0`` when the caller has them already (e.g.
        from the solver that produced ``x0``): ``f_and_grad`` is then not called at ``x0``.
        A callable ``scale`` must already describe ``x0`` (it is called with ``x0``).

    Returns
    -------
    result : FistaResult

    Examples
    --------
    >>> from mlviz.solvers.prox import prox_l1
    >>> A = np.array([[1.0, 0.0], [0.0, 2.0]]); b = np.array([3.0, 0.1])
    >>> fg = lambda x: (0.5 * np.sum((A @ x - b) ** 2), A.T @ (A @ x - b))
    >>> res = fista(fg, lambda v, s: prox_l1(v, 1.0 * s), np.zeros(2),
    ...             g=lambda x: np.abs(x).sum(), rtol=0, atol=1e-10)
    >>> np.allclose(res.x, [2.0, 0.0])
    True
    """
    if restart not in _RESTARTS:
        raise ValueError(f"restart must be one of {_RESTARTS}, got {restart!r}.")
    if not step0 > 0 or not eta > 1:
        raise ValueError("step0 must be > 0 and eta > 1.")
    if norm not in ("l2", "max"):
        raise ValueError(f"norm must be 'l2' or 'max', got {norm!r}.")
    if not 0 < shrink <= 1:
        raise ValueError("shrink must be in (0, 1].")
    if f is None:
        def f(x):
            return f_and_grad(x)[0]
    if g is None:
        def g(x):
            return 0.0

    x = np.array(x0, dtype=float, copy=True)
    L = 1.0 / float(step0)
    fy, grady = f_and_grad(x) if start is None else start
    fy = float(fy)
    n_evals = 1 if start is None else 0
    Fx = fy + float(g(x))
    history = [Fx]
    y = x
    alpha = 1.0
    G1 = None
    n_restarts = 0
    converged = False
    stopped = False
    Gnorm = np.inf
    it = 0
    for it in range(1, int(maxiter) + 1):
        # -- backtracking on L (step 2 of Algorithm 1)
        L_prev = L
        L *= shrink
        slack = 1e-12 * max(1.0, abs(fy))
        while True:
            s = 1.0 / L
            z = prox(y - s * grady, s)
            d = z - y
            fz = float(f(z))
            n_evals += 1
            quad = 0.5 * L * np.vdot(d, d)
            if fz <= fy + np.vdot(grady, d) + quad + slack or L > 1e300:
                break
            L *= eta
        if quad <= slack and L < L_prev:
            # the test was decided by the round-off slack, not by the curvature: it says
            # nothing about a larger step, so keep the last informative L (otherwise
            # ``shrink`` lets the step grow without bound near the optimum, and the
            # iterates oscillate at the level where f differences fall below rounding)
            L = L_prev
            s = 1.0 / L
            z = prox(y - s * grady, s)
            d = z - y
            fz = float(f(z))
            n_evals += 1
        ds = d if scale is None else d / (scale(y) if callable(scale) else scale)
        Gnorm = L * float(np.sqrt(np.vdot(ds, ds)) if norm == "l2" else np.abs(ds).max(initial=0.0))
        if G1 is None:
            G1 = Gnorm
        Fz = fz + float(g(z))
        ftol = 1e-13 * max(1.0, abs(Fx))  # F differences below this are round-off
        if Gnorm <= atol + rtol * G1:
            # z is the point certified by the gradient mapping: return it (the history may
            # then rise by round-off, at most ``ftol``, since z is at the optimum's level)
            if restart is None or Fz <= Fx + ftol:
                x, Fx = z, Fz
            history.append(Fx)
            converged = True
            break
        # -- momentum / restart (step 3)
        alpha_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * alpha * alpha))
        if restart == "monotone":
            if Fz <= Fx:
                x_new, F_new = z, Fz
            else:
                x_new, F_new = x, Fx
            y_next = x_new + (alpha / alpha_next) * (z - x_new) + ((alpha - 1.0) / alpha_next) * (x_new - x)
        elif restart == "adaptive" and Fz > Fx + ftol and alpha > 1.0:
            x_new, F_new = x, Fx
            alpha_next = 1.0
            y_next = x
            n_restarts += 1
        elif restart == "adaptive" and alpha > 1.0 and np.vdot(y - z, z - x) > 0:
            # gradient restart (O'Donoghue & Candes, eq. (12)): the momentum z - x points
            # uphill (against the gradient mapping); keep z, drop the momentum. Unlike the
            # function-value test it still works where F differences are below round-off.
            x_new, F_new = z, Fz
            alpha_next = 1.0
            y_next = z
            n_restarts += 1
        else:
            x_new, F_new = z, Fz
            y_next = z + ((alpha - 1.0) / alpha_next) * (z - x)
        x, Fx, alpha = x_new, F_new, alpha_next
        history.append(Fx)
        if callback is not None and callback(it, x, Fx):
            stopped = True
            break
        y = y_next
        fy, grady = f_and_grad(y)
        fy = float(fy)
        n_evals += 1

    message = "converged" if converged else (
        "stopped by callback" if stopped else "maximum number of iterations reached")
    if not converged and not stopped:
        warnings.warn(
            f"FISTA did not converge in {maxiter} iterations (gradient-mapping norm "
            f"{Gnorm:.3g} > tolerance {atol + rtol * (G1 or 0.0):.3g}); increase max_iter "
            "or loosen the tolerance.",
            ConvergenceWarning,
            stacklevel=2,
        )
    return FistaResult(
        x=x, n_iter=it, converged=converged, objective_history=np.asarray(history),
        grad_mapping_norm=Gnorm, step=1.0 / L, n_restarts=n_restarts, n_f_evals=n_evals,
        message=message,
    )
