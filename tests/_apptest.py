"""Helpers shared by the page AppTests: open a page with URL parameters and session state,
check it ran cleanly, read its Plotly figures."""

from __future__ import annotations

import base64
import json

import numpy as np
from streamlit.testing.v1 import AppTest


def ok(at, *, error_expected=False):
    """``at`` after asserting that the run shows no exception and (unless ``error_expected``: a test of
    the error message itself) no error box."""
    assert not at.exception, [e.value for e in at.exception]
    if not error_expected:
        assert not at.error, [e.value for e in at.error]
    return at


def open_app(path, query=None, session=None, timeout=120):
    """Run the page at ``path`` once with URL parameters ``query`` and session state ``session``;
    the run must be clean (:func:`ok`)."""
    at = AppTest.from_file(str(path), default_timeout=timeout)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    for k, v in (session or {}).items():
        at.session_state[k] = v
    return ok(at.run())


def upload_session(ds):
    """(context, session state) of ``ds`` loaded as an upload, as the Home page's Load button does."""
    from mlviz.dashboard import state

    ctx = state.context_from_dataset(state.upload_id(ds.name, ds.X.tobytes() + ds.Y.tobytes()), ds)
    return ctx, {"mlviz_uploads": {ctx.key: ctx}, "data": ctx.key}


def charts(at):
    """``{element id: figure dict}`` of the Plotly charts drawn."""
    return {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def chart(at, key):
    """The one figure whose chart key is ``key``."""
    (spec,) = [s for cid, s in charts(at).items() if cid.endswith(key)]
    return spec


def array(v):
    """A figure array as numpy (Plotly may send it as a typed array: dtype, bdata, shape)."""
    if isinstance(v, dict):
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        return a.reshape([int(s) for s in str(v["shape"]).split(",")]) if "shape" in v else a
    return np.asarray(v)
