"""mlviz home page: pick a bundled data set and see its summary (placeholder until the dashboard lands)."""

import streamlit as st

st.set_page_config(page_title="mlviz", layout="wide")
st.title("mlviz")
st.write("Multi-label learning, made visible.")
