"""Drives every operation of keyhook's API through a client that openapi-python-client
generated from the document the server serves (.ci/tools.sh).

    python drive_client.py BASE_URL KEY DOCUMENT PACKAGE_PARENT

Fails if an operation of the document is missing from the generated client, if an operation
has no driver here (an operation added to the API needs one), or if an answer is not the
documented success, parsed into the generated model. A webhook points at a receiver on
loopback that this script runs.
"""

import importlib
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

base, key, document, parent = sys.argv[1:5]
sys.path.insert(0, parent)

from keyhook_client import AuthenticatedClient  # noqa: E402
from keyhook_client import models  # noqa: E402
from keyhook_client.types import Response  # noqa: E402


class Receiver(BaseHTTPRequestHandler):
    received = 0

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Receiver.received += 1
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


receiver = HTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
hook_url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"

doc = json.load(open(document, encoding="utf-8"))
operations = [
    op["operationId"]
    for item in doc["paths"].values()
    for method, op in item.items()
    if method != "parameters"
]


def module_of(operation_id):
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", operation_id).lower()
    try:
        return importlib.import_module(f"keyhook_client.api.default.{snake}")
    except ModuleNotFoundError:
        return None


missing = [o for o in operations if module_of(o) is None]
if missing:
    sys.exit(f"drive_client.py: not in the generated client: {missing}")

client = AuthenticatedClient(base_url=base, token=key, raise_on_unexpected_status=True)
state = {}
called = []


def call(operation_id, status, **kwargs):
    r: Response = module_of(operation_id).sync_detailed(client=client, **kwargs)
    called.append(operation_id)
    if r.status_code != status:
        sys.exit(f"drive_client.py: {operation_id}: {r.status_code} {r.content!r}, want {status}")
    if status != 204:
        if r.parsed is None or isinstance(r.parsed, models.Error):
            sys.exit(f"drive_client.py: {operation_id}: not parsed as its success: {r.content!r}")
    return r.parsed


def data(parsed):
    return parsed.data


event = "post.published"
call("getOpenApi", 200)
call("listApiKeys", 200)
made = data(call("createApiKey", 201, body=models.CreateApiKey(name="generated client")))
assert made.key.startswith("kp_") and made.name == "generated client", made
assert data(call("getApiKey", 200, id=made.id)).id == made.id
call("deleteApiKey", 204, id=made.id)
hook = data(
    call(
        "createWebhook",
        201,
        body=models.CreateWebhook(url=hook_url, events=[event]),
    )
)
assert hook.secret.startswith("whsec_"), hook
assert any(w.id == hook.id for w in data(call("listWebhooks", 200)))
assert data(call("getWebhook", 200, id=hook.id)).url == hook_url
changed = data(
    call("updateWebhook", 200, id=hook.id, body=models.UpdateWebhook(url=hook_url + "/2", is_active=True))
)
assert changed.url == hook_url + "/2", changed
tested = data(call("testWebhook", 200, id=hook.id))
assert tested.delivered and tested.status_code == 204, tested
accepted = data(
    call(
        "emitEvent",
        202,
        body=models.EmitEvent(
            event=event,
            data=models.EmitEventDataType0.from_dict({"postId": "p_1"}),
        ),
        idempotency_key="generated-client-1",
    )
)
assert accepted.id.startswith("evt_") and accepted.deliveries == 1, accepted
again = data(
    call(
        "emitEvent",
        202,
        body=models.EmitEvent(event=event),
        idempotency_key="generated-client-1",
    )
)
assert again.id == accepted.id, (again, accepted)
assert len(data(call("listDeliveries", 200, id=hook.id))) >= 1
replayed = data(call("replayWebhook", 202, id=hook.id, body=models.ReplayWebhook(event_id=accepted.id)))
assert replayed.queued == 1, replayed
rotated = data(call("rotateWebhookSecret", 200, id=hook.id, body=models.RotateSecret(grace_seconds=60)))
assert rotated.secret != hook.secret, rotated
assert len(data(call("listAudit", 200, limit=10))) >= 1
assert event in [t.name for t in data(call("listEventTypes", 200))]
shown = data(call("getEventType", 200, name=event))
assert shown.name == event and shown.profile == "optional", shown
call("deleteWebhook", 204, id=hook.id)
link = data(call("createPortalLink", 201, body=models.CreatePortalLink(read_only=True, ttl_seconds=60)))
assert "/portal#" in link.url and link.read_only and link.full_access, link
call("revokePortalLink", 204, id=link.id)


def check(operation_id, **kwargs):
    """The key check: 200 with no body, the key's identity in its headers."""
    r: Response = module_of(operation_id).sync_detailed(client=client, **kwargs)
    called.append(operation_id)
    if r.status_code != 200 or r.headers.get("x-keyhook-key-prefix") != key[:11]:
        sys.exit(f"drive_client.py: {operation_id}: {r.status_code} {r.headers!r}, want 200 with the key's prefix")


check("checkKey", x_original_method="GET", x_original_uri="/profiles/brand-a/posts")
check("checkKeyForPath", path="posts")

undriven = sorted(set(operations) - set(called))
if undriven:
    sys.exit(f"drive_client.py: no driver for {undriven}: add one")
print(f"drive_client.py: {len(operations)} operations of the generated client, each answered as documented")
