/**
 * POST /api/agents/{id}/trigger (src/docs/notes/connections.md): the body is the event itself, any
 * JSON of at most 64 KiB (413 beyond). Three ways in, checked in this order: a Standard Webhooks
 * signature (webhook-id, webhook-timestamp, webhook-signature) with the agent's trigger secret —
 * the run acts as the owner who made the secret, and a bad signature is 401; else a Bearer
 * credential (the usual gate: 401, quota 429); else the signed-in session (same-origin). Then the
 * one door: `invoke(triggerAgent)` (owner role, scope, input), and 202 with the run's id.
 */
import type { Context } from "hono";
import { principalFor, writeAccess } from "../auth/access.ts";
import { admit } from "../auth/admit.ts";
import { consumeQuota, quotaHeaders } from "../auth/quota.ts";
import { sessionPrincipal } from "../auth/session-principal.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import type { Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { isJsonMediaType, readBodyText } from "../http/body.ts";
import { MAX_EVENT_BYTES, triggerAgentOp, triggerPurpose } from "../operations/agent-trigger.ts";
import { invoke } from "../operations/invoke.ts";
import type { Operation } from "../operations/registry.ts";
import { getUserById } from "../store/auth/users.ts";
import { triggerSecretsOf } from "../store/runs/agent-triggers.ts";
import { openWebhookSecret } from "../webhooks/secret-at-rest.ts";
import { verifySignature } from "../webhooks/sign.ts";

/** Organizations tried for one signed post (the agent id is the same in each). */
const MAX_CANDIDATES = 50;

const badSignature = () =>
  new ApiError(
    401,
    "invalid_signature",
    "The webhook signature does not match the agent's trigger secret, or its timestamp is more than 5 minutes away.",
  );

async function readEvent(c: Context<AppEnv>): Promise<{ text: string; payload: unknown }> {
  if (!isJsonMediaType(c.req.header("content-type"))) {
    throw new ApiError(415, "unsupported_media_type", "Send the event as JSON with Content-Type: application/json.");
  }
  let text: string;
  try {
    text = await readBodyText(c.req.raw, MAX_EVENT_BYTES);
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) {
      throw new ApiError(413, "payload_too_large", "The event is over 64 KiB.", { headers: { Connection: "close" } });
    }
    throw error;
  }
  try {
    return { text, payload: JSON.parse(text) };
  } catch {
    throw new ApiError(400, "invalid_request", "The request body is not valid JSON.", {
      issues: [{ path: "(body)", message: "Not valid JSON." }],
    });
  }
}

/** The owner who made the secret the post is signed with, or 401. */
async function signedPrincipal(deps: AppDeps, c: Context<AppEnv>, agentId: string, body: string): Promise<Principal> {
  const headers = {
    id: c.req.header("webhook-id"),
    timestamp: c.req.header("webhook-timestamp"),
    signature: c.req.header("webhook-signature"),
  };
  for (const candidate of await triggerSecretsOf(deps.db, agentId, MAX_CANDIDATES)) {
    if (!candidate.secret || !candidate.secretBy) continue;
    let secret: string;
    try {
      secret = await openWebhookSecret(deps.config, triggerPurpose(candidate.orgId, agentId), candidate.secret);
    } catch {
      continue;
    }
    if (!verifySignature(secret, headers, body, deps.clock.now())) continue;
    const user = await getUserById(deps.db, candidate.secretBy);
    if (!user || user.deactivatedAt !== null || user.orgId !== candidate.orgId) throw badSignature();
    // The secret stands in for its owner's session, for this one operation only.
    return principalFor(user.id, user, { type: "session", id: "trigger-secret" });
  }
  throw badSignature();
}

export function agentTriggerRoute(deps: AppDeps) {
  return async function agentTrigger(c: Context<AppEnv>) {
    const agentId = c.req.param("id") ?? "";
    const event = await readEvent(c);
    let principal: Principal;
    let headers: Record<string, string> = {};
    if (c.req.header("webhook-signature") !== undefined) {
      principal = await signedPrincipal(deps, c, agentId, event.text);
      const quota = await consumeQuota(deps.quota, principal.userId, deps.config.rateLimitPerHour, deps.clock.now());
      headers = quotaHeaders(quota);
      if (!quota.allowed)
        throw new ApiError(429, "rate_limited", `Hourly request quota of ${quota.limit} spent; retry after ${quota.retryAfter} s.`, {
          headers,
        });
    } else if (c.req.header("authorization") !== undefined) {
      ({ principal, headers } = await admit(deps, c.req.header("authorization")));
    } else {
      principal = await sessionPrincipal(deps, c);
    }
    try {
      const result = await invoke(
        triggerAgentOp as unknown as Operation,
        { ...deps, principal, via: "rest", requestId: c.get("requestId") },
        { access: writeAccess(), input: () => ({ agent: agentId, payload: event.payload }), inputName: "request body" },
      );
      return c.json(result as object, 202, headers);
    } catch (error) {
      // Every answer after authentication carries the quota headers, errors too (src/auth/protect.ts does the same).
      if (error instanceof ApiError)
        throw new ApiError(error.status, error.code, error.message, { ...error.extra, headers: { ...headers, ...error.extra.headers } });
      throw error;
    }
  };
}
