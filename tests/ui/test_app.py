"""The ``rockskills-gui`` entry point: screenshots, bad paths, the demo library."""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from rockskills_gui.ui.shell import app
from tests.ui.conftest import make_writable


def distinct_colours(image: QImage, step: int = 23) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), step)
                for y in range(0, image.height(), step)})


def test_screenshot_writes_a_png_of_the_window(agent: Path, tmp_path: Path) -> None:
    out = tmp_path / "shots" / "main.png"
    assert app.main([str(agent), "--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    assert distinct_colours(image) > 5  # not a blank window


def test_screenshot_with_size_pane_and_selection(agent: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "recall.png"
    code = app.main([str(agent / "skills"), "--pane", "recall", "--select", "mcp/email",
                     "--size", "1000x700", "--screenshot", str(out)])
    assert code == 0
    assert capsys.readouterr().err == ""
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 700)


def test_screenshot_of_an_unknown_skill_warns_but_succeeds(agent: Path, tmp_path: Path,
                                                            capsys) -> None:
    out = tmp_path / "x.png"
    assert app.main([str(agent), "--select", "nope", "--screenshot", str(out)]) == 0
    assert "no skill named 'nope'" in capsys.readouterr().err
    assert out.is_file()


def test_bad_path_with_screenshot_exits_2_with_one_line(tmp_path: Path, capsys) -> None:
    out = tmp_path / "never.png"
    assert app.main([str(tmp_path / "missing"), "--screenshot", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("\n")
    assert err.startswith("rockskills-gui: ") and "no such file or directory" in err
    assert not out.exists()


def test_not_a_library_with_screenshot_exits_2(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert app.main([str(tmp_path / "empty"), "--screenshot", str(tmp_path / "o.png")]) == 2
    assert "not a RockBot library" in capsys.readouterr().err


def test_screenshot_does_not_touch_the_recent_list(agent: Path, tmp_path: Path) -> None:
    from rockskills_gui.core.app.recent import RecentLibraries

    assert app.main([str(agent), "--screenshot", str(tmp_path / "o.png")]) == 0
    assert RecentLibraries().paths() == []


def test_without_a_path_the_demo_library_is_installed_and_opened(
        agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path] = []

    def install_demo(dest: Path, now: object = None) -> Path:
        calls.append(dest)
        if not dest.exists():
            shutil.copytree(agent, dest)
            make_writable(dest)
        return dest

    fake = types.ModuleType("rockskills_gui.core.app.demo")
    fake.install_demo = install_demo  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rockskills_gui.core.app.demo", fake)
    out = tmp_path / "demo.png"
    assert app.main(["--screenshot", str(out), "--select", "mcp/email"]) == 0
    from rockskills_gui.core.storage.appdirs import demo_library_dir

    assert calls == [demo_library_dir()]
    assert out.is_file()


def test_missing_demo_module_is_a_clear_error(tmp_path: Path, capsys,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rockskills_gui.core.app.demo", None)  # import fails
    assert app.main(["--screenshot", str(tmp_path / "o.png")]) == 2
    assert "demo library" in capsys.readouterr().err


def test_version_and_usage_errors(capsys) -> None:
    assert app.main(["--version"]) == 0
    assert "rockskills-gui 0.1.0" in capsys.readouterr().out
    assert app.main(["--size", "huge"]) == 2
    assert app.main(["--pane", "nowhere"]) == 2


@pytest.mark.parametrize("argv", [[], ["lib"], ["a folder/with spaces"], [""], ["x.json"]])
def test_the_usual_start_reads_as_the_parser_would(argv: list[str]) -> None:
    assert vars(app.parse_args(argv)) == vars(app.build_parser().parse_args(argv))


def test_options_go_through_the_parser() -> None:
    assert app.parse_args(["lib", "--pane", "recall"]).pane == "recall"
    with pytest.raises(SystemExit):
        app.parse_args(["lib", "--pane", "nowhere"])


def test_parse_size() -> None:
    assert app.parse_size("1400x900") == (1400, 900)
    assert app.parse_size(" 800 X 600 ") == (800, 600)
    with pytest.raises(Exception, match="WIDTHxHEIGHT"):
        app.parse_size("1400")


def test_interactive_start_opens_selects_and_quits(agent: Path, qapp) -> None:
    from PySide6.QtCore import QTimer

    from rockskills_gui.ui.shell.main_window import MainWindow

    seen: dict[str, object] = {}

    def poll() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow)]
        window = windows[0] if windows else None
        if window is None or window.ctx.library is None:
            QTimer.singleShot(20, poll)
            return
        QTimer.singleShot(20, lambda: finish(window))

    def finish(window: MainWindow) -> None:
        seen["skills"] = window.skills_label.text()
        seen["current"] = window.ctx.current_skill
        seen["tab"] = window.tabs.currentWidget() is window.recall_pane
        seen["visible"] = window.isVisible()
        qapp.exit(0)  # not quit(): after quit() later tests stopped receiving queued signals

    QTimer.singleShot(0, poll)
    assert app.main([str(agent), "--select", "MCP/Calendar", "--pane", "recall"]) == 0
    assert seen == {"skills": "24 skills", "current": "mcp/calendar", "tab": True,
                    "visible": True}
    from rockskills_gui.core.app.recent import RecentLibraries

    assert RecentLibraries().paths() == [agent.resolve()]
