"""Planted-dependency sandbox: set a ground-truth label graph, generate data, see who recovers it.

Every setting is in the URL (keys ``sb_*``); the data are
:func:`mlviz.data.synthetic.make_planted` of those settings, rows split
half/half (first half train) as :func:`mlviz.sandbox.compare_on_planted`
does, so a link reopens exactly the same data, graph and numbers.
"""

import networkx as nx
import pandas as pd
import streamlit as st

from mlviz._text import escape_markdown
from mlviz.dashboard import compute, jobs, present, progress, state, urls, widgets
from mlviz.data.synthetic import edge_recovery, edge_status, expected_dependency_graph, make_planted, parse_structure
from mlviz.plotting.teach import recovery_graph_figure, rule_curve_figure
from mlviz.sandbox import SANDBOX_GAMMA_RATIO

state.page_context(__file__)
st.title(":material/science: Sandbox — plant a label graph, see which method finds it")
st.caption("Synthetic data with a known answer: you set which labels depend on which; the sparse CDN "
           "learns a label graph from the data alone, and the figure marks its edges true, false or missed. "
           "The data set picked in the sidebar is not used here.")

PRESETS = {
    "chain": ("Chain of 5", "chain:5,indep:1"),
    "hub": ("Hub", "hub:4,indep:1"),
    "xor": ("Exclusive triple (XOR)", "xor:3,indep:2"),
    "mix": ("Mix", "chain:3,hub:2,xor:3,indep:1"),
    "custom": ("Custom", None),
}
#: γ / γ_max values of the path, in the order they are fitted (recovery_path's default, top down)
RATIOS = (1.0, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01)
DATA_KEY = "sandbox"

# ------------------------------------------------------------------ controls
with st.sidebar:
    st.markdown("#### Planted structure")
    preset = st.radio("Preset", list(PRESETS), key="sb_preset", bind="query-params",
                      captions=[PRESETS[k][0] + (f": {PRESETS[k][1]}" if PRESETS[k][1] else ": the text box")
                                for k in PRESETS],
                      help="A ready-made ground truth; *custom* uses the text box.")
    custom = st.text_input("Structure (Custom)", "chain:3,xor:2,indep:1", key="sb_structure",
                           max_chars=urls.text_limit("sb_structure"),
                           bind="query-params", disabled=preset != "custom",
                           help="Comma-separated kind:size blocks: chain:k (A→B→…), hub:k (one hub, k leaves), "
                                "xor:k (exactly one of k labels on), indep:k (depend on x only).")
    st.markdown("#### Data")
    n = st.select_slider("n (instances, half train / half test)", [200, 500, 1000, 2000, 4000], 1000,
                         key="sb_n", bind="query-params")
    d = st.select_slider("d (features)", [2, 5, 10, 20, 50], 10, key="sb_d", bind="query-params")
    coupling = st.slider("Coupling c (parent's weight on the child's logit)", 0.0, 8.0, 3.0, 0.5,
                         key="sb_coupling", bind="query-params")
    strength = st.slider("Feature strength f (how well x predicts each label)", 0.0, 6.0, 2.0, 0.5,
                         key="sb_strength", bind="query-params")
    noise = st.slider("Label noise (flip probability)", 0.0, 0.3, 0.0, 0.01, key="sb_noise", bind="query-params")
    share = st.slider("Cardinality (share of the non-exclusive labels on)", 0.1, 0.9, 0.5, 0.05,
                      key="sb_card", bind="query-params")
    imbalance = st.select_slider("Imbalance (most / least frequent base rate)", [1.0, 2.0, 5.0, 10.0, 20.0], 1.0,
                                 key="sb_imb", bind="query-params")
    seed = int(st.number_input("Seed", 0, 10_000, 0, 1, key="sb_seed", bind="query-params"))

structure = PRESETS[preset][1] or custom
try:
    items = parse_structure(structure)
    # labels that are not in an exclusive group (a hub block has its hub plus k leaves)
    n_free = sum(size + (kind == "hub") for kind, size in items if kind != "xor")
    settings = dict(structure=structure, n_samples=int(n), n_features=int(d), coupling=float(coupling),
                    feature_strength=float(strength), noise=float(noise), cardinality=float(share) * n_free,
                    imbalance=float(imbalance), random_state=seed)
    planted = make_planted(**settings)
except ValueError as exc:
    st.error(f"Cannot generate this data set: {escape_markdown(str(exc), 300)}")
    st.stop()

names = planted.label_names
expected = expected_dependency_graph(planted.graph)
pos = nx.circular_layout(names)
L = len(names)
has_xor = any(kind == "xor" for kind, _ in items)


# ------------------------------------------------------------------ jobs
def path_job(token):
    """The sparse CDN along the γ path (as :func:`mlviz.sandbox.recovery_path`, keeping each graph)."""
    from mlviz.models import SparseCDN

    ds = planted.dataset
    n_train = int(round(0.5 * ds.n_samples))
    token.report(stage="start model (γ ≥ γ_max)", done=0, total=len(RATIOS))
    model = SparseCDN(gamma=1e12, random_state=seed).fit(ds.X[:n_train], ds.Y[:n_train])
    out = {}
    for i, ratio in enumerate(RATIOS):
        model = model.refit(gamma_ratio=ratio)
        out[ratio] = dict(gamma=float(model.gamma), edges=edge_status(model.label_graph_, expected, names),
                          recovery=edge_recovery(model.label_graph_, expected, names))
        token.report(stage="points of the γ path", done=i + 1, total=len(RATIOS))
    return out


def compare_job(ratio):
    def fn(token):
        from mlviz.sandbox import compare_on_planted

        token.report(stage="fitting BR, PCC and the sparse CDN")
        out = compare_on_planted(planted, gamma_ratio=ratio, random_state=seed)
        return out["measures"]
    return fn


def lspc_job(token):
    from mlviz.sandbox import lspc_gamma_gain

    token.report(stage="rotated toy, T = 4 and 16, 3 runs each")
    return lspc_gamma_gain((4, 16), random_state=seed)


# ------------------------------------------------------------------ graph vs planted
st.markdown(f"**Planted:** {escape_markdown(structure, 200)} — {L} labels, "
            f"{expected.number_of_edges()} dependencies a dependency network should find "
            "(the planted edges, undirected, plus edges between parents of a common child).")
left, right = st.columns([3, 2])
with right:
    ratio = st.select_slider("γ / γ_max (ℓ1 on label edges; 1 = empty graph)", sorted(RATIOS), SANDBOX_GAMMA_RATIO,
                             key="sb_gamma", bind="query-params",
                             help="γ_max is the smallest γ with no label edge, computed from the data. "
                                  "Move it down to let edges in; too low and false edges appear.")
job = compute.task(DATA_KEY, "planted-path", settings, path_job, owner=progress.owner("sandbox|path"))
path, _ = progress.result(job, settings=settings, slot="sandbox|path", label="Fitting the sparse CDN along the γ path")
if path is None:
    st.stop()
point = path[ratio]
rec = point["recovery"]
with left:
    fig = recovery_graph_figure(point["edges"], pos, names,
                                title=f"Sparse CDN at γ = {ratio:g}·γ_max against the planted graph")
    widgets.show_figure(fig, "sandbox_recovered_graph", key="sb_graph")
with right:
    c1, c2, c3 = st.columns(3)
    c1.metric("Edge precision", f"{rec['precision']:.3f}", help="true edges / learned edges")
    c2.metric("Edge recall", f"{rec['recall']:.3f}", help="true edges / planted edges")
    c3.metric("Edge F1", f"{rec['f1']:.3f}")
    c1.metric("True edges", rec["n_true"])
    c2.metric("False edges", rec["n_false"])
    c3.metric("Missed edges", rec["n_missed"])
    curve = pd.DataFrame([dict(param=r, precision=path[r]["recovery"]["precision"],
                               recall=path[r]["recovery"]["recall"], f1=path[r]["recovery"]["f1"])
                          for r in sorted(RATIOS)])
    widgets.show_figure(rule_curve_figure(curve, current=ratio, param_label="γ / γ_max", log_x=True, height=300),
                        "sandbox_recovery_path", key="sb_path")
story = ("every planted dependency is found and nothing else" if rec["n_false"] == rec["n_missed"] == 0 else
         f"{rec['n_false']} false and {rec['n_missed']} missed edge(s): "
         + ("raise γ to drop false edges" if rec["n_false"] else "lower γ to let missed edges in"))
st.info(f"At γ = {ratio:g}·γ_max the sparse CDN keeps {rec['n_true'] + rec['n_false']} edges: {story}.")
present.takeaway(f"The sparse CDN finds {rec['n_true']} of the {rec['n_true'] + rec['n_missed']} planted edges, "
                 f"plus {rec['n_false']} false edge(s), at γ = {ratio:g}·γ_max.")

# ------------------------------------------------------------------ predict first, then reveal
st.subheader("Predict first: who gets whole label sets right?")
target, target_text = (("xor_exact", "all labels of the exclusive group right") if has_xor else
                       ("subset_accuracy", "the whole label set right"))
st.markdown(
    "BR predicts each label on its own; PCC's *joint mode* predicts the single most probable label vector "
    "of its chain; the sparse CDN predicts each label from x and the other labels. "
    f"**Which method has {target_text} on the most test instances?**"
    + ("" if has_xor else " (Tip: the *Exclusive triple* preset shows BR's XOR failure most clearly.)"))
METHODS = ["BR", "PCC", "PCC joint mode", "SparseCDN"]
guess = st.radio("Your guess", ["no guess", *METHODS], key="sb_guess", horizontal=True, bind="query-params")
reveal = st.toggle("Reveal the answer", key="sb_reveal", bind="query-params")
# started now, at low priority until revealed, so the answer is ready when the class has guessed
cjob = compute.task(DATA_KEY, "planted-compare", dict(settings, gamma_ratio=ratio), compare_job(ratio),
                    owner=progress.owner("sandbox|compare"), priority=jobs.USER if reveal else jobs.PREFETCH)
table = gain = None
if reveal:
    table, _ = progress.result(cjob, settings=dict(settings, gamma_ratio=ratio), slot="sandbox|compare",
                               label="Fitting BR, PCC and the sparse CDN")
    if table is not None:
        best = table[target].idxmax()
        cols = st.columns(len(table))
        for col, (method, row) in zip(cols, table.iterrows()):
            col.metric(method, f"{row[target]:.3f}", help=f"Fraction of test instances with {target_text}.")
        verdict = ("" if guess == "no guess" else
                   (" — your guess was right." if guess == best else f" — you guessed {guess}."))
        st.success(f"**{best}** has {target_text} most often ({table.loc[best, target]:.3f}){verdict}")
        shown = table[["hamming_loss", "subset_accuracy", "micro_f1", "macro_f1", "example_f1", "empty_rate",
                       "xor_f1", "xor_exact"]]
        st.dataframe(shown, key="sb_measures")
        st.caption("Test half of the planted data; BR/PCC/CDN predictions: marginals ≥ 0.5, PCC joint mode: the "
                   "most probable label vector of the chain. `empty_rate`: instances with no predicted label.")

# ------------------------------------------------------------------ ML-LSPC γ gain
st.subheader("ML-LSPC: coupling labels helps more when they share more structure")
st.caption("Nam et al.'s rotated toy: T labels whose boundaries are rotated in one plane; with more labels, "
           "neighbours are more alike. γ is chosen on a validation draw; the table shows the test Hamming loss "
           "of plain LSPC (γ = 0) and of ML-LSPC, mean of 3 runs (takes several seconds).")
if st.toggle("Run the ML-LSPC γ-gain experiment", key="sb_lspc", bind="query-params"):
    ljob = compute.task(DATA_KEY, "lspc-gain", dict(seed=seed), lspc_job, owner=progress.owner("sandbox|lspc"))
    gain, _ = progress.result(ljob, settings=dict(seed=seed), slot="sandbox|lspc",
                              label="Running the ML-LSPC γ-gain experiment")
    if gain is not None:
        st.dataframe(gain, key="sb_lspc_table", hide_index=True)
        g = gain.set_index("T")["gain"]
        st.info(f"Gain in test Hamming loss over plain LSPC: {g.iloc[0]:.4f} with T = {g.index[0]} labels, "
                f"{g.iloc[-1]:.4f} with T = {g.index[-1]}.")


# ------------------------------------------------------------------ report pack (every page's figures and tables)
def report_section():
    from mlviz.dashboard import report_pack
    from mlviz.models import PCC, BinaryRelevance, SparseCDN

    ds = planted.dataset
    n_train = int(round(0.5 * ds.n_samples))
    source = report_pack.Source(key=f"sandbox:{structure}:{seed}", dataset=ds, train_index=range(n_train),
                                test_index=range(n_train, ds.n_samples), scaling="none",
                                split=f"first {n_train} rows train, the other {ds.n_samples - n_train} test "
                                      "(the Sandbox's split: the planted rows are drawn independently)")
    tables = {"Edge recovery at the page's γ": pd.DataFrame([dict(gamma_ratio=ratio, gamma=point["gamma"], **rec)]),
              "Edges: learned against planted": pd.DataFrame(point["edges"], columns=["source", "target", "status"]),
              "Edge precision and recall along γ": curve,
              "Who gets whole label sets right (test half)": table,
              "ML-LSPC γ gain": gain}
    report_pack.section(
        None, {}, key="sb_pack", source=source, tables=tables,
        estimators={"BR": BinaryRelevance(), "PCC": PCC(random_state=seed),
                    "SparseCDN": SparseCDN(gamma=point["gamma"], random_state=seed)},
        figures=widgets.figures_drawn(["sb_graph", "sb_path"]),
        identity={"settings": settings, "ratio": ratio, "reveal": bool(reveal), "lspc": gain is not None},
        extra={"page": "sandbox", "planted": settings, "gamma_ratio": ratio},
        title=f"mlviz report: planted {structure}",
        notes=["Planted data: mlviz.data.synthetic.make_planted("
               + ", ".join(f"{k}={v!r}" for k, v in settings.items()) + ") (written into the pack as data.npz).",
               "The sparse CDN is refitted cold at the absolute γ of the page's γ / γ_max (the page's fit was "
               "warm-started along the γ path, so its numbers can differ slightly); BR and PCC as on the page."])


report_section()
