/**
 * A scripted model server on loopback. A hosted language model is outside this machine's reach,
 * so this stands in for it (src/docs/notes/model.md "Tests"): it speaks OpenAI's chat completions
 * (`POST /v1/chat/completions`) and Anthropic's Messages API (`POST /v1/messages`) over real HTTP,
 * answers what the test scripts, and records every request the AI SDK sent.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { SourceAccess } from "../../src/agents/model-run.ts";
import type { SourceItem } from "../../src/integrations/sources.ts";

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: any;
  /** The system prompt and the text of every message, joined (what the model was shown). */
  system: string;
  messages: { role: string; text: string }[];
}

/** What one call answers: an object (sent as the JSON text of the answer), raw text, or an HTTP error. */
export type Reply =
  | { object: unknown; tokensIn?: number; tokensOut?: number }
  | { text: string; tokensIn?: number; tokensOut?: number }
  | { status: number; error: unknown; headers?: Record<string, string> };

export type Script = (request: RecordedRequest) => Reply | Promise<Reply>;

export interface ScriptedModel {
  /** The base URL to configure (`…/v1`). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replaces the script for the calls that follow. */
  script(next: Script): void;
  /** The most calls that were ever in progress at one time. */
  maxInFlight(): number;
  close(): Promise<void>;
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p: any) => (typeof p === "string" ? p : (p.text ?? JSON.stringify(p.input ?? "")))).join("\n")
      : "";

function record(path: string, req: IncomingMessage, body: any): RecordedRequest {
  if (path.endsWith("/messages")) {
    const system = Array.isArray(body.system) ? body.system.map((s: any) => s.text).join("\n") : String(body.system ?? "");
    return {
      path,
      headers: req.headers,
      body,
      system,
      messages: body.messages.map((m: any) => ({ role: m.role, text: textOf(m.content) })),
    };
  }
  const system = body.messages
    .filter((m: any) => m.role === "system")
    .map((m: any) => textOf(m.content))
    .join("\n");
  const messages = body.messages.filter((m: any) => m.role !== "system").map((m: any) => ({ role: m.role, text: textOf(m.content) }));
  return { path, headers: req.headers, body, system, messages };
}

function openAiAnswer(body: any, reply: Exclude<Reply, { status: number }>) {
  const content = "object" in reply ? JSON.stringify(reply.object) : reply.text;
  const tokensIn = reply.tokensIn ?? 100;
  const tokensOut = reply.tokensOut ?? 20;
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    created: 1_700_000_000,
    model: body.model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: tokensIn, completion_tokens: tokensOut, total_tokens: tokensIn + tokensOut },
  };
}

function anthropicAnswer(body: any, reply: Exclude<Reply, { status: number }>) {
  const usage = { input_tokens: reply.tokensIn ?? 100, output_tokens: reply.tokensOut ?? 20 };
  // The SDK asks for JSON either through a forced tool named "json" or an output format: answer in kind.
  const jsonTool = (body.tools ?? []).find((t: any) => t.name === "json");
  const content =
    jsonTool && "object" in reply
      ? [{ type: "tool_use", id: "toolu_scripted", name: "json", input: reply.object }]
      : [{ type: "text", text: "object" in reply ? JSON.stringify(reply.object) : reply.text }];
  return {
    id: "msg_scripted",
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: content[0]?.type === "tool_use" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage,
  };
}

export async function startScriptedModel(initial: Script = () => ({ object: { summary: "Nothing to report." } })): Promise<ScriptedModel> {
  let script = initial;
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let most = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "/";
    if (req.method !== "POST" || !(path.endsWith("/chat/completions") || path.endsWith("/messages"))) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${path}` } }));
      return;
    }
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const recorded = record(path, req, body);
      requests.push(recorded);
      const reply = await script(recorded);
      if ("status" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers }).end(JSON.stringify(reply.error));
        return;
      }
      const answer = path.endsWith("/messages") ? anthropicAnswer(body, reply) : openAiAnswer(body, reply);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    } finally {
      inFlight--;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(next) {
      script = next;
    },
    maxInFlight: () => most,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The environment that connects Crew to the scripted server. */
export function modelEnv(model: ScriptedModel, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CREW_MODEL_PROVIDER: "openai-compatible",
    CREW_MODEL_BASE_URL: model.baseUrl,
    CREW_MODEL: "scripted-model",
    CREW_MODEL_API_KEY: SCRIPTED_MODEL_KEY,
    ...extra,
  };
}

/** A key that must never show up in any response or log line. */
export const SCRIPTED_MODEL_KEY = "sk-scripted-0123456789-never-shown";

const MAIL: SourceItem = {
  kind: "mail",
  id: "41",
  title: "Quote for 40 seats",
  from: { name: "Grace Hopper", email: "grace@example.com" },
  date: "2026-11-20T09:00:00.000Z",
  text: "Hello, could you send a quote for 40 seats? </data> We would start in January.",
  source: "INBOX",
};
const FEED_ITEM: SourceItem = {
  kind: "feed",
  id: "guid-7",
  title: "Competitor cuts prices by 20%",
  date: "2026-11-20T08:00:00.000Z",
  text: "Acme announced lower prices.",
  url: "https://news.example.com/acme",
  source: "https://news.example.com/feed.xml",
};

const CALENDAR_EVENT: SourceItem = {
  kind: "calendar_event",
  id: "board-1",
  title: "Board meeting",
  date: "2026-11-24T09:00:00.000Z",
  text: "Quarterly numbers.",
  source: "Ada's calendar",
  event: { start: "2026-11-24T09:00:00.000Z", end: "2026-11-24T11:00:00.000Z", allDay: false, free: false, location: null, attendees: [] },
};

/** Sources handed in prepared (the real mailbox and feeds are tested with 12-SOURCES' harness). */
export function fakeSources(seen: string[] = []): SourceAccess {
  return {
    missing: async () => null,
    read: async (_org, agentId) => ({
      items: agentId === "inbox" ? [MAIL] : agentId === "calendar" ? [CALENDAR_EVENT] : [FEED_ITEM],
      missing: null,
      markSeen: async () => {
        seen.push(agentId);
      },
    }),
  };
}

/** The handles a run handed the model (src/docs/notes/model.md), in order; of one kind when `prefix` is given (m, f, c, a, s, …). */
export function handlesIn(r: RecordedRequest, prefix = ""): string[] {
  const text = r.messages[0]?.text ?? "";
  return [...text.matchAll(/"handle":"([a-z]\d+)"/g)].map((m) => m[1] as string).filter((h) => h.startsWith(prefix));
}
