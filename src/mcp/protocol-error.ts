/**
 * A JSON-RPC error a handler throws (both SDK generations answer `code`, `message` and `data` of a
 * thrown error as they are). Not the v1 SDK's `McpError`, whose message carries its own
 * "MCP error <code>:" prefix, which the 2026-07-28 leg would send beside a remapped code.
 */
export function protocolError(code: number, message: string, data?: unknown): Error & { code: number; data?: unknown } {
  return Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });
}

/** JSON-RPC's Invalid request, Invalid params and Internal error. */
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
