"""Reference check: our BR, PCC and ML-kNN beside published / independently measured numbers.

One click runs :func:`mlviz.reproductions.reference.reference_check` (the same
function as ``mlviz reproduce reference-check``) on a bundled benchmark set as a
background job (progress, cancel) and shows each of our numbers beside its
reference with a within-band / off-by badge and the citation.  Settings in the
URL: ``ref_data``, ``ref_protocol``.
"""

import streamlit as st

from mlviz._text import escape_markdown
from mlviz.dashboard import compute, present, progress, state, widgets
from mlviz.reproductions import reference

ctx = state.page_context(__file__)
st.title(":material/fact_check: Reference check — our numbers beside published ones")
st.caption("Binary relevance, a probabilistic classifier chain and ML-kNN, run here under the protocol stated below, "
           "beside numbers measured or published elsewhere. *Within band* means the difference is no larger than the "
           "protocol's tolerance; every published number names its source.")

DATASETS = list(dict.fromkeys(d for ds in reference.PROTOCOLS.values() for d in ds))
PROTOCOL_LABELS = {"ANCHORS-P1": "fixed split, BR-LR / ML-kNN / PCC (seconds)",
                   "MLRH-T5": "5-fold CV, BR-SVM tuned (paper 003 Table 5; a few minutes)"}
here = ctx.data_key or ctx.key
c1, c2 = st.columns([1, 2])
dataset = c1.selectbox("Benchmark set", DATASETS, index=DATASETS.index(here) if here in DATASETS else 0,
                       key="ref_data", bind="query-params",
                       help="The bundled sets a protocol covers (the sidebar's data set when it is one of them).")
protocol = c2.radio("Protocol", list(reference.PROTOCOLS), captions=[PROTOCOL_LABELS[p] for p in reference.PROTOCOLS],
                    key="ref_protocol", bind="query-params", horizontal=True)
if here not in DATASETS:
    st.caption(f"{ctx.md_name} has no published reference numbers; pick a bundled benchmark set above.")
with st.expander(":material/description: The stated protocol and the sources", expanded=False):
    st.markdown(reference.PROTOCOL)
    for short, full in reference.CITATIONS.items():
        st.markdown(f"- **{escape_markdown(short)}**: {escape_markdown(full)}")

covered = dataset in reference.PROTOCOLS[protocol]
if not covered:
    st.info(f"{protocol} has no numbers for {dataset}; it covers {', '.join(reference.PROTOCOLS[protocol])}.")
    st.stop()

request = {"dataset": dataset, "protocol": protocol, "random_state": 0}
units = reference.n_units(protocol, dataset)
b1, b2 = st.columns([1, 4])
if b1.button(":material/play_arrow: Run reference check", type="primary", key="ref_run"):
    st.session_state["ref_request"] = request
b2.caption(f"{units} {'fits' if protocol == 'ANCHORS-P1' else 'outer folds'} on {dataset}, seed 0; runs in the "
           "background and can be cancelled.")
SLOT = "reference"


def check_fn(req):
    stage = "fits" if req["protocol"] == "ANCHORS-P1" else "outer folds"

    def fn(token):  # (token.report raises Cancelled once nobody waits: the run stops before its next unit)
        return reference.reference_check((req["dataset"],), (req["protocol"],), random_state=req["random_state"],
                                         progress=lambda done, total: token.report(stage=stage, done=done,
                                                                                    total=total))
    return fn


asked = st.session_state.get("ref_request")
job_key = compute.key(f"reference:{dataset}", "reference-check", request)
if asked != request and compute.RUNNER.peek(job_key) is not None:
    asked = request  # (computed before in this server: the same numbers, shown without a click)
if asked != request:
    st.stop()
job = compute.task(f"reference:{dataset}", "reference-check", request, check_fn(request), owner=progress.owner(SLOT))
try:
    frame, _ = progress.result(job, settings={"data": dataset, "protocol": protocol}, slot=SLOT,
                               label="Running the reference check")
except Exception as exc:  # noqa: BLE001 - shown, never a traceback
    st.error(f"The reference check failed: {escape_markdown(str(exc), 300)}")
    st.stop()
if not job.done():
    if st.button("Cancel", key="ref_cancel", icon=":material/close:"):
        compute.RUNNER.cancel(progress.owner(SLOT))
        st.session_state.pop("ref_request", None)
        st.rerun()
if frame is None or frame.iloc[0]["dataset"] != dataset or frame.iloc[0]["protocol"] != protocol:
    st.stop()

compared = frame[frame["published"].notna()]
extra = frame[frame["published"].isna()]
within = int((compared["status"] == "within band").sum())
m = st.columns(3)
m[0].metric("Published numbers compared", len(compared))
m[1].metric("Within band", within)
m[2].metric("Off band", len(compared) - within)
present.takeaway(f"{within} of the {len(compared)} published {protocol} numbers on {dataset} are reproduced within "
                 f"their band by our {' and '.join(escape_markdown(m) for m in dict.fromkeys(compared['method']))} runs.")

for method, rows in compared.groupby("method", sort=False):
    ok = int((rows["status"] == "within band").sum())
    colour = "green" if ok == len(rows) else "orange"
    offs = "; ".join(f"{r.measure} {r.status}" for r in rows.itertuples() if r.status != "within band")
    st.markdown(f"**{escape_markdown(method)}** :{colour}-badge[{ok} of {len(rows)} within band]"
                + (f" — {escape_markdown(offs)}" if offs else ""))

table = compared.assign(status=[("✅ " if s == "within band" else "⚠️ ") + s for s in compared["status"]])
cols = {"dataset": "Data set", "method": "Method", "measure": "Measure", "ours": "Ours", "published": "Published",
        "diff": "Difference", "band": "Band (±)", "status": "Status", "source": "Source"}
if protocol == "MLRH-T5":
    cols = {**cols, "ours_std": "Ours: std over folds"}
shown = table[list(cols)].rename(columns=cols).reset_index(drop=True)
st.dataframe(shown, width="stretch", hide_index=True,
             column_config={c: st.column_config.NumberColumn(format="%.4f")
                            for c in ("Ours", "Published", "Difference", "Band (±)", "Ours: std over folds")
                            if c in shown})
widgets.download_table(shown, f"reference_check_{dataset}_{protocol}", key="dl_ref", index=False)
st.markdown("**Sources**")
for source in dict.fromkeys(compared["source"]):
    st.markdown(f"- **{escape_markdown(source)}**: {escape_markdown(reference.CITATIONS.get(source, ''))}")
if len(extra):
    st.subheader("Our numbers without a published reference")
    st.caption("Measured under the same protocol, shown for comparison (e.g. PCC, measures the source does not give).")
    plain = extra.pivot_table(index=["method"], columns="measure", values="ours", sort=False).reset_index()
    st.dataframe(plain, width="stretch", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4f") for c in plain.columns if c != "method"})
