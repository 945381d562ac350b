/**
 * A JSON-RPC error a handler throws (both SDK generations answer `code`, `message` and `data` of a
 * thrown error as they are). Not the v1 SDK's `McpError`, whose message carries its own
 * "MCP error <code>:" prefix, which the 2026-07-28 leg would send beside a remapped code.
 */
export function protocolError(code: number, message: string, data?: unknown): Error & { code: number; data?: unknown } {
  return Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });
}

/** JSON-RPC's Invalid params. */
export const INVALID_PARAMS = -32602;
