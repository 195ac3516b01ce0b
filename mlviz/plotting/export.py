"""Figure export: interactive HTML (no browser needed) and PNG (needs one).

PNG export tries, in order:

1. **kaleido** (``fig.to_image``) when the ``kaleido`` package is importable.
   kaleido >= 1 drives a Chrome/Chromium through ``choreographer``; it finds
   Debian's ``/usr/bin/chromium`` on the PATH (or the ``BROWSER_PATH``
   environment variable).
2. **Headless Chromium screenshot**: the figure is written as a standalone
   HTML page with plotly.js *inlined* (no network needed) and photographed
   with ``chromium --headless --screenshot`` at the figure's size.

Either way :func:`figure_to_png` returns ``None`` instead of raising when no
browser is available or the export fails or times out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

__all__ = ["figure_to_html", "figure_to_png", "find_chromium"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome",
                   "google-chrome-stable", "chrome")
_DEFAULT_WIDTH, _DEFAULT_HEIGHT = 1000, 500


def figure_to_html(fig, *, include_plotlyjs="cdn", full_html=True):
    """Serialise a figure as a standalone interactive HTML page.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    include_plotlyjs : {"cdn", True, ...}, default "cdn"
        ``"cdn"`` keeps the file small (~10 kB + data) but needs internet
        access when opened; ``True`` inlines plotly.js (~4.7 MB) for offline
        use.
    full_html : bool, default True

    Returns
    -------
    str
        HTML text containing one ``<div>`` with the figure.
    """
    return fig.to_html(include_plotlyjs=include_plotlyjs, full_html=full_html,
                       config={"responsive": True, "displaylogo": False})


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


def _png_kaleido(fig, width, height, scale, timeout):
    try:
        import kaleido  # noqa: F401
    except ImportError:
        return None
    try:
        data = fig.to_image(format="png", width=width, height=height,
                            scale=scale)
    except Exception:
        return None
    return data if data[:8] == PNG_SIGNATURE else None


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
                  method="auto"):
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

    Returns
    -------
    bytes or None
        PNG data (starting with the PNG signature) or None when no browser /
        kaleido is available or the export failed.
    """
    try:
        w, h = _size(fig, width, height)
        if method in ("auto", "kaleido"):
            data = _png_kaleido(fig, w, h, scale, timeout)
            if data is not None or method == "kaleido":
                return data
        if method in ("auto", "chromium"):
            return _png_chromium(fig, w, h, scale, timeout)
        return None
    except Exception:  # never raise: the dashboard just hides the button
        return None
