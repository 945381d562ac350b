/**
 * The audit log (src/docs/notes/operating.md) as the owners' pages read it: the latest entries, or
 * only the backups written and restored (/settings/backups, since the files live wherever
 * BACKUP_DIR points). An operation of the web app only; `crew audit` reads the whole log on the
 * server.
 */
import * as v from "valibot";
import { iso } from "../lib/clock.ts";
import { listAudit, listBackupEvents } from "../store/audit/audit.ts";
import { defineOperation } from "./registry.ts";
import { DateTime } from "./schemas.ts";

const Actor = v.variant("kind", [
  v.object({ kind: v.literal("user"), userId: v.string() }),
  v.object({ kind: v.literal("cli") }),
  v.object({ kind: v.literal("system") }),
]);

export const AuditEntryView = v.object({
  at: DateTime,
  event: v.string(),
  actor: Actor,
  subject: v.nullable(v.string()),
  detail: v.record(v.string(), v.unknown()),
});

export const listAuditOp = defineOperation({
  id: "listAudit",
  role: "owner",
  summary: "The audit log",
  description: "Who did what in the organization, newest first; `only: backups` keeps the backups written and restored. Owners only.",
  input: v.strictObject({
    limit: v.pipe(v.number("Must be a number."), v.integer("Must be a whole number."), v.minValue(1), v.maxValue(200)),
    only: v.optional(v.picklist(["backups"], "Must be backups.")),
  }),
  output: v.object({ entries: v.array(AuditEntryView) }),
  handler: async (ctx, input) => {
    const orgId = ctx.principal.orgId;
    const entries =
      input.only === "backups" ? await listBackupEvents(ctx.db, orgId, input.limit) : await listAudit(ctx.db, orgId, input.limit);
    return { entries: entries.map((e) => ({ at: iso(e.at), event: e.event, actor: e.actor, subject: e.subject, detail: e.detail })) };
  },
});
