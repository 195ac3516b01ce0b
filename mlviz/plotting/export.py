"""Figure export: interactive HTML (no browser needed) and PNG (needs one).

PNG export tries, in order:

1. **kaleido** when the ``kaleido`` package is importable and a browser is
   found. kaleido >= 1 drives a Chrome/Chromium through ``choreographer``,
   which finds Debian's ``/usr/bin/chromium`` on the PATH (or the browser
   named by ``BROWSER_PATH``); it loads plotly.js from the installed plotly
   package, so no network is needed (MathJax, fetched from a CDN by default,
   is switched off). By default one browser is kept running between calls:
   the first export costs a browser start (~5 s here), later ones ~0.3-0.7 s.
2. **Headless Chromium screenshot**: the figure is written as a standalone
   HTML page with plotly.js *inlined* (no network needed) and photographed
   with ``chromium --headless --screenshot`` at the figure's size.

Either way :func:`figure_to_png` returns ``None`` instead of raising when no
browser is available or the export fails or times out.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import threading
import warnings

__all__ = ["figure_to_html", "figure_to_png", "find_chromium", "stop_png_browser"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome",
                   "google-chrome-stable", "chrome")
_DEFAULT_WIDTH, _DEFAULT_HEIGHT = 1000, 500


def figure_to_html(fig, *, include_plotlyjs=True, full_html=True, title=None):
    """Serialise a figure as a standalone interactive HTML page that works offline.

    By default plotly.js is embedded in the file (about 4.8 MB with plotly
    7.1), so the page opens without network access -- in a classroom or a
    meeting room -- and makes no request to any host: no script, style sheet,
    font or image is loaded from a URL, MathJax is not included, and the
    figure's text is escaped by the builders.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    include_plotlyjs : True or "cdn", default True
        ``True`` embeds plotly.js (offline). ``"cdn"`` keeps the file small
        (~10 kB + data) but the page stays blank without internet access.
    full_html : bool, default True
        A complete ``<html>`` document (with a UTF-8 ``<meta>`` and a
        ``<title>``) or only the ``<div>`` and its script.
    title : str, optional
        Text of the page's ``<title>`` (escaped); default: the figure's title
        text or "mlviz figure".

    Returns
    -------
    str
        HTML text containing one ``<div>`` with the figure.
    """
    import html as _html
    import re

    body = fig.to_html(include_plotlyjs=include_plotlyjs, full_html=False, include_mathjax=False,
                       config={"responsive": True, "displaylogo": False,
                               "showSendToCloud": False})
    if not full_html:
        return body
    if title is None:
        raw = fig.layout.title.text if fig.layout.title and fig.layout.title.text else "mlviz figure"
        title = _html.unescape(re.sub(r"<[^>]*>", "", str(raw)))  # the figure title is already escaped
    return ("<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\" />"
            f"<title>{_html.escape(str(title))}</title></head>\n"
            f"<body>\n{body}\n</body>\n</html>\n")


def find_chromium():
    """Path of a Chrome/Chromium executable, or None.

    Looks at ``$BROWSER_PATH`` first, then the usual executable names on the
    PATH (Debian: ``/usr/bin/chromium``).
    """
    env = os.environ.get("BROWSER_PATH")
    if env and os.path.isfile(env) and os.access(env, os.X_OK):
        return env
    for name in _CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _size(fig, width, height):
    w = width or fig.layout.width or _DEFAULT_WIDTH
    h = height or fig.layout.height or _DEFAULT_HEIGHT
    return int(w), int(h)


_KALEIDO_LOCK = threading.Lock()
_KALEIDO_SERVER = {"running": False}


def _kaleido_module():
    try:
        import kaleido
    except Exception:  # not installed or broken install
        return None
    return kaleido


def stop_png_browser():
    """Stop the persistent kaleido browser started by :func:`figure_to_png`.

    Safe to call at any time (also registered with :mod:`atexit`).
    """
    kaleido = _kaleido_module()
    with _KALEIDO_LOCK:
        if kaleido is not None and _KALEIDO_SERVER["running"]:
            try:
                kaleido.stop_sync_server(silence_warnings=True)
            except Exception:
                pass
        _KALEIDO_SERVER["running"] = False


def _png_kaleido(fig, width, height, scale, timeout, keep_browser):
    kaleido = _kaleido_module()
    if kaleido is None or find_chromium() is None:
        return None
    opts = dict(format="png", width=width, height=height, scale=scale)
    # mathjax=False: kaleido would otherwise load MathJax from a CDN.
    kopts = dict(mathjax=False, timeout=timeout)
    with _KALEIDO_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if keep_browser and not _KALEIDO_SERVER["running"]:
            kaleido.start_sync_server(silence_warnings=True, **kopts)
            _KALEIDO_SERVER["running"] = True
            atexit.register(stop_png_browser)
        if _KALEIDO_SERVER["running"]:
            data = kaleido.calc_fig_sync(fig.to_dict(), opts=opts)
        else:
            data = kaleido.calc_fig_sync(fig.to_dict(), opts=opts, kopts=kopts)
    return data if isinstance(data, bytes) and data[:8] == PNG_SIGNATURE \
        else None


def _png_chromium(fig, width, height, scale, timeout):
    browser = find_chromium()
    if browser is None:
        return None
    f = fig.to_dict()
    f.setdefault("layout", {})
    f["layout"].update(width=width, height=height, autosize=False)
    import plotly.io as pio
    div = pio.to_html(f, include_plotlyjs=True, full_html=False,
                      config={"staticPlot": True, "displayModeBar": False},
                      validate=False)
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
            "html,body{margin:0;padding:0;background:white;overflow:hidden}"
            "</style></head><body>" + div + "</body></html>")
    with tempfile.TemporaryDirectory(prefix="mlviz-png-") as tmp:
        html_path = os.path.join(tmp, "figure.html")
        png_path = os.path.join(tmp, "figure.png")
        with open(html_path, "w", encoding="utf-8") as fh:
            fh.write(page)
        cmd = [
            browser, "--headless", "--no-sandbox", "--disable-gpu",
            "--hide-scrollbars", "--no-first-run", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-dev-shm-usage", "--mute-audio",
            f"--user-data-dir={os.path.join(tmp, 'profile')}",
            f"--force-device-scale-factor={scale}",
            f"--window-size={width},{height}",
            "--virtual-time-budget=10000",
            f"--screenshot={png_path}",
            "file://" + html_path,
        ]
        try:
            subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=timeout,
                           check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        try:
            with open(png_path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
    return data if data[:8] == PNG_SIGNATURE else None


def figure_to_png(fig, *, width=None, height=None, scale=1, timeout=60.0,
                  method="auto", keep_browser=True):
    """Render a figure to PNG bytes, or return None; never raises.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    width, height : int, optional
        Pixel size; default the figure's layout size, else 1000 x 500.
    scale : float, default 1
        Device scale factor (2 for crisp slides).
    timeout : float, default 60
        Seconds before the browser is abandoned.
    method : {"auto", "kaleido", "chromium"}
        ``"auto"`` tries kaleido, then the Chromium screenshot.
    keep_browser : bool, default True
        kaleido only: keep one headless browser running between calls
        (first call ~5 s, later ones ~0.3-0.7 s); stopped at interpreter
        exit or by :func:`stop_png_browser`. False starts and stops a browser
        per call.

    Returns
    -------
    bytes or None
        PNG data (starting with the PNG signature) or None when no browser /
        kaleido is available or the export failed.
    """
    try:
        w, h = _size(fig, width, height)
        if method in ("auto", "kaleido"):
            try:
                data = _png_kaleido(fig, w, h, scale, timeout, keep_browser)
            except Exception:
                data = None
            if data is not None or method == "kaleido":
                return data
        if method in ("auto", "chromium"):
            return _png_chromium(fig, w, h, scale, timeout)
        return None
    except Exception:  # never raise: the dashboard just hides the button
        return None
