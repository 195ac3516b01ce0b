"""The URL schema (mlviz.dashboard.urls): every parameter a page binds or reads is declared, and the
sanitiser keeps only values within the schema, whatever it is given (hypothesis).

The validity check below is written from the schema's declared fields (type, range, step, choices,
length), independently of the sanitiser's own code.
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlviz.dashboard import urls
from mlviz.dashboard.methods import METHODS

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "pages").glob("*.py")) + sorted((ROOT / "mlviz" / "dashboard").glob("*.py"))

# ------------------------------------------------------------------ every bound key is declared


def _module_constants(tree) -> dict:
    """Module-level ``NAME = "text"`` / ``A, B = "a", "b"`` / ``D = {"k": "text"}`` of a source."""
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant):
                out[target.id] = node.value.value
            elif isinstance(target, ast.Name) and isinstance(node.value, ast.Dict):
                out[target.id] = {k.value: v.value for k, v in zip(node.value.keys, node.value.values)
                                  if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                for t, v in zip(target.elts, node.value.elts):
                    if isinstance(t, ast.Name) and isinstance(v, ast.Constant):
                        out[t.id] = v.value
    return out


def _bound_keys(path):
    """``(constant keys, dynamic key sources)`` of the calls with ``bind="query-params"`` in ``path``."""
    tree = ast.parse(path.read_text())
    consts = _module_constants(tree)
    fixed, dynamic = set(), set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        kw = {k.arg: k.value for k in node.keywords}
        if not (isinstance(kw.get("bind"), ast.Constant) and kw["bind"].value == "query-params"):
            continue
        key = kw.get("key")
        if isinstance(key, ast.Constant):
            fixed.add(key.value)
        elif isinstance(key, ast.Name) and isinstance(consts.get(key.id), str):
            fixed.add(consts[key.id])
        elif (isinstance(key, ast.Subscript) and isinstance(key.value, ast.Name)
              and isinstance(consts.get(key.value.id), dict)):  # WIDGETS["gamma"], or WIDGETS[name]: every value
            table = consts[key.value.id]
            fixed |= {table[key.slice.value]} if isinstance(key.slice, ast.Constant) else set(table.values())
        else:
            dynamic.add((path.name, ast.unparse(key)))
    return fixed, dynamic


def _read_keys(path):
    """Constant names read with ``st.query_params.get("x")`` / ``st.query_params["x"]`` / ``qp.get("x")``."""
    text = path.read_text()
    return set(re.findall(r"(?:query_params|\bqp)(?:\.get(?:_all)?\(|\[)\s*\"([a-z_0-9]+)\"", text))


#: The bound keys built at run time, and the concrete names each stands for (checked below).
DYNAMIC = {
    ("widgets.py", "key"): "param_slider: <prefix><method>_<param> (post_, dr_, emb_mllem_)",
    ("widgets.py", "f'{key}_mode'"): "threshold_control: thr_mode",
    ("widgets.py", "f'{key}_global'"): "threshold_control: thr_global",
    ("widgets.py", "f'{key}_rank'"): "threshold_control: thr_rank",
    ("widgets.py", "f'{key}_l{i}'"): "threshold_control: thr_l<j>",
    ("3_Posteriors.py", "f'thr_l{j}'"): "thr_l<j>",
    ("focus.py", "f'{prefix}_mode'"): "labels_mode",
    ("focus.py", "f'{prefix}_k'"): "labels_k",
    ("focus.py", "f'{prefix}_q'"): "labels_q",
    ("focus.py", "f'{prefix}_pick'"): "labels_pick",
}


def _dynamic_names():
    names = {"thr_mode", "thr_global", "thr_rank", "thr_l0", "thr_l982", "labels_mode", "labels_k", "labels_q",
             "labels_pick"}
    for m in METHODS.values():
        for p in m.sliders:
            names |= {f"post_{m.key}_{p.name}", f"dr_{m.key}_{p.name}"}
            if m.key == "mllem" and p.name != "n_components":
                names.add(f"emb_mllem_{p.name}")
    return names


def test_every_bound_or_read_parameter_is_in_the_schema():
    fixed, dynamic, read = set(), set(), set()
    for path in SOURCES:
        f, d = _bound_keys(path)
        fixed |= f
        dynamic |= d
        read |= _read_keys(path)
    assert len(fixed) > 60  # (the scan finds the pages' controls)
    missing = sorted(k for k in fixed | read | _dynamic_names() if urls.lookup(k)[0] is None)
    assert not missing, f"query parameters bound or read but not in mlviz.dashboard.urls.SCHEMA: {missing}"
    unknown = sorted(dynamic - set(DYNAMIC))
    assert not unknown, f"a key built at run time: declare it in urls.SCHEMA and in DYNAMIC here: {unknown}"


def test_the_pages_prefixes_of_the_dynamic_keys_are_the_declared_ones():
    text = {p.name: p.read_text() for p in SOURCES}
    assert 'prefix="emb_"' in text["1_Embedding.py"] and 'param_controls(m, "dr_")' in text["6_Decision_rules.py"]
    assert 'f"post_{m.key}_{p.name}"' in text["3_Posteriors.py"]
    assert text["1_Embedding.py"].count('prefix="labels"') + text["2_Label_graph.py"].count('prefix="labels"') >= 2


def test_choices_come_from_the_registries():
    from mlviz.dashboard import present
    from mlviz.dashboard.widgets import fmt_value

    assert set(urls.HIDE_GROUPS) == set(present.GROUPS)
    for m in METHODS.values():
        for p in m.sliders:
            assert urls.SCHEMA[f"post_{m.key}_{p.name}"].choices == tuple(fmt_value(v) for v in p.grid)
    assert set(urls.SCHEMA["cmp_methods"].choices) == {m.label for m in METHODS.values()}
    page = (ROOT / "pages" / "1_Embedding.py").read_text()  # the Embedding page's "Compare with" options
    other = re.search(r"OTHER_EMBEDDINGS = (\{.*?\})", page).group(1)
    assert tuple(ast.literal_eval(other)) == urls.SCHEMA["emb_other"].choices


def test_every_parameter_has_an_owner_page_and_a_bounded_length():
    from mlviz.dashboard.pages import PAGES

    files = {Path(p.path).name for p in PAGES} | {urls.ALL}
    for p in urls.SCHEMA.values():
        assert p.owners and set(p.owners) <= files, p.name
        assert 0 < p.max_chars <= 4000 and 1 <= p.max_items <= 200, p.name
        assert p.kind in ("choice", "multi", "int", "float", "bool", "text"), p.name


# ------------------------------------------------------------------ the sanitiser, property-based


def _valid(p, value, data) -> bool:
    """Whether a kept value is within ``p``'s declaration (written from the declaration alone)."""
    if p.kind == "multi":
        choices = p.data_choices(data) if (p.data_choices and data is not None) else p.choices
        return (isinstance(value, list) and 1 <= len(value) <= p.max_items and len(set(value)) == len(value)
                and all(len(v) <= p.max_chars and (not choices and data is None or v in choices) for v in value))
    if not isinstance(value, str) or len(value) > p.max_chars:
        return False
    if p.kind in ("int", "float"):
        x = float(value)
        hi = p.data_hi(data) if (p.data_hi and data is not None) else p.hi
        if not (math.isfinite(x) and p.lo - 1e-9 <= x <= hi + 1e-9):
            return False
        steps = (x - p.lo) / p.step
        return abs(steps - round(steps)) < 1e-6 or x == hi and (p.kind == "int" or True)
    if p.kind == "bool":
        return value in ("true", "false")
    if p.name == "present":
        return value in ("0", "1")
    if p.name == "hide":
        return all(g in p.choices for g in value.split(","))
    if p.kind == "choice":
        if p.check is not None:
            return p.check(value) is None
        if p.data_choices is not None:
            return data is None or value in p.data_choices(data)
        return value in p.choices
    return (not value or p.check is None or p.check(value) is None) and \
        (not value or p.data_check is None or data is None or p.data_check(value, data) is None)


NAMES = sorted(urls.SCHEMA.keys())
PARAM_NAMES = [n for n in NAMES if not urls.SCHEMA[n].indexed] + ["thr_l0", "thr_l5", "thr_l99999", "thr_l"]
EXTREME = ["nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e-320", "-1", "0", "-0", "99999999", "1e999", "",
           " ", "true", "TRUE", "2.5e-3", "0x10", "٣", "１", "\x00", "<script>alert(1)</script>", "../../etc/passwd",
           "chain:20000000", "ids:train=0-100000", "set:99", "0>1@sparse,0.1,0,1", "x" * 100_000,
           "chain:3," * 2000, "ids:train=" + ".".join(map(str, range(0, 6000, 2))), "emotions",
           "upload-" + "a" * 64, "upload-" + "A" * 64, "🙂" * 300]


def _choices_of(name):
    p, _ = urls.lookup(name)
    return list(p.choices[:10]) if p is not None else []


@st.composite
def raw_params(draw):
    names = draw(st.lists(st.one_of(st.sampled_from(PARAM_NAMES), st.text(max_size=12)), max_size=12))
    out = {}
    for name in names:
        one = st.one_of(st.sampled_from(EXTREME), st.text(max_size=30),
                        st.floats(allow_nan=True, allow_infinity=True).map(repr),
                        st.integers(min_value=-10**30, max_value=10**30).map(str),
                        st.sampled_from(_choices_of(name) or ["x"]))
        out[name] = draw(st.one_of(one, st.lists(one, min_size=0, max_size=5)))
    return out


LABELS = ("amazed-suprised", "happy-pleased", "relaxing-calm", "quiet-still", "sad-lonely", "angry-aggresive")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(raw_params(), st.sampled_from([None, "0_Home.py", "3_Posteriors.py", "5_Sandbox.py", "6_Decision_rules.py"]),
       st.sampled_from([None, urls.DataShape(LABELS, 391), urls.DataShape(("a",), 2)]))
def test_the_sanitiser_keeps_only_values_within_the_schema(params, page, data):
    clean, notes = urls.sanitize(params, page, data)
    assert len(clean) <= urls.MAX_PARAMS and len(notes) <= 20 and all(len(n) < 400 for n in notes)
    size = 0
    for name, value in clean.items():
        p, index = urls.lookup(name)
        assert p is not None and p.owned_by(page), name
        assert _valid(p, value, data), (name, value)
        if p.indexed and data is not None:
            assert index < len(data.label_names)
        size += len(name) + sum(map(len, value if isinstance(value, list) else [value]))
    assert size <= urls.max_address_chars()
    again, notes2 = urls.sanitize(clean, page, data)  # a clean address stays as it is
    assert again == clean and not notes2, notes2


def test_hostile_values_of_the_issue():
    clean, notes = urls.sanitize({"dr_k": "99999", "post_rows": "99999999", "sb_structure": "chain:3," * 2000,
                                  "sb_preset": "custom", "tour": "999", "hide": "<script>",
                                  "data": "../../etc/passwd",
                                  "sel_rows": "ids:train=" + ".".join(map(str, range(3000)))},
                                 data=urls.DataShape(LABELS, 391))
    assert clean == {"dr_k": "6", "sb_preset": "custom"}
    assert len(notes) == 7
    # a structure whose size is too large is refused on the text (parse_structure's bound), in microseconds
    clean, notes = urls.sanitize({"sb_structure": "chain:20000000"})
    assert clean == {} and "200" in notes[0]


@pytest.mark.parametrize("n_test", [1, 60, 109, 110, 202, 579, 917, 1196, 2000, 2001, 16_000])
def test_posterior_rows_offer_sizes_below_the_test_set_then_all_of_it(n_test):
    choices = urls.posterior_row_choices(n_test)
    assert list(choices) == sorted(set(choices)) and set(choices) <= set(urls.POSTERIOR_ROWS) | {n_test}
    assert max(choices) == min(n_test, urls.POSTERIOR_ROWS[-1])  # every row, up to the largest size
    assert all(11 * c <= 10 * n_test for c in choices[:-1])  # no "200 of 202"
    # every size of the list that is at least 10 % below the test set is offered
    assert [c for c in urls.POSTERIOR_ROWS if 11 * c <= 10 * n_test] == [c for c in choices if c in urls.POSTERIOR_ROWS
                                                                          and 11 * c <= 10 * n_test]


def test_posterior_rows_in_a_link_are_checked_against_the_test_set():
    emotions = urls.DataShape(LABELS, 391, 202)
    assert urls.sanitize({"post_rows": "202"}, "3_Posteriors.py", emotions) == ({"post_rows": "202"}, [])
    clean, notes = urls.sanitize({"post_rows": "500"}, "3_Posteriors.py", emotions)  # 500 of 202 rows
    assert clean == {} and "post_rows" in notes[0]
    assert urls.sanitize({"post_rows": "2000"}, "3_Posteriors.py", urls.DataShape(LABELS, 391, 5000))[0] == {
        "post_rows": "2000"}


def test_a_choice_written_in_another_case_or_with_underscores_is_that_choice():
    # links made when the Decision rules radios showed the rule keys keep working
    clean, notes = urls.sanitize({"dr_rule": "per_label", "dr_guess": "SCUT"}, "6_Decision_rules.py")
    assert clean == {"dr_rule": "Per label", "dr_guess": "SCut"} and not notes
    assert urls.sanitize({"dr_rule": "r cut"}, "6_Decision_rules.py")[0] == {}  # (not the same word)
    # two choices that differ only by case: no guess between them
    two = urls.UrlParam("x", "choice", ("all",), ("Beach", "beach"))
    assert urls._clean_choice(two, "BEACH", two.choices)[0] is None
    assert urls._clean_choice(two, "beach", two.choices) == ("beach", None)


def test_numbers_are_clamped_and_snapped_to_the_slider():
    clean, _ = urls.sanitize({"thr_global": "0.33", "sb_noise": "-5", "sb_seed": "1e308", "dr_t": "1.0",
                              "post_mllspc_lam": "0.0030", "cdn_gamma": "auto", "labels_k": "7"},
                             data=urls.DataShape(LABELS * 10, 100))
    assert clean == {"thr_global": "0.35", "sb_noise": "0", "sb_seed": "10000", "dr_t": "1",
                     "post_mllspc_lam": "3e-03", "cdn_gamma": "auto", "labels_k": "5"}


def test_other_pages_parameters_and_unknown_names_are_dropped():
    clean, notes = urls.sanitize({"dr_k": "3", "cmp_folds": "5", "sel_label": "x", "zzz": "1"}, page="4_Compare.py")
    assert clean == {"cmp_folds": "5", "sel_label": "x"}
    assert any("another page" in n for n in notes) and any("not a parameter" in n for n in notes)


def test_an_upload_is_named_by_its_hash():
    key = "upload:data.csv:" + "0123456789abcdef" * 4
    assert urls.upload_token(key) == "upload-" + "0123456789abcdef" * 4
    assert urls.sanitize({"data": urls.upload_token(key)})[0] == {"data": urls.upload_token(key)}
    assert urls.sanitize({"data": "⬆ data.csv (uploaded)"})[0] == {}


# ------------------------------------------------------------------ the session ledger


def test_the_ledger_releases_an_upload_only_when_no_live_session_holds_it():
    from mlviz.dashboard.sessions import Ledger

    ledger = Ledger()
    ledger.see("a", "rt-a")
    ledger.hold("a", "upload:x:1", "rt-a")
    ledger.hold("a", "upload:y:2", "rt-a")
    ledger.hold("b", "upload:x:1", "rt-b")
    assert ledger.ended({"rt-a", "rt-b"}) == ([], [], [])
    assert ledger.ended({"rt-b"}) == (["rt-a"], ["a"], ["upload:y:2"])
    assert ledger.ended(set()) == (["rt-b"], ["b"], ["upload:x:1"])
    assert len(ledger) == 0


def test_a_sweep_drops_the_ended_sessions_results_and_jobs():
    import threading

    from mlviz.dashboard import sessions
    from mlviz.dashboard.compute import RUNNER

    sessions.sweep(alive=set())  # (sessions the AppTests of this process left in the ledger)
    RUNNER.clear()
    started, release = threading.Event(), threading.Event()

    def slow(token):
        started.set()
        while not release.wait(0.01):
            token.check()
        return 1

    keep, gone = "upload:keep:1|auto", "upload:gone:2|auto"
    RUNNER.results.put(keep + "|stats", b"k" * 1000)
    RUNNER.results.put(gone + "|stats", b"g" * 100_000)
    job = RUNNER.submit(gone + "|fit", slow, owner=("s-gone", "slot"))
    assert started.wait(10)
    sessions.LEDGER.hold("s-keep", "upload:keep:1", "rt-keep")
    sessions.LEDGER.hold("s-gone", "upload:gone:2", "rt-gone")
    out = sessions.sweep(alive={"rt-keep"})
    release.set()
    assert out["sessions"] == ["rt-gone"] and out["data_keys"] == ["upload:gone:2"]
    assert out["freed_bytes"] >= 100_000
    assert RUNNER.peek(keep + "|stats") is not None and RUNNER.peek(gone + "|stats") is None
    assert job.cancelled.done()
    sessions.LEDGER.ended(set())
    RUNNER.clear()


def test_the_ledger_does_nothing_outside_a_server():
    from mlviz.dashboard import sessions

    assert sessions.alive_sessions() is None
    assert sessions.sweep()["sessions"] == []


@pytest.mark.parametrize("text, ok", [("ids:train=1-5.9;test=0", True), ("ids:train=0-499", True),
                                      ("ids:train=0-500", False), ("ids:train=9-1", False), ("set:none", True),
                                      ("set:1.2.3", True), ("ids:train=1-2-3", False), ("set:", False)])
def test_selected_rows_are_counted_before_anything_is_built(text, ok):
    assert (urls.sanitize({"sel_rows": text})[0] == {"sel_rows": text}) is ok


@pytest.mark.parametrize("data", [None, urls.DataShape(LABELS, 391)])
def test_every_parameter_with_every_extreme_value(data):
    """Each declared parameter (and a label-indexed one) with each extreme value, alone and as a list."""
    for name in PARAM_NAMES:
        for raw in EXTREME:
            for value in ((raw, [raw] * 300) if name in ("labels_pick", "cmp_methods") else (raw, [raw, "1"])):
                clean, notes = urls.sanitize({name: value}, data=data)
                p, _ = urls.lookup(name)
                for k, v in clean.items():
                    assert k == name and _valid(p, v, data), (name, raw[:40], v if len(str(v)) < 200 else "…")
                assert len(str(clean)) <= 45_000


def test_the_schema_has_no_streamlit_in_it():
    import subprocess
    import sys

    code = ("import sys; from mlviz.dashboard import urls; urls.sanitize({'sel_rows': 'set:1', 'sb_structure': "
            "'chain:3', 'sel_edge': '0>1@sparse,0.5,0,1'}); print('streamlit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_an_expired_session_is_shut_down_and_emptied(monkeypatch):
    """Streamlit's reconnect store keeps an expired session until next touched and never shuts it down:
    the sweep reaps it, shuts it down and empties its state and fragments (a stand-in runtime here)."""
    from types import SimpleNamespace

    from streamlit.runtime import Runtime

    from mlviz.dashboard import sessions

    calls = []
    state, fragments = {"mlviz_uploads": {"upload:x:1": object()}}, {"f": object()}
    session = SimpleNamespace(shutdown=lambda: calls.append("shutdown"),
                              _session_state=SimpleNamespace(clear=state.clear),
                              _fragment_storage=SimpleNamespace(clear=fragments.clear))
    cache = SimpleNamespace(expire=lambda: [("rt-1", SimpleNamespace(session=session))])
    manager = SimpleNamespace(_session_storage=SimpleNamespace(_cache=cache), list_sessions=lambda: [])
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: SimpleNamespace(_session_mgr=manager)))
    assert sessions.reap_expired() == 1
    assert calls == ["shutdown"] and not state and not fragments
    assert sessions.alive_sessions() == set()
