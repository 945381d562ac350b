/**
 * The contract hook: every response that a test gets through `api()` (test/helpers/server.ts) is
 * checked against the OpenAPI document the server publishes — the body against the JSON Schema
 * (2020-12) declared for its status, and the headers declared required. An undocumented status,
 * or an undocumented endpoint under /api/, fails the calling test too.
 *
 * Paths outside /api/ that the document does not describe (/mcp, /oauth/*, HTML pages) are not
 * checked: see src/docs/endpoints.ts for what counts as a REST endpoint.
 */

import Ajv2020Import from "ajv/dist/2020.js";
import addFormatsImport from "ajv-formats";
import { buildOpenApi, type OpenApiDocument } from "../../src/docs/openapi.ts";
import { operations } from "../../src/operations/index.ts";

// CJS default exports under ESM interop.
const Ajv2020 = ((Ajv2020Import as any).default ?? Ajv2020Import) as typeof Ajv2020Import;
const addFormats = ((addFormatsImport as any).default ?? addFormatsImport) as typeof addFormatsImport;

const DOC_ID = "https://crew.invalid/openapi.json";

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
}

let state: { doc: OpenApiDocument; ajv: InstanceType<typeof Ajv2020>; routes: Route[] } | null = null;

function load() {
  if (state) return state;
  const doc = buildOpenApi({ baseUrl: "http://crew.invalid", rateLimitPerHour: 600 }, operations);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const routes = Object.keys(doc.paths)
    .map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}$`),
      params: (template.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params);
  state = { doc, ajv, routes };
  return state;
}

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

/** A header object, or the component a `$ref` names. */
export function resolve(doc: OpenApiDocument, node: { $ref?: string }): Record<string, any> {
  if (!node.$ref) return node;
  return node.$ref
    .replace(/^#\//, "")
    .split("/")
    .reduce<any>((at, key) => at?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

export class ContractError extends Error {
  override name = "ContractError";
}

export interface ObservedResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** Throws ContractError when the response does not match what the document declares. */
export function assertContract(method: string, url: string, res: ObservedResponse): void {
  const upper = method.toUpperCase();
  if (upper === "HEAD" || upper === "OPTIONS") return;
  const { doc, ajv, routes } = load();
  const path = new URL(url).pathname;
  const where = `${upper} ${path} → ${res.status}`;
  const fail: (why: string) => never = (why) => {
    throw new ContractError(`OpenAPI contract: ${where}: ${why}`);
  };

  const route = routes.find((r) => r.pattern.test(path));
  const operation = route ? doc.paths[route.template]?.[upper.toLowerCase()] : undefined;
  let response: any;
  let schemaPointer: string;
  if (route && operation) {
    response = operation.responses[String(res.status)];
    if (!response) {
      fail(
        `status ${res.status} is not documented for ${upper} ${route.template} (documented: ${Object.keys(operation.responses).join(", ")}). Body: ${res.text.slice(0, 300)}`,
      );
    }
    schemaPointer = `${pointer("paths", route.template, upper.toLowerCase(), "responses", String(res.status))}/content/application~1json/schema`;
  } else {
    // No such operation: an unknown path under /api/, or a documented path with another method.
    // The gate may answer before routing (401, 429), so any error of the envelope is fine; a success is not.
    if (!route && !path.startsWith("/api/")) return;
    if (res.status < 400) {
      fail(
        route
          ? `${route.template} is documented without ${upper}; expected an error (405), got ${res.status}.`
          : "this endpoint is not in the document (add it to the registry, or to EXTRA_ENDPOINTS in src/docs/endpoints.ts).",
      );
    }
    // What every unknown path or method answers: the envelope, with the request id (and Allow on a 405).
    response = {
      content: undefined as unknown,
      headers: {
        "X-Request-Id": { required: true },
        ...(res.status === 405 ? { Allow: { required: true } } : {}),
      },
    };
    const errorSchema = doc.components.schemas[`Error${res.status}`] ? `Error${res.status}` : "ErrorEnvelope";
    response.content = { "application/json": { schema: { $ref: `#/components/schemas/${errorSchema}` } } };
    schemaPointer = pointer("components", "schemas", errorSchema);
  }

  const missing = Object.entries((response.headers ?? {}) as Record<string, { $ref?: string }>)
    .filter(([name, h]) => resolve(doc, h).required && !res.headers.has(name))
    .map(([name]) => name);
  if (missing.length > 0) fail(`missing required header(s): ${missing.join(", ")}.`);

  const schema = response.content?.["application/json"]?.schema;
  if (!schema) return;
  const type = res.headers.get("content-type") ?? "";
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) fail(`expected a JSON body, got Content-Type "${type}".`);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    fail(`the body is not JSON: ${res.text.slice(0, 200)}`);
  }
  const schemaRef = `${DOC_ID}${schemaPointer}`;
  const validate = ajv.getSchema(schemaRef);
  if (!validate) fail(`no schema at ${schemaRef}`);
  if (!validate(body)) {
    const errors = (validate.errors ?? []).map((e) => `  ${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`);
    fail(`the body does not match the documented schema:\n${errors.join("\n")}\nBody: ${res.text.slice(0, 500)}`);
  }
}

/** A `fetch` with the contract check: for clients that take a fetch function (openapi-fetch, …). */
export const contractFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const res = await fetch(request);
  assertContract(request.method, request.url, { status: res.status, headers: res.headers, text: await res.clone().text() });
  return res;
};
