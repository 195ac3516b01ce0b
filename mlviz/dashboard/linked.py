"""Linked views: one selection shared by the pages and kept in the URL.

The selection has three independent parts, each one URL query parameter (bound sidebar widgets,
``persist_state="session"`` so a page without them keeps them for the session):

``sel_label``
    A label, by name (the Embedding page colours by it; the Posteriors page draws it).
``sel_edge``
    An edge A → B of a learned sparse CDN *and* the CDN settings it belongs to:
    ``"<A>><B>@<variant>,<γ/γ_max>,<μ/N>,<λ>"`` (label indices; e.g. ``2>5@sparse,0.1,0.003,0.1``).
    Pages show the test instances whose ``P(y_B = 1 | x)`` changes most when A is switched on vs
    off (:func:`mlviz.models.cdn_effects.edge_effect`).
``sel_rows``
    A set of instances, in one of two bounded, reproducible encodings:

    * ``set:<i>.<j>...`` -- the instances whose label set is *exactly* ``{i, j, ...}``
      (``set:none``: no label), whatever the number of instances;
    * ``ids:train=<ranges>;test=<ranges>`` -- row ids of the train/test split (fixed per data set)
      as ranges ``3-7.12`` (dots: nothing to percent-encode in the address), at most
      :data:`MAX_IDS` ids (a lasso keeps its first ``MAX_IDS`` ids, train before test, and the
      page says so): at most ~2.5 kB of address.

The encoders and decoders are pure (tests call them); :func:`selection_bar` draws the sidebar
panel with the "Clear selection" button and returns the parsed :class:`Linked`.  Setters
(:func:`set_rows`, :func:`set_edge`, :func:`set_label`) are for widget callbacks (they run before
the sidebar is drawn).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from mlviz._text import escape_markdown, shorten

from .urls import MAX_IDS, text_limit  # most ids a lasso keeps in the URL; a text box's length (URL schema)

LABEL_KEY, EDGE_KEY, ROWS_KEY = "sel_label", "sel_edge", "sel_rows"

#: Test instances listed / ringed for an edge effect.
EDGE_TOP = 20
#: Edges offered by the Label graph page's picker (the strongest).
MAX_EDGE_CHOICES = 500
_CDN_ORDER = ("variant", "gamma", "mu", "lam")


@dataclass
class Rows:
    """An instance set: ``members`` (an exact label set, tuple of label indices) or ``ids``
    (``{"train": ndarray, "test": ndarray}``)."""

    members: tuple | None = None
    ids: dict | None = None

    def mask(self, Y, split: str) -> np.ndarray:
        """Boolean mask of the rows of ``Y`` (the ``split``'s labels, shape (n, L)) in the set."""
        Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y) != 0
        out = np.zeros(Y.shape[0], dtype=bool)
        if self.members is not None:
            want = np.zeros(Y.shape[1], dtype=bool)
            want[list(self.members)] = True
            return (Y == want).all(axis=1)
        ids = np.asarray(self.ids.get(split, []), dtype=np.int64)
        out[ids[(ids >= 0) & (ids < Y.shape[0])]] = True
        return out


@dataclass
class Edge:
    source: int
    target: int
    values: dict  # the CDN's slider values (variant, gamma, mu, lam)


@dataclass
class Linked:
    """The parsed selection (``None`` parts are not selected) and warnings about the URL."""

    label: int | None = None
    edge: Edge | None = None
    rows: Rows | None = None
    problems: tuple = ()

    @property
    def empty(self) -> bool:
        return self.label is None and self.edge is None and self.rows is None


# ------------------------------------------------------------------ encodings (pure)

def _ranges(ids) -> str:
    ids = np.unique(np.asarray(ids, dtype=np.int64))
    parts, start = [], None
    for i, v in enumerate(ids):
        if start is None:
            start = prev = v
        elif v == prev + 1:
            prev = v
        else:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = v
        if i == len(ids) - 1:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ".".join(parts)


def _parse_ranges(text: str) -> np.ndarray:
    out = []
    for part in filter(None, text.split(".")):
        a, _, b = part.partition("-")
        lo, hi = int(a), int(b) if b else int(a)
        if lo < 0 or hi < lo or hi - lo >= MAX_IDS or len(out) > MAX_IDS:
            raise ValueError(f"bad id range {part!r}")
        out.extend(range(lo, hi + 1))
    if len(out) > MAX_IDS:
        raise ValueError(f"more than {MAX_IDS} ids")
    return np.unique(np.asarray(out, dtype=np.int64))


def encode_ids(train_ids, test_ids, cap: int = MAX_IDS):
    """``(text, n_dropped)``: the ``ids:`` encoding of at most ``cap`` ids (train ids first)."""
    tr = np.unique(np.asarray(train_ids, dtype=np.int64))
    te = np.unique(np.asarray(test_ids, dtype=np.int64))
    n = tr.size + te.size
    tr = tr[:cap]
    te = te[:max(cap - tr.size, 0)]
    return f"ids:train={_ranges(tr)};test={_ranges(te)}", int(n - tr.size - te.size)


def encode_set(members) -> str:
    """``set:`` encoding of an exact label set (indices)."""
    members = sorted({int(j) for j in members})
    return "set:" + (".".join(map(str, members)) if members else "none")


def decode_rows(text: str, n_labels: int) -> Rows | None:
    """Parse ``sel_rows``; None for an empty text. Raises ValueError with a message."""
    text = (text or "").strip()
    if not text:
        return None
    kind, _, body = text.partition(":")
    if kind == "set":
        if body == "none":
            return Rows(members=())
        try:
            members = tuple(sorted({int(p) for p in body.split(".")}))
        except ValueError:
            raise ValueError(f"“{shorten(text, 60)}” is not a label set (set:<i>.<j>…)") from None
        if not members or members[0] < 0 or members[-1] >= n_labels:
            raise ValueError(f"the label set names labels outside 0..{n_labels - 1}")
        return Rows(members=members)
    if kind == "ids":
        parts = dict(p.partition("=")[::2] for p in body.split(";") if p)
        if not set(parts) <= {"train", "test"}:
            raise ValueError("an id list has the form ids:train=<ranges>;test=<ranges>")
        try:
            ids = {k: _parse_ranges(parts.get(k, "")) for k in ("train", "test")}
        except ValueError as exc:
            raise ValueError(f"bad id list ({exc})") from None
        if sum(v.size for v in ids.values()) > MAX_IDS:
            raise ValueError(f"more than {MAX_IDS} ids")
        return Rows(ids=ids)
    raise ValueError(f"“{shorten(text, 60)}” is neither set:… nor ids:…")


def encode_edge(source: int, target: int, values: dict) -> str:
    """``"<A>><B>@variant,gamma,mu,lam"``."""
    return f"{int(source)}>{int(target)}@" + ",".join(f"{values[k]:g}" if k != "variant" else str(values[k])
                                                      for k in _CDN_ORDER)


def decode_edge(text: str, n_labels: int) -> Edge | None:
    """Parse ``sel_edge`` (values checked against the CDN sliders' grids); None for an empty text."""
    from .methods import METHODS

    text = (text or "").strip()
    if not text:
        return None
    try:
        pair, _, settings = text.partition("@")
        a, _, b = pair.partition(">")
        a, b = int(a), int(b)
        parts = settings.split(",")
        if len(parts) != 4:
            raise ValueError
        values = {"variant": parts[0], **{k: float(v) for k, v in zip(_CDN_ORDER[1:], parts[1:])}}
    except ValueError:
        raise ValueError(f"“{shorten(text, 60)}” is not an edge (A>B@variant,γ,μ,λ)") from None
    if not (0 <= a < n_labels and 0 <= b < n_labels) or a == b:
        raise ValueError(f"the edge names labels outside 0..{n_labels - 1} (or the same label twice)")
    cdn = METHODS["cdn"]
    for k in _CDN_ORDER:
        grid = cdn.param(k).grid
        match = [g for g in grid if (g == values[k] if k == "variant" else np.isclose(g, values[k], rtol=1e-9))]
        if not match:
            raise ValueError(f"{k} = {values[k]} is not a value of the CDN's {k} slider")
        values[k] = match[0]
    return Edge(a, b, values)


def parse(label, edge_text, rows_text, names) -> Linked:
    """The :class:`Linked` of the three URL values on a data set with label ``names`` (bad parts
    dropped, with a message in ``problems``)."""
    problems, out = [], Linked()
    names = [str(n) for n in names]
    if label:
        if label in names:
            out.label = names.index(label)
        else:
            problems.append(f"label “{escape_markdown(shorten(label, 40))}” is not in this data set")
    for what, fn, text in (("edge", decode_edge, edge_text), ("rows", decode_rows, rows_text)):
        try:
            setattr(out, what, fn(text, len(names)))
        except ValueError as exc:
            problems.append(escape_markdown(str(exc)))
    out.problems = tuple(problems)
    return out


def describe(lk: Linked, names) -> list:
    """One markdown line per selected part."""
    names = [str(n) for n in names]
    nm = lambda j: escape_markdown(shorten(names[j], 40))  # noqa: E731
    out = []
    if lk.label is not None:
        out.append(f"**Label**: {nm(lk.label)}")
    if lk.edge is not None:
        v = lk.edge.values
        out.append(f"**Edge**: {nm(lk.edge.source)} → {nm(lk.edge.target)} (sparse CDN {v['variant']}, "
                   f"γ = {v['gamma']:g}·γ_max, μ/N = {v['mu']:g}, λ = {v['lam']:g})")
    if lk.rows is not None:
        if lk.rows.members is not None:
            out.append("**Instances**: label set exactly {" + ", ".join(nm(j) for j in lk.rows.members) + "}"
                       if lk.rows.members else "**Instances**: no label (empty label set)")
        else:
            n_tr, n_te = (int(lk.rows.ids[k].size) for k in ("train", "test"))
            out.append(f"**Instances**: {n_tr} training + {n_te} test instances (lasso, at most {MAX_IDS} kept)")
    return out


# ------------------------------------------------------------------ Streamlit

def set_rows(text: str) -> None:
    """Callback-safe: select the instance set ``text`` (an encoding, or "" to clear)."""
    st.session_state[ROWS_KEY] = text or ""


def set_edge(text: str) -> None:
    st.session_state[EDGE_KEY] = text or ""


def set_label(name) -> None:
    st.session_state[LABEL_KEY] = name


def clear() -> None:
    """The "Clear selection" button's callback."""
    st.session_state[LABEL_KEY] = None
    st.session_state[EDGE_KEY] = ""
    st.session_state[ROWS_KEY] = ""


def selection_bar(ctx) -> Linked:
    """Draw the sidebar's "Linked selection" panel (URL-bound) and return the parsed selection."""
    names = [str(n) for n in ctx.label_names]
    current = st.session_state.get(LABEL_KEY)
    if current is not None and current not in names:  # (another data set's label)
        st.session_state[LABEL_KEY] = None
    has = bool(st.session_state.get(LABEL_KEY) or st.session_state.get(EDGE_KEY) or st.session_state.get(ROWS_KEY))
    with st.sidebar.expander(":material/link: Linked selection", expanded=has):
        label = st.selectbox("Selected label", names, index=None, key=LABEL_KEY, bind="query-params",
                             persist_state="session", placeholder="none",
                             help="Shared by the pages: the Embedding colours by it, the Posteriors page draws it.")
        edge = st.text_input("Selected edge A>B@CDN settings", key=EDGE_KEY, bind="query-params",
                             max_chars=text_limit(EDGE_KEY), persist_state="session",
                             placeholder="pick one on the Label graph page",
                             help="Label indices and the sparse CDN's variant, γ/γ_max, μ/N, λ "
                                  "(set by the Label graph page's edge picker).")
        rows = st.text_input("Selected instances", key=ROWS_KEY, bind="query-params", persist_state="session",
                             max_chars=text_limit(ROWS_KEY),
                             placeholder="lasso on the Embedding, or a label set",
                             help=f"set:<i>.<j> = instances with exactly these labels; ids:train=…;test=… = "
                                  f"row ids from a lasso (at most {MAX_IDS}).")
        lk = parse(label, edge, rows, names)
        for line in describe(lk, names):
            st.caption(line)
        for p in lk.problems:
            st.warning(f"Selection ignored: {p}.")
        st.button("Clear selection", key="sel_clear", on_click=clear, icon=":material/backspace:",
                  disabled=not has)
    return lk


# ------------------------------------------------------------------ edge effects through the compute layer

def edge_effect_job(ctx, edge: Edge, owner=None):
    """Job: :class:`mlviz.models.cdn_effects.EdgeEffect` of ``edge`` on the test split (the CDN of
    ``edge.values`` from the page's path; the approximation's predictions from the cached report)."""
    from mlviz.models.cdn_effects import edge_effect

    from . import compute
    from .methods import METHODS

    cdn = METHODS["cdn"]
    values = cdn.complete(edge.values)

    def fn(token):
        steps = compute.need_path(ctx, cdn, values, token)
        model = steps[values["gamma"]]["model"]
        token.check()
        return edge_effect(model, ctx.X_test, edge.source, edge.target,
                           Y_given=lambda: compute.need_report(ctx, cdn, values, token)[0]["pred"])

    return compute.task(ctx.key, "cdn-edge-effect", {**values, "edge": f"{edge.source}>{edge.target}"}, fn,
                        owner=owner)


def edge_table(effect, label_sets_test, k: int = EDGE_TOP) -> pd.DataFrame:
    """The ``k`` test instances with the largest ``|Δ|``: row, P(B|x) on / off, Δ, label set."""
    from mlviz.models.cdn_effects import top_instances

    top = top_instances(effect.delta, k)
    return pd.DataFrame({"test row": top, "P(B | x), A on": effect.p_on[top], "P(B | x), A off": effect.p_off[top],
                         "Δ = on − off": effect.delta[top], "label set": [label_sets_test[i] for i in top]})


def edge_effect_result(ctx, edge: Edge, slot: str):
    """The :class:`~mlviz.models.cdn_effects.EdgeEffect` of ``edge`` on the test split, or None while it
    is computed (a notice is drawn) or when it fails (a warning is drawn)."""
    from . import progress

    job = edge_effect_job(ctx, edge, owner=progress.owner(slot))
    try:
        effect, _ = progress.result(job, settings={"edge": f"{edge.source}>{edge.target}"}, slot=slot,
                                    label="Switching the label on and off in the sparse CDN")
    except Exception as exc:  # noqa: BLE001 - shown, never a traceback
        st.warning(f"The edge effect could not be computed: {escape_markdown(shorten(exc, 200))}")
        return None
    if effect is None or (effect.source, effect.target) != (edge.source, edge.target):
        return None
    return effect


def edge_effect_panel(ctx, effect, label_sets_test, *, key: str, k: int = EDGE_TOP) -> pd.DataFrame:
    """Draw what an edge effect says (numbers, the method's name, the top-``k`` table); returns the table."""
    names = [str(n) for n in ctx.label_names]
    a = escape_markdown(shorten(names[effect.source], 40))
    b = escape_markdown(shorten(names[effect.target], 40))
    d = np.abs(effect.delta)
    table = edge_table(effect, label_sets_test, k)
    st.markdown(f"**Edge effect {a} → {b}**: the {len(table)} test instances whose P({b} | x) changes most "
                f"when {a} is switched on vs off (largest |Δ| = {d.max(initial=0.0):.3f}, mean |Δ| = "
                f"{d.mean() if d.size else 0.0:.3f} over {d.size} test instances).")
    st.caption(f":material/calculate: Method — {escape_markdown(effect.method_label)} "
               f"(component of {effect.component_size} labels).")
    st.dataframe(table, width="stretch", hide_index=True, key=key,
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in table.columns[1:4]})
    return table


def edge_effect_view(ctx, edge: Edge, slot: str, label_sets_test, *, k: int = EDGE_TOP):
    """:func:`edge_effect_result` then :func:`edge_effect_panel`; returns the effect (or None)."""
    effect = edge_effect_result(ctx, edge, slot)
    if effect is not None:
        edge_effect_panel(ctx, effect, label_sets_test, key=f"{slot}|table", k=k)
    return effect


def graph_hook(ctx, shown: dict, step: dict) -> None:
    """Label graph page: pick an edge A → B of the graph drawn (``shown`` settings, path ``step``);
    the choice goes to ``sel_edge`` (and B to ``sel_label``), then its effect is shown here."""
    from . import cache

    names = [str(n) for n in ctx.label_names]
    lk = selection_bar(ctx)
    st.divider()
    st.subheader(":material/link: Edge effect (linked views)")
    from mlviz.plotting.tables import strongest_edges

    # V, not the graph (~630k edges at 983 labels and a small γ)
    pairs = list(zip(*(a.tolist() for a in strongest_edges(step["model"].label_coef_, MAX_EDGE_CHOICES))))
    if not pairs:
        st.info("This graph has no edges: lower γ (or pick a variant with label features) to pick an edge.")
        return
    text = {encode_edge(u, v, shown): (u, v, w) for u, v, w in pairs}
    options = [""] + list(text)
    current = st.session_state.get(EDGE_KEY) or ""
    st.session_state["linked_edge_pick"] = current if current in options else ""

    def fmt(option):
        if not option:
            return "— none —"
        u, v, w = text[option]
        return f"{shorten(names[u], 30)} → {shorten(names[v], 30)}  (weight {w:+.3f})"

    def picked():
        option = st.session_state.get("linked_edge_pick") or ""
        set_edge(option)
        if option:
            set_label(names[text[option][1]])

    st.selectbox(f"Edge A → B (the {len(pairs)} strongest of this graph)", options, key="linked_edge_pick",
                 format_func=fmt, on_change=picked,
                 help="The Embedding and Posteriors pages then show the test instances whose P(B | x) changes "
                      "most when A is switched on vs off in this CDN (the edge and these settings go in the URL).")
    if lk.edge is not None:
        from .methods import METHODS

        if METHODS["cdn"].complete(lk.edge.values) != METHODS["cdn"].complete(shown):
            v = lk.edge.values
            st.caption(f":material/info: The selected edge belongs to the sparse CDN at {v['variant']}, "
                       f"γ = {v['gamma']:g}·γ_max, μ/N = {v['mu']:g}, λ = {v['lam']:g} (not the graph drawn above); "
                       "pick an edge here to use this graph.")
        edge_effect_view(ctx, lk.edge, "graph|edge-effect", cache.labelset_strings(ctx, "test"))
