// Drives one flow of keyhook's API with the types openapi-typescript generated from the
// document a real `serve` answers with (.ci/typescript-client.sh), through openapi-fetch.
// `tsc --strict` checks it before it runs: a free-form field of the document (event `data`, an
// event type's `schema` and `example`, an audit entry's `details`) typed as an object that can
// hold nothing (`Record<string, never>`, what a bare `{"type": "object"}` gives) fails the
// compilation at the literals below.
//
//     node typescript-client.js BASE_URL KEY
//
// BASE_URL ends with /api/v1; KEY is a readwrite key with full access. The catalog has the
// type `article.published` with the schema and example of .ci/typescript-client.sh. Prints one
// line per step; any answer other than the documented one throws (exit status 1).

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual } from "node:util";
import createClient from "openapi-fetch";
import type { components, paths } from "./keyhook.js";

type EmitEvent = components["schemas"]["EmitEvent"];
type EventType = components["schemas"]["EventType"];
type AuditEntry = components["schemas"]["AuditEntry"];

const [base, adminKey] = process.argv.slice(2);
if (base === undefined || adminKey === undefined) {
    throw new Error("usage: node typescript-client.js BASE_URL KEY");
}

function check(ok: boolean, what: string, got?: unknown): asserts ok {
    if (!ok) {
        throw new Error(`typescript-client: ${what}${got === undefined ? "" : `: ${JSON.stringify(got)}`}`);
    }
}

// What .ci/typescript-client.sh put in the catalog, typed as the document says: the literals
// only compile if these fields take any field.
const catalogSchema: NonNullable<EventType["schema"]> = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    required: ["title", "words"],
    properties: {
        title: { type: "string" },
        words: { type: "integer", minimum: 0 },
        tags: { type: "array", items: { type: "string" } },
        draft: { type: "boolean" },
        author: { type: "object", properties: { id: { type: "string" } } },
    },
};
const catalogExample: NonNullable<EventType["example"]> = { title: "Hello", words: 2, tags: ["news"] };

// A receiver on loopback for the webhook.
const received: unknown[] = [];
const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        res.writeHead(204).end();
    });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

try {
    const admin = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${adminKey}` } });

    // 1. A key, made over HTTP; the rest of the flow uses it.
    const made = await admin.POST("/api-keys", { body: { name: "typescript client", permission: "readwrite" } });
    check(made.response.status === 201 && made.data !== undefined, "POST /api-keys", made.error);
    const created = made.data.data;
    check(/^kp_[0-9a-f]{64}$/.test(created.key), "a key of keyhook's shape");
    check(created.name === "typescript client" && created.permission === "readwrite", "the key as asked", created.name);
    console.log(`created key ${created.keyPrefix}…`);
    const client = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${created.key}` } });

    // 2. The catalog: the schema and the example, read as the objects they are.
    const types = await client.GET("/event-types");
    check(types.response.status === 200 && types.data !== undefined, "GET /event-types", types.error);
    const article = types.data.data.find((t) => t.name === "article.published");
    check(article !== undefined, "article.published in the catalog");
    const schema = article.schema;
    check(typeof schema === "object" && schema !== null, "a schema object", schema);
    check(isDeepStrictEqual(schema, catalogSchema), "the schema as added", schema);
    const properties = schema["properties"];
    check(typeof properties === "object" && properties !== null, "schema.properties", properties);
    const example = article.example;
    check(example !== null && isDeepStrictEqual(example, catalogExample), "the example as added", example);
    check(example["title"] === "Hello", "example.title", example["title"]);
    console.log(`event type ${article.name}: schema fields ${Object.keys(properties).join(", ")}; example title ${String(example["title"])}`);

    // 3. A webhook to the receiver.
    const hook = await client.POST("/webhooks", { body: { url: hookUrl, events: ["article.published"] } });
    check(hook.response.status === 201 && hook.data !== undefined, "POST /webhooks", hook.error);

    // 4. An event with data of several fields.
    const data: NonNullable<EmitEvent["data"]> = {
        title: "Typed from TypeScript",
        words: 1200,
        tags: ["typescript", "openapi"],
        draft: false,
        author: { id: "u_1" },
    };
    const body: EmitEvent = { event: "article.published", data };
    const emitted = await client.POST("/events", { body });
    check(emitted.response.status === 202 && emitted.data !== undefined, "POST /events", emitted.error);
    check(emitted.data.data.deliveries === 1, "one delivery", emitted.data.data);
    console.log(`emitted ${emitted.data.data.id} with data fields ${Object.keys(data).join(", ")}`);
    // The server reads the data: without a required field the schema refuses it.
    const refused = await client.POST("/events", { body: { event: "article.published", data: { title: "no words" } } });
    check(refused.response.status === 400 && refused.error !== undefined, "data without `words` refused", refused.data);
    check(refused.error.error.code === "VALIDATION_ERROR", "VALIDATION_ERROR", refused.error);
    check(refused.error.error.details.some((d) => d.field.startsWith("data")), "a detail on data", refused.error);
    console.log(`refused data without words: ${refused.error.error.details.map((d) => d.field).join(", ")}`);

    // 5. The receiver gets the data as sent (the worker delivers within its first pass).
    const deadline = Date.now() + 20_000;
    while (received.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
    check(received.length === 1, "one delivery received", received.length);
    const payload = received[0] as { id?: unknown; event?: unknown; data?: unknown };
    check(payload.id === emitted.data.data.id && payload.event === "article.published", "the event delivered", payload.id);
    check(isDeepStrictEqual(payload.data, data), "the data delivered as sent", payload.data);
    console.log(`delivered ${String(payload.id)} with the same data`);

    // 6. The audit log: the key's creation, with its details.
    const audit = await client.GET("/audit", { params: { query: { limit: 100 } } });
    check(audit.response.status === 200 && audit.data !== undefined, "GET /audit", audit.error);
    const entry: AuditEntry | undefined = audit.data.data.find((e) => e.action === "key.created" && e.target === created.id);
    check(entry !== undefined, "a key.created entry for the key");
    const want: AuditEntry["details"] = { name: "typescript client", keyPrefix: created.keyPrefix, permission: "readwrite" };
    for (const [field, value] of Object.entries(want)) {
        check(isDeepStrictEqual(entry.details[field], value), `details.${field}`, entry.details[field]);
    }
    check(!JSON.stringify(entry.details).includes(created.key), "no key in the details");
    console.log(`audit ${entry.action} by ${entry.actor} via ${entry.via}: details ${Object.keys(entry.details).sort().join(", ")}`);

    const gone = await client.DELETE("/webhooks/{id}", { params: { path: { id: hook.data.data.id } } });
    check(gone.response.status === 204, "DELETE /webhooks/{id}", gone.error);
} finally {
    receiver.close();
}
