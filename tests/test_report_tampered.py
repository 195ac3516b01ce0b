"""Tampered report packs are refused (issue 28, item 2).

A report pack travels by e-mail; its reproduce.py rebuilt any callable under ``mlviz.`` or
``sklearn.`` from config.json, so ``"class": "sklearn.utils._testing.check_output"`` ran a
command.  Now config.json is checked against the pack schema (mlviz.report_config) and the data's
SHA-256 before anything is fitted; a tampered pack gets one line and a non-zero exit status.
"""

import copy
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from mlviz.data import MultiLabelDataset, to_npz
from mlviz.models import BinaryRelevance, MLkNN
from mlviz.report import (
    PackError,
    PackSettings,
    allowed_estimator_classes,
    build_report_pack,
    check_config,
    estimator_from_spec,
    estimator_spec,
    load_pack,
)
from mlviz.report_load import MAX_CONFIG_BYTES

REPO = Path(__file__).resolve().parents[1]


def _dataset():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    Y = (X[:, :2] + 0.3 * rng.normal(size=(40, 2)) > 0).astype(int)
    return MultiLabelDataset(X, Y, label_names=["a", "b"], name="upload")


@pytest.fixture(scope="module")
def pack_bytes():
    ds = _dataset()
    br = BinaryRelevance(estimator=LogisticRegression(C=10.0, max_iter=500))
    settings = PackSettings(methods={"BR": br, "kNN": MLkNN(k=5)}, train_index=np.arange(30),
                            test_index=np.arange(30, 40), scaling="standard", rule="threshold", rule_param=0.5)
    buf = io.BytesIO()
    build_report_pack(buf, ds, settings)
    return buf.getvalue()


@pytest.fixture
def pack(tmp_path, pack_bytes):
    with zipfile.ZipFile(io.BytesIO(pack_bytes)) as zf:
        zf.extractall(tmp_path / "pack")
    return tmp_path / "pack"


def _config(folder):
    return json.loads((folder / "config.json").read_text())


def _write(folder, config):
    (folder / "config.json").write_text(json.dumps(config))


def _reproduce(folder):
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, str(folder / "reproduce.py")], capture_output=True, text=True,
                          env=env, timeout=120, cwd=str(folder))


def _refused(folder, match):
    with pytest.raises(PackError, match=match):
        load_pack(folder)


def test_an_untouched_pack_loads_and_reproduces(pack):
    loaded = load_pack(pack)
    assert list(loaded.estimators) == ["BR", "kNN"]
    br = loaded.estimators["BR"]
    assert isinstance(br.estimator, LogisticRegression) and br.estimator.C == 10.0
    proc = _reproduce(pack)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "method,measure,value"


@pytest.mark.slow(seconds=3)
def test_the_check_output_exploit_runs_nothing(pack, tmp_path):
    marker = tmp_path / "pwned"
    config = _config(pack)
    exploit = {"class": "sklearn.utils._testing.check_output", "params": {"args": ["touch", str(marker)]}}
    for where in ("top", "nested"):
        tampered = copy.deepcopy(config)
        if where == "top":
            tampered["methods"]["BR"] = exploit
        else:
            tampered["methods"]["BR"]["params"]["estimator"] = exploit
        _write(pack, tampered)
        proc = _reproduce(pack)
        assert proc.returncode != 0 and not marker.exists()
        assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stderr.startswith("Refusing to run this report pack: ")
        assert "check_output" in proc.stderr and "allow-list" in proc.stderr
        # the library function old packs' reproduce.py calls refuses it too
        with pytest.raises(PackError, match="allow-list"):
            estimator_from_spec(exploit)
    assert not marker.exists()


@pytest.mark.parametrize("spec, match", [
    ({"class": "os.system", "params": {"command": "true"}}, "allow-list"),
    ({"class": "subprocess.Popen", "params": {}}, "allow-list"),
    ({"class": "builtins.eval", "params": {}}, "allow-list"),
    ({"class": "sklearn.pipeline.Pipeline", "params": {"steps": []}}, "allow-list"),
    ({"class": "mlviz.models.baselines.clone", "params": {}}, "allow-list"),
    ({"class": ["mlviz.models.MLkNN"], "params": {}}, "allow-list"),
    ({"class": "mlviz.models.MLkNN", "params": {"k": 5}, "extra": 1}, "class.*params"),
    ({"class": "mlviz.models.MLkNN", "params": {"no_such": 1}}, "no parameter 'no_such'"),
    # callable or object parameters
    ({"class": "mlviz.models.MLkNN", "params": {"metric": {"class": "builtins.eval", "params": {}}}},
     "allow-list"),
    ({"class": "mlviz.models.MLkNN", "params": {"metric": {"__reduce__": ["os.system", ["id"]]}}},
     "only as an estimator spec"),
    ({"class": "mlviz.models.MLkNN", "params": {"metric": [{"a": 1}]}}, "expected a number, string"),
    ({"class": "mlviz.models.MLkNN", "params": {"metric": [[1, 2]]}}, "expected a number, string"),
    # sizes
    ({"class": "mlviz.models.MLkNN", "params": {"metric": "x" * 100_000}}, "100,000 characters"),
    ({"class": "mlviz.models.MLkNN", "params": {"k": 10 ** 17}}, "exceeds"),
    ({"class": "mlviz.models.MLkNN", "params": {"s": [0.0] * 20_000}}, "20,000 items"),
    ({"class": "mlviz.models.MLkNN", "params": {"s": {"__array__": [[1.0], [2.0, 3.0]]}}}, "2-D array"),
    ({"class": "mlviz.models.BinaryRelevance",
      "params": {"estimator": {"class": "sklearn.linear_model.LogisticRegression", "params": {"n_jobs": 10 ** 6}}}},
     r"n_jobs.*\[-1, 64\]"),
])
def test_estimator_specs_outside_the_allow_list_are_refused(spec, match):
    with pytest.raises(PackError, match=match):
        estimator_from_spec(spec)


def test_packs_of_earlier_versions_name_br_lp_and_mlknn_by_their_old_module():
    from mlviz.models import LabelPowerset

    for name, cls in (("BinaryRelevance", BinaryRelevance), ("LabelPowerset", LabelPowerset), ("MLkNN", MLkNN)):
        est = estimator_from_spec({"class": f"mlviz.models.baselines.{name}", "params": {}})
        assert type(est) is cls
        assert estimator_spec(est)["class"] == f"{cls.__module__}.{name}" != f"mlviz.models.baselines.{name}"


def test_specs_nested_too_deeply_are_refused():
    spec = {"class": "sklearn.linear_model.LogisticRegression", "params": {}}
    for _ in range(3):
        spec = {"class": "mlviz.models.BinaryRelevance", "params": {"estimator": spec}}
    with pytest.raises(PackError, match="nested deeper"):
        estimator_from_spec(spec)


def test_every_allowed_class_round_trips_with_its_defaults():
    allowed = allowed_estimator_classes()
    assert "sklearn.linear_model.LogisticRegression" in allowed and "mlviz.models.SparseCDN" in allowed
    assert not any("Pipeline" in k or "Scaler" in k for k in allowed)
    for cls in set(allowed.values()):
        est = cls()
        again = estimator_from_spec(json.loads(json.dumps(estimator_spec(est))))
        assert type(again) is cls and again.get_params(deep=False).keys() == est.get_params(deep=False).keys()
    allowed.clear()  # a copy: the allow-list itself is unchanged
    assert allowed_estimator_classes()


@pytest.mark.parametrize("edit, match", [
    (lambda c: c.update(mlviz_report_pack=2), "version 1"),
    (lambda c: c.update(surprise=1), "unknown key 'surprise'"),
    (lambda c: c.pop("methods"), "missing methods"),
    (lambda c: c.update(methods={}), "1 to 64 methods"),
    (lambda c: c.update(scaling="__import__('os')"), "scaling.*one of"),
    (lambda c: c["decision_rule"].update(rule="eval"), "one of"),
    (lambda c: c["decision_rule"].update(param={"x": 1}), "finite number"),
    (lambda c: c["decision_rule"].update(param=[0.5] * 3), "list of n_labels"),
    (lambda c: c.update(measures=["micro_f1", "__class__"]), "unknown measure"),
    (lambda c: c["split"].update(train=[0, 1, 10 ** 12]), r"row numbers"),
    (lambda c: c["split"].update(test=[-1]), r"row numbers"),
    (lambda c: c["split"].update(train=[0.5]), r"row numbers"),
    (lambda c: c["data"].update(file="../../../etc/passwd"), '"data.npz"'),
    (lambda c: c["data"].update(file="/etc/passwd"), '"data.npz"'),
    (lambda c: c["data"].update(sample="../emotions"), "bundled sample"),
    (lambda c: c["data"].update(content_hash="md5:0"), "64 hex"),
    (lambda c: c["data"].update(n_samples=10 ** 15), "n_samples"),
    (lambda c: c["data"].update(label_names=["a", "b" * 10_000]), "at most 256"),
    (lambda c: c["split"].update(description="d" * 100_000), "2,000 characters"),
    (lambda c: c.update(extra={"deep": [[[[[[[[[[1]]]]]]]]]]}), "deeper than 8"),
    (lambda c: c.update(seed=-5), "seed"),
])
def test_config_entries_outside_the_schema_are_refused(pack, edit, match):
    config = _config(pack)
    edit(config)
    _write(pack, config)
    with pytest.raises(PackError, match=match):
        load_pack(pack)


@pytest.mark.parametrize("text, match", [
    ('{"a": NaN}', "not a number"),
    ('{"a": 1e400}', "not a finite number"),
    ('{"a": Infinity}', "not a number"),
    ('{"a": ' + "9" * 5000 + "}", "digits"),
    ('{"a": 1, "a": 2}', "duplicate key"),
    ("[" * 200_000 + "]" * 200_000, "nested too deeply|not valid JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_config_json_is_parsed_strictly(pack, text, match):
    path = pack / "config.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(PackError, match=match):
        load_pack(pack)


def test_config_files_that_are_huge_or_not_regular_are_not_read(pack, tmp_path):
    path = pack / "config.json"
    path.unlink()
    with open(path, "wb") as fh:
        fh.truncate(MAX_CONFIG_BYTES + 1)  # sparse: refused by its size before reading
    with pytest.raises(PackError, match="at most"):
        load_pack(pack)
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(PackError, match="not a regular file"):
        load_pack(pack)
    path.unlink()
    path.symlink_to("/dev/zero")
    with pytest.raises(PackError, match="not a regular file"):
        load_pack(pack)


def test_the_data_sha256_is_checked_before_fitting(pack):
    config = _config(pack)
    config["data"]["content_hash"] = "sha256:" + "0" * 64
    _write(pack, config)
    _refused(pack, "SHA-256 mismatch")
    proc = _reproduce(pack)
    assert proc.returncode != 0 and proc.stderr.count("\n") == 1 and "SHA-256 mismatch" in proc.stderr
    assert proc.stdout == ""  # refused before anything was fitted or printed


def test_changed_or_linked_data_files_are_refused(pack, tmp_path):
    ds = _dataset()
    ds.X[0, 0] += 1e-9
    to_npz(ds, pack / "data.npz")
    with pytest.raises(PackError, match="SHA-256 mismatch"):
        load_pack(pack)
    (pack / "data.npz").unlink()
    other = tmp_path / "elsewhere.npz"
    to_npz(_dataset(), other)
    (pack / "data.npz").symlink_to(other)  # `unzip` creates links a zip file asks for
    with pytest.raises(PackError, match="data.npz is not a regular file"):
        load_pack(pack)
    (pack / "data.npz").unlink()
    (pack / "data.npz").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(PackError, match="data cannot be read"):
        load_pack(pack)
    (pack / "data.npz").unlink()
    with pytest.raises(PackError, match="data.npz is missing"):
        load_pack(pack)


def test_a_method_that_fails_to_fit_is_one_line(pack):
    config = _config(pack)
    config["methods"]["kNN"]["params"]["k"] = -3
    _write(pack, config)
    proc = _reproduce(pack)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("reproduce.py: method 'kNN' failed: ") and proc.stderr.count("\n") == 1


def test_build_refuses_a_pack_it_could_not_reproduce(tmp_path):
    ds = _dataset()
    odd = Pipeline([("s", StandardScaler()), ("m", BinaryRelevance())])
    settings = PackSettings(methods={"piped": odd}, train_index=np.arange(30), test_index=np.arange(30, 40),
                            scaling="none")
    results = {"measures": pd.DataFrame({"micro_f1": [0.5]}, index=["piped"]), "posteriors": {}}
    with pytest.raises(ValueError, match="could not be reproduced.*allow-list"):
        build_report_pack(tmp_path / "p.zip", ds, settings, results)
    # the smallest config the schema accepts
    assert check_config(json.loads(json.dumps(_minimal_config(ds)))).keys() == {"m"}


def _minimal_config(ds):
    from mlviz.report import content_hash

    return {"mlviz_report_pack": 1, "data": {"sample": None, "file": "data.npz", "content_hash": content_hash(ds),
                                             "n_samples": 40, "n_features": 3, "n_labels": 2,
                                             "label_names": ["a", "b"]},
            "split": {"train": [0, 1], "test": [2]}, "scaling": "none",
            "decision_rule": {"rule": "threshold", "param": 0.5, "at_least_one_label": False},
            "measures": ["micro_f1"], "methods": {"m": estimator_spec(MLkNN())}}
