/**
 * A fake of Google's servers on loopback (Google is out of reach in tests), after the public API
 * references: OAuth 2.0 for web server apps (consent, token with PKCE, refresh, revocation at
 * /revoke), Gmail API v1 (`users.getProfile`, `users.messages.list`, `users.messages.get`
 * format=full, `users.history.list` with historyTypes=messageAdded) and Calendar API v3
 * (`freeBusy.query`, `events.insert`, `events.list`). `deliver` adds an INBOX message (a new
 * historyId); `failNext` makes the next API calls answer an error (429 with Retry-After, 503).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type FakeProvider, failureQueue, sendJson, startFakeOAuth } from "./fake-oauth-provider.ts";

export const GOOGLE_CLIENT = { id: "crew-test.apps.googleusercontent.com", secret: "fake-google-secret" };

export interface FakeGmailMessage {
  from: string;
  to?: string;
  subject: string;
  body: string;
  messageId: string;
  date?: Date;
  headers?: Record<string, string>;
}

export type FakeGoogle = FakeProvider<FakeGmailMessage>;

const b64url = (text: string) => Buffer.from(text).toString("base64url");

export async function startFakeGoogle(account = { sub: "g-1001", email: "ada@example.org" }): Promise<FakeGoogle> {
  const messages: { id: string; historyId: number; raw: FakeGmailMessage; internalDate: number }[] = [];
  let historyId = 1000;
  const failures = failureQueue();
  const extra = {
    busy: [] as { start: string; end: string }[],
    events: [] as Record<string, any>[],
    apiCalls: [] as FakeGoogle["apiCalls"],
  };

  const gmailMessage = (m: (typeof messages)[number]) => {
    const headers = [
      { name: "From", value: m.raw.from },
      { name: "To", value: m.raw.to ?? account.email },
      { name: "Subject", value: m.raw.subject },
      { name: "Message-ID", value: `<${m.raw.messageId}>` },
      { name: "Date", value: (m.raw.date ?? new Date(m.internalDate)).toUTCString() },
      ...Object.entries(m.raw.headers ?? {}).map(([name, value]) => ({ name, value })),
    ];
    return {
      id: m.id,
      threadId: m.id,
      labelIds: ["INBOX", "UNREAD"],
      historyId: String(m.historyId),
      internalDate: String(m.internalDate),
      snippet: m.raw.body.slice(0, 100),
      payload: {
        mimeType: "multipart/alternative",
        headers,
        parts: [
          { partId: "0", mimeType: "text/plain", body: { size: m.raw.body.length, data: b64url(m.raw.body) } },
          { partId: "1", mimeType: "text/html", body: { size: 0, data: b64url(`<p>${m.raw.body}</p>`) } },
        ],
      },
    };
  };

  const api = async (req: IncomingMessage, res: ServerResponse, url: URL, body: string, token: string | null) => {
    const path = url.pathname;
    if (!path.startsWith("/gmail/") && !path.startsWith("/calendar/")) return false;
    fake.apiCalls.push({ method: req.method ?? "GET", path, query: Object.fromEntries(url.searchParams) });
    if (!token || !fake.validAccessTokens.has(token)) {
      sendJson(res, 401, { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } });
      return true;
    }
    const failure = failures.next();
    if (failure) {
      sendJson(
        res,
        failure.status,
        { error: { code: failure.status, message: "Rate Limit Exceeded" } },
        failure.retryAfter ? { "retry-after": failure.retryAfter } : {},
      );
      return true;
    }
    const api = "/gmail/v1/users/me";
    if (path === `${api}/profile`) {
      sendJson(res, 200, { emailAddress: account.email, messagesTotal: messages.length, historyId: String(historyId) });
    } else if (path === `${api}/messages`) {
      const max = Number(url.searchParams.get("maxResults") ?? 100);
      const list = [...messages]
        .reverse()
        .slice(0, max)
        .map((m) => ({ id: m.id, threadId: m.id }));
      sendJson(res, 200, { messages: list, resultSizeEstimate: list.length });
    } else if (path.startsWith(`${api}/messages/`)) {
      const found = messages.find((m) => m.id === decodeURIComponent(path.slice(`${api}/messages/`.length)));
      if (found) sendJson(res, 200, gmailMessage(found));
      else sendJson(res, 404, { error: { code: 404, message: "Requested entity was not found." } });
    } else if (path === `${api}/history`) {
      const start = Number(url.searchParams.get("startHistoryId"));
      if (!Number.isFinite(start) || start < 1000) {
        sendJson(res, 404, { error: { code: 404, message: "Requested entity was not found." } });
      } else {
        const added = messages.filter((m) => m.historyId > start);
        const history = added.map((m) => ({
          id: String(m.historyId),
          messages: [{ id: m.id, threadId: m.id }],
          messagesAdded: [{ message: { id: m.id, threadId: m.id, labelIds: ["INBOX", "UNREAD"] } }],
        }));
        sendJson(res, 200, { ...(history.length ? { history } : {}), historyId: String(historyId) });
      }
    } else if (path === "/calendar/v3/freeBusy" && req.method === "POST") {
      const q = JSON.parse(body || "{}");
      const inside = fake.busy.filter((b) => Date.parse(b.end) > Date.parse(q.timeMin) && Date.parse(b.start) < Date.parse(q.timeMax));
      sendJson(res, 200, { kind: "calendar#freeBusy", timeMin: q.timeMin, timeMax: q.timeMax, calendars: { primary: { busy: inside } } });
    } else if (path === "/calendar/v3/calendars/primary/events" && req.method === "POST") {
      const event = {
        kind: "calendar#event",
        id: `ev${fake.events.length + 1}`,
        status: "confirmed",
        htmlLink: "https://www.google.com/calendar/event?eid=x",
        ...JSON.parse(body || "{}"),
      };
      fake.events.push(event);
      sendJson(res, 200, event);
    } else if (path === "/calendar/v3/calendars/primary/events" && req.method === "GET") {
      const min = Date.parse(url.searchParams.get("timeMin") ?? "");
      const max = Date.parse(url.searchParams.get("timeMax") ?? "");
      const items = fake.events.filter(
        (e) => Date.parse(e.end?.dateTime ?? e.end?.date) > min && Date.parse(e.start?.dateTime ?? e.start?.date) < max,
      );
      sendJson(res, 200, { kind: "calendar#events", items });
    } else {
      return false;
    }
    return true;
  };

  const fake = (await startFakeOAuth({
    issuerPath: "",
    authorizePath: "/o/oauth2/v2/auth",
    tokenPath: "/token",
    revokePath: "/revoke",
    clientId: GOOGLE_CLIENT.id,
    clientSecret: GOOGLE_CLIENT.secret,
    account,
    api,
  })) as FakeGoogle;
  Object.assign(fake, extra);
  fake.env = {
    GOOGLE_CLIENT_ID: GOOGLE_CLIENT.id,
    GOOGLE_CLIENT_SECRET: GOOGLE_CLIENT.secret,
    GOOGLE_OAUTH_URL: fake.url,
    GOOGLE_API_URL: fake.url,
  };
  fake.deliver = (raw) => {
    historyId += 7;
    const id = `18c${(messages.length + 1).toString(16).padStart(13, "0")}`;
    messages.push({ id, historyId, raw, internalDate: raw.date?.getTime() ?? Date.now() });
    return id;
  };
  fake.failNext = failures.add;

  return fake;
}
