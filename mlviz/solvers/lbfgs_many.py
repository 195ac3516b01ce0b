"""scipy's L-BFGS-B on many independent smooth problems at once, with scipy's own iterates.

:func:`lbfgs_many` takes each problem through exactly the calls of
``scipy.optimize.minimize(method="L-BFGS-B")`` (so the same iterates, e.g. those of
scikit-learn's ``LogisticRegression(solver="lbfgs")``) but advances the problems in
lockstep, so one call of the caller's ``fg`` evaluates every problem that asks for
a point. Unlike :func:`mlviz.solvers.column_lbfgs` (own line search, l1/group
terms) it reproduces scipy's path; it drives scipy's private reverse-communication
routine and falls back to one ``minimize`` per problem without it.
"""

import numpy as np
from scipy.optimize import minimize

__all__ = ["lbfgs_many", "TOL", "MAX_ITER", "FTOL"]

#: scikit-learn's LogisticRegression defaults (tol, max_iter) and scipy's ftol there
TOL = 1e-4
MAX_ITER = 1000
FTOL = 64 * np.finfo(float).eps

#: most problems advanced together by :func:`lbfgs_many`
BLOCK = 64
#: bound on the L-BFGS-B work arrays of one block (2 m + 5 = 25 doubles per unknown of each problem), bytes
BLOCK_BYTES = 64e6


def _setulb():
    """scipy's reverse-communication L-BFGS-B step (``scipy.optimize._lbfgsb.setulb``, scipy >= 1.15), or None."""
    import scipy

    try:
        major, minor = (int(v) for v in scipy.__version__.split(".")[:2])
        from scipy.optimize import _lbfgsb
    except (ImportError, ValueError):
        return None
    return _lbfgsb.setulb if (major, minor) >= (1, 15) and hasattr(_lbfgsb, "setulb") else None


def lbfgs_many(fg, x0s, *, tol=TOL, max_iter=MAX_ITER, ftol=FTOL, maxls=50, maxcor=10,
               maxfun=15000):
    """Minimise independent smooth problems with scipy's L-BFGS-B, their evaluations batched.

    Each problem goes through exactly the calls of
    ``scipy.optimize.minimize(method="L-BFGS-B", jac=True, options=dict(maxiter=max_iter,
    maxls=maxls, gtol=tol, ftol=ftol))`` -- the options of scikit-learn's
    ``LogisticRegression(solver="lbfgs")`` by default -- so it takes the same
    iterates; but the problems advance in lockstep, in blocks of at most :data:`BLOCK` problems
    and :data:`BLOCK_BYTES` of work arrays, and
    ``fg`` evaluates all problems that ask for a point at once (for the links of
    a chain: one sparse matrix product instead of one per link). Without scipy's
    reverse-communication routine (scipy < 1.15) the problems are solved one by one
    with ``scipy.optimize.minimize``.

    Parameters
    ----------
    fg : callable ``fg(which, thetas) -> list of (f, grad)``
        Objective and gradient of the problems ``which`` (indices into ``x0s``) at ``thetas``.
    x0s : list of ndarray
        Starting points (the sizes may differ).

    Returns
    -------
    results : list of (x, n_iter, success, message)
    """
    setulb = _setulb()
    options = {"maxiter": max_iter, "maxls": maxls, "gtol": tol, "ftol": ftol, "maxcor": maxcor, "maxfun": maxfun}
    if setulb is None:
        out = []
        for i, x0 in enumerate(x0s):
            res = minimize(lambda th, i=i: fg([i], [th])[0], x0, method="L-BFGS-B", jac=True, options=options)
            out.append((res.x, int(res.nit), bool(res.success), str(res.message)))
        return out
    out = [None] * len(x0s)
    lo = 0
    while lo < len(x0s):
        hi, size = lo, 0.0
        while hi < len(x0s) and hi - lo < BLOCK and (hi == lo or size + 200.0 * x0s[hi].size <= BLOCK_BYTES):
            size += 200.0 * x0s[hi].size
            hi += 1
        block = list(range(lo, hi))
        for i, r in zip(block, _lockstep(setulb, fg, block, [x0s[i] for i in block], options)):
            out[i] = r
        lo = hi
    return out


def _lockstep(setulb, fg, ids, x0s, options):
    """:func:`lbfgs_many` on one block: scipy's ``_minimize_lbfgsb`` loop, one state per problem."""
    from scipy.optimize._lbfgsb_py import status_messages, task_messages

    m, factr, pgtol = options["maxcor"], options["ftol"] / np.finfo(float).eps, options["gtol"]
    states = []
    for x0 in x0s:
        n = x0.size
        states.append(dict(
            x=np.array(x0, dtype=np.float64), f=0.0, g=np.zeros(n), nit=0, nfev=0, n=n,
            low=np.zeros(n), up=np.zeros(n), nbd=np.zeros(n, np.int32),
            wa=np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m), iwa=np.zeros(3 * n, np.int32),
            task=np.zeros(2, np.int32), ln_task=np.zeros(2, np.int32), lsave=np.zeros(4, np.int32),
            isave=np.zeros(44, np.int32), dsave=np.zeros(29)))
    # scipy evaluates the start once before the first step (ScalarFunction), then reuses it
    for st, (f, g) in zip(states, fg(ids, [st["x"].copy() for st in states])):
        st["f"], st["g"], st["nfev"] = float(f), np.asarray(g, dtype=np.float64), 1
    first = [True] * len(states)
    active = list(range(len(states)))
    while active:
        pending = []
        for k in active:
            st = states[k]
            while True:
                setulb(m, st["x"], st["low"], st["up"], st["nbd"], st["f"], st["g"], factr, pgtol, st["wa"],
                       st["iwa"], st["task"], st["lsave"], st["isave"], st["dsave"], options["maxls"], st["ln_task"])
                task = st["task"]
                if task[0] == 3:
                    if first[k]:  # the start, already evaluated
                        first[k] = False
                        continue
                    pending.append(k)
                    break
                if task[0] == 1:
                    st["nit"] += 1
                    if st["nit"] >= options["maxiter"]:
                        task[0], task[1] = 5, 504
                    elif st["nfev"] > options["maxfun"]:
                        task[0], task[1] = 5, 502
                    continue
                break
        if pending:
            for k, (f, g) in zip(pending, fg([ids[k] for k in pending], [states[k]["x"].copy() for k in pending])):
                st = states[k]
                st["f"], st["g"] = float(f), np.asarray(g, dtype=np.float64)
                st["nfev"] += 1
        active = pending
    results = []
    for st in states:
        task = st["task"]
        ok = task[0] == 4
        results.append((st["x"], st["nit"], bool(ok), status_messages[task[0]] + ": " + task_messages[task[1]]))
    return results
