"""What a library's skill files looked like: a plan is applied only to the library it was made for."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from rockskills_gui.core.stores.rockbot import Layout


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


class Fingerprint(BaseModel):
    """sha256 of every ``*.json`` file under ``skills/`` (problem files too), by path relative to
    the agent directory, and one digest over all of them."""

    model_config = ConfigDict(frozen=True)

    files: dict[str, str]
    digest: str


def _skill_files(skills_dir: Path) -> list[Path]:
    if not skills_dir.is_dir():
        return []
    return sorted(p for p in skills_dir.rglob("*.json") if p.is_file())


def take(layout: Layout) -> Fingerprint:
    """Fingerprint the skill files on disk now."""
    files: dict[str, str] = {}
    for path in _skill_files(layout.skills_dir):
        try:
            digest = sha256(path.read_bytes())
        except OSError:
            continue
        assert digest is not None
        files[layout.display_path(path)] = digest
    whole = hashlib.sha256()
    for name, digest in sorted(files.items()):
        whole.update(f"{name}\0{digest}\n".encode("utf-8", "surrogatepass"))
    return Fingerprint(files=files, digest=whole.hexdigest())


@dataclass(frozen=True)
class FingerprintDiff:
    """Skill files added, removed or changed since a fingerprint was taken."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def lines(self) -> list[str]:
        """``changed skills/a.json`` ... one line per file."""
        return ([f"added   {p}" for p in self.added] + [f"removed {p}" for p in self.removed]
                + [f"changed {p}" for p in self.changed])


def compare(old: Fingerprint, new: Fingerprint) -> FingerprintDiff:
    if old.digest == new.digest:
        return FingerprintDiff()
    return FingerprintDiff(
        added=tuple(sorted(set(new.files) - set(old.files))),
        removed=tuple(sorted(set(old.files) - set(new.files))),
        changed=tuple(sorted(p for p in set(old.files) & set(new.files) if old.files[p] != new.files[p])),
    )
