"""Multi-label data: loaders, bundled samples, synthetic data, statistics.

Every loader returns a :class:`MultiLabelDataset` and raises only
:class:`DataError` (a ``ValueError``) for bad input, with the file, line
and what was expected in the message.

>>> from mlviz.data import load_sample, describe
>>> ds = load_sample("emotions")          # doctest: +SKIP
>>> describe(ds)["cardinality"]           # doctest: +SKIP
1.868...
"""

from ._errors import DataError
from .arff import load_arff
from .csv import load_csv
from .dataset import MultiLabelDataset
from .libsvm import load_libsvm
from .loader import detect_format, load_dataset
from .npz import load_npz, to_npz
from .samples import list_samples, load_sample, load_sample_split, sample_dir, split_dataset
from .stats import DESCRIBE_KEYS, describe, describe_frame
from .synthetic import make_rotated_toy, rotated_toy_labels
from .writers import save_arff, save_csv, save_libsvm

__all__ = [
    "DataError", "MultiLabelDataset", "load_dataset", "detect_format", "load_arff",
    "load_csv", "load_libsvm", "load_npz", "to_npz", "save_arff", "save_csv",
    "save_libsvm", "list_samples", "load_sample", "load_sample_split", "sample_dir",
    "split_dataset", "make_rotated_toy", "rotated_toy_labels", "describe",
    "describe_frame", "DESCRIBE_KEYS",
]
