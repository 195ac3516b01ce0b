"""Text-like multi-label data: a latent topic model calibrated to the Mulan text sets.

:func:`make_text_like` generates what makes real bag-of-words multi-label data hard
for solvers and what independent per-label draws lack: labels that co-occur through
shared topics (few distinct label sets, Zipf-distributed label frequencies), words
with Zipf document frequencies (a few words in most documents, most words in very
few), words that depend on the topics *and* on the labels, and near-duplicate
documents (repeated e-mails, abstracts of the same paper).

Generative process (per document): draw 1 + Poisson(``topics_per_doc`` - 1) topics
from a Zipf popularity over ``n_topics`` topics; draw the label-set size
``1 + Poisson(cardinality - 1)`` (or 0 with probability ``empty_fraction``) and that
many distinct labels from the mixture of the chosen topics' label distributions
(each topic favours a few labels; labels are Zipf-popular overall); draw
``Poisson(words_per_row)`` word tokens, a fraction ``topic_word_share`` from the
topics' own Zipf word lists, ``label_word_share`` from the labels' signature words,
the rest from the Zipf background vocabulary (lengths log-normal; a fraction
``long_fraction`` of digest rows contain most of the vocabulary); features are the binary presence
of each word (as in the Mulan files). Finally a fraction ``duplicate_fraction`` of
the rows are grouped into threads of near-duplicates: copies of a seed row (same
labels, ``duplicate_noise`` of the words replaced) that share ``thread_words``
private rare words.

The presets :data:`TEXT_LIKE_PRESETS` reproduce the sizes and the published label
statistics (cardinality; the Mulan collection's data-set table) of bibtex,
delicious, enron and medical; the enron and medical ones were checked against the
bundled files (``describe`` statistics and fit-time ratios, ``benchmarks/RESULTS.md``).

References
----------
G. Tsoumakas, I. Katakis, I. Vlahavas, "Mining multi-label data", Data Mining and
Knowledge Discovery Handbook, 2010 (the Mulan statistics: cardinality, density,
distinct label sets). I. Katakis, G. Tsoumakas, I. Vlahavas, "Multilabel text
classification for automated tag suggestion", ECML/PKDD Discovery Challenge 2008
(bibtex); D. M. Blei, A. Y. Ng, M. I. Jordan, "Latent Dirichlet allocation", JMLR 3, 2003
(the topic model).
"""

import numpy as np
import scipy.sparse as sp

from .dataset import MultiLabelDataset

__all__ = ["make_text_like", "TEXT_LIKE_PRESETS"]

#: name -> keyword arguments of :func:`make_text_like` (sizes of the public sets; the
#: cardinalities are the published ones; words per row: enron 84, medical 13 measured on
#: the bundled files, bibtex and delicious from their feature density). medical's label tail
#: (label_zipf, topics, labels_per_topic) matches the bundled file's: 3 labels that never occur
#: (real 0), mean imbalance ratio 97 (real 90), exact duplicate rows as in the file
#: (benchmarks/RESULTS.md, "Real sets beside their twins in CPU seconds").
TEXT_LIKE_PRESETS = {
    "bibtex": dict(n_samples=7395, n_features=1836, n_labels=159, cardinality=2.40,
                   words_per_row=68.0, n_topics=40, duplicate_fraction=0.05, size_dispersion=0.5, label_zipf=0.3,
                   length_sigma=0.8, long_fraction=0.005, long_coverage=0.3),
    "delicious": dict(n_samples=16105, n_features=500, n_labels=983, cardinality=19.0,
                      words_per_row=18.0, n_topics=120, topics_per_doc=3.0, duplicate_fraction=0.02),
    "enron": dict(n_samples=1702, n_features=1001, n_labels=53, cardinality=3.38,
                  words_per_row=70.0, word_zipf=0.8, n_topics=12, duplicate_fraction=0.08,
                  duplicate_noise=0.0, label_zipf=1.0, long_fraction=0.03, length_sigma=0.8),
    "medical": dict(n_samples=1954, n_features=1909, n_labels=45, cardinality=1.24,
                    words_per_row=14.0, word_zipf=1.0, n_topics=30, topics_per_doc=1.0,
                    duplicate_fraction=0.02, duplicate_noise=0.0, label_zipf=0.75, topic_word_share=0.5,
                    labels_per_topic=2, label_noise=0.015, max_extra_labels=2),
}


def _zipf(k, exponent):
    p = 1.0 / np.arange(1, k + 1) ** float(exponent)
    return p / p.sum()


def make_text_like(n_samples=2000, n_features=1000, n_labels=50, *, cardinality=2.5,
                   words_per_row=50.0, n_topics=None, topics_per_doc=1.5, label_zipf=1.0,
                   word_zipf=1.1, labels_per_topic=6, label_noise=0.1, size_dispersion=None, max_extra_labels=None,
                   topic_word_share=0.35,
                   label_word_share=0.1,
                   duplicate_fraction=0.05, duplicate_noise=0.1, thread_size=3.0, thread_words=20,
                   length_sigma=0.5, long_fraction=0.0, long_coverage=0.85, empty_fraction=0.0, name=None,
                   random_state=None):
    """A sparse binary bag-of-words multi-label data set from a latent topic model.

    Parameters
    ----------
    n_samples, n_features, n_labels : int
        N, d (vocabulary) and L.
    cardinality : float >= 1
        Mean label-set size of the non-empty rows (sizes are 1 + Poisson(cardinality - 1),
        at most L).
    size_dispersion : float > 0 or None
        None: set sizes 1 + Poisson(cardinality - 1); a number r: 1 + negative binomial of
        the same mean and shape r (variance grows as 1/r; bibtex's sets reach 28 labels).
    max_extra_labels : int >= 1 or None
        None: as ``size_dispersion`` says; an int k: sizes 1 + Binomial(k, (cardinality - 1) / k),
        at most 1 + k and less dispersed than Poisson (medical's training sets have 1-3 labels:
        77 % / 22 % / 1 %, where 1 + Poisson(0.24) gives 79 % / 19 % / 2.6 % and more distinct sets).
    words_per_row : float > 0
        Mean word tokens per document (distinct words, the row's non-zeros, are fewer).
    n_topics : int or None
        Latent topics; None = max(5, L // 4).
    topics_per_doc : float >= 1
        Mean topics per document (1 + Poisson(topics_per_doc - 1)).
    label_zipf, word_zipf : float
        Zipf exponents of label popularity and of word frequency.
    labels_per_topic : int
        Labels each topic favours (drawn by label popularity).
    label_noise : float in [0, 1]
        Share of a topic's label mass spread over all labels by popularity (the rest is on
        its favoured labels): lower means fewer distinct label sets.
    topic_word_share, label_word_share : float in [0, 1]
        Fractions of a document's tokens drawn from its topics' and its labels' words.
    duplicate_fraction : float in [0, 1)
        Rows that belong to a thread of near-duplicates (a seed row and its copies: same
        labels, same words).
    duplicate_noise : float in [0, 1]
        Fraction of a copy's words replaced by background words (0: exact duplicates).
    thread_size : float >= 1
        Mean rows per thread (1 + Poisson(thread_size - 1) copies of each seed).
    thread_words : int >= 0
        Private rare words (from the less frequent half of the vocabulary) that every row
        of a thread carries.
    length_sigma : float >= 0
        Document lengths vary as ``words_per_row`` times a log-normal factor of mean 1 and
        this log-scale.
    long_fraction : float in [0, 1)
        Digest rows (mailing-list digests, concatenated threads) that contain each word of
        the vocabulary with probability ``long_coverage``: real enron has ~3 % of rows
        with ~875 of its 1,001 words, which dominate the conditioning of the problem
        (the Jacobi-scaled Gram matrix's largest eigenvalue, 404 there).
    long_coverage : float in [0, 1]
    empty_fraction : float in [0, 1)
        Rows with no label.
    name : str or None
    random_state : int, numpy Generator or None

    Returns
    -------
    MultiLabelDataset
        ``X`` CSR float64 0/1 (n_samples, n_features), ``Y`` uint8 (n_samples, n_labels).

    Examples
    --------
    >>> from mlviz.data import describe
    >>> ds = make_text_like(500, 300, 20, cardinality=2.0, random_state=0)
    >>> ds.X.shape, ds.Y.shape
    ((500, 300), (500, 20))
    >>> 1.6 < describe(ds)["cardinality"] < 2.4
    True
    """
    for pname, value, low in (("n_samples", n_samples, 1), ("n_features", n_features, 1),
                              ("n_labels", n_labels, 1)):
        if int(value) != value or value < low:
            raise ValueError(f"The '{pname}' parameter of make_text_like must be an int >= {low}, got {value!r}.")
    if not cardinality >= 1 or not words_per_row > 0 or not topics_per_doc >= 1:
        raise ValueError("make_text_like needs cardinality >= 1, words_per_row > 0 and topics_per_doc >= 1.")
    for pname, value in (("duplicate_fraction", duplicate_fraction), ("empty_fraction", empty_fraction)):
        if not 0 <= value < 1:
            raise ValueError(f"The '{pname}' parameter of make_text_like must be in [0, 1), got {value!r}.")
    if max_extra_labels is not None and not (int(max_extra_labels) == max_extra_labels >= 1
                                             and cardinality - 1 <= max_extra_labels):
        raise ValueError("The 'max_extra_labels' parameter of make_text_like must be None or an int k >= 1 with "
                         f"cardinality - 1 <= k, got {max_extra_labels!r} (cardinality {cardinality!r}).")
    rng = np.random.default_rng(random_state)
    n, d, L = int(n_samples), int(n_features), int(n_labels)
    T = int(n_topics) if n_topics is not None else max(5, L // 4)
    label_pop = _zipf(L, label_zipf)[rng.permutation(L)]
    word_p = _zipf(d, word_zipf)  # word 0 is the most frequent
    topic_pop = _zipf(T, 1.0)
    # topic -> label distribution: mostly on a few labels chosen by popularity, label_noise spread
    topic_labels = np.empty((T, L))
    k_core = min(int(labels_per_topic), L)
    for t in range(T):
        core = rng.choice(L, size=k_core, replace=False, p=label_pop)
        w = np.zeros(L)
        w[core] = label_pop[core] * rng.gamma(1.0, 1.0, size=k_core)
        topic_labels[t] = (1.0 - label_noise) * w / w.sum() + label_noise * label_pop
    # topic -> its own Zipf word list (a random subset of the vocabulary, mid-frequency words)
    n_topic_words = max(5, d // 20)
    topic_words = np.stack([rng.choice(d, size=n_topic_words, replace=False) for _ in range(T)])
    topic_word_p = _zipf(n_topic_words, 1.0)
    label_words = rng.choice(d, size=(L, 4))

    rows, cols, y_rows, y_cols = [], [], [], []
    empty = rng.random(n) < empty_fraction
    length_factor = rng.lognormal(-0.5 * length_sigma ** 2, length_sigma, size=n)  # mean 1
    long_doc = rng.random(n) < long_fraction
    for i in range(n):
        topics = rng.choice(T, size=min(T, 1 + rng.poisson(topics_per_doc - 1.0)), replace=False, p=topic_pop)
        if empty[i]:
            labels = np.empty(0, dtype=int)
        else:
            extra = cardinality - 1.0
            if max_extra_labels is not None:  # binomial: under-dispersed, bounded sizes
                m = min(L, 1 + rng.binomial(int(max_extra_labels), extra / int(max_extra_labels)))
            elif size_dispersion is None or extra <= 0:
                m = min(L, 1 + rng.poisson(extra))
            else:  # negative binomial: same mean, heavier tail (a few very long label sets)
                m = min(L, 1 + rng.negative_binomial(size_dispersion, size_dispersion / (size_dispersion + extra)))
            p = topic_labels[topics].mean(axis=0)
            labels = rng.choice(L, size=m, replace=False, p=p)
        n_tok = max(1, rng.poisson(words_per_row * length_factor[i]))
        n_topic = rng.binomial(n_tok, topic_word_share)
        n_label = rng.binomial(n_tok - n_topic, label_word_share) if labels.size else 0
        words = [rng.choice(d, size=n_tok - n_topic - n_label, p=word_p),
                 topic_words[rng.choice(topics, size=n_topic), rng.choice(n_topic_words, size=n_topic, p=topic_word_p)]]
        if n_label:
            words.append(label_words[rng.choice(labels, size=n_label), rng.integers(0, 4, size=n_label)])
        if long_doc[i]:  # a digest: most of the vocabulary
            words.append(np.flatnonzero(rng.random(d) < long_coverage))
        words = np.unique(np.concatenate(words))
        rows.append(np.full(words.size, i))
        cols.append(words)
        y_rows.append(np.full(labels.size, i))
        y_cols.append(labels)
    X = sp.csr_matrix((np.ones(sum(r.size for r in rows)), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n, d))
    Y = sp.csr_matrix((np.ones(sum(r.size for r in y_rows), dtype=np.uint8),
                       (np.concatenate(y_rows), np.concatenate(y_cols).astype(int))), shape=(n, L)).toarray()
    # threads of near-duplicates (e-mail threads, forwarded copies, entries of one paper):
    # a seed row gains ``thread_words`` private rare words; each member copies the seed's
    # labels and words (a ``duplicate_noise`` share replaced by background words) and
    # carries the private words too. Rare words that occur together only in a few similar
    # rows are what makes real text ill-conditioned (the Jacobi-scaled Gram matrix of the
    # features gets a large eigenvalue), which independent rows never show.
    n_dup = int(round(duplicate_fraction * n))
    if n_dup and n > 1:
        X = X.tolil()
        tail = np.arange(d // 2, d)
        members = rng.permutation(n)
        pos = 0
        while pos < n_dup:
            size = 1 + rng.poisson(max(thread_size - 1.0, 0.0))
            seed, group = int(members[pos]), members[pos + 1: pos + 1 + size]
            pos += 1 + size
            private = rng.choice(tail, size=min(int(thread_words), tail.size), replace=False)
            base = np.union1d(np.array(X.rows[seed], dtype=int), private)
            X.rows[seed] = base.tolist()
            X.data[seed] = [1.0] * base.size
            for i in group:
                words = base
                k = int(rng.binomial(words.size, duplicate_noise))
                if k:
                    words = np.union1d(rng.choice(words, size=words.size - k, replace=False),
                                       rng.choice(d, size=k, p=word_p))
                X.rows[i] = words.tolist()
                X.data[i] = [1.0] * words.size
                Y[i] = Y[seed]
        X = X.tocsr()
    X.data[:] = 1.0
    return MultiLabelDataset(X, Y.astype(np.uint8), name=name or f"text-like {n}x{d}x{L}")
