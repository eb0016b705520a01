// An agent's session with the MCP service through the official TypeScript
// SDK client (@modelcontextprotocol/sdk) over streamable HTTP, with the MCP
// token of a running `roadbook dev` as its bearer token.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { devInfo, fixture, sleep } from "./dev.ts";

// The agent's loop is bounded: at most this many calls of `next`, each
// waiting what the hint says but at most nextWaitCapMs (the hints say
// seconds; the scenario need not idle that long).
const maxNextCalls = 60;
const nextWaitCapMs = 500;

/** A tool result as an agent reads it: the JSON in the one text block. */
interface Answer {
  isError: boolean;
  data: Record<string, any>;
  text: string;
}

/** The JSON error of MCP §8: {"error": {code, message, field?, next?, currentVersion?}}. */
interface ToolError {
  code: string;
  message: string;
  field?: string;
  currentVersion?: number;
  next?: { tool: string; arguments: Record<string, unknown> };
}

interface Next {
  tool: string;
  arguments: Record<string, unknown>;
  afterSeconds?: number;
  why: string;
}

const dev = devInfo();

test("an agent creates a trip from the 627 km GPX inline, follows next, edits a day and deletes the trip with confirmation", async (t) => {
  const client = new Client({ name: "roadbook-interop", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(dev.mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${dev.mcpToken}` } },
  });
  await client.connect(transport);
  t.after(() => client.close());

  const outputSchemas = new Map<string, unknown>();
  const tools = await client.listTools();
  for (const tool of tools.tools) outputSchemas.set(tool.name, tool.outputSchema);
  assert.equal(tools.tools.length, 13, `the thirteen tools: ${tools.tools.map((x) => x.name).join(", ")}`);

  // call never throws on a tool error: the SDK client validates structured
  // content against the output schema, so an error carrying invalid
  // structured content would throw here and fail the scenario.
  const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
    const res = await client.callTool({ name, arguments: args });
    const content = res.content as Array<{ type: string; text?: string }>;
    assert.equal(content.length, 1, `${name}: one content block`);
    assert.equal(content[0].type, "text");
    const text = content[0].text ?? "";
    const data = JSON.parse(text) as Record<string, any>;
    const isError = res.isError === true;
    if (isError) {
      assert.equal(res.structuredContent, undefined, `${name}: an error carries no structured content`);
      assert.equal(typeof data.error?.code, "string", `${name}: the error JSON names a code: ${text}`);
    } else if (outputSchemas.get(name) !== undefined) {
      assert.deepEqual(res.structuredContent, data, `${name}: structured content is the text's JSON`);
    }
    return { isError, data, text };
  };
  const ok = async (name: string, args: Record<string, unknown>) => {
    const a = await call(name, args);
    assert.ok(!a.isError, `${name} failed: ${a.text}`);
    return a.data;
  };
  const fails = async (name: string, args: Record<string, unknown>, code: string): Promise<ToolError> => {
    const a = await call(name, args);
    assert.ok(a.isError, `${name} unexpectedly succeeded: ${a.text}`);
    const e = a.data.error as ToolError;
    assert.equal(e.code, code, a.text);
    return e;
  };

  // A title of its own: create_trip derives its idempotency key from the
  // arguments, so a rerun within 5 minutes with the same ones would be
  // answered with the first run's (deleted) trip.
  const gpx = fixture().toString("utf8");
  const created = await ok("create_trip", { gpx, title: `Oslo to Trondheim (MCP interop ${randomUUID().slice(0, 8)})` });
  const tripId = created.tripId as string;
  assert.match(tripId, /^[0-9a-f-]{36}$/);
  assert.equal(created.version, 1);
  assert.equal(created.status, "computing");
  assert.equal(created.next?.tool, "get_trip", "create_trip answers at once with what to call next");

  let trip: Record<string, any> = {};
  await t.test("following only the next hints reaches a trip with nothing pending", async (st) => {
    let res = created;
    let calls = 0;
    while (res.next !== undefined) {
      const next = res.next as Next;
      calls++;
      assert.ok(calls <= maxNextCalls, `still pending after ${maxNextCalls} calls of next: ${JSON.stringify(res.progress)}`);
      await sleep(Math.min((next.afterSeconds ?? 0) * 1000, nextWaitCapMs));
      res = await ok(next.tool, next.arguments);
      trip = res; // the later steps use the latest answer even if this loop fails
      if (res.partial === true) {
        assert.equal(res.next?.tool, "get_trip", "while anything is pending, next points to get_trip");
      }
    }
    st.diagnostic(`next followed ${calls} time(s); progress ${JSON.stringify(res.progress)}`);
    assert.equal(trip.partial, false, "no next means nothing pending");
    assert.ok(trip.stages.length >= 627 / 120, `days: ${trip.stages.length}`);
  });
  assert.ok(trip.stages?.length > 1, `no days: ${JSON.stringify(trip.progress)}`);
  const version = trip.version as number;

  await t.test("get_stage drills into one day", async () => {
    const stage = await ok("get_stage", { tripId, stageIndex: 1 });
    assert.equal(stage.index, 1);
    assert.ok(stage.distanceKm > 10, `distanceKm: ${stage.distanceKm}`);
  });

  await t.test("edit_stages with a stale version is version_conflict naming the current one", async () => {
    // An older version when there is one; otherwise one the trip never had.
    const stale = version > 1 ? version - 1 : version + 1;
    const e = await fails("edit_stages", { tripId, version: stale, action: "rest_day", afterStageIndex: 0 }, "version_conflict");
    assert.equal(e.currentVersion, version);
    const again = await ok("get_trip", { tripId });
    assert.equal(again.version, version, "the refused edit wrote nothing");
  });

  let edited = version;
  await t.test("the same edit on the current version succeeds and answers the new version", async () => {
    const r = await ok("edit_stages", { tripId, version, action: "rest_day", afterStageIndex: 0 });
    assert.equal(r.version, version + 1);
    assert.equal(r.stages[1].restDay, true);
    edited = r.version;
  });

  await t.test("delete_trip asks for confirmation first, then acts on the returned token", async () => {
    const offer = await ok("delete_trip", { tripId, version: edited });
    assert.equal(offer.status, "confirmation_required");
    assert.equal(offer.impact?.tripDeleted, true);
    assert.equal(typeof offer.confirmationToken, "string");
    assert.equal(offer.next?.tool, "delete_trip");
    const still = await ok("get_trip", { tripId });
    assert.equal(still.version, edited, "asking changed nothing");

    const done = await ok("delete_trip", offer.next.arguments);
    assert.equal(done.status, "done");
    assert.equal(done.deleted, true);
    await fails("get_trip", { tripId }, "not_found");
  });
});
