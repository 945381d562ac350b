/**
 * Sources of the model-backed agents (src/docs/notes/sources.md): add an IMAP mailbox (for `inbox`; one per
 * organization, a second replaces the first) or a feed (with the agents that read it), list them,
 * delete one. REST only, admin tier (admin key, OAuth crew:write). Passwords are sealed before they
 * are stored and never shown again. Nothing is fetched here: addresses go through the outbound
 * policy (src/docs/notes/outbound-requests.md) at every read, and a failing source raises its alert then. The
 * /settings/sources page calls the same functions.
 */
import * as v from "valibot";
import { actorOf, writeAccess } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Principal } from "../domain.ts";
import { ApiError, notFound } from "../errors.ts";
import { refusedWithoutLookup } from "../integrations/outbound.ts";
import { seal, sealingKey } from "../integrations/secret-box.ts";
import {
  FEED_AGENTS,
  jsonOr,
  MAILBOX_AGENT,
  mailboxPurpose,
  refreshFeedsAlert,
  StoredFeed,
  StoredMailbox,
} from "../integrations/sources.ts";
import { iso, isoOrNull } from "../lib/clock.ts";
import { newId } from "../lib/random.ts";
import { type AuditActor, auditStatement } from "../store/audit/audit.ts";
import type { Db } from "../store/db.ts";
import { openOrgAlert, resolveOrgAlertStatement } from "../store/integrations/alerts.ts";
import { deleteSourceStatement, getSource, listSources, saveSourceStatement } from "../store/integrations/sources.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, maxChars, PublicUrl } from "./schemas.ts";

const HostName = v.pipe(
  v.string("Must be a string."),
  v.trim(),
  v.minLength(1, "Must not be empty."),
  maxChars(253, "Must be at most 253 characters."),
  v.regex(
    /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?$|^\[?[0-9a-f:.]+\]?$/i,
    "Must be a host name or IP address, e.g. imap.example.com (no scheme, no port).",
  ),
  v.description("The IMAP server's host name, e.g. imap.fastmail.com."),
);

const Port = v.pipe(
  v.number("Must be a number."),
  v.integer("Must be a whole number from 1 to 65535."),
  v.minValue(1, "Must be a whole number from 1 to 65535."),
  v.maxValue(65535, "Must be a whole number from 1 to 65535."),
);

export const AddMailboxInput = v.strictObject({
  kind: v.literal("imap", 'Must be "imap" or "feed".'),
  host: HostName,
  port: v.optional(v.pipe(Port, v.description("Default 993 with TLS, 143 without."))),
  tls: v.optional(
    v.pipe(
      v.boolean("Must be true or false."),
      v.description(
        "Implicit TLS (IMAPS). Default true; false connects in plain text and upgrades with STARTTLS when the server offers it.",
      ),
    ),
    true,
  ),
  username: v.pipe(
    v.string("Must be a string."),
    v.trim(),
    v.minLength(1, "Must not be empty."),
    maxChars(320, "Must be at most 320 characters."),
    v.description("The mailbox user name (often the email address)."),
  ),
  password: v.pipe(
    v.string("Must be a string."),
    v.minLength(1, "Must not be empty."),
    maxChars(1000, "Must be at most 1000 characters."),
    v.description("The password or app password. Stored encrypted (AES-GCM under CREW_SECRET), never shown again."),
  ),
  folder: v.optional(
    v.pipe(
      v.string("Must be a string."),
      v.trim(),
      v.minLength(1, "Must not be empty."),
      maxChars(200, "Must be at most 200 characters."),
      v.description("The folder the inbox agent reads. Default INBOX."),
    ),
    "INBOX",
  ),
});

const FeedUrl = v.pipe(PublicUrl, v.description("The feed's address: RSS, Atom, RDF or JSON Feed."));

const FeedAgent = v.picklist(FEED_AGENTS, `Must be one of ${FEED_AGENTS.join(", ")}.`);

export const AddFeedInput = v.strictObject({
  kind: v.literal("feed", 'Must be "imap" or "feed".'),
  url: FeedUrl,
  agents: v.pipe(
    v.array(FeedAgent, "Must be an array of agent ids."),
    v.minLength(1, "Give at least one agent."),
    v.check((a) => new Set(a).size === a.length, "Each agent may appear once."),
    v.description(`The agents that read this feed: ${FEED_AGENTS.join(", ")}.`),
  ),
});

export const AddSourceInput = v.variant("kind", [AddMailboxInput, AddFeedInput], 'kind must be "imap" or "feed".');
export type AddSourceInput = v.InferOutput<typeof AddSourceInput>;

/** The schema that judges a raw body: the one its `kind` names, so issues speak of that form's fields. */
export function addSourceSchemaFor(raw: unknown): v.GenericSchema {
  const kind = typeof raw === "object" && raw !== null ? (raw as { kind?: unknown }).kind : undefined;
  return kind === "imap" ? AddMailboxInput : kind === "feed" ? AddFeedInput : AddSourceInput;
}

const SourceView = v.object({
  id: v.pipe(v.string(), v.description("`src_…`")),
  kind: v.picklist(["imap", "feed"]),
  agents: v.pipe(v.array(v.string()), v.description("The agents that read it.")),
  host: v.pipe(v.nullable(v.string()), v.description("imap: the server.")),
  port: v.nullable(v.number()),
  tls: v.nullable(v.boolean()),
  username: v.nullable(v.string()),
  folder: v.nullable(v.string()),
  url: v.pipe(v.nullable(v.string()), v.description("feed: its address.")),
  problem: v.pipe(
    v.nullable(v.string()),
    v.description("Why the last read failed (an open `imap` or `feeds` integration alert), or null."),
  ),
  createdAt: DateTime,
  lastSuccessAt: v.pipe(v.nullable(DateTime), v.description("When a read of it last worked; null before the first.")),
  lastFailureAt: v.pipe(v.nullable(DateTime), v.description("When a read of it last failed; null when none has.")),
  lastFailureReason: v.pipe(v.nullable(v.string()), v.description("Why that read failed.")),
});
export type SourceView = v.InferOutput<typeof SourceView>;

interface SourceAdminDeps {
  db: Db;
  config: Config;
  clock: { now(): number };
}

const secretOf = (config: Config) => sealingKey(config, "source credentials");

const FEED_STATE = v.object({ problem: v.optional(v.string()) });

/** The organization's sources, never a password. */
export async function listSourcesFor(deps: SourceAdminDeps, orgId: string): Promise<{ sources: SourceView[] }> {
  const rows = await listSources(deps.db, orgId);
  const mailAlert = rows.some((r) => r.kind === "imap") ? await openOrgAlert(deps.db, orgId, "imap") : null;
  const sources = rows.map((row): SourceView => {
    const base = {
      id: row.id,
      kind: row.kind,
      agents: row.agents,
      createdAt: iso(row.createdAt),
      lastSuccessAt: isoOrNull(row.lastSuccessAt),
      lastFailureAt: isoOrNull(row.lastFailureAt),
      lastFailureReason: row.lastFailureReason,
    };
    if (row.kind === "imap") {
      const m = jsonOr(StoredMailbox, row.config, null);
      return {
        ...base,
        host: m?.host ?? null,
        port: m?.port ?? null,
        tls: m?.tls ?? null,
        username: m?.username ?? null,
        folder: m?.folder ?? null,
        url: null,
        problem: mailAlert?.message ?? null,
      };
    }
    const f = jsonOr(StoredFeed, row.config, null);
    const state = jsonOr(FEED_STATE, row.state, {} as { problem?: string });
    return {
      ...base,
      host: null,
      port: null,
      tls: null,
      username: null,
      folder: null,
      url: f?.url ?? null,
      problem: state.problem ?? null,
    };
  });
  return { sources };
}

/**
 * A mailbox host or feed address the outbound policy refuses without a lookup (loopback, private,
 * link-local) is refused at save, like a webhook's, with what to do: otherwise it is accepted and
 * every read fails later. A public name that resolves to such an address is caught at read time.
 */
function refuseLocalAddress(allowPrivate: boolean, host: string, path: "host" | "url"): void {
  if (!refusedWithoutLookup(host.replace(/^\[(.*)\]$/, "$1"), allowPrivate)) return;
  const message =
    "Points at a loopback, private or link-local address. Crew reads only public addresses unless the server runs with ALLOW_PRIVATE_TARGETS=true (for a mailbox or feed on this machine or your own network).";
  throw new ApiError(400, "invalid_request", `The ${path} is refused: ${message}`, { issues: [{ path, message }] });
}

export async function addSourceFor(deps: SourceAdminDeps, orgId: string, actor: AuditActor, input: AddSourceInput): Promise<SourceView> {
  refuseLocalAddress(
    deps.config.allowPrivateTargets,
    input.kind === "imap" ? input.host : new URL(input.url).hostname,
    input.kind === "imap" ? "host" : "url",
  );
  const now = deps.clock.now();
  const id = newId("src", now);
  if (input.kind === "imap") {
    const stored: v.InferOutput<typeof StoredMailbox> = {
      host: input.host.replace(/^\[(.*)\]$/, "$1"),
      port: input.port ?? (input.tls ? 993 : 143),
      tls: input.tls,
      username: input.username,
      password: await seal(secretOf(deps.config), input.password, mailboxPurpose(orgId)),
      folder: input.folder,
    };
    // One mailbox per organization: adding one replaces the saved one (a change, for the audit log).
    const replaced = (await listSources(deps.db, orgId)).some((s) => s.kind === "imap");
    // An open `imap` alert stays until the next read works: nothing here proves the new settings do.
    await deps.db.batch(
      [
        saveSourceStatement({ id, orgId, kind: "imap", config: JSON.stringify(stored), agents: [MAILBOX_AGENT] }, now),
        auditStatement(orgId, replaced ? "source.changed" : "source.created", actor, now, id, { kind: "imap", host: stored.host }),
      ],
      "write",
    );
  } else {
    const url = new URL(input.url).href;
    if ((await listSources(deps.db, orgId)).some((s) => s.kind === "feed" && jsonOr(StoredFeed, s.config, null)?.url === url)) {
      throw new ApiError(400, "invalid_request", "This feed was added already: delete it first to change which agents read it.", {
        issues: [{ path: "url", message: "This feed was added already." }],
      });
    }
    await deps.db.batch(
      [
        saveSourceStatement({ id, orgId, kind: "feed", config: JSON.stringify({ url }), agents: input.agents }, now),
        auditStatement(orgId, "source.created", actor, now, id, { kind: "feed", url: withoutQuery(url) }),
      ],
      "write",
    );
  }
  const added = (await listSourcesFor(deps, orgId)).sources.find((s) => s.id === id);
  if (!added) throw new Error("the source just saved was not found");
  return added;
}

/** Another organization's source is "not found" too. Its alert goes with it. */
export async function deleteSourceFor(deps: SourceAdminDeps, orgId: string, actor: AuditActor, id: string): Promise<{ ok: true }> {
  const row = await getSource(deps.db, orgId, id);
  if (!row) throw notFound(`Source ${id}`);
  const now = deps.clock.now();
  await deps.db.batch(
    [
      deleteSourceStatement(orgId, id),
      auditStatement(orgId, "source.deleted", actor, now, id, { kind: row.kind }),
      ...(row.kind === "imap" ? [resolveOrgAlertStatement(orgId, "imap", now)] : []),
    ],
    "write",
  );
  if (row.kind === "feed") await refreshFeedsAlert(deps, orgId);
  return { ok: true };
}

const SourceId = v.pipe(v.string("Must be a string."), maxChars(100, "Not a source id."), v.description("The source id (src_…)."));

const ownerOrg = (p: Principal) => p.orgId;
/** Audit rows never carry a URL's query string (it may hold a token). */
const withoutQuery = (url: string) => url.replace(/[?#].*$/, "");

export const addSourceOp = defineOperation({
  id: "addSource",
  role: "owner",
  summary: "Add a source",
  description:
    'Adds a source the model-backed agents read. `{kind:"imap", host, port?, tls?, username, password, folder?}`: the mailbox the `inbox` agent reads (one per organization; adding another replaces it and starts reading afresh). Crew only reads: it opens the folder read-only and never sets \\Seen, moves or deletes mail; each run reads only mail that arrived since the last one. `{kind:"feed", url, agents}`: an RSS, Atom or JSON feed read by the named agents (research, corpdev, content, compliance). Passwords are stored encrypted and never shown again. Nothing is fetched now: every read checks the address against the outbound policy (private and loopback addresses refused unless ALLOW_PRIVATE_TARGETS is on), and a source that fails raises an `imap` or `feeds` alert on the dashboard until a later read works. A feed already added is refused (400, naming `url`).',
  input: AddSourceInput,
  inputFor: addSourceSchemaFor,
  output: SourceView,
  rest: { method: "POST", path: "/api/integrations/sources", access: writeAccess(), from: "body", tags: ["Integrations"] },
  handler: (ctx, input) => addSourceFor(ctx, ownerOrg(ctx.principal), actorOf(ctx.principal), input),
});

export const listSourcesOp = defineOperation({
  id: "listSources",
  role: "owner",
  summary: "List sources",
  description:
    "The organization's sources: its IMAP mailbox (server, user name, folder — never the password) and its feeds with the agents that read each, and for each the problem of its last read if it failed.",
  input: v.strictObject({}),
  output: v.object({ sources: v.array(SourceView) }),
  rest: { method: "GET", path: "/api/integrations/sources", access: writeAccess(), from: "none", tags: ["Integrations"] },
  handler: (ctx) => listSourcesFor(ctx, ownerOrg(ctx.principal)),
});

export const deleteSourceOp = defineOperation({
  id: "deleteSource",
  role: "owner",
  summary: "Delete a source",
  description:
    "Forgets a mailbox (its stored password too) or a feed, and resolves its alert. The mailbox and the feed themselves are untouched. 404 when it is not the organization's.",
  input: v.strictObject({ id: SourceId }),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/integrations/sources/{id}", access: writeAccess(), from: "none", tags: ["Integrations"] },
  handler: (ctx, input) => deleteSourceFor(ctx, ownerOrg(ctx.principal), actorOf(ctx.principal), input.id),
});
