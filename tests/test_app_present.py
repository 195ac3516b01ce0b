"""AppTests of the presentation layer: the reference-check page, presentation mode and the guided tour.

The reference check's values shown are compared with
:func:`mlviz.reproductions.reference.reference_check` run directly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _apptest import ok
from streamlit.testing.v1 import AppTest

from mlviz._text import escape_markdown
from mlviz.evaluation.baselines import REFERENCES

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = str(ROOT / "pages" / "7_Reference_check.py")
TIMEOUT = 120


@pytest.fixture(autouse=True)
def clear_caches(fresh_dashboard):
    yield


def run(path, **query):
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return ok(at.run())


def metrics(at):
    return {m.label: m.value for m in at.metric}


def markdown(at):
    return "\n".join(m.value for m in at.markdown)


# ----------------------------------------------------------------------- reference check

@pytest.mark.parametrize("dataset", ["emotions", "scene", "yeast", "enron", "medical"])
def test_reference_check_shows_the_numbers_of_the_reference_module(dataset):
    from mlviz.reproductions import reference

    at = run(REFERENCE, ref_data=dataset, present=1)
    assert not at.dataframe and not takeaways(at), "nothing is computed before the click"
    at.button(key="ref_run").click()
    ok(at.run())
    expected = reference.reference_check((dataset,), ("fixed-split",), random_state=0)
    compared = expected[expected["published"].notna()].reset_index(drop=True)
    shown = at.dataframe[0].value
    assert list(shown["Method"]) == list(compared["method"])
    assert list(shown["Measure"]) == list(compared["measure"])
    np.testing.assert_array_equal(shown["Ours"].to_numpy(float), compared["ours"].to_numpy(float))
    np.testing.assert_array_equal(shown["Reference"].to_numpy(float), compared["published"].to_numpy(float))
    np.testing.assert_array_equal(shown["Difference"].to_numpy(float), compared["diff"].to_numpy(float))
    assert list(shown["Status"]) == list(compared["status"])  # words, no emoji
    assert list(shown["Source"]) == list(compared["source"])
    within = int((compared["status"] == "within band").sum())
    assert metrics(at) == {"Reference numbers compared": str(len(compared)), "Within band": str(within),
                           "Off band": str(len(compared) - within)}
    text = markdown(at)
    for method, rows in compared.groupby("method"):
        ok_rows = int((rows["status"] == "within band").sum())
        assert f"**{escape_markdown(method)}** :" in text and f"[{ok_rows} of {len(rows)} within band]" in text
    # every published number's citation is written out beside the table
    assert escape_markdown(reference.CITATIONS[compared["source"].iloc[0]]) in text
    (text,) = takeaways(at)
    assert text == (f"{within} of the {len(compared)} measured fixed-split reference numbers on {dataset} "
                    f"({escape_markdown(reference.SOURCES['fixed-split'].short)}) are reproduced within their band "
                    "by our "
                           + " and ".join(escape_markdown(m) for m in dict.fromkeys(compared["method"])) + " runs.")
    # PCC (no published number) is shown in its own table, with the module's values
    extra = expected[expected["published"].isna()]
    plain = at.dataframe[1].value.set_index("method")
    for r in extra.itertuples():  # (a column with a blank is text: "—" there, 4 decimals elsewhere)
        cell = plain.loc[r.method, r.measure]
        assert cell == r.ours if isinstance(cell, float) else cell == f"{r.ours:.4f}"
    assert not plain.isna().any().any()  # blanks read "—", not "None"


def test_the_fixed_split_protocol_cites_the_script_that_measures_it():
    at = run(REFERENCE, ref_data="emotions", ref_protocol="fixed-split")
    assert at.radio(key="ref_protocol").value == "fixed-split"
    page = "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])
    assert "benchmarks/reference_numbers.py" in page and "ANCHORS" not in page


def test_reference_check_on_a_set_without_a_protocol_says_so():
    at = run(REFERENCE, ref_data="yeast", ref_protocol="MLRH-T5")
    assert any("MLRH-T5 has no numbers for yeast" in i.value for i in at.info)
    assert not any(b.key == "ref_run" for b in at.button)
    assert not at.dataframe


def test_reference_check_progress_counts_every_fit():
    from mlviz.reproductions import reference

    calls = []
    frame = reference.reference_check(("emotions",), methods=("BR-LR", "ML-kNN"),
                                      progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 2), (1, 2), (2, 2)]
    assert list(dict.fromkeys(frame["method"])) == ["BR-LR", "ML-kNN"] == reference.p1_methods(
        "emotions", ("BR-LR", "ML-kNN"))


# ----------------------------------------------------------------------- presentation mode

HOME = str(ROOT / "app.py")
GRAPH = str(ROOT / "pages" / "2_Label_graph.py")
POSTERIORS = str(ROOT / "pages" / "3_Posteriors.py")
DECISION = str(ROOT / "pages" / "6_Decision_rules.py")
SANDBOX = str(ROOT / "pages" / "5_Sandbox.py")


def takeaways(at):
    prefix = ":material/lightbulb: **Takeaway:** "
    return [m.value[len(prefix):] for m in at.markdown if m.value.startswith(prefix)]


def styles(at):
    return "\n".join(m.value for m in at.markdown if m.value.startswith("<style>"))


def tree(at):
    """Every element's type and value/label, in order (to compare two runs)."""
    out = []
    for node in at.main.children.values():
        stack = [node]
        while stack:
            n = stack.pop(0)
            out.append((n.type, str(getattr(n, "value", getattr(n, "label", "")))[:200]))
            stack = list(getattr(n, "children", {}).values()) + stack
    return out


def test_home_in_presentation_mode_shows_the_takeaway_and_hides_the_chosen_controls():
    from mlviz.data import load_protocol_split, load_sample

    plain = run(HOME)
    assert not takeaways(plain) and not styles(plain)
    assert plain.get("download_button") and any("Upload" in e.label for e in plain.expander)

    at = run(HOME, present=1, hide="upload,downloads,sidebar")
    full, (train, test) = load_sample("emotions"), load_protocol_split("emotions")
    Y = full.Y
    top = int(np.argmax(Y.sum(0)))
    (text,) = takeaways(at)
    assert text.startswith(f"**emotions** has {train.n_samples} training and {test.n_samples} test instances "
                           f"with {Y.shape[1]} labels; an instance carries {Y.sum(1).mean():.2f} labels on average, "
                           f"and *{escape_markdown(full.label_names[top])}* is the most frequent "
                           f"(on {Y[:, top].mean():.0%} of the instances).")
    # downloads and the upload form are not drawn at all; the sidebar is hidden by the style rule
    assert not at.get("download_button")
    assert not at.get("file_uploader") and not any("Upload" in e.label for e in at.expander)
    css = styles(at)
    assert '[data-testid="stSidebar"]' in css and "display: none" in css and "font-size: 130%" in css
    assert '[data-testid="stSlider"]' not in css  # (sliders were not chosen)
    # present=0 (or no parameter) is the normal page: the same elements in the same order
    off = run(HOME, present=0)
    assert tree(off) == tree(plain)


def test_presentation_mode_stays_on_for_the_session_until_exit():
    at = run(HOME, present=1, hide="sliders")
    del at.query_params["present"], at.query_params["hide"]  # (a sidebar link drops the query string)
    ok(at.run())
    assert takeaways(at) and '[data-testid="stSlider"]' in styles(at)
    assert at.query_params["present"] == "1" and at.query_params["hide"] == "sliders"
    at.button(key="present_exit").click()
    ok(at.run())
    assert not takeaways(at) and not styles(at)


def test_unknown_hide_names_are_named():
    at = run(HOME, present=1, hide="sliders,bogus")  # (the URL schema drops the unknown name and says so)
    assert any("hide=sliders,bogus: unknown groups dropped" in c.value.replace("\\", "") for c in at.sidebar.caption)
    assert at.query_params["hide"] == "sliders"
    assert '[data-testid="stSlider"]' in styles(at)


def test_label_graph_takeaway_uses_the_numbers_shown():
    at = run(GRAPH, present=1, hide="sliders,downloads")
    m = {x.label: x.value for x in at.metric}
    (text,) = takeaways(at)
    n_features = m["selected features"].split(" / ")[1]
    assert f"sparse CDN keeps {m['edges (non-zero V entries)']} label → label edges and uses " \
           f"{m['selected features'].split(' / ')[0]} of {n_features} features." in text
    assert text.startswith("At γ = ") and "·γ_max" in text
    assert '[data-testid="stSlider"]' in styles(at)
    assert not [b for b in at.get("download_button") if b.proto.id and "fig_cdn" in b.proto.id]
    plain = run(GRAPH)
    assert not takeaways(plain) and not styles(plain)


def test_posteriors_and_decision_rule_takeaways_equal_the_metrics_shown():
    at = run(POSTERIORS, present=1)
    m = {x.label: x.value for x in at.metric}
    (text,) = takeaways(at)
    micro = next(v for k, v in m.items() if k.lower().startswith("micro"))
    assert f"micro-F1 {micro}" in text and text.startswith("ML-LSPC (")
    dr = run(DECISION, present=1)
    m = {x.label: x.value for x in dr.metric}
    (text,) = takeaways(dr)
    subset = next(v for k, v in m.items() if k.lower().startswith("subset"))
    assert f"subset accuracy {subset}" in text


def test_sandbox_takeaway_counts_the_edges_shown():
    at = run(SANDBOX, present=1)
    m = {x.label: x.value for x in at.metric}
    (text,) = takeaways(at)
    true, missed, false = int(m["True edges"]), int(m["Missed edges"]), int(m["False edges"])
    assert text.startswith(f"The sparse CDN finds {true} of the {true + missed} planted edges, plus {false} false")


def test_projector_figure_scales_fonts_markers_and_lines_of_a_copy():
    import plotly.graph_objects as go

    from mlviz.dashboard.present import projector_figure

    fig = go.Figure([go.Scatter(x=[0, 1], y=[1, 2], mode="markers+lines", marker=dict(size=[4, 8]),
                                line=dict(width=2)), go.Scatter(x=[0], y=[0], marker=dict(size=6))])
    fig.update_layout(title=dict(text="t", font=dict(size=20)), xaxis=dict(tickfont=dict(size=10)))
    big = projector_figure(fig, scale=1.5)
    assert list(big.data[0].marker.size) == [6, 12] and big.data[1].marker.size == 9
    assert big.data[0].line.width == 3
    assert big.layout.title.font.size == 30 and big.layout.xaxis.tickfont.size == 15
    assert big.layout.font.size == 13 * 1.5
    # the original is untouched
    assert list(fig.data[0].marker.size) == [4, 8] and fig.layout.title.font.size == 20
    assert fig.layout.font.size is None


def test_projector_figure_makes_room_for_its_larger_title():
    """Issue 29: in presentation mode the FISTA title overlapped its first subplot title. The top margin
    grows with the fonts (the figure grows by as much, so the plots keep their height)."""
    from mlviz.dashboard.present import projector_figure
    from mlviz.plotting import convergence_figure

    fig = convergence_figure(np.geomspace(10, 1, 30), title="FISTA convergence at γ = 0.5·γ_max")
    big = projector_figure(fig, scale=1.5)
    t, h = fig.layout.margin.t, fig.layout.height
    assert big.layout.margin.t == 1.5 * t and big.layout.height == h + 0.5 * t
    # the title (font: 1.4 × the layout's) hangs from the top edge below its padding; the subplot titles stand on
    # the top of the plot area, one font size high: the title's lower edge stays above their upper edge
    title_font = big.layout.font.size * 1.4
    sub_font = max(a.font.size or big.layout.font.size for a in big.layout.annotations)
    assert big.layout.title.yref == "container" and big.layout.title.yanchor == "top"
    assert big.layout.title.pad.t + 1.3 * title_font <= big.layout.margin.t - sub_font


def test_projector_figure_wraps_a_long_title_and_turns_slanted_names_steeper():
    """At 1.5 × its size a 51-character title ran past a figure half a 1024-pixel screen wide, and names slanted
    at −30° overlapped: the title is wrapped (the margin and the figure grow by the added line: the plot keeps its
    height) and the names turn to −60°."""
    from mlviz.dashboard.present import TITLE_CHARS, projector_figure
    from mlviz.plotting import label_frequency_bar

    names = ["relaxing-calm", "angry-aggresive", "sad-lonely", "happy-pleased", "amazed-suprised", "quiet-still"]
    short = label_frequency_bar(names, [1, 2, 3, 4, 5, 6], title="Label frequency")
    long = label_frequency_bar(names, [1, 2, 3, 4, 5, 6], title="MLLEM joint embedding (2-D, nonlinear test mapping)")
    assert short.layout.xaxis.tickangle == -30
    a, b = projector_figure(short, scale=1.5), projector_figure(long, scale=1.5)
    assert a.layout.title.text == "Label frequency" and a.layout.xaxis.tickangle == -60
    lines = b.layout.title.text.split("<br>")
    assert len(lines) == 2 and " ".join(lines) == long.layout.title.text
    assert all(len(line) <= TITLE_CHARS for line in lines)
    grown = b.layout.margin.t - a.layout.margin.t
    assert grown > 1.5 * 17 and b.layout.height - a.layout.height == pytest.approx(grown)
    assert b.layout.title.pad.t == pytest.approx(a.layout.title.pad.t + grown)  # (plotly hangs it by its last line)


def drawn_figures(at):
    """``{chart key: (figure dict, proto)}`` of the Plotly charts a run drew."""
    import json

    return {c.proto.id.rsplit("-", 1)[-1]: (json.loads(c.proto.spec), c.proto) for c in at.get("plotly_chart")}


def font_sizes(spec):
    """Every font size set in a figure's layout, by path (``title.font``, ``xaxis.tickfont``, ...)."""
    out = {}

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                if ((k == "font" or k.endswith("font")) and isinstance(v, dict)
                        and isinstance(v.get("size"), (int, float))):
                    out[f"{path}{k}"] = v["size"]
                walk(v, f"{path}{k}.")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}{i}.")

    walk(spec["layout"], "")
    return out


@pytest.mark.parametrize("page, query, keys", [
    (SANDBOX, {}, ["sb_graph", "sb_path"]),
    (DECISION, {}, ["dr_curves"]),
    (str(ROOT / "pages" / "1_Embedding.py"), {"emb_umap": "false"}, ["fig_embedding"]),
], ids=["sandbox", "decision_rules", "embedding"])
def test_figures_a_page_draws_itself_are_enlarged_in_presentation_mode(page, query, keys):
    """The charts these pages draw with ``st.plotly_chart`` (not via widgets.show_figure) follow
    presentation mode: every font size set in the plain run's figure times FIGURE_SCALE, the global
    font 13 x FIGURE_SCALE where the figure sets none; the same traces; without present=1 unchanged."""
    from mlviz.dashboard.present import FIGURE_SCALE

    plain = drawn_figures(run(page, **query))
    big = drawn_figures(run(page, present=1, **query))
    for key in keys:
        (p, p_proto), (b, b_proto) = plain[key], big[key]
        p_fonts, b_fonts = font_sizes(p), font_sizes(b)
        assert p.get("layout", {}).get("font", {}).get("size", 12) < 12 * FIGURE_SCALE  # plain: not enlarged
        assert b["layout"]["font"]["size"] == pytest.approx(p["layout"].get("font", {}).get("size", 13) * FIGURE_SCALE)
        assert set(b_fonts) == set(p_fonts) | {"font"}
        for path, size in p_fonts.items():
            assert b_fonts[path] == pytest.approx(size * FIGURE_SCALE), (key, path)
        assert [t.get("type") for t in b["data"]] == [t.get("type") for t in p["data"]]
        assert [t.get("name") for t in b["data"]] == [t.get("name") for t in p["data"]]
        assert list(b_proto.selection_mode) == list(p_proto.selection_mode)  # (the embedding's lasso stays)
    if "fig_embedding" in keys:
        assert len(big["fig_embedding"][1].selection_mode) == 2


# ----------------------------------------------------------------------- guided tour: text (pure)

def test_tour_text_with_given_numbers():
    from mlviz.dashboard import tour

    graph = dict(gamma_ratio=0.3, n_edges=12, n_labels=6, n_features=40, n_total_features=72, uses_gamma=True)
    assert tour.graph_text(graph) == ("At γ = 0.3·γ_max the graph keeps 12 edges of the 30 possible label → label "
                                      "edges, and uses 40 of 72 features.")
    assert tour.graph_text(dict(graph, uses_gamma=False)).startswith("The graph keeps 12 edges")
    data = dict(name="my*data", n_train=10, n_test=5, n_labels=3, cardinality=1.234, top_label="a_b",
                top_share=0.456, pair=("x", "y", 0.2))
    assert tour.data_text(data) == (r"**my\*data** has 10 training and 5 test instances with 3 labels; an instance "
                                    r"carries 1.23 labels on average, and *a\_b* is the most frequent (on 46% of the "
                                    "instances). The pair seen together most often is *x* and *y* (20% of instances).")
    assert tour.embedding_text(dict(n_instances=7, n_labels=3, dims=2, closest=("p", "q"))) == (
        "The 2-D map holds 7 training instances and 3 labels. The two labels closest in the map are *p* and *q*: "
        "they share instances.")
    assert tour.posteriors_text(dict(method="BR", micro_f1=0.61234, hamming_loss=0.2, n_test=50)) == (
        "BR, with its own decision rule, reaches micro-F1 0.612 and Hamming loss 0.2000 on the 50 test instances.")
    comp = dict(folds=3, n_methods=2, best="ML-kNN", best_mean=0.7, best_std=0.01, runner_up="BR",
                runner_up_mean=0.65)
    assert tour.comparison_text(comp) == ("Over 3 folds, ML\\-kNN has the best micro-F1 of the 2 methods: "
                                          "0.700 ± 0.010, ahead of BR (0.650).")
    # one run on the standard train/test files: no folds, no spread
    assert tour.comparison_text({**comp, "folds": 1, "standard": True, "best_std": float("nan")}) == (
        "On the standard train/test split, ML\\-kNN has the best micro-F1 of the 2 methods: 0.700, ahead of BR "
        "(0.650).")
    for name in ("embedding", "graph", "posteriors", "comparison"):
        assert tour.NOT_YET in tour.TEXTS[name](None)
    assert tour.step_text(3, graph) == tour.STEPS[2].lead + " " + tour.graph_text(graph)


def test_tour_steps_parse_and_comparison_summary_picks_the_best_mean():
    from mlviz.dashboard import tour
    from mlviz.plotting.tables import summary_table

    assert [tour.parse_step(v) for v in ("1", "5", "graph", "0", "end", "", "6", "x")] == [1, 5, 3, 0, 0, 0, None, None]
    res = pd.DataFrame([dict(method=m, fold=f, measure="micro_f1", value=v)
                        for m, vals in (("A", (0.5, 0.7)), ("B", (0.8, 0.6)), ("C", (0.1, 0.2)))
                        for f, v in enumerate(vals)])
    got = tour.comparison_summary(summary_table(res), 2)
    # means: A 0.6, B 0.7, C 0.15 -> B first, A second
    assert got["best"] == "B" and got["best_mean"] == pytest.approx(0.7) and got["runner_up"] == "A"
    assert got["best_std"] == pytest.approx(np.std([0.8, 0.6], ddof=1)) and got["n_methods"] == 3
    assert got["best_seed"] is None  # no seed method among A, B, C


def test_comparison_says_plainly_when_a_seed_method_loses_to_a_baseline():
    from mlviz.dashboard import tour
    from mlviz.plotting.tables import summary_table

    res = pd.DataFrame([dict(method=m, fold=f, measure="micro_f1", value=v)
                        for m, vals in (("RF-PCT", (0.72, 0.70)), ("ML-LSPC", (0.66, 0.68)), ("MLRH", (0.5, 0.6)))
                        for f, v in enumerate(vals)])
    got = tour.comparison_summary(summary_table(res), 2)
    assert (got["best"], got["best_seed"]) == ("RF-PCT", "ML-LSPC")
    assert got["best_seed_mean"] == pytest.approx(0.67)
    assert tour.comparison_text(got).endswith("ML\\-LSPC, loses to this baseline by 0.040 micro-F1.")


# ----------------------------------------------------------------------- guided tour: the panel (AppTest)

def tour_text(at):
    heads = [i for i, m in enumerate(at.markdown) if m.value.startswith("**:material/tour: Guided tour")]
    assert len(heads) == 1, [m.value for m in at.markdown][:5]
    return at.markdown[heads[0]].value, at.markdown[heads[0] + 1].value


def test_tour_walks_from_data_to_comparison_with_live_numbers():
    from mlviz.dashboard import tour
    from mlviz.data import load_protocol_split

    train, test = load_protocol_split("emotions")
    at = run(HOME, tour=1)
    head, text = tour_text(at)
    assert head.endswith("step 1 of 5: Data**")
    assert f"**emotions** has {train.n_samples} training and {test.n_samples} test instances" in text

    at.session_state["emb_umap"] = False  # (UMAP's first run compiles numba for ~20 s; not part of the tour)
    at.button(key="tour_next").click()
    ok(at.run())  # -> the Embedding page
    head, text = tour_text(at)
    assert head.endswith("step 2 of 5: Embedding**") and tour.NOT_YET in text  # (the page computes it after)
    ok(at.run())
    head, text = tour_text(at)
    assert f"The 2-D map holds {train.n_samples} training instances and {train.n_labels} labels." in text

    at.button(key="tour_next").click()
    ok(at.run())  # -> the Label graph page
    ok(at.run())
    head, text = tour_text(at)
    m = {x.label: x.value for x in at.metric}
    assert head.endswith("step 3 of 5: Label graph**")
    L = train.n_labels
    assert (f"the graph keeps {m['edges (non-zero V entries)']} edges of the {L * (L - 1)} possible label → label "
            f"edges, and uses {m['selected features']} features.").replace(" / ", " of ") in text
    gamma = at.session_state["mlviz_shown|graph"]["gamma"]
    assert f"At γ = {gamma:g}·γ_max" in text

    at.button(key="tour_next").click()
    ok(at.run())  # -> the Posteriors page
    ok(at.run())
    head, text = tour_text(at)
    m = {x.label: x.value for x in at.metric}
    micro = next(v for k, v in m.items() if k.lower().startswith("micro"))
    assert head.endswith("step 4 of 5: Posteriors**") and f"micro-F1 {micro} " in text

    at.button(key="tour_next").click()
    ok(at.run())  # -> the Compare page: nothing run yet
    head, text = tour_text(at)
    assert head.endswith("step 5 of 5: Comparison**") and tour.NOT_YET in text
    assert not any(b.key == "tour_next" for b in at.button)
    at.button(key="cmp_run").click()
    ok(at.run())
    ok(at.run())
    head, text = tour_text(at)
    assert text.startswith(tour.STEPS[4].lead + " Over 3 folds, ")
    wide = next(r.value for r in at.dataframe if r.value.index.name == "method")  # (the page's summary table)
    micro_col = next(c for c in wide.columns if c.lower().startswith("micro"))
    means = {m: float(v.split(" ± ")[0]) for m, v in wide[micro_col].items()
             if m not in REFERENCES}  # (the trivial reference rows show "—": not methods)
    top = max(means, key=means.get)
    assert f"{escape_markdown(top)} has the best micro-F1 of the {len(means)} methods: {means[top]:.3f}" in text

    at.button(key="tour_finish").click()
    ok(at.run())
    assert not [m for m in at.markdown if m.value.startswith("**:material/tour:")]


def test_a_bad_tour_step_is_named_and_no_panel_is_drawn():
    at = run(HOME, tour="9")
    assert any("tour=9: not one of the choices (1-5 or one of data" in c.value.replace("\\", "")
               for c in at.sidebar.caption)
    assert "tour" not in at.query_params
    assert not [m for m in at.markdown if m.value.startswith("**:material/tour:")]


def test_reference_check_shows_progress_and_cancels(fresh_dashboard, monkeypatch):
    monkeypatch.setattr(fresh_dashboard, "WAIT", 0.0)  # (answer before the result, as a slow run does)
    at = run(REFERENCE, ref_data="emotions", ref_protocol="MLRH-T5")
    at.button(key="ref_run").click()
    ok(at.run())
    (notice,) = [i.value for i in at.info if "Running the reference check" in i.value]
    assert "data = emotions, protocol = MLRH-T5" in notice
    assert "of 5 outer folds done" in notice or "starting" in notice  # (how far it got depends on the machine)
    job = fresh_dashboard.RUNNER.job(fresh_dashboard.key("reference:emotions", "reference-check",
                                                         {"dataset": "emotions", "protocol": "MLRH-T5",
                                                          "random_state": 0}))
    assert job is not None and not job.cancel_event.is_set()
    at.button(key="ref_cancel").click()
    ok(at.run())
    assert job.cancel_event.is_set()
    assert not at.dataframe and "ref_request" not in at.session_state


def test_embedding_takeaway_counts_what_the_map_holds():
    from mlviz.data import load_protocol_split

    train, _ = load_protocol_split("emotions")
    at = run(str(ROOT / "pages" / "1_Embedding.py"), present=1, emb_umap="false")
    (text,) = takeaways(at)
    assert text == (f"MLLEM puts {train.n_samples} training instances and {train.n_labels} labels in one 2-D map: "
                    "an instance lies near the labels it carries.")


def test_compare_takeaway_names_the_best_mean_shown_and_figures_are_enlarged():
    import json

    at = run(str(ROOT / "pages" / "4_Compare.py"), present=1)
    assert not takeaways(at)  # (nothing run yet)
    at.button(key="cmp_run").click()
    ok(at.run())
    wide = next(r.value for r in at.dataframe if r.value.index.name == "method")
    micro_col = next(c for c in wide.columns if c.lower().startswith("micro"))
    means = {m: float(v.split(" ± ")[0]) for m, v in wide[micro_col].items()
             if m not in REFERENCES}  # (the trivial reference rows show "—": not methods)
    top = max(means, key=means.get)
    (text,) = takeaways(at)
    assert text.startswith(f"Over 3 folds, {escape_markdown(top)} has the best micro-F1 of the {len(means)} methods: "
                           f"{means[top]:.3f}")
    # the figures drawn by widgets.show_figure get the projector scale (fonts x 1.5)
    from mlviz.dashboard.present import FIGURE_SCALE

    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert specs and all(s["layout"]["font"]["size"] >= 12 * FIGURE_SCALE for s in specs)
    plain = run(str(ROOT / "pages" / "4_Compare.py"))
    plain.button(key="cmp_run").click()
    ok(plain.run())
    assert not takeaways(plain)
    sizes = [json.loads(c.proto.spec)["layout"].get("font", {}).get("size") for c in plain.get("plotly_chart")]
    assert all(size is None or size < 12 * FIGURE_SCALE for size in sizes)


def test_reference_check_shows_the_state_of_the_art_from_the_measured_run():
    from mlviz.reproductions import standard_splits

    at = run(REFERENCE, ref_data="emotions")
    frame = standard_splits.recorded()
    if frame is None:  # a copy without the measured run says how to make it
        assert any("mlviz reproduce standard-splits" in c.value for c in at.caption)
        return
    sota = standard_splits.state_of_the_art(frame)
    (table,) = at.table
    assert list(table.value.index) == list(sota["dataset"])
    assert any(standard_splits.takeaway(sota).split(";")[0][:40] in m.value for m in at.markdown)
    assert any("Bogatinovski" in c.value for c in at.caption)
    # the study's other measures: Hamming loss shows where the best method is behind (emotions)
    at.radio(key="ref_sota_measure").set_value("Hamming loss").run()
    sota = standard_splits.state_of_the_art(frame, "hamming_loss")
    (table,) = at.table
    assert list(table.value["mlviz best"]) == list(sota["mlviz best"])
    behind = sota.loc[sota["gap to best"].idxmin()]
    assert any("in Hamming loss" in m.value and f"on {behind['dataset']}" in m.value for m in at.markdown)
    # the measure is a setting of the address: a shared link opens on it
    at = run(REFERENCE, ref_data="emotions", ref_sota_measure="subset accuracy")
    assert at.radio(key="ref_sota_measure").value == "subset accuracy"
    (table,) = at.table
    sota = standard_splits.state_of_the_art(frame, "subset_accuracy")
    assert list(table.value["mlviz best"]) == list(sota["mlviz best"])
