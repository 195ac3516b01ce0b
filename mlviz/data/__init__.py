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

from mlviz._lazy import lazy_exports

#: public name -> the submodule that defines it. The package imports a submodule only when one of its
#: names is first used (PEP 562 ``__getattr__``, :func:`mlviz._lazy.lazy_exports`): the upload parse worker
#: (:mod:`mlviz.data._worker`) then imports the parsers alone, not pandas and scipy.optimize for statistics and
#: synthetic data it never uses (a third of its start-up CPU; ``benchmarks/RESULTS.md``, "the parse worker's start-up").
_EXPORTS = {
    "DataError": "._errors", "Limits": "._limits", "UPLOAD_MB": "._limits",
    "MultiLabelDataset": ".dataset", "load_dataset": ".loader", "detect_format": ".loader",
    "load_dataset_isolated": ".isolated", "warm_up": ".isolated",
    "load_arff": ".arff", "load_csv": ".csv", "csv_column_names": ".csv", "load_libsvm": ".libsvm",
    "load_npz": ".npz", "to_npz": ".npz", "save_arff": ".writers", "save_csv": ".writers",
    "save_libsvm": ".writers",
    "list_samples": ".samples", "load_sample": ".samples", "load_sample_split": ".samples",
    "sample_dir": ".samples", "split_dataset": ".samples", "split_indices": ".samples",
    "load_standard_split": ".samples", "load_protocol_split": ".samples",
    "standard_split_rows": ".samples",
    "describe": ".stats", "describe_frame": ".stats", "DESCRIBE_KEYS": ".stats",
    "make_rotated_toy": ".synthetic", "rotated_toy_labels": ".synthetic", "make_planted": ".synthetic",
    "PlantedData": ".synthetic", "parse_structure": ".synthetic", "format_structure": ".synthetic",
    "expected_dependency_graph": ".synthetic", "edge_recovery": ".synthetic", "edge_status": ".synthetic",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
