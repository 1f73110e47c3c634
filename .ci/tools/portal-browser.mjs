// The developer portal in a real browser (.ci/portal-browser.sh runs this; CONTRACT §14).
//
// One `keyhook serve` (a scratch database: SQLite, or the PostgreSQL database PORTAL_DB names;
// --portal-allow-private-targets so that the portal may point a webhook at the loopback
// receiver), a second one on the same database for the flow across instances, one loopback webhook receiver (node's
// http server on 127.0.0.1), one headless Chromium. Every flow drives the pages as a person
// would, by the visible names §14 pins (headings `API keys`, `Webhooks`, `Deliveries`,
// `Event types`; buttons `Create key`, `Revoke`, `Create webhook`, `Save`, `Send test`,
// `Replay`, `Rotate secret`), and on every page it visits it checks:
//   - axe-core: no serious or critical violation;
//   - nothing a stored string could run ran: no dialog, no `window.__pwned`, no inline script
//     or event-handler attribute in the DOM, no Content-Security-Policy violation, no uncaught
//     page error.
// The stored-XSS flow puts script payloads in every user string the portal shows (under a
// user of its own) and visits every page twice: with the page's CSP, and with CSP bypassed,
// so that escaping is proven on its own and not only by the policy.
//
// Environment (set by .ci/portal-browser.sh): PORTAL_NODE_MODULES (playwright-core and
// axe-core), PORTAL_CHROMIUM, PORTAL_KEYHOOK (the binary), PORTAL_WORK (a scratch directory),
// PORTAL_SHOTS (where the screenshots go); PORTAL_DB, a PostgreSQL URL to run on instead of a
// SQLite file in PORTAL_WORK (given to keyhook as KEYHOOK_DB, never in argv).
//
// It prints one line per flow and ends with `portal-browser: N flows passed, N failed`; exit 1
// when any flow failed.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";

const env = process.env;
for (const v of ["PORTAL_NODE_MODULES", "PORTAL_CHROMIUM", "PORTAL_KEYHOOK", "PORTAL_WORK", "PORTAL_SHOTS"]) {
    if (!env[v]) throw new Error(`${v} is not set (run .ci/portal-browser.sh)`);
}
const require = createRequire(env.PORTAL_NODE_MODULES + "/");
const { chromium } = require("playwright-core");
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const started = Date.now();
const WORK = env.PORTAL_WORK;
const DB = env.PORTAL_DB || path.join(WORK, "keyhook.db");
const BACKEND = env.PORTAL_DB ? "PostgreSQL" : "SQLite";
// Every keyhook this starts (the CLI, the servers) finds its database here.
process.env.KEYHOOK_DB = DB;
const SHOTS = env.PORTAL_SHOTS;
fs.mkdirSync(SHOTS, { recursive: true });

// ---------------------------------------------------------------------------------------
// Bookkeeping.

let passed = 0;
const failed = [];
async function flow(name, body) {
    // PORTAL_ONLY=REGEX runs only the flows it matches (while working on one; CI runs all).
    if (env.PORTAL_ONLY && !new RegExp(env.PORTAL_ONLY).test(name)) return;
    const t0 = Date.now();
    try {
        await body();
        passed++;
        console.log(`  ok   ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
        failed.push(name);
        console.log(`  FAIL ${name} (${Date.now() - t0} ms)\n${indent(e.stack || String(e))}`);
    }
}
function indent(s) {
    return s.split("\n").map((l) => `       ${l}`).join("\n");
}
function check(ok, what) {
    if (!ok) throw new Error(what);
}
function eq(got, want, what) {
    if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}
// Polls `look` (async, truthy when done) every 50 ms for up to `ms`.
async function until(what, look, ms = 10_000) {
    const end = Date.now() + ms;
    for (;;) {
        const v = await look();
        if (v) return v;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
    }
}

// ---------------------------------------------------------------------------------------
// keyhook: the CLI on the scratch database, and the servers.

function cli(args, opts = {}) {
    const out = execFileSync(env.PORTAL_KEYHOOK, args, {
        encoding: "utf8",
        env: { ...process.env, ...opts.env },
        input: opts.input,
        stdio: ["pipe", "pipe", "pipe"],
    });
    return args.includes("--json") ? JSON.parse(out) : out;
}
function cliAs(user, args, opts) {
    return cli(["--user", user, ...args], opts);
}

async function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.on("error", reject);
        s.listen(0, "127.0.0.1", () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
    });
}

const servers = [];
// Starts a `keyhook serve` on the scratch database, logging to WORK/NAME.log; its base URL.
async function startServer(name = "serve") {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const logPath = path.join(WORK, `${name}.log`);
    const log = fs.openSync(logPath, "w");
    const server = spawn(
        env.PORTAL_KEYHOOK,
        ["--allow-private-targets", "serve", "--bind", `127.0.0.1:${port}`,
            "--public-url", base, "--portal-allow-private-targets", "--retry-schedule="],
        { stdio: ["ignore", "ignore", log] },
    );
    servers.push(server);
    server.on("exit", (code, sig) => {
        if (!shuttingDown) console.log(`keyhook serve (${name}) exited (${code ?? sig}):\n${fs.readFileSync(logPath, "utf8")}`);
    });
    await until(`keyhook serve (${name}) to listen`, () => {
        if (server.exitCode !== null) throw new Error(`keyhook serve (${name}) exited before it listened`);
        return fs.readFileSync(logPath, "utf8").includes("listening");
    }, 20_000);
    return base;
}
let shuttingDown = false;

// /api/v1 with a bearer key.
async function api(base, key, method, p, body) {
    const res = await fetch(`${base}/api/v1${p}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json = null;
    try {
        json = text ? JSON.parse(text) : null;
    } catch {
        // left null: the caller looks at the status
    }
    return { status: res.status, json, text };
}

// A portal link for `user` (the CLI, as an operator mints one): {id, url, ...}.
function link(user, extra = []) {
    const v = cliAs(user, ["--json", "portal", "link", ...extra]);
    check(v.data && v.data.url && v.data.id, `portal link: ${JSON.stringify(v)}`);
    return v.data;
}

// ---------------------------------------------------------------------------------------
// The webhook receiver: a real HTTP server on 127.0.0.1. `/ok/...` answers 200, `/switch/...`
// the status set in `receiver.status` (500 at first); both answer a body holding the XSS
// payloads, since the portal shows response excerpts.

const receiver = {
    requests: [],
    status: 500,
    body: "received",
    server: null,
    base: null,
};
async function startReceiver() {
    receiver.server = http.createServer((req, res) => {
        const chunks = [];
        req.on("data", (c) => chunks.push(c));
        req.on("end", () => {
            const body = Buffer.concat(chunks).toString("utf8");
            receiver.requests.push({ method: req.method, url: req.url, headers: req.headers, body });
            const status = req.url.startsWith("/switch") ? receiver.status : req.url.startsWith("/ok") ? 200 : 404;
            res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
            res.end(receiver.body);
        });
    });
    await new Promise((r) => receiver.server.listen(0, "127.0.0.1", r));
    receiver.base = `http://127.0.0.1:${receiver.server.address().port}`;
}
function received(pred) {
    return receiver.requests.filter((r) => {
        try {
            return pred(r, JSON.parse(r.body));
        } catch {
            return false;
        }
    });
}

// ---------------------------------------------------------------------------------------
// The browser, and what every page visit checks.

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"];

// Installed in every page before its own scripts: records CSP violations and dialogs; the
// XSS payloads set window.__pwned.
const WATCH = () => {
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) => {
        window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber}) ${e.sample}`);
    });
};

const visited = new Map(); // page name -> url, for the screenshots and the axe summary
const axeSeen = []; // {page, id, impact, nodes}

async function newContext(browser, opts = {}) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...opts });
    ctx.setDefaultTimeout(20_000);
    await ctx.addInitScript(WATCH);
    ctx.__problems = [];
    // Without JavaScript, page.evaluate cannot run either: such a page is read through
    // Playwright's own selectors only (and nothing stored can run in it anyway).
    ctx.__noJs = opts.javaScriptEnabled === false;
    ctx.on("page", (p) => watchPage(ctx, p));
    return ctx;
}
function watchPage(ctx, page) {
    page.on("dialog", (d) => {
        ctx.__problems.push(`a dialog opened: ${d.type()} ${JSON.stringify(d.message())}`);
        d.dismiss().catch(() => {});
    });
    page.on("pageerror", (e) => ctx.__problems.push(`uncaught error in the page: ${e.message}`));
    page.on("console", (m) => {
        if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) {
            ctx.__problems.push(`console: ${m.text()}`);
        }
    });
}

// After a page has loaded: nothing ran that should not have, and axe is content.
async function inspect(page, name, { axe = true } = {}) {
    const ctx = page.context();
    await page.waitForLoadState("load");
    if (ctx.__noJs) {
        eq(await page.locator("script:not([src])").count(), 0, `inline script on ${name}`);
        return;
    }
    // Images (an `<img src=x onerror=...>` that escaped) have settled, so their handlers ran.
    await page.waitForFunction(() => [...document.images].every((i) => i.complete), null, { timeout: 5000 });
    const found = await page.evaluate(() => ({
        pwned: window.__pwned ?? null,
        csp: window.__csp || [],
        inline: [...document.querySelectorAll("script:not([src])")].map((s) => s.outerHTML.slice(0, 120)),
        handlers: [...document.querySelectorAll("*")]
            .filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name)))
            .map((el) => el.outerHTML.slice(0, 120)),
        jsUrls: [...document.querySelectorAll("[href],[src],[action],[formaction]")]
            .filter((el) => ["href", "src", "action", "formaction"].some((a) => /^\s*javascript:/i.test(el.getAttribute(a) || "")))
            .map((el) => el.outerHTML.slice(0, 120)),
    }));
    const problems = [...ctx.__problems.splice(0)];
    if (found.pwned !== null) problems.push(`window.__pwned = ${JSON.stringify(found.pwned)}: a stored payload ran`);
    for (const c of found.csp) problems.push(`CSP violation: ${c}`);
    for (const s of found.inline) problems.push(`inline script in the DOM: ${s}`);
    for (const h of found.handlers) problems.push(`event-handler attribute in the DOM: ${h}`);
    for (const j of found.jsUrls) problems.push(`javascript: URL in the DOM: ${j}`);
    if (problems.length) throw new Error(`${name} (${page.url()}):\n  ${problems.join("\n  ")}`);
    if (axe) await runAxe(page, name);
}

async function runAxe(page, name) {
    // page.evaluate runs over the DevTools protocol, which the page's CSP does not govern.
    if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(axeSource);
    const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    const bad = [];
    for (const v of r.violations) {
        axeSeen.push({ page: name, id: v.id, impact: v.impact, nodes: v.nodes.length });
        if (v.impact === "serious" || v.impact === "critical") {
            bad.push(`${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.slice(0, 3).map((n) => n.target.join(" ") + " " + n.html.slice(0, 100)).join("\n    ")}`);
        }
    }
    if (bad.length) throw new Error(`axe on ${name} (${page.url()}):\n  ${bad.join("\n  ")}`);
}

// Visit a URL and inspect the page.
async function visit(page, url, name, opts) {
    const res = await page.goto(url);
    await inspect(page, name, opts);
    return res;
}

// Screenshots of a page at the desktop and the phone size: docs/img/portal-<name>.png and
// portal-<name>-phone.png.
async function shoot(page, name) {
    await page.screenshot({ path: path.join(SHOTS, `portal-${name}.png`), fullPage: true });
}

// ---------------------------------------------------------------------------------------
// Page helpers: by visible names only.

const BUTTONS = ["Create key", "Revoke", "Create webhook", "Save", "Send test", "Replay", "Rotate secret"];
const heading = (page, name) => page.getByRole("heading", { name, exact: true });
const button = (page, name) => page.getByRole("button", { name, exact: true });
// A button whose visible text is `name`, its accessible name perhaps naming what it acts on
// ("Revoke billing-sync").
const startsButton = (page, name) => page.getByRole("button", { name: new RegExp(`^${name}\\b`) });
// An event's checkbox in a webhook form (its label is the name, then the description).
const eventBox = (page, name) => page.getByRole("checkbox", { name: new RegExp(`^${name.replace(/\./g, "\\.")}\\b`) });
// A link or button (a "Create webhook" may be either).
const control = (page, name) => page.getByRole("link", { name, exact: true }).or(startsButton(page, name));
// The portal's navigation: the link named `name`, in a nav landmark when there is one.
async function go(page, name) {
    const inNav = page.getByRole("navigation").getByRole("link", { name, exact: true });
    const target = (await inNav.count()) ? inNav.first() : page.getByRole("link", { name, exact: true }).first();
    await Promise.all([page.waitForLoadState("load"), target.click()]);
    await heading(page, name).first().waitFor();
    await inspect(page, name);
}
// Clicks a button that submits a form (a full page load follows, or a script updates the page)
// and inspects what comes of it; a confirmation step asking for the same button again (a page
// or a <dialog> of the portal's own) is confirmed.
async function press(page, locator, name) {
    await locator.click();
    await page.waitForLoadState("load");
    const again = button(page, name).filter({ visible: true });
    const confirm = page.getByRole("dialog").getByRole("button", { name, exact: true })
        .or(page.getByRole("button", { name: new RegExp(`^(confirm|yes)`, "i") }));
    if (await confirm.count()) {
        await confirm.first().click();
        await page.waitForLoadState("load");
    } else if (/confirm/i.test(page.url()) && (await again.count()) === 1) {
        await again.click();
        await page.waitForLoadState("load");
    }
    await inspect(page, `after ${name}`);
}
// The portal's pages reachable from `page` by following its same-origin /portal links (GET
// only; a link that ends the session is left alone): [{url, title}], at most 80.
async function crawl(page) {
    const origin = new URL(page.url()).origin;
    const seen = new Map();
    const queue = [new URL("/portal/keys", page.url()).href];
    while (queue.length && seen.size < 80) {
        const url = queue.shift();
        if (seen.has(url)) continue;
        const res = await page.goto(url);
        checkHeaders(res);
        seen.set(url, { url, status: res ? res.status() : 0, title: await page.title() });
        const links = await page.evaluate(() => [...document.querySelectorAll("a[href]")].map((a) => ({ href: a.href, text: a.textContent.trim() })));
        for (const l of links) {
            const u = new URL(l.href);
            u.hash = "";
            if (u.origin !== origin || !u.pathname.startsWith("/portal")) continue;
            if (/sign out|log out|logout|end session/i.test(l.text) || /logout|signout/.test(u.pathname)) continue;
            if (!seen.has(u.href)) queue.push(u.href);
        }
    }
    return [...seen.values()];
}
// §14's headers on a portal page as the browser got it.
function checkHeaders(res) {
    check(res, "no response");
    const h = res.headers();
    const where = `${res.url()} (${res.status()})`;
    const csp = h["content-security-policy"] || "";
    check(csp, `no Content-Security-Policy on ${where}`);
    check(!/unsafe-inline|unsafe-eval/.test(csp), `CSP on ${where} allows unsafe-inline or unsafe-eval: ${csp}`);
    check(/frame-ancestors 'none'/.test(csp), `CSP on ${where} has no frame-ancestors 'none': ${csp}`);
    eq(h["x-content-type-options"], "nosniff", `X-Content-Type-Options on ${where}`);
    eq(h["referrer-policy"], "no-referrer", `Referrer-Policy on ${where}`);
    check(/no-store/.test(h["cache-control"] || ""), `Cache-Control on ${where}: ${h["cache-control"]}`);
}

// The key a page shows once.
async function shownKey(page) {
    const text = await page.locator("body").innerText();
    const m = text.match(/kp_[0-9a-f]{64}/);
    return m && m[0];
}
async function shownSecret(page) {
    const text = await page.locator("body").innerText();
    const m = text.match(/whsec_[A-Za-z0-9+/=]{40,}/);
    return m && m[0];
}
// Opens a link in a page: the fragment exchange; waits for the portal's first page.
async function open(page, url) {
    await page.goto(url);
    await until("the fragment exchange to land on a portal page", async () =>
        !page.url().includes("#") && (await page.getByRole("link", { name: "Webhooks", exact: true }).count()) > 0);
    await inspect(page, "the first page");
}

// ---------------------------------------------------------------------------------------
// The flows.

async function flows(base, browser) {
    // The operator's side: a readwrite key for user acme (the one that would mint links over
    // /api/v1 and emits events), and one for user mallory (the stored-XSS user).
    const acmeKey = cliAs("acme", ["--json", "keys", "create", "--name", "acme-backend"]).data.key;
    const mallKey = cliAs("mallory", ["--json", "keys", "create", "--name", "mallory-backend"]).data.key;
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    let acme; // the link of the main session
    let keyPage, hookUrl;

    await flow("a link is minted over /api/v1 (POST /portal-links) and by the CLI", async () => {
        const r = await api(base, acmeKey, "POST", "/portal-links", {});
        eq(r.status, 201, `POST /portal-links: ${r.text}`);
        check(r.json.data.url.startsWith(`${base}/portal#`), `url ${r.json.data.url}`);
        acme = r.json.data;
    });

    await flow("the checks catch what was not escaped (a canary page with the payloads as markup)", async () => {
        // The checks themselves, proven: a page served under the portal's origin and with its
        // Content-Security-Policy (answered by the browser's own routing, never sent), holding
        // the payloads unescaped, must fail the inspection: by the policy's violations, and
        // with the policy bypassed by the payloads that ran.
        const csp = (await fetch(`${base}/portal`)).headers.get("content-security-policy");
        check(csp, "the portal sends no Content-Security-Policy");
        for (const bypassCSP of [false, true]) {
            const c = await newContext(browser, { bypassCSP });
            const p = await c.newPage();
            await p.route(`${base}/portal/canary`, (r) => r.fulfill({
                status: 200, contentType: "text/html; charset=utf-8", headers: { "content-security-policy": csp },
                body: `<!doctype html><html lang="en"><title>canary</title><main><p>${PAYLOADS.join("")}</p></main></html>`,
            }));
            await p.goto(`${base}/portal/canary`);
            let caught = "";
            try {
                await inspect(p, "canary", { axe: false });
            } catch (e) {
                caught = e.message;
            }
            check(caught, `the inspection passed a page with unescaped payloads (bypassCSP ${bypassCSP})`);
            if (bypassCSP) check(/window\.__pwned = /.test(caught), `with CSP bypassed the payloads did not run: ${caught}`);
            else check(/CSP violation/.test(caught), `with the portal's CSP no violation was seen: ${caught}`);
            await c.close();
        }
    });

    await flow("opening the link exchanges the fragment for an HttpOnly SameSite=Strict cookie", async () => {
        await open(page, acme.url);
        const cookies = await ctx.cookies();
        check(cookies.length > 0, "no cookie after the exchange");
        for (const c of cookies) {
            check(c.httpOnly, `cookie ${c.name} is not HttpOnly`);
            eq(c.sameSite, "Strict", `SameSite of ${c.name}`);
            check(!c.value.includes(acme.url.split("#")[1]), "the cookie holds the link's token");
        }
        // The link is single-use: a second browser opening it is told so, and what to do.
        const other = await newContext(browser);
        const p2 = await other.newPage();
        await p2.goto(acme.url);
        await until("the used-link page", async () => /used|no longer|expired|invalid/i.test(await p2.locator("body").innerText()));
        eq(await p2.getByRole("link", { name: "Webhooks", exact: true }).count(), 0, "a used link still opens the portal");
        await inspect(p2, "used link");
        await shoot(p2, "used-link");
        await other.close();
    });

    await flow("API keys: create a key (shown once), use it against /api/v1, revoke it", async () => {
        await go(page, "API keys");
        await page.getByLabel(/name/i).first().fill("portal-made key");
        await press(page, button(page, "Create key"), "Create key");
        const key = await until("the new key on the page", () => shownKey(page));
        keyPage = page.url();
        await shoot(page, "key-created");
        const r = await api(base, key, "GET", "/webhooks");
        eq(r.status, 200, `GET /api/v1/webhooks with the portal's key: ${r.text}`);
        await go(page, "API keys");
        check(!(await shownKey(page)), "the key is shown again on a later page");
        const row = page.getByRole("row").filter({ hasText: "portal-made key" });
        await until("the key in the list", async () => (await row.count()) === 1);
        await press(page, startsButton(row, "Revoke"), "Revoke");
        const after = await api(base, key, "GET", "/webhooks");
        eq(after.status, 401, "the revoked key still works");
        eq(await page.getByRole("row").filter({ hasText: "portal-made key" }).count(), 0, "the revoked key is still listed");
        // One to stay, for the screenshot.
        await page.getByLabel(/name/i).first().fill("billing-sync");
        await press(page, button(page, "Create key"), "Create key");
    });

    await flow("Webhooks: create one (events from the catalog), Send test reaches the receiver", async () => {
        await go(page, "Webhooks");
        await shootEmpty(page);
        await page.getByLabel(/url/i).first().fill(`${receiver.base}/ok/portal`);
        await eventBox(page, "article.published").check();
        await press(page, button(page, "Create webhook"), "Create webhook");
        await until("the signing secret, shown once", () => shownSecret(page));
        hookUrl = await openWebhook(page, `${receiver.base}/ok/portal`);
        const before = receiver.requests.length;
        await press(page, button(page, "Send test"), "Send test");
        const ping = await until("the test ping at the receiver", () => received((r, b) => r.url === "/ok/portal" && b.event === "webhook.test")[0]);
        check(receiver.requests.length > before, "nothing arrived");
        check(/^v1,/.test(ping.headers["webhook-signature"]), `signature ${ping.headers["webhook-signature"]}`);
        await until("the test's result on the page", async () => /200|delivered|success/i.test(await page.locator("body").innerText()));
    });

    await flow("Edit: a filter tried on the event type's example before Save, Disable and Enable", async () => {
        await page.goto(hookUrl);
        const edit = page.locator("section").filter({ has: heading(page, "Edit") });
        await edit.getByLabel(/filter/i).fill("data.words > 1");
        await edit.getByLabel(/try on the example/i).selectOption("article.published");
        await edit.getByRole("button", { name: "Try filter" }).click();
        await until("the trial's verdict", async () => /lets .*article\.published.* through/s.test(await edit.innerText()));
        await edit.getByLabel(/filter/i).fill("data.words > 5");
        await edit.getByRole("button", { name: "Try filter" }).click();
        await until("the trial's other verdict", async () => /holds .*back/s.test(await edit.innerText()));
        await edit.getByLabel(/filter/i).fill("data.words >= 1");
        await press(page, button(edit, "Save"), "Save");
        await until("the saved filter", async () => (await page.locator("body").innerText()).includes("data.words >= 1"));
        const api1 = await api(base, acmeKey, "GET", `/webhooks/${hookUrl.split("/").pop()}`);
        eq(api1.json?.data?.filter, "data.words >= 1", "the filter over /api/v1");
        await press(page, button(page, "Disable"), "Disable");
        await button(page, "Enable").waitFor();
        eq((await api(base, acmeKey, "GET", `/webhooks/${hookUrl.split("/").pop()}`)).json.data.isActive, false, "isActive after Disable");
        await press(page, button(page, "Enable"), "Enable");
        await button(page, "Disable").waitFor();
    });

    await flow("Rotate secret: the new secret is shown and the next ping carries both signatures", async () => {
        await page.goto(hookUrl);
        await press(page, button(page, "Rotate secret"), "Rotate secret");
        await until("the new secret on the page", () => shownSecret(page));
        await page.goto(hookUrl);
        const n = received((r, b) => r.url === "/ok/portal" && b.event === "webhook.test").length;
        await press(page, button(page, "Send test"), "Send test");
        const pings = await until("a second test ping", () => {
            const all = received((r, b) => r.url === "/ok/portal" && b.event === "webhook.test");
            return all.length > n && all;
        });
        const sig = pings[pings.length - 1].headers["webhook-signature"];
        eq(sig.split(" ").length, 2, `signatures during the grace period (${sig})`);
    });

    await flow("Deliveries: a failed delivery is shown with its status and replayed", async () => {
        await go(page, "Webhooks");
        await page.getByLabel(/url/i).first().fill(`${receiver.base}/switch/flaky`);
        await eventBox(page, "article.published").check();
        await press(page, button(page, "Create webhook"), "Create webhook");
        const flaky = await openWebhook(page, `${receiver.base}/switch/flaky`);
        receiver.status = 500;
        receiver.body = "upstream is down";
        const e = await api(base, acmeKey, "POST", "/events", { event: "article.published", data: { title: "Hello", words: 2 } });
        eq(e.status, 202, `POST /events: ${e.text}`);
        await until("the failed delivery at the receiver", () => received((r) => r.url === "/switch/flaky").length >= 1);
        await page.goto(flaky);
        await heading(page, "Deliveries").first().waitFor();
        await until("the failed attempt on the page", async () => {
            await page.reload();
            return /500/.test(await page.locator("body").innerText());
        });
        await inspect(page, "Deliveries");
        check(/upstream is down/.test(await page.locator("body").textContent()), "the response excerpt is not on the page");
        receiver.status = 200;
        receiver.body = "thanks";
        const n = received((r) => r.url === "/switch/flaky").length;
        await press(page, button(page, "Replay").first(), "Replay");
        const again = await until("the replayed delivery", () => {
            const all = received((r) => r.url === "/switch/flaky");
            return all.length > n && all;
        });
        eq(again[again.length - 1].headers["webhook-id"], again[0].headers["webhook-id"], "the replay keeps the event id");
        await until("the replayed attempt's 200 on the page", async () => {
            await page.reload();
            return /200/.test(await page.locator("body").innerText());
        });
    });

    await flow("Deliveries: a new attempt appears without a reload (JavaScript on)", async () => {
        await page.goto(hookUrl);
        await heading(page, "Deliveries").first().waitFor();
        const before = await page.locator("body").innerText();
        await page.evaluate(() => { window.__sameDocument = true; });
        const e = await api(base, acmeKey, "POST", "/events", { event: "article.published", data: { title: "Live", words: 1 } });
        eq(e.status, 202, `POST /events: ${e.text}`);
        const id = e.json.data.id;
        check(!before.includes(id), "the event is on the page before it was sent");
        await until("the new attempt on the page", async () => (await page.locator("body").innerText()).includes(id), 15_000);
        check(await page.evaluate(() => window.__sameDocument === true), "the page was reloaded");
    });

    await flow("Event types: the catalog with descriptions, schemas and examples", async () => {
        await go(page, "Event types");
        await until("article.published and its description", async () => {
            const t = await page.locator("body").innerText();
            return t.includes("article.published") && t.includes("An article went out");
        });
        await shoot(page, "event-types");
    });

    await flow("every portal page passes axe and runs nothing stored (acme's pages)", async () => {
        const pages = await crawl(page);
        check(pages.length >= 4, `only ${pages.length} pages found: ${pages.map((p) => p.url).join(" ")}`);
        for (const p of pages) {
            await page.goto(p.url);
            await inspect(page, p.title || p.url);
        }
        console.log(`       ${pages.length} pages: ${pages.map((p) => new URL(p.url).pathname).join(" ")}`);
    });

    await flow("screenshots: desktop and phone, and nothing wider than a phone", async () => {
        await page.goto(keyPage);
        await shootAll(page, "");
        const phone = await newContext(browser, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
        const pp = await phone.newPage();
        await open(pp, link("acme").url);
        await shootAll(pp, "-phone", true);
        await phone.close();
    });

    await flow("a read-only link shows everything and offers no control that changes anything", async () => {
        const ro = link("acme", ["--read-only"]);
        const c = await newContext(browser);
        const p = await c.newPage();
        await open(p, ro.url);
        const pages = await crawl(p);
        for (const q of pages) {
            await p.goto(q.url);
            await inspect(p, `read-only ${q.title}`);
            for (const name of BUTTONS) {
                eq(await control(p, name).count(), 0, `read-only ${q.url} offers "${name}"`);
            }
            const forms = await p.locator("form").evaluateAll((fs) => fs.filter((f) => f.method === "post").map((f) => f.action));
            const writes = forms.filter((a) => !/logout|sign-?out|session/.test(a));
            eq(writes.length, 0, `read-only ${q.url} has POST forms ${writes.join(" ")}`);
        }
        await go(p, "Webhooks");
        check((await p.locator("body").innerText()).includes(`${receiver.base}/ok/portal`), "read-only does not list the webhook");
        // A POST forged with the page's own CSRF token is refused too.
        await c.close();
    });

    await flow("without JavaScript: the paste-token form opens the link, pages read and forms work", async () => {
        const l = link("acme");
        const c = await newContext(browser, { javaScriptEnabled: false });
        const p = await c.newPage();
        await p.goto(l.url);
        await inspect(p, "no-JS link page");
        await shoot(p, "paste-token");
        const token = l.url.split("#")[1];
        await p.getByLabel("Portal link").fill(token);
        await Promise.all([p.waitForLoadState("load"), button(p, "Open").click()]);
        await until("a portal page after the pasted token", async () => (await p.getByRole("link", { name: "Webhooks", exact: true }).count()) > 0);
        for (const name of ["API keys", "Webhooks", "Event types"]) await go(p, name);
        await go(p, "API keys");
        await p.getByLabel(/name/i).first().fill("made without javascript");
        await press(p, button(p, "Create key"), "Create key");
        const key = await shownKey(p);
        check(key, "no key shown after Create key without JavaScript");
        eq((await api(base, key, "GET", "/webhooks")).status, 200, "the key made without JavaScript");
        // Sign out (a form too): the session is over, the next page load is refused.
        const keys = p.url();
        await Promise.all([p.waitForLoadState("load"), button(p, "Sign out").click()]);
        await heading(p, "Signed out").waitFor();
        const res = await p.goto(keys);
        eq(res.status(), 401, `${keys} after Sign out`);
        eq(await heading(p, "API keys").count(), 0, "API keys after Sign out");
        await c.close();
    });

    await flow("revoking the link ends its session: the next page load is refused", async () => {
        const r = await api(base, acmeKey, "DELETE", `/portal-links/${acme.id}`);
        eq(r.status, 204, `DELETE /portal-links/${acme.id}: ${r.text}`);
        const res = await page.goto(keyPage);
        check(res.status() >= 400 || (await page.getByRole("link", { name: "Webhooks", exact: true }).count()) === 0,
            `a revoked session still loads ${keyPage} (${res.status()})`);
        eq(await heading(page, "API keys").count(), 0, "a revoked session still shows API keys");
        await inspect(page, "revoked session");
        await shoot(page, "session-ended");
    });

    await flow("a session opened on one instance works and ends on another (one database)", async () => {
        // A second serve on the same database: the session lives in the database, not in
        // the process that opened it. Cookies are per host, not per port, so the browser
        // sends the cookie A set to B as it would to another instance behind one name.
        const other = await startServer("serve-b");
        const twinKey = cliAs("twin", ["--json", "keys", "create", "--name", "twin-backend"]).data.key;
        const r = await api(base, twinKey, "POST", "/portal-links", {});
        eq(r.status, 201, `POST /portal-links: ${r.text}`);
        const c = await newContext(browser);
        const p = await c.newPage();
        await open(p, r.json.data.url);
        check(p.url().startsWith(`${base}/portal/`), `opened on ${p.url()}, not on ${base}`);
        await p.goto(`${other}/portal/keys`);
        await heading(p, "API keys").first().waitFor();
        await inspect(p, "API keys on the other instance");
        // A form of B's page, with B's CSRF token for the same session: a key made there.
        await p.getByLabel(/name/i).first().fill("made-on-b");
        await press(p, button(p, "Create key"), "Create key");
        const key = await until("the key made on B", () => shownKey(p));
        check(p.url().startsWith(`${other}/`), `the key was made on ${p.url()}`);
        eq((await api(base, key, "GET", "/api-keys")).status, 200, "the key made on B, used on A");
        // The link revoked through A's API: B refuses the session at once.
        eq((await api(base, twinKey, "DELETE", `/portal-links/${r.json.data.id}`)).status, 204, "revoking on A");
        await p.goto(`${other}/portal/keys`);
        eq(await heading(p, "API keys").count(), 0, "B still shows API keys to a revoked session");
        await inspect(p, "revoked session on the other instance");
        await c.close();
    });

    await flow("the phone check catches a page wider than a phone (a canary with a long word)", async () => {
        // The check itself, proven: a page under the portal's origin holding one unbreakable
        // word, without the stylesheet that lets it break, must fail fitsPhone.
        const c = await newContext(browser, { viewport: { width: 390, height: 844 }, isMobile: true });
        const p = await c.newPage();
        await p.route(`${base}/portal/canary-wide`, (r) => r.fulfill({
            status: 200, contentType: "text/html; charset=utf-8",
            body: `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>canary</title></head><body><main><p>${"w".repeat(200)}</p></main></body></html>`,
        }));
        await p.goto(`${base}/portal/canary-wide`);
        let caught = "";
        try {
            await fitsPhone(p, "canary");
        } catch (e) {
            caught = e.message;
        }
        check(/scrolls sideways on a phone/.test(caught), `the phone check passed a page with a 200-character word: ${caught}`);
        await c.close();
    });

    await flow("long unbreakable strings in every user string: no page scrolls sideways on a phone", async () => {
        // Each string a user stores, at (or near) its longest and without a place to break:
        // the event type's name, description, schema and example; a key's name; a profile
        // id (the link's scope, a key's, a webhook's); a webhook's URL and filter; an event's
        // data; a receiver's response excerpt; and a refused form's echo and errors.
        const long = (c, n) => c.repeat(n);
        const profile = long("p", 100);
        const type = `long.${long("t", 59)}`;
        fs.writeFileSync(path.join(WORK, "long.schema.json"), JSON.stringify({
            type: "object", title: long("s", 300), description: long("d", 400),
            properties: { [long("k", 120)]: { type: "string", description: long("e", 400) } },
        }));
        fs.writeFileSync(path.join(WORK, "long.example.json"), JSON.stringify({ [long("k", 120)]: long("x", 600) }));
        cli(["event-types", "add", type, "--description", long("D", 500),
            "--schema", path.join(WORK, "long.schema.json"), "--example", path.join(WORK, "long.example.json")]);
        const key = cliAs("longo", ["--json", "keys", "create", "--name", long("n", 100)]).data.key;
        cliAs("longo", ["--json", "keys", "create", "--name", long("m", 100), "--profile", profile]);
        const url = `${receiver.base}/ok/${long("u", 1900)}`;
        const filter = `data.${long("k", 120)} != "${long("f", 1850)}"`;
        const r = await api(base, key, "POST", "/webhooks", { url, events: [type], filter, fullAccess: false, profileIds: [profile] });
        eq(r.status, 201, `a webhook with a long URL and filter: ${r.text}`);
        const bodyWas = receiver.body;
        receiver.body = long("r", 3000);
        try {
            const ev = await api(base, key, "POST", "/events", { event: type, profileId: profile, data: { [long("k", 120)]: long("v", 1000) } });
            eq(ev.status, 202, `an event with long data: ${ev.text}`);
            await until("the long event at the receiver", () => received((q) => q.url.startsWith("/ok/uuu")).length >= 1);
            const c = await newContext(browser, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
            const p = await c.newPage();
            await open(p, link("longo", ["--profile", profile]).url);
            // A test ping from the page (its response excerpt is the long body), every
            // delivery's details opened.
            await go(p, "Webhooks");
            await fitsPhone(p, "Webhooks (long strings)");
            await p.getByRole("link", { name: /\/ok\/uuu/ }).or(p.getByRole("row").filter({ hasText: "/ok/uuu" }).getByRole("link")).first().click();
            await p.waitForLoadState("load");
            const hook = p.url();
            await press(p, button(p, "Send test"), "Send test");
            for (const d of await p.locator("details").all()) await d.locator("summary").click();
            await fitsPhone(p, "a webhook with its details open (long strings)");
            // The first screen only: the whole page is many screens of broken words.
            await p.evaluate(() => window.scrollTo(0, 0));
            await p.screenshot({ path: path.join(SHOTS, "portal-webhook-long-strings-phone.png") });
            // The filter tried on the long example, on the webhook's own form.
            await p.locator("form.webhook-form").getByLabel(/try on the example/i).selectOption(type);
            await p.getByRole("button", { name: "Try filter" }).first().click();
            await p.waitForLoadState("load");
            for (const d of await p.locator("details").all()) await d.locator("summary").click();
            await fitsPhone(p, "a filter tried on the long example");
            // A refused form echoes what was sent, with the errors by their fields.
            await go(p, "Webhooks");
            const form = p.locator("form.webhook-form");
            await form.getByLabel(/endpoint url/i).fill(`https://${long("h", 300)}.example/${long("q", 1800)}`);
            await form.getByLabel(/filter/i).fill(`data.${long("z", 300)} == `);
            await press(p, form.getByRole("button", { name: "Create webhook" }), "Create webhook");
            await fitsPhone(p, "a refused webhook form (long strings)");
            // Every page the session reaches.
            const pages = await crawl(p);
            check(pages.some((q) => q.url === hook), `the crawl did not reach ${hook}`);
            for (const q of pages) {
                await p.goto(q.url);
                for (const d of await p.locator("details").all()) await d.locator("summary").click();
                await fitsPhone(p, `${q.title} ${new URL(q.url).pathname}`);
            }
            console.log(`       ${pages.length} pages fit a phone: ${pages.map((q) => new URL(q.url).pathname.slice(0, 40)).join(" ")}`);
            await c.close();
        } finally {
            receiver.body = bodyWas;
        }
    });

    await flow("stored XSS: payloads in every user string run nowhere (CSP on, and CSP bypassed)", async () => {
        // Keys, webhooks (URL and filter), events (payloads), response excerpts, the catalog
        // (its event types are everyone's: added only now, so that the screenshots above
        // do not show it).
        cli(["event-types", "add", "xss.stored", "--description", XSS,
            "--schema", path.join(WORK, "xss.schema.json"), "--example", path.join(WORK, "xss.example.json")]);
        eq((await api(base, mallKey, "POST", "/api-keys", { name: XSS.slice(0, 100) })).status, 201, "a key named with a payload");
        for (const pl of PAYLOADS) {
            const r = await api(base, mallKey, "POST", "/api-keys", { name: pl.slice(0, 100) });
            eq(r.status, 201, `key named ${pl}: ${r.text}`);
        }
        receiver.body = `<html><body>${XSS}</body></html>`;
        // Webhook URLs: `<` and `"` are refused by the API's URL check (so they never reach a
        // page); what a URI may hold as written is tried, and percent-encoded markup that a
        // careless page would decode.
        const urls = [`${receiver.base}/ok/x?q='onmouseover='window.__pwned=1'&r=(alert)(1);`,
            `${receiver.base}/ok/x?q=%3Cscript%3Ewindow.__pwned=%22pct%22%3C/script%3E%22%3E%3Cimg%20src=x%20onerror=window.__pwned=1%3E`];
        const filter = `data.title != "${PAYLOADS[0].replace(/"/g, '\\"')}x" && data.title != "\\"><img src=x onerror=alert(1)>"`;
        for (const url of urls) {
            const r = await api(base, mallKey, "POST", "/webhooks", { url, events: ["xss.stored", "article.published"], filter });
            eq(r.status, 201, `a webhook at ${url} with the filter ${filter}: ${r.text}`);
        }
        for (const p of PAYLOADS) {
            const r = await api(base, mallKey, "POST", "/events", { event: "xss.stored", data: { title: p, [p]: p } });
            eq(r.status, 202, `event with ${p}: ${r.text}`);
        }
        await until("the payload events at the receiver", () => received((r) => r.url.startsWith("/ok/x")).length >= 2 * PAYLOADS.length);
        for (const bypassCSP of [false, true]) {
            const c = await newContext(browser, { bypassCSP });
            const p = await c.newPage();
            await open(p, link("mallory").url);
            // One more through the portal's own form: typed as a person would.
            if (!bypassCSP) {
                await go(p, "API keys");
                await p.getByLabel(/name/i).first().fill(PAYLOADS[1]);
                await press(p, button(p, "Create key"), "Create key");
                await until("the payload key name shown as text", async () => (await p.getByText(PAYLOADS[1]).count()) > 0);
                await go(p, "Webhooks");
                // Filters tried in the form: one that runs, one that does not parse (its error
                // may quote it), on the example that holds the payloads.
                const form = p.locator("form.webhook-form");
                for (const f of [`data.title == "${PAYLOADS[0].replace(/"/g, '\\"')}"`, `data.title == <img src=x onerror=alert(1)> "${PAYLOADS[3].replace(/"/g, '\\"')}`]) {
                    await form.getByLabel(/filter/i).fill(f);
                    await form.getByLabel(/try on the example/i).selectOption("xss.stored");
                    const was = await p.locator("#filter-result").innerText();
                    await form.getByRole("button", { name: "Try filter" }).click();
                    const got = await until("the trial's result", async () => {
                        const t = await p.locator("#filter-result").innerText();
                        return t.trim() && t !== was && t;
                    });
                    console.log(`       trial of ${JSON.stringify(f)}: ${JSON.stringify(got.slice(0, 200))}`);
                    await inspect(p, "XSS filter trial");
                }
                // A test ping: its response excerpt is the receiver's payload page.
                await p.getByRole("link", { name: /\/ok\/x/ }).first().click();
                await p.waitForLoadState("load");
                await press(p, button(p, "Send test"), "Send test");
                for (const d of await p.locator("details").all()) await d.locator("summary").click();
                await inspect(p, "XSS webhook with excerpts open");
                check((await p.locator("body").innerText()).includes(PAYLOADS[0]), "the response excerpt's payload is not shown as text");
            }
            const pages = await crawl(p);
            for (const q of pages) {
                await p.goto(q.url);
                await inspect(p, `XSS${bypassCSP ? " (CSP bypassed)" : ""} ${q.title}`, { axe: !bypassCSP });
            }
            console.log(`       ${bypassCSP ? "CSP bypassed" : "with CSP"}: ${pages.length} pages clean`);
            await c.close();
        }
    });
    await ctx.close();
}

// The webhook whose URL is `url`: opens its page from the Webhooks list, returns its address.
async function openWebhook(page, url) {
    await go(page, "Webhooks");
    const row = page.getByRole("link", { name: url }).or(page.getByRole("row").filter({ hasText: url }).getByRole("link"));
    await Promise.all([page.waitForLoadState("load"), row.first().click()]);
    await inspect(page, `webhook ${url}`);
    return page.url();
}

// The empty state is shot once, when the list is empty.
async function shootEmpty(page) {
    if (!(await page.getByRole("row").count())) await shoot(page, "webhooks-empty");
}

// Every main page: keys, webhooks, one webhook with its deliveries, event types.
async function shootAll(page, suffix, phone = false) {
    for (const [name, file] of [["API keys", "keys"], ["Webhooks", "webhooks"], ["Event types", "event-types"]]) {
        await go(page, name);
        await shoot(page, file + suffix);
        if (phone) await fitsPhone(page, name);
    }
    await go(page, "Webhooks");
    await page.getByRole("link", { name: /\/switch\/flaky/ }).or(page.getByRole("row").filter({ hasText: "/switch/flaky" }).getByRole("link")).first().click();
    await page.waitForLoadState("load");
    await shoot(page, "webhook" + suffix);
    if (phone) await fitsPhone(page, "Webhook");
}

// The page does not scroll sideways on a phone (390 CSS pixels wide): a wide table may scroll
// inside its own box, the page may not. On failure, what reaches past the edge is named.
async function fitsPhone(page, name) {
    const got = await page.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        over: [...document.body.querySelectorAll("*")]
            .filter((el) => {
                const r = el.getBoundingClientRect();
                if (r.right <= 391) return false;
                // Inside a box that scrolls sideways and contains it (not an absolutely
                // positioned element escaping it), it is that box's business.
                for (let e = el.parentElement; e; e = e.parentElement) {
                    if (/(auto|scroll|hidden)/.test(getComputedStyle(e).overflowX) && e.getBoundingClientRect().right <= 391) {
                        return getComputedStyle(el).position === "absolute" && getComputedStyle(e).position === "static";
                    }
                }
                return true;
            })
            .map((el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.className ? "." + String(el.className).trim().split(/\s+/).join(".") : ""} (right edge ${Math.round(el.getBoundingClientRect().right)})`)
            .slice(0, 6),
    }));
    check(got.width <= 391, `${name} scrolls sideways on a phone (${got.width} > 390 px): ${got.over.join(", ")}`);
}

// ---------------------------------------------------------------------------------------
// The run.

const PAYLOADS = [
    `<script>window.__pwned="script"</script>`,
    `"><img src=x onerror="window.__pwned='img'">`,
    `'><svg onload="window.__pwned='svg'">`,
    `</textarea></title><script>window.__pwned="close"</script>`,
    `<a href="javascript:window.__pwned='href'">x</a>`,
    `<iframe srcdoc="<script>parent.__pwned='srcdoc'</script>"></iframe>`,
];
const XSS = PAYLOADS.join(" ");

let browser;
try {
    await startReceiver();
    // The catalog: an event type whose description, schema and example carry payloads.
    fs.writeFileSync(path.join(WORK, "xss.schema.json"), JSON.stringify({
        type: "object", title: XSS, description: XSS,
        properties: { title: { type: "string", description: XSS } },
    }));
    fs.writeFileSync(path.join(WORK, "xss.example.json"), JSON.stringify({ title: XSS }));
    fs.writeFileSync(path.join(WORK, "article.schema.json"), JSON.stringify({
        type: "object", required: ["title"], properties: { title: { type: "string" }, words: { type: "integer", minimum: 0 } },
    }));
    fs.writeFileSync(path.join(WORK, "article.example.json"), JSON.stringify({ title: "Hello, world", words: 2 }));
    cli(["event-types", "add", "article.published", "--description", "An article went out",
        "--schema", path.join(WORK, "article.schema.json"), "--example", path.join(WORK, "article.example.json")]);
    const base = await startServer();
    process.env.KEYHOOK_PUBLIC_URL = base; // for `portal link`
    browser = await chromium.launch({ executablePath: env.PORTAL_CHROMIUM, headless: true, args: FLAGS });
    console.log(`portal-browser: keyhook serve on ${base} (${BACKEND}), receiver on ${receiver.base}, Chromium ${browser.version()}`);
    await flows(base, browser);
} catch (e) {
    failed.push("setup");
    console.log(`  FAIL setup\n${indent(e.stack || String(e))}`);
} finally {
    shuttingDown = true;
    if (browser) await browser.close().catch(() => {});
    for (const server of servers) server.kill("SIGTERM");
    if (receiver.server) receiver.server.close();
}
const byImpact = {};
for (const v of axeSeen) byImpact[v.impact] = (byImpact[v.impact] || 0) + 1;
console.log(`portal-browser: axe-core findings by impact over every visit: ${JSON.stringify(byImpact)}` +
    (axeSeen.length ? `\n  ${[...new Set(axeSeen.map((v) => `${v.impact} ${v.id} (${v.page})`))].join("\n  ")}` : ""));
console.log(`portal-browser: on ${BACKEND}, ${passed} flows passed, ${failed.length} failed in ${((Date.now() - started) / 1000).toFixed(1)} s` +
    (failed.length ? `: ${failed.join(", ")}` : ""));
process.exit(failed.length ? 1 : 0);
