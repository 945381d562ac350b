/**
 * The person an API key or an OAuth access token acts for, read fresh with the credential on every
 * request (so plan and role changes and deactivation are immediate). Both lookups
 * (auth/api-keys.ts, oauth/tokens.ts) join the same columns of users, named here once.
 */
import type { Plan, Role } from "../domain.ts";
import { type SqlRow, table, text } from "./columns.ts";

/** The users columns a credential lookup selects, the users table aliased `u`. */
export const CREDENTIAL_USER_COLUMNS = "u.id AS user_id, u.org_id, u.email, u.name, u.plan, u.role";

const CREDENTIAL_USER = table("users", {
  userId: text("user_id"),
  orgId: text(),
  email: text(),
  name: text(),
  plan: text<Plan>(),
  role: text<Role>(),
});

/** The person a key or a token acts for. */
export interface CredentialUser {
  userId: string;
  orgId: string;
  email: string;
  name: string;
  plan: Plan;
  role: Role;
}

/** The person of a credential lookup's row (selected with CREDENTIAL_USER_COLUMNS). */
export const credentialUserOf = (row: SqlRow): CredentialUser => CREDENTIAL_USER.read(row);
