"""mlviz — the dashboard's entrypoint: the page registry (:mod:`mlviz.dashboard.pages`) as navigation.

``streamlit run app.py``. Streamlit runs this file first on every rerun of every page
(V2 multipage), then the chosen page, which sets itself up with
``mlviz.dashboard.state.page_context(__file__)`` (sidebar, data context); a direct
link to any page works.
"""

import streamlit as st

from mlviz.dashboard.pages import PAGES

# The sidebar's links are drawn by the pages (mlviz.dashboard.state.navigation, with the registry's icons):
# an icon given to st.Page would become the browser tab's icon, fetched from the internet.
page = st.navigation([st.Page(p.path, title=p.title, url_path=p.url_path or None, default=not p.url_path)
                      for p in PAGES], position="hidden")
page.run()
