/**
 * First-run setup (src/docs/notes/running.md#first-start), the decisions behind the /setup page (web/setup.ts): while no user
 * exists, a one-time link; its token (only the SHA-256 is stored) creates the owner, on the
 * operator plan, in the default organization, once.
 */
import type { Config } from "../config.ts";
import { randomSecret, sha256Hex } from "../lib/random.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { claimSetup, insertSetupToken, isSetupTokenUsable } from "../store/auth/setup-tokens.ts";
import { countUsers, createUser, EmailTakenError, type User } from "../store/auth/users.ts";
import type { Db } from "../store/db.ts";
import { getDefaultOrg } from "../store/orgs/orgs.ts";
import { hashPassword } from "./passwords.ts";

/** The setup URL to print at start, or null when a user exists already (nothing to set up). */
export async function ensureSetupLink(db: Db, config: Config, now: number): Promise<string | null> {
  if ((await countUsers(db)) > 0) return null;
  const token = randomSecret(32);
  await insertSetupToken(db, sha256Hex(token), now);
  return `${config.baseUrl}/setup?token=${token}`;
}

/** Whether nobody has set Crew up yet (the sign-in page then points at the setup link printed at start). */
export const setupPending = async (db: Db): Promise<boolean> => (await countUsers(db)) === 0;

export const isSetupLinkUsable = (db: Db, token: string) =>
  token === "" ? Promise.resolve(false) : isSetupTokenUsable(db, sha256Hex(token));

/** Creates the owner with the link's token, in the audit log too; null when the link was used meanwhile (or the email is taken). */
export async function createOwner(
  db: Db,
  token: string,
  owner: { name: string; email: string; password: string },
  clock: { now(): number },
): Promise<User | null> {
  const passwordHash = await hashPassword(owner.password);
  // Claimed only now, after the slow hash: a double-submitted form cannot make two owners.
  if (!(await claimSetup(db, sha256Hex(token), clock.now()))) return null;
  const org = await getDefaultOrg(db);
  if (!org) throw new Error("default organization missing");
  let user: User;
  try {
    user = await createUser(
      db,
      { orgId: org.id, email: owner.email, name: owner.name, passwordHash, plan: "operator", role: "owner" },
      clock.now(),
    );
  } catch (error) {
    if (error instanceof EmailTakenError) return null;
    throw error;
  }
  await recordAudit(db, user.orgId, "user.created", { kind: "user", userId: user.id }, clock.now(), user.email, { via: "setup" });
  return user;
}
