"""Real-browser test at many labels (issue 16): a 174-label Mulan file uploaded, every page visited.

A seeded Mulan data set (ARFF + XML, 500 instances × 40 features, 174 labels with power-law
frequencies and names of varied length) is written to the test's temporary directory and
uploaded through the Home page's upload form; the session then visits every page through the
sidebar (Home, Embedding, Label graph, Posteriors, Compare, Sandbox, Decision rules) in chromium
at 1600 × 1000 and, on each page, once its figures are drawn and no work is under way:

* no Streamlit exception element and no "expect minutes" gate;
* each plotly figure writes at most ~50 distinct label names as text (SVG ``<text>`` elements
  whose text is a label name; a heat map writes the same names on both axes);
* in every figure, no written text overlaps another or a title, none runs past the figure's edge and
  none shows a raw entity or tag (:func:`svg_text_problems` on the drawn SVG: rotated texts as the
  rectangles they occupy; the same check as ``benchmarks/bench_browser_scale.py``);
* a page that leaves labels out says how to see them;
* on the Label graph, "Collapse communities" draws one node per community and states the counts.

Screenshots (one per page, full page) go to ``$MLVIZ_SCREENSHOTS`` when set, else to the test's
``tmp_path`` (pytest prints it on failure; ``--basetemp`` fixes it), named ``scale_<n>_<page>.png``
(the viewport: Streamlit scrolls inside its main block), plus ``scale_2_label_graph_graph{0,1}.png``
(the two graphs) and ``scale_2_label_graph_collapsed.png`` (communities collapsed).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.e2e

IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
MAX_NAMES = 50
WORDS = ["rock", "calm", "guitar", "female_vocal", "electronic", "happy", "slow_tempo", "piano", "driving",
         "romantic", "acoustic", "high_energy", "jazz", "angry", "synthesizer_heavy", "dance"]
PAGES = [("Embedding", "embedding"), ("Label graph", "label_graph"), ("Posteriors", "posteriors"),
         ("Compare", "compare"), ("Sandbox", "sandbox"), ("Decision rules", "decision_rules")]
# what a page that draws fewer names than labels says about the others
HOW_TO_SEE = re.compile(r"hover|the others|other labels|choose other|expand one", re.I)


def many_label_mulan(directory, n=500, L=174, d=40, seed=0):
    """Write ``scale174.arff`` + ``scale174.xml`` (CAL500-like shape) and return (paths, label names)."""
    from mlviz.data import MultiLabelDataset, save_arff

    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 6))
    scores = Z @ rng.normal(size=(6, L)) / np.sqrt(6) + rng.normal(size=(n, L))
    freq = np.clip(0.6 * np.arange(1, L + 1) ** -0.8, 4 / n, 0.6)
    thr = np.array([np.quantile(scores[:, j], 1 - freq[j]) for j in range(L)])
    Y = (scores > thr).astype(np.uint8)
    X = np.round(Z @ rng.normal(size=(6, d)) + 0.5 * rng.normal(size=(n, d)), 4)
    names = [f"{WORDS[j % len(WORDS)]}_{j:03d}" for j in range(L)]
    ds = MultiLabelDataset(X, Y, label_names=names, feature_names=[f"f{k}" for k in range(d)], name="scale174")
    arff, xml = Path(directory) / "scale174.arff", Path(directory) / "scale174.xml"
    save_arff(ds, arff, xml_path=xml)
    return arff, xml, names


def settle(page, timeout=240):
    """Wait until the script is idle, no progress notice ("… updates by itself", "being computed") is shown, and
    the number of drawn plotly figures and the page's text length stay the same for 1.5 s.

    Returns the ``time.monotonic()`` at which that final state was first seen (0.5 s resolution), i.e. when the page
    settled, without the 1.5 s spent checking that it stays so.
    """
    page.wait_for_selector(IDLE, timeout=timeout * 1000)
    last, same, why, since = None, 0, "", time.monotonic()
    for _ in range(int(timeout / 0.5)):
        page.wait_for_timeout(500)
        state = page.evaluate(r"""() => {
            const main = document.querySelector("[data-testid='stMain']");
            const busy = /updates by itself|being computed/.test(main ? main.innerText : '');
            const running = !document.querySelector("[data-testid='stApp'][data-test-script-state='notRunning']");
            const plots = [...document.querySelectorAll('.js-plotly-plot')].filter(d => d._fullLayout).length;
            const hit = main ? (main.innerText.match(/[^\n]*(updates by itself|being computed)[^\n]*/) || [''])[0] : '';
            return [busy || running, plots, document.body.innerText.length, running ? 'script running' : hit];
        }""")
        if state[0]:
            last, same, why = None, 0, state[3]
            continue
        if state == last:
            same += 1
        else:
            same, since = 0, time.monotonic()
        last = state
        if same >= 3:
            return since
    pytest.fail(f"page did not settle within {timeout} s: {last or why[:300]}")


def assert_no_exception(page):
    n = page.locator("[data-testid='stException']").count()
    assert n == 0, page.locator("[data-testid='stException']").first.inner_text()[:2000]


NAMES_PER_PLOT = """(names) => {
    const set = new Set(names);
    return [...document.querySelectorAll('.js-plotly-plot')].map(div => {
        const title = div.layout && div.layout.title ? String(div.layout.title.text || div.layout.title) : '';
        const texts = [...div.querySelectorAll('svg text')].map(t => t.textContent.trim()).filter(t => set.has(t));
        return [title, new Set(texts).size];
    });
}"""

# Every drawn text of every plotly figure (not the hover layer, not hidden): per figure its title, its box and, per
# text, [text, is the figure's title, the four corners of its box on screen (x0, y0, ..., x3, y3)] -- rotated
# texts (tick labels at an angle) as the rotated rectangle they occupy, not its axis-aligned hull.
SVG_TEXTS = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .filter(d => d._fullLayout && !d.closest("[data-stale='true']")).map(div => {
    const box = div.getBoundingClientRect();
    const title = div.layout && div.layout.title ? String(div.layout.title.text || div.layout.title) : '';
    const shown = el => el.checkVisibility({opacityProperty: true, visibilityProperty: true});
    const texts = [...div.querySelectorAll('svg text')].filter(t => !t.closest('.hoverlayer'))
        .filter(t => t.textContent.trim().length && shown(t)).map(t => {
            const b = t.getBBox(), m = t.getScreenCTM();
            if (!m || b.width === 0) return null;
            const pt = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
            return [t.textContent.trim(), !!t.closest('.g-gtitle'),
                    [...pt(b.x, b.y), ...pt(b.x + b.width, b.y), ...pt(b.x + b.width, b.y + b.height),
                     ...pt(b.x, b.y + b.height)]];
        }).filter(Boolean);
    return [title, [box.left, box.top, box.right, box.bottom], texts];
})"""
ENTITY = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);")
MARKUP = re.compile(r"<[a-zA-Z/!]")  # plotly draws its tags (<b>, <br>, ...) as tspans: any "<b" left is raw
# px: a text's box (getBBox) holds its font's ascent and descent, a few px beyond the ink: boxes overlapping by
# less than this touch without the glyphs meeting (e.g. a colour bar's title and its top tick label)
TOLERANCE = 2.5


def _overlap_depth(p, q):
    """How far two convex quadrilaterals (4 corners each, in order) overlap: the smallest overlap of their
    projections over the edge normals of both (separating-axis theorem); <= 0 when they do not meet."""
    depth = float("inf")
    for poly in (p, q):
        for k in range(4):
            (x0, y0), (x1, y1) = poly[k], poly[(k + 1) % 4]
            nx, ny = y0 - y1, x1 - x0
            norm = (nx * nx + ny * ny) ** 0.5 or 1.0
            a = [(x * nx + y * ny) / norm for x, y in p]
            b = [(x * nx + y * ny) / norm for x, y in q]
            depth = min(depth, min(max(a), max(b)) - max(min(a), min(b)))
    return depth


def svg_text_problems(figures):
    """What would embarrass a presenter in the drawn figures (``SVG_TEXTS`` rows of a page), as
    ``[(kind, figure title, detail), ...]`` with ``kind`` one of

    * ``"overlap"`` -- two written texts (names, tick labels, legend entries, annotations) overlap;
    * ``"title overlap"`` -- a text overlaps the figure's title;
    * ``"cut off"`` -- a text runs past the figure's edge (more than 1 px outside its box);
    * ``"raw text"`` -- a text shows an HTML entity or a tag as characters (``&#x27;``, ``<b>``).
    """
    problems = []
    for title, (left, top, right, bottom), texts in figures:
        name = title[:60]
        polys = [(text, is_title, [(c[i], c[i + 1]) for i in range(0, 8, 2)]) for text, is_title, c in texts]
        for text, _, poly in polys:
            xs, ys = [x for x, _ in poly], [y for _, y in poly]
            if min(xs) < left - 1 or max(xs) > right + 1 or min(ys) < top - 1 or max(ys) > bottom + 1:
                problems.append(("cut off", name, text[:80]))
            if ENTITY.search(text) or MARKUP.search(text):
                problems.append(("raw text", name, text[:80]))
        hulls = [(min(x for x, _ in p), min(y for _, y in p), max(x for x, _ in p), max(y for _, y in p))
                 for _, _, p in polys]
        for a in range(len(polys)):
            for b in range(a + 1, len(polys)):
                ha, hb = hulls[a], hulls[b]  # (hulls apart: no overlap; most pairs end here)
                if (min(ha[2], hb[2]) - max(ha[0], hb[0]) <= TOLERANCE
                        or min(ha[3], hb[3]) - max(ha[1], hb[1]) <= TOLERANCE):
                    continue
                (ta, ia, pa), (tb, ib, pb) = polys[a], polys[b]
                if _overlap_depth(pa, pb) > TOLERANCE:
                    kind = "title overlap" if ia or ib else "overlap"
                    problems.append((kind, name, f"{ta[:50]!r} / {tb[:50]!r}"))
    return problems


def attach_upload(page, arff, xml):
    """Open the Home page's upload form and attach the ARFF and the XML (the page is on Home and settled)."""
    page.get_by_text("Upload your own data set").click()
    page.wait_for_selector(IDLE)
    inputs = page.locator("[data-testid='stFileUploader'] input[type='file']")
    for i, path in enumerate((arff, xml)):
        inputs.nth(i).set_input_files(str(path))
        # attached only when its chip names it and its upload has finished (a click before that finds no file)
        page.locator("[data-testid='stFileChipName']", has_text=Path(path).name).first.wait_for()
        page.wait_for_selector("[data-testid='stFileChipIconSpinner']", state="detached")
        page.wait_for_selector(IDLE)


def load_upload(page, name, timeout=240):
    """Click "Load uploaded data", wait until Home shows ``Data set: <name>`` and its figures, fold the form away
    and :func:`settle`; return settle's time.

    A click that lands while the form re-renders can be lost: when the app has gone idle without the
    data set and without an error, the button is clicked again (loading the same upload twice is
    idempotent). An error on the page fails at once with its text."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    target = page.get_by_text(f"Data set: {name}").first
    deadline = time.monotonic() + timeout
    while True:
        page.get_by_role("button", name="Load uploaded data").click()
        try:
            target.wait_for(timeout=min(60.0, max(1.0, deadline - time.monotonic())) * 1000)
            break
        except PlaywrightTimeout:
            if time.monotonic() >= deadline:
                raise
            page.wait_for_selector(IDLE, timeout=max(1.0, deadline - time.monotonic()) * 1000)
            if target.is_visible():
                break
            errors = page.locator("[data-testid='stAlertContentError']")
            assert errors.count() == 0, f"the upload failed: {errors.all_inner_texts()}"
    page.get_by_text("Upload your own data set").click()  # fold the form away again
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=timeout * 1000)
    return settle(page, timeout)


def test_many_label_upload_every_page(browser, app_url, tmp_path):
    shots = Path(os.environ.get("MLVIZ_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    arff, xml, names = many_label_mulan(tmp_path)
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(240_000)
    try:
        page.goto(app_url + "/")
        settle(page)
        attach_upload(page, arff, xml)
        load_upload(page, "scale174")
        visits = [("Home", "home")] + PAGES
        for i, (title, slug) in enumerate(visits):
            if i:
                page.locator("[data-testid='stSidebar'] a", has_text=title).first.click()
                page.wait_for_timeout(500)
                settle(page)
            page.screenshot(path=str(shots / f"scale_{i}_{slug}.png"), full_page=True)
            assert_no_exception(page)
            assert page.get_by_text("scale174", exact=False).count() >= 1 or slug == "sandbox", \
                f"{title}: the uploaded data set is not the one shown"
            text = page.locator("[data-testid='stMain']").inner_text()
            assert "expect minutes" not in text.lower(), f"{title}: 'expect minutes' gate"
            counts = page.evaluate(NAMES_PER_PLOT, names)
            for fig_title, k in counts:
                assert k <= MAX_NAMES, f"{title}: {k} label names written on the figure {fig_title!r}"
            if any(0 < k < len(names) for _, k in counts):  # some labels named, others left out
                assert HOW_TO_SEE.search(text), f"{title}: does not say how to see the other labels"
            # every figure: no text over another or over a title, none cut off, no raw entity (the benchmark's check)
            problems = svg_text_problems(page.evaluate(SVG_TEXTS))
            assert not problems, f"{title}: {len(problems)} problems in the drawn figures, e.g. {problems[:3]}"
            if slug == "label_graph":
                assert "hover a node for the others" in text or "choose other labels above" in text
                for k in range(2):  # the two graphs themselves (the page screenshot shows the top only)
                    page.locator("[data-testid='stPlotlyChart']").nth(k).screenshot(
                        path=str(shots / f"scale_{i}_{slug}_graph{k}.png"))
                # communities collapsed: one node per community, the counts stated under the graph
                page.get_by_text("Collapse communities").first.click()
                page.get_by_text("drawn as one node each").first.wait_for(timeout=240_000)
                settle(page)
                assert_no_exception(page)
                assert re.search(r"174 labels in \d+ communities: \d+ drawn as one node each",
                                 page.locator("[data-testid='stMain']").inner_text())
                problems = svg_text_problems(page.evaluate(SVG_TEXTS))
                assert not problems, f"communities collapsed: {problems[:3]}"
                page.locator("[data-testid='stPlotlyChart']").first.screenshot(
                    path=str(shots / f"scale_{i}_{slug}_collapsed.png"))
    finally:
        context.close()
