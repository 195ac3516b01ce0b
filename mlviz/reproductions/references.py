"""The reference registry: every number the Reference check compares with, and where it comes from.

One table, two kinds of source:

* **published** -- a number printed in a paper: the source names the paper, its table and the
  protocol it states (MLRH-T5: Lee & Shajari, Table 5);
* **measured** -- a number nobody published, measured for mlviz with another library under a
  stated protocol: the source names the script in this repository that produces it
  (fixed-split: ``benchmarks/reference_numbers.py``, scikit-learn only, no mlviz model or
  measure), so anyone can rerun it.

The dashboard's Reference check page, :mod:`mlviz.reproductions.reference` and the script read
this module only.

Examples
--------
>>> lookup("fixed-split", "emotions", "BR-LR", "micro_f1").value
0.64
>>> SOURCES[lookup("MLRH-T5", "scene", "BR-SVM (RBF)", "hamming_loss").protocol].kind
'published'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Source", "Reference", "SOURCES", "REFERENCES", "lookup", "rounding_of"]


@dataclass(frozen=True)
class Source:
    """Where the numbers of one protocol come from.

    ``kind`` is ``"published"`` (a paper's table) or ``"measured"`` (an in-repository script);
    ``short`` is the name shown beside each number, ``citation`` the full reference,
    ``reproduce`` the command that recomputes the numbers (measured) or ``""`` (published).
    """

    kind: str
    short: str
    citation: str
    reproduce: str = ""


@dataclass(frozen=True)
class Reference:
    """One reference number. ``text`` is the number as given (its last digit sets the rounding)."""

    protocol: str
    dataset: str
    method: str
    measure: str
    text: str

    @property
    def value(self) -> float:
        return float(self.text)

    @property
    def source(self) -> str:
        return SOURCES[self.protocol].short


SOURCES = {
    "fixed-split": Source(
        kind="measured",
        short="measured with scikit-learn (benchmarks/reference_numbers.py)",
        citation=("Not published: measured for mlviz with scikit-learn alone (no mlviz model or measure) by "
                  "benchmarks/reference_numbers.py in this repository. Split train_test_split(test_size=1/3, "
                  "random_state=0) (scene: official split), StandardScaler on dense features; BR-LR = "
                  "LogisticRegression(C=1, max_iter=2000) per label; ML-kNN k = 10, s = 1 as in M.-L. Zhang and "
                  "Z.-H. Zhou, \"ML-KNN: A lazy learning approach to multi-label learning\", Pattern Recognition "
                  "40(7), 2007; decisions at 0.5; macro-F1 with zero_division=0."),
        reproduce="python benchmarks/reference_numbers.py --check"),
    "MLRH-T5": Source(
        kind="published",
        short="Lee & Shajari, MLRH paper, Table 5",
        citation=("J. Lee and H. Shajari, \"A hidden variables approach to multilabel logistic regression\", "
                  "Table 5: BR-SVM (RBF) exact-match ratio (%) and Hamming loss, 5-fold cross-validation, "
                  "hyperparameters tuned so that BR-SVM performs at its best (grid not stated).")),
}

# protocol | data set | method | measure | number as given
_TABLE = """
fixed-split | emotions | BR-LR | micro_f1 | .640
fixed-split | emotions | BR-LR | macro_f1_zero_division_0 | .636
fixed-split | emotions | BR-LR | hamming_loss | .211
fixed-split | emotions | BR-LR | subset_accuracy | .268
fixed-split | emotions | BR-LR | macro_auc | .832
fixed-split | emotions | BR-LR | p@1 | .727
fixed-split | emotions | ML-kNN | micro_f1 | .687
fixed-split | emotions | ML-kNN | subset_accuracy | .308
fixed-split | emotions | ML-kNN | macro_auc | .828
fixed-split | scene | BR-LR | micro_f1 | .636
fixed-split | scene | BR-LR | macro_f1_zero_division_0 | .643
fixed-split | scene | BR-LR | hamming_loss | .130
fixed-split | scene | BR-LR | subset_accuracy | .444
fixed-split | scene | BR-LR | macro_auc | .883
fixed-split | scene | BR-LR | p@1 | .707
fixed-split | scene | ML-kNN | micro_f1 | .715
fixed-split | scene | ML-kNN | subset_accuracy | .594
fixed-split | scene | ML-kNN | macro_auc | .918
fixed-split | yeast | BR-LR | micro_f1 | .603
fixed-split | yeast | BR-LR | macro_f1_zero_division_0 | .380
fixed-split | yeast | BR-LR | hamming_loss | .219
fixed-split | yeast | BR-LR | subset_accuracy | .132
fixed-split | yeast | BR-LR | macro_auc | .661
fixed-split | yeast | BR-LR | p@1 | .707
fixed-split | yeast | ML-kNN | micro_f1 | .629
fixed-split | yeast | ML-kNN | subset_accuracy | .173
fixed-split | yeast | ML-kNN | macro_auc | .673
fixed-split | enron | BR-LR | micro_f1 | .536
fixed-split | enron | BR-LR | macro_f1_zero_division_0 | .200
fixed-split | enron | BR-LR | hamming_loss | .0505
fixed-split | enron | BR-LR | subset_accuracy | .139
fixed-split | enron | BR-LR | macro_auc | .727
fixed-split | enron | BR-LR | p@1 | .731
fixed-split | medical | BR-LR | micro_f1 | .819
fixed-split | medical | BR-LR | macro_f1_zero_division_0 | .322
fixed-split | medical | BR-LR | hamming_loss | .0091
fixed-split | medical | BR-LR | subset_accuracy | .695
fixed-split | medical | BR-LR | macro_auc | .959
fixed-split | medical | BR-LR | p@1 | .876
MLRH-T5 | emotions | BR-SVM (RBF) | exact_match_pct | 33.20
MLRH-T5 | emotions | BR-SVM (RBF) | hamming_loss | 0.178
MLRH-T5 | scene | BR-SVM (RBF) | exact_match_pct | 64.90
MLRH-T5 | scene | BR-SVM (RBF) | hamming_loss | 0.075
"""

REFERENCES = [Reference(*[c.strip() for c in line.split("|")]) for line in _TABLE.strip().splitlines()]
_INDEX = {(r.protocol, r.dataset, r.method, r.measure): r for r in REFERENCES}


def lookup(protocol, dataset, method, measure):
    """The :class:`Reference` of one number, or ``None``."""
    return _INDEX.get((protocol, dataset, method, measure))


def rounding_of(text):
    """Half a unit of the last digit of a number as given (``".0505"`` -> 5e-05, ``33.20`` -> 0.005).

    A float argument is formatted with ``repr`` first, so pass the text where trailing zeros count.
    """
    s = text if isinstance(text, str) else repr(float(text))
    decimals = len(s.split(".", 1)[1]) if "." in s else 0
    return 0.5 * 10.0 ** (-decimals)
