"""A classroom under load (issue 28): one app server, N sessions at once, each following the guided tour.

One server is started as a user starts it (``streamlit run app.py`` headless on a free loopback port,
with the repository's ``.streamlit/config.toml``). ``--sessions`` clients (default 30) open it at
the same moment; each one

1. opens ``/?data=<set>&tour=1`` (Home, step 1 of the tour, a bundled data set),
2. on every tour page moves ``--moves`` sliders (a declared slider of that page, a value drawn from
   its options by a seeded random generator; a pause of ``--think`` seconds before each action),
3. presses the tour's *Next* button until the last step (Compare), where it presses *Run
   cross-validation* (``--no-cv``: not),

and records, per page visit, the time from the request to the **first figure** (the first plotly
chart of that page arrives) and to the **settled page** (the script run has finished, no progress
notice and no fast auto-rerun is left: every figure the page computes is drawn); per slider move,
the time from the change to the settled page with a figure redrawn after it (the **slider answer**;
work another panel had under way before the move, such as the UMAP layout, is not waited for). Any
exception box or error alert, a dropped connection or a page not settled within ``--timeout``
seconds counts as an error. The server's resident memory (the server process plus its children)
is sampled every 0.5 s; the peak is reported.

Why websocket clients and not 30 browsers
-----------------------------------------
On a 2-core machine 30 headless chromium tabs would each parse, lay out and render every plotly
figure: the browsers would take most of the CPU, and the benchmark would time the browsers and the
machine's scheduler rather than the server. The server only sees its websocket: each client here
speaks the browser's protocol on ``/_stcore/stream`` (protobuf ``BackMsg`` in, ``ForwardMsg`` out,
as Streamlit's frontend does): it sends ``rerun_script`` with the page, the query string and the
widget states (a slider move, a button's trigger, the fragment the widget lives in), runs the
fragments' ``auto_rerun`` timers as the browser does (the progress notices poll every 0.3 s this
way), keeps the element tree to tell stale elements from live ones, and asks for no cached
messages (the server sends every message in full). What the server computes and sends is then what
30 browsers would make it compute and send; what is not measured is the browsers' own drawing time
(one chromium draws a page of this dashboard in well under a second: tests/e2e). A browser would
also fetch the static JavaScript once per tab; that is served from files and not timed here.

Bounded and loopback-only: the server listens on 127.0.0.1, the clients connect there only, every
wait has a timeout, the run stops after ``--deadline`` seconds, incoming messages are capped at
64 MB.

Run (from the repository root)::

    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_classroom.py --sessions 30

``--sessions 3 --moves 1`` is a quick check. The script prints the percentiles and one JSON line
(``--json FILE`` writes every record).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
from _classroom_client import (  # (benchmarks/: the script's own folder)
    Tree,
    job_overlaps,
    rerun_message,
    slider_state,
    summary,
    trigger_state,
    with_param,
)

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
MAX_MESSAGE = 64 * 2**20
#: The tour's steps: (name, URL path of the page, URL keys of the sliders a student moves there).
TOUR = [
    ("data", "", ()),
    ("embedding", "Embedding", ("emb_mllem_alpha", "emb_mllem_k_instances")),
    ("graph", "Label_graph", ("cdn_gamma", "cdn_lam")),
    ("posteriors", "Posteriors", ("post_mllspc_lam", "post_mllspc_gamma")),
    ("comparison", "Compare", ()),
]


# ------------------------------------------------------------------ one student

class Student:
    """One browser session following the tour (see the module docstring)."""

    def __init__(self, number: int, url: str, data: str, args, t_start: float):
        self.number, self.url, self.data, self.args = number, url, data, args
        self.rng = random.Random(args.seed * 1000 + number)
        self.tree = Tree()
        self.query = f"data={data}&tour=1"
        self.records: list = []
        self.errors: list = []
        self.figures: list = []  # (time, page hash) of every figure received
        self.run_started = 0.0  # time the last script run started
        self.values: dict = {}  # widget id -> the value this client moved it to
        self.page_history: list = []  # (time, page hash) of every page change
        self.changed = asyncio.Event()
        self.timers: dict = {}
        self.ws = None
        self.t_start = t_start
        self.steps_done = 0
        self.finished = False

    # -- the socket
    async def send(self, **kw):
        kw.setdefault("query_string", self.query)
        kw.setdefault("page_script_hash", self.tree.page_script_hash)
        await self.ws.send(rerun_message(**kw))

    async def _timer(self, fragment_id, interval):
        while True:
            await asyncio.sleep(interval)
            await self.send(fragment_id=fragment_id, auto=True)

    def _sync_timers(self):
        for fid in [f for f in self.timers if f not in self.tree.auto_reruns]:
            self.timers.pop(fid).cancel()
        for fid, interval in self.tree.auto_reruns.items():
            if fid not in self.timers:
                self.timers[fid] = asyncio.ensure_future(self._timer(fid, interval))

    async def _receive(self):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        async for data in self.ws:
            msg = ForwardMsg()
            msg.ParseFromString(data)
            now = time.monotonic()
            for kind, detail in self.tree.apply(msg):
                if kind == "run":
                    self.run_started = now
                elif kind == "figure":
                    self.figures.append((now, self.tree.page_script_hash))
                elif kind == "error":
                    self.errors.append(detail)
                elif kind == "query":
                    self.query = detail
                elif kind == "page":
                    self.page_history.append((round(now - self.t_start, 2), detail[:8]))
            self._sync_timers()
            self.changed.set()

    async def _until(self, predicate, deadline):
        while True:
            if predicate():
                return True
            if time.monotonic() >= deadline:
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=max(0.01, min(1.0, deadline - time.monotonic())))
            except asyncio.TimeoutError:
                pass

    # -- one action and its answer
    async def act(self, record: dict, send, page: str | None = None, figure: bool = True, panel: bool = False) -> bool:
        """Send (``send()``) and wait for the answer; append ``record`` with ``first_figure`` (s to the
        first figure of ``page``, or of any page) and ``settled`` (s to the settled page -- with a figure
        drawn after the request if ``figure``; None if not within ``--timeout``). ``panel``: work
        already under way before the request (another panel's progress notice, e.g. the UMAP layout
        while a slider of the map moves) does not count, unless the request changed its settings."""
        before = set(self.tree.notice_work()) if panel else set()
        t0 = time.monotonic()
        deadline = t0 + self.args.timeout
        await send()
        # (the page hashes come with the navigation messages; read them at each look: a fresh session's
        # first message names the entrypoint's pages, st.navigation's own comes next)
        on_page = (lambda: True) if page is None else (lambda: self.tree.page_script_hash == self.tree.pages.get(page))
        ok = await self._until(lambda: on_page() and self.run_started >= t0 and not self.tree.busy(ignore=before)
                               and (not figure or any(t >= t0 for t, _ in self.figures)), deadline)
        target = None if page is None else self.tree.pages.get(page)
        firsts = [t for t, h in self.figures if t >= t0 and (page is None or h == target)]
        if not ok:
            t = self.tree
            self.errors.append(f"{record} not settled within {self.args.timeout:g} s: on page {on_page()}, run "
                               f"started {self.run_started >= t0}, running {t.running}, notices {t.notices()}, "
                               f"timers {sorted(t.auto_reruns.values())}, figures {t.figures()}, page "
                               f"{t.page_script_hash[:8]} (wanted {str(target)[:8]}; pages "
                               f"{ {k: v[:6] for k, v in t.pages.items()} }; history {self.page_history[-4:]})")
        record.update(session=self.number, first_figure=(min(firsts) - t0) if firsts else None,
                      settled=(time.monotonic() - t0) if ok else None, t=round(t0 - self.t_start, 2))
        self.records.append(record)
        return ok

    async def think(self):
        await asyncio.sleep(self.rng.uniform(*self.args.think))

    async def move(self, step: str, key: str) -> bool:
        """Move the slider ``key`` of this page to another of its values (absent: nothing to do)."""
        node = self.tree.widgets("slider").get(key)
        state = None if node is None else slider_state(node.element, self.rng, self.values.get(node.element.id))
        if state is None:
            return True
        await self.think()
        value = list(state.string_array_value.data) or list(state.double_array_value.data)
        self.values[node.element.id] = value[0]
        if node.element.query_param_key:  # (the browser writes a bound control's value into its address)
            self.query = with_param(self.query, node.element.query_param_key, value[0])
        return await self.act(dict(kind="slider", step=step, slider=key, value=value),
                              lambda: self.send(widgets=[state], fragment_id=node.fragment_id), panel=True)

    async def click(self, key: str):
        node = self.tree.widgets("button").get(key)
        if node is None:
            self.errors.append(f"no button {key} on the page")
            return
        await self.send(widgets=[trigger_state(node.element)], fragment_id=node.fragment_id)

    async def tour(self) -> bool:
        ok = await self.act(dict(kind="visit", step=TOUR[0][0]), lambda: self.send(page_name=TOUR[0][1]),
                            page=TOUR[0][1], figure=False)
        for i, (step, _, sliders) in enumerate(TOUR):
            if not ok:
                return False
            for key in sliders[: self.args.moves]:
                ok = ok and await self.move(step, key)
            self.steps_done = i + 1
            if not ok or i + 1 == len(TOUR):
                break
            await self.think()
            ok = await self.act(dict(kind="visit", step=TOUR[i + 1][0]), lambda: self.click("tour_next"),
                                page=TOUR[i + 1][1], figure=False)  # (Compare draws none before its run)
        if ok and self.args.cv:
            await self.think()
            ok = await self.act(dict(kind="cross-validation", step=TOUR[-1][0]), lambda: self.click("cmp_run"))
        return ok

    async def run(self):
        import websockets

        await asyncio.sleep(self.rng.uniform(0, self.args.spread))
        ws_url = self.url.replace("http://", "ws://", 1) + "/_stcore/stream"
        try:
            async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=MAX_MESSAGE,
                                          open_timeout=self.args.timeout, ping_interval=None) as ws:
                self.ws = ws
                receiver = asyncio.ensure_future(self._receive())
                try:
                    self.finished = await self.tour()
                finally:
                    for t in self.timers.values():
                        t.cancel()
                    receiver.cancel()
        except Exception as exc:  # noqa: BLE001 - a lost connection is a result, not a crash of the benchmark
            self.errors.append(f"connection: {type(exc).__name__}: {exc}"[:300])


# ------------------------------------------------------------------ the server

def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_server(root: Path, log: Path, env_extra: dict | None = None):
    """``streamlit run app.py`` on a free loopback port (the checkout's ``.streamlit/config.toml``
    applies: it is read from the working directory); returns ``(process, url)`` once healthy."""
    port = free_port()
    streamlit = Path(sys.executable).with_name("streamlit")
    cmd = [str(streamlit) if streamlit.exists() else shutil.which("streamlit"), "run", "app.py",
           "--server.headless", "true", "--server.address", HOST, "--server.port", str(port),
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"), PYTHONPATH=str(root),
               **(env_extra or {}))
    proc = subprocess.Popen(cmd, cwd=root, stdout=open(log, "wb"), stderr=subprocess.STDOUT, env=env)
    url = f"http://{HOST}:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(log.read_text(errors="replace")[-2000:])
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the server did not become healthy within 120 s")


def _proc_rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _proc_children(pid: int) -> list:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    kids = [int(c) for c in fh.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and all its children (the upload parse worker, job children), in MB
    (psutil when installed, else ``/proc``)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        p = psutil.Process(pid)
        total = p.memory_info().rss
        for c in p.children(recursive=True):
            try:
                total += c.memory_info().rss
            except psutil.Error:
                pass
        return total / 2**20
    total = _proc_rss(pid)
    for c in _proc_children(pid):
        try:
            total += _proc_rss(c)
        except OSError:
            pass
    return total / 2**20


class MemorySampler(threading.Thread):
    """Samples :func:`rss_mb` of the server and the load average every ``every`` s."""

    def __init__(self, pid: int, every: float = 0.5):
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.samples: list = []
        self.loads: list = []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                self.samples.append(rss_mb(self.pid))
            except Exception:  # noqa: BLE001 - the server ended
                break
            self.loads.append(os.getloadavg()[0])
            self.stop.wait(self.every)


# ------------------------------------------------------------------ the class

async def classroom(url: str, args) -> list:
    t_start = time.monotonic()
    data = [d.strip() for d in args.data.split(",") if d.strip()]
    students = [Student(i, url, data[i % len(data)], args, t_start) for i in range(args.sessions)]
    tasks = [asyncio.ensure_future(s.run()) for s in students]
    _, pending = await asyncio.wait(tasks, timeout=args.deadline)
    for s, t in zip(students, tasks):
        if t in pending:
            t.cancel()
            s.errors.append(f"not finished within --deadline {args.deadline:g} s")
    return students


async def _first_page(student):
    import websockets

    ws_url = student.url.replace("http://", "ws://", 1) + "/_stcore/stream"
    async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=MAX_MESSAGE,
                                  open_timeout=student.args.timeout) as ws:
        student.ws = ws
        receiver = asyncio.ensure_future(student._receive())
        try:
            await student.act(dict(kind="warm-up", step=TOUR[0][0]), lambda: student.send(page_name=TOUR[0][1]),
                              page=TOUR[0][1], figure=False)
        finally:
            for t in student.timers.values():
                t.cancel()
            receiver.cancel()


def report(students, memory, loads, args, seconds) -> dict:
    records = [r for s in students for r in s.records]
    visits = [r for r in records if r["kind"] == "visit"]
    sliders = [r for r in records if r["kind"] == "slider"]
    cv = [r for r in records if r["kind"] == "cross-validation"]
    out = dict(
        sessions=len(students), finished=sum(s.finished for s in students),
        errors=sum(len(s.errors) for s in students),
        unanswered=sum(r["settled"] is None for r in records),
        first_figure=summary(r["first_figure"] for r in visits),
        page_settled=summary(r["settled"] for r in visits),
        slider_answer=summary(r["settled"] for r in sliders),
        cross_validation=summary(r["settled"] for r in cv),
        per_step={step: summary(r["first_figure"] for r in visits if r["step"] == step) for step, _, _ in TOUR},
        settled_per_step={step: summary(r["settled"] for r in visits if r["step"] == step) for step, _, _ in TOUR},
        memory_mb=dict(start=memory[0] if memory else None, peak=max(memory) if memory else None,
                       end=memory[-1] if memory else None),
        load_average=dict(start=loads[0] if loads else None, max=max(loads) if loads else None,
                          mean=float(np.mean(loads)) if loads else None),
        seconds=round(seconds, 1), cpus=os.cpu_count(),
        args=dict(sessions=args.sessions, moves=args.moves, data=args.data, cv=args.cv, think=args.think,
                  spread=args.spread, seed=args.seed),
    )
    return out


def _fmt(s: dict) -> str:
    if not s["n"]:
        return "n=0"
    return f"n={s['n']:3d}  median {s['median']:6.2f} s  p95 {s['p95']:6.2f} s  max {s['max']:6.2f} s"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--moves", type=int, default=2, help="sliders moved per tour page (at most 2)")
    ap.add_argument("--data", default="emotions", help="bundled data set(s), comma-separated (round robin)")
    ap.add_argument("--no-cv", dest="cv", action="store_false", help="do not press Run cross-validation")
    ap.add_argument("--think", type=float, nargs=2, default=(0.5, 2.0), metavar=("MIN", "MAX"),
                    help="seconds a student pauses before an action (uniform)")
    ap.add_argument("--spread", type=float, default=1.0, help="the sessions open within this many seconds")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds an action may take to settle")
    ap.add_argument("--deadline", type=float, default=900.0, help="seconds the whole class may take")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cold", dest="warm", action="store_false",
                    help="no warm-up session: the class opens the freshly started server (imports, first load)")
    ap.add_argument("--root", type=Path, default=ROOT, help="checkout whose app.py is served")
    ap.add_argument("--url", default=None, help=f"an already running server on {HOST} (no server is started)")
    ap.add_argument("--json", type=Path, default=None, help="write the summary and every record here")
    args = ap.parse_args(argv)
    if args.sessions < 1 or args.sessions > 200:
        ap.error("--sessions must be 1..200")

    tmp = Path(tempfile.mkdtemp(prefix="mlviz-classroom-"))
    proc = None
    if args.url:
        if not args.url.startswith(f"http://{HOST}:"):
            ap.error(f"--url must be a loopback address http://{HOST}:<port>")
        url, pid = args.url.rstrip("/"), None
    else:
        proc, url = start_server(args.root, tmp / "server.log", {"MLVIZ_JOB_LOG": str(tmp / "jobs.log")})
        pid = proc.pid
    sampler = MemorySampler(pid) if pid else None
    try:
        if sampler:
            sampler.start()
        if args.warm:  # the teacher opened the app once: imports and the data set are loaded
            warm = argparse.Namespace(**{**vars(args), "sessions": 1, "moves": 0, "cv": False, "spread": 0.0})
            warm_student = Student(-1, url, args.data.split(",")[0].strip(), warm, time.monotonic())
            asyncio.run(_first_page(warm_student))
            print(f"warm-up: first figure {warm_student.records[0]['first_figure']} s, settled "
                  f"{warm_student.records[0]['settled']} s (one session on the fresh server, not counted)")
            for e in warm_student.errors[:3]:
                print(f"  warm-up: {e}")
        t0 = time.monotonic()
        students = asyncio.run(classroom(url, args))
        seconds = time.monotonic() - t0
    finally:
        if sampler:
            sampler.stop.set()
            sampler.join(5)
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
    out = report(students, sampler.samples if sampler else [], sampler.loads if sampler else [], args, seconds)
    log = tmp / "jobs.log"
    out["jobs"] = job_overlaps(log.read_text(encoding="utf-8").splitlines()) if log.exists() else None
    print(f"{out['sessions']} sessions, {out['finished']} finished the tour, {out['errors']} errors, "
          f"{out['unanswered']} actions unanswered, {out['seconds']} s, load average max "
          f"{out['load_average']['max']}")
    print(f"first figure per page visit   {_fmt(out['first_figure'])}")
    print(f"settled page per visit        {_fmt(out['page_settled'])}")
    for step, _, _ in TOUR:
        print(f"  {step:<11} first figure  {_fmt(out['per_step'][step])}")
        print(f"  {step:<11} settled       {_fmt(out['settled_per_step'][step])}")
    print(f"slider answer                 {_fmt(out['slider_answer'])}")
    print(f"cross-validation (run→table)  {_fmt(out['cross_validation'])}")
    print(f"server memory (MB)            {out['memory_mb']}")
    if out["jobs"]:
        j = out["jobs"]
        print(f"jobs: {j['started']} started, {j['keys']} distinct keys, computed twice at the same time: "
              f"{len(j['concurrent_duplicates'])} {j['concurrent_duplicates'][:5]}")
    for s in students:
        for e in s.errors[:3]:
            print(f"  session {s.number}: {e}")
    print(json.dumps(out))
    if args.json:
        args.json.write_text(json.dumps(dict(summary=out, records=[r for s in students for r in s.records],
                                             errors={s.number: s.errors for s in students if s.errors}), indent=1))
    return out


if __name__ == "__main__":
    main()
