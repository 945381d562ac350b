/**
 * src/mcp/shared-transport.ts with the SDK's real Server behind it: each request's answer goes to
 * the transport it came from under the client's own id, the caller is found per request, every
 * answered request is forgotten, and a cancellation (which names a client's id) reaches only the
 * same caller's request, in flight or not yet arrived. The request transports here record what they
 * are sent; in production they are the SDK's web-standard transport, one per HTTP request.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/domain.ts";
import type { McpSession } from "../../src/mcp/session.ts";
import { CANCEL_MEMORY_MS, SharedServerTransport } from "../../src/mcp/shared-transport.ts";

function recorder() {
  const sent: JSONRPCMessage[] = [];
  const transport = {
    onmessage: undefined as ((message: JSONRPCMessage) => void) | undefined,
    async send(message: JSONRPCMessage) {
      sent.push(message);
    },
  };
  return { transport, sent, deliver: (message: unknown) => transport.onmessage?.(message as JSONRPCMessage) };
}

const session = (name: string): McpSession => ({
  principal: async () => ({ email: name }) as unknown as Principal,
  requestId: () => `req_${name}`,
  protocolVersion: () => "2025-11-25",
});

async function sharedServer(now?: () => number) {
  const shared = new SharedServerTransport(now);
  const release: Array<() => void> = [];
  const began: string[] = [];
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const caller = shared.sessionOf(extra.requestId);
    began.push(caller.requestId());
    await new Promise<void>((resolve) => release.push(resolve));
    return { tools: [{ name: caller.requestId(), inputSchema: { type: "object" as const } }] };
  });
  await server.connect(shared);
  return { shared, release, started: () => began };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("SharedServerTransport", () => {
  it("answers two clients using the same id each under that id, with their own caller, then forgets both", async () => {
    const { shared, release } = await sharedServer();
    const a = recorder();
    const b = recorder();
    shared.attach(a.transport, session("a"), "key:a");
    shared.attach(b.transport, session("b"), "key:b");
    a.deliver({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    b.deliver({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await settle();
    expect(shared.pending).toBe(2);
    for (const go of release) go();
    await settle();
    expect(a.sent).toEqual([{ jsonrpc: "2.0", id: 1, result: { tools: [{ name: "req_a", inputSchema: { type: "object" } }] } }]);
    expect(b.sent).toEqual([{ jsonrpc: "2.0", id: 1, result: { tools: [{ name: "req_b", inputSchema: { type: "object" } }] } }]);
    expect(shared.pending).toBe(0);
  });

  it("does not let one client's cancellation reach another client's request in flight", async () => {
    const { shared, release } = await sharedServer();
    const a = recorder();
    const b = recorder();
    shared.attach(a.transport, session("a"), "key:a");
    shared.attach(b.transport, session("b"), "key:b");
    a.deliver({ jsonrpc: "2.0", id: 5, method: "tools/list" });
    await settle();
    // Whatever id b names — its own earlier one, a's, or the internal one — nothing is cancelled.
    for (const requestId of [5, "crew:1", 1]) {
      b.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
    }
    await settle();
    for (const go of release) go();
    await settle();
    expect(a.sent).toHaveLength(1);
    expect(a.sent[0]).toMatchObject({ id: 5, result: { tools: [{ name: "req_a" }] } });
    expect(b.sent).toEqual([]);
  });

  it("issue 23 item 6: a caller's cancellation aborts its own request in flight and answers it at once", async () => {
    const { shared, release } = await sharedServer();
    const a = recorder();
    const cancel = recorder();
    shared.attach(a.transport, session("a"), "key:a");
    shared.attach(cancel.transport, session("a"), "key:a");
    a.deliver({ jsonrpc: "2.0", id: 5, method: "tools/list" });
    await settle();
    cancel.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } });
    await settle();
    expect(a.sent).toEqual([{ jsonrpc: "2.0", id: 5, error: expect.objectContaining({ code: -32800 }) }]);
    expect(shared.pending).toBe(0);
    for (const go of release) go();
    await settle();
    expect(a.sent).toHaveLength(1); // the handler's late answer goes nowhere
  });

  it("issue 23 item 6: a cancellation that overtook its request stops it before it starts, for that caller only, for a while", async () => {
    let now = 1_000;
    const { shared, release, started } = await sharedServer(() => now);
    const cancel = recorder();
    shared.attach(cancel.transport, session("a"), "key:a");
    cancel.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } });
    const other = recorder();
    shared.attach(other.transport, session("b"), "key:b");
    other.deliver({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    const own = recorder();
    shared.attach(own.transport, session("a"), "key:a");
    own.deliver({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    await settle();
    expect(own.sent).toEqual([{ jsonrpc: "2.0", id: 9, error: expect.objectContaining({ code: -32800 }) }]);
    expect(started()).toEqual(["req_b"]);
    for (const go of release) go();
    await settle();
    expect(other.sent[0]).toMatchObject({ id: 9, result: { tools: [{ name: "req_b" }] } });

    // Remembered for CANCEL_MEMORY_MS only, and only once.
    cancel.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 10 } });
    now += CANCEL_MEMORY_MS + 1;
    const late = recorder();
    shared.attach(late.transport, session("a"), "key:a");
    late.deliver({ jsonrpc: "2.0", id: 10, method: "tools/list" });
    await settle();
    for (const go of release) go();
    await settle();
    expect(late.sent[0]).toMatchObject({ id: 10, result: { tools: [{ name: "req_a" }] } });
  });
});
