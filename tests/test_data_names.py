"""Untrusted names (issue 20): length cap, bounded closest-name search, short messages."""

import io
import time

import numpy as np
import pytest

from mlviz._text import MAX_NAME_LENGTH
from mlviz.data import DataError, load_arff, load_csv, load_dataset, to_npz
from mlviz.data.arff import _closest_hint


def _named(data, name):
    buf = io.BytesIO(data if isinstance(data, bytes) else data.encode())
    buf.name = name
    return buf


@pytest.mark.parametrize("length, ok", [(MAX_NAME_LENGTH, True), (MAX_NAME_LENGTH + 1, False)])
def test_name_cap_is_exact_in_every_format(tmp_path, length, ok):
    long = "n" * length
    files = {
        "c.csv": f"{long},L\n1,0\n2,1\n",
        "a.arff": f"@relation 'a: -C -1'\n@attribute {long} numeric\n@attribute L {{0,1}}\n"
                  "@data\n1,0\n2,1\n",
        "s.svm": '# mlviz: {"feature_names": ["' + long + '"], "label_names": ["L"]}\n0 1:1\n0 1:2\n',
    }
    for name, text in files.items():
        if ok:
            assert load_dataset(_named(text, name)).feature_names == [long]
        else:
            with pytest.raises(DataError, match=rf"{length:,} characters long; names are limited "
                                                rf"to {MAX_NAME_LENGTH}"):
                load_dataset(_named(text, name))
    path = tmp_path / "n.npz"
    from mlviz.data import MultiLabelDataset

    to_npz(MultiLabelDataset(np.ones((2, 1)), np.array([[0], [1]]), [long], ["L"]), path)
    if ok:
        assert load_dataset(path).feature_names == [long]
    else:
        with pytest.raises(DataError, match=r"names of up to 257 characters; names are limited"):
            load_dataset(path)


def test_label_list_and_xml_names_are_capped():
    text = "@relation r\n@attribute f numeric\n@attribute L {0,1}\n@data\n1,0\n2,1\n"
    with pytest.raises(DataError, match=r"label name 'xxx+…' is 10,000 characters long"):
        load_arff(_named(text, "r.arff"), labels=["x" * 10_000])
    xml = b'<labels><label name="' + b"y" * 5000 + b'"/></labels>'
    with pytest.raises(DataError) as info:
        load_arff(_named(text, "r.arff"), labels=xml)
    assert "5,000 characters long" in str(info.value) and len(str(info.value)) < 300


def test_closest_name_search_is_bounded_and_message_short():
    names = [f"{'A' * 250}{j:05d}" for j in range(200_000)]
    start = time.perf_counter()
    hint = _closest_hint("A" * 255 + "B", names)
    assert time.perf_counter() - start < 1.0
    assert hint.startswith(" (closest attribute: 'AAAA") and len(hint) < 100
    assert _closest_hint("x123a", ["x1", "x123", "zzz"]) == " (closest attribute: 'x123')"
    text = ("@relation r\n" + "".join(f"@attribute {n} numeric\n" for n in names[:3000])
            + "@attribute L {0,1}\n@data\n" + ("0," * 3000 + "1\n") * 2)
    xml = b'<labels><label name="' + b"A" * 256 + b'"/></labels>'
    with pytest.raises(DataError) as info:
        load_arff(_named(text, "w.arff"), labels=xml)
    assert "is not an attribute of the ARFF file (closest attribute: 'AAA" in str(info.value)
    assert len(str(info.value)) < 300


def test_user_strings_in_messages_are_shortened():
    cell = "v" * 100_000
    with pytest.raises(DataError) as info:
        load_csv(_named(f"f,L\n{cell},0\n2,1\n", "c.csv"))
    assert len(str(info.value)) < 200 and "vvvv…" in str(info.value)
    with pytest.raises(DataError) as info:
        load_dataset(_named("f,L\n1,0\n2,1\n", "x" * 10_000 + ".csv"), labels=["nope" * 1000])
    assert len(str(info.value)) < 300
    # csv.field_size_limit is process-wide (another library may have raised it)
    with pytest.raises(DataError, match=r"field is longer than [\d,]+ characters|is not a "
                                        r"number") as info:
        load_csv(_named('f,L\n"' + "q" * 200_000 + '",0\n2,1\n', "c.csv"))
    assert len(str(info.value)) < 300


def test_html_and_markdown_names_load_verbatim():
    names = ["<b>x</b>", "[a](https://e.x)", "=HYPERLINK(1)"]
    ds = load_csv(_named(",".join(names) + ",L\n1,2,3,0\n4,5,6,1\n", "h.csv"))
    assert ds.feature_names == names  # shown escaped by the dashboard, not altered here


def test_csv_column_names_reads_only_the_header_even_from_a_bomb():
    import gzip

    from hostile import _bomb

    from mlviz.data import Limits, MultiLabelDataset, csv_column_names

    assert csv_column_names(_named("a,b c,L\n1,2,0\n", "x.csv")) == ["a", "b c", "L"]
    assert csv_column_names(_named(gzip.compress(b"p\tq\n1\t0\n"), "x.tsv.gz")) == ["p", "q"]
    bomb = _bomb("gzip", 64 << 20)  # inflates past 64 MiB; only 1 MiB is decompressed
    names = csv_column_names(_named(bomb, "bomb.csv.gz"), limits=Limits(max_upload_bytes=1 << 20))
    assert names[:2] == ["c0", "c1"] and len(names) == 4096
    with pytest.raises(DataError, match="UTF-16"):
        csv_column_names(_named("a,b\n".encode("utf-16"), "u.csv"))
    with pytest.raises(DataError, match="expected real numbers"):
        MultiLabelDataset(np.ones((2, 2), dtype=complex), np.eye(2))
