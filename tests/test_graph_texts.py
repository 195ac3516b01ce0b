"""The Label graph page's decisions and sentences (mlviz.dashboard.graph_texts), against hand-written expectations."""

from mlviz.dashboard import graph_texts as gt

STEP = dict(n_edges=20, gamma=0.0123, gamma_max=0.0246)
SHOWN = dict(gamma=0.5, variant="sparse")
KW = dict(mu=0.0, lam1=1.0)


def test_max_edges_rules():
    assert gt.max_edges("auto", collapse=True, automatic=True, uses_gamma=True) is None
    assert gt.max_edges("auto", collapse=False, automatic=True, uses_gamma=True) == gt.AUTO_MAX_EDGES
    assert gt.max_edges("auto", collapse=False, automatic=False, uses_gamma=True) == gt.AUTO_MAX_EDGES_MANUAL
    assert gt.max_edges("auto", collapse=False, automatic=True, uses_gamma=False) == gt.AUTO_MAX_EDGES_MANUAL
    assert gt.max_edges(None, collapse=False, automatic=True, uses_gamma=True) is None
    assert gt.max_edges("100", collapse=True, automatic=False, uses_gamma=True) == 100


def test_takeaway():
    assert gt.takeaway(0.5, 7, 40, 72, uses_gamma=True) == (
        "At γ = 0.5·γ_max the sparse CDN keeps 7 label → label edges and uses 40 of 72 features.")
    assert gt.takeaway(0.5, 0, 72, 72, uses_gamma=False).startswith("The sparse CDN keeps 0 label")


def test_fit_caption_automatic_names_the_count_it_keeps_and_draws():
    text = gt.fit_caption(STEP, SHOWN, KW, n_train=395, uses_gamma=True, uses_mu=True, automatic=True, drawn_max=12)
    assert text.startswith("γ chosen automatically: 0.5·γ_max, the largest γ of the slider whose graph keeps at "
                           f"least {gt.AUTO_MIN_EDGES} edges (it keeps 20; the 12 strongest are drawn).")
    assert "γ = 0.0123 (γ_max = 0.0246 for these data), μ = 0, λ₁ = λ₂ = 1;" in text
    assert text.endswith("summed over the 395 training instances (Guo & Xue, eq. 4).")


def test_fit_caption_by_hand_and_variants_without_penalties():
    text = gt.fit_caption(STEP, dict(gamma=0.5, variant="cdn"), KW, n_train=10, uses_gamma=False, uses_mu=False,
                          automatic=False, drawn_max=None)
    assert "chosen automatically" not in text
    assert "γ is not used by the cdn variant (no ℓ1 penalty on V), μ is not used by the cdn variant" in text
    few = gt.fit_caption(dict(STEP, n_edges=5), SHOWN, KW, n_train=10, uses_gamma=True, uses_mu=True,
                         automatic=True, drawn_max=12)
    assert "(it keeps 5)." in few
