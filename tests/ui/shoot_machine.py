"""Screenshots of the Machine tab over a generated home folder (tests/machine_home.py), for the
README (issue 33). Nothing of the user's is read or written: the home, the settings and the data
folders are private scratch folders.

    python -m tests.ui.shoot_machine OUT_DIR [--size WxH ...] [--theme light|dark]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ui.shoot_machine")
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", action="append", default=[], metavar="WxH")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    scratch = Path(tempfile.mkdtemp(prefix="rockskills-machine-"))
    os.environ["ROCKSKILLS_CONFIG_DIR"] = str(scratch / "config")
    os.environ["ROCKSKILLS_DATA_DIR"] = str(scratch / "data")

    from PySide6.QtWidgets import QApplication

    from rockskills_gui.core.machine import ops
    from rockskills_gui.core.machine.changes import MachineHistory
    from rockskills_gui.core.machine.scan import scan_machine
    from rockskills_gui.core.model.profiles import PROFILES
    from rockskills_gui.ui.common.context import AppContext
    from rockskills_gui.ui.common.layout_audit import audit
    from rockskills_gui.ui.common.theme import apply_theme
    from rockskills_gui.ui.shell.gallery import settle, wait_until
    from rockskills_gui.ui.shell.main_window import MainWindow
    from tests.machine_home import build_home

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    apply_theme(app, args.theme)
    fake = build_home(scratch)
    # a little history: gem-only copied to Claude Code, pdf-tools switched off for Gemini CLI
    machine = scan_machine(fake.home, [fake.project])
    b = ops.Builder(machine)
    gem = next(c for c in machine.skill("gem-only").copies if c.root.path == fake.gemini)
    root = machine.root_at(fake.claude)
    assert root is not None
    ops.copy_to(b, gem, root, PROFILES["claude-code"])
    pdf = next(c for c in machine.skill("pdf-tools").copies if c.root.path == fake.gemini)
    ops.set_enabled(b, pdf, PROFILES["gemini-cli"], False)
    MachineHistory().apply(b.build("setup"))

    ctx = AppContext()
    ctx.home = fake.home
    window = MainWindow(ctx, interactive=False)
    window.apply_theme_mode(args.theme, override=True)
    window.resize(1280, 720)
    window.show()
    done: list[str] = []
    window.loadFinished.connect(done.append)
    window.open_path(fake.claude, "claude-code")
    wait_until(lambda: bool(done), 30)
    pane = window.machine_pane
    window.show_pane("machine")
    pane.add_project(fake.project)
    wait_until(lambda: pane.machine is not None and not pane.busy and len(pane.machine.projects) == 1, 30)
    settle()
    pane.select_root(fake.claude)
    pane.select_copy(fake.agents / "fetcher")
    args.out.mkdir(parents=True, exist_ok=True)
    status = 0
    try:
        for text in args.size or ["1280x720", "1920x1080"]:
            width, height = (int(v) for v in text.split("x"))
            window.resize(width, height)
            settle(6)
            path = args.out / f"machine-{width}x{height}-{args.theme}.png"
            window.grab().save(str(path), "PNG")
            findings = list(audit([window]))
            for finding in findings:
                print(f"{path.name}: {finding}")
            status |= bool(findings)
            print(path)
    finally:
        window.loader.cancel()
        window.loader.wait()
        window.close()
        settle(2)
        shutil.rmtree(scratch, ignore_errors=True)
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
