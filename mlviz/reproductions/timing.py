"""Timing experiments of the LSPC papers, as tidy DataFrames for the dashboard and benchmarks.

- :func:`solver_scaling` — ML-LSPC fit time against the number of labels T for the
  naive Kronecker solve, Kronecker CG and the eigendecomposition solver (Nam et al.
  Fig. 1(b)), on the rotated toy data of Nam et al., §6.1.
- :func:`lspc_vs_klr_timing` — plain LSPC against Gaussian-kernel logistic
  regression (batched Newton–CG) fit time as the training set grows. Simm et al., §4 reports
  LSPC 2–100× faster than KLR solved by L-BFGS; against this Newton–CG solver the lead is
  1.4–1.8× at N ≤ 200 and gone from N = 400 (benchmarks/RESULTS.md, LSPC §4).

Times are wall-clock seconds of one ``fit`` (kernel + solve), best of ``repeats``
runs, on whatever BLAS threads the process has; compare ratios measured in the
same call, not absolute numbers across machines.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from ..data import make_rotated_toy
from ..models import LSPC, MLLSPC
from ..models.klr import KernelLogisticRegression

__all__ = ["solver_scaling", "lspc_vs_klr_timing", "best_time"]


def best_time(fn, repeats=1):
    """Smallest wall-clock time of ``repeats`` calls of ``fn()`` (seconds)."""
    best = np.inf
    for _ in range(max(1, int(repeats))):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return float(best)


def solver_scaling(n_samples=300, label_counts=(2, 4, 6, 8, 10, 12, 16), *,
                   solvers=("naive", "cg", "eig"), n_features=300, lam=0.1, gamma=1.0,
                   cg_rtol=1e-6, naive_max_size=5000, repeats=1, threads=1, quick=False,
                   random_state=0):
    """ML-LSPC fit time against the number of labels for each Sylvester solver.

    Parameters
    ----------
    n_samples : int
        Training points N (= number of kernel centres B).
    label_counts : sequence of int
        Values of T.
    solvers : sequence of {"naive", "cg", "eig"}
    n_features : int
        Dimension D of the rotated toy data.
    lam, gamma : float
        ML-LSPC hyperparameters.
    cg_rtol : float
        Relative residual tolerance of CG (MATLAB ``pcg``'s default is 1e-6).
    naive_max_size : int
        The naive solve is skipped (seconds = NaN) when N·T exceeds this.
    repeats : int
        Best of this many fits.
    threads : int or None
        BLAS threads during the timings (``threadpoolctl``); 1 by default, which
        is the most stable choice on a shared machine. None = leave unchanged.
    quick : bool
        Small sizes for a live dashboard demo (N = 120, T ∈ {2, 4, 8, 12}).
    random_state : int

    Returns
    -------
    pandas.DataFrame
        Columns ``solver, n_labels, seconds, n_samples, note``.
    """
    if quick:
        n_samples, label_counts, n_features = 120, (2, 4, 8, 12), min(n_features, 50)
    with threadpool_limits(limits=threads):
        return _solver_scaling(n_samples, label_counts, solvers, n_features, lam, gamma, cg_rtol,
                               naive_max_size, repeats, random_state)


def _solver_scaling(n_samples, label_counts, solvers, n_features, lam, gamma, cg_rtol,
                    naive_max_size, repeats, random_state):
    rows = []
    for T in label_counts:
        ds = make_rotated_toy(n_samples, n_features, int(T), random_state=random_state)
        for solver in solvers:
            note = ""
            if solver == "naive" and n_samples * T > naive_max_size:
                rows.append(dict(solver=solver, n_labels=int(T), seconds=np.nan,
                                 n_samples=n_samples, note=f"skipped: N*T > {naive_max_size}"))
                continue
            model = MLLSPC(lam=lam, gamma=gamma, solver=solver)
            model.cg_rtol = cg_rtol
            model.cg_maxiter = 20000
            model.naive_max_size = naive_max_size
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                seconds = best_time(lambda: model.fit(ds.X, ds.Y), repeats)
            if solver == "cg":
                info = model.cg_info_[0]
                note = f"{info.n_iter} CG iterations" + ("" if info.converged else " (not converged)")
            rows.append(dict(solver=solver, n_labels=int(T), seconds=seconds,
                             n_samples=n_samples, note=note))
    return pd.DataFrame(rows, columns=["solver", "n_labels", "seconds", "n_samples", "note"])


def lspc_vs_klr_timing(sample_sizes=(100, 200, 400, 800), *, n_labels=5, n_features=20, lam=0.1,
                       klr_lam=1.0, repeats=1, threads=1, quick=False, random_state=0):
    """Fit time of plain LSPC and of kernel logistic regression on the same kernel.

    Parameters
    ----------
    sample_sizes : sequence of int
        Training set sizes N (all points are kernel centres).
    n_labels, n_features : int
        Size of the rotated toy problem (Nam et al., §6.1).
    lam, klr_lam : float
        λ of LSPC and of KLR (KLR: ``λ/2 ||α||²`` with a summed log-loss).
    repeats : int
        Best of this many fits.
    threads : int or None
        BLAS threads during the timings (see :func:`solver_scaling`).
    quick : bool
        Small sizes (N ∈ {50, 100, 200}) for a live dashboard demo.
    random_state : int

    Returns
    -------
    pandas.DataFrame
        Columns ``n_samples, lspc_seconds, klr_seconds, ratio, klr_iterations``
        (``ratio = klr_seconds / lspc_seconds``; ``klr_iterations`` counts Newton
        iterations).  Both models use the exact kernel (``n_centers=None``), as in
        the paper.
    """
    if quick:
        sample_sizes = (50, 100, 200)
    with threadpool_limits(limits=threads):
        return _lspc_vs_klr(sample_sizes, n_labels, n_features, lam, klr_lam, repeats, random_state)


def _lspc_vs_klr(sample_sizes, n_labels, n_features, lam, klr_lam, repeats, random_state):
    rows = []
    for n in sample_sizes:
        ds = make_rotated_toy(int(n), n_features, n_labels, random_state=random_state)
        lspc = LSPC(lam=lam, n_centers=None)
        klr = KernelLogisticRegression(lam=klr_lam, max_iter=2000, tol=1e-6, n_centers=None)
        t_lspc = best_time(lambda: lspc.fit(ds.X, ds.Y), repeats)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t_klr = best_time(lambda: klr.fit(ds.X, ds.Y), repeats)
        rows.append(dict(n_samples=int(n), lspc_seconds=t_lspc, klr_seconds=t_klr,
                         ratio=t_klr / t_lspc, klr_iterations=klr.n_iter_))
    return pd.DataFrame(rows, columns=["n_samples", "lspc_seconds", "klr_seconds", "ratio",
                                       "klr_iterations"])
