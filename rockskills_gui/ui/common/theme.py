"""The one theme: a light and a dark palette (Fusion style), chosen by setting or by the system.

Widgets never pick a colour; they pick a palette *role* (or a font) through these helpers, so
switching between light and dark restyles everything at once. This module is the only place in
the UI where colours are written down (tests/ui/test_theme.py checks that).
"""

from __future__ import annotations

from typing import Literal, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

APP_ID = "io.github.rockskills.RockskillsGui"  # the .desktop file and AppStream id
STYLE = "Fusion"  # honours the palette fully on every platform
Kind = Literal["light", "dark"]
W = TypeVar("W", bound=QWidget)  # the helpers hand back the widget they were given, as its own type

R = QPalette.ColorRole
G = QPalette.ColorGroup

# role: (active/inactive colour, disabled colour or None for the same)
LIGHT: dict[QPalette.ColorRole, tuple[str, str | None]] = {
    R.Window: ("#f3f4f6", None),
    R.WindowText: ("#1f2328", "#8c959f"),
    R.Base: ("#ffffff", "#f6f7f9"),
    R.AlternateBase: ("#f6f8fa", None),
    R.Text: ("#1f2328", "#8c959f"),
    R.PlaceholderText: ("#5f6873", "#a3aab2"),  # 5.1:1 on Window: WCAG AA for hints
    R.Button: ("#eceef1", "#f0f1f3"),
    R.ButtonText: ("#1f2328", "#8c959f"),
    R.BrightText: ("#ffffff", None),
    R.Light: ("#ffffff", None),
    R.Midlight: ("#e3e6ea", None),
    R.Mid: ("#c2c7ce", None),
    R.Dark: ("#9aa1aa", None),
    R.Shadow: ("#5c636b", None),
    R.Highlight: ("#2d6cdf", "#c9d1dc"),
    R.HighlightedText: ("#ffffff", "#f6f8fa"),
    R.Accent: ("#2d6cdf", "#9aa1aa"),
    R.Link: ("#0a5bc4", "#8c959f"),
    R.LinkVisited: ("#6e40c9", "#8c959f"),
    R.ToolTipBase: ("#2b3036", None),
    R.ToolTipText: ("#f3f4f6", None),
}
DARK: dict[QPalette.ColorRole, tuple[str, str | None]] = {
    R.Window: ("#202329", None),
    R.WindowText: ("#e3e6ea", "#6e7681"),
    R.Base: ("#17191e", "#1c1f24"),
    R.AlternateBase: ("#1d2026", None),
    R.Text: ("#e3e6ea", "#6e7681"),
    R.PlaceholderText: ("#939ba5", "#5d646d"),
    R.Button: ("#2b2f37", "#25282e"),
    R.ButtonText: ("#e3e6ea", "#6e7681"),
    R.BrightText: ("#ffffff", None),
    R.Light: ("#3b4049", None),
    R.Midlight: ("#333841", None),
    R.Mid: ("#454b55", None),
    R.Dark: ("#121418", None),
    R.Shadow: ("#07080a", None),
    R.Highlight: ("#3b79e6", "#3a3f48"),
    R.HighlightedText: ("#ffffff", "#9aa1aa"),
    R.Accent: ("#5b95f5", "#5d646d"),
    R.Link: ("#6cb1ff", "#6e7681"),
    R.LinkVisited: ("#b89cff", "#6e7681"),
    R.ToolTipBase: ("#2f333b", None),
    R.ToolTipText: ("#e3e6ea", None),
}

# What a diff strikes through (the text a merge source loses): (background, text) per theme. No
# palette role fits (Mid under Text is grey on grey in the dark theme); both pairs keep a WCAG
# contrast ratio above 6.5:1, and the red tint sets the word apart from its removed line.
STRUCK: dict[Kind, tuple[str, str]] = {
    "light": ("#ffc1bd", "#82071e"),
    "dark": ("#6e2a30", "#ffdcd9"),
}


def struck_colours(palette: QPalette) -> tuple[QColor, QColor]:
    """``(background, text)`` for struck-through diff words under ``palette`` (light or dark)."""
    background, text = STRUCK["dark" if palette.color(R.Window).lightness() < 128 else "light"]
    return QColor(background), QColor(text)


def _luminance(colour: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4
    return (0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF()))


def contrast(a: QColor, b: QColor) -> float:
    """The WCAG contrast ratio of two opaque colours (1 to 21)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(colour: QColor, background: QColor, ratio: float = 4.5) -> QColor:
    """``colour`` darkened (on a light background) or lightened (on a dark one) until text in it
    reads at WCAG AA (``ratio``) against ``background``; the hue stays."""
    result = QColor(colour)
    darken = background.lightness() >= 128
    for _ in range(40):
        if contrast(result, background) >= ratio:
            break
        lightness = result.lightness()
        result = QColor.fromHsl(max(result.hslHue(), 0), result.hslSaturation(),
                                max(0, lightness - 8) if darken else min(255, lightness + 8),
                                result.alpha())
    return result


def build_palette(kind: Kind) -> QPalette:
    """The light or dark palette (every role in every group)."""
    table = DARK if kind == "dark" else LIGHT
    palette = QPalette()
    for role, (normal, disabled) in table.items():
        colour = QColor(normal)
        for group in (G.Active, G.Inactive):
            palette.setColor(group, role, colour)
        palette.setColor(G.Disabled, role, QColor(disabled) if disabled else colour)
    return palette


def system_prefers_dark(app: QGuiApplication) -> bool:
    """True when the desktop asks for a dark colour scheme (Qt 6.5+ style hints)."""
    return app.styleHints().colorScheme() == Qt.ColorScheme.Dark


def resolve_kind(app: QGuiApplication, mode: str) -> Kind:
    """``light``/``dark`` as asked; ``system`` follows the desktop's colour scheme."""
    if mode == "light":
        return "light"
    if mode == "dark":
        return "dark"
    return "dark" if system_prefers_dark(app) else "light"


def set_identity(app: QApplication) -> None:
    """Names the desktop uses for this application (window grouping, the .desktop file)."""
    app.setApplicationName("rockskills-gui")
    app.setApplicationDisplayName("rockskills-gui")
    app.setOrganizationName("rockskills")
    app.setDesktopFileName(APP_ID)


def apply_theme(app: QApplication, mode: str = "system") -> Kind:
    """Set the identity, the Fusion style and the light or dark palette; returns which one.

    Every widget without a palette of its own is restyled (Qt sends it a PaletteChange).
    """
    set_identity(app)
    if app.style().name().casefold() != STYLE.casefold():
        app.setStyle(STYLE)
    kind = resolve_kind(app, mode)
    app.setPalette(build_palette(kind))
    app.setProperty("rockskillsTheme", kind)
    for widget in app.allWidgets():  # style sheets resolve palette(...) when they are polished
        sheet = widget.styleSheet()
        if "palette(" in sheet:
            widget.setStyleSheet("")
            widget.setStyleSheet(sheet)
    return kind


def current_kind(app: QApplication) -> Kind:
    """The palette in force, judged by its window colour (for widgets that need to know)."""
    return "dark" if app.palette().color(R.Window).lightness() < 128 else "light"


def secondary(widget: W) -> W:
    """Show ``widget``'s text in the palette's de-emphasised role (hints, notes, counters)."""
    widget.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return widget


def heading(widget: W, scale: float = 1.35, bold: bool = True) -> W:
    """Enlarge ``widget``'s font relative to the application font."""
    font = QFont(widget.font())
    size = font.pointSizeF()
    if size > 0:
        font.setPointSizeF(size * scale)
    font.setBold(bold)
    widget.setFont(font)
    return widget


def monospace(widget: W) -> W:
    """The system fixed-pitch font (for Markdown source and file contents)."""
    widget.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return widget
