"""mlviz — Home / Data: pick a bundled data set or upload one, and see what it looks like."""

import streamlit as st

from mlviz._text import escape_markdown, shorten
from mlviz.dashboard import cache, explain, present, state, tour, upload, widgets

ctx = state.page_context(__file__)

st.title(":material/label: mlviz — multi-label learning, made visible")
st.markdown(
    "**1.** Pick a data set in the sidebar (default *emotions*) or upload your own below. "
    "**2.** Open a view in the sidebar: **Embedding** (labels and instances in one map), "
    "**Label graph** (which labels depend on which), **Posteriors** (per-label probabilities and "
    "thresholds), **Compare** (cross-validation and timing). "
    "**3.** Share what you see: the browser address holds the data set and every slider."
)

if not present.hidden("upload"):
    with st.expander(":material/upload: Upload your own data set", expanded=state.missing_upload() is not None):
        upload.upload_section()

explain.explain("data")

st.header(f"Data set: {escape_markdown(shorten(ctx.name))}")
summary = cache.dataset_summary(ctx)
m = st.columns(8)
for col, (label, value, helptext) in zip(m, summary["metrics"]):
    col.metric(label, value, help=helptext)
present.takeaway(tour.data_text(tour.data_numbers(ctx)))
for note in getattr(ctx.dataset, "notes", []) or []:
    st.caption(f":material/info: {escape_markdown(shorten(note, 600))}")

tab_stats, tab_preview = st.tabs(["Statistics", "Preview"])
with tab_stats:
    st.dataframe(summary["table"], width="stretch")
    widgets.download_table(summary["table"], f"{ctx.name}_statistics", key="dl_stats")
with tab_preview:
    preview = cache.preview_frame(ctx, n_rows=50)
    st.caption(f"First {len(preview)} instances: the labels (✓, in brackets) first, then the raw (unscaled) features.")
    st.dataframe(preview, width="stretch", height=320)
    widgets.download_table(preview, f"{ctx.name}_preview", key="dl_preview")


@st.fragment
def label_figures():
    from mlviz import plotting

    left, right = st.columns(2)
    with left:
        st.subheader("Label frequency")
        fig = plotting.label_frequency_bar(ctx.label_names, summary["counts"], title=None)
        widgets.show_figure(fig, f"{ctx.name}_label_frequency", key="fig_freq")
    with right:
        st.subheader("Label co-occurrence")
        norm = st.radio(
            "Show", ["counts", "jaccard", "conditional"], horizontal=True, key="cooc_norm",
            bind="query-params",
            help="counts: instances with both labels; jaccard: |both| / |either|; conditional: P(column | row).",
        )
        fig = plotting.cooccurrence_heatmap(
            summary["cooccurrence"], ctx.label_names, normalize=None if norm == "counts" else norm
        )
        widgets.show_figure(fig, f"{ctx.name}_cooccurrence", key="fig_cooc")


label_figures()


# ------------------------------------------------------------------ report pack (every page's figures and tables)
def report_section():
    from mlviz.dashboard import report_pack
    from mlviz.dashboard.methods import METHODS

    report_pack.section(
        ctx, {"br": METHODS["br"].complete({})}, key="home_pack",
        figures=widgets.figures_drawn({"fig_freq": "Label frequency", "fig_cooc": "Label co-occurrence"}),
        tables={"Statistics": summary["table"], f"Preview (first {len(preview)} instances)": preview},
        identity={"cooc_norm": st.session_state.get("cooc_norm")},
        notes=["Home shows the data set and no model: the pack carries binary relevance with logistic regression "
               "(BR-LR) at its dashboard defaults, the plain baseline, so measures.csv holds the first numbers any "
               "method is compared with, and reproduce.py checks the data's SHA-256 before it refits it."])


report_section()
