"""Find bundled data folders (e.g. the demo library) wherever this copy of the app runs from.

Places searched, first hit wins:

1. ``rockskills_gui/_resources/<name>`` — inside the installed package (wheel package data);
2. ``<repo>/resources/<name>`` — a source checkout or an editable install;
3. ``<sys.prefix>/share/rockskills-gui/<name>`` — a wheel that ships it as data files;
4. ``<sys._MEIPASS>/resources/<name>`` — a PyInstaller bundle.
"""

from __future__ import annotations

import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def resource_candidates(name: str) -> list[Path]:
    """Every place :func:`resource_dir` looks for ``name``, in search order."""
    places = [
        _PACKAGE_DIR / "_resources" / name,
        _PACKAGE_DIR.parent / "resources" / name,
        Path(sys.prefix) / "share" / "rockskills-gui" / name,
    ]
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        places.append(Path(frozen) / "resources" / name)
    return places


def resource_dir(name: str) -> Path:
    """The bundled folder ``name`` (raises FileNotFoundError naming every place tried)."""
    candidates = resource_candidates(name)
    for path in candidates:
        if path.is_dir():
            return path
    tried = ", ".join(str(p) for p in candidates)
    raise FileNotFoundError(f"bundled resource '{name}' not found (looked in: {tried})")
