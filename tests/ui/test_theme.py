"""One palette-based theme, light and dark: no colour chosen outside the theme module, every
widget and icon follows a switch, the preview and the highlighting are recoloured."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from rockskills_gui.ui.common.actions import ACTIONS
from rockskills_gui.ui.common.icons import APP_ICON_SIZES, app_icon, icons_dir, themed_icon
from rockskills_gui.ui.common.theme import (
    DARK,
    LIGHT,
    apply_theme,
    build_palette,
    current_kind,
    resolve_kind,
)
from rockskills_gui.ui.shell.main_window import MainWindow

UI = Path(__file__).resolve().parents[2] / "rockskills_gui" / "ui"
# Data colour scales, fixed on purpose (they encode values, not chrome): the heatmap's perceptual
# scales and the colour-blind-safe categorical scale of the recall contribution bars.
DATA_SCALES = {"colormap.py", "score_bar_delegate.py"}

HEX = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}(?:[0-9a-fA-F]{2})?\b")
CSS_FUNCTION = re.compile(r"\b(?:rgba?|hsla?)\(\s*\d")
CSS_NAMED = re.compile(r"(?:color|background(?:-color)?|border[-a-z]*)\s*:[^;}]*\b(?:red|green|blue|"
                       r"black|white|gr[ae]y|yellow|orange|purple|pink|brown|navy|silver)\b", re.I)
CODE_COLOUR = re.compile(r"QColor\(\s*(?:\d|[\"'])|QColor\.from(?:Rgb|Hsv|Hsl)\w*\(\s*\d"
                         r"|Qt\.(?:GlobalColor\.)?(?!transparent\b)(?:red|green|blue|black|white|"
                         r"gray|darkGray|lightGray|yellow|cyan|magenta|dark\w+)\b")


def hard_coded_colours(source: str) -> list[str]:
    """Colours written in ``source``: hex or CSS colours in strings, literal QColor(...) in code."""
    found: list[str] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING:
            text = token.string
            found += HEX.findall(text) + CSS_FUNCTION.findall(text) + CSS_NAMED.findall(text)
    code = "\n".join(line.split("#", 1)[0] if not HEX.search(line) else line
                     for line in source.splitlines())
    found += [m.group(0) for m in CODE_COLOUR.finditer(code)]
    return found


def test_the_scanner_finds_what_it_must() -> None:
    bad = ('label.setStyleSheet("color: #ff0000")\nQColor(12, 34, 56)\nQColor("red")\n'
           'w.setStyleSheet("background: white")\nx = Qt.GlobalColor.black\n'
           'y = "rgb(1, 2, 3)"\n')
    assert len(hard_coded_colours(bad)) == 6
    good = ('w.setStyleSheet("background: palette(base)")\nQColor(palette.color(role))\n'
            'image.fill(Qt.GlobalColor.transparent)\n# a comment about #fff\nname = "#skillBadge"\n')
    assert hard_coded_colours(good) == []


def ui_modules() -> Iterator[Path]:
    for path in sorted(UI.rglob("*.py")):
        if path.name not in DATA_SCALES and path.name != "theme.py":
            yield path


@pytest.mark.parametrize("path", list(ui_modules()), ids=lambda p: str(p.relative_to(UI)))
def test_no_colour_is_hard_coded_outside_the_theme(path: Path) -> None:
    found = hard_coded_colours(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name} chooses colours {found}: use a palette role (ui/theme.py)"


def test_both_palettes_define_every_role_readably() -> None:
    assert set(LIGHT) == set(DARK)
    for table, kind in ((LIGHT, "light"), (DARK, "dark")):
        palette = build_palette(kind)  # type: ignore[arg-type]
        window = palette.color(QPalette.ColorRole.Window)
        text = palette.color(QPalette.ColorRole.WindowText)
        assert (window.lightness() > 128) == (kind == "light")
        assert abs(window.lightness() - text.lightness()) > 150  # readable contrast
        for role in table:
            assert palette.color(QPalette.ColorGroup.Disabled, role).isValid()


@pytest.fixture
def themed(qapp) -> Iterator[QApplication]:
    yield qapp
    apply_theme(qapp, "light")


def mean_lightness(image: QImage, step: int = 17) -> float:
    values = [QColor(image.pixel(x, y)).lightness() for x in range(0, image.width(), step)
              for y in range(0, image.height(), step)]
    return sum(values) / len(values)


def test_switching_restyles_every_widget(qtbot, window: MainWindow, themed: QApplication) -> None:
    window.ctx.select_skill("mcp/email")
    window.show_pane("editor")
    window.commands["view.theme_light"].trigger()
    qtbot.wait(50)
    light = window.grab().toImage()
    window.commands["view.theme_dark"].trigger()  # saved in the settings, applied at once
    assert window.ctx.prefs.theme == "dark" and current_kind(themed) == "dark"
    qtbot.wait(50)
    dark = window.grab().toImage()
    assert mean_lightness(light) > 180 and mean_lightness(dark) < 80
    base = build_palette("dark").color(QPalette.ColorRole.Base)
    viewport = window.library_pane.view.viewport()
    for widget in window.findChildren(QWidget):
        sheet = widget.styleSheet()
        assert not hard_coded_colours(f"x = {sheet!r}"), (widget.objectName(), sheet)
    assert viewport.palette().color(viewport.backgroundRole()) == base
    assert window.commands["view.theme_dark"].isChecked()


def test_preview_and_highlighting_follow_a_switch(qtbot, window: MainWindow,
                                                  themed: QApplication) -> None:
    window.ctx.select_skill("mcp/email")
    window.apply_theme_mode("light")
    pane = window.skill_pane
    light_css = pane.preview.document().defaultStyleSheet()
    window.apply_theme_mode("dark")
    dark_text = build_palette("dark").color(QPalette.ColorRole.Text).name()
    qtbot.waitUntil(lambda: pane.preview.document().defaultStyleSheet() != light_css, timeout=2000)
    assert f"body {{ color: {dark_text}; }}" in pane.preview.document().defaultStyleSheet()
    highlighter = next(iter(pane.open_buffers.highlighters.values()))
    heading = highlighter.formats["heading"].foreground().color()
    assert heading.lightness() > 128  # readable on the dark base


def icon_ink(icon: QIcon, mode: QIcon.Mode = QIcon.Mode.Normal) -> QColor:
    """The average colour of an icon's opaque pixels."""
    image = icon.pixmap(QSize(32, 32), 1.0, mode).toImage()
    pixels = [QColor.fromRgba(image.pixel(x, y)) for x in range(image.width())
              for y in range(image.height())]
    ink = [p for p in pixels if p.alpha() > 200]
    assert ink, "the icon drew nothing"
    return QColor(sum(p.red() for p in ink) // len(ink), sum(p.green() for p in ink) // len(ink),
                  sum(p.blue() for p in ink) // len(ink))


def test_icons_are_drawn_in_the_theme_colour(themed: QApplication) -> None:
    icon = themed_icon("folder-open")
    assert icon is not None
    for kind in ("light", "dark"):
        apply_theme(themed, kind)
        want = themed.palette().color(QPalette.ColorRole.WindowText)
        got = icon_ink(icon)
        assert abs(got.lightness() - want.lightness()) < 20, (kind, got.name(), want.name())
    disabled = themed.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText)
    assert abs(icon_ink(icon, QIcon.Mode.Disabled).lightness() - disabled.lightness()) < 20


def test_icons_are_sharp_at_high_dpi(themed: QApplication) -> None:
    icon = themed_icon("save")
    assert icon is not None
    pixmap = icon.pixmap(QSize(24, 24), 2.0)
    assert pixmap.devicePixelRatio() == 2.0 and pixmap.size() == QSize(48, 48)


def test_every_shipped_icon_is_used_or_the_app_icon() -> None:
    folder = icons_dir()
    assert folder is not None
    used = {s.svg for s in ACTIONS if s.svg} | {"rockskills-gui"}
    shipped = {p.stem for p in folder.glob("*.svg")}
    assert used <= shipped, used - shipped
    assert shipped - used == set(), f"unused icons: {shipped - used}"


def test_the_application_icon_renders_at_every_size(themed: QApplication) -> None:
    icon = app_icon()
    assert not icon.isNull()
    for side in APP_ICON_SIZES:  # sharp at each size and scale: drawn for it, not scaled
        for scale in (1.0, 2.0):
            pixmap = icon.pixmap(QSize(side, side), scale)
            assert pixmap.size() == QSize(round(side * scale), round(side * scale))
            image = pixmap.toImage()
            centre = round(side * scale) // 2
            assert QColor.fromRgba(image.pixel(centre, centre)).alpha() == 255, (side, scale)


def test_toolbar_actions_carry_the_themed_icons(window: MainWindow) -> None:
    for action in window.toolbar.actions():
        if not action.isSeparator():
            spec = window.commands.spec(action.objectName())
            assert spec.svg and action.icon().name() == spec.svg, action.objectName()


def test_system_mode_follows_the_desktop_scheme(themed: QApplication) -> None:
    scheme = themed.styleHints().colorScheme()
    expected = "dark" if scheme == Qt.ColorScheme.Dark else "light"
    assert resolve_kind(themed, "system") == expected
    assert apply_theme(themed, "system") == expected == current_kind(themed)
    assert resolve_kind(themed, "dark") == "dark" and resolve_kind(themed, "light") == "light"


def test_platform_icons_are_made_from_the_svg(tmp_path: Path, qapp: QApplication) -> None:
    import importlib.util

    from PySide6.QtGui import QImageReader

    spec = importlib.util.spec_from_file_location("make_icons", UI.parents[1] / "packaging" / "make_icons.py")
    assert spec is not None and spec.loader is not None
    make_icons = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_icons)
    assert make_icons.main(["make_icons.py", str(tmp_path)]) == 0
    reader = QImageReader(str(tmp_path / "windows" / "rockskills-gui.ico"))
    assert reader.imageCount() == len(make_icons.ICO_SIZES)
    icns = (tmp_path / "macos" / "rockskills-gui.icns").read_bytes()
    assert icns[:4] == b"icns" and int.from_bytes(icns[4:8], "big") == len(icns)
    png = QImage(str(tmp_path / "linux" / "hicolor" / "48x48" / "apps" /
                     f"{make_icons.APP_ID}.png"))
    assert png.width() == 48 and QColor.fromRgba(png.pixel(24, 24)).alpha() == 255
