"""What a user waits for in a real browser after uploading a large many-label Mulan file (issue 16).

A synthetic data set is written as Mulan ARFF (sparse rows when ``X`` is sparse) + XML into a
temporary directory, uploaded through the Home page's form of ``streamlit run app.py`` (the app's
default ``compute.WAIT``; ``MLVIZ_WAIT`` is removed from the server's environment) in Debian's
chromium at 1600 × 1000, and every page is then opened through the sidebar.  Printed, one row per
line as measured, then a summary table:

* upload: the file sizes; seconds from clicking "Load uploaded data" until Home shows the data set's
  name and its figures and has settled;
* per page (the Label graph and Compare last: their background work would slow the others down):
  seconds from the sidebar click until (a) the page's first plotly figure is drawn (a
  ``.js-plotly-plot`` with ``_fullLayout`` that is neither stale nor one of the previous page's),
  (b) the page has settled (:func:`test_scale_browser.settle`: the script idle, no "updates by
  itself" / "being computed" notice, figures and text unchanged; the time is when that state was
  first seen, 0.5 s resolution) and (c) the page's main figure is drawn (:data:`MAIN`: on the
  Label graph the learned graph, a figure titled /Sparse CDN label graph/; on Embedding the
  MLLEM map, not the UpSet or PCA figures beside it);
* per page: the most label names written on one figure, whether the page says how to see the
  others, Streamlit exception elements and error boxes, an "expect minutes" gate, and the browser
  test's check of the drawn SVG (:func:`test_scale_browser.svg_text_problems`, one implementation):
  texts overlapping each other or a figure's title (rotated texts as the rectangles they occupy),
  texts cut off at a figure's edge, raw HTML entities or markup shown as characters (counted and
  listed, not asserted);
* one keyboard slider move per page (focus the thumb, press an arrow key): seconds until settled; on
  Compare also "Run cross-validation" with its default methods (seconds to its first figure
  and until settled, beside the page's own estimate; cancelled after ``--run-timeout`` s);
* peak resident memory of the server (its process and children, sampled every 0.5 s).

Every page of :data:`mlviz.dashboard.pages.PAGES` is visited, the Reference check too (it runs on the
bundled benchmark sets only: for an upload it says so and offers those, so it draws no figure there).
With ``--screenshots DIR`` one screenshot per page (``<shape>_<i>_<page>.png``: the viewport, Streamlit
scrolls inside it) and one per figure (``<shape>_<i>_<page>_fig<k>.png``) are saved there (give a
directory outside the repository).

Shapes: ``delicious`` (default; :func:`bench_pages_scale.delicious_983`, 16,105 × 500 sparse, 983
labels), ``bibtex`` (:func:`bench_pages_scale.sparse_159`, 7,000 × 1,836 sparse, 159 labels),
``cal500`` (:func:`test_scale_browser.many_label_mulan`, 500 × 40 dense, 174 labels); label names
are words of varied length with a number (``female_vocal_017``), as in the browser test.

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_browser_scale.py [--shape cal500] \\
        [--screenshots DIR] [--graph-timeout 780] [--run-timeout 300]

(``--shape delicious``: ~15-30 min, most of it the Label graph's sparse CDN fit.)
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests" / "e2e")]

import pytest  # noqa: E402  (settle() fails through pytest.fail: caught as pytest.fail.Exception)
from conftest import launch_chromium, serve  # noqa: E402
from test_scale_browser import (  # noqa: E402
    HOW_TO_SEE,
    MAX_NAMES,
    NAMES_PER_PLOT,
    PAGES,
    SVG_TEXTS,
    WORDS,
    assert_no_exception,
    attach_upload,
    load_upload,
    many_label_mulan,
    settle,
    svg_text_problems,
)

from mlviz.dashboard.pages import PAGES as REGISTERED  # noqa: E402

WIDTH, HEIGHT = 1600, 1000
# one keyboard move per page: (slider label, key pressed), or (button name, "click")
MOVES = {
    "embedding": [("How many", "ArrowRight")],  # (labels_k is shared by the pages: moved back, untimed)
    "label_graph": [("Edges drawn at most", "ArrowRight"), ("γ / γ_max", "ArrowRight")],
    "posteriors": [("Test instances drawn", "ArrowLeft")],
    "compare": [("Folds", "ArrowLeft"), ("Run cross-validation", "click")],
    "sandbox": [("γ / γ_max", "ArrowLeft")],
    "decision_rules": [("Threshold t", "ArrowRight")],
}
#: the page's main figure: a (lower-case) part of its title (the first figure drawn may be another)
MAIN = {"embedding": "mllem joint embedding", "label_graph": "sparse cdn label graph",
        "posteriors": "p(y=1|x) beside the truth", "sandbox": "against the planted graph",
        "decision_rules": "every measure against"}
SHARED = {"How many": "ArrowLeft"}  # sliders shared by the pages, and the key that moves them back
# the drawn, non-stale figures that were not there before the click
NEW_FIGURES = """() => {
    const old = window.__mlvizOld || new WeakSet();
    return [...document.querySelectorAll('.js-plotly-plot')]
        .filter(d => d._fullLayout && !old.has(d._fullLayout) && !d.closest("[data-stale='true']"))
        .map(d => d.layout && d.layout.title ? String(d.layout.title.text || d.layout.title) : '');
}"""
MARK_OLD = """() => { window.__mlvizOld = new WeakSet([...document.querySelectorAll('.js-plotly-plot')]
    .map(d => d._fullLayout).filter(Boolean)); }"""


# ------------------------------------------------------------------ data
def varied_names(L):
    """Label names of varied length, as the browser test writes them (``female_vocal_017``)."""
    return [f"{WORDS[j % len(WORDS)]}_{j:03d}" for j in range(L)]


def write_shape(shape, directory):
    """Write the shape's Mulan ARFF + XML into ``directory``; return (arff, xml, label names, data set name)."""
    if shape == "cal500":
        arff, xml, names = many_label_mulan(directory)
        return arff, xml, names, "scale174"
    from bench_pages_scale import delicious_983, sparse_159

    from mlviz.data import MultiLabelDataset, save_arff

    ds = delicious_983() if shape == "delicious" else sparse_159()
    names = varied_names(ds.n_labels)
    ds = MultiLabelDataset(ds.X, ds.Y, label_names=names, name=ds.name)
    arff, xml = Path(directory) / f"{ds.name}.arff", Path(directory) / f"{ds.name}.xml"
    save_arff(ds, arff, xml_path=xml)
    return arff, xml, names, ds.name


# ------------------------------------------------------------------ memory
class PeakRSS(threading.Thread):
    """Sample the resident memory of a process and its children every ``every`` s; ``peak`` in MB."""

    def __init__(self, pid, every=0.5):
        super().__init__(daemon=True)
        import psutil

        self.proc, self.every, self.peak, self.stop = psutil.Process(pid), every, 0.0, threading.Event()
        self.where = "start"  # what the benchmark is doing (set by Rows.add and run())
        self.peak_where = ""  # what it was doing at the peak, and the server's own share of the peak

    def now(self, parts=False):
        import psutil

        sizes = []
        try:
            procs = [self.proc] + self.proc.children(recursive=True)
        except psutil.Error:
            return (float("nan"), []) if parts else float("nan")
        for p in procs:
            try:
                sizes.append(p.memory_info().rss / 2 ** 20)
            except psutil.Error:
                pass
        return (sum(sizes), sizes) if parts else sum(sizes)

    def run(self):
        while not self.stop.is_set():
            try:
                total, sizes = self.now(parts=True)
            except Exception:  # the server has gone
                return
            if total > self.peak:
                self.peak = total
                self.peak_where = (f"{self.where}; server {sizes[0]:.0f} MB + {len(sizes) - 1} child "
                                   f"process(es) {total - sizes[0]:.0f} MB" if sizes else self.where)
            self.stop.wait(self.every)


# ------------------------------------------------------------------ measuring
class Rows(list):
    """Rows printed as they are measured."""

    def __init__(self, shape, rss):
        super().__init__()
        self.shape, self.rss = shape, rss

    def add(self, page, what, value, note=""):
        self.append((page, what, value, note))
        self.rss.where = f"after {page}: {what}"
        v = f"{value:9.2f}" if isinstance(value, float) else f"{value!s:>9}"
        print(f"{self.shape:<9} {page:<14} {what:<44} {v}  rss {self.rss.now():6.0f} MB  {note}", flush=True)


def wait_figures(page, t0, timeout, main=None, slug="", stop_when_idle=True):
    """Poll (every 0.1 s) until a new figure is drawn and, with ``main`` (part of a title), the page's main
    figure too, or (``stop_when_idle``) until the page is idle with no notice; return (seconds to the first
    figure, seconds to the main figure) or None each.  The page counts as idle only once the address is the
    new page's (``slug``): a page switch can take more than a second under load, and the previous page is idle
    meanwhile."""
    first = main_at = None
    idle_polls = 0
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        titles = page.evaluate(NEW_FIGURES)
        now = time.monotonic() - t0
        if titles and first is None:
            first = now
        if main and main_at is None and any(main in t.lower() for t in titles):
            main_at = now
        if first is not None and (main_at is not None or not main):
            break
        idle = page.evaluate("""(slug) => { const m = document.querySelector("[data-testid='stMain']");
            return location.pathname.toLowerCase().endsWith(slug)
                   && !!document.querySelector("[data-testid='stApp'][data-test-script-state='notRunning']")
                   && !/updates by itself|being computed/.test(m ? m.innerText : ''); }""", slug.lower())
        idle_polls = idle_polls + 1 if idle else 0
        if stop_when_idle and idle_polls >= 3 and now > 1:  # idle, no notice for 0.2 s, not drawn: settle() takes over
            break
        page.wait_for_timeout(100)
    return first, main_at


def timed_settle(page, t0, timeout):
    try:
        return settle(page, timeout) - t0, ""
    except pytest.fail.Exception as e:
        return float("nan"), f"NEVER SETTLED: {str(e)[:200]}"


def checks(page, names):
    """Legibility and errors of the page as it stands."""
    text = page.locator("[data-testid='stMain']").inner_text()
    try:
        assert_no_exception(page)
        exc = ""
    except AssertionError as e:
        exc = str(e).splitlines()[0][:200] if str(e) else "exception"
    counts = page.evaluate(NAMES_PER_PLOT, names)
    most = max(counts, key=lambda c: c[1], default=("", 0))
    partial = any(0 < k < len(names) for _, k in counts)
    problems = svg_text_problems(page.evaluate(SVG_TEXTS))  # (the browser test's check: one implementation)
    clipped = [(fig, text) for kind, fig, text in problems if kind == "cut off"]
    errors = page.locator("[data-testid='stAlertContentError']").all_inner_texts()
    return {"errors": [e.strip()[:200] for e in errors], "clipped": clipped, "names": most[1], "names_fig": most[0],
            "overlaps": [p for p in problems if p[0] in ("overlap", "title overlap")],
            "raw": [p for p in problems if p[0] == "raw text"],
            "how_to_see": (bool(HOW_TO_SEE.search(text)) if partial else None),
            "exception": exc, "gate": "expect minutes" in text.lower(), "figures": len(counts)}


def press(page, name, timeout):
    """Click the button ``name``; return (seconds to settled, note with the seconds to its first new figure)."""
    button = page.get_by_role("button", name=name)
    if not button.count():
        return None, "button not on the page"
    said = re.search(r"Expected time[^\n]*|This run will take long[^\n]*",
                     page.locator("[data-testid='stMain']").inner_text())
    page.evaluate(MARK_OLD)
    t0 = time.monotonic()
    button.first.click()
    # a run draws its first fold's figures after tens of seconds; between the fragment's reruns the
    # page can look idle without a notice (two runs measured no figure that way), so wait for a figure
    first, _ = wait_figures(page, t0, timeout, stop_when_idle=False)
    dt, note = timed_settle(page, t0, max(timeout - (time.monotonic() - t0), 1))
    if dt != dt:  # not done: cancel it (it would slow down what is measured next)
        cancel = page.get_by_role("button", name="Cancel")
        if cancel.count():
            cancel.first.click()
            note += "; cancelled"
    errors = page.locator("[data-testid='stAlertContentError']").all_inner_texts()
    if first is None:  # what the page shows below the button instead
        text = page.locator("[data-testid='stMain']").inner_text()
        note += f"; no new figure, the page shows: {text[text.find(name) + len(name):][:240]!r}"
    return dt, (f"first new figure {_fmt(first)} s" + (f"; the page said: {said.group(0)[:160]!r}" if said else "")
                + (f"; {note}" if note else "") + (f"; ERROR SHOWN: {errors[0].strip()[:200]!r}" if errors else ""))


def move(page, label, key, timeout, run_timeout=None):
    """Press ``key`` on the thumb of the first slider labelled ``label`` (``key == "click"``: click the button
    ``label``, waiting at most ``run_timeout`` s); return (seconds to settled, note)."""
    if key == "click":
        return press(page, label, run_timeout or timeout)
    thumb = page.locator("[data-testid='stSlider']", has_text=label).locator("input[type='range']")
    if not thumb.count():
        return None, "slider not on the page"
    thumb = thumb.first
    if thumb.is_disabled():
        return None, "slider disabled"
    before = thumb.get_attribute("aria-valuetext") or thumb.get_attribute("aria-valuenow")
    thumb.focus()
    t0 = time.monotonic()
    thumb.press(key)
    try:  # the rerun starts after the slider's debounce; it may also be over before this looks
        page.wait_for_selector("[data-testid='stApp'][data-test-script-state='running']", timeout=3000)
    except Exception:
        pass
    after = page.locator("[data-testid='stSlider']", has_text=label).locator("input[type='range']").first
    dt, note = timed_settle(page, t0, timeout)
    now = after.get_attribute("aria-valuetext") or after.get_attribute("aria-valuenow")
    return dt, f"{before} → {now}" + (f"; {note}" if note else "")


def run(shape, shots, timeout, run_timeout, graph_timeout):
    from playwright.sync_api import sync_playwright

    os.environ.pop("MLVIZ_WAIT", None)  # the app's default compute.WAIT: what a user sees
    summary = []
    with tempfile.TemporaryDirectory(prefix="mlviz_bbs_") as tmp:
        t = time.perf_counter()
        arff, xml, names, name = write_shape(shape, tmp)
        print(f"# {shape}: {name}, {len(names)} labels, written in {time.perf_counter() - t:.1f} s: "
              f"{arff.name} {arff.stat().st_size / 2**20:.2f} MB, {xml.name} {xml.stat().st_size / 2**10:.1f} kB; "
              f"load average at start {os.getloadavg()}", flush=True)
        with serve(tmp) as (url, proc), sync_playwright() as pw:
            rss = PeakRSS(proc.pid)
            rss.start()
            rows = Rows(shape, rss)
            browser = launch_chromium(pw)
            context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
            page = context.new_page()
            page.set_default_timeout(timeout * 1000)
            try:
                page.goto(url + "/")
                settle(page, timeout)
                rows.add("Home", "file bytes (ARFF + XML)", arff.stat().st_size + xml.stat().st_size)
                attach_upload(page, arff, xml)
                t0 = time.monotonic()
                try:
                    dt, note = load_upload(page, name, timeout) - t0, ""
                except pytest.fail.Exception as e:
                    dt, note = float("nan"), f"NEVER SETTLED: {str(e)[:200]}"
                rows.add("Home", "upload: click Load → name + figures settled", dt, note)
                # the Label graph and Compare last: the longest waits (the sparse CDN's γ path, the cross-validation
                # run), whose background work would slow down the other pages
                last = ("label_graph", "compare")
                visits = [("Home", "home")] + [v for v in PAGES if v[1] not in last] + [
                    ("Reference check", "reference_check")] + [v for s in last for v in PAGES if v[1] == s]
                assert len(visits) == len(REGISTERED), "a page of mlviz.dashboard.pages.PAGES is not visited"
                for i, (title, slug) in enumerate(visits):
                    res = {"page": title, "first": None, "settled": None, "main": None, "moves": []}
                    if i:
                        page.evaluate(MARK_OLD)
                        t0 = time.monotonic()
                        page.locator("[data-testid='stSidebar'] a", has_text=title).first.click()
                        budget = graph_timeout if slug == "label_graph" else timeout  # for the whole visit
                        first, main_at = wait_figures(page, t0, budget, main=MAIN.get(slug), slug=slug)
                        if first is not None:
                            rows.add(title, "  (first figure drawn, as seen while waiting)", first)
                        if main_at is not None:
                            rows.add(title, "  (main figure drawn, as seen while waiting)", main_at)
                        res["settled"], note = timed_settle(page, t0, max(budget - (time.monotonic() - t0), 1))
                        drawn = page.evaluate(NEW_FIGURES)  # drawn while settle() looked
                        if first is None and drawn:
                            first = res["settled"]
                        if MAIN.get(slug) and main_at is None and any(MAIN[slug] in t.lower() for t in drawn):
                            main_at = res["settled"]
                        res["first"], res["main"] = first, main_at
                        rows.add(title, "click → first figure drawn", first if first is not None else "none")
                        if MAIN.get(slug):
                            rows.add(title, "click → main figure drawn", main_at if main_at is not None
                                     else "none")
                        rows.add(title, "click → settled", res["settled"], note)
                    else:
                        res["settled"] = dt
                    if shots:
                        page.screenshot(path=str(Path(shots) / f"{shape}_{i}_{slug}.png"), full_page=True)
                    res.update(checks(page, names))
                    if shots:  # each figure alone too (the page screenshot: the viewport; Streamlit scrolls inside)
                        charts = page.locator("[data-testid='stPlotlyChart']")
                        for k in range(charts.count()):
                            try:
                                charts.nth(k).screenshot(path=str(Path(shots) / f"{shape}_{i}_{slug}_fig{k}.png"))
                            except Exception as e:  # noqa: BLE001 - a screenshot is a by-product
                                rows.add(title, f"screenshot of figure {k}", "failed", str(e)[:120])
                    flags = [f"{res['figures']} figures", f"most names {res['names']} ({res['names_fig'][:50]!r})"]
                    if res["how_to_see"] is not None:
                        flags.append("says how to see the others" if res["how_to_see"] else "DOES NOT SAY how to "
                                                                                             "see the others")
                    if res["exception"]:
                        flags.append(f"EXCEPTION: {res['exception']}")
                    if res["errors"]:
                        flags.append(f"ERROR SHOWN: {res['errors'][0]!r}")
                    if res["gate"]:
                        flags.append("'expect minutes' GATE")
                    if res["overlaps"]:
                        flags.append(f"{len(res['overlaps'])} OVERLAPPING TEXTS, e.g. {res['overlaps'][0][2]} on "
                                     f"{res['overlaps'][0][1][:40]!r}")
                    if res["raw"]:
                        flags.append(f"{len(res['raw'])} RAW ENTITIES/MARKUP, e.g. {res['raw'][0][2]!r}")
                    if res["clipped"]:
                        flags.append(f"{len(res['clipped'])} TEXTS CUT OFF at a figure's edge, e.g. "
                                     f"{res['clipped'][0][1][-70:]!r} on {res['clipped'][0][0][:40]!r}")
                    if res["names"] > MAX_NAMES:
                        flags.append(f"MORE THAN {MAX_NAMES} NAMES")
                    rows.add(title, "legibility", res["names"], "; ".join(flags))
                    for kind, items in (("overlapping texts", res["overlaps"]), ("raw entities / markup", res["raw"]),
                                        ("texts cut off", res["clipped"])):
                        rows.add(title, kind, len(items), "; ".join(" ".join(map(str, x))[:160] for x in items[:3]))
                    for label, key in MOVES.get(slug, []):
                        if res["settled"] != res["settled"]:  # (nan) a move would wait for the same work again
                            rows.add(title, f"move '{label}' ({key}) → settled", "skipped", "the page never settled")
                            continue
                        mdt, mnote = move(page, label, key, timeout, run_timeout)
                        res["moves"].append((label, mdt))
                        rows.add(title, f"move '{label}' ({key}) → settled", mdt if mdt is not None else "n/a",
                                 mnote)
                        if label in SHARED and mdt is not None:
                            move(page, label, SHARED[label], timeout)
                    if res["moves"]:  # what the moves drew (Compare's results) is checked too
                        again = checks(page, names)
                        if (again["names"], again["exception"], again["gate"]) != (res["names"], res["exception"],
                                                                                    res["gate"]):
                            rows.add(title, "legibility after the moves", again["names"],
                                     f"{again['figures']} figures; most names on {again['names_fig'][:50]!r}"
                                     + (f"; EXCEPTION: {again['exception']}" if again["exception"] else "")
                                     + ("; 'expect minutes' GATE" if again["gate"] else ""))
                        if again["names"] > res["names"]:
                            res.update(names=again["names"], names_fig=again["names_fig"])
                        res["exception"] = res["exception"] or again["exception"]
                        res["gate"] = res["gate"] or again["gate"]
                        for part in ("clipped", "overlaps", "raw", "errors"):
                            new = [c for c in again[part] if c not in res[part]]
                            if new:
                                rows.add(title, f"after the moves: new {part}", len(new),
                                         "; ".join(" ".join(map(str, x))[:160] for x in new[:3]))
                            res[part] += new
                        if again["how_to_see"] is False:
                            res["how_to_see"] = False
                        elif res["how_to_see"] is None:
                            res["how_to_see"] = again["how_to_see"]
                    summary.append(res)
            finally:
                context.close()
                browser.close()
                rss.stop.set()
                rss.join(timeout=5)
            rows.add("server", "peak RSS (MB, process + children)", rss.peak, f"reached {rss.peak_where}")
    print_summary(shape, name, len(names), rows, summary, rss.peak)
    return summary


def _fmt(v):
    if v is None:
        return "—"
    if isinstance(v, float):
        return "nan" if v != v else f"{v:.1f}"
    return str(v)


def print_summary(shape, name, L, rows, summary, peak):
    upload = next(r[2] for r in rows if r[1].startswith("upload"))
    size = next(r[2] for r in rows if r[1].startswith("file bytes"))
    print(f"\n## {shape} ({name}, {L} labels): upload {size / 2**20:.2f} MB, Load → Home settled {_fmt(upload)} s; "
          f"server peak RSS {peak:.0f} MB; load average at end {os.getloadavg()}")
    print("| page | first figure s | settled s | main figure s | slider move → settled s | most names on a "
          "figure | how to see others | exception | error boxes | gate | overlapping texts | raw entities/markup "
          "| texts cut off |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in summary:
        moves = "; ".join(f"{lab}: {_fmt(dt)}" for lab, dt in r["moves"]) or "—"
        how = {None: "—", True: "yes", False: "NO"}[r["how_to_see"]]
        print(f"| {r['page']} | {_fmt(r['first'])} | {_fmt(r['settled'])} | {_fmt(r['main'])} | {moves} | {r['names']} "
              f"| {how} | {r['exception'] or 'none'} | {len(r['errors'])} | {'YES' if r['gate'] else 'no'} | "
              f"{len(r['overlaps'])} | {len(r['raw'])} | {len(r['clipped'])} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", choices=["delicious", "bibtex", "cal500"], default="delicious")
    ap.add_argument("--screenshots", metavar="DIR", help="save one full-page screenshot per page here")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds to wait for one step (default 1800)")
    ap.add_argument("--graph-timeout", type=float, default=None,
                    help="seconds to wait for the Label graph to draw its learned graph and settle (default --timeout)")
    ap.add_argument("--run-timeout", type=float, default=600,
                    help="seconds to wait for Compare's cross-validation run before cancelling it (default 600)")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # (kill: the server and chromium are stopped too)
    if args.screenshots:
        Path(args.screenshots).mkdir(parents=True, exist_ok=True)
    run(args.shape, args.screenshots, args.timeout, args.run_timeout, args.graph_timeout or args.timeout)


if __name__ == "__main__":
    main()
