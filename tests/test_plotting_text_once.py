"""Every figure builder escapes text exactly once (issue 29, item 1).

Plotly decodes HTML entities once when it draws a string. A builder that escapes a string twice
(``'`` -> ``&#x27;`` -> ``&amp;#x27;``) makes plotly *show* ``&#x27;``, as the Decision rules
title did ("the rule&#x27;s parameter"). So for every string a figure draws -- titles, subtitles,
subplot titles, axis titles and ticks, legend entries, hover text and templates, drawn text,
annotations, colour-bar titles -- the text plotly shows (the string with its entities decoded
once, :func:`html.unescape`) must hold no entity, and every label / method / title text given to
the builder must appear in it as written (apostrophes, ampersands, quotes and ``<`` included).
"""

from __future__ import annotations

import html
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from mlviz import plotting as mp
from mlviz.plotting import graph as mgraph
from mlviz.plotting import linked as mlinked
from mlviz.plotting import teach, upset
from mlviz.plotting._style import empty_figure, esc
from mlviz.plotting.legibility import drawn_strings

ENTITY = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);")
NAMES = ["rock & roll's", "a \"quoted\" tag", "x < y > z", "café", "l'été", "plain"]
L = len(NAMES)
TITLE = "every measure against the rule's parameter & more"
RNG = np.random.default_rng(3)
N = 60
Y = (RNG.random((N, L)) < 0.4).astype(np.uint8)
Y[0] = 1
P = RNG.random((N, L))
C = mp.cooccurrence_counts(Y)


def _graph():
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    G.add_weighted_edges_from([(0, 1, 0.5), (1, 2, -1.0), (3, 4, 0.2), (4, 5, 2.0), (5, 0, -0.3)])
    return G


def _cv(methods):
    rows = []
    for m in methods:
        for f in range(3):
            for meas in ("micro_f1", "hamming_loss", "p@1"):
                rows.append(dict(method=m, fold=f, measure=meas, value=RNG.random(),
                                 fit_seconds=0.1 + f, predict_seconds=0.01 * (f + 1)))
    return pd.DataFrame(rows)


def _curve():
    from mlviz.decision import rule_curve

    return rule_curve(Y, P, "threshold", np.linspace(0.1, 0.9, 5))


def cases():
    """(name, figure, texts that must be shown as written) for every figure builder."""
    G = _graph()
    pos = nx.circular_layout(G)
    pos_names = {n: pos[i] for i, n in enumerate(NAMES)}
    coords, lab = RNG.normal(size=(N, 2)), RNG.normal(size=(L, 2))
    cat = np.array(NAMES)[RNG.integers(0, L, N)]
    methods = ["BR & co's", "ML-kNN"]
    rows = [dict(source=NAMES[0], target=NAMES[1], status="true"),
            dict(source=NAMES[2], target=NAMES[3], status="missed")]
    out = [
        ("label_frequency_bar", mp.label_frequency_bar(NAMES, Y.sum(0), title=TITLE), NAMES + [TITLE]),
        ("cooccurrence_heatmap", mp.cooccurrence_heatmap(C, NAMES, title=TITLE), NAMES + [TITLE]),
        ("edge_stability_heatmap", mp.edge_stability_heatmap(C / C.max(), NAMES, n_folds=5, title=TITLE),
         NAMES + [TITLE]),
        ("signed_matrix_heatmap", mp.signed_matrix_heatmap(P[:L] - 0.5, NAMES, NAMES, title=TITLE,
                                                           colorbar_title=TITLE), NAMES + [TITLE]),
        ("embedding_scatter", mp.embedding_scatter(coords, lab, NAMES, color=cat, color_title=TITLE,
                                                   hover_text=list(cat), title=TITLE), NAMES + [TITLE]),
        ("latent_scatter", mp.latent_scatter(np.hstack([coords, coords[:, :1]]), np.hstack([lab, lab[:, :1]]),
                                             NAMES, method="LEML", color=cat, color_title=TITLE,
                                             hover_text=list(cat), title=TITLE), NAMES + [TITLE]),
        ("instance_scatter", mp.instance_scatter(coords, color=cat, color_title=TITLE, hover_text=list(cat),
                                                 title=TITLE, axis_title="axis's"), NAMES + [TITLE]),
        ("label_graph_figure", mp.label_graph_figure(G, pos, label_names=NAMES, title=TITLE), NAMES + [TITLE]),
        ("community_graph_figure", mgraph.community_graph_figure(G, pos, label_names=NAMES, title=TITLE),
         [TITLE]),
        ("cooccurrence_graph_figure", mp.cooccurrence_graph_figure(C, NAMES, pos, min_count=None, title=TITLE),
         NAMES + [TITLE]),
        ("regularization_path_figure", mp.regularization_path_figure([0.1, 1.0], [3, 1], current_gamma=0.5,
                                                                     note=TITLE, title=TITLE), [TITLE]),
        ("convergence_figure", mp.convergence_figure([3.0, 2.0, 1.0], title=TITLE), [TITLE]),
        ("posterior_heatmap", mp.posterior_heatmap(P, Y, NAMES, threshold=0.5, title=TITLE), NAMES + [TITLE]),
        ("posterior_grid", mp.posterior_grid({methods[0]: P, "ML-kNN": P[:, ::-1]}, Y, NAMES, threshold=0.5),
         NAMES + [methods[0]]),
        ("reliability_figure", mp.reliability_figure(Y, P, NAMES, labels=[0, 1, 4], title=TITLE),
         NAMES[:2] + [TITLE]),
        ("measure_bars", mp.measure_bars(_cv(methods), title=TITLE), methods + [TITLE]),
        ("timing_bars", mp.timing_bars(_cv(methods), title=TITLE), methods + [TITLE]),
        ("solver_scaling_figure", mp.solver_scaling_figure(
            pd.DataFrame(dict(solver=["naive", "eig"], n_labels=[2, 2], seconds=[1.0, 0.1])), title=TITLE), [TITLE]),
        ("time_ratio_figure", mp.time_ratio_figure(
            pd.DataFrame(dict(n_samples=[10, 100], lspc_seconds=[0.1, 0.2], klr_seconds=[1.0, 3.0])), title=TITLE),
         [TITLE]),
        ("recovery_graph_figure", teach.recovery_graph_figure(rows, pos_names, NAMES, title=TITLE), NAMES + [TITLE]),
        ("rule_curve_figure", teach.rule_curve_figure(_curve(), current=0.5, title=TITLE,
                                                      param_label="the rule's t"), [TITLE, "the rule's t"]),
        ("upset_figure", upset.upset_figure(Y, NAMES, title=TITLE), [TITLE]),
        ("selection_profile_figure", mlinked.selection_profile_figure(P, P[:, 0] > 0.5, NAMES, title=TITLE),
         [TITLE]),
        ("add_highlight", mlinked.add_highlight(mp.instance_scatter(coords), coords, [0, 1], name=TITLE), [TITLE]),
        ("empty_figure", empty_figure(TITLE, title=TITLE), [TITLE]),
    ]
    return out


CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_drawn_string_is_escaped_exactly_once(case):
    _, fig, must_show = case
    shown = [html.unescape(s) for _, s in drawn_strings(fig)]
    raw = [s for s in shown if ENTITY.search(s)]
    assert not raw, raw[:5]                                    # nothing shows an entity
    joined = "\n".join(shown)
    for text in must_show:                                    # ... and each text reads as written
        assert text in joined, text


def test_the_decision_rules_title_reads_as_written_also_in_presentation_mode():
    from mlviz.dashboard.present import projector_figure

    fig = teach.rule_curve_figure(_curve(), title="Macro-F1 on l'été & co: every measure against the rule's parameter")
    for f in (fig, projector_figure(fig)):  # (presentation mode wraps a long title onto lines: read as one)
        assert html.unescape(f.layout.title.text.replace("<br>", " ")) == (
            "Macro-F1 on l'été & co: every measure against the rule's parameter")


def test_the_check_catches_double_escaping():
    """The check itself: a twice-escaped title is found, a once-escaped one is not."""
    once, twice = esc("rule's"), esc(esc("rule's"))
    assert not ENTITY.search(html.unescape(once)) and ENTITY.search(html.unescape(twice))
    fig = empty_figure("x", title="t")
    fig.update_layout(title_text=twice)
    assert any(ENTITY.search(html.unescape(s)) for _, s in drawn_strings(fig))
