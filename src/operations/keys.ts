/**
 * API key management (src/docs/notes/access.md) on the signed-in browser session: list, create, revoke. REST only
 * (`auth: "session"`: no Bearer, no quota, Origin-checked); no MCP tool, since a key must not be
 * able to mint keys. The dashboard's forms call the same functions.
 */
import * as v from "valibot";
import { actorOf } from "../auth/access.ts";
import { generateApiKey } from "../auth/api-keys.ts";
import type { Config } from "../config.ts";
import { allowedKeyScopes, cheapestPlanFor, KEY_SCOPES, type KeyScope, PLANS, type Plan, type Principal } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { HOUR, iso, isoOrNull } from "../lib/clock.ts";
import { type AuditActor, recordAudit } from "../store/audit/audit.ts";
import { insertApiKeyWithinLimit, listActiveApiKeys, oldestKeyCreatedSince, revokeApiKey } from "../store/auth/api-keys.ts";
import type { Db } from "../store/db.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, maxChars } from "./schemas.ts";

const Scope = v.picklist(KEY_SCOPES, `Must be one of ${KEY_SCOPES.join(", ")}.`);
export const Hash = v.pipe(
  v.string("Must be a string."),
  v.regex(/^[0-9a-fA-F]{64}$/, "Must be 64 hexadecimal characters (the key's SHA-256)."),
  v.toLowerCase(),
);

export const KeyName = v.pipe(
  v.string("Must be a string."),
  v.trim(),
  v.minLength(1, "Must not be empty."),
  maxChars(100, "Must be at most 100 characters."),
);

export const KeyScopes = v.pipe(
  v.array(Scope, "Must be an array of scopes."),
  v.minLength(1, "Give at least one scope."),
  v.check((scopes) => new Set(scopes).size === scopes.length, "Each scope may appear once."),
);

export const CreateKeyInput = v.strictObject({
  name: v.pipe(KeyName, v.description("A label to recognise the key by, 1–100 characters.")),
  scopes: v.pipe(KeyScopes, v.description("At least one of admin, read, briefing, agents, within the plan's allowed scopes.")),
});
export type CreateKeyInput = v.InferOutput<typeof CreateKeyInput>;

const CreatedKey = v.object({
  key: v.pipe(v.string(), v.description("The raw key, `crew_…`. Shown only in this response: store it now.")),
  hash: v.pipe(v.string(), v.description("Lower-case hex SHA-256 of the key: its identifier from now on.")),
  name: v.string(),
  scopes: v.array(Scope),
  createdAt: DateTime,
});
export type CreatedKey = v.InferOutput<typeof CreatedKey>;

const KeyListing = v.object({
  keys: v.array(
    v.object({
      hash: v.string(),
      name: v.string(),
      scopes: v.array(Scope),
      createdAt: DateTime,
      lastUsedAt: v.nullable(DateTime),
    }),
  ),
  allowedScopes: v.pipe(v.array(Scope), v.description("Scopes the user's plan lets a key carry; empty when the plan has no API access.")),
  plan: v.picklist(PLANS),
});
export type KeyListing = v.InferOutput<typeof KeyListing>;

interface KeyDeps {
  db: Db;
  config: Config;
  clock: { now(): number };
}

export async function listKeysFor(deps: KeyDeps, principal: Principal): Promise<KeyListing> {
  const keys = await listActiveApiKeys(deps.db, principal.userId);
  return {
    keys: keys.map((k) => ({
      hash: k.hash,
      name: k.name,
      scopes: k.scopes,
      createdAt: iso(k.createdAt),
      lastUsedAt: isoOrNull(k.lastUsedAt),
    })),
    allowedScopes: allowedKeyScopes(principal.plan),
    plan: principal.plan,
  };
}

/** 403 plan_upgrade_required when the plan allows no keys or not these scopes. */
export function assertScopesAllowed(plan: Plan, scopes: readonly KeyScope[], whose = "Your plan"): void {
  const allowed = allowedKeyScopes(plan);
  if (allowed.length === 0) {
    throw new ApiError(
      403,
      "plan_upgrade_required",
      `${whose} (${plan}) does not include API keys; the ${cheapestPlanFor("read")} plan does.`,
      { challenge_scope: scopes.join(" ") },
    );
  }
  const outside = scopes.filter((s) => !allowed.includes(s));
  if (outside.length > 0) {
    throw new ApiError(
      403,
      "plan_upgrade_required",
      `${whose} (${plan}) does not allow the scope ${outside.join(", ")} on a key; the ${cheapestPlanFor("write")} plan does.`,
      { challenge_scope: outside.join(" ") },
    );
  }
}

/** A key for `principal` (the holder); an owner making one for someone else passes who did it (`by`) and how to name the plan. */
export async function createKeyFor(
  deps: KeyDeps,
  principal: Principal,
  input: CreateKeyInput,
  by: { actor: AuditActor; whose: string } = { actor: actorOf(principal), whose: "Your plan" },
): Promise<CreatedKey> {
  assertScopesAllowed(principal.plan, input.scopes, by.whose);
  const now = deps.clock.now();
  // The per-hour limit guards the web and the API; the CLI (an operator on the server) has no quota.
  const limit = principal.credential.type === "cli" ? Number.MAX_SAFE_INTEGER : deps.config.keyCreatePerHour;
  const since = now - HOUR;
  const { key, hash } = generateApiKey();
  const inserted = await insertApiKeyWithinLimit(
    deps.db,
    { hash, userId: principal.userId, name: input.name, scopes: input.scopes },
    now,
    limit,
    since,
  );
  if (!inserted) {
    // Sliding hour: a slot frees one hour after the oldest creation still inside it.
    const oldest = (await oldestKeyCreatedSince(deps.db, principal.userId, since)) ?? now;
    const resetMs = oldest + HOUR;
    const retryAfter = Math.max(1, Math.ceil((resetMs - now) / 1000));
    throw new ApiError(429, "rate_limited", `At most ${limit} keys may be created per hour; retry after ${retryAfter} s.`, {
      headers: {
        "X-RateLimit-Limit": String(limit),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": String(Math.ceil(resetMs / 1000)),
        "Retry-After": String(retryAfter),
      },
    });
  }
  await recordAudit(deps.db, principal.orgId, "key.created", by.actor, now, hash, {
    name: input.name,
    scopes: input.scopes,
  });
  return { key, hash, name: input.name, scopes: input.scopes, createdAt: iso(now) };
}

/** Revocation is immediate: Bearer authentication reads the key row on every request. */
export async function revokeKeyFor(deps: KeyDeps, principal: Principal, hash: string): Promise<{ ok: true }> {
  const revoked = await revokeApiKey(deps.db, principal.userId, hash, deps.clock.now());
  // Another user's key is "not found" too: its existence is not this user's business.
  if (!revoked) throw new ApiError(404, "not_found", "No active key of yours has this hash.");
  await recordAudit(deps.db, principal.orgId, "key.revoked", actorOf(principal), deps.clock.now(), hash);
  return { ok: true };
}

export const listApiKeysOp = defineOperation({
  id: "listApiKeys",
  summary: "List your API keys",
  description:
    "Active API keys of the signed-in user, newest first, with when each was last used, plus the scopes the user's plan allows on a key. Needs a signed-in browser session (cookie), not a Bearer credential.",
  input: v.strictObject({}),
  output: KeyListing,
  rest: { method: "GET", path: "/api/mcp/keys", auth: "session", access: null, from: "query", tags: ["API keys"] },
  handler: (ctx) => listKeysFor(ctx, ctx.principal),
});

export const createApiKeyOp = defineOperation({
  id: "createApiKey",
  summary: "Create an API key",
  description:
    "Creates an API key for the signed-in user. The raw key (`crew_…`) is in this response only; Crew stores its SHA-256. Scopes outside the plan's allowed set: 403 plan_upgrade_required. Over KEY_CREATE_PER_HOUR creations (revoked keys included) in the last hour: 429 rate_limited. Needs a signed-in browser session.",
  input: CreateKeyInput,
  output: CreatedKey,
  rest: { method: "POST", path: "/api/mcp/keys", auth: "session", access: null, from: "body", tags: ["API keys"] },
  handler: (ctx, input) => createKeyFor(ctx, ctx.principal, input),
});

export const revokeApiKeyOp = defineOperation({
  id: "revokeApiKey",
  summary: "Revoke an API key",
  description:
    "Revokes one of the signed-in user's active keys, named by its hash (`?hash=`). Immediate: the next request with that key gets 401. 404 when the hash is not an active key of this user. Needs a signed-in browser session.",
  input: v.strictObject({ hash: v.pipe(Hash, v.description("The key's hash, as returned when it was created or listed.")) }),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/mcp/keys", auth: "session", access: null, from: "query", tags: ["API keys"] },
  handler: (ctx, input) => revokeKeyFor(ctx, ctx.principal, input.hash),
});
