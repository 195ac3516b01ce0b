from test_browser import wait_idle
from test_scale_browser import SVG_TEXTS, svg_text_problems
PAGES = ["/", "/Embedding?emb_umap=false", "/Label_graph", "/Posteriors?post_models=ML-LSPC&post_models=BR-LR&post_models=ML-kNN", "/Sandbox", "/Decision_rules", "/Reference_check"]
def test_probe(page, app_url):
    for q in ["", "&present=1&hide=sidebar", "&present=1"]:
        page.set_viewport_size({"width": 1024, "height": 768})
        for path in PAGES:
            page.goto(app_url + path + ("&" if "?" in path else "?") + q.lstrip("&"))
            wait_idle(page, timeout=120_000)
            page.wait_for_timeout(2500)
            wait_idle(page, timeout=120_000)
            probs = svg_text_problems(page.evaluate(SVG_TEXTS))
            kinds = {}
            for k, t, d in probs:
                kinds.setdefault((k, t), []).append(d)
            for (k, t), ds in kinds.items():
                print(q or "normal", path.split("?")[0], k, repr(t[:50]), len(ds), ds[:2], flush=True)
