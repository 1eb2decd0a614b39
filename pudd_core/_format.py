"""Number formats shared by the library's generated prose and the app's labels."""

from __future__ import annotations

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(exponent: int) -> str:
    """``10`` to the integer ``exponent`` with superscript digits, as the prose writes α.

    Examples
    --------
    >>> power_of_ten(-3), power_of_ten(-10), power_of_ten(2)
    ('10⁻³', '10⁻¹⁰', '10²')
    """
    return f"10{str(int(exponent)).translate(_SUPERSCRIPT)}"
