/**
 * Single sign-on with OpenID Connect (issue 25, src/docs/notes/single-sign-on.md), through
 * openid-client: authorization code with PKCE, `state` and `nonce`, the ID token validated by the
 * library. Who signs in: the user linked to (issuer, subject); at first sign-in the user with the
 * same *verified* email (then linked), else a new user in OIDC_ORG with OIDC_DEFAULT_PLAN. An
 * unverified email that a user already has is refused (emails stay unique). The role follows
 * OIDC_ROLE_CLAIM at every sign-in, but an organization keeps at least one owner. Deactivated
 * users are refused.
 */
import * as client from "openid-client";
import type { OidcEnv } from "../config.ts";
import type { Role } from "../domain.ts";
import { linkIdentity, userIdOfIdentity } from "../store/auth/identities.ts";
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
  const claims = tokens.claims();
  if (!claims) throw new Error("the provider returned no ID token");
  return claims as OidcClaims;
}

export type OidcOutcome =
  | { ok: true; user: User; created: boolean; linked: boolean; roleChanged: Role | null }
  | { ok: false; reason: "deactivated" | "unverified_email" | "no_email" | "no_org"; message: string };

function roleFromClaims(oidc: OidcEnv, claims: OidcClaims): Role | null {
  if (!oidc.roleClaim) return null;
  const value = claims[oidc.roleClaim];
  const values = Array.isArray(value) ? value.map(String) : value === undefined || value === null ? [] : [String(value)];
  return values.some((v) => oidc.ownerValues.includes(v)) ? "owner" : "member";
}

/** The user this sign-in is for, created or linked as the rules above say, with the claim's role applied. */
export async function resolveOidcUser(db: Db, oidc: OidcEnv, claims: OidcClaims, now: number): Promise<OidcOutcome> {
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : null;
  const verified = claims.email_verified === true || claims.email_verified === "true";
  let user: User | null = null;
  let created = false;
  let linked = false;
  const linkedId = await userIdOfIdentity(db, oidc.issuer, claims.sub);
  if (linkedId) user = await getUserById(db, linkedId);
  if (!user) {
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
    if (existing) {
      user = existing;
      linked = true;
    } else {
      const org = oidc.org ? await findOrg(db, oidc.org) : await getDefaultOrg(db);
      if (!org) return { ok: false, reason: "no_org", message: `OIDC_ORG names no organization ("${oidc.org}").` };
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
    await linkIdentity(db, oidc.issuer, claims.sub, user.id, now);
  }
  if (user.deactivatedAt !== null) {
    return { ok: false, reason: "deactivated", message: "This account has been deactivated. Ask an owner of your organization." };
  }
  let roleChanged: Role | null = null;
  const role = roleFromClaims(oidc, claims);
  if (role && role !== user.role && !created) {
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
