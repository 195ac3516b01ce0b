"""Writers: ARFF (+ Mulan XML), CSV and svmlight, for round trips.

Numbers are written with ``repr`` (shortest string that reads back to the
same float64), so writing and reading back gives identical arrays.
"""

from __future__ import annotations

import contextlib
import csv as _csv
import gzip
import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import scipy.sparse as sp

from mlviz._text import shorten

from ._errors import DataError
from .libsvm import META_PREFIX

__all__ = ["save_arff", "save_csv", "save_libsvm", "quote_arff_name"]

_NEEDS_QUOTES = set(" \t,{}%'\"")


@contextlib.contextmanager
def _open_text(path):
    if hasattr(path, "write"):
        yield path
        return
    target = os.fspath(path)
    if target.endswith(".gz"):
        with gzip.open(target, "wt", encoding="utf-8", newline="") as handle:
            yield handle
    else:
        with open(target, "w", encoding="utf-8", newline="") as handle:
            yield handle


def _number(value):
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def quote_arff_name(name: str) -> str:
    r"""The ARFF token that liac-arff (and :func:`~mlviz.data.load_arff`) reads back as ``name``.

    Names are written the way liac-arff's own encoder writes them: bare when
    they hold nothing that needs quoting, otherwise between double quotes (or
    single quotes if the name holds a double quote), **without** backslash
    escapes, because liac-arff does not unescape names.

    Raises
    ------
    DataError
        For names no ARFF reader reads back unchanged (empty, a line break,
        or a quote character at either end).

    >>> print(quote_arff_name("Swainson's Thrush"))
    "Swainson's Thrush"
    >>> print(quote_arff_name("50\\%"))
    "50\%"
    """
    if not name or "\n" in name or "\r" in name or name[0] in "'\"" or name[-1] in "'\"":
        raise DataError(f"name {shorten(name)!r} cannot be written to ARFF so that it reads "
                        "back unchanged (empty, a line break, or a quote at either end)")
    if not (_NEEDS_QUOTES & set(name)) and name[0] not in "@?":
        return name
    return f'"{name}"' if '"' not in name else f"'{name}'"


def _check_unique(dataset):
    names = list(dataset.feature_names) + list(dataset.label_names)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise DataError(f"name {dup!r} is used twice among features and labels; "
                        "the file format needs unique column names", source=dataset.name)


def save_arff(dataset, path, *, xml_path=None):
    """Write a Mulan-style ARFF (features first, labels last) and optionally its XML.

    The relation name carries MEKA's ``-C -L`` so the file is also readable
    without the XML.  Sparse ``X`` is written as sparse ARFF rows.

    Parameters
    ----------
    dataset : MultiLabelDataset
    path : str, os.PathLike or text file-like (``.gz`` paths are compressed)
    xml_path : str or os.PathLike, optional
        Where to write the Mulan label XML.
    """
    _check_unique(dataset)
    d, L = dataset.n_features, dataset.n_labels
    with _open_text(path) as out:
        relation = " ".join(str(dataset.name).split()).strip("'\"") or "dataset"
        out.write(f"@relation {quote_arff_name(f'{relation}: -C -{L}')}\n\n")
        for fname in dataset.feature_names:
            out.write(f"@attribute {quote_arff_name(fname)} numeric\n")
        for lname in dataset.label_names:
            out.write(f"@attribute {quote_arff_name(lname)} {{0,1}}\n")
        out.write("\n@data\n")
        if sp.issparse(dataset.X):
            X = dataset.X.tocsr()
            X.sort_indices()
            for i in range(dataset.n_samples):
                start, stop = X.indptr[i], X.indptr[i + 1]
                parts = [f"{j} {_number(v)}" for j, v in
                         zip(X.indices[start:stop], X.data[start:stop]) if v != 0]
                parts += [f"{d + k} 1" for k in np.flatnonzero(dataset.Y[i])]
                out.write("{" + ",".join(parts) + "}\n")
        else:
            for x, y in zip(dataset.X, dataset.Y):
                out.write(",".join([_number(v) for v in x] + [str(int(v)) for v in y]) + "\n")
    if xml_path is not None:
        root = ET.Element("labels", xmlns="http://mulan.sourceforge.net/labels")
        for lname in dataset.label_names:
            ET.SubElement(root, "label", name=lname)
        ET.ElementTree(root).write(os.fspath(xml_path), encoding="utf-8",
                                   xml_declaration=True)


def save_csv(dataset, path):
    """Write a CSV: header of feature then label names, one row per instance.

    Read it back with ``load_csv(path, label_columns=dataset.label_names)``.
    Sparse ``X`` is written densely.

    Parameters
    ----------
    dataset : MultiLabelDataset
    path : str, os.PathLike or text file-like
    """
    _check_unique(dataset)
    X = dataset.X.toarray() if sp.issparse(dataset.X) else dataset.X
    with _open_text(path) as out:
        writer = _csv.writer(out, lineterminator="\n")
        writer.writerow(list(dataset.feature_names) + list(dataset.label_names))
        for x, y in zip(X, dataset.Y):
            writer.writerow([_number(v) for v in x] + [str(int(v)) for v in y])


def save_libsvm(dataset, path):
    """Write multi-label svmlight (1-based feature indices, 0-based label ids).

    A first comment line ``# mlviz: {json}`` stores the name, feature and
    label names so :func:`~mlviz.data.load_libsvm` restores them.

    Parameters
    ----------
    dataset : MultiLabelDataset
    path : str, os.PathLike or text file-like
    """
    X = sp.csr_matrix(dataset.X)
    X.sort_indices()
    meta = {"name": dataset.name, "feature_names": list(dataset.feature_names),
            "label_names": list(dataset.label_names)}
    with _open_text(path) as out:
        out.write(META_PREFIX + " " + json.dumps(meta, ensure_ascii=True) + "\n")
        for i in range(dataset.n_samples):
            labels = ",".join(str(k) for k in np.flatnonzero(dataset.Y[i]))
            start, stop = X.indptr[i], X.indptr[i + 1]
            feats = " ".join(f"{j + 1}:{_number(v)}" for j, v in
                             zip(X.indices[start:stop], X.data[start:stop]) if v != 0)
            out.write(" ".join(part for part in (labels, feats) if part) + "\n")
