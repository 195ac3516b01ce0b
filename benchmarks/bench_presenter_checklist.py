"""The whole presenter checklist of docs/teaching.md in chromium, offline, with a report pack from every page.

``tests/e2e/test_presenter_checklist.py`` walks the checklist within the test suite's budget (the class
link, each ``hide=`` value, one report pack); this script walks all of it with the same functions,
which takes minutes (every page computes its models, every pack refits them):

1. the class link (tour + presentation mode);
2. the whole tour: *Next* through the five steps, *Run cross-validation*, *Finish*;
3. ``present=1&hide=<value>`` for each value of the URL schema;
4. on every page of :data:`mlviz.dashboard.pages.PAGES` (Compare after *Run cross-validation*, Reference
   check after *Run reference check*): *Prepare report pack*, *Download report pack (zip)*, and its
   ``report.html`` opened from a file: the figures it holds drawn, its tables listed;
5. *Exit presentation*.

Every request to a host other than this machine is aborted and counted (the line ``requests to other
hosts`` must say 0). A fresh ``streamlit run app.py`` on a free loopback port, Debian's chromium.

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_presenter_checklist.py [--out DIR]

(``--out``: where the packs, unzipped reports and screenshots go; a temporary directory by default.)
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "e2e")]

from conftest import launch_chromium, serve  # noqa: E402
from test_presenter_checklist import (  # noqa: E402
    CLASS_LINK,
    HIDE_VALUES,
    check_class_link,
    check_exit,
    check_hide,
    download_pack,
    group_counts,
    offline_context,
    open_report_offline,
    open_view,
    walk_tour,
)

from mlviz.dashboard.pages import PAGES  # noqa: E402

#: what a page needs before its report pack is offered: (button to press, text that appears)
BEFORE_PACK = {"Compare": ("Run cross-validation", "Summary (mean ± std over folds)"),
               "Reference_check": ("Run reference check", "Reference numbers compared")}


def run(out):
    from playwright.sync_api import sync_playwright

    rows = []

    def row(step, seconds, result):
        rows.append((step, seconds, result))
        print(f"{step:<44} {seconds:7.1f} s  {result}", flush=True)

    with serve(out) as (url, _proc), sync_playwright() as pw:
        browser = launch_chromium(pw)
        context = offline_context(browser, accept_downloads=True)
        page = context.new_page()
        page.set_default_timeout(600_000)
        try:
            t = time.monotonic()
            check_class_link(page, url)
            row("1. class link", time.monotonic() - t, CLASS_LINK)
            t = time.monotonic()
            steps = walk_tour(page)
            row("2. tour: Next x4, Run cross-validation, Finish", time.monotonic() - t,
                "steps " + ", ".join(f"{s:.1f}" for s in steps) + " s")
            open_view(page, url, "/?present=1")
            baseline = group_counts(page)
            for value in HIDE_VALUES:
                t = time.monotonic()
                check_hide(page, url, value, baseline)
                row(f"3. hide={value}", time.monotonic() - t, "hidden; the other groups shown")
            for p in PAGES:
                t = time.monotonic()
                open_view(page, url, f"/{p.url_path}?present=1", timeout=600_000)
                if p.url_path in BEFORE_PACK:
                    button, text = BEFORE_PACK[p.url_path]
                    page.get_by_role("button", name=button).first.click()
                    page.get_by_text(text).first.wait_for(timeout=600_000)
                pack = download_pack(page, out, p.url_path or "Home", timeout=600_000)
                page.screenshot(path=str(Path(out) / f"page_{p.url_path or 'Home'}.png"))
                size = pack.stat().st_size
                report = context.new_page()
                figures, drawn, tables = open_report_offline(report, pack, out)
                report.screenshot(path=str(Path(out) / f"report_{p.url_path or 'Home'}.png"), full_page=True)
                report.close()
                ok = "OK" if drawn == figures else "NOT ALL DRAWN"
                row(f"4. report pack: {p.title}", time.monotonic() - t,
                    f"{size / 2**20:.1f} MB; figures drawn offline {drawn} of {figures} {ok}; "
                    f"{len(tables)} tables ({'; '.join(x[:40] for x in tables)})")
            t = time.monotonic()
            check_exit(page)
            row("5. Exit presentation", time.monotonic() - t, "controls back")
        finally:
            context.close()
            browser.close()
    print(f"requests to other hosts: {len(context.outside)} {context.outside[:3]}")
    print("\n| step | seconds | result |\n|---|---|---|")
    for step, seconds, result in rows:
        print(f"| {step} | {seconds:.1f} | {result} |")
    return rows, context.outside


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="directory for the packs, reports and screenshots (default: a temporary one)")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # (kill: the server and chromium are stopped too)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        run(args.out)
    else:
        with tempfile.TemporaryDirectory(prefix="mlviz_checklist_") as out:
            run(out)


if __name__ == "__main__":
    main()
