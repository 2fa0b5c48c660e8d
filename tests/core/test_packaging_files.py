"""packaging/: the desktop file and AppStream metadata validate, the ids agree everywhere, the
Flatpak requirements follow pyproject, the spec's inputs exist, bootstrap needs no validator."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
import xml.etree.ElementTree as ET

import pytest

from rockskills_gui import __version__
from tests.conftest import REPO

PACKAGING = REPO / "packaging"
APP_ID = "io.github.rockskills.RockskillsGui"
DESKTOP = PACKAGING / "linux" / f"{APP_ID}.desktop"
METAINFO = PACKAGING / "linux" / f"{APP_ID}.metainfo.xml"
FLATPAK = PACKAGING / "flatpak" / f"{APP_ID}.yml"


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)


def test_desktop_file_validates() -> None:
    if shutil.which("desktop-file-validate") is None:
        pytest.skip("desktop-file-validate is not installed (Debian: apt-get install desktop-file-utils)")
    result = run("desktop-file-validate", str(DESKTOP))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout.lower()


def test_appstream_metadata_validates() -> None:
    if shutil.which("appstreamcli") is None:
        pytest.skip("appstreamcli is not installed (Debian: apt-get install appstream)")
    result = run("appstreamcli", "validate", "--no-net", "--explain", str(METAINFO))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "W:" not in result.stdout and "E:" not in result.stdout, result.stdout


def desktop_entries() -> dict[str, str]:
    lines = DESKTOP.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def test_the_ids_agree_everywhere() -> None:
    from rockskills_gui.ui.common.theme import APP_ID as THEME_ID  # the desktop file name Qt reports

    entry = desktop_entries()
    assert entry["Icon"] == APP_ID and entry["Exec"].split()[0] == "rockskills-gui"
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP.name
    assert {b.text for b in root.iter("binary")} == {"rockskills-gui", "rockskills"}
    assert THEME_ID == APP_ID
    assert re.search(rf"^app-id: {re.escape(APP_ID)}$", FLATPAK.read_text(), re.M)
    assert APP_ID in (PACKAGING / "rockskills-gui.spec").read_text()
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert {**scripts["scripts"], **scripts["gui-scripts"]}.keys() == {"rockskills", "rockskills-gui"}


def test_the_metainfo_release_is_this_version() -> None:
    releases = ET.parse(METAINFO).getroot().find("releases")
    assert releases is not None and releases[0].get("version") == __version__


def test_flatpak_manifest_and_requirements_follow_pyproject() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML reads the Flatpak manifest")
    manifest = yaml.safe_load(FLATPAK.read_text())
    assert manifest["command"] == "rockskills-gui"
    assert "--talk-name=org.freedesktop.secrets" in manifest["finish-args"]
    assert manifest["modules"][0] == "python3-requirements.json"
    wanted = {re.split(r"[<>=!;\s]", d, maxsplit=1)[0].lower()
              for d in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]}
    wanted -= {"pyside6-essentials"}  # the PySide base app provides Qt
    listed = {re.split(r"[<>=!;\s]", line, maxsplit=1)[0].lower()
              for line in (PACKAGING / "flatpak" / "requirements.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")}
    assert listed == wanted


def test_the_spec_inputs_exist() -> None:
    spec = (PACKAGING / "rockskills-gui.spec").read_text()
    for script in re.findall(r'"(entry_\w+\.py)"', spec):
        assert (PACKAGING / script).is_file(), script
    for folder in re.findall(r'ROOT / "resources" / "([\w-]+)"', spec):
        assert (REPO / "resources" / folder).is_dir(), folder
    assert (REPO / "resources" / "icons" / "rockskills-gui.svg").is_file()


def test_scripts_parse_and_bootstrap_needs_no_validator() -> None:
    for script in ("bootstrap.sh", "build_and_smoke.sh"):
        result = run("bash", "-n", str(PACKAGING / script))
        assert result.returncode == 0, result.stderr
    assert (PACKAGING / "build_and_smoke.sh").stat().st_mode & 0o111
    bootstrap = (PACKAGING / "bootstrap.sh").read_text()
    for tool in ("desktop-file-validate", "appstreamcli", "desktop-file-utils", "pyinstaller",
                 "PyInstaller", "flatpak"):
        assert tool not in bootstrap, tool
