"""The bundled Mulan data sets in ``sample_data/``.

The folder is found next to the package (``<repo>/sample_data``); the
environment variable ``MLVIZ_SAMPLE_DATA`` overrides it.  Parsed data sets
are cached in-process (enron/medical take ~0.1-0.5 s to parse); callers get
copies, so mutating a returned data set never affects the cache.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._errors import DataError
from .arff import load_arff
from .dataset import MultiLabelDataset

__all__ = ["list_samples", "load_sample", "load_sample_split", "load_standard_split", "load_protocol_split",
           "standard_split_rows", "sample_dir", "SAMPLES", "STANDARD_SPLITS"]

#: name -> (ARFF file, Mulan XML file); "scene" pools the official train and test files.
SAMPLES = {
    "emotions": ("emotions.arff.gz", "emotions.xml"),
    "scene": (None, "scene.xml"),
    "yeast": ("yeast.arff.gz", "yeast.xml"),
    "enron": ("enron.arff.gz", "enron.xml"),
    "medical": ("medical.arff.gz", "medical.xml"),
}
#: Data sets with the standard Mulan train/test files (the protocol of the multi-label literature and of
#: Bogatinovski et al. 2022, Expert Systems with Applications 203:117215): emotions 391/202, enron 1123/579,
#: scene 1211/1196, yeast 1500/917.
STANDARD_SPLITS = ("emotions", "enron", "scene", "yeast")
SAMPLES.update({f"{name}-{half}": (f"{name}-{half}.arff.gz", f"{name}.xml")
                for name in STANDARD_SPLITS for half in ("train", "test")})


def sample_dir() -> Path:
    """Folder holding the bundled data (``$MLVIZ_SAMPLE_DATA`` or ``<repo>/sample_data``)."""
    override = os.environ.get("MLVIZ_SAMPLE_DATA")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / "sample_data"


def _files(name):
    arff_file, xml_file = SAMPLES[name]
    if arff_file is None:
        return [sample_dir() / "scene-train.arff.gz", sample_dir() / "scene-test.arff.gz",
                sample_dir() / xml_file]
    return [sample_dir() / arff_file, sample_dir() / xml_file]


def list_samples() -> list:
    """Names of the bundled data sets whose files are present.

    Returns
    -------
    list of str
        Subset of ``emotions, scene, yeast, enron, medical`` and the standard halves
        ``<name>-train`` / ``<name>-test`` of :data:`STANDARD_SPLITS`.
    """
    return [name for name in SAMPLES if all(path.exists() for path in _files(name))]


def _freeze(ds):
    arrays = [ds.Y] + ([ds.X.data, ds.X.indices, ds.X.indptr] if sp.issparse(ds.X) else [ds.X])
    for array in arrays:
        array.flags.writeable = False
    return ds


@functools.cache
def _cached(name, directory):
    if name == "scene":
        train, test = _cached("scene-train", directory), _cached("scene-test", directory)
        ds = MultiLabelDataset(np.vstack([train.X, test.X]), np.vstack([train.Y, test.Y]),
                               train.feature_names, train.label_names, "scene",
                               ["pooled scene-train (1211) and scene-test (1196)"])
        return _freeze(ds)
    arff_path, xml_path = _files(name)
    ds = load_arff(arff_path, labels=xml_path, name=name)
    ds.notes.append(f"bundled sample {name!r} (Mulan collection; see sample_data/README.md)")
    return _freeze(ds)


def _check_name(name):
    if name not in SAMPLES:
        raise DataError(f"unknown sample {name!r}; expected one of {sorted(SAMPLES)}")
    missing = [str(p) for p in _files(name) if not p.exists()]
    if missing:
        raise DataError(f"sample files missing: {missing} (set MLVIZ_SAMPLE_DATA?)", source=name)


def load_sample(name: str) -> MultiLabelDataset:
    """Load a bundled data set (a fresh, writable copy of a cached parse).

    Parameters
    ----------
    name : str
        A key of :data:`SAMPLES`: ``emotions``, ``scene``, ``yeast``, ``enron``, ``medical``, or a
        standard half such as ``emotions-train``. ``"scene"`` pools the official train and test
        files (2407 rows).

    Returns
    -------
    MultiLabelDataset
        Labels in Mulan XML order with the XML's names; enron and medical
        have sparse CSR ``X``.
    """
    _check_name(name)
    return _cached(name, str(sample_dir())).copy()


def load_sample_split(name: str, random_state=0):
    """Train/test split of a bundled data set.

    ``"scene"`` returns the official split (scene-train 1211, scene-test 1196);
    every other name a seeded split: a permutation from
    ``numpy.random.default_rng(random_state)``, the first ``round(2 n / 3)``
    rows for training, the rest for testing.

    Parameters
    ----------
    name : str
    random_state : int or None, default 0

    Returns
    -------
    train, test : MultiLabelDataset
    """
    if name == "scene":
        return load_sample("scene-train"), load_sample("scene-test")
    ds = load_sample(name)
    return split_dataset(ds, random_state=random_state)


def load_standard_split(name: str):
    """The standard Mulan train/test files of a bundled data set.

    Parameters
    ----------
    name : {"emotions", "enron", "scene", "yeast"}

    Returns
    -------
    train, test : MultiLabelDataset

    Raises
    ------
    DataError
        A data set without standard files.
    """
    if name not in STANDARD_SPLITS:
        raise DataError(f"no standard train/test split is bundled for {name!r}; expected one of {STANDARD_SPLITS}")
    return load_sample(f"{name}-train"), load_sample(f"{name}-test")


def load_protocol_split(name: str, random_state=0):
    """The train/test split the benchmarks compare on: the standard Mulan files where they are bundled
    (:func:`load_standard_split`), else the seeded split of :func:`load_sample_split` (e.g. medical).

    Parameters
    ----------
    name : str
    random_state : int or None, default 0
        Seed of the split for a data set without standard files.

    Returns
    -------
    train, test : MultiLabelDataset
    """
    if name in STANDARD_SPLITS:
        return load_standard_split(name)
    return load_sample_split(name, random_state=random_state)


def standard_split_rows(name: str):
    """Where the rows of the standard train and test files sit in the bundled data set ``name``.

    emotions and scene hold the training file's rows, then the test file's; enron and yeast hold
    the same rows in another order. Found by matching each row (features and labels); identical
    rows are interchangeable and are matched in order.

    Parameters
    ----------
    name : {"emotions", "enron", "scene", "yeast"}

    Returns
    -------
    train_idx, test_idx : int ndarray
        ``load_sample(name)`` indexed by them gives the training and the test file, row for row
        (their order, not sorted); together a permutation of its rows.

    Raises
    ------
    DataError
        A data set without standard files, or files whose rows are not those of the data set.
    """
    if name not in STANDARD_SPLITS:
        raise DataError(f"no standard train/test split is bundled for {name!r}; expected one of {STANDARD_SPLITS}")
    _check_name(name)
    tr, te = _standard_rows(name, str(sample_dir()))
    return tr.copy(), te.copy()


def _row_keys(ds):
    X = sp.csr_matrix(ds.X) if sp.issparse(ds.X) else np.ascontiguousarray(ds.X, dtype=np.float64)
    Y = np.ascontiguousarray(ds.Y, dtype=np.uint8)
    if sp.issparse(X):
        if not X.has_sorted_indices:  # (a sorted copy: the cached parse is read-only)
            X = X.sorted_indices()
        rows = (X.indices[a:b].tobytes() + X.data[a:b].astype(np.float64).tobytes()
                for a, b in zip(X.indptr[:-1], X.indptr[1:]))
    else:
        rows = (r.tobytes() for r in X)
    return [x + b"|" + y.tobytes() for x, y in zip(rows, Y)]


@functools.cache
def _standard_rows(name, directory):
    full, train, test = (_cached(n, directory) for n in (name, f"{name}-train", f"{name}-test"))
    where = {}
    for i, key in enumerate(_row_keys(full)):
        where.setdefault(key, []).append(i)
    for v in where.values():
        v.reverse()  # pop() then takes identical rows in order

    def locate(half):
        try:
            return np.array([where[key].pop() for key in _row_keys(half)], dtype=np.intp)
        except (KeyError, IndexError):
            raise DataError(f"the rows of {half.name!r} are not rows of the bundled {name!r}", source=name) from None

    tr, te = locate(train), locate(test)
    if len(tr) + len(te) != full.n_samples:
        raise DataError(f"{name!r}: the standard files hold {len(tr)} + {len(te)} rows, the data set "
                        f"{full.n_samples}", source=name)
    tr.flags.writeable = te.flags.writeable = False
    return tr, te


def split_indices(n_samples, train_fraction=2 / 3, random_state=0):
    """The seeded train/test split of ``n_samples`` rows: the one seeded split of mlviz.

    The library (:func:`split_dataset`, :func:`load_sample_split`), the dashboard and the
    report pack use it for every data set without standard train/test files (medical,
    every upload); the bundled sets with standard files are split by them
    (:func:`load_protocol_split`).

    Parameters
    ----------
    n_samples : int
        At least 2.
    train_fraction : float in (0, 1)
    random_state : int or None

    Returns
    -------
    train_idx, test_idx : sorted int ndarray
        A permutation from ``numpy.random.default_rng(random_state)``: its first
        ``round(train_fraction * n)`` entries (at least 1, at most n - 1) train, the rest test.
    """
    perm = np.random.default_rng(random_state).permutation(n_samples)
    n_train = min(max(int(round(train_fraction * n_samples)), 1), n_samples - 1)
    return np.sort(perm[:n_train]), np.sort(perm[n_train:])


def split_dataset(ds, train_fraction=2 / 3, random_state=0):
    """Seeded random split of a data set by :func:`split_indices`.

    Parameters
    ----------
    ds : MultiLabelDataset
    train_fraction : float in (0, 1)
    random_state : int or None

    Returns
    -------
    train, test : MultiLabelDataset
    """
    tr, te = split_indices(ds.n_samples, train_fraction, random_state)
    note = f"random split (random_state={random_state}, {len(tr)}/{len(te)})"
    return ds.subset(tr, f"{ds.name}-train", note), ds.subset(te, f"{ds.name}-test", note)
