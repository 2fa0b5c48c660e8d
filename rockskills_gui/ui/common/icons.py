"""SVG icons that follow the theme, drawn sharp at any size and device pixel ratio.

The icons in ``resources/icons`` are drawn in ``currentColor``. :class:`ThemedSvgEngine` paints
them with a colour taken from the application palette *when painted* (window text; disabled
text; highlighted text when selected), so a theme switch recolours every icon on its next paint
without rebuilding anything.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QGuiApplication, QIcon, QIconEngine, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

from rockskills_gui.resources import resource_dir

APP_ICON = "rockskills-gui"
_CACHE_LIMIT = 64


@cache
def icons_dir() -> Path | None:
    """The bundled icon folder, or None when this copy ships without it."""
    try:
        return resource_dir("icons")
    except FileNotFoundError:
        return None


def icon_path(name: str) -> Path | None:
    folder = icons_dir()
    path = folder / f"{name}.svg" if folder is not None else None
    return path if path is not None and path.is_file() else None


def icon_colour_role(mode: QIcon.Mode) -> tuple[QPalette.ColorGroup, QPalette.ColorRole]:
    """Which palette colour an icon is drawn in for ``mode``."""
    if mode == QIcon.Mode.Disabled:
        return QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText
    if mode == QIcon.Mode.Selected:
        return QPalette.ColorGroup.Active, QPalette.ColorRole.HighlightedText
    return QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText


class ThemedSvgEngine(QIconEngine):
    """Renders one ``currentColor`` SVG in the palette's colour for the icon mode."""

    def __init__(self, svg: bytes, name: str = "") -> None:
        super().__init__()
        self._svg = svg
        self._name = name
        self._pixmaps: dict[tuple[int, int, int, int, int], QPixmap] = {}

    def _renderer(self, mode: QIcon.Mode) -> tuple[QSvgRenderer, int]:
        group, role = icon_colour_role(mode)
        colour = QGuiApplication.palette().color(group, role)
        svg = self._svg.replace(b"currentColor", colour.name().encode("ascii"))
        return QSvgRenderer(QByteArray(svg)), colour.rgba()

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        renderer, _rgba = self._renderer(mode)
        renderer.render(painter, QRectF(rect))

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State,
                     scale: float) -> QPixmap:
        scale = max(scale, 1.0)
        renderer, rgba = self._renderer(mode)
        key = (size.width(), size.height(), int(scale * 100), int(mode.value), rgba)
        cached = self._pixmaps.get(key)
        if cached is not None:
            return cached
        image = QImage(max(1, round(size.width() * scale)), max(1, round(size.height() * scale)),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter, QRectF(image.rect()))
        painter.end()
        pixmap = QPixmap.fromImage(image)
        pixmap.setDevicePixelRatio(scale)
        if len(self._pixmaps) >= _CACHE_LIMIT:
            self._pixmaps.clear()
        self._pixmaps[key] = pixmap
        return pixmap

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        return size

    def iconName(self) -> str:
        return self._name

    def clone(self) -> QIconEngine:
        return ThemedSvgEngine(self._svg, self._name)


def themed_icon(name: str) -> QIcon | None:
    """The bundled ``name.svg`` as an icon that follows the palette, or None if not shipped."""
    path = icon_path(name)
    if path is None:
        return None
    return QIcon(ThemedSvgEngine(path.read_bytes(), name))


APP_ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)  # what a platform asks of a scalable icon


def app_icon() -> QIcon:
    """The application icon (a full-colour SVG), drawn at whatever size and scale it is asked
    for, when asked (Qt's SVG icon engine; without it, the rendered sizes as pixmaps)."""
    path = icon_path(APP_ICON)
    if path is None:
        return QIcon()
    if _svg_icon_engine():
        return QIcon(str(path))  # rendered on demand: nothing drawn before the first paint
    renderer = QSvgRenderer(str(path))
    icon = QIcon()
    for side in APP_ICON_SIZES:
        for scale in (1, 2):
            image = QImage(side * scale, side * scale, QImage.Format.Format_ARGB32_Premultiplied)
            image.fill(Qt.GlobalColor.transparent)
            painter = QPainter(image)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            renderer.render(painter, QRectF(image.rect()))
            painter.end()
            pixmap = QPixmap.fromImage(image)
            pixmap.setDevicePixelRatio(scale)
            icon.addPixmap(pixmap)
    return icon


@cache
def _svg_icon_engine() -> bool:
    """Qt's SVG icon engine plugin is installed (PySide6's wheels ship it)."""
    from PySide6.QtCore import QCoreApplication

    for folder in QCoreApplication.libraryPaths():
        engines = Path(folder) / "iconengines"
        if engines.is_dir() and any("svg" in p.name.casefold() for p in engines.iterdir()):
            return True
    return False
