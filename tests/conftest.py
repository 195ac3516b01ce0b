"""Fixtures shared by the dashboard tests that run without a page."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def ctx():
    """The dashboard's data context of the emotions split (standardised features), without Streamlit."""
    from mlviz.dashboard.state import DataContext, standardise
    from mlviz.data import load_sample_split

    train, test = load_sample_split("emotions")
    X_train, X_test = standardise(train.X, test.X)
    return DataContext("test-emotions", train, X_train, np.asarray(train.Y), X_test, np.asarray(test.Y))
