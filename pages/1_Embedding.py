"""Embedding: MLLEM's joint map of instances and labels, beside UMAP and PCA."""

import numpy as np
import pandas as pd
import streamlit as st

from mlviz._text import escape_markdown
from mlviz.dashboard import cache, compute, explain, focus, methods, progress, state, widgets
from mlviz.dashboard import present  # (#17: presentation-mode takeaway)

ctx = state.init_page("Embedding", ":material/scatter_plot:")
st.title(":material/scatter_plot: Embedding — labels and instances in one map")
st.caption("MLLEM (Kimura, Kudo & Sun) embeds instances and labels together; an instance lies near its labels.")
explain.explain("embedding")

MLLEM = methods.METHODS["mllem"]
label_sets_train = cache.labelset_strings(ctx, "train")
label_sets_test = cache.labelset_strings(ctx, "test")
train_counts = np.asarray(ctx.Y_train.sum(axis=0), dtype=float).ravel()


def colour_controls():
    c1, c2, c3 = st.columns([1.2, 1.5, 1.5])
    mode = c1.radio("Colour instances by", ["a label", "label count", "posterior"], key="emb_color",
                    horizontal=False, bind="query-params")
    label = c2.selectbox("Label", ctx.label_names, key="emb_label", bind="query-params",
                         disabled=mode == "label count")
    model_key = c3.selectbox(
        "Posterior of model", [k for k in methods.POSTERIOR_METHODS if k != "mllem"], key="emb_model",
        format_func=lambda k: methods.METHODS[k].label, bind="query-params", disabled=mode != "posterior",
        help="Colour = the model's P(label | x) with default hyperparameters.",
    )
    li = ctx.label_names.index(label)
    if mode == "label count":
        return ctx.Y_train.sum(1).astype(int), ctx.Y_test.sum(1).astype(int), "labels per instance"
    if mode == "a label":
        return ctx.Y_train[:, li].astype(bool), ctx.Y_test[:, li].astype(bool), f"has '{label}'"
    m = methods.METHODS[model_key]
    fallback = ctx.Y_train[:, li].astype(bool), ctx.Y_test[:, li].astype(bool), f"has '{label}'"
    job = compute.model_result(
        ctx, m, m.defaults(), "proba-train-test",
        lambda mod: (compute.finite(mod.predict_proba(ctx.X_train)), compute.finite(mod.predict_proba(ctx.X_test))),
        owner=progress.owner("embedding|colour"))
    try:
        out, _ = progress.result(job, settings={"model": m.label}, slot="embedding|colour",
                                 label=f"Fitting {m.label} for the colours")
    except Exception as exc:
        st.warning(f"{m.label} failed on this data set ({escape_markdown(exc, 200)}); colouring by the label instead.")
        return fallback
    if out is None:
        return fallback
    P_tr, P_te = out[0]
    return (np.clip(np.nan_to_num(P_tr[:, li]), 0, 1).astype(float),
            np.clip(np.nan_to_num(P_te[:, li]), 0, 1).astype(float), f"P({label} | x), {m.label}")


COLOR, TEST_COLOR, COLOR_TITLE = colour_controls()
SELECTION = focus.label_selector(ctx.label_names, train_counts, prefix="labels")


@st.fragment
@progress.foreground  # this session's prefetch work waits for this rerun
def embedding_view(color, test_color, color_title):
    left, right = st.columns([3, 2])
    with right:
        dims = st.segmented_control("Dimensions", [2, 3], default=2, key="emb_dims", format_func=lambda d: f"{d}-D",
                                    bind="query-params") or 2
        values = widgets.param_controls(MLLEM, prefix="emb_", only=[p.name for p in MLLEM.params
                                                                    if p.name != "n_components"])
        show_test = st.toggle("Show held-out test instances", value=True, key="emb_test", bind="query-params")
    values["n_components"] = int(dims)
    job = compute.model_result(ctx, MLLEM, values, "embedding",
                               lambda m: (m.embedding_.copy(), m.label_embedding_.copy(), m.transform(ctx.X_test)),
                               owner=progress.owner("embedding"))
    try:
        out, values = progress.result(job, settings=values, slot="embedding", label="Embedding with MLLEM",
                                      widgets={k: f"emb_mllem_{k}" for k in values if k != "n_components"})
    except Exception as exc:
        st.error(f"MLLEM could not embed this data set with these settings: {escape_markdown(exc, 200)}. "
                 "Try a larger k (instances) or α > 0.")
        return
    if out is None:
        return
    G, H, T = out[0]
    dims = values["n_components"]
    from mlviz import plotting

    fig = plotting.embedding_scatter(
        G[:, :dims], H[:, :dims], ctx.label_names, color=color, color_title=color_title,
        hover_text=label_sets_train, test_coords=T[:, :dims] if show_test else None,
        test_hover_text=label_sets_test if show_test else None, test_color=test_color if show_test else None,
        dims=int(dims), title=f"MLLEM joint embedding ({dims}-D, {values['mapping']} test mapping)",
        label_weights=train_counts, focus_labels=SELECTION.indices, max_label_names=min(max(len(SELECTION.indices), 1), 50),
    )
    with left:
        event = st.plotly_chart(fig, key="fig_embedding", on_select="rerun", selection_mode=("box", "lasso"),
                                theme=None)
        widgets.download_figure(fig, f"{ctx.name}_mllem_embedding", key="dl_emb")
    st.caption(
        f"{len(G)} training instances (dots), {len(T) if show_test else 0} test instances (crosses), "
        f"{len(H)} labels (diamonds"
        + (")" if SELECTION.everything else f": {SELECTION.description} drawn with their names; the others under "
                                            "the legend entry “other labels”)")
        + ". Draw a box or lasso (2-D) to list instances."
    )
    present.takeaway(f"MLLEM puts {len(G)} training instances and {len(H)} labels in one {dims}-D map: an instance lies near the labels it carries.")  # noqa: E501 (#17 hook)
    points = []
    try:
        points = list(event.selection.points) if event and event.selection else []
    except AttributeError:
        points = []
    ids = plotting.selection_ids(fig, points)
    rows = [("train", int(i), label_sets_train[int(i)]) for i in ids["train"]] + [
        ("test", int(i), label_sets_test[int(i)]) for i in ids["test"]]
    if rows:
        sel = pd.DataFrame(rows, columns=["split", "row", "label set"])
        st.subheader(f"Selected: {len(sel)} instances")
        top = sel["label set"].value_counts().head(5)
        st.caption("Most common label sets: " + "; ".join(f"{escape_markdown(k or '∅', 200)} ×{v}" for k, v in top.items()))
        st.dataframe(sel, width="stretch", height=240, hide_index=True)
        st.download_button("CSV", data=lambda: plotting.tables.to_csv_bytes(sel), mime="text/csv", key="dl_sel",
                           file_name="".join(ch if ch.isalnum() or ch in "-_." else "_"
                                             for ch in f"{ctx.name}_selection") + ".csv",
                           on_click="ignore", icon=":material/download:",
                           help="The selected instances; cells a spreadsheet would run as formulas are neutralised.")


embedding_view(COLOR, TEST_COLOR, COLOR_TITLE)

st.divider()
st.subheader("For comparison: UMAP and PCA of the same training instances (features only)")


@st.fragment
def comparison_view(color, color_title):
    from mlviz import plotting

    show_umap = st.toggle("Compute UMAP (the first run compiles numba: ~20 s)", value=True, key="emb_umap",
                          bind="query-params")
    c1, c2 = st.columns(2)
    with c1:
        if show_umap:
            try:
                job = compute.task(ctx.key, "umap", {"random_state": 0}, cache.umap_fn(ctx),
                                   owner=progress.owner("umap"))
                coords, _ = progress.result(job, settings={"random_state": 0}, slot="umap",
                                            label="Computing the UMAP layout (first time: compiling numba, ~20 s)")
                fig = None if coords is None else plotting.instance_scatter(coords, color=color, color_title=color_title,
                                                hover_text=label_sets_train, title="UMAP (random_state=0)",
                                                axis_title="UMAP")
                if fig is not None:
                    widgets.show_figure(fig, f"{ctx.name}_umap", key="fig_umap")
            except Exception as exc:
                st.warning(f"UMAP failed on this data set: {escape_markdown(exc, 200)}")
        else:
            st.info("UMAP is switched off.")
    with c2:
        coords, ratio = cache.pca_layout(ctx)
        fig = plotting.instance_scatter(
            coords, color=color, color_title=color_title, hover_text=label_sets_train,
            title=f"PCA (explained variance {100 * ratio[0]:.0f}% + {100 * ratio[1]:.0f}%)", axis_title="PC",
        )
        widgets.show_figure(fig, f"{ctx.name}_pca", key="fig_pca")


comparison_view(COLOR, COLOR_TITLE)
