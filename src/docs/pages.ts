/**
 * /docs and /docs/errors: the human reference, rendered on the server from the OpenAPI document
 * (hono/html templates, one local stylesheet, no script, no external request).
 */
import { html, raw } from "hono/html";
import type { Operation } from "../operations/registry.ts";
import { ERROR_CODES } from "./error-codes.ts";
import type { JsonSchema } from "./json-schema.ts";
import { inlineText, renderNote } from "./note-markdown.ts";
import type { OpenApiDocument } from "./openapi.ts";
import { exampleOf, type FieldRow, fieldRows, formsOf, type Resolver } from "./schema-view.ts";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface DocOperation {
  method: string;
  path: string;
  op: Record<string, any>;
}

function operationsByTag(doc: OpenApiDocument): Map<string, DocOperation[]> {
  const groups = new Map<string, DocOperation[]>();
  for (const tag of doc.tags ?? []) groups.set(tag.name, []);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "Other";
      groups.set(tag, [...(groups.get(tag) ?? []), { method, path, op }]);
    }
  }
  return groups;
}

const resolverFor =
  (doc: OpenApiDocument): Resolver =>
  (ref) =>
    ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<any>((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);

export function page(title: string, nav: unknown, body: unknown) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/docs/assets/docs.css">
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<div class="layout">
<nav class="side" aria-label="Reference">${nav}</nav>
<main id="content">${body}</main>
</div>
</body>
</html>`;
}

/** Requests mark what must be sent; responses mark what may be absent (the rest is always there). */
function fieldTable(rows: FieldRow[], caption: string, side: "request" | "response" = "request") {
  if (rows.length === 0) return html`<p>No fields.</p>`;
  const mark = (r: FieldRow) =>
    side === "request"
      ? r.required
        ? html`<span class="req">required</span>`
        : ""
      : r.required
        ? ""
        : html`<span class="opt">optional</span>`;
  return html`<table>
<caption class="skip">${caption}</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Notes</th></tr></thead>
<tbody>${rows.map(
    (r) =>
      html`<tr><td class="name">${r.name}${mark(r)}</td><td class="type">${r.type}</td><td>${raw(r.notes.map(inlineText).join(" "))}</td></tr>`,
  )}</tbody>
</table>`;
}

function schemaBlock(schema: JsonSchema, resolve: Resolver, caption: string, side: "request" | "response") {
  const forms = formsOf(schema, resolve);
  if (forms.length === 1) return fieldTable(fieldRows(forms[0] ?? {}, resolve), caption, side);
  return forms.map(
    (form, i) =>
      html`<p class="form">Form ${i + 1} of ${forms.length}${side === "request" ? " (send one of these)" : ""}:</p>${fieldTable(fieldRows(form, resolve), `${caption}, form ${i + 1}`, side)}`,
  );
}

function curlExample(baseUrl: string, d: DocOperation, resolve: Resolver): string {
  const security = (d.op.security ?? []) as Record<string, string[]>[];
  const lines = [`curl${d.method === "get" ? "" : ` -X ${d.method.toUpperCase()}`} "${baseUrl}${d.path}"`];
  if (security.some((s) => "apiKey" in s || "oauth2" in s)) lines.push(`  -H "Authorization: Bearer $CREW_API_KEY"`);
  if (security.some((s) => "sessionCookie" in s)) lines.push(`  -b "crew_session=$CREW_SESSION" -H "Origin: ${baseUrl}"`);
  const body = d.op.requestBody?.content?.["application/json"]?.schema;
  if (body) {
    const example = exampleOf(formsOf(body, resolve)[0] ?? body, resolve);
    lines.push(`  -H "Content-Type: application/json"`, `  -d '${JSON.stringify(example).replace(/'/g, "'\\''")}'`);
  }
  return lines.join(" \\\n");
}

function operationArticle(doc: OpenApiDocument, d: DocOperation, resolve: Resolver) {
  const { op } = d;
  const [text, ...notes] = String(op.description ?? "").split("\n\n");
  const params = (op.parameters ?? []) as { name: string; in: string; required: boolean; schema: JsonSchema }[];
  const responses = Object.entries(op.responses ?? {}) as [string, any][];
  const ok = responses.filter(([status]) => Number(status) < 400);
  const errors = responses.filter(([status]) => Number(status) >= 400);
  const body = op.requestBody?.content?.["application/json"]?.schema as JsonSchema | undefined;
  const baseUrl = doc.servers?.[0]?.url ?? "";
  return html`<article class="op" id="${op.operationId}" aria-labelledby="${op.operationId}-title">
<h3 id="${op.operationId}-title"><span class="badge m-${d.method}">${d.method.toUpperCase()}</span><code>${d.path}</code></h3>
<p class="summary">${op.summary}</p>
${raw(renderNote(text ?? ""))}
<div class="access">${raw(notes.map((n) => renderNote(n)).join(""))}</div>
${
  params.length > 0
    ? html`<h4>Parameters</h4>${fieldTable(
        params.map((p) => ({
          name: p.name,
          type: p.schema.type ? String(p.schema.type) : "string",
          required: p.required,
          notes: [`In the ${p.in}.`, ...(fieldRows({ type: "object", properties: { [p.name]: p.schema } }, resolve)[0]?.notes ?? [])],
        })),
        "Parameters",
      )}`
    : ""
}
${body ? html`<h4>Request body <span class="status">application/json</span></h4>${schemaBlock(body, resolve, "Request body", "request")}` : ""}
${ok.map(
  ([status, r]) =>
    html`<h4>Response <span class="status">${status}</span> ${r.description}</h4>${schemaBlock(r.content?.["application/json"]?.schema ?? {}, resolve, `Response ${status}`, "response")}`,
)}
<h4>Errors</h4>
<ul class="errors">${errors.map(([status, r]) => {
    const codes = (resolve(`#/components/schemas/Error${status}`)?.allOf?.[1]?.properties?.error?.enum ?? []) as string[];
    return html`<li><span class="status">${status}</span> ${codes.map((c, i) => html`${i > 0 ? " / " : ""}<a href="/docs/errors#${c}">${c}</a>`)}${
      r.headers?.["Retry-After"] ? " (Retry-After)" : ""
    }</li>`;
  })}</ul>
<details><summary>Example request</summary><pre><code>${curlExample(baseUrl, d, resolve)}</code></pre></details>
</article>`;
}

/** A guide of /docs/notes (src/docs/notes.ts), linked from the reference. */
export interface GuideLink {
  slug: string;
  title: string;
}

function sideNav(groups: Map<string, DocOperation[]>, tools: Operation[], guides: GuideLink[]) {
  return html`<a class="brand" href="/docs">Crew API</a>
<p class="version">Version 1.0.0 · <a href="/openapi.json">openapi.json</a></p>
<h2>Guide</h2>
<ul><li><a href="#overview">Overview</a></li><li><a href="/docs/errors">Errors</a></li>${
    tools.length > 0 ? html`<li><a href="#mcp-tools">MCP tools</a></li>` : ""
  }${guides.map((g) => html`<li><a href="/docs/notes/${g.slug}">${g.title}</a></li>`)}</ul>
${[...groups].map(
  ([tag, ops]) =>
    html`<h2>${tag}</h2><ul>${ops.map(
      (d) =>
        html`<li><a href="#${d.op.operationId}"><span class="m m-${d.method}">${d.method.toUpperCase()}</span><span>${d.op.summary}</span></a></li>`,
    )}</ul>`,
)}`;
}

function toolsSection(tools: Operation[]) {
  if (tools.length === 0) return "";
  return html`<h2 class="group" id="mcp-tools">MCP tools</h2>
<p>The same operations as tools of the MCP server at <code>/mcp</code> (Streamable HTTP, Bearer API key or OAuth token). A key needs one of the key scopes listed; an OAuth token the scope listed (<code>crew:write</code> includes <code>crew:read</code>, <code>crew:admin</code> grants what <code>crew:write</code> grants); the plan caps both. Server card: <a href="/.well-known/mcp.json">/.well-known/mcp.json</a>; input and output schemas: <a href="/llms-full.txt">/llms-full.txt</a>.</p>
<table class="tools">
<thead><tr><th scope="col">Tool</th><th scope="col">Needs</th><th scope="col">Does</th></tr></thead>
<tbody>${tools.map((op) =>
    op.mcp
      ? html`<tr><td class="name">${op.mcp.name}</td><td>${raw(inlineText(`Key: ${op.mcp.access.keyScopes.map((k) => `\`${k}\``).join(" / ")}; OAuth: \`${op.mcp.access.oauthScope}\``))}</td><td><strong>${op.mcp.title}.</strong> ${op.description}</td></tr>`
      : "",
  )}</tbody>
</table>`;
}

export function referencePage(doc: OpenApiDocument, ops: Operation[], guides: GuideLink[] = []) {
  const resolve = resolverFor(doc);
  const groups = operationsByTag(doc);
  const tools = ops.filter((op) => op.mcp);
  const body = html`<h1>${doc.info.title}</h1>
<p class="lead">${doc.info.summary}</p>
<ul class="links"><li><a href="/openapi.json">OpenAPI 3.1 document</a></li><li><a href="/docs/errors">Error codes</a></li><li><a href="/llms.txt">llms.txt</a></li><li><a href="/.well-known/mcp.json">MCP server card</a></li></ul>
<section id="overview" aria-labelledby="overview-title"><h2 class="group" id="overview-title">Overview</h2>${raw(renderNote(doc.info.description))}</section>
${guides.length > 0 ? html`<section id="guides" aria-labelledby="guides-title"><h2 class="group" id="guides-title">Guides and decisions</h2><ul class="notes">${guides.map((g) => html`<li><a href="/docs/notes/${g.slug}">${g.title}</a></li>`)}</ul></section>` : ""}
${[...groups].map(([tag, list]) => html`<h2 class="group" id="tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-")}">${tag}</h2>${list.map((d) => operationArticle(doc, d, resolve))}`)}
${toolsSection(tools)}`;
  return page("Crew API reference", sideNav(groups, tools, guides), body);
}

export function errorsPage() {
  const nav = html`<a class="brand" href="/docs">Crew API</a>
<p class="version">Error codes</p>
<h2>Codes</h2>
<ul>${ERROR_CODES.map((e) => html`<li><a href="#${e.code}"><span class="m">${e.status}</span><span>${e.code}</span></a></li>`)}</ul>
<h2>Guide</h2><ul><li><a href="/docs">API reference</a></li></ul>`;
  const body = html`<h1>Error codes</h1>
<p class="lead">Every error of the REST API is JSON: <code>{error, message, request_id, docs_url, auth_url?, required_scope?, issues?}</code>. The <code>docs_url</code> of an error points to its entry below.</p>
${ERROR_CODES.map(
  (e) => html`<section class="error-code" id="${e.code}" aria-labelledby="${e.code}-title">
<h2 id="${e.code}-title"><code>${e.code}</code><span class="status">HTTP ${e.status}</span> ${e.title}</h2>
<p><strong>When:</strong> ${raw(inlineText(e.when))}</p>
<p><strong>Fix:</strong> ${raw(inlineText(e.fix))}</p>
${e.headers ? html`<p><strong>Headers:</strong> ${e.headers.map((h, i) => html`${i > 0 ? ", " : ""}<code>${h}</code>`)}</p>` : ""}
</section>`,
)}`;
  return page("Crew API error codes", nav, body);
}
