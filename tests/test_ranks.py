"""mlviz._ranks against scipy.stats.rankdata (ties, inf, blocks)."""

import numpy as np
import pytest
from scipy.stats import rankdata

from mlviz import _ranks


@pytest.mark.parametrize("block", [7, 1 << 20])  # several blocks (a few rows / columns each) and one
def test_ranks_equal_scipy_rankdata_with_ties_and_inf(block, monkeypatch):
    monkeypatch.setattr(_ranks, "_BLOCK", block)
    rng = np.random.default_rng(0)
    S = np.round(rng.random((40, 9)), 1)  # many ties
    S[:, 3] = 0.5  # a constant column
    Y = rng.random((40, 9)) < 0.3
    np.testing.assert_array_equal(_ranks.positive_rank_sums(Y, S),
                                  (rankdata(S, method="average", axis=0) * Y).sum(axis=0))
    masked = np.where(Y, -S, np.inf)
    for A in (-S, masked):
        np.testing.assert_array_equal(_ranks.rank_max_rows(A), rankdata(A, method="max", axis=1))
    assert _ranks.positive_rank_sums(Y[:0], S[:0]).shape == (9,)
    assert _ranks.rank_max_rows(S[:, :0]).shape == (40, 0)
