"""Sparse ARFF rows with an empty item (``{,3125 1}``) load as Weka reads them: the empty item is skipped."""

import numpy as np
import pytest

from mlviz.data import DataError, load_arff

HEADER = """@relation sp
@attribute f1 numeric
@attribute f2 numeric
@attribute colour {red,'dark, blue',green}
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
"""
CLEAN = ["{0 1.5,3 1}", "{1 2,4 1}", "{0 3,2 'dark, blue',3 1}", "{1 4}", "{}"]
WEKA_STYLE = ["{,0 1.5,3 1}", "{1 2,,4 1}", "{0 3, 2 'dark, blue',3 1,}", "{ , 1 4}", "{}"]


def _write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text(HEADER + "\n".join(rows) + "\n")
    return path


def test_empty_items_are_skipped_like_weka(tmp_path):
    ds = load_arff(_write(tmp_path, "weka.arff", WEKA_STYLE), labels=-2)
    ref = load_arff(_write(tmp_path, "clean.arff", CLEAN), labels=-2)
    np.testing.assert_array_equal(ds.X.toarray(), ref.X.toarray())
    np.testing.assert_array_equal(ds.Y, ref.Y)
    # by hand: f1, f2, then the one-hot colour columns red / 'dark, blue' / green (sparse default: red)
    X = np.array([[1.5, 0, 1, 0, 0], [0, 2, 1, 0, 0], [3, 0, 0, 1, 0], [0, 4, 1, 0, 0], [0, 0, 1, 0, 0]])
    np.testing.assert_array_equal(ds.X.toarray(), X)
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [1, 0], [0, 0], [0, 0]])
    assert any("4 sparse row(s) with an empty item" in n for n in ds.notes)
    assert not any("empty item" in n for n in ref.notes)


def test_the_public_split_row_form(tmp_path):
    rows = ["{0 1,4 1}", "{,1 1}", "{3 1}"]
    ds = load_arff(_write(tmp_path, "split.arff", rows), labels=-2)
    np.testing.assert_array_equal(ds.X.toarray()[1, :2], [0, 1])


@pytest.mark.parametrize("rows, message", [
    (["{0 1,3 1}", "{,1 x}"], r"e\.arff, line 9"),               # a bad value is still refused, with its line
    (["{0 1,3 1}", "{,9 1}"], r"e\.arff, line 9"),               # index out of range
    (["{0 1,3 1}", "{1 1,,1 2}"], r"line 9: sparse row names attribute index 1 twice"),
    (["{0 1,3 1}", "{,1 1"], r"e\.arff, line 9"),                # unclosed row
])
def test_other_errors_are_kept(tmp_path, rows, message):
    with pytest.raises(DataError, match=message):
        load_arff(_write(tmp_path, "e.arff", rows), labels=-2)
