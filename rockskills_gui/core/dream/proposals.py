"""Proposals from parsed pass results, each with its evidence, dependencies and reply findings.

:class:`PlanBuilder` walks the passes in RockBot's order over a :class:`VirtualLibrary` that starts
as the real library: each pass's result is applied to it the way RockBot would, so the next pass's
prompt is the one RockBot would build, and a proposal that touches a skill an earlier proposal
wrote depends on that proposal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypedDict, Unpack

from rockskills_gui.core.dream.checks import NameChecks
from rockskills_gui.core.dream.fingerprint import NOT_A_FILE
from rockskills_gui.core.dream.formats import DreamLibrary, skill_md_rules
from rockskills_gui.core.dream.passes import DreamPass
from rockskills_gui.core.dream.plan import (
    Evidence,
    Finding,
    PassRecord,
    Proposal,
    ProposalKind,
    Severity,
    SkillRecord,
)
from rockskills_gui.core.dream.prompts import (
    ConsolidationAnalysis,
    GapAnalysis,
    OptimizationAnalysis,
    PruneCandidate,
)
from rockskills_gui.core.dream.reply import GapReply, SaveItem, SkillReply
from rockskills_gui.core.dream.virtual import (
    VirtualLibrary,
    apply_consolidation,
    apply_gap,
    apply_optimization,
    consolidation_record,
    delete_set,
    gap_record,
    guard_refuses,
    item_is_blank,
    optimization_record,
)
from rockskills_gui.core.model.names import display_name, fold
from rockskills_gui.core.model.size_limits import RESOURCE_MAX_BYTES
from rockskills_gui.core.model.skill import Skill
from rockskills_gui.core.model.timestamps import Timestamp
from rockskills_gui.core.storage import fileio, untrusted
from rockskills_gui.core.storage.checksum import sha256

CO_USE_NAMES = 64  # of a proposal's skills, those whose co-use is given as evidence
CLUSTER_NAMES = 50  # of a cluster's members, those named in its evidence
_PREFIX = {DreamPass.GAP: "g", DreamPass.CONSOLIDATE: "c", DreamPass.OPTIMIZE: "o",
           DreamPass.MCP_REFRESH: "m", DreamPass.OFFLINE: "x"}


class ProposalFields(TypedDict, total=False):
    """The :class:`Proposal` fields :meth:`PlanBuilder.new` takes besides id, kind, pass, title."""

    record: SkillRecord | None
    sources: list[str]
    replaces: list[str]
    deletes: list[str]
    before: dict[str, SkillRecord]
    touched: dict[str, str | None]
    evidence: list[Evidence]
    depends_on: list[str]
    conflicts_with: list[str]
    findings: list[Finding]
    advisory: bool
    surface_baseline: dict[str, str | None] | None


class PlanBuilder:
    """Collects proposals over a virtual copy of ``library``."""

    def __init__(self, library: DreamLibrary, now: Timestamp) -> None:
        self.library = library
        self.now = now
        self.virtual = VirtualLibrary(library.skills())
        self.proposals: list[Proposal] = []
        self._writers: dict[str, str] = {}  # fold(name) -> id of the last proposal that wrote it
        self._offline_writers: dict[str, list[int]] = {}  # fold(name) -> offline proposals (positions)
        self._counters: dict[DreamPass, int] = {}
        # paths and name problems, shared with the checks (a SKILL.md library: its folder rules)
        self.names = NameChecks(library.layout, skill_md_rules(library))
        # fold(name) -> (skill, its record): a skill touched by several proposals is snapshot once
        # (the records in ``before`` are shared and never changed)
        self._records: dict[str, tuple[Skill, SkillRecord]] = {}
        self._files: dict[str, tuple[str, str | None]] = {}  # name -> (its file shown, its sha256)
        self._folded_for: tuple[ConsolidationAnalysis, tuple[set[str], list[set[str]]]] | None = None

    # ---------------------------------------------------------------- helpers

    def new(self, kind: ProposalKind, dream_pass: DreamPass, title: str,
            **fields: Unpack[ProposalFields]) -> Proposal:
        number = self._counters.get(dream_pass, 0) + 1
        self._counters[dream_pass] = number
        proposal = Proposal(id=f"{_PREFIX[dream_pass]}{number}", kind=kind, dream_pass=dream_pass,
                            title=title, offline=dream_pass is DreamPass.OFFLINE, **fields)
        return proposal

    def _snapshot(self, skill: Skill) -> SkillRecord:
        """``SkillRecord.of(skill)``, made once per skill value."""
        key = fold(skill.name)
        known = self._records.get(key)
        if known is not None and known[0] is skill:
            return known[1]
        record = SkillRecord.of(skill)
        self._records[key] = (skill, record)
        return record

    def _file(self, name: str) -> tuple[str, str | None]:
        """The loaded skill ``name``'s file as shown, and the sha256 of the bytes it was read from."""
        known = self._files.get(name)
        if known is None:
            entry = self.library.entry(name)
            known = self._files[name] = (self.library.layout.display_path(entry.path), sha256(entry.raw))
        return known

    def add(self, proposal: Proposal, reads: Iterable[str] = (), link: bool = True) -> Proposal:
        """Record ``proposal``: snapshot what it touches, link it to earlier writers (``link``) or
        mark it as conflicting with them (alternatives from the same state), remember it."""
        reads = list(reads)
        names = [*reads, *proposal.sources, *proposal.replaces, *proposal.deletes]
        written = proposal.written_names()
        before, touched = proposal.before, proposal.touched
        for name in names:
            current = self.virtual.get(name)
            if current is not None and current.name not in before:
                before[current.name] = self._snapshot(current)
        for name in [*proposal.sources, *reads]:
            if name in self.library:
                shown, digest = self._file(name)
                if shown not in touched:
                    touched[shown] = digest
        for name in written:
            if self.names.name_problem(name) is not None:
                continue  # never read a path an invalid name makes (``../x``, NUL, too long): blocked
            path = self.names.path_for(name)
            target = self.names.shown_path(name)
            if name in self.library:
                shown, digest = self._file(name)
                if shown not in touched:
                    touched[shown] = digest
                if shown == target:
                    continue
            try:
                digest = sha256(fileio.read_or_none(path, RESOURCE_MAX_BYTES))
            except OSError as exc:  # a FIFO, a folder, too large: never opened, never replaced
                why = untrusted.reason(path, exc)
                touched.setdefault(target, NOT_A_FILE + why)
                proposal.add("not-a-file", Severity.BLOCK,
                             f"{target} cannot be read or replaced ({why}); remove it by hand first")
                continue
            touched.setdefault(target, digest)
        if link:
            for name in [*names, *written]:
                writer = self._writers.get(fold(name))
                if writer is not None and writer != proposal.id and writer not in proposal.depends_on:
                    proposal.depends_on.append(writer)
        else:
            mine = {fold(n) for n in written}
            overlapping = sorted({i for n in mine for i in self._offline_writers.get(n, ())})
            for other in (self.proposals[i] for i in overlapping):
                if other.id not in proposal.depends_on and proposal.id not in other.depends_on:
                    other.conflicts_with.append(proposal.id)
                    proposal.conflicts_with.append(other.id)
        for name in written:
            self._writers[fold(name)] = proposal.id
            if proposal.offline:
                self._offline_writers.setdefault(fold(name), []).append(len(self.proposals))
        self.proposals.append(proposal)
        return proposal

    def _folded(self, analysis: ConsolidationAnalysis) -> tuple[set[str], list[set[str]]]:
        """The analysis's sparse skills and each cluster's members, case-folded (made once)."""
        if self._folded_for is None or self._folded_for[0] is not analysis:
            sets = ({fold(s) for s in analysis.sparse}, [{fold(m) for m in members}
                                                         for _prefix, members in analysis.clusters])
            self._folded_for = (analysis, sets)
        return self._folded_for[1]

    def _usage_evidence(self, names: Sequence[str], analysis: ConsolidationAnalysis) -> list[Evidence]:
        evidence: list[Evidence] = []
        stats = analysis.stats
        counts = {n: stats.count(n) for n in names}
        evidence.append(Evidence(kind="usage", text=", ".join(f"{n}: {c}x in 30 days"
                                                              for n, c in counts.items()),
                                 data={"counts": counts}))
        paired = names[:CO_USE_NAMES]  # pairs of a merge of thousands would be millions
        for i, a in enumerate(paired):
            for b in paired[i + 1:]:
                together = stats.together(a, b)
                if together:
                    evidence.append(Evidence(kind="co-use", text=f"{a} + {b}: {together} session(s)",
                                             data={"a": a, "b": b, "sessions": together}))
        folded = self._folded(analysis)
        sparse = [n for n in names if fold(n) in folded[0]]
        if sparse:
            evidence.append(Evidence(kind="sparse", text="sparse: " + ", ".join(sparse)))
        for (prefix, members), cluster in zip(analysis.clusters, folded[1], strict=True):
            inside = [n for n in names if fold(n) in cluster]
            if inside:  # (a cluster of thousands is named in part: on every proposal it touches)
                shown = members[:CLUSTER_NAMES]
                more = f" and {len(members) - len(shown):,} more" if len(members) > len(shown) else ""
                evidence.append(Evidence(kind="cluster", text=f"'{prefix}/*': {', '.join(shown)}{more}",
                                         data={"prefix": prefix, "members": shown, "count": len(members)}))
        return evidence

    # ---------------------------------------------------------------- gap (§10.2)

    def gap(self, reply: GapReply, analysis: GapAnalysis, record: PassRecord) -> None:
        """A create per non-blank item; RockBot overwrites silently, we warn (checks)."""
        seen: dict[str, str] = {}
        for index, item in enumerate(reply.to_save or []):
            if item_is_blank(item):
                record.notes.append(f"toSave[{index}] has a blank name or content: RockBot skips it")
                continue
            skill = gap_record(item, self.now)
            existing = self.virtual.get(skill.name)
            title = f"Create '{display_name(skill.name)}'" + (" (overwrites the existing skill)"
                                                               if existing else "")
            proposal = self.new(ProposalKind.CREATE, DreamPass.GAP, title, record=SkillRecord.of(skill),
                                replaces=[existing.name] if existing else [])
            proposal.evidence.extend(_gap_evidence(skill, analysis))
            if fold(skill.name) in seen:
                proposal.add("duplicate-save", Severity.WARN,
                             f"{seen[fold(skill.name)]} saves the same name; the later one wins")
            seen[fold(skill.name)] = proposal.id
            self.add(proposal)
            record.proposals.append(proposal.id)
        report = apply_gap(self.virtual, reply, self.now)
        if report.aborted:
            record.notes.append(f"RockBot would abort the dream cycle here: {report.aborted}")

    # ---------------------------------------------------------------- prune (§10.3)

    def prune(self, candidates: Sequence[PruneCandidate], record: PassRecord,
              dream_pass: DreamPass = DreamPass.CONSOLIDATE) -> None:
        for candidate in candidates:
            skill = self.virtual.get(candidate.name)
            if skill is None:
                continue
            proposal = self.new(ProposalKind.PRUNE, dream_pass,
                                f"Prune '{skill.name}' (inactive for 18 months)", deletes=[skill.name])
            proposal.evidence.append(Evidence(
                kind="inactive",
                text=f"last activity {candidate.last_activity.isoformat()} is before "
                     f"{candidate.threshold.isoformat()} (now - 18 months)",
                data={"lastActivity": candidate.last_activity.isoformat(),
                      "threshold": candidate.threshold.isoformat()}))
            self.add(proposal, link=dream_pass is not DreamPass.OFFLINE)
            self.virtual.delete(skill.name)
            record.proposals.append(proposal.id)

    # ---------------------------------------------------------------- consolidation / optimization

    def skill_result(self, dream_pass: DreamPass, reply: SkillReply, record: PassRecord,
                     consolidation: ConsolidationAnalysis | None = None,
                     optimization: OptimizationAnalysis | None = None) -> bool:
        """Proposals for a consolidation or optimization result; False when the guard refuses it."""
        before = self.virtual.by_fold()
        doomed = delete_set(reply)
        to_delete = {fold(n) for n in reply.to_delete or []}
        if guard_refuses(reply):
            rockbot = ("RockBot refuses the whole result" if dream_pass is DreamPass.CONSOLIDATE else
                       "RockBot's optimization pass has no guard and would delete it anyway")
            record.notes.append(f"Safety guard: the reply deletes {len(doomed)} skill(s) and saves "
                                f"nothing; {rockbot}.")
            for name in doomed:
                skill = before.get(fold(name))
                if skill is None:
                    continue
                proposal = self.new(ProposalKind.DELETE, dream_pass, f"Delete '{skill.name}'",
                                    deletes=[skill.name])
                proposal.add("safety-guard", Severity.BLOCK,
                             f"deleted without any replacement (toSave is empty); {rockbot}")
                self._delete_evidence(proposal, skill.name, consolidation)
                self.add(proposal)
                record.proposals.append(proposal.id)
            return False
        after_deletions = {k: v for k, v in before.items() if k not in {fold(n) for n in doomed}}
        saves: list[tuple[Proposal, SaveItem]] = []
        thin = {fold(s.name) for s in optimization.sparse} if optimization is not None else set()
        saved_names: dict[str, str] = {}
        for index, item in enumerate(reply.to_save or []):
            if item_is_blank(item):
                record.notes.append(f"toSave[{index}] has a blank name or content: RockBot skips it")
                continue
            if dream_pass is DreamPass.CONSOLIDATE:
                skill = consolidation_record(item, before, self.now)
            else:
                skill = optimization_record(item, after_deletions, self.now)
            proposal = self._save_proposal(dream_pass, item, skill, before, to_delete)
            if fold(skill.name) in saved_names:
                proposal.add("duplicate-save", Severity.WARN,
                             f"{saved_names[fold(skill.name)]} saves the same name; the later one wins")
            saved_names[fold(skill.name)] = proposal.id
            if consolidation is not None:
                proposal.evidence.extend(self._usage_evidence(
                    [*proposal.sources] or [skill.name], consolidation))
            if optimization is not None:
                proposal.evidence.extend(_failure_evidence(proposal, optimization, thin))
            saves.append((proposal, item))
            self.add(proposal)
            record.proposals.append(proposal.id)
        merged_into: dict[str, list[str]] = {}  # fold(source) -> the saves that list it, in order
        for saved, item in saves:
            for source in dict.fromkeys(fold(n) for n in item.source_names or []):
                merged_into.setdefault(source, []).append(saved.id)
        for name in doomed:
            key = fold(name)
            if key in saved_names:
                continue  # deleted and saved again: the save replaces it
            skill = before.get(key)
            if skill is None:
                record.notes.append(f"'{display_name(name)}' is not in the library: RockBot's delete "
                                    "does nothing")
                continue
            proposal = self.new(ProposalKind.DELETE, dream_pass, f"Delete '{skill.name}'",
                                deletes=[skill.name])
            owners = list(merged_into.get(key, ()))
            proposal.depends_on.extend(owners)
            if owners:
                proposal.evidence.append(Evidence(kind="reply", text="merged into " + ", ".join(
                    f"'{p.record.name}' ({p.id})" for p, _ in saves if p.id in owners and p.record)))
            else:
                proposal.add("no-replacement", Severity.WARN,
                             "listed in toDelete but not a source of any saved skill: nothing replaces it")
            if name != skill.name:
                proposal.add("case-mismatch", Severity.WARN,
                             f"the reply spells it '{display_name(name)}'; RockBot would delete "
                             f"skills/{display_name(name)}.json and leave skills/{skill.name}.json "
                             "behind (it comes back at restart)")
            self._delete_evidence(proposal, skill.name, consolidation)
            self.add(proposal)
            record.proposals.append(proposal.id)
        if dream_pass is DreamPass.CONSOLIDATE:
            apply_consolidation(self.virtual, reply, self.now)
        else:
            apply_optimization(self.virtual, reply, self.now)
        return True

    def _save_proposal(self, dream_pass: DreamPass, item: SaveItem, skill: Skill,
                       before: dict[str, Skill], to_delete: set[str]) -> Proposal:
        sources: list[str] = []
        for name in item.source_names or []:
            known = before.get(fold(name))
            spelled = known.name if known else name
            if fold(spelled) not in {fold(s) for s in sources}:
                sources.append(spelled)
        existing = [s for s in sources if fold(s) in before]
        replaced = before.get(fold(skill.name))
        if existing and fold(skill.name) in {fold(s) for s in existing}:
            kind = ProposalKind.REWRITE if len(existing) == 1 else ProposalKind.MERGE
        elif existing:
            kind = ProposalKind.MERGE
        elif replaced is not None:
            kind = ProposalKind.REWRITE
        else:
            kind = ProposalKind.CREATE
        title = {
            ProposalKind.MERGE: f"Merge {', '.join(repr(s) for s in existing)} into "
                                f"'{display_name(skill.name)}'",
            ProposalKind.REWRITE: f"Rewrite '{display_name(skill.name)}'",
            ProposalKind.CREATE: f"Create '{display_name(skill.name)}'",
        }[kind]
        proposal = self.new(kind, dream_pass, title, record=SkillRecord.of(skill), sources=sources,
                            replaces=[replaced.name] if replaced else [])
        if replaced is not None and fold(skill.name) not in {fold(s) for s in existing}:
            proposal.add("overwrite", Severity.WARN,
                         f"overwrites the existing skill '{replaced.name}' without listing it as a source")
        if replaced is not None and replaced.name != skill.name:
            proposal.add("case-mismatch", Severity.WARN,
                         f"saved as '{display_name(skill.name)}' over '{replaced.name}' (names differ "
                         "only by case; the old file is replaced)")
        missing = [s for s in sources if fold(s) not in to_delete]
        if missing:
            proposal.add("source-not-in-todelete", Severity.WARN,
                         "in sourceNames but not in toDelete (RockBot deletes them anyway): "
                         + ", ".join(display_name(m) for m in missing))
        if dream_pass is DreamPass.OPTIMIZE and replaced is not None:
            lost = []
            if replaced.last_used_at is not None:
                lost.append("lastUsedAt")
            if replaced.see_also:
                lost.append("seeAlso")
            if replaced.created_at != skill.created_at:
                lost.append("createdAt")
            if lost:
                proposal.add("optimization-resets", Severity.INFO,
                             "RockBot's optimization pass resets " + ", ".join(lost)
                             + " (createdAt becomes now, lastUsedAt and seeAlso null)")
        return proposal

    def _delete_evidence(self, proposal: Proposal, name: str,
                         analysis: ConsolidationAnalysis | None) -> None:
        if analysis is not None:
            count = analysis.stats.count(name)
            proposal.evidence.append(Evidence(kind="usage", text=f"{name}: {count}x in 30 days",
                                              data={"counts": {name: count}}))


def _gap_evidence(skill: Skill, analysis: GapAnalysis) -> list[Evidence]:
    evidence: list[Evidence] = []
    text = f"{skill.name} {skill.summary or ''} {skill.content or ''}".lower()
    terms = [(t, n) for t, n in analysis.recurring_terms if t in text]
    if terms:
        evidence.append(Evidence(kind="terms", text=", ".join(f'"{t}": {n} session(s)' for t, n in terms),
                                 data={"terms": [list(t) for t in terms]}))
    for label, entries in (("negative", analysis.negative), ("positive", analysis.positive)):
        if entries:
            evidence.append(Evidence(
                kind="feedback",
                text=f"{len(entries)} {label} feedback signal(s) on sessions with no skill: "
                     + "; ".join(f"[{e.signal_name}] {e.session_id}: {e.summary}" for e in entries),
                data={"ids": [e.id for e in entries]}))
    sessions = len(analysis.sessions)
    evidence.append(Evidence(kind="conversations", text=f"{sessions} session(s) in the conversation log"))
    return evidence


def _failure_evidence(proposal: Proposal, analysis: OptimizationAnalysis, thin: set[str]) -> list[Evidence]:
    """Failure signals and thinness (``thin``: the sparse skills, case-folded) of what it rewrites."""
    evidence: list[Evidence] = []
    for name in [*proposal.sources, *proposal.replaces]:
        entries = analysis.failure_context.get(fold(name), [])
        if entries:
            evidence.append(Evidence(
                kind="failure",
                text=f"{name}: " + "; ".join(f"[{e.signal_name}] {e.summary}" for e in entries),
                data={"ids": [e.id for e in entries]}))
        if fold(name) in thin:
            evidence.append(Evidence(kind="sparse", text=f"{name} has under 200 characters of content"))
    return evidence
