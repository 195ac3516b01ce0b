"""The method registry: every multi-label method of mlviz, declared once.

Each method is one frozen :class:`MethodSpec` in :data:`METHODS` (the entries
are below; the record types are in :mod:`mlviz.models._spec`): the estimator class and the module that
defines it, the CLI / URL name, the display name, the paper, the tuning grid,
the dashboard sliders, what it can do (:class:`Capabilities`) and the small
settings the common contract checks use (:class:`Checks`). Everything that
lists methods derives from it:

- :mod:`mlviz.models` imports each class lazily from the module named here;
- the CLI's ``--methods`` names and ``build_estimator`` (:mod:`mlviz.cli`);
- the dashboard's method choices and sliders (:mod:`mlviz.dashboard.methods`);
- nested-CV tuning grids (:func:`mlviz.evaluation.tuning_grid`);
- the report pack's allow-list of classes (:mod:`mlviz.report`);
- the contract tests (``tests/test_contract.py``) and the registry's own
  completeness test (``tests/test_registry.py``).

Adding a method is its module plus one entry in :data:`_ENTRIES` below
(``CONTRIBUTING.md`` has a worked example). This module imports no model code:
classes are named by string and imported on use.
"""

from __future__ import annotations

import copy

import numpy as np

from ._spec import Capabilities, Checks, MethodSpec, Param, PathSpec, Scale

__all__ = ["Capabilities", "Checks", "MethodSpec", "Param", "PathSpec", "Scale", "PAPERS", "METHODS",
           "get_method", "method_keys", "spec_for_estimator", "estimator_classes", "SEED_PAPERS", "seed_labels"]

SEED = 0
LOG_SMALL = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0, 10.0]

#: Paper key -> citation, shown as the source of a method or page.
PAPERS = {
    "000": "Nam, Hachiya, Sugiyama — *Computationally efficient multi-label classification by least-squares "
           "probabilistic classifiers*.",
    "004": "Simm, Sugiyama, Kato — *Computationally efficient multi-task learning with least-squares probabilistic "
           "classifiers*, IPSJ TCVA 2011.",
    "001": "Guo, Xue — *Probabilistic multi-label classification with sparse feature learning*, IJCAI 2013.",
    "002": "Kimura, Kudo, Sun — *MLLEM: simultaneous nonlinear label-instance embedding*.",
    "003": "Lee, Shajari — *A hidden variables approach to multilabel logistic regression*.",
    "mlknn": "Zhang, Zhou — *ML-KNN: A lazy learning approach to multi-label learning*, Pattern Recognition 2007.",
    "br": "Boutell, Luo, Shen, Brown — *Learning multi-label scene classification*, Pattern Recognition 2004 "
          "(binary relevance).",
    "lp": "Tsoumakas, Katakis — *Multi-label classification: an overview*, IJDWM 2007 (label powerset).",
    "pcc": "Dembczyński, Cheng, Hüllermeier — *Bayes optimal multilabel classification via probabilistic classifier "
           "chains*, ICML 2010.",
    "rfpct": "Kocev, Vens, Struyf, Džeroski — *Tree ensembles for predicting structured outputs*, Pattern "
             "Recognition 2013 (random forests of PCTs); compared on the standard splits by Bogatinovski, "
             "Todorovski, Džeroski, Kocev — *Comprehensive comparative study of multi-label classification "
             "methods*, Expert Systems with Applications 203:117215, 2022.",
    "rfbr": "Breiman — *Random forests*, Machine Learning 2001, one per label (RFDTBR in Bogatinovski et al., "
            "Expert Systems with Applications 203:117215, 2022).",
    "et": "Geurts, Ernst, Wehenkel — *Extremely randomized trees*, Machine Learning 2006 (multi-output).",
    "gbt": "Friedman — *Greedy function approximation: a gradient boosting machine*, Annals of Statistics "
           "29(5), 2001, one model per label, with the histogram splits of Ke et al., *LightGBM*, NIPS 2017 "
           "(scikit-learn's HistGradientBoostingClassifier).",
    "cc": "Read, Pfahringer, Holmes, Frank — *Classifier chains for multi-label classification*, Machine Learning "
          "85(3), 2011 (CC and ECC).",
    "rakel": "Tsoumakas, Katakis, Vlahavas — *Random k-labelsets for multilabel classification*, IEEE TKDE 23(7), "
             "2011.",
    "clr": "Fürnkranz, Hüllermeier, Loza Mencía, Brinker — *Multilabel classification via calibrated label "
           "ranking*, Machine Learning 73(2), 2008.",
    "cplst": "Chen, Lin — *Feature-aware label space dimension reduction for multi-label classification*, "
             "NIPS 2012 (CPLST).",
    "faie": "Lin, Ding, Hu, Wang — *Multi-label classification via feature-aware implicit label space encoding*, "
            "ICML 2014 (FaIE).",
    "leml": "Yu, Jain, Kar, Dhillon — *Large-scale multi-label learning with missing labels*, ICML 2014 (LEML).",
    "sleec": "Bhatia, Jain, Kar, Varma, Jain — *Sparse local embeddings for extreme multi-label classification*, "
             "NIPS 2015 (SLEEC).",
    "insdif": "Zhang, Zhou — *Multi-label learning by instance differentiation*, AAAI 2007 (InsDif).",
    "stats": "Charte, Rivera, del Jesus, Herrera — *Addressing imbalance in multilabel classification* (IRLbl, "
             "MeanIR), and *Dealing with difficult minority labels* (SCUMBLE).",
}


# ------------------------------------------------------------------ slider conversions

def _sigma(value, scale):
    return {"sigma": float(value) * scale.median_distance()}


def _cdn_mu(value, scale):  # the loss is a sum over N instances (Guo & Xue, eq. 4)
    return {"mu": float(value) * scale.n_train}


def _cdn_lam(value, scale):
    return {"lam1": float(value), "lam2": float(value)}


def _n_centers(value, scale):
    return {"n_centers": None if value == "all" else value}


def _centres():
    """Kernel centres B (landmarks): the kernel estimators' ``n_centers``."""
    return Param("n_centers", "Kernel centres B", [250, 500, 1000, 2000, "auto", "all"], "auto",
                 "Training points used as kernel centres. auto (the estimators' default) = all of them up to "
                 "2,000 training points (the exact kernel model on every bundled data set), else 2,000 chosen at "
                 "random: memory n × B instead of n × n. all = the exact model at any size (may be refused as too "
                 "large). Fewer centres are faster; 1,000 were within 0.01 micro-F1 of the exact model on the "
                 "five bundled sets (benchmarks/RESULTS.md, kernels section).", convert=_n_centers)


def _sigma_factor():
    return Param("sigma_factor", "σ (× median distance)", [0.25, 0.5, 1.0, 2.0, 4.0], 1.0,
                 "Gaussian kernel width as a multiple of the median pairwise distance of the training inputs.",
                 convert=_sigma)


# --------------------------------------------------------------- sparse CDN path

def _cdn_start(estimator, X, Y, callback):
    """The γ → ∞ model (V = 0: the label-independent start model; it also yields γ_max)."""
    return estimator.set_params(gamma=1e12).fit(X, Y, callback=callback)


def _cdn_step(model, ratio, callback, keep=()):
    """``model`` refitted at γ = ratio · γ_max, warm-started; ``model`` itself is left as it was
    (a deep copy is refitted, sharing the objects in ``keep``, e.g. the training features, and the
    model's own validated training data, which a refit reads and never changes)."""
    shared = (*keep, *getattr(model, "_train", ()))
    return copy.deepcopy(model, {id(x): x for x in shared}).refit(gamma_ratio=float(ratio), callback=callback)


def _cdn_describe(model) -> dict:
    hist = np.asarray(getattr(model, "objective_history_", []), dtype=float)
    return dict(n_edges=int(np.count_nonzero(model.label_coef_)),
                n_features=int(len(model.selected_features_)), n_iter=int(getattr(model, "n_iter_", len(hist))),
                history=hist[np.isfinite(hist)], gamma=float(model.gamma),
                gamma_max=float(getattr(model, "gamma_max_", 0.0)), converged=bool(getattr(model, "converged_", True)),
                note=None if getattr(model, "converged_", True) else (
                    f"FISTA stopped after {model.max_iter} iterations, before its tolerance (largest entry of the "
                    f"gradient mapping ≤ {model.tol:g}): this fit is close to the optimum, not at it. "
                    "Larger λ or μ converge faster."))


_EMB_LAM = Param("lam", "λ (ridge)", [0.1, 1.0, 10.0, 100.0, 1e3, 1e4], 1.0,
                 "ℓ2 penalty of the regression from features to label codes (cross-validation chose 100–1000 on "
                 "standardised features: benchmarks/RESULTS.md, label-embedding section).")
_EMB_DIM = Param("n_components", "Code dimension (fraction of L)", [0.2, 0.5, 0.8, 1.0], 0.8,
                 "Dimension of the label codes as a fraction of the number of labels (0.8 in the MLLEM paper's "
                 "setup).")

CDN_PATH = PathSpec(start=_cdn_start, step=_cdn_step, describe=_cdn_describe)

#: The sparse CDN's slider defaults, chosen by the documented sweep of benchmarks/sweep_cdn_dashboard.py
#: (benchmarks/RESULTS.md, "sparse-CDN slider defaults of the dashboard").
CDN_DEFAULTS = {"gamma": 0.5, "mu": 0.0, "lam": 1.0}
CDN_EVIDENCE = ("Defaults λ = 1, μ / N = 0, γ / γ_max = 0.5 from a documented sweep "
                "(λ ∈ {0.1, 1, 10} × μ / N ∈ {0, 0.003} × γ / γ_max ∈ {0.1, 0.3, 0.5}, 3-fold CV, default scaling, "
                "against BR-LR C = 1 on the same folds; benchmarks/RESULTS.md, “sparse-CDN slider defaults”): "
                "the setting whose worst difference from BR-LR over the five bundled sets is smallest (micro-F1 and "
                "P@1 within 0.003 of BR-LR on every set). Stronger penalties (λ = 10 or μ / N = 0.003) gain up to "
                "+0.05 micro-F1 on the dense sets but lose up to 0.39 on the text sets (L2-normalised rows), so no "
                "single value serves both: tick Tune on Compare for per-set selection.")
CDN_EVIDENCE_SHORT = ("Default chosen jointly with the other sliders by a documented sweep "
                      "(benchmarks/RESULTS.md, “sparse-CDN slider defaults”; see the λ slider's help).")


_CDN_CHECKS = Checks(params=dict(gamma=0.5, mu=0.5, tol=1e-8, n_burn=10, n_samples=50), refit={"gamma": 0.2})


def _CDN_TUNING():
    return {"gamma": list(_LOG4), "mu": [1e-4, 1e-2, 1.0]}


def _cdn_variant(key, variant, text):
    return MethodSpec(
        key, f"Sparse CDN ({variant})", "SparseCDN", "cdn", "001", text,
        fixed=dict(variant=variant, random_state=SEED, **AT_LEAST_ONE), tuning=_CDN_TUNING, dashboard=False,
        checks=_CDN_CHECKS)


# The strong baselines of the standard-split comparison (benchmarks/RESULTS.md, "strong baselines"):
# C of cc/ecc/rakel/clr in units of 1 / mean ||x||^2 (scale_C=True).
_C_GRID = [0.1, 1.0, 10.0, 100.0, 1000.0]
#: γ of the shared base learner (``base="rbf"``, or ``"auto"`` on small dense data), in units of
#: 1 / (n_features · var X): four decades around scikit-learn's ``gamma="scale"`` (= 1). On data where
#: ``base="auto"`` resolves to the linear base, γ is unused (those candidates repeat C's).
_GAMMA_GRID = [0.01, 0.1, 1.0, 10.0, 100.0]


def _base_grid():
    """Tuning grid of the shared base learner: C × γ (:mod:`mlviz.models._base_learner`)."""
    return {"C": list(_C_GRID), "gamma": list(_GAMMA_GRID)}

#: Regularisation grids span four decades in log steps. The decision threshold is not a grid dimension:
#: for every method whose ``predict`` thresholds its probabilities (``MethodSpec.tunes_threshold``) the
#: nested search also tunes a global and a per-label threshold on the same inner folds
#: (:mod:`mlviz.evaluation.thresholds`; never on the test fold).
_LOG4 = (1e-4, 1e-3, 1e-2, 0.1, 1.0)
#: Evidence-based defaults that differ from the classes' (the classes keep the papers' settings):
#: inner 3-fold CV on the standard training halves (benchmarks/RESULTS.md, "fair defaults").
BR_THRESHOLD = 0.25
MLKNN_DEFAULTS = {"k": 20, "s": 0.5, "threshold": 0.35}
MLLEM_THRESHOLD = 0.35
CC_THRESHOLD = 0.35
#: "At least one label" where every training row has one (``empty_set="auto"``, the classes keep the papers'
#: rule, ``True``): on 3-fold inner CV of five training halves it never lowered the inner micro-F1 of a seed
#: method and raised it wherever the method's own rule left rows empty (benchmarks/RESULTS.md, "An 'at least
#: one label' decision rule" and "...applied at the registry defaults"). Not set for ML-kNN and RAkEL (it cost
#: them 0.006 and 0.024 on medical), nor LP and MLRH (their rules never predict an unseen empty set).
AT_LEAST_ONE = {"empty_set": "auto"}
#: Factor on the earlier labels in the chains' links (``label_scale``; the classes keep Read et al.'s 1):
#: inner 3-fold CV on five training halves, benchmarks/RESULTS.md, "CC: how strongly the chain leans on
#: earlier labels" (CC: 0.1 beat 1 on 4 of 5 sets, worst-case ratio 0.994; ECC: 0.3, 4 of 5, 0.991).
CC_LABEL_SCALE = 0.1
ECC_LABEL_SCALE = 0.3
#: The forests' search: leaf size and the features tried per split (scikit-learn's "sqrt" and 30 %: the
#: values within 0.003 of each other at their best threshold in the first inner-CV comparison,
#: benchmarks/RESULTS.md "strong baselines"); the number of trees is not searched (more is never worse).
_FOREST_GRID = {"min_samples_leaf": [1, 3, 10], "max_features": ["sqrt", 0.3]}
_LINK_C = Param("C", "C (× 1 / mean ‖x‖²)", [0.1, 1.0, 10.0, 100.0, 1000.0], 10.0,
                "Inverse ℓ2 regularisation of each logistic-regression link, in units of 1 / mean ‖x‖² of the "
                "training rows (of their RBF kernel features on small dense data, base “auto”). "
                "Default 10: chosen by inner CV on the standard training halves "
                "(benchmarks/RESULTS.md, “strong baselines”).")
_LEAF = Param("min_samples_leaf", "Min. instances per leaf", [1, 3, 10], 1, "Larger leaves give smoother votes.")
_FOREST_SLIDERS = (Param("n_estimators", "Trees", [25, 50, 100, 200], 100, "Number of trees of the forest."), _LEAF)
_PCT_SLIDERS = (
    Param("n_estimators", "Trees", ["auto", 25, 50, 100, 200, 300], "auto",
          "Number of trees. auto: 300 when they fit within about 10 s of one core, else 100 (300 beat 100 on every "
          "bundled training half in inner CV; benchmarks/RESULTS.md)."), _LEAF)

_ENTRIES = [
    MethodSpec(
        "mllspc", "ML-LSPC", "MLLSPC", "lspc", "000",
        "Least-squares probabilistic classifier for all labels at once (Nam et al.).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"lam": list(_LOG4), "gamma": [0.01, 0.1, 1.0, 10.0]},
        sliders=(
            Param("lam", "λ (ridge)", LOG_SMALL, 0.01,
                  "ℓ2 regularisation of every label's parameters. Default 0.01 (also the estimator's): the "
                  "documented sweep (docs/reproductions.md, “defaults-sweep”: 3-fold CV on emotions, scene, yeast, "
                  "enron, medical) ranked λ = 0.01, γ = 0.1 first on all five data sets."),
            Param("gamma", "γ (label coupling)", [0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0], 0.1,
                  "Strength of the pull between parameters of correlated labels (0 = independent LSPC). "
                  "Default 0.1 (also the estimator's): best with λ = 0.01 on all five bundled data sets in the "
                  "documented sweep (docs/reproductions.md, “defaults-sweep”)."),
            _sigma_factor(), _centres()),
        fast=("lam", "gamma"),
        checks=Checks(params=dict(lam=0.1, gamma=1.0), refit={"lam": 0.5, "gamma": 0.3}),
    ),
    MethodSpec(
        "mlrh", "MLRH", "MLRH", "mlrh", "003",
        "Multi-label logistic regression with hidden variables; Z by a DP (Lee & Shajari).",
        tuning=lambda: {"reg": [1e-4, 1e-3, 1e-2, 1e-1, 1.0]},
        sliders=(
            Param("reg", "regularisation", [1e-4, 1e-3, 1e-2, 0.1, 1.0], 1e-3, "ℓ2 penalty on the weights."),
            Param("kernel", "Features", ["linear", "rbf"], "linear", "linear inputs or Gaussian-kernel features.")),
        capabilities=Capabilities(many_labels=False),
        checks=Checks(params=dict(prediction="wta", reg=0.05, tol=1e-10, max_iter=5000, n_centers=20,
                                  random_state=0), refit={"reg": 0.1}, rule=None),
    ),
    MethodSpec(
        "cdn", "Sparse CDN", "SparseCDN", "cdn", "001",
        "Sparse conditional dependency network, FISTA + Gibbs sampling (Guo & Xue).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE), tuning=_CDN_TUNING,
        sliders=(
            Param("gamma", "γ / γ_max (ℓ1 on label edges)", [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0],
                  CDN_DEFAULTS["gamma"],
                  "Fraction of γ_max, the smallest γ with an empty graph (computed from the data). "
                  "Larger γ removes label→label edges; 1 = no edge. " + CDN_EVIDENCE_SHORT),
            Param("mu", "μ / N (ℓ2,1 on features)", [0.0, 0.001, 0.003, 0.01, 0.03, 0.1], CDN_DEFAULTS["mu"],
                  "ℓ2,1 weight divided by the number of training instances N (the loss is a sum over "
                  "instances, eq. 4). Larger μ switches off features for all labels at once. " + CDN_EVIDENCE_SHORT,
                  convert=_cdn_mu),
            Param("lam", "λ1 = λ2 (ℓ2)", [1e-3, 1e-2, 0.1, 1.0, 10.0], CDN_DEFAULTS["lam"],
                  "ℓ2 regularisation of W and V (λ = 1 is scikit-learn's C = 1, BR-LR's default). " + CDN_EVIDENCE,
                  convert=_cdn_lam),
            Param("variant", "Variant", ["sparse", "l1-cdn", "cdn", "l21-lr", "lr"], "sparse",
                  "sparse: ℓ1 on V + ℓ2,1 on W; l1-cdn: ℓ1 on V; cdn: ℓ2 only; l21-lr / lr: no label features.")),
        path=CDN_PATH, path_param="gamma", checks=_CDN_CHECKS,
    ),
    _cdn_variant("cdn-lr", "lr", "CDN variant 'lr': independent L1 logistic regressions (no label dependencies)."),
    _cdn_variant("cdn-cdn", "cdn", "CDN variant 'cdn': dependency network, no sparsity penalties."),
    _cdn_variant("cdn-l1", "l1-cdn", "CDN variant 'l1-cdn': dependency network with an L1 penalty only."),
    _cdn_variant("cdn-l21", "l21-lr", "CDN variant 'l21-lr': logistic regressions with the L2,1 feature penalty."),
    MethodSpec(
        "mllem", "MLLEM", "MLLEM", "mllem", "002",
        "Joint label–instance Laplacian eigenmap (Kimura et al.); calibrated probability >= 0.35.",
        # threshold 0.35 (the class's is 0.5): the best worst-case ratio of inner-CV micro-F1 on the standard
        # training halves among the thresholds whose inner Hamming loss stays below predicting nothing on every
        # set (0.3 had the best ratio but not that) (benchmarks/RESULTS.md, "fair defaults").
        fixed=dict(random_state=SEED, **AT_LEAST_ONE, threshold=MLLEM_THRESHOLD),
        tuning=lambda: {"alpha": [0.01, 0.1, 1.0, 10.0, 100.0], "beta": [0.1, 1.0]},
        sliders=(
            Param("k_instances", "k (instances)", [2, 3, 5, 8, 10, 15, 20, 30], 20,
                  "Neighbours in the instance kNN graph."),
            Param("k_labels", "k (labels)", [0, 1, 2, 3, 5, 8, 10], 5, "Top co-occurring labels linked to each label."),
            Param("alpha", "α (instance–instance weight)", [0.0, 0.1, 0.3, 1.0, 3.0, 10.0], 0.1, "Weight of W_II."),
            Param("beta", "β (label–label weight)", [0.0, 0.1, 0.3, 1.0, 3.0, 10.0], 0.1, "Weight of W_LL."),
            Param("mapping", "Test mapping", ["nonlinear", "linear"], "nonlinear",
                  "nonlinear: mean of the k nearest training points' coordinates; linear: ridge regression."),
            Param("n_components", "Dimensions", [2, 3, 10, 20], 10, "Embedding dimensions.")),
        fast=("k_instances", "k_labels", "alpha", "beta", "mapping", "n_components"),
        capabilities=Capabilities(output="calibrated"),
        checks=Checks(params=dict(n_components=3, random_state=0), refit={"alpha": 0.5}),
    ),
    MethodSpec(
        "br", "BR-LR", "BinaryRelevance", "binary_relevance", "br",
        "Binary relevance: one logistic regression per label (on RBF kernel features for small dense data); "
        "probability >= 0.25.",
        # threshold 0.25 (the class's own is 0.5): the best worst-case ratio over inner 3-fold CV of the
        # standard training halves, better than 0.5 on all five sets (benchmarks/RESULTS.md, "fair defaults").
        fixed=dict(threshold=BR_THRESHOLD, random_state=SEED, **AT_LEAST_ONE),
        tuning=_base_grid,
        sliders=(Param("C", "C (× 1 / mean ‖x‖²)", [0.1, 1.0, 3.0, 10.0, 30.0, 100.0, 1000.0], 30.0,
                       "Inverse ℓ2 regularisation of each logistic regression, in units of 1 / mean ‖x‖² of the "
                       "training rows (of their RBF kernel features on small dense data, base “auto”; as LP and "
                       "PCC), so one value means the same penalty on standardised and on "
                       "L2-normalised features. Default 30 (the estimator's): the best worst-case ratio to each "
                       "set's best over inner CV of the standard training halves (benchmarks/RESULTS.md, "
                       "“standard splits”)."),),
    ),
    MethodSpec(
        "mlknn", "ML-kNN", "MLkNN", "mlknn", "mlknn",
        "Bayesian kNN (Zhang & Zhou 2007); posterior >= 0.35.",
        # k = 20, s = 0.5, threshold 0.35 (the class keeps the paper's k = 10, s = 1, 0.5): the best worst-case
        # ratio over inner 3-fold CV of the standard training halves (benchmarks/RESULTS.md, "fair defaults").
        fixed=dict(MLKNN_DEFAULTS),
        tuning=lambda: {"k": [3, 5, 10, 20, 30]},
        sliders=(Param("k", "k (neighbours)", [1, 3, 5, 8, 10, 15, 20, 30], MLKNN_DEFAULTS["k"],
                       "Number of neighbours. Default 20 (the paper's is 10): chosen with s and the threshold by "
                       "inner CV of the standard training halves (benchmarks/RESULTS.md, “fair defaults”)."),
                 Param("s", "s (smoothing)", [0.1, 0.5, 1.0, 2.0], MLKNN_DEFAULTS["s"],
                       "Laplace smoothing of the counts. Default 0.5 (the paper's is 1; within 0.002 of it)."),),
        checks=Checks(params=dict(k=5)),
    ),
    MethodSpec(
        "lspc", "LSPC (per label)", "LSPC", "lspc", "004",
        "Plain LSPC, each label on its own (Simm et al.).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"lam": list(_LOG4)},
        sliders=(Param("lam", "λ (ridge)", LOG_SMALL, 0.1, "ℓ2 regularisation."), _sigma_factor(), _centres()),
        fast=("lam",),
        checks=Checks(params=dict(lam=0.1), refit={"lam": 0.5}),
    ),
    MethodSpec(
        "mtlspc", "MT-LSPC", "MTLSPC", "lspc", "004",
        "Multi-task LSPC: common + individual parts, dual form (Simm et al.).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"lam": list(_LOG4), "gamma": [0.1, 1.0]},
        dashboard=False,
        checks=Checks(params=dict(lam=0.1, gamma=1.0), refit={"lam": 0.5, "gamma": 0.3}),
    ),
    MethodSpec(
        "pcc", "PCC", "PCC", "pcc", "pcc",
        "Probabilistic classifier chain (baseline of Guo & Xue).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        # C in units of 1 / mean ||x||^2 (scale_C=True): an LR object in ``estimator`` would bypass that scaling.
        tuning=lambda: {"C": list(_C_GRID)},
        checks=Checks(params=dict(random_state=0)),
    ),
    MethodSpec(
        "lp", "LP-LR", "LabelPowerset", "label_powerset", "lp",
        "Label powerset: one multinomial LR over observed label sets (on RBF kernel features for small dense data).",
        fixed=dict(random_state=SEED),
        tuning=_base_grid,
        capabilities=Capabilities(many_labels=False),
        checks=Checks(rule=None),
    ),
    MethodSpec(
        "klr", "Kernel LR", "KernelLogisticRegression", "klr", "004",
        "Gaussian-kernel logistic regression per label (timing baseline of Simm et al.); Newton–CG until every "
        "label's scaled gradient is below 1e-6 (its convergence is shown).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"lam": list(_LOG4)},
        sliders=(Param("lam", "λ (ℓ2)", [1e-3, 1e-2, 0.1, 1.0, 10.0], 0.01,
                       "ℓ2 penalty on the kernel coefficients. Default 0.01 (the estimator's): chosen by the "
                       "documented sweep (docs/reproductions.md, “defaults-sweep-extra”: 3-fold CV on the five "
                       "bundled sets)."),
                 _sigma_factor(), _centres()),
        checks=Checks(params=dict(lam=1.0, tol=1e-8)),
    ),
    MethodSpec(
        "cplst", "CPLST", "CPLST", "label_embedding", "cplst",
        "Conditional principal label space transformation: ridge to label codes, linear decoding "
        "(a baseline of Kimura et al.).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"lam": [0.1, 1.0, 10.0, 100.0, 1e3, 1e4], "n_components": [0.5, 0.8, 1.0]},
        sliders=(_EMB_LAM, _EMB_DIM),
        capabilities=Capabilities(output="calibrated"),
        checks=Checks(params=dict(n_components=3)),
    ),
    MethodSpec(
        "faie", "FaIE", "FaIE", "label_embedding", "faie",
        "Feature-aware implicit label space encoding (a baseline of Kimura et al.).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"lam": [0.1, 1.0, 10.0, 100.0, 1e3, 1e4], "alpha": [0.1, 1.0, 10.0]},
        sliders=(_EMB_LAM, _EMB_DIM,
                 Param("alpha", "α (feature awareness)", [0.0, 0.1, 1.0, 10.0], 1.0,
                       "Weight of predictability from the features in the code's objective.")),
        capabilities=Capabilities(output="calibrated"),
        checks=Checks(params=dict(n_components=3)),
    ),
    MethodSpec(
        "leml", "LEML", "LEML", "label_embedding", "leml",
        "Low-rank empirical risk minimisation by alternating least squares (a baseline of Kimura et al.).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"lam": [0.1, 1.0, 10.0, 100.0, 1e3, 1e4], "n_components": [0.2, 0.5, 0.8]},
        sliders=(_EMB_LAM, _EMB_DIM),
        capabilities=Capabilities(output="calibrated"),
        checks=Checks(params=dict(n_components=3)),
    ),
    MethodSpec(
        "sleec", "SLEEC", "SLEEC", "sleec", "sleec",
        "Sparse local embeddings: distance-preserving codes, regression, kNN label vote (a baseline of Kimura et al.).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"k_test": [5, 10, 20], "lam": [0.01, 0.1, 1.0, 10.0, 100.0]},
        sliders=(Param("k_test", "k (test neighbours)", [5, 10, 20, 30], 10, "Neighbours voting a test label set."),
                 Param("lam", "λ (ridge)", [0.01, 0.1, 1.0, 10.0, 100.0], 1.0, "ℓ2 penalty of the regression.")),
        capabilities=Capabilities(output="calibrated"),
        checks=Checks(params=dict(n_components=3)),
    ),
    MethodSpec(
        "insdif", "InsDif", "InsDif", "insdif", "insdif",
        "Instance differentiation: bags of label-prototype differences, Hausdorff k-medoids, least-squares "
        "second level (a baseline of Nam et al.; slow by design, refuses fits estimated above 300 s).",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"medoid_fraction": [0.1, 0.2, 0.3]},
        sliders=(Param("medoid_fraction", "Medoids (fraction of N)", [0.1, 0.2, 0.3], 0.2,
                       "Number of bag clusters as a fraction of the training instances."),),
        capabilities=Capabilities(many_labels=False, output="calibrated"),
    ),
    MethodSpec(
        "rf-pct", "RF-PCT", "RandomForestML", "forest", "rfpct",
        "One multi-output random forest for all labels (RF-PCT family; 300 trees where they fit in ~10 s, "
        "else 100; above 256 labels the splits use 64 random label projections); vote share >= 0.35.",
        fixed=dict(n_estimators="auto", label_projection="auto", random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: dict(_FOREST_GRID),
        sliders=_PCT_SLIDERS, checks=Checks(params=dict(n_estimators=10, random_state=0)),
    ),
    MethodSpec(
        "et-pct", "ET-PCT", "RandomForestML", "forest", "et",
        "One multi-output extra-trees forest for all labels (300 trees where they fit in ~10 s, else 100); "
        "vote share >= 0.35.",
        fixed=dict(kind="extra", n_estimators="auto", label_projection="auto", random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: dict(_FOREST_GRID), dashboard=False,
        checks=Checks(params=dict(n_estimators=10, random_state=0)),
    ),
    MethodSpec(
        "rf-br", "RF-BR", "RandomForestBR", "forest", "rfbr",
        "One random forest per label; vote share >= 0.35.",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE), tuning=lambda: {"min_samples_leaf": [1, 3],
                                                                        "max_features": ["sqrt", 0.3]},
        sliders=_FOREST_SLIDERS,
        checks=Checks(params=dict(n_estimators=10, random_state=0)),
    ),
    MethodSpec(
        "gbt-br", "GBT-BR", "GradientBoostingBR", "boosting", "gbt",
        "Histogram gradient-boosted trees, one model per label; probability >= 0.15.",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE),
        tuning=lambda: {"learning_rate": [0.03, 0.1, 0.3], "max_iter": [50, 100, 200]},
        sliders=(Param("max_iter", "Boosting iterations", [25, 50, 100, 200], 100, "Trees per label."),
                 Param("learning_rate", "Learning rate", [0.03, 0.1, 0.3], 0.1, "Shrinkage of each tree.")),
        capabilities=Capabilities(many_labels=False),
        checks=Checks(params=dict(max_iter=5, random_state=0)),
    ),
    MethodSpec(
        "cc", "CC", "ClassifierChain", "chains", "cc",
        "Classifier chain: logistic-regression links (on RBF kernel features for small dense data, earlier labels "
        f"× {CC_LABEL_SCALE:g}), labels predicted greedily in chain order, each link's probability "
        f">= {CC_THRESHOLD:g}.",
        # threshold 0.35 (the class keeps the paper's 0.5): better than 0.5 on all five sets and the best worst-case
        # ratio over inner 3-fold CV of the standard training halves (benchmarks/RESULTS.md, "a kernel base learner").
        fixed=dict(random_state=SEED, **AT_LEAST_ONE, threshold=CC_THRESHOLD, label_scale=CC_LABEL_SCALE),
        tuning=_base_grid,
        sliders=(_LINK_C,),
    ),
    MethodSpec(
        "ecc", "ECC", "EnsembleClassifierChains", "chains", "cc",
        f"Ensemble of 10 classifier chains in random orders on 67 % subsamples (earlier labels × {ECC_LABEL_SCALE:g}); "
        "mean >= 0.35.",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE, label_scale=ECC_LABEL_SCALE), tuning=_base_grid,
        sliders=(_LINK_C,),
        checks=Checks(params=dict(n_chains=3, random_state=0)),
    ),
    MethodSpec(
        "rakel", "RAkEL", "RAkEL", "chains", "rakel",
        "RAkELo: label powersets on 2L random 3-labelsets, votes averaged, >= 0.5.",
        # k is not searched (C × γ × k would be 75 candidates): k = 3, the paper's recommendation.
        fixed=dict(random_state=SEED), tuning=_base_grid,
        sliders=(Param("k", "k (labels per labelset)", [2, 3, 4], 3, "Size of each random labelset."),),
        capabilities=Capabilities(output="calibrated"),
        checks=Checks(params=dict(k=2, random_state=0)),
    ),
    MethodSpec(
        "clr", "CLR", "CalibratedLabelRanking", "clr", "clr",
        "Calibrated label ranking: pairwise logistic regressions (on RBF kernel features for small dense data) "
        "plus a virtual label.",
        fixed=dict(random_state=SEED, **AT_LEAST_ONE), tuning=_base_grid, sliders=(_LINK_C,),
        capabilities=Capabilities(many_labels=False, output="calibrated"),
    ),
]

METHODS = {m.key: m for m in _ENTRIES}


#: The five papers mlviz implements (the seed methods); every other paper key is a baseline's.
SEED_PAPERS = ("000", "001", "002", "003", "004")


def seed_labels() -> set:
    """Display names of the seed methods (those whose paper is one of :data:`SEED_PAPERS`)."""
    return {m.label for m in METHODS.values() if m.paper in SEED_PAPERS}


def get_method(key: str) -> MethodSpec:
    """The entry named ``key``.

    Raises
    ------
    KeyError
        With the list of known names.
    """
    try:
        return METHODS[key]
    except KeyError:
        raise KeyError(f"unknown method {key!r}; choose from {', '.join(METHODS)}") from None


def method_keys(*, dashboard: bool | None = None) -> list:
    """Registered names in registry order (``dashboard=True``: those the pages offer)."""
    return [k for k, m in METHODS.items() if dashboard is None or m.dashboard == dashboard]


def estimator_classes() -> dict:
    """Class name -> module of every registered estimator (each class once)."""
    out = {}
    for m in METHODS.values():
        out.setdefault(m.estimator, m.module)
    return out


def spec_for_estimator(estimator) -> MethodSpec | None:
    """The entry of ``estimator``'s class (its base entry: the first with that class), or None."""
    name = type(estimator).__name__
    return next((m for m in METHODS.values() if m.estimator == name), None)
