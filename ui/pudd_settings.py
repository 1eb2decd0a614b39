"""The Stream explorer's PUDD settings: up to four rows of a threshold and variant options.

The canonical value is ``state.EXPLORER_SETTINGS``, one link text per setting
(``"5,cut_points=all"``, :attr:`pudd_core.views.explorer.PUDDSetting.text`). Each row's
widgets are seeded from its text and write it back on change; a text a link brought that
does not parse, or that repeats another setting, is explained under its row and that
setting alone is left out of the run.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from pudd_core.plots.stream import SETTING_COLOURS
from pudd_core.views.explorer import (
    MAX_SEEDS,
    MAX_SETTINGS,
    VARIANTS,
    PUDDSetting,
    read_setting,
)
from ui import controls, messages, state

_GENERATION = "explorer_settings_generation"  # widget keys start afresh after add/remove
_LABELS = {"cut_points": "Cut points", "skip_rule": "Skip rule", "clamp_min": "Count floor",
           "yates": "Yates", "partition": "Partition", "cache_buckets": "Cache buckets",
           "refit": "Refit"}
_WORDS = {"pow2": "powers of 2", "all": "all", "accuracy": "accuracy", "pu_mean": "PU mean",
          None: "none (test all)", "pu": "PU buckets", "ek": "EK (ablation)",
          "every": "every old window fitted", "doubling": "fits on doubling old windows"}


def _key(i: int, name: str) -> str:
    return state.free_widget_key(f"explorer_s{st.session_state.get(_GENERATION, 0)}_{i}_{name}")


def _texts() -> list[str]:
    return list(state.get(state.EXPLORER_SETTINGS))


def _set_texts(texts: list[str]) -> None:
    st.session_state[state.EXPLORER_SETTINGS] = tuple(texts)


def _changed(i: int) -> None:
    """A row's widget changed: its setting's text, rebuilt from the row's widgets."""
    exponent = int(st.session_state[_key(i, "alpha")])
    options = {name: st.session_state[_key(i, name)] for name in VARIANTS}
    texts = _texts()
    texts[i] = PUDDSetting(exponent, tuple(options.items())).text
    _set_texts(texts)


def _add() -> None:
    texts = _texts()
    used = {read_setting(t)[0].alpha_exponent for t in texts}
    exponent = next((x for x in (5, 1, 7, 2, 4, 6) if x not in used), 3)
    _set_texts([*texts, str(exponent)])
    st.session_state[_GENERATION] = st.session_state.get(_GENERATION, 0) + 1


def _remove(i: int) -> None:
    texts = _texts()
    del texts[i]
    _set_texts(texts)
    st.session_state[_GENERATION] = st.session_state.get(_GENERATION, 0) + 1


def _help(name: str) -> str:
    option = VARIANTS[name]
    default = _WORDS.get(option.default, option.default)
    online = ("" if option.online else
              "\n\nOnly the chunk detector (`ChunkPUDD`) has this option: the online `PUDD` "
              "(Algorithm 2) lacks it.")
    return (f"`{name}` of `ChunkPUDD` (default: `{option.default}`, {default}).\n\n"
            f"{option.help}{online}")


def _option_widget(where: Any, i: int, name: str, setting: PUDDSetting) -> None:
    option = VARIANTS[name]
    value = setting.value(name)
    common = {"key": _key(i, name), "on_change": _changed, "args": (i,), "help": _help(name)}
    if option.choices is None:
        low, high = option.bounds or (0, None)  # read_setting keeps a link's value inside
        where.number_input(_LABELS[name], min_value=low, max_value=high, step=1,
                           value=int(value), **common)
    elif isinstance(option.default, bool):
        where.checkbox(_LABELS[name], value=bool(value), **common)
    else:  # the library's own values, as a link writes them
        where.selectbox(_LABELS[name], option.choices, index=option.choices.index(value),
                        format_func=lambda v: "none" if v is None else str(v), **common)


def settings_controls() -> tuple[PUDDSetting, ...]:
    """Draw the setting rows; return the settings to run (those without a problem)."""
    texts = _texts()[:MAX_SETTINGS]
    good: list[PUDDSetting] = []
    labels: dict[str, int] = {}
    st.markdown("**PUDD settings**: each runs on its own copy of the model, in its own colour "
                "in every chart. Hover over an option's label for what it does.")
    for i, text in enumerate(texts):
        setting, problems = read_setting(text)
        colour = SETTING_COLOURS[i % len(SETTING_COLOURS)]
        # two rows, so that every option shows its whole value at 1024 px (one row of seven
        # cut "accuracy" to "accurac…" and "Cache buckets" to "Cache b…" even at 1280 px)
        top = st.columns([1.9, 1.0, 1.2, 0.5], vertical_alignment="bottom")
        low = st.columns([1.0, 1.0, 0.8, 1.4, 1.1], vertical_alignment="bottom")
        top[0].select_slider(
            f"Setting {i + 1}: α", options=list(range(1, 11)),
            value=setting.alpha_exponent, format_func=controls.alpha_label,
            key=_key(i, "alpha"), on_change=_changed, args=(i,),
            help="A test alarms when its p-value is below α; the paper's PUDD-x uses "
                 f"α = 10⁻ˣ. This setting's colour in the charts: {colour}.")
        places = {"cut_points": top[1], "skip_rule": top[2], "clamp_min": low[0],
                  "partition": low[1], "yates": low[2], "cache_buckets": low[3],
                  "refit": low[4]}
        for name in VARIANTS:
            _option_widget(places[name], i, name, setting)
        if len(texts) > 1:
            top[3].button(":material/close:", key=_key(i, "remove"), on_click=_remove,
                           args=(i,), help=f"Remove setting {i + 1}")
        same = labels.get(setting.label)
        if problems:
            st.error(f"**Setting {i + 1}** is left out of the run; the others run. "
                     + " ".join(f"{messages.escape(p)}." for p in problems)
                     + " Change any of its controls to use what they show.",
                     icon=":material/error:")
        elif same is not None:
            st.warning(f"**Setting {i + 1}** is the same as setting {same + 1} "
                       f"({setting.label}), so it is not run twice: change one of its "
                       "options or remove it.", icon=":material/content_copy:")
        else:
            labels[setting.label] = i
            good.append(setting)
            notes = setting.notes()
            st.caption(f"<span style='color:{colour}'>■</span> **{setting.label}**"
                       + (": " + " ".join(notes) if notes else ""), unsafe_allow_html=True)
    if len(texts) < MAX_SETTINGS:
        st.button("Add a PUDD setting", icon=":material/add:", on_click=_add,
                  key="explorer_add_setting",
                  help=f"Up to {MAX_SETTINGS} settings side by side, each its own run.")
    return tuple(good)


def seeds_controls(where: Any) -> tuple[int, bool]:
    """The number of seeds and, with several, whether to show the band (else one seed)."""
    seeds = where.number_input(
        "Seeds", min_value=1, max_value=MAX_SEEDS, step=1,
        key=state.widget_key(state.EXPLORER_SEEDS), on_change=state.commit,
        args=(state.EXPLORER_SEEDS,),
        help="Runs every detector with seeds s, s + 1, …, from the sidebar's seed s on: "
             "traces show the mean with a min–max band, alarms a count of seeds per chunk.")
    band = False
    if int(seeds) > 1:
        seed = int(state.get(state.SEED))
        # The labels must not depend on the seed count or the seed: the browser sends back
        # the label it shows, and a label that no longer exists after a change is taken as a
        # value of its own (nothing ticked, one seed shown, the label in the link).
        view = where.radio(
            "Show", ("band", "one"), horizontal=True, format_func=_SEED_VIEWS.__getitem__,
            key=state.widget_key(state.EXPLORER_SEED_VIEW), on_change=state.commit,
            args=(state.EXPLORER_SEED_VIEW,),
            help=f"All {int(seeds)} seeds: the mean over them with a band from the smallest "
                 f"to the largest (min–max). First seed only: seed {seed}'s run. The details "
                 f"under the charts are always of seed {seed}.")
        band = view == "band"
    return int(seeds), band


_SEED_VIEWS = {"band": "all seeds", "one": "first seed only"}
