/** Plain-language access requirements, shared by the OpenAPI descriptions, /docs and llms.txt. */
import type { Access } from "../auth/access.ts";
import type { Endpoint } from "./endpoints.ts";

const PLAN_FOR = { read: "pro, team_growth or a plan above", write: "operator or team_enterprise" } as const;

export const orList = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;

/** OAuth scopes that satisfy a requirement: crew:write includes crew:read; crew:admin grants what crew:write grants. */
export const oauthScopesSatisfying = (needed: Access["oauthScope"]): string[] =>
  needed === "crew:read" ? ["crew:read", "crew:write", "crew:admin"] : ["crew:write", "crew:admin"];

export function bearerAccessNote(access: Access): string {
  return `API key with scope ${orList(access.keyScopes.map((s) => `\`${s}\``))}, or OAuth token with \`${access.oauthScope}\`${
    access.oauthScope === "crew:read" ? " (or `crew:write`, `crew:admin`)" : " (or `crew:admin`)"
  }. Plan: ${PLAN_FOR[access.tier]}.`;
}

const sameAccess = (a: Access, b: Access) =>
  a.tier === b.tier && a.oauthScope === b.oauthScope && a.keyScopes.join() === b.keyScopes.join();

/** One paragraph per fact: who may call it, and how its MCP twin differs when it does. */
export function accessNotes(e: Endpoint): string[] {
  const notes: string[] = [];
  if (e.auth === "none") notes.push("Access: public, no credential.");
  if (e.auth === "session") {
    notes.push(
      "Access: a signed-in browser session (cookie `crew_session`) only; API keys and OAuth tokens are not accepted. Not quota-counted. State-changing requests must come from Crew's own origin (CSRF check).",
    );
    if (e.access) notes.push(`Plan: ${PLAN_FOR[e.access.tier]}.`);
  }
  if (e.auth === "bearer") {
    notes.push(e.access ? `Access: ${bearerAccessNote(e.access)}` : "Access: any valid API key or OAuth token.");
    notes.push("Counts against the hourly request quota.");
  }
  if (e.role === "owner")
    notes.push(
      "Role: owners of the organization only. A member gets 403 `forbidden`, whatever the key's scopes or the plan (the same on every door: REST, MCP, the web app).",
    );
  if (e.mcp) {
    const differs = e.access && e.auth === "bearer" && !sameAccess(e.access, e.mcp.access);
    notes.push(
      differs
        ? `MCP: also the tool \`${e.mcp.name}\`, with its own requirement: ${bearerAccessNote(e.mcp.access)} An operation may carry a different requirement per projection; the registry states both.`
        : `MCP: also the tool \`${e.mcp.name}\`.`,
    );
  }
  return notes;
}
