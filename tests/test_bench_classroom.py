"""The pieces of the classroom benchmark's websocket client (benchmarks/_classroom_client.py, used by
benchmarks/bench_classroom.py), checked on hand-built Streamlit protocol messages (no server: a run
of the benchmark takes minutes)."""

from __future__ import annotations

import random
import sys

import pytest
from _bench import load_benchmark
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider


@pytest.fixture(scope="module")
def bench():
    yield load_benchmark("_classroom_client", register=True)  # (dataclasses look their module up)
    sys.modules.pop("_classroom_client", None)


def new_session(run_id, fragments=()):
    msg = ForwardMsg()
    msg.new_session.SetInParent()
    msg.metadata.run.script_run_id = run_id
    msg.metadata.run.fragment_ids.extend(fragments)
    return msg


def element(path, kind, fragment="", **fields):
    msg = ForwardMsg()
    msg.metadata.delta_path.extend(path)
    msg.delta.fragment_id = fragment
    el = getattr(msg.delta.new_element, kind)
    for name, value in fields.items():
        setattr(el, name, value)
    el.SetInParent()
    return msg


def finished(status=ForwardMsg.FINISHED_SUCCESSFULLY):
    msg = ForwardMsg()
    msg.script_finished = status
    return msg


def auto_rerun(fragment, interval):
    msg = ForwardMsg()
    msg.auto_rerun.fragment_id = fragment
    msg.auto_rerun.interval = interval
    return msg


def test_a_rerun_request_carries_page_query_widgets_and_fragment(bench):
    state = bench.trigger_state(Slider(id="$$ID-abc-tour_next"))
    raw = bench.rerun_message("data=yeast&tour=2", page_name="Embedding", page_script_hash="h1", widgets=[state],
                              fragment_id="f9", auto=True)
    msg = BackMsg()
    msg.ParseFromString(raw)
    rs = msg.rerun_script
    assert msg.WhichOneof("type") == "rerun_script"
    assert (rs.query_string, rs.page_name, rs.page_script_hash, rs.fragment_id, rs.is_auto_rerun) == \
        ("data=yeast&tour=2", "Embedding", "h1", "f9", True)
    assert [(w.id, w.trigger_value) for w in rs.widget_states.widgets] == [("$$ID-abc-tour_next", True)]
    assert not rs.cached_message_hashes  # (the server then sends every message in full)


def test_the_tree_drops_stale_elements_as_the_browser_does(bench):
    tree = bench.Tree()
    events = []
    for msg in [new_session("r1"), element([0, 1], "plotly_chart", spec="{}"),
                element([0, 2], "alert", "F", body=f"**Fitting** … {bench.NOTICE_TEXT}."),
                element([0, 3], "markdown", body="old text"), auto_rerun("F", 0.3), finished()]:
        events += tree.apply(msg)
    assert [e for e in events if e[0] in ("figure", "finished")] == [("figure", (0, 1)), ("finished", 0)]
    assert tree.figures() == 1 and tree.notices() == 1 and tree.busy()
    # a fragment run replaces the fragment's own elements only; its timer stays (a full run clears timers)
    for msg in [new_session("r2", ["F"]), element([0, 2], "markdown", "F", body="done"),
                finished(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)]:
        tree.apply(msg)
    assert tree.notices() == 0 and (0, 3) in tree.nodes and tree.busy()  # (the 0.3 s timer)
    # a full run ended early for a rerun keeps the page and its timers; one that finishes drops the
    # timers of the fragments it did not register again
    for msg in [new_session("r3"), finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN)]:
        tree.apply(msg)
    assert tree.auto_reruns == {"F": pytest.approx(0.3)} and (0, 2) in tree.nodes  # (a float32 field)
    for msg in [new_session("r4"), element([0, 1], "plotly_chart", spec="{}"), finished()]:
        tree.apply(msg)
    assert set(tree.nodes) == {(0, 1)} and not tree.auto_reruns and not tree.busy()


def test_a_run_ended_early_for_a_rerun_keeps_the_page(bench):
    tree = bench.Tree()
    for msg in [new_session("r1"), element([0, 0], "plotly_chart"), finished(), new_session("r2"),
                finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN)]:
        tree.apply(msg)
    assert tree.figures() == 1


def test_errors_navigation_and_slow_timers(bench):
    tree = bench.Tree()
    nav = ForwardMsg()
    page = nav.navigation.app_pages.add()
    page.page_script_hash, page.url_pathname = "hE", "Embedding"
    nav.navigation.page_script_hash = "hE"
    exc = element([0, 4], "exception", type="ValueError", message="boom")
    err = element([0, 5], "alert", body="Could not load", format=1)  # Alert.ERROR
    events = tree.apply(new_session("r1")) + tree.apply(nav) + tree.apply(exc) + tree.apply(err)
    assert ("page", "hE") in events and tree.pages == {"Embedding": "hE"} and tree.page_script_hash == "hE"
    assert [d for k, d in events if k == "error"] == ["ValueError: boom", "Could not load"]
    tree.apply(auto_rerun("tour-poll", 2.0))
    tree.apply(finished())
    assert not tree.busy()  # (the tour panel's 2 s poll is no work under way)


def select_slider(options, default=0, raw=None):
    s = Slider(id="$$ID-x-cdn_lam", type=Slider.SELECT_SLIDER, options=options, default=[default],
               query_param_key="cdn_lam")
    if raw is not None:
        s.set_value = True
        s.raw_value.append(raw)
    return s


def test_a_slider_moves_to_another_of_its_values(bench):
    rng = random.Random(0)
    options = ["1e-03", "0.01", "0.1", "1", "10"]
    for current, el in [("1", select_slider(options, default=3)), ("0.1", select_slider(options, 3, raw="0.1"))]:
        assert bench.slider_value(el) == current
        moved = {bench.slider_state(el, rng).string_array_value.data[0] for _ in range(200)}
        assert moved == set(options) - {current}
    # the value this client set wins over the default (the server does not echo it back)
    el = select_slider(options, default=3)
    assert bench.slider_value(el, known="10") == "10"
    assert "10" not in {bench.slider_state(el, rng, known="10").string_array_value.data[0] for _ in range(200)}
    numeric = Slider(id="$$ID-y-cooc_min", type=Slider.SLIDER, min=1, max=4, step=1, default=[2])
    assert {bench.slider_state(numeric, rng).double_array_value.data[0] for _ in range(200)} == {1.0, 3.0, 4.0}
    assert bench.slider_state(select_slider(["only"]), rng) is None


def test_small_helpers(bench):
    assert bench.widget_key("$$ID-0123abcd-emb_mllem_alpha") == "emb_mllem_alpha"
    assert bench.widget_key("plain") == ""
    assert bench.with_param("data=emotions&cdn_lam=1", "cdn_lam", "1e-03") == "data=emotions&cdn_lam=1e-03"
    assert bench.with_param("", "cooc_min", 5.0) == "cooc_min=5"
    s = bench.summary(list(range(1, 21)) + [None])
    # numpy's default percentile: rank 0.95 (n - 1) = 18.05 between the 19th and 20th values
    assert s["n"] == 20 and s["median"] == 10.5 and s["p95"] == pytest.approx(19 + 0.05 * (20 - 19)) and s["max"] == 20
    assert bench.summary([])["p95"] is None


def test_the_job_log_tells_a_shared_job_from_one_computed_twice_at_once(bench):
    def line(t, event, key):  # (the runner's format: mlviz.dashboard.jobs._log)
        return f"{t:9.2f} {event:<8} p0    0.00s abcdef {key}"

    log = [line(1.0, "start", "emotions|mllem|a"), line(1.5, "start", "emotions|cdn|path"),
           line(2.0, "end", "emotions|mllem|a"), line(2.5, "start", "emotions|mllem|a"),  # (again after its end)
           line(3.0, "end", "emotions|mllem|a"), line(3.2, "start", "emotions|cdn|path"),  # (twice at once)
           line(4.0, "cancel", "emotions|cdn|path"), line(5.0, "end", "emotions|cdn|path"),
           line(6.0, "start", "emotions|umap")]  # (still running)
    out = bench.job_overlaps(log)
    assert out == dict(started=5, keys=3, concurrent_duplicates=["emotions|cdn|path"])


def test_the_page_is_the_last_navigation_messages(bench):
    """A fresh session first hears of the entrypoint's pages, then of st.navigation's: the page and the
    address → page table are those of the last navigation message (the benchmark reads them at each look)."""
    tree = bench.Tree()
    events = []
    for current, pages in [("main", {"": "main"}), ("home", {"": "home", "Embedding": "emb"})]:
        nav = ForwardMsg()
        for url, h in pages.items():
            p = nav.navigation.app_pages.add()
            p.url_pathname, p.page_script_hash = url, h
        nav.navigation.page_script_hash = current
        events += tree.apply(nav)
    assert tree.pages == {"": "home", "Embedding": "emb"} and tree.page_script_hash == tree.pages[""]
    assert [d for k, d in events if k == "page"] == ["main", "home"]


def test_another_panels_work_under_way_can_be_left_out(bench):
    """A slider's answer waits for its own work, not for another panel's notice shown before the move."""
    tree = bench.Tree()
    umap = f"**Computing the UMAP layout** at random_state = 0: starting (0.2 s). {bench.NOTICE_TEXT}."
    mllem = f"**Embedding with MLLEM** at alpha = 10: starting (0.1 s). {bench.NOTICE_TEXT}."
    for msg in [new_session("r1"), element([0, 16], "alert", "U", body=umap), auto_rerun("U", 0.3), finished()]:
        tree.apply(msg)
    before = set(tree.notice_work())
    assert before == {"**Computing the UMAP layout** at random_state = 0"}
    assert tree.busy() and not tree.busy(ignore=before)
    for msg in [new_session("r2"), element([0, 16], "alert", "U", body=umap), element([0, 5], "alert", "M", body=mllem),
                auto_rerun("U", 0.3), auto_rerun("M", 0.3), finished()]:
        tree.apply(msg)
    assert tree.busy(ignore=before)  # (the move's own work runs)
