"""UI-free numerical solvers with scipy-style signatures.

- ``sylvester`` : A X + X C = B by eigendecompositions, Kronecker CG, naive dense solve
- ``fista``     : FISTA with backtracking and restart (+ ``prox``: proximal operators)
- ``eigen``     : (generalized) symmetric eigenproblems for graph embeddings
- ``esp``       : elementary-symmetric-polynomial DP (log partition function, marginals, WTA)
- ``multinomial`` : L-BFGS for ℓ2 multinomial logistic regression (float32 products far from the optimum)
- ``lbfgs_many`` : scipy's L-BFGS-B on many independent problems in lockstep (scipy's iterates)

No model code lives here. Names are imported lazily.
"""

from importlib import import_module

_LAZY = {
    # sylvester.py
    "solve_sylvester_eig": "sylvester",
    "solve_sylvester_cg": "sylvester",
    "solve_sylvester_naive": "sylvester",
    "SymmetricEig": "sylvester",
    # fista.py / prox.py
    "fista": "fista",
    "FistaResult": "fista",
    "prox_l1": "prox",
    "prox_group_l21": "prox",
    "prox_identity": "prox",
    # eigen.py
    "laplacian_eigenmap": "eigen",
    # esp.py
    "log_esp": "esp",
    "log_partition": "esp",
    "esp_marginals": "esp",
    "best_subset": "esp",
    # multinomial.py
    "multinomial_lbfgs": "multinomial",
    "multinomial_objective": "multinomial",
    "MultinomialResult": "multinomial",
    # lbfgs_many.py
    "lbfgs_many": "lbfgs_many",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        module = import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
