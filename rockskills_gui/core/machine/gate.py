"""The security gate: the lint content scan (core/lint: prompt injection, pipe-to-shell, credential
paths, hidden Unicode, base64 blobs) over every text file of a skill folder, each finding matched
with what the user accepted (with a reason) in the root's sidecar.

An accepted finding is kept for good: when its line is gone it is still listed, marked "no longer
found"; nothing here deletes one. A finding is matched to an acceptance by file, rule and the
digest of its line's text, so it stays accepted when lines above it move.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rockskills_gui.core.lint.content_scan import scan_text
from rockskills_gui.core.machine.digest import FolderFiles, file_digest
from rockskills_gui.core.machine.sidecar import Accepted
from rockskills_gui.core.model.size_limits import LINT_TEXT_MAX_BYTES, too_large

__all__ = ["GateFinding", "blocking", "findings"]


@dataclass(frozen=True)
class GateFinding:
    """One finding of the gate, with its acceptance (None: not accepted)."""

    file: str
    line: int
    kind: str
    severity: str
    message: str
    text: str  # sha256: of the line's text
    accepted: Accepted | None = None
    gone: bool = False  # an acceptance whose finding is no longer found

    @property
    def open(self) -> bool:
        """Still to be adjudicated: found, not accepted, more than information."""
        return self.accepted is None and not self.gone and self.severity in ("error", "warning")


def findings(files: FolderFiles, accepted: Iterable[Accepted] = ()) -> list[GateFinding]:
    """The gate's findings over ``files`` (text files only), accepted ones marked, and every
    acceptance whose finding is gone listed last."""
    out: list[GateFinding] = []
    for rel in sorted(files.files):
        data = files.files[rel]
        if len(data) > LINT_TEXT_MAX_BYTES:
            out.append(GateFinding(rel, 0, "too-large", "warning",
                                   f"{too_large(len(data), LINT_TEXT_MAX_BYTES, 'not scanned')}",
                                   file_digest(data)))
            continue
        if b"\0" in data:
            continue  # binary
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        lines = text.splitlines()
        for number, kind, severity, message in scan_text(text):
            line_text = lines[number - 1] if 0 < number <= len(lines) else ""
            out.append(GateFinding(rel, number, kind, severity, message,
                                   file_digest(line_text.encode("utf-8", "surrogatepass"))))
    pool = list(accepted)
    matched: list[GateFinding] = []
    for f in out:
        hit = next((a for a in pool if (a.file, a.kind, a.text) == (f.file, f.kind, f.text)), None)
        if hit is not None:
            pool.remove(hit)
        matched.append(GateFinding(f.file, f.line, f.kind, f.severity, f.message, f.text, hit))
    matched += [GateFinding(a.file, a.line, a.kind, "info", a.message, a.text, a, gone=True) for a in pool]
    return matched


def blocking(found: Iterable[GateFinding]) -> list[GateFinding]:
    """The findings still to be accepted (or the copy cancelled)."""
    return [f for f in found if f.open]
