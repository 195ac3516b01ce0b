"""Teaching figures: edge styles per recovery status, rule curves with the current value marked."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from mlviz.data.synthetic import edge_status, expected_dependency_graph, make_planted
from mlviz.decision import best_parameters, rule_curve
from mlviz.plotting.teach import EDGE_STYLES, recovery_graph_figure, rule_curve_figure


def _json(fig):
    return json.loads(fig.to_json())


def _segments(trace):
    """(x0, y0, x1, y1) of each segment of a None-separated line trace."""
    x, y = trace["x"], trace["y"]
    return [(x[i], y[i], x[i + 1], y[i + 1]) for i in range(0, len(x), 3)]


def test_recovery_graph_styles_each_status_and_draws_each_edge_between_its_nodes():
    names = ["a", "b", "c", "d"]
    planted = nx.Graph([("a", "b"), ("b", "c")])
    learned = nx.Graph([("a", "b"), ("c", "d")])
    rows = edge_status(learned, planted)
    pos = {"a": (0.0, 0.0), "b": (1.0, 0.0), "c": (1.0, 1.0), "d": (0.0, 1.0)}
    fig = _json(recovery_graph_figure(rows, pos, names))
    edges = {t["meta"]["status"]: t for t in fig["data"] if t.get("meta", {}).get("kind") == "edges"}
    assert list(edges) == ["true", "false", "missed"]
    assert {s: edges[s]["line"]["dash"] for s in edges} == {"true": "solid", "false": "dash", "missed": "dot"}
    colours = {edges[s]["line"]["color"] for s in edges}
    assert len(colours) == 3  # colour tells them apart too
    assert {s: edges[s]["meta"]["n_edges"] for s in edges} == {"true": 1, "false": 1, "missed": 1}
    assert _segments(edges["true"]) == [(0.0, 0.0, 1.0, 0.0)]          # a — b
    assert _segments(edges["false"]) == [(1.0, 1.0, 0.0, 1.0)]         # c — d
    assert _segments(edges["missed"]) == [(1.0, 0.0, 1.0, 1.0)]        # b — c
    assert all(edges[s].get("showlegend", True) for s in edges)
    assert edges["false"]["name"].startswith(EDGE_STYLES["false"][0])
    nodes = [t for t in fig["data"] if t.get("meta", {}).get("kind") == "nodes"][0]
    assert nodes["text"] == names


def test_recovery_graph_of_a_planted_chain_counts_match_edge_status():
    planted = make_planted("chain:4,indep:1", n_samples=50, random_state=0)
    expected = expected_dependency_graph(planted.graph)
    learned = np.zeros((5, 5))
    learned[0, 1] = learned[1, 0] = 1.0  # chain1 - chain2 (true)
    learned[0, 4] = 1.0                  # chain1 - ind1 (false)
    rows = edge_status(learned, expected, planted.label_names)
    pos = nx.circular_layout(planted.label_names)
    fig = _json(recovery_graph_figure(rows, pos, planted.label_names))
    n = {t["meta"]["status"]: t["meta"]["n_edges"] for t in fig["data"] if t.get("meta", {}).get("kind") == "edges"}
    assert n == {"true": 1, "false": 1, "missed": 2}
    # every status legend entry is present even when a status has no edge
    rows_true_only = [r for r in rows if r["status"] == "true"]
    fig2 = _json(recovery_graph_figure(rows_true_only, pos, planted.label_names))
    n2 = {t["meta"]["status"]: t["meta"]["n_edges"] for t in fig2["data"] if t.get("meta", {}).get("kind") == "edges"}
    assert n2 == {"true": 1, "false": 0, "missed": 0}


def test_recovery_graph_escapes_label_names_and_rejects_unknown_nodes():
    names = ["<b>x</b>", "y"]
    rows = [dict(source="<b>x</b>", target="y", status="true")]
    fig = _json(recovery_graph_figure(rows, {"<b>x</b>": (0, 0), "y": (1, 0)}, names, title="<i>t</i>"))
    nodes = [t for t in fig["data"] if t.get("meta", {}).get("kind") == "nodes"][0]
    assert nodes["text"][0] == "&lt;b&gt;x&lt;/b&gt;"
    assert "<i>" not in fig["layout"]["title"]["text"]
    with pytest.raises(ValueError, match="not among"):
        recovery_graph_figure([dict(source="z", target="y", status="true")], {"y": (0, 0)}, names)
    with pytest.raises(ValueError, match="status"):
        recovery_graph_figure([dict(source="y", target="y", status="maybe")], {"y": (0, 0)}, ["y"])


def _scores():
    rng = np.random.default_rng(0)
    Y = (rng.random((60, 4)) < 0.4).astype(np.uint8)
    P = np.clip(0.6 * Y + 0.5 * rng.random(Y.shape), 0, 1)
    return Y, P


def test_rule_curve_figure_one_line_per_measure_with_the_curve_values():
    Y, P = _scores()
    curve = rule_curve(Y, P, "threshold")
    fig = _json(rule_curve_figure(curve, current=0.3, best=best_parameters(curve), param_label="threshold t"))
    lines = {t["meta"]["measure"]: t for t in fig["data"] if t["meta"]["kind"] == "curve"}
    assert list(lines) == [c for c in curve.columns if c != "param"]
    for m, tr in lines.items():
        ys = tr["y"]
        if isinstance(ys, dict):  # plotly typed array
            import base64

            ys = np.frombuffer(base64.b64decode(ys["bdata"]), dtype=ys["dtype"])
        np.testing.assert_allclose(np.asarray(ys, dtype=float), curve[m].to_numpy(dtype=float))
    shapes = [s for s in fig["layout"]["shapes"] if s.get("name") == "current"]
    assert len(shapes) == 1 and shapes[0]["x0"] == shapes[0]["x1"] == 0.3
    assert fig["layout"]["xaxis"]["title"]["text"] == "threshold t"


def test_rule_curve_figure_best_markers_sit_at_each_measures_best_parameter():
    Y, P = _scores()
    curve = rule_curve(Y, P, "rcut")
    best = best_parameters(curve)
    fig = _json(rule_curve_figure(curve, current=1, best=best))
    marks = {t["meta"]["measure"]: (t["x"][0], t["y"][0]) for t in fig["data"] if t["meta"]["kind"] == "best"}
    assert set(marks) == set(best.index)
    for m, (x, y) in marks.items():
        assert x == best.loc[m, "param"]
        assert y == pytest.approx(best.loc[m, "value"])
        # the best value is the max (or min for losses) of that column
        col = curve[m].to_numpy()
        assert y == pytest.approx(col.min() if m in ("hamming_loss", "empty_rate") else col.max())


def test_rule_curve_figure_without_parameter_and_without_current():
    Y, P = _scores()
    curve = rule_curve(Y, P, "mcut")
    fig = _json(rule_curve_figure(curve, current=0.5))
    assert not fig["layout"].get("shapes")  # MCut has no parameter to mark
    vals = {t["meta"]["measure"]: t["y"][0] for t in fig["data"]}
    for m in vals:
        assert vals[m] == pytest.approx(float(curve[m].iloc[0]))
    fig2 = _json(rule_curve_figure(rule_curve(Y, P, "threshold")))
    assert not fig2["layout"].get("shapes")


def test_rule_curve_figure_log_axis_marks_current_in_log_units():
    import pandas as pd

    curve = pd.DataFrame(dict(param=[1.0, 0.1, 0.01], precision=[1.0, 0.8, 0.3], recall=[0.0, 1.0, 1.0]))
    fig = _json(rule_curve_figure(curve, current=0.1, log_x=True))
    assert fig["layout"]["xaxis"]["type"] == "log"
    shape = [s for s in fig["layout"]["shapes"] if s.get("name") == "current"][0]
    assert shape["x0"] == pytest.approx(-1.0)


def test_recovery_graph_keeps_an_empty_status_in_the_legend():
    rows = [dict(source="a", target="b", status="true")]
    fig = _json(recovery_graph_figure(rows, {"a": (0, 0), "b": (1, 0)}, ["a", "b"]))
    missed = [t for t in fig["data"] if t.get("meta", {}).get("status") == "missed"][0]
    assert missed["x"] == [None] and missed["meta"]["n_edges"] == 0
    assert missed["name"].endswith(": 0") and missed["line"]["dash"] == "dot"
