/**
 * A person's Google Workspace and Microsoft 365 connections (src/docs/notes/connections.md): list
 * them (never a token) and disconnect one (revoked at the provider where it can be). Connecting
 * is the browser's OAuth walk on /settings/connections. REST with a write credential (admin key
 * or crew:write), like the calendar; the page calls the same operations.
 */
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { CONNECTION_PROVIDERS } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { connectionStatuses, disconnect } from "../integrations/connections/connections.ts";
import { PROVIDERS, providerEnv } from "../integrations/connections/providers.ts";
import { iso } from "../lib/clock.ts";
import { defineOperation } from "./registry.ts";
import { DateTime } from "./schemas.ts";

const Provider = v.pipe(
  v.picklist(CONNECTION_PROVIDERS, "Must be google or microsoft."),
  v.description("google (Google Workspace) or microsoft (Microsoft 365)."),
);

const Connection = v.object({
  provider: Provider,
  email: v.pipe(v.string(), v.description("The connected account.")),
  mail: v.pipe(v.boolean(), v.description("Whether the agents that read mail read this mailbox (read-only).")),
  calendar: v.pipe(v.boolean(), v.description("Whether crew_find_time, crew_calendar_create and the calendar agent use this calendar.")),
  scopes: v.pipe(v.array(v.string()), v.description("The scopes the provider granted.")),
  connectedAt: DateTime,
  problem: v.pipe(
    v.nullable(v.string()),
    v.description("Why the last use failed (the open google / microsoft integration alert), or null."),
  ),
});

export const listConnectionsOp = defineOperation({
  id: "listConnections",
  summary: "List your Google and Microsoft connections",
  description:
    "The calling person's connected Google Workspace and Microsoft 365 accounts: which account, whether its mail and calendar are used, the granted scopes, and the problem of its last use. Never a token. `providers` says which providers this server is set up for (GOOGLE_* and MICROSOFT_*); connect on /settings/connections.",
  input: v.strictObject({}),
  output: v.object({
    connections: v.array(Connection),
    providers: v.array(v.object({ id: Provider, label: v.string(), available: v.boolean() })),
  }),
  rest: { method: "GET", path: "/api/integrations/connections", access: writeAccess("read"), from: "none", tags: ["Integrations"] },
  handler: async (ctx) => ({
    connections: (await connectionStatuses(ctx, ctx.principal)).map((c) => ({ ...c, connectedAt: iso(c.connectedAt) })),
    providers: CONNECTION_PROVIDERS.map((id) => ({ id, label: PROVIDERS[id].label, available: providerEnv(ctx.config, id) !== null })),
  }),
});

export const deleteConnectionOp = defineOperation({
  id: "deleteConnection",
  summary: "Disconnect a Google or Microsoft account",
  description:
    "Revokes the calling person's connection at the provider (Google's revocation endpoint; Microsoft has none for one grant, so its tokens are only deleted) and deletes its tokens and read position; its open alert is resolved. The account itself is untouched. 404 when that provider is not connected.",
  input: v.strictObject({ provider: Provider }),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/integrations/connections/{provider}", access: writeAccess(), from: "none", tags: ["Integrations"] },
  handler: async (ctx, input) => {
    const who = { ...ctx.principal, actor: { kind: "user" as const, userId: ctx.principal.userId } };
    if (!(await disconnect(ctx, who, input.provider)))
      throw new ApiError(404, "not_found", `No ${PROVIDERS[input.provider].label} account is connected.`);
    return { ok: true as const };
  },
});
