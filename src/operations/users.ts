/**
 * The organization's people (src/docs/notes/web-app.md, owners only): list, create with a one-time sign-in link,
 * change role and plan. Web only for now (no REST or MCP projection); `role: "owner"` puts the owner
 * check in the operation, so any later projection inherits it.
 */
import * as v from "valibot";
import { actorOf } from "../auth/access.ts";
import { hashPassword } from "../auth/passwords.ts";
import { createSignInLink } from "../auth/sign-in-links.ts";
import { PLANS, type Plan, ROLES, type Role } from "../domain.ts";
import { ApiError, notFound } from "../errors.ts";
import { disconnectAll } from "../integrations/connections/connections.ts";
import { DAY, iso, isoOrNull } from "../lib/clock.ts";
import { randomSecret } from "../lib/random.ts";
import { recordAudit } from "../store/audit/audit.ts";
import {
  activeOwnerIds,
  createUser,
  deactivateUser,
  EmailTakenError,
  getUserById,
  listOrgUsers,
  type User,
  updateOrgUser,
} from "../store/auth/users.ts";
import { defineOperation, type OperationContext } from "./registry.ts";
import { DateTime, Email, Title } from "./schemas.ts";

/** How long a new user's sign-in link works. */
export const SIGN_IN_LINK_LIFETIME = 7 * DAY;

const UserView = v.object({
  id: v.string(),
  email: v.string(),
  name: v.string(),
  plan: v.picklist(PLANS),
  role: v.picklist(ROLES),
  createdAt: DateTime,
  deactivatedAt: v.nullable(DateTime),
});

export const listUsersOp = defineOperation({
  id: "listUsers",
  role: "owner",
  summary: "Users of the organization",
  description: "The organization's users, owners first. Owners only.",
  input: v.strictObject({}),
  output: v.object({ users: v.array(UserView) }),
  handler: async (ctx) => {
    const users = await listOrgUsers(ctx.db, ctx.principal.orgId);
    return {
      users: users.map((u) => ({
        id: u.id,
        email: u.email,
        name: u.name,
        plan: u.plan,
        role: u.role,
        createdAt: iso(u.createdAt),
        deactivatedAt: isoOrNull(u.deactivatedAt),
      })),
    };
  },
});

export const createUserOp = defineOperation({
  id: "createUser",
  role: "owner",
  summary: "Create a user",
  description:
    "Creates a user in the owner's organization and returns a one-time sign-in link (valid 7 days) where they choose their password. Owners only.",
  input: v.strictObject({
    name: Title,
    email: Email,
    role: v.optional(v.picklist(ROLES, "Must be owner or member."), "member"),
    plan: v.optional(v.picklist(PLANS, `Must be one of ${PLANS.join(", ")}.`), "lite"),
  }),
  output: v.object({ userId: v.string(), link: v.string(), expiresAt: DateTime }),
  handler: async (ctx, input) => {
    const now = ctx.clock.now();
    // Nobody knows this password: the person sets their own through the link.
    const user = await addUser(ctx, input, await hashPassword(randomSecret(32)));
    const token = await createSignInLink(ctx.db, user.id, "welcome", now, SIGN_IN_LINK_LIFETIME);
    return { userId: user.id, link: `${ctx.config.baseUrl}/welcome?token=${token}`, expiresAt: iso(now + SIGN_IN_LINK_LIFETIME) };
  },
});

/** Creates a user of the principal's organization (email unique: a 400 on `email`), audited as `user.created`. */
export async function addUser(
  ctx: OperationContext,
  input: { name: string; email: string; role: Role; plan: Plan },
  passwordHash: string,
): Promise<User> {
  const now = ctx.clock.now();
  let user: User;
  try {
    user = await createUser(ctx.db, { orgId: ctx.principal.orgId, ...input, passwordHash }, now);
  } catch (error) {
    if (error instanceof EmailTakenError) {
      throw new ApiError(400, "invalid_request", "A user with this email exists already.", {
        issues: [{ path: "email", message: "A user with this email exists already." }],
      });
    }
    throw error;
  }
  await recordAudit(ctx.db, ctx.principal.orgId, "user.created", actorOf(ctx.principal), now, input.email, {
    plan: input.plan,
    role: input.role,
  });
  return user;
}

/** The organization keeps at least one active owner. */
async function assertNotLastOwner(ctx: OperationContext, userId: string, path: string): Promise<void> {
  const owners = await activeOwnerIds(ctx.db, ctx.principal.orgId);
  if (owners.length === 1 && owners[0] === userId) {
    throw new ApiError(400, "invalid_request", "The organization needs an owner: make someone else an owner first.", {
      issues: [{ path, message: "The last owner stays an owner." }],
    });
  }
}

export const updateUserOp = defineOperation({
  id: "updateUser",
  role: "owner",
  summary: "Change a user's role or plan",
  description: "Changes the role (owner, member) or plan of a user of the organization. The last owner stays an owner. Owners only.",
  input: v.strictObject({
    id: v.string(),
    role: v.optional(v.picklist(ROLES, "Must be owner or member.")),
    plan: v.optional(v.picklist(PLANS, `Must be one of ${PLANS.join(", ")}.`)),
  }),
  output: v.object({ ok: v.literal(true) }),
  handler: async (ctx, input) => {
    if (input.role === "member") await assertNotLastOwner(ctx, input.id, "role");
    const before = await getUserById(ctx.db, input.id);
    if (!before || before.orgId !== ctx.principal.orgId) throw notFound(`User ${input.id}`);
    if (!(await updateOrgUser(ctx.db, ctx.principal.orgId, input.id, { role: input.role, plan: input.plan })))
      throw notFound(`User ${input.id}`);
    // One row per real change: saving the form with the same values records nothing.
    const now = ctx.clock.now();
    if (input.role && input.role !== before.role)
      await recordAudit(ctx.db, ctx.principal.orgId, "user.role_changed", actorOf(ctx.principal), now, before.email, {
        role: input.role,
        from: before.role,
      });
    if (input.plan && input.plan !== before.plan)
      await recordAudit(ctx.db, ctx.principal.orgId, "user.plan_changed", actorOf(ctx.principal), now, before.email, {
        plan: input.plan,
        from: before.plan,
      });
    return { ok: true as const };
  },
});

export const deactivateUserOp = defineOperation({
  id: "deactivateUser",
  role: "owner",
  summary: "Deactivate a user",
  description:
    "Deactivates a user of the organization: they can no longer sign in, and their sessions, API keys and OAuth grants stop working at once; what they wrote stays. Not yourself, not the last owner. Owners only.",
  input: v.strictObject({ id: v.string() }),
  output: v.object({ ok: v.literal(true) }),
  handler: async (ctx, input) => {
    // Guards a signed-in person against locking themselves out; the CLI is no one's session.
    if (input.id === ctx.principal.userId && ctx.principal.credential.type !== "cli") {
      throw new ApiError(400, "invalid_request", "You cannot deactivate yourself; ask another owner.", {
        issues: [{ path: "id", message: "Not yourself." }],
      });
    }
    await assertNotLastOwner(ctx, input.id, "id");
    if (!(await deactivateUser(ctx.db, ctx.principal.orgId, input.id, actorOf(ctx.principal), ctx.clock.now())))
      throw notFound(`Active user ${input.id}`);
    // Their Google and Microsoft connections go too, revoked at the provider (src/docs/notes/connections.md).
    await disconnectAll(ctx, { orgId: ctx.principal.orgId, userId: input.id }, actorOf(ctx.principal));
    return { ok: true as const };
  },
});
