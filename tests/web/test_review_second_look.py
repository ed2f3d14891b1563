"""Issue 37 §2 in Chromium: a second look shows the change. The proposal card of the review
screen, the Proposals page and the Disagreements page mark deleted and inserted characters
(<del>/<ins> with hidden, translated labels for screen readers), in the Spanish and Arabic
interfaces, on a phone and a desktop, light and dark (axe); the Disagreements page shows one
item at a time with its context and filters by kind, without JavaScript's help, and resolving
still works. One browser context per test, walked through every check."""

from __future__ import annotations

import json

import pytest

from curator.cli.oversight import review_disagreements
from curator.review.resolutions import KINDS
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser, signed_in_state
from tests.review.test_adjudication import CAPITAL, NATIVE, disputed, template_id  # noqa: F401 - the fixture
from tests.support.axe import assert_accessible, axe_path
from tests.web.test_review_guidance import DESKTOP, PHONE, no_sideways_scroll
from tests.web.test_review_ui import sign_in, start_reviewing, wait_for_item

pytestmark = pytest.mark.backends("sqlite")

ORIGINAL = "[X] es originario de [Y]"
TYPO = "[X] es orriginario de [Y]"  # the doubled letter, in a proposal
AR_ORIGINAL = "[X] هو من مواليد [Y]"
AR_AMENDED = "[X] هو مِن مواليد [Y]"  # a kasra added: the letter with its new mark, replaced whole


def changes(page, selector: str) -> list[tuple[str, str]]:
    """(tag, visible text without the hidden label) of each <del>/<ins> in `selector`."""
    found = page.locator(selector).first.evaluate(
        """el => [...el.querySelectorAll('del, ins')].map(c => [c.tagName.toLowerCase(),
            [...c.childNodes].filter(n => !(n.classList && n.classList.contains('visually-hidden')))
              .map(n => n.textContent).join('')])"""
    )
    return [(tag, text) for tag, text in found]


def labels(page, selector: str) -> list[str]:
    return page.locator(f"{selector} .visually-hidden").all_inner_texts()


def both_schemes_accessible(page, where: str) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert_accessible(page, f"{where} [{scheme}]")


def amend(browser: Browser, lang: str, item_id: int, correction: str, request_id: str) -> None:
    body = {"decision": "amend", "correction": correction, "request_id": request_id}
    r = browser.post(f"/api/v1/languages/{lang}/items/{item_id}/decision", body)
    assert r.status_code == 201, r.get_json()


def test_the_proposal_card_and_the_proposals_page_show_what_changes(chromium, live, review_app, sessions):
    axe_path()
    ana = Browser(review_app).login("ana@example.org")
    [ana_es] = [i for i, _, text in review_sample(sessions, "ana@example.org", "es") if text == ORIGINAL]
    [ana_ar] = [i for i, _, text in review_sample(sessions, "ana@example.org", "ar") if text == AR_ORIGINAL]
    amend(ana, "es", ana_es, TYPO, "typo")
    amend(ana, "ar", ana_ar, AR_AMENDED, "kasra")
    bo_items = review_sample(sessions, "bo@example.org", "es")
    [proposal] = [i for i, _, text in bo_items if text == TYPO]
    bo = Browser(review_app).login("bo@example.org")
    for done, _, _ in bo_items[: [i for i, _, _ in bo_items].index(proposal)]:  # his P19 items, before it
        r = bo.post(f"/api/v1/languages/es/items/{done}/decision", {"decision": "accept", "request_id": f"bo-{done}"})
        assert r.status_code == 201

    context = chromium.new_context(viewport=DESKTOP, bypass_csp=True)
    page = context.new_page()
    sign_in(page, live.url, "bo@example.org")
    page.goto(live.url + "/review/es")
    start_reviewing(page)
    wait_for_item(page, proposal)
    card = "#proposal-diff"
    for locale, inserted in (("es", "añadido:"), ("ar", "مُضاف:")):
        context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
        page.reload()
        page.wait_for_selector(f"html[lang='{locale}']")
        wait_for_item(page, proposal)
        page.wait_for_selector("#proposal-change:not([hidden])")
        # the doubled letter, marked; the diff keeps the template's direction in either interface
        assert changes(page, card) == [("ins", "r")]
        assert labels(page, card) == [inserted]
        shown = "el => { const c = el.cloneNode(true); c.querySelectorAll('.visually-hidden').forEach(n => n.remove()); return c.textContent; }"
        assert page.locator(card).evaluate(shown) == TYPO  # every character kept, in order
        assert page.locator(card).evaluate("el => getComputedStyle(el).direction") == "ltr"
        assert page.locator(f"{card} ins").evaluate("el => getComputedStyle(el).textDecorationLine") == "underline"
        for viewport in (PHONE, DESKTOP):
            page.set_viewport_size(viewport)
            assert page.locator(f"{card} ins").is_visible()
            no_sideways_scroll(page)
            both_schemes_accessible(page, f"proposal card [{locale}, {viewport['width']}px]")

    # the Proposals page, a maintainer's: Spanish and Arabic proposals, Spanish and Arabic interface
    context.clear_cookies()
    context.add_cookies(signed_in_state(live.url, "boss@example.org")["cookies"])
    for locale in ("es", "ar"):
        context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
        page.goto(live.url + "/admin/languages/es/proposals")
        row = f"#proposals-table tr[data-text='{TYPO}'] .diff"
        assert changes(page, row) == [("ins", "r")]
        page.goto(live.url + "/admin/languages/ar/proposals")
        row = f"#proposals-table tr[data-text='{AR_AMENDED}'] .diff"
        assert changes(page, row) == [("del", "م"), ("ins", "مِ")]  # the letter and its kasra, whole
        assert page.locator(row).evaluate("el => getComputedStyle(el).direction") == "rtl"
        assert labels(page, row) == (["borrado:", "añadido:"] if locale == "es" else ["محذوف:", "مُضاف:"])
        for viewport in (PHONE, DESKTOP):
            page.set_viewport_size(viewport)
            both_schemes_accessible(page, f"proposals [{locale}, {viewport['width']}px]")
    context.close()


def page_height(page) -> int:
    return page.evaluate("document.documentElement.scrollHeight")


def test_disagreements_one_at_a_time_with_context_and_filters(chromium, disputed, live, sessions):  # noqa: F811
    axe_path()
    base = live.url + "/admin/languages/es/disagreements"
    capital = template_id(sessions, CAPITAL[1])
    context = chromium.new_context(
        viewport=DESKTOP, bypass_csp=True, storage_state=signed_in_state(live.url, "boss@example.org")
    )
    context.add_cookies([{"name": "curator_locale", "value": "es", "url": live.url}])
    page = context.new_page()
    page.goto(base)
    cards = page.locator("details.disagreement")
    assert cards.count() == 4
    assert page.locator("details.disagreement[open]").count() == 1  # one at a time
    opened = page.locator("details.disagreement[open]")
    # each item's heading is beside its card, not in the <summary> (whose content heading
    # navigation does not reach), and names the card's section
    assert page.locator("summary :is(h1, h2, h3, h4, h5, h6, [role=heading])").count() == 0
    assert page.get_by_role("heading", level=2).count() == 4
    for card in cards.all():
        heading = page.locator(f"#h{card.get_attribute('data-template')}")
        assert card.get_attribute("data-relation") in heading.inner_text()
        assert heading.evaluate("(h, card) => h.nextElementSibling === card", card.element_handle())
    # the context a reviewer sees: the English pattern, the machine lines, the examples
    assert page.locator("#disagreement-context .english-pattern").count() >= 1
    assert page.locator("#disagreement-context .machine-line").count() >= 1
    assert page.locator("#disagreement-context .examples li").count() >= 1
    assert opened.locator(".resolve-form").is_visible()
    assert page.locator("details.disagreement:not([open]) .resolve-form").first.is_hidden()
    # four disagreements fit in well under two desktop screens (it was one card each, all open)
    assert page_height(page) < 1600, page_height(page)

    # filters by kind: plain links (no script needed), counts beside each
    page.click("#disagreement-kinds a[data-kind=amendments]")
    page.wait_for_url(lambda url: "kind=amendments" in url)
    assert page.locator("#disagreement-count").get_attribute("data-count") == "1"
    assert page.locator("#disagreement-kinds a[aria-current=page]").get_attribute("data-kind") == "amendments"
    card = page.locator(f"#t{capital}")
    assert card.get_attribute("open") is not None
    # each amendment as a diff of the template, right in a right-to-left interface too
    assert [tag for tag, _ in changes(page, f"#t{capital} .reviewer-decision .diff")] == ["ins"]
    # resolving still works, and the page stays on the filter with the item open
    card.locator("input[name=verdict][value=amend]").check()
    card.locator("input[name=correction]").fill("[Y] es la capital de [X]")
    card.locator("input[name=reason]").fill("sin «hoy»")
    card.locator("button[type=submit].primary").click()
    page.wait_for_selector(f"#h{capital} [data-resolved=amend]")  # the heading beside the card
    assert page.locator(f"#t{capital}").get_attribute("open") is not None
    assert "kind=amendments" in page.url
    assert changes(page, f"#t{capital} .resolution .diff")  # the resolution's correction, as a diff

    for locale in ("es", "ar"):
        context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
        page.goto(base + "?kind=unsure")
        page.wait_for_selector(f"html[lang='{locale}']")
        assert page.locator("details.disagreement").count() == 1
        assert page.locator("#disagreement-kinds a[aria-current=page]").get_attribute("data-kind") == "unsure"
        page.goto(base + f"?item={capital}")
        assert page.locator(f"#t{capital}[open] .diff").first.evaluate("el => getComputedStyle(el).direction") == "ltr"
        for viewport in (PHONE, DESKTOP):
            page.set_viewport_size(viewport)
            no_sideways_scroll(page)
            both_schemes_accessible(page, f"disagreements [{locale}, {viewport['width']}px]")
    # an unknown kind is refused with the field named
    response = page.goto(base + "?kind=everything")
    text = page.locator("body").inner_text()
    assert response.status == 422 and "'kind'" in text and "verdicts" in text
    context.close()


def test_the_kind_filter_is_the_same_in_the_json_and_the_cli(disputed, cli):  # noqa: F811
    kind = next(p for p in review_disagreements.params if p.name == "kind")
    assert tuple(kind.type.choices) == KINDS  # the command offers the service's kinds
    listed = json.loads(cli("review", "disagreements", "es", "--json", "--kind", "unsure").output)
    assert [item["template"] for item in listed["items"]] == [NATIVE[1]]
    assert "es: 1 templates to look at" in cli("review", "disagreements", "es", "--kind", "amendments").output
    boss = Browser(disputed).login("boss@example.org")
    api = boss.get("/api/v1/languages/es/disagreements?kind=amendments").get_json()
    assert api["kind"] == "amendments" and [item["template"] for item in api["items"]] == [CAPITAL[1]]
    assert len(boss.get("/api/v1/languages/es/disagreements").get_json()["items"]) == 4
    refused = boss.get("/api/v1/languages/es/disagreements?kind=everything")
    assert refused.status_code == 422 and refused.get_json()["error"].startswith("field 'kind': ")
