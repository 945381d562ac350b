/**
 * One SDK `Server` for every HTTP request (SPEC §7 stays stateless on the wire): building a Server
 * per request (its handler table, capabilities, schemas) was most of the cost of a `tools/call`
 * (issue 10). The per-request SDK transport still does all the HTTP work (Accept, Content-Type,
 * batches, JSON or SSE answers); this transport sits between those and the one Server.
 *
 * Clients pick their own JSON-RPC ids, so two clients may send id 1 at the same time. Each request
 * is therefore handed to the Server under a fresh id of ours, and its response is sent back, under
 * the client's id, to the HTTP request it came with. Who is calling (principal, request id) is
 * looked up by that fresh id, so it stays per request without any ambient state.
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
}

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } => "method" in m && "id" in m;
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } => !("method" in m) && "id" in m;

export class SharedServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  /**
   * Our ids are strings with a prefix no client id is compared against: they only ever meet the
   * ids of this map, never a client's (cancellations, which name a client's id, are dropped below).
   */
  private readonly inFlight = new Map<string, InFlight>();
  private next = 0;

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

  /** Routes one HTTP request's messages (from its own SDK transport) into the shared Server. */
  attach(transport: RequestTransport, session: McpSession): void {
    transport.onmessage = (message, extra) => {
      if (isRequest(message)) {
        const id = `crew:${++this.next}`;
        this.inFlight.set(id, { clientId: message.id, transport, session });
        this.onmessage?.({ ...message, id } as JSONRPCMessage, extra);
        return;
      }
      // A stateless request cannot cancel or answer anything the Server sent on another request:
      // `notifications/cancelled` names a client's id, which would mean someone else's request here.
      if (isResponse(message) || ("method" in message && message.method === "notifications/cancelled")) return;
      this.onmessage?.(message, extra);
    };
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
