"""Number and phrase formatting for captions, hover text and tables.

Plain-language output for a reader, not a programmer: counts as integers with
thousands separators (``2,860``, never ``2.86e+03``), shapes as
``4930 × 4930`` with the right indefinite article (``a 4930 × 4930``,
``an 8 × 8``, ``an 18-label set``), durations in the unit that reads best.
Pure functions of their arguments; nothing here imports plotly.
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = ["fmt_value", "format_count", "format_number", "format_shape", "format_seconds",
           "indefinite_article", "with_article", "plural"]

_DASH = "–"


def _finite(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def format_count(n, *, thousands=True):
    """An integer count as text: ``2860`` -> ``"2,860"``.

    Parameters
    ----------
    n : int or float or None
        Rounded to the nearest integer; ``None``/NaN/inf give ``"–"``.
    thousands : bool, default True
        Group digits with commas.

    Examples
    --------
    >>> format_count(2860.0), format_count(7), format_count(float("nan"))
    ('2,860', '7', '–')
    """
    v = _finite(n)
    if v is None:
        return _DASH
    return f"{int(round(v)):,}" if thousands else str(int(round(v)))


def format_number(x, digits=3):
    """A measured value with ``digits`` significant digits, never in e-notation
    between 1e-4 and 1e15 (integers are shown as counts).

    Examples
    --------
    >>> format_number(2860.0), format_number(0.18437), format_number(123456.7)
    ('2,860', '0.184', '123,457')
    >>> format_number(3.2e-7)
    '3.2 × 10⁻⁷'
    """
    v = _finite(x)
    if v is None:
        return _DASH
    if v == 0:
        return "0"
    if v == round(v) and abs(v) < 1e15:
        return format_count(v)
    a = abs(v)
    if a >= 10 ** digits:
        return format_count(v)
    if a >= 1e-4:
        decimals = max(digits - 1 - int(math.floor(math.log10(a))), 0)
        s = f"{v:.{decimals}f}"
        return s.rstrip("0").rstrip(".") if "." in s else s
    mant, exp = f"{v:.{max(digits - 1, 0)}e}".split("e")
    mant = mant.rstrip("0").rstrip(".")
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{mant} × 10{str(int(exp)).translate(sup)}"


def format_shape(shape, *, thousands=False):
    """``(4930, 4930)`` -> ``"4930 × 4930"``.

    Examples
    --------
    >>> format_shape((4930, 4930)), format_shape((16105, 983), thousands=True)
    ('4930 × 4930', '16,105 × 983')
    """
    return " × ".join(format_count(d, thousands=thousands) for d in shape)


def format_seconds(seconds):
    """A duration in the unit that reads best: ``"850 µs"``, ``"12 ms"``,
    ``"0.42 s"``, ``"3.1 min"``, ``"1 h 05 min"``.

    Examples
    --------
    >>> format_seconds(0.012), format_seconds(0.42), format_seconds(186), format_seconds(3900)
    ('12 ms', '0.42 s', '3.1 min', '1 h 05 min')
    """
    v = _finite(seconds)
    if v is None or v < 0:
        return _DASH
    if v < 1e-3:
        return f"{format_number(v * 1e6, 2)} µs"
    if v < 0.1:
        return f"{format_number(v * 1e3, 2)} ms"
    if v < 60:
        return f"{format_number(v, 2)} s"
    if v < 3600:
        return f"{format_number(v / 60, 2)} min"
    h, m = divmod(int(round(v / 60)), 60)
    return f"{h} h {m:02d} min"


# Letters whose English name starts with a vowel sound (an MLLEM, an F1, an SVM).
_VOWEL_SOUND_LETTERS = set("AEFHILMNORSX")
_CONSONANT_VOWEL_WORDS = ("uni", "use", "usu", "uti", "uto", "one", "once", "eu", "ewe", "ubi", "ura")
_SILENT_H_WORDS = ("hour", "honest", "honour", "honor", "heir")


def indefinite_article(phrase):
    """``"a"`` or ``"an"`` for ``phrase``, by its first spoken sound.

    Numbers are read aloud: ``8``, ``80``, ``800``, ``8000``, ``11``, ``18``,
    ``11,000`` and ``18,500`` start with a vowel sound, ``4930`` does not.
    Short all-capital words are read as letters (``an MLLEM``, ``a CDN``).

    Examples
    --------
    >>> [indefinite_article(p) for p in ["4930 × 4930", "8 × 8", "18-label set", "110 × 2"]]
    ['a', 'an', 'an', 'a']
    >>> [indefinite_article(p) for p in ["MLLEM embedding", "CDN", "edge", "unit", "hour"]]
    ['an', 'a', 'an', 'a', 'an']
    """
    s = str(phrase).strip()
    m = re.match(r"[\d,]+", s)
    if m:
        digits = m.group(0).replace(",", "")
        if not digits:
            return "a"
        lead_len = len(digits) % 3 or 3
        lead = digits[:lead_len]
        return "an" if lead.startswith("8") or lead in ("11", "18") else "a"
    word = re.match(r"[A-Za-z]+", s)
    if not word:
        return "a"
    w = word.group(0)
    if w.isupper() and 1 < len(w) <= 5 or len(w) == 1:
        return "an" if w[0].upper() in _VOWEL_SOUND_LETTERS else "a"
    low = w.lower()
    if low.startswith(_SILENT_H_WORDS):
        return "an"
    if low.startswith(_CONSONANT_VOWEL_WORDS):
        return "a"
    return "an" if low[0] in "aeiou" else "a"


def with_article(phrase):
    """``phrase`` preceded by its indefinite article: ``"a 4930 × 4930"``.

    Examples
    --------
    >>> with_article("4930 × 4930"), with_article("8 × 8 matrix")
    ('a 4930 × 4930', 'an 8 × 8 matrix')
    """
    return f"{indefinite_article(phrase)} {phrase}"


def plural(n, singular, plural_form=None):
    """``"1 label"``, ``"2,860 labels"`` (count formatted by :func:`format_count`).

    Examples
    --------
    >>> plural(1, "label"), plural(2860, "label set"), plural(2, "fold", "folds")
    ('1 label', '2,860 label sets', '2 folds')
    """
    v = _finite(n)
    word = singular if v is not None and round(v) == 1 else (plural_form or singular + "s")
    return f"{format_count(n)} {word}"


def fmt_value(v) -> str:
    """Short human format for a slider value (1e-03, 0.5, 10)."""
    if isinstance(v, (bool, np.bool_)):
        return str(v)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) < 1e-2 or abs(v) >= 1e4:
            return f"{v:.0e}"
        return f"{v:g}"
    return str(v)
