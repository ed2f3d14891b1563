"""What a volunteer typed and chose is what gets stored, over random sequences of their actions.

A hypothesis state machine drives the real review screen in Chromium, on the real server and
database, with what a volunteer does: type a correction, a reason, a comment or a suggestion; decide
by tap, click or key (answering the question about typed work a decision would leave behind: keep,
discard or go back); a double tap; save or cancel a correction; send a comment or a suggestion;
undo; next and previous; reload; go offline and come back — on a phone (Spanish, touch) and a
desktop (Arabic). Each example is a new volunteer with a fresh sample.

The reference is written from the description of the screen's rules (docs/review-app.md, "Pending
work"), not from the page's code: the volunteer's drafts per template, the decisions they chose in
order (an undo takes back the last one still standing), and every text they typed. After every
step, once the page is idle, it is compared with what is stored (the JSON API for decisions and
comments, the database for suggestions) and with what the browser keeps:

- every typed text is stored, or still kept on its item (in its field, a draft, the outbox), or
  the volunteer was asked and chose to drop it;
- online, with nothing waiting, the stored decision of each template is the last one chosen for
  it, and exactly as many decisions are stored as were made (one gesture never decides two
  templates, nothing is stored twice; the decision already standing on a template, chosen
  again, is nothing new); each typed comment and suggestion is stored at most once;
- a question is asked exactly when a decision would leave a correction or a reason behind.

Waits are on the page's states (#review[data-busy], the outbox), never on time; the page's clock is
Playwright's, moved on by hand where a volunteer reads. CURATOR_REVIEW_STEPS and
CURATOR_REVIEW_EXAMPLES make a longer run (benchmarks/review_soak.py --long)."""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from sqlalchemy import select

from curator.core.db import unit_of_work
from curator.core.models import Suggestion, User
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser
from tests.web.test_review_pending import pause, until

pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.long]

DESKTOP = {"viewport": {"width": 1366, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
READ_MS = 1000  # page time a volunteer reads a template before a tap (review.js takes quicker taps for repeats)
STEPS = int(os.environ.get("CURATOR_REVIEW_STEPS", "40"))
EXAMPLES = int(os.environ.get("CURATOR_REVIEW_EXAMPLES", "8"))
# letters for the typed words: each text typed in a run is new (a counter spelled in them)
ALPHABET = {"es": "bcdfghjklmnpqrstvz", "ar": "بتثجحخدذرزسشصضطظعغفقكلمنهوي"}
COUNTER = itertools.count(1)
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)

IDLE = """() => { const r = document.getElementById('review');
  return r.dataset.ready === '1' && r.dataset.busy !== '1'; }"""
OUTBOX = """() => Object.keys(localStorage).filter(k => k.startsWith('curator.outbox.'))
  .flatMap(k => JSON.parse(localStorage.getItem(k) || '[]'))"""
KEPT = """() => [...Object.keys(localStorage).filter(k => k.startsWith('curator.draft.')).map(k => localStorage.getItem(k)),
  ...['reason-text', 'item-comment-text', 'relation-comment-text', 'suggest-text']
      .map(id => document.getElementById(id).value),
  document.getElementById('amend-form').hidden ? '' : document.getElementById('amend-text').value,
  ...[...document.querySelectorAll('.waiting')].map(el => el.textContent)].join('\\n')"""


@dataclass
class Typed:
    """A text the volunteer typed, where (its field, item, relation), and whether they chose to drop it."""

    text: str
    field: str
    item: int
    relation: str
    dropped: bool = False


@dataclass
class Drafts:
    """The reference's drafts of one template: the texts typed and not yet stored or dropped."""

    correction: Typed | None = None
    reason: Typed | None = None
    comment: Typed | None = None


@dataclass
class Reference:
    """What the volunteer did, written from the screen's rules."""

    drafts: dict[int, Drafts] = field(default_factory=dict)
    suggestion: dict[str, Typed] = field(default_factory=dict)  # relation -> the suggestion typed for it
    typed: list[Typed] = field(default_factory=list)
    chosen: list[tuple[int, str, str | None, str | None]] = field(default_factory=list)  # standing, in order
    last_item: int | None = None  # the template last decided since the page was opened (Undo's)
    made: int = 0  # decisions stored (or to be stored) — undone ones too: rows are never deleted
    # the decisions made since going offline (waiting in the browser), oldest first: whether each
    # changes what stands on its item (the same decision again is stored as nothing new)
    waiting: list[bool] = field(default_factory=list)

    def of(self, item: int) -> Drafts:
        return self.drafts.setdefault(item, Drafts())

    def standing(self) -> dict[int, tuple[str, str | None, str | None]]:
        out: dict[int, tuple[str, str | None, str | None]] = {}
        for item, kind, correction, reason in self.chosen:
            out[item] = (kind, correction, reason)
        return out


class Volunteer(RuleBasedStateMachine):
    """A volunteer on the review screen (one example: a new account with a fresh sample); the
    fixtures, the interface language and the device are set by `machine_for`."""

    chromium = live = review_app = sessions = None
    lang = "es"
    phone = True

    def __init__(self):
        super().__init__()
        self.ref = Reference()
        self.offline = False
        self.context = None
        self.steps = 0  # steps checked (the invariants run after each)

    @initialize()
    def sign_in(self):
        n = next(COUNTER)
        self.email = f"volunteer{n}-{self.lang}@example.org"
        from curator.review.accounts import create_user
        from curator.review.sampling import assign

        # the server may still be writing what the last example's page sent: the write lock taken
        # at BEGIN, as the app's writes take it, waits for it instead of failing on an upgrade
        with unit_of_work(self.sessions) as s:
            assign(s, create_user(s, self.email, PASSWORD, "reviewer", f"V{n}"), self.lang)
        self.api = Browser(self.review_app).login(self.email)
        self.context = self.chromium.new_context(bypass_csp=True, **(PHONE if self.phone else DESKTOP))
        self.context.set_default_timeout(120_000)  # a hang guard on a busy machine, not a speed limit
        self.context.add_cookies([{"name": "curator_locale", "value": self.lang, "url": self.live.url}])
        self.page = self.context.new_page()
        self.page.clock.install()
        self.page.goto(self.live.url + "/login")
        self.page.fill("input[name=email]", self.email)
        self.page.fill("input[name=password]", PASSWORD)
        self.page.keyboard.press("Enter")
        self.page.wait_for_url(self.live.url + "/")
        self.open()

    def open(self):
        self.ref.last_item = None  # a new page: Undo's template is the server's latest decision
        self.page.goto(f"{self.live.url}/review/{self.lang}")
        self.page.wait_for_selector("#review[data-ready='1']")
        if self.page.locator("#intro").is_visible():
            self.page.locator("#start").click()
            self.page.wait_for_selector("#intro", state="hidden")
        self.idle()

    def teardown(self):
        if self.context is not None:
            self.context.close()
        if os.environ.get("CURATOR_REVIEW_COUNT"):  # benchmarks/review_soak.py counts the steps run
            with open(os.environ["CURATOR_REVIEW_COUNT"], "a", encoding="utf-8") as out:
                out.write(f"{self.lang}-{'phone' if self.phone else 'desktop'} {self.steps}\n")

    # ------------------------------------------------------------ helpers
    def idle(self):
        if os.environ.get("CURATOR_REVIEW_TRACE"):
            print("step", self.email, self.page.evaluate("location.hash"), flush=True)
        self.page.wait_for_function(IDLE)
        if not self.offline:
            # everything sent and the page back online (an answer slower than the page waits for
            # takes it offline until the server answers again)
            self.page.wait_for_function(f"() => ({OUTBOX})().length === 0")
            self.page.wait_for_function("() => document.getElementById('connection').hidden")

    def item(self) -> int:
        return int(self.page.locator("#item-card").get_attribute("data-item"))

    def relation(self) -> str:
        return self.page.locator("#relation-id").inner_text()

    def word(self) -> str:
        n, letters, out = next(COUNTER), ALPHABET[self.lang], ""
        while n:
            n, k = divmod(n, len(letters))
            out += letters[k]
        return letters[0] + out  # never a real word, never a prefix of another counter's

    def template(self) -> str:
        return f"[X] {self.word()} {self.word()} [Y]"

    def type(self, field_id: str, kind: str, text: str) -> Typed:
        if os.environ.get("CURATOR_REVIEW_TRACE"):
            print("type", field_id, text, flush=True)
        typed = Typed(text, kind, self.item(), self.relation())
        self.ref.typed.append(typed)
        self.page.locator("#" + field_id).fill(text)
        return typed

    def press(self, selector: str, how: str):
        """A tap (phone) or a click (desktop) on a button, after the volunteer read the template."""
        if selector in ("#accept", "#reject", "#unsure"):
            self.page.clock.run_for(READ_MS)
        if how == "key":
            raise AssertionError("keys go through self.key")
        locator = self.page.locator(selector)
        if os.environ.get("CURATOR_REVIEW_TRACE"):
            print("press", selector, flush=True)
        locator.tap() if self.phone else locator.click()

    def key(self, key: str):
        if os.environ.get("CURATOR_REVIEW_TRACE"):
            print("key", key, flush=True)
        self.page.locator("#template").click()  # the focus out of any field (a tap on the text)
        self.page.keyboard.press(key)

    # ------------------------------------------------------------ typing
    @rule()
    def type_correction(self):
        if self.page.locator("#amend-form").is_hidden():
            self.press("#amend", "tap")
        drafts = self.ref.of(self.item())
        if drafts.correction is not None:  # typed over by the volunteer: the new text is the draft
            self.ref.typed.remove(drafts.correction)
        drafts.correction = self.type("amend-text", "correction", self.template())

    @rule()
    def type_reason(self):
        drafts = self.ref.of(self.item())
        if drafts.reason is not None:
            self.ref.typed.remove(drafts.reason)
        drafts.reason = self.type("reason-text", "reason", self.word() + " " + self.word())

    @rule()
    def type_comment(self):
        drafts = self.ref.of(self.item())
        if drafts.comment is not None:
            self.ref.typed.remove(drafts.comment)
        drafts.comment = self.type("item-comment-text", "comment", self.word() + " " + self.word())

    @rule()
    def type_suggestion(self):
        relation = self.relation()
        if relation in self.ref.suggestion:
            self.ref.typed.remove(self.ref.suggestion[relation])
        self.ref.suggestion[relation] = self.type("suggest-text", "suggestion", self.template())

    # ------------------------------------------------------------ sending what was typed
    @rule()
    def send_comment(self):
        drafts = self.ref.of(self.item())
        self.press("#item-comment-form button[type=submit]", "tap")
        drafts.comment = None  # sent: stored, or waiting in the outbox
        self.idle()

    @rule()
    def send_suggestion(self):
        self.press("#suggest-form button[type=submit]", "tap")
        self.ref.suggestion.pop(self.relation(), None)
        self.idle()

    @precondition(lambda self: self.page.locator("#amend-form").is_visible())
    @rule()
    def cancel_correction(self):
        self.page.locator("#amend-text").focus()
        self.page.keyboard.press("Escape")
        drafts = self.ref.of(self.item())
        if drafts.correction is not None:
            drafts.correction.dropped = True  # the volunteer gave it up
            drafts.correction = None

    # ------------------------------------------------------------ deciding
    def conflicts(self, kind: str, item: int | None = None) -> list[str]:
        drafts = self.ref.of(self.item() if item is None else item)
        out = []
        if kind != "amend" and drafts.correction is not None:
            out.append("correction")
        if kind in ("accept", "amend") and drafts.reason is not None:
            out.append("reason")
        return out

    def decided(self, item: int, kind: str, answer: str | None) -> None:
        """The reference's account of deciding `kind` on `item` (answering the question with `answer`)."""
        drafts = self.ref.of(item)
        conflicts = self.conflicts(kind, item)
        if conflicts and answer == "back":
            return
        correction = drafts.correction.text if kind == "amend" and drafts.correction else None
        reason = drafts.reason.text if kind in ("reject", "unsure") and drafts.reason else None
        if conflicts and answer == "keep":
            if "correction" in conflicts:
                kind, correction, reason = "amend", drafts.correction.text, None
        elif conflicts:  # discard: what the decision does not keep goes, as the volunteer said
            for name in conflicts:
                getattr(drafts, name).dropped = True
        # what the decision keeps, a comment beside it, a reason it does not keep as a comment:
        # all stored (or waiting); the fields are emptied
        self.ref.drafts[item] = Drafts()
        # the same decision as the one standing on the template (the same words) is nothing new
        changes = self.ref.standing().get(item) != (kind, correction, reason)
        self.ref.last_item = item
        if changes:
            self.ref.chosen.append((item, kind, correction, reason))
            self.ref.made += 1
        if self.offline:
            self.ref.waiting.append(changes)

    @rule(
        kind=st.sampled_from(["accept", "reject", "unsure"]),
        how=st.sampled_from(["tap", "key"]),
        answer=st.sampled_from(["keep", "discard", "back"]),
    )
    def decide(self, kind, how, answer):
        item = self.item()
        conflicts = self.conflicts(kind)
        if how == "key":
            self.page.clock.run_for(READ_MS)
            self.key({"accept": "a", "reject": "r", "unsure": "n"}[kind])
        else:
            self.press("#" + kind, how)
        self.answer(conflicts, answer)
        self.decided(item, kind, answer)
        self.idle()

    @precondition(lambda self: self.page.locator("#amend-form").is_visible())
    @rule(answer=st.sampled_from(["keep", "discard", "back"]))
    def save_correction(self, answer):
        item = self.item()
        conflicts = self.conflicts("amend")
        drafts = self.ref.of(item)
        if drafts.correction is None:  # the field holds the template itself: the server refuses it
            return
        self.page.locator("#amend-text").press("Enter")
        self.answer(conflicts, answer)
        self.decided(item, "amend", answer)
        self.idle()

    def answer(self, conflicts, answer):
        if conflicts:
            # asked at once (the question opens in the click's own handler), or idle: not asked
            self.page.wait_for_function(f"() => document.getElementById('settle').open || ({IDLE})()")
            assert self.page.locator("#settle").evaluate("d => d.open"), "typed work left behind, not asked"
            self.page.locator("#settle-" + answer).click()
            self.page.wait_for_selector("#settle", state="hidden")
        else:
            self.page.wait_for_function(f"() => document.getElementById('settle').open || ({IDLE})()")
            assert not self.page.locator("#settle").evaluate("d => d.open"), "asked with nothing to lose"

    @rule()
    def double_tap(self):
        if self.conflicts("accept"):
            return  # the first tap asks: the second would be on the question (a rule of its own)
        item = self.item()
        self.page.clock.run_for(READ_MS)
        # the page's clock stands still between the two taps but for the 250 ms a finger takes,
        # however long the machine takes to show the next template
        pause(self.page)
        if self.phone:
            self.page.locator("#accept").tap()
            until(self.page, f"({IDLE})()")
            self.page.clock.run_for(250)
            self.page.locator("#accept").tap()
        else:
            self.page.locator("#accept").dblclick()
        until(self.page, f"({IDLE})()")
        self.page.clock.resume()
        self.decided(item, "accept", None)
        self.idle()

    @rule(how=st.sampled_from(["key", "bar"]))
    def undo(self, how):
        if how == "bar" and not self.page.locator("#bar-undo").is_visible():
            how = "key"
        if how == "bar":
            self.press("#bar-undo", "tap")
        else:
            self.key("u")
        last = self.ref.last_item
        if self.offline:  # offline, only decisions still waiting can be undone: the last one
            if self.ref.waiting:
                self.ref.last_item = None
                if self.ref.waiting.pop():
                    self.ref.chosen.pop()
            return self.idle()
        self.ref.last_item = None
        if last is not None:  # the template last decided on this page: its standing decision
            mine = [i for i, c in enumerate(self.ref.chosen) if c[0] == last]
            if mine:
                self.ref.chosen.pop(mine[-1])
        elif self.ref.chosen:  # none on this page (a reload since): the latest decision
            self.ref.chosen.pop()
        self.idle()

    # ------------------------------------------------------------ moving, reloading, the connection
    @rule(delta=st.sampled_from([1, -1]), how=st.sampled_from(["key", "button"]))
    def move(self, delta, how):
        if how == "key":
            self.key("j" if delta == 1 else "k")
        else:
            self.press("#next" if delta == 1 else "#prev", "tap")
        self.idle()  # nothing decided: what was typed stays a draft of its template (the reference's drafts are per item)

    @precondition(lambda self: not self.offline)
    @rule()
    def reload(self):
        self.open()

    @rule()
    def connection(self):
        self.offline = not self.offline
        self.context.set_offline(self.offline)
        if not self.offline:
            self.ref.waiting.clear()
            self.page.wait_for_function("document.getElementById('connection').hidden")
        self.idle()

    # ------------------------------------------------------------ the comparison
    @invariant()
    def nothing_typed_is_lost(self):
        if self.context is None:
            return
        self.steps += 1
        stored = self.stored_texts()
        kept = self.page.evaluate(KEPT) + "\n" + json.dumps(self.page.evaluate(OUTBOX), ensure_ascii=False)
        for typed in self.ref.typed:
            if typed.dropped or typed.text is None:
                continue
            assert typed.text in stored or typed.text in kept, f"lost: {typed}"

    @invariant()
    def what_is_stored_is_what_was_chosen(self):
        if self.context is None or self.offline:
            return
        history = self.api.get(f"/api/v1/languages/{self.lang}/history").get_json()["decisions"]
        # every decision not undone is a row not retracted (one gesture, one row); an undone one
        # may have reached the server first (then it is retracted there) or not
        assert len([d for d in history if not d["retracted"]]) == len(self.ref.chosen), (history, self.ref.chosen)
        assert len(self.ref.chosen) <= len(history) <= self.ref.made, (history, self.ref.chosen)
        standing = {d["item_id"]: (d["decision"], d["correction"], d.get("reason")) for d in history if d["standing"]}
        assert standing == self.ref.standing()
        comments = [c["text"] for c in self.api.get(f"/api/v1/languages/{self.lang}/comments").get_json()["comments"]]
        assert len(comments) == len(set(comments)), comments
        with self.sessions() as s:
            user = s.scalar(select(User.id).where(User.email == self.email))
            suggested = s.scalars(select(Suggestion.text_raw).where(Suggestion.user_id == user)).all()
        assert len(suggested) == len(set(suggested)), suggested

    def stored_texts(self) -> str:
        history = self.api.get(f"/api/v1/languages/{self.lang}/history").get_json()["decisions"]
        comments = self.api.get(f"/api/v1/languages/{self.lang}/comments").get_json()["comments"]
        with self.sessions() as s:
            user = s.scalar(select(User.id).where(User.email == self.email))
            suggested = s.scalars(select(Suggestion.text_raw).where(Suggestion.user_id == user)).all()
        parts = [d.get("correction") or "" for d in history] + [d.get("reason") or "" for d in history]
        return "\n".join(parts + [c["text"] for c in comments] + list(suggested))


def machine_for(chromium, live, review_app, sessions, lang: str, phone: bool):
    """The state machine for one interface language and device, with the test's fixtures."""
    machine = type(
        f"Volunteer_{lang}",
        (Volunteer,),
        {
            "chromium": chromium,
            "live": live,
            "review_app": review_app,
            "sessions": sessions,
            "lang": lang,
            "phone": phone,
        },
    )
    machine.TestCase.settings = settings(
        max_examples=EXAMPLES,
        stateful_step_count=STEPS,
        deadline=None,
        derandomize=True,  # seeded: the same sequences on every run
        database=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.verbose if os.environ.get("CURATOR_REVIEW_TRACE") else Verbosity.normal,
        # CURATOR_REVIEW_SHRINK=0: the first failing sequence as found (a soak, a mutation check)
        phases=PHASES if os.environ.get("CURATOR_REVIEW_SHRINK", "1") != "0" else PHASES[:-1],
    )
    return machine


@pytest.mark.parametrize("lang,phone", [("es", True), ("ar", False)], ids=["es-phone", "ar-desktop"])
def test_random_sequences_of_a_volunteers_actions(chromium, live, review_app, sessions, lang, phone):
    machine_for(chromium, live, review_app, sessions, lang, phone).TestCase().runTest()
