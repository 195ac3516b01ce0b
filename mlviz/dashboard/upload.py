"""Upload handling: a user's file → :func:`mlviz.data.load_dataset_isolated` → session data set.

The pure part, :func:`dataset_from_upload`, turns an uploaded file (anything
file-like with ``.name``, e.g. a Streamlit ``UploadedFile``) plus the options
from the form into a :class:`~mlviz.dashboard.state.DataContext`; it raises
:class:`mlviz.data.DataError` for every bad input.  The file is parsed in a
short-lived worker process under memory, CPU and time limits
(:func:`mlviz.data.load_dataset_isolated`, limits from :func:`upload_limits`):
a parser crash, a decompression bomb or a hang there is one ``DataError``
here, and the server and every other session carry on.  :func:`upload_section` draws
the form; loading happens in a button callback so that the sidebar picker can
switch to the new data set in the same rerun.  A failed upload shows exactly
one ``st.error`` and leaves the current data set and all settings untouched.
"""

from __future__ import annotations

import io

import streamlit as st

from mlviz._text import escape_markdown, shorten
from mlviz.data.formats import format_of_suffix, strip_compression, upload_types

from . import state

UPLOAD_TYPES = upload_types()
_ERROR = "mlviz_upload_error"
_OK = "mlviz_upload_ok"


def _named_bytes(content: bytes, name: str):
    buf = io.BytesIO(content)
    buf.name = name
    return buf


def _base_name(name: str) -> str:
    """Lower-case file name without a ``.gz``/``.bz2``/``.xz`` suffix."""
    return strip_compression(name.lower())


def upload_limits():
    """The :class:`mlviz.data.Limits` of an upload: ``MLVIZ_*`` environment variables, with the
    upload size tied to Streamlit's ``server.maxUploadSize`` (MB)."""
    from mlviz.data import UPLOAD_MB, Limits

    return Limits.from_env(max_upload_bytes=int(st.get_option("server.maxUploadSize")) * UPLOAD_MB)


def _suffix(name: str) -> str:
    base = _base_name(name)
    return base[base.rfind("."):] if "." in base else ""


def is_csv(name: str) -> bool:
    """CSV/TSV by suffix, or ``.txt`` (sniffed: CSV unless it is a ``.svm.txt``)."""
    base = _base_name(name)
    return format_of_suffix(_suffix(name)) == "csv" or (base.endswith(".txt") and not base.endswith(".svm.txt"))


def is_arff(name: str) -> bool:
    return format_of_suffix(_suffix(name)) == "arff"


def csv_columns(content: bytes, name: str, limits=None) -> list:
    """Column names of an uploaded CSV (header row only, at most 1 MiB inflated); [] if unreadable."""
    from mlviz.data import DataError, csv_column_names

    try:
        return csv_column_names(_named_bytes(content, name), limits=limits or upload_limits())
    except DataError:
        return []


def dataset_from_upload(file, *, label_file=None, label_columns=None, n_labels=0, limits=None,
                        scaling="auto"):
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
    limits : mlviz.data.Limits, optional
        Default :func:`upload_limits`.
    scaling : str
        ``"auto"`` or a key of :data:`mlviz.preprocessing.SCALINGS`.
    """
    from mlviz.data import DataError, load_dataset_isolated

    name = str(getattr(file, "name", "upload"))
    content = file.getvalue() if hasattr(file, "getvalue") else file.read()
    if not content:
        raise DataError(f"{shorten(name)}: the file is empty.")
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
        dataset = load_dataset_isolated(_named_bytes(content, name), labels=labels,
                                        limits=limits or upload_limits())
    except DataError:
        raise
    except Exception as exc:  # the loader promises DataError; never show a traceback anyway
        raise DataError(f"{shorten(name)}: could not read the file "
                        f"({type(exc).__name__}: {shorten(exc, 200)}).") from exc
    key = state.upload_id(name, content, labels.getvalue() if hasattr(labels, "getvalue") else None,
                          {"labels": labels if not hasattr(labels, "getvalue") else "xml"})
    return state.context_from_dataset(key, dataset, scaling=scaling)


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
            scaling=st.session_state.get("scaling") or "auto",
        )
    except DataError as exc:
        st.session_state[_ERROR] = shorten(exc, 600)
        return
    except Exception as exc:  # pragma: no cover - defensive, keep the app alive
        st.session_state[_ERROR] = (f"{shorten(getattr(file, 'name', 'upload'))}: unexpected problem "
                                    f"({type(exc).__name__}: {shorten(exc, 200)})")
        return
    state.register_upload(ctx)
    from mlviz.plotting.format import format_count

    st.session_state[_OK] = (
        f"Loaded **{escape_markdown(shorten(ctx.name))}**: {format_count(ctx.dataset.n_samples)} "
        f"instances, {format_count(ctx.dataset.n_features)} features, {format_count(ctx.n_labels)} labels."
    )


def upload_section():
    """Draw the upload form (file, optional XML, CSV label picker, load button)."""
    from mlviz.data import DataError

    limit = st.get_option("server.maxUploadSize")
    try:
        ratio = upload_limits().inflate_ratio
    except DataError as exc:  # a malformed MLVIZ_* variable: say so, uploads cannot work
        st.error(f"Uploads are switched off: {escape_markdown(shorten(exc, 300))}")
        return
    from mlviz.data.formats import COMPRESSIONS, FORMATS

    kinds = "; ".join(f"{f.description} ({', '.join(f'`{s}`' for s in f.suffixes)})" for f in FORMATS)
    st.markdown(
        f"Upload {kinds}. Files may be compressed "
        f"({', '.join(f'`{s}`' for s in COMPRESSIONS)}). Size limit: **{limit} MB** per file, and a "
        f"compressed file may inflate to **{limit * ratio:g} MB**. Files are parsed in a separate, "
        "memory- and time-limited process: a broken or hostile file gives one error message here."
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
            f"Upload failed — {escape_markdown(st.session_state[_ERROR])} "
            "The previous data set is still in use.",
            icon=":material/error:",
        )
    elif st.session_state.get(_OK):
        st.success(st.session_state[_OK] + " It is now selected in the sidebar for every page. "
                   "Uploaded data lives only in this browser session: a shared link carries the "
                   "controls, and whoever opens it uploads the same file to see the same view.")
