/** Who an MCP request acts for: each transport (HTTP per request, stdio per process) decides how. */
import type { Principal } from "../domain.ts";
import type { ToolView } from "./toolsets.ts";

export interface McpCaller {
  /** The caller, checked (and, on stdio, counted against the quota) for each request that reads or acts. */
  principal(): Promise<Principal>;
  /** The caller without counting a request, for `initialize`'s instructions; defaults to principal(). */
  peek?(): Promise<Principal>;
  requestId(): string;
  /** The tools this endpoint offers (read-only, toolsets: src/mcp/toolsets.ts). */
  view: ToolView;
  /**
   * The 2025 revision this request speaks, which decides what its results may contain (2025-03-26
   * has no `resource_link`): on HTTP the request's header; absent where the connection negotiated
   * one at `initialize` (stdio).
   */
  protocolVersion?: string;
  /**
   * Names the caller for 2025-era cancellations across requests (src/mcp/cancellations.ts): on
   * stateless HTTP only, where a cancellation arrives on another request; stdio has one connection.
   */
  cancelKey?: string;
}
