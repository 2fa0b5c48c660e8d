"""Render the application icon (resources/icons/rockskills-gui.svg) for the platforms' packages.

    python packaging/make_icons.py [OUT_DIR]      (default: build/icons)

writes
    OUT_DIR/windows/rockskills-gui.ico          16-256 px, PNG-compressed entries (Vista and later)
    OUT_DIR/macos/rockskills-gui.icns           16-1024 px incl. @2x, PNG entries
    OUT_DIR/linux/hicolor/<n>x<n>/apps/<id>.png  for desktops that want bitmaps beside the SVG

The PyInstaller spec runs this on Windows and macOS. Qt renders the SVG (offscreen).
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "resources" / "icons" / "rockskills-gui.svg"
APP_ID = "io.github.rockskills.RockskillsGui"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256),
              (b"ic09", 512), (b"ic10", 1024), (b"ic11", 32), (b"ic12", 64), (b"ic13", 256),
              (b"ic14", 512))
HICOLOR_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render_png(side: int) -> bytes:
    """The icon as PNG bytes, ``side`` pixels square."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(side, side, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(SVG)).render(painter, QRectF(0, 0, side, side))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def ico(images: dict[int, bytes]) -> bytes:
    """A Windows .ico holding one PNG per size."""
    sizes = sorted(images)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    directory, payload = b"", b""
    for side in sizes:
        png = images[side]
        dim = 0 if side >= 256 else side  # 0 means 256
        directory += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset)
        payload += png
        offset += len(png)
    return header + directory + payload


def icns(images: dict[int, bytes]) -> bytes:
    """A macOS .icns holding PNG entries."""
    body = b"".join(kind + struct.pack(">I", 8 + len(images[side])) + images[side]
                    for kind, side in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "build" / "icons"
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    del app
    sides = set(ICO_SIZES) | {s for _, s in ICNS_TYPES} | set(HICOLOR_SIZES)
    images = {side: render_png(side) for side in sorted(sides)}
    (out / "windows").mkdir(parents=True, exist_ok=True)
    (out / "windows" / "rockskills-gui.ico").write_bytes(ico({s: images[s] for s in ICO_SIZES}))
    (out / "macos").mkdir(parents=True, exist_ok=True)
    (out / "macos" / "rockskills-gui.icns").write_bytes(icns(images))
    for side in HICOLOR_SIZES:
        target = out / "linux" / "hicolor" / f"{side}x{side}" / "apps" / f"{APP_ID}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(images[side])
    print(f"icons written under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
