"""The progress notice reruns the page as soon as what the page draws is there (``until``), not only when
the whole job is done (a γ path: the automatic point is published long before the last point)."""

from streamlit.testing.v1 import AppTest


def _script():
    import types

    import streamlit as st

    from mlviz.dashboard import progress

    runs = st.session_state.setdefault("runs", 0)
    st.session_state["runs"] = runs + 1
    job = types.SimpleNamespace(done=lambda: False, partial={0.5: "point"}, progress={}, started=0.0)
    if runs == 0:
        want = st.query_params.get("want", "0.5")
        progress._notice(job, "**Fitting**", "", "slot", None, {},
                         None if want == "none" else (lambda j: float(want) in j.partial))
    st.write(f"runs {runs + 1}")


def _runs(want):
    at = AppTest.from_function(_script, default_timeout=30)
    at.query_params["want"] = want
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at.session_state["runs"]


def test_notice_reruns_when_the_point_is_published():
    assert _runs("0.5") == 2  # published: rerun at once


def test_notice_waits_while_the_point_is_not_published_or_without_until():
    assert _runs("0.3") == 1
    assert _runs("none") == 1


def test_every_page_tells_the_runner_which_page_its_session_shows():
    """init_page calls Runner.focus with the page title (what lets the left pages' jobs give way)."""
    from pathlib import Path

    from _apptest import open_app

    from mlviz.dashboard.compute import RUNNER

    root = Path(__file__).resolve().parents[1]
    from mlviz.dashboard.pages import page_for_file

    for page in ("pages/0_Home.py", "pages/5_Sandbox.py"):
        open_app(root / page, session={"mlviz_session_id": "focus-wiring"})
        assert RUNNER._page["focus-wiring"] == page_for_file(page).title
