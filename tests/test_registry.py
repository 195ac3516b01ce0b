"""The method registry is complete: every entry has every part, and every estimator is registered.

A method forgotten in one place fails here, not silently in the CLI, the dashboard or tuning.
"""

import importlib
import inspect
import pkgutil

import pytest
from sklearn.base import BaseEstimator

import mlviz.models as models
from mlviz.models.registry import METHODS, PAPERS, Scale, get_method, method_keys, spec_for_estimator

SCALE = Scale(n_train=100, median_distance=lambda: 1.0)


def _params(spec):
    return set(spec.estimator_class()().get_params(deep=False))


@pytest.mark.parametrize("key", list(METHODS))
def test_entry_has_every_part(key):
    spec = METHODS[key]
    assert spec.key == key and key == key.lower() and " " not in key
    assert spec.label and spec.description and spec.paper in PAPERS
    cls = spec.estimator_class()
    assert cls.__module__ == f"mlviz.models.{spec.module}" and getattr(models, spec.estimator) is cls
    params = _params(spec)
    assert set(spec.fixed) <= params and set(spec.checks.params) <= params
    grid = spec.tuning_grid()
    if grid is None:
        assert spec.tuning_note, f"{key}: no tuning grid and no tuning_note saying why"
    else:
        assert grid and set(grid) <= params and all(len(v) >= 2 for v in grid.values())
    for p in spec.sliders:
        assert p.default in p.grid, (key, p.name)
        if p.name != spec.path_param:
            assert set(p.kwargs(p.default, SCALE)) <= params, (key, p.name)
    assert set(spec.fast) <= {p.name for p in spec.sliders}
    assert (spec.path is None) == (spec.path_param is None)
    assert spec.checks.rule in ("threshold", "rank_cut", None)
    assert spec.capabilities.output in ("probability", "calibrated")
    assert type(spec.make()) is cls and type(spec.from_sliders({}, SCALE)) is cls


@pytest.mark.parametrize("key", list(METHODS))
def test_the_library_and_the_dashboard_share_each_default(key):
    """``make()`` (the command line, the reproductions, a library user's defaults) builds the estimator the
    dashboard builds from its sliders' defaults: one default per method, so a page's numbers at its
    defaults are those docs/reproductions.md records."""
    spec = METHODS[key]
    made = spec.make().get_params(deep=False)
    slid = spec.from_sliders({}, SCALE).get_params(deep=False)
    for name, value in made.items():
        if name == spec.path_param:
            continue
        if name == "sigma" and value == "median":  # (a σ slider's default: 1 × the median distance)
            assert slid[name] in ("median", SCALE.median_distance()), key
            continue
        assert repr(slid[name]) == repr(value), (key, name, value, slid[name])
    if spec.path_param is not None:  # the class's default (None) is the path slider's default fraction
        from mlviz.models.cdn import DEFAULT_GAMMA_RATIO

        assert made[spec.path_param] is None and spec.param(spec.path_param).default == DEFAULT_GAMMA_RATIO


@pytest.mark.parametrize("key", list(METHODS))
def test_every_slider_reaches_its_estimator(key):
    """Each slider, moved off its default, changes the estimator the dashboard builds (no fit needed)."""
    spec = METHODS[key]
    base = spec.from_sliders({}, SCALE).get_params(deep=False)
    for p in spec.sliders:
        if p.name == spec.path_param:
            continue
        other = next(v for v in p.grid if v != p.default)
        moved = spec.from_sliders({p.name: other}, SCALE).get_params(deep=False)
        assert repr(moved) != repr(base), (key, p.name)


def test_every_estimator_class_is_registered():
    """Walk mlviz.models like scikit-learn's all_estimators: each public estimator class is an entry."""
    found = set()
    for info in pkgutil.iter_modules(models.__path__):
        if info.name.startswith("_") or info.name == "registry":
            continue
        module = importlib.import_module(f"mlviz.models.{info.name}")
        for name, obj in inspect.getmembers(module, inspect.isclass):
            if (obj.__module__ == module.__name__ and not name.startswith("_") and issubclass(obj, BaseEstimator)
                    and hasattr(obj, "predict_proba")):
                found.add(name)
    registered = {m.estimator for m in METHODS.values()}
    assert found - registered == set(), "estimator classes missing from the registry"
    assert registered <= found


def test_lookups():
    assert get_method("br").estimator == "BinaryRelevance"
    with pytest.raises(KeyError, match="choose from"):
        get_method("nope")
    assert spec_for_estimator(models.SparseCDN()).key == "cdn"
    assert spec_for_estimator(object()) is None
    assert method_keys(dashboard=True) == [k for k in METHODS if METHODS[k].dashboard]
    assert len({m.label for m in METHODS.values()}) == len(METHODS)


def test_cli_dashboard_and_tuning_read_the_registry():
    from mlviz.cli import build_estimator
    from mlviz.dashboard.methods import METHODS as DASH
    from mlviz.evaluation import tuning_grid

    assert set(DASH) == set(method_keys(dashboard=True))
    for key, spec in METHODS.items():
        est = build_estimator(key)
        assert type(est) is spec.estimator_class()
        assert {k: est.get_params()[k] for k in spec.fixed} == spec.fixed
        assert repr(tuning_grid(est)) == repr(spec.tuning_grid())
