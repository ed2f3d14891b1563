"""HTTP backends against fake APIs on loopback that speak each real API's request and response shapes.

The fakes "translate" by upper-casing the text outside protected markup and keep the
markup as the real APIs do; `mode` makes them mangle the markup or drop the [Y] element,
and scripted answers give 429 with Retry-After, 5xx and permanent errors.
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

from curator.translate import TranslationError, get_translator, translate_templates, translate_templates_detailed

KEY = "test-key-123"
TAG = re.compile(r"(<[^<>]+>)")


def upper_outside_markup(text: str, protected: Callable[[str, str], bool]) -> str:
    """Upper-case text outside protected elements; tags and protected content stay as they are."""
    out, depth = [], 0  # depth > 0: inside a protected element
    for part in TAG.split(text):
        if not TAG.fullmatch(part):
            out.append(part if depth else html.escape(html.unescape(part).upper(), quote=False))
            continue
        name = re.match(r"</?\s*([\w-]+)", part).group(1)
        if part.startswith("</"):
            depth = max(0, depth - 1)
        elif depth or protected(name, part):
            depth += 1
        out.append(part)
    return "".join(out)


def mangle(text: str) -> str:
    """What real systems do to markup: tag case and spacing, attribute order, a glued word, RLM marks."""
    text = re.sub(
        r'<(span|x)( class="notranslate" translate="no")?>',
        lambda m: (
            "\u200f< " + m.group(1).upper() + (' translate="no"  class="notranslate"' if m.group(2) else "") + " >"
        ),
        text,
    )
    text = re.sub(r"</(span|x)> ", lambda m: f"</ {m.group(1).upper()} >\u200f", text)  # glued to the next word
    return text.replace("'", "&#39;")


def drop_y(text: str) -> str:
    return re.sub(r"<(span|x)[^>]*>Y</(span|x)>", "", text)


@dataclass
class FakeApi:
    """Shared state: scripted failures first, then normal answers; every request is recorded."""

    mode: str = "keep"  # keep | mangle | drop-y
    script: list[tuple[int, dict, str]] = field(
        default_factory=list
    )  # (status, headers, body) served first; 0: hang up
    fail_when: str | None = None  # a 400 for any request whose texts contain this
    always: tuple[int, dict, str] | None = None  # answer every request with this
    requests: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def output(self, text: str, markup: bool, protected) -> str:
        if not markup:
            return text.upper()
        result = upper_outside_markup(text, protected)
        if self.mode == "mangle":
            return mangle(result)
        if self.mode == "drop-y":
            return drop_y(result)
        return result


def notranslate(name: str, tag: str) -> bool:
    return 'translate="no"' in tag or "notranslate" in tag


class _Handler(BaseHTTPRequestHandler):
    api: FakeApi
    kind: str  # which API this server speaks: the answer_<kind> method
    api_key_required: bool = False  # LibreTranslate servers may run with or without keys

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body, headers: dict | None = None) -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null")
        record = dict(path=url.path, query=query, headers=dict(self.headers), body=body)
        with self.api.lock:
            self.api.requests.append(record)
            scripted = self.api.script.pop(0) if self.api.script else self.api.always
        if scripted and scripted[0] == 0:  # hang up without an answer: the client sees a dropped connection
            self.close_connection = True
            return None
        if scripted:
            return self._send(scripted[0], scripted[2], scripted[1])
        getattr(self, f"answer_{self.kind}")(url.path, query, body)

    def _texts_fail(self, texts: list[str]) -> bool:
        return bool(self.api.fail_when) and any(self.api.fail_when in t for t in texts)

    # ---------------------------------------------------------------- Microsoft Translator v3
    def answer_microsoft(self, path, query, body) -> None:
        if self.headers.get("Ocp-Apim-Subscription-Key") != KEY:
            return self._send(
                401,
                {
                    "error": {
                        "code": 401000,
                        "message": "The request is not authorized because credentials are missing or invalid.",
                    }
                },
            )
        if path != "/translate" or query.get("api-version") != "3.0" or "to" not in query:
            return self._send(400, {"error": {"code": 400000, "message": "One of the request inputs is not valid."}})
        if not isinstance(body, list) or not all(isinstance(i, dict) and "Text" in i for i in body) or len(body) > 1000:
            return self._send(400, {"error": {"code": 400074, "message": "The body of the request is not valid JSON."}})
        texts = [i["Text"] for i in body]
        if self._texts_fail(texts):
            return self._send(400, {"error": {"code": 400050, "message": "The input text is too long."}})
        markup = query.get("textType") == "html"
        self._send(
            200,
            [{"translations": [{"text": self.api.output(t, markup, notranslate), "to": query["to"]}]} for t in texts],
        )

    # ---------------------------------------------------------------- Google Cloud Translation v2
    def answer_google(self, path, query, body) -> None:
        if query.get("key") != KEY:
            return self._send(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": "API key not valid. Please pass a valid API key.",
                        "status": "INVALID_ARGUMENT",
                    }
                },
            )
        if path != "/language/translate/v2" or not isinstance(body, dict) or "target" not in body:
            return self._send(400, {"error": {"code": 400, "message": "Invalid Value"}})
        texts = body["q"] if isinstance(body["q"], list) else [body["q"]]
        if len(texts) > 128:
            return self._send(400, {"error": {"code": 400, "message": "Too many text segments"}})
        if self._texts_fail(texts):
            return self._send(400, {"error": {"code": 400, "message": "Text too long"}})
        markup = body.get("format", "html") == "html"  # Google's default format is html
        self._send(
            200,
            {"data": {"translations": [{"translatedText": self.api.output(t, markup, notranslate)} for t in texts]}},
        )

    # ---------------------------------------------------------------- DeepL v2
    def answer_deepl(self, path, query, body) -> None:
        if self.headers.get("Authorization") != f"DeepL-Auth-Key {KEY}":
            return self._send(403, {"message": "Authorization failure, check auth_key"})
        if (
            path != "/v2/translate"
            or not isinstance(body, dict)
            or not isinstance(body.get("text"), list)
            or "target_lang" not in body
            or len(body["text"]) > 50
        ):
            return self._send(400, {"message": "Bad request. Reason: Value for 'target_lang' not supported."})
        if self._texts_fail(body["text"]):
            return self._send(400, {"message": "Bad request"})
        ignored = set(body.get("ignore_tags") or [])
        markup = body.get("tag_handling") == "xml"
        self._send(
            200,
            {
                "translations": [
                    {
                        "detected_source_language": "EN",
                        "text": self.api.output(t, markup, lambda name, tag: name in ignored),
                    }
                    for t in body["text"]
                ]
            },
        )

    # ---------------------------------------------------------------- LibreTranslate
    def answer_libretranslate(self, path, query, body) -> None:
        if self.api_key_required and body.get("api_key") != KEY:
            return self._send(403, {"error": "Invalid API key"})
        if path != "/translate" or not isinstance(body, dict) or "target" not in body:
            return self._send(400, {"error": "Invalid request: missing target parameter"})
        texts = body["q"] if isinstance(body["q"], list) else [body["q"]]
        if self._texts_fail(texts):
            return self._send(400, {"error": "Invalid request: text too long"})
        markup = body.get("format") == "html"
        out = [self.api.output(t, markup, notranslate) for t in texts]
        self._send(200, {"translatedText": out if isinstance(body["q"], list) else out[0]})


def serve(kind: str, api: FakeApi, api_key_required: bool = False) -> tuple[ThreadingHTTPServer, str]:
    handler = type(f"{kind}Handler", (_Handler,), {"api": api, "kind": kind, "api_key_required": api_key_required})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


# ================================================================ tests

SYSTEMS = ("microsoft", "google", "deepl", "libretranslate")
TEMPLATES = [
    "[X] was born in [Y].",
    "[X] is the capital of [Y].",
    "[Y] is where [X] was born.",
    "[X]'s mother tongue is [Y] & more.",
]
EXPECTED = [
    t.replace("[X]", "\0").replace("[Y]", "\1").upper().replace("\0", "[X]").replace("\1", "[Y]") for t in TEMPLATES
]


@pytest.fixture
def fake(monkeypatch):
    """fake(system, **state) -> (FakeApi, translator) with the backend pointed at a fresh fake server."""
    servers = []

    def start(system: str, key_required: bool = False, **options):
        state = {k: options.pop(k) for k in ("mode", "script", "fail_when", "always") if k in options}
        api = FakeApi(**state)
        server, url = serve(system, api, api_key_required=key_required)
        servers.append(server)
        monkeypatch.setenv(f"CURATOR_{system.upper()}_URL", url)
        monkeypatch.setenv(f"CURATOR_{system.upper()}_KEY", KEY)
        options.setdefault("backoff", 0.01)
        return api, get_translator(system, **options)

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("system", SYSTEMS)
def test_protected_templates_come_back_translated_with_their_slots(fake, system):
    api, translator = fake(system)
    results = translate_templates_detailed(translator, TEMPLATES, "en", "es")
    assert [r.text for r in results] == EXPECTED
    assert all(r.method == "protected" for r in results)
    assert len(api.requests) == 1  # one batch, in the API's markup mode
    assert translate_templates(translator, TEMPLATES[:1], "en", "es") == EXPECTED[:1]


@pytest.mark.parametrize("system", SYSTEMS)
def test_mangled_markup_is_restored(fake, system):
    _api, translator = fake(system, mode="mangle")
    results = translate_templates_detailed(translator, TEMPLATES, "en", "es")
    assert "\u200f< SPAN" in results[0].raw or "\u200f< X" in results[0].raw
    assert "&#39;" in results[3].raw
    assert [r.text for r in results] == EXPECTED
    assert all(not r.fallback for r in results)


@pytest.mark.parametrize("system", SYSTEMS)
def test_lost_slot_falls_back_to_segments(fake, system):
    api, translator = fake(system, mode="drop-y")
    results = translate_templates_detailed(translator, TEMPLATES, "en", "es")
    assert [r.text for r in results] == EXPECTED
    assert all(r.fallback for r in results) and all("[Y]" not in r.raw and "Y<" not in r.raw for r in results)
    assert len(api.requests) == 2  # the templates, then their segments (plain text) in one batch
    second = api.requests[1]
    assert "<" not in json.dumps(second["body"])


def test_microsoft_request_shape(fake):
    api, translator = fake("microsoft", region="westeurope")
    translate_templates(translator, TEMPLATES, "en", "zh")
    request = api.requests[0]
    assert request["headers"]["Ocp-Apim-Subscription-Key"] == KEY
    assert request["headers"]["Ocp-Apim-Subscription-Region"] == "westeurope"
    assert request["query"] == {"api-version": "3.0", "from": "en", "to": "zh-Hans", "textType": "html"}
    assert request["body"][0]["Text"].startswith('<span class="notranslate" translate="no">X</span>')


def test_google_request_shape(fake):
    api, translator = fake("google")
    translate_templates(translator, TEMPLATES, "en", "zh-hant")
    request = api.requests[0]
    assert request["query"] == {"key": KEY}
    assert request["body"]["target"] == "zh-TW" and request["body"]["source"] == "en"
    assert request["body"]["format"] == "html" and request["body"]["q"][3].endswith("&amp; more.")


def test_deepl_request_shape_and_free_endpoint(fake, monkeypatch):
    api, translator = fake("deepl")
    translate_templates(translator, TEMPLATES, "en", "pt")
    body = api.requests[0]["body"]
    assert api.requests[0]["headers"]["Authorization"] == f"DeepL-Auth-Key {KEY}"
    assert body["source_lang"] == "EN" and body["target_lang"] == "PT-BR"
    assert body["tag_handling"] == "xml" and body["ignore_tags"] == ["x"] and body["text"][0].startswith("<x>X</x>")
    monkeypatch.delenv("CURATOR_DEEPL_URL")
    assert get_translator("deepl", key="abc:fx").url == "https://api-free.deepl.com"
    assert get_translator("deepl", key="abc").url == "https://api.deepl.com"


def test_libretranslate_sends_the_optional_key(fake):
    api, translator = fake("libretranslate", key_required=True)
    assert translate_templates(translator, TEMPLATES[:2], "en", "is") == EXPECTED[:2]
    assert api.requests[0]["body"]["api_key"] == KEY and api.requests[0]["body"]["format"] == "html"


def test_libretranslate_runs_without_a_key(fake, monkeypatch):
    api, _translator = fake("libretranslate")
    monkeypatch.delenv("CURATOR_LIBRETRANSLATE_KEY")
    keyless = get_translator("libretranslate")
    assert keyless.translate(["hello"], "en", "de") == ["HELLO"]
    assert "api_key" not in api.requests[-1]["body"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_429_and_5xx_are_retried_honouring_retry_after(fake, system):
    api, translator = fake(
        system, script=[(429, {"Retry-After": "1"}, '{"error": "slow down"}'), (503, {}, '{"error": "busy"}')]
    )
    assert translator.sleep is time.sleep  # what the waits below go through outside tests
    waits: list[float] = []
    translator.sleep = waits.append
    assert translator.translate(["born in"], "en", "de") == ["BORN IN"]
    # the server's Retry-After (1 s), not the 0.01 s backoff; then the backoff's second step, 0.02 s
    assert waits == [1.0, pytest.approx(0.02)]
    assert len(api.requests) == 3


def test_retry_after_as_an_http_date(fake):
    from email.utils import formatdate

    api, translator = fake("google", script=[(429, {"Retry-After": formatdate(time.time() + 30, usegmt=True)}, "{}")])
    waits: list[float] = []
    translator.sleep = waits.append
    assert translator.translate(["x"], "en", "de") == ["X"]
    assert len(waits) == 1 and 20 <= waits[0] <= 30  # until that date (whole seconds), not the backoff
    assert len(api.requests) == 2


@pytest.mark.parametrize(
    "system, status", [("microsoft", 401), ("google", 400), ("deepl", 403), ("libretranslate", 403)]
)
def test_a_wrong_key_fails_at_once_naming_system_status_and_body(fake, system, status):
    api, translator = fake(system, key_required=True)
    translator.key = "wrong"
    with pytest.raises(TranslationError) as info:
        translator.translate(["born in"], "en", "de")
    message = str(info.value)
    assert message.startswith(f"{system}: HTTP {status} from http://127.0.0.1:")
    assert any(word in message for word in ("not authorized", "not valid", "Authorization failure", "Invalid API key"))
    assert "wrong" not in message  # the key never appears in errors
    assert len(api.requests) == 1  # not retried


def test_a_retry_after_beyond_the_longest_wait_fails_at_once(fake):
    api, translator = fake("deepl", script=[(429, {"Retry-After": "3600"}, '{"message": "quota"}')])
    waits: list[float] = []
    translator.sleep = waits.append
    with pytest.raises(TranslationError, match=r"deepl: HTTP 429 from .*quota.* \(asked to retry after 3600 s\)"):
        translator.translate(["x"], "en", "de")
    assert waits == [] and len(api.requests) == 1


def test_an_unreadable_retry_after_falls_back_to_the_backoff(fake):
    api, translator = fake(
        "google", script=[(503, {"Retry-After": "soon"}, "{}"), (503, {"Retry-After": "soon"}, "{}")]
    )
    waits: list[float] = []
    translator.sleep = waits.append
    assert translator.translate(["x"], "en", "de") == ["X"]
    assert waits == [pytest.approx(0.02)] and len(api.requests) == 3  # urllib3's schedule: 0, then 2 × backoff


def test_a_dropped_connection_is_retried_although_the_request_is_a_post(fake):
    api, translator = fake("microsoft", script=[(0, {}, ""), (0, {}, "")])
    assert translator.translate(["born in"], "en", "de") == ["BORN IN"]
    assert len(api.requests) == 3


def test_retries_keep_to_the_rate_limit(fake):
    api, translator = fake("libretranslate", rate=10, script=[(503, {}, "{}"), (503, {}, "{}")])
    now, waits = [100.0], []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    translator.limiter.clock, translator.limiter.sleep = (lambda: now[0]), sleep
    translator.sleep = sleep
    assert translator.translate(["a"], "en", "de") == ["A"]
    # 1st retry: no backoff, the rate limit's 0.1 s; 2nd: the 0.02 s backoff, then the rest of the 0.1 s
    assert waits == pytest.approx([0.1, 0.02, 0.08]) and len(api.requests) == 3


def test_a_permanent_5xx_gives_up_after_the_retries(fake):
    api, translator = fake("microsoft", retries=2, always=(500, {}, '{"error": {"code": 500000, "message": "oops"}}'))
    with pytest.raises(TranslationError, match=r"microsoft: gave up after 3 attempts: HTTP 500 .*oops"):
        translator.translate(["born in"], "en", "de")
    assert len(api.requests) == 3


def test_unreachable_server_is_retried_then_reported(monkeypatch):
    monkeypatch.setenv("CURATOR_GOOGLE_KEY", KEY)
    translator = get_translator("google", url="http://127.0.0.1:9", retries=1, backoff=0.01, timeout=2)
    with pytest.raises(TranslationError, match=r"google: gave up after 2 attempts: ConnectionError"):
        translator.translate(["x"], "en", "de")


@pytest.mark.parametrize("system", ["microsoft", "google", "deepl"])
def test_a_missing_key_is_a_clear_error_before_any_request(monkeypatch, system):
    monkeypatch.delenv(f"CURATOR_{system.upper()}_KEY", raising=False)
    with pytest.raises(TranslationError, match=f"{system}: no API key: set CURATOR_{system.upper()}_KEY"):
        get_translator(system)


def test_unknown_system_is_named():
    with pytest.raises(TranslationError, match="bing: unknown translation system; choose one of microsoft"):
        get_translator("bing")


def test_batches_stay_within_the_api_limits(fake):
    api, translator = fake("google")
    texts = [f"word {i}" for i in range(300)]
    assert translator.translate(texts, "en", "de") == [t.upper() for t in texts]
    assert [len(r["body"]["q"]) for r in api.requests] == [128, 128, 44]
    api, translator = fake("deepl", batch_size=20)
    translator.translate(texts[:45], "en", "de")
    assert [len(r["body"]["text"]) for r in api.requests] == [20, 20, 5]


def test_rate_limit_spaces_requests(fake):
    api, translator = fake("libretranslate", batch_size=1, rate=10)
    limiter = translator.limiter
    assert limiter.clock is time.monotonic and limiter.sleep is time.sleep  # outside tests
    now, waits = [100.0], []

    def sleep(seconds: float) -> None:  # a clock that moves only when the limiter waits
        waits.append(seconds)
        now[0] += seconds

    limiter.clock, limiter.sleep = (lambda: now[0]), sleep
    translator.translate(["a", "b", "c", "d"], "en", "de")
    assert len(api.requests) == 4
    assert waits == pytest.approx([0.1, 0.1, 0.1])  # 4 starts at most 10 per second: 0.1 s apart


def test_blank_texts_are_not_sent(fake):
    api, translator = fake("microsoft")
    assert translator.translate(["", "  ", "a"], "en", "de") == ["", "  ", "A"]
    assert [i["Text"] for i in api.requests[0]["body"]] == ["a"]


def test_malformed_answer_is_an_error_naming_the_system(fake):
    _api, translator = fake("deepl", always=(200, {}, '{"unexpected": true}'))
    with pytest.raises(TranslationError, match=r"deepl: unexpected answer from http://127.0.0.1:\d+/v2/translate"):
        translator.translate(["a"], "en", "de")
