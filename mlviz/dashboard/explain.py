"""Collapsible teaching text for each page: what the method does, its key
equation (``st.latex``), what the controls change, what to look for, and the paper."""

from __future__ import annotations

import streamlit as st

from mlviz.models.registry import PAPERS

TEXT = {
    "data": dict(
        what=(
            "A multi-label data set pairs each instance $x_i \\in \\mathbb{R}^d$ with a **set** of "
            "labels, stored as a 0/1 row $y_i \\in \\{0,1\\}^L$. The statistics below tell you how hard "
            "it is: how many labels an instance carries on average (cardinality), how rare the rare "
            "labels are (IRLbl, MeanIR) and how often rare and frequent labels appear together (SCUMBLE)."
        ),
        latex=[
            r"\mathrm{Card} = \frac{1}{n}\sum_{i=1}^n |y_i|,\qquad \mathrm{Dens} = \frac{\mathrm{Card}}{L},\qquad "
            r"\mathrm{IRLbl}(l) = \frac{\max_{l'} \sum_i y_{il'}}{\sum_i y_{il}},\qquad "
            r"\mathrm{MeanIR} = \frac{1}{L}\sum_l \mathrm{IRLbl}(l)",
        ],
        look=(
            "The co-occurrence heatmap shows which labels appear together — the structure the label-graph "
            "and embedding pages try to learn. Normalising by *conditional* gives $P(\\text{column}\\mid\\text{row})$."
        ),
        papers=["stats"],
    ),
    "embedding": dict(
        what=(
            "MLLEM places instances **and** labels in one map. It builds a graph on $N+L$ nodes: an instance "
            "is joined to its labels ($W_{IL}=Y$), to its $k$ nearest instances ($W_{II}$, weight $\\alpha$), and "
            "each label to its $k$ most co-occurring labels ($W_{LL}$, weight $\\beta$). A Laplacian eigenmap "
            "then puts strongly connected nodes close together."
        ),
        latex=[
            r"W=\begin{pmatrix}\alpha W_{II} & Y\\ Y^\top & \beta W_{LL}\end{pmatrix},\qquad "
            r"L = D - W,\qquad L\,E = \lambda\, D\, E \;\;(\text{bottom eigenvectors, trivial one dropped})",
            r"\text{test point: } \hat g(x) = \tfrac{1}{k}\textstyle\sum_{j\in\mathrm{kNN}(x)} g_j "
            r"\;\;(\text{nonlinear}) \quad\text{or}\quad \hat g(x) = A^\top x \;\;(\text{ridge, linear})",
        ],
        look=(
            "Larger $\\alpha$ lets feature similarity dominate (instances cluster by features); larger $\\beta$ "
            "pulls co-occurring labels together. An instance is predicted to carry the labels whose points are "
            "nearest to it. Draw a box or lasso around a cloud to list those instances and their label sets. "
            "UMAP and PCA below the map only see the features — compare how well they separate the label colours."
        ),
        papers=["002"],
    ),
    "graph": dict(
        what=(
            "The sparse conditional dependency network predicts each label $y_k$ from the features **and the "
            "other labels** with a logistic regression. An $\\ell_1$ penalty ($\\gamma$) on the label weights $V$ "
            "keeps only a few label→label edges — the graph drawn here — and an $\\ell_{2,1}$ penalty ($\\mu$) on "
            "the feature weights $W$ keeps features shared by all labels. It is trained by FISTA (accelerated "
            "proximal gradient) and queried by Gibbs sampling."
        ),
        latex=[
            r"p(y_k\mid x, y_{-k}) = \sigma\!\big(y_k\,(w_k^\top x + v_k^\top y_{-k} + b_k)\big)\quad\text{(eq. 1)}",
            r"\min_{W,V,b}\; -\sum_{i,k}\log p(y_{ik}\mid x_i,y_{i,-k}) + \tfrac{\lambda_1}{2}\|W\|_F^2 "
            r"+ \tfrac{\lambda_2}{2}\|V\|_F^2 + \gamma\|V\|_1 + \mu\|W\|_{2,1}\quad\text{(eq. 4)}",
        ],
        look=(
            "Raise $\\gamma$ and edges disappear (the path chart shows how many survive at each $\\gamma$; the "
            "marker is the current value). Blue edges are positive dependencies (one label makes the other "
            "more likely), red ones negative. Compare with the plain co-occurrence graph: the CDN keeps only "
            "dependencies that the features do not already explain. Labels that often occur together sit "
            "together (a spring layout of the co-occurrence counts, its crowded centre spread out); the "
            "positions never move with γ, μ or λ, so an edge that appears or vanishes is easy to follow. "
            "A γ move is a lookup on the path. A μ or λ move computes the path of the new values from γ_max "
            "downwards (each γ warm-started from the "
            "previous one, as scikit-learn's lasso_path), so the same settings always give the same graph, "
            "whatever was viewed before. Until the new γ point is ready, the previous graph stays up with a "
            "notice showing the FISTA iteration; the neighbouring μ and λ values are prepared ahead."
        ),
        papers=["001"],
    ),
    "posteriors": dict(
        what=(
            "Every model here outputs $P(y_l=1\\mid x)$ for each test instance and label. ML-LSPC fits all "
            "labels at once by a least-squares probabilistic classifier coupled through label similarity; "
            "the coupling turns training into one Sylvester equation, solved from two eigendecompositions that "
            "are cached, so λ/γ slider moves cost milliseconds."
        ),
        latex=[
            r"\Phi^\top\Phi\,\Theta + \Theta\,C = \Phi^\top\Pi,\qquad "
            r"C = \mathrm{diag}(\lambda + \Gamma\mathbf 1) - \Gamma,\qquad "
            r"\Gamma_{tt'} = \gamma\max(0,\rho_{tt'})\quad\text{(Nam et al., §5)}",
            r"p(y_l=1\mid x) = \frac{\max(0,q_l^+(x))}{\max(0,q_l^+(x)) + \max(0,q_l^-(x))}",
            r"\text{MLRH: } \Pr(y\mid x) = \frac{\exp\big(\sum_k y_k\,w_k^\top x\big)}"
            r"{\sum_{1\le|y'|\le M}\exp\big(\sum_k y'_k\,w_k^\top x\big)}\quad\text{(Lee & Shajari, eq. 30-31)}",
        ],
        look=(
            "Rows of the heatmaps are test instances grouped by their true label set, so a good model paints "
            "the same block pattern as the truth. The threshold control turns probabilities into label sets: "
            "a global cut, one per label, or the top-$r$ labels (rank cut). Measures update live. The reliability "
            "plot compares predicted probabilities with observed frequencies — points on the diagonal mean calibrated."
        ),
        papers=["000", "004", "003", "001", "002", "mlknn"],
    ),
    "compare": dict(
        what=(
            "Cross-validation fits each method on $k-1$ folds and scores it on the held-out fold. Folds are "
            "built by iterative stratification so that every fold keeps the label proportions. Bars show the "
            "mean over folds with ± one standard deviation. On emotions, enron, scene and yeast the *Protocol* "
            "choice also offers the standard train/test split of the published comparisons: one fit on the "
            "standard training file, scored once on its test file, with the published numbers beside ours."
        ),
        latex=[
            r"\text{Hamming loss} = \frac{1}{nL}\sum_{i,l}[\hat y_{il}\ne y_{il}],\qquad "
            r"\text{micro-}F_1 = \frac{2\sum_{i,l}\hat y_{il}y_{il}}{\sum_{i,l}\hat y_{il} + \sum_{i,l}y_{il}}",
            r"\text{ML-LSPC cost: } O(B^3 + L^3) \text{ (eigendecompositions)}\;\text{vs}\; "
            r"O(B^3L^3)\text{ (naive Kronecker solve)}",
        ],
        look=(
            "Arrows in a measure name say whether higher (↑) or lower (↓) is better. The timing chart is on a "
            "log scale. The solver-scaling chart reproduces Nam et al., Fig. 1(b): the eigendecomposition solver "
            "barely grows with the number of labels. Simm et al. found LSPC 2–100× faster than kernel logistic "
            "regression solved by L-BFGS; mlviz's KLR is solved by a preconditioned Newton–CG method, and against "
            "it LSPC's lead is small and gone from a few hundred samples (a ratio below 1 means KLR trained "
            "faster)."
        ),
        papers=["000", "004"],
    ),
}


def explain(page: str, *, expanded: bool = False) -> None:
    """Draw the collapsible explanation of ``page`` (a key of :data:`TEXT`)."""
    text = TEXT[page]
    with st.expander(":material/school: How it works — the method, its equation, what to look for", expanded=expanded):
        st.markdown(text["what"])
        for eq in text["latex"]:
            st.latex(eq)
        st.markdown("**What to look for.** " + text["look"])
        st.caption("Source: " + " · ".join(PAPERS[p] for p in text["papers"]))
