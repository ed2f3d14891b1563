"""No English on a maintainer's pages: every maintainer page, fetched over real HTTP from a
seeded site in the Spanish and the Arabic interface, and the text a person reads on it (the
text of the body and the title, and the tooltips, placeholders and labels a screen reader
says) holds no word of the English interface and no English name of a language.

The words looked for are those of `english_only` (tests/web/test_volunteer_language.py): the
words of the interface's own English messages, the English guidelines and titles and the
English names of the languages ("Spanish", "Arabic") that are no word of the language's own
texts. What is data and shown as it is, is left out first: elements in another language than
the page's (`lang`: templates, English patterns, the language switcher's own names), e-mail
addresses, links, file paths, the `curator …` commands a message names, and the names and
texts this module seeded (people, versions, runs, reasons).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlalchemy import select

from curator.core.languages import NAMES as LANGUAGE_NAMES
from tests.plugins.cli import Cli
from tests.plugins.databases import PASSWORD
from tests.web.test_volunteer_language import NAMES as BRANDS
from tests.web.test_volunteer_language import _words, english_only

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = ROOT / "curator" / "web" / "templates"
CODES = frozenset(LANGUAGE_NAMES)  # the data languages' codes
BOSS = "boss@example.org"
REASON = "zzz"  # the reasons and notes a maintainer types here: no word of any language
# typed by the people of this module (data shown as it is): left out of the text checked
SEEDED_TEXT = (
    "Ana",
    "Bob",
    "Boss",
    "mbert-v1",
    "xfactr-v1",
    "v1-reviewed",
    "candidates-1",
    "bert-base-multilingual-cased",
    REASON,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One seeded site for both languages, served over HTTP: the states of
    test_accessibility's site (a disagreement, an unsure decision, amendments, comments,
    suggestions, a thread with a reply, glossary terms, a language's own merge policy, a
    version, probe runs), and what a maintainer does on top of it — a resolution, an answered
    and a waiting proposal, a trusted reviewer, a dropped line, invitations, a role change, a
    language unassigned and assigned again, guidelines of a language's own, a queue order —
    so that the pages, and the activity log, show each kind of thing once."""
    from curator.core.db import make_engine, make_session_factory
    from curator.core.models import Comment, User
    from curator.review import people
    from curator.review.accounts import create_user
    from curator.review.glossary import add_term
    from curator.review.guidelines import set_guidelines
    from curator.review.invitations import create_invite, revoke_invite
    from curator.review.proposal_answers import review_proposal, set_trusted
    from curator.review.resolutions import disagreements, resolve
    from curator.review.sampling import assign, set_queue_order
    from curator.review.threads import reply
    from curator.review.threads import resolve as resolve_thread
    from curator.web import create_app
    from curator.web.testing import LiveServer
    from tests.analysis.test_decoding import write_decoded_run
    from tests.analysis.test_report import TEMPLATES, make_run
    from tests.web.test_accessibility import AR_COMMENT, review_states

    tmp = tmp_path_factory.mktemp("maintainer-language")
    url = f"sqlite:///{tmp / 'curator.sqlite'}"
    cli = Cli(url)
    cli("init")
    cli("seed")
    cli("release", "build", "candidates-1")  # the parent version the proposals are judged against
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    with sessions.begin() as s:
        boss = create_user(s, BOSS, PASSWORD, "maintainer", "Boss")
        ana = create_user(s, "ana@example.org", PASSWORD, "reviewer", "Ana")
        review_states(s, ana, assign(s, ana, "es"), assign(s, ana, "ar"))
    with sessions.begin() as s:
        boss = s.scalar(select(User).where(User.email == BOSS))
        ana = s.scalar(select(User).where(User.email == "ana@example.org"))
        thread = s.scalar(select(Comment.id).where(Comment.text == AR_COMMENT))
        reply(s, boss, "ar", thread, "شكرًا، [X] صحيح هنا")
        es_thread = s.scalar(select(Comment.id).where(Comment.language == "es", Comment.parent_id.is_(None)))
        resolve_thread(s, boss, "es", es_thread)
        for term, translation in (("born", "nació"), ("capital", "capital")):
            add_term(s, "es", term, translation, REASON, user=boss)
        add_term(s, "ar", "born", "ولد", user=boss)
        first = disagreements(s, "es")[0]
        resolve(s, boss, first["template_id"], "reject", REASON)
        proposals = _proposals(s)
        review_proposal(s, boss, "es", *proposals[0], "drop", REASON)
        set_trusted(s, boss, "ana@example.org", "ar", True)
        create_invite(s, ["es", "ar"], created_by=boss, email="nuria@example.org")
        create_invite(s, [], created_by=boss, role="maintainer")
        gone, _token = create_invite(s, ["ar"], created_by=boss)
        revoke_invite(s, gone.id, boss)
        bob = s.scalar(select(User).where(User.email == "bob@example.org"))
        people.change_role(s, boss, bob, "maintainer")
        people.change_role(s, boss, bob, "reviewer")
        people.unassign_language(s, boss, bob, "es")
        people.assign_language(s, boss, bob, "es")
        people.assign_language(s, boss, bob, "ar")
        set_guidelines(s, "ar", "اقرأ القالب كاملًا.\n\n- [X] و [Y] في مكانهما", boss)
        set_queue_order(s, "es", "risk", boss)
    cli("policy", "set", "majority", "--language", "ar")
    cli("release", "build", "v1")
    make_run(tmp / "runs" / "mbert-v1", TEMPLATES)
    write_decoded_run(tmp / "runs" / "xfactr-v1", pieces=True)
    with sessions() as s:
        ana_id = s.scalar(select(User.id).where(User.email == "ana@example.org"))
        bob_id = s.scalar(select(User.id).where(User.email == "bob@example.org"))
        first_disagreement = disagreements(s, "es")[0]["template_id"]
    app = create_app(
        {"DATABASE_URL": url, "SECRET_KEY": "test-secret", "RUNS_DIR": str(tmp / "runs"), "RATELIMIT_ENABLED": False}
    )
    with LiveServer(app) as server:
        yield server.url, {"ana": ana_id, "bob": bob_id, "disagreement": first_disagreement}
    engine.dispose()


def _proposals(s) -> list[tuple[str, str]]:
    """(relation, text) of the Spanish proposals."""
    from curator.review.proposals import proposals

    return [(p.relation, p.text) for p in proposals(s, "es")]


def maintainer_pages(ids: dict[str, int]) -> list[str]:
    """Every page a maintainer opens (and a few of their filtered views)."""
    pages = [
        "/admin/",
        "/admin/?languages=all",
        "/admin/coverage",
        "/admin/reviewers",
        "/admin/users",
        f"/admin/users/{ids['ana']}",
        f"/admin/users/{ids['bob']}",
        "/admin/activity",
        "/admin/release/preview",
        "/admin/release/preview?policy=unanimous",
        "/admin/diff?a=candidates-1&b=v1",
        "/probe/runs",  # a run's report and the comparison of runs are the static report's (curator.analysis)
    ]
    for code in ("es", "ar"):
        pages += [
            f"/admin/languages/{code}",
            f"/admin/languages/{code}?disagreement=1",
            f"/admin/languages/{code}/proposals?status=all",
            f"/admin/languages/{code}/disagreements",
            f"/admin/languages/{code}/threads?state=all",
            f"/admin/languages/{code}/glossary",
            f"/admin/languages/{code}/guidelines",
        ]
    pages.append(f"/admin/languages/es/disagreements?item={ids['disagreement']}")
    return pages


class _Text(HTMLParser):
    """The text a person reads on a page: text nodes and the attributes shown or spoken
    (title, placeholder, aria-label, alt), without scripts and styles, and without elements
    whose `lang` is another language than the page's (data shown in its own language)."""

    SKIP = frozenset({"script", "style", "template"})
    VOID = frozenset(
        {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    )
    SPOKEN = ("title", "placeholder", "aria-label", "alt")

    def __init__(self, page_lang: str):
        super().__init__(convert_charrefs=True)
        self.page_lang = page_lang
        self.stack: list[bool] = []  # per open element: is its content left out
        self.parts: list[str] = []

    def _skipped(self) -> bool:
        return bool(self.stack) and self.stack[-1]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        lang = a.get("lang")
        skip = self._skipped() or tag in self.SKIP or (tag != "html" and lang is not None and lang != self.page_lang)
        if not skip:
            self.parts += [a[k] for k in self.SPOKEN if a.get(k)]
            if tag == "input" and a.get("type") in ("submit", "button") and a.get("value"):
                self.parts.append(a["value"])
        if tag not in self.VOID:
            self.stack.append(skip)
        self.parts.append(" ")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag not in self.VOID and self.stack:
            self.stack.pop()
        self.parts.append(" ")

    def handle_data(self, data):
        if not self._skipped() and data.strip() not in CODES:  # a language code alone: data ("<small>en</small>")
            self.parts.append(data)


def visible_text(html: str, page_lang: str) -> str:
    parser = _Text(page_lang)
    parser.feed(html)
    parser.close()
    return re.sub(r"\s+", " ", "".join(parser.parts))


def _commands() -> set[str]:
    """The `curator …` commands the templates name inside messages (`cmd="curator policy"`)."""
    found: set[str] = set()
    for path in TEMPLATES_DIR.glob("*.html"):
        found |= set(re.findall(r"\"(curator [^\"]+)\"", path.read_text(encoding="utf-8")))
    return found


def data_left_out(text: str) -> str:
    """The text without what is data: addresses, links, paths, commands, language codes in
    brackets, this module's seeds."""
    text = re.sub(r"\S+@\S+", " ", text)  # e-mail addresses
    text = re.sub(r"https?://\S+", " ", text)  # links (an invitation's)
    text = re.sub(r"(?<!\S)/\S+", " ", text)  # absolute paths (the runs folder)
    text = re.sub(r"\S+/\S+\.(md|txt|json|csv|zip)\b", " ", text)  # file paths (docs/release.md)
    codes = "|".join(map(re.escape, CODES))
    text = re.sub(rf"\(({codes})\)", " ", text)  # "Árabe (ar)"
    for shown in sorted(_commands(), key=len, reverse=True):
        text = text.replace(shown, " ")
    for shown in SEEDED_TEXT:
        text = re.sub(rf"(?<![\w-]){re.escape(shown)}(?![\w-])", " ", text)
    return text


def flagged_words(locale: str) -> set[str]:
    """`english_only(locale)` and the English names of the data languages ("Spanish", "Arabic")
    that are no word of their names in `locale` (CLDR's), without the names of things."""
    from babel import Locale

    names = _words(" ".join(LANGUAGE_NAMES.values())) - _words(" ".join(Locale.parse(locale).languages.values()))
    return (english_only(locale) | names) - BRANDS


def english_on(text: str, flagged: set[str]) -> list[str]:
    """The flagged words of `text`, each with where it stands."""
    words = sorted({w.lower() for w in re.findall(r"\w+", text) if w.isascii() and w.isalpha()} & flagged)
    found = []
    for word in words:
        where = sorted({m.group(0) for m in re.finditer(rf".{{0,35}}\b{word}\b.{{0,35}}", text, re.I)})[:3]
        found.append(f"{word}: " + " | ".join(f"…{w}…" for w in where))
    return found


def _signed_in(base: str, locale: str):
    import requests

    http = requests.Session()
    http.cookies.set("curator_locale", locale)
    page = http.get(f"{base}/login", timeout=30).text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r = http.post(
        f"{base}/login",
        data={"email": BOSS, "password": PASSWORD, "csrf_token": token},
        allow_redirects=False,
        timeout=30,
    )
    assert r.status_code == 302, r.text
    return http


@pytest.mark.parametrize("locale", ["es", "ar"])
def test_maintainer_pages_have_no_english(site, locale):
    base, ids = site
    http = _signed_in(base, locale)
    flagged = flagged_words(locale)
    problems = []
    for path in maintainer_pages(ids):
        r = http.get(base + path, timeout=60)
        assert r.status_code == 200, (path, r.status_code)
        assert f'<html lang="{locale}"' in r.text, path
        found = english_on(data_left_out(visible_text(r.text, locale)), flagged)
        if found:
            problems.append(f"{path}:\n    " + "\n    ".join(found))
    assert not problems, f"English on the maintainer pages in {locale}:\n" + "\n".join(problems)


def test_the_scan_sees_english_and_leaves_data_out():
    """The detector itself: an English word of the interface and an English language name are
    found; a template in its own language, an address and a command are not."""
    html = (
        '<html lang="es"><body><p>Propuestas para Spanish</p><p title="reviewer">x</p>'
        '<span lang="en">the capital of [X] is [Y]</span> boss@example.org · curator policy</body></html>'
    )
    found = english_on(data_left_out(visible_text(html, "es")), flagged_words("es"))
    assert [f.split(":")[0] for f in found] == ["reviewer", "spanish"]


# --- the one function that names a language, and the one table of labels --------------------
@pytest.mark.parametrize("locale", ["es", "ar"])
def test_every_data_language_is_named_in_the_interface_language(locale):
    """Every language of the data (and the aliases the MT folders use) has a name of the
    interface language: CLDR's, or the table of those CLDR lacks — never the English one."""
    from curator.web.i18n import language_name

    for code, english in {**LANGUAGE_NAMES, "zh": "", "zh-classical": ""}.items():
        name = language_name(code, locale=locale)
        assert name and name != english and name != code, (code, name)
        if locale == "ar":
            assert not name.isascii(), (code, name)  # Arabic script, not a Latin fallback


def test_language_names_follow_cldr_with_a_small_table_for_what_it_lacks():
    from babel import Locale

    from curator.web.i18n import CLDR_CODES, NAMES_CLDR_LACKS, language_name

    assert language_name("de", locale="es") == "alemán"  # in a sentence, as CLDR writes it
    assert language_name("de", locale="es", standalone=True) == "Alemán"  # a heading, a cell, a choice
    assert language_name("el", locale="ar") == "اليونانية"
    assert language_name("es", locale="en") == "Spanish"  # English: the dataset's own names
    assert language_name("zh-hans", locale="en") == "Chinese (Simplified)"
    assert language_name("zh", locale="es") == "chino simplificado"  # the alias is the language
    assert language_name("pt-br", locale="es") == "portugués (Brasil)"  # a variant: CLDR's locale name
    assert language_name("xx", locale="ar") == "xx"  # unknown everywhere: the code
    for code, names in NAMES_CLDR_LACKS.items():  # the table holds only what CLDR lacks
        for locale, name in names.items():
            assert Locale.parse(locale).languages.get(CLDR_CODES.get(code, code)) is None, (code, locale)
            assert language_name(code, locale=locale) == name


def test_every_stored_value_shown_has_a_label(review_app):
    """A role, a decision, a status, a policy, an activity… added to core.enums needs its label
    in web/labels.py (else pages would show it raw); and each label is translated."""
    from curator.core import enums
    from curator.web.i18n import speaking
    from curator.web.labels import label

    kinds = {
        "role": enums.Role,
        "decision": enums.DecisionKind,
        "answer": enums.ProposalVerdict,
        "status": enums.ProposalStatus,
        "policy": enums.Policy,
        "policy_choice": enums.Policy,
        "queue_order": enums.QueueOrder,
        "disagreement": enums.DisagreementKind,
        "version_kind": enums.VersionKind,
        "activity": enums.Activity,
    }
    with review_app.test_request_context():
        for kind, enum in kinds.items():
            english = {}
            with speaking("en"):
                for value in enums.values(enum):
                    english[value] = label(kind, value)
            for locale in ("es", "ar"):
                with speaking(locale):
                    for value in enums.values(enum):
                        assert label(kind, value) != english[value], (kind, value, locale)
        with speaking("es"):
            assert label("role", "reviewer") == "revisor" and label("policy", "majority") == "mayoría"
            assert label("decision", "something new") == "something new" and label("role", None) == "–"


def test_the_rule_s_reasons_are_said_in_the_page_s_language(review_app):
    """The release rule's reason keeps its English for the commands and the manifest
    (`str()`), and the web says it in the page's language, decisions and lists included."""
    from curator.review.rule import Why, Whys
    from curator.web.i18n import speaking
    from curator.web.labels import why_text

    verdicts = Whys(
        (
            Why("%(who)s proposed it", (("who", "ana@example.org"),)),
            Why("%(who)s: %(decision)s", (("who", "bo@example.org"), ("decision", "reject"))),
        )
    )
    why = Why("waiting for a second look: %(verdicts)s", (("verdicts", verdicts),))
    assert str(why) == "waiting for a second look: ana@example.org proposed it, bo@example.org: reject"
    assert str(Whys()) == "no verdicts"
    with review_app.test_request_context():
        with speaking("es"):
            assert why_text(why) == (
                "en espera de una segunda revisión: la propuso ana@example.org y bo@example.org: rechazada"
            )
            assert why_text(None, "English as it was") == "English as it was"
        with speaking("ar"):
            assert why_text(why).startswith("في انتظار مراجعة ثانية: اقترحه ana@example.org")
