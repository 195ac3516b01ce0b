"""The pieces of a Streamlit websocket client (the browser's side of ``/_stcore/stream``) and of the
classroom benchmark's bookkeeping, for ``benchmarks/bench_classroom.py``; unit-tested in
``tests/test_bench_classroom.py`` on hand-built protocol messages.

A client sends ``BackMsg`` protobufs (:func:`rerun_message`: the page, the query string, widget
states, the fragment to rerun) and keeps what the server sends (``ForwardMsg``) in a :class:`Tree`,
as the browser keeps its page: elements by delta path, stale ones removed at the end of a run, the
fragments' ``auto_rerun`` timers, the navigation's pages.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

#: A progress notice of the dashboard (mlviz.dashboard.progress._notice) says this while its job runs.
NOTICE_TEXT = "The page updates by itself when it is done"
#: Auto-reruns at most this often mean work under way (progress notices: 0.3 s, partial paths: 1 s);
#: the tour panel's 2 s poll only refreshes its text.
BUSY_INTERVAL = 1.0
def rerun_message(query_string: str = "", page_name: str = "", page_script_hash: str = "", widgets=(),
                  fragment_id: str = "", auto: bool = False) -> bytes:
    """The bytes of a ``BackMsg`` asking for a script run, as the browser sends it.

    Parameters
    ----------
    query_string : str
        The address's query (without ``?``).
    page_name : str
        The page's URL path (``"Embedding"``; ``""``: the home page), used while its hash is unknown.
    page_script_hash : str
        The page's hash (from ``new_session``/``navigation``) once known.
    widgets : iterable of streamlit.proto.WidgetStates_pb2.WidgetState
        The widget values the browser holds (a slider's new value, a button's trigger).
    fragment_id : str
        The fragment to rerun (a widget inside a fragment, or a fragment's ``auto_rerun`` timer).
    auto : bool
        An ``auto_rerun`` timer's request.
    """
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    rs = msg.rerun_script
    rs.query_string = query_string
    rs.page_name = page_name
    rs.page_script_hash = page_script_hash
    rs.fragment_id = fragment_id
    rs.is_auto_rerun = bool(auto)
    rs.widget_states.SetInParent()
    for w in widgets:
        rs.widget_states.widgets.append(w)
    return msg.SerializeToString()


def slider_value(element, known=None):
    """The value a browser shows on the slider ``element`` (a ``Slider`` proto): the one the server set
    (``set_value``), else the one this client moved it to (``known``), else the default. A select
    slider's value is its option label, a numeric slider's a float."""
    from streamlit.proto.Slider_pb2 import Slider

    select = element.type == Slider.SELECT_SLIDER or len(element.options) > 0
    if element.set_value:
        values = list(element.raw_value) if select else list(element.value)
        if values:
            return values[0] if select else float(values[0])
    if known is not None:
        return known
    if not element.default:
        return None
    i = element.default[0]
    return (element.options[int(i)] if 0 <= int(i) < len(element.options) else None) if select else float(i)


def slider_state(element, rng: random.Random, known=None):
    """A ``WidgetState`` moving the slider ``element`` (a ``Slider`` proto) from its value
    (:func:`slider_value`) to another one drawn by ``rng``: a select slider's option label
    (``string_array_value``), or a number of a numeric slider's range on its step
    (``double_array_value``). None when the slider has one value only."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState(id=element.id)
    current = slider_value(element, known)
    if len(element.options):
        choices = [o for o in element.options if o != current]
        if not choices:
            return None
        state.string_array_value.data.append(rng.choice(choices))
        return state
    n_steps = int(round((element.max - element.min) / element.step)) if element.step > 0 else 0
    values = [element.min + k * element.step for k in range(n_steps + 1)]
    choices = [v for v in values if current is None or abs(v - current) > 1e-9 * max(1.0, abs(v))]
    if not choices:
        return None
    state.double_array_value.data.append(float(f"{rng.choice(choices):.10g}"))
    return state


def with_param(query: str, key: str, value) -> str:
    """``query`` with ``key`` set to ``value`` (a number as Streamlit writes it: ``5`` for 5.0)."""
    from urllib.parse import parse_qsl, urlencode

    if isinstance(value, float) and value.is_integer():
        value = int(value)
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != key]
    return urlencode([*pairs, (key, str(value))])


def trigger_state(element):
    """The ``WidgetState`` of a click on the button ``element``."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    return WidgetState(id=element.id, trigger_value=True)


def widget_key(element_id: str) -> str:
    """The user key in a widget id (``$$ID-<hash>-<key>``), or ``""``."""
    parts = element_id.split("-", 2)
    return parts[2] if len(parts) == 3 and parts[0] == "$$ID" else ""


@dataclass
class Node:
    """One element of the page as the browser holds it."""

    kind: str
    element: object
    fragment_id: str
    run_id: str


@dataclass
class Tree:
    """The element tree of one browser tab, updated from ``ForwardMsg`` s as the frontend does:
    elements are replaced by path; at the end of a run the elements that run did not send again are
    removed (all of them after a full run, those of the rerun fragments after a fragment run)."""

    nodes: dict = field(default_factory=dict)
    run_id: str = ""
    fragments: tuple = ()
    page_script_hash: str = ""
    running: bool = False
    auto_reruns: dict = field(default_factory=dict)  # fragment id -> interval (s)
    pages: dict = field(default_factory=dict)  # URL path of a page -> its script hash (navigation)
    timers_this_run: set = field(default_factory=set)  # auto-rerun fragments registered since the last full run began

    def apply(self, msg) -> list:
        """Apply one ``ForwardMsg``; returns events ``(kind, detail)``: ``("run", fragment ids)``,
        ``("figure", path)``, ``("error", text)``, ``("finished", status)``, ``("auto_rerun", (fragment
        id, interval))``, ``("stop_auto_rerun", ids)``, ``("query", query string)``, ``("page", hash)``."""
        kind = msg.WhichOneof("type")
        events = []
        if kind == "new_session":
            self.run_id = msg.metadata.run.script_run_id
            self.fragments = tuple(msg.metadata.run.fragment_ids)
            self.running = True
            events.append(("run", self.fragments))
            if not self.fragments:  # (a full run registers its fragments' timers again: see script_finished)
                self.timers_this_run = set()
        elif kind == "delta":
            delta = msg.delta
            path = tuple(msg.metadata.delta_path)
            which = delta.WhichOneof("type")
            if which == "new_element":
                el = delta.new_element
                ekind = el.WhichOneof("type")
                self._drop_below(path)
                self.nodes[path] = Node(ekind, getattr(el, ekind), delta.fragment_id, self.run_id)
                if ekind == "plotly_chart":
                    events.append(("figure", path))
                elif ekind == "exception":
                    events.append(("error", f"{el.exception.type}: {el.exception.message}"[:300]))
                elif ekind == "alert" and el.alert.format == el.alert.ERROR:
                    events.append(("error", el.alert.body[:300]))
            elif which == "add_block":
                self.nodes[path] = Node("block", None, delta.fragment_id, self.run_id)
        elif kind == "script_finished":
            status = msg.script_finished
            if status != msg.FINISHED_EARLY_FOR_RERUN:
                self._prune()
            if status == msg.FINISHED_SUCCESSFULLY and not self.fragments:  # (timers of fragments this
                # full run did not register are gone; a run ended early keeps the page and its timers)
                self.auto_reruns = {k: v for k, v in self.auto_reruns.items() if k in self.timers_this_run}
            self.running = False
            events.append(("finished", int(status)))
        elif kind == "auto_rerun":
            self.auto_reruns[msg.auto_rerun.fragment_id] = float(msg.auto_rerun.interval)
            self.timers_this_run.add(msg.auto_rerun.fragment_id)
            events.append(("auto_rerun", (msg.auto_rerun.fragment_id, float(msg.auto_rerun.interval))))
        elif kind == "stop_auto_rerun":
            ids = tuple(msg.stop_auto_rerun.fragment_ids)
            for i in ids:
                self.auto_reruns.pop(i, None)
            events.append(("stop_auto_rerun", ids))
        elif kind == "page_info_changed":
            events.append(("query", msg.page_info_changed.query_string))
        elif kind == "navigation":  # (st.navigation: the page shown; new_session names the entrypoint)
            self.pages.update({p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages})
            if msg.navigation.page_script_hash != self.page_script_hash:
                events.append(("page", msg.navigation.page_script_hash))
            self.page_script_hash = msg.navigation.page_script_hash
        return events

    def _drop_below(self, path):
        n = len(path)
        for p in [p for p in self.nodes if len(p) > n and p[:n] == path]:
            del self.nodes[p]

    def _prune(self):
        if not self.fragments:
            stale = [p for p, node in self.nodes.items() if node.run_id != self.run_id]
        else:
            stale = [p for p, node in self.nodes.items()
                     if node.fragment_id in self.fragments and node.run_id != self.run_id]
        for p in stale:
            del self.nodes[p]

    # -- what the page shows
    def figures(self) -> int:
        return sum(node.kind == "plotly_chart" for node in self.nodes.values())

    def notices(self) -> int:
        return len(self.notice_work())

    def notice_work(self) -> dict:
        """``{work: fragment id}`` of the progress notices shown: the work is the notice's first words,
        what runs and at which settings (``**Embedding with MLLEM** at k = 20, …``)."""
        return {node.element.body.split(": ", 1)[0]: node.fragment_id for node in self.nodes.values()
                if node.kind == "alert" and NOTICE_TEXT in node.element.body}

    def busy(self, ignore=()) -> bool:
        """Work under way: a run, a progress notice, or a fast auto-rerun timer -- except the notices
        of the work named in ``ignore`` (work that was already under way before, e.g. another panel's)
        and their notices' timers."""
        work = self.notice_work()
        skip = {fid for w, fid in work.items() if w in ignore}
        return (self.running or any(w not in ignore for w in work)
                or any(v <= BUSY_INTERVAL for f, v in self.auto_reruns.items() if f not in skip))

    def widgets(self, kind: str) -> dict:
        """``{user key: Node}`` of the live widgets of ``kind`` (``"slider"``, ``"button"``)."""
        out = {}
        for node in self.nodes.values():
            if node.kind == kind and getattr(node.element, "id", ""):
                out[widget_key(node.element.id)] = node
        return out


def summary(values) -> dict:
    """``n``, median, 95th percentile (linear interpolation, numpy's default) and maximum of ``values``."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    if not len(x):
        return dict(n=0, median=None, p95=None, max=None)
    return dict(n=int(len(x)), median=float(np.median(x)), p95=float(np.percentile(x, 95)), max=float(x.max()))



def job_overlaps(lines) -> dict:
    """From the runner's job log (``MLVIZ_JOB_LOG``, :mod:`mlviz.dashboard.jobs`): jobs started, distinct
    keys, and keys computed twice **at the same time** (two runs of one key overlapping: the runner
    should have shared one job; a key started again after its run was cancelled or evicted is not
    counted)."""
    runs, open_ = {}, {}
    for line in lines:
        parts = line.split(maxsplit=5)
        if len(parts) < 6:
            continue
        t, event, key = float(parts[0]), parts[1], parts[5].strip()
        if event == "start":
            open_.setdefault(key, []).append(t)
        elif event in ("end", "cancel", "failed") and open_.get(key):
            runs.setdefault(key, []).append((open_[key].pop(0), t))
    for key, starts in open_.items():  # (still running at the end)
        runs.setdefault(key, []).extend((t, float("inf")) for t in starts)
    twice = sorted(key for key, spans in runs.items()
                   if any(a2 < b1 for (a1, b1), (a2, _) in zip(sorted(spans), sorted(spans)[1:])))
    return dict(started=sum(len(v) for v in runs.values()), keys=len(runs), concurrent_duplicates=twice)
