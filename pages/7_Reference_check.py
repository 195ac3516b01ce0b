"""Reference check: our BR, PCC and ML-kNN beside published / independently measured numbers.

One click runs :func:`mlviz.reproductions.reference.reference_check` (the same
function as ``mlviz reproduce reference-check``) on a bundled benchmark set as a
background job (progress, cancel) and shows each of our numbers beside its
reference with a within-band / off-by badge and the citation.  Settings in the
URL: ``ref_data``, ``ref_protocol``, ``ref_sota_measure``.
Every reference number and its citation come from one registry,
:mod:`mlviz.reproductions.references`: a published number names its paper and table, a number
measured for mlviz names the script in this repository that measures it.
"""

import pandas as pd
import streamlit as st

from mlviz._text import escape_markdown
from mlviz.dashboard import compute, present, progress, state, widgets
from mlviz.plotting.tables import MISSING, for_display
from mlviz.reproductions import reference, references, standard_splits

ctx = state.page_context(__file__)
st.title(":material/fact_check: Reference check — our numbers beside reference numbers")
st.caption("Binary relevance, a probabilistic classifier chain and ML-kNN, run here under the protocol stated below, "
           "beside reference numbers. *Within band* means the difference is no larger than the protocol's tolerance. "
           "Every number names its source: a **published** number its paper and table; a number **measured** for "
           "mlviz with scikit-learn alone the script in this repository that measures it "
           "(`python benchmarks/reference_numbers.py`), so anyone can rerun it.")

DATASETS = list(dict.fromkeys(d for ds in reference.PROTOCOLS.values() for d in ds))
PROTOCOL_LABELS = {"fixed-split": "BR-LR / ML-kNN / PCC beside numbers measured with scikit-learn (seconds)",
                   "MLRH-T5": "5-fold CV, BR-SVM tuned, beside Lee & Shajari's Table 5 (a few minutes)"}
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
    for src in references.SOURCES.values():
        st.markdown(f"- **{escape_markdown(src.short)}** ({src.kind}): {escape_markdown(src.citation)}"
                    + (f" Reproduce: `{src.reproduce}`." if src.reproduce else ""))


def state_of_the_art_panel():
    """mlviz's best method at its defaults beside the published best and RF-PCT (the repository's measured run);
    returns ``{title: table shown}`` (empty without a measured run)."""
    frame = standard_splits.recorded()
    st.subheader("State of the art on the standard train/test splits")
    if frame is None:
        st.caption("Not measured in this copy: run `mlviz reproduce standard-splits` (writes docs/reproductions.csv).")
        return {}
    names = {standard_splits.MEASURE_NAMES[m]: m for m in standard_splits.PUBLISHED_MEASURES}  # (the address holds
    # the name shown: a bound radio reads its URL value as the option's label)
    shown = st.radio("Measure", list(names), horizontal=True, key="ref_sota_measure", bind="query-params",
                       help="The study's three measures. Each mlviz method is scored by its own decision rule; "
                            "'mlviz best' is the best of them on this measure (docs/reproductions.md lists every "
                            "method and the Hamming loss at p ≥ 0.5 too).")
    measure = names[shown]
    sota = standard_splits.state_of_the_art(frame, measure)
    table = sota.set_index("dataset")  # (a static table: four rows, nothing computed here)
    st.table(table.style.format({c: f"{{:.{standard_splits.column_digits(c)}f}}" for c in table.columns
                                 if pd.api.types.is_float_dtype(table[c])}, na_rep=MISSING))
    st.markdown(f"**{escape_markdown(standard_splits.takeaway(sota, measure))}**")
    st.caption(f"Published: {escape_markdown(standard_splits.CITATION)}. Ours: every mlviz method at its defaults, "
               "no tuning, measured by `mlviz reproduce standard-splits` (docs/reproductions.md lists every method). "
               "*gap to best* > 0 where mlviz is better (for Hamming loss: lower).")
    return {f"State of the art on the standard train/test splits ({shown})": sota}


sota_tables = state_of_the_art_panel()
covered = dataset in reference.PROTOCOLS[protocol]
if not covered:
    st.info(f"{protocol} has no numbers for {dataset}; it covers {', '.join(reference.PROTOCOLS[protocol])}.")
    st.stop()

request = {"dataset": dataset, "protocol": protocol, "random_state": 0}
units = reference.n_units(protocol, dataset)
b1, b2 = st.columns([1, 4])
if b1.button(":material/play_arrow: Run reference check", type="primary", key="ref_run"):
    st.session_state["ref_request"] = request
b2.caption(f"{units} {'fits' if protocol == 'fixed-split' else 'outer folds'} on {dataset}, seed 0; runs in the "
           "background and can be cancelled.")
SLOT = "reference"


def check_fn(req):
    stage = "fits" if req["protocol"] == "fixed-split" else "outer folds"

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
m[0].metric("Reference numbers compared", len(compared))
m[1].metric("Within band", within)
m[2].metric("Off band", len(compared) - within)
source = references.SOURCES[protocol]
present.takeaway(f"{within} of the {len(compared)} {source.kind} {protocol} reference numbers on {dataset} "
                 f"({escape_markdown(source.short)}) are reproduced within their band by our "
                 f"{' and '.join(escape_markdown(m) for m in dict.fromkeys(compared['method']))} runs.")

for method, rows in compared.groupby("method", sort=False):
    ok = int((rows["status"] == "within band").sum())
    colour = "green" if ok == len(rows) else "orange"
    offs = "; ".join(f"{r.measure} {r.status}" for r in rows.itertuples() if r.status != "within band")
    st.markdown(f"**{escape_markdown(method)}** :{colour}-badge[{ok} of {len(rows)} within band]"
                + (f" — {escape_markdown(offs)}" if offs else ""))

table = compared  # (status as words: no emoji, which a classroom's browser may lack the font for)
cols = {"dataset": "Data set", "method": "Method", "measure": "Measure", "ours": "Ours", "published": "Reference",
        "diff": "Difference", "band": "Band (±)", "status": "Status", "source": "Source"}
if protocol == "MLRH-T5":
    cols = {**cols, "ours_std": "Ours: std over folds"}
shown = table[list(cols)].rename(columns=cols).reset_index(drop=True)
on_screen = for_display(shown, digits=4)
st.dataframe(on_screen, width="stretch", hide_index=True,
             column_config={c: st.column_config.NumberColumn(format="%.4f")
                            for c in ("Ours", "Reference", "Difference", "Band (±)", "Ours: std over folds")
                            if c in on_screen and on_screen[c].dtype.kind == "f"})
widgets.download_table(shown, f"reference_check_{dataset}_{protocol}", key="dl_ref", index=False)
st.markdown("**Sources**")
for short in dict.fromkeys(compared["source"]):
    src = next(v for v in references.SOURCES.values() if v.short == short)
    st.markdown(f"- **{escape_markdown(short)}** ({src.kind}): {escape_markdown(src.citation)}"
                + (f" Reproduce: `{src.reproduce}`." if src.reproduce else ""))
plain = None
if len(extra):
    st.subheader("Our numbers without a reference number")
    st.caption("Measured under the same protocol, shown for comparison (e.g. PCC, measures the source does not give).")
    plain = extra.pivot_table(index=["method"], columns="measure", values="ours", sort=False).reset_index()
    plain_shown = for_display(plain, digits=4)
    st.dataframe(plain_shown, width="stretch", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4f") for c in plain_shown.columns
                                if c != "method" and plain_shown[c].dtype.kind == "f"})


# ------------------------------------------------------------------ report pack (every page's figures and tables)
def report_section():
    from mlviz.dashboard import report_pack

    fixed = reference.fixed_split_pack(dataset)
    estimators = fixed.pop("estimators")
    source = report_pack.Source(key=f"reference:{dataset}", sample=dataset, **fixed)
    report_pack.section(
        ctx, {}, key="ref_pack", source=source, estimators=estimators,
        tables={f"Our numbers beside the {protocol} reference numbers on {dataset}": shown,
                "Our numbers without a reference number": plain, **sota_tables},
        identity={"request": request, "rows": len(frame)},
        extra={"page": "reference check", "protocol": protocol, "benchmark": dataset},
        title=f"mlviz reference check: {dataset}, {protocol}",
        notes=[f"The tables are the page's {protocol} run on {dataset} (the same code as `mlviz reproduce "
               "reference-check`); the sources of the reference numbers are named in the table.",
               "reproduce.py refits the fixed-split protocol's models (BR-LR, ML-kNN and, up to 20 labels, PCC) on "
               "its train/test rows and scaling, so its numbers are the fixed-split table's 'Ours' column "
               + ("(this table)." if protocol == "fixed-split" else
                  f"(the {protocol} numbers are cross-validated: rerun them with `mlviz reproduce "
                  "reference-check`).")])


report_section()
