"""Guided tour: data → embedding → label graph → posteriors → comparison on the current data set.

URL ``tour=<step>`` (1-5, or the step's name) shows a panel at the top of every
page (drawn by :func:`panel`, called from
:func:`mlviz.dashboard.state.init_page`) with the step's text and *Previous* /
*Next* buttons that open the step's page; ``tour=0`` (or *End tour*) closes it.
The text uses the numbers of the results this session has already drawn (read
from the job cache, never computed here) and says when one is not computed yet.

The text itself is made by pure functions (:func:`step_text` and one per step),
unit-tested with given numbers; :func:`live_numbers` reads them from the caches.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mlviz._text import escape_markdown, shorten

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Step:
    name: str
    page: str
    title: str
    lead: str


STEPS = [
    Step("data", "pages/0_Home.py", "Data",
         "A multi-label data set gives every instance a *set* of labels."),
    Step("embedding", "pages/1_Embedding.py", "Embedding",
         "MLLEM draws instances and labels in one map: an instance sits near the labels it carries."),
    Step("graph", "pages/2_Label_graph.py", "Label graph",
         "The sparse CDN learns which labels help predict which other labels; γ prunes the weak edges."),
    Step("posteriors", "pages/3_Posteriors.py", "Posteriors",
         "Each model gives every test instance a probability per label; a decision rule turns them into a set."),
    Step("comparison", "pages/4_Compare.py", "Comparison",
         "Cross-validation puts the methods side by side on the same folds."),
]
NAMES = [s.name for s in STEPS]
_STATE = "mlviz_tour"  # session_state: the step number last seen in a URL (0: no tour)
NOT_YET = "not computed yet"


def _name(text) -> str:
    return escape_markdown(shorten(str(text), 60))


def _num(v, digits=3) -> str:
    return f"{v:.{digits}f}"


def parse_step(value) -> int | None:
    """``"2"`` / ``"embedding"`` -> 2; ``"0"`` / ``"end"`` / ``""`` -> 0; anything else -> None."""
    text = str(value).strip().lower()
    if text in ("", "0", "end", "off"):
        return 0
    if text.isdigit() and 1 <= int(text) <= len(STEPS):
        return int(text)
    if text in NAMES:
        return NAMES.index(text) + 1
    return None


# ------------------------------------------------------------------ text (pure)

def data_text(n) -> str:
    """``n``: dict with ``name, n_train, n_test, n_labels, cardinality, top_label, top_share`` and
    optionally ``pair`` = (label a, label b, share of instances with both)."""
    text = (f"**{_name(n['name'])}** has {n['n_train']} training and {n['n_test']} test instances with "
            f"{n['n_labels']} labels; an instance carries {n['cardinality']:.2f} labels on average, and "
            f"*{_name(n['top_label'])}* is the most frequent (on {n['top_share']:.0%} of the instances).")
    if n.get("pair") is not None:
        a, b, share = n["pair"]
        text += f" The pair seen together most often is *{_name(a)}* and *{_name(b)}* ({share:.0%} of instances)."
    return text


def embedding_text(n) -> str:
    """``n``: None (not computed) or dict ``n_instances, n_labels, dims, closest`` (label pair or None)."""
    if n is None:
        return (f"The embedding of this data set is {NOT_YET} at these settings: the Embedding page "
                "computes it (this text updates when it is there).")
    text = (f"The {n['dims']}-D map holds {n['n_instances']} training instances and {n['n_labels']} labels.")
    if n.get("closest") is not None:
        a, b = n["closest"]
        text += f" The two labels closest in the map are *{_name(a)}* and *{_name(b)}*: they share instances."
    return text


def graph_text(n) -> str:
    """``n``: None or dict ``gamma_ratio, n_edges, n_labels, n_features, n_total_features, uses_gamma``."""
    if n is None:
        return (f"The label graph is {NOT_YET}: the Label graph page fits the sparse CDN along its γ path "
                "(this text updates when it is there).")
    L = n["n_labels"]
    at = f"At γ = {n['gamma_ratio']:g}·γ_max the" if n.get("uses_gamma", True) else "The"
    return (f"{at} graph keeps {n['n_edges']} edges of the {L * (L - 1)} possible label → label edges, "
            f"and uses {n['n_features']} of {n['n_total_features']} features.")


def posteriors_text(n) -> str:
    """``n``: None or dict ``method, micro_f1, hamming_loss, n_test``."""
    if n is None:
        return (f"The posteriors are {NOT_YET}: the Posteriors page fits the chosen model "
                "(this text updates when it is there).")
    return (f"{_name(n['method'])}, with its own decision rule, reaches micro-F1 {_num(n['micro_f1'])} and "
            f"Hamming loss {_num(n['hamming_loss'], 4)} on the {n['n_test']} test instances.")


def comparison_text(n) -> str:
    """``n``: None (not run) or dict ``folds, n_methods, best, best_mean, best_std, runner_up, runner_up_mean``."""
    if n is None:
        return (f"The cross-validation is {NOT_YET} on this data set: pick the methods on the Compare page "
                "and press *Run cross-validation*.")
    std = "" if n.get("best_std") is None or not np.isfinite(n["best_std"]) else f" ± {_num(n['best_std'])}"
    where = "On the standard train/test split" if n.get("standard") else f"Over {n['folds']} folds"
    text = (f"{where}, {_name(n['best'])} has the best micro-F1 of the {n['n_methods']} "
            f"methods: {_num(n['best_mean'])}{std}")
    if n.get("runner_up") is not None:
        text += f", ahead of {_name(n['runner_up'])} ({_num(n['runner_up_mean'])})"
    text += "."
    if n.get("best_seed") is not None:
        text += (f" The best of the papers' own methods here, {_name(n['best_seed'])}, loses to this baseline "
                 f"by {_num(n['best_mean'] - n['best_seed_mean'])} micro-F1.")
    return text


TEXTS = {"data": data_text, "embedding": embedding_text, "graph": graph_text, "posteriors": posteriors_text,
         "comparison": comparison_text}


def step_text(step: int, numbers) -> str:
    """The tour text of ``step`` (1-based): the step's lead sentence and its live sentence."""
    s = STEPS[step - 1]
    return f"{s.lead} {TEXTS[s.name](numbers)}"


# ------------------------------------------------------------------ numbers from the data / caches

def data_numbers(ctx) -> dict:
    Y = np.asarray(ctx.dataset.Y)
    counts = Y.sum(axis=0)
    top = int(np.argmax(counts))
    out = dict(name=ctx.name, n_train=int(ctx.Y_train.shape[0]), n_test=int(ctx.Y_test.shape[0]),
               n_labels=int(ctx.n_labels), cardinality=float(Y.sum(axis=1).mean()),
               top_label=ctx.label_names[top], top_share=float(counts[top] / max(len(Y), 1)), pair=None)
    if 2 <= ctx.n_labels <= 2000:  # (L x L co-occurrence)
        C = (Y.T.astype(np.float64) @ Y.astype(np.float64))
        np.fill_diagonal(C, -1)
        a, b = np.unravel_index(int(np.argmax(C)), C.shape)
        if C[a, b] > 0:
            out["pair"] = (ctx.label_names[min(a, b)], ctx.label_names[max(a, b)], float(C[a, b] / len(Y)))
    return out


def _shown(slot):
    """``(settings, cached value)`` drawn last in ``slot`` by this session (see :func:`progress.shown`)."""
    import streamlit as st

    from .compute import RUNNER

    settings = st.session_state.get(f"mlviz_shown|{slot}")
    key = st.session_state.get(f"mlviz_shown|{slot}|key")
    return settings, (RUNNER.peek(key) if key else None)


def embedding_numbers(ctx):
    from .compute import RUNNER, model_key
    from .methods import METHODS

    mllem = METHODS["mllem"]
    settings, value = _shown("embedding")
    if value is None or settings is None:  # (not drawn in this session: the default view, if cached)
        settings = {**{p.name: p.default for p in mllem.sliders}, "n_components": 2}
        value = RUNNER.peek(model_key(ctx, mllem, settings, "embedding"))
    if value is None:
        return None
    G, H, _ = value[0]
    if len(G) != ctx.Y_train.shape[0] or len(H) != ctx.n_labels:  # (drawn for another data set)
        return None
    dims = int(settings.get("n_components", 2))
    closest = None
    if 2 <= len(H) <= 500:  # (L x L distances)
        D = np.linalg.norm(H[:, None, :dims] - H[None, :, :dims], axis=-1)
        np.fill_diagonal(D, np.inf)
        a, b = np.unravel_index(int(np.argmin(D)), D.shape)
        closest = (ctx.label_names[min(a, b)], ctx.label_names[max(a, b)])
    return dict(n_instances=int(len(G)), n_labels=int(len(H)), dims=dims, closest=closest)


def graph_numbers(ctx):
    import streamlit as st

    from mlviz.models.cdn import VARIANTS

    from .compute import known_steps
    from .methods import METHODS

    shown = st.session_state.get("mlviz_shown|graph")
    if not shown:
        return None
    step = known_steps(ctx, METHODS["cdn"], shown).get(shown.get("gamma"))
    if step is None:
        return None
    return dict(gamma_ratio=float(shown["gamma"]), n_edges=int(step["n_edges"]), n_labels=int(ctx.n_labels),
                n_features=int(step["n_features"]), n_total_features=int(ctx.dataset.n_features),
                uses_gamma=bool(VARIANTS[shown.get("variant", "sparse")][1]))


def posteriors_numbers(ctx):
    import streamlit as st

    from mlviz.metrics import evaluate

    from .methods import METHODS

    chosen = st.session_state.get("post_models") or ["mllspc"]
    for key in chosen:
        if key not in METHODS:
            continue
        _, value = _shown(f"posteriors|{key}")
        if value is None:
            continue
        result = value[0]
        if result["pred"].shape != ctx.Y_test.shape:
            continue
        vals = evaluate(ctx.Y_test, result["P"], measures=["micro_f1", "hamming_loss"], y_pred=result["pred"])
        return dict(method=METHODS[key].label, micro_f1=float(vals["micro_f1"]),
                    hamming_loss=float(vals["hamming_loss"]), n_test=int(ctx.Y_test.shape[0]))
    return None


def comparison_numbers(ctx):
    import streamlit as st

    from mlviz.plotting.tables import summary_table

    from .compute import RUNNER, key

    asked = st.session_state.get("cmp_request")
    if not asked:
        return None
    res = RUNNER.peek(key(ctx.key, "cross-validation", asked))
    if res is None:
        return None
    return comparison_summary(summary_table(res), int(asked["folds"]), asked.get("protocol") == "standard")


def comparison_summary(summary, folds, standard=False):
    """Best and second-best method by mean micro-F1 in a :func:`mlviz.plotting.tables.summary_table`
    (the trivial reference rows, :data:`mlviz.evaluation.baselines.REFERENCES`, are not methods);
    ``standard``: the table is one run on the standard train/test files, not ``folds`` folds."""
    from mlviz.evaluation.baselines import REFERENCES

    summary = summary[~summary["method"].astype(str).isin(REFERENCES)]
    rows = summary[summary["measure"] == "micro_f1"].sort_values("mean", ascending=False, kind="stable")
    rows = rows[np.isfinite(rows["mean"].to_numpy(float))]
    if rows.empty:
        return None
    from mlviz.models.registry import seed_labels

    best = rows.iloc[0]
    out = dict(folds=folds, standard=bool(standard), n_methods=int(summary["method"].nunique()), best=best["method"],
               best_mean=float(best["mean"]), best_std=float(best["std"]), runner_up=None, runner_up_mean=None,
               best_seed=None, best_seed_mean=None)
    if len(rows) > 1:
        out["runner_up"], out["runner_up_mean"] = rows.iloc[1]["method"], float(rows.iloc[1]["mean"])
    seeds = rows[rows["method"].astype(str).isin(seed_labels())]
    if not seeds.empty and best["method"] not in seed_labels():
        out["best_seed"], out["best_seed_mean"] = seeds.iloc[0]["method"], float(seeds.iloc[0]["mean"])
    return out


NUMBERS = {"data": data_numbers, "embedding": embedding_numbers, "graph": graph_numbers,
           "posteriors": posteriors_numbers, "comparison": comparison_numbers}


def live_numbers(ctx, step: int):
    """The numbers of ``step`` known now (None where not computed); never computes a model."""
    try:
        return NUMBERS[STEPS[step - 1].name](ctx)
    except Exception:  # noqa: BLE001 - a cache of an older page version: say "not computed"
        return None


PAGE_TITLE = "mlviz_page_title"  # session_state: the title of the page this run shows (set by init_page)


def live_text(ctx, step: int) -> str:
    return step_text(step, live_numbers(ctx, step))


# ------------------------------------------------------------------ Streamlit panel

def current_page() -> str | None:
    """The page file running now, relative to the project (``"pages/2_Label_graph.py"``): the
    registered page whose title :func:`mlviz.dashboard.state.init_page` was given this run."""
    import streamlit as st

    from .pages import PAGES

    title = st.session_state.get(PAGE_TITLE)
    return next((p.path for p in PAGES if p.title == title), None)


def active_step() -> int:
    """The tour step of the URL (remembered for the session and written back into the address of a
    page opened without it); 0 when no tour runs."""
    import streamlit as st

    qp = st.query_params
    if "tour" in qp:
        step = parse_step(qp.get("tour"))
        if step is None:
            st.caption(f"tour= must be 1-{len(STEPS)} or one of {', '.join(NAMES)}; the tour is off.")
            step = 0
        st.session_state[_STATE] = step
        return step
    step = st.session_state.get(_STATE, 0)
    if step:
        qp["tour"] = str(step)
    return step


def _go(step: int):
    import streamlit as st

    st.session_state[_STATE] = step
    st.session_state["mlviz_tour_ticks"] = 0
    st.switch_page(STEPS[step - 1].page, query_params={"tour": str(step)})


def _end():
    import streamlit as st

    st.session_state[_STATE] = 0
    st.query_params["tour"] = "0"


def panel(ctx) -> None:
    """The tour panel of the current step (nothing when no tour runs)."""
    import streamlit as st

    step = active_step()
    if not step:
        return
    here = current_page()
    s = STEPS[step - 1]
    with st.container(border=True, key="mlviz-tour"):
        st.markdown(f"**:material/tour: Guided tour · step {step} of {len(STEPS)}: {s.title}**")
        if s.name in ("embedding", "graph", "posteriors") and here == s.page:
            _live_text(ctx, step)  # (follows the page's own computation)
        else:
            st.markdown(live_text(ctx, step))
        cols = st.columns([1, 1, 1, 3])
        if cols[0].button("Previous", key="tour_prev", icon=":material/arrow_back:", disabled=step == 1):
            _go(step - 1)
        if step < len(STEPS):
            if cols[1].button(f"Next: {STEPS[step].title}", key="tour_next", icon=":material/arrow_forward:",
                              type="primary"):
                _go(step + 1)
        elif cols[1].button("Finish", key="tour_finish", icon=":material/flag:", type="primary"):
            _end()
            st.rerun()
        cols[2].button("End tour", key="tour_end", on_click=_end, icon=":material/close:")
        if here != s.page:
            if cols[3].button(f"Open the {s.title} page", key="tour_open", icon=":material/open_in_new:"):
                _go(step)


def _live_text(ctx, step):
    """The step's text; while its number is not computed it looks again every 2 s (for at most 2 minutes)."""
    import streamlit as st

    numbers = live_numbers(ctx, step)
    st.markdown(step_text(step, numbers))
    if numbers is None:
        _poll(ctx, step)


def _poll_fragment(ctx, step):
    import streamlit as st

    ticks = st.session_state.get("mlviz_tour_ticks", 0) + 1
    st.session_state["mlviz_tour_ticks"] = ticks
    if live_numbers(ctx, step) is not None:
        st.session_state["mlviz_tour_ticks"] = 0
        st.rerun()


def _poll(ctx, step):
    import streamlit as st

    global _POLL
    if _POLL is None:
        _POLL = st.fragment(run_every=2.0)(_poll_fragment)
    if st.session_state.get("mlviz_tour_ticks", 0) <= 60:
        _POLL(ctx, step)


_POLL = None
