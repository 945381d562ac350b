/**
 * `crew webhook add` (src/docs/notes/cli.md): the flags become the input of the createWebhook operation, run as
 * the CLI principal (src/cli/principal.ts) like POST /api/webhooks; the subscription is created by
 * "cli".
 */
import { type CliIo, type Env, type Flags, printJson, withStore } from "./support.ts";

export async function addWebhookFromCli(flags: Flags, env: Env, io: CliIo): Promise<number> {
  const events = String(flags.events ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const input = {
    url: String(flags.url ?? ""),
    events,
    ...(typeof flags.description === "string" ? { description: flags.description } : {}),
  };
  const w = await withStore(
    env,
    async (db, org, config) => {
      const [{ runAsCli }, { createWebhookOp: createWebhook }] = await Promise.all([
        import("./principal.ts"),
        import("../operations/webhooks.ts"),
      ]);
      return runAsCli({ db, config }, org.id, createWebhook, input);
    },
    flags.org,
  );
  if (flags.json) printJson(io, w);
  else {
    io.out(`id      ${w.id}\nurl     ${w.url}\nevents  ${w.events.join(", ")}\nsecret  ${w.secret}\n`);
    io.err("The secret is shown only once: store it in the receiver now.\n");
  }
  return 0;
}
