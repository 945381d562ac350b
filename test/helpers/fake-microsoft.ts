/**
 * A fake of Microsoft's servers on loopback (Entra ID and Graph are out of reach in tests), after
 * the public references: the v2.0 endpoint of a tenant (`/{tenant}/oauth2/v2.0/authorize` with a
 * consent form, `/token` with PKCE and refresh; no revocation endpoint, as at Microsoft) and
 * Graph v1.0 (`/me/mailFolders/inbox/messages/delta` with `$deltatoken` links,
 * `/me/messages/{id}?$select=internetMessageHeaders`, `/me/calendar/getSchedule`, `/me/events`,
 * `/me/calendarView`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type FakeProvider, failureQueue, sendJson, startFakeOAuth } from "./fake-oauth-provider.ts";

export const MICROSOFT_CLIENT = { id: "11111111-2222-3333-4444-555555555555", secret: "fake-microsoft-secret" };
const TENANT = "contoso.example";

export interface FakeOutlookMessage {
  from: { name?: string; address: string };
  subject: string;
  body: string;
  messageId: string;
  received?: Date;
  headers?: Record<string, string>;
}

export type FakeMicrosoft = FakeProvider<FakeOutlookMessage>;

export async function startFakeMicrosoft(account = { sub: "m-2002", email: "grace@contoso.example" }): Promise<FakeMicrosoft> {
  const messages: { id: string; seq: number; raw: FakeOutlookMessage; received: number }[] = [];
  let seq = 0;
  const failures = failureQueue();

  const graphMessage = (m: (typeof messages)[number], base: string) => ({
    id: m.id,
    internetMessageId: `<${m.raw.messageId}>`,
    subject: m.raw.subject,
    from: { emailAddress: { name: m.raw.from.name, address: m.raw.from.address } },
    toRecipients: [{ emailAddress: { name: "Grace", address: account.email } }],
    ccRecipients: [],
    receivedDateTime: new Date(m.received).toISOString().replace(/\.\d{3}Z$/, "Z"),
    body: { contentType: "text", content: m.raw.body },
    webLink: `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(m.id)}&exvsurl=1&viewmodel=ReadMessageItem`,
    "@odata.etag": `W/"${m.seq}"`,
    _base: base,
  });

  const api = async (req: IncomingMessage, res: ServerResponse, url: URL, body: string, token: string | null) => {
    const path = url.pathname;
    if (!path.startsWith("/v1.0/")) return false;
    fake.apiCalls.push({ method: req.method ?? "GET", path, query: Object.fromEntries(url.searchParams) });
    if (!token || !fake.validAccessTokens.has(token)) {
      sendJson(res, 401, { error: { code: "InvalidAuthenticationToken", message: "Access token has expired or is not yet valid." } });
      return true;
    }
    const failure = failures.next();
    if (failure) {
      sendJson(
        res,
        failure.status,
        { error: { code: "TooManyRequests", message: "Too many requests" } },
        failure.retryAfter ? { "retry-after": failure.retryAfter } : {},
      );
      return true;
    }
    const graph = `${fake.url}/v1.0`;
    if (path === "/v1.0/me/mailFolders/inbox/messages/delta") {
      const token = url.searchParams.get("$deltatoken");
      const after = token === null ? -1 : Number(token);
      let list = messages.filter((m) => m.seq > after);
      const filter = url.searchParams.get("$filter");
      const since = filter && /receivedDateTime ge (\S+)/.exec(filter)?.[1];
      if (token === null && since) list = list.filter((m) => m.received >= Date.parse(since));
      const value = list.map((m) => {
        const { _base, ...rest } = graphMessage(m, graph);
        return rest;
      });
      sendJson(res, 200, {
        "@odata.context": `${graph}/$metadata#Collection(message)`,
        value,
        "@odata.deltaLink": `${graph}/me/mailFolders/inbox/messages/delta?$deltatoken=${seq}`,
      });
    } else if (path.startsWith("/v1.0/me/messages/") && url.searchParams.get("$select") === "internetMessageHeaders") {
      const found = messages.find((m) => m.id === decodeURIComponent(path.slice("/v1.0/me/messages/".length)));
      if (!found) sendJson(res, 404, { error: { code: "ErrorItemNotFound", message: "The specified object was not found in the store." } });
      else
        sendJson(res, 200, {
          id: found.id,
          internetMessageHeaders: [
            { name: "Message-ID", value: `<${found.raw.messageId}>` },
            ...Object.entries(found.raw.headers ?? {}).map(([name, value]) => ({ name, value })),
          ],
        });
    } else if (path === "/v1.0/me/calendar/getSchedule" && req.method === "POST") {
      const q = JSON.parse(body || "{}");
      const start = Date.parse(`${q.startTime?.dateTime}Z`);
      const end = Date.parse(`${q.endTime?.dateTime}Z`);
      const items = fake.busy
        .filter((b) => Date.parse(b.end) > start && Date.parse(b.start) < end)
        .map((b) => ({
          status: "busy",
          start: { dateTime: b.start.replace(/Z$/, ".0000000"), timeZone: "UTC" },
          end: { dateTime: b.end.replace(/Z$/, ".0000000"), timeZone: "UTC" },
        }));
      sendJson(res, 200, { value: [{ scheduleId: q.schedules?.[0], availabilityView: "", scheduleItems: items, workingHours: {} }] });
    } else if (path === "/v1.0/me/events" && req.method === "POST") {
      const event = {
        id: `AAMk${fake.events.length + 1}`,
        webLink: "https://outlook.office365.com/owa/?itemid=x",
        ...JSON.parse(body || "{}"),
      };
      fake.events.push(event);
      sendJson(res, 201, event);
    } else if (path === "/v1.0/me/calendarView") {
      const min = Date.parse(url.searchParams.get("startDateTime") ?? "");
      const max = Date.parse(url.searchParams.get("endDateTime") ?? "");
      const at = (t: { dateTime: string }) => Date.parse(t.dateTime.endsWith("Z") ? t.dateTime : `${t.dateTime}Z`);
      sendJson(res, 200, { value: fake.events.filter((e) => at(e.end) > min && at(e.start) < max) });
    } else {
      return false;
    }
    return true;
  };

  const fake = (await startFakeOAuth({
    issuerPath: `/${TENANT}/v2.0`,
    authorizePath: `/${TENANT}/oauth2/v2.0/authorize`,
    tokenPath: `/${TENANT}/oauth2/v2.0/token`,
    revokePath: null,
    clientId: MICROSOFT_CLIENT.id,
    clientSecret: MICROSOFT_CLIENT.secret,
    account,
    api,
  })) as FakeMicrosoft;
  Object.assign(fake, { busy: [], events: [], apiCalls: [] });
  fake.env = {
    MICROSOFT_CLIENT_ID: MICROSOFT_CLIENT.id,
    MICROSOFT_CLIENT_SECRET: MICROSOFT_CLIENT.secret,
    MICROSOFT_TENANT: TENANT,
    MICROSOFT_LOGIN_URL: fake.url,
    MICROSOFT_GRAPH_URL: fake.url,
  };
  fake.deliver = (raw) => {
    seq += 1;
    const id = `AAMkAGI2${seq.toString().padStart(6, "0")}AAA=`;
    messages.push({ id, seq, raw, received: raw.received?.getTime() ?? Date.now() });
    return id;
  };
  fake.failNext = failures.add;

  return fake;
}
