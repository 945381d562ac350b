/**
 * Owner operations on one named user of the organization that the server operator runs from the
 * command line (src/docs/notes/operating.md): a user with a password, a password set or a reset
 * link, an API key made or revoked for them. No REST or MCP projection: a credential must not mint
 * keys or passwords for others; `role: "owner"` puts the owner check in the operation all the same.
 */
import * as v from "valibot";
import { actorOf, principalFor } from "../auth/access.ts";
import { hashPassword, Password } from "../auth/passwords.ts";
import { createSignInLink } from "../auth/sign-in-links.ts";
import { PLANS, ROLES } from "../domain.ts";
import { ApiError, notFound } from "../errors.ts";
import { HOUR, iso, isoOrNull } from "../lib/clock.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { findActiveKeyOwner, revokeApiKey } from "../store/auth/api-keys.ts";
import { isDeactivated, setPassword } from "../store/auth/user-admin.ts";
import { activeOwnerIds, getUserById, type User } from "../store/auth/users.ts";
import { CreateKeyInput, createKeyFor, Hash } from "./keys.ts";
import { defineOperation, type OperationContext } from "./registry.ts";
import { DateTime, Email, Title } from "./schemas.ts";
import { addUser } from "./users.ts";

/** How long a password reset link works. */
export const RESET_LINK_LIFETIME = HOUR;

const UserId = v.pipe(v.string("Must be a string."), v.maxLength(100, "Not a user id."));

const UserRecord = v.object({
  id: v.string(),
  orgId: v.string(),
  email: v.string(),
  name: v.string(),
  plan: v.picklist(PLANS),
  role: v.picklist(ROLES),
  timeZone: v.nullable(v.string()),
  createdAt: DateTime,
  deactivatedAt: v.nullable(DateTime),
});

/** An active user of the principal's organization: another organization's is "not found" too. */
async function activeUser(ctx: OperationContext, id: string): Promise<User> {
  const user = await getUserById(ctx.db, id);
  if (!user || user.orgId !== ctx.principal.orgId) throw notFound(`User ${id}`);
  if (await isDeactivated(ctx.db, id)) throw new ApiError(409, "conflict", `${user.email} is deactivated.`);
  return user;
}

export const createUserWithPasswordOp = defineOperation({
  id: "createUserWithPassword",
  role: "owner",
  summary: "Create a user with a password",
  description:
    "Creates a user who signs in with the given password at once (no sign-in link). Without a role, the first user of an organization with no active owner becomes its owner (as on the setup page), later ones members. Owners only.",
  input: v.strictObject({
    email: Email,
    password: Password,
    name: v.optional(Title),
    role: v.optional(v.picklist(ROLES, "Must be owner or member.")),
    plan: v.optional(v.picklist(PLANS, `Must be one of ${PLANS.join(", ")}.`), "lite"),
  }),
  output: UserRecord,
  handler: async (ctx, input) => {
    // An organization without an owner has no one who can manage it in the web app.
    const role = input.role ?? ((await activeOwnerIds(ctx.db, ctx.principal.orgId)).length === 0 ? "owner" : "member");
    const name = input.name ?? input.email.split("@")[0] ?? input.email;
    const user = await addUser(ctx, { email: input.email, name, role, plan: input.plan }, await hashPassword(input.password));
    return { ...user, createdAt: iso(user.createdAt), deactivatedAt: isoOrNull(user.deactivatedAt) };
  },
});

export const setUserPasswordOp = defineOperation({
  id: "setUserPassword",
  role: "owner",
  summary: "Set a user's password",
  description: "Sets an active user's password and ends their sessions. Owners only.",
  input: v.strictObject({ id: UserId, password: Password }),
  output: v.object({ ok: v.literal(true) }),
  handler: async (ctx, input) => {
    const user = await activeUser(ctx, input.id);
    await setPassword(ctx.db, user.id, await hashPassword(input.password));
    await recordAudit(ctx.db, user.orgId, "user.password_reset", actorOf(ctx.principal), ctx.clock.now(), user.email, { via: ctx.via });
    return { ok: true as const };
  },
});

export const createPasswordResetLinkOp = defineOperation({
  id: "createPasswordResetLink",
  role: "owner",
  summary: "A password reset link for a user",
  description:
    "A one-time link (valid one hour) where an active user chooses a new password and is signed in. The reset is audited when the link is used. Owners only.",
  input: v.strictObject({ id: UserId }),
  output: v.object({ link: v.string(), expiresAt: DateTime }),
  handler: async (ctx, input) => {
    const user = await activeUser(ctx, input.id);
    const now = ctx.clock.now();
    const token = await createSignInLink(ctx.db, user.id, "reset", now, RESET_LINK_LIFETIME);
    return { link: `${ctx.config.baseUrl}/reset-password?token=${token}`, expiresAt: iso(now + RESET_LINK_LIFETIME) };
  },
});

export const createUserApiKeyOp = defineOperation({
  id: "createUserApiKey",
  role: "owner",
  summary: "Create an API key for a user",
  description:
    "Creates an API key held by an active user of the organization, within the scopes their plan allows (403 plan_upgrade_required otherwise). The raw key is in this answer only. Owners only.",
  input: v.strictObject({ userId: UserId, ...CreateKeyInput.entries }),
  output: v.object({
    key: v.string(),
    hash: v.string(),
    name: v.string(),
    scopes: CreateKeyInput.entries.scopes,
    createdAt: DateTime,
  }),
  handler: async (ctx, { userId, ...input }) => {
    const user = await activeUser(ctx, userId);
    const holder = principalFor(user.id, user, ctx.principal.credential);
    return createKeyFor(ctx, holder, input, { actor: actorOf(ctx.principal), whose: `The plan of ${user.email}` });
  },
});

export const revokeUserApiKeyOp = defineOperation({
  id: "revokeUserApiKey",
  role: "owner",
  summary: "Revoke any API key of the organization",
  description: "Revokes an active key of any user of the organization, by its hash; the next request with it gets 401. Owners only.",
  input: v.strictObject({ hash: Hash }),
  output: v.object({ email: v.string() }),
  handler: async (ctx, input) => {
    const owner = await findActiveKeyOwner(ctx.db, input.hash);
    const now = ctx.clock.now();
    if (!owner || owner.orgId !== ctx.principal.orgId || !(await revokeApiKey(ctx.db, owner.userId, input.hash, now)))
      throw new ApiError(404, "not_found", "No active API key has this hash.");
    await recordAudit(ctx.db, owner.orgId, "key.revoked", actorOf(ctx.principal), now, input.hash, { user: owner.email });
    return { email: owner.email };
  },
});
