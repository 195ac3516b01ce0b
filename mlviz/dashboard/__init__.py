"""Streamlit glue for the mlviz dashboard — the only mlviz package that imports streamlit.

- :mod:`~mlviz.dashboard.state`   : ``init_page`` (every page calls it first), data set + split, URL
- :mod:`~mlviz.dashboard.cache`   : cached computations with explicit string keys
- :mod:`~mlviz.dashboard.methods` : the models offered in the dashboard and their sliders
- :mod:`~mlviz.dashboard.sparse_cdn` : sparse CDN fits per slider setting, γ paths in the background
- :mod:`~mlviz.dashboard.upload`  : uploads → ``mlviz.data.load_dataset``
- :mod:`~mlviz.dashboard.widgets` : shared controls and download buttons
- :mod:`~mlviz.dashboard.explain` : collapsible teaching text per page
"""
