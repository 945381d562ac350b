/**
 * Event triggers (src/docs/notes/connections.md): another tool hands an agent an event — a JSON
 * payload of at most 64 KiB, an external input the run cites like any other (`kind: "event"`) —
 * and the run starts at once (`trigger: "event"`), within quota and budget. REST is
 * POST /api/agents/{id}/trigger (src/rest/agent-trigger.ts: an owner's key or session, or a
 * Standard Webhooks signature with the agent's trigger secret); MCP is `crew_trigger_agent`.
 * The secret is made here and shown once.
 */
import * as v from "valibot";
import { jobOf } from "../agents/jobs.ts";
import { runAgent } from "../agents/run-agent.ts";
import { assertAgent } from "../agents/run-api.ts";
import { writeAccess } from "../auth/access.ts";
import { ApiError } from "../errors.ts";
import { iso } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { setTriggerSecret } from "../store/runs/agent-triggers.ts";
import { sealWebhookSecret } from "../webhooks/secret-at-rest.ts";
import { newWebhookSecret } from "../webhooks/sign.ts";
import { AgentIdParam, tags } from "./agent-runs.ts";
import { defineOperation } from "./registry.ts";
import { DateTime } from "./schemas.ts";

/** The most of a payload, as JSON text. */
export const MAX_EVENT_BYTES = 64 * 1024;

/** Binds a sealed trigger secret to its organization and agent: copied elsewhere, it does not open. */
export const triggerPurpose = (orgId: string, agentId: string) => `trigger:${orgId}:${agentId}`;

const Payload = v.pipe(
  v.unknown(),
  v.check((p) => p !== undefined, "Send the event's JSON payload."),
  v.check((p) => new TextEncoder().encode(JSON.stringify(p) ?? "").byteLength <= MAX_EVENT_BYTES, "Must be at most 64 KiB of JSON."),
  v.description("The event, any JSON (at most 64 KiB): handed to the run as external data it may cite, never as instructions."),
);

export const triggerAgentOp = defineOperation({
  id: "triggerAgent",
  role: "owner",
  summary: "Hand an agent an event",
  description:
    "Starts a run of a model-backed agent now with `payload` (any JSON, at most 64 KiB) as an external input of kind `event`, which its records may cite; the run is marked `trigger: \"event\"` in its history. Answers as soon as the run has an id (`status: started`); the run goes on in the background (crew://agents/{id}/runs). Quota and the agent's token budget apply; refused (a conflict) when the agent is not model-backed or cannot run yet (no model, a missing source). Organization owners only; other tools can also sign the POST with the agent's trigger secret.",
  input: v.strictObject({
    agent: v.pipe(v.string(), v.description("The agent's id, one of the 17 (e.g. sales, inbox).")),
    payload: Payload,
  }),
  output: v.object({
    runId: v.string(),
    agentId: v.string(),
    status: v.pipe(v.literal("started"), v.description("The run has started; its outcome is in the agent's run history.")),
  }),
  mcp: {
    name: "crew_trigger_agent",
    title: "Hand an agent an event",
    access: writeAccess(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    links: (out) => [{ uri: `crew://agents/${out.agentId}/runs`, name: "agent-runs" }],
  },
  handler: async (ctx, input) => {
    assertAgent(input.agent);
    if (jobOf(input.agent).runner !== "model") {
      throw new ApiError(409, "not_triggerable", `${input.agent} is not model-backed: only model-backed agents take events.`);
    }
    const now = ctx.clock.now();
    const event = { id: newId("evt", now), payload: input.payload, receivedAt: now };
    // The run goes on after the answer: its id is all the caller waits for (the first resolve wins).
    let notStarted = "see its page.";
    const runId = await new Promise<string | null>((resolve) => {
      runAgent(ctx, ctx.principal.orgId, input.agent, { kind: "event", event, onStarted: resolve })
        .then((run) => {
          if (!run?.runId && run) notStarted = run.summary;
          resolve(run?.runId ?? null);
        })
        .catch((error) => {
          ctx.log.error("triggered run failed", { agent: input.agent, error: String(error).split("\n")[0] });
          resolve(null);
        });
    });
    // Not started: no model, or a source it needs is missing (the summary says which).
    if (!runId) throw new ApiError(409, "cannot_run_yet", `${input.agent} cannot run yet: ${notStarted}`);
    return { runId, agentId: input.agent, status: "started" as const };
  },
});

export const createTriggerSecretOp = defineOperation({
  id: "createTriggerSecret",
  role: "owner",
  summary: "Make an agent's trigger secret",
  description:
    "Makes (or replaces) the agent's event-trigger secret, a Standard Webhooks `whsec_…` secret shown only in this answer: a tool that signs POST /api/agents/{id}/trigger with it (webhook-id, webhook-timestamp within 5 minutes, webhook-signature) needs no API key. The run acts as the owner who made the secret. The previous secret stops working at once.",
  input: v.strictObject({ id: AgentIdParam }),
  output: v.object({ secret: v.pipe(v.string(), v.description("Shown once; stored sealed.")), createdAt: DateTime }),
  rest: { method: "POST", path: "/api/agents/{id}/trigger-secret", access: writeAccess(), from: "none", tags },
  handler: async (ctx, input) => {
    assertAgent(input.id);
    const secret = newWebhookSecret();
    const orgId = ctx.principal.orgId;
    const now = ctx.clock.now();
    await setTriggerSecret(
      ctx.db,
      orgId,
      input.id,
      await sealWebhookSecret(ctx.config, triggerPurpose(orgId, input.id), secret),
      ctx.principal.userId,
    );
    await recordAudit(ctx.db, orgId, "agent.trigger_secret_created", { kind: "user", userId: ctx.principal.userId }, now, input.id, {});
    return { secret, createdAt: iso(now) };
  },
});
