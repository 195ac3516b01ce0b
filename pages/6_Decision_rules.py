"""Decision-rule playground: the same posteriors, different rules, different numbers.

A method's test posteriors on the current data set (compute layer, as on the
Posteriors page) go through a rule of :mod:`mlviz.decision`; the measures
along the rule's parameter are drawn together with the current setting
marked; the model's own rule (``decision_rule_``, what Posteriors and Compare use) is
stated beside it with its numbers.  Every setting is in the URL (keys ``dr_*``).
"""

import numpy as np
import streamlit as st

from mlviz._text import escape_markdown, shorten
from mlviz.dashboard import compute, methods, present, progress, report_pack, state, widgets
from mlviz.decision import (
    COMPARED_RULES,
    CURVE_MEASURES,
    RULE_LABELS,
    RULE_NAMES,
    RULES,
    apply_rule,
    best_parameters,
    compare_rules,
    describe_rule,
    empty_rate,
    rule_curve,
    scut_cv,
)
from mlviz.metrics import evaluate
from mlviz.plotting.tables import for_display
from mlviz.plotting.teach import measure_label, rule_curve_figure

ctx = state.page_context(__file__)
st.title(":material/tune: Decision rules — from posteriors to label sets")
st.caption(f"Test posteriors of a model fitted on the {ctx.Y_train.shape[0]} training instances of "
           f"**{escape_markdown(ctx.name, 60)}**, turned into label sets by the rule you pick. The model is the "
           "same for every rule: only the rule changes the numbers.")

HINTS = {"threshold": "one cut t on every label", "per_label": "a cut for each label",
         "rcut": "the k most probable labels of each instance",
         "mcut": "cut at the largest gap in each instance's scores", "scut": "per-label cuts tuned on training folds"}
L = ctx.n_labels
names = ctx.label_names

# ------------------------------------------------------------------ model and posteriors
c1, c2 = st.columns([1, 2])
mkey = c1.selectbox("Model", methods.POSTERIOR_METHODS, index=methods.POSTERIOR_METHODS.index("mlknn"), key="dr_method",
                    format_func=lambda k: methods.METHODS[k].label, bind="query-params")
m = methods.METHODS[mkey]
with c2.expander(f"{m.label} hyperparameters"):
    values = widgets.param_controls(m, "dr_") if m.sliders else {}
    st.caption(m.description)
slot = "decision|posteriors"
job = compute.report(ctx, m, values, owner=progress.owner(slot))  # (posteriors and the model's own predict)
quick = compute.preview_values(ctx, m, values)  # (a slow kernel fit: fewer centres first, while nothing is drawn)


def preview():
    return None if quick is None else (
        compute.report(ctx, m, quick[0], owner=progress.owner(slot + "|preview")), *quick)


try:
    result, shown = progress.result(job, settings=values, slot=slot, label=f"Fitting {m.label}", preview=preview)
except Exception as exc:  # noqa: BLE001
    st.error(f"{m.label} could not be fitted with these settings: {escape_markdown(str(exc), 300)}")
    st.stop()
if result is None:
    st.stop()
out, _ = result
P, own_pred, about = out["P"], out["pred"], out["about"]
Y = ctx.Y_test

# ------------------------------------------------------------------ rule
r1, r2 = st.columns([2, 3])
rule = r1.radio("Rule", list(RULES), captions=[HINTS[k] for k in RULES], format_func=RULE_LABELS.get, key="dr_rule",
                bind="query-params")
alo = r1.checkbox("At least one label (an empty prediction gets its top label)", key="dr_alo", bind="query-params")


def scut_job(measure):
    def fn(token):
        est = compute.estimator(ctx, m, values, token)
        token.report(stage="fold")
        thresholds, _ = scut_cv(est, ctx.X_train, ctx.Y_train, measure=measure, n_splits=3, random_state=0)
        return thresholds
    return fn


def scut_thresholds(measure):
    """SCut thresholds of the shown model (None while they are computed)."""
    job = compute.task(ctx.key, f"scut|{m.key}|{measure}", m.complete(shown), scut_job(measure),
                       owner=progress.owner(f"decision|scut|{measure}"))
    t, _ = progress.result(job, settings=dict(m.complete(shown), measure=measure), slot=f"decision|scut|{measure}",
                           label="Tuning SCut thresholds on 3 training folds")
    return t


CURVE_KEY = methods.key(ctx.key, m.key, m.complete(shown), "decision-curve")


@st.cache_data(max_entries=64, show_spinner=False)
def _curve(key, rule, alo, label, base, _Y, _P):
    """The rule's curve over its parameter grid, computed once per posteriors (``key``: data set, method,
    settings) and rule: moving the slider only moves the marker (at 983 labels a curve takes seconds)."""
    return rule_curve(_Y, _P, rule, label=label, base=None if base is None else np.asarray(base),
                      at_least_one_label=alo)


def curve_of(rule, *, label=None, base=None):
    return _curve(CURVE_KEY, rule, bool(alo), label, None if base is None else tuple(np.asarray(base).tolist()), Y, P)


label, base, scut_measure = None, None, "f1"
with r2:
    if rule == "threshold":
        param = float(st.slider("Threshold t", 0.0, 1.0, 0.5, 0.01, key="dr_t", bind="query-params"))
        curve = curve_of("threshold")
        xlabel = "threshold t"
    elif rule == "per_label":
        label = st.selectbox("Label whose threshold moves (the others stay at 0.5)", range(L),
                             format_func=lambda j: names[j], key="dr_label", bind="query-params")
        t_l = float(st.slider(f"Threshold of {escape_markdown(names[label], 60)}", 0.0, 1.0, 0.5, 0.01, key="dr_tl",
                              bind="query-params"))
        base = np.full(L, 0.5)
        param = base.copy()
        param[label] = t_l
        curve = curve_of("per_label", label=label, base=base)
        xlabel = f"threshold of {names[label]}"
    elif rule == "rcut":
        param = int(st.slider("k (labels per instance)", 0, L, 1, 1, key="dr_k", bind="query-params"))
        curve = curve_of("rcut")
        xlabel = "k"
    elif rule == "mcut":
        param = None
        curve = curve_of("mcut")
        xlabel = ""
        st.caption("MCut has no parameter: each instance is cut at the largest gap between its sorted scores.")
    else:
        scut_measure = st.radio("SCut tunes each label for", ["f1", "accuracy"], key="dr_scut",
                                horizontal=True, bind="query-params",
                                captions=["its F1 (→ macro-F1)", "its accuracy (→ Hamming loss)"])
        offset = float(st.slider("Offset added to every tuned threshold", -0.3, 0.3, 0.0, 0.01, key="dr_off",
                                 bind="query-params"))
        base = scut_thresholds(scut_measure)
        if base is None:
            st.stop()
        param = base + offset
        curve = curve_of("scut", base=base)
        xlabel = "offset added to the SCut thresholds"

# ------------------------------------------------------------------ metrics at the current setting and curves
Y_pred = apply_rule(P, rule, param, at_least_one_label=alo)
vals = evaluate(Y, P, measures=list(CURVE_MEASURES), y_pred=Y_pred)
vals["empty_rate"] = empty_rate(Y_pred)
rule_text = describe_rule(rule, param, alo)
st.markdown(f"**{escape_markdown(m.label)}** · {escape_markdown(rule_text)}")
cols = st.columns(len(vals))
for col, (k, v) in zip(cols, vals.items()):
    col.metric(measure_label(k), f"{v:.4f}")
own = evaluate(Y, P, measures=["micro_f1", "subset_accuracy"], y_pred=own_pred)
st.caption(f"{escape_markdown(m.label)}'s own rule, which Posteriors and Compare use: "
           f"{escape_markdown(about.get('decision_rule', 'its predict'), 300)} — micro-F1 {own['micro_f1']:.4f}, "
           f"subset accuracy {own['subset_accuracy']:.4f}, {empty_rate(own_pred):.1%} empty predictions.")
present.takeaway(f"Same posteriors, another rule: {escape_markdown(rule_text)} gives subset accuracy "
                 f"{vals['subset_accuracy']:.4f}, micro-F1 {vals['micro_f1']:.4f} and {vals['empty_rate']:.1%} "
                 "empty predictions.")
current = {"threshold": param, "rcut": param, "per_label": param[label] if label is not None else None,
           "scut": (param - base)[0] if base is not None else None, "mcut": None}[rule]
best = best_parameters(curve)
fig = rule_curve_figure(curve, current=current, best=best, param_label=xlabel,
                        title=f"{m.label} on {shorten(ctx.name, 60)}",  # (short: whole on a 1024-pixel screen)
                        subtitle="every measure against the rule's parameter (★ = best)")
widgets.show_figure(fig, f"{ctx.name}_{m.key}_{rule}_curves", key="dr_curves")
if rule in ("threshold", "rcut", "per_label"):
    st.caption("★ marks each measure's best parameter **on the test set**: an oracle choice, not a tuned one — "
               "it shows what the rule can reach, not what you would get on new data.")

# ------------------------------------------------------------------ predict first, then reveal
st.subheader("Predict first: which rule maximises subset accuracy?")
st.markdown("Subset accuracy counts an instance only when its **whole** label set is right. "
            "Guess which rule gets there most often on this data set, then reveal.")
guess = st.radio("Your guess", ["no guess", *COMPARED_RULES], key="dr_guess", horizontal=True,
                 format_func=lambda k: RULE_LABELS.get(k, k), bind="query-params")
pack_tables = {}  # (the report pack's tables: caption -> DataFrame)
if st.toggle("Reveal", key="dr_reveal", bind="query-params"):
    tuned = scut_thresholds("f1")
    if tuned is not None:
        def compare_fn(token):
            return compare_rules(Y, P, target="subset_accuracy", scut=tuned, at_least_one_label=alo)

        cjob = compute.task(ctx.key, f"compare-rules|{m.key}|{alo}", m.complete(shown), compare_fn,
                            owner=progress.owner("decision|compare"))
        table, _ = progress.result(cjob, settings=dict(m.complete(shown), at_least_one=alo), slot="decision|compare",
                                   label="Comparing the rules")
        if table is not None:
            winners = [RULE_NAMES[r] for r in table.index[table["best"]]]
            top = table.index[table["best"]][0]
            verdict = "" if guess == "no guess" else (" Your guess was right." if table.loc[guess, "best"]
                                                      else f" You guessed {RULE_NAMES[guess]}.")
            st.success(f"**{' and '.join(winners)}**: subset accuracy "
                       f"{table.loc[top, 'subset_accuracy']:.4f}.{verdict}")
            pack_tables["The rules compared"] = for_display(table.rename(index=RULE_NAMES))
            st.dataframe(pack_tables["The rules compared"], key="dr_compare")  # ("—": MCut has no parameter)
            st.caption("Threshold and RCut are shown at their best parameter **chosen on the test set** (an "
                       "oracle: what the rule can reach at best); MCut has no parameter; SCut's thresholds were "
                       "tuned for per-label F1 on 3 training folds only — the one honest test number here.")

# ------------------------------------------------------------------ report pack
report_pack.section(ctx, {mkey: shown}, rule=rule,
                    rule_param=(param.tolist() if isinstance(param, np.ndarray) else param),
                    at_least_one_label=alo, figures={"Decision-rule curves": fig}, tables=pack_tables or None,
                    notes=[f"Decision rule: {rule_text}.",
                           "Curve markers (★) are the best parameters on the test set (oracle)."],
                    extra={"page": "decision rules", "rule": rule, "scut_measure": scut_measure}, key="dr_pack")
