"""Input and data errors as inline messages, next to the control that caused them."""

from __future__ import annotations

import re
from typing import Any

_ITEM = re.compile(r"\d+\.\s")


def reason_markdown(text: str) -> str:
    """A registry message (a sentence, then numbered ways out) as Markdown.

    The ``pudd_core.streams`` messages list "1. ... 2. ... 3. ..." on indented lines, some
    continued on the next line; each numbered way becomes a list item.
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
    return "\n".join([head, "", *items]) if items else head


def show_error(where: Any, label: str, err: BaseException, hint: str = "") -> None:
    """``where.error``: **label**: the message (as Markdown), then what to do."""
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
            box.error(f"The download did not work: {err}. If this server has no internet "
                      f"access, copy the file to `{source.cache_path}` on the server (or into "
                      "the folder named by the PUDD_DATA_DIR variable), then reload the page.",
                      icon=":material/error:")
        else:
            cache.streams.clear()
            st.rerun()
    box.caption(f"Or copy the file to `{source.cache_path}` on the server (or into the folder "
                "named by the PUDD_DATA_DIR variable) and reload the page.")
    with box.expander("For Python users: every way to provide it"):
        st.markdown(reason_markdown(info.unavailable_reason or ""))
