"""Multi-label data: loaders, bundled samples, synthetic data, statistics.

Every loader returns a :class:`MultiLabelDataset` and raises only
:class:`DataError` (a ``ValueError``) for bad input, with the file, line
and what was expected in the message.

Untrusted files (uploads)
-------------------------
* :func:`load_dataset_isolated` -- :func:`load_dataset` run in a short-lived
  worker process under memory, CPU-time and wall-clock limits; a crash, bomb
  or hang there is one :class:`DataError` and the caller carries on.  Only
  parsed arrays come back (raw buffers + JSON, re-validated; nothing is
  unpickled).  :func:`warm_up` starts the spare worker ahead of the first call.
* :class:`Limits` -- upload size, decompression cap (``inflate_ratio`` x upload
  size), columns, dense cells and worker limits, from ``MLVIZ_*`` environment
  variables by default (see :mod:`mlviz.data._limits`); every loader takes
  ``limits=``.  Names are capped at :data:`mlviz._text.MAX_NAME_LENGTH`.

Typical dashboard use::

    ds = load_dataset_isolated(uploaded_file, labels=uploaded_xml_or_None,
                               limits=Limits.from_env(max_upload_bytes=mb * UPLOAD_MB))

>>> from mlviz.data import load_sample, describe
>>> ds = load_sample("emotions")          # doctest: +SKIP
>>> describe(ds)["cardinality"]           # doctest: +SKIP
1.868...
"""

from ._errors import DataError
from ._limits import UPLOAD_MB, Limits
from .arff import load_arff
from .csv import csv_column_names, load_csv
from .dataset import MultiLabelDataset
from .isolated import load_dataset_isolated, warm_up
from .libsvm import load_libsvm
from .loader import detect_format, load_dataset
from .npz import load_npz, to_npz
from .samples import (
                      list_samples,
                      load_protocol_split,
                      load_sample,
                      load_sample_split,
                      load_standard_split,
                      sample_dir,
                      split_dataset,
                      split_indices,
)
from .stats import DESCRIBE_KEYS, describe, describe_frame
from .synthetic import (
                      PlantedData,
                      edge_recovery,
                      edge_status,
                      expected_dependency_graph,
                      format_structure,
                      make_planted,
                      make_rotated_toy,
                      parse_structure,
                      rotated_toy_labels,
)
from .writers import save_arff, save_csv, save_libsvm

__all__ = [
    "DataError", "Limits", "UPLOAD_MB", "MultiLabelDataset", "load_dataset", "load_dataset_isolated",
    "warm_up", "detect_format", "load_arff",
    "load_csv", "csv_column_names", "load_libsvm", "load_npz", "to_npz", "save_arff", "save_csv",
    "save_libsvm", "list_samples", "load_sample", "load_sample_split", "sample_dir",
    "split_dataset", "split_indices", "load_standard_split",
    "load_protocol_split", "make_rotated_toy", "rotated_toy_labels", "describe",
    "describe_frame", "DESCRIBE_KEYS", "make_planted", "PlantedData", "parse_structure", "format_structure",
    "expected_dependency_graph", "edge_recovery", "edge_status",
]
