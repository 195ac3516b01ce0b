"""What a plotly figure draws as text, for checks of its legibility.

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


def _axes(layout):
    return {k: v for k, v in layout.items() if (k.startswith("xaxis") or k.startswith("yaxis")) and isinstance(v, dict)}


def _ref(name):
    """``"xaxis2"`` -> ``"x2"`` (how traces name their axes)."""
    return name[0] + name[len("xaxis"):]


def names_written(fig):
    """How many category names each axis writes, and how many names drawn text traces write.

    Returns
    -------
    dict
        ``{axis name: (names written, categories)}`` for every category axis (an axis with
        ``ticktext``, or ``type="category"``, or string coordinates), and ``{"text:<i>": (non-empty
        texts, points)}`` for trace ``i`` drawn with ``mode`` containing ``"text"``.
    """
    import math

    d = fig if isinstance(fig, dict) else fig.to_plotly_json()
    layout, data = d.get("layout", {}), d.get("data", [])
    out = {}
    for name, ax in _axes(layout).items():
        letter, ref = name[0], _ref(name)
        cats = []
        for t in data:
            if (t.get(f"{letter}axis") or letter) != ref:
                continue
            v = t.get(letter)
            if v is None:
                continue
            vals = v.tolist() if hasattr(v, "tolist") else list(v) if isinstance(v, (list, tuple)) else []
            cats += [c for c in vals if isinstance(c, str)]
        cats = list(dict.fromkeys(cats))
        if ax.get("showticklabels") is False or ax.get("visible") is False:
            out[name] = (0, len(cats))
        elif ax.get("ticktext") is not None:
            text = [s for s in ax["ticktext"] if str(s).strip()]
            out[name] = (len(text), max(len(cats), len(text)))
        elif cats or ax.get("type") == "category":
            step = ax.get("dtick") if ax.get("tickmode") in ("linear", None) and ax.get("dtick") else 1
            out[name] = (math.ceil(len(cats) / max(float(step), 1.0)), len(cats))
    for i, t in enumerate(data):
        if "text" in str(t.get("mode", "")) and t.get("text") is not None:
            text = t["text"] if isinstance(t["text"], (list, tuple)) else list(t["text"]) if hasattr(
                t["text"], "__len__") and not isinstance(t["text"], str) else [t["text"]]
            out[f"text:{i}"] = (sum(1 for s in text if str(s).strip()), len(text))
    return out
