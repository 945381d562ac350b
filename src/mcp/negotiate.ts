/**
 * The Accept shim: what `/mcp` does with the Accept header real clients send before the SDK
 * transport sees it.
 *
 * The transport insists on `application/json, text/event-stream`, but Claude Code sends
 * `Accept: application/json` alone and Anthropic's connector proxy `text/event-stream` alone
 * (src/docs/notes/mcp-clients.md#how-mcp-behaves-decisions, and the 406 reports against them). A 406 there ends the connection after a
 * successful sign-in, so Crew answers whichever of the two the client accepts — JSON when it takes
 * JSON (or says nothing), one short SSE stream when it takes only SSE — and 406s only a client that
 * accepts neither. MCP-Protocol-Version is the transports' to check (http-serving.ts).
 */

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
