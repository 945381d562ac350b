/**
 * A scripted Slack Web API on loopback (Slack's API is out of reach in tests): records every call
 * (method, bearer token, arguments) and answers like Slack does — `{ok: true, …}` or
 * `{ok: false, error}` with HTTP 200. `members` maps emails to user ids for users.lookupByEmail;
 * `history` holds messages per channel for conversations.history (filtered by `oldest`);
 * `failures` makes the next calls of a method fail with a Slack error code (`auth.test`, which Crew
 * calls when a token is saved, answers ok unless told otherwise).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface SlackCall {
  method: string;
  token: string | null;
  args: Record<string, any>;
}

export interface ScriptedSlack {
  /** SLACK_API_URL for Crew. */
  url: string;
  calls: SlackCall[];
  members: Record<string, string>;
  history: Record<string, { ts: string; text: string; user?: string; bot_id?: string; subtype?: string }[]>;
  failures: Record<string, string[]>;
  close(): Promise<void>;
}

function parseArgs(type: string | undefined, body: string): Record<string, any> {
  if ((type ?? "").includes("application/json")) return JSON.parse(body || "{}");
  const args: Record<string, any> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    try {
      args[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
    } catch {
      args[k] = v;
    }
  }
  return args;
}

export async function startScriptedSlack(): Promise<ScriptedSlack> {
  const slack = { calls: [], members: {}, history: {}, failures: {} } as unknown as ScriptedSlack;
  let ts = 1_700_000_000;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const method = (req.url ?? "").replace(/^\/api\//, "").split("?")[0] ?? "";
      const auth = req.headers.authorization ?? null;
      const args = parseArgs(req.headers["content-type"], Buffer.concat(chunks).toString("utf8"));
      slack.calls.push({ method, token: auth?.replace(/^Bearer /, "") ?? null, args });
      const answer = (body: unknown) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const failure = slack.failures[method]?.shift();
      if (failure) return answer({ ok: false, error: failure });
      switch (method) {
        case "auth.test":
          return answer({ ok: true, team: "Scripted Workspace", team_id: "T0SCRIPTED", user_id: "U0CREWBOT", bot_id: "B0CREWBOT" });
        case "chat.postMessage":
          return answer({ ok: true, channel: args.channel, ts: `${++ts}.000100` });
        case "users.lookupByEmail": {
          const id = slack.members[String(args.email)];
          return answer(id ? { ok: true, user: { id } } : { ok: false, error: "users_not_found" });
        }
        case "conversations.history": {
          const oldest = Number(args.oldest ?? 0);
          const messages = (slack.history[String(args.channel)] ?? []).filter((m) => Number(m.ts) > oldest);
          return answer({
            ok: true,
            messages: [...messages].sort((a, b) => Number(b.ts) - Number(a.ts)).slice(0, Number(args.limit ?? 100)),
            has_more: false,
          });
        }
        case "chat.getPermalink":
          return answer({
            ok: true,
            permalink: `https://example.slack.com/archives/${args.channel}/p${String(args.message_ts).replace(".", "")}`,
          });
        default:
          return answer({ ok: false, error: "unknown_method" });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  slack.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  slack.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return slack;
}
