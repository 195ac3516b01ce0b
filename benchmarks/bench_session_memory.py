"""Memory after a session ends (issue 28): five ~50 MB uploads in one browser session, then close it.

A real server (``streamlit run app.py`` on a free loopback port) and Debian's chromium through
Playwright, as the end-to-end tests start them (``tests/e2e/conftest.py``). Steps:

1. one warm-up session opens Home (emotions) and stays open: the server's resident memory then is
   the level **before** the upload session;
2. a second session uploads five CSV files of ~49.5 MB (25k rows, 200 float features, 10 labels;
   generated, seeded) one after the other through the Home page's form, and is closed;
3. the server's resident memory (the server process plus its children) is sampled until
   ``--wait`` seconds after the close (past Streamlit's 120 s ``server.disconnectedSessionTTL``).

``--root`` runs another checkout's app (e.g. the main branch, to compare); ``--no-trim`` sets
``MLVIZ_MALLOC_TRIM=0`` (the session sweep then releases objects without glibc's ``malloc_trim``).

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_session_memory.py [--no-trim] [--root DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_classroom import start_server as start

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("MLVIZ_CHROMIUM", "/usr/bin/chromium")
CHROME_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def make_csv(path: Path, seed: int, target_bytes: int = 49_500_000) -> int:
    """A CSV of ~``target_bytes`` (< 50,000,000): 200 features ``%.6f`` then 10 label columns (0/1)."""
    rng = np.random.default_rng(seed)
    n_rows = 25_000
    X = rng.normal(size=(n_rows, 200))
    Y = (X[:, :10] + rng.normal(size=(n_rows, 10)) > 0.5).astype(int)
    header = ",".join([f"f{j}" for j in range(200)] + [f"label{j}" for j in range(10)])
    with open(path, "w") as fh:
        fh.write(header + "\n")
        for i in range(n_rows):
            line = ",".join(f"{v:.6f}" for v in X[i]) + "," + ",".join(map(str, Y[i])) + "\n"
            if fh.tell() + len(line) > target_bytes:
                break
            fh.write(line)
    return path.stat().st_size


def rss_mb(pid: int, children: bool = True) -> float:
    """Resident memory of ``pid`` (and its children: the upload parse worker) in MB."""
    import psutil

    p = psutil.Process(pid)
    total = p.memory_info().rss
    for c in p.children(recursive=True) if children else ():
        try:
            total += c.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


def wait_idle(page, timeout=180_000):
    page.wait_for_timeout(400)
    page.wait_for_selector(IDLE, timeout=timeout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="checkout whose app.py is served")
    ap.add_argument("--no-trim", action="store_true", help="MLVIZ_MALLOC_TRIM=0")
    ap.add_argument("--files", type=int, default=5)
    ap.add_argument("--wait", type=float, default=180.0, help="seconds to sample after the close")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="mlviz-session-memory-"))
    files = []
    for i in range(args.files):
        f = tmp / f"upload{i + 1}.csv"
        size = make_csv(f, seed=i)
        files.append(f)
        print(f"{f.name}: {size:,} bytes", flush=True)
    env = {"MLVIZ_MALLOC_TRIM": "0"} if args.no_trim else {}
    proc, url = start(args.root.resolve(), tmp / "server.log", env)
    t0 = time.monotonic()

    def note(what):
        print(f"{time.monotonic() - t0:7.1f} s  {what:<46} server RSS {rss_mb(proc.pid, False):7.0f} MB, "
              f"with its children {rss_mb(proc.pid):7.0f} MB", flush=True)

    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS, headless=True)
            warm = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            warm.goto(url + "/")
            wait_idle(warm)
            warm.wait_for_function("document.querySelectorAll(\"[data-testid='stPlotlyChart']\").length >= 2",
                                   timeout=120_000)
            wait_idle(warm)
            time.sleep(5)
            note("before: one warm session on Home")
            before, before_server = rss_mb(proc.pid), rss_mb(proc.pid, False)
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = ctx.new_page()
            page.goto(url + "/")
            wait_idle(page)
            page.get_by_text("Upload your own data set").click()
            for i, f in enumerate(files):
                with page.expect_response(lambda r: "upload_file" in r.url and r.request.method == "PUT",
                                          timeout=300_000):  # (the bytes have arrived, not only the name)
                    page.locator("[data-testid='stFileUploader'] input[type='file']").first.set_input_files(str(f))
                page.get_by_text("Label columns").first.wait_for(timeout=300_000)
                wait_idle(page)
                page.get_by_role("button", name="Load uploaded data").click()
                page.wait_for_function(f"document.body.innerText.includes('Loaded {f.stem}') || "
                                       "document.body.innerText.includes('Upload failed')", timeout=300_000)
                if page.get_by_text("Upload failed").count():
                    raise RuntimeError(page.get_by_text("Upload failed").first.inner_text())
                wait_idle(page)
                note(f"upload {i + 1} loaded")
            during = rss_mb(proc.pid)
            print("address after the uploads:", page.url[len(url):][:140], flush=True)
            page.close()
            ctx.close()
            closed = time.monotonic()
            note("upload session closed")
            samples = []
            while time.monotonic() - closed < args.wait:
                time.sleep(15)
                samples.append((time.monotonic() - closed, rss_mb(proc.pid), rss_mb(proc.pid, False)))
                note(f"{samples[-1][0]:5.0f} s after the close")
            warm.close()
            browser.close()
        t, after, after_server = samples[-1]
        print(f"\nserver alone: before {before_server:.0f} MB, {t:.0f} s after the close {after_server:.0f} MB "
              f"({after_server - before_server:+.0f} MB); with its children: before {before:.0f} MB, with the uploads "
              f"{during:.0f} MB, after {after:.0f} MB ({after - before:+.0f} MB) "
              f"[{'MLVIZ_MALLOC_TRIM=0' if args.no_trim else 'malloc_trim on'}; root {args.root.name}]", flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
