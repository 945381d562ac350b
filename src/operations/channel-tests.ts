/**
 * "Send a test message" for the organization's Slack and Teams connections (src/docs/notes/delivery.md),
 * owners only: one message now, straight to the saved channel or webhook (not through the outbox,
 * so the answer says at once whether it arrived). REST for admin keys; the settings pages call the
 * same operations.
 */
import * as v from "valibot";
import { writeAccess } from "../auth/access.ts";
import { sendTeamsTest } from "../integrations/notify/teams.ts";
import { sendSlackTest } from "../integrations/slack/check.ts";
import { slackConnection } from "../integrations/slack/connection.ts";
import { defineOperation } from "./registry.ts";

const tags = ["Integrations"];

const Outcome = v.variant("ok", [
  v.object({ ok: v.literal(true) }),
  v.object({
    ok: v.literal(false),
    error: v.pipe(v.string(), v.description("Why it did not arrive (Slack's error code, Teams' status).")),
  }),
]);

export const testSlackOp = defineOperation({
  id: "testSlack",
  role: "owner",
  summary: "Send a Slack test message",
  description: "Posts a short test message to the saved standup channel now and says whether Slack took it (else Slack's error code).",
  input: v.strictObject({}),
  output: Outcome,
  rest: { method: "POST", path: "/api/integrations/slack/test", access: writeAccess(), from: "none", tags },
  handler: async (ctx) => {
    const slack = await slackConnection(ctx, ctx.principal.orgId);
    if (!slack)
      return { ok: false as const, error: "Slack is not connected (or its token no longer opens): connect it in Settings → Slack." };
    return sendSlackTest(ctx.config, slack);
  },
});

export const testTeamsOp = defineOperation({
  id: "testTeams",
  role: "owner",
  summary: "Send a Teams test message",
  description: "Posts a short test card to the saved Teams webhook now, through the outbound policy, and says whether Teams took it.",
  input: v.strictObject({}),
  output: Outcome,
  rest: { method: "POST", path: "/api/integrations/teams/test", access: writeAccess(), from: "none", tags },
  handler: (ctx) => sendTeamsTest(ctx, ctx.principal.orgId),
});
