"""The catalogue of known failure texts (assets/doctor/patterns.toml) and the line matcher.

    patterns() -> tuple[Pattern, ...]      the rows, in file order (specific first, harmless last)
    matcher = LineMatcher()
    hit = matcher.feed(line, number)        a Hit the first time an id is seen, else None
    matcher.ranked() -> list[Hit]           harmful causes, harmful symptoms, then harmless ones

Each line belongs to the first row that matches it, so a real error line is never claimed by a
harmless row (they come last in the file, but for a harmless context row, which claims a line only
where the text says it is harmless) and a specific row wins over a generic one. Rows with
`repl_after`/`repl_value` match a Python REPL echo: a value line ("[]", "False") right after the
line that printed it.

Context: a row with `when` claims its line only where the same text, anywhere (before or after),
holds one of its cues: "nvidia-smi: command not found" said inside a container (docker, podman,
`--gpus`) is a container started without GPU access, not a missing nvidia-smi. While the cue is
not seen the line belongs to the next row that matches it (the row without the context), so a
streamed log is answered as it comes and corrected when the cue arrives.

A context row may also need a second fact (`also`, one of its cues anywhere too): "Blas GEMM launch
failed" is a GPU newer than the build only where the text names both an Ampere GPU and a CUDA 10
toolchain, wherever each is said; and a fact may rule the context out (`unless`: pip's list of
tensorflow-gpu versions means "not for this Python" unless the 2.12 stub, "removed", is in it).
A cue wrapped onto two lines is seen too (each line is also tried joined to the one before).

Weak rows (`weak = true`) are lines that are evidence only beside a failure (a `docker run` line
without `--gpus`, "SecureBoot enabled"): ranked after every strong cause, and where the text holds
no harmful line of another row they are a note, not a cause (see wizard.doctor.diagnose).
Decisive rows (`decisive = true`) are causes that make every other moot (a GPU of compute
capability 1.x/2.x, on which no TensorFlow build has ever run): first among the causes, wherever
their line is.
Prose rows (`prose = true`) are context rows whose cues are words a person wrote ("works after a
driver update", "after the kernel upgrade"): a cause, but ranked after every cause a program's own
message names in the same text, since a program's message decides and prose never outranks it.
Consequence rows (`after = [ids]`): a message that follows from another the same text may show
(cuDNN's "Failed to get convolution algorithm ... see if a warning log message was printed above"
after "Could not create cudnn handle"; CUDA's runtime not loaded where cuInit found no driver):
where one of those ids is in the text, the row is ranked right after it, whatever its own tier, so
the most specific program message, the root, is the first diagnosis.
Fallback rows (`fallback = true`) are a cause only where the text shows nothing else: a complaint
in words ("TensorFlow can't use the GPU" where PyTorch uses it) is ranked after every cause and
symptom the text shows, so an error line in the same text comes first; alone it is the cause.

Figures rows (`figures = "<name>"`): a message whose cause is in its numbers (PyTorch's out of
memory message: most of the GPU neither free nor PyTorch's is memory another program holds): the
row claims a line only where its regex matches and that check of the match's named groups says yes
(wizard.doctor.figures).

Texts as people paste them: a line is matched in a plain form (curly quotes, full-width
punctuation, HTML entities and runs of blanks made plain; `plain`), and a message wrapped onto two
lines is matched across the break (see LineMatcher), under the same quote or comment marks too
("> " in a reply, "+# " in a diff of a commented file).

Speed: most lines of a log match nothing, and a case-insensitive regex costs ~20 µs per line in
CPython. Each regex gets an "anchor": the start of a literal text every match must contain (the
longest, a rare one before a common word), found from the parsed regex. A line holding no anchor
at all is passed over after one trie-shaped regex scan; otherwise `anchor in line.lower()` skips
most regexes; a long line already seen is answered from memory. A 2 MiB log tail (~15 000
TensorFlow log lines) is matched in a fraction of a second.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from wizard.assets import asset_text
from wizard.doctor.figures import FIGURES, FiguredRegex
from wizard.safe.display import cut  # a cut line ends in '…', never mid-word as if whole
from wizard.tomlcompat import tomllib

try:  # the regex parser: re._parser on Python 3.11+, sre_parse before
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

MAX_LINE_CHARS = 4_000  # a longer line is cut before matching, so one huge line stays cheap
EVIDENCE_CHARS = 200  # the evidence kept per finding
MIN_ANCHOR = 2  # a shorter literal filters too little to be worth it
MAX_ANCHOR = 16  # the start of a longer literal filters as well
REPL_VALUE_CHARS = 40  # a REPL echo value ("[]", "False") is a short line
SEEN_LINES = 4096  # long lines remembered with their answer
# Words on almost every line of a TensorFlow log: a poor anchor when the regex offers another one.
COMMON_WORDS = frozenset({"tensorflow", "gpu", "gpus", "cuda", "nvidia", "error", "library"})

HARMFUL, WEAK, SYMPTOM, FALLBACK, HARMLESS = 0, 1, 2, 3, 4  # ranking tiers of a hit
WHEN, ALSO, UNLESS = 0, 1, 2  # a context row's cue groups
CUE_SEAM = 200  # characters of each line tried joined to the line before, for a wrapped cue
WRAPPED = 160  # a line wrapped by a terminal or a forum is at most this long (a log line often longer)
HITS_KEPT = 64  # lines kept per diagnosis: enough to find one a context row did not take
CONTEXT_KEPT = 256  # lines a context row matched, kept until the end of the text

# What a blog editor, a Chinese input method or a web page does to a pasted message: curly quotes,
# full-width colons and brackets, no-break and ideographic spaces, zero-width characters, HTML
# entities. Lines are matched in this plain form (the evidence keeps the line as it was), so one
# regex matches "couldn't", "couldn’t" and "couldn&#39;t".
_PLAIN = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\uff1a": ":",
        "\uff08": "(",
        "\uff09": ")",
        "\uff3b": "[",
        "\uff3d": "]",
        "\uff0c": ", ",
        "\u00a0": " ",
        "\u3000": " ",
        "\u200b": None,
        "\ufeff": None,
    }
)


# Chinese text glued to an English word ("报错ImportError", "我的RTX3060显卡"): to a regex both are
# word characters, so `\b` finds no boundary between them; a space put there lets the English
# rows match inside a Chinese sentence as they do in an English one.
_CJK_ASCII = re.compile(
    r"(?<=[\u3400-\u9fff\uf900-\ufaff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u3400-\u9fff\uf900-\ufaff])"
)


# i35j: two marks a person's paste puts inside a message: Markdown's bold (two asterisks, not the
# three of glog's "*** Check failure stack trace: ***" or make's "***"), and a comma typed for the dot of
# a shared library's file name.
_BOLD = re.compile(r"(?<!\*)\*\*(?!\*)")
_COMMA_SO = re.compile(r"\b(lib[A-Za-z][\w+-]*),so\b(?=\.[0-9]|\s|:|$)")


def plain(line: str) -> str:
    """The line as matched: typographic quotes, full-width punctuation and HTML entities made plain,
    a Chinese character and an English word beside it parted by a space, and a run of spaces or
    tabs inside it one space ("required  key not available")."""
    if "&" in line and ";" in line:
        line = html.unescape(line)
    if "**" in line:  # Markdown bold inside a pasted message ("no **CUDA-capable device is detected**")
        line = _BOLD.sub("", line)
    if not line.isascii():
        line = _CJK_ASCII.sub(" ", line.translate(_PLAIN))
    if ",so" in line:  # a library's name retyped with a comma ("libcudart,so.11.0": ',' is '.''s neighbour)
        line = _COMMA_SO.sub(r"\1.so", line)
    if "  " in line or "\t" in line:
        line = " ".join(line.split())
    return line


# The start of a TensorFlow (absl/TSL) log record inside a line, after a blank:
# "2024-02-21 08:19:41.898983: I tensorflow/...". A page that lost its line breaks glues them.
_RECORD_START = re.compile(r"\s+(?=[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]+: [IWEF] \S)")
_LEAD = re.compile(r"[\s>|#+*`-]*\Z")


# A quote or comment mark that starts every line of a wrapped message ("> " in a reply, "+# " in a
# diff of a commented file, "| " in a table): left off the second line where the first starts with
# it too, so the message reads as one line across the break.
_QUOTE_MARKS = re.compile(r"^(?:[>+#|]+ ?)+")


def _continued(before: str, line: str) -> str:
    """`line` as the continuation of `before`: without the quote marks both lines start with."""
    if not line or line[0] not in "+>#|":
        return line
    marks = _QUOTE_MARKS.match(line)
    if marks is None:
        return line
    mark = marks.group(0).rstrip()
    return line[marks.end() :] if before.startswith(mark) else line


# A line a paste wrapped at a fixed width, mid-word: long, its last character and the next line's
# first both letters or digits ("... Successfully opened dyna" / "mic library libcudart.so.11.0").
HARD_WRAP_MIN = 60


def _mid_word(before_raw: str, rest: str) -> bool:
    end = before_raw.rstrip("\r\n")
    if not (end[-1:].isalnum() and rest[:1].isalnum()):
        return False
    # Or a quoted message (`...`) whose code span opens on one line and closes on the next: a break
    # inside inline code is the paste's, not the writer's ("`Loaded runtime CuD" / "NN library: ...`").
    return len(end) >= HARD_WRAP_MIN or (end.count("`") % 2 == 1 and rest.count("`") % 2 == 1)


Searcher = re.Pattern[str] | FiguredRegex  # a row's regex; with `figures`, its numbers checked too


@dataclass(frozen=True)
class Rule:
    regex: Searcher
    anchor: str | None  # lower-case literal every match contains; None: always try the regex

    def search(self, line: str, low: str) -> bool:
        return (self.anchor is None or self.anchor in low) and self.regex.search(line) is not None


@dataclass(frozen=True)
class Pattern:
    id: str
    rules: tuple[Rule, ...]
    seen_in: str  # where these texts were seen: public issues, the guides, library sources
    family: str
    harmful: bool
    symptom: bool  # a consequence that a more specific diagnosis explains: ranked after causes
    repl_after: tuple[re.Pattern[str], ...] = ()
    repl_value: tuple[re.Pattern[str], ...] = ()
    when: tuple[re.Pattern[str], ...] = ()  # context cues, one needed anywhere in the text
    weak: bool = False  # evidence only beside a failure: ranked after the strong causes
    also: tuple[re.Pattern[str], ...] = ()  # a second fact: one of these cues needed too
    unless: tuple[re.Pattern[str], ...] = ()  # a fact that rules the context out
    fallback: bool = False  # a cause only where the text shows nothing else: ranked after symptoms
    decisive: bool = False  # a cause that makes the others moot (a GPU no build runs on): first
    prose: bool = False  # its context is words a person wrote: after the causes a program names
    # Ids whose message is this row's root: where the same text shows one of them, this row's line
    # is its consequence and is ranked right after it (see wizard.doctor.diagnose.from_hits).
    after: tuple[str, ...] = ()
    # The doctor.toml section of its title, why and fix where not the id's own: the same cause in
    # another program's words (PyTorch's CPU build is cpu-only-wheel, told as PyTorch's).
    texts: str = ""

    @property
    def order(self) -> tuple[int, bool, bool]:
        """The ranking key before the line's place: the tier, a cause a program's own message names
        before one that words a person wrote decided (`prose`), then a decisive cause first."""
        return (self.tier, self.prose, not self.decisive)

    @property
    def late(self) -> bool:
        """Ranked after the strong causes (a weak or a fallback row)."""
        return self.weak or self.fallback

    @property
    def tier(self) -> int:
        if not self.harmful:
            return HARMLESS
        if self.symptom:
            return SYMPTOM
        if self.fallback:
            return FALLBACK
        return WEAK if self.weak else HARMFUL

    def matches(self, line: str, low: str, previous: str) -> bool:
        if any(rule.search(line, low) for rule in self.rules):
            return True
        # The value first: it is short ("[]", "False"), so a long log line fails at once.
        return (
            bool(self.repl_after)
            and len(line) <= REPL_VALUE_CHARS
            and any(rx.search(line) for rx in self.repl_value)
            and any(rx.search(previous) for rx in self.repl_after)
        )


@dataclass(frozen=True)
class Hit:
    pattern: Pattern
    number: int | None  # the line number shown to people (negative: counted from the end)
    position: int  # the order in which the lines were read
    line: str  # the matching line, stripped and cut; raw data (make it safe before showing it)

    @property
    def rank(self) -> tuple[int, bool, bool, int]:
        """The report's order: tier, a decisive cause first, then first appearance."""
        return (*self.pattern.order, self.position)


def _literal_runs(items: Any, runs: list[str]) -> None:
    """Collect the literal runs that every match of this parsed (sub)pattern must contain."""
    run: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            run.append(chr(av))
            continue
        runs.append("".join(run))
        run = []
        if name == "SUBPATTERN":  # (group, add_flags, del_flags, pattern): a group that must match
            _literal_runs(av[-1], runs)
        elif name in ("MAX_REPEAT", "MIN_REPEAT") and av[0] >= 1:  # (min, max, item), min >= 1
            _literal_runs(av[2], runs)
        # BRANCH, IN, ANY, AT, NOT_LITERAL, optional repeats: nothing certain to use
    runs.append("".join(run))


def anchor_of(source: str) -> str | None:
    """The longest literal every match of `source` contains, lower-cased; None if too short."""
    try:
        parsed = _sre_parse.parse(source, re.IGNORECASE)
    except Exception:  # an unusual construct: no anchor, the regex is simply always tried
        return None
    runs = [r.lower() for r in _collect_runs(parsed) if len(r) >= MIN_ANCHOR]
    if not runs:
        return None
    # The longest literal, but a rare one ("[]", ".tar.gz") before a common word ("gpu"); its start
    # is enough (any piece of a literal every match holds is held too), and a short anchor keeps
    # the prefilter and the check across a wrapped line cheap.
    return max(runs, key=lambda r: (r.strip() not in COMMON_WORDS, len(r)))[:MAX_ANCHOR]


def _collect_runs(parsed: Any) -> list[str]:
    runs: list[str] = []
    _literal_runs(parsed, runs)
    return runs


def _compile(items: list[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(x, re.IGNORECASE) for x in items)


def _row_regexes(row: dict[str, Any]) -> tuple[Searcher, ...]:
    """A row's regexes; where it names `figures`, each match counts only if that check says yes."""
    compiled = _compile(row["regex"])
    name = row.get("figures")
    if name is None:
        return compiled
    check = FIGURES[name]  # an unknown name fails the catalogue's own test, not a user's run
    return tuple(FiguredRegex(rx, check) for rx in compiled)


@cache
def patterns() -> tuple[Pattern, ...]:
    data = tomllib.loads(asset_text("doctor/patterns.toml"))
    return tuple(
        Pattern(
            id=row["id"],
            rules=tuple(Rule(rx, anchor_of(rx.pattern)) for rx in _row_regexes(row)),
            seen_in=row["seen_in"],
            family=row.get("family", ""),
            harmful=bool(row.get("harmful", True)),
            symptom=bool(row.get("symptom", False)),
            repl_after=_compile(row.get("repl_after", [])),
            repl_value=_compile(row.get("repl_value", [])),
            when=_compile(row.get("when", [])),
            weak=bool(row.get("weak", False)),
            also=_compile(row.get("also", [])),
            unless=_compile(row.get("unless", [])),
            fallback=bool(row.get("fallback", False)),
            decisive=bool(row.get("decisive", False)),
            prose=bool(row.get("prose", False)),
            after=tuple(row.get("after", [])),
            texts=row.get("texts", ""),
        )
        for row in data["pattern"]
    )


def cue_anchor(source: str) -> str | None:
    """The longest literal every match of a cue holds, lower-cased, a rare one before a common
    word as for a rule (one character will do: a cue is looked for on every line until it is
    seen, and `in` is cheap)."""
    try:
        parsed = _sre_parse.parse(source, re.IGNORECASE)
    except Exception:  # an unusual construct: the regex is simply always tried
        return None
    runs = [r.lower() for r in _collect_runs(parsed) if r]
    best = max(
        runs, key=lambda r: (len(r) >= MIN_ANCHOR and r.strip() not in COMMON_WORDS, len(r)), default=None
    )
    return best[:MAX_ANCHOR] if best else None


Cues = tuple[tuple[str | None, re.Pattern[str]], ...]


@cache
def _cues() -> tuple[tuple[Pattern, int, Cues], ...]:
    """Each context row's cue groups (WHEN, ALSO, UNLESS) with their cues (anchor, regex): a
    handful, tried on each line until seen."""
    return tuple(
        (p, group, tuple((cue_anchor(rx.pattern), rx) for rx in cues))
        for p in patterns()
        if p.when
        for group, cues in enumerate((p.when, p.also, p.unless))
        if cues
    )


def pattern(diag_id: str) -> Pattern | None:
    """The id's row: the first harmful one, else the first (all rows of one id agree on family and
    symptom; an id may also have a harmless context row, cuInit's failure on a CPU-only node)."""
    rows = [p for p in patterns() if p.id == diag_id]
    return next((p for p in rows if p.harmful), rows[0] if rows else None)


@cache
def _flat_rules() -> tuple[tuple[str | None, Searcher | None, Pattern], ...]:
    """(anchor, regex, row) for every rule in file order; (None, None, row) for a REPL row."""
    flat: list[tuple[str | None, Searcher | None, Pattern]] = []
    for p in patterns():
        flat.extend((rule.anchor, rule.regex, p) for rule in p.rules)
        if p.repl_after:
            flat.append((None, None, p))
    return tuple(flat)


@cache
def _prefilter() -> tuple[tuple[str, ...], tuple[tuple[str | None, Searcher | None, Pattern], ...]]:
    """The anchors a line must hold one of for any anchored rule to match, and the rules a line
    holding none of them still needs (REPL rows and regexes without an anchor). An anchor that
    contains a shorter one is left out: the shorter one is found wherever the longer one is."""
    flat = _flat_rules()
    kept: list[str] = []
    for a in sorted({a for a, regex, _ in flat if a is not None and regex is not None}, key=len):
        if not any(k in a for k in kept):
            kept.append(a)
    return tuple(kept), tuple(item for item in flat if item[0] is None)


def _trie(words: tuple[str, ...]) -> re.Pattern[str]:
    """One regex that finds any of `words`, shaped as a trie (shared starts tested once): about
    twice as fast as testing each word with `in`, and far faster than a flat alternation."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        if "" in node:  # a word ends here: its start is all a search needs
            return ""
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items())]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return re.compile(build(root) if words else "(?!)")


@cache
def _cue_list() -> tuple[tuple[tuple[int, int], str | None, re.Pattern[str]], ...]:
    """Every cue, flat: ((row id(), group), anchor, regex)."""
    return tuple(((id(p), group), anchor, rx) for p, group, cues in _cues() for anchor, rx in cues)


@cache
def _cue_regex(ascii_only: bool = False) -> re.Pattern[str] | None:
    """Every cue's anchor as one trie regex, built once; None when no cue has one (the few cues
    without an anchor are tried on every line apart, see _free_cues). `ascii_only`: the ASCII
    anchors alone, for an ASCII line (see _ascii_anchor_regex). Built once rather than per set of
    unseen cues: rebuilding it as cues were seen cost a regex compile per text (most of a corpus
    run); a found anchor is checked against the unseen cues instead (Matcher._unseen_cues_at)."""
    anchors = {
        anchor for _, anchor, _ in _cue_list() if anchor is not None and (not ascii_only or anchor.isascii())
    }
    return _trie(tuple(sorted(anchors))) if anchors else None


CueIndex = tuple[
    re.Pattern[str],
    dict[str, tuple[str, ...]],
    dict[str, tuple[tuple[tuple[int, int], str | None, re.Pattern[str]], ...]],
]


@cache
def _cue_index() -> CueIndex:
    """Where a line's cue anchors start (a zero-width trie, so every start is found, not only
    non-overlapping ones), the anchors by first character, and each anchor's cues: a line that
    holds an anchor is tried against that anchor's unseen cues alone, not every cue (a log that
    names its GPU on every line held 3 anchors and was tried against 600 cues per line)."""
    by_anchor: dict[str, list[tuple[tuple[int, int], str | None, re.Pattern[str]]]] = {}
    for cue in _cue_list():
        if cue[1] is not None:
            by_anchor.setdefault(cue[1], []).append(cue)
    heads: dict[str, list[str]] = {}
    for anchor in by_anchor:
        heads.setdefault(anchor[0], []).append(anchor)
    starts = re.compile("(?=" + _trie(tuple(sorted(by_anchor))).pattern + ")")
    return (
        starts,
        {head: tuple(anchors) for head, anchors in heads.items()},
        {anchor: tuple(cues) for anchor, cues in by_anchor.items()},
    )


@lru_cache(maxsize=256)
def _free_cues(
    unseen: frozenset[tuple[int, int]],
) -> tuple[tuple[tuple[int, int], str | None, re.Pattern[str]], ...]:
    """The unseen cues without an anchor: tried on every line, but only these few, not every cue."""
    return tuple(cue for cue in _cue_list() if cue[1] is None and cue[0] in unseen)


@cache
def _anchor_regex() -> re.Pattern[str]:
    return _trie(_prefilter()[0])


@cache
def _ascii_anchor_regex() -> re.Pattern[str]:
    """The trie of the ASCII anchors only: an ASCII line (most log lines) can hold no other, and a
    trie without Chinese anchors is searched about a third faster (re's fast first-character set
    stays small)."""
    return _trie(tuple(a for a in _prefilter()[0] if a.isascii()))


@cache
def _seam() -> int:
    """How far on each side of a join an anchor must be looked for when neither half holds one: the
    longest prefilter anchor (an anchor left out contains a kept one, which then spans the join)."""
    return max(map(len, _prefilter()[0]), default=0)


class LineMatcher:
    """Reads lines one at a time (a log, a pasted session, a running command's output).

    A message wrapped onto two lines (a pasted issue, a terminal 80 columns wide) is matched too:
    a line that matches nothing is tried once more joined to the unmatched line before it, and a
    hit there belongs to that earlier line.

    `hits` is the answer so far, one Hit per diagnosis: a line a context row matched belongs to it
    once its cue has been seen anywhere in the text, else to the row that matched it without
    context; of an id's lines, a strong row's first line before a weak row's."""

    def __init__(self) -> None:
        self._lines: dict[str, list[Hit]] = {}  # id -> its lines (HITS_KEPT at most), in order
        self._context: list[list[Hit]] = []  # per line a context row matched: its Hits, row order
        self._groups: set[tuple[int, int]] = set()  # (row id(), cue group) seen in the text
        # The last non-blank line and whether it held an unseen cue's anchor (a wrapped cue).
        self._cue_before: tuple[str, bool] = ("", False)
        self.lines = 0
        self._extra = 0  # records fed beyond the lines read (a line split into its log records)
        self._whole: str | None = None  # the pasted line while its records are matched
        self._previous = ""
        # The last line, when it matched nothing or was short enough to be a wrapped one: (plain text,
        # raw text, number, position, anchored, its row's place in file order or None).
        self._unmatched: tuple[str, str, int, int, bool, int | None] | None = None
        self._flat = _flat_rules()
        self._unanchored = _prefilter()[1]
        self._anchor_search = _anchor_regex().search
        self._ascii_anchor_search = _ascii_anchor_regex().search
        self._cues = _cue_list()
        self._unseen = frozenset(key for key, _, _ in self._cues)
        cue_regex, ascii_regex = _cue_regex(), _cue_regex(ascii_only=True)
        self._cue_search = cue_regex.search if cue_regex is not None else None
        self._ascii_cue_search = ascii_regex.search if ascii_regex is not None else None
        self._free = _free_cues(self._unseen)
        self._seen: dict[str, tuple[bool, tuple[int, Pattern] | None, tuple[Pattern, ...]]] = {}
        self._place = {id(p): place for place, (_, _, p) in reversed(list(enumerate(self._flat)))}

    def _anchored(self, low: str) -> bool:
        # Most lines hold no anchor at all: one trie regex tests them all at C speed, instead of
        # a Python loop over every rule.
        search = self._ascii_anchor_search if low.isascii() else self._anchor_search
        return search(low) is not None

    def _row(
        self, line: str, low: str, anchored: bool, repl: bool
    ) -> tuple[tuple[int, Pattern] | None, tuple[Pattern, ...]]:
        """The first row without context that matches the line (with its place in file order), or
        None; and the context rows before it that match the line too."""
        rules = self._flat if anchored else self._unanchored
        context: list[Pattern] = []
        for place, (anchor, regex, p) in enumerate(rules):  # flat, in file order: the hot path
            if regex is None:  # a REPL row
                if repl and p.matches(line, low, self._previous):
                    return (self._place[id(p)], p), tuple(context)
            elif (anchor is None or anchor in low) and regex.search(line) is not None:
                if p.when:
                    if all(c is not p for c in context):  # a row with several matching regexes
                        context.append(p)
                    continue
                return ((place if anchored else self._place[id(p)]), p), tuple(context)
        return None, tuple(context)

    def _hit(self, p: Pattern, raw: str, number: int, position: int) -> Hit | None:
        """Keep the line for its row; the Hit when it is the first line of its diagnosis."""
        kept = self._lines.setdefault(p.id, [])
        if len(kept) >= HITS_KEPT:  # the line still belongs to this row; no other row sees it
            return None
        new = Hit(p, number, position, cut(raw.strip(), EVIDENCE_CHARS))
        kept.append(new)
        return new if len(kept) == 1 else None

    def _is_cued(self, p: Pattern) -> bool:
        """The text holds this context row's cue, its second fact if it needs one, and no fact
        that rules it out (a context row only; a row without `when` never is)."""
        seen = self._groups
        return (id(p), WHEN) in seen and (not p.also or (id(p), ALSO) in seen) and (id(p), UNLESS) not in seen

    def _unseen_cues_at(self, low: str) -> tuple[tuple[tuple[int, int], str | None, re.Pattern[str]], ...]:
        """The unseen cues whose anchor the line holds (most lines hold no anchor at all: one trie
        regex says so at C speed)."""
        search = self._ascii_cue_search if low.isascii() else self._cue_search
        if search is None or search(low) is None:
            return ()
        starts, heads, by_anchor = _cue_index()
        present = {
            anchor
            for m in starts.finditer(low)
            for anchor in heads.get(low[m.start()], ())
            if low.startswith(anchor, m.start())
        }
        unseen = self._unseen
        return tuple(cue for anchor in sorted(present) for cue in by_anchor[anchor] if cue[0] in unseen)

    def _cues_in(self, line: str, low: str) -> bool:
        """Look for the unseen cues in a line; False when it holds none of their anchors (and no
        unseen cue without an anchor is left)."""
        anchored = self._unseen_cues_at(low)
        if not anchored and not self._free:
            return False
        # Without an anchor on the line only the few cues without one can match it; with one, only
        # the unseen cues of the anchors the line holds.
        cues = (*self._free, *anchored)
        seen = [key for key, _, rx in cues if key in self._unseen and rx.search(line) is not None]
        if seen:
            self._groups.update(seen)
            self._unseen = self._unseen.difference(seen)
            self._free = _free_cues(self._unseen)
        return True

    def _see_cues(self, stripped: str, low: str) -> None:
        anchored = self._cues_in(stripped, low)
        before, before_anchored = self._cue_before
        if before and len(before) <= WRAPPED and self._unseen:
            # A cue wrapped onto this line (a pasted issue, an 80-column terminal): the joined text
            # can hold one only where a cue's anchor is in one half or across the seam.
            joined = before[-CUE_SEAM:] + " " + stripped[:CUE_SEAM]
            seam = (before[-MAX_ANCHOR:] + " " + stripped[:MAX_ANCHOR]).lower()
            if anchored or before_anchored or self._free or self._unseen_cues_at(seam):
                self._cues_in(joined, joined.lower())
        self._cue_before = (stripped, anchored)

    def feed(self, line: str, number: int | None = None) -> Hit | None:
        """Match one line; the Hit when it is the first line of its diagnosis, else None.

        A long line holding several of TensorFlow's log records (a log page that lost its line
        breaks, as a hosted app's log viewer shows it) is matched record by record, each under the
        line's own number: otherwise its first matching row would claim all of them."""
        shown = self.lines - self._extra + 1 if number is None else number
        if len(line) > WRAPPED and "-" in line and _RECORD_START.search(line, 1, MAX_LINE_CHARS):
            text = line[:MAX_LINE_CHARS]
            # Cut before each record but one after nothing or a quote mark ("> 2021-...").
            cuts = [m.start() for m in _RECORD_START.finditer(text) if not _LEAD.match(text, 0, m.start())]
            records = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
            if len(records) > 1:
                first: Hit | None = None
                self._whole = line  # each record's evidence is the line as pasted
                try:
                    for record in records:
                        hit = self._feed_one(record, shown)
                        first = first or hit
                finally:
                    self._whole = None
                self._extra += len(records) - 1
                return first
        return self._feed_one(line, shown)

    def _feed_one(self, line: str, shown: int) -> Hit | None:
        raw = line[:MAX_LINE_CHARS]
        line = plain(raw)
        position = self.lines
        self.lines += 1
        stripped = line.strip()
        low = line.lower()
        if self._cues and stripped:
            self._see_cues(stripped, low.strip())
        if len(line) > REPL_VALUE_CHARS:  # no REPL value: the answer depends on the line alone
            known = self._seen.get(line)
            if known is None:
                anchored = self._anchored(low)
                known = self._seen[line] = (anchored, *self._row(line, low, anchored, repl=False))
                if len(self._seen) > SEEN_LINES:  # logs repeat lines (progress, warnings) but not all
                    self._seen.clear()
            anchored, row, context = known
        else:
            anchored = self._anchored(low)
            row, context = self._row(line, low, anchored, repl=True)
        before, self._unmatched = self._unmatched, None
        if before is not None and stripped and not context:
            # The message may have begun on the line before (which matched nothing, or was short).
            # The joined text wins when it matches a row before this line's own and before the
            # line before's own (a more specific one), or a context row where neither line matched.
            # A paste wrapped at a fixed width may part a word ("read fr" / "om SysFS"): then the
            # halves glued without a space are tried too, after the spaced join.
            rest = _continued(before[0], stripped)
            gaps = (" ", "") if _mid_word(before[1], rest) else (" ",)
            reach = _seam()  # neither half holds an anchor: only one across the join can match
            for gap in gaps:
                joined = before[0] + gap + rest
                seam = (before[0][-reach:] + gap + stripped[:reach]).lower()
                if not (before[4] or anchored or self._anchored(seam)):
                    continue
                both, both_context = self._row(joined, joined.lower(), True, repl=False)
                if before[5] is not None:  # the line before had its own row: only a more specific one
                    both_context = ()
                    if both is not None and both[0] >= before[5]:
                        both = None
                if (
                    both is not None and (row is None or both[0] < row[0]) and both[1].id not in self._lines
                ) or (row is None and both_context):
                    self._previous = line
                    text = before[1].strip() + gap + raw.strip()
                    return self._claim(both, both_context, text, before[2], before[3])
        new = self._claim(row, context, raw, shown, position)
        # A line its own row matched may still be the first half of a more specific message wrapped
        # onto the next line ("... nvml error: driver/library" + "version mismatch"): kept when short.
        # So is a line only a context row matched (its cue may never come): "... due to an OSError:
        # [WinError 5] Access" + "is denied: '...\\pip.exe'" is pip's own file, whatever the context.
        if stripped and (row is None or len(stripped) <= WRAPPED):
            self._unmatched = (stripped, raw, shown, position, anchored, None if row is None else row[0])
        if stripped:
            self._previous = line
        return new

    def _claim(
        self,
        row: tuple[int, Pattern] | None,
        context: tuple[Pattern, ...],
        raw: str,
        shown: int,
        position: int,
    ) -> Hit | None:
        """Give a line to its context rows and to its row; the Hit when it is new to the answer."""
        new: Hit | None = None
        raw = raw if self._whole is None else self._whole
        if context and len(self._context) < CONTEXT_KEPT:
            hits = [Hit(p, shown, position, cut(raw.strip(), EVIDENCE_CHARS)) for p in context]
            self._context.append(hits)
            taken = next((h for h in hits if self._is_cued(h.pattern)), None)
            if taken is not None and self.hits.get(taken.pattern.id) is taken:
                new = taken  # the cue came first: the line is the context row's at once
        if row is not None:
            first = self._hit(row[1], raw, shown, position)
            new = new or (first if not any(self._is_cued(p) for p in context) else None)
        return new

    def feed_text(self, text: str) -> None:
        for line in text.splitlines():
            self.feed(line)

    @property
    def hits(self) -> dict[str, Hit]:
        """One Hit per diagnosis id (see the class docstring), in the order the ids were first seen."""
        taken: set[int] = set()
        lines: dict[str, list[Hit]] = {}
        for hits in self._context:
            chosen = next((h for h in hits if self._is_cued(h.pattern)), None)
            if chosen is not None:
                taken.add(chosen.position)
                lines.setdefault(chosen.pattern.id, []).append(chosen)
        for diag_id, kept in self._lines.items():
            lines.setdefault(diag_id, []).extend(h for h in kept if h.position not in taken)
        best = {i: min(hs, key=lambda h: (h.pattern.late, h.position)) for i, hs in lines.items() if hs}
        return dict(sorted(best.items(), key=lambda item: item[1].position))

    def ranked(self) -> list[Hit]:
        """Harmful causes (a decisive one first), weak ones, harmful symptoms, fallback causes, then
        harmless messages; each by first appearance."""
        return sorted(self.hits.values(), key=lambda h: h.rank)
