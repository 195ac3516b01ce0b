"""AppTests of the presentation layer: the reference-check page, presentation mode and the guided tour.

The reference check's values shown are compared with
:func:`mlviz.reproductions.reference.reference_check` run directly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from mlviz._text import escape_markdown

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = str(ROOT / "pages" / "7_Reference_check.py")
TIMEOUT = 120


@pytest.fixture(autouse=True)
def clear_caches(fresh_dashboard):
    yield


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def run(path, **query):
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return ok(at.run())


def metrics(at):
    return {m.label: m.value for m in at.metric}


def markdown(at):
    return "\n".join(m.value for m in at.markdown)


# ----------------------------------------------------------------------- reference check

@pytest.mark.parametrize("dataset", ["emotions", "scene"])
def test_reference_check_shows_the_numbers_of_the_reference_module(dataset):
    from mlviz.reproductions import reference

    at = run(REFERENCE, ref_data=dataset)
    assert not at.dataframe, "nothing is computed before the click"
    at.button(key="ref_run").click()
    ok(at.run())
    expected = reference.reference_check((dataset,), ("ANCHORS-P1",), random_state=0)
    compared = expected[expected["published"].notna()].reset_index(drop=True)
    shown = at.dataframe[0].value
    assert list(shown["Method"]) == list(compared["method"])
    assert list(shown["Measure"]) == list(compared["measure"])
    np.testing.assert_array_equal(shown["Ours"].to_numpy(float), compared["ours"].to_numpy(float))
    np.testing.assert_array_equal(shown["Published"].to_numpy(float), compared["published"].to_numpy(float))
    np.testing.assert_array_equal(shown["Difference"].to_numpy(float), compared["diff"].to_numpy(float))
    assert [s.split(" ", 1)[1] for s in shown["Status"]] == list(compared["status"])
    assert list(shown["Source"]) == list(compared["source"])
    within = int((compared["status"] == "within band").sum())
    assert metrics(at) == {"Published numbers compared": str(len(compared)), "Within band": str(within),
                           "Off band": str(len(compared) - within)}
    text = markdown(at)
    for method, rows in compared.groupby("method"):
        ok_rows = int((rows["status"] == "within band").sum())
        assert f"**{escape_markdown(method)}** :" in text and f"[{ok_rows} of {len(rows)} within band]" in text
    # every published number's citation is written out beside the table
    assert escape_markdown(reference.CITATIONS[compared["source"].iloc[0]]) in text
    # PCC (no published number) is shown in its own table, with the module's values
    extra = expected[expected["published"].isna()]
    plain = at.dataframe[1].value.set_index("method")
    for r in extra.itertuples():
        assert plain.loc[r.method, r.measure] == r.ours


def test_reference_check_on_a_set_without_a_protocol_says_so():
    at = run(REFERENCE, ref_data="yeast", ref_protocol="MLRH-T5")
    assert any("MLRH-T5 has no numbers for yeast" in i.value for i in at.info)
    assert not any(b.key == "ref_run" for b in at.button)
    assert not at.dataframe


def test_reference_check_is_in_the_sidebar_navigation():
    # (AppTest does not render st.page_link; the browser test clicks the link)
    from mlviz.dashboard.state import PAGES

    assert ("pages/7_Reference_check.py", "Reference check") in [(p, label) for p, label, _ in PAGES]
    assert (ROOT / "pages" / "7_Reference_check.py").exists()
