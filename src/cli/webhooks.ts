/**
 * `crew webhook add` (SPEC §1): the command line's flags judged by the same schema and the same
 * function as POST /api/webhooks, in the default organization, created by "cli".
 */
import * as v from "valibot";
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import { toFieldIssues } from "../http/validate.ts";
import { systemClock } from "../lib/clock.ts";
import { type CreatedWebhook, CreateWebhookInput, createWebhookFor } from "../operations/webhooks.ts";
import type { Db } from "../store/db.ts";
import { type CliIo, CommandError, type Env, type Flags, printJson, UsageError, withStore } from "./support.ts";

/** Which flag an input field came from, for one-line usage errors. */
const FLAG: Record<string, string> = { url: "--url", events: "--events", description: "--description" };

export async function addWebhookFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const w = await withStore(env, (db, org, config) => createFromFlags({ db, config, clock: systemClock }, org.id, flags), flags.org);
  if (flags.json) printJson(io, w);
  else {
    io.out(`id      ${w.id}\nurl     ${w.url}\nevents  ${w.events.join(", ")}\nsecret  ${w.secret}\n`);
    io.err("The secret is shown only once: store it in the receiver now.\n");
  }
  return 0;
}

async function createFromFlags(
  deps: { db: Db; config: Config; clock: { now(): number } },
  orgId: string,
  flags: Flags,
): Promise<CreatedWebhook> {
  const events = String(flags.events ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const raw = {
    url: String(flags.url ?? ""),
    events,
    ...(typeof flags.description === "string" ? { description: flags.description } : {}),
  };
  const parsed = v.safeParse(CreateWebhookInput, raw, { abortEarly: false });
  if (!parsed.success) {
    const issue = toFieldIssues(parsed.issues)[0];
    const field = issue?.path.replace(/\[\d+\]$/, "") ?? "";
    const value = issue?.path.startsWith("events[") ? ` ("${events[Number(issue.path.slice(7, -1))]}")` : "";
    throw new UsageError(`${FLAG[field] ?? field}${value}: ${issue?.message ?? "invalid"}`);
  }
  try {
    return await createWebhookFor(deps, { orgId, createdBy: "cli" }, parsed.output);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400)
      throw new CommandError(`--url is refused: ${error.extra.issues?.[0]?.message ?? error.message}`);
    throw error;
  }
}
