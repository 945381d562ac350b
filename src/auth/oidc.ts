/**
 * Single sign-on with OpenID Connect (issue 25, src/docs/notes/single-sign-on.md), through
 * openid-client: authorization code with PKCE, `state` and `nonce`, the ID token validated by the
 * library; claims the ID token lacks (`email`, `email_verified`, the role claim) are read from
 * UserInfo, where standards-following providers put them. Who signs in: the user linked to
 * (issuer, subject); at first sign-in the user of OIDC_ORG with the same *verified* email (then
 * linked, and every other session of that user ends), else a new user in OIDC_ORG with
 * OIDC_DEFAULT_PLAN. Refused: an unverified email that a user already has (emails stay unique), a
 * user of another organization, an account that an unverified email created (it is never linked to
 * another identity), an address whose Unicode folding differs from its ASCII lowercase (a
 * look-alike such as the KELVIN SIGN for "k"). The role follows OIDC_ROLE_CLAIM at every sign-in,
 * for users of OIDC_ORG only, but an organization keeps at least one owner. Deactivated users are
 * refused. See src/docs/notes/single-sign-on.md.
 */
import * as client from "openid-client";
import type { OidcEnv } from "../config.ts";
import type { Role } from "../domain.ts";
import { recordAudit } from "../store/audit/audit.ts";
import { createdFromUnverifiedEmail, linkIdentity, userIdOfIdentity } from "../store/auth/identities.ts";
import { deleteSessionsOfUser } from "../store/auth/sessions.ts";
import { createUser, EmailTakenError, getUserByEmail, getUserById, listOrgUsers, type User, updateOrgUser } from "../store/auth/users.ts";
import type { Db } from "../store/db.ts";
import { findOrg, getDefaultOrg } from "../store/orgs/orgs.ts";

/** The password hash of a user created by SSO: matches no password. */
const NO_PASSWORD = "!oidc";

const discovered = new Map<string, Promise<client.Configuration>>();

/** The provider's configuration, discovered once per process (again after a failure). */
function configuration(oidc: OidcEnv): Promise<client.Configuration> {
  const key = `${oidc.issuer} ${oidc.clientId}`;
  let found = discovered.get(key);
  if (!found) {
    // A plain-http issuer is a loopback or development provider: openid-client refuses it unless told.
    const insecure = oidc.issuer.startsWith("http:") ? { execute: [client.allowInsecureRequests] } : undefined;
    found = client.discovery(new URL(oidc.issuer), oidc.clientId, oidc.clientSecret ?? undefined, undefined, insecure);
    found.catch(() => discovered.delete(key));
    discovered.set(key, found);
  }
  return found;
}

/** What the browser keeps between the redirect and the callback (an HttpOnly cookie). */
export interface OidcAttempt {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
}

export async function beginOidc(oidc: OidcEnv, redirectUri: string, next: string): Promise<{ url: string; attempt: OidcAttempt }> {
  const config = await configuration(oidc);
  const attempt: OidcAttempt = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    next,
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: oidc.scopes,
    state: attempt.state,
    nonce: attempt.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(attempt.verifier),
    code_challenge_method: "S256",
  });
  return { url: url.href, attempt };
}

export type OidcClaims = client.IDToken & Record<string, unknown>;

/** Exchanges the code; throws when state, nonce, PKCE or the ID token do not check out. */
export async function finishOidc(oidc: OidcEnv, callbackUrl: URL, attempt: OidcAttempt): Promise<OidcClaims> {
  const config = await configuration(oidc);
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: attempt.verifier,
    expectedState: attempt.state,
    expectedNonce: attempt.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims() as OidcClaims | undefined;
  if (!claims) throw new Error("the provider returned no ID token");
  // OpenID Connect Core 1.0 §5.4: with an access token issued, the scope's claims are returned
  // from UserInfo, not in the ID token. The library checks UserInfo's `sub` against the ID token's.
  const wanted = ["email", "email_verified", ...(oidc.roleClaim ? [oidc.roleClaim] : [])];
  if (!wanted.some((claim) => claims[claim] === undefined) || !tokens.access_token) return claims;
  const info = (await client.fetchUserInfo(config, tokens.access_token, claims.sub)) as Record<string, unknown>;
  const merged: OidcClaims = { ...claims };
  for (const claim of wanted) if (merged[claim] === undefined && info[claim] !== undefined) merged[claim] = info[claim];
  if (merged.name === undefined && info.name !== undefined) merged.name = info.name;
  return merged;
}

export type OidcOutcome =
  | { ok: true; user: User; created: boolean; linked: boolean; roleChanged: Role | null }
  | {
      ok: false;
      reason: "deactivated" | "unverified_email" | "no_email" | "no_org" | "other_org" | "unverified_account" | "lookalike_email";
      message: string;
    };

/**
 * The address as Crew compares it, or null for a look-alike: ASCII lowercase only, refused when
 * Unicode compatibility folding (NFKC, then lowercase) would read it differently, so that no
 * address can be folded onto another one (U+212A KELVIN SIGN + "im@a.test" is not kim@a.test).
 */
export function comparableEmail(raw: string): string | null {
  const email = raw.trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
  return email.normalize("NFKC").toLowerCase() === email ? email : null;
}

function roleFromClaims(oidc: OidcEnv, claims: OidcClaims): Role | null {
  if (!oidc.roleClaim) return null;
  const value = claims[oidc.roleClaim];
  const values = Array.isArray(value) ? value.map(String) : value === undefined || value === null ? [] : [String(value)];
  return values.some((v) => oidc.ownerValues.includes(v)) ? "owner" : "member";
}

/** The user this sign-in is for, created or linked as the rules above say, with the claim's role applied. */
export async function resolveOidcUser(db: Db, oidc: OidcEnv, claims: OidcClaims, now: number): Promise<OidcOutcome> {
  const rawEmail = typeof claims.email === "string" ? claims.email.trim() : null;
  const email = rawEmail ? comparableEmail(rawEmail) : null;
  const verified = claims.email_verified === true || claims.email_verified === "true";
  const org = oidc.org ? await findOrg(db, oidc.org) : await getDefaultOrg(db);
  if (!org) return { ok: false, reason: "no_org", message: `OIDC_ORG names no organization ("${oidc.org}").` };
  let user: User | null = null;
  let created = false;
  let linked = false;
  const linkedId = await userIdOfIdentity(db, oidc.issuer, claims.sub);
  if (linkedId) user = await getUserById(db, linkedId);
  if (!user) {
    if (rawEmail && !email)
      return {
        ok: false,
        reason: "lookalike_email",
        message: `The identity provider sent an address with characters that read as other letters (${JSON.stringify(rawEmail)}); Crew cannot use it. Ask your administrator to correct the address at the provider.`,
      };
    if (!email)
      return { ok: false, reason: "no_email", message: "The identity provider sent no email address; Crew needs one for a new account." };
    const existing = await getUserByEmail(db, email);
    if (existing && !verified) {
      return {
        ok: false,
        reason: "unverified_email",
        message: `An account with ${email} exists, but the identity provider has not verified that address, so it cannot be linked. Verify the email with your provider, or sign in with your password.`,
      };
    }
    if (existing && existing.orgId !== org.id) {
      // Single sign-on links and re-roles only within OIDC_ORG: another organization's user with this
      // address (made by its owner, perhaps to capture the identity) is not this person's account.
      return {
        ok: false,
        reason: "other_org",
        message: `An account with ${email} belongs to another organization on this Crew, so single sign-on cannot use it. Ask an owner of this organization.`,
      };
    }
    if (existing && (await createdFromUnverifiedEmail(db, existing.id))) {
      // An unverified address proves nothing: the account it created may be someone else's, so a
      // verified identity is never linked into it (it would inherit that person's sessions and data).
      return {
        ok: false,
        reason: "unverified_account",
        message: `The account with ${email} was created by a sign-in whose provider had not verified the address, so it cannot be linked to your identity. Ask an owner of your organization to remove or rename it.`,
      };
    }
    if (existing) {
      user = existing;
      linked = true;
    } else {
      const name = typeof claims.name === "string" && claims.name.trim() ? claims.name.trim().slice(0, 200) : email;
      try {
        user = await createUser(
          db,
          { orgId: org.id, email, name, passwordHash: NO_PASSWORD, plan: oidc.defaultPlan, role: roleFromClaims(oidc, claims) ?? "member" },
          now,
        );
        created = true;
      } catch (error) {
        if (!(error instanceof EmailTakenError)) throw error;
        user = await getUserByEmail(db, email); // created by a sign-in at the same moment
        if (!user) throw error;
      }
    }
    await linkIdentity(db, oidc.issuer, claims.sub, user.id, now, created ? verified : true);
    // Whoever held a session of this account before the identity was linked loses it.
    if (linked) await deleteSessionsOfUser(db, user.id);
  }
  if (user.deactivatedAt !== null) {
    return { ok: false, reason: "deactivated", message: "This account has been deactivated. Ask an owner of your organization." };
  }
  let roleChanged: Role | null = null;
  const role = roleFromClaims(oidc, claims);
  if (role && role !== user.role && !created && user.orgId === org.id) {
    const owners = (await listOrgUsers(db, user.orgId)).filter((u) => u.role === "owner" && u.deactivatedAt === null);
    // The last owner stays an owner: an organization without one could not be managed.
    const lastOwner = role === "member" && owners.length === 1 && owners[0]?.id === user.id;
    if (!lastOwner) {
      await updateOrgUser(db, user.orgId, user.id, { role });
      user = { ...user, role };
      roleChanged = role;
    }
  }
  return { ok: true, user, created, linked, roleChanged };
}

/**
 * A refused OIDC sign-in in the audit log: of the organization people sign in to by default (the
 * answer names no user of Crew yet), `reason` as the refusal names it.
 */
export async function recordOidcRefusal(db: Db, reason: string, now: number): Promise<void> {
  const org = await getDefaultOrg(db);
  if (org) await recordAudit(db, org.id, "sign_in.failed", { kind: "system" }, now, null, { method: "oidc", reason });
}

/** An OIDC sign-in in the audit log: the user made or given a new role by the provider's claims, then the sign-in. */
export async function recordOidcSignIn(db: Db, outcome: OidcOutcome & { ok: true }, now: number): Promise<void> {
  const { user } = outcome;
  if (outcome.created)
    await recordAudit(db, user.orgId, "user.created", { kind: "system" }, now, user.email, {
      method: "oidc",
      plan: user.plan,
      role: user.role,
    });
  if (outcome.roleChanged)
    await recordAudit(db, user.orgId, "user.role_changed", { kind: "system" }, now, user.email, {
      role: outcome.roleChanged,
      method: "oidc",
    });
  await recordAudit(db, user.orgId, "sign_in.succeeded", { kind: "user", userId: user.id }, now, user.email, {
    method: "oidc",
    linked: outcome.linked,
  });
}
