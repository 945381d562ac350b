/**
 * One SDK `Server` for every HTTP request (src/docs/notes/mcp-clients.md#how-mcp-behaves-decisions stays stateless on the wire): building a Server
 * per request (its handler table, capabilities, schemas) was most of the cost of a `tools/call`
 * (issue 10). The per-request SDK transport still does all the HTTP work (Accept, Content-Type,
 * batches, JSON or SSE answers); this transport sits between those and the one Server.
 *
 * Clients pick their own JSON-RPC ids, so two clients may send id 1 at the same time. Each request
 * is therefore handed to the Server under a fresh id of ours, and its response is sent back, under
 * the client's id, to the HTTP request it came with. Who is calling (principal, request id) is
 * looked up by that fresh id, so it stays per request without any ambient state.
 *
 * `notifications/cancelled` names a client's id, so it applies only to requests of the same
 * caller (the credential, `callerKey`): one caller can never cancel another's request that happens
 * to share its id. A request already in flight is aborted (its handler sees the signal; the HTTP
 * request is answered with "Request cancelled" at once). A cancellation that overtook its request
 * (they travel on different HTTP requests) is kept for CANCEL_MEMORY_MS, and that request is then
 * answered the same way without being performed.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpSession } from "./session.ts";

/** What a per-request transport needs from us: where the Server's answers go. */
interface RequestTransport {
  send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void>;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
}

interface InFlight {
  /** The id the client chose, restored on the way out. */
  clientId: RequestId;
  transport: RequestTransport;
  session: McpSession;
  callerKey: string;
}

/** How long a cancellation that arrived before its request is remembered, and how many at most. */
export const CANCEL_MEMORY_MS = 10_000;
const MAX_REMEMBERED_CANCELS = 10_000;

/** The JSON-RPC error a cancelled request's HTTP request is answered with (the MCP SDKs' RequestTimeout family uses -32001; -32800 is LSP's RequestCancelled). */
const CANCELLED = { code: -32800, message: "Request cancelled by the client; nothing was performed after the cancellation." };

const cancelKey = (callerKey: string, id: RequestId) => `${callerKey}\u0000${typeof id}:${String(id)}`;
const isCancel = (m: JSONRPCMessage): m is JSONRPCMessage & { params: { requestId?: RequestId } } =>
  "method" in m && m.method === "notifications/cancelled";

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } => "method" in m && "id" in m;
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } => !("method" in m) && "id" in m;

export class SharedServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  /**
   * Our ids are strings with a prefix no client id is compared against: they only ever meet the
   * ids of this map, never a client's (cancellations, which name a client's id, are matched below).
   */
  private readonly inFlight = new Map<string, InFlight>();
  /** Cancellations that arrived before their request: key → when they stop counting. */
  private readonly earlyCancels = new Map<string, number>();
  private next = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.inFlight.clear();
    this.onclose?.();
  }

  /** Requests in flight (for tests: every answered request is forgotten). */
  get pending(): number {
    return this.inFlight.size;
  }

  /** The caller of the request the Server knows by `id` (a handler's `extra.requestId`). */
  sessionOf(id: RequestId): McpSession {
    const entry = typeof id === "string" ? this.inFlight.get(id) : undefined;
    if (!entry) throw new McpError(ErrorCode.InternalError, "Request context not found.");
    return entry.session;
  }

  /**
   * Routes one HTTP request's messages (from its own SDK transport) into the shared Server.
   * `callerKey` names the caller (its credential): cancellations apply within one caller only.
   */
  attach(transport: RequestTransport, session: McpSession, callerKey: string): void {
    transport.onmessage = (message, extra) => {
      if (isRequest(message)) {
        if (this.takeEarlyCancel(callerKey, message.id)) {
          void transport.send({ jsonrpc: "2.0", id: message.id, error: CANCELLED } as JSONRPCMessage);
          return;
        }
        const id = `crew:${++this.next}`;
        this.inFlight.set(id, { clientId: message.id, transport, session, callerKey });
        this.onmessage?.({ ...message, id } as JSONRPCMessage, extra);
        return;
      }
      if (isCancel(message)) {
        const target = message.params?.requestId;
        if (target !== undefined) this.cancel(callerKey, target);
        return;
      }
      // A stateless request cannot answer anything the Server sent on another request.
      if (isResponse(message)) return;
      this.onmessage?.(message, extra);
    };
  }

  private cancel(callerKey: string, clientId: RequestId): void {
    for (const [id, entry] of this.inFlight) {
      if (entry.callerKey !== callerKey || entry.clientId !== clientId) continue;
      this.inFlight.delete(id);
      // The Server aborts the handler's signal and, per MCP, sends no response of its own.
      this.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } } as JSONRPCMessage);
      void entry.transport.send({ jsonrpc: "2.0", id: clientId, error: CANCELLED } as JSONRPCMessage);
      return;
    }
    const now = this.now();
    if (this.earlyCancels.size >= MAX_REMEMBERED_CANCELS) {
      for (const [key, until] of this.earlyCancels)
        if (until <= now || this.earlyCancels.size >= MAX_REMEMBERED_CANCELS) this.earlyCancels.delete(key);
    }
    this.earlyCancels.set(cancelKey(callerKey, clientId), now + CANCEL_MEMORY_MS);
  }

  private takeEarlyCancel(callerKey: string, clientId: RequestId): boolean {
    if (this.earlyCancels.size === 0) return false;
    const key = cancelKey(callerKey, clientId);
    const until = this.earlyCancels.get(key);
    if (until === undefined) return false;
    this.earlyCancels.delete(key);
    return until > this.now();
  }

  async send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void> {
    if (isResponse(message)) {
      const key = String(message.id);
      const entry = this.inFlight.get(key);
      if (!entry) return;
      this.inFlight.delete(key);
      await entry.transport.send({ ...message, id: entry.clientId } as JSONRPCMessage);
      return;
    }
    // Notifications (progress, logging) belong to the request they are about; without one there
    // is no stream to carry them in stateless mode.
    const related = options?.relatedRequestId;
    const entry = related === undefined ? undefined : this.inFlight.get(String(related));
    if (entry) await entry.transport.send(message, { relatedRequestId: entry.clientId });
  }
}
