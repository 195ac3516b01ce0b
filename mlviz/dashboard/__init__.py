"""Streamlit glue for the mlviz dashboard — the only mlviz package that imports streamlit.

- :mod:`~mlviz.dashboard.state`   : ``init_page`` (every page calls it first), data set + split, URL
- :mod:`~mlviz.dashboard.cache`   : cached computations with explicit string keys
- :mod:`~mlviz.dashboard.methods` : the models offered in the dashboard and their sliders
- :mod:`~mlviz.dashboard.sparse_cdn` : sparse CDN fits per slider setting, γ paths in the background
- :mod:`~mlviz.dashboard.cdn_prefetch` : the fits one μ/λ move away, prepared in the background
- :mod:`~mlviz.dashboard.cdn_jobs` : a fit the user waits for, in its own thread (the page never freezes)
- :mod:`~mlviz.dashboard.upload`  : uploads → ``mlviz.data.load_dataset``
- :mod:`~mlviz.dashboard.widgets` : shared controls and download buttons
- :mod:`~mlviz.dashboard.explain` : collapsible teaching text per page
"""
