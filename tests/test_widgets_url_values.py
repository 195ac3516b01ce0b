"""URL values of bound sliders: a number written differently from the option's label
(``?lam=0.003`` for the option shown as ``3e-03``) selects that option and the URL becomes the
label; a value that is no option gives the default without an error
(:func:`mlviz.dashboard.widgets.canonical_url_value`).

The expected option of each URL value is written out by hand below (independent of the parsing
in the module)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

GRID = [0.001, 0.003, 0.01, 0.1, 1.0]
DEFAULT = 0.01
LABELS = {0.001: "1e-03", 0.003: "3e-03", 0.01: "0.01", 0.1: "0.1", 1.0: "1"}


def _page():
    import streamlit as st

    from mlviz.dashboard import widgets
    from mlviz.dashboard.methods import Param

    grid = [0.001, 0.003, 0.01, 0.1, 1.0]
    lam = widgets.param_slider(Param("lam", "lambda", grid, 0.01), "lam")
    mu = widgets.param_slider(Param("mu", "mu", grid, 0.01), "mu", container=st.sidebar)
    kind = widgets.param_slider(Param("kind", "kind", ["auto", 0.5, 2], "auto"), "kind")
    st.write(f"lam={lam!r} mu={mu!r} kind={kind!r}")


def run(**query):
    at = AppTest.from_function(_page, default_timeout=30)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(at):
    return at.markdown[0].value


def test_labels_are_the_slider_format():
    from mlviz.dashboard.widgets import fmt_value

    assert {v: fmt_value(v) for v in GRID} == LABELS


@pytest.mark.parametrize("raw, expected", [
    ("0.003", 0.003), ("3e-03", 0.003), ("0.0030", 0.003), ("3e-3", 0.003), ("0.00300000000001", 0.003),
    ("1", 1.0), ("1e0", 1.0), ("1.000", 1.0), ("0.10", 0.1), ("1e-1", 0.1), ("0.001", 0.001),
])
def test_a_number_equal_to_an_option_selects_it_and_the_url_becomes_its_label(raw, expected):
    at = run(lam=raw)
    assert at.select_slider(key="lam").value == expected
    assert shown(at).startswith(f"lam={expected!r} ")
    assert at.query_params.get("lam") == LABELS[expected]
    at.run()  # and it stays (the next rerun keeps the value and the URL)
    assert at.select_slider(key="lam").value == expected
    assert at.query_params.get("lam") == LABELS[expected]


@pytest.mark.parametrize("raw", ["0.004", "abc", "", "nan", "inf", "0.0031", "-0.003"])
def test_a_value_that_is_no_option_gives_the_default(raw):
    at = run(lam=raw)
    assert at.select_slider(key="lam").value == DEFAULT
    assert shown(at).startswith(f"lam={DEFAULT!r} ")
    assert "lam" not in at.query_params


def test_the_default_written_differently_gives_the_default():
    at = run(lam="0.010")
    assert at.select_slider(key="lam").value == DEFAULT
    assert "lam" not in at.query_params


def test_several_controls_are_all_rewritten():
    at = run(lam="0.003", mu="1e-1", kind="5e-1")
    assert at.select_slider(key="lam").value == 0.003
    assert at.sidebar.select_slider(key="mu").value == 0.1
    assert at.radio(key="kind").value == 0.5
    assert shown(at) == "lam=0.003 mu=0.1 kind=0.5"
    assert {k: at.query_params.get(k) for k in ("lam", "mu", "kind")} == {"lam": "3e-03", "mu": "0.1", "kind": "0.5"}


def test_a_radio_with_words_keeps_its_words():
    at = run(kind="auto", lam="3e-03")
    assert at.radio(key="kind").value == "auto"
    assert at.select_slider(key="lam").value == 0.003
    at = run(kind="Auto")  # not an option and not a number: the default
    assert at.radio(key="kind").value == "auto"
