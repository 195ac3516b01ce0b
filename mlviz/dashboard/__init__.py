"""Streamlit glue for the mlviz dashboard — the only mlviz package that imports streamlit.

Imports run downwards: ``memory`` ← ``jobs``, ``methods`` (no Streamlit in these) ← ``compute`` ←
``cache`` / ``progress`` / ``state`` / ``upload`` / ``widgets`` / ``explain`` ← pages.

- :mod:`~mlviz.dashboard.memory`   : a thread-safe LRU bounded by bytes (``MLVIZ_CACHE_MB``)
- :mod:`~mlviz.dashboard.jobs`     : background jobs: de-duplicated, cancellable, per-session priority,
  byte-bounded cache
- :mod:`~mlviz.dashboard.methods`  : the methods, their sliders, the slider → estimator translation and cache keys
- :mod:`~mlviz.dashboard.compute`  : every slow result (fits, γ paths, posteriors, UMAP, CV) as a job keyed by
  its settings
- :mod:`~mlviz.dashboard.progress` : who asks (session + slot) and the one "previous result + progress + cancel" widget
- :mod:`~mlviz.dashboard.cache`    : quick per-data-set results and figures in the same byte-bounded cache
- :mod:`~mlviz.dashboard.state`    : ``init_page`` (every page calls it first), data set + split, URL
- :mod:`~mlviz.dashboard.upload`   : uploads → ``mlviz.data.load_dataset``
- :mod:`~mlviz.dashboard.widgets`  : shared controls and download buttons
- :mod:`~mlviz.dashboard.explain`  : collapsible teaching text per page
"""
