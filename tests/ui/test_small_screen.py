"""Issue 35 item 4: the window and the Dream wizard on a 1280×720 screen (the offscreen platform
given that screen: ``QT_QPA_PLATFORM=offscreen:configfile=…``, in a child process each)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def probe(tmp_path: Path, library: Path, screen: tuple[int, int], *options: str) -> dict:
    config = tmp_path / f"screen-{screen[0]}x{screen[1]}.json"
    config.write_text(json.dumps({"screens": [{
        "name": "probe", "x": 0, "y": 0, "width": screen[0], "height": screen[1],
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    done = subprocess.run([sys.executable, "-m", "tests.ui.screen_probe", str(library), *options],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def inside(rect: list[int], screen: list[int]) -> bool:
    x, y, w, h = rect
    sx, sy, sw, sh = screen
    return sx <= x and sy <= y and x + w <= sx + sw and y + h <= sy + sh


@pytest.fixture
def small(tmp_path: Path, agent: Path) -> dict:
    return probe(tmp_path, agent, (1280, 720), "--wizard")


def test_a_fresh_window_fits_a_1280x720_screen(small: dict) -> None:
    assert inside(small["frame"], small["screen"]), small
    assert inside(small["status"], small["screen"]), small
    if small["problems"] is not None:
        assert inside(small["problems"], small["screen"]), small


def test_the_dream_wizard_and_its_buttons_fit_and_the_key_note_is_whole(small: dict) -> None:
    assert inside(small["wizard"], small["screen"]), small
    for button in small["buttons"]:
        assert inside(button, small["screen"]), small
    height, needed = small["note"]
    assert height >= needed, small


def test_a_layout_from_a_big_screen_reopens_whole_on_a_small_one(tmp_path: Path, agent: Path) -> None:
    probe(tmp_path, agent, (1920, 1080), "--resize", "1800x1000")  # quit at that size
    big = probe(tmp_path, agent, (1920, 1080))
    assert big["frame"][2] >= 1800 and big["frame"][3] >= 1000, big  # restored where it fits
    small = probe(tmp_path, agent, (1280, 720))
    assert inside(small["frame"], small["screen"]), small
    assert small["frame"][2] >= 1200 and small["frame"][3] >= 650, small  # not shrunk to a corner
    assert inside(small["status"], small["screen"]), small
    twice = probe(tmp_path, agent, (1280, 720))
    assert twice["frame"][2:] == small["frame"][2:]  # and saved at that size, not smaller


def test_the_problems_dock_opens_with_room_for_rows_at_1400x900(tmp_path: Path, agent: Path) -> None:
    (agent / "skills" / "broken.json").write_text("{ not json")  # one load problem: dock shown
    shown = probe(tmp_path, agent, (1920, 1080))
    assert shown["frame"][2:] == [1404, 904], shown  # the default size, with the offscreen frame
    assert shown["problems"] is not None and shown["problems"][3] >= 240, shown  # not ~3 rows
