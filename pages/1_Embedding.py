"""Embedding: MLLEM's joint map of instances and labels, beside UMAP and PCA."""

import numpy as np
import pandas as pd
import streamlit as st

from mlviz._text import escape_markdown, shorten
from mlviz.dashboard import cache, compute, explain, focus, jobs, linked, methods, present, progress, state, widgets

ctx = state.page_context(__file__)
LINKED = linked.selection_bar(ctx)  # the label, edge and instances chosen on any page (URL: sel_*)
st.title(":material/scatter_plot: Embedding — labels and instances in one map")
st.caption("MLLEM (Kimura, Kudo & Sun) embeds instances and labels together; an instance lies near its labels.")
explain.explain("embedding")

MLLEM = methods.METHODS["mllem"]
label_sets_train = cache.labelset_strings(ctx, "train")
label_sets_test = cache.labelset_strings(ctx, "test")
train_counts = np.asarray(ctx.Y_train.sum(axis=0), dtype=float).ravel()


def posteriors_train_test(m):
    """``(P_train, P_test)`` of method ``m`` at its defaults (None while computed); raises on failure."""
    job = compute.model_result(
        ctx, m, m.defaults(), "proba-train-test",
        lambda mod: (compute.finite(mod.predict_proba(ctx.X_train)), compute.finite(mod.predict_proba(ctx.X_test))),
        owner=progress.owner("embedding|colour"))
    out, _ = progress.result(job, settings={"model": m.label}, slot="embedding|colour",
                             label=f"Fitting {m.label} for the posteriors")
    return None if out is None else out[0]


def colour_controls():
    c1, c2, c3 = st.columns([1.2, 1.5, 1.5])
    mode = c1.radio("Colour instances by", ["a label", "label count", "posterior"], key="emb_color",
                    horizontal=False, bind="query-params")
    if LINKED.label is not None and st.session_state.get("emb_label") != ctx.label_names[LINKED.label]:
        st.session_state["emb_label"] = ctx.label_names[LINKED.label]  # the shared label leads
    label = c2.selectbox("Label", ctx.label_names, key="emb_label", bind="query-params",
                         disabled=mode == "label count",
                         on_change=lambda: linked.set_label(st.session_state.get("emb_label")))
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
    try:
        out = posteriors_train_test(m)
    except Exception as exc:
        st.warning(f"{m.label} failed on this data set ({escape_markdown(exc, 200)}); colouring by the label instead.")
        return fallback
    if out is None:
        return fallback
    P_tr, P_te = out
    return (np.clip(np.nan_to_num(P_tr[:, li]), 0, 1).astype(float),
            np.clip(np.nan_to_num(P_te[:, li]), 0, 1).astype(float), f"P({label} | x), {m.label}")


COLOR, TEST_COLOR, COLOR_TITLE = colour_controls()
SELECTION = focus.label_selector(ctx.label_names, train_counts, prefix="labels")


def embedding_job(values, owner, priority=jobs.USER):
    """The job computing MLLEM's ``(training coordinates, label coordinates, test coordinates)``."""
    return compute.model_result(ctx, MLLEM, values, "embedding",
                                lambda m: (m.embedding_.copy(), m.label_embedding_.copy(), m.transform(ctx.X_test)),
                                owner=owner, priority=priority)


def embedding_controls():
    """``(values, show_test)`` of the map's controls (drawn in the right column)."""
    dims = st.segmented_control("Dimensions", [2, 3], default=2, key="emb_dims", format_func=lambda d: f"{d}-D",
                                bind="query-params") or 2
    values = widgets.param_controls(MLLEM, prefix="emb_", only=[p.name for p in MLLEM.sliders
                                                                if p.name != "n_components"])
    show_test = st.toggle("Show held-out test instances", value=True, key="emb_test", bind="query-params")
    values["n_components"] = int(dims)
    return values, show_test


def embedding_result(values):
    """``((G, H, T), values shown)`` of MLLEM at ``values`` (the previous result while it computes), or None."""
    job = embedding_job(values, progress.owner("embedding"))
    asked = dict(values)
    try:
        out, values = progress.result(job, settings=values, slot="embedding", label="Embedding with MLLEM",
                                      widgets={k: f"emb_mllem_{k}" for k in values if k != "n_components"})
    except Exception as exc:
        st.error(f"MLLEM could not embed this data set with these settings: {escape_markdown(exc, 200)}. "
                 "Try a larger k (instances) or α > 0.")
        return None
    if out is None:
        return None
    if values == asked:  # ahead of the next move: each slider's neighbouring values (a refit takes
        # seconds at ~1,000 labels × 10k instances, a cached answer ~0.1 s)
        compute.prefetch(MLLEM, values, progress.owner("embedding"), embedding_job)
    return out[0], values


def embedding_figure(coords, values, show_test, color, test_color, color_title, effect):
    """The joint map with the linked selection and the edge effect's instances ringed."""
    from mlviz import plotting
    from mlviz.plotting.linked import add_highlight

    G, H, T = coords
    dims = int(values["n_components"])
    fig = plotting.embedding_scatter(
        G[:, :dims], H[:, :dims], ctx.label_names, color=color, color_title=color_title,
        hover_text=label_sets_train, test_coords=T[:, :dims] if show_test else None,
        test_hover_text=label_sets_test if show_test else None, test_color=test_color if show_test else None,
        dims=dims, title=f"MLLEM joint embedding ({dims}-D, {values['mapping']} test mapping)",
        label_weights=train_counts, focus_labels=SELECTION.indices,
        max_label_names=min(max(len(SELECTION.indices), 1), 50), text_scale=present.text_scale(),
    )
    ring = dict(dims=dims, color="#111111")
    if LINKED.rows is not None:  # the shared instance selection, ringed
        fig = add_highlight(fig, G, np.flatnonzero(LINKED.rows.mask(ctx.Y_train, "train")), name="selected (train)",
                            hover_text=label_sets_train, **ring)
        if show_test:
            fig = add_highlight(fig, T, np.flatnonzero(LINKED.rows.mask(ctx.Y_test, "test")),
                                name="selected (test)", hover_text=label_sets_test, **ring)
    if effect is not None and show_test:
        from mlviz.models.cdn_effects import top_instances

        fig = add_highlight(fig, T, top_instances(effect.delta, linked.EDGE_TOP),
                            name="edge effect: top test instances",
                            dims=dims, color="#FF7F0E", hover_text=label_sets_test)
    return fig


def on_lasso(fig):
    """A box / lasso becomes the shared instance selection (at most linked.MAX_IDS ids in the URL)."""
    from mlviz import plotting

    event = st.session_state.get("fig_embedding") or {}
    sel = event.get("selection") if hasattr(event, "get") else getattr(event, "selection", None)
    points = list((sel.get("points") if hasattr(sel, "get") else getattr(sel, "points", None)) or [])
    ids = plotting.selection_ids(fig, points)
    before = st.session_state.get(linked.ROWS_KEY) or ""
    if ids["train"].size + ids["test"].size == 0:  # (a cleared lasso clears a lasso selection only)
        after, dropped = ("" if before.startswith("ids:") else before), 0
    else:
        after, dropped = linked.encode_ids(ids["train"], ids["test"])
    if after != before:  # (a redrawn figure resets its selection: no extra rerun for that)
        linked.set_rows(after)
        st.session_state["emb_lasso_dropped"] = dropped
        st.session_state["emb_lasso_changed"] = True


def embedding_caption(coords, show_test, dims):
    G, H, T = coords
    st.caption(
        f"{len(G)} training instances (dots), {len(T) if show_test else 0} test instances (crosses), "
        f"{len(H)} labels (diamonds"
        + (")" if SELECTION.everything else f": {SELECTION.description} drawn with their names; the others under "
                                            "the legend entry “other labels”)")
        + ". Draw a box or lasso (2-D) to select instances on every page; ringed: the linked selection"
        + ("." if show_test or (LINKED.rows is None and LINKED.edge is None) else " (test instances hidden).")
    )
    present.takeaway(f"MLLEM puts {len(G)} training instances and {len(H)} labels in one {dims}-D map: an instance "
                     "lies near the labels it carries.")


@st.fragment  # (the controls with the map they draw: a slider's rerun of this fragment redraws the map)
@progress.foreground  # this session's prefetch work waits for this rerun
def embedding_view(color, test_color, color_title):
    left, right = st.columns([3, 2])
    with right:
        values, show_test = embedding_controls()
    got = embedding_result(values)
    if got is None:
        return
    coords, values = got
    effect = None if LINKED.edge is None else linked.edge_effect_result(ctx, LINKED.edge, "embedding|edge-effect")
    fig = embedding_figure(coords, values, show_test, color, test_color, color_title, effect)
    with left:
        st.plotly_chart(present.screen_figure(fig), key="fig_embedding", on_select=lambda: on_lasso(fig),
                        selection_mode=("box", "lasso"), theme=None)
        widgets.download_figure(fig, f"{ctx.name}_mllem_embedding", key="dl_emb")
        widgets.remember_figure("fig_embedding", fig)  # (for the report pack)
    if st.session_state.pop("emb_lasso_changed", False):
        st.rerun(scope="app")  # (the sidebar and the other panels show the new selection)
    embedding_caption(coords, show_test, values["n_components"])
    if effect is not None:
        linked.edge_effect_panel(ctx, effect, label_sets_test, key="emb_edge_table")


embedding_view(COLOR, TEST_COLOR, COLOR_TITLE)

#: "Compare with" choices: display name -> method key (the label-embedding baselines of Kimura et al.).
OTHER_EMBEDDINGS = {"none": None, "CPLST": "cplst", "FaIE": "faie", "LEML": "leml", "SLEEC": "sleec"}


def latent_codes_job(m, owner):
    """The job computing ``(transform(X_train), transform(X_test), label_codes_ or None)`` of ``m`` at its defaults."""
    def codes(model):
        H = getattr(model, "label_codes_", None)
        return (np.asarray(model.transform(ctx.X_train), dtype=float), np.asarray(model.transform(ctx.X_test),
                                                                                  dtype=float),
                None if H is None else np.array(H, dtype=float))
    return compute.model_result(ctx, m, m.defaults(), "latent-codes", codes, owner=owner)


@st.fragment
def other_embedding_view(color, test_color, color_title):
    """Another method's latent space (PCA of its codes, its label codes alike) below the MLLEM map."""
    from mlviz import plotting

    choice = st.selectbox(
        "Compare with", list(OTHER_EMBEDDINGS), key="emb_other", bind="query-params",
        help="Fit a label-embedding method at its default hyperparameters and draw its latent space: its "
             "instance codes projected to 2-D by PCA, its label codes projected the same way.")
    if OTHER_EMBEDDINGS.get(choice) is None:
        return
    m = methods.METHODS[OTHER_EMBEDDINGS[choice]]
    job = latent_codes_job(m, progress.owner("embedding|other"))
    try:
        out, drawn = progress.result(job, settings={"model": m.label}, slot="embedding|other",
                                     label=f"Fitting {m.label} at its defaults for its latent space")
    except Exception as exc:  # noqa: BLE001 - shown, never a traceback
        st.error(f"{m.label} could not be fitted on this data set: {escape_markdown(exc, 200)}")
        return
    if out is None:
        return
    (T, T_test, H), _ = out
    name = drawn["model"]  # (while another choice computes: the one drawn before)
    linear = OTHER_EMBEDDINGS.get(name) != "sleec"
    show_test = bool(st.session_state.get("emb_test", True))
    fig = plotting.latent_scatter(
        T, H, ctx.label_names, method=name, test_codes=T_test if show_test else None, color=color,
        color_title=color_title, hover_text=label_sets_train, test_hover_text=label_sets_test if show_test else None,
        test_color=test_color if show_test else None, focus_labels=SELECTION.indices, label_weights=train_counts,
        max_label_names=min(max(len(SELECTION.indices), 1), 50), label_scale="match" if linear else None,
        title=f"{name} latent space (default hyperparameters), in 2-D", text_scale=present.text_scale())
    widgets.show_figure(fig, f"{ctx.name}_{name.lower()}_latent", key="fig_emb_other")
    decoding = ("label l's score is ȳ_l + ⟨code, label code_l⟩, a linear decoding of the latent space: an instance "
                "points towards its labels' codes, it need not lie near them (label points rescaled by one factor, "
                "which changes no score's ranking)" if linear else
                "SLEEC's codes keep the label-set neighbourhoods of the training instances (its prediction is a "
                "vote of the nearest codes); a label's point is the mean code of its positive training instances, "
                "a summary drawn here, not part of the method")
    st.caption(f"{name} maps each instance to a {T.shape[1]}-D code; " + decoding
               + ". In MLLEM, labels and instances are nodes of one graph embedded together, so an instance is "
                 "placed near the labels it carries and the distance between the two is read directly off the map.")


st.subheader("Beside MLLEM: another method's latent space")
other_embedding_view(COLOR, TEST_COLOR, COLOR_TITLE)


def selection_panel(rows):
    """The linked instance selection: how many, their label sets, their mean posteriors beside everyone's."""
    from mlviz.plotting.linked import selection_profile_figure

    m_tr, m_te = rows.mask(ctx.Y_train, "train"), rows.mask(ctx.Y_test, "test")
    n_tr, n_te = int(m_tr.sum()), int(m_te.sum())
    st.subheader(f"Selected: {n_tr + n_te} instances")
    dropped = st.session_state.get("emb_lasso_dropped", 0) if rows.ids is not None else 0
    st.caption(f"{n_tr} training + {n_te} test instances"
               + (f" (the lasso held {n_tr + n_te + dropped}; the URL keeps the first {linked.MAX_IDS})"
                  if dropped else "")
               + ". The same instances are ringed in the map above and listed on the Posteriors page.")
    if n_tr + n_te == 0:
        st.info("No instance of this data set is in the selection.")
        return
    sel = pd.DataFrame([("train", int(i), label_sets_train[int(i)]) for i in np.flatnonzero(m_tr)]
                       + [("test", int(i), label_sets_test[int(i)]) for i in np.flatnonzero(m_te)],
                       columns=["split", "row", "label set"])
    top = sel["label set"].value_counts().head(5)
    st.caption("Most common label sets: " + "; ".join(f"{escape_markdown(k or '∅', 200)} ×{v}" for k, v in top.items()))
    left, right = st.columns([2, 3])
    with left:
        st.dataframe(sel, width="stretch", height=300, hide_index=True)
        widgets.download_table(sel, f"{ctx.name}_selection", key="dl_sel", index=False)
    with right:
        m = methods.METHODS[st.session_state.get("emb_model") or "mllspc"]
        try:
            P = posteriors_train_test(m)
        except Exception as exc:  # noqa: BLE001 - shown, never a traceback
            st.warning(f"{m.label} failed on this data set: {escape_markdown(exc, 200)}")
            return
        if P is None:
            return
        P_all = np.vstack([P[0], P[1]])
        mask = np.concatenate([m_tr, m_te])
        fig = selection_profile_figure(
            P_all, mask, ctx.label_names, what=f"P(y=1|x), {m.label}",
            title=f"Mean {m.label} posterior: the {int(mask.sum())} selected beside all {len(mask)} instances")
        widgets.show_figure(fig, f"{ctx.name}_selection_profile", key="fig_sel_profile")


def upset_panel():
    """UpSet-style counts of the exact label sets; a click (or the list) selects a set's instances everywhere."""
    from mlviz.plotting.upset import EMPTY_SET, selected_intersections, set_name, upset_figure

    st.subheader("Label sets (UpSet): which combinations occur, and how often")
    Y_all = np.vstack([np.asarray(ctx.Y_train), np.asarray(ctx.Y_test)])
    k = st.slider("Label sets shown", 5, 40, 15, 5, key="upset_k", bind="query-params")
    chosen = LINKED.rows.members if LINKED.rows is not None else None
    fig = cache.figure(f"{ctx.key}|upset|{k}|{chosen}", lambda: upset_figure(
        Y_all, ctx.label_names, top_k=k, selected=chosen,
        title=f"The {k} most frequent exact label sets of all {len(Y_all)} instances"))
    sets = [tuple(s) for s in fig.layout.meta["sets"]]

    def on_click():
        event = st.session_state.get("fig_upset") or {}
        sel = event.get("selection") if hasattr(event, "get") else getattr(event, "selection", None)
        points = list((sel.get("points") if hasattr(sel, "get") else getattr(sel, "points", None)) or [])
        picked = selected_intersections(fig, points)
        if picked:
            linked.set_rows(linked.encode_set(picked[0]))

    widgets.show_figure(fig, f"{ctx.name}_upset", key="fig_upset", on_select=on_click, selection_mode=("points",))
    counts = dict(zip(sets, fig.layout.meta["counts"]))
    options = [""] + [linked.encode_set(s) for s in sets]
    current = st.session_state.get(linked.ROWS_KEY) or ""
    st.session_state["upset_pick"] = current if current in options else ""

    def fmt(text):
        if not text:
            return "— none —"
        s = sets[options.index(text) - 1]
        return f"{shorten(set_name(s, ctx.label_names), 80) if s else EMPTY_SET} ({counts[s]} instances)"

    st.selectbox("Select the instances of a label set (or click its bar)", options, key="upset_pick", format_func=fmt,
                 on_change=lambda: linked.set_rows(st.session_state.get("upset_pick") or ""),
                 help="Selects the instances whose label set is exactly this one, on every page (URL: sel_rows).")


if LINKED.rows is not None:
    selection_panel(LINKED.rows)
upset_panel()


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
                # after the MLLEM map: as prefetch work it starts (and its process runs) only while this
                # session computes nothing else
                job = compute.task(ctx.key, "umap", {"random_state": 0}, cache.umap_fn(ctx),
                                   owner=progress.owner("umap"), priority=jobs.PREFETCH)
                coords, _ = progress.result(job, settings={"random_state": 0}, slot="umap",
                                            label="Computing the UMAP layout once the MLLEM map is done "
                                                  "(first time: compiling numba, ~20 s)")
                fig = None if coords is None else plotting.instance_scatter(coords, color=color,
                                                color_title=color_title,
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


# ------------------------------------------------------------------ report pack (every page's figures)
def report_section():
    from mlviz.dashboard import report_pack

    values = {p.name: st.session_state.get(f"emb_mllem_{p.name}", p.default) for p in MLLEM.sliders}
    values["n_components"] = int(st.session_state.get("emb_dims") or 2)
    report_pack.section(ctx, {"mllem": MLLEM.complete(values)}, key="emb_pack",
                        figures=widgets.figures_drawn(["fig_embedding", "fig_emb_other", "fig_upset", "fig_sel_profile",
                                                       "fig_umap", "fig_pca"]),
                        notes=["The measures are MLLEM's posteriors on the test rows at threshold 0.5; the "
                               "figures are the page's (the map, the label sets, UMAP / PCA)."])


report_section()
