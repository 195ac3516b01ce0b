"""Every builder: escaped user strings in the figure JSON, no mutation of inputs, the
same JSON when built twice and after being rendered/exported (mlviz.plotting)."""

import copy
import json

import networkx as nx
import numpy as np
import pandas as pd
import plotly.tools
import pytest

from mlviz import plotting as mp
from mlviz.metrics import RCut

BAD = ['<a href="https://x.example">y</a>', "[t](https://x.example)", "=HYPERLINK(\"https://x\")",
       "<b>BOLD</b>", "%{y}<img src=https://x.example/i.png>", "plain"]
L = len(BAD)
RNG = np.random.default_rng(11)
N = 90
Y = (RNG.random((N, L)) < 0.4).astype(np.uint8)
P = RNG.random((N, L))
C = mp.cooccurrence_counts(Y)


def _graph():
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    G.add_weighted_edges_from([(0, 1, 0.5), (1, 2, -1.0), (3, 4, 0.2), (4, 5, 2.0), (5, 0, -0.3)])
    return G


def _cv():
    rows = []
    for m in BAD[:3]:
        for f in range(3):
            for meas in ("micro_f1", "hamming_loss"):
                rows.append(dict(method=m, fold=f, measure=meas, value=RNG.random(),
                                 fit_seconds=0.1 + f, predict_seconds=0.01 * (f + 1)))
    return pd.DataFrame(rows)


def _cases():
    """(name, builder, args, kwargs) for every public builder, fed hostile names."""
    G = _graph()
    pos = nx.circular_layout(G)
    coords, lab = RNG.normal(size=(N, 3)), RNG.normal(size=(L, 3))
    cat = np.array(BAD)[RNG.integers(0, L, N)]
    return [
        ("label_frequency_bar", mp.label_frequency_bar, (BAD, Y.sum(0)), dict(title=BAD[0])),
        ("cooccurrence_heatmap", mp.cooccurrence_heatmap, (C, BAD), dict(normalize="jaccard", title=BAD[3])),
        ("edge_stability_heatmap", mp.edge_stability_heatmap, (C / C.max(), BAD), dict(n_folds=5)),
        ("signed_matrix_heatmap", mp.signed_matrix_heatmap, (P[:L] - 0.5, BAD, BAD), dict(colorbar_title=BAD[4])),
        ("embedding_scatter", mp.embedding_scatter, (coords, lab, BAD),
         dict(color=cat, color_title=BAD[0], hover_text=list(cat), test_coords=coords[:5],
              test_hover_text=BAD[:5], title=BAD[1])),
        ("embedding_scatter 3-D", mp.embedding_scatter, (coords, lab, BAD),
         dict(color=P[:, 0], color_title=BAD[3], dims=3, test_coords=coords[:4])),
        ("latent_scatter", mp.latent_scatter, (coords, lab, BAD),
         dict(method=BAD[2], color=cat, color_title=BAD[0], hover_text=list(cat), test_codes=coords[:5],
              test_hover_text=BAD[:5], title=BAD[1], label_scale="match")),
        ("instance_scatter", mp.instance_scatter, (coords,),
         dict(color=cat, color_title=BAD[4], hover_text=list(cat), axis_title=BAD[3])),
        ("label_graph_figure", mp.label_graph_figure, (G, pos), dict(label_names=BAD, title=BAD[0],
                                                                   communities=True)),
        ("cooccurrence_graph_figure", mp.cooccurrence_graph_figure, (C, BAD, pos), dict(min_count=None)),
        ("regularization_path_figure", mp.regularization_path_figure, ([0.1, 1.0], [3, 1]),
         dict(current_gamma=0.5, note=BAD[0], title=BAD[3])),
        ("convergence_figure", mp.convergence_figure, ([3.0, 2.0, 1.0],), dict(title=BAD[0])),
        ("posterior_heatmap", mp.posterior_heatmap, (P, Y, BAD), dict(threshold=0.5, max_labels=4,
                                                                     title=BAD[3])),
        ("posterior_grid", mp.posterior_grid, ({BAD[0]: P, BAD[3]: P[:, ::-1]}, Y, BAD),
         dict(scores={BAD[0]: {"micro_f1": 0.5}}, threshold=RCut(2))),
        ("reliability_figure", mp.reliability_figure, (Y, P, BAD), dict(threshold=np.full(L, 0.4))),
        ("measure_bars", mp.measure_bars, (_cv(),), dict(title=BAD[0])),
        ("timing_bars", mp.timing_bars, (_cv(),), {}),
        ("solver_scaling_figure", mp.solver_scaling_figure,
         (pd.DataFrame(dict(solver=[BAD[0], "eig"], n_labels=[2, 2], seconds=[1.0, 0.1])),), {}),
    ]


def _strings(obj, key=None):
    """(key, string) for every string of a figure's JSON except under ``meta`` (data for
    code, never drawn)."""
    if isinstance(obj, str):
        yield key, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k != "meta":
                yield from _strings(v, k)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v, key)


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_user_strings_reach_the_figure_only_escaped(case):
    _, build, args, kwargs = case
    fig = build(*args, **kwargs)
    pairs = list(_strings(json.loads(fig.to_json())))
    joined = "\n".join(t for _, t in pairs)
    for raw in ("<a ", "<a>", 'href="', "<img", "<b>BOLD"):
        assert raw not in joined, raw
    assert "&lt;a href=&quot;https://x.example&quot;&gt;y&lt;/a&gt;" in joined   # shown as text
    # a name's "%{y}" must not become a placeholder of a hover template
    for key, t in pairs:
        if key == "hovertemplate":
            assert "%{y}&lt;img" not in t


def test_hovertemplates_do_not_substitute_placeholders_from_names():
    fig = mp.reliability_figure(Y, P, BAD, labels=[4])
    assert "%&#123;y}&lt;img" in fig.data[1].hovertemplate


def _deep(x):
    return copy.deepcopy(x)


def _same(a, b):
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    if isinstance(a, nx.Graph):
        return sorted(a.edges(data=True)) == sorted(b.edges(data=True)) and list(a.nodes) == list(b.nodes)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_builders_are_pure_and_rendering_does_not_mutate(case):
    _, build, args, kwargs = case
    before_args, before_kwargs = _deep(args), _deep(kwargs)
    fig = build(*args, **kwargs)
    first = fig.to_json()
    assert build(*args, **kwargs).to_json() == first              # deterministic
    assert _same(list(args), list(before_args)) and _same(kwargs, before_kwargs)  # inputs untouched
    # what the dashboard does with a cached figure: st.plotly_chart's conversion, the HTML
    # export, the PNG path's dict copy -- none may change the cached object
    plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
    mp.figure_to_html(fig, include_plotlyjs="cdn")
    d = fig.to_dict()
    d["layout"]["width"] = 123
    assert fig.to_json() == first
    assert fig.layout.title.text is None or "<b>" not in fig.layout.title.text
