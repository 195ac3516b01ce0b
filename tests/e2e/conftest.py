"""Fixtures for the real-browser tests: a Streamlit server on a free loopback port
and Debian's chromium driven by Playwright.

The tests are skipped when ``/usr/bin/chromium`` (or Playwright) is missing,
unless ``MLVIZ_REQUIRE_BROWSER=1`` (CI sets it), in which case they fail.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("MLVIZ_CHROMIUM", "/usr/bin/chromium")
CHROME_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _missing(reason):
    if os.environ.get("MLVIZ_REQUIRE_BROWSER") == "1":
        pytest.fail(f"MLVIZ_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerError(RuntimeError):
    """The Streamlit server exited or did not become healthy (the message ends with its log)."""


def start_server(log_dir, **extra_env):
    """Start ``streamlit run app.py`` on a free loopback port with ``extra_env``, logging to
    ``log_dir/server.log``; return ``(process, url)`` once it is healthy.

    Raises
    ------
    ServerError
        If the server exits early or is not healthy within 60 s (it is stopped first).
    """
    port = _free_port()
    log = Path(log_dir) / "server.log"
    streamlit = Path(sys.executable).with_name("streamlit")
    cmd = [str(streamlit) if streamlit.exists() else shutil.which("streamlit") or "streamlit", "run", "app.py",
           "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port),
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"), **extra_env)
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise ServerError(f"streamlit exited early:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return proc, url
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise ServerError(f"streamlit did not become healthy:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
    except BaseException:
        stop_server(proc)
        raise


def stop_server(proc):
    """Terminate the server (kill it after 10 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@contextlib.contextmanager
def serve(log_dir, **extra_env):
    """:func:`start_server` as a context manager: yield ``(url, process)``; always stop it."""
    proc, url = start_server(log_dir, **extra_env)
    try:
        yield url, proc
    finally:
        stop_server(proc)


@contextlib.contextmanager
def _serve(tmp_path_factory, **extra_env):
    """Run ``streamlit run app.py`` on a free port with ``extra_env``; yield its URL; always stop it."""
    try:
        proc, url = start_server(tmp_path_factory.mktemp("streamlit"), **extra_env)
    except ServerError as e:
        pytest.fail(str(e))
    try:
        yield url
    finally:
        stop_server(proc)


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """The app as ``make run`` starts it."""
    with _serve(tmp_path_factory) as url:
        yield url


@pytest.fixture(scope="module")
def no_wait_app_url(tmp_path_factory):
    """The app with ``MLVIZ_WAIT=0``: every uncached sparse CDN fit answers first with the
    previous fit and a notice (what a slow machine or a large data set shows)."""
    with _serve(tmp_path_factory, MLVIZ_WAIT="0") as url:
        yield url


def launch_chromium(pw):
    """Debian's chromium, headless, through a started ``sync_playwright()`` object."""
    return pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS, headless=True)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        _missing(f"{CHROMIUM} not found")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed")
    with sync_playwright() as pw:
        b = launch_chromium(pw)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1500, "height": 1800})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture
def offline_page(browser):
    """A page of an :func:`offline_context` (1500 × 1800); ``page.outside`` lists the aborted requests."""
    from test_browser import offline_context  # (tests/e2e is on sys.path)

    context = offline_context(browser, viewport={"width": 1500, "height": 1800})
    pg = context.new_page()
    pg.set_default_timeout(90_000)
    pg.outside = context.outside
    try:
        yield pg
    finally:
        context.close()
