/** Reading a JSON request body: media type (415), size (413, src/docs/notes/rest-api.md#limits: 256 KiB), syntax (400). */
import { ApiError } from "../errors.ts";

export const MAX_BODY_BYTES = 256 * 1024;

/** `application/json` or any `+json` type, parameters (charset) allowed. */
export function isJsonMediaType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/**
 * `Connection: close`: the rest of an oversized body is never read, so the connection cannot carry
 * another request; saying so keeps clients from reusing a socket the server is about to drop.
 */
const tooLarge = () =>
  new ApiError(413, "payload_too_large", `The request body is over ${MAX_BODY_BYTES / 1024} KiB.`, {
    headers: { Connection: "close" },
  });

/** A 400 about the body as a whole: `issues` names it as `(body)`, as validation does. */
const bodyInvalid = (message: string) => new ApiError(400, "invalid_request", message, { issues: [{ path: "(body)", message }] });

/** Reads at most `limit` bytes of the body, refusing early on a too-large Content-Length. */
export async function readBodyText(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (Number.isFinite(declared)) {
    // Length known and within the limit: one read. On Node, @hono/node-server reads arrayBuffer()
    // straight off the socket, without building the web Request a stream reader needs — so
    // `request.body` (which builds it, ≈30 µs and garbage per request) is not touched first.
    return declared === 0 ? "" : decodeUtf8(new Uint8Array(await request.arrayBuffer()));
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decodeUtf8(all);
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw bodyInvalid("The request body is not valid UTF-8.");
  }
}

/** The body as a JSON object (src/docs/notes/rest-api.md#limits: 415 for another media type, 400 for broken JSON or a non-object). */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    throw new ApiError(415, "unsupported_media_type", "Send the body as JSON with Content-Type: application/json.");
  }
  const text = await readBodyText(request);
  const parsed = parseJsonObject(text);
  if ("problem" in parsed) {
    if (parsed.problem === "not_object") throw bodyInvalid("The request body must be a JSON object.");
    throw bodyInvalid(text.trim() === "" ? "The request body is empty; send a JSON object." : "The request body is not valid JSON.");
  }
  const value = parsed.object;
  const repeated = duplicateKeys(text);
  if (repeated.length > 0) {
    // JSON.parse keeps the last of repeated names; another parser may keep the first. Refused
    // rather than guessed (RFC 8259 §4: names SHOULD be unique).
    throw new ApiError(400, "invalid_request", `The request body gives a field more than once: ${repeated.join(", ")}.`, {
      issues: repeated.map((path) => ({ path, message: "Given more than once." })),
    });
  }
  return value;
}

/** Text as a JSON object, or why it is not one; each door words the refusal its own way. */
export function parseJsonObject(text: string): { object: Record<string, unknown> } | { problem: "not_json" | "not_object" } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: "not_json" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "not_object" };
  return { object: value as Record<string, unknown> };
}

/**
 * Paths (`actions[1].title`) of object names repeated within one object of a JSON text that
 * JSON.parse accepted. One pass, no recursion (a 256 KiB body may nest deeply).
 */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  const stack: { seen: Set<string> | null; path: string; index: number }[] = [];
  let expectKey = false;
  let keyPath = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const top = stack[stack.length - 1];
    if (ch === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      if (top?.seen && expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        keyPath = top.path ? `${top.path}.${key}` : key;
        if (top.seen.has(key)) found.push(keyPath);
        else top.seen.add(key);
        expectKey = false;
      }
      i = end;
    } else if (ch === "{" || ch === "[") {
      const path = !top ? "" : top.seen ? keyPath : `${top.path}[${top.index}]`;
      stack.push({ seen: ch === "{" ? new Set() : null, path, index: 0 });
      expectKey = ch === "{";
    } else if (ch === "}" || ch === "]") {
      stack.pop();
    } else if (ch === "," && top) {
      if (top.seen) expectKey = true;
      else top.index++;
    }
  }
  return [...new Set(found)];
}
