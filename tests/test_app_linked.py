"""AppTests of the linked views: a selection made on one page (or in the URL) is shown on the others,
with the values computed independently (cdn_effects on the fitted CDN, numpy counts of label sets)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _apptest import array, chart, ok, open_app, upload_session
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PAGES = {"embedding": "1_Embedding.py", "graph": "2_Label_graph.py", "posteriors": "3_Posteriors.py"}
CDN_VALUES = {"variant": "sparse", "gamma": 0.1, "mu": 0.003, "lam": 0.1}


pytestmark = pytest.mark.usefixtures("dashboard_no_prefetch")  # fresh caches; only the work asked for


def open_page(name, **query):
    return open_app(ROOT / "pages" / PAGES[name], {"emb_umap": "false", **query}, timeout=180)


def emotions():
    from mlviz.dashboard import state

    return state.sample_context("emotions")


def fitted_cdn(ctx):
    """The sparse CDN of CDN_VALUES, fitted through the compute layer as the pages do."""
    from mlviz.dashboard import compute, methods

    job = compute.path(ctx, methods.METHODS["cdn"], CDN_VALUES)
    return job.result(timeout=300)[CDN_VALUES["gamma"]]["model"]


def strongest_edge(model):
    u, v, _ = max(model.label_graph_.edges(data=True), key=lambda e: (abs(e[2]["weight"]), -e[0], -e[1]))
    return int(u), int(v)


def table_with(at, column):
    (df,) = [d.value for d in at.dataframe if column in d.value.columns]
    return df


def test_edge_in_the_url_shows_the_cdn_effect_top_instances_on_posteriors_and_embedding():
    from mlviz.dashboard.linked import EDGE_TOP, encode_edge
    from mlviz.models.cdn_effects import edge_effect, top_instances

    ctx = emotions()
    model = fitted_cdn(ctx)
    a, b = strongest_edge(model)
    effect = edge_effect(model, ctx.X_test, a, b)
    top = top_instances(effect.delta, EDGE_TOP)
    url = encode_edge(a, b, CDN_VALUES)

    at = open_page("posteriors", sel_edge=url)
    df = table_with(at, "Δ = on − off")
    assert df["test row"].tolist() == top.tolist()
    np.testing.assert_allclose(df["P(B | x), A on"], effect.p_on[top], atol=1e-12)
    np.testing.assert_allclose(df["P(B | x), A off"], effect.p_off[top], atol=1e-12)
    assert any("Method — exact" in c.value for c in at.caption)
    heat = chart(at, "fig_post_edge_heat")
    assert heat["data"][0]["y"] == [str(i) for i in top]  # the heat map's rows: the same instances, in order
    names = ctx.label_names
    assert names[a] in heat["data"][0]["x"] and names[b] in heat["data"][0]["x"]

    at = open_page("embedding", sel_edge=url)
    ring = [t for t in chart(at, "fig_embedding")["data"] if t.get("meta") == "highlight"]
    assert len(ring) == 1 and sorted(array(ring[0]["customdata"]).astype(int).tolist()) == sorted(top.tolist())
    assert table_with(at, "Δ = on − off")["test row"].tolist() == top.tolist()


def test_picking_an_edge_on_the_label_graph_puts_it_in_the_url_and_selects_its_target():
    from mlviz.dashboard.linked import decode_edge

    at = open_page("graph", cdn_gamma="0.1", cdn_variant="sparse", cdn_mu="3e-03", cdn_lam="0.1")  # (fmt_value format)
    box = at.selectbox(key="linked_edge_pick")
    assert box.options[0] == "— none —" and len(box.options) > 1
    pick = box.options[1]  # the strongest edge
    at = ok(box.select_index(1).run())
    text = at.session_state["sel_edge"]
    edge = decode_edge(text, 6)
    names = emotions().label_names
    assert pick.startswith(f"{names[edge.source]} → {names[edge.target]}")
    assert edge.values == CDN_VALUES
    assert at.session_state["sel_label"] == names[edge.target]
    model = fitted_cdn(emotions())
    assert (edge.source, edge.target) == strongest_edge(model)
    assert any("Edge effect" in m.value for m in at.markdown)


def test_label_set_intersection_shows_its_count_on_posteriors_and_embedding():
    from mlviz.dashboard.linked import encode_set

    ctx = emotions()
    Y_all = np.vstack([ctx.Y_train, ctx.Y_test])
    sets = pd.Series([tuple(np.flatnonzero(r)) for r in Y_all]).value_counts()
    members = sets.index[0]  # the most frequent exact label set
    n_test = int((ctx.Y_test.astype(bool) == np.isin(np.arange(6), members)).all(axis=1).sum())
    n_train = int(sets.iloc[0]) - n_test

    at = open_page("posteriors", sel_rows=encode_set(members))
    (metric,) = [m for m in at.metric if m.label == "Selected test instances"]
    assert int(metric.value) == n_test
    heat = chart(at, "fig_post_sel_heat")
    rows = sorted(int(y) for y in heat["data"][0]["y"])
    assert rows == np.flatnonzero((ctx.Y_test.astype(bool) == np.isin(np.arange(6), members)).all(axis=1)).tolist()

    at = open_page("embedding", sel_rows=encode_set(members))
    assert f"Selected: {n_train + n_test} instances" in [s.value for s in at.subheader]
    assert any(c.value.startswith(f"{n_train} training + {n_test} test instances") for c in at.caption)


def test_upset_panel_counts_and_the_list_selects_an_intersection_everywhere():
    from mlviz.dashboard.linked import encode_set

    ctx = emotions()
    Y_all = np.vstack([ctx.Y_train, ctx.Y_test])
    ref = pd.Series([tuple(np.flatnonzero(r)) for r in Y_all]).value_counts()
    at = open_page("embedding")
    up = chart(at, "fig_upset")
    assert array(up["data"][0]["y"]).astype(int).tolist() == sorted(ref.values, reverse=True)[:15]
    sets = [tuple(s) for s in up["layout"]["meta"]["sets"]]
    box = at.selectbox(key="upset_pick")
    at = ok(box.set_value(encode_set(sets[2])).run())
    assert at.session_state["sel_rows"] == encode_set(sets[2])
    assert f"Selected: {int(ref[sets[2]])} instances" in [s.value for s in at.subheader]
    up = chart(at, "fig_upset")
    assert up["data"][0]["marker"]["color"][2] != up["data"][0]["marker"]["color"][0]  # drawn highlighted

    at = ok(at.button(key="sel_clear").click().run())
    assert not at.session_state["sel_rows"]
    assert not any(s.value.startswith("Selected:") for s in at.subheader)


def test_lasso_ids_in_the_url_and_the_profile_of_the_selection():
    """A lasso's id list (as the Embedding page writes it): 3 training + 2 test instances; the
    profile's bars are the mean posteriors of exactly those rows."""
    from mlviz.dashboard.linked import encode_ids

    text, dropped = encode_ids([1, 2, 3], [0, 5])
    assert text == "ids:train=1-3;test=0.5" and dropped == 0
    at = open_page("posteriors", sel_rows=text)
    (metric,) = [m for m in at.metric if m.label == "Selected test instances"]
    assert int(metric.value) == 2
    prof = chart(at, "fig_post_sel_profile")
    sel = next(t for t in prof["data"] if t["meta"] == "selection")
    everyone = next(t for t in prof["data"] if t["meta"] == "all")
    from mlviz.dashboard import compute, methods

    m = methods.METHODS["mllspc"]
    P = compute.report(emotions(), m, m.defaults()).result(timeout=60)[0]["P"]
    labels = array(sel["customdata"]).astype(int)
    np.testing.assert_allclose(array(sel["y"]), P[[0, 5]][:, labels].mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(array(everyone["y"]), P[:, labels].mean(axis=0), atol=1e-12)

    at = open_page("embedding", sel_rows=text)
    assert "Selected: 5 instances" in [s.value for s in at.subheader]
    rings = [t for t in chart(at, "fig_embedding")["data"] if t.get("meta") == "highlight"]
    assert sorted(array(rings[0]["customdata"]).astype(int).tolist()) == [1, 2, 3]
    assert sorted(array(rings[1]["customdata"]).astype(int).tolist()) == [0, 5]


def test_selected_label_is_drawn_on_posteriors_and_colours_the_embedding():
    ctx = emotions()
    name = ctx.label_names[4]
    at = open_page("embedding", sel_label=name)
    assert at.selectbox(key="emb_label").value == name
    at = open_page("posteriors", sel_label=name)
    assert any(c.value.startswith("Selected label **" ) and f"{int(ctx.Y_test[:, 4].sum())} positive test" in c.value
               for c in at.caption)


@pytest.mark.parametrize("query", [{"sel_rows": "ids:train=9-1"}, {"sel_rows": "set:99"},
                                   {"sel_edge": "0>1@sparse,0.1234,0.003,0.1"}, {"sel_edge": "garbage"},
                                   {"sel_rows": "ids:train=0-100000"}])
def test_bad_selection_in_the_url_is_explained_not_a_traceback(query):
    at = open_page("posteriors", **query)  # (the URL schema refuses it, names it and takes it out of the address)
    (name,) = query
    assert any(c.value.startswith(":material/link_off: Not taken from the link") and name.replace("_", "\\_") in c.value
               for c in at.sidebar.caption)
    assert name not in at.query_params
    assert not [m for m in at.metric if m.label == "Selected test instances"]


def open_upload(name, ds, **query):
    ctx, session = upload_session(ds)
    return open_app(ROOT / "pages" / PAGES[name], {"emb_umap": "false", **query}, session, timeout=300), ctx


def test_24_labels_linked_labels_are_drawn_and_the_large_component_uses_the_named_approximation():
    """A CAL500-shaped data set with 24 labels: the selected label and the edge's labels join the 20
    drawn in the heat map; A's component is larger than the exact cap, so the page names the approximation and shows
    the conditional at the CDN's predictions (computed here with cdn_effects)."""
    from test_app_graph import many_label_dataset

    from mlviz.dashboard import compute, methods, state
    from mlviz.dashboard.linked import EDGE_TOP, encode_edge
    from mlviz.models.cdn_effects import edge_effect, top_instances

    ds = many_label_dataset(n=72, L=24, d=8)
    # ridge CDN: one component of 24 labels; λ = 1 mixes fast enough for a quick Gibbs run
    values = {"variant": "cdn", "gamma": 0.1, "mu": 0.003, "lam": 1.0}
    ctx = state.context_from_dataset(state.upload_id(ds.name, ds.X.tobytes() + ds.Y.tobytes()), ds)
    top20 = set(np.argsort(-ctx.Y_train.sum(axis=0), kind="stable")[:20].tolist())
    rest = [j for j in range(24) if j not in top20]  # the 4 labels not drawn by default
    a, b, picked = rest[0], min(top20), rest[1]
    names = ctx.label_names
    at, ctx = open_upload("posteriors", ds, post_models=["BR-LR"], post_labels="20", sel_label=names[picked],
                          sel_edge=encode_edge(a, b, values))
    drawn = chart(at, "fig_post_br")["data"][0]["x"]
    assert sorted(drawn) == sorted(names[j] for j in top20 | {a, b, picked})
    assert any("Method — approximation" in c.value for c in at.caption)
    cdn = methods.METHODS["cdn"]
    model = compute.path(ctx, cdn, values).result(timeout=600)[values["gamma"]]["model"]
    assert max(len(c) for c in model._components()) == 24 > model.max_exact_labels
    pred = compute.report(ctx, cdn, values).result(timeout=600)[0]["pred"]  # (the CDN's own predictions, cached)
    effect = edge_effect(model, ctx.X_test, a, b, Y_given=pred)
    assert effect.method == "conditional"
    top = top_instances(effect.delta, EDGE_TOP)
    df = table_with(at, "Δ = on − off")
    assert df["test row"].tolist() == top.tolist()
    np.testing.assert_allclose(df["Δ = on − off"], effect.delta[top], atol=1e-12)


@pytest.mark.slow(seconds=7)
def test_selection_made_on_the_embedding_survives_a_visit_to_home_and_shows_on_posteriors():
    """The UpSet pick (a widget, not the URL) is kept for the session through a page without the
    panel (Home), and the Posteriors page then shows its test instances."""
    from mlviz.dashboard.linked import encode_set

    ctx = emotions()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["emb_umap"] = "false"
    ok(at.run())
    ok(at.switch_page("pages/1_Embedding.py").run())
    members = (1,)  # happy-pleased alone
    ok(at.selectbox(key="upset_pick").set_value(encode_set(members)).run())
    ok(at.switch_page("pages/0_Home.py").run())
    ok(at.switch_page("pages/3_Posteriors.py").run())
    assert at.text_input(key="sel_rows").value == encode_set(members)
    want = int((ctx.Y_test.astype(bool) == np.isin(np.arange(6), members)).all(axis=1).sum())
    (metric,) = [m for m in at.metric if m.label == "Selected test instances"]
    assert int(metric.value) == want > 0


def test_hostile_label_names_and_3d_map_with_every_part_selected():
    """Markdown/HTML in label names is shown as text in the selection panel; the 3-D map rings the
    selected instances (Scatter3d) of the exact label set."""
    from test_app_graph import many_label_dataset

    from mlviz.dashboard.linked import encode_edge, encode_set

    names = ["**bold** <b>x</b>", "$x$ `code`", "[link](http://a)", "plain"] + [f"tag_{j}" for j in range(4, 8)]
    ds = many_label_dataset(n=90, L=8, d=6, names=names)
    values = {"variant": "sparse", "gamma": 0.1, "mu": 0.003, "lam": 0.1}
    at, ctx = open_upload("embedding", ds, emb_dims="3-D", sel_label=names[0], sel_rows=encode_set([0]),
                          sel_edge=encode_edge(1, 0, values))
    caps = [c.value for c in at.caption]
    hostile = r"\*\*bold\*\* \<b\>x\<\/b\>"  # (escape_markdown: shown as typed)
    assert f"**Label**: {hostile}" in caps
    assert f"**Instances**: label set exactly {{{hostile}}}" in caps
    assert any(c.startswith(r"**Edge**: \$x\$ \`code\` → " + hostile) for c in caps)
    mask_tr = (ctx.Y_train.astype(bool) == np.isin(np.arange(8), [0])).all(axis=1)
    rings = [t for t in chart(at, "fig_embedding")["data"] if t.get("meta") == "highlight"]
    assert rings[0]["type"] == "scatter3d"
    assert sorted(array(rings[0]["customdata"]).astype(int).tolist()) == np.flatnonzero(mask_tr).tolist()
    assert any(m.value.startswith(r"**Edge effect \$x\$ \`code\` → " + hostile) for m in at.markdown)
