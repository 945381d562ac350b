/** Reading an `application/x-www-form-urlencoded` body (token, revoke, consent) as OAuth parameters. */
import { readBodyText } from "../http/body.ts";
import { invalidRequest } from "./errors.ts";

const MAX_FORM_BYTES = 64 * 1024;

export async function readForm(request: Request): Promise<URLSearchParams> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw invalidRequest(`content-type ${type || "(none)"}`);
  try {
    return new URLSearchParams(await readBodyText(request, MAX_FORM_BYTES));
  } catch {
    throw invalidRequest("body unreadable or too large");
  }
}

/** RFC 6749 §3.1/§3.2: parameters sent without a value are treated as omitted; none may repeat. */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalidRequest(`${name} repeated`);
  const value = values[0];
  return value === undefined || value === "" ? undefined : value;
}

/** The names of parameters given more than once (resource may repeat, RFC 8707). */
export function repeatedParams(params: URLSearchParams, except: readonly string[] = ["resource"]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name) && !except.includes(name)) repeated.add(name);
    seen.add(name);
  }
  return [...repeated];
}
