/**
 * `crew webhook add` (SPEC §1): the command line's flags judged by the same schema and the same
 * function as POST /api/webhooks, in the default organization, created by "cli".
 */
import * as v from "valibot";
import type { Config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { toFieldIssues } from "../http/validate.ts";
import { type CreatedWebhook, CreateWebhookInput, createWebhookFor } from "../operations/webhooks.ts";
import type { Db } from "../store/db.ts";

export type CliOutcome = { usage: string } | { refused: string } | { created: CreatedWebhook };

/** Which flag an input field came from, for one-line usage errors. */
const FLAG: Record<string, string> = { url: "--url", events: "--events", description: "--description" };

export async function addWebhookFromCli(
  deps: { db: Db; config: Config; clock: { now(): number } },
  orgId: string,
  flags: Record<string, string | boolean | undefined>,
): Promise<CliOutcome> {
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
    return { usage: `${FLAG[field] ?? field}${value}: ${issue?.message ?? "invalid"}` };
  }
  try {
    return { created: await createWebhookFor(deps, { orgId, createdBy: "cli" }, parsed.output) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 400)
      return { refused: `--url is refused: ${error.extra.issues?.[0]?.message ?? error.message}` };
    throw error;
  }
}
