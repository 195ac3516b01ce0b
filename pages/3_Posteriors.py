"""Posteriors: P(y_l = 1 | x) of test instances per model, the decision rule drawn on the figures, live measures."""


import numpy as np
import pandas as pd
import streamlit as st

from mlviz._text import escape_markdown
from mlviz.dashboard import cache, compute, explain, linked, methods, present, progress, report_pack, state, widgets
from mlviz.dashboard.urls import posterior_row_choices
from mlviz.plotting.tables import for_display

ctx = state.page_context(__file__)
LINKED = linked.selection_bar(ctx)  # the label, edge and instances chosen on any page (URL: sel_*)
st.title(":material/grid_on: Posteriors — per-label probabilities on the test set")
st.caption(f"Models are fitted on the {ctx.Y_train.shape[0]} training instances of **{escape_markdown(ctx.name)}** "
           f"and evaluated on its {ctx.Y_test.shape[0]} test instances.")
explain.explain("posteriors")

HEADLINE = ["micro_f1", "macro_f1", "example_f1", "hamming_loss", "subset_accuracy", "macro_auc"]
OWN, GLOBAL, PER_LABEL, RANK = "each model's own rule", "global", "per label", "rank cut"
L, N_TEST = ctx.n_labels, ctx.Y_test.shape[0]
LABEL_CHOICES = [5, 10, 20, 30, 50]  # at most 50 labels (and per-label sliders) at full width
ROW_CHOICES = posterior_row_choices(N_TEST)  # sizes below the test set's, then all of it

chosen = st.multiselect(
    "Models", methods.POSTERIOR_METHODS, default=["mllspc"], key="post_models",
    format_func=lambda k: methods.METHODS[k].label, bind="query-params",
    help="Each model gets its own hyperparameter sliders; a slider move refits only that model.",
)

#: the tables drawn in this run, caption -> DataFrame (the report pack's tables)
pack_tables = {}


def threshold_control():
    """The decision rule: ``(mode, threshold or None, text)``; per-label sliders only for the labels drawn."""
    from mlviz.metrics import RCut

    mode = st.radio(
        "Decision rule", [OWN, GLOBAL, PER_LABEL, RANK], key="thr_mode", horizontal=True, bind="query-params",
        help="Own rule: each model's predict (its documented rule, shown under its name; e.g. MLRH's most "
             "probable label set). Global: one probability cut for all labels. Per label: one cut for each label "
             "drawn, one for all the others. Rank cut: the top-r labels of each instance.")
    if mode == GLOBAL:
        t = st.slider("Global threshold t", 0.05, 0.95, 0.5, 0.05, key="thr_global", bind="query-params")
        return mode, float(t), f"P ≥ {t:.2f}"
    if mode == RANK:
        r = st.slider("Top r labels per instance", 1, max(1, L), 1, key="thr_rank", bind="query-params")
        return mode, RCut(int(r)), f"top-{r}"
    if mode == PER_LABEL:
        thr = np.full(L, 0.5)
        if len(SHOWN) < L:
            rest = st.slider(f"The other {L - len(SHOWN)} labels", 0.05, 0.95, 0.5, 0.05, key="thr_rest",
                             bind="query-params")
            thr[:] = rest
        cols = st.columns(min(len(SHOWN), 6))
        for i, j in enumerate(SHOWN):
            thr[j] = cols[i % len(cols)].slider(escape_markdown(str(ctx.label_names[j]), 24), 0.05, 0.95, 0.5,
                                                0.05, key=f"thr_l{j}", bind="query-params")
        return mode, thr, "per-label thresholds"
    return mode, None, "each model's own rule"


# ------------------------------------------------------------------ what is drawn
c1, c2, c3, c4 = st.columns([1.2, 1.2, 1.2, 1.6])
if L > 20:  # (up to 20 labels are all drawn)
    n_shown = c1.select_slider("Labels at full width", LABEL_CHOICES, value=20 if L > 20 else LABEL_CHOICES[-1],
                               key="post_labels", bind="query-params",
                               help="The most frequent labels in the training set; every label's AUC and F1 "
                                    "stay in the strip under the heat map (hover for names).")
else:
    n_shown = L
    c1.caption(f"All {L} labels drawn.")
n_rows = (c2.select_slider("Test instances drawn", ROW_CHOICES, value=min(ROW_CHOICES, key=lambda c: abs(c - 500)),
                           key="post_rows", bind="query-params",
                           help="A seeded random sample of the test rows is drawn; the measures use all of them."
                                + (f" {N_TEST}: all of them." if ROW_CHOICES[-1] == N_TEST else ""))
          if len(ROW_CHOICES) > 1 else N_TEST)
label_order = c3.radio("Label order", ["frequency", "cluster", "data"], key="post_order", bind="query-params",
                       help="frequency: most frequent first; cluster: labels with similar posteriors side by "
                            "side (average linkage); data: the data set's order.")
view = c4.radio("Several models", ["side by side", "one panel per model"], key="post_view", horizontal=True,
                bind="query-params", help="Side by side: one compact figure of every model's decisions and "
                                          "measures. One panel per model: each model's heat map and reliability plot.")
freq = ctx.Y_train.sum(axis=0)
SHOWN = np.sort(np.argsort(-freq, kind="stable")[:min(int(n_shown), L)]) if L > n_shown else np.arange(L)
LINKED_LABELS = [j for j in (LINKED.label, *((LINKED.edge.source, LINKED.edge.target) if LINKED.edge else ()))
                 if j is not None]
SHOWN = np.union1d(SHOWN, np.asarray(LINKED_LABELS, dtype=np.int64))  # (the linked labels are always drawn)
SHOWN_KEY = f"{int(n_shown)}+" + ".".join(map(str, sorted(set(LINKED_LABELS))))  # (figure cache keys)
RELIABILITY = SHOWN[np.argsort(-freq[SHOWN], kind="stable")][:10]  # the 10 most frequent drawn labels


with st.container(border=True):
    mode, threshold, thr_text = threshold_control()
reliability_on = st.toggle("Show reliability (calibration) plots", value=True, key="post_rel", bind="query-params")


def rule_of(result):
    """``(threshold drawn or None, text)`` for one model: the control's rule, or in own-rule mode the
    model's probability cut when its predict is one (``predict_proba >= t``), else None."""
    if mode != OWN:
        return threshold, thr_text
    t = result["about"].get("threshold")
    rule = result["about"].get("decision_rule", "the model's predict")
    return (t if t is not None else None), rule


def measures_of(result, measures=None, key=None):
    """:func:`mlviz.metrics.evaluate` under the page's rule; with ``key`` (the model's settings) the
    threshold-free measures (AUC, ranking) are computed once and kept, and the label-based ones once
    per rule drawn, so a threshold move recomputes only the label-based ones and a move of the rows
    or labels drawn none (at 5k × 983 one evaluation costs ~0.1 s)."""
    from mlviz.metrics import DEFAULT_MEASURES, MEASURES, evaluate

    measures = list(DEFAULT_MEASURES if measures is None else measures)
    labels = [k for k in measures if k not in MEASURES or MEASURES[k].needs == "labels"]
    scores = [k for k in measures if k not in labels]
    def by_rule():
        if not labels:
            return {}
        if mode == OWN:
            return evaluate(ctx.Y_test, result["P"], measures=labels, y_pred=result["pred"])
        return evaluate(ctx.Y_test, result["P"], threshold=threshold, measures=labels)

    out = dict(by_rule() if key is None else cache.memo(
        f"label-measures|{key}|{mode}|{methods.threshold_key(None if mode == OWN else threshold)}"
        f"|{','.join(labels)}", by_rule))
    if scores:
        build = lambda: evaluate(ctx.Y_test, result["P"], measures=scores)  # noqa: E731
        out.update(build() if key is None else cache.memo(f"score-measures|{key}|{','.join(scores)}", build))
    return {k: out[k] for k in measures}


def label_scores(fkey, result, t):
    """``(auc, f1)`` of every label: AUC computed once per model and settings (kept), F1 under the
    page's rule (the model's own predictions in own-rule mode, else the decisions at ``t``)."""
    from mlviz import plotting
    from mlviz.metrics import binarize

    auc = cache.memo("label-auc|" + fkey, lambda: plotting.per_label_scores(ctx.Y_test, result["P"], 0.5)[0])
    Y = ctx.Y_test.astype(bool)
    D = (result["pred"] if mode == OWN else binarize(result["P"], t)).astype(bool)
    den = D.sum(axis=0) + Y.sum(axis=0)
    f1 = np.full(L, np.nan)
    np.divide(2.0 * (D & Y).sum(axis=0), den, out=f1, where=den > 0)
    return auc, f1


def figures(m, fkey, result, heat_map=True):
    """The heat map (None without ``heat_map``) and reliability plot (None when hidden) of ``result``;
    cached under the model's settings and the rule drawn."""
    from mlviz import plotting

    t, text = rule_of(result)
    key = f"{fkey}|{mode}|{methods.threshold_key(t)}|{SHOWN_KEY}|{n_rows}|{label_order}"
    heat = None
    if heat_map:
        scores = label_scores(fkey, result, t) if len(SHOWN) < L else None
        heat = cache.figure("heat|" + key, lambda: plotting.posterior_heatmap(
            result["P"], ctx.Y_test, ctx.label_names, threshold=t, labels=SHOWN.tolist(), max_labels=len(SHOWN),
            max_instances=n_rows, label_order=None if label_order == "data" else label_order, label_scores=scores,
            title=f"{m.label}: P(y=1|x) beside the truth" + ("" if t is not None else f" (rule: {text[:80]})")))
    rel = cache.figure("rel|" + key, lambda: plotting.reliability_figure(
        ctx.Y_test, result["P"], ctx.label_names, labels=RELIABILITY.tolist(), threshold=t,
        title=f"{m.label}: reliability")) if reliability_on else None
    return heat, rel


def notes(m, result, info):
    """Captions: the decision rule, kernel centres, solver convergence, Monte-Carlo error, timing."""
    about = result["about"]
    t, text = rule_of(result)
    out = []
    if info.get("preview"):
        out.append(f":material/preview: **Quick preview** with {info['preview']}: these figures and numbers are "
                   "that model's, drawn while the model at the chosen settings is fitted; they are replaced when "
                   "it is done.")
    rule = about.get("decision_rule")
    if mode == OWN:
        out.append(f":material/rule: Decision rule (own predict): {escape_markdown(rule or 'the model’s predict', 200)}"
                   + ("" if t is not None else " — not a probability cut, so no threshold is drawn."))
    else:
        out.append(f":material/rule: Decision rule: {thr_text} on P(y=1|x) (the model's own rule: "
                   f"{escape_markdown(rule or 'predict', 200)}).")
    if about.get("centers"):
        out.append(f":material/hub: Kernel centres: {escape_markdown(about['centers'], 200)}"
                   + (f" · factorisation {escape_markdown(about['factorisation'], 40)}"
                      if about.get("factorisation") else ""))
    if "grad_max" in about:
        state_ = "converged" if about.get("converged", True) else "**not converged**"
        out.append(f":material/check_circle: Solver {state_}: largest scaled gradient {about['grad_max']:.2g}"
                   + (f" after {about['n_iter']} iterations" if "n_iter" in about else "") + ".")
    if "se_mean" in about:
        out.append(f":material/casino: Monte-Carlo standard error of the posteriors: mean {about['se_mean']:.3f}, "
                   f"largest {about['se_max']:.3f} (Gibbs sampling; 0 where computed exactly).")
    timing = f"full fit {info['fit_seconds']:.2f} s (cached)"
    if info.get("warm_start"):
        timing = f"fit {info['fit_seconds']:.2f} s, warm-started along the regularisation path (cached)"
    elif info.get("reused"):
        timing += (f" · this slider setting: refit in {1000 * info['refit_seconds']:.0f} ms "
                   "reusing the cached factorisation")
    out.append(f":material/timer: {timing}.")
    for note in info.get("warnings", [])[:2]:
        out.append(f":material/warning: {escape_markdown(str(note), 300)}")
    return out


def controls(m, container=None):
    keys = {p.name: f"post_{m.key}_{p.name}" for p in m.sliders}
    where = container if container is not None else st
    if not m.sliders:
        where.caption("No hyperparameters to tune.")
        return {}, keys
    if container is None:
        cols = st.columns(len(m.sliders))
        return {p.name: widgets.param_slider(p, keys[p.name], cols[i]) for i, p in enumerate(m.sliders)}, keys
    return {p.name: widgets.param_slider(p, keys[p.name], container) for p in m.sliders}, keys


def fetch(m, values, keys):
    """``(result, info, shown settings)`` or None (drawn: the error or the progress notice)."""
    from mlviz.models import TooLargeError

    slot = f"posteriors|{m.key}"
    job = compute.report(ctx, m, values, owner=progress.owner(slot))
    quick = compute.preview_values(ctx, m, values)

    def preview():  # (asked for only while this panel has drawn nothing yet)
        return None if quick is None else (
            compute.report(ctx, m, quick[0], owner=progress.owner(slot + "|preview")), *quick)

    try:
        value, shown = progress.result(job, settings=values, slot=slot, label=f"Fitting {m.label}", widgets=keys,
                                       preview=preview)
    except TooLargeError as exc:
        st.warning(f"{m.label}: {escape_markdown(str(exc), 600)}")
        return None
    except Exception as exc:  # noqa: BLE001 - shown, never a traceback
        st.error(f"{m.label} could not be fitted with these settings: {escape_markdown(str(exc), 300)}. "
                 "Try stronger regularisation or another data set.")
        return None
    if value is None:
        return None
    result, info = value
    if shown == values:  # ahead of the next move: neighbouring slider values (and the other γ of a path)
        compute.prefetch(m, values, progress.owner(slot), prepare(m), points=True)
    elif quick is not None and shown == quick[0]:
        info = {**info, "preview": quick[1]}
    return result, info, shown


def prepare(m):
    """``submit(values, owner, priority)``: posteriors ahead of time."""
    def submit(values, owner, priority):
        return compute.report(ctx, m, values, owner=owner, priority=priority)
    return submit


def references():
    """The trivial references of the headline measures on this data set's split (no features used):
    ``{measure: (value, which reference)}``, kept per data set."""
    from mlviz.plotting.tables import trivial_references

    table = cache.memo(f"trivial-references|{ctx.key}|{','.join(HEADLINE)}",
                       lambda: trivial_references(ctx.Y_train, ctx.Y_test, HEADLINE))
    return {r.measure: (r.value, r.reference) for r in table.itertuples()}


def metric_row(vals):
    """The headline measures, each with its difference to the best trivial reference (a weak
    default has context), and a caption naming the references."""
    from mlviz.metrics import MEASURES

    refs = references()
    for col, k in zip(st.columns(len(HEADLINE)), HEADLINE):
        meas = MEASURES[k]
        ref, name = refs[k]
        col.metric(f"{meas.label} {'↑' if meas.greater_is_better else '↓'}", f"{vals[k]:.3f}",
                   delta=f"{vals[k] - ref:+.3f} vs trivial {ref:.3f}", delta_color="normal" if meas.greater_is_better
                   else "inverse",
                   help=(f"Decision rule: {thr_text}." if meas.needs == "labels"
                         else "Uses the scores (threshold-free).")
                   + f" Trivial reference: {ref:.3f} ({name}; no features used).")
    st.caption(":material/straighten: Trivial references (no features): " + " · ".join(
        f"{MEASURES[k].label} {refs[k][0]:.3f} ({refs[k][1]})" for k in HEADLINE)
        + ". A model at or below one of them learned nothing useful for that measure here.")


def downloads(m, result, table):
    from mlviz.plotting.tables import to_csv_bytes

    c1, c2 = st.columns(2)
    c1.download_button("measures CSV", data=lambda: to_csv_bytes(table), file_name=f"{m.key}_measures.csv",
                       mime="text/csv", key=f"dl_meas_{m.key}", on_click="ignore", icon=":material/download:")
    frame = pd.DataFrame(result["P"], columns=[f"P({n})" for n in ctx.label_names])
    c2.download_button("posteriors CSV", data=lambda: to_csv_bytes(frame), file_name=f"{m.key}_posteriors.csv",
                       mime="text/csv", key=f"dl_P_{m.key}", on_click="ignore", icon=":material/download:")


def measures_table(vals):
    from mlviz.metrics import MEASURES

    rows = [(MEASURES[k].label if k in MEASURES else k, k, "↑" if (k not in MEASURES or MEASURES[k].greater_is_better)
             else "↓", float(v)) for k, v in vals.items()]
    return pd.DataFrame(rows, columns=["measure", "code", "better", "value"])


@st.fragment
@progress.foreground  # this session's prefetch work waits for this rerun
def model_panel(key):
    m = methods.METHODS[key]
    st.subheader(m.label)
    st.caption(escape_markdown(m.description))
    values, keys = controls(m)
    got = fetch(m, values, keys)
    if got is None:
        return
    result, info, shown = got
    # every measure at once (the headline ones are among them; the table below shows them all): the
    # threshold-free ones share one evaluation instead of one for the headline and one for the table
    vals = measures_of(result, key=compute.model_key(ctx, m, shown, "measures"))
    metric_row({k: vals[k] for k in HEADLINE})
    present.takeaway(lambda: ("{}{} ({}): micro-F1 {micro_f1:.3f}, Hamming loss {hamming_loss:.4f} "
                              "on {n} test instances.").format(
        f"Quick preview ({info['preview']}) — " if info.get("preview") else "", m.label, thr_text, n=N_TEST,
        **vals))
    for line in notes(m, result, info):
        st.caption(line)
    heat, rel = figures(m, compute.model_key(ctx, m, shown, "figures"), result)
    left, right = st.columns([3, 2]) if reliability_on else (st.container(), None)
    with left:
        widgets.show_figure(heat, f"{ctx.name}_{key}_posteriors", key=f"fig_post_{key}")
    if right is not None:
        with right:
            widgets.show_figure(rel, f"{ctx.name}_{key}_reliability", key=f"fig_rel_{key}")
    with st.expander("All measures, and the posterior matrix as CSV"):
        table = measures_table(vals)
        st.dataframe(table, width="stretch", hide_index=True)
        pack_tables[f"{m.label}: all measures"] = table
        downloads(m, result, table)


def side_by_side_models(keys):
    """Every model's controls in columns of three: ``({label: (method, result, values shown)}, table rows)``."""
    from mlviz.metrics import MEASURES

    results, rows = {}, []
    for start in range(0, len(keys), 3):
        for col, key in zip(st.columns(3), keys[start:start + 3]):
            m = methods.METHODS[key]
            with col.container(border=True):
                st.markdown(f"**{m.label}**")
                values, wkeys = controls(m, st.container())
                got = fetch(m, values, wkeys)
                if got is None:
                    continue
                result, info, shown = got
                results[m.label] = (m, result, shown)
                for line in notes(m, result, info)[:-1]:  # (timings are in the table below)
                    st.caption(line)
                vals = measures_of(result, HEADLINE, compute.model_key(ctx, m, shown, "measures"))
                rows.append({"model": m.label, **{MEASURES[k].label: vals[k] for k in HEADLINE},
                             "fit s": info["fit_seconds"]})
    return results, rows


def side_by_side_figure(results):
    """One compact figure of every model's posteriors (or decisions, when they share one probability cut)."""
    from mlviz import plotting

    grid_t = threshold if mode != OWN else None
    if mode == OWN:  # each model's own decisions: drawn when every one is a probability cut
        cuts = {rule_of(r)[0] for _, r, _ in results.values()}
        grid_t = cuts.pop() if len(cuts) == 1 and None not in cuts else None
    P_by = {label: r["P"] for label, (m, r, s) in results.items()}
    scores = {label: measures_of(r, ["micro_f1", "hamming_loss"]) for label, (m, r, s) in results.items()}
    fkey = "|".join(compute.model_key(ctx, m, s, "grid") for m, _, s in results.values())
    fkey += f"|{mode}|{methods.threshold_key(grid_t)}|{SHOWN_KEY}|{n_rows}"
    fig = cache.figure("grid|" + fkey, lambda: plotting.posterior_grid(
        P_by, ctx.Y_test, ctx.label_names, threshold=grid_t, scores=scores, labels=SHOWN.tolist(),
        max_labels=len(SHOWN), max_instances=n_rows,
        title=("Decisions (TN · FP · FN · TP) at " + (thr_text if mode != OWN else f"t = {grid_t:g}")
               if grid_t is not None else "P(y=1|x) of every model beside the truth")))
    widgets.show_figure(fig, f"{ctx.name}_posteriors_side_by_side", key="fig_post_grid")
    if mode == OWN and grid_t is None:
        st.caption("The models' own rules are not one common probability cut, so the figure shows the "
                   "probabilities; pick a global threshold to see every model's decisions.")


def side_by_side_table(rows):
    """The headline measures of every model, with the best trivial reference as the last row."""
    from mlviz.metrics import MEASURES

    refs = references()
    rows = rows + [{"model": "trivial reference (best per measure, no features)",
                    **{MEASURES[k].label: refs[k][0] for k in HEADLINE}, "fit s": float("nan")}]
    table = for_display(pd.DataFrame(rows), digits=3)
    pack_tables["Headline measures of every model"] = table
    st.dataframe(table, width="stretch", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in table.columns[1:]
                                if table[c].dtype.kind == "f"})
    st.caption(f"Decision rule of the label measures: {thr_text}. ↑ higher is better, ↓ lower is better. "
               "The last row: each measure's best trivial predictor (" + "; ".join(
                   f"{MEASURES[k].label}: {refs[k][1]}" for k in HEADLINE) + ").")


def side_by_side_reliability(results):
    st.markdown("**Reliability (calibration) of each model**" + (
        f" — the {len(RELIABILITY)} most frequent labels drawn" if len(RELIABILITY) < L else ""))
    items = list(results.values())
    for start in range(0, len(items), 3):
        for col, (m, r, s) in zip(st.columns(3), items[start:start + 3]):
            _, rel = figures(m, compute.model_key(ctx, m, s, "figures"), r, heat_map=False)
            with col:
                widgets.show_figure(rel, f"{ctx.name}_{m.key}_reliability", key=f"fig_rel_{m.key}")


def side_by_side(keys):
    """Every model's controls in columns, then one compact figure of all posteriors and a measures table."""
    results, rows = side_by_side_models(keys)
    if not results:
        return
    side_by_side_figure(results)
    side_by_side_table(rows)
    if reliability_on:
        side_by_side_reliability(results)


if not chosen:
    st.info("Pick at least one model above.")
elif len(chosen) > 1 and view == "side by side":
    side_by_side(list(chosen))
else:
    for key in chosen:
        with st.container(border=True):
            model_panel(key)


def selection_panels(m, P, names):
    """The linked instance selection: its mean posterior profile beside its posteriors."""
    from mlviz import plotting
    from mlviz.plotting.linked import selection_profile_figure

    mask = LINKED.rows.mask(ctx.Y_test, "test")
    n_sel = int(mask.sum())
    st.metric("Selected test instances", n_sel,
              help="Test instances of the linked selection (a label set or a lasso on the Embedding page).")
    if n_sel == 0:
        st.info("No test instance is in the selection (a lasso may have picked training instances only).")
        return
    rows = np.flatnonzero(mask)
    left, right = st.columns([2, 3])
    with left:
        fig = selection_profile_figure(P, mask, names, what=f"P(y=1|x), {m.label}",
                                       title=f"Mean {m.label} posterior: selection vs all test instances")
        widgets.show_figure(fig, f"{ctx.name}_selection_profile", key="fig_post_sel_profile")
    with right:
        fig = plotting.posterior_heatmap(
            P[rows], ctx.Y_test[rows], names, instance_ids=rows, labels=SHOWN.tolist(),
            max_labels=len(SHOWN), max_instances=n_rows, title=f"{m.label}: the {n_sel} selected test instances")
        widgets.show_figure(fig, f"{ctx.name}_selection_posteriors", key="fig_post_sel_heat")


def edge_panel(m, P, names):
    """The test instances an edge A → B of the sparse CDN moves most, under the first model."""
    from mlviz import plotting
    from mlviz.models.cdn_effects import top_instances

    effect = linked.edge_effect_result(ctx, LINKED.edge, "posteriors|edge-effect")
    if effect is None:
        return
    linked.edge_effect_panel(ctx, effect, cache.labelset_strings(ctx, "test"), key="post_edge_table")
    top = top_instances(effect.delta, linked.EDGE_TOP)
    fig = plotting.posterior_heatmap(
        P[top], ctx.Y_test[top], names, instance_ids=top, row_order=np.arange(len(top)),
        labels=SHOWN.tolist(), max_labels=len(SHOWN),
        title=f"{m.label}: the {len(top)} test instances the edge moves most (largest |Δ| first)")
    widgets.show_figure(fig, f"{ctx.name}_edge_effect_posteriors", key="fig_post_edge_heat")


def linked_section(key):
    """The linked selection (sidebar) on this page: the selected instances' posteriors under the first
    model, and the test instances an edge A → B of the sparse CDN moves most."""
    st.divider()
    st.subheader(":material/link: Linked selection")
    m = methods.METHODS[key]
    values = {p.name: st.session_state.get(f"post_{key}_{p.name}", p.default) for p in m.sliders}
    got = fetch(m, values, {p.name: f"post_{key}_{p.name}" for p in m.sliders})
    if got is None:
        return
    P, names = got[0]["P"], ctx.label_names
    if LINKED.label is not None:
        j = LINKED.label
        st.caption(f"Selected label **{escape_markdown(str(names[j]), 60)}** is drawn in every heat map above "
                   f"({int(ctx.Y_test[:, j].sum())} positive test instances; mean P under {m.label}: "
                   f"{P[:, j].mean():.3f}).")
    if LINKED.rows is not None:
        selection_panels(m, P, names)
    if LINKED.edge is not None:
        edge_panel(m, P, names)


if chosen and not LINKED.empty:
    linked_section(chosen[0])

if chosen:
    page_values = {k: methods.METHODS[k].complete(
        {p.name: st.session_state.get(f"post_{k}_{p.name}", p.default) for p in methods.METHODS[k].sliders})
        for k in chosen}
    pack_notes = []
    if mode == GLOBAL:
        rule, param = "threshold", float(threshold)
    elif mode == PER_LABEL:
        rule, param = "per_label", np.asarray(threshold, dtype=float)
    elif mode == RANK:
        rule, param = "rcut", int(threshold.r)
    else:
        rule, param = "threshold", 0.5
        pack_notes.append("The page used each model's own predict; the report applies threshold 0.5 to every "
                          "model's probabilities (identical for models whose rule is that cut).")
    grid = len(chosen) > 1 and view == "side by side"
    shown_figures = widgets.figures_drawn(  # (the figures on screen now: a hidden or other view's are left out)
        (["fig_post_grid"] if grid else [f"fig_post_{k}" for k in chosen])
        + ([f"fig_rel_{k}" for k in chosen] if reliability_on else []))
    report_pack.section(ctx, page_values, rule=rule, rule_param=param, notes=pack_notes, key="post_pack",
                        figures=shown_figures, tables=pack_tables or None)
