/** Who an MCP request acts for: each transport (HTTP per request, stdio per process) decides how. */
import type { ClientCapabilities, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Principal } from "../domain.ts";
import type { ToolView } from "./toolsets.ts";

export interface McpSession {
  /** The caller, checked (and, on stdio, counted against the quota) for each tools request. */
  principal(): Promise<Principal>;
  /** The caller without counting a request, for `initialize`'s instructions; defaults to principal(). */
  peek?(): Promise<Principal>;
  requestId(): string;
  /**
   * What the client declared at `initialize`, where the transport keeps it (stdio: one client per
   * process). Absent on stateless HTTP, where a request after `initialize` carries none.
   */
  clientCapabilities?(): ClientCapabilities | undefined;
  /** Told what the client declared at `initialize`, for transports that keep it. */
  initialized?(capabilities: ClientCapabilities): void;
  /**
   * The protocol version this request speaks, which decides what its results may contain
   * (2025-03-26 has no `resource_link`). HTTP reads it per request; stdio keeps what initialize negotiated.
   */
  protocolVersion(): string;
  /** Called by initialize with the version it negotiated (stdio remembers it; HTTP has it per request). */
  negotiated?(version: string): void;
  /** The tools this endpoint offers (read-only, toolsets: src/mcp/toolsets.ts); all when absent. */
  view?(): ToolView;
}

/** The caller of one request, found from what the SDK hands every handler (its JSON-RPC id). */
export type SessionOf = (extra: { requestId: RequestId }) => McpSession;
