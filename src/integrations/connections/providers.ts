/**
 * What Crew asks of Google and Microsoft (src/docs/notes/connections.md): the least-privilege
 * scopes — read-only mail; calendar read and event create — each part optional, and the
 * provider's OAuth server found by OpenID discovery at the operator's URL (trusted like
 * OIDC_ISSUER), through openid-client.
 */
import * as client from "openid-client";
import type { Config, GoogleEnv, MicrosoftEnv } from "../../config.ts";
import type { ConnectionProvider } from "../../domain.ts";

export interface ProviderInfo {
  id: ConnectionProvider;
  /** How people name it: "Google", "Microsoft 365". */
  label: string;
  /** Scopes every connection asks for: who the account is (and, at Microsoft, a refresh token). */
  base: string[];
  mail: string[];
  calendar: string[];
  /** Extra authorization parameters: Google gives a refresh token only with access_type=offline. */
  extra: Record<string, string>;
}

export const PROVIDERS: Record<ConnectionProvider, ProviderInfo> = {
  google: {
    id: "google",
    label: "Google",
    base: ["openid", "email"],
    mail: ["https://www.googleapis.com/auth/gmail.readonly"],
    calendar: ["https://www.googleapis.com/auth/calendar.readonly", "https://www.googleapis.com/auth/calendar.events"],
    // prompt=consent: a reconnect gets a new refresh token too (Google sends one only at consent).
    extra: { access_type: "offline", prompt: "consent", include_granted_scopes: "false" },
  },
  microsoft: {
    id: "microsoft",
    label: "Microsoft 365",
    base: ["openid", "email", "offline_access", "User.Read"],
    mail: ["Mail.Read"],
    calendar: ["Calendars.ReadWrite"],
    extra: {},
  },
};

export interface Parts {
  mail: boolean;
  calendar: boolean;
}

export function scopesFor(provider: ConnectionProvider, parts: Parts): string[] {
  const p = PROVIDERS[provider];
  return [...p.base, ...(parts.mail ? p.mail : []), ...(parts.calendar ? p.calendar : [])];
}

/** Which parts a granted scope list allows (a person may untick a scope on the consent screen). */
export function partsGranted(provider: ConnectionProvider, granted: string[]): Parts {
  const p = PROVIDERS[provider];
  const has = (wanted: string[]) => wanted.every((s) => granted.some((g) => g.toLowerCase() === s.toLowerCase()));
  return { mail: has(p.mail), calendar: has(p.calendar) };
}

export type ProviderEnv = GoogleEnv | MicrosoftEnv;

export function providerEnv(config: Pick<Config, "google" | "microsoft">, provider: ConnectionProvider): ProviderEnv | null {
  return provider === "google" ? config.google : config.microsoft;
}

/** The issuer whose discovery document names the endpoints. */
export function issuerOf(provider: ConnectionProvider, env: ProviderEnv): string {
  return provider === "google" ? (env as GoogleEnv).oauthUrl : `${(env as MicrosoftEnv).loginUrl}/${(env as MicrosoftEnv).tenant}/v2.0`;
}

/** The REST API base: Google's APIs, or Graph's v1.0. */
export function apiBaseOf(provider: ConnectionProvider, env: ProviderEnv): string {
  return provider === "google" ? (env as GoogleEnv).apiUrl : `${(env as MicrosoftEnv).graphUrl}/v1.0`;
}

const discovered = new Map<string, Promise<client.Configuration>>();

/** The provider's OAuth configuration, discovered once per process (again after a failure). */
export function oauthConfiguration(provider: ConnectionProvider, env: ProviderEnv): Promise<client.Configuration> {
  const issuer = issuerOf(provider, env);
  const key = `${issuer} ${env.clientId}`;
  let found = discovered.get(key);
  if (!found) {
    // A plain-http issuer is a loopback provider (tests): openid-client refuses it unless told.
    const insecure = issuer.startsWith("http:") ? { execute: [client.allowInsecureRequests] } : undefined;
    found = client.discovery(new URL(issuer), env.clientId, env.clientSecret, undefined, insecure);
    found.catch(() => discovered.delete(key));
    discovered.set(key, found);
  }
  return found;
}
