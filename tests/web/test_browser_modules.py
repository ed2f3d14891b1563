"""The browser code as ES modules (issue 40 §2): review.js, glossary.js, review_context.js and
signout.js are loaded with <script type="module"> and import what they share from
static/review/ (no build step, no globals on `window`); one module builds every <bdi>.

Statically: every import names a file that exports it, every module is reached from a page, and
no script but review/bidi.js builds a <bdi>. In Chromium under the app's own
Content-Security-Policy (the other browser tests bypass it): every module loads and runs, in the
Spanish interface on a desktop in light colours and in the Arabic one on a phone in dark."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.plugins.databases import review_sample
from tests.web.test_review_guidance import DESKTOP, PHONE
from tests.web.test_review_ui import sign_in

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "curator" / "web" / "static"
TEMPLATES = ROOT / "curator" / "web" / "templates"
IMPORT = re.compile(r'^import \{([^}]*)\} from "([^"]+)";$', re.M)
EXPORT = re.compile(r"^export (?:async )?(?:function|const|let|class) ([\w$]+)", re.M)
MODULE_TAG = re.compile(r"""<script type="module" src="\{\{ url_for\('static', filename='([^']+)'\) \}\}"></script>""")


def scripts() -> list[Path]:
    return sorted([*STATIC.glob("*.js"), *STATIC.glob("review/*.js")])


def imports(path: Path) -> list[tuple[Path, list[str]]]:
    """(the imported file, the names) for each import of the module at `path`."""
    return [
        ((path.parent / source).resolve(), [name.strip() for name in names.split(",")])
        for names, source in IMPORT.findall(path.read_text(encoding="utf-8"))
    ]


def test_every_import_resolves_and_every_module_is_reached():
    entries = {STATIC / name for t in TEMPLATES.glob("*.html") for name in MODULE_TAG.findall(t.read_text())}
    assert {p.name for p in entries} == {"review.js", "glossary.js", "review_context.js", "signout.js"}
    reached: set[Path] = set()
    todo = list(entries)
    while todo:
        module = todo.pop()
        if module in reached:
            continue
        reached.add(module)
        for target, names in imports(module):
            assert target.is_file(), f"{module.name} imports {target} (no such file)"
            exported = set(EXPORT.findall(target.read_text(encoding="utf-8")))
            assert not set(names) - exported, (
                f"{module.name}: {sorted(set(names) - exported)} not exported by {target.name}"
            )
            todo.append(target)
    # every module of review/ is loaded by a page, and a script loaded classically imports nothing
    assert set(STATIC.glob("review/*.js")) <= reached, sorted(p.name for p in set(STATIC.glob("review/*.js")) - reached)
    for classic in set(scripts()) - reached:
        assert not IMPORT.search(classic.read_text(encoding="utf-8")), f"{classic.name} imports but is no module"


def test_one_bdi_builder_and_no_globals():
    for path in scripts():
        text = path.read_text(encoding="utf-8")
        builds = re.findall(r"""createElement\(\s*["']bdi["']|el\(\s*["']bdi["']""", text)
        assert not builds or path == STATIC / "review" / "bidi.js", f"{path.name} builds its own <bdi>"
        assert not re.search(r"window\.(Curator|curator)\w*", text), f"{path.name} shares through a global"
    users = {p.name for p in scripts() if any(t.name == "bidi.js" for t, _ in imports(p))}
    assert {"glossary.js", "review_context.js", "item.js", "comments.js"} <= users, users


# the page's errors and Content-Security-Policy violations, gathered from its first script on
WATCH = """
window.__problems = [];
document.addEventListener('securitypolicyviolation', (e) => window.__problems.push('CSP ' + e.violatedDirective + ' ' + e.blockedURI));
window.addEventListener('error', (e) => window.__problems.push('error ' + e.message));
"""


@pytest.mark.parametrize(
    "locale, lang, viewport, scheme",
    [("es", "es", DESKTOP, "light"), ("ar", "ar", PHONE, "dark")],
    ids=["es-desktop-light", "ar-phone-dark"],
)
def test_the_modules_run_under_the_apps_csp(chromium, live, sessions, locale, lang, viewport, scheme):
    items = review_sample(sessions, "ana@example.org", lang)
    phone = viewport == PHONE
    context = chromium.new_context(viewport=viewport, is_mobile=phone, has_touch=phone, color_scheme=scheme)
    try:
        context.add_init_script(WATCH)
        page = context.new_page()
        page.set_default_timeout(15_000)  # a module that fails to run fails the test soon
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        sign_in(page, live.url, "ana@example.org")
        context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
        response = page.goto(f"{live.url}/review/{lang}")
        assert response is not None and "default-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_selector("#review[data-ready='1']")  # review.js and its modules ran
        assert page.evaluate("document.documentElement.lang") == locale
        assert page.evaluate("document.documentElement.dir") == ("rtl" if locale == "ar" else "ltr")
        if page.locator("#intro").is_visible():
            page.locator("#start").click()
            page.wait_for_selector("#work", state="visible")  # the keys act once the guidelines are left
        first = str(items[0][0])
        # Waited on as functions: Playwright polls a string expression with eval(), which this CSP
        # refuses (EvalError) whenever the first look finds it not yet true
        page.wait_for_function(f"() => document.getElementById('item-card').dataset.item === '{first}'")
        # glossary.js read the item's terms; review_context.js opens a panel on M (keys.js) and fills it
        page.wait_for_function(
            f"() => (document.getElementById('glossary').dataset.known || '').split(' ').includes('{first}')"
        )
        page.keyboard.press("m")
        page.wait_for_selector("#context[data-ready='1']")
        assert page.locator("#ctx-mt").is_visible()
        lines = page.locator("#ctx-mt-lines bdi.ctx-text")  # built by bidi.js: as stored, no dir set
        if lines.count():
            assert lines.first.get_attribute("dir") is None
        # every module of static/review/ came from the app, as JavaScript
        loaded = page.evaluate(
            "performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)"
            ".filter((p) => p.startsWith('/static/review/'))"
        )
        assert set(loaded) == {f"/static/review/{p.name}" for p in STATIC.glob("review/*.js")}, loaded
        for name in ("review/bidi.js", "review.js"):
            assert page.request.get(f"{live.url}/static/{name}").headers["content-type"].startswith("text/javascript")
        assert page.evaluate("window.__problems") == [] and errors == []
        # signout.js (a module importing review/drafts.js) drops this reviewer's drafts on sign-out
        prefix = page.locator("#sign-out").get_attribute("data-drafts")
        page.evaluate(f"localStorage.setItem('{prefix}{lang}.item-comment-text.{first}', 'kept')")
        with page.expect_navigation():
            button = page.locator("#sign-out button[type=submit]")
            button.tap() if phone else button.click()
        page.wait_for_url(re.compile(r".*/login.*"))
        assert page.evaluate(f"Object.keys(localStorage).filter((k) => k.startsWith('{prefix}'))") == []
        assert errors == []
    finally:
        context.close()
