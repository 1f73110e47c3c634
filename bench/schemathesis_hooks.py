"""Schemathesis hooks for bench/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

They change no check and drop no failure. They do two things:

1. Keep *positive* cases (those generated to be valid per the document) inside the rules of
   keyhook that JSON Schema cannot state, so that `positive_data_acceptance` tests everything
   else:
   - `expiresAt` must be in the future: a date-time in the past gets the year 2996 (a leap
     year, so that a generated 29 February stays a valid date); its format, offset and
     fractional seconds are kept as generated.
   - the SSRF guard refuses webhook URLs whose host is an IPv4 literal of a private, loopback,
     link-local or reserved network (the server runs without --allow-private-targets): such a
     host becomes 192.0.2.1 (TEST-NET-1, documentation only; inside the script's network
     namespace nothing is reachable anyway).
   - a key's `name` and `profileIds` (and a webhook's or a portal link's `profileIds`, an
     event's `profileId`)
     must not hold invisible characters above the Basic
     Multilingual Plane (tags, private use, noncharacters...), which the document's patterns
     leave to their descriptions so that every regular-expression engine reads the patterns
     alike (JavaScript's without the u flag too): each such character becomes a visible one
     of plane 2 (U+20000 + its low 15 bits).
   - a replay's `since`, and GET /audit's `since` query, must not be in the future: a
     date-time after 2000 gets the year 2000 (format, offset and fractional seconds kept); and
     a replay's `eventId` must be an event of the caller's user, which a generated id never
     is: it is dropped.
   - an event name must be one the catalog holds, which the document cannot list (the
     operator's catalog changes while the server runs; the document gives the names' shape):
     a generated name becomes one of a new database's, chosen by its CRC-32 so that runs stay
     varied (`event` of POST /events: the seven built-ins; `events` of a webhook: those and
     keyhook's two operational events, duplicates then dropped).
   - a webhook's retry delays are at most ~100 years (time.rs): a longer one becomes seconds.
   - a webhook's static `headers` must not name a header keyhook or the connection sets
     (`host`, `user-agent`, `content-*`, `webhook-*`, the hop-by-hop names), nor one name
     twice in different cases (headers.rs), which the document's token pattern cannot state:
     such a name gets the prefix `x-` (cut to the longest name), and a name that is then
     another's in other cases is dropped with its value.
   - a webhook's `filter` must be an expression the CEL parser takes, which no schema can
     state: a generated one becomes a CEL expression that holds its text as a string literal
     (escaped), so its length and characters still vary.
   Negative cases are left alone: whatever makes them invalid is still there.

2. Keep the run's own API key alive: `DELETE /api-keys/{id}` with the id or prefix of the key
   the run authenticates with gets another id instead (the server then answers 404). Without
   this, the stateful phase finds the key in `GET /api-keys`, deletes it, and every later
   request is a 401 that tests nothing.
"""

import ipaddress
import os
import re
import uuid
import zlib
from urllib.parse import urlsplit

import schemathesis

KEY_ID = os.environ.get("KEYHOOK_SCHEMATHESIS_KEY_ID", "")
KEY_PREFIX = os.environ.get("KEYHOOK_SCHEMATHESIS_KEY_PREFIX", "")

# src/delivery/guard.rs, is_forbidden_v4.
FORBIDDEN_V4 = [
    ipaddress.ip_network(n)
    for n in [
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "224.0.0.0/3",
    ]
]
# The headers that describe the request the key check is asked about.
DESCRIBING = {"x-original-method", "x-original-uri", "x-forwarded-method", "x-forwarded-uri"}
DATE_TIME = re.compile(r"^(\d{4})(-.*)$", re.S)
FUTURE_YEAR = 2996


def _is_positive(case) -> bool:
    meta = getattr(case, "meta", None)
    return meta is not None and meta.generation.mode.is_positive


def _future(value):
    if isinstance(value, str):
        m = DATE_TIME.match(value)
        if m and int(m.group(1)) < FUTURE_YEAR:
            return f"{FUTURE_YEAR}{m.group(2)}"
    return value


PAST_YEAR = 2000

# keyhook-core's service::events::CATALOG and OPERATIONAL: a new database's catalog.
EMITTED = [
    "post.published",
    "post.failed",
    "post.deleted",
    "account.connected",
    "account.disconnected",
    "profile.created",
    "profile.deleted",
]
SUBSCRIBED = EMITTED + ["webhook.disabled", "delivery.exhausted"]


def _known(value, names):
    if not isinstance(value, str) or value in names:
        return value
    return names[zlib.crc32(value.encode("utf-8", "surrogatepass")) % len(names)]


def _known_list(values, names):
    if not isinstance(values, list):
        return values
    out = []
    for v in values:
        k = _known(v, names)
        if k not in out:
            out.append(k)
    return out


def _cel(value):
    # `event != "..."`: the generated text as a CEL string literal, each character that is not
    # printable ASCII (or is a quote or a backslash) escaped as \uXXXX / \UXXXXXXXX.
    if not isinstance(value, str):
        return value
    chars = []
    for c in value:
        u = ord(c)
        if 0x20 <= u < 0x7F and c not in "\\\"":
            chars.append(c)
        elif 0xD800 <= u <= 0xDFFF:
            chars.append("?")
        elif u <= 0xFFFF:
            chars.append("\\u%04x" % u)
        else:
            chars.append("\\U%08x" % u)
    expr = 'event != "' + "".join(chars) + '"'
    return expr if len(expr) <= 2048 else 'event != ""'


def _astral_invisible(c):
    # keyhook-core's service::input::ASTRAL_INVISIBLE (is_invisible above U+FFFF).
    u = ord(c)
    return u > 0xFFFF and (
        u in (0x110BD, 0x110CD, 0x1D159)
        or 0x13430 <= u <= 0x1343F
        or 0x1BCA0 <= u <= 0x1BCA3
        or 0x1D173 <= u <= 0x1D17A
        or 0xE0000 <= u <= 0xE0FFF
        or u >= 0xF0000
        or u & 0xFFFE == 0xFFFE
    )


def _visible(value):
    if not isinstance(value, str):
        return value
    return "".join(chr(0x20000 + (ord(c) & 0x7FFF)) if _astral_invisible(c) else c for c in value)


# time.rs, parse_duration: a duration is at most ~100 years.
UNITS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
MOST_MS = 100 * 366 * 86_400_000


def _bounded(value):
    """A retry delay longer than a duration may be (which the pattern cannot state) becomes
    one of its last part's digits in seconds, so that it stays varied and valid."""
    if not isinstance(value, str):
        return value
    parts = re.findall(r"([0-9]+)(ms|s|m|h|d|w)", value)
    total = sum(int(n) * UNITS[u] for n, u in parts)
    if total <= MOST_MS:
        return value
    return f"{int(parts[-1][0][-3:]) % 999 + 1}s"


# keyhook-core's service::webhooks::headers: REFUSED, the refused prefixes, MAX_NAME_LEN.
REFUSED_HEADERS = {
    "host",
    "connection",
    "transfer-encoding",
    "te",
    "upgrade",
    "keep-alive",
    "proxy-connection",
    "trailer",
    "user-agent",
}
REFUSED_HEADER_PREFIXES = ("webhook-", "content-")
MAX_HEADER_NAME = 256


def _allowed_headers(value):
    """Static headers whose names keyhook takes: a refused name becomes `x-` + the name (cut
    to the longest name), and a name given again in other cases is dropped."""
    if not isinstance(value, dict):
        return value
    out = {}
    seen = set()
    for name, v in value.items():
        if not isinstance(name, str):
            continue
        lower = name.lower()
        if lower in REFUSED_HEADERS or lower.startswith(REFUSED_HEADER_PREFIXES):
            name = ("x-" + name)[:MAX_HEADER_NAME]
            lower = name.lower()
        if lower in seen:
            continue
        seen.add(lower)
        out[name] = v
    return out


def _past(value):
    if isinstance(value, str):
        m = DATE_TIME.match(value)
        if m and int(m.group(1)) > PAST_YEAR:
            return f"{PAST_YEAR}{m.group(2)}"
    return value


def _public_url(value):
    if not isinstance(value, str):
        return value
    try:
        host = urlsplit(value).hostname
        ip = ipaddress.IPv4Address(host) if host else None
    except ValueError:
        return value
    if ip is None or not any(ip in n for n in FORBIDDEN_V4):
        return value
    # The host is the first occurrence of its text after "//".
    start = value.index("//") + 2
    at = value.index(host, start) if host in value[start:] else -1
    if at < 0:
        return value
    return value[:at] + "192.0.2.1" + value[at + len(host) :]


@schemathesis.hook
def map_case(context, case):
    op = case.operation
    method = op.method.upper()
    if method == "DELETE" and op.path == "/api-keys/{id}":
        params = case.path_parameters or {}
        if params.get("id") in {KEY_ID, KEY_PREFIX} - {""}:
            params["id"] = "not-the-key-of-this-run"
            case.path_parameters = params
    if not _is_positive(case):
        return case
    # A webhook POST's Idempotency-Key reused with another body is refused (400 on the
    # header, docs/webhooks.md#idempotent-webhook-requests), which no schema can say: a
    # positive case gets a key of its own.
    if method == "POST" and op.path.startswith("/webhooks") and case.headers:
        for name in list(case.headers):
            if name.lower() == "idempotency-key":
                case.headers[name] = "st-" + uuid.uuid4().hex
    # The key check (docs/guarding.md): its sources must agree and its URI must be one no
    # upstream normalises into another (no dot segment, //, encoded / \\ .), which no schema
    # can say: a positive case describes one plain request.
    if op.path in ("/auth", "/auth/{path}"):
        for name in list(case.headers or {}):
            if name.lower() in DESCRIBING:
                del case.headers[name]
        if op.path == "/auth":
            case.headers = dict(case.headers or {}, **{"X-Original-Method": "GET", "X-Original-URI": "/posts"})
        else:
            case.path_parameters = dict(case.path_parameters or {}, path="posts")
    if method == "GET" and op.path == "/audit" and case.query and "since" in case.query:
        case.query["since"] = _past(case.query["since"])
    if not isinstance(case.body, dict):
        return case
    if method == "POST" and op.path == "/api-keys" and "expiresAt" in case.body:
        case.body["expiresAt"] = _future(case.body["expiresAt"])
    if method == "POST" and op.path == "/api-keys":
        if "name" in case.body:
            case.body["name"] = _visible(case.body["name"])
        if isinstance(case.body.get("profileIds"), list):
            case.body["profileIds"] = [_visible(p) for p in case.body["profileIds"]]
    # A webhook's scope and an event's profile follow a key's profile id rules.
    if (op.path in ("/webhooks", "/webhooks/{id}") and method in ("POST", "PATCH")) or (
        method == "POST" and op.path == "/portal-links"
    ):
        if isinstance(case.body.get("profileIds"), list):
            case.body["profileIds"] = [_visible(p) for p in case.body["profileIds"]]
    if method == "POST" and op.path == "/events" and isinstance(case.body.get("profileId"), str):
        case.body["profileId"] = _visible(case.body["profileId"])
    if method == "POST" and op.path == "/events" and "event" in case.body:
        case.body["event"] = _known(case.body["event"], EMITTED)
    if op.path in ("/webhooks", "/webhooks/{id}") and method in ("POST", "PATCH"):
        if "events" in case.body:
            case.body["events"] = _known_list(case.body["events"], SUBSCRIBED)
        if "filter" in case.body:
            case.body["filter"] = _cel(case.body["filter"])
        if isinstance(case.body.get("retrySchedule"), list):
            case.body["retrySchedule"] = [_bounded(d) for d in case.body["retrySchedule"]]
        if isinstance(case.body.get("headers"), dict):
            case.body["headers"] = _allowed_headers(case.body["headers"])
    if method == "POST" and op.path == "/webhooks/{id}/replay":
        if "since" in case.body:
            case.body["since"] = _past(case.body["since"])
        case.body.pop("eventId", None)
    if op.path in ("/webhooks", "/webhooks/{id}") and "url" in case.body:
        case.body["url"] = _public_url(case.body["url"])
    return case
