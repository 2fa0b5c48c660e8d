"""The recall pane's work off the UI thread: what an index built on a worker hands over (the
pane asks ``ctx.query``: each job builds its own object, never shared with the UI thread until
handed over), and the recall prepared while a library loads.
"""

from __future__ import annotations

from rockskills_gui.core.library.library import Library
from rockskills_gui.core.model.profile import ListingKind
from rockskills_gui.core.recall.index_text import index_form, session_index_text
from rockskills_gui.core.recall.skill_recall import RecallBuilder, SkillRecall


class Built:
    """A session index text built on a worker (``None`` is a valid text: an empty library)."""

    def __init__(self, text: str | None) -> None:
        self.text = text


class PreparedRecall:
    """The recall index, session index text and skill names of a library, built while it loaded;
    ``kind``: the listing kind the text is worded for (the scan cache keeps 64e82cc's)."""

    def __init__(self, recall: SkillRecall, index_text: str | None, names: list[str],
                 kind: ListingKind = ListingKind.ROCKBOT_INDEX) -> None:
        self.recall = recall
        self.index_text = index_text
        self.names = names
        self.kind = kind

    def index_for(self, kind: ListingKind) -> Built | None:
        """The prepared session index text if it is worded as ``kind`` wants, else None."""
        return Built(self.index_text) if index_form(self.kind) == index_form(kind) else None


def prepare_recall(library: Library, fed: RecallBuilder | None = None) -> PreparedRecall:
    """Build :class:`PreparedRecall` on the loader's worker thread (LibraryLoader.add_preparer),
    finishing the index ``fed`` was given while the library was read, if any."""
    skills = library.skills()
    recall = fed.build(skills) if fed is not None else SkillRecall(skills)
    kind = library.profile.listing.kind
    return PreparedRecall(recall, session_index_text(skills, kind), library.names(), kind)

