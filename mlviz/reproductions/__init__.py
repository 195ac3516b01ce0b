"""Paper-reproduction protocols, one module per experiment.

Each module exposes ``run(quick=False, random_state=0, progress=None) ->
pandas.DataFrame`` in long form with the columns of :data:`COLUMNS`
(``paper`` is NaN where the paper gives no number), and ``TITLE`` / ``PROTOCOL``
strings used by the generated report ``docs/reproductions.md``.
``quick=True`` runs a reduced version in well under a minute.
"""

from importlib import import_module

COLUMNS = ["experiment", "dataset", "setting", "method", "measure", "ours", "ours_std", "paper"]

EXPERIMENTS = {
    "lspc-toy": "lspc_toy",
    "lspc-enron": "lspc_enron",
    "cdn-tables": "cdn_tables",
    "mlrh-table": "mlrh_table",
    "mllem-ranking": "mllem_ranking",
    "embedding-baselines": "embedding_baselines",
    "standard-splits": "standard_splits",
    "reference-check": "reference",
}

#: BLAS threads of ``mlviz reproduce`` (threadpoolctl): a threaded BLAS sums in another order, so with the
#: machine's core count a borderline prediction could flip and a table change in its fourth decimal.
REPRODUCE_BLAS_THREADS = 1


def get_experiment(name):
    """Return the module implementing the reproduction ``name``."""
    if name not in EXPERIMENTS:
        raise KeyError(f"unknown experiment {name!r}; choose from {sorted(EXPERIMENTS)}")
    return import_module(f".{EXPERIMENTS[name]}", __name__)
