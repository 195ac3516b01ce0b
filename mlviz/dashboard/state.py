"""Shared page state: the chosen data set, its train/test split, its feature scaling and the URL.

The entrypoint ``app.py`` runs the page chosen in the navigation, and every
page file starts with ``ctx = page_context(__file__)``, which calls
:func:`init_page` with the page's registered title.  That call

* configures the page (title, wide layout);
* draws the sidebar data-set picker (a ``st.selectbox`` bound to the URL query
  parameter ``data``, so a copied URL reopens the same data set) and the
  feature-scaling picker (URL parameter ``scaling``);
* returns a :class:`DataContext` holding the data set, a fixed train/test split
  and the **scaled** features every model on every page uses.

Feature scaling is decided once, here, and fitted on the training split only.
By default it is :func:`mlviz.preprocessing.default_scaling`: unit L2 norm per
row (``"l2"``) for sparse or count-like features (bag-of-words text such as
enron, medical: standardising rare words makes them dominate kernels and kNN,
standardisation (``"standard"``) for other dense features.  The
sidebar offers every scaling of :data:`mlviz.preprocessing.SCALINGS`.  The
scaling is part of :attr:`DataContext.key` (the prefix of every cache key), so
results of two scalings never mix.  The split is the standard Mulan one for
the bundled emotions, enron, scene and yeast, and otherwise (medical, every
upload) the one seeded 2/3 - 1/3 split of mlviz (:func:`mlviz.data.split_indices`);
the data context itself is built without Streamlit in :mod:`mlviz.dashboard.context`.

Because every page calls the same initialiser, a page opened directly (a fresh
server, a shared link) works without visiting the home page first.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import scipy.sparse as sp
import streamlit as st

from . import context
from .context import (
    AUTO,
    SPLIT_SEED,
    TRAIN_FRACTION,
    UPLOAD_PREFIX,
    DataContext,
    context_from_dataset,
    standard_split_of,
)

DEFAULT_DATASET = "emotions"

_UPLOADS = "mlviz_uploads"  # session_state: id -> DataContext for uploaded data


@st.cache_resource(max_entries=8, show_spinner="Loading the data set…")
def sample_context(name: str, scaling: str = AUTO) -> DataContext:
    """A bundled sample's context (:func:`mlviz.dashboard.context.sample_context`), cached per server."""
    return context.sample_context(name, scaling)


def rescaled(ctx: DataContext, scaling: str) -> DataContext:
    """``ctx``'s data set and split under another scaling (same ``data_key``)."""
    if not ctx.key.startswith(UPLOAD_PREFIX) and not (ctx.data_key or ctx.key).startswith(UPLOAD_PREFIX):
        return sample_context(ctx.data_key or ctx.key, scaling)
    return context_from_dataset(ctx.data_key or ctx.key, ctx.dataset, scaling)


@st.cache_data(show_spinner=False)
def sample_names() -> list:
    """Bundled sample names, default first (``scene`` pooled, its halves omitted)."""
    from mlviz import data

    names = [n for n in data.list_samples() if not n.endswith(("-train", "-test"))]
    names.sort(key=lambda n: (n != DEFAULT_DATASET, n))
    return names


def upload_id(name: str, content: bytes, label_file: bytes | None = None, options: dict | None = None) -> str:
    """Identifier of an upload: its (shortened) file name and the full SHA-256 of everything that
    makes the data set: the bytes, the XML label file's bytes, the label options, and the split
    and scaling rules of this module.  Two uploads share an id only if they give the same data."""
    import json

    from mlviz._text import shorten

    recipe = {"options": options or {}, "train_fraction": TRAIN_FRACTION, "split_seed": SPLIT_SEED,
              "split": "mlviz.data.split_indices", "scaling": "mlviz.preprocessing.scale_split"}
    h = hashlib.sha256()
    for part in (content, label_file or b"", json.dumps(recipe, sort_keys=True, default=str).encode()):
        h.update(len(part).to_bytes(8, "little"))  # (length-prefixed: no two splits of bytes collide)
        h.update(part)
    return f"{UPLOAD_PREFIX}{shorten(str(name))}:{h.hexdigest()}"


def register_upload(ctx: DataContext) -> None:
    """Remember an uploaded data set for this session and make it current.

    Must run in a widget callback (before the sidebar picker is drawn). The session's uploads are
    released when the session ends (:mod:`mlviz.dashboard.sessions`).
    """
    from . import sessions
    from .progress import session_id

    data_key = ctx.data_key or ctx.key
    st.session_state.setdefault(_UPLOADS, {})[data_key] = ctx
    st.session_state["data"] = data_key
    sessions.LEDGER.hold(session_id(), data_key, runtime_session_id())
    st.session_state.pop(_MISSING, None)  # (the upload a link named, or another: the user chose it)


def uploaded_contexts() -> dict:
    return st.session_state.get(_UPLOADS, {})


_MISSING = "mlviz_missing_upload"  # session_state: URL value of an upload a link named, not loaded here
_URL_SEEN = "mlviz_data_url"  # session_state: the data= value of the address last read


def url_value(key: str) -> str:
    """The ``data=`` URL value of the data set ``key``: a bundled set's name, or ``upload-<sha256>``
    for an upload (its content hash, never its display name: two uploads never share a link)."""
    from .urls import upload_token

    return upload_token(key) if str(key).startswith(UPLOAD_PREFIX) else str(key)


def missing_upload() -> str | None:
    """The ``upload-<sha256>`` a link named that is not loaded in this session (None: no such link)."""
    return st.session_state.get(_MISSING)


def _format_option(key):
    if key.startswith(UPLOAD_PREFIX):
        name, _, digest = key[len(UPLOAD_PREFIX):].rpartition(":")
        return f"⬆ {name} · {digest[:8]} (uploaded)"
    return key


def _picked():
    """The picker's callback: the user chose a data set (a pending missing upload is given up)."""
    st.session_state.pop(_MISSING, None)


def _seed_from_url(options) -> None:
    """Read ``data=`` of a new address (a link, a reload) into the picker; an upload it names that this
    session does not hold is remembered as missing (:func:`missing_upload`)."""
    raw = st.query_params.get("data")
    if raw is None or raw == st.session_state.get(_URL_SEEN):
        return
    st.session_state[_URL_SEEN] = raw
    by_url = {url_value(k): k for k in options}
    if raw in by_url:
        st.session_state["data"] = by_url[raw]
        st.session_state.pop(_MISSING, None)
    elif raw.startswith("upload-"):
        st.session_state[_MISSING] = raw


def dataset_picker() -> str:
    """Sidebar select box of the data set, kept in the ``data`` URL parameter.

    The address holds :func:`url_value` of the choice (not the label shown, so an upload's link
    names its content hash); a new address is read first (:func:`_seed_from_url`), then the choice
    is written back (none for the default; a link naming a missing upload keeps its value until the
    user picks another data set or uploads that file).
    """
    options = sample_names() + list(uploaded_contexts())
    _seed_from_url(options)
    current = st.session_state.get("data")
    if current is not None and current not in options:  # (an upload of another session)
        st.session_state.pop("data", None)
    choice = st.sidebar.selectbox(
        "Data set",
        options,
        index=0,
        key="data",
        format_func=_format_option,
        persist_state="session",
        on_change=_picked,
        help="Bundled Mulan data sets, plus anything you uploaded on the Home page in this session "
             "(an upload is named by its file and the first digits of its SHA-256).",
    )
    want = st.session_state.get(_MISSING) or (None if choice == DEFAULT_DATASET else url_value(choice))
    if st.query_params.get("data") != want:
        if want is None:
            st.query_params.pop("data", None)
        else:
            st.query_params["data"] = want
    st.session_state[_URL_SEEN] = want
    return choice


def _scaling_label(name: str) -> str:
    from mlviz.preprocessing import SCALINGS

    if name == AUTO:
        return "auto — L2 rows for sparse/count features, else standardise"
    return f"{name} — {SCALINGS.get(name, name)}"


def scaling_picker() -> str:
    """Sidebar select box of the feature scaling, bound to the ``scaling`` URL parameter.

    The options are the plain names (the URL holds what the box shows, so no ``format_func``);
    the caption under the data set says what the chosen one does.
    """
    from mlviz.preprocessing import SCALINGS

    return st.sidebar.selectbox(
        "Feature scaling",
        [AUTO, *SCALINGS],
        index=0,
        key="scaling",
        bind="query-params",
        persist_state="session",
        help="Applied to the features before every model on every page, fitted on the training "
             "split. auto = mlviz.preprocessing.default_scaling: unit L2 norm per row for sparse or "
             "count-like features (kNN and kernel methods suffer from standardised rare words), "
             "standardisation otherwise. "
             + " ".join(f"{k}: {v}." for k, v in SCALINGS.items()),
    )


def scaling_choice() -> str:
    """The scaling chosen in the sidebar (``"auto"`` by default)."""
    return st.session_state.get("scaling") or AUTO


def _upload_context(data_key: str, scaling: str) -> DataContext:
    """The uploaded data set ``data_key`` under ``scaling`` (rescaled once per session)."""
    base = uploaded_contexts()[data_key]
    if scaling == base.scaling or (scaling == AUTO and base.key == (base.data_key or base.key)):
        return base
    scaled = st.session_state.setdefault("mlviz_upload_scaled", {})
    if (data_key, scaling) not in scaled:
        scaled[(data_key, scaling)] = context_from_dataset(data_key, base.dataset, scaling)
    return scaled[(data_key, scaling)]


def current_context() -> DataContext:
    """The :class:`DataContext` of the data set and scaling chosen in the sidebar.

    Raises
    ------
    ValueError
        If the chosen scaling does not apply to the data (``"tfidf"`` on negative features).
    """
    key = st.session_state.get("data") or DEFAULT_DATASET
    scaling = scaling_choice()
    if key in uploaded_contexts():
        return _upload_context(key, scaling)
    return sample_context(key, scaling)


def _under_entrypoint() -> bool:
    """Whether this run is the entrypoint's ``st.navigation`` (page links work only there)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    run = get_script_run_ctx()
    return run is not None and Path(run.main_script_path).name == "app.py"


def navigation():
    """Sidebar links to every page of the registry (:mod:`mlviz.dashboard.pages`), with its icons.

    Only under the entrypoint's ``st.navigation``: a page file run on its own (an AppTest of one
    page) has no other page to link to.
    """
    from .pages import PAGES

    if not _under_entrypoint():
        return
    with st.sidebar:
        st.markdown("### :material/label: mlviz")
        for page in PAGES:
            st.page_link(page.path, label=page.title, icon=page.icon)
        st.divider()


def use_shared_plotly_template() -> None:
    """Make the figures' shared template plotly's default for this server.

    plotly applies its default template to a new figure without validating it
    again, so the figure builders leave it out (:func:`mlviz.plotting._style.layout_dict`)
    and each figure costs ~18 ms less; the figures are the same.
    """
    import plotly.io as pio

    from mlviz.plotting import TEMPLATE

    if pio.templates.default != TEMPLATE:
        pio.templates.default = TEMPLATE


@st.cache_resource(show_spinner=False)
def _warm_upload_worker() -> bool:
    """Start the upload parse worker once per server, so the first upload does not wait for
    Python and numpy to start (:func:`mlviz.data.warm_up`)."""
    from mlviz.data import warm_up

    try:
        warm_up()
    except OSError:  # no worker now: the first upload starts one itself
        return False
    return True


#: Local page icon (Streamlit turns an emoji icon into a URL on a CDN; this file is served by the app).
PAGE_ICON = str(Path(__file__).resolve().parents[2] / ".streamlit" / "favicon.png")


def runtime_session_id() -> str | None:
    """Streamlit's id of this browser session (what the runtime's session manager lists), or None."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    run = get_script_run_ctx()
    return getattr(run, "session_id", None)


def apply_url_schema(page: str | None, data=None) -> list:
    """Check this page's address against :data:`mlviz.dashboard.urls.SCHEMA` and rewrite it to the
    clean one (:func:`mlviz.dashboard.urls.sanitize`): values outside the schema leave the address
    and the values the controls start from, before any control or computation sees them. Controls
    already bound in this session keep their own values. Returns the notes (what was dropped or
    changed)."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    from . import urls

    with get_session_state().query_params() as qp:
        raw = {k: qp.get_all(k) for k in list(qp)}
        bound = {k for k in raw if qp.is_bound(k)}
        clean, notes = urls.sanitize(raw, page, data, skip=bound)
        changed = False
        initial = getattr(qp, "_initial_query_params", None)
        for k, values in raw.items():
            if k in bound:
                continue
            if k not in clean:
                qp._query_params.pop(k, None)
                changed = True
                if isinstance(initial, dict):
                    initial.pop(k, None)
                continue
            value = clean[k]
            if value != (values[0] if len(values) == 1 else values):
                qp._query_params[k] = value
                changed = True
                if isinstance(initial, dict) and k in initial:
                    initial[k] = value if isinstance(value, list) else [value]
        if changed:
            qp._send_query_param_msg()
    return notes


def _missing_upload_notice(page: str | None) -> None:
    """A link named an upload this session does not hold: say so, offer the upload form, and (on
    every page but Home, where the form is) show nothing else."""
    missing = missing_upload()
    if not missing:
        return
    digest = missing.split("-", 1)[-1]
    text = (f"**This link names an uploaded data set** (SHA-256 `{digest[:16]}…`) **that is not loaded in this "
            "session.** Uploaded data stay in the browser session that uploaded them; upload the same file "
            "(same options) on the Home page to open the linked view, or pick a bundled data set in the sidebar.")
    home = page is None or page.startswith("0_")
    st.warning(text + (" The upload form is below; the statistics further down are of the sidebar's data set "
                       "until then." if home else ""), icon=":material/cloud_off:")
    if not home:
        from .pages import PAGES

        if _under_entrypoint():
            st.page_link(PAGES[0].path, label="Open the upload form (Home)", icon=":material/upload:")
        st.stop()


def init_page(title: str, page: str | None = None) -> DataContext:
    """Configure the page, draw the shared sidebar and return the data context.

    Called through :func:`page_context` with the page's registered title and file name. The
    address is checked against the URL schema first (:func:`apply_url_schema`; again with the data
    set's label names once it is loaded, before the page's work). The browser-tab icon is always
    the local :data:`PAGE_ICON` (no request leaves the machine).
    """
    from mlviz._text import escape_markdown, shorten
    from mlviz._threads import one_blas_thread
    from mlviz.plotting.format import format_count

    from . import present, sessions, urls

    one_blas_thread()  # (before any work of the page: the jobs, not BLAS, use the cores)
    # presentation mode opens with the sidebar folded (one click on its arrow brings it back): beside it, a
    # figure on a 1024-pixel projector is too narrow for text 1.5 times larger (benchmarks/RESULTS.md,
    # "Presentation mode at 1024 and 1500 pixels")
    st.set_page_config(page_title=f"{title} · mlviz",
                       page_icon=PAGE_ICON if os.path.exists(PAGE_ICON) else ":material/label:",
                       layout="wide", initial_sidebar_state="collapsed" if present.active() else "auto")
    notes = apply_url_schema(page)
    from .progress import session_id

    sessions.LEDGER.see(session_id(), runtime_session_id())
    sessions.watch()  # (uploads and session-only results of ended sessions are released)
    from .progress import enter_page

    st.session_state["mlviz_page_title"] = title  # (mlviz.dashboard.tour.PAGE_TITLE)
    enter_page(title)  # the work of the pages this session left gives way to this one's
    use_shared_plotly_template()
    _warm_upload_worker()
    navigation()
    dataset_picker()
    scaling_picker()
    try:
        ctx = current_context()
    except ValueError as exc:  # e.g. tf-idf on features with negative values
        st.sidebar.warning(f"Scaling {escape_markdown(scaling_choice())!s} does not apply here: "
                           f"{escape_markdown(shorten(exc, 200))} Using the default scaling.")
        try:
            ctx = (_upload_context if (st.session_state.get("data") or "") in uploaded_contexts()
                   else sample_context)(st.session_state.get("data") or DEFAULT_DATASET, AUTO)
        except Exception:
            ctx = sample_context(DEFAULT_DATASET)
    except Exception as exc:  # a broken sample must not take the whole app down
        st.error(f"Could not load data set {escape_markdown(shorten(st.session_state.get('data')))}: "
                 f"{escape_markdown(shorten(exc, 200))}. Falling back to {DEFAULT_DATASET}.")
        ctx = sample_context(DEFAULT_DATASET)
    notes += apply_url_schema(page, urls.DataShape(tuple(str(n) for n in ctx.label_names), int(ctx.Y_train.shape[0]),
                                                    int(ctx.Y_test.shape[0])))
    if notes:
        st.sidebar.caption(":material/link_off: Not taken from the link: "
                           + "; ".join(escape_markdown(n) for n in notes) + ".")
    _missing_upload_notice(page)
    n_tr, n_te = ctx.Y_train.shape[0], ctx.Y_test.shape[0]
    sparse = " (sparse)" if sp.issparse(ctx.X_train) else ""
    st.sidebar.caption(
        f"**{escape_markdown(shorten(ctx.name))}**: {format_count(n_tr)} train / {format_count(n_te)} "
        f"test instances ({'the standard Mulan split' if standard_split_of(ctx) else 'seeded split'}), "
        f"{format_count(ctx.dataset.n_features)} features{sparse}, "
        f"{format_count(ctx.n_labels)} labels. Features: {escape_markdown(_scaling_label(ctx.scaling))}, "
        "fitted on the training split."
    )
    st.sidebar.caption(
        ":material/link: **Share this view**: copy the browser address — it holds the data set "
        "and every control on the page."
    )
    from . import present, tour  # presentation mode (URL present=, hide=) and the guided tour (tour=)
    present.apply(), tour.panel(ctx)
    return ctx


def page_context(page_file: str) -> DataContext:
    """Set up the page file ``page_file`` (pass ``__file__``) under its registered title
    (:mod:`mlviz.dashboard.pages`) and return the data context: :func:`init_page`.

    Every page calls it first, so the sidebar's widgets belong to the page's own script run
    (under ``st.navigation`` or with the file run on its own).
    """
    from .pages import page_for_file

    return init_page(page_for_file(page_file).title, Path(page_file).name)
