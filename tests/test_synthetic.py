"""Planted-dependency sandbox and rotated toy (mlviz.data.synthetic)."""

import itertools

import networkx as nx
import numpy as np
import pytest

from mlviz.data import MultiLabelDataset
from mlviz.data.synthetic import (
    edge_recovery,
    edge_status,
    expected_dependency_graph,
    format_structure,
    make_planted,
    make_rotated_toy,
    parse_structure,
    rotated_toy_labels,
)
from mlviz.models import SparseCDN
from mlviz.sandbox import compare_on_planted, lspc_gamma_gain, recovery_path


def test_rotated_toy_matches_its_definition():
    ds = make_rotated_toy(50, 4, 6, random_state=1)
    t = np.arange(1, 7)
    expected = (ds.X[:, :1] * np.cos(2 * np.pi * t / 6) + ds.X[:, 1:2] * np.sin(2 * np.pi * t / 6)) > 0
    np.testing.assert_array_equal(ds.Y, expected.astype(np.uint8))
    np.testing.assert_array_equal(rotated_toy_labels(ds.X, 6), ds.Y)
    with pytest.raises(ValueError, match="n_features"):
        make_rotated_toy(10, 1, 2)


def test_parse_and_format_structure_round_trip():
    items = parse_structure(" chain:5, hub:3,xor:3 ,indep:2,chain:2")
    assert items == [("chain", 5), ("hub", 3), ("xor", 3), ("indep", 2), ("chain", 2)]
    assert parse_structure(format_structure(items)) == items
    for bad, msg in (("chain", "kind:size"), ("loop:3", "kind:size"), ("chain:1", "chain size"),
                     ("", "empty"), ("xor:1", "xor size")):
        with pytest.raises(ValueError, match=msg):
            parse_structure(bad)


def test_planted_graph_names_and_determinism():
    p = make_planted("chain:3,hub:2,xor:2,indep:1,chain:2", n_samples=80, random_state=3)
    assert isinstance(p.dataset, MultiLabelDataset)
    assert p.label_names == ["chain1", "chain2", "chain3", "hub", "leaf1", "leaf2", "xor1", "xor2",
                             "ind1", "chaina1", "chaina2"]
    assert sorted(p.graph.edges) == sorted([
        ("chain1", "chain2"), ("chain2", "chain3"), ("hub", "leaf1"), ("hub", "leaf2"),
        ("xor1", "xor2"), ("chaina1", "chaina2")])
    assert [p.graph.nodes[n]["index"] for n in p.label_names] == list(range(11))
    q = make_planted("chain:3,hub:2,xor:2,indep:1,chain:2", n_samples=80, random_state=3)
    np.testing.assert_array_equal(p.dataset.X, q.dataset.X)
    np.testing.assert_array_equal(p.dataset.Y, q.dataset.Y)
    r = make_planted("chain:3,hub:2,xor:2,indep:1,chain:2", n_samples=80, random_state=4)
    assert not np.array_equal(p.dataset.Y, r.dataset.Y)
    assert p.settings["structure"] == "chain:3,hub:2,xor:2,indep:1,chain:2"


def test_planted_rates_follow_cardinality_and_imbalance():
    p = make_planted("indep:4", n_samples=40000, cardinality=1.2, imbalance=4.0, random_state=0)
    shape = 4.0 ** (-np.arange(4) / 3)
    expected = shape * 1.2 / shape.sum()
    np.testing.assert_allclose(p.dataset.Y.mean(axis=0), expected, atol=0.01)
    # with parents the intercept is calibrated on the parents' sampled values too
    c = make_planted("chain:4", n_samples=40000, cardinality=2.0, random_state=0)
    np.testing.assert_allclose(c.dataset.Y.mean(axis=0), 0.5, atol=0.01)


def test_planted_chain_child_follows_the_generative_model():
    # P(child | parent, x) = sigmoid(f u'x + c s_parent + b): with f = 0 the child
    # depends on its parent only, log-odds gap between parent on/off = 2c.
    p = make_planted("chain:2", n_samples=60000, coupling=1.0, feature_strength=0.0, random_state=2)
    Y = p.dataset.Y
    def logit(q):
        return np.log(q / (1 - q))
    gap = logit(Y[Y[:, 0] == 1, 1].mean()) - logit(Y[Y[:, 0] == 0, 1].mean())
    assert gap == pytest.approx(2.0, abs=0.08)


def test_extreme_settings_still_calibrate():
    p = make_planted("hub:3", n_samples=3000, coupling=20.0, feature_strength=20.0,
                     cardinality=0.5, imbalance=50.0, random_state=0)
    shape = 50.0 ** (-np.arange(4) / 3)
    expected = np.clip(shape * 0.5 / shape.sum(), 0.02, 0.98)
    np.testing.assert_allclose(p.dataset.Y.mean(axis=0), expected, atol=0.02)


def test_xor_group_has_exactly_one_label_and_noise_flips():
    p = make_planted("xor:3,indep:1", n_samples=5000, random_state=0)
    np.testing.assert_array_equal(p.dataset.Y[:, :3].sum(axis=1), 1)
    noisy = make_planted("xor:3,indep:1", n_samples=5000, noise=0.1, random_state=0)
    assert np.mean(noisy.dataset.Y != p.dataset.Y) == pytest.approx(0.1, abs=0.01)


def test_planted_bad_settings():
    with pytest.raises(ValueError, match="noise"):
        make_planted("chain:2", noise=0.5)
    with pytest.raises(ValueError, match="cycle"):
        make_planted("chain:3", edges=[("chain3", "chain1")])
    with pytest.raises(ValueError, match="Unknown label"):
        make_planted("chain:3", edges=[("chain3", "nope")])
    with pytest.raises(ValueError, match="exclusive"):
        make_planted("chain:2,xor:2", edges=[("chain1", "xor1")])
    with pytest.raises(ValueError, match="cardinality"):
        make_planted("indep:2", cardinality=3.0)


def test_expected_graph_is_the_moral_graph():
    p = make_planted("indep:3,xor:3", n_samples=20, edges=[("ind1", "ind3"), ("ind2", "ind3")],
                     random_state=0)
    E = expected_dependency_graph(p.graph)
    # co-parents ind1, ind2 married; xor clique; no direction
    assert {tuple(sorted(e)) for e in E.edges} == {
        ("ind1", "ind3"), ("ind2", "ind3"), ("ind1", "ind2"),
        ("xor1", "xor2"), ("xor1", "xor3"), ("xor2", "xor3")}


def _brute_force_recovery(learned_pairs, true_pairs):
    tp = sum(1 for e in learned_pairs if e in true_pairs)
    return tp / len(learned_pairs), tp / len(true_pairs)


def test_edge_recovery_against_its_definition():
    names = ["a", "b", "c", "d"]
    planted = nx.DiGraph([("a", "b"), ("b", "c")])
    planted.add_nodes_from(names)
    A = np.zeros((4, 4))
    A[0, 1] = A[1, 0] = 0.5  # a-b both ways: one undirected pair
    A[2, 1] = -1.0           # c->b: the planted b->c, reversed
    A[0, 3] = 0.2            # a->d: false
    r = edge_recovery(A, planted, names)
    learned_pairs = {("a", "b"), ("b", "c"), ("a", "d")}
    true_pairs = {("a", "b"), ("b", "c")}
    p, rec = _brute_force_recovery(learned_pairs, true_pairs)
    assert (r["precision"], r["recall"]) == (p, rec)
    assert (r["n_true"], r["n_false"], r["n_missed"]) == (2, 1, 0)
    d = edge_recovery(A, planted, names, directed=True)
    learned_dir = {("a", "b"), ("b", "a"), ("c", "b"), ("a", "d")}
    p, rec = _brute_force_recovery(learned_dir, {("a", "b"), ("b", "c")})
    assert (d["precision"], d["recall"]) == (p, rec)
    status = edge_status(A, planted, names, directed=True)
    assert {(s["source"], s["target"]): s["status"] for s in status} == {
        ("a", "b"): "true", ("b", "a"): "false", ("c", "b"): "false", ("a", "d"): "false",
        ("b", "c"): "missed"}
    # integer-node DiGraph == adjacency matrix; empty learned graph: precision 1, recall 0
    G = nx.DiGraph([(int(t), int(k)) for t, k in zip(*np.nonzero(A))])
    assert edge_recovery(G, planted, names) == r
    empty = edge_recovery(np.zeros((4, 4)), planted, names)
    assert (empty["precision"], empty["recall"], empty["f1"]) == (1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="label_names"):
        edge_recovery(A, planted)


def test_sparse_cdn_recovers_a_planted_chain():
    """γ rule: γ = 0.1 γ_max (SANDBOX_GAMMA_RATIO); with n = 1000 the 5-chain is found."""
    p = make_planted("chain:5,indep:1", n_samples=1000, random_state=0)
    m = SparseCDN(gamma=1.0, random_state=0).fit(p.dataset.X, p.dataset.Y)
    m = m.refit(gamma_ratio=0.1)
    r = edge_recovery(m.label_graph_, expected_dependency_graph(p.graph), p.label_names)
    assert r["precision"] >= 0.9 and r["recall"] >= 0.9, r
    # edges found in both directions (the Markov blanket), so directed recovery against the
    # symmetric expected graph is complete too
    sym = expected_dependency_graph(p.graph).to_directed()
    d = edge_recovery(m.label_graph_, sym, p.label_names, directed=True)
    assert d["recall"] >= 0.9, d


def test_sparse_cdn_with_too_few_rows_does_not_recover_the_chain():
    p = make_planted("chain:5,indep:1", n_samples=40, noise=0.2, random_state=0)
    m = SparseCDN(gamma=1.0, random_state=0).fit(p.dataset.X, p.dataset.Y).refit(gamma_ratio=0.1)
    r = edge_recovery(m.label_graph_, expected_dependency_graph(p.graph), p.label_names)
    assert r["f1"] < 0.9, r


def test_br_fails_on_the_exclusive_group_where_the_joint_mode_does_not():
    p = make_planted("xor:3", n_samples=2000, random_state=0)
    out = compare_on_planted(p, random_state=0)
    m = out["measures"]
    assert m.loc["BR", "empty_rate"] > 0.15          # marginals all < 0.5: nothing predicted
    assert m.loc["PCC joint mode", "empty_rate"] < 0.02
    assert m.loc["PCC joint mode", "subset_accuracy"] > m.loc["BR", "subset_accuracy"] + 0.1
    assert m.loc["PCC joint mode", "xor_exact"] > m.loc["BR", "xor_exact"] + 0.1
    assert out["recovery"]["recall"] == 1.0          # the exclusive clique is in the CDN graph


def test_lspc_gamma_gain_grows_with_shared_structure():
    table = lspc_gamma_gain((4, 16), runs=3, random_state=0).set_index("T")
    assert table.loc[16, "gain"] > table.loc[4, "gain"] + 0.003
    assert table.loc[16, "gain"] > 0


@pytest.mark.parametrize("kind", ["chain", "hub", "xor", "indep"])
def test_every_block_kind_generates_binary_labels(kind):
    p = make_planted(f"{kind}:3", n_samples=30, noise=0.05, imbalance=3.0, random_state=0)
    assert set(np.unique(p.dataset.Y)) <= {0, 1}
    assert p.dataset.n_labels == (4 if kind == "hub" else 3)
    for a, b in itertools.product(p.label_names, repeat=2):
        if p.graph.has_edge(a, b):
            assert p.graph.nodes[a]["index"] < p.graph.nodes[b]["index"]


def test_settings_reopen_the_same_data():
    """A page keeps ``settings`` in its URL: make_planted(**settings) regenerates the data."""
    p = make_planted("chain:3,xor:2", n_samples=50, noise=0.05, imbalance=2.0,
                     edges=[("xor1", "chain3")], random_state=7)
    q = make_planted(**p.settings)
    np.testing.assert_array_equal(p.dataset.Y, q.dataset.Y)
    np.testing.assert_array_equal(p.dataset.X, q.dataset.X)
    assert sorted(p.graph.edges) == sorted(q.graph.edges)


def test_recovery_path_matches_independent_fits():
    p = make_planted("chain:4,indep:1", n_samples=600, random_state=1)
    path = recovery_path(p, (1.0, 0.1, 0.005))
    assert path.loc[0, "n_edges"] == 0 and path.loc[0, "precision"] == 1.0
    assert path.loc[1, "recall"] == 1.0
    assert path.loc[2, "n_edges"] >= path.loc[1, "n_edges"]
    # each point equals a cold fit at the same gamma (warm starts change nothing but time)
    expected = expected_dependency_graph(p.graph)
    for _, row in path.iterrows():
        cold = SparseCDN(gamma=row["gamma"], random_state=0).fit(p.dataset.X[:300], p.dataset.Y[:300])
        rec = edge_recovery(cold.label_graph_, expected, p.label_names)
        assert (rec["n_true"], rec["n_false"]) == (row["n_true"], row["n_false"])


def _refused_within(call, match, budget=2 << 20):
    """``call()`` raises ValueError matching ``match`` and allocates less than ``budget`` bytes on the way."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < budget, f"{peak / 1e6:.1f} MB allocated before the refusal"


def test_sandbox_sizes_are_refused_before_anything_is_built():
    from mlviz.data.synthetic import MAX_CELLS, MAX_LABELS, MAX_STRUCTURE_LENGTH

    # issue 28: chain:20000000 took a server from 420 MB to 2.4 GB before saying "at most 200 labels"
    _refused_within(lambda: make_planted("chain:20000000"), f"at most {MAX_LABELS} labels")
    _refused_within(lambda: parse_structure("chain:20000000"), f"at most {MAX_LABELS} labels")
    _refused_within(lambda: make_planted([("chain", 20_000_000)]), f"at most {MAX_LABELS} labels")
    _refused_within(lambda: make_planted("indep:9" + "9" * 150), "at most")
    # a 16 kB structure string (the URL value of the issue) is refused by its length
    _refused_within(lambda: make_planted("chain:3," * 2048), f"at most {MAX_STRUCTURE_LENGTH}")
    # many small blocks: refused once they add up past the bound, without reading all of them
    many = ((k, 1) for k in itertools.repeat("indep", 10 ** 9))
    _refused_within(lambda: parse_structure(many), f"at most {MAX_LABELS} labels")
    # the hub itself counts: hub:200 is 201 labels
    with pytest.raises(ValueError, match="labels"):
        parse_structure("hub:200")
    assert sum(s for _, s in parse_structure("indep:200")) == MAX_LABELS
    # n_samples, n_features and their product with the labels
    _refused_within(lambda: make_planted("chain:3", n_samples=10 ** 12), "n_samples")
    _refused_within(lambda: make_planted("chain:3", n_features=10 ** 9), "n_features")
    _refused_within(lambda: make_planted("indep:200", n_samples=50_000, n_features=1_000),
                    f"{MAX_CELLS:,} cells")
    # more edges than an acyclic graph can hold: refused after reading one past that count
    edges = itertools.repeat(("chain1", "chain2"), 10 ** 9)
    _refused_within(lambda: make_planted("chain:3", edges=edges), "more edges")
    with pytest.raises(ValueError, match="Unknown label"):
        make_planted("chain:3", edges=[(["chain1"], "chain2")])


def test_sandbox_bounds_keep_the_largest_allowed_sizes_working():
    from mlviz.data.synthetic import MAX_LABELS, MAX_STRUCTURE_LENGTH

    p = make_planted(f"indep:{MAX_LABELS - 3},chain:3", n_samples=40, n_features=3, random_state=0)
    assert p.dataset.Y.shape == (40, MAX_LABELS)
    n_chains = (MAX_STRUCTURE_LENGTH - 7) // 8
    spec = ",".join(["chain:2"] * n_chains) + ",indep:1"
    assert MAX_STRUCTURE_LENGTH - 8 < len(spec) <= MAX_STRUCTURE_LENGTH
    assert len(parse_structure(spec)) == n_chains + 1
