"""Subject motifs for offline images and videos: open-licensed vector icons matched to the plan.

The motifs come from Iconify JSON sets installed from the npm registry by ``scripts/setup.sh``
(``@iconify-json/fluent-emoji-flat``, ``noto``, ``openmoji``, ``game-icons``, ``tabler``), read
from ``resources/vendor/iconify/<set>.json`` (copied there at set-up) or, in a checkout, straight
from ``node_modules/@iconify-json/<set>/icons.json``. Their licences, the aliases (subject words
that name no icon directly: "garment" → t-shirt, dress, coat), the words that never name a subject
("image", "left", "border", colour words…) and the people motifs portraits vary over are in
``resources/motifs/index.json``.

:func:`choose` matches one element's subject (its prompt, alt and caption first, then its
section's title, then the page title) to motifs: the first subject word that names a colour motif
gives the main motif; later words give supporting ones. :func:`assign_page` chooses for every image
and video of a page at once, so no two slots share a main motif while another match is left, and
records why (:class:`~mmstudio.plan.MotifRecord`). :func:`raster` draws a motif as RGBA with
resvg (``resvg-py``). Without the sets (a clone where set-up has not run) :func:`available` is
False and the painters fall back to abstract art with a notice.
"""

from __future__ import annotations

import io
import json
import logging
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image

from mmstudio.plan import DesignPlan, ImagePlan, MotifRecord, VideoPlan
from mmstudio.resources import data_dir, resource

log = logging.getLogger(__name__)

COLOUR_SETS = ("fluent-emoji-flat", "noto", "openmoji")
MONO_SETS = ("game-icons", "tabler")
SETS = COLOUR_SETS + MONO_SETS
# sets a subject word matches by itself (openmoji's extras and tabler's UI glyphs only through an
# alias); in game-icons only a whole icon name counts
_AUTOMATIC_SETS = ("fluent-emoji-flat", "noto", "game-icons")
_HEADED_SETS = ("fluent-emoji-flat", "noto")
_TONE_SUFFIX = re.compile(r"-(dark|light|medium|medium-dark|medium-light)(-skin-tone)?$")
# names that draw a sign rather than a thing: used only when an alias names them
_SIGNS = re.compile(
    r"(^|-)(flag|keycap|button|sign|symbol|arrow|letter|input|square|circle|mark|selector|"
    r"off|filled|heart-suit|zodiac|ideograph|regional|tone|sign-of)(-|$)"
)
_WORD = re.compile(r"[^\W\d_][\w']*")  # words in any script: "café", "山和湖"
_MAX_SUBJECT = 600  # characters of a subject text that are read (a 5,000-character prompt too)


@dataclass(frozen=True)
class Motif:
    """One icon: its Iconify ``set`` and ``name`` (``ref`` is ``set:name``)."""

    set: str
    name: str

    @property
    def ref(self) -> str:
        return f"{self.set}:{self.name}"

    @property
    def colour(self) -> bool:
        """True for full-colour emoji sets; mono and line icons take a palette colour."""
        return self.set in COLOUR_SETS


@dataclass
class Choice:
    """What :func:`choose` picked: ``main`` and ``support`` motifs, the subject ``words`` that
    matched them, and ``note`` when the element's own subject matched nothing."""

    main: Motif | None
    support: list[Motif] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    note: str = ""
    people: list[Motif] = field(default_factory=list)

    def record(self) -> MotifRecord:
        """The plan's record: each motif with the word it matched, in order (people last, as
        "(portrait)"), and the note."""
        drawn = [m.ref for m in ([self.main] if self.main else []) + self.support]
        pairs = list(zip(drawn, self.words, strict=False))
        pairs += [(m.ref, "(portrait)") for m in self.people]
        kept = dict(pairs[:1] + [p for p in pairs[1:] if p[0] != pairs[0][0]])
        return MotifRecord(motifs=list(kept)[:12], words=[w[:80] for w in kept.values()][:12],
                           note=self.note[:400])  # fmt: skip


@cache
def index_data() -> dict:
    """``resources/motifs/index.json`` (sets and licences, aliases, ignore words, people)."""
    return json.loads(resource("motifs", "index.json").read_text("utf-8"))


def _set_file(name: str) -> Path | None:
    candidates = [resource("vendor", "iconify", f"{name}.json")]
    try:
        root = data_dir("resources").parent
        candidates.append(root / "node_modules" / "@iconify-json" / name / "icons.json")
    except FileNotFoundError:
        pass
    return next((p for p in candidates if p.is_file()), None)


class Library:
    """The installed icon sets, loaded lazily (one JSON file per set, parsed once, thread-safe).

    ``folder`` overrides where sets are read from (``<folder>/<set>.json``); tests point it at an
    empty folder to see the fallback."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._sets: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._tokens: dict[str, dict[str, list[str]]] = {}

    def path(self, name: str) -> Path | None:
        if self.folder is not None:
            path = self.folder / f"{name}.json"
            return path if path.is_file() else None
        return _set_file(name)

    def installed(self) -> list[str]:
        """The sets whose JSON file is present."""
        return [name for name in SETS if self.path(name) is not None]

    def icons(self, name: str) -> dict:
        """The parsed Iconify JSON of set ``name`` ({} when it is not installed or unreadable)."""
        with self._lock:
            if name not in self._sets:
                path = self.path(name)
                data: dict = {}
                if path is not None:
                    try:
                        data = json.loads(path.read_text("utf-8"))
                    except (OSError, ValueError) as exc:
                        log.warning("icon set %s unreadable (%s); not used", path, exc)
                self._sets[name] = data
                tokens: dict[str, list[str]] = {}
                names = list(data.get("icons", {}))
                names += [a for a, v in data.get("aliases", {}).items() if set(v) == {"parent"}]
                for icon in sorted(names, key=lambda n: (n.count("-"), len(n), n)):
                    for token in set(icon.split("-")):
                        tokens.setdefault(token, []).append(icon)
                self._tokens[name] = tokens
            return self._sets[name]

    def has(self, motif: Motif) -> bool:
        data = self.icons(motif.set)
        return motif.name in data.get("icons", {}) or motif.name in data.get("aliases", {})

    def named(self, name: str, sets: tuple[str, ...]) -> Motif | None:
        """The first of ``sets`` that has an icon called ``name``."""
        for set_name in sets:
            motif = Motif(set_name, name)
            if self.has(motif):
                return motif
        return None

    def matching(self, word: str, set_name: str) -> list[str]:
        """Icon names of ``set_name`` that ``word`` names on its own: the whole name ("camera"),
        or, in the emoji sets, the last of two parts ("tree" → evergreen-tree) unless the first
        part makes it another thing ('ice-cube' is no cube; ``shifters`` in the index). Whole
        names first; skin-tone variants and signs left out. An icon is never matched by a word
        that only modifies it ("coffee" does not head coffee-cup; aliases name those)."""
        self.icons(set_name)
        names = self._tokens.get(set_name, {}).get(word, [])
        shifters = _word_list("shifters")
        whole, last = [], []
        for name in names:
            if _TONE_SUFFIX.search(name) or _SIGNS.search(name):
                continue
            parts = name.split("-")
            if name == word:
                whole.append(name)
            elif (
                set_name in _HEADED_SETS
                and len(parts) == 2
                and parts[1] == word
                and parts[0] not in shifters
                and parts[0] not in _word_list("colours")  # 'red-triangle' is a sign
                and parts[0] not in _PEOPLE_HEADS  # 'man-standing': "standing" is no person
            ):
                last.append(name)
        return whole + last

    def svg(self, motif: Motif, color: str = "#000000") -> str:
        """The motif as a standalone SVG document; ``currentColor`` becomes ``color``.

        Raises KeyError when the set does not have it."""
        data = self.icons(motif.set)
        name, flip = motif.name, False
        for _ in range(4):  # an alias names its parent (maybe flipped)
            alias = data.get("aliases", {}).get(name)
            if alias is None:
                break
            flip ^= bool(alias.get("hFlip"))
            name = alias["parent"]
        icon = data["icons"][name]
        w, h = icon.get("width", data.get("width", 16)), icon.get("height", data.get("height", 16))
        left, top = icon.get("left", data.get("left", 0)), icon.get("top", data.get("top", 0))
        body = icon["body"].replace("currentColor", color)
        if flip or icon.get("hFlip"):
            body = f'<g transform="translate({left * 2 + w} 0) scale(-1 1)">{body}</g>'
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'viewBox="{left} {top} {w} {h}" width="{w}" height="{h}">{body}</svg>'
        )


_library = Library()


def library() -> Library:
    """The process-wide :class:`Library` (tests may replace ``motifs._library``)."""
    return _library


@cache
def _rasteriser():
    try:
        import resvg_py
    except ImportError:
        return None
    return resvg_py


def available() -> bool:
    """True when a colour set and the SVG rasteriser are installed (else: abstract art)."""
    lib = library()
    return _rasteriser() is not None and any(lib.path(s) is not None for s in COLOUR_SETS)


def missing_reason() -> str:
    """Why :func:`available` is False, as one line for a notice ('' when it is True)."""
    if _rasteriser() is None:
        return "the SVG rasteriser resvg-py is not installed"
    if not any(library().path(s) is not None for s in COLOUR_SETS):
        return "the Iconify motif sets are not installed (run scripts/setup.sh)"
    return ""


@lru_cache(maxsize=256)
def _raster(lib_id: int, ref: str, px: int, color: str) -> Image.Image:
    set_name, name = ref.split(":", 1)
    svg = library().svg(Motif(set_name, name), color)
    png = _rasteriser().svg_to_bytes(svg_string=svg, width=px, height=px, skip_system_fonts=True)
    return Image.open(io.BytesIO(bytes(png))).convert("RGBA")


def raster(motif: Motif, px: int, color: str = "#000000") -> Image.Image:
    """``motif`` drawn as an RGBA image fitting ``px`` x ``px`` (aspect kept by the viewBox).

    Cached (the same motif, size and colour is drawn once). Raises KeyError for an unknown icon,
    ValueError when resvg cannot draw it."""
    return _raster(id(library()), motif.ref, max(8, int(px)), color).copy()


# --- matching --------------------------------------------------------------------------------


def _plain(word: str) -> str:
    """``word`` without accents ("café" → "cafe"); other scripts are kept as they are."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words_of(text: str, names: bool = False) -> list[str]:
    """Content words of ``text`` in order (lower case; the ignore list left out). With ``names``
    a capitalised word inside a sentence ("Juno Lee") is marked by a leading ``^``."""
    return [("^" + t.word if names and t.proper else t.word) for t in tokens_of(text)]


@dataclass(frozen=True)
class Token:
    """One content word of a subject text: ``word`` (lower case, accents off); ``proper`` for a
    capitalised word inside a sentence; ``modifier`` when another noun follows it directly
    ("drum" in "drum roaster": the thing is a roaster); ``colour`` for a colour word, or a colour
    noun in colour talk ("coral" in "coral, teal and yellow", "a soft peach background"); ``verb``
    for a word that can be a verb right before a determiner ("Watch a lesson", "Shop our beans")."""

    word: str
    proper: bool = False
    modifier: bool = False
    colour: bool = False
    verb: bool = False


def tokens_of(text: str) -> list[Token]:
    """The content words of ``text`` (its first 600 characters) as :class:`Token` s, in order."""
    ignore, colours, colour_nouns = _ignore(), _word_list("colours"), _word_list("colour_nouns")
    determiners = _word_list("determiners")
    text = text[:_MAX_SUBJECT].replace("’", "'").replace("\\n", " ")
    raw = [(m, _plain(m.group().lower()).removesuffix("'s").strip("'"))
           for m in _WORD.finditer(text)]  # fmt: skip
    out: list[Token] = []
    for i, (match, word) in enumerate(raw):
        if len(word) < 2 or word in ignore or singular(word) in ignore or word in determiners:
            continue
        before = text[: match.start()].rstrip()
        proper = match.group()[0].isupper() and bool(before) and before[-1] not in '.:!?"“('
        near = {w for _, w in raw[max(0, i - 2) : i + 3]} - {word}
        colour = singular(word) in colours or word in colours
        if not colour and (word in colour_nouns or singular(word) in colour_nouns):
            hexed = "#" in text[match.end() : match.end() + 14]
            colour = hexed or bool(near & (colours | _word_list("colour_talk")))
        modifier = verb = False
        if i + 1 < len(raw):
            follow, after = raw[i + 1]
            gap = text[match.end() : follow.start()]
            verb = (
                not gap.strip() and after in _word_list("determiners") and ("VERB" in _lemmas(word))
            )
            modifier = (
                gap.strip() in ("", "-")
                and after not in ignore
                and after not in determiners
                and after not in colours
                and not after.endswith(("ing", "ed", "ly"))
                and _nounish(after, unknown=True)
                and not _verb_after(word, after, raw[i + 2][1] if i + 2 < len(raw) else "")
            )
        out.append(Token(word, proper, modifier, colour, verb))
    return out


def _verb_after(word: str, after: str, then: str) -> bool:
    """True when ``after`` is likely a verb of which ``word`` is the subject ("a dog runs
    across", "the kettle steams."): a singular noun, then a word in -s that can be a verb,
    then a function word or the end ("chocolate shells lined up" stays a compound)."""
    return (
        after.endswith("s")
        and "VERB" in _lemmas(after)
        and singular(word) == word
        and "NOUN" in _lemmas(word)
        and (not then or then in _ignore())
    )


@cache
def _word_list(key: str) -> frozenset[str]:
    return frozenset(index_data().get(key, []))


def _ignore() -> frozenset[str]:
    return _word_list("ignore")


@cache
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """The parts of speech ``word`` can be (lemminflect's lexicon; {} for an unknown word)."""
    try:
        import lemminflect
    except ImportError:  # without it every word may be a noun (the other gates still apply)
        return {"NOUN": (word,)}
    return dict(lemminflect.getAllLemmas(word))


def _nounish(word: str, unknown: bool = False) -> bool:
    """True when ``word`` can name a thing: a noun that is no adverb too ("strong", "digital",
    "quick" are not; "drum", "field", "mechanic" are; a noun that is also an adjective only heads
    a phrase, see :class:`Token`). ``unknown`` is the answer for a word the lexicon lacks (a
    name, "lodek")."""
    lemmas = _lemmas(word)
    if not lemmas:
        return unknown
    return "NOUN" in lemmas and "ADV" not in lemmas


def singular(word: str) -> str:
    """A plain English singular: ``berries`` → ``berry``, ``boxes`` → ``box``."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def candidates(
    word: str, lib: Library, proper: bool = False, automatic: bool = True
) -> list[Motif]:
    """Motifs that ``word`` names, best first: its aliases (the index's reviewed list), then, when
    ``automatic``, icons it names by itself (:meth:`Library.matching`; emoji sets, then game-icons
    silhouettes). A ``proper`` name matches by alias or whole name only; an automatic match
    needs a word that can be a noun and is not in the index's ``no_automatic`` list."""
    return _candidates(word, lib, proper, automatic)[0]


def _candidates(word: str, lib: Library, proper: bool, automatic: bool) -> tuple[list[Motif], int]:
    """:func:`candidates` and how many of them (the first) come from aliases."""
    aliases = index_data()["aliases"]
    curated: list[Motif] = []
    found: list[Motif] = []
    forms = list(dict.fromkeys((word, singular(word))))
    for form in forms:
        for name in aliases.get(form, []):
            motif = lib.named(name, (*COLOUR_SETS, "game-icons"))
            if motif:
                curated.append(motif)
    blocked = _word_list("no_automatic")
    if automatic and not (set(forms) & blocked) and _nounish(word):
        for form in forms:
            for set_name in _AUTOMATIC_SETS:
                names = lib.matching(form, set_name)
                if proper or set_name not in _HEADED_SETS:
                    names = [n for n in names if n == form]
                found += [Motif(set_name, n) for n in names[:4]]
    curated = list(dict.fromkeys(curated))
    return list(dict.fromkeys(curated + found)), len(curated)


def _concept(motif: Motif) -> str:
    return _TONE_SUFFIX.sub("", motif.name)


def subject_texts(element: ImagePlan | VideoPlan, plan: DesignPlan) -> list[tuple[str, str]]:
    """The texts a subject is read from, most specific first: ("element", prompt + alt +
    caption), ("section", the section's title and eyebrow), ("page", the page title)."""
    own = " ".join((element.alt, element.caption, element.prompt))
    try:
        section = plan.section(element.context.section)
        near = " ".join((section.title, section.eyebrow, section.subtitle))
    except KeyError:
        near = ""
    return [("element", own), ("section", near), ("page", plan.title)]


def people(seed: int, count: int) -> list[Motif]:
    """``count`` distinct people motifs (person, woman, older person…, skin tones varied by
    ``seed``); [] without installed sets."""
    return _people(library(), seed, count)


def _people(lib: Library, seed: int, count: int) -> list[Motif]:
    data = index_data()
    people, tones = data["people"], data["skin_tones"]
    out: list[Motif] = []
    for i in range(count * 3):
        base = people[(seed + i * 7) % len(people)]
        tone = tones[(seed // 7 + i * 5) % len(tones)]
        motif = lib.named(base + tone, ("fluent-emoji-flat",)) or lib.named(base, COLOUR_SETS)
        if motif and motif not in out:
            out.append(motif)
        if len(out) == count:
            break
    return out


_PEOPLE_HEADS = {"man", "woman", "person", "older", "old", "people", "men", "women", "girl",
                 "boy", "child", "baby", "family"}  # fmt: skip
_PEOPLE_NAMES = {"scientist", "artist", "technologist", "cook", "teacher", "student", "farmer",
                 "mechanic", "singer", "astronaut", "detective", "judge", "pilot", "firefighter",
                 "health-worker", "office-worker", "factory-worker",
                 "construction-worker"}  # fmt: skip


def _person_like(motif: Motif) -> bool:
    """True when ``motif`` draws a person (man-…, woman-…, person-…, scientist, …)."""
    name = _concept(motif).removesuffix("-skin-tone")
    return name.split("-")[0] in _PEOPLE_HEADS or name in _PEOPLE_NAMES


def choose(
    element: ImagePlan | VideoPlan,
    plan: DesignPlan,
    taken: set[str] | None = None,
    seed: int = 0,
    lib: Library | None = None,
) -> Choice:
    """Match ``element``'s subject to motifs, avoiding main motifs whose concept is in ``taken``.

    A word matches when an alias names it, or when it can be a noun, is no colour and heads its
    phrase (see :class:`Token`), through :func:`candidates`. Returns a :class:`Choice` whose
    ``words`` give, for the main and each supporting motif in turn, the subject word it matched
    (or "(… theme)" for a page-theme motif); ``main`` is None only when no set is installed."""
    lib = lib or library()
    taken = taken or set()
    matched: list[tuple[str, str, list[Motif], int]] = []
    seen: set[str] = set()
    aliases = index_data()["aliases"]
    for source, text in subject_texts(element, plan):
        tokens = tokens_of(text)
        reviewed_modifier = False  # "chocolate" of "chocolate shells": the head is no seashell
        for i, token in enumerate(tokens):
            word = token.word
            automatic = not token.modifier and not reviewed_modifier
            reviewed_modifier = False
            after = tokens[i + 1].word if i + 1 < len(tokens) else ""
            pair = f"{word} {singular(after)}" if after else ""
            if pair in aliases and pair not in seen:  # "game board" before "game"
                seen.add(pair)
                found = [m for n in aliases[pair] if (m := lib.named(n, COLOUR_SETS))]
                if found:
                    matched.append((source, pair, found, len(found)))
                    seen.add(singular(after))  # "cup" of "coffee cup" is drawn already
                    continue
            if token.colour or token.verb or singular(word) in seen:
                continue
            seen.add(singular(word))
            found, curated = _candidates(word, lib, token.proper, automatic)
            reviewed_modifier = token.modifier and curated > 0
            if found:
                matched.append((source, word, found, curated))
    # a word that names a colour motif leads; silhouettes only when no word does
    matched.sort(key=lambda m: (not any(x.colour for x in m[2]),))
    own = [m for m in matched if m[0] == "element"]
    choice = Choice(main=None)
    role = element.context.role.lower()
    pool = own or matched
    for _source, word, found, curated in pool:
        fresh = [m for m in found if m.colour and _concept(m) not in taken]
        fresh = fresh or [m for m in found if _concept(m) not in taken]
        if fresh:
            # two reviewed drawings of one word take turns; an automatic match takes the best
            reviewed = [m for m in fresh if m in found[:curated]]
            lead = reviewed if len(reviewed) > 1 and fresh[0] in reviewed else fresh[:1]
            choice.main = lead[seed % min(len(lead), 2)]
            choice.words.append(word)
            break
    if choice.main is None and pool:  # every match is taken: another set's drawing of one
        _source, word, found, _curated = pool[0]
        other = [Motif(s, m.name) for m in found for s in COLOUR_SETS if m.colour]
        other = [m for m in dict.fromkeys(other) if m.ref not in taken and lib.has(m)]
        if other:
            choice.main = other[0]
            choice.words.append(word)
    theme = pool[0][1] if pool else plan.page_kind
    themed = _generic(plan.page_kind, lib)
    if choice.main is None:  # nothing matched, or all of it is drawn already: the page's theme
        choice.main = _theme_motif(themed, taken, seed, lib) or (
            pool[0][2][seed % len(pool[0][2])] if pool else None
        )
        if choice.main is None:
            broad = _generic(plan.page_kind, lib, broad=True)
            fresh = [m for m in broad if _concept(m) not in taken] or broad
            choice.main = fresh[seed % len(fresh)] if fresh else None
        choice.words.append(f"({theme} theme)")
    for _source, word, found, _curated in matched:
        if len(choice.support) >= 4:
            break
        extra = [m for m in found if m != choice.main and m not in choice.support]
        if extra and word not in choice.words[:1]:
            choice.support.append(extra[0])
            choice.words.append(word)
    if len(choice.support) < 2 and not matched:  # nothing matched: the page's theme fills in
        fillers = themed
        if choice.main not in themed:  # the theme is drawn already: fillers vary by slot, not
            # the same two stickers on every picture of a long page
            broad = _generic(plan.page_kind, lib, broad=True)
            fillers = themed + [m for m in broad if m not in themed]
        start = seed % len(fillers) if fillers else 0
        for motif in fillers[start:] + fillers[:start]:
            if len(choice.support) < 2 and motif != choice.main and motif not in choice.support:
                choice.support.append(motif)
                choice.words.append(f"({plan.page_kind} theme)")
    if any(k in role for k in ("portrait", "avatar", "headshot", "profile", "team")):
        choice.people = _people(lib, seed, 3)
    if not own:
        own_words = dict.fromkeys(words_of(subject_texts(element, plan)[0][1]))
        subject = " ".join(list(own_words)[:5]) or "(no subject)"
        choice.note = f"no motif for '{subject}'; drew a generic {theme} scene"
    return choice


def _theme_motif(themed: list[Motif], taken: set[str], seed: int, lib: Library) -> Motif | None:
    """A page-theme motif not drawn yet: a fresh concept, else another set's drawing of one."""
    fresh = [m for m in themed if _concept(m) not in taken]
    if fresh:
        return fresh[seed % min(len(fresh), 3)]
    other = [Motif(s, m.name) for m in themed for s in COLOUR_SETS]
    other = [m for m in dict.fromkeys(other) if m.ref not in taken and lib.has(m)]
    return other[seed % len(other)] if other else None


def _generic(page_kind: str, lib: Library, broad: bool = False) -> list[Motif]:
    """The motifs of a page kind's theme (``generic`` in the index); with ``broad`` also the
    broad pool a page falls back on once its theme is drawn in every set."""
    data = index_data()["generic"]
    names = [*data.get(page_kind, data["other"]), *(data["any"] if broad else [])]
    return list(dict.fromkeys(m for n in names if (m := lib.named(n, COLOUR_SETS))))


def assign_page(plan: DesignPlan, lib: Library | None = None) -> dict[str, Choice]:
    """A :class:`Choice` for every image and video of ``plan``, in page order, main motifs kept
    distinct across the page while the subjects allow (a repeat gets another drawing)."""
    from mmstudio.providers.offline.art import seed_for  # art imports this module

    taken: set[str] = set()
    out: dict[str, Choice] = {}
    for element in plan.pictures():
        choice = choose(element, plan, taken, seed_for(element.id), lib)
        if choice.main is not None:
            taken |= {_concept(choice.main), choice.main.ref}
        out[element.id] = choice
    return out


_pages: list[tuple[DesignPlan, tuple, dict[str, Choice]]] = []  # the last few pages assigned
_pages_lock = threading.Lock()


def page_choices(plan: DesignPlan) -> dict[str, Choice]:
    """:func:`assign_page` for ``plan``, kept for the last 4 plans painted (each of a page's
    pictures asks for the whole page's assignment; a 40-image page would otherwise pay 40×)."""
    key = tuple((e.id, e.prompt, e.context.role) for e in plan.pictures())
    with _pages_lock:
        for cached, cached_key, choices in _pages:
            if cached is plan and cached_key == key:
                return choices
    choices = assign_page(plan)
    with _pages_lock:
        _pages.insert(0, (plan, key, choices))
        del _pages[4:]
    return choices


def annotate(plan: DesignPlan) -> DesignPlan:
    """``plan`` with each image's and video's ``motifs`` record filled (a copy; the input is kept).

    Without installed sets the records say so and the painters draw abstract art."""
    if not available():
        note = f"no motifs: {missing_reason()}; drew abstract art"
        record = MotifRecord(note=note)
        images = [e.model_copy(update={"motifs": record}) for e in plan.images]
        videos = [e.model_copy(update={"motifs": record}) for e in plan.videos]
        return plan.model_copy(update={"images": images, "videos": videos})
    choices = assign_page(plan)
    images = [e.model_copy(update={"motifs": choices[e.id].record()}) for e in plan.images]
    videos = [e.model_copy(update={"motifs": choices[e.id].record()}) for e in plan.videos]
    return plan.model_copy(update={"images": images, "videos": videos})


def from_record(record: MotifRecord, lib: Library | None = None) -> Choice | None:
    """The :class:`Choice` a plan's record names (None when it names no installed motif)."""
    lib = lib or library()
    motifs = []
    for ref in record.motifs:
        set_name, _, name = ref.partition(":")
        motif = Motif(set_name, name)
        if set_name in SETS and lib.has(motif):
            motifs.append(motif)
    if not motifs:
        return None
    people = [m for m in motifs[1:] if _person_like(m)]
    support = [m for m in motifs[1:] if m not in people]
    return Choice(motifs[0], support, list(record.words), record.note, people)


def choice_for(element: ImagePlan | VideoPlan, plan: DesignPlan) -> Choice | None:
    """The element's motifs: its plan record when it has one, else chosen for the whole page
    (so a slot painted alone still differs from its neighbours). None without installed sets."""
    if not available():
        return None
    record = getattr(element, "motifs", None)
    if record is not None and record.motifs:
        chosen = from_record(record)
        if chosen is not None:
            return chosen
    if any(e.id == element.id for e in plan.pictures()):
        return page_choices(plan).get(element.id)
    from mmstudio.providers.offline.art import seed_for

    return choose(element, plan, set(), seed_for(element.id))


def credits(plan: DesignPlan) -> list[str]:
    """One line per icon set the plan's records use: title, author, licence and its URL."""
    used = {ref.split(":", 1)[0] for e in plan.pictures()
            if e.motifs for ref in e.motifs.motifs}  # fmt: skip
    sets = index_data()["sets"]
    return [
        f"{sets[s]['title']} by {sets[s]['author']} ({sets[s]['source']}), "
        f"licence {sets[s]['licence']} ({sets[s]['licence_url']})"
        for s in SETS
        if s in used
    ]
