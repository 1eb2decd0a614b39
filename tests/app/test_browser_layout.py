"""What a projector at 1024 x 768 shows of the explorer (issue 25's "Smaller" list).

The explorer with four PUDD settings: the player used to start about 1,500 px down, under the
settings; its alarm lanes' labels took half the plot and the settings shared colours with the
baselines. The fixtures (one Chromium, one app server) are tests/app/conftest.py's.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.browser import EXPLORER, PLAYER, assert_no_exception, settle, wait_for_player
from tests.app.test_browser import _four_link

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1024, "height": 768}


def test_with_four_settings_the_player_starts_near_the_top_at_1024_px(
    page: Any, app_url: str
) -> None:
    page.set_viewport_size(PROJECTOR)
    page.goto(_four_link(app_url, "&baselines=adwin,ddm,eddm,hddma,hddmw,kswin,pagehinkley"))
    settle(page, EXPLORER)
    frame = wait_for_player(page, 19, timeout=180_000)
    assert_no_exception(page)
    top = page.evaluate(f"() => document.querySelector('{PLAYER}').getBoundingClientRect().top"
                        " + document.querySelector('[data-testid=\"stMain\"]').scrollTop")
    settings = page.get_by_role("heading", name="Settings").bounding_box()
    assert top < 600, top  # under the title and the introduction (it was about 1,500 px)
    assert settings is not None and settings["y"] > top
    # eleven lanes (four settings, seven baselines): each named, none wider than the plot's half
    widths = frame.evaluate("""() => {
        const g = document.querySelector('#c-trace');
        const labels = [...g.querySelectorAll('.yaxislayer-above text')];
        return {plot: g._fullLayout.xaxis._length,
                widest: Math.max(...labels.map(t => t.getBoundingClientRect().width))};
    }""")
    assert widths["widest"] < widths["plot"] / 2, widths
    colours = frame.evaluate("""() => document.getElementById('c-trace').data
        .filter(t => t.name.endsWith(' error rate')).map(t => t.line.color)""")
    assert len(colours) == 11 and len(set(colours)) == 11, colours
