"""Benchmark: RockBot-exact BM25 recall (the inverted index) against bm25s, a hand-written floor,
rank-bm25 and the naive port; index build and memory; the batch CLI against a bm25s script.

Run:  .venv/bin/python tests/benchmarks/bench_recall.py [--sizes 1000,10000,100000]
      [--queries 300] [--passes 5] [--cli-skills 10000] [--dir DIR]

Not a pytest module (the name does not match ``test_*.py``). Generates realistic libraries
(prefixed names such as ``mcp/<server>/...``, ``scripts/<task>``, sentence-like summaries with
stop words and a Zipf-distributed long-tail vocabulary) and user-message-like queries. All in one
process and one run, per size:

- **per query** (top 5 and top 50): ours, ``Bm25Index.search(query, top=k)`` -- RockBot's exact
  score incl. the x2 phrase bonus, ties in load order, a ``Hits`` sequence of keys and scores
  (each ``Hit`` made when read) -- against bm25s
  (``BM25(k1=1.5, b=0.75).retrieve([tokens], k=k)``, document ids and scores, no phrases) given
  *the same tokens* (our tokenizer, timed inside its call as ours is), and against the **floor**:
  a minimal hand-written top-k over our exact postings (each term's and phrase's documents and
  contributions precomputed; one ``np.add.at``, one partition, one sort; identical scores). Every
  query of every pass runs every contender, in a random order each time, so that the load of this
  shared machine hits all alike; per query the median of the passes, then the median (and p95)
  over the queries. Ours is also shown for its first pass alone (its term/phrase cache empty);
- **build**: ours ``Bm25Index(documents)`` from the texts; bm25s tokenising the same texts with
  the same tokenizer and indexing them; alternated, median of 3;
- **memory** (tracemalloc, what the index holds after its inputs are dropped): ours after the
  build and after the timed queries (its cache full), bm25s after its build;
- rank-bm25 ``BM25Okapi.get_scores`` (sampled) and the direct port (``tests/core/reference_bm25``,
  sampled: seconds per query at 100k), against which our top 50 is checked bit for bit;
- edits (replace / remove / add) and the first query after each.

Then **the batch CLI** (``--cli-skills``, default 10,000; 0 skips it): ``rockskills recall LIB
--queries-file Q --top 50 --json`` against a bm25s script doing the same work (read every skill
file, tokenise name + summary with RockBot's rules, index, one batch retrieve, one JSON line per
query with rank, name and score), fresh processes, each with 300 and with 3,000 queries. Ours runs
twice: as a user's second run (the library's parsed files and recall index kept in the cache
folder by the first) and with ``ROCKSKILLS_NO_SCAN_CACHE=1`` (every file read, the index built).
All six are interleaved round by round (a warm-up round first), every process with its modules'
bytecode kept; end to end and per extra query at the margin (the difference of the two runs over
2,700 queries). The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bm25s
import numpy as np
from rank_bm25 import BM25Okapi

from rockskills_gui.core.recall.bm25 import document_text, parse_query, tokenize
from rockskills_gui.core.recall.bm25_index import Bm25Index
from tests.core import reference_bm25

TOPS = (5, 50)
MAX_FLOOR_RATIO = 1.5
MAX_MEMORY_RATIO = 2.0
CLI_QUERIES = (300, 3000)

VERBS = ("send search summarize schedule create update delete list fetch read write draft "
         "review plan book cancel invite convert export import parse clean filter aggregate "
         "deploy monitor restart check compare translate format generate analyze track sync "
         "backup restore migrate validate notify archive upload download share merge split "
         "label tag rank score query resolve escalate triage").split()
NOUNS = ("email inbox message calendar meeting event invite attendee report summary paper "
         "article note document file folder spreadsheet csv table chart dashboard invoice "
         "receipt expense budget payment order customer ticket issue bug release build deploy "
         "server database backup log metric alert incident task project sprint standup agenda "
         "contact team user account password token key secret certificate domain website page "
         "link image photo video recording transcript slide deck proposal contract policy "
         "weather forecast flight hotel trip itinerary recipe menu grocery workout habit "
         "reminder deadline schedule timezone repository branch commit review test pipeline "
         "container cluster queue job cron webhook api endpoint schema migration query index "
         "cache latency quota usage cost").split()
ADJECTIVES = ("weekly daily monthly quarterly urgent shared private public internal external "
              "recurring pending overdue new old legacy quick detailed structured short long "
              "key important").split()
PREPOSITIONS = "for with from into to via on in by about after before".split()
SERVERS = ("gmail outlook calendar github gitlab jira slack teams notion drive dropbox s3 "
           "postgres mysql redis stripe shopify zendesk hubspot salesforce trello asana linear "
           "sentry datadog grafana pagerduty twilio openweather spotify").split()
PEOPLE = "Dana Bob Alice Priya Chen Omar Lucia Marta Kenji Sam".split()


def zipf_words(rng: random.Random, count: int) -> list[str]:
    """Long-tail pseudo-words (domain jargon, product names) for realistic vocabulary growth."""
    syllables = ("ka lo mi ra ne to su vi xa ze po qu bi fe gor lin tra vex dor mek sar "
                 "pul nix bro cal dex fin gra hal jor").split()
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Generator:
    """Reproducible skill libraries and queries."""

    def __init__(self, seed: int = 20261122) -> None:
        self.rng = random.Random(seed)
        self.jargon = zipf_words(self.rng, 30_000)
        self.jargon_weights = [1.0 / (i + 1) ** 1.1 for i in range(len(self.jargon))]

    def pick(self, words: Sequence[str]) -> str:
        # mild skew towards the head of each list, like real word frequencies
        return words[min(int(self.rng.paretovariate(1.2)) - 1, len(words) - 1)
                     if self.rng.random() < 0.5 else self.rng.randrange(len(words))]

    def jargon_word(self) -> str:
        return self.rng.choices(self.jargon, self.jargon_weights)[0]

    def noun(self) -> str:
        return self.jargon_word() if self.rng.random() < 0.25 else self.pick(NOUNS)

    def name(self) -> str:
        r = self.rng.random()
        v, n = self.pick(VERBS), self.noun()
        if r < 0.25:
            return f"mcp/{self.pick(SERVERS)}/{v}-{n}"
        if r < 0.4:
            return f"web/{n}-{self.noun()}"
        if r < 0.55:
            return f"scripts/{v}-{n}"
        if r < 0.65:
            return f"research/{v}-{n}"
        if r < 0.75:
            return f"{self.jargon_word()}/{v}-{n}-{self.noun()}"
        return f"{v}-{n}"

    def summary(self) -> str:
        r = self.rng
        v, v2 = self.pick(VERBS), self.pick(VERBS)
        n1, n2, n3 = self.noun(), self.noun(), self.noun()
        a, p, s = self.pick(ADJECTIVES), self.pick(PREPOSITIONS), self.pick(SERVERS)
        templates = (
            f"{v.capitalize()} {a} {n1} {p} the {n2} {n3}",
            f"{v.capitalize()}, {v2} and summarize {n1} through the {s.upper()} MCP server",
            f"Use when the user asks to {v} a {n1} or {v2} {n2} {p} {n3}",
            f"Python script to {v} {n1} files and {v2} the {n2} {n3}",
            f"Checklist for {a} {n1} {n2}: {v} the {n3}, then {v2} it",
            f"{a.capitalize()} {n1} {n2} with {s} ({v}_{n2}, {v2}_{n3})",
            f"Reliable sources for {n1} {n2} lookups and {n3} {p} {s}",
        )
        return r.choice(templates)

    def library(self, size: int) -> list[tuple[str, str]]:
        """``(name, summary)`` with unique names, in candidate order."""
        seen: set[str] = set()
        out: list[tuple[str, str]] = []
        while len(out) < size:
            name = self.name()
            if name.lower() in seen:
                name = f"{name}-{len(out)}"
            seen.add(name.lower())
            out.append((name, self.summary()))
        return out

    def query(self) -> str:
        r = self.rng
        v, n1, n2 = self.pick(VERBS), self.noun(), self.noun()
        who, s, p = r.choice(PEOPLE), self.pick(SERVERS), self.pick(PREPOSITIONS)
        return r.choice((
            f"Search my inbox for the {n1} {who} sent",
            f"Can you {v} the {n1} {n2} {p} {s}?",
            f"{v} a {n1} with the {n2} team next week",
            f"how do I {v} {n1} in {s}",
            f"{v} {n1} {n2}",
            f"what's the status of the {n1} {n2} {who} mentioned",
            f"please {v} this {n1} and {self.pick(VERBS)} the {n2} for me",
        ))



# ---------------------------------------------------------------- helpers


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def time_queries(run: Callable[[str], object], queries: Sequence[str]) -> list[float]:
    """Milliseconds per query."""
    out: list[float] = []
    for query in queries:
        start = time.perf_counter_ns()
        run(query)
        out.append((time.perf_counter_ns() - start) / 1e6)
    return out


def bm25s_index(texts: Sequence[str]) -> bm25s.BM25:
    """bm25s over the texts' tokens (our tokenizer: the same tokens ours indexes)."""
    retriever = bm25s.BM25(k1=1.5, b=0.75)
    retriever.index([tokenize(text) for text in texts], show_progress=False)
    return retriever


class Floor:
    """A minimal hand-written exact top-k: every term's and phrase's documents and contributions
    (taken from our index once, outside the timing) in a dict; per query one ``np.add.at`` in
    RockBot's order, one partition, one sort (ties at the cut are not looked after)."""

    def __init__(self, index: Bm25Index, queries: Sequence[str]) -> None:
        self.n = index._n
        self.pos = index._pos[: self.n]
        self.features: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        index._ready()
        for query in queries:
            for feature in index._features(tokenize(query)):
                if feature.dense is not None:
                    slots = feature.slots.astype(np.intp)
                    values = feature.dense[slots]
                else:
                    slots, values = feature.slots, feature.contribution
                self.features[feature.text] = (slots, values)

    def search(self, query: str, top: int) -> list[tuple[int, float]]:
        tokens = tokenize(query)
        get = self.features.get
        found = [f for f in map(get, dict.fromkeys(tokens)) if f is not None]
        found += [f for f in map(get, dict.fromkeys(map(" ".join, pairwise(tokens))))
                  if f is not None]
        if not found:
            return []
        scores = np.zeros(self.n)
        np.add.at(scores, np.concatenate([s for s, _ in found]), np.concatenate([v for _, v in found]))
        matched = np.flatnonzero(scores)
        if len(matched) > top:
            values = scores[matched]
            matched = matched[np.argpartition(values, len(values) - top)[len(values) - top:]]
        order = matched[np.lexsort((self.pos[matched], -scores[matched]))]
        return list(zip(order.tolist(), scores[order].tolist(), strict=True))


def memory_mb(build: Callable[[], object], after: Callable[[object], None] | None = None
              ) -> tuple[float, float | None]:
    """MB that ``build()``'s result holds (its inputs made and dropped inside ``build``), and after
    ``after(result)`` ran."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    result = build()
    gc.collect()
    built = (tracemalloc.get_traced_memory()[0] - base) / 1e6
    later = None
    if after is not None:
        after(result)
        gc.collect()
        later = (tracemalloc.get_traced_memory()[0] - base) / 1e6
    tracemalloc.stop()
    del result
    gc.collect()
    return built, later


# ---------------------------------------------------------------- one size


def bench_size(gen: Generator, size: int, n_queries: int, passes: int, n_port: int,
               n_rank: int) -> tuple[list, list, list]:
    library = gen.library(size)
    queries = [gen.query() for _ in range(n_queries)]
    docs = [(name, document_text(name, summary)) for name, summary in library]
    texts = [text for _, text in docs]

    # build: alternated, median of 3
    ours_build: list[float] = []
    theirs_build: list[float] = []
    for i in range(3):
        for which in (("ours", "bm25s") if i % 2 == 0 else ("bm25s", "ours")):
            start = time.perf_counter()
            if which == "ours":
                index = Bm25Index(docs)
                ours_build.append(time.perf_counter() - start)
            else:
                retriever = bm25s_index(texts)
                theirs_build.append(time.perf_counter() - start)
            gc.collect()

    # memory: what each holds once its inputs are gone (names stay: both need them for hits)
    def build_ours() -> Bm25Index:
        made = [(name, document_text(name, summary)) for name, summary in library]
        return Bm25Index(made)

    def run_queries(built: object) -> None:
        assert isinstance(built, Bm25Index)
        for query in queries:
            built.search(query, top=TOPS[-1])

    def build_theirs() -> bm25s.BM25:
        return bm25s_index([document_text(name, summary) for name, summary in library])

    mem_ours, mem_ours_used = memory_mb(build_ours, run_queries)
    mem_theirs, _ = memory_mb(build_theirs)

    floor = Floor(index, queries)
    gc.collect()
    gc.freeze()  # the libraries are long-lived: out of the collector's way, for all alike

    # per query: every pass runs every contender on every query, in random order
    rng = random.Random(size)
    contenders: dict[tuple[str, int], Callable[[str], object]] = {}
    for k in TOPS:
        contenders[("ours", k)] = lambda q, k=k: index.search(q, top=k)
        contenders[("bm25s", k)] = lambda q, k=k: retriever.retrieve([tokenize(q)], k=k,
                                                                      show_progress=False)
        contenders[("floor", k)] = lambda q, k=k: floor.search(q, k)
    samples: dict[tuple[str, int], list[list[float]]] = {c: [[] for _ in queries]
                                                         for c in contenders}
    names_order = list(contenders)
    load_before = load()
    for _pass in range(passes):
        order = list(range(len(queries)))
        rng.shuffle(order)
        for i in order:
            rng.shuffle(names_order)
            for name in names_order:
                run = contenders[name]
                start = time.perf_counter_ns()
                run(queries[i])
                samples[name][i].append((time.perf_counter_ns() - start) / 1e6)
    medians = {name: [statistics.median(v) for v in values] for name, values in samples.items()}
    cold = {k: [v[0] for v in samples[("ours", k)]] for k in TOPS}

    # exactness: floor == ours (scores), ours == port (names and scores, sampled)
    for query in queries:
        ours_top = [h.score for h in index.search(query, top=5)]
        assert [s for _, s in floor.search(query, 5)] == ours_top, f"floor != ours for {query!r}"
    sampled = queries[:: max(1, len(queries) // n_port)][:n_port]
    port_results: dict[str, list] = {}

    def port(q: str) -> None:
        port_results[q] = reference_bm25.search(docs, q, top=TOPS[-1])

    port_ms = time_queries(port, sampled)
    for q in sampled:
        got = [(h.key, h.score) for h in index.search(q, top=TOPS[-1])]
        assert got == port_results[q], f"index != port for {q!r}"
    okapi = BM25Okapi([tokenize(text) for text in texts])
    ranked = queries[:: max(1, len(queries) // n_rank)][:n_rank]
    rank_ms = time_queries(lambda q: okapi.get_scores(list(parse_query(q).terms)), ranked)

    # incremental edits: replace / remove / add, then one query (applies the edit)
    edit_ms: list[float] = []
    after_edit_ms: list[float] = []
    edits = random.Random(size)
    for i in range(30):
        key = docs[edits.randrange(len(docs))][0]
        start = time.perf_counter_ns()
        if i % 3 == 0:
            index.replace(key, document_text(key, gen.summary()))
        elif i % 3 == 1 and key in index:
            index.remove(key)
            index.add(key, document_text(key, gen.summary()))
        else:
            index.add(f"new/skill-{size}-{i}", document_text(f"new/skill-{i}", gen.summary()))
        edit_ms.append((time.perf_counter_ns() - start) / 1e6)
        after_edit_ms += time_queries(lambda q: index.search(q, top=TOPS[-1]), [queries[i]])
    gc.unfreeze()

    label = f"{size:,}"
    per_query = []
    checks = []
    for k in TOPS:
        ours, theirs, low = (medians[("ours", k)], medians[("bm25s", k)], medians[("floor", k)])
        m_ours, m_theirs, m_floor = (statistics.median(ours), statistics.median(theirs),
                                     statistics.median(low))
        per_query.append((label, k, m_ours, p95(ours), m_theirs, p95(theirs), m_floor,
                          statistics.median(cold[k])))
        checks.append((f"{label}, top {k}: ours {m_ours:.3f} ms <= bm25s {m_theirs:.3f} ms",
                       m_ours <= m_theirs))
        checks.append((f"{label}, top {k}: ours {m_ours / m_floor:.2f}x the floor (<= "
                       f"{MAX_FLOOR_RATIO}x)", m_ours <= MAX_FLOOR_RATIO * m_floor))
    b_ours, b_theirs = statistics.median(ours_build), statistics.median(theirs_build)
    checks.append((f"{label}: build ours {b_ours:.3f} s <= bm25s {b_theirs:.3f} s",
                   b_ours <= b_theirs))
    if size >= 100_000:
        worst = max(mem_ours, mem_ours_used or 0.0)
        checks.append((f"{label}: memory ours {worst:.1f} MB <= {MAX_MEMORY_RATIO}x bm25s "
                       f"{mem_theirs:.1f} MB", worst <= MAX_MEMORY_RATIO * mem_theirs))
    others = (label, b_ours, b_theirs, mem_ours, mem_ours_used, mem_theirs,
              statistics.median(rank_ms), len(ranked), statistics.median(port_ms), len(sampled),
              statistics.median(edit_ms), statistics.median(after_edit_ms), load_before, load())
    print(f"  {label} skills: {len(queries)} queries x {passes} passes; vocabulary "
          f"{index.vocabulary_size():,} terms, avgdl {index.avgdl:.2f}; top 50 == port on "
          f"{len(sampled)} queries, top 5 == floor on all; load {load_before} -> {load()}",
          flush=True)
    return per_query, [others], checks


# ---------------------------------------------------------------- the batch CLI

BM25S_SCRIPT = """
import json, re, sys
from pathlib import Path
import bm25s

names, corpus = [], []
for path in sorted(Path(sys.argv[1], "skills").rglob("*.json")):
    data = json.loads(path.read_text("utf-8-sig"))
    names.append(data["name"])
    text = data["name"].replace("/", " ").replace("-", " ") + " " + (data.get("summary") or "")
    corpus.append(re.findall(r"[a-z0-9]{3,}", text.lower()))
retriever = bm25s.BM25(k1=1.5, b=0.75)
retriever.index(corpus, show_progress=False)
queries = Path(sys.argv[2]).read_text("utf-8").splitlines()
tokens = [re.findall(r"[a-z0-9]{3,}", q.lower()) for q in queries]
docs, scores = retriever.retrieve(tokens, k=50, show_progress=False)
out = []
for query, ids, values in zip(queries, docs.tolist(), scores.tolist()):
    out.append(json.dumps({"query": query, "results": [
        {"rank": r, "name": names[i], "score": s}
        for r, (i, s) in enumerate(zip(ids, values), 1) if s > 0]}, ensure_ascii=False) + "\\n")
sys.stdout.write("".join(out))
"""


def run_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s of the process) of one run; raises if it failed."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{command[:4]} failed: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


CLI_CONTENDERS = {  # name: (what the table says, extra environment)
    "ours": ("`rockskills recall LIB --queries-file Q --top 50 --json` (its caches kept, as a user's "
             "second run)", {}),
    "ours, no caches": ("the same with `ROCKSKILLS_NO_SCAN_CACHE=1` (every file read, the index "
                        "built)", {"ROCKSKILLS_NO_SCAN_CACHE": "1"}),
    "bm25s": ("bm25s script (read, tokenise, index, batch retrieve, JSON lines)", {}),
}


def bench_cli(base: Path, skills: int, rounds: int) -> tuple[list, list]:
    from tests.benchmarks.bench_scale import ensure_library

    agent = ensure_library(base, skills, 0)
    gen = Generator(7)
    files = {}
    for count in CLI_QUERIES:
        path = base / f"queries-{count}.txt"
        path.write_text("".join(gen.query() + "\n" for _ in range(count)), "utf-8")
        files[count] = path
    rockskills = Path(sys.executable).with_name("rockskills")
    ours_cmd = [str(rockskills)] if rockskills.exists() else [sys.executable, "-m", "rockskills_gui"]
    # Both sides run with their modules' bytecode kept (in a private folder, even where
    # PYTHONDONTWRITEBYTECODE is set): an installed package has its .pyc files, as bm25s has.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(ROCKSKILLS_CACHE_DIR=str(base / "cache"), ROCKSKILLS_CONFIG_DIR=str(base / "config"),
               ROCKSKILLS_DATA_DIR=str(base / "data"), PYTHONPYCACHEPREFIX=str(base / "pyc"))
    commands: dict[tuple[str, int], tuple[list[str], dict[str, str]]] = {}
    for count, path in files.items():
        for who, (_, extra) in CLI_CONTENDERS.items():
            command = [sys.executable, "-c", BM25S_SCRIPT, str(agent), str(path)] if who == "bm25s" \
                else [*ours_cmd, "recall", str(agent), "--queries-file", str(path), "--top", "50", "--json"]
            commands[(who, count)] = (command, {**env, **extra})
    samples: dict[tuple[str, int], list[tuple[float, float]]] = {c: [] for c in commands}
    rng = random.Random(skills)
    names = list(commands)
    load_before = load()
    for round_ in range(rounds + 1):  # round 0 warms the file, bytecode and our caches
        rng.shuffle(names)
        for name in names:
            result = run_once(*commands[name])
            if round_:
                samples[name].append(result)
    wall = {n: statistics.median(w for w, _ in v) for n, v in samples.items()}
    cpu = {n: statistics.median(c for _, c in v) for n, v in samples.items()}
    few, many = CLI_QUERIES
    rows = []
    margins = {}
    for who in CLI_CONTENDERS:
        margins[who] = (wall[(who, many)] - wall[(who, few)]) / (many - few) * 1000
        rows.append((who, wall[(who, few)], cpu[(who, few)], wall[(who, many)], margins[who]))
    checks = []
    for who in ("ours", "ours, no caches"):
        checks += [
            (f"CLI {skills:,} skills x {few} queries end to end: {who} {wall[(who, few)]:.2f} s <= "
             f"bm25s script {wall[('bm25s', few)]:.2f} s", wall[(who, few)] <= wall[("bm25s", few)]),
            (f"CLI {skills:,} skills, per extra query: {who} {margins[who]:.3f} ms <= bm25s script "
             f"{margins['bm25s']:.3f} ms", margins[who] <= margins["bm25s"]),
        ]
    print(f"  CLI: {skills:,} skills, {rounds} rounds; load {load_before} -> {load()}", flush=True)
    return rows, checks


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--port-queries", default="40,40,8",
                        help="port sample per size (comma list, last value repeats)")
    parser.add_argument("--rank-queries", type=int, default=30, help="rank-bm25 sample per size")
    parser.add_argument("--cli-skills", type=int, default=10_000, help="0: no CLI comparison")
    parser.add_argument("--cli-rounds", type=int, default=3)
    parser.add_argument("--dir", default=None, help="where the CLI's library is kept (default: "
                                                   "a temporary folder)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    port_counts = [int(s) for s in args.port_queries.split(",")]
    started = time.perf_counter()
    print(f"load average at the start: {load()}", flush=True)
    gen = Generator()
    per_query: list = []
    others: list = []
    checks: list = []
    for i, size in enumerate(sizes):
        rows, more, found = bench_size(gen, size, args.queries, args.passes,
                                       port_counts[min(i, len(port_counts) - 1)], args.rank_queries)
        per_query += rows
        others += more
        checks += found
    cli_rows: list = []
    if args.cli_skills:
        base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-recall-"))
        base.mkdir(parents=True, exist_ok=True)
        try:
            cli_rows, found = bench_cli(base, args.cli_skills, args.cli_rounds)
            checks += found
        finally:
            if not args.dir:
                shutil.rmtree(base, ignore_errors=True)

    print("\nPer query, ms (per query the median of the passes; then median and p95 over queries):\n")
    print("| skills | top | ours: median / p95 | bm25s: median / p95 | ours / bm25s | floor | "
          "ours / floor | ours, first pass |")
    print("|---|---|---|---|---|---|---|---|")
    for label, k, m_ours, p_ours, m_theirs, p_theirs, m_floor, m_cold in per_query:
        print(f"| {label} | {k} | {m_ours:.3f} / {p_ours:.3f} | {m_theirs:.3f} / {p_theirs:.3f} | "
              f"**{m_ours / m_theirs:.2f}** | {m_floor:.3f} | {m_ours / m_floor:.2f} | {m_cold:.3f} |")
    print("\nIndex build (median of 3, alternated), memory (tracemalloc), the slow baselines, edits:\n")
    print("| skills | build ours / bm25s | memory ours (after the queries) / bm25s | "
          "rank-bm25 get_scores | direct port | edit / first query after | load before -> after |")
    print("|---|---|---|---|---|---|---|")
    for (label, b_ours, b_theirs, m_ours, m_used, m_theirs, rank, n_rank, port, n_port, edit,
         after, before, later) in others:
        print(f"| {label} | {b_ours:.3f} / {b_theirs:.3f} s (**{b_ours / b_theirs:.2f}**) | "
              f"{m_ours:.1f} ({m_used:.1f}) / {m_theirs:.1f} MB (**{max(m_ours, m_used) / m_theirs:.2f}**) | "
              f"{rank:.1f} ms ({n_rank}) | {port:.0f} ms ({n_port}) | {edit:.3f} / {after:.3f} ms | "
              f"{before} -> {later} |")
    if cli_rows:
        few, many = CLI_QUERIES
        print(f"\nBatch CLI, {args.cli_skills:,} skills, fresh processes (median of "
              f"{args.cli_rounds} interleaved rounds):\n")
        print(f"| contender | {few} queries: wall (CPU) | {many} queries: wall | per extra query |")
        print("|---|---|---|---|")
        for who, e2e, cpu, e2e_many, margin in cli_rows:
            what = CLI_CONTENDERS[who][0]
            print(f"| {what} | {e2e:.2f} s ({cpu:.2f} s) | {e2e_many:.2f} s | {margin:.3f} ms |")
    print()
    for text, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {text}")
    print(f"\nPython {sys.version.split()[0]}, numpy {np.__version__}, bm25s {bm25s.__version__}, "
          f"{os.cpu_count()} CPUs, load average at the end {load()}, total "
          f"{time.perf_counter() - started:.0f} s")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
