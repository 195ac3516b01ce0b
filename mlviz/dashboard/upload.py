"""Upload handling: a user's file → :func:`mlviz.data.load_dataset` → session data set.

The pure part, :func:`dataset_from_upload`, turns an uploaded file (anything
file-like with ``.name``, e.g. a Streamlit ``UploadedFile``) plus the options
from the form into a :class:`~mlviz.dashboard.state.DataContext`; it raises
:class:`mlviz.data.DataError` for every bad input.  :func:`upload_section` draws
the form; loading happens in a button callback so that the sidebar picker can
switch to the new data set in the same rerun.  A failed upload shows exactly
one ``st.error`` and leaves the current data set and all settings untouched.
"""

from __future__ import annotations

import io

import streamlit as st

from . import state

UPLOAD_TYPES = ["arff", "gz", "csv", "txt", "svm", "libsvm", "svmlight", "npz"]
_ERROR = "mlviz_upload_error"
_OK = "mlviz_upload_ok"


def _named_bytes(content: bytes, name: str):
    buf = io.BytesIO(content)
    buf.name = name
    return buf


def _base_name(name: str) -> str:
    name = name.lower()
    return name[:-3] if name.endswith(".gz") else name


def is_csv(name: str) -> bool:
    return _base_name(name).endswith((".csv", ".txt")) and not _base_name(name).endswith(".svm.txt")


def is_arff(name: str) -> bool:
    return _base_name(name).endswith(".arff")


def csv_columns(content: bytes, name: str) -> list:
    """Column names of an uploaded CSV (header row only); [] if unreadable."""
    import gzip

    import pandas as pd

    try:
        raw = gzip.decompress(content) if name.lower().endswith(".gz") else content
        return [str(c) for c in pd.read_csv(io.BytesIO(raw), nrows=0).columns]
    except Exception:
        return []


def dataset_from_upload(file, *, label_file=None, label_columns=None, n_labels=0):
    """Load an uploaded file into a :class:`DataContext` (raises ``DataError``).

    Parameters
    ----------
    file : file-like with ``.name``
        The data file: Mulan/MEKA ARFF (optionally gzipped), CSV, LIBSVM or ``.npz``.
    label_file : file-like with ``.name`` or None
        Mulan XML label file for an ARFF upload.
    label_columns : list of str or None
        CSV columns holding the labels (None/empty: detected by the loader).
    n_labels : int
        For an ARFF without XML nor MEKA header: number of label attributes,
        MEKA convention (``n`` = the first n attributes, ``-n`` = the last n;
        0 = let the loader read the ``-C`` option of the relation name).
    """
    from mlviz.data import DataError, load_dataset

    name = getattr(file, "name", "upload")
    content = file.getvalue() if hasattr(file, "getvalue") else file.read()
    if not content:
        raise DataError(f"{name}: the file is empty.")
    options = {}
    labels = None
    if label_file is not None:
        labels = _named_bytes(
            label_file.getvalue() if hasattr(label_file, "getvalue") else label_file.read(),
            getattr(label_file, "name", "labels.xml"),
        )
    elif n_labels and is_arff(name):
        labels = int(n_labels)  # MEKA convention: n = first n attributes, -n = last n
    if label_columns and is_csv(name):
        labels = [str(c) for c in label_columns]
    try:
        dataset = load_dataset(_named_bytes(content, name), labels=labels, **options)
    except DataError:
        raise
    except Exception as exc:  # loaders promise DataError; never show a traceback anyway
        raise DataError(f"{name}: could not read the file ({type(exc).__name__}: {exc}).") from exc
    key = state.upload_id(name, content, labels.getvalue() if hasattr(labels, "getvalue") else None,
                          {"labels": labels if not hasattr(labels, "getvalue") else "xml"})
    return state.context_from_dataset(key, dataset)


def _on_load():
    """Button callback: load the staged upload or record one error message."""
    from mlviz.data import DataError

    file = st.session_state.get("upload_file")
    st.session_state.pop(_ERROR, None)
    st.session_state.pop(_OK, None)
    if file is None:
        st.session_state[_ERROR] = "Choose a file first."
        return
    try:
        ctx = dataset_from_upload(
            file,
            label_file=st.session_state.get("upload_labels") if is_arff(file.name) else None,
            label_columns=st.session_state.get("upload_label_columns"),
            n_labels=(st.session_state.get("upload_n_labels", 0) or 0)
            * (-1 if st.session_state.get("upload_label_pos", "last") == "last" else 1),
        )
    except DataError as exc:
        st.session_state[_ERROR] = str(exc)
        return
    except Exception as exc:  # pragma: no cover - defensive, keep the app alive
        st.session_state[_ERROR] = f"{getattr(file, 'name', 'upload')}: unexpected problem: {exc}"
        return
    state.register_upload(ctx)
    st.session_state[_OK] = (
        f"Loaded **{ctx.name}**: {ctx.dataset.n_samples} instances, "
        f"{ctx.dataset.n_features} features, {ctx.n_labels} labels."
    )


def upload_section():
    """Draw the upload form (file, optional XML, CSV label picker, load button)."""
    limit = st.get_option("server.maxUploadSize")
    st.markdown(
        f"Upload **Mulan ARFF** (+ its XML label file), **MEKA ARFF** (labels from `-C n` in the "
        f"relation name), **CSV** (pick the label columns), **LIBSVM** multi-label "
        f"(`1,3 4:0.5 7:1`) or **.npz** with arrays `X`, `Y`. Files may be gzipped. "
        f"Size limit: **{limit} MB** per file."
    )
    c1, c2 = st.columns(2)
    file = c1.file_uploader("Data file", type=UPLOAD_TYPES, key="upload_file")
    c2.file_uploader("Mulan XML label file (optional, for ARFF)", type=["xml"], key="upload_labels")
    if file is not None and is_csv(file.name):
        cols = csv_columns(file.getvalue(), file.name)
        st.multiselect(
            "Label columns (leave empty to detect the 0/1 columns at the end)",
            cols,
            key="upload_label_columns",
        )
    elif file is not None and is_arff(file.name):
        a, b = st.columns([2, 1])
        a.number_input(
            "Number of label attributes if there is no XML file and no MEKA `-C` header (0 = automatic)",
            min_value=0,
            max_value=10000,
            value=0,
            key="upload_n_labels",
        )
        b.radio("Label attributes are the", ["last", "first"], key="upload_label_pos", horizontal=True)
    st.button("Load uploaded data", type="primary", on_click=_on_load, key="upload_load")
    if st.session_state.get(_ERROR):
        st.error(
            f"Upload failed — {st.session_state[_ERROR]} The previous data set is still in use.",
            icon=":material/error:",
        )
    elif st.session_state.get(_OK):
        st.success(st.session_state[_OK] + " It is now selected in the sidebar for every page. "
                   "Uploaded data lives only in this browser session: a shared link carries the "
                   "controls, and whoever opens it uploads the same file to see the same view.")
