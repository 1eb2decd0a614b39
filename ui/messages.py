"""Input and data errors as inline messages, next to the control that caused them."""

from __future__ import annotations

import re
from typing import Any

_ITEM = re.compile(r"\d+\.\s")
# What Markdown (CommonMark + GFM + Streamlit's directives) could read as syntax in one line of
# text: backslashes, code, emphasis, brackets (links, images, ``:red[…]``), HTML and autolinks,
# entities, maths, tables, strikethrough, headings; ``_`` only where it could emphasise (not
# inside ``chunk_size``), ``:`` only before a non-space (``https://``, ``:material/x:``,
# ``:smile:``), ``.`` only in ``www.`` (an autolink), and a list or heading marker at the start.
_SYNTAX = re.compile(r"[\\`*\[\]{}<>&$|~#@]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|:(?=\S)"
                     r"|(?<=[wW]{3})\.|^[-+=>]|^\d+[.)]")
_LINE_BREAK = re.compile(r"\s*[\r\n]+\s*")


def escape(text: object) -> str:
    r"""User-supplied text as Markdown that shows exactly that text, and nothing else.

    Every character that Markdown could read as syntax is backslash-escaped, so no link,
    image, code span, emphasis, HTML, maths (``$``), Streamlit colour (``:red[…]``) or icon
    (``:material/…:``) can start inside it, and no bare ``https://``, ``www.`` or e-mail
    address becomes a link; line breaks become spaces, so the text cannot open a new block.
    Text without such characters is left as it is (``chunk_size must be 0.5: got 3``).

    Examples
    --------
    >>> print(escape("`x` [click](https://evil.example/) ![i](www.evil.example)"))
    \`x\` \[click\](https\://evil.example/) !\[i\](www\.evil.example)
    >>> print(escape("a\n\n# b _c_ d@e.f"))
    a \# b \_c\_ d\@e.f
    >>> escape("chunk_size must be 0.5: got 3"), escape("1. x"), escape("- y")
    ('chunk_size must be 0.5: got 3', '1\\. x', '\\- y')
    """
    flat = _LINE_BREAK.sub(" ", str(text))
    return _SYNTAX.sub(lambda m: f"{m.group(0)[:-1]}\\{m.group(0)[-1]}", flat)


def code(text: object) -> str:
    """User-supplied text as a Markdown code span that no character of it can close.

    The fence is one backtick longer than the longest run of backticks in the text, padded
    with spaces where the text starts or ends with a backtick (CommonMark strips one space
    each side); line breaks become spaces, so the span cannot be cut by a blank line.

    Examples
    --------
    >>> code("seed=1")
    '`seed=1`'
    >>> code("seed=`x` [click](https://evil.example/)")
    '`` seed=`x` [click](https://evil.example/) ``'
    """
    flat = _LINE_BREAK.sub(" ", str(text))
    fence = "`" * (max((len(r) for r in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if "`" in flat or flat.startswith(" ") or flat.endswith(" ") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def quoted_markdown(text: str) -> str:
    r"""A library sentence that quotes names in backticks as Markdown: names as code spans.

    The text between backtick pairs goes through :func:`code`, the rest through
    :func:`escape`, so a quoted name shows as code and no part of the text can start
    Markdown of its own (an odd backtick is text).

    Examples
    --------
    >>> print(quoted_markdown("label: column `y_true` (a usual name)"))
    label: column `y_true` (a usual name)
    >>> print(quoted_markdown("column `[x](https://evil.example/)` and `a`b`"))
    column `[x](https://evil.example/)` and `a`b\`
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd backtick: the last one is text
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    return "".join(code(p) if i % 2 else escape(p) for i, p in enumerate(parts))


def reason_markdown(text: str) -> str:
    r"""A registry message (a sentence, then numbered ways out) as Markdown, text escaped.

    The ``pudd_core.streams`` messages list "1. ... 2. ... 3. ..." on indented lines, some
    continued on the next line; each numbered way becomes a list item. Every piece of text
    goes through :func:`escape` (messages quote paths, names and values a user gave).

    Examples
    --------
    >>> print(reason_markdown("No file [x].\n  1. copy it;\n     there\n  2. or not"))
    No file \[x\].
    <BLANKLINE>
    1. copy it; there
    2. or not
    """
    lines = [line.strip() for line in text.splitlines()]
    head, items = (lines[0] if lines else ""), []
    for line in lines[1:]:
        if _ITEM.match(line):
            items.append(line)
        elif line and items:
            items[-1] += " " + line
        elif line:
            head += " " + line
    if not items:
        return escape(head)
    listed = [f"{number} {escape(rest)}" for number, _, rest in
              (item.partition(" ") for item in items)]
    return "\n".join([escape(head), "", *listed])


def show_error(where: Any, label: str, err: BaseException, hint: str = "") -> None:
    """``where.error``: **label**: the message, then what to do.

    The message is escaped (:func:`reason_markdown`): errors quote what a user gave.
    """
    where.error(f"**{label}**: {reason_markdown(str(err))}" + (f"\n\n{hint}" if hint else ""),
                icon=":material/error:")


def missing_data(where: Any, label: str, info: Any, *, key: str) -> None:
    """A stream whose data file is not on the server: what to download, or where to copy it.

    Offers the library's checksum-verified download, says where a copy goes, and keeps the
    library's own instructions for Python users one click away.

    ``where`` is an ``st.empty`` slot (or a container); ``info`` a ``StreamInfo``. A finished
    download clears the registry's cached availability and reruns the page.
    """
    import urllib.error

    import streamlit as st

    from pudd_core.streams import data_source, load_stream
    from ui import cache

    box = where.container()
    source = data_source(info.name)
    if source is None:  # not a file problem (e.g. a missing package): the reason says what
        box.error(f"**{label}**: {info.title} cannot be loaded here: "
                  f"{reason_markdown(info.unavailable_reason or '')}", icon=":material/error:")
        return
    box.error(f"**{label}**: the data of {info.title} (`{source.file}`) is not on this server "
              "yet.", icon=":material/cloud_off:")
    size = f", {source.size / 1e6:.1f} MB" if source.size else ""
    if source.downloadable and box.button(
            f"Download {info.title}{size}", key=f"{key}_download", icon=":material/download:",
            help="Fetches the file from its source into this server's data cache and checks "
                 "its checksum; nothing else is changed."):
        try:
            with box.status(f"Downloading {info.title} …") as status:
                load_stream(info.name, download=True, n_chunks=2)
                status.update(label=f"{info.title} downloaded and verified", state="complete")
        except (urllib.error.URLError, OSError, ValueError) as err:
            box.error(f"The download did not work: {escape(err)}. If this server has no internet "
                      f"access, copy the file to {code(source.cache_path)} on the server (or into "
                      "the folder named by the PUDD_DATA_DIR variable), then reload the page.",
                      icon=":material/error:")
        else:
            cache.streams.clear()
            st.rerun()
    box.caption(f"Or copy the file to {code(source.cache_path)} on the server (or into the folder "
                "named by the PUDD_DATA_DIR variable) and reload the page.")
    with box.expander("For Python users: every way to provide it"):
        st.markdown(reason_markdown(info.unavailable_reason or ""))
