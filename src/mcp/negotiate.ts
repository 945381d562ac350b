/**
 * What `/mcp` does with the headers real clients send before the SDK transport sees them.
 *
 * Accept: the transport insists on `application/json, text/event-stream`, but Claude Code sends
 * `Accept: application/json` alone and Anthropic's connector proxy `text/event-stream` alone
 * (src/docs/notes/mcp-clients.md#how-mcp-behaves-decisions, and the 406 reports against them). A 406 there ends the connection after a
 * successful sign-in, so Crew answers whichever of the two the client accepts — JSON when it takes
 * JSON (or says nothing), one short SSE stream when it takes only SSE — and 406s only a client that
 * accepts neither.
 *
 * MCP-Protocol-Version: a version Crew does not speak is 400 (src/docs/notes/mcp-clients.md), except on `initialize`,
 * where the version is negotiated in the body (a newer client that also sets the header gets
 * Crew's latest version back instead of a refusal).
 */
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
 * Checks MCP-Protocol-Version against the body already read and parsed by the route (`undefined`
 * when it could not be): a version Crew does not speak is allowed only on an initialize, which
 * negotiates in its body.
 */
export function checkProtocolVersion(request: Request, parsedBody: unknown): VersionCheck {
  const version = request.headers.get("mcp-protocol-version");
  if (version === null || isSupportedProtocolVersion(version)) return { kind: "ok" };
  return isInitialize(parsedBody) ? { kind: "initialize", parsedBody } : { kind: "unsupported", version };
}
