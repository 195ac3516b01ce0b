"""The standard protocol: every mlviz method at its defaults on the standard Mulan train/test splits,
beside the published results of the largest comparative study on those splits.

Bogatinovski, Todorovski, Džeroski, Kocev — *Comprehensive comparative study of multi-label
classification methods*, Expert Systems with Applications 203:117215 (2022), trained 26 methods on
the standard Mulan training files and scored them on the test files (each method's parameters
chosen as the paper describes). :data:`PUBLISHED` holds its micro-F1, Hamming loss and subset
accuracy on the four bundled standard splits for the methods mlviz also has (BR, CC, LP, ML-kNN,
CDN, RF-PCT, RF-BR) and the best of the 26.

``run()`` fits every registered method at its registry defaults (``mlviz.models.registry``) on each
standard training file, with features scaled by ``mlviz.preprocessing.scale_split`` fitted on the
training file, and scores each method's own ``predict`` on the test file; like-for-like rows carry
the published value in ``paper``. :func:`state_of_the_art` reduces the table to one row per data
set: mlviz's best method beside the published best and RF-PCT.
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np
import pandas as pd

from . import COLUMNS

TITLE = "Standard train/test splits: mlviz at its defaults beside the published comparative study"

CITATION = ("Bogatinovski, Todorovski, Džeroski, Kocev — Comprehensive comparative study of multi-label "
            "classification methods, Expert Systems with Applications 203:117215 (2022); standard Mulan "
            "train/test splits")

PROTOCOL = """\
- Data: the standard Mulan train/test files (`mlviz.data.load_standard_split`): emotions 391 / 202,
  enron 1123 / 579, scene 1211 / 1196, yeast 1500 / 917; features scaled by
  `mlviz.preprocessing.scale_split` (`auto`: standardised dense features, L2-normalised sparse rows),
  fitted on the training file.
- Methods: every entry of the method registry at its defaults (`MethodSpec.make()`; the CLI's
  `mlviz evaluate TRAIN --test TEST --methods KEY`), each deciding labels by its own `predict`; no
  tuning, the test file is never used for a choice. Every registry default except ML-kNN's, RAkEL's, LP's
  and MLRH's includes `empty_set="auto"`: no training row is empty here, so a row the method's rule leaves
  empty gets its most probable label (chosen by inner CV on the training halves, benchmarks/RESULTS.md
  "An 'at least one label' decision rule"). The quick run: emotions, BR-LR and RF-PCT.
- `paper`: the same method in Bogatinovski et al. 2022 (ESWA 203:117215) on the same split, where
  the study has it (BR, CC, LP, ML-kNN, CDN, RF-PCT, RF-BR); its methods' base learners and
  parameter selection are the study's (e.g. its BR and CC use RBF-kernel SVMs; ours, at
  `base="auto"`, kernel logistic regression on Nyström RBF features for these small dense sets and
  linear logistic regression for enron's sparse text), so a like-for-like row compares the method
  family, not the same code. Rows `best of 26 (published)` carry mlviz's best method on
  that measure in `ours` (named in `setting`).
- `hamming_loss_p05`: the Hamming loss of `predict_proba >= 0.5` (every method's marginals at 0.5, the
  Bayes rule for Hamming loss when they are calibrated), whatever the method's own rule; beside the
  study's Hamming loss. `hamming_loss` is that of each method's own `predict` (e.g. the forests' 0.35,
  chosen for micro-F1): one decision rule cannot be optimal for both measures.
"""

DATASETS = ("emotions", "enron", "scene", "yeast")
MEASURES = ("micro_f1", "hamming_loss", "hamming_loss_p05", "subset_accuracy")
"""Our measures: each method's own ``predict``, except ``hamming_loss_p05`` (Hamming loss of
``predict_proba >= 0.5``, the Bayes rule for Hamming loss on calibrated marginals), compared with the
study's Hamming loss."""
PUBLISHED_MEASURES = ("micro_f1", "hamming_loss", "subset_accuracy")
"""The order of the values in :data:`PUBLISHED`."""
STUDY_MEASURE = {"hamming_loss_p05": "hamming_loss"}
"""Our measure -> the study's measure it is compared with (default: the same name)."""
LOWER_IS_BETTER = {"hamming_loss", "hamming_loss_p05"}
MEASURE_NAMES = {"micro_f1": "micro-F1", "hamming_loss": "Hamming loss",
                 "hamming_loss_p05": "Hamming loss at p >= 0.5", "subset_accuracy": "subset accuracy"}
"""How the takeaway and the dashboard name each of :data:`MEASURES`."""

#: (data set, published method) -> (micro-F1, Hamming loss, subset accuracy), Bogatinovski et al. 2022.
PUBLISHED = {
    ("emotions", "BR"): (0.685, 0.196, 0.319), ("emotions", "CC"): (0.692, 0.190, 0.374),
    ("emotions", "LP"): (0.665, 0.200, 0.356), ("emotions", "ML-kNN"): (0.625, 0.213, 0.241),
    ("emotions", "CDN"): (0.498, 0.315, 0.170), ("emotions", "RF-PCT"): (0.719, 0.170, 0.352),
    ("emotions", "RF-BR"): (0.714, 0.183, 0.293), ("emotions", "best of 26"): (0.719, 0.170, 0.374),
    ("enron", "BR"): (0.421, 0.074, 0.099), ("enron", "CC"): (0.489, 0.078, 0.108),
    ("enron", "LP"): (0.507, 0.058, 0.141), ("enron", "ML-kNN"): (0.479, 0.054, 0.092),
    ("enron", "CDN"): (0.469, 0.068, 0.015), ("enron", "RF-PCT"): (0.602, 0.049, 0.149),
    ("enron", "RF-BR"): (0.605, 0.051, 0.128), ("enron", "best of 26"): (0.610, 0.049, 0.149),
    ("scene", "BR"): (0.741, 0.093, 0.594), ("scene", "CC"): (0.768, 0.080, 0.711),
    ("scene", "LP"): (0.776, 0.082, 0.705), ("scene", "ML-kNN"): (0.735, 0.088, 0.628),
    ("scene", "CDN"): (0.387, 0.220, 0.339), ("scene", "RF-PCT"): (0.762, 0.088, 0.618),
    ("scene", "RF-BR"): (0.760, 0.087, 0.598), ("scene", "best of 26"): (0.792, 0.077, 0.711),
    ("yeast", "BR"): (0.601, 0.241, 0.144), ("yeast", "CC"): (0.589, 0.233, 0.177),
    ("yeast", "LP"): (0.612, 0.220, 0.239), ("yeast", "ML-kNN"): (0.649, 0.196, 0.203),
    ("yeast", "CDN"): (0.423, 0.349, 0.014), ("yeast", "RF-PCT"): (0.682, 0.197, 0.181),
    ("yeast", "RF-BR"): (0.675, 0.194, 0.186), ("yeast", "best of 26"): (0.682, 0.193, 0.239),
}

#: Decimals of the tables beside the study (Compare, Reference check): ours to 4, the study's to the 3
#: it publishes (:func:`column_digits`).
OURS_DIGITS, PUBLISHED_DIGITS = 4, 3


def column_digits(column: str) -> int:
    """Decimals a column of :func:`beside_published` or :func:`state_of_the_art` is shown with:
    :data:`PUBLISHED_DIGITS` for the study's columns (their name says "published"), else
    :data:`OURS_DIGITS` (ours and the gaps)."""
    return PUBLISHED_DIGITS if "published" in column else OURS_DIGITS


#: mlviz registry key -> the study's method of the same family.
LIKE_FOR_LIKE = {"br": "BR", "cc": "CC", "lp": "LP", "mlknn": "ML-kNN", "cdn": "CDN", "rf-pct": "RF-PCT",
                 "rf-br": "RF-BR"}

QUICK_METHODS = ("br", "rf-pct")


def published(dataset: str, method: str, measure: str) -> float:
    """The study's value of ``measure`` for ``method`` on ``dataset`` (NaN where it has none)."""
    row = PUBLISHED.get((dataset, method))
    return float("nan") if row is None else float(row[PUBLISHED_MEASURES.index(STUDY_MEASURE.get(measure, measure))])


def _methods(quick):
    from ..models.registry import METHODS

    keys = QUICK_METHODS if quick else [k for k, m in METHODS.items() if k not in ("et-pct",)
                                        and not k.startswith("cdn-")]
    return {k: METHODS[k] for k in keys}


def _scores(spec, X_train, Y_train, X_test, Y_test, random_state):
    from ..metrics import evaluate
    from ..models import TooLargeError

    est = spec.make()
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=random_state)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X_train, Y_train)
            Y_pred = est.predict(X_test)
            P = est.predict_proba(X_test)
    except TooLargeError:
        return None, time.perf_counter() - t0
    seconds = time.perf_counter() - t0
    vals = evaluate(Y_test, P, measures=list(MEASURES), y_pred=Y_pred)
    return {m: float(vals[m]) for m in MEASURES}, seconds


def run(quick=False, random_state=0, progress=None):
    """Fit every method at its defaults on each standard training file, score it on the test file.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`mlviz.reproductions.COLUMNS` plus ``fit_seconds``; one row per (data set,
        method, measure), and per (data set, measure) a row ``best of 26 (published)`` whose
        ``ours`` is mlviz's best method (named in ``setting``).
    """
    from ..data import load_standard_split
    from ..preprocessing import scale_split

    datasets = ("emotions",) if quick else DATASETS
    methods = _methods(quick)
    rows, done, total = [], 0, len(datasets) * len(methods)
    for name in datasets:
        train, test = load_standard_split(name)
        X_train, X_test = scale_split(train.X, test.X)
        Y_train, Y_test = np.asarray(train.Y), np.asarray(test.Y)
        setting = f"standard split {train.n_samples} / {test.n_samples}, defaults"
        ours = {}
        for key, spec in methods.items():
            if progress is not None:
                progress(done, total)
            vals, seconds = _scores(spec, X_train, Y_train, X_test, Y_test, random_state)
            done += 1
            if vals is None:
                continue
            ours[spec.label] = vals
            for measure in MEASURES:
                rows.append(dict(experiment="standard-splits", dataset=name, setting=setting, method=spec.label,
                                 measure=measure, ours=vals[measure], ours_std=np.nan,
                                 paper=published(name, LIKE_FOR_LIKE.get(key, ""), measure),
                                 fit_seconds=seconds))
        for measure in MEASURES:
            pick = min if measure in LOWER_IS_BETTER else max
            best = pick(ours, key=lambda label: ours[label][measure])
            rows.append(dict(experiment="standard-splits", dataset=name, setting=f"mlviz's best: {best}",
                             method="best of 26 (published)", measure=measure, ours=ours[best][measure],
                             ours_std=np.nan, paper=published(name, "best of 26", measure), fit_seconds=np.nan))
    if progress is not None:
        progress(total, total)
    return pd.DataFrame(rows, columns=[*COLUMNS, "fit_seconds"])


def state_of_the_art(frame: pd.DataFrame, measure: str = "micro_f1") -> pd.DataFrame:
    """One row per data set: mlviz's best method at its defaults beside the published best and RF-PCT.

    Parameters
    ----------
    frame : pandas.DataFrame
        The output of :func:`run`.
    measure : {"micro_f1", "hamming_loss", "hamming_loss_p05", "subset_accuracy"}

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, mlviz best, mlviz, published best, RF-PCT (published), gap to best``
        (``gap`` > 0: mlviz is better; for Hamming loss the sign is turned so that > 0 is better too).
    """
    sign = -1.0 if measure in LOWER_IS_BETTER else 1.0
    out = []
    for name, part in frame[frame["measure"] == measure].groupby("dataset", sort=False):
        best = part[part["method"] == "best of 26 (published)"].iloc[0]
        out.append({"dataset": name, "mlviz best": best["setting"].removeprefix("mlviz's best: "),
                    "mlviz": best["ours"], "published best": best["paper"],
                    "RF-PCT (published)": published(name, "RF-PCT", measure),
                    "gap to best": sign * (best["ours"] - best["paper"])})
    return pd.DataFrame(out)


def beside_published(summary: pd.DataFrame, dataset: str, keys: dict) -> pd.DataFrame:
    """Our numbers on a standard split beside the study's, for the methods it reports like for like.

    Parameters
    ----------
    summary : pandas.DataFrame
        Columns ``method``, ``measure``, ``mean`` (e.g. :func:`mlviz.plotting.tables.summary_table` of a
        run on the standard training and test files).
    dataset : str
        One of :data:`DATASETS`.
    keys : dict
        Method name in ``summary`` -> registry key (only keys of :data:`LIKE_FOR_LIKE` are compared).

    Returns
    -------
    pandas.DataFrame
        One row per compared method: ``method``, ``published as``, then for each of the study's
        measures (:data:`PUBLISHED_MEASURES`) ``<name> (ours)`` and ``<name> (published)``. Empty when
        no method has a published counterpart.
    """
    rows = []
    for label, key in keys.items():
        if key not in LIKE_FOR_LIKE:
            continue
        row = {"method": label, "published as": LIKE_FOR_LIKE[key]}
        for measure in PUBLISHED_MEASURES:
            hit = summary[(summary["method"] == label) & (summary["measure"] == measure)]
            name = MEASURE_NAMES[measure]
            row[f"{name} (ours)"] = float(hit["mean"].iloc[0]) if len(hit) else float("nan")
            row[f"{name} (published)"] = published(dataset, LIKE_FOR_LIKE[key], measure)
        rows.append(row)
    return pd.DataFrame(rows)


def identify(train, test) -> str | None:
    """The bundled data set whose standard training and test files ``train`` and ``test`` hold, or None.

    Parameters
    ----------
    train, test : MultiLabelDataset
        As loaded (e.g. by ``mlviz evaluate TRAIN --test TEST``).

    Returns
    -------
    str or None
        One of :data:`DATASETS` when both halves equal its standard files row for row (features and
        labels; shapes are compared first, so a file of another shape is never parsed twice).
    """
    from ..data import load_standard_split

    def same(a, b):
        if a.X.shape != b.X.shape or np.shape(a.Y) != np.shape(b.Y):
            return False
        xa = a.X.toarray() if hasattr(a.X, "toarray") else np.asarray(a.X)
        xb = b.X.toarray() if hasattr(b.X, "toarray") else np.asarray(b.X)
        return bool(np.array_equal(xa, xb) and np.array_equal(np.asarray(a.Y), np.asarray(b.Y)))

    for name in DATASETS:
        if _SHAPES[name] != (train.n_samples, test.n_samples, train.n_features, train.n_labels):
            continue
        std_train, std_test = load_standard_split(name)
        if same(train, std_train) and same(test, std_test):
            return name
    return None


#: (training rows, test rows, features, labels) of each standard split (a cheap first test of :func:`identify`)
_SHAPES = {"emotions": (391, 202, 72, 6), "enron": (1123, 579, 1001, 53), "scene": (1211, 1196, 294, 6),
           "yeast": (1500, 917, 103, 14)}


def recorded(path=None) -> pd.DataFrame | None:
    """This experiment's rows of the repository's last full run (``docs/reproductions.csv``), or None.

    The numbers the dashboard shows without refitting 21 methods: each was measured by
    ``mlviz reproduce standard-splits`` (this module), which writes that file.
    """
    from pathlib import Path

    path = Path(path) if path is not None else Path(__file__).resolve().parents[2] / "docs" / "reproductions.csv"
    if not path.is_file():
        return None
    frame = _read_recorded(str(path), path.stat().st_mtime_ns)
    return frame.copy() if frame is not None else None


@functools.lru_cache(maxsize=4)
def _read_recorded(path: str, mtime_ns: int):
    """The rows of one version of the file (read once per version: the page reruns often)."""
    frame = pd.read_csv(path)
    frame = frame[(frame["experiment"] == "standard-splits") & (~frame["quick"].astype(bool))]
    return frame if len(frame) else None


def takeaway(sota: pd.DataFrame, measure: str = "micro_f1") -> str:
    """One sentence on a :func:`state_of_the_art` table of ``measure``: on how many data sets mlviz's best
    method reaches the published best of 26 and RF-PCT's published value, and its largest gap to the best.

    "Reaches" is judged on the values as recorded (four decimals against the study's three), so a gap
    of 0.0002 counts as a gap."""
    name = MEASURE_NAMES.get(measure, measure)
    behind = sota[sota["gap to best"] < 0]
    sign = -1.0 if measure in LOWER_IS_BETTER else 1.0
    rf = int((sign * (sota["mlviz"] - sota["RF-PCT (published)"]) >= 0).sum())
    text = (f"On the {len(sota)} standard splits, mlviz's best method at its defaults reaches the published best of "
            f"26 methods on {len(sota) - len(behind)} in {name}, and RF-PCT's published {name} on {rf}")
    if len(behind):
        worst = behind.loc[behind["gap to best"].idxmin()]
        how = "higher" if measure in LOWER_IS_BETTER else "lower"
        text += (f"; the largest gap is {-worst['gap to best']:.3f} {name} on {worst['dataset']} "
                 f"({worst['mlviz']:.3f}, {how} than {worst['published best']:.3f})")
    return text + "."
