#!/usr/bin/env bash
# Another user's GET /api/v1/api-keys while test pings hang on an endpoint that never
# answers, against the same GET with nothing hanging, in the same run: `keyhook serve` with
# the default --threads and 80 hanging pings, then with --threads 4 and 8 (4 per user, the
# per-user bound). Everything is on 127.0.0.1; the endpoint is a Python socket that accepts
# and never answers. Needs python3 (no packages); installs nothing.
#
#   bench/pings.sh                 # REQUESTS=50 GETs per figure, DELIVERY_TIMEOUT=2m
#   BIN=/path/to/keyhook bench/pings.sh    # measure another build (an older one, say)
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${REQUESTS:-50}
DELIVERY_TIMEOUT=${DELIVERY_TIMEOUT:-2m}

if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/keyhook
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$BIN" "$work" "$REQUESTS" "$DELIVERY_TIMEOUT" <<'PY'
import http.client, json, socket, statistics, subprocess, sys, threading, time

BIN, WORK, REQUESTS, TIMEOUT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
PER_USER = 4  # the per-user bound on test pings running at once

# The silent endpoint: accepts every connection, reads nothing, never answers.
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1024)
held, held_lock = [], threading.Lock()
def accept():
    while True:
        c, _ = listener.accept()
        with held_lock:
            held.append(c)
threading.Thread(target=accept, daemon=True).start()
silent = f"http://127.0.0.1:{listener.getsockname()[1]}/hook"

def kh(db, *args):
    return subprocess.run([BIN, "--db", db, *args], check=True, capture_output=True,
                          text=True).stdout.strip()

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def get_ms(conn, key):
    t = time.perf_counter()
    conn.request("GET", "/api/v1/api-keys", headers={"Authorization": f"Bearer {key}"})
    r = conn.getresponse(); r.read()
    assert r.status == 200, r.status
    return (time.perf_counter() - t) * 1000

def scenario(threads, pings):
    db = f"{WORK}/t{threads or 'default'}.db"
    pingers = []
    for u in range(-(-pings // PER_USER)):
        user = f"pinger-{u}"
        key = kh(db, "--user", user, "keys", "create", "--name", "p", "--quiet")
        hook = json.loads(kh(db, "--json", "--allow-private-targets", "--user", user, "webhooks",
                             "create", "--url", silent, "--event", "post.published"))
        pingers.append((key, hook["data"]["id"]))
    reader = kh(db, "--user", "reader", "keys", "create", "--name", "r", "--quiet")
    port = free_port()
    args = [BIN, "--db", db, "--allow-private-targets", "--delivery-timeout", TIMEOUT, "serve",
            "--bind", f"127.0.0.1:{port}"] + (["--threads", str(threads)] if threads else [])
    log = open(f"{WORK}/serve-{threads}.log", "w+")
    server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log)
    try:
        for _ in range(100):
            log.seek(0)
            if "listening" in log.read():
                break
            time.sleep(0.05)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        for _ in range(5):
            get_ms(conn, reader)
        base = [get_ms(conn, reader) for _ in range(REQUESTS)]

        statuses, done = [], threading.Event()
        def ping(key, hook):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            c.request("POST", f"/api/v1/webhooks/{hook}/test",
                      headers={"Authorization": f"Bearer {key}"})
            r = c.getresponse(); r.read()
            statuses.append(r.status)
        with held_lock:
            before = len(held)
        workers = [threading.Thread(target=ping, args=pingers[i // PER_USER])
                   for i in range(pings)]
        for w in workers:
            w.start()
        deadline = time.time() + 5  # all at once, unless the server holds them back
        while time.time() < deadline:
            with held_lock:
                hanging = len(held) - before
            if hanging >= pings:
                break
            time.sleep(0.01)
        loaded = [get_ms(conn, reader) for _ in range(REQUESTS)]
        still = pings - len(statuses)
        with held_lock:
            for c in held:
                c.close()
            held.clear()
        for w in workers:
            w.join()
    finally:
        server.terminate()
        server.wait()
    label = f"threads {threads or 'default (64)'}, {pings} pings"
    print(f"== {label}: {hanging} hanging at the endpoint, {still} still waiting after the "
          f"GETs; ping statuses {sorted(set(statuses))}")
    for name, xs in (("no pings (baseline)", base), (f"{pings} pings hanging", loaded)):
        print(f"  {name:24} median {statistics.median(xs):7.2f} ms   max {max(xs):7.2f} ms")
    ratio = statistics.median(loaded) / statistics.median(base)
    print(f"  ratio of medians {ratio:.2f}; max while hanging {max(loaded):.2f} ms "
          f"(target < 50 ms)")

scenario(None, 80)
scenario(4, 8)
PY
