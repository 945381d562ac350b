/**
 * What `/mcp` does with the headers real clients send before the SDK transport sees them.
 *
 * Accept: the transport insists on `application/json, text/event-stream`, but Claude Code sends
 * `Accept: application/json` alone and Anthropic's connector proxy `text/event-stream` alone
 * (FIELD-NOTES, and the 406 reports against them). A 406 there ends the connection after a
 * successful sign-in, so Crew answers whichever of the two the client accepts — JSON when it takes
 * JSON (or says nothing), one short SSE stream when it takes only SSE — and 406s only a client that
 * accepts neither.
 *
 * MCP-Protocol-Version: a version Crew does not speak is 400 (SPEC §7), except on `initialize`,
 * where the version is negotiated in the body (a newer client that also sets the header gets
 * Crew's latest version back instead of a refusal).
 */
import { readBodyText } from "../http/body.ts";
import { isSupportedProtocolVersion } from "./server.ts";

export type ResponseMode = "json" | "sse";

/** The media types of an Accept header, lower-case, without parameters; q=0 entries dropped. */
function acceptedTypes(accept: string): string[] {
  return accept
    .split(",")
    .map((part) => part.split(";").map((p) => p.trim().toLowerCase()))
    .filter(([type, ...params]) => type !== "" && !params.some((p) => /^q=0(\.0*)?$/.test(p)))
    .map(([type]) => type as string);
}

/** How to answer a POST with this Accept header, or null when the client takes neither JSON nor SSE. */
export function responseMode(accept: string | undefined): ResponseMode | null {
  if (accept === undefined || accept.trim() === "") return "json"; // RFC 9110 §12.5.1: anything goes
  const types = acceptedTypes(accept);
  if (types.some((t) => t === "application/json" || t === "application/*" || t === "*/*")) return "json";
  if (types.some((t) => t === "text/event-stream" || t === "text/*")) return "sse";
  return null;
}

/** What the transport requires to see, whatever the client sent (the mode above decides the answer). */
export const TRANSPORT_ACCEPT = "application/json, text/event-stream";

export const hasTransportAccept = (accept: string | undefined): boolean =>
  !!accept?.includes("application/json") && accept.includes("text/event-stream");

export type VersionCheck =
  | { kind: "ok" }
  | { kind: "unsupported"; version: string }
  /** An initialize carrying a header Crew does not speak: negotiate in the body, drop the header. */
  | { kind: "initialize"; parsedBody: unknown };

const isInitialize = (message: unknown) =>
  typeof message === "object" && message !== null && (message as { method?: unknown }).method === "initialize";

/**
 * Checks MCP-Protocol-Version. Reads the body (at most `limit` bytes) only when the header names a
 * version Crew does not speak, to tell an initialize from anything else; a body that cannot be
 * read or parsed is left to the transport's own errors by reporting the version as unsupported.
 */
export async function checkProtocolVersion(request: Request, limit: number): Promise<VersionCheck> {
  const version = request.headers.get("mcp-protocol-version");
  if (version === null || isSupportedProtocolVersion(version)) return { kind: "ok" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readBodyText(request.clone(), limit));
  } catch {
    return { kind: "unsupported", version };
  }
  return isInitialize(parsed) ? { kind: "initialize", parsedBody: parsed } : { kind: "unsupported", version };
}
