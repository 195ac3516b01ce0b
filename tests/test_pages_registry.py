"""The page registry: every file in pages/ is registered once, every entry has a file, addresses are unique."""

from pathlib import Path

from mlviz.dashboard.pages import PAGES, page_for_file

ROOT = Path(__file__).resolve().parents[1]


def test_every_page_file_is_registered_and_every_entry_has_a_file():
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
    assert sorted(p.path for p in PAGES) == files
    assert len({p.title for p in PAGES}) == len({p.url_path for p in PAGES}) == len(PAGES)
    assert [p.url_path for p in PAGES].count("") == 1
    assert all(p.icon.startswith(":material/") and p.icon.endswith(":") for p in PAGES)


def test_pages_take_their_title_from_the_registry():
    """No page names itself: each calls state.page_context(__file__), which reads the registry."""
    for page in PAGES:
        text = (ROOT / page.path).read_text(encoding="utf-8")
        assert "state.page_context(__file__)" in text and "init_page(" not in text, page.path
        assert page_for_file(ROOT / page.path) is page


def test_entrypoint_builds_navigation_from_the_registry():
    text = (ROOT / "app.py").read_text(encoding="utf-8")
    assert "st.navigation(" in text and "PAGES" in text


def test_streamlit_draws_no_second_page_list():
    """With the file watcher on (``make run``), Streamlit would also list the files of pages/ (and the
    entrypoint as "app") above the registry's links; the config turns its list off. (The browser
    tests start the server without a file watcher, where that list does not appear.)"""
    import re

    text = (ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8")
    client = re.search(r"^\[client\]\n(.*?)(?=^\[|\Z)", text, flags=re.M | re.S).group(1)
    assert re.search(r"^showSidebarNavigation\s*=\s*false\s*$", client, flags=re.M), client
