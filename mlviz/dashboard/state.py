"""Shared page state: the chosen data set, its train/test split and the URL.

Every page (``app.py`` and each file in ``pages/``) starts with
``ctx = init_page("Title")``.  That call

* configures the page (title, wide layout);
* draws the sidebar data-set picker (a ``st.selectbox`` bound to the URL query
  parameter ``data``, so a copied URL reopens the same data set);
* returns a :class:`DataContext` holding the data set, a fixed train/test split
  and the **standardised** features every model on every page uses.

Feature preprocessing is decided once, here: dense features are standardised
with a ``StandardScaler`` fitted on the training split only; sparse features
(bag-of-words text such as enron, medical) are left as they are: scaling rare binary
words by 1/std makes them dominate kernels and slows logistic regression ~4x for a
lower score (enron BR-LR micro-F1 0.540 raw vs 0.524 scaled), and it is the
protocol of the baselines in ANCHORS.md.  The split is the
official one for ``scene`` and a seeded 2/3 - 1/3 split otherwise
(:func:`mlviz.data.load_sample_split`); uploads get the same seeded split.

Because every page calls the same initialiser, a page opened directly (a fresh
server, a shared link) works without visiting the home page first.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import streamlit as st

DEFAULT_DATASET = "emotions"
UPLOAD_PREFIX = "upload:"
TEST_FRACTION = 1 / 3
SPLIT_SEED = 0

_UPLOADS = "mlviz_uploads"  # session_state: id -> DataContext for uploaded data


@dataclass
class DataContext:
    """A data set ready for the dashboard.

    Attributes
    ----------
    key : str
        Stable identifier used in cache keys and the URL (``"emotions"`` or
        ``"upload:<name>:<hash>"``).
    dataset : mlviz.data.MultiLabelDataset
        The whole data set (train and test pooled), unscaled.
    X_train, X_test : ndarray or CSR of shape (n_train, d), (n_test, d)
        Standardised features (scaler fitted on the training split).
    Y_train, Y_test : ndarray of shape (n_train, L), (n_test, L), uint8
    """

    key: str
    dataset: object
    X_train: object
    Y_train: np.ndarray
    X_test: object
    Y_test: np.ndarray
    notes: list = field(default_factory=list)

    @property
    def label_names(self):
        return list(self.dataset.label_names)

    @property
    def n_labels(self):
        return self.Y_train.shape[1]

    @property
    def name(self):
        return self.dataset.name

    @property
    def X_train_dense(self):
        """Training features as a dense array (for PCA/UMAP and dense-only code)."""
        return self.X_train.toarray() if sp.issparse(self.X_train) else self.X_train


def standardise(X_train, X_test):
    """Standardise features with statistics of the training split only.

    Dense input is centred and scaled to unit variance; sparse (CSR) input
    (bag-of-words) is returned unchanged, as CSR float64.  Constant columns are
    left unscaled (scikit-learn's convention), so no NaN appears.
    """
    if sp.issparse(X_train):
        return sp.csr_matrix(X_train, dtype=np.float64), sp.csr_matrix(X_test, dtype=np.float64)
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler()
    Xtr = np.asarray(scaler.fit_transform(X_train), dtype=np.float64)
    Xte = np.asarray(scaler.transform(X_test), dtype=np.float64)
    return Xtr, Xte


def seeded_split(n_samples, test_fraction=TEST_FRACTION, random_state=SPLIT_SEED):
    """Return ``(train_idx, test_idx)`` of a seeded random split (at least 1 row each)."""
    rng = np.random.default_rng(random_state)
    perm = rng.permutation(n_samples)
    n_test = int(round(n_samples * test_fraction))
    n_test = min(max(n_test, 1), n_samples - 1)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _take(X, idx):
    return X[idx] if not sp.issparse(X) else X[idx, :]


def context_from_dataset(key, dataset):
    """Build a :class:`DataContext` for an (uploaded) data set with a seeded split."""
    if dataset.n_samples < 3:
        from mlviz.data import DataError

        raise DataError(
            f"{dataset.name}: need at least 3 instances for a train/test split, got {dataset.n_samples}."
        )
    tr, te = seeded_split(dataset.n_samples)
    Xtr, Xte = standardise(_take(dataset.X, tr), _take(dataset.X, te))
    return DataContext(key, dataset, Xtr, np.asarray(dataset.Y[tr]), Xte, np.asarray(dataset.Y[te]))


@st.cache_resource(max_entries=8, show_spinner="Loading the data set…")
def sample_context(name: str) -> DataContext:
    """Load a bundled sample with its train/test split (cached per server)."""
    from mlviz import data

    full = data.load_sample(name)
    train, test = data.load_sample_split(name)
    Xtr, Xte = standardise(train.X, test.X)
    return DataContext(name, full, Xtr, np.asarray(train.Y), Xte, np.asarray(test.Y))


@st.cache_data(show_spinner=False)
def sample_names() -> list:
    """Bundled sample names, default first (``scene`` pooled, its halves omitted)."""
    from mlviz import data

    names = [n for n in data.list_samples() if n not in ("scene-train", "scene-test")]
    names.sort(key=lambda n: (n != DEFAULT_DATASET, n))
    return names


def upload_id(name: str, content: bytes, label_file: bytes | None = None, options: dict | None = None) -> str:
    """Identifier of an upload: its (shortened) file name and the full SHA-256 of everything that
    makes the data set: the bytes, the XML label file's bytes, the label options, and the split
    and scaling rules of this module.  Two uploads share an id only if they give the same data."""
    import json

    from mlviz._text import shorten

    recipe = {"options": options or {}, "test_fraction": TEST_FRACTION, "split_seed": SPLIT_SEED,
              "scaling": "standardise dense features on the training split; sparse as is"}
    h = hashlib.sha256()
    for part in (content, label_file or b"", json.dumps(recipe, sort_keys=True, default=str).encode()):
        h.update(len(part).to_bytes(8, "little"))  # (length-prefixed: no two splits of bytes collide)
        h.update(part)
    return f"{UPLOAD_PREFIX}{shorten(str(name))}:{h.hexdigest()}"


def register_upload(ctx: DataContext) -> None:
    """Remember an uploaded data set for this session and make it current.

    Must run in a widget callback (before the sidebar picker is drawn).
    """
    st.session_state.setdefault(_UPLOADS, {})[ctx.key] = ctx
    st.session_state["data"] = ctx.key


def uploaded_contexts() -> dict:
    return st.session_state.get(_UPLOADS, {})


def _format_option(key):
    if key.startswith(UPLOAD_PREFIX):
        return "⬆ " + key[len(UPLOAD_PREFIX):].rsplit(":", 1)[0] + " (uploaded)"
    return key


def dataset_picker() -> str:
    """Sidebar select box of the data set, bound to the ``data`` URL parameter."""
    options = sample_names() + list(uploaded_contexts())
    current = st.session_state.get("data")
    if current is not None and current not in options:
        # e.g. a shared link naming an upload that only lived in another session
        st.session_state.pop("data", None)
        st.session_state["mlviz_missing_upload"] = current
    return st.sidebar.selectbox(
        "Data set",
        options,
        index=0,
        key="data",
        format_func=_format_option,
        bind="query-params",
        persist_state="session",
        help="Bundled Mulan data sets, plus anything you uploaded on the Home page in this session.",
    )


def current_context() -> DataContext:
    """The :class:`DataContext` of the data set chosen in the sidebar."""
    key = st.session_state.get("data") or DEFAULT_DATASET
    uploads = uploaded_contexts()
    if key in uploads:
        return uploads[key]
    return sample_context(key)


PAGES = [
    ("app.py", "Home · Data", ":material/home:"),
    ("pages/1_Embedding.py", "Embedding (MLLEM)", ":material/scatter_plot:"),
    ("pages/2_Label_graph.py", "Label graph (sparse CDN)", ":material/hub:"),
    ("pages/3_Posteriors.py", "Posteriors & thresholds", ":material/grid_on:"),
    ("pages/4_Compare.py", "Compare (CV, timing)", ":material/bar_chart:"),
    ("pages/5_Sandbox.py", "Sandbox (planted graph)", ":material/science:"),
    ("pages/6_Decision_rules.py", "Decision rules", ":material/tune:"),
]


def navigation():
    """Sidebar links to every page (Streamlit's own list would call the home page "app")."""
    with st.sidebar:
        st.markdown("### :material/label: mlviz")
        for path, label, icon in PAGES:
            try:
                st.page_link(path, label=label, icon=icon)
            except Exception:  # e.g. a page file missing in a partial checkout
                pass
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


def init_page(title: str, icon: str = ":material/label:") -> DataContext:
    """Configure a page, draw the shared sidebar and return the data context.

    Call this first on every page.
    """
    st.set_page_config(page_title=f"{title} · mlviz", page_icon=icon, layout="wide")
    use_shared_plotly_template()
    navigation()
    dataset_picker()
    try:
        ctx = current_context()
    except Exception as exc:  # a broken sample must not take the whole app down
        st.error(f"Could not load data set {st.session_state.get('data')!r}: {exc}. Falling back to {DEFAULT_DATASET}.")
        ctx = sample_context(DEFAULT_DATASET)
    missing = st.session_state.pop("mlviz_missing_upload", None)
    if missing:
        st.sidebar.warning(
            "The link named an uploaded data set that is not in this session; showing "
            f"**{ctx.name}** instead. Upload the file again on the Home page."
        )
    n_tr, n_te = ctx.Y_train.shape[0], ctx.Y_test.shape[0]
    sparse = " (sparse)" if sp.issparse(ctx.X_train) else ""
    st.sidebar.caption(
        f"**{ctx.name}**: {n_tr} train / {n_te} test instances, "
        f"{ctx.dataset.n_features} features{sparse}, {ctx.n_labels} labels. "
        + ("Sparse (bag-of-words) features are used as they are."
           if sparse else "Features are standardised with mean/std of the training split.")
    )
    st.sidebar.caption(
        ":material/link: **Share this view**: copy the browser address — it holds the data set "
        "and every control on the page."
    )
    return ctx

