"""Reading a report pack: strict ``config.json``, checked data, nothing fitted.

:func:`load_pack` is what a pack's ``reproduce.py`` calls first.  It reads
``config.json`` (a regular file -- never a link, device or FIFO -- of at most
:data:`MAX_CONFIG_BYTES`; strict JSON: no NaN/Infinity, no integer of more
than 18 digits, no duplicate keys), checks it against the pack schema and
builds its estimators from the allow-list (:func:`mlviz.report_config.check_config`),
loads the data (a bundled sample by name or the pack's ``data.npz``, a
regular file read under the upload limits) and compares its SHA-256 and
shape with the recorded ones.  Any failure is one
:class:`~mlviz.report_config.PackError`.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._text import printable, shorten
from .report_config import DATA_FILE, PackError, check_config, content_hash

__all__ = ["read_config", "load_pack", "LoadedPack", "MAX_CONFIG_BYTES"]

#: Largest ``config.json`` read (bytes; a million row indices take about 8 MB).
MAX_CONFIG_BYTES = 64 * 1024 * 1024


def _regular_file(path, what, limit):
    """Bytes of ``path``: a regular file (not a link, device or FIFO) of at most ``limit`` bytes."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise PackError(f"{what} is missing") from None
    except OSError as exc:
        raise PackError(f"cannot read {what} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise PackError(f"{what} is not a regular file (a link, device or FIFO is never read)")
    if info.st_size > limit:
        raise PackError(f"{what} is {info.st_size:,} bytes; at most {limit:,} are read")
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise PackError(f"{what} is not a regular file")
            with os.fdopen(os.dup(fd), "rb") as fh:
                data = fh.read(limit + 1)
        finally:
            os.close(fd)
    except OSError as exc:
        raise PackError(f"cannot read {what} ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise PackError(f"{what} is larger than {limit:,} bytes")
    return data


def _no_constant(name):
    raise ValueError(f"{name} is not a number")


def _bounded_int(text):
    if len(text.lstrip("-")) > 18:
        raise ValueError(f"an integer of {len(text)} digits")
    return int(text)


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is not a finite number")
    return value


def _unique_keys(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {shorten(printable(key), 40)!r}")
        out[key] = value
    return out


def read_config(path):
    """Parse ``config.json`` strictly: a regular file of at most :data:`MAX_CONFIG_BYTES`,
    UTF-8, no NaN/Infinity, no integer of more than 18 digits, no duplicate keys.

    Raises
    ------
    PackError
    """
    raw = _regular_file(path, "config.json", MAX_CONFIG_BYTES)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant, parse_int=_bounded_int,
                          parse_float=_finite_float, object_pairs_hook=_unique_keys)
    except UnicodeDecodeError:
        raise PackError("config.json is not UTF-8 text") from None
    except RecursionError:
        raise PackError("config.json is nested too deeply") from None
    except ValueError as exc:
        raise PackError(f"config.json is not valid JSON ({shorten(printable(exc), 120)})") from None


@dataclass
class LoadedPack:
    """A checked report pack, ready to refit.

    Attributes
    ----------
    config : dict
        The parsed, checked ``config.json``.
    dataset : MultiLabelDataset
        Its data, whose SHA-256 matched ``config["data"]["content_hash"]``.
    estimators : dict of str -> estimator
        Unfitted, built from the allow-list.
    train_index, test_index : ndarray of int
    rule_param : None, float or ndarray
        The decision rule's parameter (a list becomes a float array).
    """

    config: dict
    dataset: object
    estimators: dict
    train_index: np.ndarray
    test_index: np.ndarray
    rule_param: object


def load_pack(folder):
    """Read, check and load the report pack unpacked in ``folder``.

    Steps, each refusing with one :class:`PackError`: ``config.json``
    (:func:`read_config`, :func:`check_config`: the estimators are built
    from the allow-list here, nothing is fitted), then the data (a bundled
    sample by name, or ``data.npz`` in ``folder`` -- a regular file, not a
    link -- read with :func:`mlviz.data.load_npz` under the upload limits),
    then its SHA-256 and shape against
    the recorded ones (:func:`content_hash`).

    Parameters
    ----------
    folder : str or os.PathLike

    Returns
    -------
    LoadedPack
    """
    from .data import DataError, Limits, load_npz, load_sample  # (mlviz.data is not imported before it is needed)

    folder = Path(folder)
    config = read_config(folder / "config.json")
    estimators = check_config(config)
    data = config["data"]
    try:
        if data["sample"] is not None:
            ds = load_sample(data["sample"])
        else:
            limits = Limits.from_env()
            raw = _regular_file(folder / DATA_FILE, DATA_FILE, limits.max_inflated_bytes)
            ds = load_npz(raw, limits=limits.with_(max_upload_bytes=limits.max_inflated_bytes))
    except DataError as exc:
        raise PackError(f"the pack's data cannot be read ({shorten(printable(exc), 200)})") from None
    if content_hash(ds) != data["content_hash"]:
        raise PackError("the data differ from the ones this pack was made with (SHA-256 mismatch)")
    if (ds.n_samples, ds.n_features, ds.n_labels) != (data["n_samples"], data["n_features"], data["n_labels"]) \
            or list(ds.label_names) != data["label_names"]:
        raise PackError("config.json's data shape or label names differ from the data's")
    param = config["decision_rule"]["param"]
    return LoadedPack(config=config, dataset=ds, estimators=estimators,
                      train_index=np.asarray(config["split"]["train"], dtype=np.intp),
                      test_index=np.asarray(config["split"]["test"], dtype=np.intp),
                      rule_param=np.asarray(param, dtype=float) if isinstance(param, list) else param)
