"""The page registry: every page of the dashboard, its title, icon, address and order, declared once.

``app.py`` (the entrypoint) builds ``st.navigation`` from :data:`PAGES`; each page
file in ``pages/`` holds only its view and gets its title from here. A test
checks that every file in ``pages/`` is registered and every entry has a file.
No Streamlit import here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["PAGES", "Page", "page_for_file"]


@dataclass(frozen=True)
class Page:
    """One page.

    path : str
        The page file, relative to the project root (``pages/...``).
    title : str
        Its name in the navigation, the browser tab and the session's focus (the runner).
    icon : str
        A Material icon (``:material/name:``; served with the app, nothing loads from the internet).
    url_path : str
        The address after the server's root (``""``: the home page).
    """

    path: str
    title: str
    icon: str
    url_path: str


PAGES = [
    Page("pages/0_Home.py", "Home · Data", ":material/home:", ""),
    Page("pages/1_Embedding.py", "Embedding (MLLEM)", ":material/scatter_plot:", "Embedding"),
    Page("pages/2_Label_graph.py", "Label graph (sparse CDN)", ":material/hub:", "Label_graph"),
    Page("pages/3_Posteriors.py", "Posteriors & thresholds", ":material/grid_on:", "Posteriors"),
    Page("pages/4_Compare.py", "Compare (CV, timing)", ":material/bar_chart:", "Compare"),
    Page("pages/5_Sandbox.py", "Sandbox (planted graph)", ":material/science:", "Sandbox"),
    Page("pages/6_Decision_rules.py", "Decision rules", ":material/tune:", "Decision_rules"),
    Page("pages/7_Reference_check.py", "Reference check", ":material/fact_check:", "Reference_check"),
]


def page_for_file(path) -> Page:
    """The entry of a page file (matched by its name within ``pages/``).

    Raises
    ------
    KeyError
        A file that is not registered.
    """
    name = Path(path).name
    for page in PAGES:
        if Path(page.path).name == name:
            return page
    raise KeyError(f"{name} is not in the page registry (mlviz.dashboard.pages.PAGES)")
