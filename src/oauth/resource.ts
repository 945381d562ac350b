/**
 * Resource indicators (RFC 8707): `{base}`, `{base}/`, `{base}/mcp` and `{base}/mcp/` all name Crew
 * (clients send each of them, src/docs/notes/oauth.md#what-real-clients-do); an absent one means `{base}/mcp`. They are one audience, so a
 * code bound to one of them may be exchanged naming another. Pure, no I/O.
 */
import { isCrewResource } from "../auth/bearer.ts";
import type { Config } from "../config.ts";

export const defaultResource = (config: Config) => `${config.baseUrl}/mcp`;

/** The resource to bind a grant to, or null when `values` name something other than Crew. */
export function resolveResource(config: Config, values: readonly string[]): string | null {
  if (values.length === 0) return defaultResource(config);
  if (!values.every((v) => isCrewResource(config, v))) return null;
  return values[0] ?? defaultResource(config);
}
