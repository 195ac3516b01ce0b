"""What a plotly figure draws as text, for checks of its legibility (issue 29).

:func:`drawn_strings` lists every string a figure shows a reader -- titles, subtitles, subplot
titles, axis titles, category ticks, legend entries, hover text and templates, drawn text,
annotations, colour-bar titles -- with where it sits. Plotly decodes HTML entities once when it
draws such a string, so ``html.unescape(s)`` is what the reader sees.
"""

from __future__ import annotations

__all__ = ["DRAWN_KEYS", "drawn_strings"]

#: Keys whose string values plotly draws (``x``/``y`` only when they are categories).
DRAWN_KEYS = frozenset({"text", "name", "hovertext", "hovertemplate", "ticktext", "texttemplate", "x", "y",
                        "title", "subtitle"})


def _walk(obj, path, key):
    if isinstance(obj, str):
        if key in DRAWN_KEYS:
            yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k == "meta":  # data for code, never drawn
                continue
            yield from _walk(v, f"{path}.{k}" if path else k, k)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]", key)
    else:  # numpy arrays of category names
        tolist = getattr(obj, "tolist", None)
        if tolist is not None and getattr(obj, "dtype", None) is not None and obj.dtype.kind in "OUS":
            yield from _walk(tolist(), path, key)


def drawn_strings(fig):
    """``(path, string)`` for every string ``fig`` draws (layout and traces; ``meta`` skipped).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure or dict

    Returns
    -------
    list of (str, str)
    """
    d = fig if isinstance(fig, dict) else fig.to_plotly_json()
    return list(_walk({"layout": d.get("layout", {}), "data": d.get("data", [])}, "", None))
